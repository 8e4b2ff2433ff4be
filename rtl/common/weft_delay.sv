// weft_delay: a fixed pipeline delay of Depth register stages (Depth = 0: a wire).
// Used for the systolic array's input skew and output deskew and for metadata that travels
// alongside a fixed-latency pipeline. All stages reset to zero.
`include "weft_assert.svh"

module weft_delay #(
  parameter int Width = 1,
  parameter int Depth = 1
) (
  input  logic             clk_i,
  input  logic             rst_ni,
  input  logic [Width-1:0] in_i,
  output logic [Width-1:0] out_o
);

  if (Width < 1) begin : g_bad_width
    `WEFT_ELAB_ERROR("weft_delay: Width must be at least 1")
  end

  if (Depth == 0) begin : g_wire
    assign out_o = in_i;
  end else begin : g_regs
    logic [Width-1:0] stage_q [Depth];
    always_ff @(posedge clk_i or negedge rst_ni) begin
      if (!rst_ni) begin
        for (int i = 0; i < Depth; i++) stage_q[i] <= '0;
      end else begin
        stage_q[0] <= in_i;
        for (int i = 1; i < Depth; i++) stage_q[i] <= stage_q[i-1];
      end
    end
    assign out_o = stage_q[Depth-1];
  end

endmodule
