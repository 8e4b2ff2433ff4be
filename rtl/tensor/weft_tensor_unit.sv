// weft_tensor_unit: the tensor unit. A weight-stationary Rows x Cols systolic array, a
// two-bank INT32 / FP32 accumulator and a per-column post-processing pipeline, driven by a
// command stream and three data streams. See docs/tensor-unit.md for the dataflow and timing.
//
// Element formats (weft_pkg::Fmt*): INT (int8 / uint8 with zero points, INT32 sums) and, with Fp,
// FP8 E4M3 / E5M2 or BF16 operands with FP32 sums (weft_fp_pkg; the rules are in
// docs/tensor-unit.md). A COMPUTE's a_fmt travels through the array with its rows and the weight
// tile carries w_fmt (the command decoder only lets both be INT, both FP8 or both BF16); a
// DRAIN's out_fmt picks the integer post-processing or the FP one (scale, bias, ReLU,
// conversion). The operand buses carry ElemW bits per element (16 with Fp): element r of an
// 8-bit format is bits [8r +: 8], of BF16 bits [16r +: 16].
//
// Commands (cmd_*, in order):
//   COMPUTE rows, addr, accumulate, wreuse, a_signed, a_zp
//     Streams `rows` rows of A (a_*: Rows int8/uint8 values each, A[m][0..Rows-1]) through the
//     next weight tile (or, with wreuse, the tile of the previous COMPUTE) and writes or adds
//     the Cols INT32 results of row m to accumulator row addr+m. The bank is addr's MSB;
//     row addresses wrap inside the bank.
//   DRAIN rows, addr, mode, pack, zp, act_min, act_max
//     Reads `rows` accumulator rows from addr through bias + requantization + clamp (weft_requant,
//     per-column parameters from pc_*) to the output stream o_*, one row per beat.
//   A command with rows = 0 does nothing.
// Weight tiles (w_*): up to Rows rows of Cols int8/uint8 values, W[k][0..Cols-1], the last row
// flagged by w_last_i (the Rows-th row ends a tile whatever w_last_i says); missing rows are zero.
// Tiles load into the free half of each PE's double buffer while the other half computes, in the
// order the COMPUTE commands consume them.
//
// Ordering: a DRAIN waits until every earlier COMPUTE into its bank has been written; a COMPUTE
// into a bank waits while that bank is being drained. COMPUTE into one bank and DRAIN of the
// other run concurrently, so draining a finished tile hides behind computing the next.
`include "weft_assert.svh"

module weft_tensor_unit #(
  parameter int  Rows      = 4,
  parameter int  Cols      = 4,
  parameter int  AccDepth  = 128,  // accumulator rows (two banks of AccDepth/2)
  parameter bit  Fp        = 1'b0, // the FP8 and BF16 modes
  parameter bit  AccEcc    = 1'b0, // SECDED on the accumulator banks (docs/common.md "ECC")
  localparam int AccW      = weft_pkg::AccW,
  localparam int ElemW     = Fp ? weft_fp_pkg::FpElemW : 8,
  localparam int OpW       = Fp ? weft_fp_pkg::FpLaneW : weft_pkg::OpW,
  localparam int FpW       = Fp ? weft_fp_pkg::FpPsW : 1,  // the array's FP tile sums
  localparam int AccAw     = $clog2(AccDepth),
  localparam int BankDepth = AccDepth / 2,
  localparam int BankAw    = AccAw - 1,
  localparam int RowsW     = AccAw + 1,
  localparam int RowIdxW   = (Rows > 1) ? $clog2(Rows) : 1,
  localparam int ColIdxW   = (Cols > 1) ? $clog2(Cols) : 1
) (
  input  logic                 clk_i,
  input  logic                 rst_ni,
  // commands
  input  logic                 cmd_valid_i,
  output logic                 cmd_ready_o,
  input  logic                 cmd_op_i,          // weft_pkg::TuOpCompute / TuOpDrain
  input  logic [RowsW-1:0]     cmd_rows_i,
  input  logic [AccAw-1:0]     cmd_addr_i,
  input  logic                 cmd_accumulate_i,  // COMPUTE: add into the accumulator
  input  logic                 cmd_wreuse_i,      // COMPUTE: keep the previous weight tile
  input  logic                 cmd_a_signed_i,    // COMPUTE: A is int8 (else uint8)
  input  logic [7:0]           cmd_a_zp_i,        // COMPUTE: A's zero point
  input  logic [2:0]           cmd_a_fmt_i,       // COMPUTE: A's element format
  input  logic [1:0]           cmd_mode_i,        // DRAIN: weft_pkg::Rq*
  input  logic                 cmd_pack_i,        // DRAIN: one byte per column (BF16: two)
  input  logic [2:0]           cmd_out_fmt_i,     // DRAIN: INT or the FP output format
  input  logic                 cmd_relu_i,        // DRAIN: FP formats: ReLU
  input  logic [31:0]          cmd_zp_i,          // DRAIN: output zero point
  input  logic [31:0]          cmd_act_min_i,     // DRAIN: clamp bounds
  input  logic [31:0]          cmd_act_max_i,
  // weight tiles
  input  logic                 w_valid_i,
  output logic                 w_ready_o,
  input  logic [Cols*ElemW-1:0] w_data_i,
  input  logic                 w_last_i,
  input  logic                 w_signed_i,
  input  logic [7:0]           w_zp_i,
  input  logic [2:0]           w_fmt_i,
  // activation rows
  input  logic                 a_valid_i,
  output logic                 a_ready_o,
  input  logic [Rows*ElemW-1:0] a_data_i,
  // per-column post-processing parameters
  input  logic                 pc_we_i,
  input  logic [ColIdxW-1:0]   pc_idx_i,
  input  logic [31:0]          pc_bias_i,
  input  logic [31:0]          pc_mult_i,
  input  logic [5:0]           pc_shift_i,
  // output rows
  output logic                 o_valid_o,
  input  logic                 o_ready_i,
  output logic [Cols*AccW-1:0] o_data_o,
  // status
  output logic                 busy_o,
  output logic                 stat_array_row_o,   // a row of Rows*Cols MACs entered the array
  output logic                 stat_wait_w_o,      // COMPUTE waiting for its weight tile
  output logic                 stat_wait_a_o,      // COMPUTE waiting for activation rows
  output logic                 stat_wait_drain_o,  // DRAIN waiting (hazard or output back-pressure)
  // accumulator ECC events (AccEcc; weft_accumulator): rows with a corrected bit this cycle, one
  // of them, an uncorrectable row (row addresses as cmd_addr_i)
  output logic [1:0]           acc_ecc_corr_o,
  output logic [AccAw-1:0]     acc_ecc_corr_row_o,
  output logic                 acc_ecc_err_o,
  output logic [AccAw-1:0]     acc_ecc_err_row_o
);

  if (Rows < 2 || Rows > 32 || Cols < 2 || Cols > 32) begin : g_bad_size
    `WEFT_ELAB_ERROR("weft_tensor_unit: Rows and Cols must be in 2..32")
  end
  if (AccDepth < 4 || (1 << AccAw) != AccDepth) begin : g_bad_depth
    `WEFT_ELAB_ERROR("weft_tensor_unit: AccDepth must be a power of two >= 4")
  end

  localparam int ArrayLatency = Rows + Cols - 1;
  localparam int PpLatency    = weft_pkg::RequantLatency;
  // Output FIFO: one read's round trip (SRAM + post-processing + push) fits, so a drain keeps
  // one row per cycle while the consumer is ready.
  localparam int OutDepth     = PpLatency + 3;
  localparam int OccW         = $clog2(OutDepth + 1);
  // Cycles after an activation entered the array until it has passed every PE of every row a
  // weight write could reach (see docs/tensor-unit.md, "double buffering").
  localparam int BusyCycles   = Cols + 1;
  localparam int BusyW        = $clog2(BusyCycles + 1);
  localparam int PendW        = RowsW + 2;

  localparam int IntW = weft_pkg::OpW;

  // Operand preparation: an 8-bit int8/uint8 value (v) minus its zero point, as 9-bit signed,
  // or (fmt not INT) an FP8 element (v) or a BF16 one (v16) decoded into an FP lane
  // (weft_fp_pkg::fp_lane_operand).
  function automatic logic [OpW-1:0] prep(input logic [7:0] v, input logic [15:0] v16,
                                          input logic [2:0] fmt, input logic is_signed,
                                          input logic [7:0] zp);
    logic [IntW-1:0] ve, ze, diff;
    ve   = is_signed ? {v[7], v} : {1'b0, v};
    ze   = is_signed ? {zp[7], zp} : {1'b0, zp};
    diff = ve - ze;
    if (Fp && fmt != weft_pkg::FmtInt) begin
      prep = OpW'(weft_fp_pkg::fp_lane_operand((fmt == weft_pkg::FmtBf16) ? v16 : {8'h0, v},
                                               fmt));
    end else begin
      prep = OpW'(diff);
    end
  endfunction

  // The weight of a short tile's missing row: integer zero, or an FP operand the PE leaves out.
  function automatic logic [OpW-1:0] absent_weight(input logic fp);
    if (Fp && fp) absent_weight = OpW'(weft_fp_pkg::fp_absent_operand());
    else          absent_weight = '0;
  endfunction

  logic cmd_is_compute, cmd_bank, cmd_fire, cmd_zero;
  assign cmd_is_compute = (cmd_op_i == weft_pkg::TuOpCompute);
  assign cmd_bank       = cmd_addr_i[AccAw-1];
  assign cmd_zero       = (cmd_rows_i == '0);

  // -------------------------------------------------------------------------------------------
  // Weight loader
  // -------------------------------------------------------------------------------------------
  logic               ld_buf_q, ld_buf_d;
  logic [RowIdxW-1:0] ld_row_q, ld_row_d;
  logic               ld_fill_q, ld_fill_d;
  logic               ld_fp_q;     // the tile being loaded is FP (for its zero fill)
  logic [1:0]         full_q, full_d;
  logic [BusyW-1:0]   busy_q [2];
  logic [BusyW-1:0]   busy_d [2];
  logic               ld_free, w_fire, ld_write, ld_tile_end;
  // registered weight write into the array
  logic               aw_we_q, aw_buf_q;
  logic [RowIdxW-1:0] aw_row_q;
  logic [Cols*OpW-1:0] aw_data_q, aw_data_d;

  assign ld_free     = !full_q[ld_buf_q] && (busy_q[ld_buf_q] == '0);
  assign w_ready_o   = ld_free && !ld_fill_q;
  assign w_fire      = w_valid_i && w_ready_o;
  assign ld_write    = w_fire || (ld_fill_q && ld_free);
  // A tile ends with its Rows-th row (a short tile is zero-filled up to it after w_last_i).
  assign ld_tile_end = ld_write && (ld_row_q == RowIdxW'(Rows - 1));

  for (genvar c = 0; c < Cols; c++) begin : g_wprep
    logic [15:0] w16;  // element c as BF16 (Fp)
    if (Fp) begin : g_w16
      assign w16 = w_data_i[c*16 +: 16];
    end else begin : g_w8
      assign w16 = '0;
    end
    assign aw_data_d[c*OpW +: OpW] = w_fire ? prep(w_data_i[c*8 +: 8], w16, w_fmt_i, w_signed_i,
                                                   w_zp_i)
                                            : absent_weight(ld_fp_q);
  end

  // -------------------------------------------------------------------------------------------
  // Compute engine
  // -------------------------------------------------------------------------------------------
  logic               cmp_active_q, cmp_active_d;
  logic               cmp_have_q, cmp_have_d;     // this command holds its weight buffer
  logic               cur_buf_q, cur_buf_d;       // buffer of the running / last COMPUTE
  logic               have_cur_q, have_cur_d;     // cur_buf_q holds a tile (for wreuse)
  logic               take_buf_q, take_buf_d;     // next buffer in load order
  logic [RowsW-1:0]   cmp_left_q, cmp_left_d;
  logic [BankAw-1:0]  cmp_off_q, cmp_off_d;
  logic               cmp_bank_q, cmp_bank_d, cmp_acc_q, cmp_acc_d;
  logic               cmp_sgn_q, cmp_sgn_d;
  logic [7:0]         cmp_zp_q, cmp_zp_d;
  logic [2:0]         cmp_fmt_q, cmp_fmt_d;
  logic               a_fire, cmp_take, cmp_last, cmp_start, start_take;
  // The next COMPUTE, accepted while the current one streams, so that it starts in the cycle
  // the current one takes its last row (no bubble between tiles).
  logic               nxt_valid_q, nxt_valid_d;
  logic [RowsW-1:0]   nxt_rows_q;
  logic [BankAw-1:0]  nxt_off_q;
  logic               nxt_bank_q, nxt_acc_q, nxt_reuse_q, nxt_sgn_q;
  logic [7:0]         nxt_zp_q;
  logic [2:0]         nxt_fmt_q;

  assign a_ready_o  = cmp_active_q && cmp_have_q;
  assign a_fire     = a_valid_i && a_ready_o;
  assign cmp_last   = a_fire && (cmp_left_q == RowsW'(1));
  assign cmp_start  = nxt_valid_q && (!cmp_active_q || cmp_last);
  // A starting COMPUTE takes the next loaded tile at once if it is there (or keeps the current
  // one with wreuse); a running one that still waits takes it as soon as it is loaded.
  assign start_take = cmp_start && !(nxt_reuse_q && have_cur_q) && full_q[take_buf_q];
  assign cmp_take   = start_take || (cmp_active_q && !cmp_have_q && full_q[take_buf_q]);

  // -------------------------------------------------------------------------------------------
  // Drain engine
  // -------------------------------------------------------------------------------------------
  logic               drn_active_q, drn_active_d;
  logic               drn_bank_q, drn_bank_d;
  logic [BankAw-1:0]  drn_off_q, drn_off_d;
  logic [RowsW-1:0]   drn_left_q, drn_left_d;
  logic [1:0]         drn_mode_q, drn_mode_d;
  logic               drn_pack_q, drn_pack_d;
  logic [2:0]         drn_fmt_q, drn_fmt_d;
  logic               drn_relu_q, drn_relu_d;
  logic [31:0]        drn_zp_q, drn_zp_d, drn_min_q, drn_min_d, drn_max_q, drn_max_d;
  logic [OccW-1:0]    occ_q, occ_d;
  logic [PendW-1:0]   pend_q [2];
  logic [PendW-1:0]   pend_d [2];
  logic               drn_rd, rd_valid_q, o_fire;

  assign drn_rd = drn_active_q && (pend_q[drn_bank_q] == '0) && (occ_q < OccW'(OutDepth));

  // -------------------------------------------------------------------------------------------
  // Command dispatch
  // -------------------------------------------------------------------------------------------
  always_comb begin
    if (cmd_is_compute) begin
      cmd_ready_o = !nxt_valid_q && !(drn_active_q && drn_bank_q == cmd_bank);
    end else begin
      cmd_ready_o = !drn_active_q;
    end
  end
  assign cmd_fire = cmd_valid_i && cmd_ready_o;

  // -------------------------------------------------------------------------------------------
  // Next state
  // -------------------------------------------------------------------------------------------
  logic wr_valid, wr_bank;

  always_comb begin
    // weight loader
    ld_buf_d  = ld_buf_q;
    ld_row_d  = ld_row_q;
    ld_fill_d = ld_fill_q;
    full_d    = full_q;
    if (ld_write) begin
      if (ld_tile_end) begin
        ld_row_d          = '0;
        ld_fill_d         = 1'b0;
        ld_buf_d          = !ld_buf_q;
        full_d[ld_buf_q]  = 1'b1;
      end else begin
        ld_row_d = ld_row_q + 1'b1;
        if (w_fire && w_last_i) ld_fill_d = 1'b1;
      end
    end

    // compute engine
    cmp_active_d = cmp_active_q;
    cmp_have_d   = cmp_have_q;
    cur_buf_d    = cur_buf_q;
    have_cur_d   = have_cur_q;
    take_buf_d   = take_buf_q;
    cmp_left_d   = cmp_left_q;
    cmp_off_d    = cmp_off_q;
    cmp_bank_d   = cmp_bank_q;
    cmp_acc_d    = cmp_acc_q;
    cmp_sgn_d    = cmp_sgn_q;
    cmp_zp_d     = cmp_zp_q;
    cmp_fmt_d    = cmp_fmt_q;
    nxt_valid_d  = nxt_valid_q;
    if (cmd_fire && cmd_is_compute && !cmd_zero) nxt_valid_d = 1'b1;
    if (a_fire) begin
      cmp_left_d = cmp_left_q - 1'b1;
      cmp_off_d  = cmp_off_q + 1'b1;
      if (cmp_last) begin
        cmp_active_d = 1'b0;
        cmp_have_d   = 1'b0;
      end
    end
    if (cmp_start) begin
      nxt_valid_d  = 1'b0;
      cmp_active_d = 1'b1;
      cmp_have_d   = nxt_reuse_q && have_cur_q;
      cmp_left_d   = nxt_rows_q;
      cmp_off_d    = nxt_off_q;
      cmp_bank_d   = nxt_bank_q;
      cmp_acc_d    = nxt_acc_q;
      cmp_sgn_d    = nxt_sgn_q;
      cmp_zp_d     = nxt_zp_q;
      cmp_fmt_d    = nxt_fmt_q;
    end
    if (cmp_take) begin
      // Release the previous tile (its activations finish leaving the array under busy_q) and
      // take the next one in load order.
      if (have_cur_q) full_d[cur_buf_q] = 1'b0;
      cur_buf_d  = take_buf_q;
      take_buf_d = !take_buf_q;
      have_cur_d = 1'b1;
      cmp_have_d = 1'b1;
    end
    for (int b = 0; b < 2; b++) begin
      busy_d[b] = (busy_q[b] != '0) ? busy_q[b] - 1'b1 : busy_q[b];
      if (a_fire && cur_buf_q == 1'(b)) busy_d[b] = BusyW'(BusyCycles);
    end

    // drain engine
    drn_active_d = drn_active_q;
    drn_bank_d   = drn_bank_q;
    drn_off_d    = drn_off_q;
    drn_left_d   = drn_left_q;
    drn_mode_d   = drn_mode_q;
    drn_pack_d   = drn_pack_q;
    drn_fmt_d    = drn_fmt_q;
    drn_relu_d   = drn_relu_q;
    drn_zp_d     = drn_zp_q;
    drn_min_d    = drn_min_q;
    drn_max_d    = drn_max_q;
    if (cmd_fire && !cmd_is_compute && !cmd_zero) begin
      drn_active_d = 1'b1;
      drn_bank_d   = cmd_bank;
      drn_off_d    = cmd_addr_i[BankAw-1:0];
      drn_left_d   = cmd_rows_i;
      drn_mode_d   = cmd_mode_i;
      drn_pack_d   = cmd_pack_i;
      drn_fmt_d    = cmd_out_fmt_i;
      drn_relu_d   = cmd_relu_i;
      drn_zp_d     = cmd_zp_i;
      drn_min_d    = cmd_act_min_i;
      drn_max_d    = cmd_act_max_i;
    end
    if (drn_rd) begin
      drn_left_d = drn_left_q - 1'b1;
      drn_off_d  = drn_off_q + 1'b1;
      if (drn_left_q == RowsW'(1)) drn_active_d = 1'b0;
    end
    occ_d = occ_q + OccW'(drn_rd) - OccW'(o_fire);

    // rows accepted but not yet written, per bank
    for (int b = 0; b < 2; b++) begin
      pend_d[b] = pend_q[b];
      if (cmd_fire && cmd_is_compute && cmd_bank == 1'(b)) pend_d[b] = pend_d[b] + PendW'(cmd_rows_i);
      if (wr_valid && wr_bank == 1'(b)) pend_d[b] = pend_d[b] - 1'b1;
    end
  end

  always_ff @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni) begin
      ld_buf_q     <= 1'b0;
      ld_row_q     <= '0;
      ld_fill_q    <= 1'b0;
      full_q       <= '0;
      busy_q[0]    <= '0;
      busy_q[1]    <= '0;
      aw_we_q      <= 1'b0;
      cmp_active_q <= 1'b0;
      cmp_have_q   <= 1'b0;
      cur_buf_q    <= 1'b0;
      have_cur_q   <= 1'b0;
      take_buf_q   <= 1'b0;
      cmp_left_q   <= '0;
      nxt_valid_q  <= 1'b0;
      drn_active_q <= 1'b0;
      drn_left_q   <= '0;
      occ_q        <= '0;
      pend_q[0]    <= '0;
      pend_q[1]    <= '0;
      rd_valid_q   <= 1'b0;
    end else begin
      ld_buf_q     <= ld_buf_d;
      ld_row_q     <= ld_row_d;
      ld_fill_q    <= ld_fill_d;
      full_q       <= full_d;
      busy_q[0]    <= busy_d[0];
      busy_q[1]    <= busy_d[1];
      aw_we_q      <= ld_write;
      cmp_active_q <= cmp_active_d;
      cmp_have_q   <= cmp_have_d;
      cur_buf_q    <= cur_buf_d;
      have_cur_q   <= have_cur_d;
      take_buf_q   <= take_buf_d;
      cmp_left_q   <= cmp_left_d;
      nxt_valid_q  <= nxt_valid_d;
      drn_active_q <= drn_active_d;
      drn_left_q   <= drn_left_d;
      occ_q        <= occ_d;
      pend_q[0]    <= pend_d[0];
      pend_q[1]    <= pend_d[1];
      rd_valid_q   <= drn_rd;
    end
  end

  // Data and configuration registers: no reset (only meaningful under a reset valid/active bit).
  always_ff @(posedge clk_i) begin
    aw_buf_q   <= ld_buf_q;
    aw_row_q   <= ld_row_q;
    aw_data_q  <= aw_data_d;
    cmp_off_q  <= cmp_off_d;
    cmp_bank_q <= cmp_bank_d;
    cmp_acc_q  <= cmp_acc_d;
    cmp_sgn_q  <= cmp_sgn_d;
    cmp_zp_q   <= cmp_zp_d;
    cmp_fmt_q  <= cmp_fmt_d;
    if (w_fire) ld_fp_q <= (w_fmt_i != weft_pkg::FmtInt);
    if (cmd_fire && cmd_is_compute) begin
      nxt_rows_q  <= cmd_rows_i;
      nxt_off_q   <= cmd_addr_i[BankAw-1:0];
      nxt_bank_q  <= cmd_bank;
      nxt_acc_q   <= cmd_accumulate_i;
      nxt_reuse_q <= cmd_wreuse_i;
      nxt_sgn_q   <= cmd_a_signed_i;
      nxt_zp_q    <= cmd_a_zp_i;
      nxt_fmt_q   <= cmd_a_fmt_i;
    end
    drn_bank_q <= drn_bank_d;
    drn_off_q  <= drn_off_d;
    drn_mode_q <= drn_mode_d;
    drn_pack_q <= drn_pack_d;
    drn_fmt_q  <= drn_fmt_d;
    drn_relu_q <= drn_relu_d;
    drn_zp_q   <= drn_zp_d;
    drn_min_q  <= drn_min_d;
    drn_max_q  <= drn_max_d;
  end

  // -------------------------------------------------------------------------------------------
  // Array input stage (registered) and the metadata that travels beside the array
  // -------------------------------------------------------------------------------------------
  logic                 arr_valid_q, arr_buf_q, arr_bank_q, arr_acc_q, arr_fp_q, arr_wide_q;
  logic [BankAw-1:0]    arr_off_q;
  logic [Rows*OpW-1:0]  arr_data_q, arr_data_d;
  logic                 c_valid, c_bank, c_acc, c_fp, c_wide;
  logic [BankAw-1:0]    c_off;
  logic [Cols*FpW-1:0]  c_fp_sum;
  logic [Cols*AccW-1:0] c_int;
  logic [Cols*AccW-1:0] c_data;

  for (genvar r = 0; r < Rows; r++) begin : g_aprep
    logic [15:0] a16;  // element r as BF16 (Fp)
    if (Fp) begin : g_a16
      assign a16 = a_data_i[r*16 +: 16];
    end else begin : g_a8
      assign a16 = '0;
    end
    assign arr_data_d[r*OpW +: OpW] = prep(a_data_i[r*8 +: 8], a16, cmp_fmt_q, cmp_sgn_q,
                                           cmp_zp_q);
  end

  always_ff @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni) arr_valid_q <= 1'b0;
    else         arr_valid_q <= a_fire;
  end

  always_ff @(posedge clk_i) begin
    arr_buf_q  <= cur_buf_q;
    arr_bank_q <= cmp_bank_q;
    arr_acc_q  <= cmp_acc_q;
    arr_fp_q   <= Fp && (cmp_fmt_q != weft_pkg::FmtInt);
    arr_wide_q <= Fp && (cmp_fmt_q == weft_pkg::FmtBf16);
    arr_off_q  <= cmp_off_q;
    arr_data_q <= arr_data_d;
  end

  weft_systolic_array #(.Rows(Rows), .Cols(Cols), .Fp(Fp), .OpW(OpW), .AccW(AccW)) u_array (
    .clk_i,
    .rst_ni,
    .w_we_i    (aw_we_q),
    .w_buf_i   (aw_buf_q),
    .w_row_i   (aw_row_q),
    .w_data_i  (aw_data_q),
    .a_valid_i (arr_valid_q),
    .a_buf_i   (arr_buf_q),
    .a_fp_i    (arr_fp_q),
    .a_data_i  (arr_data_q),
    .c_valid_o   (c_valid),
    .c_data_o    (c_int),
    .c_fp_data_o (c_fp_sum)
  );

  weft_delay #(.Width(BankAw + 4), .Depth(ArrayLatency)) u_meta (
    .clk_i,
    .rst_ni,
    .in_i  ({arr_bank_q, arr_acc_q, arr_fp_q, arr_wide_q, arr_off_q}),
    .out_o ({c_bank, c_acc, c_fp, c_wide, c_off})
  );

  // A row of FP8 tile sums leaves the array as exact fixed-point sums: each is rounded once to
  // FP32 here, on its way into the accumulator (the rule in docs/tensor-unit.md). BF16 tile sums
  // are FP32 already (the low 32 bits of the column's FP sum).
  for (genvar c = 0; c < Cols; c++) begin : g_tile_round
    if (Fp) begin : g_fp
      logic [AccW-1:0] rounded, fixed_rounded;
      // The call on its own (Yosys makes a latch of fp_round's loop variable when the call
      // sits inside a conditional expression).
      assign fixed_rounded = weft_fp_pkg::fp_fixed_to_fp32_en(c_fp,
                                                              c_fp_sum[c*FpW +: FpW]);
      assign rounded = c_wide ? c_fp_sum[c*FpW +: 32] : fixed_rounded;
      assign c_data[c*AccW +: AccW] = c_fp ? rounded : c_int[c*AccW +: AccW];
    end else begin : g_int
      assign c_data[c*AccW +: AccW] = c_int[c*AccW +: AccW];
    end
  end
  if (!Fp) begin : g_no_fp_rows
    logic unused_c_fp;
    assign unused_c_fp = c_fp ^ c_wide ^ (|c_fp_sum);
  end

  // -------------------------------------------------------------------------------------------
  // Accumulator, post-processing, output FIFO
  // -------------------------------------------------------------------------------------------
  logic [Cols*AccW-1:0] rd_data, pp_data;
  logic                 pp_valid, fifo_in_ready;
  logic [OccW-1:0]      out_usage;

  weft_accumulator #(.Cols(Cols), .BankDepth(BankDepth), .Fp(Fp), .Ecc(AccEcc)) u_acc (
    .clk_i,
    .rst_ni,
    .in_valid_i      (c_valid),
    .in_bank_i       (c_bank),
    .in_addr_i       (c_off),
    .in_accumulate_i (c_acc),
    .in_fp_i         (c_fp),
    .in_data_i       (c_data),
    .wr_valid_o      (wr_valid),
    .wr_bank_o       (wr_bank),
    .rd_en_i         (drn_rd),
    .rd_bank_i       (drn_bank_q),
    .rd_addr_i       (drn_off_q),
    .rd_data_o       (rd_data),
    .ecc_corr_o      (acc_ecc_corr_o),
    .ecc_corr_row_o  (acc_ecc_corr_row_o),
    .ecc_err_o       (acc_ecc_err_o),
    .ecc_err_row_o   (acc_ecc_err_row_o)
  );

  weft_postproc #(.Cols(Cols), .Fp(Fp)) u_postproc (
    .clk_i,
    .rst_ni,
    .pc_we_i,
    .pc_idx_i,
    .pc_bias_i,
    .pc_mult_i,
    .pc_shift_i,
    .in_valid_i   (rd_valid_q),
    .in_data_i    (rd_data),
    .in_mode_i    (drn_mode_q),
    .in_pack_i    (drn_pack_q),
    .in_fmt_i     (drn_fmt_q),
    .in_relu_i    (drn_relu_q),
    .in_zp_i      (drn_zp_q),
    .in_act_min_i (drn_min_q),
    .in_act_max_i (drn_max_q),
    .out_valid_o  (pp_valid),
    .out_data_o   (pp_data)
  );

  weft_fifo #(.Width(Cols * AccW), .Depth(OutDepth)) u_out_fifo (
    .clk_i,
    .rst_ni,
    .flush_i     (1'b0),
    .in_valid_i  (pp_valid),
    .in_ready_o  (fifo_in_ready),
    .in_data_i   (pp_data),
    .out_valid_o (o_valid_o),
    .out_ready_i (o_ready_i),
    .out_data_o  (o_data_o),
    .usage_o     (out_usage)
  );
  assign o_fire = o_valid_o && o_ready_i;

  assign busy_o = nxt_valid_q || cmp_active_q || drn_active_q || (pend_q[0] != '0) || (pend_q[1] != '0) ||
                  (occ_q != '0);
  assign stat_array_row_o  = arr_valid_q;
  assign stat_wait_w_o     = cmp_active_q && !cmp_have_q;
  assign stat_wait_a_o     = cmp_active_q && cmp_have_q && !a_valid_i;
  assign stat_wait_drain_o = drn_active_q && !drn_rd;

`ifndef SYNTHESIS
  always_ff @(posedge clk_i or negedge rst_ni) begin : p_checks
    if (!rst_ni) begin
    end else begin
      // Credits guarantee the output FIFO always has room for a post-processed row.
      if (pp_valid) assert (fifo_in_ready) else $error("weft_tensor_unit: output FIFO overflow");
      // The credit counter covers every row in the FIFO.
      assert (occ_q >= out_usage) else $error("weft_tensor_unit: output credits lost");
      // Every accumulator write belongs to a COMPUTE that was counted in.
      if (wr_valid) assert (pend_q[wr_bank] != '0)
        else $error("weft_tensor_unit: accumulator write with no pending row");
      // The loader never writes the buffer the running COMPUTE streams through.
      if (ld_write) assert (!(cmp_active_q && cmp_have_q && cur_buf_q == ld_buf_q))
        else $error("weft_tensor_unit: weight write into the active buffer");
    end
  end
`endif

endmodule
