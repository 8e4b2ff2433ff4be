// weft_dma_rd: the read side of weft_dma: NumRd read clients, the AR stage and the R stage.
//
// AR stage: one registered AR slot (ar_valid_o and ar_o come from flops). Whenever the slot is
// empty or being accepted, it loads the next burst of a client, round robin between clients,
// provided fewer than MaxRdOut bursts are outstanding (loaded and not yet finished by their
// RLAST beat), so up to MaxRdOut bursts of all clients overlap the memory latency. Client i uses
// ARID = i; AXI keeps the beats of one ID in order, so each client's data arrives in order while
// beats of different clients may interleave.
// R stage: a spill register (r_ready_o is a flop), then each beat goes to the client its RID
// names: shown on rd_valid_o[i] with the shared rd_data_o / rd_last_o, or dropped after an error.
// The bus side is AR as one weft_axi_ax_t and R as one weft_axi_r_t beside its data
// (rtl/common/weft_axi_types.svh); weft_dma converts them to its flat m_axi_* ports.
`include "weft_assert.svh"
`include "weft_axi_types.svh"
`include "weft_dma_types.svh"

module weft_dma_rd #(
  parameter int  DataW    = 128,
  parameter int  AddrW    = 64,
  parameter int  IdW      = 4,
  parameter int  MaxBurst = 16,
  parameter int  MaxRdOut = 8,
  parameter int  NumRd    = 2,
  localparam int ReqW     = $bits(weft_dma_req_t'(0))
) (
  input  logic                 clk_i,
  input  logic                 rst_ni,
  // clients
  input  logic [NumRd-1:0]     rd_req_valid_i,
  output logic [NumRd-1:0]     rd_req_ready_o,
  input  logic [NumRd*ReqW-1:0] rd_req_i,      // weft_dma_req_t per client
  output logic [NumRd-1:0]     rd_valid_o,
  input  logic [NumRd-1:0]     rd_ready_i,
  output logic [DataW-1:0]     rd_data_o,
  output logic                 rd_last_o,
  output logic [NumRd-1:0]     rd_done_valid_o,
  output logic [NumRd*8-1:0]   rd_done_err_o,
  output logic [NumRd*64-1:0]  rd_done_addr_o,
  // checker
  output logic [NumRd-1:0]     chk_valid_o,
  output logic [NumRd*ReqW-1:0] chk_req_o,     // weft_dma_req_t per client
  input  logic [NumRd-1:0]     chk_rsp_i,
  input  logic [7:0]           chk_err_i,
  // AXI4 read address / data
  output logic                 ar_valid_o,
  input  logic                 ar_ready_i,
  output weft_axi_ax_t         ar_o,
  input  logic                 r_valid_i,
  output logic                 r_ready_o,
  input  weft_axi_r_t          r_i,
  input  logic [DataW-1:0]     r_data_i,
  // status
  output logic                 busy_o,
  output logic                 stat_rd_beat_o,
  output logic                 stat_rd_stall_o
);

  localparam int BusBytes = DataW / 8;
  localparam int LenW     = $clog2(MaxBurst + 1);
  localparam int SelW     = (NumRd > 1) ? $clog2(NumRd) : 1;
  localparam int OutW     = $clog2(MaxRdOut + 1);
  localparam int RW       = $bits(weft_axi_r_t'('0)) + DataW;

  if (NumRd < 1 || NumRd > (1 << IdW)) begin : g_bad_num
    `WEFT_ELAB_ERROR("weft_dma_rd: NumRd must be in 1..2^IdW")
  end
  if (MaxRdOut < 1) begin : g_bad_out
    `WEFT_ELAB_ERROR("weft_dma_rd: MaxRdOut must be >= 1")
  end

  // ---------------------------------------------------------------------------- clients
  logic [NumRd-1:0]      b_valid, b_pop;
  logic [NumRd*64-1:0]   b_addr;
  logic [NumRd*LenW-1:0] b_len;
  logic [NumRd-1:0]      beat_valid, beat_ready, ch_last, ch_busy;

  logic             r_valid, r_ready;
  weft_axi_r_t      r;
  logic [DataW-1:0] r_data;

  for (genvar i = 0; i < NumRd; i++) begin : g_ch
    assign beat_valid[i] = r_valid && (r.id == 8'(i));

    weft_dma_rd_ch #(
      .BusBytes (BusBytes),
      .MaxBurst (MaxBurst),
      .MaxRdOut (MaxRdOut)
    ) u_ch (
      .clk_i,
      .rst_ni,
      .req_valid_i     (rd_req_valid_i[i]),
      .req_ready_o     (rd_req_ready_o[i]),
      .req_i           (rd_req_i[i*ReqW +: ReqW]),
      .chk_valid_o     (chk_valid_o[i]),
      .chk_req_o       (chk_req_o[i*ReqW +: ReqW]),
      .chk_rsp_i       (chk_rsp_i[i]),
      .chk_err_i       (chk_err_i),
      .burst_valid_o   (b_valid[i]),
      .burst_pop_i     (b_pop[i]),
      .burst_addr_o    (b_addr[i*64 +: 64]),
      .burst_len_o     (b_len[i*LenW +: LenW]),
      .beat_valid_i    (beat_valid[i]),
      .beat_ready_o    (beat_ready[i]),
      .beat_resp_i     (r.resp),
      .beat_last_i     (r.last),
      .rd_valid_o      (rd_valid_o[i]),
      .rd_ready_i      (rd_ready_i[i]),
      .rd_last_o       (ch_last[i]),
      .done_valid_o    (rd_done_valid_o[i]),
      .done_err_o      (rd_done_err_o[i*8 +: 8]),
      .done_addr_o     (rd_done_addr_o[i*64 +: 64]),
      .busy_o          (ch_busy[i])
    );
  end

  assign busy_o = |ch_busy;

  // ---------------------------------------------------------------------------- AR stage
  logic [SelW-1:0] pick;
  logic [OutW-1:0] out_q, out_d;  // bursts in the AR slot or in flight
  logic            load, rlast_done;

  weft_dma_ax #(
    .N        (NumRd),
    .AddrW    (AddrW),
    .IdW      (IdW),
    .BusBytes (BusBytes),
    .MaxBurst (MaxBurst)
  ) u_ar (
    .clk_i,
    .rst_ni,
    .burst_valid_i (b_valid),
    .burst_drop_i  ('0),
    .burst_addr_i  (b_addr),
    .burst_len_i   (b_len),
    .ok_i          (out_q != OutW'(MaxRdOut)),
    .burst_pop_o   (b_pop),
    .pop_idx_o     (pick),
    .ax_load_o     (load),
    .ax_valid_o    (ar_valid_o),
    .ax_ready_i    (ar_ready_i),
    .ax_o          (ar_o)
  );

  logic unused_pick;
  assign unused_pick = ^pick;

  assign rlast_done = r_valid && r_ready && r.last;

  always_comb begin : p_out
    out_d = out_q;
    if (load) out_d = out_d + OutW'(1);
    if (rlast_done) out_d = out_d - OutW'(1);
  end

  always_ff @(posedge clk_i or negedge rst_ni) begin : p_out_regs
    if (!rst_ni) out_q <= '0;
    else         out_q <= out_d;
  end

  // ---------------------------------------------------------------------------- R stage
  logic [RW-1:0] r_packed;

  weft_spill_register #(.Width(RW)) u_r_spill (
    .clk_i,
    .rst_ni,
    .in_valid_i  (r_valid_i),
    .in_ready_o  (r_ready_o),
    .in_data_i   ({r_i, r_data_i}),
    .out_valid_o (r_valid),
    .out_ready_i (r_ready),
    .out_data_o  (r_packed)
  );

  assign {r, r_data} = r_packed;

  logic id_ok;
  always_comb begin : p_route
    r_ready   = 1'b0;
    rd_last_o = 1'b0;
    id_ok     = 1'b0;
    for (int i = 0; i < NumRd; i++) begin
      if (r.id == 8'(i)) begin
        id_ok     = 1'b1;
        r_ready   = beat_ready[i];
        rd_last_o = ch_last[i];
      end
    end
    if (!id_ok) r_ready = 1'b1;  // a beat for an ID we never used: dropped (asserted below)
  end

  assign rd_data_o = r_data;

  assign stat_rd_beat_o  = r_valid_i && r_ready_o;
  assign stat_rd_stall_o = (ar_valid_o && !ar_ready_i) ||
                           (out_q != '0 && !(r_valid_i && r_ready_o));

`ifndef SYNTHESIS
  for (genvar i = 0; i < NumRd; i++) begin : g_rd_check
    weft_hs_checker #(.Width(DataW + 1)) u_rd_check (
      .clk_i,
      .rst_ni,
      .flush_i (1'b0),
      .valid_i (rd_valid_o[i]),
      .ready_i (rd_ready_i[i]),
      .data_i  ({rd_last_o, rd_data_o})
    );
  end

  always @(posedge clk_i or negedge rst_ni) begin : p_check
    if (rst_ni) begin
      if (r_valid) begin
        assert (id_ok) else $error("%m: R beat with unknown RID %0d", r.id);
      end
      if (rlast_done) begin
        assert (out_q != '0) else $error("%m: RLAST with no burst outstanding");
      end
    end
  end

  // The outstanding count stays in 0..MaxRdOut (only checkable when the counter can hold more).
  if ((1 << OutW) - 1 > MaxRdOut) begin : g_out_check
    always @(posedge clk_i or negedge rst_ni) begin : p_out_check
      if (rst_ni) begin
        assert (out_q <= OutW'(MaxRdOut)) else $error("%m: outstanding count overflow");
      end
    end
  end
`endif

endmodule
