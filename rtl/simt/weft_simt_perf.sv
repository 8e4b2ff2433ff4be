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
// perf_o.issued also feeds the issue limit (weft_simt_launch).
`include "weft_simt_types.svh"

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
  output weft_simt_perf_t    perf_o,
  input  logic [WarpW-1:0]   dbg_warp_i,
  output logic [31:0]        dbg_warp_issues_o,
  output logic [31:0]        dbg_warp_active_o
);

  // The counters of one launch: cleared together at launch_i, held after the launch.
  typedef struct packed {
    weft_simt_perf_t     sum;          // the whole launch
    logic [Warps*32-1:0] warp_issues;  // per warp
    logic [Warps*32-1:0] warp_active;
  } counters_t;
  counters_t cnt_q, cnt_d;

  // A replay is counted a cycle late: the replay decision is among the core's latest signals and
  // would otherwise drive the enable of the 32-bit counter. A launch ends only after its pipeline
  // drained, so every replay is counted before the next launch clears the counters.
  logic replay_q;
  always_ff @(posedge clk_i or negedge rst_ni) begin : p_replay
    if (!rst_ni) replay_q <= 1'b0;
    else         replay_q <= replay_i;
  end

  always_comb begin : p_next
    logic [31:0] num_active;
    num_active = '0;
    for (int l = 0; l < Threads; l++) begin
      if (commit_mask_i[l]) num_active = num_active + 32'd1;
    end

    cnt_d = cnt_q;
    if (replay_q) cnt_d.sum.replays = cnt_q.sum.replays + 32'd1;
    if (barrier_release_i) cnt_d.sum.barriers = cnt_q.sum.barriers + 32'd1;
    if (commit_i) begin
      cnt_d.sum.issued = cnt_q.sum.issued + 32'd1;
      cnt_d.sum.active = cnt_q.sum.active + num_active;
      cnt_d.warp_issues[32*commit_warp_i +: 32] = cnt_q.warp_issues[32*commit_warp_i +: 32] + 32'd1;
      cnt_d.warp_active[32*commit_warp_i +: 32] = cnt_q.warp_active[32*commit_warp_i +: 32] +
                                                  num_active;
    end
    // Why nothing issued this cycle.
    if (running_i) begin
      cnt_d.sum.cycles = cnt_q.sum.cycles + 32'd1;
      if (!issue_i && !error_i) begin
        if (|warp_runnable_i) begin
          if (|(warp_runnable_i & warp_blocked_i & warp_waits_div_i)) begin
            cnt_d.sum.stall_div = cnt_q.sum.stall_div + 32'd1;
          end else if (|(warp_runnable_i & warp_blocked_i & ~warp_waits_div_i)) begin
            cnt_d.sum.stall_mem = cnt_q.sum.stall_mem + 32'd1;
          end else begin
            cnt_d.sum.stall_pipe = cnt_q.sum.stall_pipe + 32'd1;
          end
        end else if (|(thread_at_barrier_i & ~thread_exited_i)) begin
          cnt_d.sum.stall_barrier = cnt_q.sum.stall_barrier + 32'd1;
        end else begin
          cnt_d.sum.stall_pipe = cnt_q.sum.stall_pipe + 32'd1;
        end
      end
    end
    if (launch_i) cnt_d = '0;
  end

  always_ff @(posedge clk_i or negedge rst_ni) begin : p_regs
    if (!rst_ni) cnt_q <= '0;
    else         cnt_q <= cnt_d;
  end

  assign perf_o            = cnt_q.sum;
  assign dbg_warp_issues_o = cnt_q.warp_issues[32*dbg_warp_i +: 32];
  assign dbg_warp_active_o = cnt_q.warp_active[32*dbg_warp_i +: 32];

endmodule
