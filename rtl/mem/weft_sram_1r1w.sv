// weft_sram_1r1w: simple dual-port SRAM (one read port, one write port, one clock) with byte
// enables on the write port.
//
// Behavioural model written so that Yosys infers block RAM (DP16KD in pseudo-dual-port mode on
// ECP5) and so that an ASIC flow can swap the body for a two-port macro (docs/common.md).
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
// Back door (Verilator only): the same DPI-C exports as weft_sram_1rw (weft_sram_bd_write / _read /
// _depth / _width / _max_bits), reached with svSetScope(svGetScopeFromName("<model>.<top>.<path>")).
`include "weft_assert.svh"

module weft_sram_1r1w #(
  parameter int  Depth    = 512,  // words, >= 1 (need not be a power of two)
  parameter int  Width    = 32,   // bits per word, a multiple of 8
  localparam int AddrW    = (Depth > 1) ? $clog2(Depth) : 1,
  localparam int NumBytes = Width / 8
) (
  input  logic                clk_i,
  // read port
  input  logic                rd_en_i,
  input  logic [AddrW-1:0]    rd_addr_i,
  output logic [Width-1:0]    rd_data_o,
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
  logic [Width-1:0] mem [Depth];
  logic [Width-1:0] rd_data_q;

  // Memory write, one process per byte lane (see weft_sram_1rw), and registered read: the RAM
  // inference shape.
  for (genvar b = 0; b < NumBytes; b++) begin : g_lane
    always_ff @(posedge clk_i) begin : p_write
      if (wr_en_i && wr_be_i[b]) mem[wr_addr_i][8*b +: 8] <= wr_data_i[8*b +: 8];
    end
  end

  always_ff @(posedge clk_i) begin : p_read
    if (rd_en_i) rd_data_q <= mem[rd_addr_i];
  end

  assign rd_data_o = rd_data_q;

`ifndef SYNTHESIS
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
