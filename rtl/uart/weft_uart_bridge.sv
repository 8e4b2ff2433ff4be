// weft_uart_bridge: the UART bridge of docs/host-interfaces.md section 2. It receives
// HDLC-framed requests on uart_rx_i, checks them, executes READ / WRITE on the device's CSRs
// (AXI4-Lite master m_axil_*), on its own registers (BR_*) or on the board memory (32-bit word
// port mem_*), and sends one framed response per request on uart_tx_o.
//
//   weft_uart_rx -> unescape, CRC, header / data buffer -> decode -> execute -> response
//                   (one request at a time)                          (escape, CRC) -> weft_uart_tx
//
// Receive: every byte between two flags (0x7E) is unescaped (0x7D 0x5E -> 0x7E, 0x7D 0x5D -> 0x7D,
// any other escape is an error), run through the CRC and stored: bytes 0..7 (cmd, seq, addr,
// len) in the header, the data bytes little-endian into a 64 x 32-bit buffer (weft_sram_1rw).
// At the closing flag the frame is dropped and counted in BR_FRAME_ERR if it had a byte with a
// UART framing error, a bad escape or a byte that arrived while the bridge was busy, in BR_CRC_ERR
// if the CRC over body and CRC is not 0, and in BR_FRAME_ERR if its length is not
// 10 + (WRITE ? len : 0). Empty frames are ignored.
//
// Decode (first match): cmd not READ/WRITE -> BADCMD; a WRITE with the seq of the last executed
// WRITE -> its stored status again, not executed (BR_DUPS); len not in 4..256 or not a multiple
// of 4, or addr not a multiple of 4 -> BADLEN; CSR window with len != 4 -> BADLEN; the access not
// wholly inside one region -> DECERR. Every other request is executed (BR_FRAMES) and its status
// remembered with its seq and cmd. Bridge registers are read only (writes are answered OK and
// ignored); offsets 0x20..0xFC read 0. CSR responses: OKAY/EXOKAY -> OK, SLVERR, DECERR.
// Reads fill the buffer first, then the response is sent from it.
//
// Status poll: every 2^StatusPollLog2 cycles while no request uses the CSR port, the bridge reads
// the device's STATUS register (StatusAddr) and shows !idle and error on dev_busy_o / dev_error_o
// (board LEDs). StatusPollLog2 = 0 turns the poll off.
// Received bytes (and UART framing errors, as marks) go through a 512-entry FIFO (block RAM), so
// a request that arrives while the previous one is executed or answered waits there: frames may
// follow each other without gaps. Should the FIFO fill up, a mark takes the last entry and the
// frame it falls in is dropped (BR_FRAME_ERR).
`include "weft_assert.svh"
`include "weft_axi_types.svh"

