// weft_simt_launch: one kernel launch of the SIMT core, from start to done (docs/simt.md "Launch").
//
// - Start: start_i is taken only while no launch runs (launch_o, one cycle: every other block of
//   the core clears its launch state). A shape outside 1..Warps x 1..Threads is refused at once
//   with code 11 and no thread (launch_threads_o all zero, so the launch ends in its first cycles).
// - The launch registers (shape, block id, argument pointer, stack, issue limit) hold for the whole
//   run; step_limit_o says the issue limit is reached (docs/simt-model.md, StepLimit).
// - Running / done: running_o from the edge after the start until the edge after done_o, which
//   pulses once every thread has exited (or an error stopped the launch) and the pipeline and the
//   units are empty (drained_i).
// - Result: the first error (fault_i from WB, or the refused shape) is held with its pc, thread and
//   tval until the next start; error_o stops issue and commit meanwhile.
// - What threads read of the launch (docs/simt-model.md "Launch ABI"): the registers are not
//   written at launch (weft_simt_regfile keeps a written-since-launch bit); until a thread writes
//   one, RR reads its launch value from here: sp = stack_top - tid * stack_size, a0 = arg_ptr,
//   a1 = tid, every other register 0 (rr_*, for the warp in RR). The CSRs are read here too, for
//   the warp in EX (ex_csr_*). tid = warp * threads_per_warp + lane.
// Why a module: everything that depends on the launch inputs lives in one place; the rest of the
// core sees launch_o and a few values.
module weft_simt_launch #(
  parameter int  Warps   = 4,
  parameter int  Threads = 8,
  localparam int WarpW   = (Warps > 1) ? $clog2(Warps) : 1,
  localparam int LaneW   = (Threads > 1) ? $clog2(Threads) : 1,
  localparam int NumThr  = Warps * Threads
) (
  input  logic                  clk_i,
  input  logic                  rst_ni,
  // The core's launch inputs (weft_simt_core).
  input  logic                  start_i,
  input  logic [31:0]           start_pc_i,
  input  logic [31:0]           start_num_warps_i,
  input  logic [31:0]           start_threads_i,
  input  logic [31:0]           start_block_id_i,
  input  logic [31:0]           start_arg_ptr_i,
  input  logic [31:0]           start_stack_top_i,
  input  logic [31:0]           start_stack_size_i,
  input  logic [31:0]           start_max_issues_i,
  output logic                  launch_o,          // start taken: clear the launch state
  output logic [NumThr-1:0]     launch_threads_o,  // with launch_o: thread w * Threads + l exists
  // Run and result.
  input  logic                  all_exited_i,      // every thread has exited
  input  logic                  drained_i,         // nothing in the pipeline or the units
  input  logic [31:0]           issued_i,          // warp instructions executed so far
  output logic                  step_limit_o,      // the issue limit is reached
  input  logic                  fault_i,           // WB: the instruction there faults
  input  logic [7:0]            fault_code_i,
  input  logic [31:0]           fault_pc_i,
  input  logic [WarpW-1:0]      fault_warp_i,
  input  logic [LaneW-1:0]      fault_lane_i,
  input  logic [31:0]           fault_tval_i,
  output logic                  running_o,
  output logic                  error_o,           // an error stopped the launch
  output logic                  done_o,            // one-cycle pulse: the launch ends
  output logic [7:0]            err_code_o,
  output logic [31:0]           err_pc_o,
  output logic [31:0]           err_thread_o,
  output logic [31:0]           err_tval_o,
  // Launch values of registers rs1 / rs2 for each lane of the warp in RR.
  input  logic [WarpW-1:0]      rr_warp_i,
  input  logic [4:0]            rr_rs1_i,
  input  logic [4:0]            rr_rs2_i,
  output logic [Threads*32-1:0] rr_rs1_launch_o,
  output logic [Threads*32-1:0] rr_rs2_launch_o,
  // CSR csr_sel_i (0xCC0 + csr_sel_i) for each lane of the warp in EX.
  input  logic [WarpW-1:0]      ex_warp_i,
  input  logic [2:0]            ex_csr_sel_i,
  output logic [Threads*32-1:0] ex_csr_o
);

  localparam logic [7:0] ErrBadLaunch = 8'd11;  // RTL only: invalid launch shape

  logic        running_q, running_d;
  logic [31:0] num_warps_q, num_warps_d, threads_per_warp_q, threads_per_warp_d;
  logic [31:0] num_threads_q, num_threads_d, block_id_q, block_id_d, arg_ptr_q, arg_ptr_d;
  logic [31:0] stack_top_q, stack_top_d, stack_size_q, stack_size_d;
  logic [31:0] warp_stack_bytes_q, warp_stack_bytes_d;  // threads_per_warp * stack_size
  logic [31:0] max_issues_q, max_issues_d;
  logic        error_q, error_d;
  logic [7:0]  err_code_q, err_code_d;
  logic [31:0] err_pc_q, err_pc_d, err_thread_q, err_thread_d, err_tval_q, err_tval_d;

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
  assign launch    = start_i && !running_q;
  assign launch_o  = launch;
  assign launch_ok = (start_num_warps_i >= 32'd1) && (start_num_warps_i <= 32'(Warps)) &&
                     (start_threads_i >= 32'd1) && (start_threads_i <= 32'(Threads));

  always_comb begin : p_threads
    for (int w = 0; w < Warps; w++) begin
      for (int l = 0; l < Threads; l++) begin
        launch_threads_o[w*Threads + l] = launch_ok && (32'(w) < start_num_warps_i) &&
                                          (32'(l) < start_threads_i);
      end
    end
  end

  assign done_o       = running_q && (all_exited_i || error_q) && drained_i;
  assign step_limit_o = max_issues_q != 32'd0 && issued_i >= max_issues_q;

  always_comb begin : p_next
    running_d          = running_q;
    num_warps_d        = num_warps_q;
    threads_per_warp_d = threads_per_warp_q;
    num_threads_d      = num_threads_q;
    block_id_d         = block_id_q;
    arg_ptr_d          = arg_ptr_q;
    stack_top_d        = stack_top_q;
    stack_size_d       = stack_size_q;
    warp_stack_bytes_d = warp_stack_bytes_q;
    max_issues_d       = max_issues_q;
    error_d            = error_q;
    err_code_d         = err_code_q;
    err_pc_d           = err_pc_q;
    err_thread_d       = err_thread_q;
    err_tval_d         = err_tval_q;
    if (fault_i) begin
      error_d      = 1'b1;
      err_code_d   = fault_code_i;
      err_pc_d     = fault_pc_i;
      err_thread_d = tid_of(fault_warp_i, 32'(fault_lane_i), threads_per_warp_q);
      err_tval_d   = fault_tval_i;
    end
    if (done_o) running_d = 1'b0;
    if (launch) begin
      running_d          = 1'b1;
      num_warps_d        = start_num_warps_i;
      threads_per_warp_d = start_threads_i;
      num_threads_d      = 32'(start_num_warps_i * start_threads_i);
      block_id_d         = start_block_id_i;
      arg_ptr_d          = start_arg_ptr_i;
      stack_top_d        = start_stack_top_i;
      stack_size_d       = start_stack_size_i;
      warp_stack_bytes_d = 32'(start_threads_i * start_stack_size_i);
      max_issues_d       = start_max_issues_i;
      error_d            = !launch_ok;
      err_code_d         = launch_ok ? 8'd0 : ErrBadLaunch;
      err_pc_d           = launch_ok ? 32'd0 : start_pc_i;
      err_thread_d       = '0;
      err_tval_d         = '0;
    end
  end

  always_ff @(posedge clk_i or negedge rst_ni) begin : p_regs
    if (!rst_ni) begin
      running_q          <= 1'b0;
      num_warps_q        <= '0;
      threads_per_warp_q <= '0;
      num_threads_q      <= '0;
      block_id_q         <= '0;
      arg_ptr_q          <= '0;
      stack_top_q        <= '0;
      stack_size_q       <= '0;
      warp_stack_bytes_q <= '0;
      max_issues_q       <= '0;
      error_q            <= 1'b0;
      err_code_q         <= '0;
      err_pc_q           <= '0;
      err_thread_q       <= '0;
      err_tval_q         <= '0;
    end else begin
      running_q          <= running_d;
      num_warps_q        <= num_warps_d;
      threads_per_warp_q <= threads_per_warp_d;
      num_threads_q      <= num_threads_d;
      block_id_q         <= block_id_d;
      arg_ptr_q          <= arg_ptr_d;
      stack_top_q        <= stack_top_d;
      stack_size_q       <= stack_size_d;
      warp_stack_bytes_q <= warp_stack_bytes_d;
      max_issues_q       <= max_issues_d;
      error_q            <= error_d;
      err_code_q         <= err_code_d;
      err_pc_q           <= err_pc_d;
      err_thread_q       <= err_thread_d;
      err_tval_q         <= err_tval_d;
    end
  end

  always_comb begin : p_lane_values
    for (int l = 0; l < Threads; l++) begin
      rr_rs1_launch_o[32*l +: 32] = launch_value(rr_warp_i, l, rr_rs1_i, threads_per_warp_q,
                                                 arg_ptr_q, stack_top_q, warp_stack_bytes_q,
                                                 stack_size_q);
      rr_rs2_launch_o[32*l +: 32] = launch_value(rr_warp_i, l, rr_rs2_i, threads_per_warp_q,
                                                 arg_ptr_q, stack_top_q, warp_stack_bytes_q,
                                                 stack_size_q);
      unique case (ex_csr_sel_i)
        3'd0:    ex_csr_o[32*l +: 32] = tid_of(ex_warp_i, l, threads_per_warp_q);
        3'd1:    ex_csr_o[32*l +: 32] = 32'(ex_warp_i);
        3'd2:    ex_csr_o[32*l +: 32] = 32'(l);
        3'd3:    ex_csr_o[32*l +: 32] = block_id_q;
        3'd4:    ex_csr_o[32*l +: 32] = num_threads_q;
        3'd5:    ex_csr_o[32*l +: 32] = arg_ptr_q;
        3'd6:    ex_csr_o[32*l +: 32] = num_warps_q;
        default: ex_csr_o[32*l +: 32] = threads_per_warp_q;
      endcase
    end
  end

  assign running_o    = running_q;
  assign error_o      = error_q;
  assign err_code_o   = err_code_q;
  assign err_pc_o     = err_pc_q;
  assign err_thread_o = err_thread_q;
  assign err_tval_o   = err_tval_q;

endmodule
