// weft_pe: one processing element of the weight-stationary systolic array.
//
// Holds two weights (double buffer): a new tile's weight is written into one buffer while
// activations keep streaming through the other. Each activation carries the buffer it must be
// multiplied with (a_buf), so the switch from one tile to the next travels through the array
// with the data and needs no global swap.
//
// Integer operands are 9-bit signed: an int8 or uint8 value minus its zero point (see
// weft_pkg::OpW), so every product is exact for both operand kinds. Each cycle:
//   a_q  <= a_i                                  (activation moves one PE to the right)
//   ps_q <= ps_i + a_i * w[a_buf_i]              (partial sum moves one PE down)
// With Fp, an activation flagged a_fp_i carries a decoded FP8 element (weft_fp_pkg::fp_op_t)
// and so does the weight it meets; the PE then updates a second partial sum, fp_ps (FpW =
// weft_fp_pkg::FpPsW bits): the exact fixed-point sum of the tile's products with NaN / Inf
// flags (weft_fp_mac):
//   fp_ps_q <= fp_ps_i + a_i * w[a_buf_i]        (exact: no rounding inside the array)
// An FP activation whose lane has the wide flag (weft_fp_pkg::FpLaneW: BF16) meets a BF16
// weight; then fp_ps carries an FP32 value in its low 32 bits and the PE adds the exact
// product with one FP32 rounding (weft_fp_pkg::fp_fma_bf16_en):
//   fp_ps_q <= fl32(fp_ps_i + a_i * w[a_buf_i])
// A weight of class ClsAbsent (a short tile's missing row) passes fp_ps_i through unchanged.
// The two chains are separate so that integer GEMMs keep 32-bit partial sums (and a simulator
// their speed): fp_ps_q only changes for FP activations, ps_q is don't-care for them.
`include "weft_assert.svh"

module weft_pe #(
  parameter bit Fp   = 1'b0,
  parameter int OpW  = weft_pkg::OpW,
  parameter int AccW = weft_pkg::AccW,
  localparam int IntW = weft_pkg::OpW,
  localparam int FpW  = Fp ? weft_fp_pkg::FpPsW : 1
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
  input  logic            a_fp_i,
  input  logic [OpW-1:0]  a_data_i,
  output logic            a_valid_o,
  output logic            a_buf_o,
  output logic            a_fp_o,
  output logic [OpW-1:0]  a_data_o,
  // partial sum from the PE above, passed down
  input  logic [AccW-1:0] ps_i,
  output logic [AccW-1:0] ps_o,
  // FP partial sum (Fp only; one unused bit otherwise)
  input  logic [FpW-1:0]  fp_ps_i,
  output logic [FpW-1:0]  fp_ps_o
);

  // Inlined into the array (Verilator): FP builds make the PE big enough that Verilator would
  // otherwise call it per instance, about a call per PE per region per cycle.
  /* verilator inline_module */

  if (AccW < 2 * IntW || OpW < IntW) begin : g_bad_acc
    `WEFT_ELAB_ERROR("weft_pe: AccW must hold a full integer product and OpW an integer operand")
  end
  if (Fp && OpW < weft_fp_pkg::FpLaneW) begin : g_bad_fp
    `WEFT_ELAB_ERROR("weft_pe: Fp needs OpW >= weft_fp_pkg::FpLaneW")
  end

  logic [OpW-1:0] w0_q, w1_q, w0_d, w1_d, w_sel;
  logic           a_valid_q, a_buf_q, a_fp_q;
  logic [OpW-1:0] a_data_q;
  logic [AccW-1:0] ps_q, ps_d;
  logic signed [2*IntW-1:0] prod;

  always_comb begin
    w0_d = w0_q;
    w1_d = w1_q;
    if (w_we_i && !w_buf_i) w0_d = w_data_i;
    if (w_we_i && w_buf_i) w1_d = w_data_i;
  end

  assign w_sel = a_buf_i ? w1_q : w0_q;
  assign prod  = $signed(a_data_i[IntW-1:0]) * $signed(w_sel[IntW-1:0]);
  assign ps_d  = ps_i + AccW'(prod);  // prod is signed: the cast sign-extends

  if (Fp) begin : g_fp
    localparam int FpOpW = weft_fp_pkg::FpOpW;
    logic [FpW-1:0] fp_sum, fp_ps_q;
    logic [31:0]    bf16_sum;
    logic           wide, unused_w_wide;
    assign wide          = a_data_i[FpOpW];
    assign unused_w_wide = w_sel[FpOpW];  // the activation's flag decides (same format)
    weft_fp_mac u_mac (
      .en_i (a_fp_i && !wide),
      .ps_i (fp_ps_i),
      .a_i  (a_data_i[FpOpW-1:0]),
      .w_i  (w_sel[FpOpW-1:0]),
      .ps_o (fp_sum)
    );
    assign bf16_sum = weft_fp_pkg::fp_fma_bf16_en(a_fp_i && wide, fp_ps_i[31:0],
                                                  a_data_i[FpOpW-1:0], w_sel[FpOpW-1:0]);
    always_ff @(posedge clk_i) begin
      if (a_fp_i) fp_ps_q <= wide ? FpW'(bf16_sum) : fp_sum;
    end
    assign fp_ps_o = fp_ps_q;
  end else begin : g_int
    logic unused_fp;
    assign unused_fp = a_fp_i ^ fp_ps_i[0];
    assign fp_ps_o   = '0;
  end

  // Weights and data have no reset: weights are always written before use, and data is only
  // meaningful when its valid bit (reset) says so.
  always_ff @(posedge clk_i) begin
    w0_q     <= w0_d;
    w1_q     <= w1_d;
    a_buf_q  <= a_buf_i;
    a_fp_q   <= a_fp_i;
    a_data_q <= a_data_i;
    ps_q     <= ps_d;
  end

  always_ff @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni) a_valid_q <= 1'b0;
    else         a_valid_q <= a_valid_i;
  end

  assign a_valid_o = a_valid_q;
  assign a_buf_o   = a_buf_q;
  assign a_fp_o    = a_fp_q;
  assign a_data_o  = a_data_q;
  assign ps_o      = ps_q;

endmodule
