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

  // Every thread's state, written by launch, commit and release.
  typedef struct packed {
    logic [NumThr*32-1:0] pc;
    logic [NumThr-1:0]    exited;
    logic [NumThr-1:0]    at_barrier;
    logic [NumThr*32-1:0] exit_code;
    logic [NumThr*32-1:0] retired;
  } state_t;
  state_t st_q, st_d;

  assign all_exited_o      = &st_q.exited;
  assign barrier_release_o = issuing_i && (|st_q.at_barrier) && (&(st_q.exited | st_q.at_barrier));

  always_comb begin : p_next
    int unsigned idx;
    idx  = 0;
    st_d = st_q;
    if (barrier_release_o) st_d.at_barrier = '0;
    if (commit_i) begin
      for (int l = 0; l < Threads; l++) begin
        idx = 32'(commit_warp_i) * Threads + l;
        if (commit_mask_i[l]) begin
          st_d.pc[32*idx +: 32]      = commit_next_pc_i[32*l +: 32];
          st_d.retired[32*idx +: 32] = st_q.retired[32*idx +: 32] + 32'd1;
          if (commit_exit_i[l]) begin
            st_d.exited[idx]             = 1'b1;
            st_d.exit_code[32*idx +: 32] = commit_exit_code_i[32*l +: 32];
          end
          if (commit_barrier_i[l]) st_d.at_barrier[idx] = 1'b1;
        end
      end
    end
    if (launch_i) begin
      st_d        = '0;
      st_d.pc     = {NumThr{launch_pc_i}};
      st_d.exited = ~launch_threads_i;
    end
  end

  always_ff @(posedge clk_i or negedge rst_ni) begin : p_regs
    if (!rst_ni) begin
      st_q        <= '0;
      st_q.exited <= '1;  // no thread before the first launch
    end else begin
      st_q <= st_d;
    end
  end

  assign pc_o            = st_q.pc;
  assign exited_o        = st_q.exited;
  assign at_barrier_o    = st_q.at_barrier;
  assign dbg_retired_o   = st_q.retired[32*dbg_thread_i +: 32];
  assign dbg_exit_code_o = st_q.exit_code[32*dbg_thread_i +: 32];
  assign dbg_exited_o    = st_q.exited[dbg_thread_i];

endmodule
