// weft_cmd: the command processor (docs/cmd.md). Fetches descriptors from the ring in host
// memory, validates them, dispatches them in ring order to the load, compute and store engines
// (which run concurrently, each in ring order, gated by dependencies), retires them in order
// through a ROB of Inflight entries, writes the completion record, raises interrupts, records
// the first error (in ring order) and resets the queue on request; also the performance
// counters.
//
//   weft_cmd_fetch   ring -> beat buffer (DMA rd0)
//   weft_cmd_decode  descriptor checks, WAIT_* flags -> dependencies, dispatch
//   weft_cmd_rob     in-flight entries, in-order retire, error register (weft_cmd_err_t reports)
//   weft_cmd_equeue  one per engine (g_queue): its descriptors in ring order, may the head start
//   weft_cmd_load    LOAD: DMA rd1 -> scratchpad write port (weft_cmd_linewalk)
//   weft_cmd_compute COMPUTE: scratchpad ports A, W (two weft_cmd_walker) -> tensor unit a_*,
//                    w_*, COMPUTE commands
//   weft_cmd_store   STORE_SPAD / STORE_ACC: port S (weft_cmd_linewalk) / tensor unit o_* ->
//                    DMA wr0; pc_*, DRAIN
//   weft_cmd_simt    SIMT_LAUNCH: starts the SIMT core (simt_*: the SIMT queue's head)
//   weft_cmd_tumux   tensor unit command port shared by compute (COMPUTE) and store (DRAIN)
//   weft_cmd_cpl     completion record (DMA wr1), interrupt sources
//   weft_cmd_perf    PERF_* counters
// Queue reset (CTRL.qreset): new fetches, dispatches and engine starts stop; once nothing runs
// (engines, tensor unit, DMA, completion writer idle, error reports taken) head, completed
// count, error, ROB, engine queues, decoder and fetch buffer are cleared and the doorbell count
// returns to 0. Windows, ring configuration and scratchpad are kept.
`include "weft_assert.svh"
`include "weft_cmd_types.svh"
`include "weft_desc.svh"
`include "weft_dma_types.svh"

