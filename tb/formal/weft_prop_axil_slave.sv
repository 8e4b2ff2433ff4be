// weft_prop_axil_slave: the AXI4-Lite rules of a slave port, as properties (docs/formal.md).
//
// Attached to the slave's port (all signals are inputs here). What the slave must do is stated
// with `WEFT_PROVE, what the master must do with `WEFT_ASSUME (weft_prop.svh): under SymbiYosys
// the first are proven and the second constrain the master; in simulation both are checked.
//
// Slave (proven):
//   b_stable, r_stable      BVALID / RVALID, once high, stay high with BRESP / RDATA, RRESP
//                           unchanged until the handshake (AMBA AXI A3.2.1).
//   b_no_request            BVALID only while a write is held whose address and data were both
//                           accepted and not yet answered (A3.3.1: B follows AW and W);
//   r_no_request            RVALID only while an accepted read is not yet answered. With the
//                           counts below, each request gets exactly one response.
//   aw_max, w_max, ar_max   at most MaxOut requests accepted and not yet answered, per channel.
//   b_latency, r_latency    once a complete request is held and no response is pending, the
//                           response comes within MaxWait cycles (bounded latency).
//   aw_idle_ready, ...      (ReadyWhenIdle) a slave that holds no request of a channel is ready
//                           on it: an idle slave never blocks the master.
//   b_resp, r_resp          no EXOKAY: AXI4-Lite has no exclusive accesses (B1.1.1).
// Master (assumed in a proof, checked in simulation):
//   aw_stable, w_stable, ar_stable  AWVALID / WVALID / ARVALID, once high, stay high with their
//                           payload unchanged until the handshake.
// The counts of accepted, unanswered requests are outputs, so that a proof can tie them to the
// slave's own state (induction).
`include "weft_assert.svh"
`include "weft_prop.svh"

