// weft_simt_lsu: the SIMT core's load/store unit and its local data memory.
//
// The data memory is Banks word-interleaved banks of weft_sram_1rw (byte address A lives in bank
// (A/4) % Banks, row (A/4) / Banks); it stands in for the scratchpad port until the core is
// connected to weft_spad. One warp instruction at a time: the core starts it (start_i while
// !busy_o) with the active lanes' addresses, already checked for alignment and range.
//
// Coalescing and bank conflicts: every cycle each bank serves the lowest pending lane that maps
// to it and, in the same access, every other pending lane that addresses the same word (loads
// share the read word; stores merge their byte enables, a higher lane winning a byte that two
// lanes write, as the golden model's lane order does). Lanes of one bank addressing different
// words are served in later cycles. A warp whose lanes touch distinct banks or one word
// completes in one access cycle.
//
// External line port (the DMA's view of the data memory, docs/programming-model.md): line L is
// the ExtW/32 words 4L.. of the memory (one per bank, so Banks >= ExtW/32), read or written in one
// access. It is served only in cycles where no warp access runs (ext_ready_o = !busy_o); read
// data is on ext_rvalid_o / ext_rdata_o two cycles after the accepted request, like a
// scratchpad read port.
//
// Timing: start at edge t; access cycles t+1 .. t+k (k = the worst bank's number of distinct
// words); loads capture the bank outputs one cycle after each access; done_o (and for loads
// wb_valid_o with all lanes' rd values) one cycle after the last capture. busy_o covers
// everything up to and including the done cycle.
`include "weft_assert.svh"

module weft_simt_lsu #(
  parameter int  Warps     = 4,
  parameter int  Threads   = 8,
  parameter int  Banks     = 8,
  parameter int  DmemBytes = 65536,
  parameter int  ExtW      = 128,
  localparam int ExtWords  = ExtW / 32,
  localparam int ExtAw     = $clog2(DmemBytes / (ExtW / 8)),
  localparam int WarpW     = (Warps > 1) ? $clog2(Warps) : 1,
  localparam int BankW     = (Banks > 1) ? $clog2(Banks) : 1,
  localparam int AddrW     = $clog2(DmemBytes),
  localparam int Depth     = DmemBytes / (4 * Banks),
  localparam int RowW      = (Depth > 1) ? $clog2(Depth) : 1
) (
  input  logic                  clk_i,
  input  logic                  rst_ni,
  input  logic                  start_i,
  input  logic [WarpW-1:0]      w_i,
  input  logic [4:0]            rd_i,
  input  logic [2:0]            f3_i,       // funct3 of the load or store
  input  logic                  store_i,
  input  logic [Threads-1:0]    mask_i,
  input  logic [Threads*32-1:0] addr_i,     // lane l at [32*l +: 32]
  input  logic [Threads*32-1:0] wdata_i,    // store data (rs2)
  output logic                  busy_o,
  output logic                  done_o,
  output logic                  wb_valid_o,
  output logic [WarpW-1:0]      wb_w_o,
  output logic [4:0]            wb_rd_o,
  output logic [Threads-1:0]    wb_mask_o,
  output logic [Threads*32-1:0] wb_data_o,
  // external line port
  input  logic                  ext_req_i,
  input  logic                  ext_we_i,
  input  logic [ExtAw-1:0]      ext_addr_i,
  input  logic [ExtW-1:0]       ext_wdata_i,
  output logic                  ext_ready_o,
  output logic                  ext_rvalid_o,
  output logic [ExtW-1:0]       ext_rdata_o
);

  if (Banks < 1 || (1 << BankW) != Banks) begin : g_bad_banks
    `WEFT_ELAB_ERROR("weft_simt_lsu: Banks must be a power of two")
  end
  if (ExtW < 32 || ExtW % 32 != 0 || (1 << $clog2(ExtWords)) != ExtWords || ExtWords > Banks)
  begin : g_bad_extw
    `WEFT_ELAB_ERROR("weft_simt_lsu: ExtW must be 32 x a power of two <= Banks")
  end
  if ((1 << AddrW) != DmemBytes || Depth < 2) begin : g_bad_dmem
    `WEFT_ELAB_ERROR("weft_simt_lsu: DmemBytes must be a power of two >= 8 * Banks")
  end

  logic                     busy_q, busy_d;
  logic [WarpW-1:0]         w_q, w_d;
  logic [4:0]               rd_q, rd_d;
  logic [2:0]               f3_q, f3_d;
  logic                     store_q, store_d;
  logic [Threads-1:0]       mask_q, mask_d;
  logic [Threads-1:0]       pend_q, pend_d;   // lanes not yet served
  logic [Threads-1:0]       prev_q, prev_d;   // lanes served by the last access (load data due)
  logic [Threads*AddrW-1:0] addr_q, addr_d;
  logic [Threads*32-1:0]    data_q, data_d;   // store data, then load results

  // Per-lane bank and row; per-bank leader.
  logic [Threads*BankW-1:0] lane_bank;
  logic [Threads*RowW-1:0]  lane_row;
  logic [Banks-1:0]         lead_valid;
  logic [Banks*RowW-1:0]    lead_row;
  logic [Threads-1:0]       served;

  // Bank ports.
  logic [Banks-1:0]    bank_req;
  logic [Banks*4-1:0]  bank_be;
  logic [Banks*32-1:0] bank_wdata;
  logic [Banks*32-1:0] bank_rdata;

  always_comb begin : p_lanes
    for (int l = 0; l < Threads; l++) begin
      lane_bank[BankW*l +: BankW] = addr_q[AddrW*l + 2 +: BankW];
      lane_row[RowW*l +: RowW]    = RowW'(addr_q[AddrW*l + 2 + BankW +: (AddrW - 2 - BankW)]);
    end
  end

  always_comb begin : p_leaders
    lead_valid = '0;
    lead_row   = '0;
    for (int b = 0; b < Banks; b++) begin
      for (int l = Threads - 1; l >= 0; l--) begin  // descending: the lowest lane wins
        if (pend_q[l] && (32'(lane_bank[BankW*l +: BankW]) == b)) begin
          lead_valid[b]            = 1'b1;
          lead_row[RowW*b +: RowW] = lane_row[RowW*l +: RowW];
        end
      end
    end
    for (int l = 0; l < Threads; l++) begin
      served[l] = pend_q[l] &&
                  (lane_row[RowW*l +: RowW] == lead_row[RowW*lane_bank[BankW*l +: BankW] +: RowW]);
    end
  end

  // Store merge: every served lane's bytes into its bank's word, lanes ascending (last wins).
  always_comb begin : p_store_merge
    logic [1:0]  off;
    logic [3:0]  be;
    logic [31:0] wd;
    off        = '0;
    be         = '0;
    wd         = '0;
    bank_be    = '0;
    bank_wdata = '0;
    for (int b = 0; b < Banks; b++) begin
      for (int l = 0; l < Threads; l++) begin
        if (served[l] && (32'(lane_bank[BankW*l +: BankW]) == b)) begin
          off = addr_q[AddrW*l +: 2];
          unique case (f3_q[1:0])
            2'b00:   be = 4'b0001 << off;
            2'b01:   be = 4'b0011 << off;
            default: be = 4'b1111;
          endcase
          unique case (f3_q[1:0])
            2'b00:   wd = {4{data_q[32*l +: 8]}};
            2'b01:   wd = {2{data_q[32*l +: 16]}};
            default: wd = data_q[32*l +: 32];
          endcase
          for (int j = 0; j < 4; j++) begin
            if (be[j]) begin
              bank_be[4*b + j]         = 1'b1;
              bank_wdata[32*b + 8*j +: 8] = wd[8*j +: 8];
            end
          end
        end
      end
    end
  end

  // External port: word j of line L is word ExtWords*L + j: bank (ExtWords*L + j) % Banks.
  logic               ext_go;
  logic [Banks-1:0]   ext_bank;
  logic [Banks*RowW-1:0] ext_row;
  logic [Banks*32-1:0]   ext_bwdata;
  logic [BankW-1:0]   ext_first, ext_first_q;
  logic               ext_s1_q, ext_rvalid_q;
  logic [ExtW-1:0]    ext_rdata_q;
  logic [AddrW-3:0]   ext_word0;

  assign ext_go    = ext_req_i && !busy_q;
  assign ext_word0 = (AddrW - 2)'(ext_addr_i) << $clog2(ExtWords);
  assign ext_first = BankW'(ext_word0);

  always_comb begin : p_ext
    logic [AddrW-3:0] wd;
    ext_bank   = '0;
    ext_row    = '0;
    ext_bwdata = '0;
    wd         = '0;
    for (int j = 0; j < ExtWords; j++) begin
      wd = ext_word0 + (AddrW - 2)'(j);
      ext_bank[BankW'(wd)]                  = 1'b1;
      ext_row[RowW*32'(BankW'(wd)) +: RowW] = RowW'(wd >> BankW);
      ext_bwdata[32*32'(BankW'(wd)) +: 32]  = ext_wdata_i[32*j +: 32];
    end
  end

  assign bank_req = busy_q ? lead_valid : (ext_go ? ext_bank : '0);

  for (genvar b = 0; b < Banks; b++) begin : g_bank
    weft_sram_1rw #(
      .Depth (Depth),
      .Width (32)
    ) u_sram (
      .clk_i   (clk_i),
      .req_i   (bank_req[b]),
      .we_i    (busy_q ? store_q : ext_we_i),
      .addr_i  (busy_q ? lead_row[RowW*b +: RowW] : ext_row[RowW*b +: RowW]),
      .wdata_i (busy_q ? bank_wdata[32*b +: 32] : ext_bwdata[32*b +: 32]),
      .be_i    (busy_q ? bank_be[4*b +: 4] : 4'b1111),
      .rdata_o (bank_rdata[32*b +: 32])
    );
  end

  // External read data: the banks' outputs the cycle after the access, registered.
  always_ff @(posedge clk_i or negedge rst_ni) begin : p_ext_valid
    if (!rst_ni) begin
      ext_s1_q     <= 1'b0;
      ext_rvalid_q <= 1'b0;
    end else begin
      ext_s1_q     <= ext_go && !ext_we_i;
      ext_rvalid_q <= ext_s1_q;
    end
  end

  logic [ExtW-1:0] ext_rdata_d;
  always_comb begin : p_ext_rdata
    logic [BankW-1:0] bk;
    bk          = '0;
    ext_rdata_d = ext_rdata_q;
    if (ext_s1_q) begin
      for (int j = 0; j < ExtWords; j++) begin
        bk                      = ext_first_q + BankW'(j);
        ext_rdata_d[32*j +: 32] = bank_rdata[32*32'(bk) +: 32];
      end
    end
  end

  always_ff @(posedge clk_i) begin : p_ext_data
    ext_first_q <= ext_first;
    ext_rdata_q <= ext_rdata_d;
  end

  assign ext_ready_o  = !busy_q;
  assign ext_rvalid_o = ext_rvalid_q;
  assign ext_rdata_o  = ext_rdata_q;

  logic finish;
  assign finish = busy_q && (pend_q == '0) && (prev_q == '0);

  always_comb begin : p_next
    logic [31:0] word;
    word   = '0;
    busy_d  = busy_q;
    w_d     = w_q;
    rd_d    = rd_q;
    f3_d    = f3_q;
    store_d = store_q;
    mask_d  = mask_q;
    pend_d  = pend_q;
    prev_d  = prev_q;
    addr_d  = addr_q;
    data_d  = data_q;
    if (start_i && !busy_q) begin
      busy_d  = 1'b1;
      w_d     = w_i;
      rd_d    = rd_i;
      f3_d    = f3_i;
      store_d = store_i;
      mask_d  = mask_i;
      pend_d  = mask_i;
      prev_d  = '0;
      for (int l = 0; l < Threads; l++) addr_d[AddrW*l +: AddrW] = addr_i[32*l +: AddrW];
      data_d  = wdata_i;
    end else if (finish) begin
      busy_d = 1'b0;
    end else if (busy_q) begin
      pend_d = pend_q & ~served;
      prev_d = store_q ? '0 : served;
      // Load data of the previous access: extract and extend each lane's bytes (ISA 2.6).
      for (int l = 0; l < Threads; l++) begin
        if (prev_q[l]) begin
          word = bank_rdata[32*lane_bank[BankW*l +: BankW] +: 32] >> {addr_q[AddrW*l +: 2], 3'b000};
          unique case (f3_q)
            3'b000:  data_d[32*l +: 32] = {{24{word[7]}}, word[7:0]};
            3'b001:  data_d[32*l +: 32] = {{16{word[15]}}, word[15:0]};
            3'b100:  data_d[32*l +: 32] = {24'd0, word[7:0]};
            3'b101:  data_d[32*l +: 32] = {16'd0, word[15:0]};
            default: data_d[32*l +: 32] = word;
          endcase
        end
      end
    end
  end

  always_ff @(posedge clk_i or negedge rst_ni) begin : p_regs
    if (!rst_ni) begin
      busy_q  <= 1'b0;
      w_q     <= '0;
      rd_q    <= '0;
      f3_q    <= '0;
      store_q <= 1'b0;
      mask_q  <= '0;
      pend_q  <= '0;
      prev_q  <= '0;
      addr_q  <= '0;
      data_q  <= '0;
    end else begin
      busy_q  <= busy_d;
      w_q     <= w_d;
      rd_q    <= rd_d;
      f3_q    <= f3_d;
      store_q <= store_d;
      mask_q  <= mask_d;
      pend_q  <= pend_d;
      prev_q  <= prev_d;
      addr_q  <= addr_d;
      data_q  <= data_d;
    end
  end

  logic unused_addr;
  always_comb begin : p_unused
    unused_addr = 1'b0;
    for (int l = 0; l < Threads; l++) unused_addr = unused_addr ^ (^addr_i[32*l + AddrW +: (32 - AddrW)]);
  end

  assign busy_o     = busy_q;
  assign done_o     = finish;
  assign wb_valid_o = finish && !store_q;
  assign wb_w_o     = w_q;
  assign wb_rd_o    = rd_q;
  assign wb_mask_o  = mask_q;
  assign wb_data_o  = data_q;

endmodule
