// tb_sram_ecc: self-checking bench of weft_sram_1r1w with ECC (Depth 16, Width 128, Ecc 1), run
// by Icarus and by Verilator (--timing): the ECC wrappers in the subset both simulators take.
// Stored bits are inverted through a hierarchical reference to the array (u_dut.mem), the way
// the DPI back door's weft_sram_bd_flip does under Verilator. For four words (zero and three
// from an LCG): every single stored bit (128 data + 9 check) flipped must read back as the word
// with rd_ecc_o = 01; for one word every pair of bits must read rd_ecc_o = 10; the clean word
// must read 00. +vectors is accepted and unused (weft_sv_bench passes it).
// Prints "WEFT-BENCH sram_ecc vectors=N errors=E signature=S" (N reads checked, S: hash of the
// corrected data and flags).
module tb_sram_ecc;
  localparam int Depth  = 16;
  localparam int Width  = 128;
  localparam int CheckW = weft_ecc_pkg::check_bits(Width);
  localparam int StoreW = Width + CheckW;

  logic clk;
  initial begin
    clk = 1'b0;
    forever #5 clk = ~clk;
  end

  logic             rd_en, wr_en;
  logic [3:0]       rd_addr, wr_addr;
  logic [Width-1:0] wr_data, rd_data, word;
  logic [1:0]       rd_ecc;

  weft_sram_1r1w #(.Depth(Depth), .Width(Width), .Ecc(1'b1)) u_dut (
    .clk_i     (clk),
    .rd_en_i   (rd_en),
    .rd_addr_i (rd_addr),
    .rd_data_o (rd_data),
    .rd_ecc_o  (rd_ecc),
    .wr_en_i   (wr_en),
    .wr_addr_i (wr_addr),
    .wr_data_i (wr_data),
    .wr_be_i   ({(Width / 8){1'b1}})
  );

  int          errors, checks, singles, doubles;
  logic [63:0] sig, lcg;

  // One read of address a; the result is on rd_data / rd_ecc afterwards.
  task automatic read_word(input logic [3:0] a);
    @(negedge clk);
    rd_en   = 1'b1;
    rd_addr = a;
    @(negedge clk);
    rd_en   = 1'b0;
    #1;
  endtask

  task automatic expect_read(input logic [3:0] a, input logic [1:0] ecc, input logic check_data);
    read_word(a);
    checks++;
    sig = (sig ^ 64'(rd_data) ^ 64'(rd_ecc)) * 64'h00000100000001b3;
    if (rd_ecc !== ecc || (check_data && rd_data !== word)) begin
      errors++;
      if (errors <= 10) $display("ERROR read %0d: rd_data %h rd_ecc %b, expected %h %b", checks, rd_data, rd_ecc, word, ecc);
    end
  endtask

  task automatic flip(input logic [3:0] a, input int b);
    u_dut.mem[a][b] = ~u_dut.mem[a][b];
  endtask

  initial begin
    errors  = 0;
    checks  = 0;
    singles = 0;
    doubles = 0;
    sig     = 64'hcbf29ce484222325;  // FNV-1a offset basis
    lcg     = 64'd1;
    {rd_en, rd_addr, wr_en, wr_addr, wr_data} = '0;
    for (int n = 0; n < 4; n++) begin
      word = '0;
      for (int c = 0; c < Width / 32 && n > 0; c++) begin
        lcg = lcg * 64'd6364136223846793005 + 64'd1442695040888963407;
        word[32*c +: 32] = lcg[63:32];
      end
      @(negedge clk);
      wr_en   = 1'b1;
      wr_addr = 4'(n + 3);
      wr_data = word;
      @(negedge clk);
      wr_en = 1'b0;
      expect_read(4'(n + 3), 2'b00, 1'b1);
      for (int b = 0; b < StoreW; b++) begin
        flip(4'(n + 3), b);
        expect_read(4'(n + 3), 2'b01, 1'b1);
        singles++;
        flip(4'(n + 3), b);
      end
      if (n == 3) begin
        for (int b = 0; b < StoreW; b++) begin
          for (int c = b + 1; c < StoreW; c++) begin
            flip(4'(n + 3), b);
            flip(4'(n + 3), c);
            expect_read(4'(n + 3), 2'b10, 1'b0);
            doubles++;
            flip(4'(n + 3), b);
            flip(4'(n + 3), c);
          end
        end
      end
    end
    $display("[ecc] sram_ecc: %0d single-bit flips corrected, %0d double-bit flips detected (of %0d bits)",
             singles, doubles, StoreW);
    $display("WEFT-BENCH sram_ecc vectors=%0d errors=%0d signature=%h", checks, errors, sig);
    $finish;
  end
endmodule
