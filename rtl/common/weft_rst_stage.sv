// weft_rst_stage: one stage of the reset tree. The output follows rst_ni low at once
// (asynchronous assertion) and goes high one clock edge after rst_ni does (synchronous release),
// so a block's reset is driven by a flip-flop placed among that block's flip-flops instead of one
// net that crosses the die (docs/fpga.md "Reset": on the ECP5 the reset's release was the worst
// path of the 30 MHz build).
//
// keep: Yosys would otherwise merge the stages of all blocks (same inputs) back into one
// flip-flop.
module weft_rst_stage (
  input  logic clk_i,
  input  logic rst_ni,
  output logic rst_no
);

  (* keep *) logic rst_q;

`ifndef SYNTHESIS
  // In simulation the stage starts out of reset (1), so that the first assertion of rst_ni is an
  // edge on rst_no too and the block's asynchronous reset acts at once, as it did when the block
  // took rst_ni itself (with randomised initial state, a stage that started at 0 would leave its
  // block unreset until the first clock edge). On the FPGA the board top asserts rst_ni from
  // configuration until the PLL locks; the ECP5 has no flip-flop that starts at 1 and resets to 0.
  initial rst_q = 1'b1;
`endif

  always_ff @(posedge clk_i or negedge rst_ni) begin : p_stage
    if (!rst_ni) rst_q <= 1'b0;
    else         rst_q <= 1'b1;
  end

  assign rst_no = rst_q;

endmodule