module weft_uart_bridge #(
  parameter int          ClksPerBit     = 50,
  parameter int          ClkHz          = 50_000_000,
  parameter int          HostMemBytes   = 65536,  // a power of two, 256 .. 2^31
  parameter int          StatusPollLog2 = 16,
  parameter logic [11:0] StatusAddr     = 12'h024,
  localparam int         MemAw          = $clog2(HostMemBytes)
) (
  input  logic             clk_i,
  input  logic             rst_ni,
  // serial line
  input  logic             uart_rx_i,
  output logic             uart_tx_o,
  // AXI4-Lite master (device CSRs)
  output weft_axil_req_t   axil_req_o,
  input  weft_axil_rsp_t   axil_rsp_i,
  // board memory word port: a request is held until mem_gnt_i; read data comes with
  // mem_rvalid_i some cycles later (one read outstanding). Address: 32-bit word in the memory.
  output logic             mem_req_o,
  output logic             mem_we_o,
  output logic [MemAw-3:0] mem_addr_o,
  output logic [31:0]      mem_wdata_o,
  input  logic             mem_gnt_i,
  input  logic             mem_rvalid_i,
  input  logic [31:0]      mem_rdata_i,
  // status
  output logic             dev_busy_o,
  output logic             dev_error_o,
  output logic             rx_active_o,
  output logic             tx_active_o,
  output logic             bad_frame_o    // sticky: a frame was dropped since reset
);

  // The register bus under its AXI4-Lite names; axil_req_o / axil_rsp_i carry them (the struct's
  // field order: rtl/common/weft_axi_types.svh).
  logic        m_axil_awvalid, m_axil_awready, m_axil_wvalid, m_axil_wready;
  logic        m_axil_bvalid, m_axil_bready, m_axil_arvalid, m_axil_arready;
  logic        m_axil_rvalid, m_axil_rready;
  logic [11:0] m_axil_awaddr, m_axil_araddr;
  logic [2:0]  m_axil_awprot, m_axil_arprot;
  logic [31:0] m_axil_wdata, m_axil_rdata;
  logic [3:0]  m_axil_wstrb;
  logic [1:0]  m_axil_bresp, m_axil_rresp;
  assign axil_req_o = {m_axil_awvalid, m_axil_awaddr, m_axil_awprot, m_axil_wvalid, m_axil_wdata,
                       m_axil_wstrb, m_axil_bready, m_axil_arvalid, m_axil_araddr, m_axil_arprot,
                       m_axil_rready};
  assign {m_axil_awready, m_axil_wready, m_axil_bvalid, m_axil_bresp, m_axil_arready,
          m_axil_rvalid, m_axil_rdata, m_axil_rresp} = axil_rsp_i;

  if (HostMemBytes < 256 || (1 << MemAw) != HostMemBytes || MemAw > 31) begin : g_bad_mem
    `WEFT_ELAB_ERROR("weft_uart_bridge: HostMemBytes must be a power of two in 256 .. 2^31")
  end
  if (StatusPollLog2 < 0 || StatusPollLog2 > 30) begin : g_bad_poll
    `WEFT_ELAB_ERROR("weft_uart_bridge: StatusPollLog2 must be in 0..30")
  end

  localparam logic [7:0]  Flag = 8'h7e;
  localparam logic [7:0]  Esc  = 8'h7d;
  localparam logic [7:0]  CmdRead  = 8'h01;
  localparam logic [7:0]  CmdWrite = 8'h02;
  localparam logic [7:0]  StOk = 8'h00, StSlvErr = 8'h01, StDecErr = 8'h02, StBadLen = 8'h03,
                          StBadCmd = 8'h04;
  localparam logic [31:0] BrId = 32'h5242_5557;
  localparam logic [31:0] MemBase = 32'h8000_0000;

  // ---------------------------------------------------------------- UART
  logic       rx_valid, rx_ferr;
  logic [7:0] rx_data;
  logic       tx_valid, tx_ready;
  logic [7:0] tx_data;

  weft_uart_rx #(.ClksPerBit(ClksPerBit)) u_rx (
    .clk_i, .rst_ni, .rx_i(uart_rx_i), .valid_o(rx_valid), .data_o(rx_data),
    .frame_err_o(rx_ferr), .active_o(rx_active_o));

  weft_uart_tx #(.ClksPerBit(ClksPerBit)) u_tx (
    .clk_i, .rst_ni, .valid_i(tx_valid), .ready_o(tx_ready), .data_i(tx_data),
    .tx_o(uart_tx_o), .active_o(tx_active_o));

  // ---------------------------------------------------------------- receive FIFO
  // Entries {7'b0, mark, byte}: mark = a framing error or an overflow at this point of the stream.
  localparam int FifoDepth = 512;
  logic [9:0]  fw_q, fw_d, fr_q, fr_d;     // write / read pointers (one extra bit)
  logic        fpend_q, fpend_d;           // a popped entry is on fifo_rdata this cycle
  logic        fifo_we, fifo_re;
  logic [15:0] fifo_wdata, fifo_rdata;
  wire  [9:0]  fifo_used = fw_q - fr_q;

  always_comb begin
    fifo_we    = 1'b0;
    fifo_wdata = {8'h00, rx_data};
    if (rx_valid || rx_ferr) begin
      if (fifo_used == 10'(FifoDepth - 1)) begin
        fifo_we    = 1'b1;
        fifo_wdata = 16'h0100;             // last entry: a mark
      end else if (fifo_used < 10'(FifoDepth - 1)) begin
        fifo_we    = 1'b1;
        fifo_wdata = {7'h00, rx_ferr, rx_data};
      end
    end
  end

  logic [1:0] unused_rxq_ecc, unused_buf_ecc;  // no ECC on the bridge's buffers
  weft_sram_1r1w #(.Depth(FifoDepth), .Width(16)) u_rxq (
    .clk_i, .rd_en_i(fifo_re), .rd_addr_i(fr_q[8:0]), .rd_data_o(fifo_rdata),
    .rd_ecc_o(unused_rxq_ecc),
    .wr_en_i(fifo_we), .wr_addr_i(fw_q[8:0]), .wr_data_i(fifo_wdata), .wr_be_i(2'b11));

  wire       rb_valid = fpend_q;
  wire       rb_mark  = fifo_rdata[8];
  wire [7:0] rb_data  = fifo_rdata[7:0];
  logic      unused_fifo_bits;
  assign unused_fifo_bits = ^fifo_rdata[15:9];

  // ---------------------------------------------------------------- data buffer
  logic        buf_req, buf_we;
  logic [5:0]  buf_addr;
  logic [31:0] buf_wdata, buf_rdata;

  weft_sram_1rw #(.Depth(64), .Width(32)) u_buf (
    .clk_i, .req_i(buf_req), .we_i(buf_we), .addr_i(buf_addr), .wdata_i(buf_wdata),
    .be_i(4'hf), .rdata_o(buf_rdata), .rdata_ecc_o(unused_buf_ecc));

  // ---------------------------------------------------------------- state
  typedef enum logic [3:0] {
    Recv, Decode, CsrWait, CsrAr, CsrR, CsrBuf, CsrW, CsrB, BrRead, MemBufRd, MemWr, MemRd,
    MemRw, RespFlag0, RespByte, RespFlag1
  } state_e;
  typedef enum logic [1:0] {PIdle, PAr, PR} poll_e;

  state_e      state_q, state_d;
  // receive
  logic [16:0] n_q, n_d;          // body bytes of the frame so far (saturating)
  logic [15:0] rcrc_q, rcrc_d;
  logic        esc_q, esc_d, bad_q, bad_d;
  logic [63:0] hdr_q, hdr_d;
  logic [23:0] acc_q, acc_d;
  // request
  logic [7:0]  status_q, status_d;
  logic        dup_q, dup_d;
  logic [6:0]  idx_q, idx_d;      // word being executed
  logic        awdone_q, awdone_d, wdone_q, wdone_d;
  logic        fetch_q, fetch_d;  // response: the current data word must be read first
  // last executed request
  logic        last_valid_q, last_valid_d;
  logic [7:0]  last_seq_q, last_seq_d, last_cmd_q, last_cmd_d, last_status_q, last_status_d;
  // response
  logic [8:0]  k_q, k_d;          // body byte
  logic [15:0] tcrc_q, tcrc_d;
  logic        half_q, half_d;    // the escape byte of body byte k has been sent
  // counters
  logic [31:0] cnt_frames_q, cnt_frames_d, cnt_crc_q, cnt_crc_d, cnt_ferr_q, cnt_ferr_d,
               cnt_dups_q, cnt_dups_d;
  logic        badseen_q, badseen_d;
  // status poll
  poll_e       poll_q, poll_d;
  logic        busy_led_q, busy_led_d, err_led_q, err_led_d;
  logic        poll_due;

  wire [7:0]  h_cmd  = hdr_q[7:0];
  wire [7:0]  h_seq  = hdr_q[15:8];
  wire [31:0] h_addr = hdr_q[47:16];
  wire [15:0] h_len  = hdr_q[63:48];
  wire        h_rd   = (h_cmd == CmdRead);
  wire        h_wr   = (h_cmd == CmdWrite);
  wire [6:0]  nwords = h_len[8:2];   // 1..64 once decoded

  // ---------------------------------------------------------------- CRC steps
  logic [7:0]  rbyte;             // unescaped received byte
  logic [15:0] rcrc_next, tcrc_next;
  logic [7:0]  tbyte;             // response body byte k

  weft_uart_crc16 u_rcrc (.crc_i(rcrc_q), .data_i(rbyte), .crc_o(rcrc_next));
  weft_uart_crc16 u_tcrc (.crc_i(tcrc_q), .data_i(tbyte), .crc_o(tcrc_next));

  // ---------------------------------------------------------------- response bytes
  wire [8:0] dlen    = (h_rd && status_q == StOk && !dup_q) ? {h_len[8:2], 2'b00} : 9'd0;
  wire [8:0] k_dat   = k_q - 9'd3;
  wire       k_data  = (k_q >= 9'd3) && (k_q < 9'd3 + dlen);
  always_comb begin
    if (k_q == 9'd0)                    tbyte = status_q;
    else if (k_q == 9'd1)               tbyte = h_seq;
    else if (k_q == 9'd2)               tbyte = h_cmd;
    else if (k_data)                    tbyte = buf_rdata[8*k_dat[1:0] +: 8];
    else if (k_q == 9'd3 + dlen)        tbyte = tcrc_q[15:8];
    else                                tbyte = tcrc_q[7:0];
  end
  wire tbyte_special = (tbyte == Flag) || (tbyte == Esc);

  // ---------------------------------------------------------------- decode
  wire [7:0]  br_off   = h_addr[7:0];
  wire [8:0]  br_end   = {1'b0, br_off} + {h_len[8:2], 2'b00};
  wire [MemAw:0] mem_end = {1'b0, h_addr[MemAw-1:0]} + (MemAw+1)'({h_len[8:2], 2'b00});
  wire        in_csr   = (h_addr[31:12] == 20'h0);
  wire        in_br    = (h_addr[31:8] == 24'h10) && (br_end <= 9'd256);
  wire        in_mem   = h_addr[31] && (h_addr[30:0] >> MemAw) == 31'd0 &&
                         (mem_end <= (MemAw+1)'(HostMemBytes));
  wire        len_bad  = (h_len < 16'd4) || (h_len > 16'd256) || (h_len[1:0] != 2'b00) ||
                         (h_addr[1:0] != 2'b00);

  function automatic logic [7:0] axi_status(input logic [1:0] resp);
    axi_status = (resp == 2'b10) ? StSlvErr : (resp == 2'b11) ? StDecErr : StOk;
  endfunction

  // bridge register of the word idx_q
  logic [31:0] br_value;
  wire  [5:0]  br_word = br_off[7:2] + idx_q[5:0];
  always_comb begin
    unique case (br_word)
      6'd0:    br_value = BrId;
      6'd1:    br_value = MemBase;
      6'd2:    br_value = 32'(HostMemBytes);
      6'd3:    br_value = 32'(ClkHz);
      6'd4:    br_value = cnt_frames_q;
      6'd5:    br_value = cnt_crc_q;
      6'd6:    br_value = cnt_ferr_q;
      6'd7:    br_value = cnt_dups_q;
      default: br_value = 32'h0;
    endcase
  end

  // ---------------------------------------------------------------- main FSM
  wire in_csr_state = (state_q == CsrWait) || (state_q == CsrAr) || (state_q == CsrR) ||
                      (state_q == CsrBuf) || (state_q == CsrW) || (state_q == CsrB);

  logic        ex_arvalid, ex_rready, poll_arvalid, poll_rready;

  always_comb begin
    state_d       = state_q;
    n_d           = n_q;
    rcrc_d        = rcrc_q;
    esc_d         = esc_q;
    bad_d         = bad_q;
    hdr_d         = hdr_q;
    acc_d         = acc_q;
    status_d      = status_q;
    dup_d         = dup_q;
    idx_d         = idx_q;
    awdone_d      = awdone_q;
    wdone_d       = wdone_q;
    fetch_d       = fetch_q;
    last_valid_d  = last_valid_q;
    last_seq_d    = last_seq_q;
    last_cmd_d    = last_cmd_q;
    last_status_d = last_status_q;
    k_d           = k_q;
    tcrc_d        = tcrc_q;
    half_d        = half_q;
    cnt_frames_d  = cnt_frames_q;
    cnt_crc_d     = cnt_crc_q;
    cnt_ferr_d    = cnt_ferr_q;
    cnt_dups_d    = cnt_dups_q;
    badseen_d     = badseen_q;

    buf_req       = 1'b0;
    buf_we        = 1'b0;
    buf_addr      = idx_q[5:0];
    buf_wdata     = 32'h0;
    tx_valid      = 1'b0;
    tx_data       = 8'h00;
    mem_req_o     = 1'b0;
    mem_we_o      = 1'b0;
    mem_wdata_o   = buf_rdata;
    ex_arvalid    = 1'b0;
    ex_rready     = 1'b0;
    m_axil_awvalid = 1'b0;
    m_axil_wvalid  = 1'b0;
    m_axil_bready  = 1'b0;

    // ---- receive path: one FIFO entry every other cycle while waiting for a request
    fifo_re = (state_q == Recv) && !fpend_q && (fifo_used != '0);
    fpend_d = fifo_re;
    fw_d    = fifo_we ? fw_q + 10'd1 : fw_q;
    fr_d    = fifo_re ? fr_q + 10'd1 : fr_q;
    rbyte   = rb_data;
    if (rb_valid && rb_mark) begin
      bad_d = 1'b1;
    end else if (rb_valid) begin
      if (rb_data == Flag) begin
        if (n_q == '0 && !bad_q && !esc_q) begin
          // empty frame
        end else if (bad_q || esc_q) begin
          cnt_ferr_d = cnt_ferr_q + 32'd1;
          badseen_d  = 1'b1;
        end else if (rcrc_q != 16'h0) begin
          cnt_crc_d = cnt_crc_q + 32'd1;
          badseen_d = 1'b1;
        end else if (n_q < 17'd10 ||
                     n_q != 17'd10 + (h_wr ? {1'b0, h_len} : 17'd0)) begin
          cnt_ferr_d = cnt_ferr_q + 32'd1;
          badseen_d  = 1'b1;
        end else begin
          state_d = Decode;
        end
        n_d    = '0;
        rcrc_d = 16'hffff;
        esc_d  = 1'b0;
        bad_d  = 1'b0;
      end else if (rb_data == Esc) begin
        if (esc_q) bad_d = 1'b1;
        esc_d = !esc_q;
      end else begin
        if (esc_q) begin
          if (rb_data != 8'h5e && rb_data != 8'h5d) bad_d = 1'b1;
          rbyte = rb_data ^ 8'h20;
        end
        esc_d  = 1'b0;
        rcrc_d = rcrc_next;
        if (n_q != '1) n_d = n_q + 17'd1;
        if (n_q < 17'd8) begin
          hdr_d[8*n_q[2:0] +: 8] = rbyte;
        end else begin
          acc_d = {rbyte, acc_q[23:8]};
          if (n_q[1:0] == 2'b11 && (n_q - 17'd8) < 17'd256) begin
            buf_req   = 1'b1;
            buf_we    = 1'b1;
            buf_addr  = 6'((n_q - 17'd8) >> 2);
            buf_wdata = {rbyte, acc_q};
          end
        end
      end
    end

    // ---- request
    unique case (state_q)
      Recv: ;
      Decode: begin
        idx_d    = '0;
        dup_d    = 1'b0;
        awdone_d = 1'b0;
        wdone_d  = 1'b0;
        status_d = StOk;
        if (!h_rd && !h_wr) begin
          status_d = StBadCmd;
          state_d  = RespFlag0;
        end else if (h_wr && last_valid_q && last_cmd_q == CmdWrite && last_seq_q == h_seq) begin
          dup_d      = 1'b1;
          status_d   = last_status_q;
          cnt_dups_d = cnt_dups_q + 32'd1;
          state_d    = RespFlag0;
        end else if (len_bad || (in_csr && h_len != 16'd4)) begin
          status_d = StBadLen;
          state_d  = RespFlag0;
        end else if (in_csr) begin
          state_d = CsrWait;
        end else if (in_br) begin
          state_d = h_rd ? BrRead : RespFlag0;
        end else if (in_mem) begin
          state_d = h_rd ? MemRd : MemBufRd;
        end else begin
          status_d = StDecErr;
          state_d  = RespFlag0;
        end
      end
      CsrWait: begin
        if (poll_q == PIdle) state_d = h_rd ? CsrAr : CsrBuf;
      end
      CsrAr: begin
        ex_arvalid = 1'b1;
        if (m_axil_arready) state_d = CsrR;
      end
      CsrR: begin
        ex_rready = 1'b1;
        if (m_axil_rvalid) begin
          status_d  = axi_status(m_axil_rresp);
          buf_req   = 1'b1;
          buf_we    = 1'b1;
          buf_addr  = 6'd0;
          buf_wdata = m_axil_rdata;
          state_d   = RespFlag0;
        end
      end
      CsrBuf: begin
        buf_req  = 1'b1;
        buf_addr = 6'd0;
        state_d  = CsrW;
      end
      CsrW: begin
        m_axil_awvalid = !awdone_q;
        m_axil_wvalid  = !wdone_q;
        if (m_axil_awready) awdone_d = 1'b1;
        if (m_axil_wready) wdone_d = 1'b1;
        if ((awdone_q || m_axil_awready) && (wdone_q || m_axil_wready)) state_d = CsrB;
      end
      CsrB: begin
        m_axil_bready = 1'b1;
        if (m_axil_bvalid) begin
          status_d = axi_status(m_axil_bresp);
          state_d  = RespFlag0;
        end
      end
      BrRead: begin
        buf_req   = 1'b1;
        buf_we    = 1'b1;
        buf_wdata = br_value;
        idx_d     = idx_q + 7'd1;
        if (idx_q + 7'd1 == nwords) state_d = RespFlag0;
      end
      MemBufRd: begin
        buf_req = 1'b1;
        state_d = MemWr;
      end
      MemWr: begin
        mem_req_o = 1'b1;
        mem_we_o  = 1'b1;
        if (mem_gnt_i) begin
          idx_d   = idx_q + 7'd1;
          state_d = (idx_q + 7'd1 == nwords) ? RespFlag0 : MemBufRd;
        end
      end
      MemRd: begin
        mem_req_o = 1'b1;
        if (mem_gnt_i) state_d = MemRw;
      end
      MemRw: begin
        if (mem_rvalid_i) begin
          buf_req   = 1'b1;
          buf_we    = 1'b1;
          buf_wdata = mem_rdata_i;
          idx_d     = idx_q + 7'd1;
          state_d   = (idx_q + 7'd1 == nwords) ? RespFlag0 : MemRd;
        end
      end
      RespFlag0: begin
        tx_valid = 1'b1;
        tx_data  = Flag;
        k_d      = '0;
        tcrc_d   = 16'hffff;
        half_d   = 1'b0;
        fetch_d  = 1'b0;
        if (tx_ready) state_d = RespByte;
      end
      RespByte: begin
        buf_addr = 6'(k_dat >> 2);
        if (fetch_q) begin
          buf_req = 1'b1;  // the data word of byte k; read data valid from the next cycle
          fetch_d = 1'b0;
        end else begin
          tx_valid = 1'b1;
          tx_data  = half_q ? (tbyte ^ 8'h20) : (tbyte_special ? Esc : tbyte);
          if (tx_ready) begin
            if (tbyte_special && !half_q) begin
              half_d = 1'b1;
            end else begin
              half_d = 1'b0;
              if (k_q < 9'd3 + dlen) tcrc_d = tcrc_next;
              k_d = k_q + 9'd1;
              if (k_q + 9'd1 == 9'd5 + dlen) state_d = RespFlag1;
              else if (k_q + 9'd1 >= 9'd3 && k_q + 9'd1 < 9'd3 + dlen && k_dat[1:0] == 2'b11)
                fetch_d = 1'b1;
              else if (k_q == 9'd2 && dlen != 9'd0) fetch_d = 1'b1;
            end
          end
        end
      end
      RespFlag1: begin
        tx_valid = 1'b1;
        tx_data  = Flag;
        if (tx_ready) state_d = Recv;
      end
      default: state_d = Recv;
    endcase

    // An answered request that was executed (not a duplicate) is remembered.
    if (state_q == Decode && state_d != Decode && !(h_wr && last_valid_q &&
        last_cmd_q == CmdWrite && last_seq_q == h_seq)) begin
      cnt_frames_d = cnt_frames_q + 32'd1;
    end
    if (state_q != RespFlag0 && state_d == RespFlag0 && !dup_d) begin
      last_valid_d  = 1'b1;
      last_seq_d    = h_seq;
      last_cmd_d    = h_cmd;
      last_status_d = status_d;
    end
  end

  assign mem_addr_o    = (MemAw-2)'(h_addr[MemAw-1:2] + (MemAw-2)'(idx_q));
  assign m_axil_awaddr = h_addr[11:0];
  assign m_axil_awprot = 3'b000;
  assign m_axil_wdata  = buf_rdata;
  assign m_axil_wstrb  = 4'hf;
  assign m_axil_arprot = 3'b000;

  // ---------------------------------------------------------------- status poll
  if (StatusPollLog2 > 0) begin : g_poll
    logic [StatusPollLog2-1:0] timer_q;
    always_ff @(posedge clk_i or negedge rst_ni) begin
      if (!rst_ni) timer_q <= '0;
      else         timer_q <= timer_q + 1'b1;
    end
    assign poll_due = (timer_q == '0);
  end else begin : g_no_poll
    assign poll_due = 1'b0;
  end

  always_comb begin
    poll_d       = poll_q;
    busy_led_d   = busy_led_q;
    err_led_d    = err_led_q;
    poll_arvalid = 1'b0;
    poll_rready  = 1'b0;
    unique case (poll_q)
      PIdle: if (poll_due && !in_csr_state && state_q != Decode) poll_d = PAr;
      PAr: begin
        poll_arvalid = 1'b1;
        if (m_axil_arready) poll_d = PR;
      end
      PR: begin
        poll_rready = 1'b1;
        if (m_axil_rvalid) begin
          poll_d = PIdle;
          if (m_axil_rresp[1] == 1'b0) begin
            busy_led_d = !m_axil_rdata[0];
            err_led_d  = m_axil_rdata[1];
          end
        end
      end
      default: poll_d = PIdle;
    endcase
  end

  assign m_axil_arvalid = ex_arvalid | poll_arvalid;
  assign m_axil_araddr  = (poll_q != PIdle) ? StatusAddr : h_addr[11:0];
  assign m_axil_rready  = ex_rready | poll_rready;

  // ---------------------------------------------------------------- checks (simulation)
  // Every request this bridge makes is held until accepted, unchanged.
  weft_hs_checker #(.Width(12)) u_chk_aw (
    .clk_i, .rst_ni, .flush_i(1'b0), .valid_i(m_axil_awvalid), .ready_i(m_axil_awready),
    .data_i(m_axil_awaddr));
  weft_hs_checker #(.Width(32)) u_chk_w (
    .clk_i, .rst_ni, .flush_i(1'b0), .valid_i(m_axil_wvalid), .ready_i(m_axil_wready),
    .data_i(m_axil_wdata));
  weft_hs_checker #(.Width(12)) u_chk_ar (
    .clk_i, .rst_ni, .flush_i(1'b0), .valid_i(m_axil_arvalid), .ready_i(m_axil_arready),
    .data_i(m_axil_araddr));
  weft_hs_checker #(.Width(MemAw + 31)) u_chk_mem (
    .clk_i, .rst_ni, .flush_i(1'b0), .valid_i(mem_req_o), .ready_i(mem_gnt_i),
    .data_i({mem_we_o, mem_addr_o, mem_wdata_o}));
  weft_hs_checker #(.Width(8)) u_chk_tx (
    .clk_i, .rst_ni, .flush_i(1'b0), .valid_i(tx_valid), .ready_i(tx_ready), .data_i(tx_data));

`ifndef SYNTHESIS
  always @(posedge clk_i or negedge rst_ni) begin : p_checks
    if (rst_ni) begin
      assert (fifo_used <= 10'(FifoDepth))
        else $error("%m: receive FIFO over-full (%0d)", fifo_used);
      assert (!(poll_q != PIdle && in_csr_state && state_q != CsrWait))
        else $error("%m: status poll and a CSR request share the AXI4-Lite port");
    end
  end
`endif

  // ---------------------------------------------------------------- registers
  always_ff @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni) begin
      state_q       <= Recv;
      fw_q          <= '0;
      fr_q          <= '0;
      fpend_q       <= 1'b0;
      n_q           <= '0;
      rcrc_q        <= 16'hffff;
      esc_q         <= 1'b0;
      bad_q         <= 1'b0;
      hdr_q         <= '0;
      acc_q         <= '0;
      status_q      <= StOk;
      dup_q         <= 1'b0;
      idx_q         <= '0;
      awdone_q      <= 1'b0;
      wdone_q       <= 1'b0;
      fetch_q       <= 1'b0;
      last_valid_q  <= 1'b0;
      last_seq_q    <= '0;
      last_cmd_q    <= '0;
      last_status_q <= '0;
      k_q           <= '0;
      tcrc_q        <= 16'hffff;
      half_q        <= 1'b0;
      cnt_frames_q  <= '0;
      cnt_crc_q     <= '0;
      cnt_ferr_q    <= '0;
      cnt_dups_q    <= '0;
      badseen_q     <= 1'b0;
      poll_q        <= PIdle;
      busy_led_q    <= 1'b0;
      err_led_q     <= 1'b0;
    end else begin
      state_q       <= state_d;
      fw_q          <= fw_d;
      fr_q          <= fr_d;
      fpend_q       <= fpend_d;
      n_q           <= n_d;
      rcrc_q        <= rcrc_d;
      esc_q         <= esc_d;
      bad_q         <= bad_d;
      hdr_q         <= hdr_d;
      acc_q         <= acc_d;
      status_q      <= status_d;
      dup_q         <= dup_d;
      idx_q         <= idx_d;
      awdone_q      <= awdone_d;
      wdone_q       <= wdone_d;
      fetch_q       <= fetch_d;
      last_valid_q  <= last_valid_d;
      last_seq_q    <= last_seq_d;
      last_cmd_q    <= last_cmd_d;
      last_status_q <= last_status_d;
      k_q           <= k_d;
      tcrc_q        <= tcrc_d;
      half_q        <= half_d;
      cnt_frames_q  <= cnt_frames_d;
      cnt_crc_q     <= cnt_crc_d;
      cnt_ferr_q    <= cnt_ferr_d;
      cnt_dups_q    <= cnt_dups_d;
      badseen_q     <= badseen_d;
      poll_q        <= poll_d;
      busy_led_q    <= busy_led_d;
      err_led_q     <= err_led_d;
    end
  end

  assign dev_busy_o  = busy_led_q;
  assign dev_error_o = err_led_q;
  assign bad_frame_o = badseen_q;

endmodule
