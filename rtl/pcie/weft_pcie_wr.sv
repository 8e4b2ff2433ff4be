// weft_pcie_wr: the write side of weft_pcie_ep (docs/host-interfaces.md 1.3): AXI4 write bursts
// of weft_top's DMA (AW/W/B, slave side) become posted MWr TLPs on a TLP source stream.
//
//   AW ─┐                      ┌─ find next TLP (first enabled DW, run of full DWs, last DW) ─┐
//   W  ─┴▶ burst buffer 0 / 1 ─┤                                                              ├▶ tx_*
//          (ping-pong, 64 DW +  └─ header beat, then payload beats (DW j of the TLP at beat  ─┘
//           byte enables each)     1 + j/4, realigned from the buffer)             B ◀─ after last TLP
//
// One buffer fills from W (one beat per cycle) while the other drains to tx (one beat per
// cycle), so bursts stream back to back. A burst is split into TLPs of at most MaxPayload bytes
// whose First DW BE is an upper-contiguous run (1000..1111) when the TLP has 2+ DWs, whose middle
// DWs are fully enabled and whose Last DW BE is a lower-contiguous run (0001..1111); any other
// DW becomes a 1-DW TLP; DWs without strobes are skipped. A burst never crosses 4 KiB (weft_dma
// guarantees it), so no TLP does. B (OKAY) follows the burst's last TLP beat; AW is taken only
// into an empty buffer and W only after its AW (the slave may wait for AW).
`include "weft_assert.svh"

module weft_pcie_wr #(
  parameter int          MaxPayload = 256,     // bytes
  parameter int          MaxBurst   = 16,      // beats per AXI burst
  parameter int          IdW        = 4,
  parameter logic [15:0] EpId       = 16'h0100,
  localparam int         NDw        = 4 * MaxBurst,  // DWs per buffer
  localparam int         DwW        = $clog2(NDw + 1),
  localparam int         KW         = $clog2(NDw)
) (
  input  logic            clk_i,
  input  logic            rst_ni,
  // AXI4 write slave (128-bit data)
  input  logic            awvalid_i,
  output logic            awready_o,
  input  logic [IdW-1:0]  awid_i,
  input  logic [63:0]     awaddr_i,
  input  logic [7:0]      awlen_i,
  input  logic            wvalid_i,
  output logic            wready_o,
  input  logic [127:0]    wdata_i,
  input  logic [15:0]     wstrb_i,
  input  logic            wlast_i,
  output logic            bvalid_o,
  input  logic            bready_i,
  output logic [IdW-1:0]  bid_o,
  // TLP source
  output logic            tx_valid_o,
  input  logic            tx_ready_i,
  output logic            tx_sop_o,
  output logic            tx_eop_o,
  output logic [127:0]    tx_data_o
);

  if (MaxPayload < 16 || MaxPayload > 4096 || (MaxPayload & (MaxPayload - 1)) != 0) begin : g_bad_mp
    `WEFT_ELAB_ERROR("weft_pcie_wr: MaxPayload must be a power of two in 16..4096")
  end
  if (MaxBurst < 2 || MaxBurst > 64 || (MaxBurst & (MaxBurst - 1)) != 0) begin : g_bad_burst
    `WEFT_ELAB_ERROR("weft_pcie_wr: MaxBurst must be a power of two in 2..64")
  end

  localparam int MpDw = (MaxPayload / 4 < NDw) ? MaxPayload / 4 : NDw;  // clamped to a burst
  localparam int BW   = $clog2(MaxBurst + 1);

  // ---------------------------------------------------------------- buffers
  logic [31:0]    dw_q [2*NDw];
  logic [3:0]     be_q [2*NDw];
  logic [1:0]     full_q, full_d, aw_ok_q, aw_ok_d;
  logic [63:0]    addr_q [2];
  logic [IdW-1:0] id_q [2];
  logic [BW-1:0]  nbeats_q [2];
  logic           fb_q, fb_d, db_q, db_d;          // fill / drain buffer
  logic [BW-1:0]  wcnt_q, wcnt_d;
  logic           aw_take, w_take;

  assign awready_o = !full_q[fb_q] && !aw_ok_q[fb_q];
  assign wready_o  = aw_ok_q[fb_q] && !full_q[fb_q];
  assign aw_take   = awvalid_i && awready_o;
  assign w_take    = wvalid_i && wready_o;

  always_ff @(posedge clk_i) begin : p_store
    if (aw_take) begin
      addr_q[fb_q]   <= {awaddr_i[63:4], 4'b0};
      id_q[fb_q]     <= awid_i;
      nbeats_q[fb_q] <= BW'(awlen_i) + 1'b1;
    end
    if (w_take) begin
      for (int i = 0; i < 4; i++) begin
        dw_q[{fb_q, wcnt_q[KW-3:0], 2'(i)}] <= wdata_i[32*i +: 32];
        be_q[{fb_q, wcnt_q[KW-3:0], 2'(i)}] <= wstrb_i[4*i +: 4];
      end
    end
  end

  // ---------------------------------------------------------------- drain: find the next TLP
  typedef enum logic [0:0] {DrHdr = 1'b0, DrData = 1'b1} dr_e;
  dr_e          dr_q, dr_d;
  logic [DwW-1:0] cur_q, cur_d;        // next DW to look at
  logic [DwW-1:0] s_q, s_d, len_q, len_d;
  logic [DwW-1:0] pcnt_q, pcnt_d;      // payload beat
  logic         more_q, more_d;        // another TLP follows this one in the burst
  logic [DwW-1:0] ndw;
  logic [NDw-1:0] nz, full, up, lo;
  logic         found;
  logic [DwW-1:0] s, e, lim, len;
  logic         stop;
  logic         any_after;
  logic [3:0]   b;
  logic [DwW-1:0] kk;

  assign ndw = DwW'(nbeats_q[db_q]) << 2;

  always_comb begin : p_find
    for (int k = 0; k < NDw; k++) begin
      b = be_q[{db_q, KW'(k)}];
      nz[k]   = (b != 4'h0);
      full[k] = (b == 4'hF);
      up[k]   = (b == 4'h8) || (b == 4'hC) || (b == 4'hE) || (b == 4'hF);
      lo[k]   = (b == 4'h1) || (b == 4'h3) || (b == 4'h7) || (b == 4'hF);
    end
    found = 1'b0;
    s     = '0;
    for (int k = 0; k < NDw; k++) begin
      if (!found && DwW'(k) >= cur_q && DwW'(k) < ndw && nz[k]) begin
        found = 1'b1;
        s     = DwW'(k);
      end
    end
    lim  = (ndw - s > DwW'(MpDw)) ? s + DwW'(MpDw) : ndw;
    stop = 1'b0;
    e    = lim;
    for (int k = 0; k < NDw; k++) begin
      if (!stop && DwW'(k) > s && (DwW'(k) >= lim || !full[k])) begin
        stop = 1'b1;
        e    = DwW'(k);
      end
    end
    if (!up[KW'(s)]) begin
      len = DwW'(1);
    end else begin
      len = e - s;
      if (e < lim && lo[KW'(e)] && nz[KW'(e)]) len = len + 1'b1;
    end
    any_after = 1'b0;
    for (int k = 0; k < NDw; k++) begin
      if (DwW'(k) >= s + len && DwW'(k) < ndw && nz[k]) any_after = 1'b1;
    end
  end

  // ---------------------------------------------------------------- drain: emit
  logic           b_free, b_set;
  logic           bvalid_q, bvalid_d;
  logic [IdW-1:0] bid_q, bid_d;
  logic [63:0]    tlp_addr;
  logic [3:0]     fbe, lbe;
  logic [2:0]     fmt;
  logic [DwW-1:0] last_beat;           // payload beats - 1

  assign b_free    = !bvalid_q || bready_i;
  assign tlp_addr  = addr_q[db_q] + (64'(s) << 2);
  assign fbe       = be_q[{db_q, KW'(s)}];
  assign lbe       = (len > DwW'(1)) ? be_q[{db_q, KW'(s + len - 1'b1)}] : 4'h0;
  assign fmt       = (tlp_addr[63:32] != 32'b0) ? 3'b011 : 3'b010;
  assign last_beat = (len_q - 1'b1) >> 2;

  logic tx_take;
  assign tx_take = tx_valid_o && tx_ready_i;

  // the TLP beat on offer (does not look at tx_ready_i)
  always_comb begin : p_txo
    tx_valid_o = 1'b0;
    tx_sop_o   = 1'b0;
    tx_eop_o   = 1'b0;
    tx_data_o  = '0;
    kk         = '0;
    if (full_q[db_q]) begin
      if (dr_q == DrHdr) begin
        tx_valid_o = found;
        tx_sop_o   = 1'b1;
        tx_data_o[31:0]  = {fmt, 5'b00000, 14'b0, 10'(len)};
        tx_data_o[63:32] = {EpId, 8'h00, lbe, fbe};
        if (fmt[0]) tx_data_o[127:64] = {tlp_addr[31:2], 2'b00, tlp_addr[63:32]};
        else        tx_data_o[95:64]  = {tlp_addr[31:2], 2'b00};
      end else begin
        tx_eop_o = (pcnt_q == last_beat);
        // the burst's last beat needs the B slot (empty: a refused beat stays offered)
        tx_valid_o = !(tx_eop_o && !more_q && bvalid_q);
        for (int i = 0; i < 4; i++) begin
          kk = s_q + (pcnt_q << 2) + DwW'(i);
          if (kk < s_q + len_q) tx_data_o[32*i +: 32] = dw_q[{db_q, KW'(kk)}];
        end
      end
    end
  end

  always_comb begin : p_emit
    b_set      = 1'b0;
    dr_d       = dr_q;
    cur_d      = cur_q;
    s_d        = s_q;
    len_d      = len_q;
    pcnt_d     = pcnt_q;
    more_d     = more_q;
    full_d     = full_q;
    aw_ok_d    = aw_ok_q;
    fb_d       = fb_q;
    db_d       = db_q;
    wcnt_d     = wcnt_q;
    // fill side
    if (aw_take) aw_ok_d[fb_q] = 1'b1;
    if (w_take) begin
      wcnt_d = wcnt_q + 1'b1;
      if (wlast_i || wcnt_q + 1'b1 == nbeats_q[fb_q]) begin
        full_d[fb_q]  = 1'b1;
        aw_ok_d[fb_q] = 1'b0;
        fb_d          = !fb_q;
        wcnt_d        = '0;
      end
    end
    // drain side
    if (full_q[db_q]) begin
      if (dr_q == DrHdr) begin
        if (!found) begin
          // nothing (more) to send: answer B
          if (b_free) begin
            b_set        = 1'b1;
            full_d[db_q] = 1'b0;
            db_d         = !db_q;
            cur_d        = '0;
          end
        end else if (tx_take) begin
          dr_d   = DrData;
          s_d    = s;
          len_d  = len;
          pcnt_d = '0;
          more_d = any_after;
        end
      end else if (tx_take) begin
        pcnt_d = pcnt_q + 1'b1;
        if (tx_eop_o) begin
          dr_d  = DrHdr;
          cur_d = s_q + len_q;
          if (!more_q) begin
            b_set        = 1'b1;
            full_d[db_q] = 1'b0;
            db_d         = !db_q;
            cur_d        = '0;
          end
        end
      end
    end
  end

  always_comb begin : p_b
    bvalid_d = bvalid_q && !bready_i;
    bid_d    = bid_q;
    if (b_set) begin
      bvalid_d = 1'b1;
      bid_d    = id_q[db_q];
    end
  end
  assign bvalid_o = bvalid_q;

  logic unused_bits;
  assign unused_bits = ^{awaddr_i[3:0], awlen_i[7:5], tlp_addr[1:0]};
  assign bid_o    = bid_q;

  always_ff @(posedge clk_i or negedge rst_ni) begin : p_regs
    if (!rst_ni) begin
      full_q   <= '0;
      aw_ok_q  <= '0;
      fb_q     <= 1'b0;
      db_q     <= 1'b0;
      wcnt_q   <= '0;
      dr_q     <= DrHdr;
      cur_q    <= '0;
      s_q      <= '0;
      len_q    <= '0;
      pcnt_q   <= '0;
      more_q   <= 1'b0;
      bvalid_q <= 1'b0;
      bid_q    <= '0;
    end else begin
      full_q   <= full_d;
      aw_ok_q  <= aw_ok_d;
      fb_q     <= fb_d;
      db_q     <= db_d;
      wcnt_q   <= wcnt_d;
      dr_q     <= dr_d;
      cur_q    <= cur_d;
      s_q      <= s_d;
      len_q    <= len_d;
      pcnt_q   <= pcnt_d;
      more_q   <= more_d;
      bvalid_q <= bvalid_d;
      bid_q    <= bid_d;
    end
  end

`ifndef SYNTHESIS
  // Bursts fit the buffer and stay inside one 4 KiB page (weft_dma's contract).
  always @(posedge clk_i or negedge rst_ni) begin : p_aw_check
    if (rst_ni && aw_take) begin
      assert (awlen_i < 8'(MaxBurst)) else $error("%m: AWLEN %0d > MaxBurst - 1", awlen_i);
      assert ({1'b0, awaddr_i[11:4]} + {1'b0, awlen_i} < 9'd256)
        else $error("%m: burst at 'h%0h crosses 4 KiB", awaddr_i);
    end
  end
`endif

endmodule
