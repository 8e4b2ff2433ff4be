// weft_dma_rd_ch: one read client of weft_dma: the request and its bursts (weft_dma_ch), the
// bursts in flight and the delivery of the R beats of this client's ID, in order.
//
// Idle -> Check (the shared weft_dma_check judges the request) -> Run (bursts offered to the AR
// stage; R beats delivered) -> Done (done pulse) -> Idle. A failed check goes straight to Done
// with its code and the request address.
// An R beat with SLVERR/DECERR ends the request: no further bursts are offered, that beat and
// every later beat of the request are dropped (taken from the R stage, not shown to the client),
// and Done comes once every burst already issued has returned its last beat. The error address
// is the address of the failing beat.
// The delivery counters replay the row/beat structure to flag the request's last beat
// (rd_last_o) and to know each beat's address.
`include "weft_assert.svh"
`include "weft_dma_types.svh"

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
  input  weft_dma_req_t   req_i,
  // checker
  output logic            chk_valid_o,
  output weft_dma_req_t   chk_req_o,
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

  localparam int CntW = $clog2(MaxRdOut + 1);

  logic [CntW-1:0] out_q, out_d;        // bursts issued (AR slot or later) without their last beat
  // delivery counters
  logic [31:0] dl_rows_q, dl_rows_d;    // rows left, the current one included
  logic [31:0] dl_left_q, dl_left_d;    // beats left in the current row
  logic [63:0] dl_row_q, dl_row_d;      // current row's first byte
  logic [63:0] dl_addr_q, dl_addr_d;    // the next beat's address

  weft_dma_req_t req;
  logic [31:0]   row_beats;
  logic          start, run, failed, consumed, row_end_unused;

  weft_dma_ch #(
    .BusBytes  (BusBytes),
    .MaxBurst  (MaxBurst),
    .StopOnErr (1'b1)
  ) u_ch (
    .clk_i,
    .rst_ni,
    .req_valid_i,
    .req_ready_o,
    .req_i,
    .chk_valid_o,
    .chk_req_o,
    .chk_rsp_i,
    .chk_err_i,
    .req_o           (req),
    .row_beats_o     (row_beats),
    .start_o         (start),
    .run_o           (run),
    .failed_o        (failed),
    .burst_valid_o,
    .burst_pop_i,
    .burst_addr_o,
    .burst_len_o,
    .burst_row_end_o (row_end_unused),
    .rsp_valid_i     (consumed),
    .rsp_resp_i      (beat_resp_i),
    .rsp_addr_i      (dl_addr_q),
    .drained_i       (out_q == '0),
    .done_valid_o,
    .done_err_o,
    .done_addr_o,
    .busy_o
  );

  logic unused_req;
  assign unused_req = ^{req.row_bytes, row_end_unused};

  // Beats: shown to the client while the request is healthy, dropped otherwise.
  logic resp_err, present;
  assign resp_err     = beat_resp_i[1];  // SLVERR (10) or DECERR (11)
  assign present      = run && !failed && !resp_err;
  assign rd_valid_o   = beat_valid_i && present;
  assign beat_ready_o = present ? rd_ready_i : 1'b1;
  assign consumed     = beat_valid_i && beat_ready_o;
  assign rd_last_o    = (dl_rows_q == 32'd1) && (dl_left_q == 32'd1);

  logic [63:0] dl_next_row;
  assign dl_next_row = dl_row_q + 64'(req.stride);

  always_comb begin : p_next
    out_d     = out_q;
    dl_rows_d = dl_rows_q;
    dl_left_d = dl_left_q;
    dl_row_d  = dl_row_q;
    dl_addr_d = dl_addr_q;

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
    if (start) begin
      dl_rows_d = req.rows;
      dl_left_d = row_beats;
      dl_row_d  = req.addr;
      dl_addr_d = req.addr;
    end
  end

  always_ff @(posedge clk_i or negedge rst_ni) begin : p_regs
    if (!rst_ni) begin
      out_q     <= '0;
      dl_rows_q <= '0;
      dl_left_q <= '0;
      dl_row_q  <= '0;
      dl_addr_q <= '0;
    end else begin
      out_q     <= out_d;
      dl_rows_q <= dl_rows_d;
      dl_left_q <= dl_left_d;
      dl_row_q  <= dl_row_d;
      dl_addr_q <= dl_addr_d;
    end
  end

`ifndef SYNTHESIS
  always @(posedge clk_i or negedge rst_ni) begin : p_check
    if (rst_ni) begin
      if (beat_valid_i) begin
        assert (run) else $error("%m: R beat for a client with no request running");
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
