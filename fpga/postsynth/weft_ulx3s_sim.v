// weft_ulx3s_sim (post-synthesis simulation only): the synthesized netlist of the ULX3S board top
// (module weft_ulx3s, fpga/build/ulx3s/weft_syn.v: the same netlist nextpnr places for the bitstream)
// behind the pins of weft_board, so that the board simulator (weft::sim::BoardSim, any
// model with clk_i, rst_ni, uart_rx_i, uart_tx_o, led_o) drives it over a pty like the RTL board.
//   clk_i -> clk_25mhz (the EHXPLLL stand-in passes it through: the simulation clock is clk_sys)
//   rst_ni -> btn_pwr_n (the netlist's reset synchronizer releases the device 4 clocks later)
//   uart_rx_i -> ftdi_txd, ftdi_rxd -> uart_tx_o, led -> led_o
// The UART bit time is the bitstream's: ClksPerBit = SysClkMhz (1 Mbaud). See scripts/fpga_postsynth.sh.
module weft_ulx3s_sim (
  input  wire       clk_i,
  input  wire       rst_ni,
  input  wire       uart_rx_i,
  output wire       uart_tx_o,
  output wire [7:0] led_o
);
  wire unused_wifi_gpio0;

  weft_ulx3s u_netlist (
    .clk_25mhz  (clk_i),
    .btn_pwr_n  (rst_ni),
    .ftdi_txd   (uart_rx_i),
    .ftdi_rxd   (uart_tx_o),
    .led        (led_o),
    .wifi_gpio0 (unused_wifi_gpio0)
  );
endmodule
