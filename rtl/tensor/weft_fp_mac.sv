// weft_fp_mac: a PE's floating-point step on the array's fixed-point partial sum
// (weft_fp_pkg::fp_mac_fixed): ps_o = ps_i + a * w, exact, for two decoded FP8 operands; NaN
// and infinite products set flags. A weight of class ClsAbsent leaves ps_i unchanged.
// Combinational; ps_o is '0 while en_i is low. An if rather than a mux, so that a simulator
// evaluates the datapath only for FP activations (an INT8 GEMM runs as fast as without it).
module weft_fp_mac (
  input  logic                          en_i,
  input  logic [weft_fp_pkg::FpPsW-1:0] ps_i,
  input  logic [weft_fp_pkg::FpOpW-1:0] a_i,
  input  logic [weft_fp_pkg::FpOpW-1:0] w_i,
  output logic [weft_fp_pkg::FpPsW-1:0] ps_o
);

  always_comb begin
    if (en_i) ps_o = weft_fp_pkg::fp_mac_fixed(ps_i, a_i, w_i);
    else      ps_o = '0;
  end

endmodule
