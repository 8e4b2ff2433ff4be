// weft_cmd_load: the load engine. Runs LOAD descriptors in ring order, one at a time: a 2D read
// on DMA client rd1, each beat written to the scratchpad line it belongs to (row r, chunk c ->
// line spad_addr + r*spad_stride + c; a 32-bit line address: weft_top routes the scratchpad and
// SIMT memory regions, and holds a beat with sp_wr_ready_i low). Done (ROB) when the DMA reports the request over without
// error; a DMA error is reported for this descriptor and the engine goes on with nothing else
// until the queue reset drops the queue.
// Queue: QDepth entries {index, dependency distances, the LOAD's operands (weft_desc_transfer_t)};
// the head starts when its dependencies are met, no error stops it and no queue reset is pending.
`include "weft_assert.svh"
`include "weft_desc.svh"
`include "weft_dma_types.svh"

module weft_cmd_load #(
  parameter int  DataW     = 128,
  parameter int  Inflight  = 16,
  parameter int  QDepth    = 4,
  localparam int BbW       = $clog2(DataW / 8),
  localparam int TagW      = $clog2(Inflight)
) (
  input  logic                clk_i,
  input  logic                rst_ni,
  input  logic                clear_i,
  input  logic                hold_i,
  // queue
  input  logic                push_i,
  input  logic [31:0]         push_idx_i,
  input  logic [39:0]         push_deps_i,
  input  weft_desc_transfer_t push_desc_i,    // the LOAD's operands
  output logic                q_ready_o,
  // ROB state
  input  logic [31:0]         rptr_i,
  input  logic [Inflight-1:0] rob_done_i,
  input  logic                err_valid_i,
  input  logic [31:0]         err_idx_i,
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
  output logic [7:0]          err_code_o,
  output logic [31:0]         err_idx_o,
  output logic [63:0]         err_addr_o,
  output logic                busy_o,         // executing a descriptor
  output logic                q_empty_o,      // nothing queued
  output logic                wait_dep_o
);

  typedef enum logic [1:0] {LIdle, LReq, LData, LErr} lstate_e;
  lstate_e state_q, state_d;

  logic                q_valid, q_pop, q_empty, met, order_ok;
  logic [31:0]         h_idx;
  weft_desc_transfer_t h_desc;

  weft_cmd_equeue #(.Inflight(Inflight), .QDepth(QDepth),
                    .PayloadW(weft_pkg::DescTransferBits)) u_queue (
    .clk_i,
    .rst_ni,
    .clear_i,
    .push_i,
    .push_idx_i,
    .push_deps_i,
    .push_payload_i (push_desc_i),
    .q_ready_o,
    .rptr_i,
    .rob_done_i,
    .err_valid_i,
    .err_idx_i,
    .pop_i          (q_pop),
    .head_valid_o   (q_valid),
    .head_idx_o     (h_idx),
    .head_payload_o (h_desc),
    .met_o          (met),
    .order_ok_o     (order_ok),
    .empty_o        (q_empty)
  );

  logic start;
  assign start = (state_q == LIdle) && q_valid && met && order_ok && !hold_i;
  assign q_pop = start;

  // Running descriptor.
  logic [31:0]       idx_q, idx_d;
  logic [63:0]       host_q, host_d;
  logic [31:0]       rbytes_q, rbytes_d, rows_q, rows_d, hstride_q, hstride_d;
  logic [31:0]       sstride_q, sstride_d, rowbase_q, rowbase_d, ptr_q, ptr_d;
  logic [31:0]       lines_m1_q, lines_m1_d, col_q, col_d;
  logic [7:0]        ecode_q, ecode_d;
  logic [63:0]       eaddr_q, eaddr_d;

  always_comb begin : p_next
    state_d    = state_q;
    idx_d      = idx_q;
    host_d     = host_q;
    rbytes_d   = rbytes_q;
    rows_d     = rows_q;
    hstride_d  = hstride_q;
    sstride_d  = sstride_q;
    rowbase_d  = rowbase_q;
    ptr_d      = ptr_q;
    lines_m1_d = lines_m1_q;
    col_d      = col_q;
    ecode_d    = ecode_q;
    eaddr_d    = eaddr_q;
    unique case (state_q)
      LIdle: begin
        if (start) begin
          idx_d      = h_idx;
          host_d     = h_desc.host_addr;
          rbytes_d   = h_desc.row_bytes;
          rows_d     = h_desc.rows;
          hstride_d  = h_desc.host_stride;
          rowbase_d  = h_desc.spad_addr;
          ptr_d      = h_desc.spad_addr;
          sstride_d  = h_desc.spad_stride;
          lines_m1_d = (h_desc.row_bytes >> BbW) - 32'd1;
          col_d      = '0;
          state_d    = LReq;
        end
      end
      LReq: begin
        if (req_ready_i) state_d = LData;
      end
      LData: begin
        if (rd_valid_i && sp_wr_ready_i) begin
          if (col_q == lines_m1_q) begin
            col_d     = '0;
            rowbase_d = rowbase_q + sstride_q;
            ptr_d     = rowbase_q + sstride_q;
          end else begin
            col_d = col_q + 32'd1;
            ptr_d = ptr_q + 32'd1;
          end
        end
      end
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
    idx_q      <= idx_d;
    host_q     <= host_d;
    rbytes_q   <= rbytes_d;
    rows_q     <= rows_d;
    hstride_q  <= hstride_d;
    sstride_q  <= sstride_d;
    rowbase_q  <= rowbase_d;
    ptr_q      <= ptr_d;
    lines_m1_q <= lines_m1_d;
    col_q      <= col_d;
    ecode_q    <= ecode_d;
    eaddr_q    <= eaddr_d;
  end

  assign req_valid_o     = (state_q == LReq);
  assign req_o.addr      = host_q;
  assign req_o.row_bytes = rbytes_q;
  assign req_o.rows      = rows_q;
  assign req_o.stride    = hstride_q;
  assign rd_ready_o      = sp_wr_ready_i;

  assign sp_wr_valid_o = (state_q == LData) && rd_valid_i;
  assign sp_wr_addr_o  = ptr_q;
  assign sp_wr_data_o  = rd_data_i;

  assign done_valid_o = (state_q == LData || (state_q == LReq && req_ready_i)) && dma_done_i &&
                        (dma_err_i == weft_pkg::ErrNone);
  assign done_tag_o   = TagW'(idx_q);

  assign err_valid_o = (state_q == LErr);
  assign err_code_o  = ecode_q;
  assign err_idx_o   = idx_q;
  assign err_addr_o  = eaddr_q;

  assign busy_o     = (state_q != LIdle);
  assign q_empty_o  = q_empty;
  assign wait_dep_o = (state_q == LIdle) && q_valid && !met;

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
