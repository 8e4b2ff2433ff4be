// weft_fv_reset: the reset every proof harness of tb/formal assumes (docs/formal.md): asserted in
// the first cycle, then never again. first_o is high in that first cycle, so that a harness rule
// comparing with the previous cycle can start after it.
module weft_fv_reset (
  input  logic clk_i,
  input  logic rst_ni,
  output logic first_o
);
  logic first_q = 1'b1;
  always @(posedge clk_i) first_q <= 1'b0;
  always @(*) begin
    if (first_q) assume (!rst_ni);
    else         assume (rst_ni);
  end
  assign first_o = first_q;
endmodule
