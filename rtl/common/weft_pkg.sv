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

endpackage
