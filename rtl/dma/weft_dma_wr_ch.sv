// weft_dma_wr_ch: one write client of weft_dma: the request and its bursts (weft_dma_ch), the
// write start, the strobes of a row's tail and the B bookkeeping.
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
`include "weft_dma_types.svh"

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
  input  weft_dma_req_t       req_i,
  output logic                wr_start_o,
  // checker
  output logic                chk_valid_o,
  output weft_dma_req_t       chk_req_o,
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

  logic             start_q, start_d;
  logic [BoutW-1:0] bout_q, bout_d;  // AW bursts issued, B not yet received
  logic [WpW-1:0]   wpend_q, wpend_d;  // bursts in the W order queue

  weft_dma_req_t req;
  logic [31:0]   row_beats;
  logic          start, run, drop, gen_valid;
  logic [63:0]   baddr_head;

  weft_dma_ch #(
    .BusBytes  (BusBytes),
    .MaxBurst  (MaxBurst),
    .StopOnErr (1'b0)            // a write transfer always runs to its end
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
    .failed_o        (drop),
    .burst_valid_o   (gen_valid),
    .burst_pop_i,
    .burst_addr_o,
    .burst_len_o,
    .burst_row_end_o,
    .rsp_valid_i     (b_valid_i),
    .rsp_resp_i      (b_resp_i),
    .rsp_addr_i      (baddr_head),
    .drained_i       (wpend_q == '0 && bout_q == '0),
    .done_valid_o,
    .done_err_o,
    .done_addr_o,
    .busy_o
  );

  logic unused_req;
  assign unused_req = ^{req.addr, req.rows, req.stride, row_beats, run};

  always_comb begin : p_tail
    tail_strb_o = '1;
    if (req.row_bytes[OffW-1:0] != '0) begin
      for (int b = 0; b < BusBytes; b++) begin
        tail_strb_o[b] = (b < 32'(req.row_bytes[OffW-1:0]));
      end
    end
  end

  assign burst_valid_o = gen_valid && (drop || bout_q != BoutW'(MaxWrOut));
  assign burst_drop_o  = drop;

  // Addresses of the bursts awaiting B.
  logic baddr_push, baddr_ready, baddr_valid;
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
    .in_data_i   (burst_addr_o),
    .out_valid_o (baddr_valid),
    .out_ready_i (b_valid_i),
    .out_data_o  (baddr_head),
    .usage_o     (baddr_usage)
  );

  logic unused_fifo;
  assign unused_fifo = ^{baddr_ready, baddr_usage};

  assign wr_start_o = start_q;

  always_comb begin : p_next
    start_d = start;
    bout_d  = bout_q;
    wpend_d = wpend_q;
    if (burst_pop_i && !drop) bout_d = bout_d + BoutW'(1);
    if (b_valid_i) bout_d = bout_d - BoutW'(1);
    if (burst_pop_i) wpend_d = wpend_d + WpW'(1);
    if (w_done_i) wpend_d = wpend_d - WpW'(1);
  end

  always_ff @(posedge clk_i or negedge rst_ni) begin : p_regs
    if (!rst_ni) begin
      start_q <= 1'b0;
      bout_q  <= '0;
      wpend_q <= '0;
    end else begin
      start_q <= start_d;
      bout_q  <= bout_d;
      wpend_q <= wpend_d;
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
