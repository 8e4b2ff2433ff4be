// weft_ulx3s: the ULX3S (Lattice ECP5 LFE5U-85F, CABGA381) board top (docs/fpga.md).
//
//   clk_25mhz (G2) -> EHXPLLL -> clk_sys (SysClkMhz) -> weft_board (UART bridge + weft_top + on-chip
//                                                         host memory, rtl/board/)
//   ftdi_txd (M1, FT231X -> FPGA) -> uart_rx_i        uart_tx_o -> ftdi_rxd (L4, FPGA -> FT231X)
//   led[6:0] <- weft_board led_o[6:0]                  led[7] <- PLL lock
//   btn_pwr_n (D6, the PWR button, low when pressed) -> reset
//   wifi_gpio0 (L2) <- 1: keeps the ESP32 (if fitted) from pulling the FPGA's PROGRAMN / resetting
//
// Clock: fout = 25 MHz * ClkfbDiv / ClkiDiv, fvco = fout * ClkopDiv (400..800 MHz allowed); the
// table below was computed with ecppll (prjtrellis) and every entry has fvco = 560..630 MHz.
// The UART runs at Baud (default 1 Mbaud; the FT231X makes 3 MHz / n exactly, n = 1, 2, 3, ...),
// so ClksPerBit = SysClkMhz * 1e6 / Baud must be an integer: checked at elaboration.
// Reset: asserted asynchronously while the PLL is unlocked or the PWR button is held, released
// synchronously after 4 clk_sys edges (weft_board and the device then leave reset together).
// Build with `make fpga` (the open flow, fpga/Makefile).
`include "weft_assert.svh"

module weft_ulx3s #(
  parameter int SysClkMhz = 50,       // one of 20, 25, 30, 40, 50, 60, 65, 70, 75, 80
  parameter int Baud      = 1000000,
  // The device's shape: an 8x8 array and, by these defaults, a SIMT core of 2 warps x 4 threads.
  // `make fpga` sets SimtWarps = 0 (no SIMT core; SIMT_WARPS / SIMT_THREADS choose one): next to
  // the array a core fits the 85F (4 x 2: 70 % of the logic cells with the PEs on DSPs) but has
  // not routed yet (docs/fpga.md "Resources and timing").
  // The post-synthesis smoke test (make postsynth-smoke) synthesizes the same top with a smaller
  // shape so that its netlist builds and simulates faster.
  parameter int Rows        = 8,
  parameter int Cols        = 8,
  parameter int AccDepth    = 256,
  parameter int SpadLines   = 2048,
  parameter int SimtWarps   = 2,      // 0: no SIMT core
  parameter int SimtThreads = 4,
  parameter int SimtBanks   = 4,
  parameter bit MemEcc      = 1'b0    // SECDED on scratchpad and accumulator (make fpga MEM_ECC=1)
) (
  input  logic       clk_25mhz,
  input  logic       btn_pwr_n,
  input  logic       ftdi_txd,
  output logic       ftdi_rxd,
  output logic [7:0] led,
  output logic       wifi_gpio0
);

  // ---------------------------------------------------------------- PLL parameters (ecppll)
  localparam int ClkiDiv  = (SysClkMhz == 20) ? 5 : (SysClkMhz == 25) ? 1 : (SysClkMhz == 30) ? 5 :
                            (SysClkMhz == 40) ? 5 : (SysClkMhz == 50) ? 1 : (SysClkMhz == 60) ? 5 :
                            (SysClkMhz == 65) ? 5 : (SysClkMhz == 70) ? 5 : (SysClkMhz == 75) ? 1 :
                            (SysClkMhz == 80) ? 5 : 0;
  localparam int ClkfbDiv = (SysClkMhz == 20) ? 4 : (SysClkMhz == 25) ? 1 : (SysClkMhz == 30) ? 6 :
                            (SysClkMhz == 40) ? 8 : (SysClkMhz == 50) ? 2 : (SysClkMhz == 60) ? 12 :
                            (SysClkMhz == 65) ? 13 : (SysClkMhz == 70) ? 14 : (SysClkMhz == 75) ? 3 :
                            (SysClkMhz == 80) ? 16 : 0;
  localparam int ClkopDiv = (SysClkMhz == 20) ? 30 : (SysClkMhz == 25) ? 24 : (SysClkMhz == 30) ? 20 :
                            (SysClkMhz == 40) ? 15 : (SysClkMhz == 50) ? 12 : (SysClkMhz == 60) ? 10 :
                            (SysClkMhz == 65) ? 9 : (SysClkMhz == 70) ? 9 : (SysClkMhz == 75) ? 8 :
                            (SysClkMhz == 80) ? 7 : 0;
  localparam int ClkopCphase = (SysClkMhz == 20) ? 15 : (SysClkMhz == 25) ? 11 : (SysClkMhz == 30) ? 9 :
                               (SysClkMhz == 40) ? 7 : (SysClkMhz == 50) ? 5 :
                               (SysClkMhz == 80) ? 3 : 4;
  localparam int ClksPerBit  = SysClkMhz * 1000000 / Baud;

  if (ClkiDiv == 0) begin : g_bad_clk
    `WEFT_ELAB_ERROR("weft_ulx3s: SysClkMhz must be one of 20, 25, 30, 40, 50, 60, 65, 70, 75, 80")
  end
  if (ClksPerBit * Baud != SysClkMhz * 1000000 || ClksPerBit < 8) begin : g_bad_baud
    `WEFT_ELAB_ERROR("weft_ulx3s: SysClkMhz * 1e6 / Baud must be an integer >= 8")
  end

  // ---------------------------------------------------------------- clock
  logic clk_sys, pll_lock, unused_clkintfb;

  (* FREQUENCY_PIN_CLKI = "25" *)
  (* ICP_CURRENT = "12" *) (* LPF_RESISTOR = "8" *) (* MFG_ENABLE_FILTEROPAMP = "1" *)
  (* MFG_GMCREF_SEL = "2" *)
  EHXPLLL #(
    .PLLRST_ENA      ("DISABLED"),
    .INTFB_WAKE      ("DISABLED"),
    .STDBY_ENABLE    ("DISABLED"),
    .DPHASE_SOURCE   ("DISABLED"),
    .OUTDIVIDER_MUXA ("DIVA"),
    .OUTDIVIDER_MUXB ("DIVB"),
    .OUTDIVIDER_MUXC ("DIVC"),
    .OUTDIVIDER_MUXD ("DIVD"),
    .CLKI_DIV        (ClkiDiv),
    .CLKOP_ENABLE    ("ENABLED"),
    .CLKOP_DIV       (ClkopDiv),
    .CLKOP_CPHASE    (ClkopCphase),
    .CLKOP_FPHASE    (0),
    .FEEDBK_PATH     ("CLKOP"),
    .CLKFB_DIV       (ClkfbDiv)
  ) u_pll (
    .RST          (1'b0),
    .STDBY        (1'b0),
    .CLKI         (clk_25mhz),
    .CLKOP        (clk_sys),
    .CLKFB        (clk_sys),
    .CLKINTFB     (unused_clkintfb),
    .PHASESEL0    (1'b0),
    .PHASESEL1    (1'b0),
    .PHASEDIR     (1'b1),
    .PHASESTEP    (1'b1),
    .PHASELOADREG (1'b1),
    .PLLWAKESYNC  (1'b0),
    .ENCLKOP      (1'b0),
    .LOCK         (pll_lock)
  );

  // ---------------------------------------------------------------- reset
  logic       arst_n;
  logic [3:0] rst_sync_q;

  assign arst_n = pll_lock & btn_pwr_n;

  always_ff @(posedge clk_sys or negedge arst_n) begin : p_rst_sync
    if (!arst_n) rst_sync_q <= 4'b0;
    else         rst_sync_q <= {rst_sync_q[2:0], 1'b1};
  end

  // ---------------------------------------------------------------- board
  logic [7:0] board_led;

  weft_board #(
    .Rows          (Rows),
    .Cols          (Cols),
    .AccDepth      (AccDepth),
    .SpadLines     (SpadLines),
    .SpadBanks     (4),
    .SimtWarps     (SimtWarps),
    .SimtThreads   (SimtThreads),
    .SimtBanks     (SimtBanks),
    .SimtDmemBytes (16384),
    .SimtImemWords (1024),
    .MemEcc        (MemEcc),
    .HostMemBytes  (65536),
    .ClksPerBit    (ClksPerBit),
    .ClkHz         (SysClkMhz * 1000000)
  ) u_board (
    .clk_i     (clk_sys),
    .rst_ni    (rst_sync_q[3]),
    .uart_rx_i (ftdi_txd),
    .uart_tx_o (ftdi_rxd),
    .led_o     (board_led)
  );

  logic unused_board_led7;  // weft_board's led_o[7] is spare; the board shows PLL lock there
  assign unused_board_led7 = board_led[7];
  assign led        = {pll_lock, board_led[6:0]};
  assign wifi_gpio0 = 1'b1;

endmodule
