// weft_pkg: constants shared by Weft blocks. Referenced as weft_pkg::Name (no imports: Yosys and
// Icarus accept package constants that way; see docs/tool-subset.md).
package weft_pkg;

  // Operand width inside the tensor unit: an int8 or uint8 value minus its zero point lies in
  // [-255, 255], a 9-bit signed number, so zero points are handled exactly at the array edge.
  localparam int OpW = 9;
  // Accumulator width (INT32, wraps modulo 2^32).
  localparam int AccW = 32;

  // Requantization modes (weft_requant mode input); the same codes as weft::golden::RequantMode.
  localparam logic [1:0] RqTfliteDouble = 2'd0;  // TFLite fixed point, gemmlowp double rounding
  localparam logic [1:0] RqTfliteSingle = 2'd1;  // TFLite fixed point, single rounding
  localparam logic [1:0] RqOnnx         = 2'd2;  // ONNX QLinear: float32 scale, half to even
  localparam logic [1:0] RqNone         = 2'd3;  // INT32 out: accumulator + bias

  // Cycles from weft_requant's input to its output (its pipeline depth; checked in simulation
  // by weft_postproc against the lane's own valid).
  localparam int RequantLatency = 5;

  // Tensor unit command opcodes (weft_tensor_unit cmd_op_i).
  localparam logic TuOpCompute = 1'b0;  // stream rows of A through the next weight tile
  localparam logic TuOpDrain   = 1'b1;  // read accumulator rows through post-processing

  // Widest SRAM word the DPI back door of weft_sram_1rw / weft_sram_1r1w can move (Verilator
  // only; tb/common/include/weft/tb/sram_backdoor.hpp). Wider SRAMs are rejected at elaboration.
  localparam int SramBdMaxBits = 4096;

  // Scratchpad (weft_spad): cycles from an accepted read request to its response.
  localparam int SpadReadLatency = 2;

  // Error codes (ERR_CODE register, DMA done codes; docs/programming-model.md).
  localparam logic [7:0] ErrNone      = 8'd0;
  localparam logic [7:0] ErrOpcode    = 8'd1;   // unknown opcode
  localparam logic [7:0] ErrSize      = 8'd2;   // a size is zero or beyond its limit
  localparam logic [7:0] ErrWindow    = 8'd3;   // host range outside the DMA windows
  localparam logic [7:0] ErrSpadRange = 8'd4;   // scratchpad line beyond the scratchpad
  localparam logic [7:0] ErrAccRange  = 8'd5;   // accumulator rows beyond the bank
  localparam logic [7:0] ErrAlign     = 8'd6;   // host address / stride / length not aligned
  localparam logic [7:0] ErrSlverr    = 8'd7;   // bus answered SLVERR
  localparam logic [7:0] ErrDecerr    = 8'd8;   // bus answered DECERR
  localparam logic [7:0] ErrSeq       = 8'd9;   // descriptor seq is not its index
  localparam logic [7:0] ErrRing      = 8'd10;  // ring size or base invalid
  localparam logic [7:0] ErrSimt      = 8'd11;  // a SIMT kernel stopped on an error
  localparam logic [7:0] ErrParam     = 8'd12;  // a post-processing parameter out of range

  // Descriptor opcodes (word 0, bits 7:0).
  localparam logic [7:0] OpNop       = 8'h00;
  localparam logic [7:0] OpFence     = 8'h01;
  localparam logic [7:0] OpLoad      = 8'h10;
  localparam logic [7:0] OpStoreSpad = 8'h11;
  localparam logic [7:0] OpCompute   = 8'h20;
  localparam logic [7:0] OpStoreAcc  = 8'h30;
  localparam logic [7:0] OpSimtLaunch = 8'h40;

  // Line address regions of LOAD / STORE_SPAD (docs/programming-model.md): scratchpad lines from
  // 0, the SIMT data memory from SimtDmemLine, the SIMT instruction memory from SimtImemLine.
  localparam logic [31:0] SimtDmemLine = 32'h0010_0000;
  localparam logic [31:0] SimtImemLine = 32'h0020_0000;

endpackage
