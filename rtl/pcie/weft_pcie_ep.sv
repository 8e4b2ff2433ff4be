// weft_pcie_ep: the PCIe-like endpoint (docs/host-interfaces.md section 1). A 128-bit TLP stream
// in each direction on one side; on the other, weft_top's AXI4-Lite register slave (driven as a
// master, one access at a time), weft_top's AXI4 host-memory master (served as a slave) and its
// interrupt.
//
//   rx_* ─▶ rx parser ─┬─ completions ─────────▶ weft_pcie_rd (tags, reassembly, R) ◀─ AR ─┐
//                      └─ BAR0 MRd/MWr, bad ones ─▶ BAR unit ─▶ axil_req_o (offsets 0x000-0xFFF)
//                                                   │  └─ link registers (0x1000-0x103C)
//   tx_* ◀─ spill register ◀─ TLP mux: BAR completion > MSI > MWr / MRd (alternating)
//              ▲ Cpl/CplD (BAR unit)  ▲ MSI MWr (irq_i rising edge)  ▲ weft_pcie_wr ◀─ AW/W/B
//                                                                     ▲ weft_pcie_rd MRd
//
// rx parser: a completion (Type 01010) goes beat by beat to weft_pcie_rd (always accepted). A
// request header is taken when the BAR unit is idle; a valid BAR0 access (MRd/MWr, Length 1,
// First BE != 0, Last BE 0, inside BAR0 at offset < 0x1040) is handed to the BAR unit once its
// data DW has arrived; any other request is answered UR by the BAR unit when non-posted (all but
// MWr and messages) and dropped when posted; both count in LINK_RX_BAD. Payload beats beyond what
// is needed are dropped until eop.
// TLP mux: chooses a source at a TLP's first beat and keeps it until that TLP's eop (and while a
// first beat it offered waits), so TLPs never interleave and an offered beat never changes; every TLP reaches tx_* in the order the mux took them (one FIFO order).
// weft_pcie_wr returns B only after its burst's last beat entered the mux, so an MSI caused by
// the device's last write can never overtake that write.
// The AXI4 slave's AR/AW, R and B are weft_axi_*_t structs and the AXI4-Lite master one
// weft_axil_req_t / weft_axil_rsp_t pair (rtl/common/weft_axi_types.svh; IDs IdW bits wide, the
// higher ones 0); weft_pcie_top converts weft_top's flat m_axi_* / s_axil_* to them.
`include "weft_assert.svh"
`include "weft_axi_types.svh"

