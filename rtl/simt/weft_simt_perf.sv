// weft_simt_perf: the SIMT core's performance counters of one launch (docs/simt.md "Performance
// counters"), cleared at the start and held after done until the next start.
//
// cycles counts every cycle of the launch; issued / active the committed warp instructions and
// their active threads (also per warp: the golden model's warp_issues / warp_active_threads);
// replays the instructions dropped at RR; barriers the barrier releases. Each cycle of the launch
// in which nothing issues (before an error) is charged to one reason, in this order: a runnable
// warp waits after a replay on the divider's side (div), else on the LSU's (mem); else, with
// runnable warps, the ready ones all have an instruction in the pipeline (pipe); else, with
// threads waiting at the barrier, barrier; else pipe (the last instructions drain).
// issued_o also feeds the issue limit (weft_simt_launch).
module weft_simt_perf #(
  parameter int  Warps   = 4,
  parameter int  Threads = 8,
  localparam int WarpW   = (Warps > 1) ? $clog2(Warps) : 1,
  localparam int NumThr  = Warps * Threads
) (
  input  logic               clk_i,
  input  logic               rst_ni,
  input  logic               launch_i,
  input  logic               running_i,
  input  logic               error_i,
  input  logic               issue_i,               // IS issues this cycle
  input  logic [Warps-1:0]   warp_runnable_i,
  input  logic [Warps-1:0]   warp_blocked_i,        // replayed, waiting ...
  input  logic [Warps-1:0]   warp_waits_div_i,      // ... on the divider's side (else the LSU)
  input  logic [NumThr-1:0]  thread_exited_i,
  input  logic [NumThr-1:0]  thread_at_barrier_i,
  input  logic               replay_i,
  input  logic               barrier_release_i,
  input  logic               commit_i,
  input  logic [WarpW-1:0]   commit_warp_i,
  input  logic [Threads-1:0] commit_mask_i,
  output logic [31:0]        cycles_o,
  output logic [31:0]        issued_o,
  output logic [31:0]        active_o,
  output logic [31:0]        stall_pipe_o,
  output logic [31:0]        stall_div_o,
  output logic [31:0]        stall_mem_o,
  output logic [31:0]        stall_barrier_o,
  output logic [31:0]        replays_o,
  output logic [31:0]        barriers_o,
  input  logic [WarpW-1:0]   dbg_warp_i,
  output logic [31:0]        dbg_warp_issues_o,
  output logic [31:0]        dbg_warp_active_o
);

  logic [31:0]         cycles_q, cycles_d, issued_q, issued_d, active_q, active_d;
  logic [31:0]         stall_pipe_q, stall_pipe_d, stall_div_q, stall_div_d;
  logic [31:0]         stall_mem_q, stall_mem_d, stall_barrier_q, stall_barrier_d;
  logic [31:0]         replays_q, replays_d, barriers_q, barriers_d;
  logic [Warps*32-1:0] warp_issues_q, warp_issues_d, warp_active_q, warp_active_d;

  always_comb begin : p_next
    logic [31:0] num_active;
    num_active = '0;
    for (int l = 0; l < Threads; l++) begin
      if (commit_mask_i[l]) num_active = num_active + 32'd1;
    end

    cycles_d        = cycles_q;
    issued_d        = issued_q;
    active_d        = active_q;
    stall_pipe_d    = stall_pipe_q;
    stall_div_d     = stall_div_q;
    stall_mem_d     = stall_mem_q;
    stall_barrier_d = stall_barrier_q;
    replays_d       = replays_q;
    barriers_d      = barriers_q;
    warp_issues_d   = warp_issues_q;
    warp_active_d   = warp_active_q;

    if (replay_i) replays_d = replays_q + 32'd1;
    if (barrier_release_i) barriers_d = barriers_q + 32'd1;
    if (commit_i) begin
      issued_d                          = issued_q + 32'd1;
      active_d                          = active_q + num_active;
      warp_issues_d[32*commit_warp_i +: 32] = warp_issues_q[32*commit_warp_i +: 32] + 32'd1;
      warp_active_d[32*commit_warp_i +: 32] = warp_active_q[32*commit_warp_i +: 32] + num_active;
    end
    // Why nothing issued this cycle.
    if (running_i) begin
      cycles_d = cycles_q + 32'd1;
      if (!issue_i && !error_i) begin
        if (|warp_runnable_i) begin
          if (|(warp_runnable_i & warp_blocked_i & warp_waits_div_i)) begin
            stall_div_d = stall_div_q + 32'd1;
          end else if (|(warp_runnable_i & warp_blocked_i & ~warp_waits_div_i)) begin
            stall_mem_d = stall_mem_q + 32'd1;
          end else begin
            stall_pipe_d = stall_pipe_q + 32'd1;
          end
        end else if (|(thread_at_barrier_i & ~thread_exited_i)) begin
          stall_barrier_d = stall_barrier_q + 32'd1;
        end else begin
          stall_pipe_d = stall_pipe_q + 32'd1;
        end
      end
    end
    if (launch_i) begin
      cycles_d        = '0;
      issued_d        = '0;
      active_d        = '0;
      stall_pipe_d    = '0;
      stall_div_d     = '0;
      stall_mem_d     = '0;
      stall_barrier_d = '0;
      replays_d       = '0;
      barriers_d      = '0;
      warp_issues_d   = '0;
      warp_active_d   = '0;
    end
  end

  always_ff @(posedge clk_i or negedge rst_ni) begin : p_regs
    if (!rst_ni) begin
      cycles_q        <= '0;
      issued_q        <= '0;
      active_q        <= '0;
      stall_pipe_q    <= '0;
      stall_div_q     <= '0;
      stall_mem_q     <= '0;
      stall_barrier_q <= '0;
      replays_q       <= '0;
      barriers_q      <= '0;
      warp_issues_q   <= '0;
      warp_active_q   <= '0;
    end else begin
      cycles_q        <= cycles_d;
      issued_q        <= issued_d;
      active_q        <= active_d;
      stall_pipe_q    <= stall_pipe_d;
      stall_div_q     <= stall_div_d;
      stall_mem_q     <= stall_mem_d;
      stall_barrier_q <= stall_barrier_d;
      replays_q       <= replays_d;
      barriers_q      <= barriers_d;
      warp_issues_q   <= warp_issues_d;
      warp_active_q   <= warp_active_d;
    end
  end

  assign cycles_o          = cycles_q;
  assign issued_o          = issued_q;
  assign active_o          = active_q;
  assign stall_pipe_o      = stall_pipe_q;
  assign stall_div_o       = stall_div_q;
  assign stall_mem_o       = stall_mem_q;
  assign stall_barrier_o   = stall_barrier_q;
  assign replays_o         = replays_q;
  assign barriers_o        = barriers_q;
  assign dbg_warp_issues_o = warp_issues_q[32*dbg_warp_i +: 32];
  assign dbg_warp_active_o = warp_active_q[32*dbg_warp_i +: 32];

endmodule
