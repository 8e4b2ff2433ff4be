// weft_monitors.sv: the bus property modules of tb/formal bound into every Verilated device
// model (weft_top, and the weft_pcie_top and weft_board around it) as simulation monitors
// (docs/formal.md). A rule broken in simulation is an $error naming the instance and the rule
// (weft_prop.svh), which fails the running test (the harnesses check gotError()).
//   weft_csr        AXI4-Lite slave rules on the register port (weft_prop_axil_slave)
//   weft_dma        AXI4 master rules on the host-memory port, with the windows (weft_prop_axi_master)
//   weft_cmd_fetch  descriptor ring head/tail rules (weft_prop_cmd_ring)
// The same modules are the properties SymbiYosys proves (scripts/formal.py). Yosys does not
// read `bind`, so synthesis never sees this file (and the property modules hold no logic
// under SYNTHESIS).
`ifndef SYNTHESIS

bind weft_csr weft_prop_axil_slave #(
  .AddrW (AddrW), .MaxOut (2), .MaxWait (1), .ReadyWhenIdle (1'b1)
) u_prop_axil (
  .clk_i     (clk_i),
  .rst_ni    (rst_ni),
  .awvalid   (s_axil_awvalid),
  .awready   (s_axil_awready),
  .awaddr    (s_axil_awaddr),
  .awprot    (s_axil_awprot),
  .wvalid    (s_axil_wvalid),
  .wready    (s_axil_wready),
  .wdata     (s_axil_wdata),
  .wstrb     (s_axil_wstrb),
  .bvalid    (s_axil_bvalid),
  .bready    (s_axil_bready),
  .bresp     (s_axil_bresp),
  .arvalid   (s_axil_arvalid),
  .arready   (s_axil_arready),
  .araddr    (s_axil_araddr),
  .arprot    (s_axil_arprot),
  .rvalid    (s_axil_rvalid),
  .rready    (s_axil_rready),
  .rdata     (s_axil_rdata),
  .rresp     (s_axil_rresp),
  .aw_pend_o (),
  .w_pend_o  (),
  .ar_pend_o ()
);

bind weft_dma weft_prop_axi_master #(
  .DataW (DataW), .AddrW (AddrW), .IdW (IdW), .NumIds ((NumRd > NumWr) ? NumRd : NumWr),
  .NumWin (NumWin), .MaxBurst (MaxBurst), .MaxRdOut (MaxRdOut), .MaxWrOut (MaxRdOut),
  .MaxAwAhead (8)
) u_prop_axi (
  .clk_i       (clk_i),
  .rst_ni      (rst_ni),
  .busy_i      (busy_o),
  .win_base_i  (win_base_i),
  .win_limit_i (win_limit_i),
  .win_read_i  (win_read_i),
  .win_write_i (win_write_i),
  .awvalid     (m_axi_awvalid),
  .awready     (m_axi_awready),
  .awid        (m_axi_awid),
  .awaddr      (m_axi_awaddr),
  .awlen       (m_axi_awlen),
  .awsize      (m_axi_awsize),
  .awburst     (m_axi_awburst),
  .awcache     (m_axi_awcache),
  .awprot      (m_axi_awprot),
  .wvalid      (m_axi_wvalid),
  .wready      (m_axi_wready),
  .wdata       (m_axi_wdata),
  .wstrb       (m_axi_wstrb),
  .wlast       (m_axi_wlast),
  .bvalid      (m_axi_bvalid),
  .bready      (m_axi_bready),
  .bid         (m_axi_bid),
  .bresp       (m_axi_bresp),
  .arvalid     (m_axi_arvalid),
  .arready     (m_axi_arready),
  .arid        (m_axi_arid),
  .araddr      (m_axi_araddr),
  .arlen       (m_axi_arlen),
  .arsize      (m_axi_arsize),
  .arburst     (m_axi_arburst),
  .arcache     (m_axi_arcache),
  .arprot      (m_axi_arprot),
  .rvalid      (m_axi_rvalid),
  .rready      (m_axi_rready),
  .rid         (m_axi_rid),
  .rdata       (m_axi_rdata),
  .rresp       (m_axi_rresp),
  .rlast       (m_axi_rlast)
);

bind weft_cmd_fetch weft_prop_cmd_ring #(
  .DataW (DataW), .BufDescs (BufDescs), .MaxPerReq (MaxPerReq)
) u_prop_ring (
  .clk_i       (clk_i),
  .rst_ni      (rst_ni),
  .clear_i     (clear_i),
  .block_i     (block_i),
  .ring_base_i (ring_base_i),
  .ring_log2_i (ring_log2_i),
  .tail_i      (tail_i),
  .head_i      (head_o),
  .busy_i      (busy_o),
  .req_valid   (req_valid_o),
  .req_ready   (req_ready_i),
  .req         (req_o),
  .rd_valid    (rd_valid_i),
  .rd_last     (rd_last_i),
  .done_valid  (done_valid_i),
  .done_err    (done_err_i),
  .out_valid   (out_valid_o),
  .out_ready   (out_ready_i)
);

`endif  // SYNTHESIS
