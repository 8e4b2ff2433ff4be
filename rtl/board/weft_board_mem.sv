// weft_board_mem: the board memory of weft_board (docs/host-interfaces.md 2.4): HostMemBytes of
// on-chip memory at 0x8000_0000 on the device's AXI4 master (axi_*, 128-bit) and on the
// bridge's 32-bit word port (br_*), over one single-ported weft_sram_1rw (128-bit words, byte
// enables).
//
// AXI4: one write burst and one read burst at a time (AW / AR accepted when the previous burst's
// address phase is done and, for writes, its B was taken); INCR bursts step by 2^size, FIXED
// bursts stay, WRAP is treated as INCR (Weft masters use INCR only); the address counts within
// its 4 KiB page. A beat outside [0x8000_0000, 0x8000_0000 + HostMemBytes) touches nothing and is
// answered DECERR (R beat; B of its burst). R data comes straight from the SRAM's output, which
// no other read disturbs while a beat waits for RREADY.
// Arbitration for the SRAM, one access per cycle: the bridge first (at most one access every
// other cycle), then AXI write beat and read beat alternating when both want it.
// Bridge port: br_req_i is held until br_gnt_o; a read's data comes on br_rvalid_o / br_rdata_o
// in the cycle after its grant. br_addr_i is a 32-bit word address inside the memory.
// The AXI4 slave's AR/AW, R and B are weft_axi_*_t structs (rtl/common/weft_axi_types.svh; the
// low IdW id and AddrW address bits are used, the higher ones are 0 on the way out).
`include "weft_assert.svh"
`include "weft_axi_types.svh"

