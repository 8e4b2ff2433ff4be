// weft_simt_commit: pipeline stage WB of the SIMT core (docs/simt.md "Pipeline"): the instruction
// that left EX, with its lanes' registered results, is either the launch's error or committed.
//
// Fault priority (docs/simt-model.md): the issue limit reached (StepLimit, reported on the first
// active lane), else a fetch fault (misaligned pc or pc past the instruction memory, found at IS;
// tval = pc), else the first active lane, in lane order, whose execution faulted (its code and
// tval). fault_o goes to weft_simt_launch, which stops the launch.
//
// Commit (no fault, no earlier error): the active lanes' results are written (register file port
// 0 for lanes with a result and rd != 0; pcs, exits, barrier marks in weft_simt_threads), and a
// DIV/REM with rd != 0 starts the divider, a store or a load with rd != 0 the LSU, with this
// instruction's operands (their rd is then marked in weft_simt_scoreboard).
// Why its own stage: no path runs from the operands through a lane, the fault priority and the
// commit into the register file, pcs and units in one cycle (docs/fpga.md).
`include "weft_simt_types.svh"

module weft_simt_commit #(
  parameter int  Warps   = 4,
  parameter int  Threads = 8,
  localparam int WarpW   = (Warps > 1) ? $clog2(Warps) : 1,
  localparam int LaneW   = (Threads > 1) ? $clog2(Threads) : 1,
  localparam int ResW    = $bits(weft_simt_lane_res_t'('0))
) (
  input  logic                    clk_i,
  input  logic                    rst_ni,
  // EX: the instruction and its lanes' results.
  input  logic                    ex_valid_i,
  input  logic [WarpW-1:0]        ex_warp_i,
  input  logic [Threads-1:0]      ex_mask_i,
  input  weft_simt_wb_t           ex_insn_i,
  input  logic [Threads*32-1:0]   ex_rs1_i,
  input  logic [Threads*32-1:0]   ex_rs2_i,
  input  logic [Threads*ResW-1:0] lane_res_i,    // lane l at [l*ResW +: ResW]
  input  logic                    error_i,       // an earlier error stopped the launch
  input  logic                    step_limit_i,  // the issue limit is reached
  // WB: the instruction here.
  output logic                    valid_o,
  output logic [WarpW-1:0]        warp_o,
  output logic [Threads-1:0]      mask_o,
  output weft_simt_wb_t           insn_o,
  output logic [Threads*32-1:0]   rs1_o,         // operands (divider, LSU store data, exit code)
  output logic [Threads*32-1:0]   rs2_o,
  output logic [Threads*32-1:0]   addr_o,        // load/store addresses
  output logic [Threads*32-1:0]   next_pc_o,
  output logic [Threads-1:0]      exit_o,
  output logic [Threads-1:0]      barrier_o,
  output logic                    to_div_o,      // it will start the divider ...
  output logic                    to_lsu_o,      // ... the LSU, if it commits
  // Fault or commit.
  output logic                    fault_o,
  output weft_simt_fault_t        fault_info_o,
  output logic [LaneW-1:0]        fault_lane_o,
  output logic                    commit_o,
  output logic                    div_start_o,
  output logic                    lsu_start_o,
  output logic                    load_start_o,  // an LSU start that is a load (rd pending)
  output logic                    rf_we_o,       // register file write port: insn_o.rd, ...
  output logic [Threads-1:0]      rf_mask_o,
  output logic [Threads*32-1:0]   rf_data_o
);

  // docs/simt-model.md error codes.
  localparam logic [7:0] ErrFetchAlign = 8'd3;
  localparam logic [7:0] ErrFetchRange = 8'd4;
  localparam logic [7:0] ErrStepLimit  = 8'd10;

  // The stage register (data flops without reset).
  localparam int StageW = WarpW + Threads + $bits(weft_simt_wb_t'('0)) + 2 * Threads * 32 +
                          Threads * ResW;
  logic                    valid_q;
  logic [Threads*ResW-1:0] res_q;

  weft_pipe_reg #(
    .Width (StageW)
  ) u_stage (
    .clk_i,
    .rst_ni,
    .valid_i (ex_valid_i),
    .data_i  ({ex_warp_i, ex_mask_i, ex_insn_i, ex_rs1_i, ex_rs2_i, lane_res_i}),
    .valid_o (valid_q),
    .data_o  ({warp_o, mask_o, insn_o, rs1_o, rs2_o, res_q})
  );

  // The lanes' results, field by field.
  logic [Threads-1:0]    we, fault;
  logic [Threads*32-1:0] tval;
  logic [Threads*8-1:0]  code;

  always_comb begin : p_lanes
    weft_simt_lane_res_t r;
    for (int l = 0; l < Threads; l++) begin
      r                     = res_q[ResW*l +: ResW];
      we[l]                 = r.we;
      rf_data_o[32*l +: 32] = r.wdata;
      next_pc_o[32*l +: 32] = r.next_pc;
      addr_o[32*l +: 32]    = r.addr;
      exit_o[l]             = r.exit;
      barrier_o[l]          = r.barrier;
      fault[l]              = r.fault;
      code[8*l +: 8]        = r.fault_code;
      tval[32*l +: 32]      = r.fault_tval;
    end
  end

  assign valid_o  = valid_q;
  assign to_div_o = valid_q && insn_o.fetch_fault == 2'b00 && insn_o.div && insn_o.rd != 5'd0;
  assign to_lsu_o = valid_q && insn_o.fetch_fault == 2'b00 &&
                    (insn_o.store || (insn_o.load && insn_o.rd != 5'd0));

  always_comb begin : p_fault
    logic [LaneW-1:0] first_active, first_fault;
    logic             lane_fault;
    first_active = '0;
    first_fault  = '0;
    lane_fault   = 1'b0;
    for (int l = Threads - 1; l >= 0; l--) begin
      if (mask_o[l]) first_active = LaneW'(l);
      if (mask_o[l] && fault[l]) begin
        lane_fault  = 1'b1;
        first_fault = LaneW'(l);
      end
    end
    fault_lane_o    = first_active;
    fault_info_o    = '0;
    fault_info_o.pc = insn_o.pc;
    if (step_limit_i) begin
      fault_info_o.code = ErrStepLimit;
    end else if (insn_o.fetch_fault != 2'b00) begin
      fault_info_o.code = (insn_o.fetch_fault == 2'b01) ? ErrFetchAlign : ErrFetchRange;
      fault_info_o.tval = insn_o.pc;
    end else if (lane_fault) begin
      fault_lane_o      = first_fault;
      fault_info_o.code = code[8*first_fault +: 8];
      fault_info_o.tval = tval[32*first_fault +: 32];
    end
    fault_o  = valid_q && !error_i && (fault_info_o.code != 8'd0);
    commit_o = valid_q && !error_i && !fault_o;
  end

  assign div_start_o  = commit_o && to_div_o;
  assign lsu_start_o  = commit_o && to_lsu_o;
  assign load_start_o = lsu_start_o && insn_o.load;
  assign rf_we_o      = commit_o && insn_o.rd != 5'd0;
  assign rf_mask_o    = mask_o & we;

endmodule
