// weft_pcie_rd: the read side of weft_pcie_ep (docs/host-interfaces.md 1.3): AXI4 read bursts of
// weft_top's DMA (AR/R, slave side) become MRd TLPs with tags; CplD data is reassembled per
// request and returned as R beats in AR-accept order.
//
//   AR ─▶ AR register ─▶ MRd (<= MaxReadReq bytes, tag from the pool, slot from the ring) ─▶ tx_*
//   cpl_* (completions from the rx parser) ─▶ check ReqID/tag/status/byte count/lower address
//        ─▶ data store: weft_sram_1r1w, NumTags slots x MaxReadReq bytes (slot = MRd order)
//   head slot ─▶ store read (1 cycle) ─▶ R FIFO (4) ─▶ R
//
// Tags and slots are separate: a tag (the PCIe tag, NumTags of them, picked round robin from the
// free ones so a tag freed by an error is reused as late as possible) is busy from its MRd until
// its last completion or its error; a slot (the same number, allocated in MRd order) holds the
// request's data until R has sent it. A beat goes out once the completion that brought it has
// ended where its Length says (completions of one request come in address order, so a per-slot
// count of received beats says which have) or its request has failed. Errors (completion
// timeout: no completion for LINK_CPL_TIMEOUT cycles since the MRd or the last completion; UR;
// CA; poisoned) free the tag at once and mark its slot: its beats, and the rest of its AXI
// burst, are answered SLVERR (DECERR for UR) with zero data.
// A completion that does not match what is outstanding is dropped and reported on cpl_bad_o;
// so is one whose eop is not where Length puts it: its beats are written to the store as they
// come, but a slot counts a completion's beats as received only at an eop in the right place, so
// none of them is sent, and its request is left to time out.
// Requests are 16-byte aligned whole beats, so every completion split at the 64-byte read
// completion boundary covers whole beats; one that does not is malformed.
// AR comes as one weft_axi_ax_t, R leaves as one weft_axi_r_t beside its data
// (rtl/common/weft_axi_types.svh); IDs are IdW bits wide (the higher ones 0).
`include "weft_assert.svh"
`include "weft_axi_types.svh"