module weft_pcie_ep #(
  parameter int          NumTags    = 32,
  parameter int          MaxPayload = 256,
  parameter int          MaxReadReq = 512,
  parameter logic [63:0] Bar0Base   = 64'h0000_0000_F000_0000,
  parameter int unsigned CplTimeout = 100000,
  parameter logic [15:0] EpId       = 16'h0100,
  parameter int          IdW        = 4,
  parameter int          MaxBurst   = 16
) (
  input  logic            clk_i,
  input  logic            rst_ni,
  // TLP stream, root complex -> endpoint
  input  logic            rx_valid,
  output logic            rx_ready,
  input  logic            rx_sop,
  input  logic            rx_eop,
  input  logic [127:0]    rx_data,
  // TLP stream, endpoint -> root complex
  output logic            tx_valid,
  input  logic            tx_ready,
  output logic            tx_sop,
  output logic            tx_eop,
  output logic [127:0]    tx_data,
  // AXI4-Lite master to the device registers
  output weft_axil_req_t  axil_req_o,
  input  weft_axil_rsp_t  axil_rsp_i,
  // AXI4 slave for the device's host-memory master (128-bit data, 64-bit addresses)
  input  logic            axi_aw_valid_i,
  output logic            axi_aw_ready_o,
  input  weft_axi_ax_t    axi_aw_i,
  input  logic            axi_w_valid_i,
  output logic            axi_w_ready_o,
  input  logic [127:0]    axi_w_data_i,
  input  logic [15:0]     axi_w_strb_i,
  input  logic            axi_w_last_i,
  output logic            axi_b_valid_o,
  input  logic            axi_b_ready_i,
  output weft_axi_b_t     axi_b_o,
  input  logic            axi_ar_valid_i,
  output logic            axi_ar_ready_o,
  input  weft_axi_ax_t    axi_ar_i,
  output logic            axi_r_valid_o,
  input  logic            axi_r_ready_i,
  output weft_axi_r_t     axi_r_o,
  output logic [127:0]    axi_r_data_o,
  // device interrupt (level)
  input  logic            irq_i
);

  localparam int CntW = $clog2(NumTags + 1);

  if (Bar0Base[12:0] != 13'd0) begin : g_bad_bar
    `WEFT_ELAB_ERROR("weft_pcie_ep: Bar0Base must be 8 KiB aligned")
  end

  // ---------------------------------------------------------------- link registers
  logic        msi_en_q, msi_en_d;
  logic [3:0]  err_code_q, err_code_d;
  logic [7:0]  err_tag_q, err_tag_d;
  logic [63:0] err_addr_q, err_addr_d;
  logic [31:0] cpl_to_q, cpl_to_d;
  logic [63:0] msi_addr_q, msi_addr_d;
  logic [31:0] msi_data_q, msi_data_d;
  logic [31:0] cnt_cpl_bad_q, cnt_rx_bad_q, cnt_mrd_q, cnt_mwr_q, cnt_msi_q;

  // ---------------------------------------------------------------- sub-blocks
  logic            wr_tx_valid, wr_tx_ready, wr_tx_sop, wr_tx_eop;
  logic [127:0]    wr_tx_data;
  logic            rd_tx_valid, rd_tx_ready;
  logic [127:0]    rd_tx_data;
  logic            cpl_valid;
  logic [CntW-1:0] tags_free;
  logic            rd_err_valid, rd_cpl_bad;
  logic [3:0]      rd_err_code;
  logic [IdW-1:0]  wr_bid;
  logic [7:0]      rd_err_tag;
  logic [63:0]     rd_err_addr;

  weft_pcie_wr #(
    .MaxPayload (MaxPayload),
    .MaxBurst   (MaxBurst),
    .IdW        (IdW),
    .EpId       (EpId)
  ) u_wr (
    .clk_i,
    .rst_ni,
    .awvalid_i  (axi_aw_valid_i),
    .awready_o  (axi_aw_ready_o),
    .awid_i     (axi_aw_i.id[IdW-1:0]),
    .awaddr_i   (axi_aw_i.addr),
    .awlen_i    (axi_aw_i.len),
    .wvalid_i   (axi_w_valid_i),
    .wready_o   (axi_w_ready_o),
    .wdata_i    (axi_w_data_i),
    .wstrb_i    (axi_w_strb_i),
    .wlast_i    (axi_w_last_i),
    .bvalid_o   (axi_b_valid_o),
    .bready_i   (axi_b_ready_i),
    .bid_o      (wr_bid),
    .tx_valid_o (wr_tx_valid),
    .tx_ready_i (wr_tx_ready),
    .tx_sop_o   (wr_tx_sop),
    .tx_eop_o   (wr_tx_eop),
    .tx_data_o  (wr_tx_data)
  );
  assign axi_b_o = {8'(wr_bid), 2'b00};

  weft_pcie_rd #(
    .NumTags    (NumTags),
    .MaxReadReq (MaxReadReq),
    .IdW        (IdW),
    .EpId       (EpId)
  ) u_rd (
    .clk_i,
    .rst_ni,
    .ar_valid_i    (axi_ar_valid_i),
    .ar_ready_o    (axi_ar_ready_o),
    .ar_i          (axi_ar_i),
    .r_valid_o     (axi_r_valid_o),
    .r_ready_i     (axi_r_ready_i),
    .r_o           (axi_r_o),
    .r_data_o      (axi_r_data_o),
    .tx_valid_o    (rd_tx_valid),
    .tx_ready_i    (rd_tx_ready),
    .tx_data_o     (rd_tx_data),
    .cpl_valid_i   (cpl_valid),
    .cpl_sop_i     (rx_sop),
    .cpl_eop_i     (rx_eop),
    .cpl_data_i    (rx_data),
    .cpl_timeout_i (cpl_to_q),
    .tags_free_o   (tags_free),
    .err_valid_o   (rd_err_valid),
    .err_code_o    (rd_err_code),
    .err_tag_o     (rd_err_tag),
    .err_addr_o    (rd_err_addr),
    .cpl_bad_o     (rd_cpl_bad)
  );

  // ---------------------------------------------------------------- rx parser
  typedef enum logic [1:0] {RxHdr = 2'd0, RxCpl = 2'd1, RxData = 2'd2, RxDrop = 2'd3} rx_e;
  rx_e rx_q, rx_d;

  logic [2:0]  h_fmt;
  logic [4:0]  h_type;
  logic [9:0]  h_len;
  logic [3:0]  h_fbe, h_lbe;
  logic [63:0] h_addr;
  logic [63:0] h_off;
  logic        h_cpl, h_mem, h_good, h_posted, h_data;

  assign h_fmt    = rx_data[31:29];
  assign h_type   = rx_data[28:24];
  assign h_len    = rx_data[9:0];
  assign h_lbe    = rx_data[39:36];
  assign h_fbe    = rx_data[35:32];
  assign h_addr   = h_fmt[0] ? {rx_data[95:64], rx_data[127:98], 2'b00}
                             : {32'b0, rx_data[95:66], 2'b00};
  assign h_off    = h_addr - Bar0Base;
  assign h_cpl    = (h_type == 5'b01010);
  assign h_data   = h_fmt[1];
  assign h_mem    = (h_type == 5'b00000) && !h_fmt[2];
  assign h_posted = (h_mem && h_data) || (h_type[4:3] == 2'b10);
  assign h_good   = h_mem && h_len == 10'd1 && h_fbe != 4'h0 && h_lbe == 4'h0 &&
                    h_addr >= Bar0Base && h_off < 64'h1040 && (h_data != rx_eop);

  // BAR unit request (filled by the rx parser, one at a time)
  typedef enum logic [3:0] {
    BIdle, BDispatch, BAxiW, BAxiB, BAxiAr, BAxiR, BCplHdr, BCplData
  } bar_e;
  bar_e        bar_q, bar_d;
  logic        q_rd_q, q_rd_d, q_ur_q, q_ur_d;
  logic [15:0] q_reqid_q, q_reqid_d;
  logic [7:0]  q_tag_q, q_tag_d;
  logic [12:0] q_off_q, q_off_d;
  logic [3:0]  q_be_q, q_be_d;
  logic [31:0] q_wdata_q, q_wdata_d;
  logic [11:0] q_bc_q, q_bc_d;
  logic [2:0]  q_status_q, q_status_d;
  logic [31:0] q_rdata_q, q_rdata_d;
  logic        rx_bad;
  logic        bar_go;        // the request registers are complete: start the BAR unit
  logic        aw_done_q, aw_done_d, w_done_q, w_done_d;

  assign rx_ready = (rx_q != RxHdr) || !rx_sop || h_cpl || (bar_q == BIdle);
  assign cpl_valid = rx_valid && ((rx_q == RxHdr && rx_sop && h_cpl) || rx_q == RxCpl);

  always_comb begin : p_rx
    rx_d       = rx_q;
    q_rd_d     = q_rd_q;
    q_ur_d     = q_ur_q;
    q_reqid_d  = q_reqid_q;
    q_tag_d    = q_tag_q;
    q_off_d    = q_off_q;
    q_be_d     = q_be_q;
    q_wdata_d  = q_wdata_q;
    q_bc_d     = q_bc_q;
    rx_bad     = 1'b0;
    bar_go     = 1'b0;
    if (rx_valid && rx_ready) begin
      unique case (rx_q)
        RxHdr: begin
          if (rx_sop) begin
            if (h_cpl) begin
              rx_d = rx_eop ? RxHdr : RxCpl;
            end else begin
              q_rd_d    = !h_data;
              q_ur_d    = !h_good;
              q_reqid_d = rx_data[63:48];
              q_tag_d   = rx_data[47:40];
              q_off_d   = h_off[12:0];
              q_be_d    = h_fbe;
              q_bc_d    = {h_len, 2'b00};
              rx_d      = rx_eop ? RxHdr : (h_good && h_data) ? RxData : RxDrop;
              if (!h_good) rx_bad = 1'b1;
              if (h_good ? !h_data : !h_posted) bar_go = 1'b1;
            end
          end
          // a beat without sop outside a TLP is dropped
        end
        RxCpl: if (rx_eop) rx_d = RxHdr;
        RxData: begin
          q_wdata_d = rx_data[31:0];
          bar_go    = 1'b1;
          rx_d      = rx_eop ? RxHdr : RxDrop;
        end
        default: if (rx_eop) rx_d = RxHdr;   // RxDrop
      endcase
    end
  end

  // ---------------------------------------------------------------- BAR unit
  logic        lk_sel;                    // the request is for the link registers
  logic [31:0] lk_rdata;
  logic        lk_wr;
  logic [31:0] lk_wmask;
  logic        bar_tx_valid, bar_tx_ready, bar_tx_sop, bar_tx_eop;
  logic [127:0] bar_tx_data;

  assign lk_sel   = q_off_q[12];
  assign lk_wmask = {{8{q_be_q[3]}}, {8{q_be_q[2]}}, {8{q_be_q[1]}}, {8{q_be_q[0]}}};

  always_comb begin : p_lk_read
    lk_rdata = '0;
    unique case (q_off_q[7:0])
      8'h00: lk_rdata = 32'h4B4E4C57;
      8'h04: lk_rdata = {16'b0, 4'($clog2(MaxReadReq)), 4'($clog2(MaxPayload)), 8'(NumTags)};
      8'h08: lk_rdata = {31'b0, msi_en_q};
      8'h0C: lk_rdata = 32'(tags_free);
      8'h10: lk_rdata = {16'b0, err_tag_q, 4'b0, err_code_q};
      8'h14: lk_rdata = err_addr_q[31:0];
      8'h18: lk_rdata = err_addr_q[63:32];
      8'h1C: lk_rdata = cpl_to_q;
      8'h20: lk_rdata = msi_addr_q[31:0];
      8'h24: lk_rdata = msi_addr_q[63:32];
      8'h28: lk_rdata = msi_data_q;
      8'h2C: lk_rdata = cnt_cpl_bad_q;
      8'h30: lk_rdata = cnt_rx_bad_q;
      8'h34: lk_rdata = cnt_mrd_q;
      8'h38: lk_rdata = cnt_mwr_q;
      8'h3C: lk_rdata = cnt_msi_q;
      default: lk_rdata = '0;
    endcase
  end

  always_comb begin : p_bar
    bar_d          = bar_q;
    q_status_d     = q_status_q;
    q_rdata_d      = q_rdata_q;
    lk_wr          = 1'b0;
    axil_req_o         = '0;  // valids and readies low; prot 000
    axil_req_o.aw_addr = {q_off_q[11:2], 2'b00};
    axil_req_o.ar_addr = {q_off_q[11:2], 2'b00};
    axil_req_o.w_data  = q_wdata_q;
    axil_req_o.w_strb  = q_be_q;
    unique case (bar_q)
      BIdle: if (bar_go) bar_d = BDispatch;
      BDispatch: begin
        q_status_d = 3'b000;
        if (q_ur_q) begin
          q_status_d = 3'b001;
          bar_d      = BCplHdr;
        end else if (lk_sel) begin
          q_rdata_d = lk_rdata;
          lk_wr     = !q_rd_q;
          bar_d     = q_rd_q ? BCplHdr : BIdle;
        end else begin
          bar_d = q_rd_q ? BAxiAr : BAxiW;
        end
      end
      BAxiW: begin
        // awvalid and wvalid together; both stay up until both were taken (tracked by aw_done_q)
        axil_req_o.aw_valid = !aw_done_q;
        axil_req_o.w_valid  = !w_done_q;
        if ((aw_done_q || axil_rsp_i.aw_ready) && (w_done_q || axil_rsp_i.w_ready)) bar_d = BAxiB;
      end
      BAxiB: begin
        axil_req_o.b_ready = 1'b1;
        if (axil_rsp_i.b_valid) bar_d = BIdle;
      end
      BAxiAr: begin
        axil_req_o.ar_valid = 1'b1;
        if (axil_rsp_i.ar_ready) bar_d = BAxiR;
      end
      BAxiR: begin
        axil_req_o.r_ready = 1'b1;
        if (axil_rsp_i.r_valid) begin
          q_rdata_d  = axil_rsp_i.r_data;
          q_status_d = (axil_rsp_i.r_resp == 2'b00) ? 3'b000 : 3'b100;
          bar_d      = BCplHdr;
        end
      end
      BCplHdr:  if (bar_tx_ready) bar_d = (q_status_q != 3'b000) ? BIdle : BCplData;
      BCplData: if (bar_tx_ready) bar_d = BIdle;
      default: bar_d = BIdle;
    endcase
  end

  always_comb begin : p_bar_tx
    bar_tx_valid = 1'b0;
    bar_tx_sop   = 1'b0;
    bar_tx_eop   = 1'b0;
    bar_tx_data  = '0;
    if (bar_q == BCplHdr) begin
      bar_tx_valid = 1'b1;
      bar_tx_sop   = 1'b1;
      bar_tx_eop   = (q_status_q != 3'b000);
      bar_tx_data[31:0]  = {(q_status_q == 3'b000) ? 3'b010 : 3'b000, 5'b01010, 14'b0,
                            (q_status_q == 3'b000) ? 10'd1 : 10'd0};
      bar_tx_data[63:32] = {EpId, q_status_q, 1'b0, (q_status_q == 3'b000) ? 12'd4 : q_bc_q};
      bar_tx_data[95:64] = {q_reqid_q, q_tag_q, 1'b0, q_off_q[6:0]};
    end else if (bar_q == BCplData) begin
      bar_tx_valid = 1'b1;
      bar_tx_eop   = 1'b1;
      bar_tx_data[31:0] = q_rdata_q;
    end
  end

  always_comb begin : p_axil_hs
    aw_done_d = aw_done_q;
    w_done_d  = w_done_q;
    if (bar_q == BAxiW) begin
      if (axil_req_o.aw_valid && axil_rsp_i.aw_ready) aw_done_d = 1'b1;
      if (axil_req_o.w_valid && axil_rsp_i.w_ready)   w_done_d  = 1'b1;
    end else begin
      aw_done_d = 1'b0;
      w_done_d  = 1'b0;
    end
  end


  // ---------------------------------------------------------------- MSI
  logic       irq_q;
  logic [3:0] msi_pend_q, msi_pend_d;
  logic       msi_tx_valid, msi_tx_ready, msi_tx_sop, msi_tx_eop;
  logic [127:0] msi_tx_data;
  logic       msi_beat_q, msi_beat_d;   // 0: header next, 1: data next
  logic       msi_4dw;

  assign msi_4dw      = (msi_addr_q[63:32] != 32'b0);
  assign msi_tx_valid = (msi_pend_q != 4'd0);
  assign msi_tx_sop   = !msi_beat_q;
  assign msi_tx_eop   = msi_beat_q;

  always_comb begin : p_msi
    msi_tx_data = '0;
    if (!msi_beat_q) begin
      msi_tx_data[31:0]  = {msi_4dw ? 3'b011 : 3'b010, 5'b00000, 14'b0, 10'd1};
      msi_tx_data[63:32] = {EpId, 8'h00, 4'h0, 4'hF};
      if (msi_4dw) msi_tx_data[127:64] = {msi_addr_q[31:2], 2'b00, msi_addr_q[63:32]};
      else         msi_tx_data[95:64]  = {msi_addr_q[31:2], 2'b00};
    end else begin
      msi_tx_data[31:0] = msi_data_q;
    end
  end

  always_comb begin : p_msi_next
    msi_beat_d = msi_beat_q;
    msi_pend_d = msi_pend_q;
    if (msi_tx_valid && msi_tx_ready) begin
      msi_beat_d = !msi_beat_q;
      if (msi_beat_q) msi_pend_d = msi_pend_q - 1'b1;
    end
    if (irq_i && !irq_q && msi_en_q && msi_pend_d != 4'hF) msi_pend_d = msi_pend_d + 1'b1;
  end

  // ---------------------------------------------------------------- TLP mux
  // sources: 0 BAR completion, 1 MSI, 2 MWr, 3 MRd
  logic [3:0]   src_valid, src_sop, src_eop, src_ready;
  logic [127:0] src_data [4];
  logic [1:0]   sel;
  logic         lock_q, lock_d;
  logic [1:0]   lock_src_q, lock_src_d;
  logic         rr_q, rr_d;          // 1: MRd before MWr next time
  logic         hold_q, hold_d;      // a first beat was offered and refused: keep its source
  logic [1:0]   hold_src_q, hold_src_d;
  logic         mux_valid, mux_ready;
  logic [129:0] mux_data;

  assign src_valid = {rd_tx_valid, wr_tx_valid, msi_tx_valid, bar_tx_valid};
  assign src_sop   = {1'b1, wr_tx_sop, msi_tx_sop, bar_tx_sop};
  assign src_eop   = {1'b1, wr_tx_eop, msi_tx_eop, bar_tx_eop};
  assign src_data[0] = bar_tx_data;
  assign src_data[1] = msi_tx_data;
  assign src_data[2] = wr_tx_data;
  assign src_data[3] = rd_tx_data;

  always_comb begin : p_mux
    if (lock_q)            sel = lock_src_q;
    else if (hold_q)       sel = hold_src_q;
    else if (src_valid[0]) sel = 2'd0;
    else if (src_valid[1]) sel = 2'd1;
    else if (src_valid[2] && src_valid[3]) sel = rr_q ? 2'd3 : 2'd2;
    else if (src_valid[2]) sel = 2'd2;
    else                   sel = 2'd3;
    mux_valid = src_valid[sel];
    mux_data  = {src_sop[sel], src_eop[sel], src_data[sel]};
    src_ready = '0;
    src_ready[sel] = mux_ready;
    lock_d     = lock_q;
    lock_src_d = lock_src_q;
    rr_d       = rr_q;
    hold_d     = mux_valid && !mux_ready;
    hold_src_d = sel;
    if (mux_valid && mux_ready) begin
      lock_d     = !src_eop[sel];
      lock_src_d = sel;
      if (src_eop[sel] && sel[1]) rr_d = (sel == 2'd2);
    end
  end

  assign bar_tx_ready = src_ready[0];
  assign msi_tx_ready = src_ready[1];
  assign wr_tx_ready  = src_ready[2];
  assign rd_tx_ready  = src_ready[3];

  logic [129:0] tx_out;
  weft_spill_register #(.Width(130)) u_tx_spill (
    .clk_i,
    .rst_ni,
    .in_valid_i  (mux_valid),
    .in_ready_o  (mux_ready),
    .in_data_i   (mux_data),
    .out_valid_o (tx_valid),
    .out_ready_i (tx_ready),
    .out_data_o  (tx_out)
  );
  assign {tx_sop, tx_eop, tx_data} = tx_out;

  // ---------------------------------------------------------------- link register updates
  logic [31:0] cpl_bad_d, rx_bad_d, mrd_d, mwr_d, msi_cnt_d;
  always_comb begin : p_lk
    msi_en_d   = msi_en_q;
    err_code_d = err_code_q;
    err_tag_d  = err_tag_q;
    err_addr_d = err_addr_q;
    cpl_to_d   = cpl_to_q;
    msi_addr_d = msi_addr_q;
    msi_data_d = msi_data_q;
    if (lk_wr) begin
      unique case (q_off_q[7:0])
        8'h08: msi_en_d = q_be_q[0] ? q_wdata_q[0] : msi_en_q;
        8'h10: begin
          err_code_d = 4'd0;
          err_tag_d  = 8'd0;
          err_addr_d = 64'd0;
        end
        8'h1C: cpl_to_d = (cpl_to_q & ~lk_wmask) | (q_wdata_q & lk_wmask);
        8'h20: msi_addr_d[31:0]  = (msi_addr_q[31:0] & ~lk_wmask) | (q_wdata_q & lk_wmask);
        8'h24: msi_addr_d[63:32] = (msi_addr_q[63:32] & ~lk_wmask) | (q_wdata_q & lk_wmask);
        8'h28: msi_data_d = (msi_data_q & ~lk_wmask) | (q_wdata_q & lk_wmask);
        default: ;
      endcase
    end
    if (rd_err_valid && err_code_d == 4'd0) begin
      err_code_d = rd_err_code;
      err_tag_d  = rd_err_tag;
      err_addr_d = rd_err_addr;
    end
    cpl_bad_d = cnt_cpl_bad_q + 32'(rd_cpl_bad);
    rx_bad_d  = cnt_rx_bad_q + 32'(rx_bad);
    mrd_d     = cnt_mrd_q + 32'(rd_tx_valid && rd_tx_ready);
    mwr_d     = cnt_mwr_q + 32'(wr_tx_valid && wr_tx_ready && wr_tx_sop) +
                32'(msi_tx_valid && msi_tx_ready && msi_tx_sop);
    msi_cnt_d = cnt_msi_q + 32'(msi_tx_valid && msi_tx_ready && msi_tx_sop);
  end

  always_ff @(posedge clk_i or negedge rst_ni) begin : p_regs
    if (!rst_ni) begin
      rx_q          <= RxHdr;
      bar_q         <= BIdle;
      q_rd_q        <= 1'b0;
      q_ur_q        <= 1'b0;
      q_reqid_q     <= '0;
      q_tag_q       <= '0;
      q_off_q       <= '0;
      q_be_q        <= '0;
      q_wdata_q     <= '0;
      q_bc_q        <= '0;
      q_status_q    <= '0;
      q_rdata_q     <= '0;
      aw_done_q     <= 1'b0;
      w_done_q      <= 1'b0;
      irq_q         <= 1'b0;
      msi_pend_q    <= '0;
      msi_beat_q    <= 1'b0;
      lock_q        <= 1'b0;
      lock_src_q    <= '0;
      rr_q          <= 1'b0;
      hold_q        <= 1'b0;
      hold_src_q    <= '0;
      msi_en_q      <= 1'b0;
      err_code_q    <= '0;
      err_tag_q     <= '0;
      err_addr_q    <= '0;
      cpl_to_q      <= 32'(CplTimeout);
      msi_addr_q    <= '0;
      msi_data_q    <= '0;
      cnt_cpl_bad_q <= '0;
      cnt_rx_bad_q  <= '0;
      cnt_mrd_q     <= '0;
      cnt_mwr_q     <= '0;
      cnt_msi_q     <= '0;
    end else begin
      rx_q          <= rx_d;
      bar_q         <= bar_d;
      q_rd_q        <= q_rd_d;
      q_ur_q        <= q_ur_d;
      q_reqid_q     <= q_reqid_d;
      q_tag_q       <= q_tag_d;
      q_off_q       <= q_off_d;
      q_be_q        <= q_be_d;
      q_wdata_q     <= q_wdata_d;
      q_bc_q        <= q_bc_d;
      q_status_q    <= q_status_d;
      q_rdata_q     <= q_rdata_d;
      aw_done_q     <= aw_done_d;
      w_done_q      <= w_done_d;
      irq_q         <= irq_i;
      msi_pend_q    <= msi_pend_d;
      msi_beat_q    <= msi_beat_d;
      lock_q        <= lock_d;
      lock_src_q    <= lock_src_d;
      rr_q          <= rr_d;
      hold_q        <= hold_d;
      hold_src_q    <= hold_src_d;
      msi_en_q      <= msi_en_d;
      err_code_q    <= err_code_d;
      err_tag_q     <= err_tag_d;
      err_addr_q    <= err_addr_d;
      cpl_to_q      <= cpl_to_d;
      msi_addr_q    <= msi_addr_d;
      msi_data_q    <= msi_data_d;
      cnt_cpl_bad_q <= cpl_bad_d;
      cnt_rx_bad_q  <= rx_bad_d;
      cnt_mrd_q     <= mrd_d;
      cnt_mwr_q     <= mwr_d;
      cnt_msi_q     <= msi_cnt_d;
    end
  end

  logic unused_bits;
  assign unused_bits = ^{axi_aw_i.id, axi_aw_i.size, axi_aw_i.burst, axi_aw_i.cache,
                         axi_aw_i.prot, axil_rsp_i.b_resp, h_off[63:13], q_off_q[11:8]};

endmodule