module weft_prop_axil_slave #(
  parameter int  AddrW         = 12,
  parameter int  MaxOut        = 2,      // requests accepted and not answered, per channel
  parameter int  MaxWait       = 1,      // cycles a complete request waits for its response
  parameter bit  ReadyWhenIdle = 1'b1,
  localparam int CntW          = 4
) (
  input  logic             clk_i,
  input  logic             rst_ni,
  input  logic             awvalid,
  input  logic             awready,
  input  logic [AddrW-1:0] awaddr,
  input  logic [2:0]       awprot,
  input  logic             wvalid,
  input  logic             wready,
  input  logic [31:0]      wdata,
  input  logic [3:0]       wstrb,
  input  logic             bvalid,
  input  logic             bready,
  input  logic [1:0]       bresp,
  input  logic             arvalid,
  input  logic             arready,
  input  logic [AddrW-1:0] araddr,
  input  logic [2:0]       arprot,
  input  logic             rvalid,
  input  logic             rready,
  input  logic [31:0]      rdata,
  input  logic [1:0]       rresp,
  output logic [CntW-1:0]  aw_pend_o,  // AW accepted, no B yet
  output logic [CntW-1:0]  w_pend_o,   // W accepted, no B yet
  output logic [CntW-1:0]  ar_pend_o   // AR accepted, no R yet
);

  if (MaxOut < 1 || MaxOut >= (1 << CntW) - 1 || MaxWait < 0 || MaxWait > 14) begin : g_bad
    `WEFT_ELAB_ERROR("weft_prop_axil_slave: MaxOut must be in 1..14 and MaxWait in 0..14")
  end

`ifdef WEFT_PROP_LIVE
  logic aw_hs, w_hs, b_hs, ar_hs, r_hs;
  assign aw_hs = awvalid && awready;
  assign w_hs  = wvalid && wready;
  assign b_hs  = bvalid && bready;
  assign ar_hs = arvalid && arready;
  assign r_hs  = rvalid && rready;

  // ---------------------------------------------------------------- history
  logic [CntW-1:0]  aw_pend_q, w_pend_q, ar_pend_q, b_wait_q, r_wait_q;
  logic             b_waiting, r_waiting;

  assign b_waiting = (aw_pend_q != '0) && (w_pend_q != '0) && !bvalid;
  assign r_waiting = (ar_pend_q != '0) && !rvalid;

  always_ff @(posedge clk_i or negedge rst_ni) begin : p_hist
    if (!rst_ni) begin
      aw_pend_q  <= '0;
      w_pend_q   <= '0;
      ar_pend_q  <= '0;
      b_wait_q   <= '0;
      r_wait_q   <= '0;
    end else begin
      aw_pend_q  <= aw_pend_q + CntW'(aw_hs) - CntW'(b_hs);
      w_pend_q   <= w_pend_q + CntW'(w_hs) - CntW'(b_hs);
      ar_pend_q  <= ar_pend_q + CntW'(ar_hs) - CntW'(r_hs);
      b_wait_q   <= b_waiting ? ((b_wait_q == '1) ? b_wait_q : b_wait_q + 1'b1) : '0;
      r_wait_q   <= r_waiting ? ((r_wait_q == '1) ? r_wait_q : r_wait_q + 1'b1) : '0;
    end
  end

  // Handshakes [A3.2.1]: the master's channels assumed, the slave's proven.
  weft_prop_channel #(.W(AddrW + 3), .Prove(1'b0)) aw_stable (
    .clk_i, .rst_ni, .valid(awvalid), .ready(awready), .payload({awaddr, awprot}));
  weft_prop_channel #(.W(36), .Prove(1'b0)) w_stable (
    .clk_i, .rst_ni, .valid(wvalid), .ready(wready), .payload({wdata, wstrb}));
  weft_prop_channel #(.W(AddrW + 3), .Prove(1'b0)) ar_stable (
    .clk_i, .rst_ni, .valid(arvalid), .ready(arready), .payload({araddr, arprot}));
  weft_prop_channel #(.W(2), .Prove(1'b1)) b_stable (
    .clk_i, .rst_ni, .valid(bvalid), .ready(bready), .payload(bresp));
  weft_prop_channel #(.W(34), .Prove(1'b1)) r_stable (
    .clk_i, .rst_ni, .valid(rvalid), .ready(rready), .payload({rdata, rresp}));

  assign aw_pend_o = aw_pend_q;
  assign w_pend_o  = w_pend_q;
  assign ar_pend_o = ar_pend_q;

  // ---------------------------------------------------------------- properties
  always @(`WEFT_PROP_EVENT) begin : p_props
    if (rst_ni) begin
      // slave
      if (bvalid) begin
        `WEFT_PROVE(b_no_request, (aw_pend_q != '0 && w_pend_q != '0), "B without an accepted AW and W")
        `WEFT_PROVE(b_resp, (bresp != 2'b01), "BRESP EXOKAY")
      end
      if (rvalid) begin
        `WEFT_PROVE(r_no_request, (ar_pend_q != '0), "R without an accepted AR")
        `WEFT_PROVE(r_resp, (rresp != 2'b01), "RRESP EXOKAY")
      end
      `WEFT_PROVE(aw_max, (aw_pend_q <= CntW'(MaxOut)), "more AW accepted than MaxOut")
      `WEFT_PROVE(w_max, (w_pend_q <= CntW'(MaxOut)), "more W accepted than MaxOut")
      `WEFT_PROVE(ar_max, (ar_pend_q <= CntW'(MaxOut)), "more AR accepted than MaxOut")
      if (b_waiting) begin
        `WEFT_PROVE(b_latency, (b_wait_q < CntW'(MaxWait)), "write response later than MaxWait cycles")
      end
      if (r_waiting) begin
        `WEFT_PROVE(r_latency, (r_wait_q < CntW'(MaxWait)), "read response later than MaxWait cycles")
      end
      if (ReadyWhenIdle) begin
        if (aw_pend_q == '0) begin
          `WEFT_PROVE(aw_idle_ready, awready, "AWREADY low while no write is held")
        end
        if (w_pend_q == '0) begin
          `WEFT_PROVE(w_idle_ready, wready, "WREADY low while no write is held")
        end
        if (ar_pend_q == '0) begin
          `WEFT_PROVE(ar_idle_ready, arready, "ARREADY low while no read is held")
        end
      end
    end
  end
`else
  assign aw_pend_o = '0;
  assign w_pend_o  = '0;
  assign ar_pend_o = '0;
  logic unused;
  assign unused = ^{clk_i, rst_ni, awvalid, awready, awaddr, awprot, wvalid, wready, wdata, wstrb,
                    bvalid, bready, bresp, arvalid, arready, araddr, arprot, rvalid, rready, rdata,
                    rresp};
`endif

endmodule
