// weft_cmd_types.svh: the command processor's error report, one packed struct from each source
// that finds an error (weft_cmd_fetch, _decode, _load, _store, _simt, _cpl) to the error register
// in weft_cmd_rob, which records the first one in ring order (docs/cmd.md, "Errors").
// N reports travel as a flat vector of N structs (report i at [i*W +: W], W = $bits of the struct
// through weft_cmd_err_t'(0)), as weft_dma_types.svh explains.
`ifndef WEFT_CMD_TYPES_SVH
`define WEFT_CMD_TYPES_SVH

typedef struct packed {
  logic [7:0]  code;   // weft_pkg::Err* (ERR_CODE)
  logic [31:0] idx;    // the descriptor it belongs to (ERR_INDEX)
  logic [63:0] addr;   // ERR_ADDR
} weft_cmd_err_t;

`endif  // WEFT_CMD_TYPES_SVH
