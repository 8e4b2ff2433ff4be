// weft_simt_launch: one kernel launch of the SIMT core, from start to done (docs/simt.md "Launch").
//
// - Start: start_i is taken only while no launch runs (launch_o, one cycle: every other block of
//   the core clears its launch state). A shape outside 1..Warps x 1..Threads is refused at once
//   with code 11 and no thread (launch_threads_o all zero, so the launch ends in its first cycles).
// - The launch registers (shape, block id, argument pointer, stack, issue limit) hold for the whole
//   run; step_limit_o says the issue limit is reached (docs/simt-model.md, StepLimit). It is a
//   register, set the cycle after the commit that reaches the limit (issued_i counts that commit
//   from then on too), so the 32-bit comparison does not sit in front of WB's fault priority.
// - Running / done: running_o from the edge after the start until the edge after done_o, which
//   pulses once every thread has exited (or an error stopped the launch) and the pipeline and the
//   units are empty (drained_i).
// - Result: the first error (fault_i from WB, or the refused shape) is held with its pc, thread and
//   tval until the next start; error_o stops issue and commit meanwhile.
// - What threads read of the launch (docs/simt-model.md "Launch ABI"): the registers are not
//   written at launch (weft_simt_regfile keeps a written-since-launch bit); until a thread writes
//   one, OF reads its launch value from here: sp = stack_top - tid * stack_size, a0 = arg_ptr,
//   a1 = tid, every other register 0 (of_*, for the warp in OF). The CSRs are read here too, for
//   the warp in EX (ex_csr_*). tid = warp * threads_per_warp + lane.
// Why a module: everything that depends on the launch inputs lives in one place; the rest of the
// core sees launch_o and a few values.
`include "weft_desc.svh"
`include "weft_simt_types.svh"

