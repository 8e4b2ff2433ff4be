// weft_prop_axi_master: the AXI4 rules of Weft's DMA master port, as properties (docs/formal.md).
//
// Attached to an AXI4 master port (all signals are inputs here) and to the DMA windows it must
// stay in. What the master must do is stated with `WEFT_PROVE, what the slave must do with
// `WEFT_ASSUME (weft_prop.svh): under SymbiYosys the first are proven and the second constrain
// the slave; in simulation both are checked.
//
// Master (proven), AMBA AXI4 (IHI 0022) sections in brackets:
//   aw_stable, w_stable, ar_stable  a valid, once high, stays high with its payload unchanged
//                       until the handshake [A3.2.1].
//   aw_incr, ar_incr    every burst is INCR [A3.4.1]; aw_size, ar_size: full bus words;
//   aw_align, ar_align  the address is aligned to the bus word;
//   aw_len, ar_len      at most MaxBurst beats;
//   aw_4k, ar_4k        no burst crosses a 4 KiB boundary [A3.4.1];
//   aw_id, ar_id        IDs below NumIds (one per client).
//   w_has_aw            no W beat before its burst's address was offered: a W beat belongs to the
//                       oldest accepted AW whose data is incomplete, else to the AW being offered
//                       (stricter than AXI, which lets W lead AW; Weft's DMA never does) [A3.3.1];
//   w_last              WLAST on exactly the last beat of each burst (AWLEN + 1 beats) [A3.4.1];
//   aw_ahead            at most MaxAwAhead accepted AWs whose data is incomplete (the tracker's
//                       depth; weft_top keeps up to 8 addresses ahead of their data);
//   wr_out, rd_out      at most MaxWrOut writes awaiting B per ID, MaxRdOut reads awaiting their
//                       last R beat in all (the configured outstanding transactions);
//   aw_window, ar_window every beat of every burst, whole, inside a window that allows the
//                       access: base <= address and address + bytes <= limit, and the window's
//                       write (AW) or read (AR) permission. The DMA samples the windows when it
//                       checks a request (docs/dma.md), so the rule holds for windows that did not
//                       change while the master was busy: after a change while busy_i the check
//                       pauses until the master is idle (a proof assumes no such change).
// Slave (assumed in a proof, checked in simulation):
//   r_stable, b_stable  R / B held with their payload until the handshake;
//   r_has_ar            an R beat only for an ID with an accepted, unfinished read burst;
//   r_last              RLAST on exactly the last beat of that ID's oldest burst [A5.3];
//   b_has_w             a B only for an ID with a burst whose AW and last W beat were both
//                       accepted and that has no B yet [A3.3.1];
//   r_resp, b_resp      no EXOKAY (no exclusive accesses).
`include "weft_assert.svh"
`include "weft_prop.svh"

