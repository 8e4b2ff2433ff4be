// weft_fp_add32: sum_o = fl32(x_i + y_i), FP32 operands, rounded to nearest even (IEEE special
// values: weft_fp_pkg::fp_add). Combinational; sum_o is '0 while en_i is low. The accumulator's
// FP lane; evaluated only when enabled, for the simulator's speed (see weft_fp_mac).
module weft_fp_add32 (
  input  logic        en_i,
  input  logic [31:0] x_i,
  input  logic [31:0] y_i,
  output logic [31:0] sum_o
);
  assign sum_o = weft_fp_pkg::fp_add32_en(en_i, x_i, y_i);

endmodule
