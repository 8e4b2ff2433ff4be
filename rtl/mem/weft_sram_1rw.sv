// weft_sram_1rw: single-port SRAM (one read or write per cycle) with byte enables.
//
// Behavioural model written so that Yosys infers block RAM (DP16KD on ECP5) and so that an ASIC
// flow can swap the body for a macro wrapper with the same ports (docs/common.md, "ASIC seam").
//
// Timing (one clock, no reset; SRAM macros have none):
//   cycle t  : req_i=1, we_i=1  -> bytes i with be_i[i]=1 of mem[addr_i] take wdata_i
//   cycle t  : req_i=1, we_i=0  -> rdata_o shows mem[addr_i] after the edge (one-cycle latency)
//   otherwise rdata_o keeps its value (it changes only on a read; a write does not disturb it).
// Reading a word never written returns X in Icarus and random bits in Verilator (--x-initial).
//
// Back door (Verilator only): DPI-C exports weft_sram_bd_write / _read / _depth / _width /
// _max_bits of this instance, reached with svSetScope(svGetScopeFromName("<model>.<top>.<path>")).
// C++ wrapper: tb/common/include/weft/tb/sram_backdoor.hpp. The back door writes whole words.
`include "weft_assert.svh"

module weft_sram_1rw #(
  parameter int  Depth    = 512,  // words, >= 1 (need not be a power of two)
  parameter int  Width    = 32,   // bits per word, a multiple of 8
  localparam int AddrW    = (Depth > 1) ? $clog2(Depth) : 1,
  localparam int NumBytes = Width / 8
) (
  input  logic                clk_i,
  input  logic                req_i,
  input  logic                we_i,
  input  logic [AddrW-1:0]    addr_i,
  input  logic [Width-1:0]    wdata_i,
  input  logic [NumBytes-1:0] be_i,
  output logic [Width-1:0]    rdata_o
);

  if (Depth < 1) begin : g_bad_depth
    `WEFT_ELAB_ERROR("weft_sram_1rw: Depth must be >= 1")
  end
  if (Width < 8 || Width % 8 != 0) begin : g_bad_width
    `WEFT_ELAB_ERROR("weft_sram_1rw: Width must be a positive multiple of 8")
  end

  // The array. no_rw_check: the read and the write never hit one address in the same cycle here
  // (one port), so Yosys need not add read-first bypass logic.
  (* no_rw_check *)
  logic [Width-1:0] mem [Depth];
  logic [Width-1:0] rdata_q;

  // Memory write, one process per byte lane, and registered read: the shape RAM inference
  // recognises (byte-lane writes, enable, no reset). These are the only always_ff blocks here
  // that hold more than q <= d. One process per lane, not a for loop inside one process: such a
  // loop is refused by Verilator 5.006 once it is not unrolled (BLKLOOPINIT, Width > 512).
  for (genvar b = 0; b < NumBytes; b++) begin : g_lane
    always_ff @(posedge clk_i) begin : p_write
      if (req_i && we_i && be_i[b]) mem[addr_i][8*b +: 8] <= wdata_i[8*b +: 8];
    end
  end

  always_ff @(posedge clk_i) begin : p_read
    if (req_i && !we_i) rdata_q <= mem[addr_i];
  end

  assign rdata_o = rdata_q;

`ifndef SYNTHESIS
  // An address beyond Depth would be silently dropped (write) or read X: only possible when
  // Depth is not a power of two.
  if ((1 << AddrW) != Depth) begin : g_addr_check
    always @(posedge clk_i) begin : p_addr_check
      if (req_i) begin
        assert (32'(addr_i) < Depth)
          else $error("%m: address %0d out of range (Depth %0d)", addr_i, Depth);
      end
    end
  end
`endif

`ifdef VERILATOR
  // ---- DPI back door (simulation only) ----
`include "weft_sram_backdoor.svh"
`endif

endmodule
