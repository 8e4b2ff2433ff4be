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

  always_ff @(posedge clk_i or negedge rst_ni) begin : p_stage
    if (!rst_ni) rst_q <= 1'b0;
    else         rst_q <= 1'b1;
  end

  assign rst_no = rst_q;

endmodule
