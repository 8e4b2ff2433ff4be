// weft_cmd_depchk: may descriptor `idx` start? (combinational)
//
// met_o: each of its five backward distances d (dep0, dep1 and the WAIT_* distances from
// weft_cmd_decode) is 0, or reaches a descriptor that has retired (d > idx - rptr = age: older than
// the oldest in flight; also every d > Inflight), or one that is done (ROB entry (idx-d) mod
// Inflight).
// order_ok_o: no error is recorded at or before idx (an engine never starts a descriptor past
// the error that stopped the queue).
`include "weft_assert.svh"

module weft_cmd_depchk #(
  parameter int  Inflight = 16,
  localparam int TagW     = $clog2(Inflight)
) (
  input  logic [31:0]         idx_i,
  input  logic [39:0]         deps_i,
  input  logic [31:0]         rptr_i,
  input  logic [Inflight-1:0] done_i,
  input  logic                err_valid_i,
  input  logic [31:0]         err_idx_i,
  output logic                met_o,
  output logic                order_ok_o
);

  if ((1 << TagW) != Inflight) begin : g_bad_inflight
    `WEFT_ELAB_ERROR("weft_cmd_depchk: Inflight must be a power of two")
  end

  logic [31:0] age;
  assign age = idx_i - rptr_i;

  always_comb begin : p_met
    met_o = 1'b1;
    for (int i = 0; i < 5; i++) begin
      logic [7:0]  d;
      logic [TagW-1:0] j;
      d = deps_i[i*8 +: 8];
      j = TagW'(idx_i - 32'(d));
      if (d != 8'd0 && 32'(d) <= age && !done_i[j]) met_o = 1'b0;
    end
  end

  assign order_ok_o = !err_valid_i || (age < (err_idx_i - rptr_i));

endmodule
