// EHXPLLL (lint and post-synthesis simulation only): a port- and parameter-compatible stand-in for
// the ECP5 PLL primitive, so that `make -C fpga lint` can check fpga/ulx3s/weft_ulx3s.sv and the
// synthesized netlist of weft_ulx3s can be simulated (scripts/fpga_postsynth.sh): CLKOP follows CLKI
// (the simulation's clock is the system clock) and LOCK is 1. Never synthesized (Yosys maps the real
// primitive) and never part of rtl/.
/* verilator lint_off UNUSEDSIGNAL */
/* verilator lint_off UNUSEDPARAM */
module EHXPLLL #(
  parameter string PLLRST_ENA      = "DISABLED",
  parameter string INTFB_WAKE      = "DISABLED",
  parameter string STDBY_ENABLE    = "DISABLED",
  parameter string DPHASE_SOURCE   = "DISABLED",
  parameter string OUTDIVIDER_MUXA = "DIVA",
  parameter string OUTDIVIDER_MUXB = "DIVB",
  parameter string OUTDIVIDER_MUXC = "DIVC",
  parameter string OUTDIVIDER_MUXD = "DIVD",
  parameter string CLKOP_ENABLE    = "ENABLED",
  parameter string FEEDBK_PATH     = "CLKOP",
  parameter int    CLKI_DIV        = 1,
  parameter int    CLKOP_DIV       = 8,
  parameter int    CLKOP_CPHASE    = 0,
  parameter int    CLKOP_FPHASE    = 0,
  parameter int    CLKFB_DIV       = 1
) (
  input  logic RST,
  input  logic STDBY,
  input  logic CLKI,
  input  logic CLKFB,
  input  logic PHASESEL0,
  input  logic PHASESEL1,
  input  logic PHASEDIR,
  input  logic PHASESTEP,
  input  logic PHASELOADREG,
  input  logic PLLWAKESYNC,
  input  logic ENCLKOP,
  output logic CLKOP,
  output logic CLKINTFB,
  output logic LOCK
);
  assign CLKOP    = CLKI;
  assign CLKINTFB = 1'b0;
  assign LOCK     = 1'b1;
endmodule
/* verilator lint_on UNUSEDPARAM */
/* verilator lint_on UNUSEDSIGNAL */
