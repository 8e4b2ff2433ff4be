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
module weft_simt_commit #(
  parameter int  Warps   = 4,
  parameter int  Threads = 8,
  localparam int WarpW   = (Warps > 1) ? $clog2(Warps) : 1,
  localparam int LaneW   = (Threads > 1) ? $clog2(Threads) : 1
) (
  input  logic                  clk_i,
  input  logic                  rst_ni,
  // EX: the instruction and its lanes' results.
  input  logic                  ex_valid_i,
  input  logic [WarpW-1:0]      ex_warp_i,
  input  logic [31:0]           ex_pc_i,
  input  logic [2:0]            ex_funct3_i,
  input  logic [4:0]            ex_rd_i,
  input  logic [Threads-1:0]    ex_mask_i,
  input  logic [1:0]            ex_fetch_fault_i,
  input  logic                  ex_div_i,
  input  logic                  ex_load_i,
  input  logic                  ex_store_i,
  input  logic [Threads*32-1:0] ex_rs1_i,
  input  logic [Threads*32-1:0] ex_rs2_i,
  input  logic [Threads-1:0]    lane_we_i,
  input  logic [Threads*32-1:0] lane_wdata_i,
  input  logic [Threads*32-1:0] lane_next_pc_i,
  input  logic [Threads*32-1:0] lane_addr_i,
  input  logic [Threads-1:0]    lane_exit_i,
  input  logic [Threads-1:0]    lane_barrier_i,
  input  logic [Threads-1:0]    lane_fault_i,
  input  logic [Threads*8-1:0]  lane_fault_code_i,
  input  logic [Threads*32-1:0] lane_fault_tval_i,
  input  logic                  error_i,          // an earlier error stopped the launch
  input  logic                  step_limit_i,     // the issue limit is reached
  // WB: the instruction here.
  output logic                  valid_o,
  output logic [WarpW-1:0]      warp_o,
  output logic [Threads-1:0]    mask_o,
  output logic [4:0]            rd_o,
  output logic [2:0]            funct3_o,
  output logic                  store_o,
  output logic [Threads*32-1:0] rs1_o,            // operands (divider, LSU store data, exit code)
  output logic [Threads*32-1:0] rs2_o,
  output logic [Threads*32-1:0] addr_o,           // load/store addresses
  output logic [Threads*32-1:0] next_pc_o,
  output logic [Threads-1:0]    exit_o,
  output logic [Threads-1:0]    barrier_o,
  output logic                  to_div_o,         // it will start the divider ...
  output logic                  to_lsu_o,         // ... the LSU, if it commits
  // Fault or commit.
  output logic                  fault_o,
  output logic [7:0]            fault_code_o,
  output logic [31:0]           fault_pc_o,
  output logic [LaneW-1:0]      fault_lane_o,
  output logic [31:0]           fault_tval_o,
  output logic                  commit_o,
  output logic                  div_start_o,
  output logic                  lsu_start_o,
  output logic                  load_start_o,     // an LSU start that is a load (rd pending)
  output logic                  rf_we_o,          // register file write port: rd_o, ...
  output logic [Threads-1:0]    rf_mask_o,
  output logic [Threads*32-1:0] rf_data_o
);

  // docs/simt-model.md error codes.
  localparam logic [7:0] ErrFetchAlign = 8'd3;
  localparam logic [7:0] ErrFetchRange = 8'd4;
  localparam logic [7:0] ErrStepLimit  = 8'd10;

  // The stage registers (data flops without reset).
  logic                  valid_q;
  logic [31:0]           pc_q;
  logic [1:0]            fetch_fault_q;
  logic                  div_q, load_q;
  logic [Threads-1:0]    we_q, fault_q;
  logic [Threads*32-1:0] tval_q;
  logic [Threads*8-1:0]  code_q;

  always_ff @(posedge clk_i or negedge rst_ni) begin : p_valid
    if (!rst_ni) valid_q <= 1'b0;
    else         valid_q <= ex_valid_i;
  end

  always_ff @(posedge clk_i) begin : p_data
    warp_o        <= ex_warp_i;
    pc_q          <= ex_pc_i;
    funct3_o      <= ex_funct3_i;
    rd_o          <= ex_rd_i;
    mask_o        <= ex_mask_i;
    fetch_fault_q <= ex_fetch_fault_i;
    div_q         <= ex_div_i;
    load_q        <= ex_load_i;
    store_o       <= ex_store_i;
    rs1_o         <= ex_rs1_i;
    rs2_o         <= ex_rs2_i;
    we_q          <= lane_we_i;
    exit_o        <= lane_exit_i;
    barrier_o     <= lane_barrier_i;
    fault_q       <= lane_fault_i;
    rf_data_o     <= lane_wdata_i;
    next_pc_o     <= lane_next_pc_i;
    addr_o        <= lane_addr_i;
    tval_q        <= lane_fault_tval_i;
    code_q        <= lane_fault_code_i;
  end

  assign valid_o  = valid_q;
  assign to_div_o = valid_q && fetch_fault_q == 2'b00 && div_q && rd_o != 5'd0;
  assign to_lsu_o = valid_q && fetch_fault_q == 2'b00 && (store_o || (load_q && rd_o != 5'd0));

  always_comb begin : p_fault
    logic [LaneW-1:0] first_active, first_fault;
    logic             lane_fault;
    first_active = '0;
    first_fault  = '0;
    lane_fault   = 1'b0;
    for (int l = Threads - 1; l >= 0; l--) begin
      if (mask_o[l]) first_active = LaneW'(l);
      if (mask_o[l] && fault_q[l]) begin
        lane_fault  = 1'b1;
        first_fault = LaneW'(l);
      end
    end
    fault_lane_o = first_active;
    fault_code_o = '0;
    fault_tval_o = '0;
    if (step_limit_i) begin
      fault_code_o = ErrStepLimit;
    end else if (fetch_fault_q != 2'b00) begin
      fault_code_o = (fetch_fault_q == 2'b01) ? ErrFetchAlign : ErrFetchRange;
      fault_tval_o = pc_q;
    end else if (lane_fault) begin
      fault_lane_o = first_fault;
      fault_code_o = code_q[8*first_fault +: 8];
      fault_tval_o = tval_q[32*first_fault +: 32];
    end
    fault_o  = valid_q && !error_i && (fault_code_o != 8'd0);
    commit_o = valid_q && !error_i && !fault_o;
  end

  assign fault_pc_o   = pc_q;
  assign div_start_o  = commit_o && to_div_o;
  assign lsu_start_o  = commit_o && to_lsu_o;
  assign load_start_o = lsu_start_o && load_q;
  assign rf_we_o      = commit_o && rd_o != 5'd0;
  assign rf_mask_o    = mask_o & we_q;

endmodule
