// tb_common_sram_nest: back-door test top with SRAMs of both kinds inside generate blocks, as a
// real block would hold them:
//   g_bank[0].u_sram, g_bank[1].u_sram : weft_sram_1rw, 64 x 32 (front door: bank_*)
//   g_dp.g_port[0].u_sram              : weft_sram_1r1w, 32 x 128 (front door: dp_*)
// Scopes: "top.tb_common_sram_nest.g_bank[1].u_sram", "top.tb_common_sram_nest.g_dp.g_port[0].u_sram".
module tb_common_sram_nest #(
  parameter bit WithDp = 1'b1
) (
  input  logic          clk_i,
  input  logic          rst_ni,
  // two single-port banks: shared command, one request and one read-data word per bank
  input  logic [1:0]    bank_req_i,
  input  logic          bank_we_i,
  input  logic [5:0]    bank_addr_i,
  input  logic [31:0]   bank_wdata_i,
  input  logic [3:0]    bank_be_i,
  output logic [63:0]   bank_rdata_o,
  // the dual-port SRAM
  input  logic          dp_rd_en_i,
  input  logic [4:0]    dp_rd_addr_i,
  output logic [127:0]  dp_rd_data_o,
  input  logic          dp_wr_en_i,
  input  logic [4:0]    dp_wr_addr_i,
  input  logic [127:0]  dp_wr_data_i,
  input  logic [15:0]   dp_wr_be_i
);

  logic unused_rst_ni;
  assign unused_rst_ni = rst_ni;

  for (genvar i = 0; i < 2; i++) begin : g_bank
    logic [1:0] unused_ecc;
    weft_sram_1rw #(.Depth(64), .Width(32)) u_sram (
      .clk_i,
      .req_i   (bank_req_i[i]),
      .we_i    (bank_we_i),
      .addr_i  (bank_addr_i),
      .wdata_i (bank_wdata_i),
      .be_i    (bank_be_i),
      .rdata_o (bank_rdata_o[32*i +: 32]),
      .rdata_ecc_o (unused_ecc)
    );
  end

  if (WithDp) begin : g_dp
    for (genvar j = 0; j < 1; j++) begin : g_port
      logic [1:0] unused_ecc;
      weft_sram_1r1w #(.Depth(32), .Width(128)) u_sram (
        .clk_i,
        .rd_en_i   (dp_rd_en_i),
        .rd_addr_i (dp_rd_addr_i),
        .rd_data_o (dp_rd_data_o),
        .rd_ecc_o  (unused_ecc),
        .wr_en_i   (dp_wr_en_i),
        .wr_addr_i (dp_wr_addr_i),
        .wr_data_i (dp_wr_data_i),
        .wr_be_i   (dp_wr_be_i)
      );
    end
  end else begin : g_no_dp
    assign dp_rd_data_o = '0;
    logic unused_dp;
    assign unused_dp = ^{dp_rd_en_i, dp_rd_addr_i, dp_wr_en_i, dp_wr_addr_i, dp_wr_data_i, dp_wr_be_i};
  end

endmodule
