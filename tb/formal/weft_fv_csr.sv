// weft_fv_csr: SymbiYosys harness of weft_csr's AXI4-Lite slave port (docs/formal.md, proof
// "csr"). weft_csr with its default AddrW and free inputs (hw2reg too), the slave rules of
// weft_prop_axil_slave on its port; reset in the first cycle. The last block ties the property
// module's request counts to the slave's visible state, so that induction closes: a request is
// either buffered (its ready low) or answered by the pending response.
`include "weft_regs.svh"

module weft_fv_csr (
  input logic             clk_i,
  input logic             rst_ni,
  input logic             s_axil_awvalid,
  input logic [11:0]      s_axil_awaddr,
  input logic [2:0]       s_axil_awprot,
  input logic             s_axil_wvalid,
  input logic [31:0]      s_axil_wdata,
  input logic [3:0]       s_axil_wstrb,
  input logic             s_axil_bready,
  input logic             s_axil_arvalid,
  input logic [11:0]      s_axil_araddr,
  input logic [2:0]       s_axil_arprot,
  input logic             s_axil_rready,
  input weft_hw2reg_t     hw2reg_i
);

  logic        awready, wready, bvalid, arready, rvalid;
  logic [1:0]  bresp, rresp;
  logic [31:0] rdata;
  weft_reg2hw_t reg2hw;
  logic [3:0]  aw_pend, w_pend, ar_pend;

  weft_csr #(.AddrW(12)) u_dut (
    .clk_i,
    .rst_ni,
    .s_axil_awvalid,
    .s_axil_awready (awready),
    .s_axil_awaddr,
    .s_axil_awprot,
    .s_axil_wvalid,
    .s_axil_wready  (wready),
    .s_axil_wdata,
    .s_axil_wstrb,
    .s_axil_bvalid  (bvalid),
    .s_axil_bready,
    .s_axil_bresp   (bresp),
    .s_axil_arvalid,
    .s_axil_arready (arready),
    .s_axil_araddr,
    .s_axil_arprot,
    .s_axil_rvalid  (rvalid),
    .s_axil_rready,
    .s_axil_rdata   (rdata),
    .s_axil_rresp   (rresp),
    .reg2hw_o       (reg2hw),
    .hw2reg_i
  );

  weft_prop_axil_slave #(.AddrW(12), .MaxOut(2), .MaxWait(1)) u_prop (
    .clk_i,
    .rst_ni,
    .awvalid (s_axil_awvalid),
    .awready (awready),
    .awaddr  (s_axil_awaddr),
    .awprot  (s_axil_awprot),
    .wvalid  (s_axil_wvalid),
    .wready  (wready),
    .wdata   (s_axil_wdata),
    .wstrb   (s_axil_wstrb),
    .bvalid  (bvalid),
    .bready  (s_axil_bready),
    .bresp   (bresp),
    .arvalid (s_axil_arvalid),
    .arready (arready),
    .araddr  (s_axil_araddr),
    .arprot  (s_axil_arprot),
    .rvalid  (rvalid),
    .rready  (s_axil_rready),
    .rdata   (rdata),
    .rresp   (rresp),
    .aw_pend_o (aw_pend),
    .w_pend_o  (w_pend),
    .ar_pend_o (ar_pend)
  );

  logic unused;
  assign unused = ^reg2hw;

  // Reset in the first cycle, then never again.
  logic first;
  weft_fv_reset u_reset (.clk_i, .rst_ni, .first_o (first));

  // Induction helpers (proven like any property).
  always @(posedge clk_i) begin
    if (rst_ni && !first) begin
      inv_aw: assert (aw_pend == 4'(!awready) + 4'(bvalid));
      inv_w:  assert (w_pend == 4'(!wready) + 4'(bvalid));
      inv_ar: assert (ar_pend == 4'(!arready) + 4'(rvalid));
    end
  end

  // Reachability: a write and a read answered with the master stalling the responses.
  always @(posedge clk_i) begin
    if (rst_ni) begin
      c_b_after_stall: cover (bvalid && s_axil_bready && aw_pend == 4'd2);
      c_r_after_stall: cover (rvalid && s_axil_rready && ar_pend == 4'd2);
    end
  end

endmodule
