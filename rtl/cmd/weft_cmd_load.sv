// weft_cmd_load: the load engine. Runs LOAD descriptors in ring order, one at a time: a 2D read
// on DMA client rd1, each beat written to the scratchpad line it belongs to (row r, chunk c ->
// line spad_addr + r*spad_stride + c; a 32-bit line address: weft_top routes the scratchpad and
// SIMT memory regions, and holds a beat with sp_wr_ready_i low). Done (ROB) when the DMA reports the request over without
// error; a DMA error is reported for this descriptor and the engine goes on with nothing else
// until the queue reset drops the queue.
// Its queue (weft_cmd_equeue, in weft_cmd) hands it the head LOAD and says when it may start.
`include "weft_assert.svh"
`include "weft_cmd_types.svh"
`include "weft_desc.svh"
`include "weft_dma_types.svh"

module weft_cmd_load #(
  parameter int  DataW     = 128,
  parameter int  Inflight  = 16,
  localparam int BbW       = $clog2(DataW / 8),
  localparam int TagW      = $clog2(Inflight)
) (
  input  logic                clk_i,
  input  logic                rst_ni,
  input  logic                clear_i,
  // queue head (weft_cmd_equeue)
  input  logic                head_go_i,      // the head may start
  input  logic [31:0]         head_idx_i,
  input  weft_desc_transfer_t head_desc_i,    // the LOAD's operands
  output logic                pop_o,          // started: pop the head
  // DMA read client
  output logic                req_valid_o,
  input  logic                req_ready_i,
  output weft_dma_req_t       req_o,
  input  logic                rd_valid_i,
  output logic                rd_ready_o,
  input  logic [DataW-1:0]    rd_data_i,
  input  logic                dma_done_i,
  input  logic [7:0]          dma_err_i,
  input  logic [63:0]         dma_addr_i,
  // scratchpad write port
  output logic                sp_wr_valid_o,
  output logic [31:0]         sp_wr_addr_o,
  output logic [DataW-1:0]    sp_wr_data_o,
  input  logic                sp_wr_ready_i,
  // completion, error, status
  output logic                done_valid_o,
  output logic [TagW-1:0]     done_tag_o,
  output logic                err_valid_o,
  input  logic                err_ready_i,
  output weft_cmd_err_t       err_o,
  output logic                busy_o          // executing a descriptor
);

  typedef enum logic [1:0] {LIdle, LReq, LData, LErr} lstate_e;
  lstate_e state_q, state_d;

  logic start, beat;
  assign start = (state_q == LIdle) && head_go_i;
  assign pop_o = start;
  assign beat  = (state_q == LData) && rd_valid_i && sp_wr_ready_i;

  // Running descriptor.
  logic [31:0]   idx_q, idx_d;
  weft_dma_req_t req_q, req_d;
  logic [7:0]    ecode_q, ecode_d;
  logic [63:0]   eaddr_q, eaddr_d;

  always_comb begin : p_next
    state_d = state_q;
    idx_d   = idx_q;
    req_d   = req_q;
    ecode_d = ecode_q;
    eaddr_d = eaddr_q;
    unique case (state_q)
      LIdle: begin
        if (start) begin
          idx_d           = head_idx_i;
          req_d.addr      = head_desc_i.host_addr;
          req_d.row_bytes = head_desc_i.row_bytes;
          req_d.rows      = head_desc_i.rows;
          req_d.stride    = head_desc_i.host_stride;
          state_d         = LReq;
        end
      end
      LReq: begin
        if (req_ready_i) state_d = LData;
      end
      LData: ;
      LErr: begin
        if (err_ready_i) state_d = LIdle;
      end
      default: state_d = LIdle;
    endcase
    // The DMA's end of the request (at the earliest with the request's acceptance).
    if (dma_done_i && (state_q == LData || (state_q == LReq && req_ready_i))) begin
      if (dma_err_i != weft_pkg::ErrNone) begin
        ecode_d = dma_err_i;
        eaddr_d = dma_addr_i;
        state_d = LErr;
      end else begin
        state_d = LIdle;
      end
    end
    if (clear_i) state_d = LIdle;
  end

  always_ff @(posedge clk_i or negedge rst_ni) begin : p_regs
    if (!rst_ni) state_q <= LIdle;
    else         state_q <= state_d;
  end

  always_ff @(posedge clk_i) begin : p_data
    idx_q   <= idx_d;
    req_q   <= req_d;
    ecode_q <= ecode_d;
    eaddr_q <= eaddr_d;
  end

  // Beat c of row r goes to line spad_addr + r*spad_stride + c.
  logic unused_row_end;
  weft_cmd_linewalk u_walk (
    .clk_i,
    .load_i     (start),
    .base_i     (head_desc_i.spad_addr),
    .stride_i   (head_desc_i.spad_stride),
    .lines_m1_i ((head_desc_i.row_bytes >> BbW) - 32'd1),
    .step_i     (beat),
    .ptr_o      (sp_wr_addr_o),
    .row_end_o  (unused_row_end)
  );

  assign req_valid_o = (state_q == LReq);
  assign req_o       = req_q;
  assign rd_ready_o  = sp_wr_ready_i;

  assign sp_wr_valid_o = (state_q == LData) && rd_valid_i;
  assign sp_wr_data_o  = rd_data_i;

  assign done_valid_o = (state_q == LData || (state_q == LReq && req_ready_i)) && dma_done_i &&
                        (dma_err_i == weft_pkg::ErrNone);
  assign done_tag_o   = TagW'(idx_q);

  assign err_valid_o = (state_q == LErr);
  assign err_o       = {ecode_q, idx_q, eaddr_q};

  assign busy_o = (state_q != LIdle);

`ifndef SYNTHESIS
  always @(posedge clk_i or negedge rst_ni) begin : p_checks
    if (rst_ni) begin
      if (rd_valid_i && sp_wr_ready_i) assert (state_q == LData) else $error("weft_cmd_load: beat without a request");
      if (dma_done_i) assert (state_q == LData || (state_q == LReq && req_ready_i))
        else $error("weft_cmd_load: done without a request");
    end
  end
`endif

endmodule
