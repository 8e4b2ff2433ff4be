// tb_fifo: self-checking bench of weft_fifo (Width 16, Depth 5) for Icarus and Verilator
// (--timing), reading the vectors of `weft_vecgen fifo` (tb/vectors/gen_fifo.cpp): a random
// producer that respects the handshake, a random ready pattern and random flushes. Line t: the
// inputs driven before edge t and the outputs expected before it. The FIFO's own handshake
// checkers (weft_hs_checker) are live on both simulators.
// Prints "WEFT-BENCH fifo vectors=N errors=E signature=S" (S: hash of every output, out_data_o
// only while out_valid_o).
module tb_fifo;
  localparam int Width  = 16;
  localparam int Depth  = 5;
  localparam int MaxVec = 16384;

  logic clk;
  initial begin
    clk = 1'b0;
    forever #5 clk = ~clk;
  end
  logic rst_n = 1'b0;

  logic [3:0]       v_ctrl  [0:MaxVec-1];
  logic [Width-1:0] v_din   [0:MaxVec-1];
  logic [7:0]       v_exp   [0:MaxVec-1];
  logic [Width-1:0] v_dout  [0:MaxVec-1];
  logic [31:0]      v_count [0:0];

  logic             flush, in_valid, in_ready, out_valid, out_ready;
  logic [Width-1:0] in_data, out_data;
  logic [2:0]       usage;
  logic [4:0]       got, want;

  weft_fifo #(.Width(Width), .Depth(Depth)) u_dut (
    .clk_i       (clk),
    .rst_ni      (rst_n),
    .flush_i     (flush),
    .in_valid_i  (in_valid),
    .in_ready_o  (in_ready),
    .in_data_i   (in_data),
    .out_valid_o (out_valid),
    .out_ready_i (out_ready),
    .out_data_o  (out_data),
    .usage_o     (usage)
  );

  string       dir;
  int          n, errors;
  logic [63:0] sig;

  initial begin
    if (!$value$plusargs("vectors=%s", dir)) begin
      $display("FATAL: +vectors=<dir> missing");
      $finish;
    end
    $readmemh({dir, "/count.hex"}, v_count);
    n = v_count[0];
    if (n < 1 || n > MaxVec) begin
      $display("FATAL: vector count %0d outside 1..%0d", n, MaxVec);
      $finish;
    end
    $readmemh({dir, "/ctrl.hex"}, v_ctrl, 0, n - 1);
    $readmemh({dir, "/din.hex"}, v_din, 0, n - 1);
    $readmemh({dir, "/exp.hex"}, v_exp, 0, n - 1);
    $readmemh({dir, "/dout.hex"}, v_dout, 0, n - 1);
    errors = 0;
    sig    = 64'hcbf29ce484222325;  // FNV-1a offset basis
    {flush, in_valid, out_ready, in_data} = '0;
    repeat (3) @(negedge clk);
    rst_n = 1'b1;
    for (int t = 0; t < n; t++) begin
      @(negedge clk);
      {flush, in_valid, out_ready} = v_ctrl[t][2:0];
      in_data = v_din[t];
      #1;
      got  = {in_ready, out_valid, usage};
      want = v_exp[t][4:0];
      sig  = (sig ^ {59'b0, got}) * 64'h00000100000001b3;
      if (got !== want) begin
        errors++;
        if (errors <= 10) begin
          $display("ERROR cycle %0d: {in_ready, out_valid, usage} = %b, expected %b", t, got, want);
        end
      end
      if (want[3]) begin
        sig = (sig ^ {48'b0, out_data}) * 64'h00000100000001b3;
        if (out_data !== v_dout[t]) begin
          errors++;
          if (errors <= 10) $display("ERROR cycle %0d: out_data %h, expected %h", t, out_data, v_dout[t]);
        end
      end
    end
    $display("WEFT-BENCH fifo vectors=%0d errors=%0d signature=%h", n, errors, sig);
    $finish;
  end
endmodule
