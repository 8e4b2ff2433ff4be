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
  output logic [Threads*32-1:0] wb_data_o
);

  if (Banks < 1 || (1 << BankW) != Banks) begin : g_bad_banks
    `WEFT_ELAB_ERROR("weft_simt_lsu: Banks must be a power of two")
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

  assign bank_req = busy_q ? lead_valid : '0;

  for (genvar b = 0; b < Banks; b++) begin : g_bank
    weft_sram_1rw #(
      .Depth (Depth),
      .Width (32)
    ) u_sram (
      .clk_i   (clk_i),
      .req_i   (bank_req[b]),
      .we_i    (store_q),
      .addr_i  (lead_row[RowW*b +: RowW]),
      .wdata_i (bank_wdata[32*b +: 32]),
      .be_i    (bank_be[4*b +: 4]),
      .rdata_o (bank_rdata[32*b +: 32])
    );
  end

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
