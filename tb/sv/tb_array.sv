// tb_array: self-checking bench of a Rows x Cols weft_systolic_array for Icarus and Verilator
// (--timing), reading the vectors of `weft_vecgen array` (4x4) or `array_16x16`: per cycle the
// weight-row write and activation vector driven before the edge, and the result vector expected
// after it (golden GEMM, Rows + Cols - 1 cycles after its input). Prints "WEFT-BENCH array ...".
module tb_array #(
  parameter int Rows = 4,
  parameter int Cols = 4
);
  localparam int OpW = 9;
  localparam int RowW = (Rows > 1) ? $clog2(Rows) : 1;
  localparam int InW = Rows * OpW + 2 + Cols * OpW + RowW + 2;
  localparam int OutW = Cols * 32 + 1;
  localparam int MaxVec = 262144;

  logic clk = 1'b0;
  logic rst_n = 1'b0;
  always #5 clk = ~clk;

  logic [InW-1:0]  vin  [0:MaxVec-1];
  logic [OutW-1:0] vout [0:MaxVec-1];
  logic [31:0]  vcount [0:0];

  logic                 w_we, w_buf, a_valid, a_buf, c_valid;
  logic [RowW-1:0]      w_row;
  logic [Cols*OpW-1:0]  w_data;
  logic [Rows*OpW-1:0]  a_data;
  logic [Cols*32-1:0]   c_data;
  logic [Cols-1:0]      c_fp_data;  // the FP tile sums: one constant bit per column without Fp

  weft_systolic_array #(.Rows(Rows), .Cols(Cols)) u_dut (
    .clk_i     (clk),
    .rst_ni    (rst_n),
    .w_we_i    (w_we),
    .w_buf_i   (w_buf),
    .w_row_i   (w_row),
    .w_data_i  (w_data),
    .a_valid_i (a_valid),
    .a_buf_i   (a_buf),
    .a_fp_i    (1'b0),
    .a_data_i  (a_data),
    .c_valid_o   (c_valid),
    .c_data_o    (c_data),
    .c_fp_data_o (c_fp_data)
  );

  string dir;
  int n, errors, checked;
  logic [63:0] sig;
  logic [OutW-1:0] got;

  initial begin
    if (!$value$plusargs("vectors=%s", dir)) begin
      $display("FATAL: +vectors=<dir> missing");
      $finish;
    end
    $readmemh({dir, "/count.hex"}, vcount);
    n = vcount[0];
    $readmemh({dir, "/array_in.hex"}, vin, 0, n - 1);
    $readmemh({dir, "/array_out.hex"}, vout, 0, n - 1);
    errors = 0;
    checked = 0;
    sig = 64'h0;
    {w_we, w_buf, w_row, w_data, a_valid, a_buf, a_data} = '0;
    repeat (2) @(negedge clk);
    rst_n = 1'b1;
    for (int i = 0; i < n; i++) begin
      @(negedge clk);
      {w_we, w_buf, w_row, w_data, a_valid, a_buf, a_data} = vin[i];
      @(posedge clk);
      #1;
      got = {c_valid, c_valid ? c_data : {(Cols*32){1'b0}}};
      if (c_valid) begin
        checked++;
        for (int c = 0; c < Cols; c++) sig = {sig[58:0], sig[63:59]} ^ {32'b0, c_data[c*32 +: 32]};
      end
      // An array built without Fp drives its FP tile sums to 0.
      if (got !== vout[i] || c_fp_data !== '0) begin
        errors++;
        if (errors <= 10) $display("ERROR cycle %0d: got %h want %h", i, got, vout[i]);
      end
    end
    $display("WEFT-BENCH array vectors=%0d errors=%0d signature=%h", checked, errors, sig);
    $finish;
  end
endmodule