module weft_prop_axi_master #(
  parameter int  DataW      = 128,
  parameter int  AddrW      = 64,
  parameter int  IdW        = 4,
  parameter int  NumIds     = 2,   // IDs in use: 0 .. NumIds-1
  parameter int  NumWin     = 4,
  parameter int  MaxBurst   = 16,
  parameter int  MaxRdOut   = 8,   // read bursts awaiting their last beat, all IDs
  parameter int  MaxWrOut   = 8,   // write bursts awaiting B, per ID
  parameter int  MaxAwAhead = 8,   // accepted AWs whose W data is incomplete
  localparam int BB         = DataW / 8
) (
  input  logic               clk_i,
  input  logic               rst_ni,
  input  logic               busy_i,      // the master has work in progress (window rule)
  input  logic [NumWin*64-1:0] win_base_i,
  input  logic [NumWin*64-1:0] win_limit_i,
  input  logic [NumWin-1:0]  win_read_i,
  input  logic [NumWin-1:0]  win_write_i,
  input  logic               awvalid,
  input  logic               awready,
  input  logic [IdW-1:0]     awid,
  input  logic [AddrW-1:0]   awaddr,
  input  logic [7:0]         awlen,
  input  logic [2:0]         awsize,
  input  logic [1:0]         awburst,
  input  logic [3:0]         awcache,
  input  logic [2:0]         awprot,
  input  logic               wvalid,
  input  logic               wready,
  input  logic [DataW-1:0]   wdata,
  input  logic [BB-1:0]      wstrb,
  input  logic               wlast,
  input  logic               bvalid,
  input  logic               bready,
  input  logic [IdW-1:0]     bid,
  input  logic [1:0]         bresp,
  input  logic               arvalid,
  input  logic               arready,
  input  logic [IdW-1:0]     arid,
  input  logic [AddrW-1:0]   araddr,
  input  logic [7:0]         arlen,
  input  logic [2:0]         arsize,
  input  logic [1:0]         arburst,
  input  logic [3:0]         arcache,
  input  logic [2:0]         arprot,
  input  logic               rvalid,
  input  logic               rready,
  input  logic [IdW-1:0]     rid,
  input  logic [DataW-1:0]   rdata,
  input  logic [1:0]         rresp,
  input  logic               rlast
);

  localparam int OffW  = $clog2(BB);
  localparam int AxW   = IdW + AddrW + 8 + 3 + 2 + 4 + 3;
  localparam int AqW   = IdW + 8;                        // AW tracker entry: id, len
  localparam int AqCW  = $clog2(MaxAwAhead + 1);
  localparam int RqCW  = $clog2(MaxRdOut + 1);
  localparam int WoCW  = $clog2(MaxWrOut + 2);
  localparam int RoCW  = $clog2(MaxRdOut + 2);

  if (NumIds < 1 || NumIds > (1 << IdW) || MaxBurst < 1 || MaxBurst > 256 || MaxRdOut < 1 ||
      MaxWrOut < 1 || MaxAwAhead < 1 || NumWin < 1 || BB < 4 || AddrW < 13) begin : g_bad
    `WEFT_ELAB_ERROR("weft_prop_axi_master: parameter out of range")
  end

`ifdef WEFT_PROP_LIVE
  logic aw_hs, w_hs, b_hs, ar_hs, r_hs;
  assign aw_hs = awvalid && awready;
  assign w_hs  = wvalid && wready;
  assign b_hs  = bvalid && bready;
  assign ar_hs = arvalid && arready;
  assign r_hs  = rvalid && rready;

  // ---------------------------------------------------------------- handshakes [A3.2.1]
  weft_prop_channel #(.W(AxW), .Prove(1'b1)) aw_stable (
    .clk_i, .rst_ni, .valid(awvalid), .ready(awready),
    .payload({awid, awaddr, awlen, awsize, awburst, awcache, awprot}));
  weft_prop_channel #(.W(DataW + BB + 1), .Prove(1'b1)) w_stable (
    .clk_i, .rst_ni, .valid(wvalid), .ready(wready), .payload({wdata, wstrb, wlast}));
  weft_prop_channel #(.W(AxW), .Prove(1'b1)) ar_stable (
    .clk_i, .rst_ni, .valid(arvalid), .ready(arready),
    .payload({arid, araddr, arlen, arsize, arburst, arcache, arprot}));
  weft_prop_channel #(.W(IdW + 2), .Prove(1'b0)) b_stable (
    .clk_i, .rst_ni, .valid(bvalid), .ready(bready), .payload({bid, bresp}));
  weft_prop_channel #(.W(IdW + DataW + 3), .Prove(1'b0)) r_stable (
    .clk_i, .rst_ni, .valid(rvalid), .ready(rready), .payload({rid, rdata, rresp, rlast}));

  // ---------------------------------------------------------------- write tracker
  // awq: accepted AWs whose W burst is not complete, oldest at entry 0 ({id, len} each).
  logic [MaxAwAhead*AqW-1:0] awq_q, awq_d;
  logic [AqCW-1:0]           awq_n_q, awq_n_d;
  logic [7:0]                wbeat_q, wbeat_d;   // W beats of the current burst so far
  logic                      wahead_q, wahead_d; // a whole W burst before its AW was accepted
  logic [NumIds*WoCW-1:0]    wdone_q, wdone_d;   // per ID: AW and W complete, no B yet
  logic [NumIds*WoCW-1:0]    wout_q, wout_d;     // per ID: AW accepted, no B yet
  logic [7:0]                wlen;               // AWLEN of the burst W is sending
  logic [IdW-1:0]            wid;
  logic                      w_owner;            // the current W beat has an AW
  logic                      w_end;              // the current W handshake ends its burst

  assign w_owner = (awq_n_q != '0) || (awvalid && !wahead_q);
  assign wlen    = (awq_n_q != '0) ? awq_q[7:0] : awlen;
  assign wid     = (awq_n_q != '0) ? awq_q[AqW-1:8] : awid;
  assign w_end   = w_hs && (wbeat_q == wlen);

  always_comb begin : p_wtrack
    logic [AqCW-1:0] n;
    awq_d    = awq_q;
    n        = awq_n_q;
    wbeat_d  = wbeat_q;
    wahead_d = wahead_q;
    wdone_d  = wdone_q;
    wout_d   = wout_q;
    if (w_hs) wbeat_d = w_end ? 8'd0 : wbeat_q + 8'd1;
    // W ends the burst at the head of awq: it leaves awq.
    if (w_end && awq_n_q != '0) begin
      awq_d = awq_d >> AqW;
      n     = n - 1'b1;
      for (int i = 0; i < NumIds; i++) begin
        if (awq_q[AqW-1:8] == IdW'(i)) wdone_d[i*WoCW +: WoCW] = wdone_d[i*WoCW +: WoCW] + 1'b1;
      end
    end
    if (aw_hs) begin
      for (int i = 0; i < NumIds; i++) begin
        if (awid == IdW'(i)) wout_d[i*WoCW +: WoCW] = wout_d[i*WoCW +: WoCW] + 1'b1;
      end
      if ((wahead_q || (w_end && awq_n_q == '0))) begin
        // its data already went (or goes now): complete at once
        wahead_d = 1'b0;
        for (int i = 0; i < NumIds; i++) begin
          if (awid == IdW'(i)) wdone_d[i*WoCW +: WoCW] = wdone_d[i*WoCW +: WoCW] + 1'b1;
        end
      end else begin
        for (int e = 0; e < MaxAwAhead; e++) begin
          if (32'(n) == e) awq_d[e*AqW +: AqW] = {awid, awlen};
        end
        if (32'(n) < MaxAwAhead) n = n + 1'b1;
      end
    end else if (w_end && awq_n_q == '0) begin
      wahead_d = 1'b1;
    end
    if (b_hs) begin
      for (int i = 0; i < NumIds; i++) begin
        if (bid == IdW'(i)) begin
          wdone_d[i*WoCW +: WoCW] = wdone_d[i*WoCW +: WoCW] - 1'b1;
          wout_d[i*WoCW +: WoCW]  = wout_d[i*WoCW +: WoCW] - 1'b1;
        end
      end
    end
    awq_n_d = n;
  end

  logic aw_full;  // an AW accepted now would not fit the tracker
  assign aw_full = (32'(awq_n_q) == MaxAwAhead) && !(w_end && awq_n_q != '0) &&
                   !(wahead_q || (w_end && awq_n_q == '0));

  // ---------------------------------------------------------------- read tracker
  // Per ID: the lengths of accepted read bursts not yet finished, oldest at entry 0, and the
  // beats of the oldest received so far.
  logic [NumIds*MaxRdOut*8-1:0] rq_q, rq_d;
  logic [NumIds*RqCW-1:0]       rq_n_q, rq_n_d;
  logic [NumIds*8-1:0]          rbeat_q, rbeat_d;
  logic [RoCW-1:0]              rout_q, rout_d;
  logic                         r_known;          // RID is an ID in use with a burst open
  logic [7:0]                   r_len, r_beat;

  always_comb begin : p_rsel
    r_known = 1'b0;
    r_len   = '0;
    r_beat  = '0;
    for (int i = 0; i < NumIds; i++) begin
      if (rid == IdW'(i)) begin
        r_known = (rq_n_q[i*RqCW +: RqCW] != '0);
        r_len   = rq_q[i*MaxRdOut*8 +: 8];
        r_beat  = rbeat_q[i*8 +: 8];
      end
    end
  end

  always_comb begin : p_rtrack
    rq_d    = rq_q;
    rq_n_d  = rq_n_q;
    rbeat_d = rbeat_q;
    rout_d  = rout_q;
    for (int i = 0; i < NumIds; i++) begin
      logic [MaxRdOut*8-1:0] q;
      logic [RqCW-1:0]       n;
      q = rq_q[i*MaxRdOut*8 +: MaxRdOut*8];
      n = rq_n_q[i*RqCW +: RqCW];
      if (r_hs && rid == IdW'(i)) begin
        if (rlast) begin
          q = q >> 8;
          if (n != '0) n = n - 1'b1;
          rbeat_d[i*8 +: 8] = 8'd0;
        end else begin
          rbeat_d[i*8 +: 8] = rbeat_q[i*8 +: 8] + 8'd1;
        end
      end
      if (ar_hs && arid == IdW'(i)) begin
        for (int e = 0; e < MaxRdOut; e++) begin
          if (32'(n) == e) q[e*8 +: 8] = arlen;
        end
        if (32'(n) < MaxRdOut) n = n + 1'b1;
      end
      rq_d[i*MaxRdOut*8 +: MaxRdOut*8] = q;
      rq_n_d[i*RqCW +: RqCW]           = n;
    end
    if (ar_hs) rout_d = rout_d + 1'b1;
    if (r_hs && rlast && rout_q != '0) rout_d = rout_d - 1'b1;
  end

  always_ff @(posedge clk_i or negedge rst_ni) begin : p_track
    if (!rst_ni) begin
      awq_q    <= '0;
      awq_n_q  <= '0;
      wbeat_q  <= '0;
      wahead_q <= 1'b0;
      wdone_q  <= '0;
      wout_q   <= '0;
      rq_q     <= '0;
      rq_n_q   <= '0;
      rbeat_q  <= '0;
      rout_q   <= '0;
    end else begin
      awq_q    <= awq_d;
      awq_n_q  <= awq_n_d;
      wbeat_q  <= wbeat_d;
      wahead_q <= wahead_d;
      wdone_q  <= wdone_d;
      wout_q   <= wout_d;
      rq_q     <= rq_d;
      rq_n_q   <= rq_n_d;
      rbeat_q  <= rbeat_d;
      rout_q   <= rout_d;
    end
  end

  // ---------------------------------------------------------------- windows
  // win_ok_q: the windows have not changed while the master was busy since it was last idle.
  logic [NumWin*130-1:0] win_now, win_q;
  logic                  win_ok_q;
  assign win_now = {win_base_i, win_limit_i, win_read_i, win_write_i};

  always_ff @(posedge clk_i or negedge rst_ni) begin : p_win
    if (!rst_ni) begin
      win_ok_q <= 1'b1;
    end else if (!busy_i) begin
      win_ok_q <= 1'b1;
    end else if (win_now != win_q) begin
      win_ok_q <= 1'b0;
    end
  end
  always_ff @(posedge clk_i) begin : p_win_q
    win_q <= win_now;
  end

  // Burst [addr, addr + (len + 1) * BB) inside a window with the permission (65-bit sums).
  function automatic logic in_window(input logic [AddrW-1:0] addr, input logic [7:0] len,
                                     input logic [NumWin*64-1:0] base,
                                     input logic [NumWin*64-1:0] limit,
                                     input logic [NumWin-1:0] perm);
    logic [64:0] first, fin;
    logic        ok;
    first = 65'(addr);
    fin   = first + (65'(len) + 65'd1) * 65'(BB);
    ok    = 1'b0;
    for (int w = 0; w < NumWin; w++) begin
      if (perm[w] && first >= 65'(base[w*64 +: 64]) && fin <= 65'(limit[w*64 +: 64])) ok = 1'b1;
    end
    in_window = ok;
  endfunction

  // Burst inside its 4 KiB page.
  function automatic logic in_page(input logic [11:0] addr, input logic [7:0] len);
    in_page = (13'(addr) + ((13'(len) + 13'd1) << OffW)) <= 13'd4096;
  endfunction

  logic aw_in_win, ar_in_win;
  assign aw_in_win = in_window(awaddr, awlen, win_base_i, win_limit_i, win_write_i);
  assign ar_in_win = in_window(araddr, arlen, win_base_i, win_limit_i, win_read_i);

  logic wout_ok;  // every ID within MaxWrOut
  always_comb begin : p_wout_ok
    wout_ok = 1'b1;
    for (int i = 0; i < NumIds; i++) begin
      if (32'(wout_q[i*WoCW +: WoCW]) > MaxWrOut) wout_ok = 1'b0;
    end
  end

  // ---------------------------------------------------------------- properties
  always @(`WEFT_PROP_EVENT) begin : p_props
    if (rst_ni) begin
      // bursts
      if (awvalid) begin
        `WEFT_PROVE(aw_incr, (awburst == 2'b01), "AW burst not INCR")
        `WEFT_PROVE(aw_size, (awsize == 3'(OffW)), "AWSIZE not the bus width")
        `WEFT_PROVE(aw_align, (awaddr[OffW-1:0] == '0), "AWADDR not bus aligned")
        `WEFT_PROVE(aw_len, (32'(awlen) < MaxBurst), "AW burst longer than MaxBurst")
        `WEFT_PROVE(aw_4k, in_page(awaddr[11:0], awlen), "AW burst crosses 4 KiB")
        `WEFT_PROVE(aw_id, (32'(awid) < NumIds), "AWID not in use")
        if (win_ok_q) begin
          `WEFT_PROVE(aw_window, aw_in_win, "AW burst not inside a writable window")
        end
      end
      if (aw_hs) begin
        `WEFT_PROVE(aw_ahead, !aw_full, "more AWs ahead of their data than MaxAwAhead")
      end
      if (arvalid) begin
        `WEFT_PROVE(ar_incr, (arburst == 2'b01), "AR burst not INCR")
        `WEFT_PROVE(ar_size, (arsize == 3'(OffW)), "ARSIZE not the bus width")
        `WEFT_PROVE(ar_align, (araddr[OffW-1:0] == '0), "ARADDR not bus aligned")
        `WEFT_PROVE(ar_len, (32'(arlen) < MaxBurst), "AR burst longer than MaxBurst")
        `WEFT_PROVE(ar_4k, in_page(araddr[11:0], arlen), "AR burst crosses 4 KiB")
        `WEFT_PROVE(ar_id, (32'(arid) < NumIds), "ARID not in use")
        if (win_ok_q) begin
          `WEFT_PROVE(ar_window, ar_in_win, "AR burst not inside a readable window")
        end
      end
      if (wvalid) begin
        `WEFT_PROVE(w_has_aw, w_owner, "W beat without its AW")
        `WEFT_PROVE(w_last, (wlast == (wbeat_q == wlen)), "WLAST not on the burst's last beat")
      end
      `WEFT_PROVE(rd_out, (32'(rout_q) <= MaxRdOut), "more reads outstanding than MaxRdOut")
      `WEFT_PROVE(wr_out, wout_ok, "more writes of an ID awaiting B than MaxWrOut")
      // the slave's responses
      if (rvalid) begin
        `WEFT_ASSUME(r_has_ar, r_known, "R beat for an ID without an open read burst")
        `WEFT_ASSUME(r_last, (rlast == (r_beat == r_len)), "RLAST not on the burst's last beat")
        `WEFT_ASSUME(r_resp, (rresp != 2'b01), "RRESP EXOKAY")
      end
      if (bvalid) begin
        `WEFT_ASSUME(b_has_w, (32'(bid) < NumIds && wdone_q[32'(bid)*WoCW +: WoCW] != '0), "B for an ID without a completed write")
        `WEFT_ASSUME(b_resp, (bresp != 2'b01), "BRESP EXOKAY")
      end
    end
  end

  logic unused;
  assign unused = ^{wid, wstrb, rdata};
`else
  logic unused;
  assign unused = ^{clk_i, rst_ni, busy_i, win_base_i, win_limit_i, win_read_i, win_write_i,
                    awvalid, awready, awid, awaddr, awlen, awsize, awburst, awcache, awprot,
                    wvalid, wready, wdata, wstrb, wlast, bvalid, bready, bid, bresp, arvalid,
                    arready, arid, araddr, arlen, arsize, arburst, arcache, arprot, rvalid, rready,
                    rid, rdata, rresp, rlast};
`endif

endmodule
