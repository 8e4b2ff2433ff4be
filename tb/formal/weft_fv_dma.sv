// weft_fv_dma: SymbiYosys harness of weft_dma's AXI4 master port (docs/formal.md, proof "dma").
// weft_dma in a small configuration (32-bit data, 16-bit addresses, one window, MaxBurst 2,
// MaxRdOut 2, one read and one write client: the same RTL as weft_top's 128-bit, 2 + 2 client
// DMA, fewer copies of it), the master rules of weft_prop_axi_master on its port and windows;
// reset in the first cycle.
// The clients and the bus slave are free within their rules; what narrows the search (and is
// not a rule of the DMA) is stated here: requests of at most 3 rows, strides and row lengths
// below 256 bytes, addresses below 8 KiB (two 4 KiB pages) and window bounds below 32 KiB, from
// narrow inputs (so the checker's 32 x 32-bit product and the 64-bit compares stay small for the
// solver); the windows change only while the DMA is idle (the DMA samples them at each
// request's check, docs/dma.md). Side runs the read and the write side as separate proofs.
`include "weft_dma_types.svh"

module weft_fv_dma #(
  parameter int  DataW    = 32,
  parameter int  AddrW    = 16,
  parameter int  IdW      = 1,
  parameter int  NumWin   = 1,
  parameter int  MaxBurst = 2,
  parameter int  MaxRdOut = 2,
  parameter int  NumCl    = 1,   // read clients, and write clients
  parameter int  Side     = 0,   // 0: both, 1: reads only, 2: writes only (no request on the other)
  localparam int BB       = DataW / 8,
  localparam int ReqW     = $bits(weft_dma_req_t'(0)),
  localparam int ReqFW    = 13 + 8 + 2 + 8
) (
  input  logic                clk_i,
  input  logic                rst_ni,
  input  logic [NumCl-1:0]    rd_req_valid_i,
  input  logic [NumCl*ReqFW-1:0] rd_req_f,   // narrow request fields (see weft_fv_req)
  input  logic [NumCl-1:0]    rd_ready_i,
  input  logic [NumCl-1:0]    wr_req_valid_i,
  input  logic [NumCl*ReqFW-1:0] wr_req_f,
  input  logic [NumCl-1:0]    wr_valid_i,
  input  logic [NumCl*DataW-1:0] wr_data_i,
  input  logic [NumWin*15-1:0] win_base_f,   // window bounds below 2^15
  input  logic [NumWin*15-1:0] win_limit_f,
  input  logic [NumWin-1:0]   win_read_i,
  input  logic [NumWin-1:0]   win_write_i,
  input  logic                m_axi_awready,
  input  logic                m_axi_wready,
  input  logic                m_axi_bvalid,
  input  logic [IdW-1:0]      m_axi_bid,
  input  logic [1:0]          m_axi_bresp,
  input  logic                m_axi_arready,
  input  logic                m_axi_rvalid,
  input  logic [IdW-1:0]      m_axi_rid,
  input  logic [DataW-1:0]    m_axi_rdata,
  input  logic [1:0]          m_axi_rresp,
  input  logic                m_axi_rlast
);

  logic               awvalid, wvalid, wlast, bready, arvalid, rready, busy;
  logic [IdW-1:0]     awid, arid;
  logic [AddrW-1:0]   awaddr, araddr;
  logic [7:0]         awlen, arlen;
  logic [2:0]         awsize, arsize, awprot, arprot;
  logic [1:0]         awburst, arburst;
  logic [3:0]         awcache, arcache;
  logic [DataW-1:0]   wdata, rd_data;
  logic [BB-1:0]      wstrb;
  logic [NumCl-1:0]   rd_req_ready, rd_valid, rd_done_valid, wr_req_ready, wr_start, wr_ready;
  logic [NumCl-1:0]   wr_done_valid;
  logic               rd_last, st_rd_beat, st_wr_beat, st_rd_stall, st_wr_stall;
  logic [NumCl*8-1:0] rd_done_err, wr_done_err;
  logic [NumCl*64-1:0] rd_done_addr, wr_done_addr;
  logic [$clog2(BB + 1)-1:0] st_wr_bytes;

  // Requests and windows from narrow free inputs, zero-extended: addr < 2^13 (two 4 KiB pages),
  // row_bytes and stride < 256, rows 0..3; window bounds < 2^15. Structural zeros, not assumptions, so the
  // solver's bit-blasting drops the unused bits of the checker's product and compares.
  logic [NumCl*ReqW-1:0] rd_req_i, wr_req_i;
  logic [NumCl-1:0]      rd_req_valid, wr_req_valid;
  assign rd_req_valid = (Side == 2) ? '0 : rd_req_valid_i;
  assign wr_req_valid = (Side == 1) ? '0 : wr_req_valid_i;
  logic [NumWin*64-1:0]  win_base_i, win_limit_i;
  for (genvar i = 0; i < NumCl; i++) begin : g_req
    assign rd_req_i[i*ReqW +: ReqW] = (Side == 2) ? '0 :
                                      {51'd0, rd_req_f[i*ReqFW + 18 +: 13], 24'd0,
                                       rd_req_f[i*ReqFW + 10 +: 8], 30'd0,
                                       rd_req_f[i*ReqFW + 8 +: 2], 24'd0, rd_req_f[i*ReqFW +: 8]};
    assign wr_req_i[i*ReqW +: ReqW] = (Side == 1) ? '0 :
                                      {51'd0, wr_req_f[i*ReqFW + 18 +: 13], 24'd0,
                                       wr_req_f[i*ReqFW + 10 +: 8], 30'd0,
                                       wr_req_f[i*ReqFW + 8 +: 2], 24'd0, wr_req_f[i*ReqFW +: 8]};
  end
  for (genvar w = 0; w < NumWin; w++) begin : g_win
    assign win_base_i[w*64 +: 64]  = 64'(win_base_f[w*15 +: 15]);
    assign win_limit_i[w*64 +: 64] = 64'(win_limit_f[w*15 +: 15]);
  end

  weft_dma #(
    .DataW(DataW), .AddrW(AddrW), .IdW(IdW), .NumWin(NumWin), .MaxBurst(MaxBurst),
    .MaxRdOut(MaxRdOut), .NumRd(NumCl), .NumWr(NumCl)
  ) u_dut (
    .clk_i, .rst_ni,
    .rd_req_valid_i (rd_req_valid), .rd_req_ready_o (rd_req_ready), .rd_req_i,
    .rd_valid_o (rd_valid), .rd_ready_i, .rd_data_o (rd_data), .rd_last_o (rd_last),
    .rd_done_valid_o (rd_done_valid), .rd_done_err_o (rd_done_err), .rd_done_addr_o (rd_done_addr),
    .wr_req_valid_i (wr_req_valid), .wr_req_ready_o (wr_req_ready), .wr_req_i, .wr_start_o (wr_start),
    .wr_valid_i, .wr_ready_o (wr_ready), .wr_data_i,
    .wr_done_valid_o (wr_done_valid), .wr_done_err_o (wr_done_err), .wr_done_addr_o (wr_done_addr),
    .win_base_i, .win_limit_i, .win_read_i, .win_write_i,
    .m_axi_awvalid (awvalid), .m_axi_awready, .m_axi_awid (awid), .m_axi_awaddr (awaddr),
    .m_axi_awlen (awlen), .m_axi_awsize (awsize), .m_axi_awburst (awburst),
    .m_axi_awcache (awcache), .m_axi_awprot (awprot),
    .m_axi_wvalid (wvalid), .m_axi_wready, .m_axi_wdata (wdata), .m_axi_wstrb (wstrb),
    .m_axi_wlast (wlast),
    .m_axi_bvalid, .m_axi_bready (bready), .m_axi_bid, .m_axi_bresp,
    .m_axi_arvalid (arvalid), .m_axi_arready, .m_axi_arid (arid), .m_axi_araddr (araddr),
    .m_axi_arlen (arlen), .m_axi_arsize (arsize), .m_axi_arburst (arburst),
    .m_axi_arcache (arcache), .m_axi_arprot (arprot),
    .m_axi_rvalid, .m_axi_rready (rready), .m_axi_rid, .m_axi_rdata, .m_axi_rresp, .m_axi_rlast,
    .busy_o (busy), .stat_rd_beat_o (st_rd_beat), .stat_wr_beat_o (st_wr_beat),
    .stat_wr_bytes_o (st_wr_bytes), .stat_rd_stall_o (st_rd_stall), .stat_wr_stall_o (st_wr_stall)
  );

  weft_prop_axi_master #(
    .DataW(DataW), .AddrW(AddrW), .IdW(IdW), .NumIds(NumCl), .NumWin(NumWin), .MaxBurst(MaxBurst),
    .MaxRdOut(MaxRdOut), .MaxWrOut(MaxRdOut), .MaxAwAhead(8)
  ) u_prop (
    .clk_i, .rst_ni, .busy_i (busy),
    .win_base_i, .win_limit_i, .win_read_i, .win_write_i,
    .awvalid, .awready (m_axi_awready), .awid, .awaddr, .awlen, .awsize, .awburst, .awcache,
    .awprot,
    .wvalid, .wready (m_axi_wready), .wdata, .wstrb, .wlast,
    .bvalid (m_axi_bvalid), .bready, .bid (m_axi_bid), .bresp (m_axi_bresp),
    .arvalid, .arready (m_axi_arready), .arid, .araddr, .arlen, .arsize, .arburst, .arcache,
    .arprot,
    .rvalid (m_axi_rvalid), .rready, .rid (m_axi_rid), .rdata (m_axi_rdata), .rresp (m_axi_rresp),
    .rlast (m_axi_rlast)
  );

  logic unused;
  assign unused = ^{rd_req_ready, rd_valid, rd_data, rd_last, rd_done_valid, rd_done_err,
                    rd_done_addr, wr_req_ready, wr_start, wr_ready, wr_done_valid, wr_done_err,
                    wr_done_addr, st_rd_beat, st_wr_beat, st_wr_bytes, st_rd_stall, st_wr_stall};

  // Reset in the first cycle, then never again.
  logic first;
  weft_fv_reset u_reset (.clk_i, .rst_ni, .first_o (first));

  // The windows change only while the DMA is idle.
  logic [NumWin*130-1:0] win_q;
  always @(posedge clk_i) win_q <= {win_base_i, win_limit_i, win_read_i, win_write_i};
  always @(*) begin
    if (!first && busy) assume ({win_base_i, win_limit_i, win_read_i, win_write_i} == win_q);
  end

  // Reachability: a whole write burst of MaxBurst beats and its response; a whole read burst
  // of MaxBurst beats.
  logic [7:0] wbeats_q, rbeats_q;
  always @(posedge clk_i) begin
    if (!rst_ni) begin
      wbeats_q <= '0;
      rbeats_q <= '0;
    end else begin
      if (wvalid && m_axi_wready) wbeats_q <= wlast ? 8'd0 : wbeats_q + 8'd1;
      if (m_axi_rvalid && rready) rbeats_q <= m_axi_rlast ? 8'd0 : rbeats_q + 8'd1;
    end
  end
  if (Side != 1) begin : g_cover_wr
    always @(posedge clk_i) begin
      if (rst_ni) begin
        c_full_write: cover (wvalid && m_axi_wready && wlast && wbeats_q == 8'(MaxBurst - 1));
        c_write_b:    cover (m_axi_bvalid && bready);
      end
    end
  end
  if (Side != 2) begin : g_cover_rd
    always @(posedge clk_i) begin
      if (rst_ni) begin
        c_full_read: cover (m_axi_rvalid && rready && m_axi_rlast && rbeats_q == 8'(MaxBurst - 1));
      end
    end
  end

endmodule
