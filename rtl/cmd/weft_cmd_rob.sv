// weft_cmd_rob: the reorder buffer (descriptors in flight, retired in ring order) and the error
// register of the queue.
//
// Entries are indexed by descriptor index mod Inflight. wptr_o = next index to allocate,
// rptr_o = oldest not retired = COMPLETED. An entry is allocated at dispatch (NOP and FENCE
// already done), marked done by its engine (done_*), and retired when it is the oldest: one per
// cycle, never at or past the recorded error's index.
// Error register: sources report (valid, code, index, address) and hold it until accepted (one
// per cycle, fixed priority). A report is recorded when no error is recorded yet or its index
// comes earlier in ring order than the recorded one (all indices in play are >= rptr, so
// "earlier" is the smaller distance from rptr); err_new_o pulses then.
`include "weft_assert.svh"
`include "weft_cmd_types.svh"

module weft_cmd_rob #(
  parameter int  Inflight = 16,
  parameter int  NumDone  = 3,
  parameter int  NumErr   = 5,
  localparam int TagW     = $clog2(Inflight),
  localparam int ErrW     = $bits(weft_cmd_err_t'(0))
) (
  input  logic                 clk_i,
  input  logic                 rst_ni,
  input  logic                 clear_i,
  // allocation (dispatch)
  input  logic                 alloc_i,
  input  logic                 alloc_irq_i,
  input  logic                 alloc_done_i,
  // completion by the engines
  input  logic [NumDone-1:0]   done_valid_i,
  input  logic [NumDone*TagW-1:0] done_tag_i,
  // state
  output logic [31:0]          wptr_o,
  output logic [31:0]          rptr_o,
  output logic [Inflight-1:0]  done_o,
  output logic                 space_o,
  output logic                 empty_o,
  output logic                 retire_o,
  output logic                 retire_irq_o,
  // error reports
  input  logic [NumErr-1:0]    err_valid_i,
  output logic [NumErr-1:0]    err_ready_o,
  input  logic [NumErr*ErrW-1:0] err_i,     // weft_cmd_err_t per source
  output logic                 err_valid_o,
  output weft_cmd_err_t        err_o,       // the recorded error

  output logic                 err_new_o
);

  if (Inflight < 2 || (1 << TagW) != Inflight) begin : g_bad_inflight
    `WEFT_ELAB_ERROR("weft_cmd_rob: Inflight must be a power of two >= 2")
  end

  logic [31:0]         wptr_q, wptr_d, rptr_q, rptr_d;
  logic [Inflight-1:0] done_q, done_d, irq_q, irq_d;
  logic                retire;
  logic [TagW-1:0]     rtag, wtag;
  logic                err_q, err_d;
  weft_cmd_err_t       rec_q, rec_d;
  logic                err_take;

  assign rtag   = TagW'(rptr_q);
  assign wtag   = TagW'(wptr_q);
  assign retire = (rptr_q != wptr_q) && done_q[rtag] && !(err_q && rptr_q == rec_q.idx);

  // One error report per cycle, lowest source number first.
  always_comb begin : p_err_pick
    err_ready_o = '0;
    for (int i = NumErr - 1; i >= 0; i--) begin
      if (err_valid_i[i]) begin
        err_ready_o    = '0;
        err_ready_o[i] = 1'b1;
      end
    end
  end

  weft_cmd_err_t in_err;
  always_comb begin : p_err_mux
    in_err = '0;
    for (int i = 0; i < NumErr; i++) begin
      if (err_ready_o[i]) in_err = err_i[i*ErrW +: ErrW];
    end
  end
  assign err_take = (err_ready_o != '0) && (!err_q || (in_err.idx - rptr_q) < (rec_q.idx - rptr_q));

  always_comb begin : p_next
    wptr_d  = wptr_q;
    rptr_d  = rptr_q;
    done_d  = done_q;
    irq_d   = irq_q;
    err_d   = err_q;
    rec_d   = rec_q;
    for (int i = 0; i < NumDone; i++) begin
      if (done_valid_i[i]) done_d[done_tag_i[i*TagW +: TagW]] = 1'b1;
    end
    if (retire) rptr_d = rptr_q + 32'd1;
    if (alloc_i) begin
      done_d[wtag] = alloc_done_i;
      irq_d[wtag]  = alloc_irq_i;
      wptr_d       = wptr_q + 32'd1;
    end
    if (err_take) begin
      err_d = 1'b1;
      rec_d = in_err;
    end
    if (clear_i) begin
      wptr_d = '0;
      rptr_d = '0;
      done_d = '0;
      err_d  = 1'b0;
      rec_d  = '0;
    end
  end

  always_ff @(posedge clk_i or negedge rst_ni) begin : p_regs
    if (!rst_ni) begin
      wptr_q  <= '0;
      rptr_q  <= '0;
      done_q  <= '0;
      irq_q   <= '0;
      err_q   <= 1'b0;
      rec_q   <= '0;
    end else begin
      wptr_q  <= wptr_d;
      rptr_q  <= rptr_d;
      done_q  <= done_d;
      irq_q   <= irq_d;
      err_q   <= err_d;
      rec_q   <= rec_d;
    end
  end

  assign wptr_o       = wptr_q;
  assign rptr_o       = rptr_q;
  assign done_o       = done_q;
  assign space_o      = (wptr_q - rptr_q) < 32'(Inflight);
  assign empty_o      = (wptr_q == rptr_q);
  assign retire_o     = retire;
  assign retire_irq_o = retire && irq_q[rtag];
  assign err_valid_o  = err_q;
  assign err_o        = rec_q;
  assign err_new_o    = err_take;

`ifndef SYNTHESIS
  always @(posedge clk_i or negedge rst_ni) begin : p_checks
    if (rst_ni) begin
      if (alloc_i) assert ((wptr_q - rptr_q) < 32'(Inflight)) else $error("weft_cmd_rob: overflow");
      for (int i = 0; i < NumDone; i++) begin
        if (done_valid_i[i]) begin
          assert ((32'(done_tag_i[i*TagW +: TagW]) - 32'(rtag)) % Inflight < (wptr_q - rptr_q) &&
                  !done_q[done_tag_i[i*TagW +: TagW]])
            else $error("weft_cmd_rob: completion of an entry not in flight");
        end
      end
    end
  end
`endif

endmodule
