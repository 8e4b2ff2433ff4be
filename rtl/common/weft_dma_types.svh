// weft_dma_types.svh: the 2D DMA request, one packed struct from the engine that makes it
// (weft_cmd_fetch, weft_cmd_load, weft_cmd_store, weft_cmd_cpl) through weft_cmd, weft_top and
// weft_dma to the channel that serves it and the checker that judges it.
// Row r of a request covers host bytes [addr + r*stride, + row_bytes).
// A port carrying N requests is a flat vector of N structs (request i at [i*W +: W], W the
// struct's width): Yosys drops the dimension of a packed array of structs, and it cannot parse
// $bits(weft_dma_req_t), so modules take the width as $bits(weft_dma_req_t'(0))
// (docs/tool-subset.md).
`ifndef WEFT_DMA_TYPES_SVH
`define WEFT_DMA_TYPES_SVH

typedef struct packed {
  logic [63:0] addr;       // first byte of row 0
  logic [31:0] row_bytes;  // bytes per row
  logic [31:0] rows;       // number of rows
  logic [31:0] stride;     // bytes between row starts
} weft_dma_req_t;

`endif  // WEFT_DMA_TYPES_SVH
