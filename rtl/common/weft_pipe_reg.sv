// weft_pipe_reg: one pipeline stage register. The valid bit is reset; the data beside it is a
// datapath register without reset (docs/fpga.md "Reset": only control state is reset), taken
// every cycle, so it is meaningful only while valid_o is set.
module weft_pipe_reg #(
  parameter int Width = 8
) (
  input  logic             clk_i,
  input  logic             rst_ni,
  input  logic             valid_i,
  input  logic [Width-1:0] data_i,
  output logic             valid_o,
  output logic [Width-1:0] data_o
);

  logic             valid_q;
  logic [Width-1:0] data_q;

  always_ff @(posedge clk_i or negedge rst_ni) begin : p_valid
    if (!rst_ni) valid_q <= 1'b0;
    else         valid_q <= valid_i;
  end

  always_ff @(posedge clk_i) begin : p_data
    data_q <= data_i;
  end

  assign valid_o = valid_q;
  assign data_o  = data_q;

endmodule
