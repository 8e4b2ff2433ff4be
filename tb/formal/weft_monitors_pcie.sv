// weft_monitors_pcie.sv: the PCIe endpoint's tag-pool properties (weft_prop_pcie_tags) bound into
// the Verilated weft_pcie_top (pcie-sim://, test_pcie) as a simulation monitor, beside the device
// monitors of weft_monitors.sv (docs/formal.md). A separate file because weft_pcie_rd exists only
// in that model. The PCIe tests send malformed completions on purpose, so the root complex's rules
// are not errors here (EnvBreakable): a completion that breaks one ends the checking until reset.
`ifndef SYNTHESIS

bind weft_pcie_rd weft_prop_pcie_tags #(
  .NumTags (NumTags), .EpId (EpId), .AgeW (32), .EnvBreakable (1'b1)
) u_prop_tags (
  .clk_i       (clk_i),
  .rst_ni      (rst_ni),
  .tx_valid    (tx_valid_o),
  .tx_ready    (tx_ready_i),
  .tx_data     (tx_data_o),
  .cpl_valid   (cpl_valid_i),
  .cpl_sop     (cpl_sop_i),
  .cpl_eop     (cpl_eop_i),
  .cpl_data    (cpl_data_i),
  .cpl_timeout (cpl_timeout_i),
  .tags_free   (tags_free_o),
  .err_valid   (err_valid_o),
  .err_code    (err_code_o),
  .err_tag     (err_tag_o)
);

`endif  // SYNTHESIS
