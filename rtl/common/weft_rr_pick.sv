// weft_rr_pick: the round-robin choice every Weft arbiter makes (one copy of the search).
//
// req_i[i] says requester i wants a turn. idx_o is the lowest requesting index at or after the
// pointer, else (wrap-around) the lowest requesting index; any_o says there is a request at all
// (idx_o is 0 when there is none). onehot_o is idx_o as a one-hot vector, all zero without a
// request. All three are combinational in req_i and the pointer.
// The pointer (reset 0) moves only on adv_i: to adv_idx_i + 1 (mod N), so the search in the next
// cycle starts after the requester that was just served. Callers pass adv_idx_i = idx_o, or the
// index they actually served when that can differ from this cycle's pick (weft_rr_arbiter keeps
// a stalled grant).
// Flat ports, no types: a leaf primitive for Verilator, Icarus and Yosys.
`include "weft_assert.svh"

module weft_rr_pick #(
  parameter int  N    = 2,
  localparam int IdxW = (N > 1) ? $clog2(N) : 1
) (
  input  logic            clk_i,
  input  logic            rst_ni,
  input  logic [N-1:0]    req_i,
  output logic            any_o,
  output logic [IdxW-1:0] idx_o,
  output logic [N-1:0]    onehot_o,
  input  logic            adv_i,
  input  logic [IdxW-1:0] adv_idx_i
);

  if (N < 1) begin : g_bad_n
    `WEFT_ELAB_ERROR("weft_rr_pick: N must be >= 1")
  end

  logic [IdxW-1:0] ptr_q, ptr_d;  // first index the search looks at

  // Constant indices only: one pass for the wrap-around winner, one for the winner at or after
  // ptr_q, which takes precedence.
  always_comb begin : p_pick
    idx_o = '0;
    any_o = 1'b0;
    for (int i = N - 1; i >= 0; i--) begin
      if (req_i[i]) begin
        idx_o = IdxW'(i);
        any_o = 1'b1;
      end
    end
    for (int i = N - 1; i >= 0; i--) begin
      if (req_i[i] && IdxW'(i) >= ptr_q) idx_o = IdxW'(i);
    end
  end

  always_comb begin : p_onehot
    onehot_o = '0;
    for (int i = 0; i < N; i++) begin
      if (any_o && idx_o == IdxW'(i)) onehot_o[i] = 1'b1;
    end
  end

  always_comb begin : p_ptr
    ptr_d = ptr_q;
    if (adv_i) ptr_d = (adv_idx_i == IdxW'(N - 1)) ? '0 : adv_idx_i + 1'b1;
  end

  always_ff @(posedge clk_i or negedge rst_ni) begin : p_regs
    if (!rst_ni) ptr_q <= '0;
    else         ptr_q <= ptr_d;
  end

endmodule
