// weft_cmd_tumux: shares the tensor unit's command port between the compute engine (COMPUTE)
// and the store engine (DRAIN).
//
// The tensor unit's cmd_ready_o depends on the command's kind (a COMPUTE waits for its queue
// slot, a DRAIN for the drain engine), so the mux offers one command per cycle: the preferred
// engine's if it has one, else the other's. When the offered command is not taken,
// the preference turns to the other engine for the next cycle, so neither blocks the other:
// a DRAIN waiting for the drain engine never holds back the next COMPUTE, and the reverse.
module weft_cmd_tumux #(
  parameter int  AccDepth = 512,
  localparam int AccAw    = $clog2(AccDepth),
  localparam int RowsW    = AccAw + 1
) (
  input  logic             clk_i,
  input  logic             rst_ni,
  // compute engine
  input  logic             c_valid_i,
  output logic             c_ready_o,
  input  logic [RowsW-1:0] c_rows_i,
  input  logic [AccAw-1:0] c_addr_i,
  input  logic             c_accumulate_i,
  input  logic             c_a_signed_i,
  input  logic [7:0]       c_a_zp_i,
  input  logic [2:0]       c_a_fmt_i,
  // store engine
  input  logic             d_valid_i,
  output logic             d_ready_o,
  input  logic [RowsW-1:0] d_rows_i,
  input  logic [AccAw-1:0] d_addr_i,
  input  logic [1:0]       d_mode_i,
  input  logic             d_pack_i,
  input  logic [2:0]       d_out_fmt_i,
  input  logic             d_relu_i,
  input  logic [31:0]      d_zp_i,
  input  logic [31:0]      d_act_min_i,
  input  logic [31:0]      d_act_max_i,
  // tensor unit
  output logic             cmd_valid_o,
  input  logic             cmd_ready_i,
  output logic             cmd_op_o,
  output logic [RowsW-1:0] cmd_rows_o,
  output logic [AccAw-1:0] cmd_addr_o,
  output logic             cmd_accumulate_o,
  output logic             cmd_wreuse_o,
  output logic             cmd_a_signed_o,
  output logic [7:0]       cmd_a_zp_o,
  output logic [2:0]       cmd_a_fmt_o,
  output logic [1:0]       cmd_mode_o,
  output logic             cmd_pack_o,
  output logic [2:0]       cmd_out_fmt_o,
  output logic             cmd_relu_o,
  output logic [31:0]      cmd_zp_o,
  output logic [31:0]      cmd_act_min_o,
  output logic [31:0]      cmd_act_max_o
);

  // The preference is a weft_rr_pick of the two engines (0 compute, 1 store) that advances past
  // the engine offered in a cycle whose command is refused: the other engine is offered next.
  logic       pick_d;         // offered this cycle: 1 = DRAIN
  logic       unused_any;
  logic [1:0] unused_onehot;

  weft_rr_pick #(.N(2)) u_pick (
    .clk_i,
    .rst_ni,
    .req_i     ({d_valid_i, c_valid_i}),
    .any_o     (unused_any),
    .idx_o     (pick_d),
    .onehot_o  (unused_onehot),
    .adv_i     (cmd_valid_o && !cmd_ready_i),
    .adv_idx_i (pick_d)
  );

  assign cmd_valid_o      = c_valid_i || d_valid_i;
  assign cmd_op_o         = pick_d ? weft_pkg::TuOpDrain : weft_pkg::TuOpCompute;
  assign cmd_rows_o       = pick_d ? d_rows_i : c_rows_i;
  assign cmd_addr_o       = pick_d ? d_addr_i : c_addr_i;
  assign cmd_accumulate_o = c_accumulate_i;
  assign cmd_wreuse_o     = 1'b0;
  assign cmd_a_signed_o   = c_a_signed_i;
  assign cmd_a_zp_o       = c_a_zp_i;
  assign cmd_a_fmt_o      = c_a_fmt_i;
  assign cmd_mode_o       = d_mode_i;
  assign cmd_pack_o       = d_pack_i;
  assign cmd_out_fmt_o    = d_out_fmt_i;
  assign cmd_relu_o       = d_relu_i;
  assign cmd_zp_o         = d_zp_i;
  assign cmd_act_min_o    = d_act_min_i;
  assign cmd_act_max_o    = d_act_max_i;

  assign c_ready_o = !pick_d && cmd_ready_i;
  assign d_ready_o = pick_d && cmd_ready_i;

endmodule
