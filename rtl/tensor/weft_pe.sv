// weft_pe: one processing element of the weight-stationary systolic array.
//
// Holds two weights (double buffer): a new tile's weight is written into one buffer while
// activations keep streaming through the other. Each activation carries the buffer it must be
// multiplied with (a_buf), so the switch from one tile to the next travels through the array
// with the data and needs no global swap.
//
// Operands are 9-bit signed: an int8 or uint8 value minus its zero point (see weft_pkg::OpW),
// so every product is exact for both operand kinds. Each cycle:
//   a_q  <= a_i                                  (activation moves one PE to the right)
//   ps_q <= ps_i + a_i * w[a_buf_i]              (partial sum moves one PE down)
`include "weft_assert.svh"

module weft_pe #(
  parameter int OpW  = weft_pkg::OpW,
  parameter int AccW = weft_pkg::AccW
) (
  input  logic            clk_i,
  input  logic            rst_ni,
  // weight write port (from the column's weight bus)
  input  logic            w_we_i,
  input  logic            w_buf_i,
  input  logic [OpW-1:0]  w_data_i,
  // activation from the left neighbour, passed on to the right
  input  logic            a_valid_i,
  input  logic            a_buf_i,
  input  logic [OpW-1:0]  a_data_i,
  output logic            a_valid_o,
  output logic            a_buf_o,
  output logic [OpW-1:0]  a_data_o,
  // partial sum from the PE above, passed down
  input  logic [AccW-1:0] ps_i,
  output logic [AccW-1:0] ps_o
);

  if (AccW < 2 * OpW) begin : g_bad_acc
    `WEFT_ELAB_ERROR("weft_pe: AccW must hold a full product (AccW >= 2*OpW)")
  end

  logic [OpW-1:0] w0_q, w1_q, w0_d, w1_d, w_sel;
  logic           a_valid_q, a_buf_q;
  logic [OpW-1:0] a_data_q;
  logic [AccW-1:0] ps_q, ps_d;
  logic signed [2*OpW-1:0] prod;

  always_comb begin
    w0_d = w0_q;
    w1_d = w1_q;
    if (w_we_i && !w_buf_i) w0_d = w_data_i;
    if (w_we_i && w_buf_i) w1_d = w_data_i;
  end

  assign w_sel = a_buf_i ? w1_q : w0_q;
  assign prod  = $signed(a_data_i) * $signed(w_sel);
  assign ps_d  = ps_i + AccW'(prod);  // prod is signed: the cast sign-extends

  // Weights and data have no reset: weights are always written before use, and data is only
  // meaningful when its valid bit (reset) says so.
  always_ff @(posedge clk_i) begin
    w0_q     <= w0_d;
    w1_q     <= w1_d;
    a_buf_q  <= a_buf_i;
    a_data_q <= a_data_i;
    ps_q     <= ps_d;
  end

  always_ff @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni) a_valid_q <= 1'b0;
    else         a_valid_q <= a_valid_i;
  end

  assign a_valid_o = a_valid_q;
  assign a_buf_o   = a_buf_q;
  assign a_data_o  = a_data_q;
  assign ps_o      = ps_q;

endmodule
