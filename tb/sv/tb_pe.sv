// tb_pe: self-checking bench of weft_pe for Icarus and Verilator (--timing), reading the
// vectors written by `weft_vecgen pe` (one line per cycle: inputs before the edge, expected
// outputs after it). Prints "WEFT-BENCH pe vectors=N errors=E signature=S".
module tb_pe;
  localparam int MaxVec = 262144;

  logic clk = 1'b0;
  logic rst_n = 1'b0;
  always #5 clk = ~clk;

  logic [53:0] vin  [0:MaxVec-1];
  logic [42:0] vout [0:MaxVec-1];
  logic [31:0] vcount [0:0];

  logic        w_we, w_buf, a_valid, a_buf, a_valid_o, a_buf_o, a_fp_o, fp_ps_o;
  logic [8:0]  w_data, a_data, a_data_o;
  logic [31:0] ps_i, ps_o;

  weft_pe u_dut (
    .clk_i     (clk),
    .rst_ni    (rst_n),
    .w_we_i    (w_we),
    .w_buf_i   (w_buf),
    .w_data_i  (w_data),
    .a_valid_i (a_valid),
    .a_buf_i   (a_buf),
    .a_fp_i    (1'b0),
    .a_data_i  (a_data),
    .a_valid_o (a_valid_o),
    .a_buf_o   (a_buf_o),
    .a_fp_o    (a_fp_o),
    .a_data_o  (a_data_o),
    .ps_i      (ps_i),
    .ps_o      (ps_o),
    .fp_ps_i   (1'b0),
    .fp_ps_o   (fp_ps_o)
  );

  string dir;
  int n, errors;
  logic [63:0] sig;
  logic [42:0] got;

  initial begin
    if (!$value$plusargs("vectors=%s", dir)) begin
      $display("FATAL: +vectors=<dir> missing");
      $finish;
    end
    $readmemh({dir, "/count.hex"}, vcount);
    n = vcount[0];
    $readmemh({dir, "/pe_in.hex"}, vin, 0, n - 1);
    $readmemh({dir, "/pe_out.hex"}, vout, 0, n - 1);
    errors = 0;
    sig = 64'h0;
    {w_we, w_buf, w_data, a_valid, a_buf, a_data, ps_i} = '0;
    repeat (2) @(negedge clk);
    rst_n = 1'b1;
    for (int i = 0; i < n; i++) begin
      @(negedge clk);
      {w_we, w_buf, w_data, a_valid, a_buf, a_data, ps_i} = vin[i];
      @(posedge clk);
      #1;
      got = {a_valid_o, a_buf_o, a_data_o, ps_o};
      if (i >= 2) begin  // the first two cycles load the weights
        sig = {sig[58:0], sig[63:59]} ^ {21'b0, got};
        // The integer bench never sets a_fp_i: the flag the PE forwards, and the FP partial sum of
        // a PE built without Fp, must stay 0.
        if (got !== vout[i] || a_fp_o !== 1'b0 || fp_ps_o !== 1'b0) begin
          errors++;
          if (errors <= 10) $display("ERROR cycle %0d: got %h want %h", i, got, vout[i]);
        end
      end
    end
    $display("WEFT-BENCH pe vectors=%0d errors=%0d signature=%h", n - 2, errors, sig);
    $finish;
  end
endmodule
