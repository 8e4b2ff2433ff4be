// weft_hs_checker: simulation checker of one valid/ready handshake.
//
// Rule checked: once valid_i is high and not accepted (ready_i low) at a clock edge, at the next
// edge valid_i must still be high and data_i unchanged, until the transfer happens. A flush
// (flush_i high at either edge) releases the obligation: flushed streams may withdraw data.
// ready_i may do anything (it may drop without a transfer).
//
// Instantiated by every stream primitive on its inputs (catches a misbehaving producer) and its
// outputs (catches the primitive itself). Immediate assertions in clocked blocks, compiled out
// when SYNTHESIS is defined (Yosys defines it): live under Verilator --assert and under Icarus.
// A failure prints "%Error"/"ERROR" with the checker's hierarchical name (%m).
module weft_hs_checker #(
  parameter int Width = 1
) (
  input  logic             clk_i,
  input  logic             rst_ni,
  input  logic             flush_i,
  input  logic             valid_i,
  input  logic             ready_i,
  input  logic [Width-1:0] data_i
);

`ifndef SYNTHESIS
  logic             stall_q, stall_d;  // valid and not accepted at the last edge
  logic [Width-1:0] data_q;            // data_i at the last edge

  assign stall_d = valid_i && !ready_i && !flush_i;

  always_ff @(posedge clk_i or negedge rst_ni) begin : p_stall
    if (!rst_ni) begin
      stall_q <= 1'b0;
    end else begin
      stall_q <= stall_d;
    end
  end

  always_ff @(posedge clk_i) begin : p_data
    data_q <= data_i;
  end

  // A checking process, not a flop: plain always (Icarus warns about $error in always_ff), with
  // the reset in the event list so that the reset is only ever used asynchronously (a synchronous
  // use of rst_ni is Verilator's SYNCASYNCNET).
  always @(posedge clk_i or negedge rst_ni) begin : p_check
    if (rst_ni && stall_q && !flush_i) begin
      assert (valid_i) else $error("%m: valid dropped while stalled (data was 'h%0h)", data_q);
      if (valid_i) begin
        assert (data_i == data_q)
          else $error("%m: data changed while stalled: 'h%0h -> 'h%0h", data_q, data_i);
      end
    end
  end
`else
  // Synthesis: no logic.
  logic unused;
  assign unused = ^{clk_i, rst_ni, flush_i, valid_i, ready_i, data_i};
`endif

endmodule
