// weft_dma_wr: the write side of weft_dma: NumWr write clients, the issue stage, AW, W and B.
//
// Issue stage: each cycle, round robin between clients, one burst leaves a client's generator:
// into the registered AW slot (aw_valid_o and aw_o come from flops) and, with its client, length
// and row-end flag, into the W order queue (WrQueue entries). After an error a client's bursts
// only enter the W order queue, marked "drop". AW may thus run up to WrQueue bursts ahead of W.
// W stage: the burst at the head of the W order queue takes its beats from its client
// (wr_ready_o), sets the strobes (all ones, or the row's tail mask on a row's last beat) and
// WLAST, and sends them through a spill register (w_valid_o is a flop); drop bursts take the
// beats and discard them. W follows AW order, as AXI4 requires.
// B stage: always ready; BID = client. Client i uses AWID = i.
// The bus side is AW as one weft_axi_ax_t, W as data, strobes and last, B as one weft_axi_b_t
// (rtl/common/weft_axi_types.svh); weft_dma converts them to its flat m_axi_* ports.
`include "weft_assert.svh"
`include "weft_axi_types.svh"
`include "weft_dma_types.svh"

module weft_dma_wr #(
  parameter int  DataW    = 128,
  parameter int  AddrW    = 64,
  parameter int  IdW      = 4,
  parameter int  MaxBurst = 16,
  parameter int  MaxWrOut = 8,
  parameter int  NumWr    = 2,
  parameter int  WrQueue  = 4,
  localparam int BusBytes = DataW / 8,
  localparam int BytesW   = $clog2(BusBytes + 1),
  localparam int ReqW     = $bits(weft_dma_req_t'(0))
) (
  input  logic                  clk_i,
  input  logic                  rst_ni,
  // clients
  input  logic [NumWr-1:0]      wr_req_valid_i,
  output logic [NumWr-1:0]      wr_req_ready_o,
  input  logic [NumWr*ReqW-1:0] wr_req_i,     // weft_dma_req_t per client
  output logic [NumWr-1:0]      wr_start_o,
  input  logic [NumWr-1:0]      wr_valid_i,
  output logic [NumWr-1:0]      wr_ready_o,
  input  logic [NumWr*DataW-1:0] wr_data_i,
  output logic [NumWr-1:0]      wr_done_valid_o,
  output logic [NumWr*8-1:0]    wr_done_err_o,
  output logic [NumWr*64-1:0]   wr_done_addr_o,
  // checker
  output logic [NumWr-1:0]      chk_valid_o,
  output logic [NumWr*ReqW-1:0] chk_req_o,    // weft_dma_req_t per client
  input  logic [NumWr-1:0]      chk_rsp_i,
  input  logic [7:0]            chk_err_i,
  // AXI4 write address / data / response
  output logic                  aw_valid_o,
  input  logic                  aw_ready_i,
  output weft_axi_ax_t          aw_o,
  output logic                  w_valid_o,
  input  logic                  w_ready_i,
  output logic [DataW-1:0]      w_data_o,
  output logic [BusBytes-1:0]   w_strb_o,
  output logic                  w_last_o,
  input  logic                  b_valid_i,
  output logic                  b_ready_o,
  input  weft_axi_b_t           b_i,
  // status
  output logic                  busy_o,
  output logic                  stat_wr_beat_o,
  output logic [BytesW-1:0]     stat_wr_bytes_o,
  output logic                  stat_wr_stall_o
);

  localparam int LenW  = $clog2(MaxBurst + 1);
  localparam int SelW  = (NumWr > 1) ? $clog2(NumWr) : 1;
  localparam int WqW   = SelW + LenW + 2;
  localparam int OutW  = $clog2(NumWr * MaxWrOut + 1);

  if (NumWr < 1 || NumWr > (1 << IdW)) begin : g_bad_num
    `WEFT_ELAB_ERROR("weft_dma_wr: NumWr must be in 1..2^IdW")
  end
  if (WrQueue < 2) begin : g_bad_queue
    `WEFT_ELAB_ERROR("weft_dma_wr: WrQueue must be >= 2 (one burst per cycle)")
  end

  // ---------------------------------------------------------------------------- clients
  logic [NumWr-1:0]          b_valid, b_pop, b_row_end, b_drop, w_done, bch_valid, ch_busy;
  logic [NumWr*64-1:0]       b_addr;
  logic [NumWr*LenW-1:0]     b_len;
  logic [NumWr*BusBytes-1:0] tail_strb;

  for (genvar i = 0; i < NumWr; i++) begin : g_ch
    assign bch_valid[i] = b_valid_i && (b_i.id == 8'(i));

    weft_dma_wr_ch #(
      .BusBytes (BusBytes),
      .MaxBurst (MaxBurst),
      .MaxWrOut (MaxWrOut),
      .WrQueue  (WrQueue)
    ) u_ch (
      .clk_i,
      .rst_ni,
      .req_valid_i     (wr_req_valid_i[i]),
      .req_ready_o     (wr_req_ready_o[i]),
      .req_i           (wr_req_i[i*ReqW +: ReqW]),
      .wr_start_o      (wr_start_o[i]),
      .chk_valid_o     (chk_valid_o[i]),
      .chk_req_o       (chk_req_o[i*ReqW +: ReqW]),
      .chk_rsp_i       (chk_rsp_i[i]),
      .chk_err_i       (chk_err_i),
      .burst_valid_o   (b_valid[i]),
      .burst_pop_i     (b_pop[i]),
      .burst_addr_o    (b_addr[i*64 +: 64]),
      .burst_len_o     (b_len[i*LenW +: LenW]),
      .burst_row_end_o (b_row_end[i]),
      .burst_drop_o    (b_drop[i]),
      .tail_strb_o     (tail_strb[i*BusBytes +: BusBytes]),
      .w_done_i        (w_done[i]),
      .b_valid_i       (bch_valid[i]),
      .b_resp_i        (b_i.resp),
      .done_valid_o    (wr_done_valid_o[i]),
      .done_err_o      (wr_done_err_o[i*8 +: 8]),
      .done_addr_o     (wr_done_addr_o[i*64 +: 64]),
      .busy_o          (ch_busy[i])
    );
  end

  assign busy_o = |ch_busy;

  // ---------------------------------------------------------------------------- issue stage
  logic [SelW-1:0]  pick;
  logic             load, aw_load;
  logic             wq_in_ready, wq_valid, wq_pop;
  logic [WqW-1:0]   wq_in, wq_out;
  logic [$clog2(WrQueue + 1)-1:0] wq_usage;
  logic [OutW-1:0]  aw_out_q, aw_out_d;  // AW bursts loaded, B not yet received

  // Each cycle one burst leaves a client: into the AW slot and the W order queue, or, dropped,
  // into the W order queue only.
  weft_dma_ax #(
    .N        (NumWr),
    .AddrW    (AddrW),
    .IdW      (IdW),
    .BusBytes (BusBytes),
    .MaxBurst (MaxBurst)
  ) u_aw (
    .clk_i,
    .rst_ni,
    .burst_valid_i (b_valid),
    .burst_drop_i  (b_drop),
    .burst_addr_i  (b_addr),
    .burst_len_i   (b_len),
    .ok_i          (wq_in_ready),
    .burst_pop_o   (b_pop),
    .pop_idx_o     (pick),
    .ax_load_o     (aw_load),
    .ax_valid_o    (aw_valid_o),
    .ax_ready_i    (aw_ready_i),
    .ax_o          (aw_o)
  );

  assign load = |b_pop;

  always_comb begin : p_wq_in
    wq_in = '0;
    for (int i = 0; i < NumWr; i++) begin
      if (b_pop[i]) wq_in = {pick, b_len[i*LenW +: LenW], b_row_end[i], b_drop[i]};
    end
  end

  logic b_any;
  assign b_any = b_valid_i && b_ready_o;

  always_comb begin : p_aw_out
    aw_out_d = aw_out_q;
    if (aw_load) aw_out_d = aw_out_d + OutW'(1);
    if (b_any) aw_out_d = aw_out_d - OutW'(1);
  end

  always_ff @(posedge clk_i or negedge rst_ni) begin : p_aw_regs
    if (!rst_ni) aw_out_q <= '0;
    else         aw_out_q <= aw_out_d;
  end

  // ---------------------------------------------------------------------------- W stage
  weft_fifo #(
    .Width (WqW),
    .Depth (WrQueue)
  ) u_wq (
    .clk_i,
    .rst_ni,
    .flush_i     (1'b0),
    .in_valid_i  (load),
    .in_ready_o  (wq_in_ready),
    .in_data_i   (wq_in),
    .out_valid_o (wq_valid),
    .out_ready_i (wq_pop),
    .out_data_o  (wq_out),
    .usage_o     (wq_usage)
  );

  logic [SelW-1:0] wq_ch;
  logic [LenW-1:0] wq_len;
  logic            wq_row_end, wq_drop;
  assign {wq_ch, wq_len, wq_row_end, wq_drop} = wq_out;

  logic [LenW-1:0]     wbeat_q, wbeat_d;
  logic                last_beat, cl_valid, take;
  logic                ws_in_valid, ws_in_ready;
  logic [DataW-1:0]    cl_data;
  logic [BusBytes-1:0] cl_tail, strb;

  assign last_beat = (wbeat_q == wq_len - LenW'(1));

  always_comb begin : p_wmux
    cl_valid   = 1'b0;
    cl_data    = '0;
    cl_tail    = '1;
    wr_ready_o = '0;
    w_done     = '0;
    for (int i = 0; i < NumWr; i++) begin
      if (wq_ch == SelW'(i)) begin
        cl_valid = wr_valid_i[i];
        cl_data  = wr_data_i[i*DataW +: DataW];
        cl_tail  = tail_strb[i*BusBytes +: BusBytes];
        if (wq_valid) begin
          wr_ready_o[i] = wq_drop ? 1'b1 : ws_in_ready;
          w_done[i]     = take && last_beat;
        end
      end
    end
  end

  assign take        = wq_valid && cl_valid && (wq_drop || ws_in_ready);
  assign wq_pop      = take && last_beat;
  assign ws_in_valid = wq_valid && !wq_drop && cl_valid;
  assign strb        = (wq_row_end && last_beat) ? cl_tail : '1;

  always_comb begin : p_wbeat
    wbeat_d = wbeat_q;
    if (take) wbeat_d = last_beat ? '0 : wbeat_q + LenW'(1);
  end

  always_ff @(posedge clk_i or negedge rst_ni) begin : p_w_regs
    if (!rst_ni) begin
      wbeat_q <= '0;
    end else begin
      wbeat_q <= wbeat_d;
    end
  end

  logic [DataW+BusBytes:0] ws_out;
  weft_spill_register #(.Width(DataW + BusBytes + 1)) u_w_spill (
    .clk_i,
    .rst_ni,
    .in_valid_i  (ws_in_valid),
    .in_ready_o  (ws_in_ready),
    .in_data_i   ({cl_data, strb, last_beat}),
    .out_valid_o (w_valid_o),
    .out_ready_i (w_ready_i),
    .out_data_o  (ws_out)
  );
  assign {w_data_o, w_strb_o, w_last_o} = ws_out;

  // ---------------------------------------------------------------------------- B stage
  assign b_ready_o = 1'b1;

  // ---------------------------------------------------------------------------- status
  logic [BytesW-1:0] nbytes;
  always_comb begin : p_popcount
    nbytes = '0;
    for (int b = 0; b < BusBytes; b++) nbytes = nbytes + BytesW'(w_strb_o[b]);
  end
  assign stat_wr_beat_o  = w_valid_o && w_ready_i;
  assign stat_wr_bytes_o = stat_wr_beat_o ? nbytes : '0;
  // W offered and refused, or nothing left to send but B responses awaited.
  assign stat_wr_stall_o = (w_valid_o && !w_ready_i) ||
                           (!w_valid_o && !wq_valid && aw_out_q != '0);

  logic unused_usage;
  assign unused_usage = ^wq_usage;

`ifndef SYNTHESIS
  for (genvar i = 0; i < NumWr; i++) begin : g_wr_check
    weft_hs_checker #(.Width(DataW)) u_wr_check (
      .clk_i,
      .rst_ni,
      .flush_i (1'b0),
      .valid_i (wr_valid_i[i]),
      .ready_i (wr_ready_o[i]),
      .data_i  (wr_data_i[i*DataW +: DataW])
    );
  end

  always @(posedge clk_i or negedge rst_ni) begin : p_check
    if (rst_ni) begin
      if (b_valid_i) begin
        assert (32'(b_i.id) < NumWr) else $error("%m: B with unknown BID %0d", b_i.id);
        assert (aw_out_q != '0) else $error("%m: B with no burst outstanding");
      end
    end
  end
`endif

endmodule
