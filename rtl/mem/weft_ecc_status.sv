// weft_ecc_status: what the device reports about its memories' ECC (docs/common.md "ECC"): the
// ECC_* registers and the uncorrectable error that stops the queue.
//
// Inputs are one cycle's events of the scratchpad (weft_spad ecc_*) and of the accumulator
// (weft_tensor_unit acc_ecc_*). Registers (32 bits, saturating, cleared by clear_i):
//   corrected_o   words read with one flipped bit, corrected (ECC_CORRECTED)
//   detected_o    words read with more, not correctable (ECC_DETECTED)
//   last_corr_o   the last corrected word: {acc, 7'b0, address} (ECC_LAST_CORR; acc = 1: an
//                 accumulator row, 0: a scratchpad line); the scratchpad wins a cycle with both
//   last_err_o    the same for the last uncorrectable word (ECC_LAST_ERR)
// Error report (err_*, to weft_cmd): an uncorrectable word is reported as ErrEccSpad with the
// line or ErrEccAcc with the row, held until taken; a word found while one is held is counted
// (and is last_err_o) but not reported: the queue stops on the first.
`include "weft_assert.svh"

module weft_ecc_status #(
  parameter int  LineAw     = 14,  // scratchpad line address bits (<= 24)
  parameter int  AccAw      = 9,   // accumulator row address bits (<= 24)
  parameter int  SpadCntW   = 3,   // width of the scratchpad's corrected count
  localparam int AccCntW    = 2
) (
  input  logic                clk_i,
  input  logic                rst_ni,
  input  logic                clear_i,
  // scratchpad events
  input  logic [SpadCntW-1:0] spad_corr_i,
  input  logic [LineAw-1:0]   spad_corr_line_i,
  input  logic                spad_err_i,
  input  logic [LineAw-1:0]   spad_err_line_i,
  // accumulator events
  input  logic [AccCntW-1:0]  acc_corr_i,
  input  logic [AccAw-1:0]    acc_corr_row_i,
  input  logic                acc_err_i,
  input  logic [AccAw-1:0]    acc_err_row_i,
  // registers
  output logic [31:0]         corrected_o,
  output logic [31:0]         detected_o,
  output logic [31:0]         last_corr_o,
  output logic [31:0]         last_err_o,
  // error report
  output logic                err_valid_o,
  input  logic                err_ready_i,
  output logic [7:0]          err_code_o,
  output logic [63:0]         err_addr_o
);

  if (LineAw < 1 || LineAw > 24 || AccAw < 1 || AccAw > 24) begin : g_bad_aw
    `WEFT_ELAB_ERROR("weft_ecc_status: LineAw and AccAw must be in 1..24")
  end

  logic [31:0] corrected_q, corrected_d, detected_q, detected_d;
  logic [31:0] last_corr_q, last_corr_d, last_err_q, last_err_d;
  logic        rep_q, rep_d;
  logic [7:0]  rep_code_q, rep_code_d;
  logic [23:0] rep_addr_q, rep_addr_d;
  logic [32:0] corr_sum, det_sum;

  assign corr_sum = 33'(corrected_q) + 33'(spad_corr_i) + 33'(acc_corr_i);
  assign det_sum  = 33'(detected_q) + 33'(spad_err_i) + 33'(acc_err_i);

  always_comb begin : p_next
    corrected_d = corr_sum[32] ? '1 : corr_sum[31:0];
    detected_d  = det_sum[32] ? '1 : det_sum[31:0];
    last_corr_d = last_corr_q;
    last_err_d  = last_err_q;
    rep_d       = rep_q && !err_ready_i;
    rep_code_d  = rep_code_q;
    rep_addr_d  = rep_addr_q;
    if (acc_corr_i != '0)  last_corr_d = {1'b1, 7'd0, 24'(acc_corr_row_i)};
    if (spad_corr_i != '0) last_corr_d = {1'b0, 7'd0, 24'(spad_corr_line_i)};
    if (acc_err_i)         last_err_d  = {1'b1, 7'd0, 24'(acc_err_row_i)};
    if (spad_err_i)        last_err_d  = {1'b0, 7'd0, 24'(spad_err_line_i)};
    if (!rep_q && (spad_err_i || acc_err_i)) begin
      rep_d      = 1'b1;
      rep_code_d = spad_err_i ? weft_pkg::ErrEccSpad : weft_pkg::ErrEccAcc;
      rep_addr_d = spad_err_i ? 24'(spad_err_line_i) : 24'(acc_err_row_i);
    end
    if (clear_i) begin
      corrected_d = '0;
      detected_d  = '0;
      last_corr_d = '0;
      last_err_d  = '0;
    end
  end

  always_ff @(posedge clk_i or negedge rst_ni) begin : p_regs
    if (!rst_ni) begin
      corrected_q <= '0;
      detected_q  <= '0;
      last_corr_q <= '0;
      last_err_q  <= '0;
      rep_q       <= 1'b0;
      rep_code_q  <= '0;
      rep_addr_q  <= '0;
    end else begin
      corrected_q <= corrected_d;
      detected_q  <= detected_d;
      last_corr_q <= last_corr_d;
      last_err_q  <= last_err_d;
      rep_q       <= rep_d;
      rep_code_q  <= rep_code_d;
      rep_addr_q  <= rep_addr_d;
    end
  end

  assign corrected_o = corrected_q;
  assign detected_o  = detected_q;
  assign last_corr_o = last_corr_q;
  assign last_err_o  = last_err_q;
  assign err_valid_o = rep_q;
  assign err_code_o  = rep_code_q;
  assign err_addr_o  = 64'(rep_addr_q);

endmodule
