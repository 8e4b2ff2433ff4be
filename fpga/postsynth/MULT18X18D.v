// MULT18X18D (post-synthesis simulation only): a behavioural model of the ECP5 18x18 multiplier in
// the one configuration Yosys' synth_ecp5 instantiates (techlibs/lattice/dsp_map_18x18.v): no input,
// pipeline or output registers, C unused, SOURCEA/SOURCEB 0; P = A * B, each operand signed when
// SIGNEDA / SIGNEDB is 1. Yosys ships only a black box for this cell. Any other configuration is
// rejected at time 0 (a register parameter other than "NONE"). Used by scripts/fpga_postsynth.sh
// (docs/fpga.md), never synthesized.
/* verilator lint_off UNUSEDSIGNAL */
/* verilator lint_off UNUSEDPARAM */
module MULT18X18D (
  A17, A16, A15, A14, A13, A12, A11, A10, A9, A8, A7, A6, A5, A4, A3, A2, A1, A0,
  B17, B16, B15, B14, B13, B12, B11, B10, B9, B8, B7, B6, B5, B4, B3, B2, B1, B0,
  C17, C16, C15, C14, C13, C12, C11, C10, C9, C8, C7, C6, C5, C4, C3, C2, C1, C0,
  SIGNEDA, SIGNEDB, SOURCEA, SOURCEB,
  P35, P34, P33, P32, P31, P30, P29, P28, P27, P26, P25, P24, P23, P22, P21, P20, P19, P18, P17,
  P16, P15, P14, P13, P12, P11, P10, P9, P8, P7, P6, P5, P4, P3, P2, P1, P0,
  SIGNEDP
);
  parameter REG_INPUTA_CLK   = "NONE";
  parameter REG_INPUTA_CE    = "CE0";
  parameter REG_INPUTA_RST   = "RST0";
  parameter REG_INPUTB_CLK   = "NONE";
  parameter REG_INPUTB_CE    = "CE0";
  parameter REG_INPUTB_RST   = "RST0";
  parameter REG_INPUTC_CLK   = "NONE";
  parameter REG_INPUTC_CE    = "CE0";
  parameter REG_INPUTC_RST   = "RST0";
  parameter REG_PIPELINE_CLK = "NONE";
  parameter REG_PIPELINE_CE  = "CE0";
  parameter REG_PIPELINE_RST = "RST0";
  parameter REG_OUTPUT_CLK   = "NONE";
  parameter REG_OUTPUT_CE    = "CE0";
  parameter REG_OUTPUT_RST   = "RST0";
  parameter CLK0_DIV         = "ENABLED";
  parameter CLK1_DIV         = "ENABLED";
  parameter CLK2_DIV         = "ENABLED";
  parameter CLK3_DIV         = "ENABLED";
  parameter HIGHSPEED_CLK    = "NONE";
  parameter GSR              = "ENABLED";
  parameter CAS_MATCH_REG    = "FALSE";
  parameter SOURCEB_MODE     = "B_SHIFT";
  parameter MULT_BYPASS      = "DISABLED";
  parameter RESETMODE        = "SYNC";

  input  A17, A16, A15, A14, A13, A12, A11, A10, A9, A8, A7, A6, A5, A4, A3, A2, A1, A0;
  input  B17, B16, B15, B14, B13, B12, B11, B10, B9, B8, B7, B6, B5, B4, B3, B2, B1, B0;
  input  C17, C16, C15, C14, C13, C12, C11, C10, C9, C8, C7, C6, C5, C4, C3, C2, C1, C0;
  input  SIGNEDA, SIGNEDB, SOURCEA, SOURCEB;
  output P35, P34, P33, P32, P31, P30, P29, P28, P27, P26, P25, P24, P23, P22, P21, P20, P19, P18, P17, P16, P15, P14, P13, P12, P11, P10, P9, P8, P7, P6, P5, P4, P3, P2, P1, P0;
  output SIGNEDP;

  initial begin
    if (REG_INPUTA_CLK != "NONE" || REG_INPUTB_CLK != "NONE" || REG_INPUTC_CLK != "NONE" ||
        REG_PIPELINE_CLK != "NONE" || REG_OUTPUT_CLK != "NONE")
      $fatal(1, "MULT18X18D model: only the unregistered configuration is modelled");
  end

  wire [17:0] a = {A17, A16, A15, A14, A13, A12, A11, A10, A9, A8, A7, A6, A5, A4, A3, A2, A1, A0};
  wire [17:0] b = {B17, B16, B15, B14, B13, B12, B11, B10, B9, B8, B7, B6, B5, B4, B3, B2, B1, B0};
  wire signed [18:0] as = {SIGNEDA & a[17], a};
  wire signed [18:0] bs = {SIGNEDB & b[17], b};
  wire signed [37:0] p  = as * bs;

  assign {P35, P34, P33, P32, P31, P30, P29, P28, P27, P26, P25, P24, P23, P22, P21, P20, P19, P18, P17, P16, P15, P14, P13, P12, P11, P10, P9, P8, P7, P6, P5, P4, P3, P2, P1, P0} = p[35:0];
  assign SIGNEDP = SIGNEDA | SIGNEDB;
endmodule
/* verilator lint_on UNUSEDPARAM */
/* verilator lint_on UNUSEDSIGNAL */
