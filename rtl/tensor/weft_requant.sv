// weft_requant: one lane of the tensor unit's post-processing. Per valid input it computes, bit
// for bit as weft::golden::postprocess() (sw/golden/include/weft/golden/quant.hpp):
//
//   x   = acc + bias                                   (INT32, wraps modulo 2^32)
//   RqInt32:  out = x
//   else:    r   = requant(x)                          (mode below, saturated to INT32)
//            out = clamp(r + zp, act_min, act_max)     (the sum in 33 bits: no overflow)
//
//   RqTfliteDouble  gemmlowp RoundingDivideByPOT(SRDHM(x << left, mult), right), where
//                   left = max(shift, 0), right = max(-shift, 0) and x << left wraps in 32 bits
//   RqTfliteSingle  (x * mult + 2^(30 - shift)) >> (31 - shift) in 64 bits, saturated
//   RqOnnx          round_half_even(float32(float32(x) * scale)), saturated; mult holds the
//                   float32 scale bits; computed in integer logic (stages 2 and 4)
//
// Latency: Latency = 5 cycles, fixed; one value per cycle, no stalls. Every input is sampled
// together with in_valid_i at a rising edge; its result is on out_data_o, with out_valid_o, in
// the cycle Latency cycles later (in_valid_i high in cycle t -> out_valid_o high in cycle t + 5).
// out_data_o is meaningful only while out_valid_o is high. Only the valid flops are reset.
//
// Pipeline (one register stage each; docs/requant.md has the derivations):
//   1  x = acc + bias and |x|
//   2  multiplier operands: TFLite x << left (or x) and mult; RqInt32 x and 1; ONNX float32(x)
//      as a 24-bit mantissa and an exponent (leading-zero count, normalize, round to nearest
//      even) and the scale's mantissa and exponent
//   3  one 32x32 signed multiplier, shared by all modes (ONNX: the 24x24 mantissa product)
//   4  rounding and saturation to INT32 through one shared rounding right shifter: TFLite
//      double SRDHM, then a shift with ties away from zero; TFLite single a shift with ties
//      up; ONNX rounding of the product to a float32 mantissa (nearest even), then a shift to
//      an integer with ties to even
//   5  + zero point, clamp to [act_min, act_max]
//
// Out-of-contract inputs (the golden model rejects them) and what the hardware does:
//   - TFLite shift -32 or 31 (the contract is [-31, 30]; a simulation assertion flags them):
//     -32 acts as -31; 31 gives double: x << 31 then SRDHM; single: x * mult saturated.
//   - ONNX scale with exponent field 255 (Inf, NaN): read as the finite 1.frac * 2^128, so for
//     x != 0 the result saturates by sign(x) xor sign bit of the scale; x == 0 gives 0. Then
//     zero point and clamp as usual.
//   - act_min > act_max: out = (v < act_min) ? act_min : (v > act_max) ? act_max : v, the
//     expression std::clamp evaluates.
module weft_requant (
  input  logic        clk_i,
  input  logic        rst_ni,
  input  logic        in_valid_i,
  input  logic [31:0] in_acc_i,      // int32 accumulator
  input  logic [31:0] in_bias_i,     // int32 bias, added with wrap-around
  input  logic [31:0] in_mult_i,     // TFLite modes: int32 quantized multiplier; ONNX: float32 bits
  input  logic [5:0]  in_shift_i,    // TFLite modes: signed shift, valid range [-31, 30]
  input  logic [1:0]  in_mode_i,     // weft_pkg::Rq*
  input  logic [31:0] in_zp_i,       // signed output zero point
  input  logic [31:0] in_act_min_i,  // signed clamp bounds (output domain)
  input  logic [31:0] in_act_max_i,
  output logic        out_valid_o,
  output logic [31:0] out_data_o     // RqInt32: acc + bias; else clamp(sat32(requant) + zp, min, max)
);

  // Cycles from in_valid_i to out_valid_o: the number of register stages below. The tensor unit
  // uses weft_pkg::RequantLatency, which must be the same number.
  localparam int unsigned Latency = 5;

  if (Latency != weft_pkg::RequantLatency) begin : g_bad_latency
    $error("weft_requant: Latency differs from weft_pkg::RequantLatency");
  end

  localparam logic [31:0] Int32Max = 32'h7fff_ffff;
  localparam logic [31:0] Int32Min = 32'h8000_0000;

  // Output parameters travel with their value through stages 1-4: {zp, act_min, act_max}.
  localparam int unsigned OutParW = 96;

  // Leading zeros of a 32-bit value (32 for zero).
  function automatic logic [5:0] lzc32(input logic [31:0] v);
    lzc32 = 6'd32;
    for (int i = 0; i < 32; i++) begin
      if (v[i]) lzc32 = 6'(31 - i);
    end
  endfunction

  // v >>> s (arithmetic) for s in [0, 31], the largest steps first, so that synthesis keeps only
  // the intermediate bits that the (narrow) used part of the result needs.
  function automatic logic [64:0] sra65(input logic [64:0] v, input logic [4:0] s);
    logic [64:0] t;
    t = v;
    if (s[4]) t = {{16{t[64]}}, t[64:16]};
    if (s[3]) t = {{8{t[64]}}, t[64:8]};
    if (s[2]) t = {{4{t[64]}}, t[64:4]};
    if (s[1]) t = {{2{t[64]}}, t[64:2]};
    if (s[0]) t = {t[64], t[64:1]};
    sra65 = t;
  endfunction

  // [k]: v[63:32+k] are all copies of the sign bit v[63], for k in [0, 31].
  function automatic logic [31:0] sign_run(input logic [63:0] v);
    logic [31:0] run;
    run[31] = 1'b1;
    for (int k = 30; k >= 0; k--) run[k] = run[k+1] & (v[32+k] == v[63]);
    sign_run = run;
  endfunction

  // [i]: v[i-1:0] has a one, for i in [0, 30] ([0] = 0).
  function automatic logic [30:0] ones_below(input logic [29:0] v);
    logic [30:0] below;
    below[0] = 1'b0;
    for (int i = 1; i < 31; i++) below[i] = below[i-1] | v[i-1];
    ones_below = below;
  endfunction

  // -------------------------------------------------------------------------------------------
  // Valid pipeline (the only reset flops)
  // -------------------------------------------------------------------------------------------
  logic [Latency-1:0] valid_q, valid_d;

  assign valid_d = {valid_q[Latency-2:0], in_valid_i};

  always_ff @(posedge clk_i or negedge rst_ni) begin : p_valid
    if (!rst_ni) begin
      valid_q <= '0;
    end else begin
      valid_q <= valid_d;
    end
  end

  assign out_valid_o = valid_q[Latency-1];

  // -------------------------------------------------------------------------------------------
  // Stage 1: x = acc + bias (wraps), |x| (2^31 for INT32_MIN, as an unsigned number)
  // -------------------------------------------------------------------------------------------
  logic [31:0]        s1_x_d, s1_x_q;
  logic [31:0]        s1_xabs_d, s1_xabs_q;
  logic [31:0]        s1_mult_q;
  logic [5:0]         s1_shift_q;
  logic [1:0]         s1_mode_q;
  logic [OutParW-1:0] s1_outpar_q;

  always_comb begin : p_stage1
    s1_x_d    = in_acc_i + in_bias_i;
    s1_xabs_d = s1_x_d[31] ? 32'd0 - s1_x_d : s1_x_d;
  end

  always_ff @(posedge clk_i) begin : p_stage1_regs
    s1_x_q      <= s1_x_d;
    s1_xabs_q   <= s1_xabs_d;
    s1_mult_q   <= in_mult_i;
    s1_shift_q  <= in_shift_i;
    s1_mode_q   <= in_mode_i;
    s1_outpar_q <= {in_zp_i, in_act_min_i, in_act_max_i};
  end

  // -------------------------------------------------------------------------------------------
  // Stage 2: multiplier operands a, b and the stage 4 rounding shift
  //   TFLite double:  a = x << left (wraps), b = mult; shift right (0..31)
  //   TFLite single:  a = x, b = mult; shift <= 0: take p[63:31] and shift it by -shift;
  //                   shift > 0: shift p by 31 - shift (1..30)
  //   RqInt32:         a = x, b = 1; p shifted by 0 is x
  //   ONNX:           a = mantissa of float32(x), b = mantissa of the scale (24 bits, leading
  //                   one at bit 23) and exponents ex, es: float32(x) = a * 2^(ex - 23),
  //                   scale = b * 2^(es - 23); the shift is found in stage 4
  // -------------------------------------------------------------------------------------------
  logic [31:0]        s2_a_d, s2_a_q;
  logic [31:0]        s2_b_d, s2_b_q;
  logic [4:0]         s2_amt_d, s2_amt_q;     // TFLite: rounding shift amount
  logic               s2_hi_d, s2_hi_q;       // TFLite single: shift the window p[63:31]
  logic [5:0]         s2_ex_d, s2_ex_q;       // ONNX: exponent of float32(x), 0..32
  logic [9:0]         s2_es_d, s2_es_q;       // ONNX: exponent of the scale, -126..128
  logic               s2_neg_d, s2_neg_q;     // ONNX: sign of the product
  logic               s2_zero_d, s2_zero_q;   // ONNX: the product is zero or below 2^-95
  logic [1:0]         s2_mode_q;
  logic [OutParW-1:0] s2_outpar_q;

  // TFLite shift decode.
  logic        tfl_neg;        // shift < 0
  logic [4:0]  tfl_left;       // double: max(shift, 0)
  logic [4:0]  tfl_right;      // max(-shift, 0), -32 read as -31
  // One left shifter: TFLite double x << left, ONNX |x| << (leading zeros of |x|).
  logic [31:0] lsh_in, lsh_out;
  logic [5:0]  lsh_amt;
  // float32(x).
  logic [5:0]  x_lz;
  logic        x_round_up;
  logic [24:0] x_mant_rounded;
  // The scale: 8-bit exponent field, 23-bit fraction (its sign goes into s2_neg_d).
  logic [7:0]  sc_exp;
  logic [22:0] sc_frac;

  always_comb begin : p_stage2
    tfl_neg   = s1_shift_q[5];
    tfl_left  = (s1_mode_q == weft_pkg::RqTfliteDouble && !tfl_neg) ? s1_shift_q[4:0] : 5'd0;
    tfl_right = !tfl_neg ? 5'd0 : (s1_shift_q == 6'h20) ? 5'd31 : 5'(6'd0 - s1_shift_q);

    x_lz    = lzc32(s1_xabs_q);
    lsh_in  = (s1_mode_q == weft_pkg::RqOnnx) ? s1_xabs_q : s1_x_q;
    lsh_amt = (s1_mode_q == weft_pkg::RqOnnx) ? x_lz : {1'b0, tfl_left};
    lsh_out = lsh_in << lsh_amt;

    // ONNX: |x| has up to 32 significant bits, float32 keeps 24: round the normalized value to
    // nearest even (a carry out of the mantissa gives 2^24 = 1.0 * 2^(ex + 1)).
    x_round_up     = lsh_out[7] & ((|lsh_out[6:0]) | lsh_out[8]);
    x_mant_rounded = {1'b0, lsh_out[31:8]} + {24'd0, x_round_up};

    // ONNX scale: normal 1.frac * 2^(exp - 127). A subnormal scale is below 2^-126, so
    // |float32(x) * scale| < 2^31 * 2^-126 rounds to 0, as for a zero scale: both only set
    // the zero flag (no normalization of subnormals needed).
    sc_exp  = s1_mult_q[30:23];
    sc_frac = s1_mult_q[22:0];

    s2_a_d    = lsh_out;
    s2_b_d    = s1_mult_q;
    s2_amt_d  = tfl_right;
    s2_hi_d   = 1'b0;
    s2_ex_d   = 6'd31 - x_lz + {5'd0, x_mant_rounded[24]};
    s2_es_d   = {2'd0, sc_exp} - 10'd127;
    s2_neg_d  = s1_x_q[31] ^ s1_mult_q[31];
    s2_zero_d = (s1_xabs_q == 32'd0) || (sc_exp == 8'd0);

    unique case (s1_mode_q)
      weft_pkg::RqTfliteDouble: ;
      weft_pkg::RqTfliteSingle: begin
        s2_hi_d = tfl_neg || (s1_shift_q == 6'd0);
        if (!s2_hi_d) s2_amt_d = 5'(6'd31 - s1_shift_q);
      end
      weft_pkg::RqOnnx: begin
        s2_a_d = {8'd0, x_mant_rounded[24] ? 24'h80_0000 : x_mant_rounded[23:0]};
        s2_b_d = {8'd0, 1'b1, sc_frac};
      end
      weft_pkg::RqInt32: begin  // p = x, shifted by 0
        s2_b_d   = 32'd1;
        s2_amt_d = 5'd0;
      end
      default: ;
    endcase
  end

  always_ff @(posedge clk_i) begin : p_stage2_regs
    s2_a_q      <= s2_a_d;
    s2_b_q      <= s2_b_d;
    s2_amt_q    <= s2_amt_d;
    s2_hi_q     <= s2_hi_d;
    s2_ex_q     <= s2_ex_d;
    s2_es_q     <= s2_es_d;
    s2_neg_q    <= s2_neg_d;
    s2_zero_q   <= s2_zero_d;
    s2_mode_q   <= s1_mode_q;
    s2_outpar_q <= s1_outpar_q;
  end

  // -------------------------------------------------------------------------------------------
  // Stage 3: p = a * b (signed 32x32 -> 64; for ONNX both operands are < 2^24, p < 2^48).
  // ONNX: the exact product is p * 2^(ex + es - 46); keep 30 - (ex + es) for stage 4.
  // -------------------------------------------------------------------------------------------
  logic [63:0]        s3_p_d, s3_p_q;
  logic [9:0]         s3_s0_d, s3_s0_q;
  logic [4:0]         s3_amt_q;
  logic               s3_hi_q;
  logic               s3_neg_q;
  logic               s3_zero_q;
  logic [1:0]         s3_mode_q;
  logic [OutParW-1:0] s3_outpar_q;

  always_comb begin : p_stage3
    s3_p_d  = 64'($signed(s2_a_q)) * 64'($signed(s2_b_q));
    s3_s0_d = 10'd30 - {4'd0, s2_ex_q} - s2_es_q;
  end

  always_ff @(posedge clk_i) begin : p_stage3_regs
    s3_p_q      <= s3_p_d;
    s3_s0_q     <= s3_s0_d;
    s3_amt_q    <= s2_amt_q;
    s3_hi_q     <= s2_hi_q;
    s3_neg_q    <= s2_neg_q;
    s3_zero_q   <= s2_zero_q;
    s3_mode_q   <= s2_mode_q;
    s3_outpar_q <= s2_outpar_q;
  end

  // -------------------------------------------------------------------------------------------
  // Stage 4: rounding, saturation to INT32
  //   One rounding right shift of a 64-bit value v by s in [0, 31]: with a bit e appended below
  //   v, {v, e} >>> s gives q = v >>> s and the guard g (v[s-1], or e when s = 0); the sticky
  //   st = |v[s-2:0]. The result is q + 1 when
  //     ties up (TFLite single):               g
  //     ties away from zero (RoundingDivideByPOT): g & (v >= 0 | st)
  //     ties to even (ONNX):                   g & (st | q[0])
  //   and saturates when q + up is outside INT32.
  //   TFLite double: v = SRDHM(x << left, mult) = floor((p + 2^30) / 2^31), saturated; s = right.
  //   TFLite single: floor((p + 2^(t-1)) / 2^t) with t = 31 - shift is q + p[t-1] for q = p >>> t:
  //     shift <= 0: v = p[63:31], e = p[30], s = -shift; shift > 0: v = p, e = 0, s = t.
  //   RqInt32: v = p = x, s = 0.
  //   ONNX: p (48 bits) is rounded to 24 bits (nearest even) as the float32 multiply does:
  //     M in [2^23, 2^24], product = M * 2^(E - 23). Then v = +-M * 2^7 and s = 30 - E:
  //     s < 0 (|product| >= 2^31) saturates, s > 31 (|product| <= 0.5) gives 0.
  // -------------------------------------------------------------------------------------------
  logic [31:0]        s4_r_d, s4_r_q;
  logic [1:0]         s4_mode_q;
  logic [OutParW-1:0] s4_outpar_q;

  logic [32:0] dbl_srdhm;      // floor((p + 2^30) / 2^31), in [-2^31 + 1, 2^31]
  logic [31:0] dbl_srdhm_sat;
  logic        on_hi;          // ONNX: the product mantissa has 48 bits (else 47)
  logic [23:0] on_mant;
  logic        on_round_up;
  logic [25:0] on_mant_signed; // +-(mantissa rounded to float32), |.| <= 2^24
  logic [9:0]  on_shift;       // 30 - E, signed
  logic [63:0] rs_val;
  logic        rs_ext;         // the bit below v
  logic [4:0]  rs_amt;
  logic [33:0] rs_shifted;     // low 34 bits of {v, e} >>> s: {q[32:0], g}
  logic        rs_guard, rs_sticky, rs_up;
  logic [31:0] rs_sign_run;
  logic [30:0] rs_below;
  logic        rs_fits;        // q in the INT32 range
  logic [32:0] rs_sum;

  always_comb begin : p_stage4
    // gemmlowp SaturatingRoundingDoublingHighMul: adding the nudge 2^30 (p >= 0) or 1 - 2^30
    // (p < 0) and dividing truncating toward zero is floor((p + 2^30) / 2^31); the bits of p
    // below 2^30 cannot carry. Only p = 2^62 (INT32_MIN * INT32_MIN) gives 2^31: INT32_MAX.
    dbl_srdhm     = 33'((s3_p_q[63:30] + 34'd1) >> 1);
    dbl_srdhm_sat = (dbl_srdhm[32:31] == 2'b01) ? Int32Max : dbl_srdhm[31:0];

    // ONNX: float32 rounding of the product (nearest even at 24 significant bits).
    on_hi          = s3_p_q[47];
    on_mant        = on_hi ? s3_p_q[47:24] : s3_p_q[46:23];
    on_round_up    = (on_hi ? s3_p_q[23] : s3_p_q[22])
                   & ((on_hi ? |s3_p_q[22:0] : |s3_p_q[21:0]) | on_mant[0]);
    // The sign is applied in the same adder: -(m + u) = ~m + (1 - u) = ~m + !u.
    on_mant_signed = ({2'd0, on_mant} ^ {26{s3_neg_q}}) + {25'd0, on_round_up ^ s3_neg_q};
    on_shift       = s3_s0_q - {9'd0, on_hi};

    rs_val = s3_p_q;
    rs_ext = 1'b0;
    rs_amt = s3_amt_q;
    unique case (s3_mode_q)
      weft_pkg::RqTfliteDouble: rs_val = {{32{dbl_srdhm_sat[31]}}, dbl_srdhm_sat};
      weft_pkg::RqTfliteSingle: begin
        if (s3_hi_q) begin
          rs_val = {{31{s3_p_q[63]}}, s3_p_q[63:31]};
          rs_ext = s3_p_q[30];
        end
      end
      weft_pkg::RqOnnx: begin
        rs_val = {{31{on_mant_signed[25]}}, on_mant_signed, 7'd0};
        rs_amt = on_shift[4:0];
      end
      default: ;
    endcase

    rs_shifted  = 34'(sra65({rs_val, rs_ext}, rs_amt));
    rs_guard    = rs_shifted[0];
    rs_below    = ones_below(rs_val[29:0]);  // v has at most 33 bits where st is used
    rs_sticky   = (rs_amt != 5'd0) && rs_below[rs_amt - 5'd1];
    // q fits when v[63:s+32] are sign bits and q[32] == q[31].
    rs_sign_run = sign_run(rs_val);
    rs_fits     = rs_sign_run[rs_amt] && (rs_shifted[33] == rs_shifted[32]);
    unique case (s3_mode_q)
      weft_pkg::RqTfliteDouble: rs_up = rs_guard & (~rs_val[63] | rs_sticky);
      weft_pkg::RqOnnx:         rs_up = rs_guard & (rs_sticky | rs_shifted[1]);
      default:                  rs_up = rs_guard;  // TFLite single; RqInt32: s = 0, g = 0
    endcase

    // Only a positive q can overflow by adding up.
    rs_sum = {rs_shifted[32], rs_shifted[32:1]} + {32'd0, rs_up};
    if (!rs_fits) begin
      s4_r_d = rs_val[63] ? Int32Min : Int32Max;
    end else if (rs_sum[32:31] == 2'b01) begin
      s4_r_d = Int32Max;
    end else begin
      s4_r_d = rs_sum[31:0];
    end

    if (s3_mode_q == weft_pkg::RqOnnx) begin
      if (s3_zero_q || (!on_shift[9] && on_shift[9:5] != 5'd0)) begin  // zero, or s > 31
        s4_r_d = 32'd0;
      end else if (on_shift[9]) begin                                 // s < 0
        s4_r_d = s3_neg_q ? Int32Min : Int32Max;
      end
    end
  end

  always_ff @(posedge clk_i) begin : p_stage4_regs
    s4_r_q      <= s4_r_d;
    s4_mode_q   <= s3_mode_q;
    s4_outpar_q <= s3_outpar_q;
  end

  // -------------------------------------------------------------------------------------------
  // Stage 5: + zero point (33 bits, cannot overflow), clamp; RqInt32 passes x through
  // -------------------------------------------------------------------------------------------
  logic [31:0] out_data_d, out_data_q;
  logic [31:0] zp, act_min, act_max;
  logic [32:0] with_zp;

  always_comb begin : p_stage5
    {zp, act_min, act_max} = s4_outpar_q;
    with_zp = {s4_r_q[31], s4_r_q} + {zp[31], zp};
    if ($signed(with_zp) < $signed({act_min[31], act_min})) begin
      out_data_d = act_min;
    end else if ($signed(with_zp) > $signed({act_max[31], act_max})) begin
      out_data_d = act_max;
    end else begin
      out_data_d = with_zp[31:0];
    end
    if (s4_mode_q == weft_pkg::RqInt32) out_data_d = s4_r_q;
  end

  always_ff @(posedge clk_i) begin : p_stage5_regs
    out_data_q <= out_data_d;
  end

  assign out_data_o = out_data_q;

`ifndef SYNTHESIS
  // Input contract: a TFLite shift lies in [-31, 30] (6'h20 = -32 and 6'h1f = 31 are outside).
  // Checked at the edge after sampling, on the stage 1 registers, whose valid flop is reset (so
  // nothing is checked before reset or while it is held).
  always_ff @(posedge clk_i) begin : p_shift_range
    if (valid_q[0]
        && (s1_mode_q == weft_pkg::RqTfliteDouble || s1_mode_q == weft_pkg::RqTfliteSingle)) begin
      assert (s1_shift_q != 6'h20 && s1_shift_q != 6'h1f)
        else $error("weft_requant: TFLite shift %0d outside [-31, 30]", $signed(s1_shift_q));
    end
  end
`endif

endmodule
