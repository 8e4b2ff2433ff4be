// weft_accumulator: the tensor unit's accumulator memory, two banks of BankDepth rows of Cols
// INT32 values (FP32 for FP rows: in_fp_i), each bank one weft_sram_1r1w. An FP row that
// accumulates is added in FP32, rounded to nearest even (weft_fp_pkg::fp_add); with Fp = 0 the
// flag is ignored.
//
// Write side (from the systolic array, one row per cycle, never stalls):
//   cycle t   : row arrives (in_*); for accumulate, its old value is read from the bank
//   cycle t+1 : sum = in + old (or in alone for overwrite) is written
// A row that reads the address written in the previous cycle gets the written sum forwarded
// (the SRAM's same-cycle read would return stale data), so back-to-back accumulation into one
// row (long K with M = 1) is exact.
//
// Read side (drain): rd_en_i / rd_bank_i / rd_addr_i, data on rd_data_o one cycle later.
// A bank's read port serves either the accumulate reads or the drain, never both in one
// cycle: the tensor unit never drains a bank while computing into it (asserted here).
//
// ECC (Ecc = 1, docs/common.md "ECC"): the banks store SECDED check bits with every row; both
// reads see corrected rows, and an accumulated row is written back with fresh check bits (a
// corrected bit is scrubbed). Each cycle ecc_corr_o counts the rows read in the previous cycle
// whose data is used now (an accumulate read not replaced by the forwarded row, a drain read)
// that had one flipped bit, ecc_corr_row_o is one of them, and ecc_err_o flags one that had more
// (uncorrectable, its row in ecc_err_row_o: bank in the MSB, as cmd addresses). Without Ecc the
// outputs are 0.
`include "weft_assert.svh"

module weft_accumulator #(
  parameter int Cols      = 4,
  parameter int BankDepth = 64,
  parameter bit Fp        = 1'b0,
  parameter bit Ecc       = 1'b0,  // SECDED in both banks
  localparam int AccW     = weft_pkg::AccW,
  localparam int BankAw   = (BankDepth > 1) ? $clog2(BankDepth) : 1
) (
  input  logic                 clk_i,
  input  logic                 rst_ni,
  // rows from the array
  input  logic                 in_valid_i,
  input  logic                 in_bank_i,
  input  logic [BankAw-1:0]    in_addr_i,
  input  logic                 in_accumulate_i,
  input  logic                 in_fp_i,
  input  logic [Cols*AccW-1:0] in_data_i,
  // one row written this cycle (for the tensor unit's hazard counters)
  output logic                 wr_valid_o,
  output logic                 wr_bank_o,
  // drain reads
  input  logic                 rd_en_i,
  input  logic                 rd_bank_i,
  input  logic [BankAw-1:0]    rd_addr_i,
  output logic [Cols*AccW-1:0] rd_data_o,
  // ECC events (Ecc)
  output logic [1:0]           ecc_corr_o,
  output logic [BankAw:0]      ecc_corr_row_o,
  output logic                 ecc_err_o,
  output logic [BankAw:0]      ecc_err_row_o
);

  if (BankDepth < 2 || (1 << BankAw) != BankDepth) begin : g_bad_depth
    `WEFT_ELAB_ERROR("weft_accumulator: BankDepth must be a power of two >= 2")
  end

  // Stage 1 registers (the row being written this cycle).
  logic                 s1_valid_q, s1_bank_q, s1_acc_q, s1_fp_q, s1_rd_bank_q;
  logic [BankAw-1:0]    s1_addr_q;
  logic [Cols*AccW-1:0] s1_data_q;
  // Forwarding register: the row written in the previous cycle.
  logic                 fwd_valid_q, fwd_bank_q;
  logic [BankAw-1:0]    fwd_addr_q;
  logic [Cols*AccW-1:0] fwd_data_q;

  logic [Cols*AccW-1:0] bank_rdata [2];
  logic [3:0]           bank_ecc;   // rd_ecc_o of bank b in [2b +: 2]
  logic [Cols*AccW-1:0] old_row, sum_row;
  logic                 fwd_hit;

  // Per-bank read port: accumulate reads from the array side, else the drain.
  logic                 bank_rd_en   [2];
  logic [BankAw-1:0]    bank_rd_addr [2];
  logic                 bank_wr_en   [2];

  for (genvar b = 0; b < 2; b++) begin : g_bank
    logic acc_rd;
    assign acc_rd          = in_valid_i && in_accumulate_i && (in_bank_i == 1'(b));
    assign bank_rd_en[b]   = acc_rd || (rd_en_i && (rd_bank_i == 1'(b)));
    assign bank_rd_addr[b] = acc_rd ? in_addr_i : rd_addr_i;
    assign bank_wr_en[b]   = s1_valid_q && (s1_bank_q == 1'(b));

    weft_sram_1r1w #(.Depth(BankDepth), .Width(Cols * AccW), .Ecc(Ecc)) u_sram (
      .clk_i,
      .rd_en_i   (bank_rd_en[b]),
      .rd_addr_i (bank_rd_addr[b]),
      .rd_data_o (bank_rdata[b]),
      .rd_ecc_o  (bank_ecc[2*b +: 2]),
      .wr_en_i   (bank_wr_en[b]),
      .wr_addr_i (s1_addr_q),
      .wr_data_i (sum_row),
      .wr_be_i   ({(Cols * AccW / 8){1'b1}})
    );

`ifndef SYNTHESIS
    always_ff @(posedge clk_i or negedge rst_ni) begin : p_port_conflict
      if (!rst_ni) begin
      end else begin
        assert (!(acc_rd && rd_en_i && rd_bank_i == 1'(b)))
          else $error("weft_accumulator: drain read and accumulate read on one bank");
      end
    end
`endif
  end

  assign fwd_hit = fwd_valid_q && (fwd_bank_q == s1_bank_q) && (fwd_addr_q == s1_addr_q);
  assign old_row = fwd_hit ? fwd_data_q : bank_rdata[s1_bank_q];

  for (genvar c = 0; c < Cols; c++) begin : g_lane
    logic [AccW-1:0] in_v, old_v;
    assign in_v  = s1_data_q[c*AccW +: AccW];
    assign old_v = old_row[c*AccW +: AccW];
    if (Fp) begin : g_fp
      logic [AccW-1:0] fp_sum;
      weft_fp_add32 u_add (
        .en_i  (s1_acc_q && s1_fp_q),
        .x_i   (old_v),
        .y_i   (in_v),
        .sum_o (fp_sum)
      );
      assign sum_row[c*AccW +: AccW] = !s1_acc_q ? in_v : s1_fp_q ? fp_sum : in_v + old_v;
    end else begin : g_int
      assign sum_row[c*AccW +: AccW] = s1_acc_q ? in_v + old_v : in_v;
    end
  end
  if (!Fp) begin : g_no_fp
    logic unused_fp;
    assign unused_fp = s1_fp_q;
  end

  always_ff @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni) begin
      s1_valid_q  <= 1'b0;
      fwd_valid_q <= 1'b0;
    end else begin
      s1_valid_q  <= in_valid_i;
      fwd_valid_q <= s1_valid_q;
    end
  end

  always_ff @(posedge clk_i) begin
    s1_bank_q    <= in_bank_i;
    s1_addr_q    <= in_addr_i;
    s1_acc_q     <= in_accumulate_i;
    s1_fp_q      <= in_fp_i;
    s1_data_q    <= in_data_i;
    s1_rd_bank_q <= rd_bank_i;
    fwd_bank_q   <= s1_bank_q;
    fwd_addr_q   <= s1_addr_q;
    fwd_data_q   <= sum_row;
  end

  assign wr_valid_o = s1_valid_q;
  assign wr_bank_o  = s1_bank_q;
  assign rd_data_o  = bank_rdata[s1_rd_bank_q];

  // ECC events: source 0 the accumulate read (its old row is used unless forwarded), source 1
  // the drain read, both issued at the last edge.
  if (Ecc) begin : g_ecc
    logic              drn_q;
    logic [BankAw-1:0] drn_addr_q;
    logic [1:0]        used;
    logic [3:0]        ecc;

    always_ff @(posedge clk_i or negedge rst_ni) begin : p_drn_q
      if (!rst_ni) drn_q <= 1'b0;
      else         drn_q <= rd_en_i;
    end
    always_ff @(posedge clk_i) begin : p_drn_addr_q
      drn_addr_q <= rd_addr_i;
    end

    assign used = {drn_q, s1_valid_q && s1_acc_q && !fwd_hit};
    assign ecc  = {bank_ecc[2*s1_rd_bank_q +: 2], bank_ecc[2*s1_bank_q +: 2]};

    weft_ecc_merge #(.N(2), .AddrW(BankAw + 1)) u_merge (
      .used_i      (used),
      .ecc_i       (ecc),
      .addr_i      ({s1_rd_bank_q, drn_addr_q, s1_bank_q, s1_addr_q}),
      .corr_o      (ecc_corr_o),
      .corr_addr_o (ecc_corr_row_o),
      .err_o       (ecc_err_o),
      .err_addr_o  (ecc_err_row_o)
    );
  end else begin : g_no_ecc
    logic unused_ecc;
    assign unused_ecc     = ^bank_ecc;
    assign ecc_corr_o     = '0;
    assign ecc_corr_row_o = '0;
    assign ecc_err_o      = 1'b0;
    assign ecc_err_row_o  = '0;
  end

endmodule
