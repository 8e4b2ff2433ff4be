// tb_sram_1rw: self-checking bench of weft_sram_1rw (Depth 48, Width 24), run by Icarus and
// by Verilator (--timing); reads the vectors of `weft_vecgen sram_1rw` (tb/vectors/gen_sram.cpp).
// Line t: inputs driven before edge t, read data expected during cycle t.
// Prints "WEFT-BENCH sram_1rw vectors=N errors=E signature=S" (S: hash of every checked rdata_o).
module tb_sram_1rw;
  localparam int Depth    = 48;
  localparam int Width    = 24;
  localparam int AddrW    = 6;
  localparam int NumBytes = Width / 8;
  localparam int MaxVec   = 16384;

  logic clk;
  initial begin
    clk = 1'b0;
    forever #5 clk = ~clk;
  end

  logic [7:0]       v_ctrl  [0:MaxVec-1];
  logic [7:0]       v_addr  [0:MaxVec-1];
  logic [Width-1:0] v_wdata [0:MaxVec-1];
  logic [Width-1:0] v_exp   [0:MaxVec-1];
  logic [31:0]      v_count [0:0];

  logic                check, req, we;
  logic [NumBytes-1:0] be;
  logic [AddrW-1:0]    addr;
  logic [Width-1:0]    wdata, rdata;
  logic [1:0]          rdata_ecc;   // 0 without ECC (checked with the data)

  weft_sram_1rw #(.Depth(Depth), .Width(Width)) u_dut (
    .clk_i   (clk),
    .req_i   (req),
    .we_i    (we),
    .addr_i  (addr),
    .wdata_i (wdata),
    .be_i    (be),
    .rdata_o (rdata),
    .rdata_ecc_o (rdata_ecc)
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
    $readmemh({dir, "/addr.hex"}, v_addr, 0, n - 1);
    $readmemh({dir, "/wdata.hex"}, v_wdata, 0, n - 1);
    $readmemh({dir, "/exp.hex"}, v_exp, 0, n - 1);
    errors = 0;
    checks = 0;
    sig    = 64'hcbf29ce484222325;  // FNV-1a offset basis
    {req, we, be, addr, wdata} = '0;
    for (int t = 0; t < n; t++) begin
      @(negedge clk);
      {check, req, we, be} = v_ctrl[t][5:0];
      addr  = v_addr[t][AddrW-1:0];
      wdata = v_wdata[t];
      #1;
      if (check) begin
        checks++;
        sig = (sig ^ 64'(rdata)) * 64'h00000100000001b3;
        if (rdata !== v_exp[t] || rdata_ecc !== 2'b00) begin
          errors++;
          if (errors <= 10) $display("ERROR cycle %0d: rdata %h ecc %b, expected %h, 00", t, rdata, rdata_ecc, v_exp[t]);
        end
      end
    end
    if (checks == 0) begin
      errors++;
      $display("ERROR: no read data was checked");
    end
    $display("WEFT-BENCH sram_1rw vectors=%0d errors=%0d signature=%h", n, errors, sig);
    $finish;
  end
endmodule
