// weft_sram_1rw: single-port SRAM (one read or write per cycle) with byte enables, optionally
// with SECDED ECC (Ecc).
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
// ECC (Ecc = 1): as weft_sram_1r1w (docs/common.md "ECC"): check bits stored with every word,
// rdata_o corrected, rdata_ecc_o = [0] corrected / [1] uncorrectable for the word on rdata_o,
// whole-word writes only (be_i all ones, asserted). Without Ecc, rdata_ecc_o is 0.
//
// Back door (Verilator only): DPI-C exports weft_sram_bd_write / _read / _flip / _read_check /
// _depth / _width / _check_bits / _max_bits of this instance, reached with
// svSetScope(svGetScopeFromName("<model>.<top>.<path>")). C++ wrapper:
// tb/common/include/weft/tb/sram_backdoor.hpp. The back door writes whole words (and, with Ecc,
// their check bits).
`include "weft_assert.svh"

module weft_sram_1rw #(
  parameter int  Depth    = 512,  // words, >= 1 (need not be a power of two)
  parameter int  Width    = 32,   // bits per word, a multiple of 8
  parameter bit  Ecc      = 1'b0, // SECDED check bits in every word (whole-word writes)
  localparam int AddrW    = (Depth > 1) ? $clog2(Depth) : 1,
  localparam int NumBytes = Width / 8,
  localparam int CheckW   = Ecc ? weft_ecc_pkg::check_bits(Width) : 0,
  localparam int StoreW   = Width + CheckW  // bits stored per word
) (
  input  logic                clk_i,
  input  logic                req_i,
  input  logic                we_i,
  input  logic [AddrW-1:0]    addr_i,
  input  logic [Width-1:0]    wdata_i,
  input  logic [NumBytes-1:0] be_i,
  output logic [Width-1:0]    rdata_o,
  output logic [1:0]          rdata_ecc_o  // rdata_o: [0] corrected, [1] uncorrectable (Ecc)
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
  logic [StoreW-1:0] mem [Depth];
  logic [StoreW-1:0] rdata_q;

  // Memory write and registered read: the shape RAM inference recognises (write enable, byte
  // lanes without ECC, no reset), and the ASIC seam (a macro of StoreW bits replaces it). These
  // are the only always_ff blocks here that hold more than q <= d. Without ECC, one process per
  // lane, not a for loop inside one process: such a loop is refused by Verilator 5.006 once it is
  // not unrolled (BLKLOOPINIT, Width > 512). With ECC the word and its check bits are written
  // whole.
  logic [StoreW-1:0] wr_word;

  weft_ecc_word #(.Width(Width), .Ecc(Ecc)) u_ecc (
    .wr_data_i (wdata_i),
    .wr_word_o (wr_word),
    .rd_word_i (rdata_q),
    .rd_data_o (rdata_o),
    .rd_ecc_o  (rdata_ecc_o)
  );

  if (Ecc) begin : g_whole
    logic unused_be;

    always_ff @(posedge clk_i) begin : p_write
      if (req_i && we_i) mem[addr_i] <= wr_word;
    end

    assign unused_be = ^be_i;  // whole words only (asserted below)
  end else begin : g_lanes
    for (genvar b = 0; b < NumBytes; b++) begin : g_lane
      always_ff @(posedge clk_i) begin : p_write
        if (req_i && we_i && be_i[b]) mem[addr_i][8*b +: 8] <= wr_word[8*b +: 8];
      end
    end
  end

  always_ff @(posedge clk_i) begin : p_read
    if (req_i && !we_i) rdata_q <= mem[addr_i];
  end

`ifndef SYNTHESIS
  if (Ecc) begin : g_whole_check
    always @(posedge clk_i) begin : p_whole_check
      if (req_i && we_i) begin
        assert (be_i == '1)
          else $error("%m: partial write (byte enables %b) to an SRAM with ECC", be_i);
      end
    end
  end
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
