// weft_systolic_array: Rows x Cols weight-stationary systolic array of weft_pe.
//
// PE(r,c) holds W[r][c] (two buffers). One activation vector A[m][0..Rows-1] enters per cycle,
// unskewed, on a_*: element r is delayed r cycles (input skew) and enters row r from the left.
// Partial sums flow down the columns from zero; column c's sum leaves the bottom row
// c cycles after column 0's and is delayed Cols-1-c cycles (output deskew), so that
//   c_data_o[c] = sum_r a[r] * W[r][c]   for the vector that entered Latency cycles earlier,
// with c_valid_o = a_valid_i delayed by Latency = Rows + Cols - 1. The array never stalls.
//
// Weights are written one row per cycle through w_*: w_data_i holds row w_row_i for every
// column, into buffer w_buf_i. A buffer must not be written while activations that use it are
// still inside the array (the tensor unit's weight loader guarantees this).
//
// With Fp, a_fp_i travels with each activation vector: the PEs it passes add its FP8 products
// into the FP partial sums (weft_pe), which leave deskewed on c_fp_data_o (exact fixed-point tile
// sums, FpW bits per column) beside c_data_o, so integer and FP COMPUTEs follow each other
// without a drain.
//
// Every PE-to-PE link is its own net inside the generate blocks (Icarus speed; tool-subset.md).
`include "weft_assert.svh"

module weft_systolic_array #(
  parameter int Rows = 4,
  parameter int Cols = 4,
  parameter bit Fp   = 1'b0,
  parameter int OpW  = weft_pkg::OpW,
  parameter int AccW = weft_pkg::AccW,
  localparam int RowIdxW = (Rows > 1) ? $clog2(Rows) : 1,
  localparam int FpW     = Fp ? weft_fp_pkg::FpPsW : 1,
  localparam int Latency = Rows + Cols - 1
) (
  input  logic                 clk_i,
  input  logic                 rst_ni,
  // weight rows
  input  logic                 w_we_i,
  input  logic                 w_buf_i,
  input  logic [RowIdxW-1:0]   w_row_i,
  input  logic [Cols*OpW-1:0]  w_data_i,
  // activation vectors
  input  logic                 a_valid_i,
  input  logic                 a_buf_i,
  input  logic                 a_fp_i,
  input  logic [Rows*OpW-1:0]  a_data_i,
  // result vectors
  output logic                 c_valid_o,
  output logic [Cols*AccW-1:0] c_data_o,
  output logic [Cols*FpW-1:0]  c_fp_data_o
);

  if (Rows < 1 || Rows > 64 || Cols < 1 || Cols > 64) begin : g_bad_size
    `WEFT_ELAB_ERROR("weft_systolic_array: Rows and Cols must be in 1..64")
  end

  for (genvar r = 0; r < Rows; r++) begin : g_row
    // Row r's activation after the input skew of r cycles.
    logic           sk_valid, sk_buf, sk_fp;
    logic [OpW-1:0] sk_data;
    logic           row_we;

    weft_delay #(.Width(OpW + 3), .Depth(r)) u_skew (
      .clk_i,
      .rst_ni,
      .in_i  ({a_valid_i, a_buf_i, a_fp_i, a_data_i[r*OpW +: OpW]}),
      .out_o ({sk_valid, sk_buf, sk_fp, sk_data})
    );

    assign row_we = w_we_i && (w_row_i == RowIdxW'(r));

    for (genvar c = 0; c < Cols; c++) begin : g_col
      // This PE's outgoing links (its own nets).
      logic            a_valid, a_buf, a_fp;
      logic [OpW-1:0]  a_data;
      logic [AccW-1:0] ps;
      logic [FpW-1:0]  fp_ps;
      // Incoming links: from the left neighbour (or the skew) and from above (or zero).
      logic            a_valid_in, a_buf_in, a_fp_in;
      logic [OpW-1:0]  a_data_in;
      logic [AccW-1:0] ps_in;
      logic [FpW-1:0]  fp_ps_in;

      if (c == 0) begin : g_left_edge
        assign a_valid_in = sk_valid;
        assign a_buf_in   = sk_buf;
        assign a_fp_in    = sk_fp;
        assign a_data_in  = sk_data;
      end else begin : g_left_pe
        assign a_valid_in = g_row[r].g_col[c-1].a_valid;
        assign a_buf_in   = g_row[r].g_col[c-1].a_buf;
        assign a_fp_in    = g_row[r].g_col[c-1].a_fp;
        assign a_data_in  = g_row[r].g_col[c-1].a_data;
      end

      if (c == Cols - 1) begin : g_right_edge
        // The activation leaving the last column goes nowhere.
        logic unused_a_out;
        assign unused_a_out = ^{a_valid, a_buf, a_fp, a_data};
      end

      if (r == 0) begin : g_top_edge
        assign ps_in    = '0;
        assign fp_ps_in = '0;
      end else begin : g_top_pe
        assign ps_in    = g_row[r-1].g_col[c].ps;
        assign fp_ps_in = g_row[r-1].g_col[c].fp_ps;
      end

      weft_pe #(.Fp(Fp), .OpW(OpW), .AccW(AccW)) u_pe (
        .clk_i,
        .rst_ni,
        .w_we_i    (row_we),
        .w_buf_i,
        .w_data_i  (w_data_i[c*OpW +: OpW]),
        .a_valid_i (a_valid_in),
        .a_buf_i   (a_buf_in),
        .a_fp_i    (a_fp_in),
        .a_data_i  (a_data_in),
        .a_valid_o (a_valid),
        .a_buf_o   (a_buf),
        .a_fp_o    (a_fp),
        .a_data_o  (a_data),
        .ps_i      (ps_in),
        .ps_o      (ps),
        .fp_ps_i   (fp_ps_in),
        .fp_ps_o   (fp_ps)
      );
    end
  end

  // Output deskew: column c waits Cols-1-c cycles so that a whole result vector leaves at once.
  for (genvar c = 0; c < Cols; c++) begin : g_deskew
    weft_delay #(.Width(AccW), .Depth(Cols - 1 - c)) u_deskew (
      .clk_i,
      .rst_ni,
      .in_i  (g_row[Rows-1].g_col[c].ps),
      .out_o (c_data_o[c*AccW +: AccW])
    );
  end

  if (Fp) begin : g_fp_deskew
    for (genvar c = 0; c < Cols; c++) begin : g_col
      weft_delay #(.Width(FpW), .Depth(Cols - 1 - c)) u_deskew (
        .clk_i,
        .rst_ni,
        .in_i  (g_row[Rows-1].g_col[c].fp_ps),
        .out_o (c_fp_data_o[c*FpW +: FpW])
      );
    end
  end else begin : g_no_fp
    logic [Cols-1:0] unused_fp_ps;  // the bottom row's FP sums (a constant 0 without Fp)
    for (genvar c = 0; c < Cols; c++) begin : g_col
      assign unused_fp_ps[c] = g_row[Rows-1].g_col[c].fp_ps[0];
    end
    assign c_fp_data_o = '0;
  end

  // The result is valid exactly Latency cycles after its vector entered.
  weft_delay #(.Width(1), .Depth(Latency)) u_valid (
    .clk_i,
    .rst_ni,
    .in_i  (a_valid_i),
    .out_o (c_valid_o)
  );

endmodule
