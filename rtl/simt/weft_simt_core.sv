// weft_simt_core: the SIMT vector core. Warps x Threads threads, each an RV32IM hart with its own
// pc and 32 registers; the semantics are those of the golden model weft::golden::simt
// (docs/simt-model.md), the microarchitecture is described in docs/simt.md.
//
// Pipeline (one warp instruction enters per cycle; a warp has at most one instruction in it, so
// one warp issues at most every fifth cycle and five warps can keep it full):
//   IS  weft_simt_sched: round-robin over ready warps; the chosen warp's pc is the minimum pc of
//       its runnable threads (not exited, not at a barrier) and the instruction is issued to
//       exactly the threads at that pc (min-pc reconvergence); instruction memory read (u_imem).
//   RR  register read: the instruction's source registers are the register file's read address
//       (weft_simt_regfile, block RAM with a registered read).
//   OF  operands: decode (weft_simt_decode), the registers read in RR (launch values from
//       weft_simt_launch for registers not yet written; this cycle's divider / LSU write back
//       forwarded); weft_simt_scoreboard drops (replays) an instruction that reads or writes a
//       register an outstanding divide/load of its warp will write, or needs the busy divider or
//       a full LSU queue; the warp then waits until exactly what it needs is ready.
//   EX  every lane (weft_simt_lane) executes: ALU, MUL*, branches, CSRs, exit, barrier, address
//       and fault checks; the lanes' results are registered.
//   WB  weft_simt_commit: the first fault (in lane order) or the commit: results, pcs, retired
//       counts (weft_simt_threads) written at the end of the cycle. DIV/REM go to the shared
//       multi-cycle divider (weft_simt_div) and loads/stores to the pipelined load/store unit
//       (weft_simt_lsu, one warp instruction per cycle when conflict-free); the warp goes on
//       issuing, the scoreboard guarding their rd.
// weft_simt_launch holds the launch (registers, running / done, the result: faults stop the
// launch with code, pc, thread and tval), weft_simt_perf the performance counters. This module
// only connects them, with the stage registers RR -> OF -> EX and the operand selection of OF.
`include "weft_assert.svh"
`include "weft_desc.svh"
`include "weft_simt_types.svh"

module weft_simt_core #(
  parameter int  Warps     = 4,
  parameter int  Threads   = 8,
  parameter int  ImemWords = 4096,    // instruction memory, 32-bit words (power of two)
  parameter int  DmemBytes = 65536,   // local data memory (power of two)
  parameter int  Banks     = 8,       // data memory banks (power of two)
  parameter int  ExtW      = 128,     // external (DMA) line port width, 32 x a power of two <= Banks
  localparam int ExtAw     = $clog2(DmemBytes / (ExtW / 8)),
  localparam int WarpW     = (Warps > 1) ? $clog2(Warps) : 1,
  localparam int NumThr    = Warps * Threads,
  localparam int ThrW      = (NumThr > 1) ? $clog2(NumThr) : 1,
  localparam int ImemAddrW = (ImemWords > 1) ? $clog2(ImemWords) : 1,
  localparam int LaneW     = (Threads > 1) ? $clog2(Threads) : 1
) (
  input  logic                 clk_i,
  input  logic                 rst_ni,
  // Instruction memory write port (word address), only while !busy_o.
  input  logic                 imem_we_i,
  input  logic [ImemAddrW-1:0] imem_addr_i,
  input  logic [31:0]          imem_wdata_i,
  // Launch (start_i: one-cycle pulse while !busy_o; the other inputs are sampled with it).
  input  logic                 start_i,
  input  logic [31:0]          start_pc_i,
  input  logic [31:0]          start_num_warps_i,   // 1 .. Warps
  input  logic [31:0]          start_threads_i,     // threads per warp, 1 .. Threads
  input  logic [31:0]          start_block_id_i,
  input  logic [31:0]          start_arg_ptr_i,
  input  logic [31:0]          start_stack_top_i,
  input  logic [31:0]          start_stack_size_i,  // bytes per thread
  input  logic [31:0]          start_max_issues_i,  // warp issues before StepLimit; 0: no limit
  output logic                 busy_o,
  output logic                 done_o,              // one-cycle pulse at the end of a launch
  // Result of the last launch (held until the next start).
  output logic [7:0]           err_code_o,
  output logic [31:0]          err_pc_o,
  output logic [31:0]          err_thread_o,
  output logic [31:0]          err_tval_o,
  // Performance counters of the last launch.
  output logic [31:0]          perf_cycles_o,         // cycles from start to done
  output logic [31:0]          perf_issued_o,         // warp instructions executed
  output logic [31:0]          perf_active_o,         // sum of their active threads
  output logic [31:0]          perf_stall_pipe_o,     // no issue: ready warps in the pipeline
  output logic [31:0]          perf_stall_div_o,      // no issue: waiting for the divider
  output logic [31:0]          perf_stall_mem_o,      // no issue: waiting for the LSU
  output logic [31:0]          perf_stall_barrier_o,  // no issue: threads wait at a barrier
  output logic [31:0]          perf_replays_o,        // instructions dropped at RR, reissued
  output logic [31:0]          perf_barriers_o,       // barrier releases
  // Debug / test read port: thread w * Threads + lane, warp w.
  input  logic [ThrW-1:0]      dbg_thread_i,
  output logic [31:0]          dbg_retired_o,
  output logic [31:0]          dbg_exit_code_o,
  output logic                 dbg_exited_o,
  input  logic [WarpW-1:0]     dbg_warp_i,
  output logic [31:0]          dbg_warp_issues_o,
  output logic [31:0]          dbg_warp_active_o,
  // Data memory line port for the DMA (weft_simt_lsu): served between warp accesses.
  input  logic                 ext_req_i,
  input  logic                 ext_we_i,
  input  logic [ExtAw-1:0]     ext_addr_i,
  input  logic [ExtW-1:0]      ext_wdata_i,
  output logic                 ext_ready_o,
  output logic                 ext_rvalid_o,
  output logic [ExtW-1:0]      ext_rdata_o
);

  if (Warps < 1 || Threads < 1 || Threads > 32) begin : g_bad_shape
    `WEFT_ELAB_ERROR("weft_simt_core: need Warps >= 1 and 1 <= Threads <= 32")
  end
  if ((1 << ImemAddrW) != ImemWords || ImemWords < 2) begin : g_bad_imem
    `WEFT_ELAB_ERROR("weft_simt_core: ImemWords must be a power of two >= 2")
  end

  // ---------------------------------------------------------------------------------------------
  // Launch: launch registers, running / done, the result, launch values of registers and CSRs
  // ---------------------------------------------------------------------------------------------
  logic                  launch, running, error, issuing, step_limit, all_exited, drained, done;
  logic [NumThr-1:0]     launch_threads;
  weft_simt_perf_t       perf;
  logic [Threads*32-1:0] of_rs1_launch, of_rs2_launch, ex_csr;

  // The pipeline and the units (declared here, used before their stage below).
  logic                  rr_valid, replay;
  logic [WarpW-1:0]      rr_warp;
  weft_simt_rr_t         of_check;  // what the scoreboard checks
  // OF: the instruction read in RR (valid reset, the rest datapath registers without reset).
  typedef struct packed {
    logic [WarpW-1:0]      warp;
    logic [31:0]           pc;
    logic [Threads-1:0]    mask;
    logic [1:0]            fetch_fault;
    logic [31:0]           insn;
  } of_stage_t;
  logic                  of_valid_q;
  of_stage_t             of_q, of_d;
  // EX: the instruction that left OF (its OF fields) and its operands.
  typedef struct packed {
    of_stage_t             op;
    logic [Threads*32-1:0] rs1;
    logic [Threads*32-1:0] rs2;
    logic                  mul_a_signed;  // MULH / MULHSU: rs1 signed (the lanes' 33-bit product)
    logic                  mul_b_signed;  // MULH: rs2 signed
  } ex_stage_t;
  logic                  ex_valid_q, ex_valid_d;
  ex_stage_t             ex_q, ex_d;
  logic                  wb_valid, commit, fault;
  logic [WarpW-1:0]      wb_warp;
  logic [Threads-1:0]    wb_mask;
  weft_simt_wb_t         wb_insn;
  weft_simt_fault_t      fault_info;
  logic [LaneW-1:0]      fault_lane;
  logic                  div_busy, div_wb_pending, div_wb;  // div_wb: written back this cycle
  logic                  lsu_busy, lsu_wb;
  logic [WarpW-1:0]      div_wb_warp, lsu_wb_warp;
  logic [4:0]            div_wb_rd, lsu_wb_rd;
  logic [Threads-1:0]    div_wb_mask, lsu_wb_mask;
  logic [Threads*32-1:0] div_wb_data, lsu_wb_data;
  // The register file's second write port: the LSU's or the divider's write back of this cycle.
  logic                  unit_wb;
  logic [WarpW-1:0]      unit_wb_warp;
  logic [4:0]            unit_wb_rd;
  logic [Threads-1:0]    unit_wb_mask;
  logic [Threads*32-1:0] unit_wb_data;
  // The unit write the register file's port does this cycle (weft_simt_rf_write: a unit write
  // back waits in a queue while WB writes): the scoreboard frees its rd, OF forwards it.
  logic                  done_wb, done_div, rf_write_hold, rf_write_empty;
  logic [WarpW-1:0]      done_wb_warp;
  logic [4:0]            done_wb_rd;
  logic [Threads-1:0]    done_wb_mask;
  logic [Threads*32-1:0] done_wb_data;

  // The launch inputs, in the SIMT_LAUNCH descriptor's layout.
  weft_desc_simt_launch_t start_args;
  weft_simt_result_t      result;
  always_comb begin : p_start_args
    start_args.pc               = start_pc_i;
    start_args.num_warps        = start_num_warps_i;
    start_args.threads_per_warp = start_threads_i;
    start_args.block_id         = start_block_id_i;
    start_args.arg_ptr          = start_arg_ptr_i;
    start_args.stack_top        = start_stack_top_i;
    start_args.stack_size       = start_stack_size_i;
    start_args.max_issues       = start_max_issues_i;
  end

  assign issuing = running && !error;
  assign drained = !rr_valid && !of_valid_q && !ex_valid_q && !wb_valid && !div_busy && !lsu_busy &&
                   rf_write_empty;

  weft_simt_launch #(
    .Warps   (Warps),
    .Threads (Threads)
  ) u_launch (
    .clk_i,
    .rst_ni,
    .start_i,
    .start_args_i     (start_args),
    .launch_o         (launch),
    .launch_threads_o (launch_threads),
    .all_exited_i     (all_exited),
    .drained_i        (drained),
    .issued_i         (perf.issued),
    .commit_i         (commit),
    .step_limit_o     (step_limit),
    .fault_i          (fault),
    .fault_info_i     (fault_info),
    .fault_warp_i     (wb_warp),
    .fault_lane_i     (fault_lane),
    .running_o        (running),
    .error_o          (error),
    .done_o           (done),
    .result_o         (result),
    .of_warp_i        (of_q.warp),
    .of_rs1_i         (of_check.rs1),
    .of_rs2_i         (of_check.rs2),
    .of_rs1_launch_o  (of_rs1_launch),
    .of_rs2_launch_o  (of_rs2_launch),
    .ex_warp_i        (ex_q.op.warp),
    .ex_csr_sel_i     (ex_q.op.insn[22:20]),
    .ex_csr_o         (ex_csr)
  );

  // ---------------------------------------------------------------------------------------------
  // Threads: pc, exited, at barrier, exit code, retired
  // ---------------------------------------------------------------------------------------------
  logic [NumThr*32-1:0]  thread_pc;
  logic [NumThr-1:0]     thread_exited, thread_at_barrier;
  logic                  barrier_release;
  logic [Threads*32-1:0] wb_next_pc, wb_rs2;
  logic [Threads-1:0]    wb_exit, wb_barrier;

  weft_simt_threads #(
    .Warps   (Warps),
    .Threads (Threads)
  ) u_threads (
    .clk_i,
    .rst_ni,
    .launch_i           (launch),
    .launch_threads_i   (launch_threads),
    .launch_pc_i        (start_pc_i),
    .issuing_i          (issuing),
    .commit_i           (commit),
    .commit_warp_i      (wb_warp),
    .commit_mask_i      (wb_mask),
    .commit_next_pc_i   (wb_next_pc),
    .commit_exit_i      (wb_exit),
    .commit_exit_code_i (wb_rs2),      // ECALL exit: a0, read through the rs2 port
    .commit_barrier_i   (wb_barrier),
    .pc_o               (thread_pc),
    .exited_o           (thread_exited),
    .at_barrier_o       (thread_at_barrier),
    .all_exited_o       (all_exited),
    .barrier_release_o  (barrier_release),
    .dbg_thread_i,
    .dbg_retired_o,
    .dbg_exit_code_o,
    .dbg_exited_o
  );

  // ---------------------------------------------------------------------------------------------
  // IS: warp scheduler, instruction fetch
  // ---------------------------------------------------------------------------------------------
  logic                 issue, fetch;
  logic [ImemAddrW-1:0] fetch_addr;
  logic [31:0]          rr_pc;
  logic [Warps-1:0]     warp_runnable, warp_blocked, warp_waits_div;
  logic [Threads-1:0]   rr_mask;
  logic [1:0]           rr_fetch_fault;

  weft_simt_sched #(
    .Warps     (Warps),
    .Threads   (Threads),
    .ImemWords (ImemWords)
  ) u_sched (
    .clk_i,
    .rst_ni,
    .launch_i            (launch),
    .issuing_i           (issuing && !rf_write_hold),
    .thread_pc_i         (thread_pc),
    .thread_exited_i     (thread_exited),
    .thread_at_barrier_i (thread_at_barrier),
    .warp_blocked_i      (warp_blocked),
    .replay_i            (replay),
    .replay_warp_i       (of_q.warp),
    .retire_i            (wb_valid),
    .retire_warp_i       (wb_warp),
    .warp_runnable_o     (warp_runnable),
    .issue_o             (issue),
    .fetch_o             (fetch),
    .fetch_addr_o        (fetch_addr),
    .rr_valid_o          (rr_valid),
    .rr_warp_o           (rr_warp),
    .rr_pc_o             (rr_pc),
    .rr_mask_o           (rr_mask),
    .rr_fetch_fault_o    (rr_fetch_fault)
  );

  logic [31:0] rr_insn;  // read at IS, in RR
  logic [1:0]  unused_imem_ecc;  // no ECC on the SIMT memories

  weft_sram_1rw #(
    .Depth (ImemWords),
    .Width (32)
  ) u_imem (
    .clk_i   (clk_i),
    .req_i   (imem_we_i || fetch),
    .we_i    (imem_we_i),
    .addr_i  (imem_we_i ? imem_addr_i : fetch_addr),
    .wdata_i (imem_wdata_i),
    .be_i    (4'hF),
    .rdata_o (rr_insn),
    .rdata_ecc_o (unused_imem_ecc)
  );

  // ---------------------------------------------------------------------------------------------
  // RR: register read (the source registers are the register file's read address)
  // ---------------------------------------------------------------------------------------------
  // ECALL reads a7 (exit check) and a0 (exit code) through the two read ports.
  weft_simt_dec_t rr_dec;
  logic [4:0]     rr_rs1, rr_rs2;

  weft_simt_decode u_rr_dec (
    .insn_i (rr_insn),
    .dec_o  (rr_dec)
  );

  assign rr_rs1 = rr_dec.is_ecall ? 5'd17 : rr_insn[19:15];
  assign rr_rs2 = rr_dec.is_ecall ? 5'd10 : rr_insn[24:20];

  logic unused_rr;
  assign unused_rr = ^{rr_dec.illegal, rr_dec.is_lui, rr_dec.is_auipc, rr_dec.is_jal,
                       rr_dec.is_jalr, rr_dec.is_branch, rr_dec.is_alu, rr_dec.is_mul,
                       rr_dec.is_ebreak, rr_dec.is_csr, rr_dec.csr_barrier, rr_dec.imm,
                       rr_dec.uses_rs1, rr_dec.uses_rs2, rr_dec.writes_rd, rr_dec.is_div,
                       rr_dec.is_load, rr_dec.is_store};

  always_comb begin : p_of_next
    of_d.warp        = rr_warp;
    of_d.pc          = rr_pc;
    of_d.mask        = rr_mask;
    of_d.fetch_fault = rr_fetch_fault;
    of_d.insn        = rr_insn;
  end

  weft_pipe_reg #(
    .Width ($bits(of_stage_t'('0)))
  ) u_of_reg (
    .clk_i,
    .rst_ni,
    .valid_i (rr_valid),
    .data_i  (of_d),
    .valid_o (of_valid_q),
    .data_o  (of_q)
  );

  // ---------------------------------------------------------------------------------------------
  // OF: decode, operands (launch values, forwarding), scoreboard and replay
  // ---------------------------------------------------------------------------------------------
  weft_simt_dec_t of_dec;

  weft_simt_decode u_of_dec (
    .insn_i (of_q.insn),
    .dec_o  (of_dec)
  );

  logic [Threads*32-1:0] rf_rs1, rf_rs2, of_rs1_val, of_rs2_val;
  logic [Threads-1:0]    rf_rs1_written, rf_rs2_written;

  assign of_check.fetch_fault = of_q.fetch_fault;
  assign of_check.rs1         = of_dec.is_ecall ? 5'd17 : of_q.insn[19:15];
  assign of_check.rs2         = of_dec.is_ecall ? 5'd10 : of_q.insn[24:20];
  assign of_check.rd          = of_q.insn[11:7];
  assign of_check.reads_rs1   = of_dec.uses_rs1 || of_dec.is_ecall;
  assign of_check.reads_rs2   = of_dec.uses_rs2 || of_dec.is_ecall;
  assign of_check.writes_rd   = of_dec.writes_rd;
  assign of_check.div         = of_dec.is_div;
  assign of_check.mem         = of_dec.is_load || of_dec.is_store;

  logic unused_of;
  assign unused_of = ^{of_dec.illegal, of_dec.is_lui, of_dec.is_auipc, of_dec.is_jal,
                       of_dec.is_jalr, of_dec.is_branch, of_dec.is_alu, of_dec.is_mul,
                       of_dec.is_ebreak, of_dec.is_csr, of_dec.csr_barrier, of_dec.imm};

  // Registers never written since the launch hold their launch value. The register file returns
  // them as they were after the writes of the RR cycle; a divider or LSU write back of this cycle
  // (written into the register file at its end) is forwarded.
  logic fwd_rs1, fwd_rs2;
  assign fwd_rs1 = done_wb && done_wb_warp == of_q.warp && done_wb_rd == of_check.rs1;
  assign fwd_rs2 = done_wb && done_wb_warp == of_q.warp && done_wb_rd == of_check.rs2;

  always_comb begin : p_operands
    for (int l = 0; l < Threads; l++) begin
      of_rs1_val[32*l +: 32] = rf_rs1_written[l] ? rf_rs1[32*l +: 32] : of_rs1_launch[32*l +: 32];
      of_rs2_val[32*l +: 32] = rf_rs2_written[l] ? rf_rs2[32*l +: 32] : of_rs2_launch[32*l +: 32];
      if (fwd_rs1 && done_wb_mask[l]) of_rs1_val[32*l +: 32] = done_wb_data[32*l +: 32];
      if (fwd_rs2 && done_wb_mask[l]) of_rs2_val[32*l +: 32] = done_wb_data[32*l +: 32];
    end
  end

  logic       ex_to_div, ex_to_lsu, wb_to_div, wb_to_lsu, div_start, lsu_start, load_start;
  logic [1:0] lsu_slots;

  weft_simt_scoreboard #(
    .Warps (Warps)
  ) u_scoreboard (
    .clk_i,
    .rst_ni,
    .launch_i         (launch),
    .of_valid_i       (of_valid_q),
    .of_warp_i        (of_q.warp),
    .of_i             (of_check),
    .replay_o         (replay),
    .ex_to_div_i      (ex_to_div),
    .wb_to_div_i      (wb_to_div),
    .ex_to_lsu_i      (ex_to_lsu),
    .wb_to_lsu_i      (wb_to_lsu),
    .div_start_i      (div_start),
    .load_start_i     (load_start),
    .start_warp_i     (wb_warp),
    .start_rd_i       (wb_insn.rd),
    .div_busy_i       (div_busy),
    .div_accept_i     (div_wb),
    .div_wb_valid_i   (done_wb && done_div),
    .div_wb_warp_i    (done_wb_warp),
    .div_wb_rd_i      (done_wb_rd),
    .lsu_free_slots_i (lsu_slots),
    .lsu_wb_valid_i   (done_wb && !done_div),
    .lsu_wb_warp_i    (done_wb_warp),
    .lsu_wb_rd_i      (done_wb_rd),
    .warp_blocked_o   (warp_blocked),
    .warp_waits_div_o (warp_waits_div)
  );

  // ---------------------------------------------------------------------------------------------
  // EX: the lanes (results registered into WB)
  // ---------------------------------------------------------------------------------------------
  always_comb begin : p_ex_next
    ex_valid_d       = of_valid_q && !replay;
    ex_d.op          = of_q;
    ex_d.rs1         = of_rs1_val;
    ex_d.rs2         = of_rs2_val;
    // Decoded a cycle early, so that the multipliers' inputs come from registers (ISA 7.1).
    ex_d.mul_a_signed = (of_q.insn[14:12] == 3'b001) || (of_q.insn[14:12] == 3'b010);
    ex_d.mul_b_signed = (of_q.insn[14:12] == 3'b001);
  end

  weft_pipe_reg #(
    .Width ($bits(ex_stage_t'('0)))
  ) u_ex_reg (
    .clk_i,
    .rst_ni,
    .valid_i (ex_valid_d),
    .data_i  (ex_d),
    .valid_o (ex_valid_q),
    .data_o  (ex_q)
  );

  // EX-stage decode (unit hand-off): the instruction as WB and the units need it.
  weft_simt_dec_t ex_dec;
  weft_simt_wb_t  ex_insn;

  weft_simt_decode u_ex_dec (
    .insn_i (ex_q.op.insn),
    .dec_o  (ex_dec)
  );

  assign ex_insn.pc          = ex_q.op.pc;
  assign ex_insn.funct3      = ex_q.op.insn[14:12];
  assign ex_insn.rd          = ex_q.op.insn[11:7];
  assign ex_insn.fetch_fault = ex_q.op.fetch_fault;
  assign ex_insn.div         = ex_dec.is_div;
  assign ex_insn.load        = ex_dec.is_load;
  assign ex_insn.store       = ex_dec.is_store;

  logic unused_ex;
  assign unused_ex = ^{ex_dec.illegal, ex_dec.is_lui, ex_dec.is_auipc, ex_dec.is_jal,
                       ex_dec.is_jalr, ex_dec.is_branch, ex_dec.is_alu, ex_dec.is_mul,
                       ex_dec.is_ecall, ex_dec.is_ebreak, ex_dec.is_csr, ex_dec.csr_barrier,
                       ex_dec.imm, ex_dec.uses_rs1, ex_dec.uses_rs2, ex_dec.writes_rd};

  assign ex_to_div = ex_valid_q && ex_insn.fetch_fault == 2'b00 && ex_insn.div &&
                     ex_insn.rd != 5'd0;
  assign ex_to_lsu = ex_valid_q && ex_insn.fetch_fault == 2'b00 &&
                     (ex_insn.store || (ex_insn.load && ex_insn.rd != 5'd0));

  localparam int LaneResW = $bits(weft_simt_lane_res_t'('0));
  logic [Threads*LaneResW-1:0] lane_res;

  for (genvar l = 0; l < Threads; l++) begin : g_lane
    weft_simt_lane #(
      .DmemBytes (DmemBytes)
    ) u_lane (
      .insn_i       (ex_q.op.insn),
      .pc_i         (ex_q.op.pc),
      .a_i          (ex_q.rs1[32*l +: 32]),
      .b_i          (ex_q.rs2[32*l +: 32]),
      .mul_a_signed_i (ex_q.mul_a_signed),
      .mul_b_signed_i (ex_q.mul_b_signed),
      .csr_val_i    (ex_csr[32*l +: 32]),
      .res_o        (lane_res[LaneResW*l +: LaneResW])
    );
  end

  // ---------------------------------------------------------------------------------------------
  // WB: fault or commit, unit hand-off
  // ---------------------------------------------------------------------------------------------
  logic                  rf_we_wb;
  logic [Threads*32-1:0] wb_rs1, wb_addr, rf_data_wb;
  logic [Threads-1:0]    rf_mask_wb;

  weft_simt_commit #(
    .Warps   (Warps),
    .Threads (Threads)
  ) u_commit (
    .clk_i,
    .rst_ni,
    .ex_valid_i        (ex_valid_q),
    .ex_warp_i         (ex_q.op.warp),
    .ex_mask_i         (ex_q.op.mask),
    .ex_insn_i         (ex_insn),
    .ex_rs1_i          (ex_q.rs1),
    .ex_rs2_i          (ex_q.rs2),
    .lane_res_i        (lane_res),
    .error_i           (error),
    .step_limit_i      (step_limit),
    .valid_o           (wb_valid),
    .warp_o            (wb_warp),
    .mask_o            (wb_mask),
    .insn_o            (wb_insn),
    .rs1_o             (wb_rs1),
    .rs2_o             (wb_rs2),
    .addr_o            (wb_addr),
    .next_pc_o         (wb_next_pc),
    .exit_o            (wb_exit),
    .barrier_o         (wb_barrier),
    .to_div_o          (wb_to_div),
    .to_lsu_o          (wb_to_lsu),
    .fault_o           (fault),
    .fault_info_o      (fault_info),
    .fault_lane_o      (fault_lane),
    .commit_o          (commit),
    .div_start_o       (div_start),
    .lsu_start_o       (lsu_start),
    .load_start_o      (load_start),
    .rf_we_o           (rf_we_wb),
    .rf_mask_o         (rf_mask_wb),
    .rf_data_o         (rf_data_wb)
  );

  // ---------------------------------------------------------------------------------------------
  // Divider and load/store unit
  // ---------------------------------------------------------------------------------------------
  logic lsu_done;

  weft_simt_div #(
    .Warps   (Warps),
    .Threads (Threads)
  ) u_div (
    .clk_i      (clk_i),
    .rst_ni     (rst_ni),
    .start_i    (div_start),
    .w_i        (wb_warp),
    .rd_i       (wb_insn.rd),
    .op_i       (wb_insn.funct3[1:0]),
    .mask_i     (wb_mask),
    .a_i        (wb_rs1),
    .b_i        (wb_rs2),
    .busy_o     (div_busy),
    .wb_valid_o (div_wb_pending),
    .wb_ready_i (!lsu_wb),
    .wb_w_o     (div_wb_warp),
    .wb_rd_o    (div_wb_rd),
    .wb_mask_o  (div_wb_mask),
    .wb_data_o  (div_wb_data)
  );

  weft_simt_lsu #(
    .Warps     (Warps),
    .Threads   (Threads),
    .Banks     (Banks),
    .DmemBytes (DmemBytes),
    .ExtW      (ExtW)
  ) u_lsu (
    .clk_i      (clk_i),
    .rst_ni     (rst_ni),
    .start_i    (lsu_start),
    .w_i        (wb_warp),
    .rd_i       (wb_insn.rd),
    .f3_i       (wb_insn.funct3),
    .store_i    (wb_insn.store),
    .mask_i     (wb_mask),
    .addr_i     (wb_addr),
    .wdata_i    (wb_rs2),
    .busy_o     (lsu_busy),
    .slots_o    (lsu_slots),
    .done_o     (lsu_done),
    .wb_valid_o (lsu_wb),
    .wb_w_o     (lsu_wb_warp),
    .wb_rd_o    (lsu_wb_rd),
    .wb_mask_o  (lsu_wb_mask),
    .wb_data_o  (lsu_wb_data),
    .ext_req_i,
    .ext_we_i,
    .ext_addr_i,
    .ext_wdata_i,
    .ext_ready_o,
    .ext_rvalid_o,
    .ext_rdata_o
  );

  // Replayed warps wait for their own conditions (scoreboard); the fault check and the unit
  // hand-off have read the rest of the instruction in WB.
  logic unused_wb;
  assign unused_wb = ^{lsu_done, wb_insn.pc, wb_insn.fetch_fault, wb_insn.div, wb_insn.load};

  // The divider and the LSU share the register file's second write port; a load's write back goes
  // first and the divider holds its result meanwhile (a divide is rarely waited on, a load often).
  assign div_wb = div_wb_pending && !lsu_wb;

  assign unit_wb      = lsu_wb || div_wb;
  assign unit_wb_warp = lsu_wb ? lsu_wb_warp : div_wb_warp;
  assign unit_wb_rd   = lsu_wb ? lsu_wb_rd   : div_wb_rd;
  assign unit_wb_mask = lsu_wb ? lsu_wb_mask : div_wb_mask;
  assign unit_wb_data = lsu_wb ? lsu_wb_data : div_wb_data;

  // ---------------------------------------------------------------------------------------------
  // Register file and its write port (WB first, a unit's write back queued when they collide)
  // ---------------------------------------------------------------------------------------------
  logic                  rf_we;
  logic [WarpW-1:0]      rf_w;
  logic [4:0]            rf_rd;
  logic [Threads-1:0]    rf_mask;
  logic [Threads*32-1:0] rf_data;

  weft_simt_rf_write #(
    .Warps   (Warps),
    .Threads (Threads)
  ) u_rf_write (
    .clk_i,
    .rst_ni,
    .wb_we_i       (rf_we_wb),
    .wb_warp_i     (wb_warp),
    .wb_rd_i       (wb_insn.rd),
    .wb_mask_i     (rf_mask_wb),
    .wb_data_i     (rf_data_wb),
    .unit_we_i     (unit_wb),
    .unit_div_i    (!lsu_wb),
    .unit_warp_i   (unit_wb_warp),
    .unit_rd_i     (unit_wb_rd),
    .unit_mask_i   (unit_wb_mask),
    .unit_data_i   (unit_wb_data),
    .done_o        (done_wb),
    .done_div_o    (done_div),
    .done_warp_o   (done_wb_warp),
    .done_rd_o     (done_wb_rd),
    .done_mask_o   (done_wb_mask),
    .done_data_o   (done_wb_data),
    .hold_o        (rf_write_hold),
    .empty_o       (rf_write_empty),
    .rf_we_o       (rf_we),
    .rf_warp_o     (rf_w),
    .rf_rd_o       (rf_rd),
    .rf_mask_o     (rf_mask),
    .rf_data_o     (rf_data)
  );

  weft_simt_regfile #(
    .Warps   (Warps),
    .Threads (Threads)
  ) u_rf (
    .clk_i         (clk_i),
    .rst_ni        (rst_ni),
    .clear_i       (launch),
    .rd_w_i        (rr_warp),
    .rs1_i         (rr_rs1),
    .rs2_i         (rr_rs2),
    .rs1_o         (rf_rs1),
    .rs1_written_o (rf_rs1_written),
    .rs2_o         (rf_rs2),
    .rs2_written_o (rf_rs2_written),
    .we_i          (rf_we),
    .w_i           (rf_w),
    .rd_i          (rf_rd),
    .mask_i        (rf_mask),
    .data_i        (rf_data)
  );

  // ---------------------------------------------------------------------------------------------
  // Performance counters
  // ---------------------------------------------------------------------------------------------
  weft_simt_perf #(
    .Warps   (Warps),
    .Threads (Threads)
  ) u_perf (
    .clk_i,
    .rst_ni,
    .launch_i            (launch),
    .running_i           (running),
    .error_i             (error),
    .issue_i             (issue),
    .warp_runnable_i     (warp_runnable),
    .warp_blocked_i      (warp_blocked),
    .warp_waits_div_i    (warp_waits_div),
    .thread_exited_i     (thread_exited),
    .thread_at_barrier_i (thread_at_barrier),
    .replay_i            (replay),
    .barrier_release_i   (barrier_release),
    .commit_i            (commit),
    .commit_warp_i       (wb_warp),
    .commit_mask_i       (wb_mask),
    .perf_o              (perf),
    .dbg_warp_i,
    .dbg_warp_issues_o,
    .dbg_warp_active_o
  );

  // The core's result and counter ports, one line per member.
  assign err_code_o           = result.code;
  assign err_pc_o             = result.pc;
  assign err_thread_o         = result.thread;
  assign err_tval_o           = result.tval;
  assign perf_cycles_o        = perf.cycles;
  assign perf_issued_o        = perf.issued;
  assign perf_active_o        = perf.active;
  assign perf_stall_pipe_o    = perf.stall_pipe;
  assign perf_stall_div_o     = perf.stall_div;
  assign perf_stall_mem_o     = perf.stall_mem;
  assign perf_stall_barrier_o = perf.stall_barrier;
  assign perf_replays_o       = perf.replays;
  assign perf_barriers_o      = perf.barriers;
  assign busy_o               = running;
  assign done_o               = done;

`ifndef SYNTHESIS
  // The instruction memory has one port: the host writes it only between launches.
  always @(posedge clk_i or negedge rst_ni) begin : p_check_imem
    if (rst_ni && imem_we_i) begin
      assert (!running) else $error("%m: imem written during a launch");
    end
  end
`endif

endmodule
