// weft_cmd_store: the store engine. Runs STORE_SPAD and STORE_ACC descriptors in ring order, one
// at a time, through DMA write client wr0.
//
// STORE_SPAD: request (host extent) -> after wr_start, scratchpad lines in row order through
//   read port S into a FIFO (credit-limited) -> wr0 beats.
// STORE_ACC: with load_params, first the Cols parameter lines params_addr + c are read and
//   written to the tensor unit's per-column registers (pc_*: bias = bits 31:0, multiplier or
//   scale = 63:32, shift = 69:64). The engine runs one descriptor at a time and a STORE_ACC ends
//   only after its last row left the tensor unit, so no DRAIN of this engine is in flight then.
//   Then the DMA request (m rows of weft_pkg::sacc_row_bytes) and the tensor unit DRAIN command;
//   after wr_start each output row o_* becomes ceil(row_bytes / BusBytes) beats on wr0.
//   PARAM check: the engine keeps, per column, whether the shift last written to it is -32 or 31
//   (outside TFLite's [-31, 30]). A STORE_ACC in a TFLite mode whose columns c < n include such
//   a column ends with ERR_PARAM (ERR_ADDR = the lowest such column) before its DMA request:
//   nothing is written to the host and no accumulator row is drained. The shift written to pc_*
//   is clamped to [-31, 30], so weft_requant never sees an out-of-range shift, not even in the
//   columns c >= n (whose results are not stored) or in later STORE_ACCs.
// Done (ROB) on the DMA's wr_done without error. A DMA error (checks or bus) ends the transfer:
// the engine stops sending, takes back every scratchpad read in flight or drains the remaining
// tensor-unit rows into nothing (a DRAIN not yet issued is dropped), then reports the error.
`include "weft_assert.svh"
`include "weft_cmd_types.svh"
`include "weft_desc.svh"
`include "weft_dma_types.svh"

