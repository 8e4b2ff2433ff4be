// tb_fp_unit: test top for the tensor unit's FP arithmetic (Verilator block test test_fp_unit).
// Lives in tb/ (not in the RTL manifest): it only wraps RTL so that the test can drive raw
// element encodings, the way the tensor unit's datapath sees them.
//   - u_pe: one FP-capable weft_pe. Its weight and activation ports take raw FP8 or BF16
//     encodings, decoded here with weft_fp_pkg::fp_lane_operand(bits, fmt) exactly as
//     weft_tensor_unit decodes an element before it enters the array, so the test checks decode
//     and product together. a_fp_i is tied high: every activation takes the FP datapath.
//   - ps_i / ps_o: the PE's FP partial sum (fp_ps_i / fp_ps_o) in the array's own form
//     (weft_fp_pkg::FpPsW bits: FP8, the exact fixed-point sum with NaN / Inf flags; BF16, an
//     FP32 value in the low 32 bits), and edge_o: for FP8 fp_fixed_to_fp32(ps_o), the one
//     rounding weft_tensor_unit applies where a column leaves the array, for BF16 ps_o's FP32
//     value as the array passes it on: the FP32 value the golden model defines.
//   - out_y_o: weft_fp_pkg::fp_output (STORE_ACC's FP output stage) as a purely combinational
//     port, so the test can sweep it with eval() alone, no clock.
module tb_fp_unit (
  input  logic        clk_i,
  input  logic        rst_ni,
  // weight write port: raw encoding and its format (weft_pkg::Fmt*)
  input  logic        w_we_i,
  input  logic        w_buf_i,
  input  logic [2:0]  w_fmt_i,
  input  logic [15:0] w_bits_i,
  // activation: raw encoding, its format, and the weight buffer it multiplies with
  input  logic        a_valid_i,
  input  logic        a_buf_i,
  input  logic [2:0]  a_fmt_i,
  input  logic [15:0] a_bits_i,
  // partial sum in, ps_i + a * w out one cycle later, and that sum rounded to FP32
  input  logic [weft_fp_pkg::FpPsW-1:0] ps_i,
  output logic [weft_fp_pkg::FpPsW-1:0] ps_o,
  output logic [31:0] edge_o,
  // the PE's forwarded activation (connected so that no PE output is left dangling)
  output logic        a_valid_o,
  output logic        a_buf_o,
  output logic        a_fp_o,
  output logic [weft_fp_pkg::FpLaneW-1:0] a_data_o,
  // output stage: y = fp_output(acc, scale, bias, fmt, relu), combinational
  input  logic [31:0] out_acc_i,
  input  logic [31:0] out_scale_i,
  input  logic [31:0] out_bias_i,
  input  logic [2:0]  out_fmt_i,
  input  logic        out_relu_i,
  output logic [31:0] out_y_o
);

  localparam int OpW = weft_fp_pkg::FpLaneW;

  logic [OpW-1:0] w_op, a_op;
  assign w_op = weft_fp_pkg::fp_lane_operand(w_bits_i, w_fmt_i);
  assign a_op = weft_fp_pkg::fp_lane_operand(a_bits_i, a_fmt_i);

  logic [31:0] int_ps_o;  // the integer partial sum: don't-care for FP activations

  weft_pe #(.Fp(1'b1), .OpW(OpW)) u_pe (
    .clk_i,
    .rst_ni,
    .w_we_i,
    .w_buf_i,
    .w_data_i  (w_op),
    .a_valid_i,
    .a_buf_i,
    .a_fp_i    (1'b1),
    .a_data_i  (a_op),
    .a_valid_o,
    .a_buf_o,
    .a_fp_o,
    .a_data_o,
    .ps_i      (32'h0),
    .ps_o      (int_ps_o),
    .fp_ps_i   (ps_i),
    .fp_ps_o   (ps_o)
  );

  logic unused_int_ps;
  assign unused_int_ps = ^int_ps_o;

  assign edge_o = (a_fmt_i == weft_pkg::FmtBf16) ? ps_o[31:0]
                                                 : weft_fp_pkg::fp_fixed_to_fp32(ps_o);

  assign out_y_o = weft_fp_pkg::fp_output(out_acc_i, out_scale_i, out_bias_i, out_fmt_i,
                                          out_relu_i);

endmodule