module weft_pcie_rd #(
  parameter int          NumTags    = 32,
  parameter int          MaxReadReq = 512,     // bytes
  parameter int          IdW        = 4,
  parameter logic [15:0] EpId       = 16'h0100,
  localparam int         TagW       = (NumTags > 1) ? $clog2(NumTags) : 1,
  localparam int         CntW       = $clog2(NumTags + 1)
) (
  input  logic            clk_i,
  input  logic            rst_ni,
  // AXI4 read slave (128-bit data; size, burst, cache and prot are not looked at)
  input  logic            ar_valid_i,
  output logic            ar_ready_o,
  input  weft_axi_ax_t    ar_i,
  output logic            r_valid_o,
  input  logic            r_ready_i,
  output weft_axi_r_t     r_o,
  output logic [127:0]    r_data_o,
  // MRd TLP source (one beat each)
  output logic            tx_valid_o,
  input  logic            tx_ready_i,
  output logic [127:0]    tx_data_o,
  // completion TLPs from the rx parser (always accepted)
  input  logic            cpl_valid_i,
  input  logic            cpl_sop_i,
  input  logic            cpl_eop_i,
  input  logic [127:0]    cpl_data_i,
  // link registers
  input  logic [31:0]     cpl_timeout_i,
  output logic [CntW-1:0] tags_free_o,
  output logic            err_valid_o,     // a request failed (one cycle)
  output logic [3:0]      err_code_o,      // 1 timeout, 2 UR, 3 CA, 4 poisoned
  output logic [7:0]      err_tag_o,
  output logic [63:0]     err_addr_o,
  output logic            cpl_bad_o        // a malformed / unexpected completion (one cycle)
);

  if (IdW < 1 || IdW > 8) begin : g_bad_id
    `WEFT_ELAB_ERROR("weft_pcie_rd: IdW must be in 1..8")
  end
  if (NumTags < 2 || NumTags > 256 || (NumTags & (NumTags - 1)) != 0) begin : g_bad_tags
    `WEFT_ELAB_ERROR("weft_pcie_rd: NumTags must be a power of two in 2..256")
  end
  if (MaxReadReq < 16 || MaxReadReq > 4096 || (MaxReadReq & (MaxReadReq - 1)) != 0) begin : g_bad_mrr
    `WEFT_ELAB_ERROR("weft_pcie_rd: MaxReadReq must be a power of two in 16..4096")
  end

  localparam int Bps   = MaxReadReq / 16;             // beats per slot
  localparam int BpsW  = (Bps > 1) ? $clog2(Bps) : 1;
  localparam int BcntW = $clog2(Bps + 1);
  localparam int SAw   = TagW + BpsW;                 // store address
  localparam int ByteW = 13;                          // 0..4096 bytes

  localparam logic [1:0] RespOkay   = 2'b00;
  localparam logic [1:0] RespSlverr = 2'b10;
  localparam logic [1:0] RespDecerr = 2'b11;

  // ---------------------------------------------------------------- state
  // AR register
  logic             ar_valid_q, ar_valid_d;
  logic [63:0]      ar_addr_q, ar_addr_d;
  logic [ByteW-1:0] ar_rem_q, ar_rem_d;
  logic [IdW-1:0]   ar_id_q, ar_id_d;
  // tags
  logic [NumTags-1:0] busy_q, busy_d, broken_q, broken_d;
  logic [TagW-1:0]    tptr_q, tptr_d;
  logic [TagW-1:0]    t_slot_q [NumTags];
  logic [ByteW-1:0]   t_rem_q [NumTags];
  logic [ByteW-1:0]   t_len_q [NumTags];
  logic [63:0]        t_addr_q [NumTags];
  logic [31:0]        t_timer_q [NumTags];
  // slots (a ring in MRd order)
  logic [NumTags-1:0] s_valid_q, s_valid_d;
  logic [BcntW-1:0]   s_beats_q [NumTags];
  logic               s_last_q [NumTags];
  logic [IdW-1:0]     s_id_q [NumTags];
  logic [1:0]         s_err_q [NumTags];
  logic [BcntW-1:0]   s_rcv_q [NumTags];
  logic [TagW-1:0]    head_q, head_d, tail_q, tail_d;
  // R side
  logic             rd_issue;
  logic [127:0]     store_rdata;
  logic [BcntW-1:0] rb_q, rb_d;

  // ---------------------------------------------------------------- AR -> MRd
  logic             found;
  logic [TagW-1:0]  atag, pick;
  logic             hold_q;                  // the MRd was offered and refused: keep its tag
  logic [TagW-1:0]  hold_tag_q;
  logic [ByteW-1:0] chunk;
  logic             alloc;
  logic [TagW-1:0]  ti;

  assign ar_ready_o = !ar_valid_q;

  always_comb begin : p_tag_pick
    found = 1'b0;
    pick  = '0;
    for (int i = 0; i < NumTags; i++) begin
      ti = tptr_q + TagW'(i);
      if (!found && !busy_q[ti]) begin
        found = 1'b1;
        pick  = ti;
      end
    end
    atag = hold_q ? hold_tag_q : pick;   // a held tag is still free: only MRds take tags
  end

  assign chunk      = (ar_rem_q > ByteW'(MaxReadReq)) ? ByteW'(MaxReadReq) : ar_rem_q;
  assign tx_valid_o = ar_valid_q && found && !s_valid_q[tail_q];
  assign alloc      = tx_valid_o && tx_ready_i;

  always_comb begin : p_mrd
    tx_data_o = '0;
    tx_data_o[31:0]  = {(ar_addr_q[63:32] != 32'b0) ? 3'b001 : 3'b000, 5'b00000, 14'b0,
                        chunk[11:2]};
    tx_data_o[63:32] = {EpId, 8'(atag), 4'hF, 4'hF};
    if (ar_addr_q[63:32] != 32'b0) tx_data_o[127:64] = {ar_addr_q[31:2], 2'b00, ar_addr_q[63:32]};
    else                           tx_data_o[95:64]  = {ar_addr_q[31:2], 2'b00};
  end

  always_comb begin : p_ar
    ar_valid_d = ar_valid_q;
    ar_addr_d  = ar_addr_q;
    ar_rem_d   = ar_rem_q;
    ar_id_d    = ar_id_q;
    tptr_d     = tptr_q;
    if (ar_valid_i && ar_ready_o) begin
      ar_valid_d = 1'b1;
      ar_addr_d  = {ar_i.addr[63:4], 4'b0};
      ar_rem_d   = (ByteW'(ar_i.len) + 1'b1) << 4;
      ar_id_d    = ar_i.id[IdW-1:0];
    end
    if (alloc) begin
      ar_addr_d = ar_addr_q + 64'(chunk);
      ar_rem_d  = ar_rem_q - chunk;
      if (ar_rem_q == chunk) ar_valid_d = 1'b0;
      tptr_d = atag + 1'b1;
    end
  end

  // ---------------------------------------------------------------- completions
  // Header fields (valid on the sop beat).
  logic [2:0]       c_fmt;
  logic [4:0]       c_type;
  logic             c_ep;
  logic [ByteW-1:0] c_bytes, c_bc;
  logic [2:0]       c_status;
  logic [15:0]      c_reqid;
  logic [7:0]       c_tag8;
  logic [TagW-1:0]  c_tag;
  logic [6:0]       c_la;
  logic             c_match, c_hdr;
  logic [ByteW-1:0] c_rem, c_done;
  logic [6:0]       c_la_exp;

  assign c_fmt    = cpl_data_i[31:29];
  assign c_type   = cpl_data_i[28:24];
  assign c_ep     = cpl_data_i[14];
  assign c_bytes  = (cpl_data_i[9:0] == 10'd0) ? ByteW'(4096) : ByteW'({cpl_data_i[9:0], 2'b00});
  assign c_status = cpl_data_i[47:45];
  assign c_bc     = (cpl_data_i[43:32] == 12'd0) ? ByteW'(4096) : ByteW'(cpl_data_i[43:32]);
  assign c_reqid  = cpl_data_i[95:80];
  assign c_tag8   = cpl_data_i[79:72];
  assign c_tag    = c_tag8[TagW-1:0];
  assign c_la     = cpl_data_i[70:64];
  assign c_hdr    = cpl_valid_i && cpl_sop_i;
  assign c_match  = (c_reqid == EpId) && ({1'b0, c_tag8} < 9'(NumTags)) && busy_q[c_tag] &&
                    (c_type == 5'b01010);
  assign c_rem    = t_rem_q[c_tag];
  assign c_done   = t_len_q[c_tag] - c_rem;
  assign c_la_exp = t_addr_q[c_tag][6:0] + c_done[6:0];

  // payload state of the completion in progress
  logic             p_act_q, p_act_d;        // a payload beat belongs to a CplD being written
  logic             p_drop_q, p_drop_d;      // payload beats to ignore (until eop)
  logic             p_final_q, p_final_d;
  logic [TagW-1:0]  p_tag_q, p_tag_d, p_slot_q, p_slot_d;
  logic [BcntW-1:0] p_idx_q, p_idx_d, p_left_q, p_left_d;

  logic             wr_en;
  logic [SAw-1:0]   wr_addr;
  logic             ev_err, ev_free, ev_hdr_ok, bad;
  logic             p_commit;                // a CplD's payload ended where its Length says
  logic [3:0]       ev_code;
  logic [TagW-1:0]  ev_tag;
  logic             to_found;
  logic [TagW-1:0]  to_tag;

  // timed-out tag (lowest); handled in a cycle without a completion header
  always_comb begin : p_timeout
    to_found = 1'b0;
    to_tag   = '0;
    for (int i = 0; i < NumTags; i++) begin
      if (!to_found && busy_q[i] && t_timer_q[i] >= cpl_timeout_i &&
          !(p_act_q && p_tag_q == TagW'(i))) begin
        to_found = 1'b1;
        to_tag   = TagW'(i);
      end
    end
  end

  always_comb begin : p_cpl
    p_act_d   = p_act_q;
    p_drop_d  = p_drop_q;
    p_final_d = p_final_q;
    p_tag_d   = p_tag_q;
    p_slot_d  = p_slot_q;
    p_idx_d   = p_idx_q;
    p_left_d  = p_left_q;
    wr_en     = 1'b0;
    wr_addr   = {p_slot_q, p_idx_q[BpsW-1:0]};
    ev_err    = 1'b0;
    ev_free   = 1'b0;
    p_commit  = 1'b0;
    ev_hdr_ok = 1'b0;
    ev_code   = 4'd0;
    ev_tag    = c_tag;
    bad       = 1'b0;
    if (c_hdr) begin
      p_act_d  = 1'b0;
      p_drop_d = !cpl_eop_i;
      if (!c_match) begin
        bad = 1'b1;
      end else if (c_status == 3'b001 || c_status == 3'b100) begin
        ev_err  = 1'b1;
        ev_code = (c_status == 3'b001) ? 4'd2 : 4'd3;
      end else if (c_status != 3'b000 || !c_fmt[1]) begin
        bad = 1'b1;
      end else if (c_ep) begin
        ev_err  = 1'b1;
        ev_code = 4'd4;
      end else if (c_bc != c_rem || c_la != c_la_exp || c_bytes > c_rem || c_bytes[3:0] != 4'd0 ||
                   cpl_eop_i) begin
        bad = 1'b1;
      end else begin
        ev_hdr_ok = 1'b1;
        p_act_d   = 1'b1;
        p_drop_d  = 1'b0;
        p_final_d = (c_bytes == c_rem);
        p_tag_d   = c_tag;
        p_slot_d  = t_slot_q[c_tag];
        p_idx_d   = BcntW'(c_done >> 4);
        p_left_d  = BcntW'(c_bytes >> 4);
      end
    end else if (cpl_valid_i) begin
      if (p_act_q) begin
        if (p_left_q != '0) begin
          wr_en    = 1'b1;
          p_idx_d  = p_idx_q + 1'b1;
          p_left_d = p_left_q - 1'b1;
        end
        if (cpl_eop_i) begin
          p_act_d = 1'b0;
          if (p_left_q == BcntW'(1)) begin
            ev_free  = p_final_q;
            p_commit = 1'b1;
          end else begin
            bad = 1'b1;             // eop not where Length puts it
          end
        end
      end else if (cpl_eop_i) begin
        p_drop_d = 1'b0;
      end
    end
    if (!c_hdr && to_found) begin
      ev_err  = 1'b1;
      ev_code = 4'd1;
      ev_tag  = to_tag;
    end
  end

  // eop in the wrong place: the request is left to time out (its tag is "broken")
  logic p_short;
  assign p_short = cpl_valid_i && !cpl_sop_i && p_act_q && cpl_eop_i && p_left_q != BcntW'(1);

  logic [1:0] unused_store_ecc;  // no ECC on the completion store
  weft_sram_1r1w #(.Depth(NumTags * Bps), .Width(128)) u_store (
    .clk_i,
    .rd_en_i   (rd_issue),
    .rd_addr_i ({head_q, rb_q[BpsW-1:0]}),
    .rd_data_o (store_rdata),
    .rd_ecc_o  (unused_store_ecc),
    .wr_en_i   (wr_en),
    .wr_addr_i (wr_addr),
    .wr_data_i (cpl_data_i),
    .wr_be_i   ({16{1'b1}})
  );

  // ---------------------------------------------------------------- R
  logic             avail;
  logic [1:0]       beat_resp;
  logic             beat_last;
  logic             berr_q, berr_d;           // the current burst has failed
  logic [1:0]       bcode_q, bcode_d;
  logic             p1_q;                     // a store read is in flight
  logic [1:0]       p1_resp_q;
  logic             p1_last_q;
  logic [IdW-1:0]   p1_id_q;
  logic [2:0]       rf_usage;
  logic             rf_in_ready;
  logic [128+2+1+IdW-1:0] rf_in, rf_out;

  assign avail     = s_valid_q[head_q] && (s_err_q[head_q] != 2'b00 || s_rcv_q[head_q] > rb_q);
  assign rd_issue  = avail && (3'(rf_usage) + 3'(p1_q) < 3'd4);
  assign beat_resp = (s_err_q[head_q] != 2'b00) ? s_err_q[head_q] : (berr_q ? bcode_q : RespOkay);
  assign beat_last = s_last_q[head_q] && (rb_q == s_beats_q[head_q] - 1'b1);

  always_comb begin : p_r
    rb_d    = rb_q;
    head_d  = head_q;
    berr_d  = berr_q;
    bcode_d = bcode_q;
    if (rd_issue) begin
      rb_d = rb_q + 1'b1;
      if (rb_q == s_beats_q[head_q] - 1'b1) begin
        rb_d   = '0;
        head_d = head_q + 1'b1;
      end
      if (beat_resp != RespOkay && !berr_q) begin
        berr_d  = 1'b1;
        bcode_d = beat_resp;
      end
      if (beat_last) berr_d = 1'b0;
    end
  end

  assign rf_in = {(p1_resp_q == RespOkay) ? store_rdata : 128'b0, p1_resp_q, p1_last_q, p1_id_q};

  weft_fifo #(.Width(128 + 2 + 1 + IdW), .Depth(4)) u_rfifo (
    .clk_i,
    .rst_ni,
    .flush_i     (1'b0),
    .in_valid_i  (p1_q),
    .in_ready_o  (rf_in_ready),
    .in_data_i   (rf_in),
    .out_valid_o (r_valid_o),
    .out_ready_i (r_ready_i),
    .out_data_o  (rf_out),
    .usage_o     (rf_usage)
  );
  logic [IdW-1:0] rf_id;
  assign {r_data_o, r_o.resp, r_o.last, rf_id} = rf_out;
  assign r_o.id = 8'(rf_id);

  // ---------------------------------------------------------------- tag / slot bookkeeping
  always_comb begin : p_book
    busy_d    = busy_q;
    broken_d  = broken_q;
    s_valid_d = s_valid_q;
    tail_d    = tail_q;
    if (alloc) begin
      busy_d[atag]      = 1'b1;
      broken_d[atag]    = 1'b0;
      s_valid_d[tail_q] = 1'b1;
      tail_d            = tail_q + 1'b1;
    end
    if (ev_free && !broken_q[p_tag_q]) busy_d[p_tag_q] = 1'b0;
    if (p_short) broken_d[p_tag_q] = 1'b1;
    if (ev_err) busy_d[ev_tag] = 1'b0;
    if (rd_issue && rb_q == s_beats_q[head_q] - 1'b1) s_valid_d[head_q] = 1'b0;
  end

  always_ff @(posedge clk_i) begin : p_tables
    for (int i = 0; i < NumTags; i++) begin
      t_timer_q[i] <= (t_timer_q[i] == 32'hFFFF_FFFF) ? t_timer_q[i] : t_timer_q[i] + 1'b1;
    end
    if (ev_hdr_ok) begin
      t_rem_q[c_tag]   <= c_rem - c_bytes;
      t_timer_q[c_tag] <= '0;
    end
    if (alloc) begin
      t_slot_q[atag]    <= tail_q;
      t_rem_q[atag]     <= chunk;
      t_len_q[atag]     <= chunk;
      t_addr_q[atag]    <= ar_addr_q;
      t_timer_q[atag]   <= '0;
      s_beats_q[tail_q] <= BcntW'(chunk >> 4);
      s_last_q[tail_q]  <= (ar_rem_q == chunk);
      s_id_q[tail_q]    <= ar_id_q;
      s_err_q[tail_q]   <= RespOkay;
      s_rcv_q[tail_q]   <= '0;
    end
    // Completions of a request come in address order: at a well-formed eop the slot has received
    // every beat up to this one (p_idx_q, the slot index of the beat being written).
    if (p_commit) s_rcv_q[p_slot_q] <= p_idx_q + 1'b1;
    if (ev_err) s_err_q[t_slot_q[ev_tag]] <= (ev_code == 4'd2) ? RespDecerr : RespSlverr;
  end

  always_ff @(posedge clk_i or negedge rst_ni) begin : p_regs
    if (!rst_ni) begin
      ar_valid_q <= 1'b0;
      ar_addr_q  <= '0;
      ar_rem_q   <= '0;
      ar_id_q    <= '0;
      busy_q     <= '0;
      broken_q   <= '0;
      tptr_q     <= '0;
      s_valid_q  <= '0;
      head_q     <= '0;
      tail_q     <= '0;
      p_act_q    <= 1'b0;
      p_drop_q   <= 1'b0;
      p_final_q  <= 1'b0;
      p_tag_q    <= '0;
      p_slot_q   <= '0;
      p_idx_q    <= '0;
      p_left_q   <= '0;
      rb_q       <= '0;
      berr_q     <= 1'b0;
      bcode_q    <= RespOkay;
      hold_q     <= 1'b0;
      hold_tag_q <= '0;
      p1_q       <= 1'b0;
      p1_resp_q  <= RespOkay;
      p1_last_q  <= 1'b0;
      p1_id_q    <= '0;
    end else begin
      ar_valid_q <= ar_valid_d;
      ar_addr_q  <= ar_addr_d;
      ar_rem_q   <= ar_rem_d;
      ar_id_q    <= ar_id_d;
      busy_q     <= busy_d;
      broken_q   <= broken_d;
      tptr_q     <= tptr_d;
      s_valid_q  <= s_valid_d;
      head_q     <= head_d;
      tail_q     <= tail_d;
      p_act_q    <= p_act_d;
      p_drop_q   <= p_drop_d;
      p_final_q  <= p_final_d;
      p_tag_q    <= p_tag_d;
      p_slot_q   <= p_slot_d;
      p_idx_q    <= p_idx_d;
      p_left_q   <= p_left_d;
      rb_q       <= rb_d;
      berr_q     <= berr_d;
      bcode_q    <= bcode_d;
      hold_q     <= tx_valid_o && !tx_ready_i;
      hold_tag_q <= atag;
      p1_q       <= rd_issue;
      p1_resp_q  <= beat_resp;
      p1_last_q  <= beat_last;
      p1_id_q    <= s_id_q[head_q];
    end
  end

  // ---------------------------------------------------------------- status
  always_comb begin : p_free
    tags_free_o = '0;
    for (int i = 0; i < NumTags; i++) tags_free_o = tags_free_o + CntW'(!busy_q[i]);
  end
  assign err_valid_o = ev_err;
  assign err_code_o  = ev_code;
  assign err_tag_o   = 8'(ev_tag);
  assign err_addr_o  = t_addr_q[ev_tag];
  assign cpl_bad_o   = bad;

  logic unused_bits;
  assign unused_bits = ^{ar_i.addr[3:0], ar_i.id, ar_i.size, ar_i.burst, ar_i.cache, ar_i.prot,
                         c_fmt[2], c_fmt[0], rf_in_ready, p_drop_q, c_done[ByteW-1:7]};

`ifndef SYNTHESIS
  // The R FIFO never overflows (store reads are issued only with room for them).
  always @(posedge clk_i or negedge rst_ni) begin : p_rf_check
    if (rst_ni) begin
      if (p1_q) assert (rf_in_ready) else $error("%m: R FIFO overflow");
    end
  end
`endif

endmodule
