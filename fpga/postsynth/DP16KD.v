// DP16KD (post-synthesis simulation only): a behavioural model of the ECP5 18 Kbit block RAM in the
// configurations Yosys' synth_ecp5 instantiates (techlibs/lattice/brams_map_16kd.v, brams_16kd.txt):
//   - true dual port ($__DP16KD_): each port 1, 2, 4, 9 or 18 bits wide, WRITEMODE NORMAL (read data
//     unchanged by a write), WRITETHROUGH (the new data) or READBEFOREWRITE (the old data); at 18
//     bits AD*[1:0] are the two byte enables, below 18 bits WE* alone writes;
//   - pseudo dual port ($__PDPW16KD_): port A writes 36 bits (DIA = bits 17..0, DIB = 35..18, byte
//     enables on ADA[3:0]), port B reads 36 (DOA = 17..0, DOB = 35..18) or 18 bits.
// Storage is 1024 words of 18 bits (two 9-bit bytes, bits 8 and 17 the ninth bits). A port of 1, 2
// or 4 bits addresses the data bits only: the eight data bits of byte b of word W hold bit
// positions 8b .. 8b+7 of the 16 data bits, which the narrow port sees as consecutive units (word
// W = AD[13:4], unit = AD[3:log2(width)]); 9 bits: byte AD[3], word AD[13:4]; 36 bits: words 2V and
// 2V+1 (V = AD[13:5]) as the low and high 18 bits. NOREG only (REGMODE OUTREG is rejected at time
// 0), chip selects compared with CSDECODE, CLK*MUX "INV" inverts the clock, RST* clears the read
// data (RESETMODE ASYNC: at once; SYNC: at the clock edge). INITVAL_xx holds words 16xx .. 16xx+15
// at 20-bit strides (the layout brams_map_16kd.v writes). Yosys ships only a black box for this
// cell. Used by scripts/fpga_postsynth.sh (docs/fpga.md), never synthesized.
/* verilator lint_off UNUSEDSIGNAL */
/* verilator lint_off UNUSEDPARAM */
/* verilator lint_off MULTIDRIVEN */
module DP16KD (
  DIA17, DIA16, DIA15, DIA14, DIA13, DIA12, DIA11, DIA10, DIA9, DIA8, DIA7, DIA6, DIA5, DIA4, DIA3, DIA2, DIA1, DIA0, ADA13, ADA12, ADA11, ADA10, ADA9, ADA8, ADA7, ADA6, ADA5, ADA4, ADA3, ADA2, ADA1, ADA0, CEA, OCEA, CLKA, WEA, RSTA, CSA2, CSA1, CSA0, DOA17, DOA16, DOA15, DOA14, DOA13, DOA12, DOA11, DOA10, DOA9, DOA8, DOA7, DOA6, DOA5, DOA4, DOA3, DOA2, DOA1, DOA0, DIB17, DIB16, DIB15, DIB14, DIB13, DIB12, DIB11, DIB10, DIB9, DIB8, DIB7, DIB6, DIB5, DIB4, DIB3, DIB2, DIB1, DIB0, ADB13, ADB12, ADB11, ADB10, ADB9, ADB8, ADB7, ADB6, ADB5, ADB4, ADB3, ADB2, ADB1, ADB0, CEB, OCEB, CLKB, WEB, RSTB, CSB2, CSB1, CSB0, DOB17, DOB16, DOB15, DOB14, DOB13, DOB12, DOB11, DOB10, DOB9, DOB8, DOB7, DOB6, DOB5, DOB4, DOB3, DOB2, DOB1, DOB0
);
  input  DIA17, DIA16, DIA15, DIA14, DIA13, DIA12, DIA11, DIA10, DIA9, DIA8, DIA7, DIA6, DIA5, DIA4, DIA3, DIA2, DIA1, DIA0;
  input  ADA13, ADA12, ADA11, ADA10, ADA9, ADA8, ADA7, ADA6, ADA5, ADA4, ADA3, ADA2, ADA1, ADA0;
  input  CEA, OCEA, CLKA, WEA, RSTA, CSA2, CSA1, CSA0;
  output DOA17, DOA16, DOA15, DOA14, DOA13, DOA12, DOA11, DOA10, DOA9, DOA8, DOA7, DOA6, DOA5, DOA4, DOA3, DOA2, DOA1, DOA0;
  input  DIB17, DIB16, DIB15, DIB14, DIB13, DIB12, DIB11, DIB10, DIB9, DIB8, DIB7, DIB6, DIB5, DIB4, DIB3, DIB2, DIB1, DIB0;
  input  ADB13, ADB12, ADB11, ADB10, ADB9, ADB8, ADB7, ADB6, ADB5, ADB4, ADB3, ADB2, ADB1, ADB0;
  input  CEB, OCEB, CLKB, WEB, RSTB, CSB2, CSB1, CSB0;
  output DOB17, DOB16, DOB15, DOB14, DOB13, DOB12, DOB11, DOB10, DOB9, DOB8, DOB7, DOB6, DOB5, DOB4, DOB3, DOB2, DOB1, DOB0;

  parameter DATA_WIDTH_A = 18;
  parameter DATA_WIDTH_B = 18;
  parameter REGMODE_A = "NOREG";
  parameter REGMODE_B = "NOREG";
  parameter RESETMODE = "SYNC";
  parameter ASYNC_RESET_RELEASE = "SYNC";
  parameter CSDECODE_A = "0b000";
  parameter CSDECODE_B = "0b000";
  parameter WRITEMODE_A = "NORMAL";
  parameter WRITEMODE_B = "NORMAL";
  parameter CLKAMUX = "CLKA";
  parameter CLKBMUX = "CLKB";
  parameter GSR = "ENABLED";
  parameter INIT_DATA = "STATIC";
  parameter WID = 0;
  parameter [319:0] INITVAL_00 = 320'h0;
  parameter [319:0] INITVAL_01 = 320'h0;
  parameter [319:0] INITVAL_02 = 320'h0;
  parameter [319:0] INITVAL_03 = 320'h0;
  parameter [319:0] INITVAL_04 = 320'h0;
  parameter [319:0] INITVAL_05 = 320'h0;
  parameter [319:0] INITVAL_06 = 320'h0;
  parameter [319:0] INITVAL_07 = 320'h0;
  parameter [319:0] INITVAL_08 = 320'h0;
  parameter [319:0] INITVAL_09 = 320'h0;
  parameter [319:0] INITVAL_0A = 320'h0;
  parameter [319:0] INITVAL_0B = 320'h0;
  parameter [319:0] INITVAL_0C = 320'h0;
  parameter [319:0] INITVAL_0D = 320'h0;
  parameter [319:0] INITVAL_0E = 320'h0;
  parameter [319:0] INITVAL_0F = 320'h0;
  parameter [319:0] INITVAL_10 = 320'h0;
  parameter [319:0] INITVAL_11 = 320'h0;
  parameter [319:0] INITVAL_12 = 320'h0;
  parameter [319:0] INITVAL_13 = 320'h0;
  parameter [319:0] INITVAL_14 = 320'h0;
  parameter [319:0] INITVAL_15 = 320'h0;
  parameter [319:0] INITVAL_16 = 320'h0;
  parameter [319:0] INITVAL_17 = 320'h0;
  parameter [319:0] INITVAL_18 = 320'h0;
  parameter [319:0] INITVAL_19 = 320'h0;
  parameter [319:0] INITVAL_1A = 320'h0;
  parameter [319:0] INITVAL_1B = 320'h0;
  parameter [319:0] INITVAL_1C = 320'h0;
  parameter [319:0] INITVAL_1D = 320'h0;
  parameter [319:0] INITVAL_1E = 320'h0;
  parameter [319:0] INITVAL_1F = 320'h0;
  parameter [319:0] INITVAL_20 = 320'h0;
  parameter [319:0] INITVAL_21 = 320'h0;
  parameter [319:0] INITVAL_22 = 320'h0;
  parameter [319:0] INITVAL_23 = 320'h0;
  parameter [319:0] INITVAL_24 = 320'h0;
  parameter [319:0] INITVAL_25 = 320'h0;
  parameter [319:0] INITVAL_26 = 320'h0;
  parameter [319:0] INITVAL_27 = 320'h0;
  parameter [319:0] INITVAL_28 = 320'h0;
  parameter [319:0] INITVAL_29 = 320'h0;
  parameter [319:0] INITVAL_2A = 320'h0;
  parameter [319:0] INITVAL_2B = 320'h0;
  parameter [319:0] INITVAL_2C = 320'h0;
  parameter [319:0] INITVAL_2D = 320'h0;
  parameter [319:0] INITVAL_2E = 320'h0;
  parameter [319:0] INITVAL_2F = 320'h0;
  parameter [319:0] INITVAL_30 = 320'h0;
  parameter [319:0] INITVAL_31 = 320'h0;
  parameter [319:0] INITVAL_32 = 320'h0;
  parameter [319:0] INITVAL_33 = 320'h0;
  parameter [319:0] INITVAL_34 = 320'h0;
  parameter [319:0] INITVAL_35 = 320'h0;
  parameter [319:0] INITVAL_36 = 320'h0;
  parameter [319:0] INITVAL_37 = 320'h0;
  parameter [319:0] INITVAL_38 = 320'h0;
  parameter [319:0] INITVAL_39 = 320'h0;
  parameter [319:0] INITVAL_3A = 320'h0;
  parameter [319:0] INITVAL_3B = 320'h0;
  parameter [319:0] INITVAL_3C = 320'h0;
  parameter [319:0] INITVAL_3D = 320'h0;
  parameter [319:0] INITVAL_3E = 320'h0;
  parameter [319:0] INITVAL_3F = 320'h0;

  wire [17:0] dia = {DIA17, DIA16, DIA15, DIA14, DIA13, DIA12, DIA11, DIA10, DIA9, DIA8, DIA7, DIA6, DIA5, DIA4, DIA3, DIA2, DIA1, DIA0};
  wire [17:0] dib = {DIB17, DIB16, DIB15, DIB14, DIB13, DIB12, DIB11, DIB10, DIB9, DIB8, DIB7, DIB6, DIB5, DIB4, DIB3, DIB2, DIB1, DIB0};
  wire [13:0] ada = {ADA13, ADA12, ADA11, ADA10, ADA9, ADA8, ADA7, ADA6, ADA5, ADA4, ADA3, ADA2, ADA1, ADA0};
  wire [13:0] adb = {ADB13, ADB12, ADB11, ADB10, ADB9, ADB8, ADB7, ADB6, ADB5, ADB4, ADB3, ADB2, ADB1, ADB0};
  reg  [17:0] doa, dob;
  assign {DOA17, DOA16, DOA15, DOA14, DOA13, DOA12, DOA11, DOA10, DOA9, DOA8, DOA7, DOA6, DOA5, DOA4, DOA3, DOA2, DOA1, DOA0} = doa;
  assign {DOB17, DOB16, DOB15, DOB14, DOB13, DOB12, DOB11, DOB10, DOB9, DOB8, DOB7, DOB6, DOB5, DOB4, DOB3, DOB2, DOB1, DOB0} = dob;

  reg [17:0] mem [0:1023];

  // Bit position in an 18-bit word of data bit d (0..15): the ninth bit of each byte is skipped.
  function integer dpos(input integer d);
    dpos = (d < 8) ? d : d + 1;
  endfunction

  function [2:0] csval(input [8*5-1:0] s);  // "0bXYZ"
    csval = {s[23:16] == "1", s[15:8] == "1", s[7:0] == "1"};
  endfunction

  wire sel_a = ({CSA2, CSA1, CSA0} == csval(CSDECODE_A));
  wire sel_b = ({CSB2, CSB1, CSB0} == csval(CSDECODE_B));
  wire clk_a = (CLKAMUX == "INV") ? !CLKA : CLKA;
  wire clk_b = (CLKBMUX == "INV") ? !CLKB : CLKB;
  localparam PDP = (DATA_WIDTH_A == 36);  // A writes 36 bits, B reads 36 or 18

  integer i;
  initial begin
    if (REGMODE_A != "NOREG" || REGMODE_B != "NOREG") begin
      $display("DP16KD model: REGMODE OUTREG is not modelled (%m)");
      $finish;
    end
    for (i = 0; i < 16; i = i + 1) mem[0 + i] = INITVAL_00[i*20 +: 18];
    for (i = 0; i < 16; i = i + 1) mem[16 + i] = INITVAL_01[i*20 +: 18];
    for (i = 0; i < 16; i = i + 1) mem[32 + i] = INITVAL_02[i*20 +: 18];
    for (i = 0; i < 16; i = i + 1) mem[48 + i] = INITVAL_03[i*20 +: 18];
    for (i = 0; i < 16; i = i + 1) mem[64 + i] = INITVAL_04[i*20 +: 18];
    for (i = 0; i < 16; i = i + 1) mem[80 + i] = INITVAL_05[i*20 +: 18];
    for (i = 0; i < 16; i = i + 1) mem[96 + i] = INITVAL_06[i*20 +: 18];
    for (i = 0; i < 16; i = i + 1) mem[112 + i] = INITVAL_07[i*20 +: 18];
    for (i = 0; i < 16; i = i + 1) mem[128 + i] = INITVAL_08[i*20 +: 18];
    for (i = 0; i < 16; i = i + 1) mem[144 + i] = INITVAL_09[i*20 +: 18];
    for (i = 0; i < 16; i = i + 1) mem[160 + i] = INITVAL_0A[i*20 +: 18];
    for (i = 0; i < 16; i = i + 1) mem[176 + i] = INITVAL_0B[i*20 +: 18];
    for (i = 0; i < 16; i = i + 1) mem[192 + i] = INITVAL_0C[i*20 +: 18];
    for (i = 0; i < 16; i = i + 1) mem[208 + i] = INITVAL_0D[i*20 +: 18];
    for (i = 0; i < 16; i = i + 1) mem[224 + i] = INITVAL_0E[i*20 +: 18];
    for (i = 0; i < 16; i = i + 1) mem[240 + i] = INITVAL_0F[i*20 +: 18];
    for (i = 0; i < 16; i = i + 1) mem[256 + i] = INITVAL_10[i*20 +: 18];
    for (i = 0; i < 16; i = i + 1) mem[272 + i] = INITVAL_11[i*20 +: 18];
    for (i = 0; i < 16; i = i + 1) mem[288 + i] = INITVAL_12[i*20 +: 18];
    for (i = 0; i < 16; i = i + 1) mem[304 + i] = INITVAL_13[i*20 +: 18];
    for (i = 0; i < 16; i = i + 1) mem[320 + i] = INITVAL_14[i*20 +: 18];
    for (i = 0; i < 16; i = i + 1) mem[336 + i] = INITVAL_15[i*20 +: 18];
    for (i = 0; i < 16; i = i + 1) mem[352 + i] = INITVAL_16[i*20 +: 18];
    for (i = 0; i < 16; i = i + 1) mem[368 + i] = INITVAL_17[i*20 +: 18];
    for (i = 0; i < 16; i = i + 1) mem[384 + i] = INITVAL_18[i*20 +: 18];
    for (i = 0; i < 16; i = i + 1) mem[400 + i] = INITVAL_19[i*20 +: 18];
    for (i = 0; i < 16; i = i + 1) mem[416 + i] = INITVAL_1A[i*20 +: 18];
    for (i = 0; i < 16; i = i + 1) mem[432 + i] = INITVAL_1B[i*20 +: 18];
    for (i = 0; i < 16; i = i + 1) mem[448 + i] = INITVAL_1C[i*20 +: 18];
    for (i = 0; i < 16; i = i + 1) mem[464 + i] = INITVAL_1D[i*20 +: 18];
    for (i = 0; i < 16; i = i + 1) mem[480 + i] = INITVAL_1E[i*20 +: 18];
    for (i = 0; i < 16; i = i + 1) mem[496 + i] = INITVAL_1F[i*20 +: 18];
    for (i = 0; i < 16; i = i + 1) mem[512 + i] = INITVAL_20[i*20 +: 18];
    for (i = 0; i < 16; i = i + 1) mem[528 + i] = INITVAL_21[i*20 +: 18];
    for (i = 0; i < 16; i = i + 1) mem[544 + i] = INITVAL_22[i*20 +: 18];
    for (i = 0; i < 16; i = i + 1) mem[560 + i] = INITVAL_23[i*20 +: 18];
    for (i = 0; i < 16; i = i + 1) mem[576 + i] = INITVAL_24[i*20 +: 18];
    for (i = 0; i < 16; i = i + 1) mem[592 + i] = INITVAL_25[i*20 +: 18];
    for (i = 0; i < 16; i = i + 1) mem[608 + i] = INITVAL_26[i*20 +: 18];
    for (i = 0; i < 16; i = i + 1) mem[624 + i] = INITVAL_27[i*20 +: 18];
    for (i = 0; i < 16; i = i + 1) mem[640 + i] = INITVAL_28[i*20 +: 18];
    for (i = 0; i < 16; i = i + 1) mem[656 + i] = INITVAL_29[i*20 +: 18];
    for (i = 0; i < 16; i = i + 1) mem[672 + i] = INITVAL_2A[i*20 +: 18];
    for (i = 0; i < 16; i = i + 1) mem[688 + i] = INITVAL_2B[i*20 +: 18];
    for (i = 0; i < 16; i = i + 1) mem[704 + i] = INITVAL_2C[i*20 +: 18];
    for (i = 0; i < 16; i = i + 1) mem[720 + i] = INITVAL_2D[i*20 +: 18];
    for (i = 0; i < 16; i = i + 1) mem[736 + i] = INITVAL_2E[i*20 +: 18];
    for (i = 0; i < 16; i = i + 1) mem[752 + i] = INITVAL_2F[i*20 +: 18];
    for (i = 0; i < 16; i = i + 1) mem[768 + i] = INITVAL_30[i*20 +: 18];
    for (i = 0; i < 16; i = i + 1) mem[784 + i] = INITVAL_31[i*20 +: 18];
    for (i = 0; i < 16; i = i + 1) mem[800 + i] = INITVAL_32[i*20 +: 18];
    for (i = 0; i < 16; i = i + 1) mem[816 + i] = INITVAL_33[i*20 +: 18];
    for (i = 0; i < 16; i = i + 1) mem[832 + i] = INITVAL_34[i*20 +: 18];
    for (i = 0; i < 16; i = i + 1) mem[848 + i] = INITVAL_35[i*20 +: 18];
    for (i = 0; i < 16; i = i + 1) mem[864 + i] = INITVAL_36[i*20 +: 18];
    for (i = 0; i < 16; i = i + 1) mem[880 + i] = INITVAL_37[i*20 +: 18];
    for (i = 0; i < 16; i = i + 1) mem[896 + i] = INITVAL_38[i*20 +: 18];
    for (i = 0; i < 16; i = i + 1) mem[912 + i] = INITVAL_39[i*20 +: 18];
    for (i = 0; i < 16; i = i + 1) mem[928 + i] = INITVAL_3A[i*20 +: 18];
    for (i = 0; i < 16; i = i + 1) mem[944 + i] = INITVAL_3B[i*20 +: 18];
    for (i = 0; i < 16; i = i + 1) mem[960 + i] = INITVAL_3C[i*20 +: 18];
    for (i = 0; i < 16; i = i + 1) mem[976 + i] = INITVAL_3D[i*20 +: 18];
    for (i = 0; i < 16; i = i + 1) mem[992 + i] = INITVAL_3E[i*20 +: 18];
    for (i = 0; i < 16; i = i + 1) mem[1008 + i] = INITVAL_3F[i*20 +: 18];
    doa = 18'd0;
    dob = 18'd0;
  end

  // Read of a port of width wd at address ad (narrow widths: zero-extended to 18 bits).
  function [17:0] rd(input integer wd, input [13:0] ad, input [17:0] word);
    integer k, u;
    begin
      rd = 18'd0;
      case (wd)
        1, 2, 4: begin
          u = (ad[3:0] >> ((wd == 1) ? 0 : (wd == 2) ? 1 : 2)) * wd;  // first data bit of the unit
          for (k = 0; k < wd; k = k + 1) rd[k] = word[dpos(u + k)];
        end
        9:       rd[8:0] = ad[3] ? word[17:9] : word[8:0];
        default: rd = word;
      endcase
    end
  endfunction

  // A write of a port of width wd (18: byte enables be[1:0]) into word.
  function [17:0] wr(input integer wd, input [13:0] ad, input [17:0] word, input [17:0] di,
                     input [1:0] be);
    integer k, u;
    begin
      wr = word;
      case (wd)
        1, 2, 4: begin
          u = (ad[3:0] >> ((wd == 1) ? 0 : (wd == 2) ? 1 : 2)) * wd;
          for (k = 0; k < wd; k = k + 1) wr[dpos(u + k)] = di[k];
        end
        9:       if (ad[3]) wr[17:9] = di[8:0]; else wr[8:0] = di[8:0];
        default: begin
          if (be[0]) wr[8:0]  = di[8:0];
          if (be[1]) wr[17:9] = di[17:9];
        end
      endcase
    end
  endfunction

  wire [9:0] wa = ada[13:4];
  wire [9:0] wb = adb[13:4];
  wire [8:0] va = ada[13:5];
  wire [8:0] vb = adb[13:5];

  // Port A
  always @(posedge clk_a) begin : p_a
    reg [17:0] old;
    if (CEA && sel_a) begin
      if (PDP) begin
        if (WEA) begin
          if (ada[0]) mem[{va, 1'b0}][8:0]  <= dia[8:0];
          if (ada[1]) mem[{va, 1'b0}][17:9] <= dia[17:9];
          if (ada[2]) mem[{va, 1'b1}][8:0]  <= dib[8:0];
          if (ada[3]) mem[{va, 1'b1}][17:9] <= dib[17:9];
        end
      end else begin
        old = mem[wa];
        if (WEA) begin
          mem[wa] <= wr(DATA_WIDTH_A, ada, old, dia, ada[1:0]);
          if (WRITEMODE_A == "WRITETHROUGH")         doa <= rd(DATA_WIDTH_A, ada, wr(DATA_WIDTH_A, ada, old, dia, ada[1:0]));
          else if (WRITEMODE_A == "READBEFOREWRITE") doa <= rd(DATA_WIDTH_A, ada, old);
        end else begin
          doa <= rd(DATA_WIDTH_A, ada, old);
        end
      end
    end
    if (RESETMODE == "SYNC" && RSTA) doa <= 18'd0;
  end

  // Port B
  always @(posedge clk_b) begin : p_b
    reg [17:0] old;
    if (CEB && sel_b) begin
      if (PDP) begin
        if (DATA_WIDTH_B == 36) begin
          doa <= mem[{vb, 1'b0}];
          dob <= mem[{vb, 1'b1}];
        end else begin
          dob <= mem[wb];
        end
      end else begin
        old = mem[wb];
        if (WEB) begin
          mem[wb] <= wr(DATA_WIDTH_B, adb, old, dib, adb[1:0]);
          if (WRITEMODE_B == "WRITETHROUGH")         dob <= rd(DATA_WIDTH_B, adb, wr(DATA_WIDTH_B, adb, old, dib, adb[1:0]));
          else if (WRITEMODE_B == "READBEFOREWRITE") dob <= rd(DATA_WIDTH_B, adb, old);
        end else begin
          dob <= rd(DATA_WIDTH_B, adb, old);
        end
      end
    end
    if (RESETMODE == "SYNC" && RSTB) dob <= 18'd0;
  end

  // Asynchronous reset of the read data.
  always @(posedge RSTA) if (RESETMODE == "ASYNC") doa <= 18'd0;
  always @(posedge RSTB) if (RESETMODE == "ASYNC") dob <= 18'd0;
endmodule
