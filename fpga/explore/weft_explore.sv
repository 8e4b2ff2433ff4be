// weft_explore: a synthesis-only stand-in for weft_board (same ports), used to size and time the
// device on the ULX3S before, and independently of, the real board top (UART bridge + on-chip host
// memory). It instantiates weft_top at the board configuration (8x8 array, DataW 128, SIMT 4 warps
// x 8 threads, the memory sizes of weft_board's defaults) and keeps all of it alive:
//   - every weft_top input (AXI4-Lite slave, AXI4 master responses) comes from a 217-bit shift
//     register fed by a 32-bit LFSR XORed with the UART receive pin, so no input is a constant;
//   - every weft_top output is XOR-reduced into one register that drives uart_tx_o, so no logic
//     is unobservable.
// The result is meaningless as a function; it exists so that Yosys and nextpnr see the full device
// with the same parameters as the board. Build with `make -C fpga CORE=explore` (docs/fpga.md).
module weft_explore #(
  parameter int Rows          = 8,
  parameter int Cols          = 8,
  parameter int AccDepth      = 256,
  parameter int SpadLines     = 2048,
  parameter int SpadBanks     = 4,
  parameter int SimtWarps     = 4,
  parameter int SimtThreads   = 8,
  parameter int SimtBanks     = 8,
  parameter int SimtDmemBytes = 16384,
  parameter int SimtImemWords = 2048,
  parameter int HostMemBytes  = 65536,  // unused here (weft_board's on-chip host memory)
  parameter int ClksPerBit    = 50,     // unused here (weft_board's UART bit time)
  parameter int ClkHz         = 50000000  // unused here (weft_board's LED timing)
) (
  input  logic       clk_i,
  input  logic       rst_ni,
  input  logic       uart_rx_i,
  output logic       uart_tx_o,
  output logic [7:0] led_o
);

  localparam int DataW = 128;
  localparam int IdW   = 4;
  localparam int AddrW = 64;
  localparam int BB    = DataW / 8;
  localparam int StimW = 217;  // one bit per weft_top input bit

  if (HostMemBytes < 0 || ClksPerBit < 1 || ClkHz < 1) begin : g_bad_board
    $error("weft_explore: weft_board's parameters out of range");
  end

  // ---------------------------------------------------------------- stimulus
  logic [31:0]    lfsr_q, lfsr_d;
  logic [StimW-1:0] stim_q, stim_d;

  always_comb begin : p_stim
    // Galois LFSR, x^32 + x^22 + x^2 + x + 1
    lfsr_d = {1'b0, lfsr_q[31:1]} ^ (lfsr_q[0] ? 32'h8020_0003 : 32'h0);
    stim_d = {stim_q[StimW-2:0], lfsr_q[0] ^ uart_rx_i};
  end

  always_ff @(posedge clk_i or negedge rst_ni) begin : p_stim_q
    if (!rst_ni) begin
      lfsr_q <= 32'hACE1_2345;
      stim_q <= '0;
    end else begin
      lfsr_q <= lfsr_d;
      stim_q <= stim_d;
    end
  end

  // ---------------------------------------------------------------- device
  logic             s_axil_awready, s_axil_wready, s_axil_bvalid, s_axil_arready, s_axil_rvalid;
  logic [1:0]       s_axil_bresp, s_axil_rresp;
  logic [31:0]      s_axil_rdata;
  logic             m_axi_awvalid, m_axi_wvalid, m_axi_bready, m_axi_arvalid, m_axi_rready;
  logic [IdW-1:0]   m_axi_awid, m_axi_arid;
  logic [AddrW-1:0] m_axi_awaddr, m_axi_araddr;
  logic [7:0]       m_axi_awlen, m_axi_arlen;
  logic [2:0]       m_axi_awsize, m_axi_arsize, m_axi_awprot, m_axi_arprot;
  logic [1:0]       m_axi_awburst, m_axi_arburst;
  logic [3:0]       m_axi_awcache, m_axi_arcache;
  logic [DataW-1:0] m_axi_wdata;
  logic [BB-1:0]    m_axi_wstrb;
  logic             m_axi_wlast, irq;

  weft_top #(
    .Rows         (Rows),
    .Cols         (Cols),
    .AccDepth     (AccDepth),
    .DataW        (DataW),
    .AddrW        (AddrW),
    .IdW          (IdW),
    .SpadLines    (SpadLines),
    .SpadBanks    (SpadBanks),
    .SimtWarps    (SimtWarps),
    .SimtThreads  (SimtThreads),
    .SimtBanks    (SimtBanks),
    .SimtDmemBytes(SimtDmemBytes),
    .SimtImemWords(SimtImemWords)
  ) u_top (
    .clk_i,
    .rst_ni,
    .s_axil_awvalid (stim_q[0]),
    .s_axil_awready,
    .s_axil_awaddr  (stim_q[12:1]),
    .s_axil_awprot  (stim_q[15:13]),
    .s_axil_wvalid  (stim_q[16]),
    .s_axil_wready,
    .s_axil_wdata   (stim_q[48:17]),
    .s_axil_wstrb   (stim_q[52:49]),
    .s_axil_bvalid,
    .s_axil_bready  (stim_q[53]),
    .s_axil_bresp,
    .s_axil_arvalid (stim_q[54]),
    .s_axil_arready,
    .s_axil_araddr  (stim_q[66:55]),
    .s_axil_arprot  (stim_q[69:67]),
    .s_axil_rvalid,
    .s_axil_rready  (stim_q[70]),
    .s_axil_rdata,
    .s_axil_rresp,
    .m_axi_awvalid,
    .m_axi_awready  (stim_q[71]),
    .m_axi_awid,
    .m_axi_awaddr,
    .m_axi_awlen,
    .m_axi_awsize,
    .m_axi_awburst,
    .m_axi_awcache,
    .m_axi_awprot,
    .m_axi_wvalid,
    .m_axi_wready   (stim_q[72]),
    .m_axi_wdata,
    .m_axi_wstrb,
    .m_axi_wlast,
    .m_axi_bvalid   (stim_q[73]),
    .m_axi_bready,
    .m_axi_bid      (stim_q[77:74]),
    .m_axi_bresp    (stim_q[79:78]),
    .m_axi_arvalid,
    .m_axi_arready  (stim_q[80]),
    .m_axi_arid,
    .m_axi_araddr,
    .m_axi_arlen,
    .m_axi_arsize,
    .m_axi_arburst,
    .m_axi_arcache,
    .m_axi_arprot,
    .m_axi_rvalid   (stim_q[81]),
    .m_axi_rready,
    .m_axi_rid      (stim_q[85:82]),
    .m_axi_rdata    (stim_q[213:86]),
    .m_axi_rresp    (stim_q[215:214]),
    .m_axi_rlast    (stim_q[216]),
    .irq_o          (irq)
  );

  // ---------------------------------------------------------------- observation
  logic obs_q, obs_d;

  always_comb begin : p_obs
    obs_d = (^{s_axil_awready, s_axil_wready, s_axil_bvalid, s_axil_bresp, s_axil_arready,
               s_axil_rvalid, s_axil_rdata, s_axil_rresp}) ^
            (^{m_axi_awvalid, m_axi_awid, m_axi_awaddr, m_axi_awlen, m_axi_awsize, m_axi_awburst,
               m_axi_awcache, m_axi_awprot, m_axi_wvalid, m_axi_wdata, m_axi_wstrb, m_axi_wlast,
               m_axi_bready, m_axi_arvalid, m_axi_arid, m_axi_araddr, m_axi_arlen, m_axi_arsize,
               m_axi_arburst, m_axi_arcache, m_axi_arprot, m_axi_rready}) ^ irq;
  end

  always_ff @(posedge clk_i or negedge rst_ni) begin : p_obs_q
    if (!rst_ni) obs_q <= 1'b0;
    else         obs_q <= obs_d;
  end

  assign uart_tx_o = obs_q;
  assign led_o     = {2'b0, irq, lfsr_q[31:27]};

endmodule
