// tb_common_sram_1r1w: test top for weft_sram_1r1w (Verilator block tests). Adds the rst_ni port
// the C++ harness drives; back-door scope "top.tb_common_sram_1r1w.u_sram".
module tb_common_sram_1r1w #(
  parameter int  Depth    = 100,
  parameter int  Width    = 72,
  parameter bit  Ecc      = 1'b0,
  localparam int AddrW    = (Depth > 1) ? $clog2(Depth) : 1,
  localparam int NumBytes = Width / 8
) (
  input  logic                clk_i,
  input  logic                rst_ni,
  input  logic                rd_en_i,
  input  logic [AddrW-1:0]    rd_addr_i,
  output logic [Width-1:0]    rd_data_o,
  output logic [1:0]          rd_ecc_o,
  input  logic                wr_en_i,
  input  logic [AddrW-1:0]    wr_addr_i,
  input  logic [Width-1:0]    wr_data_i,
  input  logic [NumBytes-1:0] wr_be_i
);

  logic unused_rst_ni;
  assign unused_rst_ni = rst_ni;

  weft_sram_1r1w #(.Depth(Depth), .Width(Width), .Ecc(Ecc)) u_sram (
    .clk_i,
    .rd_en_i,
    .rd_addr_i,
    .rd_data_o,
    .rd_ecc_o,
    .wr_en_i,
    .wr_addr_i,
    .wr_data_i,
    .wr_be_i
  );

endmodule
