// weft_simt_div: the SIMT core's shared divider: DIV, DIVU, REM, REMU (ISA 7.2) for all lanes of
// one warp instruction at a time.
//
// Every lane runs a radix-2 restoring division of the operands' magnitudes, one quotient bit per
// cycle (32 cycles), then fixes the signs. Table 7.1 falls out of the algorithm: x/0 gives all
// ones and x%0 gives x (the quotient's sign fix is skipped for a zero divisor), and
// INT_MIN/-1 gives INT_MIN with remainder 0 (|INT_MIN| = 2^31 as unsigned).
//
// Timing: start_i (only while !busy_o) at edge t; wb_valid_o goes high 33 cycles later, with rd,
// warp and lane mask of the instruction, and stays high until wb_ready_i (the register file's
// write port is shared with the LSU, which goes first); busy_o is high from the edge after the
// start up to and including the write-back cycle. The core keeps issuing other instructions
// meanwhile (its scoreboard holds rd of this warp until wb_valid_o).
module weft_simt_div #(
  parameter int  Warps   = 4,
  parameter int  Threads = 8,
  localparam int WarpW   = (Warps > 1) ? $clog2(Warps) : 1
) (
  input  logic                   clk_i,
  input  logic                   rst_ni,
  input  logic                   start_i,
  input  logic [WarpW-1:0]       w_i,
  input  logic [4:0]             rd_i,
  input  logic [1:0]             op_i,     // funct3[1:0]: 00 DIV, 01 DIVU, 10 REM, 11 REMU
  input  logic [Threads-1:0]     mask_i,
  input  logic [Threads*32-1:0]  a_i,      // dividends, lane l at [32*l +: 32]
  input  logic [Threads*32-1:0]  b_i,      // divisors
  output logic                   busy_o,
  output logic                   wb_valid_o,
  input  logic                   wb_ready_i,
  output logic [WarpW-1:0]       wb_w_o,
  output logic [4:0]             wb_rd_o,
  output logic [Threads-1:0]     wb_mask_o,
  output logic [Threads*32-1:0]  wb_data_o
);

  logic                  busy_q, busy_d;
  logic [5:0]            cnt_q, cnt_d;
  logic [WarpW-1:0]      w_q, w_d;
  logic [4:0]            rd_q, rd_d;
  logic [1:0]            op_q, op_d;
  logic [Threads-1:0]    mask_q, mask_d;
  logic [Threads*32-1:0] quo_q, quo_d;   // dividend bits shift out, quotient bits shift in
  logic [Threads*33-1:0] rem_q, rem_d;   // partial remainder
  logic [Threads*32-1:0] dsr_q, dsr_d;   // |divisor|
  logic [Threads-1:0]    negq_q, negq_d, negr_q, negr_d;

  logic last;
  assign last = busy_q && (cnt_q == 6'd32);

  always_comb begin : p_next
    logic [31:0] a, b;
    logic        sgn, na, nb;
    logic [32:0] sh, diff;
    a      = '0;
    b      = '0;
    sgn    = 1'b0;
    na     = 1'b0;
    nb     = 1'b0;
    sh     = '0;
    diff   = '0;
    busy_d = busy_q;
    cnt_d  = cnt_q;
    w_d    = w_q;
    rd_d   = rd_q;
    op_d   = op_q;
    mask_d = mask_q;
    quo_d  = quo_q;
    rem_d  = rem_q;
    dsr_d  = dsr_q;
    negq_d = negq_q;
    negr_d = negr_q;
    if (start_i && !busy_q) begin
      busy_d = 1'b1;
      cnt_d  = 6'd0;
      w_d    = w_i;
      rd_d   = rd_i;
      op_d   = op_i;
      mask_d = mask_i;
      sgn    = !op_i[0];
      for (int l = 0; l < Threads; l++) begin
        a  = a_i[32*l +: 32];
        b  = b_i[32*l +: 32];
        na = sgn && a[31];
        nb = sgn && b[31];
        quo_d[32*l +: 32] = na ? -a : a;
        dsr_d[32*l +: 32] = nb ? -b : b;
        rem_d[33*l +: 33] = 33'd0;
        negq_d[l] = (na ^ nb) && (b != 32'd0);
        negr_d[l] = na;
      end
    end else if (busy_q && !last) begin
      cnt_d = cnt_q + 6'd1;
      for (int l = 0; l < Threads; l++) begin
        sh   = {rem_q[33*l +: 32], quo_q[32*l + 31]};
        diff = sh - {1'b0, dsr_q[32*l +: 32]};
        if (!diff[32]) begin
          rem_d[33*l +: 33] = diff;
          quo_d[32*l +: 32] = {quo_q[32*l +: 31], 1'b1};
        end else begin
          rem_d[33*l +: 33] = sh;
          quo_d[32*l +: 32] = {quo_q[32*l +: 31], 1'b0};
        end
      end
    end else if (last && wb_ready_i) begin
      busy_d = 1'b0;
    end
  end

  // Control with reset; the operands and partial results are datapath registers without reset.
  always_ff @(posedge clk_i or negedge rst_ni) begin : p_regs
    if (!rst_ni) begin
      busy_q <= 1'b0;
      cnt_q  <= '0;
    end else begin
      busy_q <= busy_d;
      cnt_q  <= cnt_d;
    end
  end

  always_ff @(posedge clk_i) begin : p_data
    w_q    <= w_d;
    rd_q   <= rd_d;
    op_q   <= op_d;
    mask_q <= mask_d;
    quo_q  <= quo_d;
    rem_q  <= rem_d;
    dsr_q  <= dsr_d;
    negq_q <= negq_d;
    negr_q <= negr_d;
  end

  // Sign fix and result selection.
  always_comb begin : p_out
    logic [31:0] q, r;
    q         = '0;
    r         = '0;
    wb_data_o = '0;
    for (int l = 0; l < Threads; l++) begin
      q = quo_q[32*l +: 32];
      r = rem_q[33*l +: 32];
      if (op_q[1]) wb_data_o[32*l +: 32] = negr_q[l] ? -r : r;
      else         wb_data_o[32*l +: 32] = negq_q[l] ? -q : q;
    end
  end

  logic unused_rem;
  always_comb begin : p_unused
    unused_rem = 1'b0;
    for (int l = 0; l < Threads; l++) unused_rem = unused_rem ^ rem_q[33*l + 32];
  end

  assign busy_o     = busy_q;
  assign wb_valid_o = last;
  assign wb_w_o     = w_q;
  assign wb_rd_o    = rd_q;
  assign wb_mask_o  = mask_q;

endmodule