module weft_cmd #(
  parameter int  Rows      = 16,
  parameter int  Cols      = 16,
  parameter int  AccDepth  = 512,
  parameter int  DataW     = 128,
  parameter int  SpadLines = 16384,
  parameter int  NumWin    = 4,
  parameter int  Inflight  = 16,
  parameter int  SimtWarps = 4,          // 0: no SIMT core (SIMT_LAUNCH is an unknown opcode)
  parameter int  SimtThreads = 8,
  parameter int  SimtDmemLines = 16384,  // SIMT data memory in lines
  parameter int  SimtImemLines = 1024,   // SIMT instruction memory in lines
  parameter bit  TensorFp  = 1'b1,       // the tensor unit has its FP8 and BF16 modes
  localparam int ElemW     = TensorFp ? weft_fp_pkg::FpElemW : 8,  // operand bus bits / element
  localparam int BB        = DataW / 8,
  localparam int LineAw    = $clog2(SpadLines),
  localparam int AccAw     = $clog2(AccDepth),
  localparam int RowsW     = AccAw + 1,
  localparam int ColIdxW   = (Cols > 1) ? $clog2(Cols) : 1,
  localparam int WrBytesW  = $clog2(BB + 1),
  localparam int NumCtr    = 16,
  localparam int ReqW      = $bits(weft_dma_req_t'(0)),
  localparam int ErrW      = $bits(weft_cmd_err_t'(0))
) (
  input  logic                   clk_i,
  input  logic                   rst_ni,
  // configuration and control (weft_csr)
  input  logic                   cfg_enable_i,
  input  logic                   cfg_qreset_i,
  input  logic                   cfg_perf_clear_i,
  input  logic [63:0]            cfg_ring_base_i,
  input  logic [4:0]             cfg_ring_log2_i,
  input  logic [31:0]            cfg_tail_i,
  input  logic                   cfg_tail_wr_i,
  input  logic [63:0]            cfg_cpl_addr_i,
  input  logic [NumWin*64-1:0]   cfg_win_base_i,
  input  logic [NumWin*64-1:0]   cfg_win_limit_i,
  input  logic [NumWin-1:0]      cfg_win_read_i,
  input  logic [NumWin-1:0]      cfg_win_write_i,
  // status (weft_csr)
  output logic                   st_idle_o,
  output logic                   st_error_o,
  output logic                   st_reset_busy_o,
  output logic [7:0]             st_err_code_o,
  output logic [31:0]            st_err_index_o,
  output logic [63:0]            st_err_addr_o,
  output logic [31:0]            st_head_o,
  output logic [31:0]            st_completed_o,
  output logic                   irq_done_set_o,
  output logic                   irq_error_set_o,
  output logic [NumCtr*32-1:0]   perf_lo_o,
  output logic [NumCtr*32-1:0]   perf_hi_o,
  input  logic [NumCtr-1:0]      perf_lo_rd_i,
  // DMA read clients (0 fetch, 1 load)
  output logic [1:0]             dma_rd_req_valid_o,
  input  logic [1:0]             dma_rd_req_ready_i,
  output logic [2*ReqW-1:0]      dma_rd_req_o,  // weft_dma_req_t per client
  input  logic [1:0]             dma_rd_valid_i,
  output logic [1:0]             dma_rd_ready_o,
  input  logic [DataW-1:0]       dma_rd_data_i,
  input  logic                   dma_rd_last_i,
  input  logic [1:0]             dma_rd_done_valid_i,
  input  logic [2*8-1:0]         dma_rd_done_err_i,
  input  logic [2*64-1:0]        dma_rd_done_addr_i,
  // DMA write clients (0 store, 1 completion)
  output logic [1:0]             dma_wr_req_valid_o,
  input  logic [1:0]             dma_wr_req_ready_i,
  output logic [2*ReqW-1:0]      dma_wr_req_o,  // weft_dma_req_t per client
  input  logic [1:0]             dma_wr_start_i,
  output logic [1:0]             dma_wr_valid_o,
  input  logic [1:0]             dma_wr_ready_i,
  output logic [2*DataW-1:0]     dma_wr_data_o,
  input  logic [1:0]             dma_wr_done_valid_i,
  input  logic [2*8-1:0]         dma_wr_done_err_i,
  input  logic [2*64-1:0]        dma_wr_done_addr_i,
  // DMA status
  input  logic                   dma_busy_i,
  input  logic                   dma_stat_rd_beat_i,
  input  logic                   dma_stat_wr_beat_i,
  input  logic [WrBytesW-1:0]    dma_stat_wr_bytes_i,
  input  logic                   dma_stat_rd_stall_i,
  input  logic                   dma_stat_wr_stall_i,
  // scratchpad (read ports: 0 A, 1 W, 2 store); 32-bit line addresses: the write port and read
  // port 2 (LOAD / STORE_SPAD) reach every region of docs/programming-model.md, ports 0 and 1
  // (COMPUTE) only the scratchpad.
  output logic                   sp_wr_valid_o,
  output logic [31:0]            sp_wr_addr_o,
  output logic [DataW-1:0]       sp_wr_data_o,
  input  logic                   sp_wr_ready_i,
  output logic [2:0]             sp_rd_req_valid_o,
  input  logic [2:0]             sp_rd_req_ready_i,
  output logic [3*32-1:0]        sp_rd_req_addr_o,
  input  logic [2:0]             sp_rd_rsp_valid_i,
  input  logic [3*DataW-1:0]     sp_rd_rsp_data_i,
  // tensor unit
  output logic                   tu_cmd_valid_o,
  input  logic                   tu_cmd_ready_i,
  output logic                   tu_cmd_op_o,
  output logic [RowsW-1:0]       tu_cmd_rows_o,
  output logic [AccAw-1:0]       tu_cmd_addr_o,
  output logic                   tu_cmd_accumulate_o,
  output logic                   tu_cmd_wreuse_o,
  output logic                   tu_cmd_a_signed_o,
  output logic [7:0]             tu_cmd_a_zp_o,
  output logic [2:0]             tu_cmd_a_fmt_o,
  output logic [1:0]             tu_cmd_mode_o,
  output logic                   tu_cmd_pack_o,
  output logic [2:0]             tu_cmd_out_fmt_o,
  output logic                   tu_cmd_relu_o,
  output logic [31:0]            tu_cmd_zp_o,
  output logic [31:0]            tu_cmd_act_min_o,
  output logic [31:0]            tu_cmd_act_max_o,
  output logic                   tu_w_valid_o,
  input  logic                   tu_w_ready_i,
  output logic [Cols*ElemW-1:0]  tu_w_data_o,
  output logic                   tu_w_last_o,
  output logic                   tu_w_signed_o,
  output logic [7:0]             tu_w_zp_o,
  output logic [2:0]             tu_w_fmt_o,
  output logic                   tu_a_valid_o,
  input  logic                   tu_a_ready_i,
  output logic [Rows*ElemW-1:0]  tu_a_data_o,
  output logic                   tu_pc_we_o,
  output logic [ColIdxW-1:0]     tu_pc_idx_o,
  output logic [31:0]            tu_pc_bias_o,
  output logic [31:0]            tu_pc_mult_o,
  output logic [5:0]             tu_pc_shift_o,
  input  logic                   tu_o_valid_i,
  output logic                   tu_o_ready_o,
  input  logic [Cols*32-1:0]     tu_o_data_i,
  input  logic                   tu_busy_i,
  input  logic                   tu_stat_array_row_i,
  input  logic                   tu_stat_wait_w_i,
  input  logic                   tu_stat_wait_a_i,
  input  logic                   tu_stat_wait_drain_i,
  // SIMT core launch port
  output logic                   simt_start_o,
  output logic [31:0]            simt_pc_o,
  output logic [31:0]            simt_num_warps_o,
  output logic [31:0]            simt_threads_o,
  output logic [31:0]            simt_block_id_o,
  output logic [31:0]            simt_arg_ptr_o,
  output logic [31:0]            simt_stack_top_o,
  output logic [31:0]            simt_stack_size_o,
  output logic [31:0]            simt_max_issues_o,
  input  logic                   simt_busy_i,
  input  logic                   simt_done_i,
  input  logic [7:0]             simt_err_code_i,
  input  logic [31:0]            simt_err_pc_i,
  input  logic [31:0]            simt_err_thread_i,
  // uncorrectable memory errors (weft_ecc_status): code and address, held until taken
  input  logic                   mem_err_valid_i,
  output logic                   mem_err_ready_o,
  input  logic [7:0]             mem_err_code_i,
  input  logic [63:0]            mem_err_addr_i
);

  if (SpadLines < 2 || (1 << LineAw) != SpadLines) begin : g_bad_lines
    `WEFT_ELAB_ERROR("weft_cmd: SpadLines must be a power of two")
  end
  if (AccDepth < 4 || (1 << AccAw) != AccDepth) begin : g_bad_acc
    `WEFT_ELAB_ERROR("weft_cmd: AccDepth must be a power of two >= 4")
  end

  localparam int TagW   = $clog2(Inflight);
  // Engines, by bit of the one-hot dispatch, queue-ready and done vectors (weft_cmd_decode order).
  localparam int EngLoad    = 0;
  localparam int EngCompute = 1;
  localparam int EngStore   = 2;
  localparam int EngSimt    = 3;
  localparam int NumEng     = 4;
  // Error sources, by slot of the e_* vectors; the ROB records the lowest slot's report first.
  localparam int ErrFromLoad   = 0;
  localparam int ErrFromStore  = 1;
  localparam int ErrFromCpl    = 2;   // completion-record write
  localparam int ErrFromDecode = 3;
  localparam int ErrFromFetch  = 4;
  localparam int ErrFromSimt   = 5;
  localparam int ErrFromMem    = 6;   // an uncorrectable ECC error (weft_ecc_status)
  localparam int NumErr        = 7;

  // ---------------------------------------------------------------- queue control
  logic        reset_pend_q, reset_pend_d, clear;
  logic [31:0] tail_q, tail_d;
  logic        quiet;

  logic [31:0]         rptr, wptr;
  logic [Inflight-1:0] rob_done;
  logic                rob_space, rob_empty, retire, retire_irq;
  logic                err_valid, err_new;
  weft_cmd_err_t       err;          // the recorded error (valid with err_valid)

  logic [NumErr-1:0]    e_valid, e_ready;
  logic [NumErr*ErrW-1:0] e_rep;   // weft_cmd_err_t per source

  logic f_busy, f_empty, d_empty, cpl_busy, cpl_reset_busy;
  logic [NumEng-1:0] eng_busy;   // by engine (EngLoad ...)

  assign quiet = !f_busy && (eng_busy == '0) && !cpl_busy && !tu_busy_i && !dma_busy_i &&
                 (e_valid == '0);
  assign clear = reset_pend_q && quiet;

  always_comb begin : p_ctl
    reset_pend_d = reset_pend_q;
    tail_d       = tail_q;
    if (clear) begin
      reset_pend_d = 1'b0;
      tail_d       = '0;
    end
    if (cfg_qreset_i) reset_pend_d = 1'b1;
    if (cfg_tail_wr_i) tail_d = cfg_tail_i;
  end

  always_ff @(posedge clk_i or negedge rst_ni) begin : p_ctl_regs
    if (!rst_ni) begin
      reset_pend_q <= 1'b0;
      tail_q       <= '0;
    end else begin
      reset_pend_q <= reset_pend_d;
      tail_q       <= tail_d;
    end
  end

  // ---------------------------------------------------------------- fetch
  logic             fb_valid, fb_ready;
  logic [DataW-1:0] fb_data;

  weft_cmd_fetch #(.DataW(DataW)) u_fetch (
    .clk_i,
    .rst_ni,
    .clear_i         (clear),
    .enable_i        (cfg_enable_i),
    .block_i         (reset_pend_q || err_valid),
    .ring_base_i     (cfg_ring_base_i),
    .ring_log2_i     (cfg_ring_log2_i),
    .tail_i          (tail_q),
    .head_o          (st_head_o),
    .busy_o          (f_busy),
    .empty_o         (f_empty),
    .req_valid_o     (dma_rd_req_valid_o[0]),
    .req_ready_i     (dma_rd_req_ready_i[0]),
    .req_o           (dma_rd_req_o[0 +: ReqW]),
    .rd_valid_i      (dma_rd_valid_i[0]),
    .rd_ready_o      (dma_rd_ready_o[0]),
    .rd_data_i       (dma_rd_data_i),
    .rd_last_i       (dma_rd_last_i),
    .done_valid_i    (dma_rd_done_valid_i[0]),
    .done_err_i      (dma_rd_done_err_i[0 +: 8]),
    .done_addr_i     (dma_rd_done_addr_i[0 +: 64]),
    .out_valid_o     (fb_valid),
    .out_ready_i     (fb_ready),
    .out_data_o      (fb_data),
    .err_valid_o     (e_valid[ErrFromFetch]),
    .err_ready_i     (e_ready[ErrFromFetch]),
    .err_o           (e_rep[ErrFromFetch*ErrW +: ErrW])
  );

  // ---------------------------------------------------------------- decode, dispatch
  logic           disp_valid, disp_irq;
  logic [3:0]     disp_engine, q_ready;
  logic [7:0]     disp_op;
  logic [31:0]    disp_idx;
  logic [39:0]    disp_deps;
  logic [weft_pkg::DescOperandWords*32-1:0] disp_words;  // words 2.. (weft_desc.svh layouts)

  weft_cmd_decode #(
    .DataW(DataW), .Rows(Rows), .Cols(Cols), .AccDepth(AccDepth), .SpadLines(SpadLines),
    .NumWin(NumWin), .SimtWarps(SimtWarps), .SimtThreads(SimtThreads),
    .SimtDmemLines(SimtDmemLines), .SimtImemLines(SimtImemLines), .TensorFp(TensorFp)
  ) u_decode (
    .clk_i,
    .rst_ni,
    .clear_i       (clear),
    .in_valid_i    (fb_valid),
    .in_ready_o    (fb_ready),
    .in_data_i     (fb_data),
    .ring_base_i   (cfg_ring_base_i),
    .ring_log2_i   (cfg_ring_log2_i),
    .win_base_i    (cfg_win_base_i),
    .win_limit_i   (cfg_win_limit_i),
    .win_read_i    (cfg_win_read_i),
    .win_write_i   (cfg_win_write_i),
    .go_i          (cfg_enable_i && !reset_pend_q),
    .idx_i         (wptr),
    .rptr_i        (rptr),
    .rob_space_i   (rob_space),
    .rob_empty_i   (rob_empty),
    .err_valid_i   (err_valid),
    .err_idx_i     (err.idx),
    .q_ready_i     (q_ready),
    .disp_valid_o  (disp_valid),
    .disp_engine_o (disp_engine),
    .disp_op_o     (disp_op),
    .disp_irq_o    (disp_irq),
    .disp_idx_o    (disp_idx),
    .disp_deps_o   (disp_deps),
    .disp_words_o  (disp_words),
    .empty_o       (d_empty),
    .err_valid_o   (e_valid[ErrFromDecode]),
    .err_ready_i   (e_ready[ErrFromDecode]),
    .err_o         (e_rep[ErrFromDecode*ErrW +: ErrW])
  );

  // ---------------------------------------------------------------- ROB, error register
  logic [3:0]        done_valid;
  logic [4*TagW-1:0] done_tag;

  weft_cmd_rob #(.Inflight(Inflight), .NumDone(4), .NumErr(NumErr)) u_rob (
    .clk_i,
    .rst_ni,
    .clear_i      (clear),
    .alloc_i      (disp_valid),
    .alloc_irq_i  (disp_irq),
    .alloc_done_i (disp_engine == 4'b0000),
    .done_valid_i (done_valid),
    .done_tag_i   (done_tag),
    .wptr_o       (wptr),
    .rptr_o       (rptr),
    .done_o       (rob_done),
    .space_o      (rob_space),
    .empty_o      (rob_empty),
    .retire_o     (retire),
    .retire_irq_o (retire_irq),
    .err_valid_i  (e_valid),
    .err_ready_o  (e_ready),
    .err_i        (e_rep),
    .err_valid_o  (err_valid),
    .err_o        (err),
    .err_new_o    (err_new)
  );

  // ---------------------------------------------------------------- memory errors
  // An uncorrectable ECC error belongs to no descriptor of its own: it is recorded for the oldest
  // one not retired after this cycle's retirement, so the queue stops before anything that may
  // have used the data retires (docs/cmd.md, "Errors").
  weft_cmd_err_t mem_err;
  assign mem_err.code                   = mem_err_code_i;
  assign mem_err.idx                    = retire ? rptr + 32'd1 : rptr;
  assign mem_err.addr                   = mem_err_addr_i;
  assign e_valid[ErrFromMem]            = mem_err_valid_i;
  assign e_rep[ErrFromMem*ErrW +: ErrW] = mem_err;
  assign mem_err_ready_o                = e_ready[ErrFromMem];

  // ---------------------------------------------------------------- engine queues
  // One weft_cmd_equeue per engine, in front of it: dispatched descriptors in ring order; the
  // engine is handed the head and pops it when it starts it.
  logic [NumEng-1:0]    q_go, q_pop, q_empty, q_wait;
  logic [NumEng*32-1:0] q_idx;
  weft_desc_transfer_t    q_load;
  weft_desc_compute_t     q_comp;
  weft_desc_store_acc_t   q_store;
  logic                   q_store_acc;   // STORE_ACC (else STORE_SPAD)
  weft_desc_simt_launch_t q_simt;

  for (genvar e = 0; e < NumEng; e++) begin : g_queue
    // The operand layout each engine takes (the store engine's with its STORE_ACC flag).
    localparam int PayloadW = (e == EngLoad)    ? weft_pkg::DescTransferBits :
                              (e == EngCompute) ? weft_pkg::DescComputeBits :
                              (e == EngStore)   ? 1 + weft_pkg::DescStoreAccBits :
                                                  weft_pkg::DescSimtLaunchBits;
    logic [PayloadW-1:0] push_payload, head_payload;

    if (e == EngStore) begin : g_acc
      assign push_payload = {disp_op == weft_pkg::OpStoreAcc, disp_words[0 +: PayloadW-1]};
    end else begin : g_plain
      assign push_payload = disp_words[0 +: PayloadW];
    end
    if (e == EngLoad) begin : g_load
      assign q_load = head_payload;
    end else if (e == EngCompute) begin : g_comp
      assign q_comp = head_payload;
    end else if (e == EngStore) begin : g_store
      assign {q_store_acc, q_store} = head_payload;
    end else begin : g_simt
      assign q_simt = head_payload;
    end

    weft_cmd_equeue #(.Inflight(Inflight), .QDepth((e == EngSimt) ? 2 : 4),
                      .PayloadW(PayloadW)) u_queue (
      .clk_i,
      .rst_ni,
      .clear_i        (clear),
      .hold_i         (reset_pend_q),
      .push_i         (disp_valid && disp_engine[e]),
      .push_idx_i     (disp_idx),
      .push_deps_i    (disp_deps),
      .push_payload_i (push_payload),
      .q_ready_o      (q_ready[e]),
      .rptr_i         (rptr),
      .rob_done_i     (rob_done),
      .err_valid_i    (err_valid),
      .err_idx_i      (err.idx),
      .busy_i         (eng_busy[e]),
      .head_go_o      (q_go[e]),
      .head_idx_o     (q_idx[e*32 +: 32]),
      .head_payload_o (head_payload),
      .pop_i          (q_pop[e]),
      .empty_o        (q_empty[e]),
      .wait_dep_o     (q_wait[e])
    );
  end

  // ---------------------------------------------------------------- engines
  weft_cmd_load #(.DataW(DataW), .Inflight(Inflight)) u_load (
    .clk_i,
    .rst_ni,
    .clear_i         (clear),
    .head_go_i       (q_go[EngLoad]),
    .head_idx_i      (q_idx[EngLoad*32 +: 32]),
    .head_desc_i     (q_load),
    .pop_o           (q_pop[EngLoad]),
    .req_valid_o     (dma_rd_req_valid_o[1]),
    .req_ready_i     (dma_rd_req_ready_i[1]),
    .req_o           (dma_rd_req_o[ReqW +: ReqW]),
    .rd_valid_i      (dma_rd_valid_i[1]),
    .rd_ready_o      (dma_rd_ready_o[1]),
    .rd_data_i       (dma_rd_data_i),
    .dma_done_i      (dma_rd_done_valid_i[1]),
    .dma_err_i       (dma_rd_done_err_i[8 +: 8]),
    .dma_addr_i      (dma_rd_done_addr_i[64 +: 64]),
    .sp_wr_valid_o,
    .sp_wr_addr_o,
    .sp_wr_data_o,
    .sp_wr_ready_i,
    .done_valid_o    (done_valid[EngLoad]),
    .done_tag_o      (done_tag[EngLoad*TagW +: TagW]),
    .err_valid_o     (e_valid[ErrFromLoad]),
    .err_ready_i     (e_ready[ErrFromLoad]),
    .err_o           (e_rep[ErrFromLoad*ErrW +: ErrW]),
    .busy_o          (eng_busy[EngLoad])
  );

  logic             cc_valid, cc_ready, cc_acc, cc_sgn;
  logic [RowsW-1:0] cc_rows;
  logic [AccAw-1:0] cc_addr;
  logic [7:0]       cc_zp;
  logic [2:0]       cc_fmt;

  logic [LineAw-1:0] sp_a_addr, sp_w_addr;
  assign sp_rd_req_addr_o[0 +: 32]  = 32'(sp_a_addr);
  assign sp_rd_req_addr_o[32 +: 32] = 32'(sp_w_addr);

  weft_cmd_compute #(
    .Rows(Rows), .Cols(Cols), .AccDepth(AccDepth), .DataW(DataW), .SpadLines(SpadLines),
    .Inflight(Inflight), .TensorFp(TensorFp)
  ) u_compute (
    .clk_i,
    .rst_ni,
    .clear_i          (clear),
    .head_go_i        (q_go[EngCompute]),
    .head_idx_i       (q_idx[EngCompute*32 +: 32]),
    .head_desc_i      (q_comp),
    .pop_o            (q_pop[EngCompute]),
    .a_req_valid_o    (sp_rd_req_valid_o[0]),
    .a_req_ready_i    (sp_rd_req_ready_i[0]),
    .a_req_addr_o     (sp_a_addr),
    .a_rsp_valid_i    (sp_rd_rsp_valid_i[0]),
    .a_rsp_data_i     (sp_rd_rsp_data_i[0 +: DataW]),
    .w_req_valid_o    (sp_rd_req_valid_o[1]),
    .w_req_ready_i    (sp_rd_req_ready_i[1]),
    .w_req_addr_o     (sp_w_addr),
    .w_rsp_valid_i    (sp_rd_rsp_valid_i[1]),
    .w_rsp_data_i     (sp_rd_rsp_data_i[DataW +: DataW]),
    .cmd_valid_o      (cc_valid),
    .cmd_ready_i      (cc_ready),
    .cmd_rows_o       (cc_rows),
    .cmd_addr_o       (cc_addr),
    .cmd_accumulate_o (cc_acc),
    .cmd_a_signed_o   (cc_sgn),
    .cmd_a_zp_o       (cc_zp),
    .cmd_a_fmt_o      (cc_fmt),
    .tw_valid_o       (tu_w_valid_o),
    .tw_ready_i       (tu_w_ready_i),
    .tw_data_o        (tu_w_data_o),
    .tw_last_o        (tu_w_last_o),
    .tw_signed_o      (tu_w_signed_o),
    .tw_zp_o          (tu_w_zp_o),
    .tw_fmt_o         (tu_w_fmt_o),
    .ta_valid_o       (tu_a_valid_o),
    .ta_ready_i       (tu_a_ready_i),
    .ta_data_o        (tu_a_data_o),
    .done_valid_o     (done_valid[EngCompute]),
    .done_tag_o       (done_tag[EngCompute*TagW +: TagW]),
    .busy_o           (eng_busy[EngCompute])
  );

  logic             dc_valid, dc_ready, dc_pack, dc_relu;
  logic [2:0]       dc_ofmt;
  logic [RowsW-1:0] dc_rows;
  logic [AccAw-1:0] dc_addr;
  logic [1:0]       dc_mode;
  logic [31:0]      dc_zp, dc_min, dc_max;

  // The tensor unit's output rows reach the store engine through a register slice: the engine's
  // o_ready depends on the DMA write queue's room, and the rows feed that queue, so without it one
  // cycle ran from the accumulators through the requantizer and the engine into the DMA
  // (docs/fpga.md). The engine counts rows, so the slice changes nothing but one cycle of latency.
  logic               so_valid, so_ready;
  logic [Cols*32-1:0] so_data;

  weft_spill_register #(.Width(Cols * 32)) u_tu_out_slice (
    .clk_i,
    .rst_ni,
    .in_valid_i  (tu_o_valid_i),
    .in_ready_o  (tu_o_ready_o),
    .in_data_i   (tu_o_data_i),
    .out_valid_o (so_valid),
    .out_ready_i (so_ready),
    .out_data_o  (so_data)
  );

  weft_cmd_store #(
    .Cols(Cols), .AccDepth(AccDepth), .DataW(DataW), .Inflight(Inflight)
  ) u_store (
    .clk_i,
    .rst_ni,
    .clear_i         (clear),
    .head_go_i       (q_go[EngStore]),
    .head_idx_i      (q_idx[EngStore*32 +: 32]),
    .head_desc_i     (q_store),
    .head_acc_i      (q_store_acc),
    .pop_o           (q_pop[EngStore]),
    .s_req_valid_o   (sp_rd_req_valid_o[2]),
    .s_req_ready_i   (sp_rd_req_ready_i[2]),
    .s_req_addr_o    (sp_rd_req_addr_o[2*32 +: 32]),
    .s_rsp_valid_i   (sp_rd_rsp_valid_i[2]),
    .s_rsp_data_i    (sp_rd_rsp_data_i[2*DataW +: DataW]),
    .req_valid_o     (dma_wr_req_valid_o[0]),
    .req_ready_i     (dma_wr_req_ready_i[0]),
    .req_o           (dma_wr_req_o[0 +: ReqW]),
    .start_i         (dma_wr_start_i[0]),
    .wr_valid_o      (dma_wr_valid_o[0]),
    .wr_ready_i      (dma_wr_ready_i[0]),
    .wr_data_o       (dma_wr_data_o[0 +: DataW]),
    .dma_done_i      (dma_wr_done_valid_i[0]),
    .dma_err_i       (dma_wr_done_err_i[0 +: 8]),
    .dma_addr_i      (dma_wr_done_addr_i[0 +: 64]),
    .dcmd_valid_o    (dc_valid),
    .dcmd_ready_i    (dc_ready),
    .dcmd_rows_o     (dc_rows),
    .dcmd_addr_o     (dc_addr),
    .dcmd_mode_o     (dc_mode),
    .dcmd_pack_o     (dc_pack),
    .dcmd_out_fmt_o  (dc_ofmt),
    .dcmd_relu_o     (dc_relu),
    .dcmd_zp_o       (dc_zp),
    .dcmd_act_min_o  (dc_min),
    .dcmd_act_max_o  (dc_max),
    .pc_we_o         (tu_pc_we_o),
    .pc_idx_o        (tu_pc_idx_o),
    .pc_bias_o       (tu_pc_bias_o),
    .pc_mult_o       (tu_pc_mult_o),
    .pc_shift_o      (tu_pc_shift_o),
    .o_valid_i       (so_valid),
    .o_ready_o       (so_ready),
    .o_data_i        (so_data),
    .done_valid_o    (done_valid[EngStore]),
    .done_tag_o      (done_tag[EngStore*TagW +: TagW]),
    .err_valid_o     (e_valid[ErrFromStore]),
    .err_ready_i     (e_ready[ErrFromStore]),
    .err_o           (e_rep[ErrFromStore*ErrW +: ErrW]),
    .busy_o          (eng_busy[EngStore])
  );

  weft_cmd_simt #(.Inflight(Inflight)) u_simt (
    .clk_i,
    .rst_ni,
    .clear_i           (clear),
    .head_go_i         (q_go[EngSimt]),
    .head_idx_i        (q_idx[EngSimt*32 +: 32]),
    .pop_o             (q_pop[EngSimt]),
    .core_start_o      (simt_start_o),
    .core_busy_i       (simt_busy_i),
    .core_done_i       (simt_done_i),
    .core_err_code_i   (simt_err_code_i),
    .core_err_pc_i     (simt_err_pc_i),
    .core_err_thread_i (simt_err_thread_i),
    .done_valid_o      (done_valid[EngSimt]),
    .done_tag_o        (done_tag[EngSimt*TagW +: TagW]),
    .err_valid_o       (e_valid[ErrFromSimt]),
    .err_ready_i       (e_ready[ErrFromSimt]),
    .err_o             (e_rep[ErrFromSimt*ErrW +: ErrW]),
    .busy_o            (eng_busy[EngSimt])
  );

  // The launch inputs: the SIMT queue's head, taken with simt_start_o.
  assign simt_pc_o         = q_simt.pc;
  assign simt_num_warps_o  = q_simt.num_warps;
  assign simt_threads_o    = q_simt.threads_per_warp;
  assign simt_block_id_o   = q_simt.block_id;
  assign simt_arg_ptr_o    = q_simt.arg_ptr;
  assign simt_stack_top_o  = q_simt.stack_top;
  assign simt_stack_size_o = q_simt.stack_size;
  assign simt_max_issues_o = q_simt.max_issues;

  logic unused_x_wait;
  assign unused_x_wait = q_wait[EngSimt];  // no PERF counter for it (SIMT_* registers count launches)

  weft_cmd_tumux #(.AccDepth(AccDepth)) u_tumux (
    .clk_i,
    .rst_ni,
    .c_valid_i        (cc_valid),
    .c_ready_o        (cc_ready),
    .c_rows_i         (cc_rows),
    .c_addr_i         (cc_addr),
    .c_accumulate_i   (cc_acc),
    .c_a_signed_i     (cc_sgn),
    .c_a_zp_i         (cc_zp),
    .c_a_fmt_i        (cc_fmt),
    .d_valid_i        (dc_valid),
    .d_ready_o        (dc_ready),
    .d_rows_i         (dc_rows),
    .d_addr_i         (dc_addr),
    .d_mode_i         (dc_mode),
    .d_pack_i         (dc_pack),
    .d_out_fmt_i      (dc_ofmt),
    .d_relu_i         (dc_relu),
    .d_zp_i           (dc_zp),
    .d_act_min_i      (dc_min),
    .d_act_max_i      (dc_max),
    .cmd_valid_o      (tu_cmd_valid_o),
    .cmd_ready_i      (tu_cmd_ready_i),
    .cmd_op_o         (tu_cmd_op_o),
    .cmd_rows_o       (tu_cmd_rows_o),
    .cmd_addr_o       (tu_cmd_addr_o),
    .cmd_accumulate_o (tu_cmd_accumulate_o),
    .cmd_wreuse_o     (tu_cmd_wreuse_o),
    .cmd_a_signed_o   (tu_cmd_a_signed_o),
    .cmd_a_zp_o       (tu_cmd_a_zp_o),
    .cmd_a_fmt_o      (tu_cmd_a_fmt_o),
    .cmd_mode_o       (tu_cmd_mode_o),
    .cmd_pack_o       (tu_cmd_pack_o),
    .cmd_out_fmt_o    (tu_cmd_out_fmt_o),
    .cmd_relu_o       (tu_cmd_relu_o),
    .cmd_zp_o         (tu_cmd_zp_o),
    .cmd_act_min_o    (tu_cmd_act_min_o),
    .cmd_act_max_o    (tu_cmd_act_max_o)
  );

  // ---------------------------------------------------------------- completion, interrupts
  weft_cmd_cpl #(.DataW(DataW)) u_cpl (
    .clk_i,
    .rst_ni,
    .clear_i         (clear),
    .cpl_addr_i      (cfg_cpl_addr_i),
    .completed_i     (rptr),
    .err_valid_i     (err_valid),
    .err_code_i      (err.code),
    .err_idx_i       (err.idx),
    .retire_irq_i    (retire_irq),
    .err_new_i       (err_new),
    .req_valid_o     (dma_wr_req_valid_o[1]),
    .req_ready_i     (dma_wr_req_ready_i[1]),
    .req_o           (dma_wr_req_o[ReqW +: ReqW]),
    .start_i         (dma_wr_start_i[1]),
    .wr_valid_o      (dma_wr_valid_o[1]),
    .wr_ready_i      (dma_wr_ready_i[1]),
    .wr_data_o       (dma_wr_data_o[DataW +: DataW]),
    .dma_done_i      (dma_wr_done_valid_i[1]),
    .dma_err_i       (dma_wr_done_err_i[8 +: 8]),
    .dma_addr_i      (dma_wr_done_addr_i[64 +: 64]),
    .irq_done_set_o,
    .irq_error_set_o,
    .busy_o          (cpl_busy),
    .reset_busy_o    (cpl_reset_busy),
    .err_valid_o     (e_valid[ErrFromCpl]),
    .err_ready_i     (e_ready[ErrFromCpl]),
    .err_o           (e_rep[ErrFromCpl*ErrW +: ErrW])
  );

  // ---------------------------------------------------------------- performance counters
  localparam int IncW = 16;
  logic [NumCtr*IncW-1:0] inc;
  always_comb begin : p_inc
    inc = '0;
    inc[0*IncW +: IncW]  = 16'd1;                                   // CYCLES
    inc[1*IncW +: IncW]  = IncW'(eng_busy[EngLoad]);                // LOAD_BUSY
    inc[2*IncW +: IncW]  = IncW'(eng_busy[EngCompute]);             // COMPUTE_BUSY
    inc[3*IncW +: IncW]  = IncW'(eng_busy[EngStore]);               // STORE_BUSY
    inc[4*IncW +: IncW]  = IncW'(q_wait[EngLoad]);                  // LOAD_WAIT_DEP
    inc[5*IncW +: IncW]  = IncW'(q_wait[EngCompute]);               // COMPUTE_WAIT_DEP
    inc[6*IncW +: IncW]  = IncW'(q_wait[EngStore]);                 // STORE_WAIT_DEP
    inc[7*IncW +: IncW]  = IncW'(tu_stat_wait_w_i);                 // TU_WAIT_W
    inc[8*IncW +: IncW]  = IncW'(tu_stat_wait_a_i);                 // TU_WAIT_A
    inc[9*IncW +: IncW]  = IncW'(tu_stat_wait_drain_i);             // TU_WAIT_DRAIN
    inc[10*IncW +: IncW] = tu_stat_array_row_i ? IncW'(Rows * Cols) : '0;  // MACS
    inc[11*IncW +: IncW] = dma_stat_rd_beat_i ? IncW'(BB) : '0;     // DMA_RD_BYTES
    inc[12*IncW +: IncW] = IncW'(dma_stat_wr_bytes_i);              // DMA_WR_BYTES
    inc[13*IncW +: IncW] = IncW'(dma_stat_rd_stall_i);              // DMA_RD_STALL
    inc[14*IncW +: IncW] = IncW'(dma_stat_wr_stall_i);              // DMA_WR_STALL
    inc[15*IncW +: IncW] = IncW'(retire);                           // DESC_RETIRED
  end

  weft_cmd_perf #(.NumCtr(NumCtr), .IncW(IncW)) u_perf (
    .clk_i,
    .rst_ni,
    .clear_i (cfg_perf_clear_i),
    .inc_i   (inc),
    .lo_rd_i (perf_lo_rd_i),
    .lo_o    (perf_lo_o),
    .hi_o    (perf_hi_o)
  );

  // ---------------------------------------------------------------- status
  // Idle: nothing runs, and nothing will: with an error, every descriptor before it retired
  // (those still run after the error is found); without, nothing is in flight.
  assign st_idle_o       = quiet && !reset_pend_q &&
                           (err_valid ? (rptr == err.idx) : (rob_empty && d_empty && f_empty));
  assign st_error_o      = err_valid;
  assign st_reset_busy_o = reset_pend_q || cpl_reset_busy;
  assign st_err_code_o   = err.code;
  assign st_err_index_o  = err.idx;
  assign st_err_addr_o   = err.addr;
  assign st_completed_o  = rptr;

`ifndef SYNTHESIS
  always @(posedge clk_i or negedge rst_ni) begin : p_checks
    if (rst_ni) begin
      // Everything queued is in the ROB.
      if (rob_empty) assert (q_empty == '1)
        else $error("weft_cmd: engine queue holds a descriptor that is not in flight");
      // The DMA reports written bytes only with a W beat.
      if (dma_stat_wr_bytes_i != '0) assert (dma_stat_wr_beat_i)
        else $error("weft_cmd: DMA written bytes without a beat");
    end
  end
`endif

endmodule
