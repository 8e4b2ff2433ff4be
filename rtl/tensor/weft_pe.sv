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
  parameter int AccW = weft_pkg::AccW,
  // 0: the product is `*` (DSP blocks, ASIC multipliers, fast in Verilator). 1: the product is a
  // tree of shifted partial products in plain adders (carry chains), for FPGAs whose DSP columns
  // cannot take every PE: on ECP5 it needs about half the logic cells that Yosys' generic
  // LUT multiplier does (docs/fpga.md "PE multipliers"). Same result bit for bit; OpW = 9 only.
  parameter int LutMul = 0
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
  if (LutMul != 0 && OpW != 9) begin : g_bad_lutmul
    `WEFT_ELAB_ERROR("weft_pe: LutMul supports OpW = 9 only")
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
  if (LutMul != 0) begin : g_lutmul
    // prod = sum_{j<8} g_j * 2^j - g_8 * 2^8 with g_j = w_j ? a : 0 (two's complement weight of
    // w's sign bit), summed as a tree of exact-width adders; keep stops Yosys from merging them
    // into one multi-operand sum, which it would map to full adders in LUTs again.
    logic signed [8:0] g [9];
    for (genvar j = 0; j < 9; j++) begin : g_pp
      assign g[j] = w_sel[j] ? $signed(a_data_i) : 9'sd0;
    end
    (* keep *) logic signed [10:0] p0, p1, p2, p3;
    (* keep *) logic signed [12:0] q0, q1;
    (* keep *) logic signed [16:0] r0;
    assign p0   = 11'(g[0]) + (11'(g[1]) <<< 1);
    assign p1   = 11'(g[2]) + (11'(g[3]) <<< 1);
    assign p2   = 11'(g[4]) + (11'(g[5]) <<< 1);
    assign p3   = 11'(g[6]) + (11'(g[7]) <<< 1);
    assign q0   = 13'(p0) + (13'(p1) <<< 2);
    assign q1   = 13'(p2) + (13'(p3) <<< 2);
    assign r0   = 17'(q0) + (17'(q1) <<< 4);
    assign prod = 18'(r0) - (18'(g[8]) <<< 8);
  end else begin : g_mul
    assign prod = $signed(a_data_i) * $signed(w_sel);
  end
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
