// weft_dma_ch: what every DMA channel does with its request, read or write: take it, have it
// checked, walk it as bursts, record the first bus error, say when it is done.
//
// Idle -> Check (the shared weft_dma_check judges the request: chk_valid_o / chk_req_o until
// chk_rsp_i) -> Run -> Done (done pulse) -> Idle. A failed check goes straight to Done with its
// code and the request address. A passed one pulses start_o (in the Check cycle) and starts the
// weft_dma_burst walker (rows -> INCR bursts of at most MaxBurst beats, never across 4 KiB).
// In Run, bursts are offered on burst_* (taken with burst_pop_i). The first response of the
// request with SLVERR or DECERR (rsp_valid_i with rsp_resp_i[1]) records ErrSlverr / ErrDecerr and
// rsp_addr_i; with StopOnErr no further burst is offered after it (reads); without, the walk
// runs to its end and the caller drops the bursts (writes: the client's beats must still be taken).
// Run ends when no burst is left to offer and the caller's own bookkeeping is drained
// (drained_i: every issued burst answered).
// The request itself (req_o) and its beats per row (row_beats_o = ceil(row_bytes / BusBytes);
// a read request that passed the check has whole beats) stay valid from Check to Done.
`include "weft_assert.svh"
`include "weft_dma_types.svh"

module weft_dma_ch #(
  parameter int  BusBytes  = 16,
  parameter int  MaxBurst  = 16,
  parameter bit  StopOnErr = 1'b1,
  localparam int LenW      = $clog2(MaxBurst + 1)
) (
  input  logic            clk_i,
  input  logic            rst_ni,
  // request
  input  logic            req_valid_i,
  output logic            req_ready_o,
  input  weft_dma_req_t   req_i,
  // checker
  output logic            chk_valid_o,
  output weft_dma_req_t   chk_req_o,
  input  logic            chk_rsp_i,
  input  logic [7:0]      chk_err_i,
  // the request being served
  output weft_dma_req_t   req_o,
  output logic [31:0]     row_beats_o,
  output logic            start_o,         // check passed (the Check -> Run cycle)
  output logic            run_o,           // in Run
  output logic            failed_o,        // an error is recorded
  // bursts
  output logic            burst_valid_o,
  input  logic            burst_pop_i,
  output logic [63:0]     burst_addr_o,
  output logic [LenW-1:0] burst_len_o,
  output logic            burst_row_end_o,
  // bus responses of this request (R beats taken, or B responses)
  input  logic            rsp_valid_i,
  input  logic [1:0]      rsp_resp_i,
  input  logic [63:0]     rsp_addr_i,      // the address the response answers
  input  logic            drained_i,
  // end of request
  output logic            done_valid_o,
  output logic [7:0]      done_err_o,
  output logic [63:0]     done_addr_o,
  output logic            busy_o
);

  localparam int OffW = $clog2(BusBytes);

  typedef enum logic [1:0] {
    StIdle  = 2'd0,
    StCheck = 2'd1,
    StRun   = 2'd2,
    StDone  = 2'd3
  } state_e;

  state_e        state_q, state_d;
  weft_dma_req_t req_q, req_d;
  logic [7:0]    err_q, err_d;
  logic [63:0]   err_addr_q, err_addr_d;

  // ceil(row_bytes / BusBytes)
  logic [32:0] rb_round;
  assign rb_round    = 33'(req_q.row_bytes) + 33'(BusBytes - 1);
  assign row_beats_o = 32'(rb_round >> OffW);

  logic gen_valid, gen_busy;
  assign start_o = (state_q == StCheck) && chk_rsp_i && (chk_err_i == weft_pkg::ErrNone);

  weft_dma_burst #(
    .BusBytes (BusBytes),
    .MaxBurst (MaxBurst)
  ) u_burst (
    .clk_i,
    .rst_ni,
    .clear_i         (state_q == StDone),  // a walk stopped by an error ends here
    .start_i         (start_o),
    .start_addr_i    (req_q.addr),
    .start_beats_i   (row_beats_o),
    .start_rows_i    (req_q.rows),
    .start_stride_i  (req_q.stride),
    .burst_valid_o   (gen_valid),
    .burst_pop_i     (burst_pop_i),
    .burst_addr_o    (burst_addr_o),
    .burst_len_o     (burst_len_o),
    .burst_row_end_o (burst_row_end_o),
    .busy_o          (gen_busy)
  );

  assign failed_o      = (err_q != weft_pkg::ErrNone);
  assign run_o         = (state_q == StRun);
  assign burst_valid_o = gen_valid && run_o && !(StopOnErr && failed_o);

  assign req_ready_o  = (state_q == StIdle);
  assign chk_valid_o  = (state_q == StCheck);
  assign chk_req_o    = req_q;
  assign req_o        = req_q;
  assign done_valid_o = (state_q == StDone);
  assign done_err_o   = err_q;
  assign done_addr_o  = err_addr_q;
  assign busy_o       = (state_q != StIdle);

  always_comb begin : p_next
    state_d    = state_q;
    req_d      = req_q;
    err_d      = err_q;
    err_addr_d = err_addr_q;

    if (rsp_valid_i && rsp_resp_i[1] && run_o && !failed_o) begin
      err_d      = rsp_resp_i[0] ? weft_pkg::ErrDecerr : weft_pkg::ErrSlverr;
      err_addr_d = rsp_addr_i;
    end

    unique case (state_q)
      StIdle: begin
        if (req_valid_i) begin
          state_d    = StCheck;
          req_d      = req_i;
          err_d      = weft_pkg::ErrNone;
          err_addr_d = '0;
        end
      end
      StCheck: begin
        if (chk_rsp_i) begin
          if (chk_err_i != weft_pkg::ErrNone) begin
            state_d    = StDone;
            err_d      = chk_err_i;
            err_addr_d = req_q.addr;
          end else begin
            state_d = StRun;
          end
        end
      end
      StRun: begin
        // No burst left to offer (all taken, or stopped by an error) and every one answered.
        if ((!gen_busy || (StopOnErr && failed_o)) && drained_i) state_d = StDone;
      end
      StDone: begin
        state_d = StIdle;
      end
      default: state_d = StIdle;
    endcase
  end

  always_ff @(posedge clk_i or negedge rst_ni) begin : p_regs
    if (!rst_ni) begin
      state_q    <= StIdle;
      req_q      <= '0;
      err_q      <= '0;
      err_addr_q <= '0;
    end else begin
      state_q    <= state_d;
      req_q      <= req_d;
      err_q      <= err_d;
      err_addr_q <= err_addr_d;
    end
  end

endmodule
