// weft_simt_memport: the SIMT core's memories as line regions of the device's load / store engines
// (docs/programming-model.md): LOAD writes and STORE_SPAD reads address lines; the SIMT data
// memory is the region [weft_pkg::SimtDmemLine, SimtImemLine), the SIMT instruction memory the
// region from weft_pkg::SimtImemLine (LOAD only). The command decoder has already checked every
// line against its region's size; lines below SimtDmemLine are the scratchpad's (weft_top).
//
// - Data memory: writes, then reads, go to weft_simt_core's ext_* line port (weft_simt_lsu), which
//   serves them between warp accesses (ext_ready_i); a write takes precedence over a read of the
//   same cycle. Read data comes back on rd_rsp_*, like a scratchpad read port.
// - Instruction memory: the core's imem has one port, which a launch uses to fetch, so a line is
//   taken only while the core is idle (core_busy_i low) and nothing is being loaded, then written
//   one 32-bit word per cycle through the core's imem write port (WordsPerLine cycles).
//   loading_o is high meanwhile, and already in the cycle a line is taken: the device reports the
//   core busy until the last word is in, so a SIMT_LAUNCH never starts before its code is, nor in
//   the cycle the line is taken (the SIMT engine's start sees the core idle in that same cycle).
// Why a module: the SIMT memories' addressing belongs to the SIMT block; weft_top only routes the
// lines of the SIMT regions here.
module weft_simt_memport #(
  parameter int  DataW     = 128,     // line width (bits)
  parameter int  DmemBytes = 262144,  // weft_simt_core DmemBytes
  parameter int  ImemWords = 4096,    // weft_simt_core ImemWords
  localparam int LineBytes = DataW / 8,
  localparam int ExtAw     = $clog2(DmemBytes / LineBytes),
  localparam int ImemAw    = $clog2(ImemWords),
  localparam int WordsPerLine = LineBytes / 4,
  localparam int CntW      = $clog2(WordsPerLine + 1)
) (
  input  logic              clk_i,
  input  logic              rst_ni,
  // Load engine: line writes.
  input  logic              wr_valid_i,
  input  logic [31:0]       wr_addr_i,        // line address
  input  logic [DataW-1:0]  wr_data_i,
  output logic              wr_ready_o,       // for a line of a SIMT region
  // Store engine: line reads.
  input  logic              rd_req_valid_i,
  input  logic [31:0]       rd_req_addr_i,    // line address
  output logic              rd_req_ready_o,   // for a line of a SIMT region
  output logic              rd_rsp_valid_o,
  output logic [DataW-1:0]  rd_rsp_data_o,
  // weft_simt_core.
  input  logic              core_busy_i,
  output logic              loading_o,        // instruction memory words still to write
  output logic              imem_we_o,
  output logic [ImemAw-1:0] imem_addr_o,
  output logic [31:0]       imem_wdata_o,
  output logic              ext_req_o,
  output logic              ext_we_o,
  output logic [ExtAw-1:0]  ext_addr_o,
  output logic [DataW-1:0]  ext_wdata_o,
  input  logic              ext_ready_i,
  input  logic              ext_rvalid_i,
  input  logic [DataW-1:0]  ext_rdata_i
);

  function automatic logic in_dmem(input logic [31:0] line);
    in_dmem = line >= weft_pkg::SimtDmemLine && line < weft_pkg::SimtImemLine;
  endfunction

  logic wr_dmem, rd_dmem, wr_imem;
  assign wr_dmem = wr_valid_i && in_dmem(wr_addr_i);
  assign rd_dmem = rd_req_valid_i && in_dmem(rd_req_addr_i);
  assign wr_imem = wr_valid_i && wr_addr_i >= weft_pkg::SimtImemLine;

  // Data memory.
  assign ext_req_o   = wr_dmem || rd_dmem;
  assign ext_we_o    = wr_dmem;
  assign ext_addr_o  = ExtAw'(wr_dmem ? wr_addr_i - weft_pkg::SimtDmemLine
                                      : rd_req_addr_i - weft_pkg::SimtDmemLine);
  assign ext_wdata_o = wr_data_i;

  // Instruction memory loader: one line, then one word per cycle.
  logic [DataW-1:0]  line_q, line_d;          // the words still to write, the next one lowest
  logic [CntW-1:0]   words_q, words_d;        // how many
  logic [ImemAw-1:0] word_addr_q, word_addr_d;
  logic              imem_take;

  assign imem_take = wr_imem && words_q == '0 && !core_busy_i;

  always_comb begin : p_load
    line_d      = line_q;
    words_d     = words_q;
    word_addr_d = word_addr_q;
    if (imem_take) begin
      line_d      = wr_data_i;
      words_d     = CntW'(WordsPerLine);
      word_addr_d = ImemAw'((wr_addr_i - weft_pkg::SimtImemLine) * 32'(WordsPerLine));
    end else if (words_q != '0) begin
      line_d      = line_q >> 32;
      words_d     = words_q - 1'b1;
      word_addr_d = word_addr_q + 1'b1;
    end
  end

  always_ff @(posedge clk_i or negedge rst_ni) begin : p_load_count
    if (!rst_ni) words_q <= '0;
    else         words_q <= words_d;
  end

  always_ff @(posedge clk_i) begin : p_load_data
    line_q      <= line_d;
    word_addr_q <= word_addr_d;
  end

  // imem_take too: loading_o registered alone would let a launch start in the taking cycle.
  assign loading_o    = words_q != '0 || imem_take;
  assign imem_we_o    = words_q != '0;
  assign imem_addr_o  = word_addr_q;
  assign imem_wdata_o = line_q[31:0];

  assign wr_ready_o     = (wr_dmem && ext_ready_i) || imem_take;
  assign rd_req_ready_o = ext_ready_i && !wr_dmem;
  assign rd_rsp_valid_o = ext_rvalid_i;
  assign rd_rsp_data_o  = ext_rdata_i;

endmodule
