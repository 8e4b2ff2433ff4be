// weft_ecc_dec: checks and corrects a DataW-bit word read with its check bits, in the memories'
// SECDED code (weft_ecc_pkg, docs/common.md "ECC"). Combinational.
//
//   syndrome = check bits recomputed from data_i (weft_ecc_enc) XOR check_i
//   0                        data_o = data_i, no flag
//   odd weight               corrected_o; data_o = data_i with bit i inverted if the syndrome
//                            is data bit i's column (a flipped check bit: weight 1, data kept)
//   even weight, not 0       uncorrectable_o (every two flipped bits land here), data_o = data_i
// The flags follow from the syndrome's parity alone, as Hsiao decoders usually do (OpenTitan's
// prim_secded_*_dec too): three flipped bits give an odd syndrome and read as "corrected" with
// wrong data, four may give 0. Telling an odd syndrome that matches no column apart would cost an
// OR over every data bit's match (on ECP5 about 240 more LUT4 for 128 data bits: docs/common.md).
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
  output logic              uncorrectable_o  // two (or an even number); data_o is not
);

  if (DataW < 1 || DataW > weft_ecc_pkg::MaxDataW) begin : g_bad_dataw
    `WEFT_ELAB_ERROR("weft_ecc_dec: DataW must be in 1 .. weft_ecc_pkg::MaxDataW")
  end

  localparam logic [ColW*weft_ecc_pkg::MaxDataW-1:0] Cols =
    weft_ecc_pkg::col_table(DataW, CheckW);

  logic [CheckW-1:0] recomputed, syndrome;
  logic [DataW-1:0]  flip;

  weft_ecc_enc #(.DataW(DataW)) u_enc (
    .data_i,
    .check_o (recomputed)
  );

  assign syndrome = recomputed ^ check_i;

  for (genvar i = 0; i < DataW; i++) begin : g_bit
    assign flip[i] = (syndrome == Cols[i*ColW +: CheckW]);
  end

  assign data_o          = data_i ^ flip;
  assign corrected_o     = ^syndrome;
  assign uncorrectable_o = (syndrome != '0) && !(^syndrome);

endmodule
