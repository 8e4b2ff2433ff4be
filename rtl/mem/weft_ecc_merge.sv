// weft_ecc_merge: the ECC events of one cycle from N SRAM reads (docs/common.md "ECC"), as a
// memory reports them: how many words were corrected, the address of one of them, and whether
// one was uncorrectable, with its address (the lowest-numbered source wins both addresses).
// Source i counts only with used_i[i]: its SRAM was read in the previous cycle and the data is
// used now (SRAM wrappers hold rd_ecc_o between reads). Combinational.
`include "weft_assert.svh"

module weft_ecc_merge #(
  parameter int  N     = 2,
  parameter int  AddrW = 8,
  localparam int CntW  = $clog2(N + 1)
) (
  input  logic [N-1:0]       used_i,
  input  logic [2*N-1:0]     ecc_i,    // source i: [2i] corrected, [2i+1] uncorrectable
  input  logic [N*AddrW-1:0] addr_i,   // source i's word
  output logic [CntW-1:0]    corr_o,   // corrected words
  output logic [AddrW-1:0]   corr_addr_o,
  output logic               err_o,    // an uncorrectable word
  output logic [AddrW-1:0]   err_addr_o
);

  if (N < 1 || AddrW < 1) begin : g_bad_param
    `WEFT_ELAB_ERROR("weft_ecc_merge: N and AddrW must be >= 1")
  end

  always_comb begin : p_merge
    corr_o      = '0;
    corr_addr_o = '0;
    err_o       = 1'b0;
    err_addr_o  = '0;
    for (int i = N - 1; i >= 0; i--) begin
      if (used_i[i] && ecc_i[2*i]) begin
        corr_o      = corr_o + CntW'(1);
        corr_addr_o = addr_i[i*AddrW +: AddrW];
      end
      if (used_i[i] && ecc_i[2*i+1]) begin
        err_o      = 1'b1;
        err_addr_o = addr_i[i*AddrW +: AddrW];
      end
    end
  end

endmodule
