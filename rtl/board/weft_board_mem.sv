// weft_board_mem: the board memory of weft_board (docs/host-interfaces.md 2.4): HostMemBytes of
// on-chip memory at 0x8000_0000 on the device's AXI4 master (s_axi_*, 128-bit) and on the
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
`include "weft_assert.svh"

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
  input  logic              s_axi_awvalid,
  output logic              s_axi_awready,
  input  logic [IdW-1:0]    s_axi_awid,
  input  logic [AddrW-1:0]  s_axi_awaddr,
  input  logic [7:0]        s_axi_awlen,
  input  logic [2:0]        s_axi_awsize,
  input  logic [1:0]        s_axi_awburst,
  input  logic [3:0]        s_axi_awcache,
  input  logic [2:0]        s_axi_awprot,
  input  logic              s_axi_wvalid,
  output logic              s_axi_wready,
  input  logic [DataW-1:0]  s_axi_wdata,
  input  logic [BB-1:0]     s_axi_wstrb,
  input  logic              s_axi_wlast,
  output logic              s_axi_bvalid,
  input  logic              s_axi_bready,
  output logic [IdW-1:0]    s_axi_bid,
  output logic [1:0]        s_axi_bresp,
  input  logic              s_axi_arvalid,
  output logic              s_axi_arready,
  input  logic [IdW-1:0]    s_axi_arid,
  input  logic [AddrW-1:0]  s_axi_araddr,
  input  logic [7:0]        s_axi_arlen,
  input  logic [2:0]        s_axi_arsize,
  input  logic [1:0]        s_axi_arburst,
  input  logic [3:0]        s_axi_arcache,
  input  logic [2:0]        s_axi_arprot,
  output logic              s_axi_rvalid,
  input  logic              s_axi_rready,
  output logic [IdW-1:0]    s_axi_rid,
  output logic [DataW-1:0]  s_axi_rdata,
  output logic [1:0]        s_axi_rresp,
  output logic              s_axi_rlast,
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

  weft_sram_1rw #(.Depth(Depth), .Width(DataW)) u_ram (
    .clk_i, .req_i(ram_req), .we_i(ram_we), .addr_i(ram_addr), .wdata_i(ram_wdata),
    .be_i(ram_be), .rdata_o(ram_rdata));

  // ---------------------------------------------------------------- arbitration
  wire r_hold    = r_valid_q && !s_axi_rready;       // an R beat waits: SRAM output must hold
  wire w_in      = in_range(aw_addr_q);
  wire r_in      = in_range(ar_addr_q);
  wire w_beat    = aw_act_q && s_axi_wvalid;         // a W beat is offered
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
    ram_wdata = gnt_br ? {4{br_wdata_i}} : s_axi_wdata;
    ram_be    = gnt_br ? (BB'(16'h000f) << (4 * br_addr_i[1:0])) : s_axi_wstrb;
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
    if (s_axi_awvalid && s_axi_awready) begin
      aw_act_d   = 1'b1;
      aw_id_d    = s_axi_awid;
      aw_addr_d  = s_axi_awaddr;
      aw_size_d  = s_axi_awsize;
      aw_burst_d = s_axi_awburst;
      b_err_d    = 1'b0;
    end
    if (w_take) begin
      aw_addr_d = next_addr(aw_addr_q, aw_size_q, aw_burst_q);
      if (!w_in) b_err_d = 1'b1;
      if (s_axi_wlast) begin
        aw_act_d = 1'b0;
        b_pend_d = 1'b1;
      end
    end
    if (s_axi_bvalid && s_axi_bready) b_pend_d = 1'b0;

    // read
    if (s_axi_rvalid && s_axi_rready) r_valid_d = 1'b0;
    if (s_axi_arvalid && s_axi_arready) begin
      ar_act_d   = 1'b1;
      ar_id_d    = s_axi_arid;
      ar_addr_d  = s_axi_araddr;
      ar_size_d  = s_axi_arsize;
      ar_burst_d = s_axi_arburst;
      ar_left_d  = s_axi_arlen;
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

  assign s_axi_awready = !aw_act_q && !b_pend_q;
  assign s_axi_wready  = w_take;
  assign s_axi_bvalid  = b_pend_q;
  assign s_axi_bid     = aw_id_q;
  assign s_axi_bresp   = b_err_q ? 2'b11 : 2'b00;
  assign s_axi_arready = !ar_act_q;
  assign s_axi_rvalid  = r_valid_q;
  assign s_axi_rid     = ar_id_q;
  assign s_axi_rdata   = ram_rdata;
  assign s_axi_rresp   = r_err_q ? 2'b11 : 2'b00;
  assign s_axi_rlast   = r_last_q;

  assign br_gnt_o    = gnt_br;
  assign br_rvalid_o = br_rd_q;
  assign br_rdata_o  = ram_rdata[32*br_lane_q +: 32];

  // Unused: cache and protection attributes carry no meaning here; a write burst ends with WLAST.
  logic unused_attr;
  assign unused_attr = ^{s_axi_awlen, s_axi_awcache, s_axi_awprot, s_axi_arcache, s_axi_arprot};

  // ---------------------------------------------------------------- checks (simulation)
  // The device's requests are held until accepted; this memory's R and B answers too (R data
  // is the SRAM output: nothing may read the SRAM while an R beat waits).
  weft_hs_checker #(.Width(AddrW + IdW + 13)) u_chk_aw (
    .clk_i, .rst_ni, .flush_i(1'b0), .valid_i(s_axi_awvalid), .ready_i(s_axi_awready),
    .data_i({s_axi_awaddr, s_axi_awid, s_axi_awlen, s_axi_awsize, s_axi_awburst}));
  weft_hs_checker #(.Width(AddrW + IdW + 13)) u_chk_ar (
    .clk_i, .rst_ni, .flush_i(1'b0), .valid_i(s_axi_arvalid), .ready_i(s_axi_arready),
    .data_i({s_axi_araddr, s_axi_arid, s_axi_arlen, s_axi_arsize, s_axi_arburst}));
  weft_hs_checker #(.Width(DataW + BB + 1)) u_chk_w (
    .clk_i, .rst_ni, .flush_i(1'b0), .valid_i(s_axi_wvalid), .ready_i(s_axi_wready),
    .data_i({s_axi_wdata, s_axi_wstrb, s_axi_wlast}));
  weft_hs_checker #(.Width(DataW + IdW + 3)) u_chk_r (
    .clk_i, .rst_ni, .flush_i(1'b0), .valid_i(s_axi_rvalid), .ready_i(s_axi_rready),
    .data_i({s_axi_rdata, s_axi_rid, s_axi_rresp, s_axi_rlast}));
  weft_hs_checker #(.Width(IdW + 2)) u_chk_b (
    .clk_i, .rst_ni, .flush_i(1'b0), .valid_i(s_axi_bvalid), .ready_i(s_axi_bready),
    .data_i({s_axi_bid, s_axi_bresp}));

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
