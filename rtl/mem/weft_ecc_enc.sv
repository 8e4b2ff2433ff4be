// weft_ecc_enc: the check bits of a DataW-bit word in the memories' SECDED code (weft_ecc_pkg,
// docs/common.md "ECC"). Combinational: check bit j is the XOR of the data bits whose
// parity-check column has bit j set (about 3/R to 5/R of the word).
`include "weft_assert.svh"

module weft_ecc_enc #(
  parameter int  DataW  = 32,
  localparam int CheckW = weft_ecc_pkg::check_bits(DataW),
  localparam int ColW   = weft_ecc_pkg::ColW
) (
  input  logic [DataW-1:0]  data_i,
  output logic [CheckW-1:0] check_o
);

  if (DataW < 1 || DataW > weft_ecc_pkg::MaxDataW) begin : g_bad_dataw
    `WEFT_ELAB_ERROR("weft_ecc_enc: DataW must be in 1 .. weft_ecc_pkg::MaxDataW")
  end

  localparam logic [ColW*weft_ecc_pkg::MaxDataW-1:0] Cols =
    weft_ecc_pkg::col_table(DataW, CheckW);

  // The parity-check matrix over the data bits, row j in mask[j*DataW +: DataW]: bit i of row j
  // is bit j of data bit i's column.
  logic [CheckW*DataW-1:0] mask;

  for (genvar i = 0; i < DataW; i++) begin : g_bit
    for (genvar j = 0; j < CheckW; j++) begin : g_row
      assign mask[j*DataW + i] = Cols[i*ColW + j];
    end
  end

  for (genvar j = 0; j < CheckW; j++) begin : g_check
    assign check_o[j] = ^(data_i & mask[j*DataW +: DataW]);
  end

endmodule
