// weft_fv_cmd_fetch: SymbiYosys harness of the descriptor ring fetch (docs/formal.md, proof
// "cmd_ring"): weft_cmd_fetch as weft_cmd instantiates it (128-bit data, 8 descriptors of
// buffer, 4 per request) with weft_prop_cmd_ring on its ports; reset in the first cycle. The
// configuration, doorbell, DMA responses and decoder are free within the rules of
// weft_prop_cmd_ring. (Ring sizes run up to 2^16 descriptors and the 32-bit counters wrap, so
// the proof covers the wrap of the ring index, not of the 32-bit counts.)
`include "weft_cmd_types.svh"
`include "weft_dma_types.svh"

module weft_fv_cmd_fetch #(
  parameter int DataW = 128
) (
  input  logic             clk_i,
  input  logic             rst_ni,
  input  logic             clear_i,
  input  logic             enable_i,
  input  logic             block_i,
  input  logic [63:0]      ring_base_i,
  input  logic [4:0]       ring_log2_i,
  input  logic [31:0]      tail_i,
  input  logic             req_ready_i,
  input  logic             rd_valid_i,
  input  logic [DataW-1:0] rd_data_i,
  input  logic             rd_last_i,
  input  logic             done_valid_i,
  input  logic [7:0]       done_err_i,
  input  logic [63:0]      done_addr_i,
  input  logic             out_ready_i,
  input  logic             err_ready_i
);

  logic [31:0]   head;
  logic          busy, empty, req_valid, rd_ready, out_valid, err_valid;
  weft_dma_req_t req;
  logic [DataW-1:0] out_data;
  weft_cmd_err_t err;

  weft_cmd_fetch #(.DataW(DataW)) u_dut (
    .clk_i, .rst_ni, .clear_i, .enable_i, .block_i, .ring_base_i, .ring_log2_i, .tail_i,
    .head_o (head), .busy_o (busy), .empty_o (empty),
    .req_valid_o (req_valid), .req_ready_i, .req_o (req),
    .rd_valid_i, .rd_ready_o (rd_ready), .rd_data_i, .rd_last_i,
    .done_valid_i, .done_err_i, .done_addr_i,
    .out_valid_o (out_valid), .out_ready_i, .out_data_o (out_data),
    .err_valid_o (err_valid), .err_ready_i, .err_o (err)
  );

  weft_prop_cmd_ring #(.DataW(DataW), .BufDescs(8), .MaxPerReq(4)) u_prop (
    .clk_i, .rst_ni, .clear_i, .block_i, .ring_base_i, .ring_log2_i, .tail_i,
    .head_i (head), .busy_i (busy),
    .req_valid, .req_ready (req_ready_i), .req,
    .rd_valid (rd_valid_i), .rd_last (rd_last_i), .done_valid (done_valid_i),
    .done_err (done_err_i), .out_valid, .out_ready (out_ready_i)
  );

  logic unused;
  assign unused = ^{empty, rd_ready, out_data, err_valid, err};

  // Reset in the first cycle, then never again.
  logic first;
  weft_fv_reset u_reset (.clk_i, .rst_ni, .first_o (first));

  // Reachability: a request that ends exactly at the ring's end, and the ring index wrapping.
  always @(posedge clk_i) begin
    if (rst_ni) begin
      c_wrap:     cover (req_valid && req_ready_i && ring_log2_i == 5'd1 && head == 32'd2 &&
                         req.addr == ring_base_i);
      c_four:     cover (req_valid && req.row_bytes == 32'd256);
    end
  end

endmodule
