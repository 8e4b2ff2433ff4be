// weft_top: the Weft device (docs/device.md): an AXI4-Lite slave for the registers, an AXI4
// master for host memory, and a level interrupt.
//
//   s_axil_* -> weft_csr (registers) -> weft_cmd (command processor) -> weft_dma -> m_axi_*
//                                         |  load / compute / store engines
//                                         v
//                               weft_spad (scratchpad) -> weft_tensor_unit
//                               weft_simt_core (SIMT_LAUNCH; its data and instruction memories
//                               are LOAD / STORE_SPAD line regions, docs/programming-model.md)
//
// Line regions of the load engine's writes and the store engine's reads (port 2): the scratchpad
// below weft_pkg::SimtDmemLine, then the SIMT data memory (weft_simt_core ext_* port: writes
// first, then reads, both between warp accesses) and from weft_pkg::SimtImemLine the SIMT
// instruction memory (LOAD only: a line is held until the core is idle, then written one word per
// cycle; the SIMT engine sees the core busy until the last word is in), both decoded by
// weft_simt_memport. The decoder has checked every line against its region.
// CAP0..CAP4 report the parameters. irq_o = |(IRQ_STATUS & IRQ_ENABLE).
// MemEcc: SECDED ECC on the scratchpad and accumulator SRAMs (docs/common.md "ECC"): corrected
// and uncorrectable words counted in ECC_*, an uncorrectable one stops the queue with ECC_SPAD /
// ECC_ACC (weft_ecc_status -> weft_cmd). CAP4.ecc says so.
// The register map has four DMA windows; NumWin (1..4) of them are used.
`include "weft_assert.svh"
`include "weft_dma_types.svh"
`include "weft_regs.svh"

module weft_top #(
  parameter int  Rows      = 16,
  parameter int  Cols      = 16,
  parameter int  AccDepth  = 512,
  parameter int  DataW     = 128,
  parameter int  AddrW     = 64,
  parameter int  IdW       = 4,
  parameter int  SpadLines = 16384,
  parameter int  SpadBanks = 4,
  parameter int  NumWin    = 4,
  parameter int  MaxBurst  = 16,
  parameter int  MaxRdOut  = 8,
  parameter int  Inflight  = 16,
  parameter int  SimtWarps = 4,          // 0: no SIMT core
  parameter int  SimtThreads = 8,
  parameter int  SimtBanks = 8,
  parameter int  SimtDmemBytes = 262144,
  parameter int  SimtImemWords = 4096,
  parameter bit  TensorFp  = 1'b1,       // the tensor unit's FP8 and BF16 modes (CAP4.fp)
  parameter bit  MemEcc    = 1'b0,       // SECDED on scratchpad and accumulator (CAP4.ecc)
  localparam int TuElemW   = TensorFp ? weft_fp_pkg::FpElemW : 8,  // operand bus bits / element
  localparam int BB        = DataW / 8,
  localparam int LineAw    = $clog2(SpadLines),
  localparam int AccAw     = $clog2(AccDepth),
  localparam int RowsW     = AccAw + 1,
  localparam int ColIdxW   = (Cols > 1) ? $clog2(Cols) : 1,
  localparam int WrBytesW  = $clog2(BB + 1),
  localparam int SpadCntW  = $clog2(SpadBanks + 1)
) (
  input  logic              clk_i,
  input  logic              rst_ni,
  // AXI4-Lite slave (registers)
  input  logic              s_axil_awvalid,
  output logic              s_axil_awready,
  input  logic [11:0]       s_axil_awaddr,
  input  logic [2:0]        s_axil_awprot,
  input  logic              s_axil_wvalid,
  output logic              s_axil_wready,
  input  logic [31:0]       s_axil_wdata,
  input  logic [3:0]        s_axil_wstrb,
  output logic              s_axil_bvalid,
  input  logic              s_axil_bready,
  output logic [1:0]        s_axil_bresp,
  input  logic              s_axil_arvalid,
  output logic              s_axil_arready,
  input  logic [11:0]       s_axil_araddr,
  input  logic [2:0]        s_axil_arprot,
  output logic              s_axil_rvalid,
  input  logic              s_axil_rready,
  output logic [31:0]       s_axil_rdata,
  output logic [1:0]        s_axil_rresp,
  // AXI4 master (host memory)
  output logic              m_axi_awvalid,
  input  logic              m_axi_awready,
  output logic [IdW-1:0]    m_axi_awid,
  output logic [AddrW-1:0]  m_axi_awaddr,
  output logic [7:0]        m_axi_awlen,
  output logic [2:0]        m_axi_awsize,
  output logic [1:0]        m_axi_awburst,
  output logic [3:0]        m_axi_awcache,
  output logic [2:0]        m_axi_awprot,
  output logic              m_axi_wvalid,
  input  logic              m_axi_wready,
  output logic [DataW-1:0]  m_axi_wdata,
  output logic [BB-1:0]     m_axi_wstrb,
  output logic              m_axi_wlast,
  input  logic              m_axi_bvalid,
  output logic              m_axi_bready,
  input  logic [IdW-1:0]    m_axi_bid,
  input  logic [1:0]        m_axi_bresp,
  output logic              m_axi_arvalid,
  input  logic              m_axi_arready,
  output logic [IdW-1:0]    m_axi_arid,
  output logic [AddrW-1:0]  m_axi_araddr,
  output logic [7:0]        m_axi_arlen,
  output logic [2:0]        m_axi_arsize,
  output logic [1:0]        m_axi_arburst,
  output logic [3:0]        m_axi_arcache,
  output logic [2:0]        m_axi_arprot,
  input  logic              m_axi_rvalid,
  output logic              m_axi_rready,
  input  logic [IdW-1:0]    m_axi_rid,
  input  logic [DataW-1:0]  m_axi_rdata,
  input  logic [1:0]        m_axi_rresp,
  input  logic              m_axi_rlast,
  // interrupt (level)
  output logic              irq_o
);

  if (Rows * 8 > DataW || Cols * 8 > DataW) begin : g_bad_rc
    `WEFT_ELAB_ERROR("weft_top: Rows*8 and Cols*8 must be <= DataW")
  end
  if (NumWin < 1 || NumWin > 4) begin : g_bad_win
    `WEFT_ELAB_ERROR("weft_top: NumWin must be in 1..4 (the register map has four windows)")
  end
  if (SimtWarps > 0 && (SimtDmemBytes / BB > (1 << 20) || SimtImemWords * 4 / BB > (1 << 20) ||
                        SimtBanks * 4 < BB)) begin : g_bad_simt
    `WEFT_ELAB_ERROR("weft_top: SIMT memories must fit 2^20 lines, and SimtBanks * 4 >= DataW / 8")
  end
  if (SpadLines >= (1 << 24) || AccDepth >= (1 << 16) || Inflight > 255 || MaxBurst > 255) begin : g_bad_cap
    `WEFT_ELAB_ERROR("weft_top: a parameter does not fit its CAP register field")
  end

  // ---------------------------------------------------------------- reset tree
  // One weft_rst_stage per block: each block's reset is released by a flip-flop of its own (placed
  // among the block's flip-flops) rather than by one net across the die; these blocks leave reset
  // on the same edge, one after rst_ni (docs/fpga.md "Reset"). The CSRs take rst_ni itself: they
  // face the host, which may start an AXI-Lite transfer in the first cycle after rst_ni, and
  // whatever a transfer starts reaches the other blocks one edge later at the earliest.
  localparam int RstCmd     = 0;
  localparam int RstDma     = 1;
  localparam int RstSpad    = 2;
  localparam int RstTu      = 3;
  localparam int RstSimtMem = 4;
  localparam int RstSimt    = 5;
  localparam int RstEcc     = 6;
  localparam int NumRst     = 7;
  logic [NumRst-1:0] rst_n;

  for (genvar i = 0; i < NumRst; i++) begin : g_rst
    weft_rst_stage u_stage (
      .clk_i,
      .rst_ni,
      .rst_no (rst_n[i])
    );
  end

  // ---------------------------------------------------------------- registers
  weft_reg2hw_t reg2hw;  // register fields and pulses (rtl/common/weft_regs.svh)
  weft_hw2reg_t hw2reg;  // what the device reports: read-only fields, W1C sets

  weft_csr #(.AddrW(12)) u_csr (
    .clk_i,
    .rst_ni,
    .s_axil_awvalid,
    .s_axil_awready,
    .s_axil_awaddr,
    .s_axil_awprot,
    .s_axil_wvalid,
    .s_axil_wready,
    .s_axil_wdata,
    .s_axil_wstrb,
    .s_axil_bvalid,
    .s_axil_bready,
    .s_axil_bresp,
    .s_axil_arvalid,
    .s_axil_arready,
    .s_axil_araddr,
    .s_axil_arprot,
    .s_axil_rvalid,
    .s_axil_rready,
    .s_axil_rdata,
    .s_axil_rresp,
    .reg2hw_o (reg2hw),
    .hw2reg_i (hw2reg)
  );

  // CAP0..CAP4: the parameters.
  assign hw2reg.cap0.rows       = 8'(Rows);
  assign hw2reg.cap0.cols       = 8'(Cols);
  assign hw2reg.cap0.bus_bytes  = 8'(BB);
  assign hw2reg.cap0.windows    = 8'(NumWin);
  assign hw2reg.cap1.spad_lines = 24'(SpadLines);
  assign hw2reg.cap1.spad_banks = 8'(SpadBanks);
  assign hw2reg.cap2.acc_rows   = 16'(AccDepth);
  assign hw2reg.cap2.inflight   = 8'(Inflight);
  assign hw2reg.cap2.max_burst  = 8'(MaxBurst);
  assign hw2reg.cap3.warps      = 8'(SimtWarps);
  assign hw2reg.cap3.threads    = (SimtWarps > 0) ? 8'(SimtThreads) : 8'd0;
  assign hw2reg.cap3.dmem_kib   = (SimtWarps > 0) ? 16'(SimtDmemBytes / 1024) : 16'd0;
  assign hw2reg.cap4.imem_kib   = (SimtWarps > 0) ? 16'(SimtImemWords * 4 / 1024) : 16'd0;
  assign hw2reg.cap4.dmem_banks = (SimtWarps > 0) ? 8'(SimtBanks) : 8'd0;
  assign hw2reg.cap4.fp         = TensorFp;
  assign hw2reg.cap4.ecc        = MemEcc;

  // ECC_LAST_CORR / ECC_LAST_ERR: {acc, 7'b0, address} from weft_ecc_status.
  logic [31:0] ecc_last_corr, ecc_last_err;
  assign hw2reg.ecc_last_corr.addr = ecc_last_corr[23:0];
  assign hw2reg.ecc_last_corr.acc  = ecc_last_corr[31];
  assign hw2reg.ecc_last_err.addr  = ecc_last_err[23:0];
  assign hw2reg.ecc_last_err.acc   = ecc_last_err[31];
  logic unused_ecc_last;
  assign unused_ecc_last = ^{ecc_last_corr[30:24], ecc_last_err[30:24]};

  // The command processor's error address (its other status outputs drive hw2reg directly).
  logic [63:0] st_err_addr;
  assign hw2reg.err_addr_lo.addr = st_err_addr[31:0];
  assign hw2reg.err_addr_hi.addr = st_err_addr[63:32];

  // The SIMT core's last launch.
  assign hw2reg.simt_err_code.code        = x_err_code;
  assign hw2reg.simt_err_pc.pc            = x_err_pc;
  assign hw2reg.simt_err_thread.thread    = x_err_thread;
  assign hw2reg.simt_err_tval.tval        = x_err_tval;
  assign hw2reg.simt_cycles.count         = x_perf[0*32 +: 32];
  assign hw2reg.simt_issued.count         = x_perf[1*32 +: 32];
  assign hw2reg.simt_active.count         = x_perf[2*32 +: 32];
  assign hw2reg.simt_stall_pipe.count     = x_perf[3*32 +: 32];
  assign hw2reg.simt_stall_div.count      = x_perf[4*32 +: 32];
  assign hw2reg.simt_stall_mem.count      = x_perf[5*32 +: 32];
  assign hw2reg.simt_stall_barrier.count  = x_perf[6*32 +: 32];
  assign hw2reg.simt_replays.count        = x_perf[7*32 +: 32];
  assign hw2reg.simt_barriers.count       = x_perf[8*32 +: 32];
  assign hw2reg.simt_launches.count       = x_launches_q;

  // Performance counters (weft_cmd's perf_lo_o / perf_hi_o / perf_lo_rd_i, in map order):
  // reading LO latches HI.
  logic [16*32-1:0] perf_lo, perf_hi;
  logic [15:0]      perf_rd;
  assign hw2reg.perf_cycles.lo.count           = perf_lo[0*32 +: 32];
  assign hw2reg.perf_cycles.hi.count           = perf_hi[0*32 +: 32];
  assign perf_rd[0]                            = reg2hw.perf_cycles.lo.count_rd;
  assign hw2reg.perf_load_busy.lo.count        = perf_lo[1*32 +: 32];
  assign hw2reg.perf_load_busy.hi.count        = perf_hi[1*32 +: 32];
  assign perf_rd[1]                            = reg2hw.perf_load_busy.lo.count_rd;
  assign hw2reg.perf_compute_busy.lo.count     = perf_lo[2*32 +: 32];
  assign hw2reg.perf_compute_busy.hi.count     = perf_hi[2*32 +: 32];
  assign perf_rd[2]                            = reg2hw.perf_compute_busy.lo.count_rd;
  assign hw2reg.perf_store_busy.lo.count       = perf_lo[3*32 +: 32];
  assign hw2reg.perf_store_busy.hi.count       = perf_hi[3*32 +: 32];
  assign perf_rd[3]                            = reg2hw.perf_store_busy.lo.count_rd;
  assign hw2reg.perf_load_wait_dep.lo.count    = perf_lo[4*32 +: 32];
  assign hw2reg.perf_load_wait_dep.hi.count    = perf_hi[4*32 +: 32];
  assign perf_rd[4]                            = reg2hw.perf_load_wait_dep.lo.count_rd;
  assign hw2reg.perf_compute_wait_dep.lo.count = perf_lo[5*32 +: 32];
  assign hw2reg.perf_compute_wait_dep.hi.count = perf_hi[5*32 +: 32];
  assign perf_rd[5]                            = reg2hw.perf_compute_wait_dep.lo.count_rd;
  assign hw2reg.perf_store_wait_dep.lo.count   = perf_lo[6*32 +: 32];
  assign hw2reg.perf_store_wait_dep.hi.count   = perf_hi[6*32 +: 32];
  assign perf_rd[6]                            = reg2hw.perf_store_wait_dep.lo.count_rd;
  assign hw2reg.perf_tu_wait_w.lo.count        = perf_lo[7*32 +: 32];
  assign hw2reg.perf_tu_wait_w.hi.count        = perf_hi[7*32 +: 32];
  assign perf_rd[7]                            = reg2hw.perf_tu_wait_w.lo.count_rd;
  assign hw2reg.perf_tu_wait_a.lo.count        = perf_lo[8*32 +: 32];
  assign hw2reg.perf_tu_wait_a.hi.count        = perf_hi[8*32 +: 32];
  assign perf_rd[8]                            = reg2hw.perf_tu_wait_a.lo.count_rd;
  assign hw2reg.perf_tu_wait_drain.lo.count    = perf_lo[9*32 +: 32];
  assign hw2reg.perf_tu_wait_drain.hi.count    = perf_hi[9*32 +: 32];
  assign perf_rd[9]                            = reg2hw.perf_tu_wait_drain.lo.count_rd;
  assign hw2reg.perf_macs.lo.count             = perf_lo[10*32 +: 32];
  assign hw2reg.perf_macs.hi.count             = perf_hi[10*32 +: 32];
  assign perf_rd[10]                           = reg2hw.perf_macs.lo.count_rd;
  assign hw2reg.perf_dma_rd_bytes.lo.count     = perf_lo[11*32 +: 32];
  assign hw2reg.perf_dma_rd_bytes.hi.count     = perf_hi[11*32 +: 32];
  assign perf_rd[11]                           = reg2hw.perf_dma_rd_bytes.lo.count_rd;
  assign hw2reg.perf_dma_wr_bytes.lo.count     = perf_lo[12*32 +: 32];
  assign hw2reg.perf_dma_wr_bytes.hi.count     = perf_hi[12*32 +: 32];
  assign perf_rd[12]                           = reg2hw.perf_dma_wr_bytes.lo.count_rd;
  assign hw2reg.perf_dma_rd_stall.lo.count     = perf_lo[13*32 +: 32];
  assign hw2reg.perf_dma_rd_stall.hi.count     = perf_hi[13*32 +: 32];
  assign perf_rd[13]                           = reg2hw.perf_dma_rd_stall.lo.count_rd;
  assign hw2reg.perf_dma_wr_stall.lo.count     = perf_lo[14*32 +: 32];
  assign hw2reg.perf_dma_wr_stall.hi.count     = perf_hi[14*32 +: 32];
  assign perf_rd[14]                           = reg2hw.perf_dma_wr_stall.lo.count_rd;
  assign hw2reg.perf_desc_retired.lo.count     = perf_lo[15*32 +: 32];
  assign hw2reg.perf_desc_retired.hi.count     = perf_hi[15*32 +: 32];
  assign perf_rd[15]                           = reg2hw.perf_desc_retired.lo.count_rd;

  assign irq_o = (reg2hw.irq_status.done && reg2hw.irq_enable.done) ||
                 (reg2hw.irq_status.error && reg2hw.irq_enable.error);

  // The windows in use (the first NumWin of the map's four).
  localparam int WinW = $bits(weft_reg2hw_win_t'('0));
  logic [4*WinW-1:0]    win_regs;  // weft_reg2hw_win_t per window
  logic [NumWin*64-1:0] win_base, win_limit;
  logic [NumWin-1:0]    win_read, win_write;
  assign win_regs = {reg2hw.win3, reg2hw.win2, reg2hw.win1, reg2hw.win0};
  for (genvar i = 0; i < NumWin; i++) begin : g_win
    weft_reg2hw_win_t win;
    assign win                   = win_regs[i*WinW +: WinW];
    assign win_base[i*64 +: 64]  = {win.base_hi.addr, win.base_lo.addr};
    assign win_limit[i*64 +: 64] = {win.limit_hi.addr, win.limit_lo.addr};
    assign win_read[i]           = win.ctrl.read;
    assign win_write[i]          = win.ctrl.write;
  end
  if (NumWin < 4) begin : g_unused_win
    // Windows the device does not have: their registers exist but are ignored.
    logic unused;
    assign unused = ^win_regs[4*WinW-1:NumWin*WinW];
  end

  // ---------------------------------------------------------------- command processor
  localparam int DmaReqW = $bits(weft_dma_req_t'(0));
  logic [1:0]         rd_req_valid, rd_req_ready, rd_valid, rd_ready, rd_done_valid;
  logic [2*DmaReqW-1:0] rd_req, wr_req;  // weft_dma_req_t per client
  logic [2*64-1:0]    rd_done_addr;
  logic [DataW-1:0]   rd_data;
  logic               rd_last;
  logic [2*8-1:0]     rd_done_err;
  logic [1:0]         wr_req_valid, wr_req_ready, wr_start, wr_valid, wr_ready, wr_done_valid;
  logic [2*64-1:0]    wr_done_addr;
  logic [2*DataW-1:0] wr_data;
  logic [2*8-1:0]     wr_done_err;
  logic               dma_busy, stat_rd_beat, stat_wr_beat, stat_rd_stall, stat_wr_stall;
  logic [WrBytesW-1:0] stat_wr_bytes;

  // command processor side of the memories (32-bit line addresses, all regions)
  logic               c_wr_valid, c_wr_ready;
  logic [31:0]        c_wr_addr;
  logic [DataW-1:0]   c_wr_data;
  logic [2:0]         c_rd_req_valid, c_rd_req_ready, c_rd_rsp_valid;
  logic [3*32-1:0]    c_rd_req_addr;
  logic [3*DataW-1:0] c_rd_rsp_data;
  // scratchpad side
  logic               sp_wr_valid;
  logic [LineAw-1:0]  sp_wr_addr;
  logic [2:0]         sp_rd_req_valid, sp_rd_req_ready, sp_rd_rsp_valid;
  logic [3*LineAw-1:0] sp_rd_req_addr;
  logic [3*DataW-1:0] sp_rd_rsp_data;
  // SIMT core
  logic               x_start, x_busy, x_done, x_loading;
  logic [31:0]        x_pc, x_nw, x_tpw, x_blk, x_arg, x_stop, x_ss, x_max;
  logic [7:0]         x_err_code;
  logic [31:0]        x_err_pc, x_err_thread, x_err_tval, x_launches_q;
  logic [9*32-1:0]    x_perf;

  logic               tu_cmd_valid, tu_cmd_ready, tu_cmd_op, tu_cmd_acc, tu_cmd_wreuse;
  logic               tu_cmd_sgn, tu_cmd_pack;
  logic [RowsW-1:0]   tu_cmd_rows;
  logic [AccAw-1:0]   tu_cmd_addr;
  logic [7:0]         tu_cmd_a_zp;
  logic [2:0]         tu_cmd_a_fmt, tu_cmd_out_fmt, tu_w_fmt;
  logic               tu_cmd_relu;
  logic [1:0]         tu_cmd_mode;
  logic [31:0]        tu_cmd_zp, tu_cmd_min, tu_cmd_max;
  logic               tu_w_valid, tu_w_ready, tu_w_last, tu_w_signed;
  logic [Cols*TuElemW-1:0] tu_w_data;
  logic [7:0]         tu_w_zp;
  logic               tu_a_valid, tu_a_ready;
  logic [Rows*TuElemW-1:0] tu_a_data;
  logic               tu_pc_we;
  logic [ColIdxW-1:0] tu_pc_idx;
  logic [31:0]        tu_pc_bias, tu_pc_mult;
  logic [5:0]         tu_pc_shift;
  logic               tu_o_valid, tu_o_ready;
  logic [Cols*32-1:0] tu_o_data;
  logic               tu_busy, tu_st_row, tu_st_w, tu_st_a, tu_st_drain;
  // uncorrectable memory errors (weft_ecc_status -> weft_cmd)
  logic               mem_err_valid, mem_err_ready;
  logic [7:0]         mem_err_code;
  logic [63:0]        mem_err_addr;

  weft_cmd #(
    .Rows(Rows), .Cols(Cols), .AccDepth(AccDepth), .DataW(DataW), .SpadLines(SpadLines),
    .NumWin(NumWin), .Inflight(Inflight), .SimtWarps(SimtWarps), .SimtThreads(SimtThreads),
    .SimtDmemLines(SimtDmemBytes / BB), .SimtImemLines(SimtImemWords * 4 / BB),
    .TensorFp(TensorFp)
  ) u_cmd (
    .clk_i,
    .rst_ni  (rst_n[RstCmd]),
    .cfg_enable_i           (reg2hw.ctrl.enable),
    .cfg_qreset_i           (reg2hw.ctrl.qreset),
    .cfg_perf_clear_i       (reg2hw.ctrl.perf_clear),
    .cfg_ring_base_i        ({reg2hw.ring_base_hi.addr, reg2hw.ring_base_lo.addr}),
    .cfg_ring_log2_i        (reg2hw.ring_size.log2),
    .cfg_tail_i             (reg2hw.ring_tail.count),
    .cfg_tail_wr_i          (reg2hw.ring_tail.count_wr),
    .cfg_cpl_addr_i         ({reg2hw.cpl_addr_hi.addr, reg2hw.cpl_addr_lo.addr}),
    .cfg_win_base_i         (win_base),
    .cfg_win_limit_i        (win_limit),
    .cfg_win_read_i         (win_read),
    .cfg_win_write_i        (win_write),
    .st_idle_o              (hw2reg.status.idle),
    .st_error_o             (hw2reg.status.error),
    .st_reset_busy_o        (hw2reg.status.reset_busy),
    .st_err_code_o          (hw2reg.err_code.code),
    .st_err_index_o         (hw2reg.err_index.index),
    .st_err_addr_o          (st_err_addr),
    .st_head_o              (hw2reg.ring_head.count),
    .st_completed_o         (hw2reg.completed.count),
    .irq_done_set_o         (hw2reg.irq_status.done_set),
    .irq_error_set_o        (hw2reg.irq_status.error_set),
    .perf_lo_o              (perf_lo),
    .perf_hi_o              (perf_hi),
    .perf_lo_rd_i           (perf_rd),
    .dma_rd_req_valid_o     (rd_req_valid),
    .dma_rd_req_ready_i     (rd_req_ready),
    .dma_rd_req_o           (rd_req),
    .dma_rd_valid_i         (rd_valid),
    .dma_rd_ready_o         (rd_ready),
    .dma_rd_data_i          (rd_data),
    .dma_rd_last_i          (rd_last),
    .dma_rd_done_valid_i    (rd_done_valid),
    .dma_rd_done_err_i      (rd_done_err),
    .dma_rd_done_addr_i     (rd_done_addr),
    .dma_wr_req_valid_o     (wr_req_valid),
    .dma_wr_req_ready_i     (wr_req_ready),
    .dma_wr_req_o           (wr_req),
    .dma_wr_start_i         (wr_start),
    .dma_wr_valid_o         (wr_valid),
    .dma_wr_ready_i         (wr_ready),
    .dma_wr_data_o          (wr_data),
    .dma_wr_done_valid_i    (wr_done_valid),
    .dma_wr_done_err_i      (wr_done_err),
    .dma_wr_done_addr_i     (wr_done_addr),
    .dma_busy_i             (dma_busy),
    .dma_stat_rd_beat_i     (stat_rd_beat),
    .dma_stat_wr_beat_i     (stat_wr_beat),
    .dma_stat_wr_bytes_i    (stat_wr_bytes),
    .dma_stat_rd_stall_i    (stat_rd_stall),
    .dma_stat_wr_stall_i    (stat_wr_stall),
    .sp_wr_valid_o          (c_wr_valid),
    .sp_wr_addr_o           (c_wr_addr),
    .sp_wr_data_o           (c_wr_data),
    .sp_wr_ready_i          (c_wr_ready),
    .sp_rd_req_valid_o      (c_rd_req_valid),
    .sp_rd_req_ready_i      (c_rd_req_ready),
    .sp_rd_req_addr_o       (c_rd_req_addr),
    .sp_rd_rsp_valid_i      (c_rd_rsp_valid),
    .sp_rd_rsp_data_i       (c_rd_rsp_data),
    .simt_start_o           (x_start),
    .simt_pc_o              (x_pc),
    .simt_num_warps_o       (x_nw),
    .simt_threads_o         (x_tpw),
    .simt_block_id_o        (x_blk),
    .simt_arg_ptr_o         (x_arg),
    .simt_stack_top_o       (x_stop),
    .simt_stack_size_o      (x_ss),
    .simt_max_issues_o      (x_max),
    .simt_busy_i            (x_busy || x_loading),
    .simt_done_i            (x_done),
    .simt_err_code_i        (x_err_code),
    .simt_err_pc_i          (x_err_pc),
    .simt_err_thread_i      (x_err_thread),
    .mem_err_valid_i        (mem_err_valid),
    .mem_err_ready_o        (mem_err_ready),
    .mem_err_code_i         (mem_err_code),
    .mem_err_addr_i         (mem_err_addr),
    .tu_cmd_valid_o         (tu_cmd_valid),
    .tu_cmd_ready_i         (tu_cmd_ready),
    .tu_cmd_op_o            (tu_cmd_op),
    .tu_cmd_rows_o          (tu_cmd_rows),
    .tu_cmd_addr_o          (tu_cmd_addr),
    .tu_cmd_accumulate_o    (tu_cmd_acc),
    .tu_cmd_wreuse_o        (tu_cmd_wreuse),
    .tu_cmd_a_signed_o      (tu_cmd_sgn),
    .tu_cmd_a_zp_o          (tu_cmd_a_zp),
    .tu_cmd_a_fmt_o         (tu_cmd_a_fmt),
    .tu_cmd_mode_o          (tu_cmd_mode),
    .tu_cmd_pack_o          (tu_cmd_pack),
    .tu_cmd_out_fmt_o       (tu_cmd_out_fmt),
    .tu_cmd_relu_o          (tu_cmd_relu),
    .tu_cmd_zp_o            (tu_cmd_zp),
    .tu_cmd_act_min_o       (tu_cmd_min),
    .tu_cmd_act_max_o       (tu_cmd_max),
    .tu_w_valid_o           (tu_w_valid),
    .tu_w_ready_i           (tu_w_ready),
    .tu_w_data_o            (tu_w_data),
    .tu_w_last_o            (tu_w_last),
    .tu_w_signed_o          (tu_w_signed),
    .tu_w_zp_o              (tu_w_zp),
    .tu_w_fmt_o             (tu_w_fmt),
    .tu_a_valid_o           (tu_a_valid),
    .tu_a_ready_i           (tu_a_ready),
    .tu_a_data_o            (tu_a_data),
    .tu_pc_we_o             (tu_pc_we),
    .tu_pc_idx_o            (tu_pc_idx),
    .tu_pc_bias_o           (tu_pc_bias),
    .tu_pc_mult_o           (tu_pc_mult),
    .tu_pc_shift_o          (tu_pc_shift),
    .tu_o_valid_i           (tu_o_valid),
    .tu_o_ready_o           (tu_o_ready),
    .tu_o_data_i            (tu_o_data),
    .tu_busy_i              (tu_busy),
    .tu_stat_array_row_i    (tu_st_row),
    .tu_stat_wait_w_i       (tu_st_w),
    .tu_stat_wait_a_i       (tu_st_a),
    .tu_stat_wait_drain_i   (tu_st_drain)
  );

  // ---------------------------------------------------------------- DMA
  weft_dma #(
    .DataW(DataW), .AddrW(AddrW), .IdW(IdW), .NumWin(NumWin), .MaxBurst(MaxBurst),
    .MaxRdOut(MaxRdOut), .NumRd(2), .NumWr(2)
  ) u_dma (
    .clk_i,
    .rst_ni  (rst_n[RstDma]),
    .rd_req_valid_i     (rd_req_valid),
    .rd_req_ready_o     (rd_req_ready),
    .rd_req_i           (rd_req),
    .rd_valid_o         (rd_valid),
    .rd_ready_i         (rd_ready),
    .rd_data_o          (rd_data),
    .rd_last_o          (rd_last),
    .rd_done_valid_o    (rd_done_valid),
    .rd_done_err_o      (rd_done_err),
    .rd_done_addr_o     (rd_done_addr),
    .wr_req_valid_i     (wr_req_valid),
    .wr_req_ready_o     (wr_req_ready),
    .wr_req_i           (wr_req),
    .wr_start_o         (wr_start),
    .wr_valid_i         (wr_valid),
    .wr_ready_o         (wr_ready),
    .wr_data_i          (wr_data),
    .wr_done_valid_o    (wr_done_valid),
    .wr_done_err_o      (wr_done_err),
    .wr_done_addr_o     (wr_done_addr),
    .win_base_i         (win_base),
    .win_limit_i        (win_limit),
    .win_read_i         (win_read),
    .win_write_i        (win_write),
    .m_axi_awvalid,
    .m_axi_awready,
    .m_axi_awid,
    .m_axi_awaddr,
    .m_axi_awlen,
    .m_axi_awsize,
    .m_axi_awburst,
    .m_axi_awcache,
    .m_axi_awprot,
    .m_axi_wvalid,
    .m_axi_wready,
    .m_axi_wdata,
    .m_axi_wstrb,
    .m_axi_wlast,
    .m_axi_bvalid,
    .m_axi_bready,
    .m_axi_bid,
    .m_axi_bresp,
    .m_axi_arvalid,
    .m_axi_arready,
    .m_axi_arid,
    .m_axi_araddr,
    .m_axi_arlen,
    .m_axi_arsize,
    .m_axi_arburst,
    .m_axi_arcache,
    .m_axi_arprot,
    .m_axi_rvalid,
    .m_axi_rready,
    .m_axi_rid,
    .m_axi_rdata,
    .m_axi_rresp,
    .m_axi_rlast,
    .busy_o             (dma_busy),
    .stat_rd_beat_o     (stat_rd_beat),
    .stat_wr_beat_o     (stat_wr_beat),
    .stat_wr_bytes_o    (stat_wr_bytes),
    .stat_rd_stall_o    (stat_rd_stall),
    .stat_wr_stall_o    (stat_wr_stall)
  );

  // ---------------------------------------------------------------- scratchpad
  logic [SpadCntW-1:0] sp_ecc_corr;
  logic [LineAw-1:0]   sp_ecc_corr_line, sp_ecc_err_line;
  logic                sp_ecc_err;

  weft_spad #(
    .DataW(DataW), .Lines(SpadLines), .Banks(SpadBanks), .NumRd(3), .Ecc(MemEcc)
  ) u_spad (
    .clk_i,
    .rst_ni  (rst_n[RstSpad]),
    .wr_valid_i     (sp_wr_valid),
    .wr_addr_i      (sp_wr_addr),
    .wr_data_i      (c_wr_data),
    .rd_req_valid_i (sp_rd_req_valid),
    .rd_req_ready_o (sp_rd_req_ready),
    .rd_req_addr_i  (sp_rd_req_addr),
    .rd_rsp_valid_o (sp_rd_rsp_valid),
    .rd_rsp_data_o  (sp_rd_rsp_data),
    .ecc_corr_o      (sp_ecc_corr),
    .ecc_corr_line_o (sp_ecc_corr_line),
    .ecc_err_o       (sp_ecc_err),
    .ecc_err_line_o  (sp_ecc_err_line)
  );

  // ---------------------------------------------------------------- tensor unit
  logic [1:0]       tu_ecc_corr;
  logic [AccAw-1:0] tu_ecc_corr_row, tu_ecc_err_row;
  logic             tu_ecc_err;

  weft_tensor_unit #(
    .Rows(Rows), .Cols(Cols), .AccDepth(AccDepth), .Fp(TensorFp), .AccEcc(MemEcc)
  ) u_tu (
    .clk_i,
    .rst_ni  (rst_n[RstTu]),
    .cmd_valid_i       (tu_cmd_valid),
    .cmd_ready_o       (tu_cmd_ready),
    .cmd_op_i          (tu_cmd_op),
    .cmd_rows_i        (tu_cmd_rows),
    .cmd_addr_i        (tu_cmd_addr),
    .cmd_accumulate_i  (tu_cmd_acc),
    .cmd_wreuse_i      (tu_cmd_wreuse),
    .cmd_a_signed_i    (tu_cmd_sgn),
    .cmd_a_zp_i        (tu_cmd_a_zp),
    .cmd_a_fmt_i       (tu_cmd_a_fmt),
    .cmd_mode_i        (tu_cmd_mode),
    .cmd_pack_i        (tu_cmd_pack),
    .cmd_out_fmt_i     (tu_cmd_out_fmt),
    .cmd_relu_i        (tu_cmd_relu),
    .cmd_zp_i          (tu_cmd_zp),
    .cmd_act_min_i     (tu_cmd_min),
    .cmd_act_max_i     (tu_cmd_max),
    .w_valid_i         (tu_w_valid),
    .w_ready_o         (tu_w_ready),
    .w_data_i          (tu_w_data),
    .w_last_i          (tu_w_last),
    .w_signed_i        (tu_w_signed),
    .w_zp_i            (tu_w_zp),
    .w_fmt_i           (tu_w_fmt),
    .a_valid_i         (tu_a_valid),
    .a_ready_o         (tu_a_ready),
    .a_data_i          (tu_a_data),
    .pc_we_i           (tu_pc_we),
    .pc_idx_i          (tu_pc_idx),
    .pc_bias_i         (tu_pc_bias),
    .pc_mult_i         (tu_pc_mult),
    .pc_shift_i        (tu_pc_shift),
    .o_valid_o         (tu_o_valid),
    .o_ready_i         (tu_o_ready),
    .o_data_o          (tu_o_data),
    .busy_o            (tu_busy),
    .stat_array_row_o  (tu_st_row),
    .stat_wait_w_o     (tu_st_w),
    .stat_wait_a_o     (tu_st_a),
    .stat_wait_drain_o (tu_st_drain),
    .acc_ecc_corr_o     (tu_ecc_corr),
    .acc_ecc_corr_row_o (tu_ecc_corr_row),
    .acc_ecc_err_o      (tu_ecc_err),
    .acc_ecc_err_row_o  (tu_ecc_err_row)
  );

  // ---------------------------------------------------------------- memory ECC
  if (MemEcc) begin : g_ecc
    weft_ecc_status #(.LineAw(LineAw), .AccAw(AccAw), .SpadCntW(SpadCntW)) u_ecc (
      .clk_i,
      .rst_ni           (rst_n[RstEcc]),
      .clear_i          (reg2hw.ctrl.ecc_clear),
      .spad_corr_i      (sp_ecc_corr),
      .spad_corr_line_i (sp_ecc_corr_line),
      .spad_err_i       (sp_ecc_err),
      .spad_err_line_i  (sp_ecc_err_line),
      .acc_corr_i       (tu_ecc_corr),
      .acc_corr_row_i   (tu_ecc_corr_row),
      .acc_err_i        (tu_ecc_err),
      .acc_err_row_i    (tu_ecc_err_row),
      .corrected_o      (hw2reg.ecc_corrected.count),
      .detected_o       (hw2reg.ecc_detected.count),
      .last_corr_o      (ecc_last_corr),
      .last_err_o       (ecc_last_err),
      .err_valid_o      (mem_err_valid),
      .err_ready_i      (mem_err_ready),
      .err_code_o       (mem_err_code),
      .err_addr_o       (mem_err_addr)
    );
  end else begin : g_no_ecc
    // The memories report nothing without ECC (their outputs are 0).
    logic unused_ecc;
    assign unused_ecc = ^{reg2hw.ctrl.ecc_clear, sp_ecc_corr, sp_ecc_corr_line, sp_ecc_err,
                          sp_ecc_err_line, tu_ecc_corr, tu_ecc_corr_row, tu_ecc_err,
                          tu_ecc_err_row, mem_err_ready, rst_n[RstEcc]};
    assign hw2reg.ecc_corrected.count = '0;
    assign hw2reg.ecc_detected.count  = '0;
    assign ecc_last_corr = '0;
    assign ecc_last_err  = '0;
    assign mem_err_valid = 1'b0;
    assign mem_err_code  = '0;
    assign mem_err_addr  = '0;
  end

  // ---------------------------------------------------------------- memory regions, SIMT core
  // Line regions (weft_pkg): the scratchpad below SimtDmemLine, the SIMT memories from there on
  // (decoded by weft_simt_memport).
  logic wr_spad, rd_spad;
  assign wr_spad = c_wr_addr < weft_pkg::SimtDmemLine;
  assign rd_spad = c_rd_req_addr[2*32 +: 32] < weft_pkg::SimtDmemLine;

  assign sp_wr_valid = c_wr_valid && wr_spad;
  assign sp_wr_addr  = LineAw'(c_wr_addr);
  for (genvar i = 0; i < 3; i++) begin : g_sp_rd
    assign sp_rd_req_addr[i*LineAw +: LineAw] = LineAw'(c_rd_req_addr[i*32 +: 32]);
  end
  assign sp_rd_req_valid = {c_rd_req_valid[2] && rd_spad, c_rd_req_valid[1:0]};

  if (SimtWarps > 0) begin : g_simt
    localparam int ExtAw  = $clog2(SimtDmemBytes / BB);
    localparam int ImemAw = $clog2(SimtImemWords);

    logic              ext_req, ext_we, ext_ready, ext_rvalid, simt_wr_ready, simt_rd_ready;
    logic              simt_rd_valid, imem_we;
    logic [ExtAw-1:0]  ext_addr;
    logic [DataW-1:0]  ext_wdata, ext_rdata, simt_rd_data;
    logic [ImemAw-1:0] imem_addr;
    logic [31:0]       imem_wdata;

    weft_simt_memport #(
      .DataW     (DataW),
      .DmemBytes (SimtDmemBytes),
      .ImemWords (SimtImemWords)
    ) u_simt_mem (
      .clk_i,
      .rst_ni  (rst_n[RstSimtMem]),
      .wr_valid_i     (c_wr_valid),
      .wr_addr_i      (c_wr_addr),
      .wr_data_i      (c_wr_data),
      .wr_ready_o     (simt_wr_ready),
      .rd_req_valid_i (c_rd_req_valid[2]),
      .rd_req_addr_i  (c_rd_req_addr[2*32 +: 32]),
      .rd_req_ready_o (simt_rd_ready),
      .rd_rsp_valid_o (simt_rd_valid),
      .rd_rsp_data_o  (simt_rd_data),
      .core_busy_i    (x_busy),
      .loading_o      (x_loading),
      .imem_we_o      (imem_we),
      .imem_addr_o    (imem_addr),
      .imem_wdata_o   (imem_wdata),
      .ext_req_o      (ext_req),
      .ext_we_o       (ext_we),
      .ext_addr_o     (ext_addr),
      .ext_wdata_o    (ext_wdata),
      .ext_ready_i    (ext_ready),
      .ext_rvalid_i   (ext_rvalid),
      .ext_rdata_i    (ext_rdata)
    );

    assign c_wr_ready     = wr_spad || simt_wr_ready;
    assign c_rd_req_ready = {rd_spad ? sp_rd_req_ready[2] : simt_rd_ready, sp_rd_req_ready[1:0]};
    assign c_rd_rsp_valid = {sp_rd_rsp_valid[2] || simt_rd_valid, sp_rd_rsp_valid[1:0]};
    assign c_rd_rsp_data  = {simt_rd_valid ? simt_rd_data : sp_rd_rsp_data[2*DataW +: DataW],
                             sp_rd_rsp_data[0 +: 2*DataW]};

    logic [31:0] p_cyc, p_iss, p_act, p_spipe, p_sdiv, p_smem, p_sbar, p_rep, p_bar;
    logic [31:0] dbg_ret, dbg_ec, dbg_wi, dbg_wa;
    logic        dbg_ex, unused_dbg;
    assign unused_dbg = ^{dbg_ret, dbg_ec, dbg_ex, dbg_wi, dbg_wa};  // debug port: tests only
    weft_simt_core #(
      .Warps     (SimtWarps),
      .Threads   (SimtThreads),
      .ImemWords (SimtImemWords),
      .DmemBytes (SimtDmemBytes),
      .Banks     (SimtBanks),
      .ExtW      (DataW)
    ) u_simt (
      .clk_i,
      .rst_ni  (rst_n[RstSimt]),
      .imem_we_i            (imem_we),
      .imem_addr_i          (imem_addr),
      .imem_wdata_i         (imem_wdata),
      .start_i              (x_start),
      .start_pc_i           (x_pc),
      .start_num_warps_i    (x_nw),
      .start_threads_i      (x_tpw),
      .start_block_id_i     (x_blk),
      .start_arg_ptr_i      (x_arg),
      .start_stack_top_i    (x_stop),
      .start_stack_size_i   (x_ss),
      .start_max_issues_i   (x_max),
      .busy_o               (x_busy),
      .done_o               (x_done),
      .err_code_o           (x_err_code),
      .err_pc_o             (x_err_pc),
      .err_thread_o         (x_err_thread),
      .err_tval_o           (x_err_tval),
      .perf_cycles_o        (p_cyc),
      .perf_issued_o        (p_iss),
      .perf_active_o        (p_act),
      .perf_stall_pipe_o    (p_spipe),
      .perf_stall_div_o     (p_sdiv),
      .perf_stall_mem_o     (p_smem),
      .perf_stall_barrier_o (p_sbar),
      .perf_replays_o       (p_rep),
      .perf_barriers_o      (p_bar),
      .dbg_thread_i         ('0),
      .dbg_retired_o        (dbg_ret),
      .dbg_exit_code_o      (dbg_ec),
      .dbg_exited_o         (dbg_ex),
      .dbg_warp_i           ('0),
      .dbg_warp_issues_o    (dbg_wi),
      .dbg_warp_active_o    (dbg_wa),
      .ext_req_i            (ext_req),
      .ext_we_i             (ext_we),
      .ext_addr_i           (ext_addr),
      .ext_wdata_i          (ext_wdata),
      .ext_ready_o          (ext_ready),
      .ext_rvalid_o         (ext_rvalid),
      .ext_rdata_o          (ext_rdata)
    );
    assign x_perf = {p_bar, p_rep, p_sbar, p_smem, p_sdiv, p_spipe, p_act, p_iss, p_cyc};

    always_ff @(posedge clk_i or negedge rst_n[RstSimt]) begin : p_launches
      if (!rst_n[RstSimt]) x_launches_q <= '0;
      else if (x_done) x_launches_q <= x_launches_q + 32'd1;
    end
  end else begin : g_no_simt
    assign x_busy        = 1'b0;
    assign x_done        = 1'b0;
    assign x_loading     = 1'b0;
    assign x_err_code    = '0;
    assign x_err_pc      = '0;
    assign x_err_thread  = '0;
    assign x_err_tval    = '0;
    assign x_perf        = '0;
    assign x_launches_q  = '0;
    assign c_wr_ready     = 1'b1;
    assign c_rd_req_ready = sp_rd_req_ready;
    assign c_rd_rsp_valid = sp_rd_rsp_valid;
    assign c_rd_rsp_data  = sp_rd_rsp_data;
    logic unused_x;
    assign unused_x = ^{x_start, x_pc, x_nw, x_tpw, x_blk, x_arg, x_stop, x_ss, x_max};
  end

endmodule
