// weft_cmd_simt: the SIMT engine. Runs SIMT_LAUNCH descriptors in ring order, one at a time, on
// the SIMT core (weft_simt_core): the head of its queue (weft_cmd_equeue, in weft_cmd) starts
// when it may (dependencies met, no error before it, no queue reset pending) and the core is
// idle: a one-cycle core_start_o, with the head's words 2..9 as the core's launch inputs (weft_cmd
// wires them; docs/programming-model.md, SIMT_LAUNCH). The descriptor is done
// (ROB) when the core ends the launch with error code 0; a kernel error is reported as SIMT with
// ERR_ADDR = {thread, pc}, and the engine then takes nothing else until the queue reset drops
// its queue.
`include "weft_assert.svh"
`include "weft_cmd_types.svh"

module weft_cmd_simt #(
  parameter int  Inflight = 16,
  localparam int TagW     = $clog2(Inflight)
) (
  input  logic                clk_i,
  input  logic                rst_ni,
  input  logic                clear_i,
  // queue head (weft_cmd_equeue)
  input  logic                head_go_i,      // the head may start
  input  logic [31:0]         head_idx_i,
  output logic                pop_o,          // started: pop the head
  // SIMT core launch port
  output logic                core_start_o,
  input  logic                core_busy_i,
  input  logic                core_done_i,
  input  logic [7:0]          core_err_code_i,
  input  logic [31:0]         core_err_pc_i,
  input  logic [31:0]         core_err_thread_i,
  // completion, error, status
  output logic                done_valid_o,
  output logic [TagW-1:0]     done_tag_o,
  output logic                err_valid_o,
  input  logic                err_ready_i,
  output weft_cmd_err_t       err_o,
  output logic                busy_o
);

  typedef enum logic [1:0] {SIdle, SRun, SErr} sstate_e;
  sstate_e state_q, state_d;

  logic start;
  assign start = (state_q == SIdle) && head_go_i && !core_busy_i;
  assign pop_o = start;

  logic [31:0] idx_q, idx_d;
  logic [63:0] eaddr_q, eaddr_d;

  always_comb begin : p_next
    state_d = state_q;
    idx_d   = idx_q;
    eaddr_d = eaddr_q;
    unique case (state_q)
      SIdle: begin
        if (start) begin
          idx_d   = head_idx_i;
          state_d = SRun;
        end
      end
      SRun: begin
        if (core_done_i) begin
          if (core_err_code_i != 8'd0) begin
            eaddr_d = {core_err_thread_i, core_err_pc_i};
            state_d = SErr;
          end else begin
            state_d = SIdle;
          end
        end
      end
      SErr: begin
        if (err_ready_i) state_d = SIdle;
      end
      default: state_d = SIdle;
    endcase
    if (clear_i) state_d = SIdle;
  end

  always_ff @(posedge clk_i or negedge rst_ni) begin : p_regs
    if (!rst_ni) state_q <= SIdle;
    else         state_q <= state_d;
  end

  always_ff @(posedge clk_i) begin : p_data
    idx_q   <= idx_d;
    eaddr_q <= eaddr_d;
  end

  assign core_start_o = start;

  assign done_valid_o = (state_q == SRun) && core_done_i && (core_err_code_i == 8'd0);
  assign done_tag_o   = TagW'(idx_q);

  assign err_valid_o = (state_q == SErr);
  assign err_o       = {weft_pkg::ErrSimt, idx_q, eaddr_q};

  assign busy_o = (state_q != SIdle);

`ifndef SYNTHESIS
  always @(posedge clk_i or negedge rst_ni) begin : p_checks
    if (rst_ni) begin
      if (core_done_i) assert (state_q == SRun) else $error("weft_cmd_simt: done without a launch");
    end
  end
`endif

endmodule
