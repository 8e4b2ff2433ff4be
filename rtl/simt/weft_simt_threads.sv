// weft_simt_threads: the state of every thread outside the register file: pc, exited, waiting at
// the barrier, exit code and retired count (thread w * Threads + l at index w * Threads + l).
//
// - Launch: every pc is the entry pc; threads that do not exist in the launch start exited.
// - Commit (WB, weft_simt_commit): each active lane of the committing warp takes its next pc and
//   counts one retired instruction; an exit records the exit code, a barrier CSR read marks it
//   as waiting.
// - Barrier (docs/simt-model.md): once every thread that has not exited waits (and one does), all
//   are released together (barrier_release_o, one cycle); a commit of that cycle may mark a new
//   waiter, which then stays.
// Why a module: the scheduler reads this state and only WB writes it; here it is written in one
// place, in the order launch > commit > release.
module weft_simt_threads #(
  parameter int  Warps   = 4,
  parameter int  Threads = 8,
  localparam int WarpW   = (Warps > 1) ? $clog2(Warps) : 1,
  localparam int NumThr  = Warps * Threads,
  localparam int ThrW    = (NumThr > 1) ? $clog2(NumThr) : 1
) (
  input  logic                  clk_i,
  input  logic                  rst_ni,
  input  logic                  launch_i,
  input  logic [NumThr-1:0]     launch_threads_i,   // the threads that exist in the launch
  input  logic [31:0]           launch_pc_i,
  input  logic                  issuing_i,          // the launch runs and no error stopped it
  // Commit of one warp instruction (per lane of the warp).
  input  logic                  commit_i,
  input  logic [WarpW-1:0]      commit_warp_i,
  input  logic [Threads-1:0]    commit_mask_i,
  input  logic [Threads*32-1:0] commit_next_pc_i,
  input  logic [Threads-1:0]    commit_exit_i,
  input  logic [Threads*32-1:0] commit_exit_code_i,
  input  logic [Threads-1:0]    commit_barrier_i,
  // State.
  output logic [NumThr*32-1:0]  pc_o,
  output logic [NumThr-1:0]     exited_o,
  output logic [NumThr-1:0]     at_barrier_o,
  output logic                  all_exited_o,
  output logic                  barrier_release_o,
  // Debug read port.
  input  logic [ThrW-1:0]       dbg_thread_i,
  output logic [31:0]           dbg_retired_o,
  output logic [31:0]           dbg_exit_code_o,
  output logic                  dbg_exited_o
);

  logic [NumThr*32-1:0] pc_q, pc_d, exit_code_q, exit_code_d, retired_q, retired_d;
  logic [NumThr-1:0]    exited_q, exited_d, at_barrier_q, at_barrier_d;

  assign all_exited_o      = &exited_q;
  assign barrier_release_o = issuing_i && (|at_barrier_q) && (&(exited_q | at_barrier_q));

  always_comb begin : p_next
    int unsigned idx;
    idx          = 0;
    pc_d         = pc_q;
    exited_d     = exited_q;
    at_barrier_d = at_barrier_q;
    exit_code_d  = exit_code_q;
    retired_d    = retired_q;
    if (barrier_release_o) at_barrier_d = '0;
    if (commit_i) begin
      for (int l = 0; l < Threads; l++) begin
        idx = 32'(commit_warp_i) * Threads + l;
        if (commit_mask_i[l]) begin
          pc_d[32*idx +: 32]      = commit_next_pc_i[32*l +: 32];
          retired_d[32*idx +: 32] = retired_q[32*idx +: 32] + 32'd1;
          if (commit_exit_i[l]) begin
            exited_d[idx]             = 1'b1;
            exit_code_d[32*idx +: 32] = commit_exit_code_i[32*l +: 32];
          end
          if (commit_barrier_i[l]) at_barrier_d[idx] = 1'b1;
        end
      end
    end
    if (launch_i) begin
      pc_d         = {NumThr{launch_pc_i}};
      exited_d     = ~launch_threads_i;
      at_barrier_d = '0;
      exit_code_d  = '0;
      retired_d    = '0;
    end
  end

  always_ff @(posedge clk_i or negedge rst_ni) begin : p_regs
    if (!rst_ni) begin
      pc_q         <= '0;
      exited_q     <= '1;
      at_barrier_q <= '0;
      exit_code_q  <= '0;
      retired_q    <= '0;
    end else begin
      pc_q         <= pc_d;
      exited_q     <= exited_d;
      at_barrier_q <= at_barrier_d;
      exit_code_q  <= exit_code_d;
      retired_q    <= retired_d;
    end
  end

  assign pc_o            = pc_q;
  assign exited_o        = exited_q;
  assign at_barrier_o    = at_barrier_q;
  assign dbg_retired_o   = retired_q[32*dbg_thread_i +: 32];
  assign dbg_exit_code_o = exit_code_q[32*dbg_thread_i +: 32];
  assign dbg_exited_o    = exited_q[dbg_thread_i];

endmodule
