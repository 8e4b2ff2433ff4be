// weft_board: the Weft device on a board with a serial line (docs/host-interfaces.md 2.4):
// weft_uart_bridge (requests on uart_rx_i / uart_tx_o) -> weft_top's registers (AXI4-Lite) and
// weft_board_mem (the device's host memory, at 0x8000_0000 on weft_top's AXI4 master and on the
// bridge's word port). The device's DMA windows must point into the board memory.
//
// LEDs: [0] heartbeat (toggles every ClkHz/2 cycles), [1] device busy and [2] device error
// (STATUS, polled by the bridge), [3] irq, [4] UART receive and [5] transmit activity (stretched
// to about 50 ms), [6] a bad frame was seen since reset, [7] 0 (free for the board top).
// weft_top's flat m_axi_* ports meet weft_board_mem's weft_axi_*_t structs here, and its flat
// s_axil_* ports the bridge's weft_axil_req_t / weft_axil_rsp_t (rtl/common/weft_axi_types.svh).
`include "weft_axi_types.svh"

module weft_board #(
  parameter int Rows          = 8,
  parameter int Cols          = 8,
  parameter int AccDepth      = 256,
  parameter int SpadLines     = 2048,
  parameter int SpadBanks     = 4,
  parameter int SimtWarps     = 4,
  parameter int SimtThreads   = 8,
  parameter int SimtBanks     = 8,
  parameter int SimtDmemBytes = 16384,
  parameter int SimtImemWords = 2048,
  parameter bit TensorFp      = 1'b0,  // FP8 modes: off on the board (their area: docs/fpga.md)
  parameter bit MemEcc        = 1'b0,  // SECDED on scratchpad and accumulator (docs/fpga.md)
  parameter int HostMemBytes  = 65536,
  parameter int ClksPerBit    = 50,
  parameter int ClkHz         = 50_000_000,
  localparam int MemAw        = $clog2(HostMemBytes)
) (
  input  logic       clk_i,
  input  logic       rst_ni,
  input  logic       uart_rx_i,
  output logic       uart_tx_o,
  output logic [7:0] led_o
);

  localparam int IdW   = 4;
  localparam int AddrW = 64;
  localparam int DataW = 128;

  // ---------------------------------------------------------------- bridge <-> device CSRs
  weft_axil_req_t axil_req;
  weft_axil_rsp_t axil_rsp;
  // bridge <-> board memory
  logic             br_req, br_we, br_gnt, br_rvalid;
  logic [MemAw-3:0] br_addr;
  logic [31:0]      br_wdata, br_rdata;
  // device <-> board memory
  logic             awvalid, awready, wvalid, wready, wlast, bvalid, bready;
  logic             arvalid, arready, rvalid, rready;
  logic [IdW-1:0]   awid, arid;
  weft_axi_ax_t     aw, ar;
  weft_axi_b_t      b;
  weft_axi_r_t      r;
  logic [DataW-1:0] wdata, rdata;
  logic [DataW/8-1:0] wstrb;
  logic             irq;
  logic             dev_busy, dev_error, rx_active, tx_active, bad_frame;

  assign aw.id = 8'(awid);
  assign ar.id = 8'(arid);
  logic unused_id;
  assign unused_id = ^{b.id, r.id};  // IdW bits used, the higher ones 0

  // Reset tree: the bridge (with the LEDs) and the board memory each get a weft_rst_stage, as
  // weft_top's blocks do inside it, so all leave reset on the same edge, one after rst_ni.
  logic rst_bridge_n, rst_mem_n;
  weft_rst_stage u_rst_bridge (.clk_i, .rst_ni, .rst_no(rst_bridge_n));
  weft_rst_stage u_rst_mem    (.clk_i, .rst_ni, .rst_no(rst_mem_n));

  weft_uart_bridge #(
    .ClksPerBit(ClksPerBit), .ClkHz(ClkHz), .HostMemBytes(HostMemBytes)
  ) u_bridge (
    .clk_i, .rst_ni(rst_bridge_n), .uart_rx_i, .uart_tx_o,
    .axil_req_o(axil_req), .axil_rsp_i(axil_rsp),
    .mem_req_o(br_req), .mem_we_o(br_we), .mem_addr_o(br_addr), .mem_wdata_o(br_wdata),
    .mem_gnt_i(br_gnt), .mem_rvalid_i(br_rvalid), .mem_rdata_i(br_rdata),
    .dev_busy_o(dev_busy), .dev_error_o(dev_error), .rx_active_o(rx_active),
    .tx_active_o(tx_active), .bad_frame_o(bad_frame));

  weft_top #(
    .Rows(Rows), .Cols(Cols), .AccDepth(AccDepth), .DataW(DataW), .AddrW(AddrW), .IdW(IdW),
    .SpadLines(SpadLines), .SpadBanks(SpadBanks), .SimtWarps(SimtWarps),
    .SimtThreads(SimtThreads), .SimtBanks(SimtBanks), .SimtDmemBytes(SimtDmemBytes),
    .SimtImemWords(SimtImemWords), .TensorFp(TensorFp), .MemEcc(MemEcc)
  ) u_top (
    .clk_i, .rst_ni,
    .s_axil_awvalid(axil_req.aw_valid), .s_axil_awready(axil_rsp.aw_ready),
    .s_axil_awaddr(axil_req.aw_addr), .s_axil_awprot(axil_req.aw_prot),
    .s_axil_wvalid(axil_req.w_valid), .s_axil_wready(axil_rsp.w_ready),
    .s_axil_wdata(axil_req.w_data), .s_axil_wstrb(axil_req.w_strb),
    .s_axil_bvalid(axil_rsp.b_valid), .s_axil_bready(axil_req.b_ready),
    .s_axil_bresp(axil_rsp.b_resp), .s_axil_arvalid(axil_req.ar_valid),
    .s_axil_arready(axil_rsp.ar_ready), .s_axil_araddr(axil_req.ar_addr),
    .s_axil_arprot(axil_req.ar_prot), .s_axil_rvalid(axil_rsp.r_valid),
    .s_axil_rready(axil_req.r_ready), .s_axil_rdata(axil_rsp.r_data),
    .s_axil_rresp(axil_rsp.r_resp),
    .m_axi_awvalid(awvalid), .m_axi_awready(awready), .m_axi_awid(awid),
    .m_axi_awaddr(aw.addr), .m_axi_awlen(aw.len), .m_axi_awsize(aw.size),
    .m_axi_awburst(aw.burst), .m_axi_awcache(aw.cache), .m_axi_awprot(aw.prot),
    .m_axi_wvalid(wvalid), .m_axi_wready(wready), .m_axi_wdata(wdata), .m_axi_wstrb(wstrb),
    .m_axi_wlast(wlast), .m_axi_bvalid(bvalid), .m_axi_bready(bready),
    .m_axi_bid(b.id[IdW-1:0]), .m_axi_bresp(b.resp),
    .m_axi_arvalid(arvalid), .m_axi_arready(arready), .m_axi_arid(arid),
    .m_axi_araddr(ar.addr), .m_axi_arlen(ar.len), .m_axi_arsize(ar.size),
    .m_axi_arburst(ar.burst), .m_axi_arcache(ar.cache), .m_axi_arprot(ar.prot),
    .m_axi_rvalid(rvalid), .m_axi_rready(rready), .m_axi_rid(r.id[IdW-1:0]),
    .m_axi_rdata(rdata), .m_axi_rresp(r.resp), .m_axi_rlast(r.last),
    .irq_o(irq));

  weft_board_mem #(.HostMemBytes(HostMemBytes), .IdW(IdW), .AddrW(AddrW)) u_mem (
    .clk_i, .rst_ni(rst_mem_n),
    .axi_aw_valid_i(awvalid), .axi_aw_ready_o(awready), .axi_aw_i(aw),
    .axi_w_valid_i(wvalid), .axi_w_ready_o(wready), .axi_w_data_i(wdata), .axi_w_strb_i(wstrb),
    .axi_w_last_i(wlast), .axi_b_valid_o(bvalid), .axi_b_ready_i(bready), .axi_b_o(b),
    .axi_ar_valid_i(arvalid), .axi_ar_ready_o(arready), .axi_ar_i(ar),
    .axi_r_valid_o(rvalid), .axi_r_ready_i(rready), .axi_r_o(r), .axi_r_data_o(rdata),
    .br_req_i(br_req), .br_we_i(br_we), .br_addr_i(br_addr), .br_wdata_i(br_wdata),
    .br_gnt_o(br_gnt), .br_rvalid_o(br_rvalid), .br_rdata_o(br_rdata));

  // ---------------------------------------------------------------- LEDs
  localparam int HalfSec = (ClkHz / 2 > 1) ? ClkHz / 2 : 2;
  localparam int Stretch = (ClkHz / 20 > 1) ? ClkHz / 20 : 2;
  localparam int HbW     = $clog2(HalfSec);
  localparam int StW     = $clog2(Stretch + 1);

  logic [HbW-1:0] hb_cnt_q, hb_cnt_d;
  logic           hb_q, hb_d;
  logic [StW-1:0] rx_st_q, rx_st_d, tx_st_q, tx_st_d;

  always_comb begin
    hb_cnt_d = hb_cnt_q + 1'b1;
    hb_d     = hb_q;
    if (hb_cnt_q == HbW'(HalfSec - 1)) begin
      hb_cnt_d = '0;
      hb_d     = !hb_q;
    end
    rx_st_d = rx_active ? StW'(Stretch) : (rx_st_q != '0) ? rx_st_q - 1'b1 : rx_st_q;
    tx_st_d = tx_active ? StW'(Stretch) : (tx_st_q != '0) ? tx_st_q - 1'b1 : tx_st_q;
  end

  always_ff @(posedge clk_i or negedge rst_bridge_n) begin
    if (!rst_bridge_n) begin
      hb_cnt_q <= '0;
      hb_q     <= 1'b0;
      rx_st_q  <= '0;
      tx_st_q  <= '0;
    end else begin
      hb_cnt_q <= hb_cnt_d;
      hb_q     <= hb_d;
      rx_st_q  <= rx_st_d;
      tx_st_q  <= tx_st_d;
    end
  end

  assign led_o = {1'b0, bad_frame, tx_st_q != '0, rx_st_q != '0, irq, dev_error, dev_busy, hb_q};

endmodule
