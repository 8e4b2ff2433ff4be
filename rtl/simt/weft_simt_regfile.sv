// weft_simt_regfile: the register files of all threads of the SIMT core.
//
// One storage array per lane holding x0..x31 of that lane in every warp (entry {warp, reg}), a
// synchronous read of two registers of one warp for all lanes, and one write port with a per-lane
// mask (weft_simt_rf_write chooses what it writes: a unit's write back or the WB stage's). The
// core never writes x0.
//
// Read timing: the address (rd_w_i, rs1_i, rs2_i) is given in cycle t, and rs*_o in cycle t + 1
// hold the registers as they are after the write of cycle t (a write of cycle t to a register
// read in cycle t is bypassed through a register, so the block RAM's own read-during-write
// behaviour never shows).
//
// A launch does not write 32 registers per thread: clear_i marks every entry "not written", and
// the read ports return written_o = 0 for such entries; the core then substitutes the launch
// value (sp, a0, a1, or 0; docs/simt.md "Launch").
//
// Storage (FPGA-friendly, docs/fpga.md): per lane two copies of the array, one per read port, each
// a weft_sram_1r1w (one write port, one registered read port: a block RAM, DP16KD on ECP5),
// written together. The "written" bits are flip-flops (cleared at once at launch).
module weft_simt_regfile #(
  parameter int  Warps   = 4,
  parameter int  Threads = 8,
  localparam int WarpW   = (Warps > 1) ? $clog2(Warps) : 1,
  localparam int EntryW  = WarpW + 5,
  localparam int Entries = 1 << EntryW
) (
  input  logic                  clk_i,
  input  logic                  rst_ni,
  input  logic                  clear_i,
  // read: two registers of warp rd_w_i, every lane; data one cycle later
  input  logic [WarpW-1:0]      rd_w_i,
  input  logic [4:0]            rs1_i,
  input  logic [4:0]            rs2_i,
  output logic [Threads*32-1:0] rs1_o,
  output logic [Threads-1:0]    rs1_written_o,
  output logic [Threads*32-1:0] rs2_o,
  output logic [Threads-1:0]    rs2_written_o,
  // write: register rd_i of warp w_i in the lanes of mask_i
  input  logic                  we_i,
  input  logic [WarpW-1:0]      w_i,
  input  logic [4:0]            rd_i,
  input  logic [Threads-1:0]    mask_i,
  input  logic [Threads*32-1:0] data_i   // lane l at [32*l +: 32]
);

  logic [EntryW-1:0] rd_entry [2];   // read port r: entry read in this cycle
  logic [EntryW-1:0] wr_entry;
  assign rd_entry[0] = {rd_w_i, rs1_i};
  assign rd_entry[1] = {rd_w_i, rs2_i};
  assign wr_entry    = {w_i, rd_i};

  // The read address and the write of the read cycle, registered: the "written" lookup and the
  // bypass compare run in the cycle the data comes out (beside the block RAM's clock-to-out), not
  // in the read cycle, whose address comes straight from the instruction memory (docs/fpga.md).
  // Datapath registers: no reset.
  logic [EntryW-1:0] rd_entry_q [2];
  logic [EntryW-1:0] wr_entry_q;
  logic              we_q;
  logic              hit_q [2];      // the read cycle's write was to the entry read port r read
  always_ff @(posedge clk_i) begin : p_addr_q
    rd_entry_q[0] <= rd_entry[0];
    rd_entry_q[1] <= rd_entry[1];
    wr_entry_q    <= wr_entry;
  end
  always_ff @(posedge clk_i or negedge rst_ni) begin : p_we_q
    if (!rst_ni) we_q <= 1'b0;
    else         we_q <= we_i;
  end
  assign hit_q[0] = we_q && wr_entry_q == rd_entry_q[0];
  assign hit_q[1] = we_q && wr_entry_q == rd_entry_q[1];

  for (genvar l = 0; l < Threads; l++) begin : g_lane
    logic lane_we, lane_mask_q;
    assign lane_we = we_i && mask_i[l];
    always_ff @(posedge clk_i) begin : p_lane_mask_q
      lane_mask_q <= mask_i[l];   // with we_q: this lane was written in the read cycle
    end

    // "Written since the launch", one bit per register.
    logic [Entries-1:0] written_q, written_d;

    always_comb begin : p_written
      written_d = written_q;
      if (lane_we) written_d[wr_entry] = 1'b1;
      if (clear_i) written_d = '0;
    end

    always_ff @(posedge clk_i or negedge rst_ni) begin : p_written_q
      if (!rst_ni) written_q <= '0;
      else         written_q <= written_d;
    end

    for (genvar r = 0; r < 2; r++) begin : g_read
      logic [31:0] copy_data;
      logic [1:0]  unused_ecc;  // no ECC on the SIMT memories

      weft_sram_1r1w #(
        .Depth (Entries),
        .Width (32)
      ) u_copy (
        .clk_i     (clk_i),
        .rd_en_i   (1'b1),
        .rd_addr_i (rd_entry[r]),
        .rd_data_o (copy_data),
        .rd_ecc_o  (unused_ecc),
        .wr_en_i   (lane_we),
        .wr_addr_i (wr_entry),
        .wr_data_i (data_i[32*l +: 32]),
        .wr_be_i   (4'hF)
      );

      // In the cycle after the read: whether the entry was written since the launch (written_q
      // now holds the read cycle's write and clear) and whether the read cycle's write went to it
      // (bypassed: the block RAM's read-during-write value is never used).
      logic        written_rd, bypass;
      logic [31:0] bypass_data_q;

      always_ff @(posedge clk_i) begin : p_read_q
        bypass_data_q <= data_i[32*l +: 32];
      end
      assign written_rd = written_q[rd_entry_q[r]];
      assign bypass     = hit_q[r] && lane_mask_q;

      logic [31:0] value;
      assign value = bypass ? bypass_data_q : copy_data;
      if (r == 0) begin : g_rs1
        assign rs1_o[32*l +: 32] = value;
        assign rs1_written_o[l]  = written_rd;
      end else begin : g_rs2
        assign rs2_o[32*l +: 32] = value;
        assign rs2_written_o[l]  = written_rd;
      end
    end
  end

endmodule
