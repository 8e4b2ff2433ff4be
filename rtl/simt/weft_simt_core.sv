// weft_simt_core: the SIMT vector core. Warps x Threads threads, each an RV32IM hart with its own
// pc and 32 registers; the semantics are those of the golden model weft::golden::simt
// (docs/simt-model.md), the microarchitecture is described in docs/simt.md.
//
// Pipeline (one warp instruction enters per cycle; a warp has at most one instruction in it, so
// one warp issues at most every fourth cycle and four warps can keep it full):
//   IS  warp scheduler: round-robin over ready warps; the chosen warp's pc is the minimum pc of
//       its runnable threads (not exited, not at a barrier) and the instruction is issued to
//       exactly the threads at that pc (min-pc reconvergence); instruction memory read.
//   RR  decode, register read (weft_simt_regfile, with this cycle's divider / LSU write back
//       forwarded), scoreboard and structural checks: an instruction that reads or writes a
//       register an outstanding divide/load of its warp will write, or needs the busy divider or
//       a full LSU queue, is dropped (replayed later) without side effects; the warp then waits
//       until exactly what it needs is ready (those registers, the divider, LSU room).
//   EX  every lane (weft_simt_lane) executes: ALU, MUL*, branches, CSRs, exit, barrier, address
//       and fault checks; the lanes' results are registered.
//   WB  the first fault (in lane order) or the commit: results, pcs, retired counts written at
//       the end of the cycle. DIV/REM go to the shared multi-cycle divider (weft_simt_div) and
//       loads/stores to the pipelined load/store unit (weft_simt_lsu, one warp instruction per
//       cycle when conflict-free); the warp goes on issuing, its scoreboard guarding their rd.
//       (WB is its own stage so that no path runs from the operands through a lane, the fault
//       priority and the commit into the register file, pcs and units: docs/fpga.md.)
// Faults stop the launch (first fault in EX order) with code, pc, thread and tval.
`include "weft_assert.svh"

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
  localparam int ImemAddrW = (ImemWords > 1) ? $clog2(ImemWords) : 1
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

  // docs/simt-model.md error codes (11 is the RTL's own: an invalid launch shape).
  localparam logic [7:0] ErrFetchAlign  = 8'd3;
  localparam logic [7:0] ErrFetchRange  = 8'd4;
  localparam logic [7:0] ErrStepLimit   = 8'd10;
  localparam logic [7:0] ErrBadLaunch   = 8'd11;
  localparam logic [1:0] FfNone  = 2'd0;
  localparam logic [1:0] FfAlign = 2'd1;
  localparam logic [1:0] FfRange = 2'd2;

  // ---------------------------------------------------------------------------------------------
  // State
  // ---------------------------------------------------------------------------------------------
  logic                   run_q, run_d;
  logic [31:0]            nw_q, nw_d, tpw_q, tpw_d, nthr_q, nthr_d, blkid_q, blkid_d;
  logic [31:0]            arg_q, arg_d, stop_q, stop_d, ss_q, ss_d, wss_q, wss_d, max_q, max_d;

  logic [NumThr*32-1:0]   pc_q, pc_d;
  logic [NumThr-1:0]      exited_q, exited_d, bar_q, bar_d;
  logic [NumThr*32-1:0]   exit_code_q, exit_code_d, retired_q, retired_d;

  logic [Warps-1:0]       inflight_q, inflight_d;  // an instruction of the warp in IS..EX
  logic [Warps-1:0]       blk_q, blk_d;            // replayed: waits for what it needs
  logic [Warps-1:0]       blkdiv_q, blkdiv_d;      // ... from the divider (else the LSU)
  logic [Warps*32-1:0]    wregs_q, wregs_d;        // ... registers it uses (scoreboard)
  logic [Warps-1:0]       wdiv_q, wdiv_d;          // ... the divider to be free
  logic [Warps-1:0]       wlsu_q, wlsu_d;          // ... room in the LSU queue
  logic [Warps*32-1:0]    sb_div_q, sb_div_d;      // scoreboard: rd of the outstanding divide
  logic [Warps*32-1:0]    sb_mem_q, sb_mem_d;      // scoreboard: rd of the outstanding load
  logic [Warps*32-1:0]    wissue_q, wissue_d, wactive_q, wactive_d;
  logic [WarpW-1:0]       rr_q, rr_d;

  logic                   fd_valid_q, fd_valid_d;
  logic [WarpW-1:0]       fd_w_q, fd_w_d;
  logic [31:0]            fd_pc_q, fd_pc_d;
  logic [Threads-1:0]     fd_mask_q, fd_mask_d;
  logic [1:0]             fd_ff_q, fd_ff_d;

  logic                   ex_valid_q, ex_valid_d;
  logic [WarpW-1:0]       ex_w_q, ex_w_d;
  logic [31:0]            ex_pc_q, ex_pc_d;
  logic [Threads-1:0]     ex_mask_q, ex_mask_d;
  logic [1:0]             ex_ff_q, ex_ff_d;
  logic [31:0]            ex_insn_q, ex_insn_d;
  logic [Threads*32-1:0]  ex_a_q, ex_a_d, ex_b_q, ex_b_d;

  // WB: the instruction that left EX and its lanes' results (data flops without reset).
  logic                   wb_valid_q;
  logic [WarpW-1:0]       wb_w_q;
  logic [31:0]            wb_pc_q;
  logic [14:7]            wb_insn_q;              // funct3 and rd
  logic [Threads-1:0]     wb_mask_q;
  logic [1:0]             wb_ff_q;
  logic                   wb_div_q, wb_load_q, wb_store_q;
  logic [Threads*32-1:0]  wb_a_q, wb_b_q;
  logic [Threads-1:0]     wb_we_q, wb_exit_q, wb_bar_q, wb_fault_q;
  logic [Threads*32-1:0]  wb_wdata_q, wb_npc_q, wb_addr_q, wb_tval_q;
  logic [Threads*8-1:0]   wb_code_q;
  logic [4:0]             wb_rd;
  logic                   wb_to_div, wb_to_lsu;   // WB holds an instruction that starts a unit

  logic                   err_q, err_d;
  logic [7:0]             err_code_q, err_code_d;
  logic [31:0]            err_pc_q, err_pc_d, err_thread_q, err_thread_d, err_tval_q, err_tval_d;

  logic [31:0] cyc_q, cyc_d, issued_q, issued_d, active_q, active_d, replays_q, replays_d;
  logic [31:0] st_pipe_q, st_pipe_d, st_div_q, st_div_d, st_mem_q, st_mem_d, st_bar_q, st_bar_d;
  logic [31:0] barriers_q, barriers_d;

  // Divider and load/store unit hand-off and write-back ports.
  logic                  div_busy, div_wb, div_start;
  logic                  lsu_busy, lsu_done, lsu_wb, lsu_start;
  logic [1:0]            lsu_slots;
  logic [WarpW-1:0]      div_wb_w, lsu_wb_w;
  logic [4:0]            div_wb_rd, lsu_wb_rd;
  logic [Threads-1:0]    div_wb_mask, lsu_wb_mask;
  logic [Threads*32-1:0] div_wb_data, lsu_wb_data;

  // Thread id (CSR 0xCC0) and initial sp of lane l of warp w (docs/simt-model.md "Launch ABI").
  function automatic logic [31:0] tid_of(input logic [WarpW-1:0] w, input int l,
                                         input logic [31:0] tpw);
    tid_of = 32'(32'(w) * tpw) + 32'(l);
  endfunction
  function automatic logic [31:0] sp_of(input logic [WarpW-1:0] w, input int l,
                                        input logic [31:0] top, input logic [31:0] wss,
                                        input logic [31:0] ss);
    sp_of = top - 32'(32'(w) * wss) - 32'(32'(l) * ss);
  endfunction

  // ---------------------------------------------------------------------------------------------
  // Warp status, one block per warp (named for waves: g_warp[w].pc, .mask, .ready): the min pc
  // over its runnable threads and the threads at it.
  // ---------------------------------------------------------------------------------------------
  logic [Warps-1:0]         has_run, eligible, blocked;
  logic [Warps*32-1:0]      minpc;
  logic [Warps*Threads-1:0] amask;

  for (genvar w = 0; w < Warps; w++) begin : g_warp
    logic               runnable;  // some thread neither exited nor waiting at a barrier
    logic [31:0]        pc;        // the warp's pc: the minimum pc of its runnable threads
    logic [Threads-1:0] mask;      // its runnable threads at pc: the next issue's active mask
    logic               ready;     // may issue now: runnable, nothing in flight, not waiting

    always_comb begin : p_min_pc
      runnable = 1'b0;
      pc       = '1;
      for (int l = 0; l < Threads; l++) begin
        if (!exited_q[w*Threads + l] && !bar_q[w*Threads + l]) begin
          runnable = 1'b1;
          if (pc_q[32*(w*Threads + l) +: 32] < pc) pc = pc_q[32*(w*Threads + l) +: 32];
        end
      end
    end

    always_comb begin : p_mask
      for (int l = 0; l < Threads; l++) begin
        mask[l] = !exited_q[w*Threads + l] && !bar_q[w*Threads + l] &&
                  (pc_q[32*(w*Threads + l) +: 32] == pc);
      end
    end

    assign ready                      = run_q && !err_q && runnable && !inflight_q[w] && !blocked[w];
    assign has_run[w]                 = runnable;
    assign minpc[32*w +: 32]          = pc;
    assign amask[Threads*w +: Threads] = mask;
    assign eligible[w]                = ready;
  end

  // ---------------------------------------------------------------------------------------------
  // IS: round-robin warp choice, fetch
  // ---------------------------------------------------------------------------------------------
  logic               is_fire;
  logic [WarpW-1:0]   is_w;
  logic [31:0]        is_pc;
  logic [1:0]         is_ff;

  // A replayed warp waits until what its instruction needs is ready: the registers it uses free
  // in the scoreboard (after this cycle's write backs), the divider free, room in the LSU queue.
  logic [Warps*32-1:0] sb_next;
  logic [Warps-1:0]    release_w;

  always_comb begin : p_release
    sb_next = sb_div_q | sb_mem_q;
    if (div_wb) sb_next[32*div_wb_w + 32'(div_wb_rd)] = 1'b0;
    if (lsu_wb) sb_next[32*lsu_wb_w + 32'(lsu_wb_rd)] = 1'b0;
    for (int w = 0; w < Warps; w++) begin
      release_w[w] = ((wregs_q[32*w +: 32] & sb_next[32*w +: 32]) == '0) &&
                     !(wdiv_q[w] && div_busy && !div_wb) &&
                     !(wlsu_q[w] && lsu_slots == 2'd0);
    end
    blocked = blk_q & ~release_w;
  end

  always_comb begin : p_issue
    is_w = '0;
    for (int w = Warps - 1; w >= 0; w--) begin
      if (eligible[w]) is_w = WarpW'(w);
    end
    for (int w = Warps - 1; w >= 0; w--) begin  // the first after the last winner takes precedence
      if (eligible[w] && WarpW'(w) > rr_q) is_w = WarpW'(w);
    end
    is_fire = |eligible;
    is_pc   = minpc[32*is_w +: 32];
    if (is_pc[1:0] != 2'b00)                               is_ff = FfAlign;
    else if ({2'b00, is_pc[31:2]} >= 32'(ImemWords))        is_ff = FfRange;
    else                                                    is_ff = FfNone;
  end

  logic [31:0] imem_rdata;

  weft_sram_1rw #(
    .Depth (ImemWords),
    .Width (32)
  ) u_imem (
    .clk_i   (clk_i),
    .req_i   (imem_we_i || (is_fire && is_ff == FfNone)),
    .we_i    (imem_we_i),
    .addr_i  (imem_we_i ? imem_addr_i : is_pc[2 +: ImemAddrW]),
    .wdata_i (imem_wdata_i),
    .be_i    (4'hF),
    .rdata_o (imem_rdata)
  );

  // ---------------------------------------------------------------------------------------------
  // RR: decode, register read, hazards
  // ---------------------------------------------------------------------------------------------
  logic        rr_illegal, rr_lui, rr_auipc, rr_jal, rr_jalr, rr_branch, rr_load, rr_store, rr_alu;
  logic        rr_mul, rr_div, rr_ecall, rr_ebreak, rr_csr, rr_bar, rr_uses1, rr_uses2, rr_writes;
  logic [31:0] rr_imm;

  weft_simt_decode u_rr_dec (
    .insn_i        (imem_rdata),
    .illegal_o     (rr_illegal),
    .is_lui_o      (rr_lui),
    .is_auipc_o    (rr_auipc),
    .is_jal_o      (rr_jal),
    .is_jalr_o     (rr_jalr),
    .is_branch_o   (rr_branch),
    .is_load_o     (rr_load),
    .is_store_o    (rr_store),
    .is_alu_o      (rr_alu),
    .is_mul_o      (rr_mul),
    .is_div_o      (rr_div),
    .is_ecall_o    (rr_ecall),
    .is_ebreak_o   (rr_ebreak),
    .is_csr_o      (rr_csr),
    .csr_barrier_o (rr_bar),
    .imm_o         (rr_imm),
    .uses_rs1_o    (rr_uses1),
    .uses_rs2_o    (rr_uses2),
    .writes_rd_o   (rr_writes)
  );

  logic unused_done;
  assign unused_done = lsu_done;  // replayed warps wait for their own conditions (p_release)

  logic unused_rr;
  assign unused_rr = ^{rr_illegal, rr_lui, rr_auipc, rr_jal, rr_jalr, rr_branch, rr_alu, rr_mul,
                       rr_ebreak, rr_csr, rr_bar, rr_imm};

  // ECALL reads a7 (exit check) and a0 (exit code) through the two read ports.
  logic [4:0]            rr_rs1, rr_rs2, rr_rd;
  logic                  rr_use1, rr_use2;
  logic [Threads*32-1:0] rf_rs1, rf_rs2, rr_a, rr_b;
  logic [Threads-1:0]    rf_rs1_wr, rf_rs2_wr;

  assign rr_rs1  = rr_ecall ? 5'd17 : imem_rdata[19:15];
  assign rr_rs2  = rr_ecall ? 5'd10 : imem_rdata[24:20];
  assign rr_rd   = imem_rdata[11:7];
  assign rr_use1 = rr_uses1 || rr_ecall;
  assign rr_use2 = rr_uses2 || rr_ecall;

  // Registers never written since the launch hold their launch value. A divider or LSU write back
  // of this cycle (written into the register file at its end) is forwarded.
  logic fw_div1, fw_div2, fw_lsu1, fw_lsu2;
  assign fw_div1 = div_wb && div_wb_w == fd_w_q && div_wb_rd == rr_rs1;
  assign fw_div2 = div_wb && div_wb_w == fd_w_q && div_wb_rd == rr_rs2;
  assign fw_lsu1 = lsu_wb && lsu_wb_w == fd_w_q && lsu_wb_rd == rr_rs1;
  assign fw_lsu2 = lsu_wb && lsu_wb_w == fd_w_q && lsu_wb_rd == rr_rs2;

  always_comb begin : p_operands
    for (int l = 0; l < Threads; l++) begin
      rr_a[32*l +: 32] = rf_rs1_wr[l] ? rf_rs1[32*l +: 32] : 32'd0;
      rr_b[32*l +: 32] = rf_rs2_wr[l] ? rf_rs2[32*l +: 32] : 32'd0;
      if (!rf_rs1_wr[l]) begin
        if (rr_rs1 == 5'd2)       rr_a[32*l +: 32] = sp_of(fd_w_q, l, stop_q, wss_q, ss_q);
        else if (rr_rs1 == 5'd10) rr_a[32*l +: 32] = arg_q;
        else if (rr_rs1 == 5'd11) rr_a[32*l +: 32] = tid_of(fd_w_q, l, tpw_q);
      end
      if (!rf_rs2_wr[l]) begin
        if (rr_rs2 == 5'd2)       rr_b[32*l +: 32] = sp_of(fd_w_q, l, stop_q, wss_q, ss_q);
        else if (rr_rs2 == 5'd10) rr_b[32*l +: 32] = arg_q;
        else if (rr_rs2 == 5'd11) rr_b[32*l +: 32] = tid_of(fd_w_q, l, tpw_q);
      end
      if (fw_div1 && div_wb_mask[l]) rr_a[32*l +: 32] = div_wb_data[32*l +: 32];
      if (fw_lsu1 && lsu_wb_mask[l]) rr_a[32*l +: 32] = lsu_wb_data[32*l +: 32];
      if (fw_div2 && div_wb_mask[l]) rr_b[32*l +: 32] = div_wb_data[32*l +: 32];
      if (fw_lsu2 && lsu_wb_mask[l]) rr_b[32*l +: 32] = lsu_wb_data[32*l +: 32];
    end
  end

  // EX-stage decode (unit hand-off).
  logic        ex_illegal, ex_lui, ex_auipc, ex_jal, ex_jalr, ex_branch, ex_load, ex_store, ex_alu;
  logic        ex_mul, ex_div, ex_ecall, ex_ebreak, ex_csr, ex_bar, ex_uses1, ex_uses2, ex_writes;
  logic [31:0] ex_imm;
  logic [4:0]  ex_rd;
  logic        ex_to_div, ex_to_lsu;   // EX holds an instruction that will start a unit

  weft_simt_decode u_ex_dec (
    .insn_i        (ex_insn_q),
    .illegal_o     (ex_illegal),
    .is_lui_o      (ex_lui),
    .is_auipc_o    (ex_auipc),
    .is_jal_o      (ex_jal),
    .is_jalr_o     (ex_jalr),
    .is_branch_o   (ex_branch),
    .is_load_o     (ex_load),
    .is_store_o    (ex_store),
    .is_alu_o      (ex_alu),
    .is_mul_o      (ex_mul),
    .is_div_o      (ex_div),
    .is_ecall_o    (ex_ecall),
    .is_ebreak_o   (ex_ebreak),
    .is_csr_o      (ex_csr),
    .csr_barrier_o (ex_bar),
    .imm_o         (ex_imm),
    .uses_rs1_o    (ex_uses1),
    .uses_rs2_o    (ex_uses2),
    .writes_rd_o   (ex_writes)
  );

  logic unused_ex;
  assign unused_ex = ^{ex_illegal, ex_lui, ex_auipc, ex_jal, ex_jalr, ex_branch, ex_alu, ex_mul,
                       ex_ecall, ex_ebreak, ex_csr, ex_bar, ex_imm, ex_uses1, ex_uses2, ex_writes};

  assign ex_rd     = ex_insn_q[11:7];
  assign ex_to_div = ex_valid_q && ex_ff_q == FfNone && ex_div && ex_rd != 5'd0;
  assign ex_to_lsu = ex_valid_q && ex_ff_q == FfNone && (ex_store || (ex_load && ex_rd != 5'd0));
  assign wb_rd     = wb_insn_q[11:7];
  assign wb_to_div = wb_valid_q && wb_ff_q == FfNone && wb_div_q && wb_rd != 5'd0;
  assign wb_to_lsu = wb_valid_q && wb_ff_q == FfNone && (wb_store_q || (wb_load_q && wb_rd != 5'd0));

  logic [31:0] sbd, sbm, rr_regs;
  logic        hit_div, hit_mem, rr_replay;

  // The scoreboard of the warp in RR after this cycle's write backs (their values are forwarded).
  always_comb begin : p_sb_rr
    sbd = sb_div_q[32*fd_w_q +: 32];
    sbm = sb_mem_q[32*fd_w_q +: 32];
    if (div_wb && div_wb_w == fd_w_q) sbd[div_wb_rd] = 1'b0;
    if (lsu_wb && lsu_wb_w == fd_w_q) sbm[lsu_wb_rd] = 1'b0;
    rr_regs = '0;
    if (rr_use1)   rr_regs[rr_rs1] = 1'b1;
    if (rr_use2)   rr_regs[rr_rs2] = 1'b1;
    if (rr_writes) rr_regs[rr_rd]  = 1'b1;
  end

  // A divide needs the divider free when it leaves WB; a load or store needs a free LSU queue
  // entry then (the LSU's slots after this cycle, less those the LSU instructions in WB and EX
  // take).
  assign hit_div = ((rr_regs & sbd) != '0) || (rr_div && (div_busy || ex_to_div || wb_to_div));
  assign hit_mem = ((rr_regs & sbm) != '0) ||
                   ((rr_load || rr_store) &&
                    (lsu_slots < 2'd1 + 2'(ex_to_lsu) + 2'(wb_to_lsu)));
  assign rr_replay = fd_valid_q && fd_ff_q == FfNone && (hit_div || hit_mem);

  // ---------------------------------------------------------------------------------------------
  // EX: lanes, faults, commit
  // ---------------------------------------------------------------------------------------------
  logic [Threads-1:0]    ln_we, ln_exit, ln_bar, ln_fault;
  logic [Threads*32-1:0] ln_wdata, ln_npc, ln_addr, ln_tval, ln_csr;
  logic [Threads*8-1:0]  ln_code;

  for (genvar l = 0; l < Threads; l++) begin : g_lane
    always_comb begin : p_csr
      unique case (ex_insn_q[22:20])
        3'd0:    ln_csr[32*l +: 32] = tid_of(ex_w_q, l, tpw_q);
        3'd1:    ln_csr[32*l +: 32] = 32'(ex_w_q);
        3'd2:    ln_csr[32*l +: 32] = 32'(l);
        3'd3:    ln_csr[32*l +: 32] = blkid_q;
        3'd4:    ln_csr[32*l +: 32] = nthr_q;
        3'd5:    ln_csr[32*l +: 32] = arg_q;
        3'd6:    ln_csr[32*l +: 32] = nw_q;
        default: ln_csr[32*l +: 32] = tpw_q;
      endcase
    end

    weft_simt_lane #(
      .DmemBytes (DmemBytes)
    ) u_lane (
      .insn_i       (ex_insn_q),
      .pc_i         (ex_pc_q),
      .a_i          (ex_a_q[32*l +: 32]),
      .b_i          (ex_b_q[32*l +: 32]),
      .csr_val_i    (ln_csr[32*l +: 32]),
      .we_o         (ln_we[l]),
      .wdata_o      (ln_wdata[32*l +: 32]),
      .next_pc_o    (ln_npc[32*l +: 32]),
      .addr_o       (ln_addr[32*l +: 32]),
      .exit_o       (ln_exit[l]),
      .barrier_o    (ln_bar[l]),
      .fault_o      (ln_fault[l]),
      .fault_code_o (ln_code[8*l +: 8]),
      .fault_tval_o (ln_tval[32*l +: 32])
    );
  end

  // ---------------------------------------------------------------------------------------------
  // WB: faults, commit
  // ---------------------------------------------------------------------------------------------
  always_ff @(posedge clk_i or negedge rst_ni) begin : p_wb_valid
    if (!rst_ni) wb_valid_q <= 1'b0;
    else         wb_valid_q <= ex_valid_q;
  end

  always_ff @(posedge clk_i) begin : p_wb_data
    wb_w_q     <= ex_w_q;
    wb_pc_q    <= ex_pc_q;
    wb_insn_q  <= ex_insn_q[14:7];
    wb_mask_q  <= ex_mask_q;
    wb_ff_q    <= ex_ff_q;
    wb_div_q   <= ex_div;
    wb_load_q  <= ex_load;
    wb_store_q <= ex_store;
    wb_a_q     <= ex_a_q;
    wb_b_q     <= ex_b_q;
    wb_we_q    <= ln_we;
    wb_exit_q  <= ln_exit;
    wb_bar_q   <= ln_bar;
    wb_fault_q <= ln_fault;
    wb_wdata_q <= ln_wdata;
    wb_npc_q   <= ln_npc;
    wb_addr_q  <= ln_addr;
    wb_tval_q  <= ln_tval;
    wb_code_q  <= ln_code;
  end

  logic              ex_err, commit;
  logic [7:0]        ex_err_code;
  logic [31:0]       ex_err_tval;
  int unsigned       ex_err_lane;

  always_comb begin : p_fault
    int unsigned first;
    logic        lane_fault;
    int unsigned fl;
    first      = 0;
    lane_fault = 1'b0;
    fl         = 0;
    for (int l = Threads - 1; l >= 0; l--) begin
      if (wb_mask_q[l]) first = l;
      if (wb_mask_q[l] && wb_fault_q[l]) begin
        lane_fault = 1'b1;
        fl         = l;
      end
    end
    ex_err_lane = first;
    ex_err_code = '0;
    ex_err_tval = '0;
    if (max_q != 32'd0 && issued_q >= max_q) begin
      ex_err_code = ErrStepLimit;
    end else if (wb_ff_q != FfNone) begin
      ex_err_code = (wb_ff_q == FfAlign) ? ErrFetchAlign : ErrFetchRange;
      ex_err_tval = wb_pc_q;
    end else if (lane_fault) begin
      ex_err_lane = fl;
      ex_err_code = wb_code_q[8*fl +: 8];
      ex_err_tval = wb_tval_q[32*fl +: 32];
    end
    ex_err = wb_valid_q && !err_q && (ex_err_code != 8'd0);
    commit = wb_valid_q && !err_q && !ex_err;
  end

  // ---------------------------------------------------------------------------------------------
  // Divider and load/store unit
  // ---------------------------------------------------------------------------------------------
  assign div_start = commit && wb_to_div;
  assign lsu_start = commit && wb_to_lsu;

  weft_simt_div #(
    .Warps   (Warps),
    .Threads (Threads)
  ) u_div (
    .clk_i      (clk_i),
    .rst_ni     (rst_ni),
    .start_i    (div_start),
    .w_i        (wb_w_q),
    .rd_i       (wb_rd),
    .op_i       (wb_insn_q[13:12]),
    .mask_i     (wb_mask_q),
    .a_i        (wb_a_q),
    .b_i        (wb_b_q),
    .busy_o     (div_busy),
    .wb_valid_o (div_wb),
    .wb_w_o     (div_wb_w),
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
    .w_i        (wb_w_q),
    .rd_i       (wb_rd),
    .f3_i       (wb_insn_q[14:12]),
    .store_i    (wb_store_q),
    .mask_i     (wb_mask_q),
    .addr_i     (wb_addr_q),
    .wdata_i    (wb_b_q),
    .busy_o     (lsu_busy),
    .slots_o    (lsu_slots),
    .done_o     (lsu_done),
    .wb_valid_o (lsu_wb),
    .wb_w_o     (lsu_wb_w),
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

  // ---------------------------------------------------------------------------------------------
  // Register files: port 0 EX, port 1 divider, port 2 LSU
  // ---------------------------------------------------------------------------------------------
  logic start_ok;
  assign start_ok = start_i && !run_q;

  weft_simt_regfile #(
    .Warps   (Warps),
    .Threads (Threads)
  ) u_rf (
    .clk_i         (clk_i),
    .rst_ni        (rst_ni),
    .clear_i       (start_ok),
    .rd_w_i        (fd_w_q),
    .rs1_i         (rr_rs1),
    .rs2_i         (rr_rs2),
    .rs1_o         (rf_rs1),
    .rs1_written_o (rf_rs1_wr),
    .rs2_o         (rf_rs2),
    .rs2_written_o (rf_rs2_wr),
    .we_i          ({lsu_wb, div_wb, commit && wb_rd != 5'd0}),
    .w_i           ({lsu_wb_w, div_wb_w, wb_w_q}),
    .rd_i          ({lsu_wb_rd, div_wb_rd, wb_rd}),
    .mask_i        ({lsu_wb_mask, div_wb_mask, wb_mask_q & wb_we_q}),
    .data_i        ({lsu_wb_data, div_wb_data, wb_wdata_q})
  );

  // ---------------------------------------------------------------------------------------------
  // Next state
  // ---------------------------------------------------------------------------------------------
  logic release_bar, all_exited, drained, finish;

  assign all_exited  = &exited_q;
  assign release_bar = run_q && !err_q && (|bar_q) && (&(exited_q | bar_q));
  assign drained     = !fd_valid_q && !ex_valid_q && !wb_valid_q && !div_busy && !lsu_busy;
  assign finish      = run_q && (all_exited || err_q) && drained;

  always_comb begin : p_next
    logic        present, launch_ok;
    int unsigned idx;
    logic [31:0] nact;
    present   = 1'b0;
    launch_ok = 1'b0;
    idx       = 0;
    nact      = '0;

    run_d        = run_q;
    nw_d         = nw_q;
    tpw_d        = tpw_q;
    nthr_d       = nthr_q;
    blkid_d      = blkid_q;
    arg_d        = arg_q;
    stop_d       = stop_q;
    ss_d         = ss_q;
    wss_d        = wss_q;
    max_d        = max_q;
    pc_d         = pc_q;
    exited_d     = exited_q;
    bar_d        = bar_q;
    exit_code_d  = exit_code_q;
    retired_d    = retired_q;
    inflight_d   = inflight_q;
    blk_d        = blocked;
    blkdiv_d     = blkdiv_q;
    wregs_d      = wregs_q;
    wdiv_d       = wdiv_q;
    wlsu_d       = wlsu_q;
    sb_div_d     = sb_div_q;
    sb_mem_d     = sb_mem_q;
    wissue_d     = wissue_q;
    wactive_d    = wactive_q;
    rr_d         = rr_q;
    err_d        = err_q;
    err_code_d   = err_code_q;
    err_pc_d     = err_pc_q;
    err_thread_d = err_thread_q;
    err_tval_d   = err_tval_q;
    cyc_d        = cyc_q;
    issued_d     = issued_q;
    active_d     = active_q;
    replays_d    = replays_q;
    st_pipe_d    = st_pipe_q;
    st_div_d     = st_div_q;
    st_mem_d     = st_mem_q;
    st_bar_d     = st_bar_q;
    barriers_d   = barriers_q;

    // IS -> RR
    fd_valid_d = is_fire;
    fd_w_d     = is_w;
    fd_pc_d    = is_pc;
    fd_mask_d  = amask[Threads*is_w +: Threads];
    fd_ff_d    = is_ff;
    if (is_fire) begin
      inflight_d[is_w] = 1'b1;
      rr_d             = is_w;
    end

    // RR -> EX (or replay)
    ex_valid_d = fd_valid_q && !rr_replay;
    ex_w_d     = fd_w_q;
    ex_pc_d    = fd_pc_q;
    ex_mask_d  = fd_mask_q;
    ex_ff_d    = fd_ff_q;
    ex_insn_d  = imem_rdata;
    ex_a_d     = rr_a;
    ex_b_d     = rr_b;
    if (rr_replay) begin
      inflight_d[fd_w_q] = 1'b0;
      blk_d[fd_w_q]      = 1'b1;
      blkdiv_d[fd_w_q]   = hit_div;
      wregs_d[32*fd_w_q +: 32] = rr_regs;
      wdiv_d[fd_w_q]     = rr_div;
      wlsu_d[fd_w_q]     = rr_load || rr_store;
      replays_d          = replays_q + 32'd1;
    end

    // Scoreboard
    if (div_wb) sb_div_d[32*div_wb_w + 32'(div_wb_rd)] = 1'b0;
    if (lsu_wb) sb_mem_d[32*lsu_wb_w + 32'(lsu_wb_rd)] = 1'b0;
    if (div_start) sb_div_d[32*wb_w_q + 32'(wb_rd)] = 1'b1;
    if (lsu_start && wb_load_q) sb_mem_d[32*wb_w_q + 32'(wb_rd)] = 1'b1;

    // WB: commit or fault
    if (wb_valid_q) inflight_d[wb_w_q] = 1'b0;
    if (release_bar) begin
      bar_d      = '0;
      barriers_d = barriers_q + 32'd1;
    end
    if (commit) begin
      for (int l = 0; l < Threads; l++) begin
        idx = 32'(wb_w_q) * Threads + l;
        if (wb_mask_q[l]) begin
          nact                    = nact + 32'd1;
          pc_d[32*idx +: 32]      = wb_npc_q[32*l +: 32];
          retired_d[32*idx +: 32] = retired_q[32*idx +: 32] + 32'd1;
          if (wb_exit_q[l]) begin
            exited_d[idx]             = 1'b1;
            exit_code_d[32*idx +: 32] = wb_b_q[32*l +: 32];
          end
          if (wb_bar_q[l]) bar_d[idx] = 1'b1;
        end
      end
      issued_d                   = issued_q + 32'd1;
      active_d                   = active_q + nact;
      wissue_d[32*wb_w_q +: 32]  = wissue_q[32*wb_w_q +: 32] + 32'd1;
      wactive_d[32*wb_w_q +: 32] = wactive_q[32*wb_w_q +: 32] + nact;
    end
    if (ex_err) begin
      err_d        = 1'b1;
      err_code_d   = ex_err_code;
      err_pc_d     = wb_pc_q;
      err_thread_d = tid_of(wb_w_q, int'(ex_err_lane), tpw_q);
      err_tval_d   = ex_err_tval;
    end

    // Performance: why nothing issued this cycle
    if (run_q) begin
      cyc_d = cyc_q + 32'd1;
      if (!is_fire && !err_q) begin
        if (|has_run) begin
          if (|(has_run & blocked & blkdiv_q))       st_div_d  = st_div_q + 32'd1;
          else if (|(has_run & blocked & ~blkdiv_q)) st_mem_d  = st_mem_q + 32'd1;
          else                                     st_pipe_d = st_pipe_q + 32'd1;
        end else if (|(bar_q & ~exited_q)) begin
          st_bar_d = st_bar_q + 32'd1;
        end else begin
          st_pipe_d = st_pipe_q + 32'd1;
        end
      end
    end

    if (finish) run_d = 1'b0;

    // Launch
    if (start_ok) begin
      launch_ok = (start_num_warps_i >= 32'd1) && (start_num_warps_i <= 32'(Warps)) &&
                  (start_threads_i >= 32'd1) && (start_threads_i <= 32'(Threads));
      run_d   = 1'b1;
      nw_d    = start_num_warps_i;
      tpw_d   = start_threads_i;
      nthr_d  = 32'(start_num_warps_i * start_threads_i);
      blkid_d = start_block_id_i;
      arg_d   = start_arg_ptr_i;
      stop_d  = start_stack_top_i;
      ss_d    = start_stack_size_i;
      wss_d   = 32'(start_threads_i * start_stack_size_i);
      max_d   = start_max_issues_i;
      for (int w = 0; w < Warps; w++) begin
        for (int l = 0; l < Threads; l++) begin
          present = (32'(w) < start_num_warps_i) && (32'(l) < start_threads_i);
          exited_d[w*Threads + l] = !(present && launch_ok);
        end
      end
      pc_d         = {NumThr{start_pc_i}};
      bar_d        = '0;
      exit_code_d  = '0;
      retired_d    = '0;
      inflight_d   = '0;
      blk_d        = '0;
      blkdiv_d     = '0;
      wregs_d      = '0;
      wdiv_d       = '0;
      wlsu_d       = '0;
      sb_div_d     = '0;
      sb_mem_d     = '0;
      wissue_d     = '0;
      wactive_d    = '0;
      rr_d         = WarpW'(Warps - 1);
      err_d        = !launch_ok;
      err_code_d   = launch_ok ? 8'd0 : ErrBadLaunch;
      err_pc_d     = launch_ok ? 32'd0 : start_pc_i;
      err_thread_d = '0;
      err_tval_d   = '0;
      cyc_d        = '0;
      issued_d     = '0;
      active_d     = '0;
      replays_d    = '0;
      st_pipe_d    = '0;
      st_div_d     = '0;
      st_mem_d     = '0;
      st_bar_d     = '0;
      barriers_d   = '0;
    end
  end

  always_ff @(posedge clk_i or negedge rst_ni) begin : p_regs
    if (!rst_ni) begin
      run_q        <= 1'b0;
      nw_q         <= '0;
      tpw_q        <= '0;
      nthr_q       <= '0;
      blkid_q      <= '0;
      arg_q        <= '0;
      stop_q       <= '0;
      ss_q         <= '0;
      wss_q        <= '0;
      max_q        <= '0;
      pc_q         <= '0;
      exited_q     <= '1;
      bar_q        <= '0;
      exit_code_q  <= '0;
      retired_q    <= '0;
      inflight_q   <= '0;
      blk_q        <= '0;
      blkdiv_q     <= '0;
      wregs_q      <= '0;
      wdiv_q       <= '0;
      wlsu_q       <= '0;
      sb_div_q     <= '0;
      sb_mem_q     <= '0;
      wissue_q     <= '0;
      wactive_q    <= '0;
      rr_q         <= '0;
      fd_valid_q   <= 1'b0;
      fd_w_q       <= '0;
      fd_pc_q      <= '0;
      fd_mask_q    <= '0;
      fd_ff_q      <= '0;
      ex_valid_q   <= 1'b0;
      ex_w_q       <= '0;
      ex_pc_q      <= '0;
      ex_mask_q    <= '0;
      ex_ff_q      <= '0;
      ex_insn_q    <= '0;
      ex_a_q       <= '0;
      ex_b_q       <= '0;
      err_q        <= 1'b0;
      err_code_q   <= '0;
      err_pc_q     <= '0;
      err_thread_q <= '0;
      err_tval_q   <= '0;
      cyc_q        <= '0;
      issued_q     <= '0;
      active_q     <= '0;
      replays_q    <= '0;
      st_pipe_q    <= '0;
      st_div_q     <= '0;
      st_mem_q     <= '0;
      st_bar_q     <= '0;
      barriers_q   <= '0;
    end else begin
      run_q        <= run_d;
      nw_q         <= nw_d;
      tpw_q        <= tpw_d;
      nthr_q       <= nthr_d;
      blkid_q      <= blkid_d;
      arg_q        <= arg_d;
      stop_q       <= stop_d;
      ss_q         <= ss_d;
      wss_q        <= wss_d;
      max_q        <= max_d;
      pc_q         <= pc_d;
      exited_q     <= exited_d;
      bar_q        <= bar_d;
      exit_code_q  <= exit_code_d;
      retired_q    <= retired_d;
      inflight_q   <= inflight_d;
      blk_q        <= blk_d;
      blkdiv_q     <= blkdiv_d;
      wregs_q      <= wregs_d;
      wdiv_q       <= wdiv_d;
      wlsu_q       <= wlsu_d;
      sb_div_q     <= sb_div_d;
      sb_mem_q     <= sb_mem_d;
      wissue_q     <= wissue_d;
      wactive_q    <= wactive_d;
      rr_q         <= rr_d;
      fd_valid_q   <= fd_valid_d;
      fd_w_q       <= fd_w_d;
      fd_pc_q      <= fd_pc_d;
      fd_mask_q    <= fd_mask_d;
      fd_ff_q      <= fd_ff_d;
      ex_valid_q   <= ex_valid_d;
      ex_w_q       <= ex_w_d;
      ex_pc_q      <= ex_pc_d;
      ex_mask_q    <= ex_mask_d;
      ex_ff_q      <= ex_ff_d;
      ex_insn_q    <= ex_insn_d;
      ex_a_q       <= ex_a_d;
      ex_b_q       <= ex_b_d;
      err_q        <= err_d;
      err_code_q   <= err_code_d;
      err_pc_q     <= err_pc_d;
      err_thread_q <= err_thread_d;
      err_tval_q   <= err_tval_d;
      cyc_q        <= cyc_d;
      issued_q     <= issued_d;
      active_q     <= active_d;
      replays_q    <= replays_d;
      st_pipe_q    <= st_pipe_d;
      st_div_q     <= st_div_d;
      st_mem_q     <= st_mem_d;
      st_bar_q     <= st_bar_d;
      barriers_q   <= barriers_d;
    end
  end

  // ---------------------------------------------------------------------------------------------
  // Outputs
  // ---------------------------------------------------------------------------------------------
  assign busy_o               = run_q;
  assign done_o               = finish;
  assign err_code_o           = err_code_q;
  assign err_pc_o             = err_pc_q;
  assign err_thread_o         = err_thread_q;
  assign err_tval_o           = err_tval_q;
  assign perf_cycles_o        = cyc_q;
  assign perf_issued_o        = issued_q;
  assign perf_active_o        = active_q;
  assign perf_stall_pipe_o    = st_pipe_q;
  assign perf_stall_div_o     = st_div_q;
  assign perf_stall_mem_o     = st_mem_q;
  assign perf_stall_barrier_o = st_bar_q;
  assign perf_replays_o       = replays_q;
  assign perf_barriers_o      = barriers_q;
  assign dbg_retired_o        = retired_q[32*dbg_thread_i +: 32];
  assign dbg_exit_code_o      = exit_code_q[32*dbg_thread_i +: 32];
  assign dbg_exited_o         = exited_q[dbg_thread_i];
  assign dbg_warp_issues_o    = wissue_q[32*dbg_warp_i +: 32];
  assign dbg_warp_active_o    = wactive_q[32*dbg_warp_i +: 32];

`ifndef SYNTHESIS
  // The instruction memory has one port: the host writes it only between launches.
  always @(posedge clk_i or negedge rst_ni) begin : p_check_imem
    if (rst_ni && imem_we_i) begin
      assert (!run_q) else $error("%m: imem written during a launch");
    end
  end
`endif

endmodule
