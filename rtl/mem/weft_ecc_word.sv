// weft_ecc_word: the SECDED code (weft_ecc_pkg, docs/common.md "ECC") between an SRAM wrapper's
// ports and its array: the word to store for the write data (data, then its check bits on top)
// and, from the word read, the corrected data and what the decoder found ([0] one flipped bit
// corrected, [1] uncorrectable). Without Ecc the data passes through and nothing is reported.
// Why a module: weft_sram_1rw and weft_sram_1r1w share it; their arrays and write processes stay
// in their own modules, where RAM inference wants them.
module weft_ecc_word #(
  parameter int  Width  = 32,     // data bits per word
  parameter bit  Ecc    = 1'b0,
  localparam int CheckW = Ecc ? weft_ecc_pkg::check_bits(Width) : 0,
  localparam int StoreW = Width + CheckW
) (
  input  logic [Width-1:0]  wr_data_i,
  output logic [StoreW-1:0] wr_word_o,
  input  logic [StoreW-1:0] rd_word_i,
  output logic [Width-1:0]  rd_data_o,
  output logic [1:0]        rd_ecc_o
);

  if (Ecc) begin : g_ecc
    logic [CheckW-1:0] wr_check;

    weft_ecc_enc #(.DataW(Width)) u_enc (
      .data_i  (wr_data_i),
      .check_o (wr_check)
    );
    assign wr_word_o = {wr_check, wr_data_i};

    weft_ecc_dec #(.DataW(Width)) u_dec (
      .data_i          (rd_word_i[Width-1:0]),
      .check_i         (rd_word_i[StoreW-1:Width]),
      .data_o          (rd_data_o),
      .corrected_o     (rd_ecc_o[0]),
      .uncorrectable_o (rd_ecc_o[1])
    );
  end else begin : g_plain
    assign wr_word_o = wr_data_i;
    assign rd_data_o = rd_word_i;
    assign rd_ecc_o  = 2'b00;
  end

endmodule
