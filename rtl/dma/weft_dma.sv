// weft_dma: Weft's DMA engine: host memory <-> device clients over one AXI4 master, 2D strided
// transfers, every access checked against the DMA windows before any burst (docs/dma.md).
//
// NumRd read clients (rd0 descriptor fetch, rd1 load engine) and NumWr write clients (wr0 store
// engine, wr1 completion write-back), each with one 2D request at a time, a weft_dma_req_t
// (rtl/common/weft_dma_types.svh): row r covers [addr + r*stride, + row_bytes). Client i's fields
// sit at [i*W +: W] of the packed ports (W the width of one request for *_req_i);
// the exact port contract is docs/device.md ("weft_dma").
//
//   requests ─▶ weft_dma_rd_ch / weft_dma_wr_ch ─▶ weft_dma_check (shared: ALIGN, SIZE, WINDOW)
//                 │ weft_dma_ch (both): request, check, weft_dma_burst: rows -> INCR bursts
//                 │   (<= MaxBurst beats, never across 4 KiB), first bus error, done
//                 ▼
//   weft_dma_rd: AR slot (weft_dma_ax; round robin, <= MaxRdOut bursts outstanding,
//                ARID = client) ; R spill register -> client by RID (shared rd_data_o)
//   weft_dma_wr: issue stage -> AW slot (weft_dma_ax) + W order queue ; W mux from the head
//                burst's client, strobes, WLAST -> W spill register ; B by BID (always ready)
//
// Errors: a failed check ends the request at once (done with the code, no AXI traffic, no
// wr_start). SLVERR/DECERR ends it after the bursts already issued finish; read beats after the
// error are dropped, a write client's remaining beats are taken and dropped.
// Status: busy_o (a request of any client in progress), per-cycle strobes for the PERF_DMA_*
// counters: stat_rd_beat_o (R beat accepted), stat_wr_beat_o (W beat accepted),
// stat_wr_bytes_o (its strobed bytes), stat_rd_stall_o (a read burst is pending in AR or
// outstanding and no R beat moves), stat_wr_stall_o (W offered and refused, or only B awaited).
// Inside, AR/AW, R and B travel as weft_axi_*_t structs (rtl/common/weft_axi_types.svh); the
// flat m_axi_* ports are converted here.
`include "weft_assert.svh"
`include "weft_axi_types.svh"
`include "weft_dma_types.svh"

module weft_dma #(
  parameter int  DataW    = 128,
  parameter int  AddrW    = 64,
  parameter int  IdW      = 4,
  parameter int  NumWin   = 4,
  parameter int  MaxBurst = 16,
  parameter int  MaxRdOut = 8,
  parameter int  NumRd    = 2,
  parameter int  NumWr    = 2,
  localparam int BusBytes = DataW / 8,
  localparam int BytesW   = $clog2(BusBytes + 1),
  localparam int ReqW     = $bits(weft_dma_req_t'(0))
) (
  input  logic                   clk_i,
  input  logic                   rst_ni,
  // read clients
  input  logic [NumRd-1:0]       rd_req_valid_i,
  output logic [NumRd-1:0]       rd_req_ready_o,
  input  logic [NumRd*ReqW-1:0]  rd_req_i,     // weft_dma_req_t per client
  output logic [NumRd-1:0]       rd_valid_o,
  input  logic [NumRd-1:0]       rd_ready_i,
  output logic [DataW-1:0]       rd_data_o,
  output logic                   rd_last_o,
  output logic [NumRd-1:0]       rd_done_valid_o,
  output logic [NumRd*8-1:0]     rd_done_err_o,
  output logic [NumRd*64-1:0]    rd_done_addr_o,
  // write clients
  input  logic [NumWr-1:0]       wr_req_valid_i,
  output logic [NumWr-1:0]       wr_req_ready_o,
  input  logic [NumWr*ReqW-1:0]  wr_req_i,     // weft_dma_req_t per client
  output logic [NumWr-1:0]       wr_start_o,
  input  logic [NumWr-1:0]       wr_valid_i,
  output logic [NumWr-1:0]       wr_ready_o,
  input  logic [NumWr*DataW-1:0] wr_data_i,
  output logic [NumWr-1:0]       wr_done_valid_o,
  output logic [NumWr*8-1:0]     wr_done_err_o,
  output logic [NumWr*64-1:0]    wr_done_addr_o,
  // DMA windows [base, limit)
  input  logic [NumWin*64-1:0]   win_base_i,
  input  logic [NumWin*64-1:0]   win_limit_i,
  input  logic [NumWin-1:0]      win_read_i,
  input  logic [NumWin-1:0]      win_write_i,
  // AXI4 master
  output logic                   m_axi_awvalid,
  input  logic                   m_axi_awready,
  output logic [IdW-1:0]         m_axi_awid,
  output logic [AddrW-1:0]       m_axi_awaddr,
  output logic [7:0]             m_axi_awlen,
  output logic [2:0]             m_axi_awsize,
  output logic [1:0]             m_axi_awburst,
  output logic [3:0]             m_axi_awcache,
  output logic [2:0]             m_axi_awprot,
  output logic                   m_axi_wvalid,
  input  logic                   m_axi_wready,
  output logic [DataW-1:0]       m_axi_wdata,
  output logic [BusBytes-1:0]    m_axi_wstrb,
  output logic                   m_axi_wlast,
  input  logic                   m_axi_bvalid,
  output logic                   m_axi_bready,
  input  logic [IdW-1:0]         m_axi_bid,
  input  logic [1:0]             m_axi_bresp,
  output logic                   m_axi_arvalid,
  input  logic                   m_axi_arready,
  output logic [IdW-1:0]         m_axi_arid,
  output logic [AddrW-1:0]       m_axi_araddr,
  output logic [7:0]             m_axi_arlen,
  output logic [2:0]             m_axi_arsize,
  output logic [1:0]             m_axi_arburst,
  output logic [3:0]             m_axi_arcache,
  output logic [2:0]             m_axi_arprot,
  input  logic                   m_axi_rvalid,
  output logic                   m_axi_rready,
  input  logic [IdW-1:0]         m_axi_rid,
  input  logic [DataW-1:0]       m_axi_rdata,
  input  logic [1:0]             m_axi_rresp,
  input  logic                   m_axi_rlast,
  // status
  output logic                   busy_o,
  output logic                   stat_rd_beat_o,
  output logic                   stat_wr_beat_o,
  output logic [BytesW-1:0]      stat_wr_bytes_o,
  output logic                   stat_rd_stall_o,
  output logic                   stat_wr_stall_o
);

  localparam int NumCh = NumRd + NumWr;

  if (DataW < 32 || DataW > 1024 || (1 << $clog2(DataW)) != DataW) begin : g_bad_data
    `WEFT_ELAB_ERROR("weft_dma: DataW must be a power of two in 32..1024")
  end
  if (AddrW < 13 || AddrW > 64) begin : g_bad_addr
    `WEFT_ELAB_ERROR("weft_dma: AddrW must be in 13..64")
  end
  if (MaxBurst < 1 || MaxBurst > 256) begin : g_bad_burst
    `WEFT_ELAB_ERROR("weft_dma: MaxBurst must be in 1..256")
  end
  if (NumWin < 1) begin : g_bad_win
    `WEFT_ELAB_ERROR("weft_dma: NumWin must be >= 1")
  end
  if (IdW < 1 || IdW > 8) begin : g_bad_id
    `WEFT_ELAB_ERROR("weft_dma: IdW must be in 1..8")
  end

  // ---------------------------------------------------------------- flat AXI4 ports <-> structs
  weft_axi_ax_t ar, aw;
  weft_axi_r_t  r;
  weft_axi_b_t  b;

  assign {m_axi_arid, m_axi_araddr, m_axi_arlen, m_axi_arsize, m_axi_arburst, m_axi_arcache,
          m_axi_arprot} = {ar.id[IdW-1:0], ar.addr[AddrW-1:0], ar.len, ar.size, ar.burst,
                           ar.cache, ar.prot};
  assign {m_axi_awid, m_axi_awaddr, m_axi_awlen, m_axi_awsize, m_axi_awburst, m_axi_awcache,
          m_axi_awprot} = {aw.id[IdW-1:0], aw.addr[AddrW-1:0], aw.len, aw.size, aw.burst,
                           aw.cache, aw.prot};
  assign r = {8'(m_axi_rid), m_axi_rresp, m_axi_rlast};
  assign b = {8'(m_axi_bid), m_axi_bresp};

  // The id and address bits above IdW / AddrW are 0 (weft_dma_ax).
  logic unused_ax;
  assign unused_ax = ^{ar.id, ar.addr, aw.id, aw.addr};

  logic [NumRd-1:0]      rchk_valid, rchk_rsp;
  logic [NumRd*ReqW-1:0] rchk_req;
  logic [NumWr-1:0]      wchk_valid, wchk_rsp;
  logic [NumWr*ReqW-1:0] wchk_req;
  logic [NumCh-1:0]    chk_rsp;
  logic [7:0]          chk_err;
  logic                rd_busy, wr_busy;

  weft_dma_check #(
    .NumCh    (NumCh),
    .NumWin   (NumWin),
    .BusBytes (BusBytes),
    .AddrW    (AddrW)
  ) u_check (
    .clk_i,
    .rst_ni,
    .req_valid_i     ({wchk_valid, rchk_valid}),
    .req_write_i     ({{NumWr{1'b1}}, {NumRd{1'b0}}}),
    .req_i           ({wchk_req, rchk_req}),
    .rsp_valid_o     (chk_rsp),
    .rsp_err_o       (chk_err),
    .win_base_i,
    .win_limit_i,
    .win_read_i,
    .win_write_i
  );

  assign rchk_rsp = chk_rsp[NumRd-1:0];
  assign wchk_rsp = chk_rsp[NumCh-1:NumRd];

  weft_dma_rd #(
    .DataW    (DataW),
    .AddrW    (AddrW),
    .IdW      (IdW),
    .MaxBurst (MaxBurst),
    .MaxRdOut (MaxRdOut),
    .NumRd    (NumRd)
  ) u_rd (
    .clk_i,
    .rst_ni,
    .rd_req_valid_i,
    .rd_req_ready_o,
    .rd_req_i,
    .rd_valid_o,
    .rd_ready_i,
    .rd_data_o,
    .rd_last_o,
    .rd_done_valid_o,
    .rd_done_err_o,
    .rd_done_addr_o,
    .chk_valid_o     (rchk_valid),
    .chk_req_o       (rchk_req),
    .chk_rsp_i       (rchk_rsp),
    .chk_err_i       (chk_err),
    .ar_valid_o      (m_axi_arvalid),
    .ar_ready_i      (m_axi_arready),
    .ar_o            (ar),
    .r_valid_i       (m_axi_rvalid),
    .r_ready_o       (m_axi_rready),
    .r_i             (r),
    .r_data_i        (m_axi_rdata),
    .busy_o          (rd_busy),
    .stat_rd_beat_o,
    .stat_rd_stall_o
  );

  weft_dma_wr #(
    .DataW    (DataW),
    .AddrW    (AddrW),
    .IdW      (IdW),
    .MaxBurst (MaxBurst),
    .MaxWrOut (MaxRdOut),
    .NumWr    (NumWr)
  ) u_wr (
    .clk_i,
    .rst_ni,
    .wr_req_valid_i,
    .wr_req_ready_o,
    .wr_req_i,
    .wr_start_o,
    .wr_valid_i,
    .wr_ready_o,
    .wr_data_i,
    .wr_done_valid_o,
    .wr_done_err_o,
    .wr_done_addr_o,
    .chk_valid_o     (wchk_valid),
    .chk_req_o       (wchk_req),
    .chk_rsp_i       (wchk_rsp),
    .chk_err_i       (chk_err),
    .aw_valid_o      (m_axi_awvalid),
    .aw_ready_i      (m_axi_awready),
    .aw_o            (aw),
    .w_valid_o       (m_axi_wvalid),
    .w_ready_i       (m_axi_wready),
    .w_data_o        (m_axi_wdata),
    .w_strb_o        (m_axi_wstrb),
    .w_last_o        (m_axi_wlast),
    .b_valid_i       (m_axi_bvalid),
    .b_ready_o       (m_axi_bready),
    .b_i             (b),
    .busy_o          (wr_busy),
    .stat_wr_beat_o,
    .stat_wr_bytes_o,
    .stat_wr_stall_o
  );

  assign busy_o = rd_busy || wr_busy;

endmodule
