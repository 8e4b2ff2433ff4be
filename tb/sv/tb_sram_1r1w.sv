// tb_sram_1r1w: self-checking bench of weft_sram_1r1w (Depth 40, Width 40), run by Icarus and
// by Verilator (--timing); reads the vectors of `weft_vecgen sram_1r1w` (tb/vectors/gen_sram.cpp).
// Line t: inputs driven before edge t, read data expected during cycle t. Same-address read
// during write is in the vectors and expects the old word (the model's documented behaviour).
// Prints "WEFT-BENCH sram_1r1w vectors=N errors=E signature=S" (S: hash of every checked rd_data_o).
module tb_sram_1r1w;
  localparam int Depth    = 40;
  localparam int Width    = 40;
  localparam int AddrW    = 6;
  localparam int NumBytes = Width / 8;
  localparam int MaxVec   = 16384;

  logic clk;
  initial begin
    clk = 1'b0;
    forever #5 clk = ~clk;
  end

  logic [7:0]       v_ctrl  [0:MaxVec-1];
  logic [7:0]       v_raddr [0:MaxVec-1];
  logic [7:0]       v_waddr [0:MaxVec-1];
  logic [Width-1:0] v_wdata [0:MaxVec-1];
  logic [Width-1:0] v_exp   [0:MaxVec-1];
  logic [31:0]      v_count [0:0];

  logic                check, rd_en, wr_en;
  logic [NumBytes-1:0] wr_be;
  logic [AddrW-1:0]    rd_addr, wr_addr;
  logic [Width-1:0]    wr_data, rd_data;
  logic [1:0]          rd_ecc;   // 0 without ECC (checked with the data)

  weft_sram_1r1w #(.Depth(Depth), .Width(Width)) u_dut (
    .clk_i     (clk),
    .rd_en_i   (rd_en),
    .rd_addr_i (rd_addr),
    .rd_data_o (rd_data),
    .rd_ecc_o  (rd_ecc),
    .wr_en_i   (wr_en),
    .wr_addr_i (wr_addr),
    .wr_data_i (wr_data),
    .wr_be_i   (wr_be)
  );

  string       dir;
  int          n, errors, checks;
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
    $readmemh({dir, "/raddr.hex"}, v_raddr, 0, n - 1);
    $readmemh({dir, "/waddr.hex"}, v_waddr, 0, n - 1);
    $readmemh({dir, "/wdata.hex"}, v_wdata, 0, n - 1);
    $readmemh({dir, "/exp.hex"}, v_exp, 0, n - 1);
    errors = 0;
    checks = 0;
    sig    = 64'hcbf29ce484222325;  // FNV-1a offset basis
    {rd_en, rd_addr, wr_en, wr_addr, wr_data, wr_be} = '0;
    for (int t = 0; t < n; t++) begin
      @(negedge clk);
      {check, rd_en, wr_en, wr_be} = v_ctrl[t];
      rd_addr = v_raddr[t][AddrW-1:0];
      wr_addr = v_waddr[t][AddrW-1:0];
      wr_data = v_wdata[t];
      #1;
      if (check) begin
        checks++;
        sig = (sig ^ 64'(rd_data)) * 64'h00000100000001b3;
        if (rd_data !== v_exp[t] || rd_ecc !== 2'b00) begin
          errors++;
          if (errors <= 10) $display("ERROR cycle %0d: rd_data %h rd_ecc %b, expected %h, 00", t, rd_data, rd_ecc, v_exp[t]);
        end
      end
    end
    if (checks == 0) begin
      errors++;
      $display("ERROR: no read data was checked");
    end
    $display("WEFT-BENCH sram_1r1w vectors=%0d errors=%0d signature=%h", n, errors, sig);
    $finish;
  end
endmodule
