// weft_dma_rd_ch: one read client of weft_dma (request state, burst generation, beat delivery).
//
// Idle -> Check (the shared weft_dma_check judges the request) -> Run (bursts offered to the AR
// stage; R beats of this client's ID delivered in order) -> Done (done pulse) -> Idle.
// A failed check goes straight to Done with its code and the request address.
// An R beat with SLVERR/DECERR ends the request: no further bursts are offered, that beat and
// every later beat of the request are dropped (taken from the R stage, not shown to the client),
// and Done comes once every burst already issued has returned its last beat. The error address
// is the address of the failing beat.
// The delivery counters replay the row/beat structure to flag the request's last beat
// (rd_last_o) and to know each beat's address.
`include "weft_assert.svh"

module weft_dma_rd_ch #(
  parameter int  BusBytes = 16,
  parameter int  MaxBurst = 16,
  parameter int  MaxRdOut = 8,
  localparam int LenW     = $clog2(MaxBurst + 1)
) (
  input  logic            clk_i,
  input  logic            rst_ni,
  // request
  input  logic            req_valid_i,
  output logic            req_ready_o,
  input  logic [63:0]     req_addr_i,
  input  logic [31:0]     req_row_bytes_i,
  input  logic [31:0]     req_rows_i,
  input  logic [31:0]     req_stride_i,
  // checker
  output logic            chk_valid_o,
  output logic [63:0]     chk_addr_o,
  output logic [31:0]     chk_row_bytes_o,
  output logic [31:0]     chk_rows_o,
  output logic [31:0]     chk_stride_o,
  input  logic            chk_rsp_i,
  input  logic [7:0]      chk_err_i,
  // bursts to the AR stage (burst_pop_i: loaded into the AR slot)
  output logic            burst_valid_o,
  input  logic            burst_pop_i,
  output logic [63:0]     burst_addr_o,
  output logic [LenW-1:0] burst_len_o,
  // R beats of this client's ID, from the R stage
  input  logic            beat_valid_i,
  output logic            beat_ready_o,
  input  logic [1:0]      beat_resp_i,
  input  logic            beat_last_i,   // RLAST
  // data to the client (data itself goes straight from the R stage)
  output logic            rd_valid_o,
  input  logic            rd_ready_i,
  output logic            rd_last_o,
  // end of request
  output logic            done_valid_o,
  output logic [7:0]      done_err_o,
  output logic [63:0]     done_addr_o,
  output logic            busy_o
);

  localparam int OffW = $clog2(BusBytes);
  localparam int CntW = $clog2(MaxRdOut + 1);

  typedef enum logic [1:0] {
    StIdle  = 2'd0,
    StCheck = 2'd1,
    StRun   = 2'd2,
    StDone  = 2'd3
  } state_e;

  state_e      state_q, state_d;
  logic [63:0] addr_q, addr_d;
  logic [31:0] rb_q, rb_d, rows_q, rows_d, stride_q, stride_d;
  logic [7:0]  err_q, err_d;
  logic [63:0] err_addr_q, err_addr_d;
  logic [CntW-1:0] out_q, out_d;        // bursts issued (AR slot or later) without their last beat
  // delivery counters
  logic [31:0] dl_rows_q, dl_rows_d;    // rows left, the current one included
  logic [31:0] dl_left_q, dl_left_d;    // beats left in the current row
  logic [63:0] dl_row_q, dl_row_d;      // current row's first byte
  logic [63:0] dl_addr_q, dl_addr_d;    // the next beat's address

  logic [31:0] row_beats;
  assign row_beats = rb_q >> OffW;

  // burst generator
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
    .clear_i         (state_q == StDone),
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

  logic unused_row_end;
  assign unused_row_end = gen_row_end;

  assign burst_valid_o = gen_valid && (state_q == StRun) && (err_q == weft_pkg::ErrNone);
  assign burst_addr_o  = gen_addr;
  assign burst_len_o   = gen_len;

  assign req_ready_o     = (state_q == StIdle);
  assign chk_valid_o     = (state_q == StCheck);
  assign chk_addr_o      = addr_q;
  assign chk_row_bytes_o = rb_q;
  assign chk_rows_o      = rows_q;
  assign chk_stride_o    = stride_q;

  // Beats: shown to the client while the request is healthy, dropped otherwise.
  logic resp_err, present, consumed;
  assign resp_err     = beat_resp_i[1];  // SLVERR (10) or DECERR (11)
  assign present      = (state_q == StRun) && (err_q == weft_pkg::ErrNone) && !resp_err;
  assign rd_valid_o   = beat_valid_i && present;
  assign beat_ready_o = present ? rd_ready_i : 1'b1;
  assign consumed     = beat_valid_i && beat_ready_o;
  assign rd_last_o    = (dl_rows_q == 32'd1) && (dl_left_q == 32'd1);

  assign done_valid_o = (state_q == StDone);
  assign done_err_o   = err_q;
  assign done_addr_o  = err_addr_q;
  assign busy_o       = (state_q != StIdle);

  logic [63:0] dl_next_row;
  assign dl_next_row = dl_row_q + 64'(stride_q);

  always_comb begin : p_next
    state_d    = state_q;
    addr_d     = addr_q;
    rb_d       = rb_q;
    rows_d     = rows_q;
    stride_d   = stride_q;
    err_d      = err_q;
    err_addr_d = err_addr_q;
    out_d      = out_q;
    dl_rows_d  = dl_rows_q;
    dl_left_d  = dl_left_q;
    dl_row_d   = dl_row_q;
    dl_addr_d  = dl_addr_q;

    // outstanding bursts
    if (burst_pop_i) out_d = out_d + CntW'(1);
    if (consumed && beat_last_i) out_d = out_d - CntW'(1);

    // delivery
    if (consumed && present) begin
      if (dl_left_q == 32'd1) begin
        dl_rows_d = dl_rows_q - 32'd1;
        dl_left_d = row_beats;
        dl_row_d  = dl_next_row;
        dl_addr_d = dl_next_row;
      end else begin
        dl_left_d = dl_left_q - 32'd1;
        dl_addr_d = dl_addr_q + 64'(BusBytes);
      end
    end
    if (consumed && (state_q == StRun) && (err_q == weft_pkg::ErrNone) && resp_err) begin
      err_d      = beat_resp_i[0] ? weft_pkg::ErrDecerr : weft_pkg::ErrSlverr;
      err_addr_d = dl_addr_q;
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
            state_d   = StRun;
            dl_rows_d = rows_q;
            dl_left_d = row_beats;
            dl_row_d  = addr_q;
            dl_addr_d = addr_q;
          end
        end
      end
      StRun: begin
        // Over when no burst is left to issue (all issued, or stopped by an error) and every
        // issued burst has returned its last beat.
        if ((!gen_busy || err_q != weft_pkg::ErrNone) && out_q == '0) state_d = StDone;
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
      out_q      <= '0;
      dl_rows_q  <= '0;
      dl_left_q  <= '0;
      dl_row_q   <= '0;
      dl_addr_q  <= '0;
    end else begin
      state_q    <= state_d;
      addr_q     <= addr_d;
      rb_q       <= rb_d;
      rows_q     <= rows_d;
      stride_q   <= stride_d;
      err_q      <= err_d;
      err_addr_q <= err_addr_d;
      out_q      <= out_d;
      dl_rows_q  <= dl_rows_d;
      dl_left_q  <= dl_left_d;
      dl_row_q   <= dl_row_d;
      dl_addr_q  <= dl_addr_d;
    end
  end

`ifndef SYNTHESIS
  always @(posedge clk_i or negedge rst_ni) begin : p_check
    if (rst_ni) begin
      if (beat_valid_i) begin
        assert (state_q == StRun) else $error("%m: R beat for a client with no request running");
      end
      if (consumed && beat_last_i) begin
        assert (out_q != '0) else $error("%m: RLAST of a burst never issued");
      end
      if (burst_pop_i) begin
        assert (out_q != CntW'(MaxRdOut)) else $error("%m: more than MaxRdOut bursts");
      end
      if (consumed && present) begin
        assert (dl_rows_q != '0) else $error("%m: more R beats than requested");
      end
    end
  end
`endif

endmodule
