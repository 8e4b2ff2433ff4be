// weft_rr_arbiter: round-robin arbiter of N valid/ready streams onto one.
//
// Inputs are flat vectors: input i is in_valid_i[i], in_ready_o[i], in_data_i[i*Width +: Width].
// The output carries the granted input's data and its index (out_idx_o).
// Arbitration is combinational (out_valid_o = OR of the requests, in_ready_o[i] = out_ready_i for
// the granted input): zero latency, one transfer per cycle. Add a weft_spill_register on the
// output to cut the paths.
// Fairness: after input i wins a transfer, the search for the next grant starts at i+1 (mod N),
// so a requester that keeps its valid high is served within N transfers.
// Stability: when the output is valid but not accepted, the grant is locked until the transfer
// happens, so out_idx_o and out_data_o stay stable (the granted input must itself hold valid and
// data, which its handshake checker asserts).
`include "weft_assert.svh"

module weft_rr_arbiter #(
  parameter int  N     = 2,
  parameter int  Width = 8,
  localparam int IdxW  = (N > 1) ? $clog2(N) : 1
) (
  input  logic               clk_i,
  input  logic               rst_ni,
  // N input streams, flat
  input  logic [N-1:0]       in_valid_i,
  output logic [N-1:0]       in_ready_o,
  input  logic [N*Width-1:0] in_data_i,
  // output stream
  output logic               out_valid_o,
  input  logic               out_ready_i,
  output logic [Width-1:0]   out_data_o,
  output logic [IdxW-1:0]    out_idx_o
);

  if (N < 1) begin : g_bad_n
    `WEFT_ELAB_ERROR("weft_rr_arbiter: N must be >= 1")
  end
  if (Width < 1) begin : g_bad_width
    `WEFT_ELAB_ERROR("weft_rr_arbiter: Width must be >= 1")
  end

  logic            lock_q, lock_d;          // output stalled at the last edge: keep the grant
  logic [IdxW-1:0] lock_idx_q, lock_idx_d;
  logic [IdxW-1:0] pick, grant;
  logic            any_valid;
  logic [N-1:0]    unused_onehot;

  // Round-robin choice (weft_rr_pick); the pointer moves past the input that transferred.
  weft_rr_pick #(.N(N)) u_pick (
    .clk_i,
    .rst_ni,
    .req_i     (in_valid_i),
    .any_o     (any_valid),
    .idx_o     (pick),
    .onehot_o  (unused_onehot),
    .adv_i     (out_valid_o && out_ready_i),
    .adv_idx_i (grant)
  );

  assign grant = lock_q ? lock_idx_q : pick;

  always_comb begin : p_out
    out_valid_o = lock_q ? 1'b0 : any_valid;
    out_data_o  = '0;
    in_ready_o  = '0;
    for (int i = 0; i < N; i++) begin
      if (grant == IdxW'(i)) begin
        out_data_o = in_data_i[i*Width +: Width];
        if (lock_q) out_valid_o = in_valid_i[i];
        in_ready_o[i] = out_ready_i;
      end
    end
  end

  assign out_idx_o = grant;

  always_comb begin : p_next
    lock_d     = out_valid_o && !out_ready_i;
    lock_idx_d = grant;
  end

  always_ff @(posedge clk_i or negedge rst_ni) begin : p_regs
    if (!rst_ni) begin
      lock_q     <= 1'b0;
      lock_idx_q <= '0;
    end else begin
      lock_q     <= lock_d;
      lock_idx_q <= lock_idx_d;
    end
  end

`ifndef SYNTHESIS
  for (genvar i = 0; i < N; i++) begin : g_in_check
    weft_hs_checker #(.Width(Width)) u_check (
      .clk_i,
      .rst_ni,
      .flush_i (1'b0),
      .valid_i (in_valid_i[i]),
      .ready_i (in_ready_o[i]),
      .data_i  (in_data_i[i*Width +: Width])
    );
  end

  weft_hs_checker #(.Width(IdxW + Width)) u_out_check (
    .clk_i,
    .rst_ni,
    .flush_i (1'b0),
    .valid_i (out_valid_o),
    .ready_i (out_ready_i),
    .data_i  ({out_idx_o, out_data_o})
  );

  // At most one input is ready, and only the granted one.
  always @(posedge clk_i or negedge rst_ni) begin : p_grant_check
    if (rst_ni) begin
      assert ((in_ready_o & (in_ready_o - 1'b1)) == '0)
        else $error("%m: more than one input ready: 'b%b", in_ready_o);
    end
  end
`endif

endmodule
