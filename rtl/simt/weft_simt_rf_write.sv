// weft_simt_rf_write: what the register file's single write port writes each cycle
// (docs/simt.md "Pipeline").
//
// Two sources want the port: the WB stage's commit (ALU, MUL, jumps, CSR reads), which cannot
// wait (WB has no stall), and the units' write back (a load from the LSU, or else a divide).
// Order: WB, then the oldest queued unit write, then this cycle's unit write. A unit write that
// does not get the port goes into a queue (weft_fifo, Depth entries) and is written in a later
// cycle without a WB write; done_* tells which unit write the port did this cycle, and only then
// does the scoreboard free its rd (and OF forward its value), so no instruction reads a register
// whose load or divide result still waits in the queue.
//
// The queue cannot overflow: at most five loads or divides can be issued and not yet written
// (two in the LSU queue, its response stage, one each in EX and WB) and WB writes at most once a
// cycle, so it holds at most ten entries; hold_o stops the scheduler anyway while
// Depth - HoldMargin or more writes wait (at most HoldMargin instructions are then between IS and
// WB), so that no sequence can overflow it.
`include "weft_assert.svh"

module weft_simt_rf_write #(
  parameter int  Warps      = 4,
  parameter int  Threads    = 8,
  parameter int  Depth      = 8,
  localparam int HoldMargin = 5,   // IS, RR, OF, EX, WB
  localparam int WarpW      = (Warps > 1) ? $clog2(Warps) : 1,
  localparam int UsageW     = $clog2(Depth + 1),
  localparam int WriteW     = 1 + WarpW + 5 + Threads + Threads * 32   // $bits(write_t)
) (
  input  logic                  clk_i,
  input  logic                  rst_ni,
  // WB stage write: always written this cycle
  input  logic                  wb_we_i,
  input  logic [WarpW-1:0]      wb_warp_i,
  input  logic [4:0]            wb_rd_i,
  input  logic [Threads-1:0]    wb_mask_i,
  input  logic [Threads*32-1:0] wb_data_i,
  // unit write back (LSU, or the divider: div_i), accepted every cycle
  input  logic                  unit_we_i,
  input  logic                  unit_div_i,
  input  logic [WarpW-1:0]      unit_warp_i,
  input  logic [4:0]            unit_rd_i,
  input  logic [Threads-1:0]    unit_mask_i,
  input  logic [Threads*32-1:0] unit_data_i,
  // the unit write the port does this cycle
  output logic                  done_o,
  output logic                  done_div_o,
  output logic [WarpW-1:0]      done_warp_o,
  output logic [4:0]            done_rd_o,
  output logic [Threads-1:0]    done_mask_o,
  output logic [Threads*32-1:0] done_data_o,
  output logic                  hold_o,           // stop issuing: the queue is filling
  output logic                  empty_o,
  // the register file's write port
  output logic                  rf_we_o,
  output logic [WarpW-1:0]      rf_warp_o,
  output logic [4:0]            rf_rd_o,
  output logic [Threads-1:0]    rf_mask_o,
  output logic [Threads*32-1:0] rf_data_o
);

  if (Depth <= HoldMargin) begin : g_bad_depth
    `WEFT_ELAB_ERROR("weft_simt_rf_write: Depth must exceed the pipeline's HoldMargin")
  end

  typedef struct packed {
    logic                  div;
    logic [WarpW-1:0]      warp;
    logic [4:0]            rd;
    logic [Threads-1:0]    mask;
    logic [Threads*32-1:0] data;
  } write_t;

  write_t            unit_write, head, done;
  logic              push, pop, q_in_ready, q_valid;
  logic [UsageW-1:0] usage;

  assign unit_write.div  = unit_div_i;
  assign unit_write.warp = unit_warp_i;
  assign unit_write.rd   = unit_rd_i;
  assign unit_write.mask = unit_mask_i;
  assign unit_write.data = unit_data_i;

  assign pop  = q_valid && !wb_we_i;
  assign push = unit_we_i && (wb_we_i || q_valid);

  weft_fifo #(
    .Width (WriteW),
    .Depth (Depth)
  ) u_queue (
    .clk_i,
    .rst_ni,
    .flush_i     (1'b0),
    .in_valid_i  (push),
    .in_ready_o  (q_in_ready),
    .in_data_i   (unit_write),
    .out_valid_o (q_valid),
    .out_ready_i (pop),
    .out_data_o  (head),
    .usage_o     (usage)
  );

  assign done_o      = pop || (unit_we_i && !push);
  assign done        = q_valid ? head : unit_write;
  assign done_div_o  = done.div;
  assign done_warp_o = done.warp;
  assign done_rd_o   = done.rd;
  assign done_mask_o = done.mask;
  assign done_data_o = done.data;

  assign rf_we_o   = wb_we_i || done_o;
  assign rf_warp_o = wb_we_i ? wb_warp_i : done.warp;
  assign rf_rd_o   = wb_we_i ? wb_rd_i   : done.rd;
  assign rf_mask_o = wb_we_i ? wb_mask_i : done.mask;
  assign rf_data_o = wb_we_i ? wb_data_i : done.data;

  assign hold_o  = 32'(usage) >= Depth - HoldMargin;
  assign empty_o = !q_valid;

`ifndef SYNTHESIS
  always @(posedge clk_i or negedge rst_ni) begin : p_check_room
    if (rst_ni && push) begin
      assert (q_in_ready) else $error("%m: unit register write lost (queue full)");
    end
  end
`endif

endmodule
