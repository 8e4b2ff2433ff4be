// weft_axi_types.svh: the AXI4 channels between Weft's internal modules as packed structs (the
// fields of pulp-platform's axi_pkg channel types that Weft uses; docs/tool-subset.md for why a
// guarded include and not a package). Valid and ready stay separate ports (one prefix per
// handshake); so do W's data and strobes and R's data, whose width is a parameter (DataW of
// weft_dma, 32..1024), which a struct in a header cannot follow.
//
// The widths are the widest any Weft module accepts: addr 64 bits (a module with AddrW < 64 uses
// the low AddrW bits and drives the rest 0) and id 8 bits (IdW <= 8; the high bits 0). The tops
// that tests bind (weft_top, weft_dma, weft_pcie_wr, ...) keep flat m_axi_* / s_axi_* ports of
// their own widths and convert at their boundary.
// Widths: $bits(t'('0)) (not t'(0): Yosys gives 32 for structs narrower than 32 bits).
`ifndef WEFT_AXI_TYPES_SVH
`define WEFT_AXI_TYPES_SVH

// AR and AW (the same fields). 92 bits.
typedef struct packed {
  logic [7:0]  id;
  logic [63:0] addr;
  logic [7:0]  len;    // beats - 1
  logic [2:0]  size;   // log2(bytes per beat)
  logic [1:0]  burst;  // 00 FIXED, 01 INCR, 10 WRAP
  logic [3:0]  cache;
  logic [2:0]  prot;
} weft_axi_ax_t;

// R without its data (rdata travels beside it). 11 bits.
typedef struct packed {
  logic [7:0] id;
  logic [1:0] resp;    // 00 OKAY, 10 SLVERR, 11 DECERR
  logic       last;
} weft_axi_r_t;

// B. 10 bits.
typedef struct packed {
  logic [7:0] id;
  logic [1:0] resp;
} weft_axi_b_t;

`endif  // WEFT_AXI_TYPES_SVH
