// tb_common_sram_1rw: test top for weft_sram_1rw (Verilator block tests). Adds the rst_ni port the
// C++ harness drives (SRAMs have no reset) and passes everything else through; the SRAM instance
// is u_sram, so its back-door scope is "top.tb_common_sram_1rw.u_sram".
module tb_common_sram_1rw #(
  parameter int  Depth    = 512,
  parameter int  Width    = 32,
  parameter bit  Ecc      = 1'b0,
  localparam int AddrW    = (Depth > 1) ? $clog2(Depth) : 1,
  localparam int NumBytes = Width / 8
) (
  input  logic                clk_i,
  input  logic                rst_ni,
  input  logic                req_i,
  input  logic                we_i,
  input  logic [AddrW-1:0]    addr_i,
  input  logic [Width-1:0]    wdata_i,
  input  logic [NumBytes-1:0] be_i,
  output logic [Width-1:0]    rdata_o,
  output logic [1:0]          rdata_ecc_o
);

  logic unused_rst_ni;
  assign unused_rst_ni = rst_ni;

  weft_sram_1rw #(.Depth(Depth), .Width(Width), .Ecc(Ecc)) u_sram (
    .clk_i,
    .req_i,
    .we_i,
    .addr_i,
    .wdata_i,
    .be_i,
    .rdata_o,
    .rdata_ecc_o
  );

endmodule
