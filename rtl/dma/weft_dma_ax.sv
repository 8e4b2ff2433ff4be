// weft_dma_ax: the AXI4 address issue of weft_dma, one per direction (AR in weft_dma_rd, AW in
// weft_dma_wr): round robin between the channels' next bursts into one registered address slot
// (ax_valid_o and ax_o come straight from flops).
//
// Channel i offers a burst on burst_valid_i[i] (address, length in beats 1..MaxBurst, sent as
// AXLEN = beats - 1). A burst can be taken when ok_i (the caller has room for one more burst)
// and either the slot is free (empty, or its burst is being accepted this cycle) or the burst
// is a drop (burst_drop_i[i]: taken without an address; a write that already failed). Among the
// channels that can go, weft_rr_pick chooses one per cycle: burst_pop_o (one-hot) takes it,
// pop_idx_o names its channel, ax_load_o says it entered the slot (ID = channel).
// Every burst is INCR of full bus words, normal non-cacheable bufferable, unprivileged
// non-secure data. The slot is one weft_axi_ax_t (rtl/common/weft_axi_types.svh): the low AddrW
// address bits and IdW id bits, the rest 0.
`include "weft_assert.svh"
`include "weft_axi_types.svh"

module weft_dma_ax #(
  parameter int  N        = 2,
  parameter int  AddrW    = 64,
  parameter int  IdW      = 4,
  parameter int  BusBytes = 16,
  parameter int  MaxBurst = 16,
  localparam int LenW     = $clog2(MaxBurst + 1),
  localparam int SelW     = (N > 1) ? $clog2(N) : 1
) (
  input  logic              clk_i,
  input  logic              rst_ni,
  // the channels' next bursts
  input  logic [N-1:0]      burst_valid_i,
  input  logic [N-1:0]      burst_drop_i,
  input  logic [N*64-1:0]   burst_addr_i,
  input  logic [N*LenW-1:0] burst_len_i,   // beats
  input  logic              ok_i,
  output logic [N-1:0]      burst_pop_o,
  output logic [SelW-1:0]   pop_idx_o,
  output logic              ax_load_o,
  // AXI4 address channel
  output logic              ax_valid_o,
  input  logic              ax_ready_i,
  output weft_axi_ax_t      ax_o
);

  if (N < 1 || N > (1 << IdW)) begin : g_bad_n
    `WEFT_ELAB_ERROR("weft_dma_ax: N must be in 1..2^IdW")
  end
  if (IdW < 1 || IdW > 8 || AddrW < 1 || AddrW > 64) begin : g_bad_w
    `WEFT_ELAB_ERROR("weft_dma_ax: IdW must be in 1..8 and AddrW in 1..64 (weft_axi_ax_t)")
  end

  logic             valid_q, valid_d;
  logic [AddrW-1:0] addr_q, addr_d;
  logic [7:0]       len_q, len_d;
  logic [IdW-1:0]   id_q, id_d;
  logic             free, any;
  logic [N-1:0]     cand;

  assign free = !valid_q || ax_ready_i;

  always_comb begin : p_cand
    for (int i = 0; i < N; i++) begin
      cand[i] = burst_valid_i[i] && ok_i && (burst_drop_i[i] || free);
    end
  end

  weft_rr_pick #(.N(N)) u_pick (
    .clk_i,
    .rst_ni,
    .req_i     (cand),
    .any_o     (any),
    .idx_o     (pop_idx_o),
    .onehot_o  (burst_pop_o),
    .adv_i     (any),
    .adv_idx_i (pop_idx_o)
  );

  always_comb begin : p_next
    valid_d   = valid_q && !ax_ready_i;
    addr_d    = addr_q;
    len_d     = len_q;
    id_d      = id_q;
    ax_load_o = 1'b0;
    for (int i = 0; i < N; i++) begin
      if (burst_pop_o[i] && !burst_drop_i[i]) begin
        ax_load_o = 1'b1;
        valid_d   = 1'b1;
        id_d      = IdW'(i);
        addr_d    = burst_addr_i[i*64 +: AddrW];
        len_d     = 8'(32'(burst_len_i[i*LenW +: LenW]) - 32'd1);
      end
    end
  end

  always_ff @(posedge clk_i or negedge rst_ni) begin : p_regs
    if (!rst_ni) begin
      valid_q <= 1'b0;
      addr_q  <= '0;
      len_q   <= '0;
      id_q    <= '0;
    end else begin
      valid_q <= valid_d;
      addr_q  <= addr_d;
      len_q   <= len_d;
      id_q    <= id_d;
    end
  end

  assign ax_valid_o = valid_q;
  always_comb begin : p_ax
    ax_o       = '0;
    ax_o.id    = 8'(id_q);
    ax_o.addr  = 64'(addr_q);
    ax_o.len   = len_q;
    ax_o.size  = 3'($clog2(BusBytes));
    ax_o.burst = 2'b01;    // INCR
    ax_o.cache = 4'b0011;  // normal, non-cacheable, bufferable
    ax_o.prot  = 3'b010;   // unprivileged, non-secure, data
  end

`ifndef SYNTHESIS
  weft_hs_checker #(.Width(IdW + AddrW + 8)) u_ax_check (
    .clk_i,
    .rst_ni,
    .flush_i (1'b0),
    .valid_i (ax_valid_o),
    .ready_i (ax_ready_i),
    .data_i  ({id_q, addr_q, len_q})
  );
`endif

endmodule
