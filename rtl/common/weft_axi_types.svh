// weft_axi_types.svh: the AXI4 channels (and the AXI4-Lite register bus) between Weft's internal
// modules as packed structs (the fields of pulp-platform's axi_pkg channel types that Weft uses;
// docs/tool-subset.md for why a guarded include and not a package). Valid and ready stay separate ports (one prefix per
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

// AXI4-Lite to weft_top's registers (12-bit offsets, 32-bit data; every width fixed), as one
// request and one response struct in the style of pulp-platform's axi_lite req_t / resp_t:
// the master drives the request, the slave the response. 71 and 41 bits.
typedef struct packed {
  logic        aw_valid;
  logic [11:0] aw_addr;
  logic [2:0]  aw_prot;
  logic        w_valid;
  logic [31:0] w_data;
  logic [3:0]  w_strb;
  logic        b_ready;
  logic        ar_valid;
  logic [11:0] ar_addr;
  logic [2:0]  ar_prot;
  logic        r_ready;
} weft_axil_req_t;

typedef struct packed {
  logic        aw_ready;
  logic        w_ready;
  logic        b_valid;
  logic [1:0]  b_resp;
  logic        ar_ready;
  logic        r_valid;
  logic [31:0] r_data;
  logic [1:0]  r_resp;
} weft_axil_rsp_t;

`endif  // WEFT_AXI_TYPES_SVH
