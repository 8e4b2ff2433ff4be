// weft_cmd_equeue: the descriptor queue in front of an engine (load, compute, store, simt);
// weft_cmd instantiates one per engine and hands the engine its head.
// Holds QDepth dispatched descriptors {index, dependency distances, payload: the operand layout
// and whatever the engine keeps with it} in ring order. head_go_o: the head may start now (its
// dependencies are met (weft_cmd_depchk: every one done or retired), no error is recorded at or
// before it and no queue reset is pending (hold_i)). The engine pops the head when it starts it.
// wait_dep_o (PERF_*_WAIT_DEP): the engine is idle and its head waits for dependencies.
`include "weft_assert.svh"

module weft_cmd_equeue #(
  parameter int  Inflight = 16,
  parameter int  QDepth   = 4,
  parameter int  PayloadW = 224,
  localparam int QW       = PayloadW + 40 + 32
) (
  input  logic                clk_i,
  input  logic                rst_ni,
  input  logic                clear_i,
  input  logic                hold_i,         // queue reset pending: start nothing
  // dispatch
  input  logic                push_i,
  input  logic [31:0]         push_idx_i,
  input  logic [39:0]         push_deps_i,
  input  logic [PayloadW-1:0] push_payload_i,
  output logic                q_ready_o,
  // ROB state
  input  logic [31:0]         rptr_i,
  input  logic [Inflight-1:0] rob_done_i,
  input  logic                err_valid_i,
  input  logic [31:0]         err_idx_i,
  // the engine
  input  logic                busy_i,         // executing a descriptor
  output logic                head_go_o,
  output logic [31:0]         head_idx_o,
  output logic [PayloadW-1:0] head_payload_o,
  input  logic                pop_i,
  // status
  output logic                empty_o,
  output logic                wait_dep_o
);

  if (PayloadW < 1) begin : g_bad
    `WEFT_ELAB_ERROR("weft_cmd_equeue: PayloadW must be >= 1")
  end

  logic [QW-1:0] q_data;
  logic [$clog2(QDepth+1)-1:0] q_usage;
  logic          head_valid, met, order_ok;

  weft_fifo #(.Width(QW), .Depth(QDepth)) u_queue (
    .clk_i,
    .rst_ni,
    .flush_i     (clear_i),
    .in_valid_i  (push_i),
    .in_ready_o  (q_ready_o),
    .in_data_i   ({push_payload_i, push_deps_i, push_idx_i}),
    .out_valid_o (head_valid),
    .out_ready_i (pop_i),
    .out_data_o  (q_data),
    .usage_o     (q_usage)
  );

  assign head_idx_o     = q_data[31:0];
  assign head_payload_o = q_data[72 +: PayloadW];
  assign empty_o        = (q_usage == '0);

  weft_cmd_depchk #(.Inflight(Inflight)) u_dep (
    .idx_i       (q_data[31:0]),
    .deps_i      (q_data[71:32]),
    .rptr_i,
    .done_i      (rob_done_i),
    .err_valid_i,
    .err_idx_i,
    .met_o       (met),
    .order_ok_o  (order_ok)
  );

  assign head_go_o  = head_valid && met && order_ok && !hold_i;
  assign wait_dep_o = !busy_i && head_valid && !met;

`ifndef SYNTHESIS
  always @(posedge clk_i or negedge rst_ni) begin : p_checks
    if (rst_ni) begin
      if (pop_i) assert (head_go_o) else $error("weft_cmd_equeue: pop of a head that may not start");
    end
  end
`endif

endmodule
