// weft_dma_wr_ch: one write client of weft_dma (request state, burst generation, B bookkeeping).
//
// Idle -> Check (weft_dma_check) -> Run -> Done (done pulse) -> Idle. A passed check pulses
// wr_start_o (the client then sends ceil(row_bytes/BusBytes) beats per row) and starts the burst
// generator; a failed one goes straight to Done with its code and the request address, without
// wr_start_o.
// Bursts leave through the write issue stage of weft_dma_wr: each one becomes an AW burst plus
// an entry of the W order queue, or, once the request has failed, a "drop" entry only: the
// client's remaining beats are then taken and thrown away, so a client always sends its whole
// request. Up to MaxWrOut AW bursts of this client may await their B response; B responses come
// in AW order (one ID per client), and a FIFO of the bursts' addresses names the burst a SLVERR
// or DECERR answered. Done comes when every burst was issued or dropped, every beat taken and
// every B response received.
`include "weft_assert.svh"

module weft_dma_wr_ch #(
  parameter int  BusBytes = 16,
  parameter int  MaxBurst = 16,
  parameter int  MaxWrOut = 8,
  parameter int  WrQueue  = 4,
  localparam int LenW     = $clog2(MaxBurst + 1)
) (
  input  logic                clk_i,
  input  logic                rst_ni,
  // request
  input  logic                req_valid_i,
  output logic                req_ready_o,
  input  logic [63:0]         req_addr_i,
  input  logic [31:0]         req_row_bytes_i,
  input  logic [31:0]         req_rows_i,
  input  logic [31:0]         req_stride_i,
  output logic                wr_start_o,
  // checker
  output logic                chk_valid_o,
  output logic [63:0]         chk_addr_o,
  output logic [31:0]         chk_row_bytes_o,
  output logic [31:0]         chk_rows_o,
  output logic [31:0]         chk_stride_o,
  input  logic                chk_rsp_i,
  input  logic [7:0]          chk_err_i,
  // bursts to the write issue stage
  output logic                burst_valid_o,
  input  logic                burst_pop_i,
  output logic [63:0]         burst_addr_o,
  output logic [LenW-1:0]     burst_len_o,
  output logic                burst_row_end_o,
  output logic                burst_drop_o,    // no AW: only take and drop the client's beats
  output logic [BusBytes-1:0] tail_strb_o,     // strobes of a row's last beat
  // W order queue: a burst of this client was fully taken from the client
  input  logic                w_done_i,
  // B responses of this client's ID
  input  logic                b_valid_i,
  input  logic [1:0]          b_resp_i,
  // end of request
  output logic                done_valid_o,
  output logic [7:0]          done_err_o,
  output logic [63:0]         done_addr_o,
  output logic                busy_o
);

  localparam int OffW  = $clog2(BusBytes);
  localparam int BoutW = $clog2(MaxWrOut + 1);
  localparam int WpW   = $clog2(WrQueue + 1);

  typedef enum logic [1:0] {
    StIdle  = 2'd0,
    StCheck = 2'd1,
    StRun   = 2'd2,
    StDone  = 2'd3
  } state_e;

  state_e           state_q, state_d;
  logic [63:0]      addr_q, addr_d;
  logic [31:0]      rb_q, rb_d, rows_q, rows_d, stride_q, stride_d;
  logic [7:0]       err_q, err_d;
  logic [63:0]      err_addr_q, err_addr_d;
  logic             start_q, start_d;
  logic [BoutW-1:0] bout_q, bout_d;  // AW bursts issued, B not yet received
  logic [WpW-1:0]   wpend_q, wpend_d;  // bursts in the W order queue

  // ceil(row_bytes / BusBytes)
  logic [32:0] rb_round;
  logic [31:0] row_beats;
  assign rb_round  = 33'(rb_q) + 33'(BusBytes - 1);
  assign row_beats = 32'(rb_round >> OffW);

  always_comb begin : p_tail
    tail_strb_o = '1;
    if (rb_q[OffW-1:0] != '0) begin
      for (int b = 0; b < BusBytes; b++) begin
        tail_strb_o[b] = (b < 32'(rb_q[OffW-1:0]));
      end
    end
  end

  logic gen_start, gen_valid, gen_busy, gen_row_end;
  logic [63:0] gen_addr;
  logic [LenW-1:0] gen_len;
  assign gen_start = (state_q == StCheck) && chk_rsp_i && (chk_err_i == weft_pkg::ErrNone);

  weft_dma_burst #(
    .BusBytes (BusBytes),
    .MaxBurst (MaxBurst)
  ) u_burst (
    .clk_i,
    .rst_ni,
    .clear_i         (1'b0),           // a write transfer always runs to its end
    .start_i         (gen_start),
    .start_addr_i    (addr_q),
    .start_beats_i   (row_beats),
    .start_rows_i    (rows_q),
    .start_stride_i  (stride_q),
    .burst_valid_o   (gen_valid),
    .burst_pop_i     (burst_pop_i),
    .burst_addr_o    (gen_addr),
    .burst_len_o     (gen_len),
    .burst_row_end_o (gen_row_end),
    .busy_o          (gen_busy)
  );

  logic drop;
  assign drop            = (err_q != weft_pkg::ErrNone);
  assign burst_valid_o   = gen_valid && (state_q == StRun) && (drop || bout_q != BoutW'(MaxWrOut));
  assign burst_addr_o    = gen_addr;
  assign burst_len_o     = gen_len;
  assign burst_row_end_o = gen_row_end;
  assign burst_drop_o    = drop;

  // Addresses of the bursts awaiting B.
  logic        baddr_push, baddr_ready, baddr_valid;
  logic [63:0] baddr_head;
  logic [$clog2(MaxWrOut + 1)-1:0] baddr_usage;
  assign baddr_push = burst_pop_i && !drop;

  weft_fifo #(
    .Width (64),
    .Depth (MaxWrOut)
  ) u_baddr (
    .clk_i,
    .rst_ni,
    .flush_i     (1'b0),
    .in_valid_i  (baddr_push),
    .in_ready_o  (baddr_ready),
    .in_data_i   (gen_addr),
    .out_valid_o (baddr_valid),
    .out_ready_i (b_valid_i),
    .out_data_o  (baddr_head),
    .usage_o     (baddr_usage)
  );

  logic unused_fifo;
  assign unused_fifo = ^{baddr_ready, baddr_usage};

  assign req_ready_o     = (state_q == StIdle);
  assign chk_valid_o     = (state_q == StCheck);
  assign chk_addr_o      = addr_q;
  assign chk_row_bytes_o = rb_q;
  assign chk_rows_o      = rows_q;
  assign chk_stride_o    = stride_q;
  assign wr_start_o      = start_q;
  assign done_valid_o    = (state_q == StDone);
  assign done_err_o      = err_q;
  assign done_addr_o     = err_addr_q;
  assign busy_o          = (state_q != StIdle);

  always_comb begin : p_next
    state_d    = state_q;
    addr_d     = addr_q;
    rb_d       = rb_q;
    rows_d     = rows_q;
    stride_d   = stride_q;
    err_d      = err_q;
    err_addr_d = err_addr_q;
    start_d    = 1'b0;
    bout_d     = bout_q;
    wpend_d    = wpend_q;

    if (burst_pop_i && !drop) bout_d = bout_d + BoutW'(1);
    if (b_valid_i) bout_d = bout_d - BoutW'(1);
    if (burst_pop_i) wpend_d = wpend_d + WpW'(1);
    if (w_done_i) wpend_d = wpend_d - WpW'(1);

    if (b_valid_i && b_resp_i[1] && !drop && state_q == StRun) begin
      err_d      = b_resp_i[0] ? weft_pkg::ErrDecerr : weft_pkg::ErrSlverr;
      err_addr_d = baddr_head;
    end

    unique case (state_q)
      StIdle: begin
        if (req_valid_i) begin
          state_d    = StCheck;
          addr_d     = req_addr_i;
          rb_d       = req_row_bytes_i;
          rows_d     = req_rows_i;
          stride_d   = req_stride_i;
          err_d      = weft_pkg::ErrNone;
          err_addr_d = '0;
        end
      end
      StCheck: begin
        if (chk_rsp_i) begin
          if (chk_err_i != weft_pkg::ErrNone) begin
            state_d    = StDone;
            err_d      = chk_err_i;
            err_addr_d = addr_q;
          end else begin
            state_d = StRun;
            start_d = 1'b1;
          end
        end
      end
      StRun: begin
        if (!gen_busy && wpend_q == '0 && bout_q == '0) state_d = StDone;
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
      addr_q     <= '0;
      rb_q       <= '0;
      rows_q     <= '0;
      stride_q   <= '0;
      err_q      <= '0;
      err_addr_q <= '0;
      start_q    <= 1'b0;
      bout_q     <= '0;
      wpend_q    <= '0;
    end else begin
      state_q    <= state_d;
      addr_q     <= addr_d;
      rb_q       <= rb_d;
      rows_q     <= rows_d;
      stride_q   <= stride_d;
      err_q      <= err_d;
      err_addr_q <= err_addr_d;
      start_q    <= start_d;
      bout_q     <= bout_d;
      wpend_q    <= wpend_d;
    end
  end

`ifndef SYNTHESIS
  always @(posedge clk_i or negedge rst_ni) begin : p_check
    if (rst_ni) begin
      if (b_valid_i) begin
        assert (bout_q != '0 && baddr_valid) else $error("%m: B response with no burst awaiting it");
      end
      if (w_done_i) begin
        assert (wpend_q != '0) else $error("%m: W burst done with none queued");
      end
      if (baddr_push) begin
        assert (baddr_ready) else $error("%m: burst address FIFO overflow");
      end
    end
  end
`endif

endmodule
