// weft_pcie_top: the Weft device behind the PCIe-like link (docs/host-interfaces.md section 1):
// weft_pcie_ep + weft_top. Only the clock, the reset and the two TLP streams leave it: BAR0
// reaches the registers, the device's host-memory traffic becomes MRd/MWr TLPs, its interrupt
// an MSI. Every weft_top parameter is passed through; the link parameters go to weft_pcie_ep.
// weft_top's flat m_axi_* and s_axil_* ports meet weft_pcie_ep's weft_axi_*_t and
// weft_axil_req_t / weft_axil_rsp_t structs here (rtl/common/weft_axi_types.svh).
`include "weft_assert.svh"
`include "weft_axi_types.svh"

module weft_pcie_top #(
  parameter int          Rows          = 16,
  parameter int          Cols          = 16,
  parameter int          AccDepth      = 512,
  parameter int          DataW         = 128,
  parameter int          AddrW         = 64,
  parameter int          IdW           = 4,
  parameter int          SpadLines     = 16384,
  parameter int          SpadBanks     = 4,
  parameter int          NumWin        = 4,
  parameter int          MaxBurst      = 16,
  parameter int          MaxRdOut      = 24,   // a link of ~100-cycle latency needs ~3 KiB of reads in flight
  parameter int          Inflight      = 16,
  parameter int          SimtWarps     = 4,
  parameter int          SimtThreads   = 8,
  parameter int          SimtBanks     = 8,
  parameter int          SimtDmemBytes = 262144,
  parameter int          SimtImemWords = 4096,
  parameter bit          MemEcc        = 1'b0,
  // link
  parameter int          NumTags       = 32,
  parameter int          MaxPayload    = 256,
  parameter int          MaxReadReq    = 512,
  parameter logic [63:0] Bar0Base      = 64'h0000_0000_F000_0000,
  parameter int unsigned CplTimeout    = 100000,
  parameter logic [15:0] EpId          = 16'h0100
) (
  input  logic         clk_i,
  input  logic         rst_ni,
  input  logic         rx_valid,
  output logic         rx_ready,
  input  logic         rx_sop,
  input  logic         rx_eop,
  input  logic [127:0] rx_data,
  output logic         tx_valid,
  input  logic         tx_ready,
  output logic         tx_sop,
  output logic         tx_eop,
  output logic [127:0] tx_data
);

  if (DataW != 128 || AddrW != 64 || IdW < 1 || IdW > 8) begin : g_bad_bus
    `WEFT_ELAB_ERROR("weft_pcie_top: the endpoint needs DataW = 128, AddrW = 64 and IdW <= 8")
  end

  weft_axil_req_t  axil_req;
  weft_axil_rsp_t  axil_rsp;
  logic            awvalid, awready, wvalid, wready, wlast, bvalid, bready;
  logic            arvalid, arready, rvalid, rready;
  logic [IdW-1:0]  awid, arid;
  weft_axi_ax_t    aw, ar;
  weft_axi_b_t     b;
  weft_axi_r_t     r;
  logic [127:0]    wdata, rdata;
  logic [15:0]     wstrb;
  logic            irq;

  assign aw.id = 8'(awid);
  assign ar.id = 8'(arid);
  logic unused_id;
  assign unused_id = ^{b.id, r.id};  // IdW bits used, the higher ones 0

  weft_pcie_ep #(
    .NumTags    (NumTags),
    .MaxPayload (MaxPayload),
    .MaxReadReq (MaxReadReq),
    .Bar0Base   (Bar0Base),
    .CplTimeout (CplTimeout),
    .EpId       (EpId),
    .IdW        (IdW),
    .MaxBurst   (MaxBurst)
  ) u_ep (
    .clk_i,
    .rst_ni,
    .rx_valid,
    .rx_ready,
    .rx_sop,
    .rx_eop,
    .rx_data,
    .tx_valid,
    .tx_ready,
    .tx_sop,
    .tx_eop,
    .tx_data,
    .axil_req_o     (axil_req),
    .axil_rsp_i     (axil_rsp),
    .axi_aw_valid_i (awvalid),
    .axi_aw_ready_o (awready),
    .axi_aw_i       (aw),
    .axi_w_valid_i  (wvalid),
    .axi_w_ready_o  (wready),
    .axi_w_data_i   (wdata),
    .axi_w_strb_i   (wstrb),
    .axi_w_last_i   (wlast),
    .axi_b_valid_o  (bvalid),
    .axi_b_ready_i  (bready),
    .axi_b_o        (b),
    .axi_ar_valid_i (arvalid),
    .axi_ar_ready_o (arready),
    .axi_ar_i       (ar),
    .axi_r_valid_o  (rvalid),
    .axi_r_ready_i  (rready),
    .axi_r_o        (r),
    .axi_r_data_o   (rdata),
    .irq_i          (irq)
  );

  weft_top #(
    .Rows          (Rows),
    .Cols          (Cols),
    .AccDepth      (AccDepth),
    .DataW         (DataW),
    .AddrW         (AddrW),
    .IdW           (IdW),
    .SpadLines     (SpadLines),
    .SpadBanks     (SpadBanks),
    .NumWin        (NumWin),
    .MaxBurst      (MaxBurst),
    .MaxRdOut      (MaxRdOut),
    .Inflight      (Inflight),
    .SimtWarps     (SimtWarps),
    .SimtThreads   (SimtThreads),
    .SimtBanks     (SimtBanks),
    .SimtDmemBytes (SimtDmemBytes),
    .SimtImemWords (SimtImemWords),
    .MemEcc        (MemEcc)
  ) u_top (
    .clk_i,
    .rst_ni,
    .s_axil_awvalid (axil_req.aw_valid),
    .s_axil_awready (axil_rsp.aw_ready),
    .s_axil_awaddr  (axil_req.aw_addr),
    .s_axil_awprot  (axil_req.aw_prot),
    .s_axil_wvalid  (axil_req.w_valid),
    .s_axil_wready  (axil_rsp.w_ready),
    .s_axil_wdata   (axil_req.w_data),
    .s_axil_wstrb   (axil_req.w_strb),
    .s_axil_bvalid  (axil_rsp.b_valid),
    .s_axil_bready  (axil_req.b_ready),
    .s_axil_bresp   (axil_rsp.b_resp),
    .s_axil_arvalid (axil_req.ar_valid),
    .s_axil_arready (axil_rsp.ar_ready),
    .s_axil_araddr  (axil_req.ar_addr),
    .s_axil_arprot  (axil_req.ar_prot),
    .s_axil_rvalid  (axil_rsp.r_valid),
    .s_axil_rready  (axil_req.r_ready),
    .s_axil_rdata   (axil_rsp.r_data),
    .s_axil_rresp   (axil_rsp.r_resp),
    .m_axi_awvalid  (awvalid),
    .m_axi_awready  (awready),
    .m_axi_awid     (awid),
    .m_axi_awaddr   (aw.addr),
    .m_axi_awlen    (aw.len),
    .m_axi_awsize   (aw.size),
    .m_axi_awburst  (aw.burst),
    .m_axi_awcache  (aw.cache),
    .m_axi_awprot   (aw.prot),
    .m_axi_wvalid   (wvalid),
    .m_axi_wready   (wready),
    .m_axi_wdata    (wdata),
    .m_axi_wstrb    (wstrb),
    .m_axi_wlast    (wlast),
    .m_axi_bvalid   (bvalid),
    .m_axi_bready   (bready),
    .m_axi_bid      (b.id[IdW-1:0]),
    .m_axi_bresp    (b.resp),
    .m_axi_arvalid  (arvalid),
    .m_axi_arready  (arready),
    .m_axi_arid     (arid),
    .m_axi_araddr   (ar.addr),
    .m_axi_arlen    (ar.len),
    .m_axi_arsize   (ar.size),
    .m_axi_arburst  (ar.burst),
    .m_axi_arcache  (ar.cache),
    .m_axi_arprot   (ar.prot),
    .m_axi_rvalid   (rvalid),
    .m_axi_rready   (rready),
    .m_axi_rid      (r.id[IdW-1:0]),
    .m_axi_rdata    (rdata),
    .m_axi_rresp    (r.resp),
    .m_axi_rlast    (r.last),
    .irq_o          (irq)
  );

endmodule
