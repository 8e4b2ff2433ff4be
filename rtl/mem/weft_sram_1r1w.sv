// weft_sram_1r1w: simple dual-port SRAM (one read port, one write port, one clock) with byte
// enables on the write port, optionally with SECDED ECC (Ecc).
//
// Behavioural model written so that Yosys infers block RAM (DP16KD in pseudo-dual-port mode on
// ECP5) and so that an ASIC flow can swap the array for a two-port macro (docs/common.md).
//
// Timing (one clock, no reset):
//   cycle t : wr_en_i=1 -> bytes i with wr_be_i[i]=1 of mem[wr_addr_i] take wr_data_i
//   cycle t : rd_en_i=1 -> rd_data_o shows mem[rd_addr_i] after the edge (one-cycle latency);
//             rd_data_o keeps its value while rd_en_i=0.
// Read during write to the same address in one cycle: this model returns the OLD word. Callers
// must NOT rely on that: block RAMs and SRAM macros differ (old, new or undefined data), and the
// inferred RAM is told so ((* no_rw_check *)). Forward the written data yourself if you need it
// (weft_accumulator does).
//
// ECC (Ecc = 1, docs/common.md "ECC"): each word is stored with CheckW check bits of the Hsiao
// SECDED code (weft_ecc_word: encoded on the write data, decoded after the read register, in
// the same cycle). rd_data_o is the corrected word and rd_ecc_o says what the
// decoder found in it: [0] one flipped bit corrected (data or check bit), [1] uncorrectable (two
// or more). rd_ecc_o describes rd_data_o, so it too holds between reads: the caller counts it in
// the cycle after a read whose data it uses. Writes are whole words (wr_be_i all ones, asserted):
// there is no read-modify-write. A word never written reads as random bits, usually an
// uncorrectable error (docs/common.md). Without Ecc, rd_ecc_o is 0.
//
// Back door (Verilator only): the same DPI-C exports as weft_sram_1rw (weft_sram_bd_write / _read /
// _flip / _read_check / _depth / _width / _check_bits / _max_bits), reached with
// svSetScope(svGetScopeFromName("<model>.<top>.<path>")).
`include "weft_assert.svh"

module weft_sram_1r1w #(
  parameter int  Depth    = 512,  // words, >= 1 (need not be a power of two)
  parameter int  Width    = 32,   // bits per word, a multiple of 8
  parameter bit  Ecc      = 1'b0, // SECDED check bits in every word (whole-word writes)
  localparam int AddrW    = (Depth > 1) ? $clog2(Depth) : 1,
  localparam int NumBytes = Width / 8,
  localparam int CheckW   = Ecc ? weft_ecc_pkg::check_bits(Width) : 0,
  localparam int StoreW   = Width + CheckW  // bits stored per word
) (
  input  logic                clk_i,
  // read port
  input  logic                rd_en_i,
  input  logic [AddrW-1:0]    rd_addr_i,
  output logic [Width-1:0]    rd_data_o,
  output logic [1:0]          rd_ecc_o,   // rd_data_o: [0] corrected, [1] uncorrectable (Ecc)
  // write port
  input  logic                wr_en_i,
  input  logic [AddrW-1:0]    wr_addr_i,
  input  logic [Width-1:0]    wr_data_i,
  input  logic [NumBytes-1:0] wr_be_i
);

  if (Depth < 1) begin : g_bad_depth
    `WEFT_ELAB_ERROR("weft_sram_1r1w: Depth must be >= 1")
  end
  if (Width < 8 || Width % 8 != 0) begin : g_bad_width
    `WEFT_ELAB_ERROR("weft_sram_1r1w: Width must be a positive multiple of 8")
  end

  // no_rw_check: same-address read during write is undefined for callers, so Yosys need not add
  // bypass logic to make the block RAM match this model's old-data behaviour.
  (* no_rw_check *)
  logic [StoreW-1:0] mem [Depth];
  logic [StoreW-1:0] rd_data_q;

  // The array (the ASIC seam: a macro of StoreW bits replaces it): memory write and registered
  // read, the RAM inference shape. Without ECC each byte lane has its own process (see
  // weft_sram_1rw); with ECC a word and its check bits are written whole.
  logic [StoreW-1:0] wr_word;

  weft_ecc_word #(.Width(Width), .Ecc(Ecc)) u_ecc (
    .wr_data_i (wr_data_i),
    .wr_word_o (wr_word),
    .rd_word_i (rd_data_q),
    .rd_data_o (rd_data_o),
    .rd_ecc_o  (rd_ecc_o)
  );

  if (Ecc) begin : g_whole
    logic unused_be;

    always_ff @(posedge clk_i) begin : p_write
      if (wr_en_i) mem[wr_addr_i] <= wr_word;
    end

    assign unused_be = ^wr_be_i;  // whole words only (asserted below)
  end else begin : g_lanes
    for (genvar b = 0; b < NumBytes; b++) begin : g_lane
      always_ff @(posedge clk_i) begin : p_write
        if (wr_en_i && wr_be_i[b]) mem[wr_addr_i][8*b +: 8] <= wr_word[8*b +: 8];
      end
    end
  end

  always_ff @(posedge clk_i) begin : p_read
    if (rd_en_i) rd_data_q <= mem[rd_addr_i];
  end

`ifndef SYNTHESIS
  if (Ecc) begin : g_whole_check
    always @(posedge clk_i) begin : p_whole_check
      if (wr_en_i) begin
        assert (wr_be_i == '1)
          else $error("%m: partial write (byte enables %b) to an SRAM with ECC", wr_be_i);
      end
    end
  end
  if ((1 << AddrW) != Depth) begin : g_addr_check
    always @(posedge clk_i) begin : p_addr_check
      if (rd_en_i) begin
        assert (32'(rd_addr_i) < Depth)
          else $error("%m: read address %0d out of range (Depth %0d)", rd_addr_i, Depth);
      end
      if (wr_en_i) begin
        assert (32'(wr_addr_i) < Depth)
          else $error("%m: write address %0d out of range (Depth %0d)", wr_addr_i, Depth);
      end
    end
  end
`endif

`ifdef VERILATOR
  // ---- DPI back door (simulation only) ----
`include "weft_sram_backdoor.svh"
`endif

endmodule
