// weft_simt_regfile: the register files of all threads of the SIMT core.
//
// One storage array per lane holding x0..x31 of that lane in every warp (entry {warp, reg}), one
// combinational read of two registers of one warp for all lanes, and three write ports (execute
// stage, divider, load/store unit) with per-lane masks. The core never lets two ports write the
// same entry in one cycle (its scoreboard keeps rd of an outstanding divide or load away from
// other writers), and never writes x0.
//
// A launch does not write 32 registers per thread: clear_i marks every entry "not written", and
// the read ports return written_o = 0 for such entries; the core then substitutes the launch
// value (sp, a0, a1, or 0; docs/simt.md "Launch").
//
// Storage (FPGA-friendly, docs/fpga.md): per lane, one copy of the array per (write port, read
// port) pair, each with a single write port and a single asynchronous read port, so that it maps
// to LUT RAM (TRELLIS_DPR16X4 on ECP5) instead of flip-flops and wide read multiplexers; a live
// value table (lvt_q, 2 bits per entry) remembers which write port wrote an entry last and selects
// that port's copy on read. Behaviour is that of one array with three write ports, the last port
// in index order winning if two wrote the same entry in one cycle (the core never does).
module weft_simt_regfile #(
  parameter int  Warps   = 4,
  parameter int  Threads = 8,
  localparam int WarpW   = (Warps > 1) ? $clog2(Warps) : 1,
  localparam int Entries = (1 << WarpW) * 32
) (
  input  logic                  clk_i,
  input  logic                  rst_ni,
  input  logic                  clear_i,
  // read: two registers of warp rd_w_i, every lane
  input  logic [WarpW-1:0]      rd_w_i,
  input  logic [4:0]            rs1_i,
  input  logic [4:0]            rs2_i,
  output logic [Threads*32-1:0] rs1_o,
  output logic [Threads-1:0]    rs1_written_o,
  output logic [Threads*32-1:0] rs2_o,
  output logic [Threads-1:0]    rs2_written_o,
  // write ports 0..2
  input  logic [2:0]            we_i,
  input  logic [3*WarpW-1:0]    w_i,
  input  logic [3*5-1:0]        rd_i,
  input  logic [3*Threads-1:0]  mask_i,
  input  logic [3*Threads*32-1:0] data_i   // port p, lane l at [32*(p*Threads + l) +: 32]
);

  logic [Threads*Entries-1:0] written_q, written_d;

  always_comb begin : p_written
    written_d = written_q;
    if (clear_i) begin
      written_d = '0;
    end else begin
      for (int p = 0; p < 3; p++) begin
        for (int l = 0; l < Threads; l++) begin
          if (we_i[p] && mask_i[p*Threads + l]) begin
            written_d[l*Entries + 32*32'(w_i[WarpW*p +: WarpW]) + 32'(rd_i[5*p +: 5])] = 1'b1;
          end
        end
      end
    end
  end

  always_ff @(posedge clk_i or negedge rst_ni) begin : p_regs
    if (!rst_ni) written_q <= '0;
    else         written_q <= written_d;
  end

  for (genvar l = 0; l < Threads; l++) begin : g_lane
    // live value table: the write port that last wrote each entry
    logic [2*Entries-1:0] lvt_q, lvt_d;
    logic [31:0]          rd1 [3];
    logic [31:0]          rd2 [3];

    always_comb begin : p_lvt
      lvt_d = lvt_q;
      for (int p = 0; p < 3; p++) begin
        if (we_i[p] && mask_i[p*Threads + l]) begin
          lvt_d[2*(32*32'(w_i[WarpW*p +: WarpW]) + 32'(rd_i[5*p +: 5])) +: 2] = 2'(p);
        end
      end
    end

    always_ff @(posedge clk_i or negedge rst_ni) begin : p_lvt_q
      if (!rst_ni) lvt_q <= '0;
      else         lvt_q <= lvt_d;
    end

    for (genvar p = 0; p < 3; p++) begin : g_port
      // Two copies written by port p, one per read port (memory style: no reset).
      logic [31:0] mem1 [Entries];
      logic [31:0] mem2 [Entries];

      always_ff @(posedge clk_i) begin : p_write
        if (we_i[p] && mask_i[p*Threads + l]) begin
          mem1[{w_i[WarpW*p +: WarpW], rd_i[5*p +: 5]}] <= data_i[32*(p*Threads + l) +: 32];
          mem2[{w_i[WarpW*p +: WarpW], rd_i[5*p +: 5]}] <= data_i[32*(p*Threads + l) +: 32];
        end
      end

      assign rd1[p] = mem1[{rd_w_i, rs1_i}];
      assign rd2[p] = mem2[{rd_w_i, rs2_i}];
    end

    logic [1:0] sel1, sel2;
    assign sel1 = lvt_q[2*(32*32'(rd_w_i) + 32'(rs1_i)) +: 2];
    assign sel2 = lvt_q[2*(32*32'(rd_w_i) + 32'(rs2_i)) +: 2];

    assign rs1_o[32*l +: 32]  = (sel1 == 2'd0) ? rd1[0] : (sel1 == 2'd1) ? rd1[1] : rd1[2];
    assign rs2_o[32*l +: 32]  = (sel2 == 2'd0) ? rd2[0] : (sel2 == 2'd1) ? rd2[1] : rd2[2];
    assign rs1_written_o[l]   = written_q[l*Entries + 32*32'(rd_w_i) + 32'(rs1_i)];
    assign rs2_written_o[l]   = written_q[l*Entries + 32*32'(rd_w_i) + 32'(rs2_i)];
  end

endmodule
