// weft_fp_out: one column of STORE_ACC's FP output stage (weft_fp_pkg::fp_output):
// y_o = relu?(fl32(fl32(acc_i * scale_i) + bias_i)) rounded into fmt_i (FP32, BF16, or FP8
// saturating). Combinational; y_o is '0 while en_i is low. Evaluated only when enabled, for the
// simulator's speed (see weft_fp_mac).
module weft_fp_out (
  input  logic        en_i,
  input  logic [31:0] acc_i,
  input  logic [31:0] scale_i,
  input  logic [31:0] bias_i,
  input  logic [2:0]  fmt_i,
  input  logic        relu_i,
  output logic [31:0] y_o
);
  assign y_o = weft_fp_pkg::fp_output_en(en_i, acc_i, scale_i, bias_i, fmt_i, relu_i);

endmodule