module weft_cmd_store #(
  parameter int  Cols      = 16,
  parameter int  AccDepth  = 512,
  parameter int  DataW     = 128,
  parameter int  Inflight  = 16,
  parameter int  DFifo     = 6,
  localparam int BB        = DataW / 8,
  localparam int BbW       = $clog2(BB),
  localparam int TagW      = $clog2(Inflight),
  localparam int AccAw     = $clog2(AccDepth),
  localparam int RowsW     = AccAw + 1,
  localparam int ColIdxW   = (Cols > 1) ? $clog2(Cols) : 1
) (
  input  logic                 clk_i,
  input  logic                 rst_ni,
  input  logic                 clear_i,
  // queue head (weft_cmd_equeue)
  input  logic                 head_go_i,      // the head may start
  input  logic [31:0]          head_idx_i,
  input  weft_desc_store_acc_t head_desc_i,    // the operands (STORE_SPAD: weft_desc_transfer_t in the low bits)
  input  logic                 head_acc_i,     // STORE_ACC (else STORE_SPAD)
  output logic                 pop_o,          // started: pop the head
  // scratchpad read port S
  output logic                 s_req_valid_o,
  input  logic                 s_req_ready_i,
  output logic [31:0]          s_req_addr_o,     // line (weft_top routes the regions)
  input  logic                 s_rsp_valid_i,
  input  logic [DataW-1:0]     s_rsp_data_i,
  // DMA write client
  output logic                 req_valid_o,
  input  logic                 req_ready_i,
  output weft_dma_req_t        req_o,
  input  logic                 start_i,
  output logic                 wr_valid_o,
  input  logic                 wr_ready_i,
  output logic [DataW-1:0]     wr_data_o,
  input  logic                 dma_done_i,
  input  logic [7:0]           dma_err_i,
  input  logic [63:0]          dma_addr_i,
  // tensor unit: DRAIN command, parameters, output rows
  output logic                 dcmd_valid_o,
  input  logic                 dcmd_ready_i,
  output logic [RowsW-1:0]     dcmd_rows_o,
  output logic [AccAw-1:0]     dcmd_addr_o,
  output logic [1:0]           dcmd_mode_o,
  output logic [2:0]           dcmd_out_fmt_o,
  output logic                 dcmd_relu_o,
  output logic                 dcmd_pack_o,
  output logic [31:0]          dcmd_zp_o,
  output logic [31:0]          dcmd_act_min_o,
  output logic [31:0]          dcmd_act_max_o,
  output logic                 pc_we_o,
  output logic [ColIdxW-1:0]   pc_idx_o,
  output logic [31:0]          pc_bias_o,
  output logic [31:0]          pc_mult_o,
  output logic [5:0]           pc_shift_o,
  input  logic                 o_valid_i,
  output logic                 o_ready_o,
  input  logic [Cols*32-1:0]   o_data_i,
  // completion, error, status
  output logic                 done_valid_o,
  output logic [TagW-1:0]      done_tag_o,
  output logic                 err_valid_o,
  input  logic                 err_ready_i,
  output weft_cmd_err_t        err_o,
  output logic                 busy_o
);

  if (Cols * 8 > DataW || DataW < 128) begin : g_bad_width
    `WEFT_ELAB_ERROR("weft_cmd_store: Cols*8 must fit in a line and DataW >= 128 (a parameter line holds 70 bits)")
  end
  if (DFifo < 4) begin : g_bad_fifo
    `WEFT_ELAB_ERROR("weft_cmd_store: DFifo must be >= 4")
  end

  localparam int PadW = 4 * DataW;                 // an INT32 row is at most 4 beats
  localparam int DcW  = $clog2(DFifo + 1);

  typedef enum logic [2:0] {SIdle, SParams, SReq, SStart, SData, SWaitDone, SFlush, SErr} sstate_e;
  sstate_e state_q, state_d;

  // ---------------------------------------------------------------- start
  weft_desc_transfer_t h_xfer;   // the operands as STORE_SPAD reads them
  assign h_xfer = head_desc_i[0 +: weft_pkg::DescTransferBits];

  logic start;
  assign start = (state_q == SIdle) && head_go_i;
  assign pop_o = start;

  // ---------------------------------------------------------------- running descriptor
  logic              acc_q, acc_d;
  logic [31:0]       idx_q, idx_d;
  weft_dma_req_t     req_q, req_d;
  // STORE_SPAD walk (and the parameter lines): weft_cmd_linewalk
  logic [31:0]       ptr;
  logic              row_end;
  logic [31:0]       row_q, row_d;
  logic              issued_q, issued_d;      // every line requested
  // STORE_ACC
  logic [AccAw-1:0]  acc_addr_q, acc_addr_d;
  logic [1:0]        mode_q, mode_d;
  logic              pack_q, pack_d, lparams_q, lparams_d;
  logic [2:0]        ofmt_q, ofmt_d;
  logic              relu_q, relu_d;
  logic [31:0]       zp_q, zp_d, amin_q, amin_d, amax_q, amax_d;
  logic [2:0]        nbeats_m1_q, nbeats_m1_d;  // beats per output row - 1
  logic [2:0]        beat_q, beat_d;
  logic [RowsW-1:0]  osent_q, osent_d;          // output rows taken from the tensor unit
  logic              dpend_q, dpend_d, dissued_q, dissued_d;
  logic [ColIdxW:0]  preq_q, preq_d, prsp_q, prsp_d;
  // PARAM check
  logic [Cols-1:0]   pbad_q, pbad_d;            // column's shift is -32 or 31 (reset: shift 0)
  logic [Cols-1:0]   ncols_q, ncols_d;          // columns c < n of the running STORE_ACC
  // error
  logic [7:0]        ecode_q, ecode_d;
  logic [63:0]       eaddr_q, eaddr_d;

  // Credits of the STORE_SPAD data FIFO.
  logic [DcW-1:0]   cred_q, cred_d;
  logic             df_valid, df_pop, df_in_ready, df_push;
  logic [DataW-1:0] df_data;
  logic [DcW-1:0]   df_usage;

  logic             s_fire, o_fire, wr_fire, last_beat, rows_all;
  logic             param_err;
  logic [63:0]      param_col;
  logic             shift_bad;
  logic [PadW-1:0]  o_pad;
  assign o_pad     = PadW'(o_data_i);
  assign last_beat = (beat_q == nbeats_m1_q);
  assign rows_all  = (osent_q == RowsW'(req_q.rows));

  // A TFLite-mode STORE_ACC uses a column c < n whose shift is outside [-31, 30]; the lowest one.
  assign param_err = acc_q && (ofmt_q == weft_pkg::FmtInt) && !mode_q[1] &&
                     ((pbad_q & ncols_q) != '0);
  always_comb begin : p_param_col
    param_col = '0;
    for (int c = Cols - 1; c >= 0; c--) begin
      if (pbad_q[c] && ncols_q[c]) param_col = 64'(c);
    end
  end
  // The shift field of the parameter line being written to pc_*: -32 (6'h20) or 31 (6'h1f).
  assign shift_bad = (s_rsp_data_i[69:64] == 6'h20) || (s_rsp_data_i[69:64] == 6'h1f);

  always_comb begin : p_sreq
    s_req_valid_o = 1'b0;
    s_req_addr_o  = ptr;
    if (state_q == SParams) begin
      s_req_valid_o = (preq_q != (ColIdxW + 1)'(Cols));
    end else if (state_q == SData && !acc_q) begin
      s_req_valid_o = !issued_q && (cred_q < DcW'(DFifo));
    end
  end
  assign s_fire = s_req_valid_o && s_req_ready_i;

  // wr0 data
  always_comb begin : p_wr
    wr_valid_o = 1'b0;
    wr_data_o  = df_data;
    o_ready_o  = 1'b0;
    df_pop     = 1'b0;
    if (state_q == SData) begin
      if (acc_q) begin
        wr_valid_o = o_valid_i && !rows_all;
        wr_data_o  = o_pad[32'(beat_q) * DataW +: DataW];
        o_ready_o  = wr_ready_i && last_beat && !rows_all;
      end else begin
        wr_valid_o = df_valid;
        df_pop     = df_valid && wr_ready_i;
      end
    end else if (state_q == SFlush) begin
      o_ready_o = dissued_q && !rows_all;
      df_pop    = df_valid;
    end
  end
  assign wr_fire = wr_valid_o && wr_ready_i;
  assign o_fire  = o_valid_i && o_ready_o;

  // The DMA request is accepted (now or before) and its data not started.
  logic wait_start;
  assign wait_start = (state_q == SStart) || (req_valid_o && req_ready_i);

  always_comb begin : p_next
    state_d     = state_q;
    acc_d       = acc_q;
    idx_d       = idx_q;
    req_d       = req_q;
    row_d       = row_q;
    issued_d    = issued_q;
    acc_addr_d  = acc_addr_q;
    mode_d      = mode_q;
    pack_d      = pack_q;
    ofmt_d      = ofmt_q;
    relu_d      = relu_q;
    lparams_d   = lparams_q;
    zp_d        = zp_q;
    amin_d      = amin_q;
    amax_d      = amax_q;
    nbeats_m1_d = nbeats_m1_q;
    beat_d      = beat_q;
    osent_d     = osent_q;
    dpend_d     = dpend_q;
    dissued_d   = dissued_q;
    preq_d      = preq_q;
    prsp_d      = prsp_q;
    pbad_d      = pbad_q;
    ncols_d     = ncols_q;
    ecode_d     = ecode_q;
    eaddr_d     = eaddr_q;

    // Scratchpad walk (parameter lines or STORE_SPAD lines; the line address is u_walk's).
    if (s_fire) begin
      if (state_q == SParams) begin
        preq_d = preq_q + 1'b1;
      end else if (row_end) begin
        row_d = row_q + 32'd1;
        if (row_q + 32'd1 == req_q.rows) issued_d = 1'b1;
      end
    end
    if (state_q == SParams && s_rsp_valid_i) prsp_d = prsp_q + 1'b1;
    for (int c = 0; c < Cols; c++) begin
      if (pc_we_o && pc_idx_o == ColIdxW'(c)) pbad_d[c] = shift_bad;
    end

    // Output rows of the tensor unit.
    if (o_fire) osent_d = osent_q + 1'b1;
    if (state_q == SData && acc_q && wr_fire) beat_d = last_beat ? 3'd0 : beat_q + 3'd1;
    if (dcmd_valid_o && dcmd_ready_i) begin
      dpend_d   = 1'b0;
      dissued_d = 1'b1;
    end

    unique case (state_q)
      SIdle: begin
        if (start) begin
          acc_d      = head_acc_i;
          idx_d      = head_idx_i;
          req_d.addr = h_xfer.host_addr;  // STORE_ACC's host_addr: the same bits
          issued_d   = 1'b0;
          row_d      = '0;
          beat_d     = '0;
          osent_d    = '0;
          dpend_d    = 1'b0;
          dissued_d  = 1'b0;
          preq_d     = '0;
          prsp_d     = '0;
          if (head_acc_i) begin
            req_d.stride    = head_desc_i.host_stride;
            req_d.rows      = head_desc_i.m;
            req_d.row_bytes = weft_pkg::sacc_row_bytes(head_desc_i.pack, head_desc_i.out_fmt,
                                                       head_desc_i.n);
            acc_addr_d  = AccAw'(head_desc_i.acc_addr);
            nbeats_m1_d = 3'((req_d.row_bytes + 32'(BB - 1)) >> BbW) - 3'd1;
            mode_d      = head_desc_i.mode;
            pack_d      = head_desc_i.pack;
            ofmt_d      = head_desc_i.out_fmt;
            relu_d      = head_desc_i.relu;
            lparams_d   = head_desc_i.load_params;
            zp_d        = head_desc_i.zp;
            amin_d      = head_desc_i.act_min;
            amax_d      = head_desc_i.act_max;
            // n <= Cols (SIZE at decode): its low ColIdxW+1 bits are n.
            for (int c = 0; c < Cols; c++) ncols_d[c] = ((ColIdxW + 1)'(c) < head_desc_i.n[ColIdxW:0]);
            state_d     = head_desc_i.load_params ? SParams : SReq;
          end else begin
            req_d.stride    = h_xfer.host_stride;
            req_d.rows      = h_xfer.rows;
            req_d.row_bytes = h_xfer.row_bytes;
            state_d         = SReq;
          end
        end
      end
      SParams: begin
        if (prsp_d == (ColIdxW + 1)'(Cols)) state_d = SReq;
      end
      SReq: begin
        if (param_err) begin
          ecode_d = weft_pkg::ErrParam;
          eaddr_d = param_col;
          state_d = SErr;
        end else if (req_ready_i) begin
          dpend_d = acc_q;
          state_d = SStart;
        end
      end
      SStart: ;
      SData: begin
        if (acc_q ? (osent_d == RowsW'(req_q.rows)) : (issued_q && cred_d == '0)) state_d = SWaitDone;
      end
      SWaitDone: begin
        if (dma_done_i) state_d = SIdle;
      end
      SFlush: begin
        // Drop a DRAIN not yet issued; take every row of an issued one; take back the reads.
        dpend_d = 1'b0;
        if ((acc_q ? (!dissued_d || osent_d == RowsW'(req_q.rows)) : (cred_d == '0))) state_d = SErr;
      end
      SErr: begin
        if (err_ready_i) state_d = SIdle;
      end
      default: state_d = SIdle;
    endcase
    // The DMA's wr_start, and its end of the request: at the earliest with the request's
    // acceptance (failed checks); before the data is sent only with an error, which flushes.
    if (wait_start && start_i) begin
      state_d = SData;
    end else if (dma_done_i && (wait_start || state_q == SData ||
                                (state_q == SWaitDone && dma_err_i != weft_pkg::ErrNone))) begin
      ecode_d = dma_err_i;
      eaddr_d = dma_addr_i;
      state_d = (state_q == SWaitDone) ? SErr : SFlush;
    end
    if (clear_i) begin
      state_d = SIdle;
      dpend_d = 1'b0;
    end
  end

  // STORE_SPAD data FIFO (responses of port S outside SParams).
  assign df_push = s_rsp_valid_i && (state_q != SParams);
  assign cred_d  = cred_q + DcW'(s_fire && state_q != SParams) - DcW'(df_pop);

  weft_fifo #(.Width(DataW), .Depth(DFifo)) u_dfifo (
    .clk_i, .rst_ni, .flush_i (clear_i),
    .in_valid_i  (df_push),
    .in_ready_o  (df_in_ready),
    .in_data_i   (s_rsp_data_i),
    .out_valid_o (df_valid),
    .out_ready_i (df_pop),
    .out_data_o  (df_data),
    .usage_o     (df_usage)
  );

  always_ff @(posedge clk_i or negedge rst_ni) begin : p_regs
    if (!rst_ni) begin
      state_q <= SIdle;
      cred_q  <= '0;
      dpend_q <= 1'b0;
      pbad_q  <= '0;
    end else begin
      state_q <= state_d;
      cred_q  <= cred_d;
      dpend_q <= dpend_d;
      pbad_q  <= pbad_d;
    end
  end

  always_ff @(posedge clk_i) begin : p_data
    acc_q       <= acc_d;
    idx_q       <= idx_d;
    req_q       <= req_d;
    row_q       <= row_d;
    issued_q    <= issued_d;
    acc_addr_q  <= acc_addr_d;
    mode_q      <= mode_d;
    pack_q      <= pack_d;
    ofmt_q      <= ofmt_d;
    relu_q      <= relu_d;
    lparams_q   <= lparams_d;
    zp_q        <= zp_d;
    amin_q      <= amin_d;
    amax_q      <= amax_d;
    nbeats_m1_q <= nbeats_m1_d;
    beat_q      <= beat_d;
    osent_q     <= osent_d;
    dissued_q   <= dissued_d;
    preq_q      <= preq_d;
    prsp_q      <= prsp_d;
    ncols_q     <= ncols_d;
    ecode_q     <= ecode_d;
    eaddr_q     <= eaddr_d;
  end

  // Port S lines: STORE_SPAD row r, chunk c at spad_addr + r*spad_stride + c; STORE_ACC's
  // parameter lines params_addr + c (one endless row).
  weft_cmd_linewalk u_walk (
    .clk_i,
    .load_i     (start),
    .base_i     (head_acc_i ? head_desc_i.params_addr : h_xfer.spad_addr),
    .stride_i   (h_xfer.spad_stride),
    .lines_m1_i (head_acc_i ? '1 : (h_xfer.row_bytes >> BbW) - 32'd1),
    .step_i     (s_fire),
    .ptr_o      (ptr),
    .row_end_o  (row_end)
  );

  assign req_valid_o = (state_q == SReq) && !param_err;
  assign req_o       = req_q;

  assign dcmd_valid_o   = dpend_q;
  assign dcmd_rows_o    = RowsW'(req_q.rows);
  assign dcmd_addr_o    = acc_addr_q;
  assign dcmd_mode_o    = mode_q;
  assign dcmd_pack_o    = pack_q;
  assign dcmd_out_fmt_o = ofmt_q;
  assign dcmd_relu_o    = relu_q;
  assign dcmd_zp_o      = zp_q;
  assign dcmd_act_min_o = amin_q;
  assign dcmd_act_max_o = amax_q;

  assign pc_we_o    = (state_q == SParams) && s_rsp_valid_i;
  assign pc_idx_o   = ColIdxW'(prsp_q);
  assign pc_bias_o  = s_rsp_data_i[31:0];
  assign pc_mult_o  = s_rsp_data_i[63:32];
  // Clamped to [-31, 30]: -32 -> -31, 31 -> 30 (such a column raises PARAM when it is used).
  always_comb begin : p_pc_shift
    pc_shift_o = s_rsp_data_i[69:64];
    if (s_rsp_data_i[69:64] == 6'h20) pc_shift_o = 6'h21;
    if (s_rsp_data_i[69:64] == 6'h1f) pc_shift_o = 6'h1e;
  end

  assign done_valid_o = (state_q == SWaitDone) && dma_done_i && (dma_err_i == weft_pkg::ErrNone);
  assign done_tag_o   = TagW'(idx_q);

  assign err_valid_o = (state_q == SErr);
  assign err_o       = {ecode_q, idx_q, eaddr_q};

  assign busy_o = (state_q != SIdle);

`ifndef SYNTHESIS
  always @(posedge clk_i or negedge rst_ni) begin : p_checks
    if (rst_ni) begin
      if (df_push) assert (df_in_ready) else $error("weft_cmd_store: data FIFO overflow");
      assert (df_usage <= cred_q) else $error("weft_cmd_store: FIFO holds more than its credits");
      if (start_i) assert (wait_start)
        else $error("weft_cmd_store: unexpected wr_start");
      if (dma_done_i) begin
        assert (state_q == SStart || state_q == SData || state_q == SWaitDone ||
                (state_q == SReq && req_ready_i))
          else $error("weft_cmd_store: unexpected wr_done");
        if (state_q == SData) assert (dma_err_i != weft_pkg::ErrNone)
          else $error("weft_cmd_store: wr_done without error before the data was sent");
      end
      if (o_valid_i) assert (acc_q && dissued_q && !rows_all &&
                             (state_q == SStart || state_q == SData || state_q == SFlush))
        else $error("weft_cmd_store: tensor unit output outside a STORE_ACC");
    end
  end
`endif

endmodule
