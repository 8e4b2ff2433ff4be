// weft_simt_lsu: the SIMT core's load/store unit and its local data memory.
//
// The data memory is Banks word-interleaved banks of weft_sram_1rw (byte address A lives in bank
// (A/4) % Banks, row (A/4) / Banks); it stands in for the scratchpad port until the core is
// connected to weft_spad. The core starts a warp instruction (start_i, only while slots_o >= 1)
// with the active lanes' addresses, already checked for alignment and range.
//
// Pipelined, in order: a queue of QDepth warp instructions whose head accesses the banks, then a
// response stage for loads.
//   access    every cycle the head instruction makes one access: each bank serves the lowest
//             pending lane that maps to it and, in the same access, every other pending lane that
//             addresses the same word (loads share the read word; stores merge their byte
//             enables, a higher lane winning a byte that two lanes write, as the golden model's
//             lane order does). Lanes of one bank addressing different words are served in later
//             cycles (bank conflict). After its last access the head leaves the queue and the
//             next instruction accesses in the very next cycle: a conflict-free instruction takes
//             one access cycle, so one warp instruction per cycle streams through.
//   capture   the bank outputs of a load access are extracted (byte/half selection, sign or zero
//             extension) in the cycle after it;
//   response  a load whose last access was in cycle t writes all lanes' rd back in cycle t+1
//             (wb_valid_o; data captured from earlier accesses merged with those of cycle t).
// Memory order is issue order (one queue), so every thread sees its own accesses in program order.
//
// External line port (the DMA's view of the data memory, docs/programming-model.md): line L is
// the ExtW/32 words 4L.. of the memory (one per bank, so Banks >= ExtW/32), read or written in one
// access. It is served only in cycles where no warp access runs (ext_ready_o = !busy_o); read
// data is on ext_rvalid_o / ext_rdata_o two cycles after the accepted request, like a
// scratchpad read port.
//
// Timing: start at edge t (into an empty queue): access cycles t .. t+k-1 (k = the worst bank's
// number of distinct words); a load's wb_valid_o in cycle t+k with all lanes' values. done_o is
// high in every cycle in which an instruction completes (a store's last access, a load's write
// back). busy_o: an instruction is queued, accessing or writing back. slots_o: queue entries free
// after this cycle, counting the head as done when it is on its only access (no bank conflict,
// known from registers: see h_last_known), so start_i in the next cycle is accepted if
// slots_o >= 1, and start_i this and next cycle if slots_o >= 2.
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
  localparam int RowW      = (Depth > 1) ? $clog2(Depth) : 1,
  localparam int QDepth    = 2,     // queued warp instructions (the head accesses)
  localparam int QPtrW     = $clog2(QDepth)
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
  output logic [1:0]            slots_o,
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

  // ---------------------------------------------------------------------------------------------
  // Queue (entry i of each vector at [i * size +: size]); the head accesses the banks.
  // ---------------------------------------------------------------------------------------------
  logic [QDepth*WarpW-1:0]         q_w_q, q_w_d;
  logic [QDepth*5-1:0]             q_rd_q, q_rd_d;
  logic [QDepth*3-1:0]             q_f3_q, q_f3_d;
  logic [QDepth-1:0]               q_store_q, q_store_d;
  logic [QDepth*Threads-1:0]       q_mask_q, q_mask_d;
  logic [QDepth*Threads-1:0]       q_pend_q, q_pend_d;   // lanes not yet served
  logic [QDepth-1:0]               q_one_q, q_one_d;     // next access is the last (known at push)
  logic [QDepth*Threads*AddrW-1:0] q_addr_q, q_addr_d;
  logic [QDepth*Threads*32-1:0]    q_data_q, q_data_d;   // store data, or load data captured
  logic [QPtrW-1:0]                hd_q, hd_d;           // head entry
  logic [1:0]                      cnt_q, cnt_d;         // entries in use

  // Capture stage: the load lanes served by the last cycle's access.
  logic [Threads-1:0]       cap_mask_q, cap_mask_d;
  logic                     cap_r_q, cap_r_d;            // ... belong to the response stage
  logic [Threads*BankW-1:0] cap_bank_q, cap_bank_d;
  logic [Threads*2-1:0]     cap_off_q, cap_off_d;
  logic [2:0]               cap_f3_q, cap_f3_d;

  // Response stage (loads).
  logic                  r_valid_q, r_valid_d;
  logic [WarpW-1:0]      r_w_q, r_w_d;
  logic [4:0]            r_rd_q, r_rd_d;
  logic [Threads-1:0]    r_mask_q, r_mask_d;
  logic [Threads*32-1:0] r_data_q, r_data_d;

  // The head entry.
  logic                     h_valid, h_store;
  logic [2:0]               h_f3;
  logic [Threads-1:0]       h_pend;
  logic [Threads*AddrW-1:0] h_addr;
  logic [Threads*32-1:0]    h_data;

  assign h_valid = cnt_q != 2'd0;
  assign h_store = q_store_q[hd_q];
  assign h_f3    = q_f3_q[3*hd_q +: 3];
  assign h_pend  = q_pend_q[Threads*hd_q +: Threads];
  assign h_addr  = q_addr_q[Threads*AddrW*hd_q +: Threads*AddrW];
  assign h_data  = q_data_q[Threads*32*hd_q +: Threads*32];

  // Per-lane bank and row of the head; per-bank leader.
  logic [Threads*BankW-1:0] lane_bank;
  logic [Threads*RowW-1:0]  lane_row;
  logic [Banks-1:0]         lead_valid;
  logic [Banks*RowW-1:0]    lead_row;
  logic [Threads-1:0]       served;
  logic                     h_last;    // the head's last access is this cycle

  // Bank ports.
  logic [Banks-1:0]    bank_req;
  logic [Banks*4-1:0]  bank_be;
  logic [Banks*32-1:0] bank_wdata;
  logic [Banks*32-1:0] bank_rdata;

  always_comb begin : p_lanes
    for (int l = 0; l < Threads; l++) begin
      lane_bank[BankW*l +: BankW] = h_addr[AddrW*l + 2 +: BankW];
      lane_row[RowW*l +: RowW]    = RowW'(h_addr[AddrW*l + 2 + BankW +: (AddrW - 2 - BankW)]);
    end
  end

  always_comb begin : p_leaders
    lead_valid = '0;
    lead_row   = '0;
    for (int b = 0; b < Banks; b++) begin
      for (int l = Threads - 1; l >= 0; l--) begin  // descending: the lowest lane wins
        if (h_valid && h_pend[l] && (32'(lane_bank[BankW*l +: BankW]) == b)) begin
          lead_valid[b]            = 1'b1;
          lead_row[RowW*b +: RowW] = lane_row[RowW*l +: RowW];
        end
      end
    end
    for (int l = 0; l < Threads; l++) begin
      served[l] = h_valid && h_pend[l] &&
                  (lane_row[RowW*l +: RowW] == lead_row[RowW*lane_bank[BankW*l +: BankW] +: RowW]);
    end
  end

  assign h_last = h_valid && ((h_pend & ~served) == '0);

  // The head's last access this cycle, as known from registers: an instruction whose lanes have no
  // bank conflict (no two active lanes in one bank at different words; computed when it enters
  // the queue) finishes in its first access. slots_o counts it, and not the exact h_last, so that
  // no path runs from the bank-conflict logic into the core's issue decision; an instruction with
  // conflicts frees its entry for slots_o one cycle late.
  logic h_last_known;
  assign h_last_known = h_valid && q_one_q[hd_q];

  logic in_conflict_free;
  always_comb begin : p_in_conflicts
    in_conflict_free = 1'b1;
    for (int l = 0; l < Threads; l++) begin
      for (int m = l + 1; m < Threads; m++) begin
        if (mask_i[l] && mask_i[m] &&
            addr_i[32*l + 2 +: BankW] == addr_i[32*m + 2 +: BankW] &&
            addr_i[32*l + 2 + BankW +: (AddrW - 2 - BankW)] !=
            addr_i[32*m + 2 + BankW +: (AddrW - 2 - BankW)]) begin
          in_conflict_free = 1'b0;
        end
      end
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
          off = h_addr[AddrW*l +: 2];
          unique case (h_f3[1:0])
            2'b00:   be = 4'b0001 << off;
            2'b01:   be = 4'b0011 << off;
            default: be = 4'b1111;
          endcase
          unique case (h_f3[1:0])
            2'b00:   wd = {4{h_data[32*l +: 8]}};
            2'b01:   wd = {2{h_data[32*l +: 16]}};
            default: wd = h_data[32*l +: 32];
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
  logic               busy;
  logic               ext_go;
  logic [Banks-1:0]   ext_bank;
  logic [Banks*RowW-1:0] ext_row;
  logic [Banks*32-1:0]   ext_bwdata;
  logic [BankW-1:0]   ext_first, ext_first_q;
  logic               ext_s1_q, ext_rvalid_q;
  logic [ExtW-1:0]    ext_rdata_q;
  logic [AddrW-3:0]   ext_word0;

  assign busy      = h_valid || r_valid_q;
  assign ext_go    = ext_req_i && !busy;
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

  assign bank_req = h_valid ? lead_valid : (ext_go ? ext_bank : '0);

  for (genvar b = 0; b < Banks; b++) begin : g_bank
    logic [1:0] unused_ecc;  // no ECC on the SIMT memories
    weft_sram_1rw #(
      .Depth (Depth),
      .Width (32)
    ) u_sram (
      .clk_i   (clk_i),
      .req_i   (bank_req[b]),
      .we_i    (h_valid ? h_store : ext_we_i),
      .addr_i  (h_valid ? lead_row[RowW*b +: RowW] : ext_row[RowW*b +: RowW]),
      .wdata_i (h_valid ? bank_wdata[32*b +: 32] : ext_bwdata[32*b +: 32]),
      .be_i    (h_valid ? bank_be[4*b +: 4] : 4'b1111),
      .rdata_o (bank_rdata[32*b +: 32]),
      .rdata_ecc_o (unused_ecc)
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

  assign ext_ready_o  = !busy;
  assign ext_rvalid_o = ext_rvalid_q;
  assign ext_rdata_o  = ext_rdata_q;

  // Capture: the bank words of the last access, each lane's bytes extracted and extended (ISA 2.6).
  logic [Threads*32-1:0] cap_data;

  always_comb begin : p_capture
    logic [31:0] word;
    word = '0;
    for (int l = 0; l < Threads; l++) begin
      word = bank_rdata[32*cap_bank_q[BankW*l +: BankW] +: 32] >> {cap_off_q[2*l +: 2], 3'b000};
      unique case (cap_f3_q)
        3'b000:  cap_data[32*l +: 32] = {{24{word[7]}}, word[7:0]};
        3'b001:  cap_data[32*l +: 32] = {{16{word[15]}}, word[15:0]};
        3'b100:  cap_data[32*l +: 32] = {24'd0, word[7:0]};
        3'b101:  cap_data[32*l +: 32] = {16'd0, word[15:0]};
        default: cap_data[32*l +: 32] = word;
      endcase
    end
  end

  // The head's data with this cycle's capture (of its own earlier access) merged in.
  logic [Threads*32-1:0] h_data_cap;

  always_comb begin : p_head_data
    h_data_cap = h_data;
    for (int l = 0; l < Threads; l++) begin
      if (cap_mask_q[l] && !cap_r_q) h_data_cap[32*l +: 32] = cap_data[32*l +: 32];
    end
  end

  // Entry i + n of the circular queue (n <= QDepth).
  function automatic logic [QPtrW-1:0] next_entry(input logic [QPtrW-1:0] i, input logic [1:0] n);
    logic [QPtrW:0] sum;
    sum = {1'b0, i} + (QPtrW + 1)'(n);
    next_entry = (sum >= (QPtrW + 1)'(QDepth)) ? QPtrW'(sum - (QPtrW + 1)'(QDepth)) : QPtrW'(sum);
  endfunction

  logic          push;
  logic [QPtrW-1:0] tail;
  assign push = start_i && (cnt_q != 2'(QDepth) || h_last);
  assign tail = next_entry(hd_q, cnt_q);   // the entry after the used ones

  always_comb begin : p_next
    q_w_d      = q_w_q;
    q_rd_d     = q_rd_q;
    q_f3_d     = q_f3_q;
    q_store_d  = q_store_q;
    q_mask_d   = q_mask_q;
    q_pend_d   = q_pend_q;
    q_one_d    = q_one_q;
    q_addr_d   = q_addr_q;
    q_data_d   = q_data_q;
    hd_d       = hd_q;
    cnt_d      = cnt_q;
    cap_mask_d = '0;
    cap_r_d    = 1'b0;
    cap_bank_d = cap_bank_q;
    cap_off_d  = cap_off_q;
    cap_f3_d   = cap_f3_q;
    r_valid_d  = 1'b0;
    r_w_d      = r_w_q;
    r_rd_d     = r_rd_q;
    r_mask_d   = r_mask_q;
    r_data_d   = r_data_q;

    // Head: one access, then leave (loads to the response stage).
    if (h_valid) begin
      q_pend_d[Threads*hd_q +: Threads]       = h_pend & ~served;
      q_one_d[hd_q]                           = 1'b0;
      q_data_d[Threads*32*hd_q +: Threads*32] = h_data_cap;
      if (!h_store) begin
        cap_mask_d = served;
        cap_r_d    = h_last;
        cap_f3_d   = h_f3;
        for (int l = 0; l < Threads; l++) begin
          cap_bank_d[BankW*l +: BankW] = lane_bank[BankW*l +: BankW];
          cap_off_d[2*l +: 2]          = h_addr[AddrW*l +: 2];
        end
      end
      // The response stage takes the head's fields every cycle (no enable: h_last is late and
      // would drive every data flip-flop's enable); they are read only behind r_valid_q.
      r_w_d    = q_w_q[WarpW*hd_q +: WarpW];
      r_rd_d   = q_rd_q[5*hd_q +: 5];
      r_mask_d = q_mask_q[Threads*hd_q +: Threads];
      r_data_d = h_data_cap;
      if (h_last) begin
        hd_d  = next_entry(hd_q, 2'd1);
        cnt_d = cnt_q - 2'd1;
        r_valid_d = !h_store;
      end
    end

    // Tail: a new instruction.
    if (push) begin
      cnt_d                          = cnt_d + 2'd1;
      q_w_d[WarpW*tail +: WarpW]     = w_i;
      q_rd_d[5*tail +: 5]            = rd_i;
      q_f3_d[3*tail +: 3]            = f3_i;
      q_store_d[tail]                = store_i;
      q_mask_d[Threads*tail +: Threads] = mask_i;
      q_pend_d[Threads*tail +: Threads] = mask_i;
      q_one_d[tail]                     = in_conflict_free;
      for (int l = 0; l < Threads; l++) begin
        q_addr_d[AddrW*(Threads*32'(tail) + l) +: AddrW] = addr_i[32*l +: AddrW];
      end
      q_data_d[Threads*32*tail +: Threads*32] = wdata_i;
    end
  end

  // Control state is reset; the entries' and stages' data is not (read only behind cnt_q,
  // cap_mask_q and r_valid_q).
  always_ff @(posedge clk_i or negedge rst_ni) begin : p_regs
    if (!rst_ni) begin
      hd_q       <= '0;
      cnt_q      <= '0;
      cap_mask_q <= '0;
      cap_r_q    <= 1'b0;
      r_valid_q  <= 1'b0;
    end else begin
      hd_q       <= hd_d;
      cnt_q      <= cnt_d;
      cap_mask_q <= cap_mask_d;
      cap_r_q    <= cap_r_d;
      r_valid_q  <= r_valid_d;
    end
  end

  always_ff @(posedge clk_i) begin : p_data
    q_w_q      <= q_w_d;
    q_rd_q     <= q_rd_d;
    q_f3_q     <= q_f3_d;
    q_store_q  <= q_store_d;
    q_mask_q   <= q_mask_d;
    q_pend_q   <= q_pend_d;
    q_one_q    <= q_one_d;
    q_addr_q   <= q_addr_d;
    q_data_q   <= q_data_d;
    cap_bank_q <= cap_bank_d;
    cap_off_q  <= cap_off_d;
    cap_f3_q   <= cap_f3_d;
    r_w_q      <= r_w_d;
    r_rd_q     <= r_rd_d;
    r_mask_q   <= r_mask_d;
    r_data_q   <= r_data_d;
  end

  logic unused_addr;
  always_comb begin : p_unused
    unused_addr = 1'b0;
    for (int l = 0; l < Threads; l++) unused_addr = unused_addr ^ (^addr_i[32*l + AddrW +: (32 - AddrW)]);
  end

  // Write back: the captured lanes of earlier accesses and those of the last one.
  always_comb begin : p_wb
    wb_data_o = r_data_q;
    for (int l = 0; l < Threads; l++) begin
      if (cap_mask_q[l] && cap_r_q) wb_data_o[32*l +: 32] = cap_data[32*l +: 32];
    end
  end

  assign busy_o     = busy;
  assign slots_o    = 2'(QDepth) - cnt_q + {1'b0, h_last_known};
  assign done_o     = r_valid_q || (h_last && h_store);
  assign wb_valid_o = r_valid_q;
  assign wb_w_o     = r_w_q;
  assign wb_rd_o    = r_rd_q;
  assign wb_mask_o  = r_mask_q;

`ifndef SYNTHESIS
  // The core starts an instruction only when the queue has room.
  always @(posedge clk_i or negedge rst_ni) begin : p_check_room
    if (rst_ni && start_i) begin
      assert (cnt_q != 2'(QDepth) || h_last) else $error("%m: start with the queue full");
    end
    if (rst_ni && h_last_known) begin
      assert (h_last) else $error("%m: a conflict-free head did not finish in one access");
    end
  end
`endif

endmodule
