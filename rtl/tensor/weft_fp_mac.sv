// weft_fp_mac: a PE's floating-point step on the array's fixed-point partial sum:
// ps_o = ps_i + a * w, exact, for two decoded FP8 operands (weft_fp_pkg::fp_op_t); NaN (a NaN
// operand or Inf x 0) and infinite products set the sum's flags instead. A weight of class
// ClsAbsent leaves ps_i unchanged. Combinational; ps_o is '0 while en_i is low.
//
// Module logic inside one `if (en_i)` rather than a package function: a simulator then spends
// next to nothing on it for integer activations. (As a function call in each of 256 PEs, the
// simulator re-initialised the call's temporaries every cycle and an integer GEMM ran about
// 10x slower.)
module weft_fp_mac (
  input  logic                          en_i,
  input  logic [weft_fp_pkg::FpPsW-1:0] ps_i,
  input  logic [weft_fp_pkg::FpOpW-1:0] a_i,
  input  logic [weft_fp_pkg::FpOpW-1:0] w_i,
  output logic [weft_fp_pkg::FpPsW-1:0] ps_o
);

  localparam int FixW   = weft_fp_pkg::FixW;
  localparam int OpExpW = weft_fp_pkg::OpExpW;

  // weft_fp_pkg::fp_op_t's fields by hand (Icarus takes no package struct type here).
  logic [1:0]               a_cls, w_cls;
  logic                     a_sign, w_sign;
  logic signed [OpExpW-1:0] a_exp, w_exp;
  logic [7:0]               a_mag, w_mag;
  logic                   nan, pos_inf, neg_inf, a_zero, w_zero;
  logic signed [FixW-1:0] sum;
  logic [63:0]            term;  // < 2^64: an FP8 x FP8 product in units of 2^FixLsb
  logic [6:0]             sh;

  always_comb begin
    ps_o = '0;
    {a_cls, a_sign, a_exp, a_mag, w_cls, w_sign, w_exp, w_mag} = '0;
    {nan, pos_inf, neg_inf, a_zero, w_zero, sum, term, sh} = '0;
    if (en_i) begin
      {a_cls, a_sign, a_exp, a_mag} = a_i;
      {w_cls, w_sign, w_exp, w_mag} = w_i;
      {nan, pos_inf, neg_inf, sum} = ps_i;
      a_zero = (a_cls == weft_fp_pkg::ClsFinite) && (a_mag == '0);
      w_zero = (w_cls == weft_fp_pkg::ClsFinite) && (w_mag == '0);
      if (w_cls == weft_fp_pkg::ClsAbsent) begin
        // a short tile's missing row: nothing to add
      end else if (a_cls == weft_fp_pkg::ClsNan || w_cls == weft_fp_pkg::ClsNan ||
                   (a_cls == weft_fp_pkg::ClsInf && w_zero) ||
                   (w_cls == weft_fp_pkg::ClsInf && a_zero)) begin
        nan = 1'b1;
      end else if (a_cls == weft_fp_pkg::ClsInf || w_cls == weft_fp_pkg::ClsInf) begin
        if (a_sign ^ w_sign) neg_inf = 1'b1;
        else                 pos_inf = 1'b1;
      end else begin
        // FP8 exponents (LSB weights) are at least -16, so sh >= 0; at most 58 (E5M2 x E5M2).
        sh   = 7'(a_exp + w_exp - 10'(weft_fp_pkg::FixLsb));
        term = 64'(16'(a_mag) * 16'(w_mag)) << sh;
        sum  = (a_sign ^ w_sign) ? sum - FixW'(term) : sum + FixW'(term);
      end
      ps_o = {nan, pos_inf, neg_inf, sum};
    end
  end

endmodule
