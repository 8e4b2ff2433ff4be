// weft_prop_channel: the handshake rule of one valid / ready channel, as a property
// (docs/formal.md): once VALID is high it stays high, with its payload unchanged, until READY
// (AMBA AXI A3.2.1; weft_pcie_rd's MRd and weft_cmd_fetch's requests follow the same rule).
//
// Prove = 1 when the design under check drives the channel (an obligation, `WEFT_PROVE), 0 when
// its environment does (`WEFT_ASSUME: constrains a proof, checked in simulation). The bus
// property modules instantiate one per channel, named after the property (`aw_stable`, ...), so
// a failure reads "<instance>.aw_stable: held: ...".
`include "weft_prop.svh"

module weft_prop_channel #(
  parameter int W     = 1,
  parameter bit Prove = 1'b1
) (
  input  logic         clk_i,
  input  logic         rst_ni,
  input  logic         valid,
  input  logic         ready,
  input  logic [W-1:0] payload
);

`ifdef WEFT_PROP_LIVE
  logic         stall_q;
  logic [W-1:0] payload_q;

  always_ff @(posedge clk_i or negedge rst_ni) begin : p_stall
    if (!rst_ni) stall_q <= 1'b0;
    else         stall_q <= valid && !ready;
  end

  always_ff @(posedge clk_i) begin : p_payload
    payload_q <= payload;
  end

  // One checking block per role (a generate branch each: the label is the same).
  if (Prove) begin : g_prove
    always @(`WEFT_PROP_EVENT) begin : p_props
      if (rst_ni && stall_q) begin
        `WEFT_PROVE(held, (valid && payload == payload_q), "dropped or changed while stalled")
      end
    end
  end else begin : g_assume
    always @(`WEFT_PROP_EVENT) begin : p_props
      if (rst_ni && stall_q) begin
        `WEFT_ASSUME(held, (valid && payload == payload_q), "dropped or changed while stalled")
      end
    end
  end
`else
  logic unused;
  assign unused = ^{clk_i, rst_ni, valid, ready, payload};
`endif

endmodule