module weft_simt_launch #(
  parameter int  Warps   = 4,
  parameter int  Threads = 8,
  localparam int WarpW   = (Warps > 1) ? $clog2(Warps) : 1,
  localparam int LaneW   = (Threads > 1) ? $clog2(Threads) : 1,
  localparam int NumThr  = Warps * Threads
) (
  input  logic                   clk_i,
  input  logic                   rst_ni,
  // The core's launch inputs (weft_simt_core), in the SIMT_LAUNCH descriptor's layout.
  input  logic                   start_i,
  input  weft_desc_simt_launch_t start_args_i,
  output logic                   launch_o,          // start taken: clear the launch state
  output logic [NumThr-1:0]      launch_threads_o,  // with launch_o: thread w * Threads + l exists
  // Run and result.
  input  logic                   all_exited_i,      // every thread has exited
  input  logic                   drained_i,         // nothing in the pipeline or the units
  input  logic [31:0]            issued_i,          // warp instructions executed so far
  input  logic                   commit_i,          // ... and one more commits this cycle
  output logic                   step_limit_o,      // the issue limit is reached
  input  logic                   fault_i,           // WB: the instruction there faults ...
  input  weft_simt_fault_t       fault_info_i,      // ... with this code, pc and tval ...
  input  logic [WarpW-1:0]       fault_warp_i,      // ... on this warp's
  input  logic [LaneW-1:0]       fault_lane_i,      // ... lane
  output logic                   running_o,
  output logic                   error_o,           // an error stopped the launch
  output logic                   done_o,            // one-cycle pulse: the launch ends
  output weft_simt_result_t      result_o,
  // Launch values of registers rs1 / rs2 for each lane of the warp in OF.
  input  logic [WarpW-1:0]       of_warp_i,
  input  logic [4:0]             of_rs1_i,
  input  logic [4:0]             of_rs2_i,
  output logic [Threads*32-1:0]  of_rs1_launch_o,
  output logic [Threads*32-1:0]  of_rs2_launch_o,
  // CSR csr_sel_i (0xCC0 + csr_sel_i) for each lane of the warp in EX.
  input  logic [WarpW-1:0]       ex_warp_i,
  input  logic [2:0]             ex_csr_sel_i,
  output logic [Threads*32-1:0]  ex_csr_o
);

  localparam logic [7:0] ErrBadLaunch = 8'd11;  // RTL only: invalid launch shape

  // The launch registers and the result: written together at the start.
  typedef struct packed {
    logic              running;
    logic [31:0]       num_warps;
    logic [31:0]       threads_per_warp;
    logic [31:0]       num_threads;
    logic [31:0]       block_id;
    logic [31:0]       arg_ptr;
    logic [31:0]       stack_top;
    logic [31:0]       stack_size;
    logic [31:0]       warp_stack_bytes;  // threads_per_warp * stack_size
    logic [31:0]       max_issues;
    logic [31:0]       max_issues_m1;     // max_issues - 1
    logic              at_limit;          // issued_i >= max_issues > 0
    logic              error;
    weft_simt_result_t result;
  } state_t;
  state_t st_q, st_d;

  // Thread id (CSR 0xCC0) and initial sp of lane l of warp w.
  function automatic logic [31:0] tid_of(input logic [WarpW-1:0] w, input int l,
                                         input logic [31:0] tpw);
    tid_of = 32'(32'(w) * tpw) + 32'(l);
  endfunction
  function automatic logic [31:0] sp_of(input logic [WarpW-1:0] w, input int l,
                                        input logic [31:0] top, input logic [31:0] wss,
                                        input logic [31:0] ss);
    sp_of = top - 32'(32'(w) * wss) - 32'(32'(l) * ss);
  endfunction
  // Value of register r of lane l of warp w before the thread writes it.
  function automatic logic [31:0] launch_value(input logic [WarpW-1:0] w, input int l,
                                               input logic [4:0] r, input logic [31:0] tpw,
                                               input logic [31:0] arg, input logic [31:0] top,
                                               input logic [31:0] wss, input logic [31:0] ss);
    if (r == 5'd2)       launch_value = sp_of(w, l, top, wss, ss);
    else if (r == 5'd10) launch_value = arg;
    else if (r == 5'd11) launch_value = tid_of(w, l, tpw);
    else                 launch_value = 32'd0;
  endfunction

  logic launch, launch_ok;
  assign launch    = start_i && !st_q.running;
  assign launch_o  = launch;
  assign launch_ok = (start_args_i.num_warps >= 32'd1) &&
                     (start_args_i.num_warps <= 32'(Warps)) &&
                     (start_args_i.threads_per_warp >= 32'd1) &&
                     (start_args_i.threads_per_warp <= 32'(Threads));

  always_comb begin : p_threads
    for (int w = 0; w < Warps; w++) begin
      for (int l = 0; l < Threads; l++) begin
        launch_threads_o[w*Threads + l] = launch_ok && (32'(w) < start_args_i.num_warps) &&
                                          (32'(l) < start_args_i.threads_per_warp);
      end
    end
  end

  assign done_o       = st_q.running && (all_exited_i || st_q.error) && drained_i;
  assign step_limit_o = st_q.at_limit;

  always_comb begin : p_next
    st_d = st_q;
    if (fault_i) begin
      st_d.error         = 1'b1;
      st_d.result.code   = fault_info_i.code;
      st_d.result.pc     = fault_info_i.pc;
      st_d.result.thread = tid_of(fault_warp_i, 32'(fault_lane_i), st_q.threads_per_warp);
      st_d.result.tval   = fault_info_i.tval;
    end
    if (done_o) st_d.running = 1'b0;
    // issued_i next cycle = issued_i + commit_i (weft_simt_perf), so this is issued >= max then.
    st_d.at_limit = st_q.max_issues != 32'd0 &&
                    (issued_i >= st_q.max_issues || (commit_i && issued_i == st_q.max_issues_m1));
    if (launch) begin
      st_d.running          = 1'b1;
      st_d.num_warps        = start_args_i.num_warps;
      st_d.threads_per_warp = start_args_i.threads_per_warp;
      st_d.num_threads      = 32'(start_args_i.num_warps * start_args_i.threads_per_warp);
      st_d.block_id         = start_args_i.block_id;
      st_d.arg_ptr          = start_args_i.arg_ptr;
      st_d.stack_top        = start_args_i.stack_top;
      st_d.stack_size       = start_args_i.stack_size;
      st_d.warp_stack_bytes = 32'(start_args_i.threads_per_warp * start_args_i.stack_size);
      st_d.max_issues       = start_args_i.max_issues;
      st_d.max_issues_m1    = start_args_i.max_issues - 32'd1;
      st_d.at_limit         = 1'b0;   // issued restarts at 0
      st_d.error            = !launch_ok;
      st_d.result           = '0;
      st_d.result.code      = launch_ok ? 8'd0 : ErrBadLaunch;
      st_d.result.pc        = launch_ok ? 32'd0 : start_args_i.pc;
    end
  end

  always_ff @(posedge clk_i or negedge rst_ni) begin : p_regs
    if (!rst_ni) st_q <= '0;
    else         st_q <= st_d;
  end

  always_comb begin : p_lane_values
    for (int l = 0; l < Threads; l++) begin
      of_rs1_launch_o[32*l +: 32] = launch_value(of_warp_i, l, of_rs1_i, st_q.threads_per_warp,
                                                 st_q.arg_ptr, st_q.stack_top,
                                                 st_q.warp_stack_bytes, st_q.stack_size);
      of_rs2_launch_o[32*l +: 32] = launch_value(of_warp_i, l, of_rs2_i, st_q.threads_per_warp,
                                                 st_q.arg_ptr, st_q.stack_top,
                                                 st_q.warp_stack_bytes, st_q.stack_size);
      unique case (ex_csr_sel_i)
        3'd0:    ex_csr_o[32*l +: 32] = tid_of(ex_warp_i, l, st_q.threads_per_warp);
        3'd1:    ex_csr_o[32*l +: 32] = 32'(ex_warp_i);
        3'd2:    ex_csr_o[32*l +: 32] = 32'(l);
        3'd3:    ex_csr_o[32*l +: 32] = st_q.block_id;
        3'd4:    ex_csr_o[32*l +: 32] = st_q.num_threads;
        3'd5:    ex_csr_o[32*l +: 32] = st_q.arg_ptr;
        3'd6:    ex_csr_o[32*l +: 32] = st_q.num_warps;
        default: ex_csr_o[32*l +: 32] = st_q.threads_per_warp;
      endcase
    end
  end

  assign running_o = st_q.running;
  assign error_o   = st_q.error;
  assign result_o  = st_q.result;

endmodule
