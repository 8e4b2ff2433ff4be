// weft_postproc: the tensor unit's output stage, one weft_requant lane per column.
//
// Per column (channel) it holds the INT32 bias, the requantization multiplier (TFLite modes) or
// float32 scale (ONNX mode) and the shift, written through pc_* one column at a time. Per row it
// takes the mode, output zero point and activation clamp of the command being drained. With
// pack_i the INT8 results are packed one byte per column into the low Cols*8 bits of the output
// (upper bits zero); otherwise each column is a 32-bit lane. Fixed latency Latency, no stalls.
//
// With Fp, a row whose in_fmt_i is not INT takes the FP output stage instead (the bias and the
// scale in the mult slot are FP32 bits): weft_fp_pkg::fp_output, computed at the input and
// delayed to the same latency. Packed, an FP8 result takes one byte per column, BF16 two.
`include "weft_assert.svh"

module weft_postproc #(
  parameter int  Cols    = 4,
  parameter bit  Fp      = 1'b0,
  localparam int AccW    = weft_pkg::AccW,
  localparam int ColIdxW = (Cols > 1) ? $clog2(Cols) : 1,
  localparam int Latency = weft_pkg::RequantLatency
) (
  input  logic                 clk_i,
  input  logic                 rst_ni,
  // per-channel parameters
  input  logic                 pc_we_i,
  input  logic [ColIdxW-1:0]   pc_idx_i,
  input  logic [31:0]          pc_bias_i,
  input  logic [31:0]          pc_mult_i,
  input  logic [5:0]           pc_shift_i,
  // rows in
  input  logic                 in_valid_i,
  input  logic [Cols*AccW-1:0] in_data_i,
  input  logic [1:0]           in_mode_i,
  input  logic                 in_pack_i,
  input  logic [2:0]           in_fmt_i,
  input  logic                 in_relu_i,
  input  logic [31:0]          in_zp_i,
  input  logic [31:0]          in_act_min_i,
  input  logic [31:0]          in_act_max_i,
  // rows out
  output logic                 out_valid_o,
  output logic [Cols*AccW-1:0] out_data_o
);

  if (Cols < 1 || Cols > 64) begin : g_bad_cols
    `WEFT_ELAB_ERROR("weft_postproc: Cols must be in 1..64")
  end

  logic [Cols*AccW-1:0] lane_data, int_data, fp_data;
  logic [Cols-1:0]      lane_valid;
  logic                 pack_out, valid_out;
  logic [2:0]           fmt_out;

  for (genvar c = 0; c < Cols; c++) begin : g_lane
    logic [31:0] bias_q, mult_q;
    logic [5:0]  shift_q;

    always_ff @(posedge clk_i or negedge rst_ni) begin
      if (!rst_ni) begin
        bias_q  <= '0;
        mult_q  <= '0;
        shift_q <= '0;
      end else if (pc_we_i && pc_idx_i == ColIdxW'(c)) begin
        bias_q  <= pc_bias_i;
        mult_q  <= pc_mult_i;
        shift_q <= pc_shift_i;
      end
    end

    weft_requant u_requant (
      .clk_i,
      .rst_ni,
      .in_valid_i   (in_valid_i),
      .in_acc_i     (in_data_i[c*AccW +: AccW]),
      .in_bias_i    (bias_q),
      .in_mult_i    (mult_q),
      .in_shift_i   (shift_q),
      .in_mode_i    (in_mode_i),
      .in_zp_i      (in_zp_i),
      .in_act_min_i (in_act_min_i),
      .in_act_max_i (in_act_max_i),
      .out_valid_o  (lane_valid[c]),
      .out_data_o   (int_data[c*AccW +: AccW])
    );

    if (Fp) begin : g_fp
      logic [31:0] fp_y;
      weft_fp_out u_fp_out (
        .en_i    (in_valid_i && in_fmt_i != weft_pkg::FmtInt),
        .acc_i   (in_data_i[c*AccW +: AccW]),
        .scale_i (mult_q),
        .bias_i  (bias_q),
        .fmt_i   (in_fmt_i),
        .relu_i  (in_relu_i),
        .y_o     (fp_y)
      );
      weft_delay #(.Width(32), .Depth(Latency)) u_fp_delay (
        .clk_i,
        .rst_ni,
        .in_i  (fp_y),
        .out_o (fp_data[c*AccW +: AccW])
      );
    end else begin : g_no_fp
      assign fp_data[c*AccW +: AccW] = '0;
    end
  end

  if (!Fp) begin : g_no_fp_flags
    logic unused_fp;
    assign unused_fp = in_relu_i ^ (|fp_data);
  end
  assign lane_data = (Fp && fmt_out != weft_pkg::FmtInt) ? fp_data : int_data;

  // The pack flag and the format travel beside the lanes with the same latency.
  weft_delay #(.Width(5), .Depth(Latency)) u_pack (
    .clk_i,
    .rst_ni,
    .in_i  ({in_valid_i, in_pack_i, in_fmt_i}),
    .out_o ({valid_out, pack_out, fmt_out})
  );

  always_comb begin
    out_data_o = lane_data;
    if (Fp && pack_out && fmt_out == weft_pkg::FmtBf16) begin
      out_data_o = '0;
      for (int c = 0; c < Cols; c++) out_data_o[c*16 +: 16] = lane_data[c*AccW +: 16];
    end else if (pack_out) begin
      out_data_o = '0;
      for (int c = 0; c < Cols; c++) out_data_o[c*8 +: 8] = lane_data[c*AccW +: 8];
    end
  end
  assign out_valid_o = valid_out;

`ifndef SYNTHESIS
  // weft_pkg::RequantLatency must be weft_requant's real pipeline depth.
  always_ff @(posedge clk_i or negedge rst_ni) begin : p_latency
    if (!rst_ni) begin
    end else begin
      assert (lane_valid == {Cols{valid_out}})
        else $error("weft_postproc: weft_pkg::RequantLatency differs from weft_requant's latency");
    end
  end
`endif

endmodule