module weft_board_mem #(
  parameter int  HostMemBytes = 65536,  // a power of two, >= 256
  parameter int  IdW          = 4,
  parameter int  AddrW        = 64,
  localparam int DataW        = 128,
  localparam int BB           = DataW / 8,
  localparam int MemAw        = $clog2(HostMemBytes),
  localparam int Depth        = HostMemBytes / BB
) (
  input  logic              clk_i,
  input  logic              rst_ni,
  // AXI4 slave
  input  logic              axi_aw_valid_i,
  output logic              axi_aw_ready_o,
  input  weft_axi_ax_t      axi_aw_i,
  input  logic              axi_w_valid_i,
  output logic              axi_w_ready_o,
  input  logic [DataW-1:0]  axi_w_data_i,
  input  logic [BB-1:0]     axi_w_strb_i,
  input  logic              axi_w_last_i,
  output logic              axi_b_valid_o,
  input  logic              axi_b_ready_i,
  output weft_axi_b_t       axi_b_o,
  input  logic              axi_ar_valid_i,
  output logic              axi_ar_ready_o,
  input  weft_axi_ax_t      axi_ar_i,
  output logic              axi_r_valid_o,
  input  logic              axi_r_ready_i,
  output weft_axi_r_t       axi_r_o,
  output logic [DataW-1:0]  axi_r_data_o,
  // bridge word port
  input  logic              br_req_i,
  input  logic              br_we_i,
  input  logic [MemAw-3:0]  br_addr_i,
  input  logic [31:0]       br_wdata_i,
  output logic              br_gnt_o,
  output logic              br_rvalid_o,
  output logic [31:0]       br_rdata_o
);

  if (HostMemBytes < 256 || (1 << MemAw) != HostMemBytes || MemAw > 31 || AddrW < 32) begin : g_bad
    `WEFT_ELAB_ERROR("weft_board_mem: HostMemBytes must be a power of two in 256 .. 2^31, AddrW >= 32")
  end
  if (AddrW > 64 || IdW < 1 || IdW > 8) begin : g_bad_axi
    `WEFT_ELAB_ERROR("weft_board_mem: AddrW must be <= 64 and IdW in 1..8 (weft_axi_ax_t)")
  end

  localparam logic [AddrW-1:0] Base = AddrW'(64'h8000_0000);

  function automatic logic in_range(input logic [AddrW-1:0] a);
    in_range = (a >> MemAw) == (Base >> MemAw);
  endfunction

  function automatic logic [AddrW-1:0] next_addr(input logic [AddrW-1:0] a, input logic [2:0] size,
                                                 input logic [1:0] burst);
    logic [11:0] lo;
    lo = a[11:0] + (12'd1 << size);
    next_addr = (burst == 2'b00) ? a : {a[AddrW-1:12], lo};
  endfunction

  // ---------------------------------------------------------------- state
  logic             aw_act_q, aw_act_d, b_pend_q, b_pend_d, b_err_q, b_err_d;
  logic [IdW-1:0]   aw_id_q, aw_id_d, ar_id_q, ar_id_d;
  logic [AddrW-1:0] aw_addr_q, aw_addr_d, ar_addr_q, ar_addr_d;
  logic [2:0]       aw_size_q, aw_size_d, ar_size_q, ar_size_d;
  logic [1:0]       aw_burst_q, aw_burst_d, ar_burst_q, ar_burst_d;
  logic             ar_act_q, ar_act_d;
  logic [7:0]       ar_left_q, ar_left_d;
  logic             r_valid_q, r_valid_d, r_last_q, r_last_d, r_err_q, r_err_d;
  logic             last_w_q, last_w_d;   // the last AXI grant went to the write side
  logic             br_rd_q, br_rd_d;
  logic [1:0]       br_lane_q, br_lane_d;

  // SRAM
  logic                       ram_req, ram_we;
  logic [MemAw-5:0]           ram_addr;
  logic [DataW-1:0]           ram_wdata, ram_rdata;
  logic [BB-1:0]              ram_be;
  logic [1:0]                 unused_ram_ecc;  // no ECC on the board's host memory

  weft_sram_1rw #(.Depth(Depth), .Width(DataW)) u_ram (
    .clk_i, .req_i(ram_req), .we_i(ram_we), .addr_i(ram_addr), .wdata_i(ram_wdata),
    .be_i(ram_be), .rdata_o(ram_rdata), .rdata_ecc_o(unused_ram_ecc));

  // ---------------------------------------------------------------- arbitration
  wire r_hold    = r_valid_q && !axi_r_ready_i;       // an R beat waits: SRAM output must hold
  wire w_in      = in_range(aw_addr_q);
  wire r_in      = in_range(ar_addr_q);
  wire w_beat    = aw_act_q && axi_w_valid_i;        // a W beat is offered
  wire r_slot    = ar_act_q && !r_hold;              // an R beat can be issued
  wire br_want   = br_req_i && (br_we_i || !r_hold);
  wire w_want    = w_beat && w_in;
  wire r_want    = r_slot && r_in;
  wire gnt_br    = br_want;
  wire gnt_w     = !br_want && w_want && (!r_want || !last_w_q);
  wire gnt_r     = !br_want && r_want && (!w_want || last_w_q);
  wire w_take    = w_beat && (!w_in || gnt_w);       // W beat accepted this cycle
  wire r_issue   = r_slot && (!r_in || gnt_r);       // R beat issued this cycle

  always_comb begin
    ram_req   = gnt_br || gnt_w || gnt_r;
    ram_we    = gnt_br ? br_we_i : gnt_w;
    ram_addr  = gnt_br ? br_addr_i[MemAw-3:2] :
                gnt_w  ? aw_addr_q[MemAw-1:4] : ar_addr_q[MemAw-1:4];
    ram_wdata = gnt_br ? {4{br_wdata_i}} : axi_w_data_i;
    ram_be    = gnt_br ? (BB'(16'h000f) << (4 * br_addr_i[1:0])) : axi_w_strb_i;
  end

  // ---------------------------------------------------------------- channels
  always_comb begin
    aw_act_d   = aw_act_q;
    aw_id_d    = aw_id_q;
    aw_addr_d  = aw_addr_q;
    aw_size_d  = aw_size_q;
    aw_burst_d = aw_burst_q;
    b_pend_d   = b_pend_q;
    b_err_d    = b_err_q;
    ar_act_d   = ar_act_q;
    ar_id_d    = ar_id_q;
    ar_addr_d  = ar_addr_q;
    ar_size_d  = ar_size_q;
    ar_burst_d = ar_burst_q;
    ar_left_d  = ar_left_q;
    r_valid_d  = r_valid_q;
    r_last_d   = r_last_q;
    r_err_d    = r_err_q;
    last_w_d   = last_w_q;
    br_rd_d    = gnt_br && !br_we_i;
    br_lane_d  = gnt_br ? br_addr_i[1:0] : br_lane_q;

    if (gnt_w) last_w_d = 1'b1;
    if (gnt_r) last_w_d = 1'b0;

    // write
    if (axi_aw_valid_i && axi_aw_ready_o) begin
      aw_act_d   = 1'b1;
      aw_id_d    = axi_aw_i.id[IdW-1:0];
      aw_addr_d  = axi_aw_i.addr[AddrW-1:0];
      aw_size_d  = axi_aw_i.size;
      aw_burst_d = axi_aw_i.burst;
      b_err_d    = 1'b0;
    end
    if (w_take) begin
      aw_addr_d = next_addr(aw_addr_q, aw_size_q, aw_burst_q);
      if (!w_in) b_err_d = 1'b1;
      if (axi_w_last_i) begin
        aw_act_d = 1'b0;
        b_pend_d = 1'b1;
      end
    end
    if (axi_b_valid_o && axi_b_ready_i) b_pend_d = 1'b0;

    // read
    if (axi_r_valid_o && axi_r_ready_i) r_valid_d = 1'b0;
    if (axi_ar_valid_i && axi_ar_ready_o) begin
      ar_act_d   = 1'b1;
      ar_id_d    = axi_ar_i.id[IdW-1:0];
      ar_addr_d  = axi_ar_i.addr[AddrW-1:0];
      ar_size_d  = axi_ar_i.size;
      ar_burst_d = axi_ar_i.burst;
      ar_left_d  = axi_ar_i.len;
    end
    if (r_issue) begin
      r_valid_d = 1'b1;
      r_last_d  = (ar_left_q == 8'd0);
      r_err_d   = !r_in;
      ar_addr_d = next_addr(ar_addr_q, ar_size_q, ar_burst_q);
      ar_left_d = ar_left_q - 8'd1;
      if (ar_left_q == 8'd0) ar_act_d = 1'b0;
    end
  end

  assign axi_aw_ready_o = !aw_act_q && !b_pend_q;
  assign axi_w_ready_o  = w_take;
  assign axi_b_valid_o  = b_pend_q;
  assign axi_b_o        = {8'(aw_id_q), b_err_q ? 2'b11 : 2'b00};
  assign axi_ar_ready_o = !ar_act_q;
  assign axi_r_valid_o  = r_valid_q;
  assign axi_r_o        = {8'(ar_id_q), r_err_q ? 2'b11 : 2'b00, r_last_q};
  assign axi_r_data_o   = ram_rdata;

  assign br_gnt_o    = gnt_br;
  assign br_rvalid_o = br_rd_q;
  assign br_rdata_o  = ram_rdata[32*br_lane_q +: 32];

  // Unused: cache and protection attributes carry no meaning here; a write burst ends with WLAST;
  // id and address bits above IdW / AddrW are 0.
  logic unused_attr;
  assign unused_attr = ^{axi_aw_i, axi_ar_i};

  // ---------------------------------------------------------------- checks (simulation)
  // The device's requests are held until accepted; this memory's R and B answers too (R data
  // is the SRAM output: nothing may read the SRAM while an R beat waits).
  localparam int AxW = $bits(weft_axi_ax_t'('0));
  localparam int RW  = $bits(weft_axi_r_t'('0));
  localparam int BW  = $bits(weft_axi_b_t'('0));
  weft_hs_checker #(.Width(AxW)) u_chk_aw (
    .clk_i, .rst_ni, .flush_i(1'b0), .valid_i(axi_aw_valid_i), .ready_i(axi_aw_ready_o),
    .data_i(axi_aw_i));
  weft_hs_checker #(.Width(AxW)) u_chk_ar (
    .clk_i, .rst_ni, .flush_i(1'b0), .valid_i(axi_ar_valid_i), .ready_i(axi_ar_ready_o),
    .data_i(axi_ar_i));
  weft_hs_checker #(.Width(DataW + BB + 1)) u_chk_w (
    .clk_i, .rst_ni, .flush_i(1'b0), .valid_i(axi_w_valid_i), .ready_i(axi_w_ready_o),
    .data_i({axi_w_data_i, axi_w_strb_i, axi_w_last_i}));
  weft_hs_checker #(.Width(DataW + RW)) u_chk_r (
    .clk_i, .rst_ni, .flush_i(1'b0), .valid_i(axi_r_valid_o), .ready_i(axi_r_ready_i),
    .data_i({axi_r_data_o, axi_r_o}));
  weft_hs_checker #(.Width(BW)) u_chk_b (
    .clk_i, .rst_ni, .flush_i(1'b0), .valid_i(axi_b_valid_o), .ready_i(axi_b_ready_i),
    .data_i(axi_b_o));

  always_ff @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni) begin
      aw_act_q   <= 1'b0;
      aw_id_q    <= '0;
      aw_addr_q  <= '0;
      aw_size_q  <= '0;
      aw_burst_q <= '0;
      b_pend_q   <= 1'b0;
      b_err_q    <= 1'b0;
      ar_act_q   <= 1'b0;
      ar_id_q    <= '0;
      ar_addr_q  <= '0;
      ar_size_q  <= '0;
      ar_burst_q <= '0;
      ar_left_q  <= '0;
      r_valid_q  <= 1'b0;
      r_last_q   <= 1'b0;
      r_err_q    <= 1'b0;
      last_w_q   <= 1'b0;
      br_rd_q    <= 1'b0;
      br_lane_q  <= '0;
    end else begin
      aw_act_q   <= aw_act_d;
      aw_id_q    <= aw_id_d;
      aw_addr_q  <= aw_addr_d;
      aw_size_q  <= aw_size_d;
      aw_burst_q <= aw_burst_d;
      b_pend_q   <= b_pend_d;
      b_err_q    <= b_err_d;
      ar_act_q   <= ar_act_d;
      ar_id_q    <= ar_id_d;
      ar_addr_q  <= ar_addr_d;
      ar_size_q  <= ar_size_d;
      ar_burst_q <= ar_burst_d;
      ar_left_q  <= ar_left_d;
      r_valid_q  <= r_valid_d;
      r_last_q   <= r_last_d;
      r_err_q    <= r_err_d;
      last_w_q   <= last_w_d;
      br_rd_q    <= br_rd_d;
      br_lane_q  <= br_lane_d;
    end
  end

endmodule
