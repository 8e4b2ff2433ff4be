// weft_ecc_dec: checks and corrects a DataW-bit word read with its check bits, in the memories'
// SECDED code (weft_ecc_pkg, docs/common.md "ECC"). Combinational.
//
//   syndrome = check bits recomputed from data_i (weft_ecc_enc) XOR check_i
//   0                      data_o = data_i, no flag
//   column of data bit i   data_o = data_i with bit i inverted, corrected_o
//   weight 1 (check bit)   data_o = data_i, corrected_o
//   anything else          data_o = data_i, uncorrectable_o (two flipped bits always land here;
//                          three or more may, or may alias to a single-bit syndrome)
`include "weft_assert.svh"

module weft_ecc_dec #(
  parameter int  DataW  = 32,
  localparam int CheckW = weft_ecc_pkg::check_bits(DataW),
  localparam int ColW   = weft_ecc_pkg::ColW
) (
  input  logic [DataW-1:0]  data_i,
  input  logic [CheckW-1:0] check_i,
  output logic [DataW-1:0]  data_o,
  output logic              corrected_o,     // one stored bit was flipped; data_o is right
  output logic              uncorrectable_o  // more than one; data_o is not
);

  if (DataW < 1 || DataW > weft_ecc_pkg::MaxDataW) begin : g_bad_dataw
    `WEFT_ELAB_ERROR("weft_ecc_dec: DataW must be in 1 .. weft_ecc_pkg::MaxDataW")
  end

  localparam logic [ColW*weft_ecc_pkg::MaxDataW-1:0] Cols =
    weft_ecc_pkg::col_table(DataW, CheckW);

  logic [CheckW-1:0] recomputed, syndrome;
  logic [DataW-1:0]  flip;
  logic              check_only;

  weft_ecc_enc #(.DataW(DataW)) u_enc (
    .data_i,
    .check_o (recomputed)
  );

  assign syndrome = recomputed ^ check_i;

  for (genvar i = 0; i < DataW; i++) begin : g_bit
    assign flip[i] = (syndrome == Cols[i*ColW +: CheckW]);
  end

  assign data_o          = data_i ^ flip;
  assign check_only      = (syndrome != '0) && ((syndrome & (syndrome - CheckW'(1))) == '0);
  assign corrected_o     = (|flip) || check_only;
  assign uncorrectable_o = (syndrome != '0) && !corrected_o;

endmodule
