// weft_simt_regfile: the register files of all threads of the SIMT core.
//
// One storage array per lane holding x0..x31 of that lane in every warp (entry {warp, reg}), a
// synchronous read of two registers of one warp for all lanes, and WritePorts write ports with
// per-lane masks (the core uses two: the WB stage, and the load/store unit or the divider, which
// take turns). The core never lets two ports write the same entry in one cycle (its scoreboard
// keeps rd of an outstanding divide or load away from other writers), and never writes x0.
//
// Read timing: the address (rd_w_i, rs1_i, rs2_i) is given in cycle t, and rs*_o in cycle t + 1
// hold the registers as they are after the writes of cycle t (a write of cycle t to a register
// read in cycle t is bypassed through a register, so the block RAM's own read-during-write
// behaviour never shows).
//
// A launch does not write 32 registers per thread: clear_i marks every entry "not written", and
// the read ports return written_o = 0 for such entries; the core then substitutes the launch
// value (sp, a0, a1, or 0; docs/simt.md "Launch").
//
// Storage (FPGA-friendly, docs/fpga.md): per lane, one copy of the array per (write port, read
// port) pair, each a weft_sram_1r1w (one write port, one registered read port: a block RAM,
// DP16KD on ECP5, instead of flip-flops behind wide read multiplexers); a live value table
// (lvt_q, flip-flops) remembers which write port wrote an entry last and selects that port's copy
// on read. Behaviour is that of one array with WritePorts write ports, the last port in index
// order winning if two wrote the same entry in one cycle (the core never does). The copies cost
// block RAMs (2 x WritePorts per lane), the table flip-flops and multiplexers per lane and entry:
// fewer write ports make both smaller (docs/fpga.md).
`include "weft_assert.svh"

module weft_simt_regfile #(
  parameter int  Warps      = 4,
  parameter int  Threads    = 8,
  parameter int  WritePorts = 2,
  localparam int WarpW      = (Warps > 1) ? $clog2(Warps) : 1,
  localparam int EntryW     = WarpW + 5,
  localparam int Entries    = 1 << EntryW,
  localparam int Ports      = WritePorts,
  localparam int LvtW       = (Ports > 1) ? $clog2(Ports) : 1
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
  // write ports 0 .. WritePorts-1
  input  logic [Ports-1:0]          we_i,
  input  logic [Ports*WarpW-1:0]    w_i,
  input  logic [Ports*5-1:0]        rd_i,
  input  logic [Ports*Threads-1:0]  mask_i,
  input  logic [Ports*Threads*32-1:0] data_i   // port p, lane l at [32*(p*Threads + l) +: 32]
);

  if (WritePorts < 1 || (1 << LvtW) < WritePorts) begin : g_bad_ports
    `WEFT_ELAB_ERROR("weft_simt_regfile: need WritePorts >= 1")
  end

  logic [EntryW-1:0] rd_entry [2];   // read port r: entry read in this cycle
  logic [EntryW-1:0] wr_entry [Ports];
  assign rd_entry[0] = {rd_w_i, rs1_i};
  assign rd_entry[1] = {rd_w_i, rs2_i};
  for (genvar p = 0; p < Ports; p++) begin : g_wr_entry
    assign wr_entry[p] = {w_i[WarpW*p +: WarpW], rd_i[5*p +: 5]};
  end

  for (genvar l = 0; l < Threads; l++) begin : g_lane
    logic [Ports-1:0] lane_we;
    for (genvar p = 0; p < Ports; p++) begin : g_we
      assign lane_we[p] = we_i[p] && mask_i[p*Threads + l];
    end

    // Live value table and "written since the launch", one entry per register (flip-flops: they
    // have every write port).
    logic [LvtW*Entries-1:0] lvt_q, lvt_d;
    logic [Entries-1:0]   written_q, written_d;

    always_comb begin : p_lvt
      lvt_d     = lvt_q;
      written_d = written_q;
      for (int p = 0; p < Ports; p++) begin
        if (lane_we[p]) begin
          lvt_d[LvtW*32'(wr_entry[p]) +: LvtW] = LvtW'(p);
          written_d[wr_entry[p]]         = 1'b1;
        end
      end
      if (clear_i) written_d = '0;
    end

    always_ff @(posedge clk_i or negedge rst_ni) begin : p_lvt_q
      if (!rst_ni) begin
        lvt_q     <= '0;
        written_q <= '0;
      end else begin
        lvt_q     <= lvt_d;
        written_q <= written_d;
      end
    end

    for (genvar r = 0; r < 2; r++) begin : g_read
      logic [31:0] copy_data [Ports];
      for (genvar p = 0; p < Ports; p++) begin : g_copy
        weft_sram_1r1w #(
          .Depth (Entries),
          .Width (32)
        ) u_copy (
          .clk_i     (clk_i),
          .rd_en_i   (1'b1),
          .rd_addr_i (rd_entry[r]),
          .rd_data_o (copy_data[p]),
          .wr_en_i   (lane_we[p]),
          .wr_addr_i (wr_entry[p]),
          .wr_data_i (data_i[32*(p*Threads + l) +: 32]),
          .wr_be_i   (4'hF)
        );
      end

      // Registered beside the copies' read: which copy holds the entry, whether it was written
      // since the launch, and a write of this cycle to it (bypassed).
      logic [LvtW-1:0] sel_q;
      logic        written_rd_q, bypass_q;
      logic [31:0] bypass_data_q;
      logic        bypass_d;
      logic [31:0] bypass_data_d;

      always_comb begin : p_bypass
        bypass_d      = 1'b0;
        bypass_data_d = '0;
        for (int p = 0; p < Ports; p++) begin
          if (lane_we[p] && wr_entry[p] == rd_entry[r]) begin
            bypass_d      = 1'b1;
            bypass_data_d = data_i[32*(p*Threads + l) +: 32];
          end
        end
      end

      // Datapath registers: no reset (their values matter only as rs*_o of a read).
      always_ff @(posedge clk_i) begin : p_read_q
        sel_q         <= lvt_q[LvtW*32'(rd_entry[r]) +: LvtW];
        written_rd_q  <= !clear_i && (written_q[rd_entry[r]] || bypass_d);
        bypass_q      <= bypass_d;
        bypass_data_q <= bypass_data_d;
      end

      logic [31:0] value;
      assign value = bypass_q ? bypass_data_q : copy_data[sel_q];
      if (r == 0) begin : g_rs1
        assign rs1_o[32*l +: 32] = value;
        assign rs1_written_o[l]  = written_rd_q;
      end else begin : g_rs2
        assign rs2_o[32*l +: 32] = value;
        assign rs2_written_o[l]  = written_rd_q;
      end
    end
  end

endmodule
