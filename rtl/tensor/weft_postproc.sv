// weft_postproc: the tensor unit's output stage, one weft_requant lane per column.
//
// Per column (channel) it holds the INT32 bias, the requantization multiplier (TFLite modes) or
// float32 scale (ONNX mode) and the shift, written through pc_* one column at a time. Per row it
// takes the mode, output zero point and activation clamp of the command being drained. With
// pack_i the INT8 results are packed one byte per column into the low Cols*8 bits of the output
// (upper bits zero); otherwise each column is a 32-bit lane. Fixed latency Latency, no stalls.
`include "weft_assert.svh"

module weft_postproc #(
  parameter int  Cols    = 4,
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

  logic [Cols*AccW-1:0] lane_data;
  logic [Cols-1:0]      lane_valid;
  logic                 pack_out, valid_out;

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
      .out_data_o   (lane_data[c*AccW +: AccW])
    );
  end

  // The pack flag travels beside the lanes with the same latency.
  weft_delay #(.Width(2), .Depth(Latency)) u_pack (
    .clk_i,
    .rst_ni,
    .in_i  ({in_valid_i, in_pack_i}),
    .out_o ({valid_out, pack_out})
  );

  always_comb begin
    out_data_o = lane_data;
    if (pack_out) begin
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
