// weft_fp_pkg: the tensor unit's floating-point arithmetic (FP8 E4M3FN and E5M2 operands, FP32
// sums, FP32 / BF16 / FP8 outputs), as functions shared by the PE, the array edge, the
// accumulator and the post-processing stage. docs/tensor-unit.md "Floating-point modes" states
// the rules; sw/golden (fp.hpp) is the independent reference the tests compare with.
//
// Every FP32 value passes through one unpacked form, fp_num_t: value = (-1)^sign * mag * 2^exp
// with an integer magnitude, so that products are exact (the magnitudes multiply, the exponents
// add) and a result is rounded once, by fp_round, into whichever format it takes.
// Written in the subset docs/tool-subset.md lists (Yosys: no `return`, no int'() casts; the value
// is assigned to the function's name).
package weft_fp_pkg;

  // Element formats are weft_pkg::Fmt* (generated from rtl/host/weft_descriptors.toml), named
  // in full inside the functions (Yosys takes no package constant defined by another's).

  // Value classes. ClsAbsent marks a weight row beyond k in a short tile: its products are left
  // out of the sum whatever the activation holds (a NaN there must not poison the result).
  localparam logic [1:0] ClsFinite = 2'd0;
  localparam logic [1:0] ClsInf    = 2'd1;
  localparam logic [1:0] ClsNan    = 2'd2;
  localparam logic [1:0] ClsAbsent = 2'd3;

  localparam int ExpW = 12;  // covers every exponent here: FP32 x FP32 products reach 2^-298
  localparam int MagW = 48;  // an FP32 x FP32 product's magnitude
  localparam int WinW = 80;  // fp_round's input: the adder's window, or a tile's 72-bit sum
  // The FP32 adder keeps AddGuard bits below the larger addend's exponent (with 24-bit
  // magnitudes, 26 would do: see fp_add).
  localparam int AddGuard = 50;

  typedef struct packed {
    logic [1:0]             cls;
    logic                   sign;
    logic signed [ExpW-1:0] exp;
    logic [MagW-1:0]        mag;
  } fp_num_t;

  // A tensor-unit operand as it travels through the array: a decoded FP8 element (value =
  // mag * 2^exp, 4-bit magnitude, exponent in -16..13), in FpOpW bits.
  localparam int OpExpW = 10;
  typedef struct packed {
    logic [1:0]               cls;
    logic                     sign;
    logic signed [OpExpW-1:0] exp;
    logic [7:0]               mag;
  } fp_op_t;
  localparam int FpOpW = 2 + 1 + OpExpW + 8;
  // A BF16 element fits fp_op_t too (8-bit significand, LSB exponent -133..120). An operand lane
  // of an FP build carries {wide, fp_op_t}: wide marks BF16, whose products the PE adds to an
  // FP32 partial sum (one rounding per row) instead of the FP8 fixed-point sum.
  localparam int FpLaneW = FpOpW + 1;
  // Bits per element on the tensor unit's operand buses in an FP build (BF16; 8-bit formats use
  // the low half of the bus).
  localparam int FpElemW = 16;

  // The array's FP8 partial sum: a tile's products summed exactly, in fixed point with its LSB at
  // 2^FixLsb (every FP8 x FP8 product is a multiple of 2^-32 and below 2^64 in magnitude, so 32
  // rows fit in 70 bits with the sign), beside three IEEE flags: {nan, pos_inf, neg_inf, sum}.
  localparam int FixW   = 72;
  localparam int FixLsb = -32;
  localparam int FpPsW  = FixW + 3;

  // Format constants: mantissa bits, minimum normal exponent, code width, the largest finite
  // magnitude code, the infinity code (0: none, as in E4M3FN) and the canonical NaN (sign 0).
  function automatic int fmt_mant(input logic [2:0] fmt);
    case (fmt)
      weft_pkg::FmtE4m3: fmt_mant = 3;
      weft_pkg::FmtE5m2: fmt_mant = 2;
      weft_pkg::FmtBf16: fmt_mant = 7;
      default: fmt_mant = 23;
    endcase
  endfunction

  function automatic int fmt_emin(input logic [2:0] fmt);
    case (fmt)
      weft_pkg::FmtE4m3: fmt_emin = -6;
      weft_pkg::FmtE5m2: fmt_emin = -14;
      default: fmt_emin = -126;
    endcase
  endfunction

  function automatic int fmt_width(input logic [2:0] fmt);
    case (fmt)
      weft_pkg::FmtE4m3, weft_pkg::FmtE5m2: fmt_width = 8;
      weft_pkg::FmtBf16:          fmt_width = 16;
      default:          fmt_width = 32;
    endcase
  endfunction

  function automatic logic [31:0] fmt_max_code(input logic [2:0] fmt);
    case (fmt)
      weft_pkg::FmtE4m3: fmt_max_code = 32'h7e;
      weft_pkg::FmtE5m2: fmt_max_code = 32'h7b;
      weft_pkg::FmtBf16: fmt_max_code = 32'h7f7f;
      default: fmt_max_code = 32'h7f7f_ffff;
    endcase
  endfunction

  function automatic logic [31:0] fmt_inf_code(input logic [2:0] fmt);
    case (fmt)
      weft_pkg::FmtE4m3: fmt_inf_code = 32'h0;
      weft_pkg::FmtE5m2: fmt_inf_code = 32'h7c;
      weft_pkg::FmtBf16: fmt_inf_code = 32'h7f80;
      default: fmt_inf_code = 32'h7f80_0000;
    endcase
  endfunction

  function automatic logic [31:0] fmt_nan_code(input logic [2:0] fmt);
    case (fmt)
      weft_pkg::FmtE4m3: fmt_nan_code = 32'h7f;
      weft_pkg::FmtE5m2: fmt_nan_code = 32'h7e;
      weft_pkg::FmtBf16: fmt_nan_code = 32'h7fc0;
      default: fmt_nan_code = 32'h7fc0_0000;
    endcase
  endfunction

  // The encoding `bits` (low fmt_width bits) of format fmt, unpacked exactly.
  function automatic fp_num_t fp_unpack(input logic [31:0] bits, input logic [2:0] fmt);
    fp_num_t     r;
    int          m, w, ew, bias;
    logic [31:0] e, frac, e_max;
    m     = fmt_mant(fmt);
    w     = fmt_width(fmt);
    ew    = w - 1 - m;
    bias  = 1 - fmt_emin(fmt);
    e     = (bits >> m) & ((32'd1 << ew) - 1);
    frac  = bits & ((32'd1 << m) - 1);
    e_max = (32'd1 << ew) - 1;
    r.sign = bits[w-1];
    r.cls  = ClsFinite;
    r.mag  = '0;
    r.exp  = '0;
    if (fmt == weft_pkg::FmtE4m3 && e == 32'd15 && frac == 32'd7) begin
      r.cls = ClsNan;
    end else if (fmt != weft_pkg::FmtE4m3 && e == e_max) begin
      r.cls = (frac == '0) ? ClsInf : ClsNan;
    end else if (e == '0) begin
      r.mag = MagW'(frac);
      r.exp = ExpW'(1 - bias - m);
    end else begin
      r.mag = MagW'(frac) | (MagW'(1) << m);
      r.exp = ExpW'(32'(e) - bias - m);
    end
    fp_unpack = r;
  endfunction

  // An element as an array operand lane: BF16 (bits) with the wide flag, or an FP8 element
  // (bits[7:0]).
  function automatic logic [FpLaneW-1:0] fp_lane_operand(input logic [FpElemW-1:0] bits,
                                                         input logic [2:0] fmt);
    fp_num_t n;
    fp_op_t  o;
    n      = fp_unpack({16'h0, bits}, fmt);
    o.cls  = n.cls;
    o.sign = n.sign;
    o.exp  = OpExpW'(n.exp);
    o.mag  = n.mag[7:0];
    fp_lane_operand = {fmt == weft_pkg::FmtBf16, o};
  endfunction

  // The operand a short tile's missing weight rows hold (class ClsAbsent).
  function automatic logic [FpOpW-1:0] fp_absent_operand();
    fp_absent_operand = {ClsAbsent, (FpOpW - 2)'(0)};
  endfunction

  // The exact product of two unpacked FP32 values (IEEE special cases: NaN wins, Inf x 0 is
  // NaN).
  function automatic fp_num_t fp_mul(input fp_num_t a, input fp_num_t b);
    fp_num_t r;
    logic    a_zero, b_zero;
    a_zero = (a.cls == ClsFinite) && (a.mag == '0);
    b_zero = (b.cls == ClsFinite) && (b.mag == '0);
    r.sign = a.sign ^ b.sign;
    r.cls  = ClsFinite;
    r.exp  = a.exp + b.exp;
    r.mag  = MagW'(a.mag[23:0] * b.mag[23:0]);
    if (a.cls == ClsNan || b.cls == ClsNan) r.cls = ClsNan;
    else if ((a.cls == ClsInf && b_zero) || (b.cls == ClsInf && a_zero)) r.cls = ClsNan;
    else if (a.cls == ClsInf || b.cls == ClsInf) r.cls = ClsInf;
    fp_mul = r;
  endfunction

  // Round (-1)^sign * mag * 2^exp to nearest, ties to even, into format fmt. sat: an overflow
  // gives the largest finite value (ONNX Cast saturate=1) instead of Inf (or NaN in E4M3FN).
  function automatic logic [31:0] fp_round(input logic sign, input logic [WinW-1:0] mag,
                                           input logic signed [ExpW-1:0] exp,
                                           input logic [2:0] fmt, input logic sat);
    /* verilator no_inline_task */
    int              m, w, emin, msb, e_top, quantum, sh, e_field, step;
    logic [127:0]    rest;
    logic [WinW-1:0] kept, below;
    logic            guard, sticky;
    logic [47:0]     code;
    logic [31:0]     mag_code;
    m    = fmt_mant(fmt);
    w    = fmt_width(fmt);
    emin = fmt_emin(fmt);
    // The leading one by halving (7 steps for WinW <= 128 bits), not a scan of every bit. (The
    // loop variable is a function local: Yosys makes a latch of a for-declared one when the
    // call is conditional.)
    msb  = 0;
    rest = 128'(mag);
    for (step = 64; step >= 1; step = step / 2) begin
      if ((rest >> step) != '0) begin
        msb  = msb + step;
        rest = rest >> step;
      end
    end
    e_top   = msb + 32'(exp);
    quantum = ((e_top < emin) ? emin : e_top) - m;
    sh      = quantum - 32'(exp);
    guard   = 1'b0;
    sticky  = 1'b0;
    below   = '0;
    if (sh <= 0) begin
      kept = mag << (-sh);
    end else if (sh > WinW) begin
      kept   = '0;
      sticky = 1'b1;
    end else begin
      kept   = mag >> sh;
      below  = mag & ((WinW'(1) << (sh - 1)) - 1'b1);
      guard  = mag[sh-1];
      sticky = (below != '0);
    end
    if (guard && (sticky || kept[0])) kept = kept + 1'b1;
    // Exponent field and mantissa in one sum: a carry out of the mantissa (rounding up to the
    // next power of two, or a subnormal becoming normal) steps the exponent by itself.
    e_field = (e_top < emin) ? 0 : e_top - emin;
    code    = (48'(e_field) << m) + 48'(kept);
    mag_code = code[31:0];
    if (code > 48'(fmt_max_code(fmt))) begin
      if (sat)                            mag_code = fmt_max_code(fmt);
      else if (fmt_inf_code(fmt) != '0)   mag_code = fmt_inf_code(fmt);
      else                                mag_code = fmt_nan_code(fmt);
    end
    if (mag == '0) mag_code = '0;
    fp_round = (32'(sign && !(code > 48'(fmt_max_code(fmt)) && !sat &&
                              fmt_inf_code(fmt) == '0)) << (w - 1)) | mag_code;
  endfunction

  // A result rounded into fmt: NaN, Inf (to max with sat, to NaN in a format without Inf) or
  // the finite (-1)^sign * mag * 2^exp. Every caller ends in one call of this, so a simulator's
  // inlined copy of fp_round stays one per operation.
  function automatic logic [31:0] fp_finish(input logic [1:0] cls, input logic sign,
                                            input logic [WinW-1:0] mag,
                                            input logic signed [ExpW-1:0] exp,
                                            input logic [2:0] fmt, input logic sat);
    logic [31:0] sign_bit;
    sign_bit = 32'(sign) << (fmt_width(fmt) - 1);
    if (cls == ClsNan || (cls == ClsInf && !sat && fmt_inf_code(fmt) == '0)) begin
      fp_finish = fmt_nan_code(fmt);
    end else if (cls == ClsInf) begin
      fp_finish = sign_bit | (sat ? fmt_max_code(fmt) : fmt_inf_code(fmt));
    end else begin
      fp_finish = fp_round(sign, mag, exp, fmt, sat);
    end
  endfunction

  // An unpacked value rounded into fmt.
  function automatic logic [31:0] fp_pack(input fp_num_t x, input logic [2:0] fmt,
                                          input logic sat);
    fp_pack = fp_finish(x.cls, x.sign, WinW'(x.mag), x.exp, fmt, sat);
  endfunction

  // A tile's fixed-point sum rounded once to FP32 (to nearest even): NaN for a NaN product or
  // +Inf and -Inf together, else the infinity, else the sum (an exact zero is +0).
  function automatic logic [31:0] fp_fixed_to_fp32(input logic [FpPsW-1:0] ps);
    /* verilator no_inline_task */
    logic                   nan, pos_inf, neg_inf;
    logic signed [FixW-1:0] sum;
    logic [FixW-1:0]        mag;  // |sum| < 2^70: the negation cannot overflow
    logic [1:0]             cls;
    {nan, pos_inf, neg_inf, sum} = ps;
    cls = (nan || (pos_inf && neg_inf)) ? ClsNan : (pos_inf || neg_inf) ? ClsInf : ClsFinite;
    mag = (sum < 0) ? -sum : sum;
    fp_fixed_to_fp32 = fp_finish(cls, neg_inf || (cls == ClsFinite && sum < 0), WinW'(mag),
                                 ExpW'(FixLsb), weft_pkg::FmtFp32, 1'b0);
  endfunction

  // x's magnitude placed in the adder window: bit 0 is the sticky bit at exponent lo - 1.
  function automatic logic [WinW-1:0] align(input logic [23:0] mag,
                                            input logic signed [ExpW-1:0] exp,
                                            input logic signed [ExpW-1:0] lo);
    int              sh;
    logic [WinW-1:0] v;
    sh = 32'(exp) - 32'(lo);
    v  = WinW'(mag);
    if (sh >= 0)             align = (v << sh) << 1;
    else if (-sh >= WinW - 1) align = WinW'(v != '0);
    else align = ((v >> (-sh)) << 1) | WinW'((v & ((WinW'(1) << (-sh)) - 1'b1)) != '0);
  endfunction

  // x + y with one rounding into fmt (both magnitudes at most 24 bits). IEEE rules: NaN wins,
  // Inf - Inf is NaN, an exact zero sum is +0 unless both addends are -0.
  function automatic logic [31:0] fp_add(input fp_num_t x, input fp_num_t y,
                                         input logic [2:0] fmt);
    /* verilator no_inline_task */
    logic signed [ExpW-1:0] hi, lo, r_exp;
    logic [WinW-1:0]        vx, vy, r_mag;
    logic signed [WinW:0]   sx, sy, sum;
    logic [1:0]             r_cls;
    logic                   r_sign, x_zero, y_zero;
    x_zero = (x.cls == ClsFinite) && (x.mag == '0);
    y_zero = (y.cls == ClsFinite) && (y.mag == '0);
    // Both operands in a window whose LSB lies AddGuard bits below the larger exponent, with one
    // sticky bit under it. Only the operand with the smaller exponent can lose bits there, and
    // then it is below half an ulp of the sum's rounding point, so the sticky bit rounds it right.
    hi  = (x.exp > y.exp) ? x.exp : y.exp;
    lo  = hi - ExpW'(AddGuard);
    vx  = align(x.mag[23:0], x.exp, lo);
    vy  = align(y.mag[23:0], y.exp, lo);
    sx  = x.sign ? -$signed({1'b0, vx}) : $signed({1'b0, vx});
    sy  = y.sign ? -$signed({1'b0, vy}) : $signed({1'b0, vy});
    sum = sx + sy;
    r_cls  = ClsFinite;
    r_sign = sum < 0;
    r_mag  = (sum < 0) ? WinW'(-sum) : WinW'(sum);
    r_exp  = lo - 1'b1;
    if (y_zero) begin
      // x alone, or a signed-zero sum: -0 only when both addends are -0.
      r_cls  = x.cls;
      r_sign = x_zero ? (x.sign && y.sign) : x.sign;
      r_mag  = WinW'(x.mag);
      r_exp  = x.exp;
    end else if (x.cls == ClsNan || y.cls == ClsNan ||
                 (x.cls == ClsInf && y.cls == ClsInf && x.sign != y.sign)) begin
      r_cls = ClsNan;
    end else if (x.cls == ClsInf) begin
      r_cls  = ClsInf;
      r_sign = x.sign;
    end else if (y.cls == ClsInf) begin
      r_cls  = ClsInf;
      r_sign = y.sign;
    end else if (x_zero) begin
      r_sign = y.sign;
      r_mag  = WinW'(y.mag);
      r_exp  = y.exp;
    end else if (sum == '0) begin
      r_sign = 1'b0;
    end
    fp_add = fp_finish(r_cls, r_sign, r_mag, r_exp, fmt, 1'b0);
  endfunction

  function automatic logic fp_is_nan(input logic [31:0] bits, input logic [2:0] fmt);
    int          m, ew;
    logic [31:0] e, frac;
    m    = fmt_mant(fmt);
    ew   = fmt_width(fmt) - 1 - m;
    e    = (bits >> m) & ((32'd1 << ew) - 1);
    frac = bits & ((32'd1 << m) - 1);
    if (fmt == weft_pkg::FmtE4m3) fp_is_nan = (e == 32'd15) && (frac == 32'd7);
    else                fp_is_nan = (e == (32'd1 << ew) - 1) && (frac != '0);
  endfunction

  // ReLU on an encoding of fmt: a negative value (not NaN) becomes +0; -0 becomes +0 too.
  function automatic logic [31:0] fp_relu(input logic [31:0] bits, input logic [2:0] fmt);
    fp_relu = (bits[fmt_width(fmt)-1] && !fp_is_nan(bits, fmt)) ? 32'h0 : bits;
  endfunction

  // STORE_ACC's FP output stage for one column: y = fl32(fl32(acc * scale) + bias), ReLU, then
  // y rounded into fmt (FP32 as is; BF16 to nearest even; FP8 to nearest even, saturating).
  function automatic logic [31:0] fp_output(input logic [31:0] acc, input logic [31:0] scale,
                                            input logic [31:0] bias, input logic [2:0] fmt,
                                            input logic relu);
    /* verilator no_inline_task */
    logic [31:0] p, y;
    logic [2:0]  f32;
    f32 = weft_pkg::FmtFp32;
    p = fp_pack(fp_mul(fp_unpack(acc, f32), fp_unpack(scale, f32)), f32, 1'b0);
    y = fp_add(fp_unpack(p, f32), fp_unpack(bias, f32), f32);
    if (relu) y = fp_relu(y, f32);
    fp_output = (fmt == f32) ? y : fp_pack(fp_unpack(y, f32), fmt, fmt != weft_pkg::FmtBf16);
  endfunction

  // The same, computed only when en is set ('0 otherwise). A simulator then calls the rounding
  // only for FP rows: a combinational `en ? f(x) : '0` would evaluate f every cycle.
  function automatic logic [31:0] fp_add32_en(input logic en, input logic [31:0] x,
                                              input logic [31:0] y);
    /* verilator no_inline_task */
    logic [31:0] r;
    r = '0;
    if (en) r = fp_add(fp_unpack(x, weft_pkg::FmtFp32), fp_unpack(y, weft_pkg::FmtFp32),
                       weft_pkg::FmtFp32);
    fp_add32_en = r;
  endfunction

  // A PE's BF16 step: the FP32 partial sum ps plus the exact product a * w of two BF16
  // operands (fp_op_t), rounded once to FP32 (IEEE: NaN wins, Inf x 0 and Inf - Inf are NaN, an
  // exact zero is +0 unless both addends are -0). A weight of class ClsAbsent leaves ps as it is.
  // '0 while en is low.
  function automatic logic [31:0] fp_fma_bf16_en(input logic en, input logic [31:0] ps,
                                                 input logic [FpOpW-1:0] a,
                                                 input logic [FpOpW-1:0] w);
    /* verilator no_inline_task */
    fp_op_t      ao, wo;
    fp_num_t     an, wn;
    logic [31:0] r;
    r = '0;
    if (en) begin
      ao = a;
      wo = w;
      an.cls  = ao.cls;
      an.sign = ao.sign;
      an.exp  = ExpW'(ao.exp);
      an.mag  = MagW'(ao.mag);
      wn.cls  = wo.cls;
      wn.sign = wo.sign;
      wn.exp  = ExpW'(wo.exp);
      wn.mag  = MagW'(wo.mag);
      if (wo.cls == ClsAbsent) r = ps;
      else r = fp_add(fp_unpack(ps, weft_pkg::FmtFp32), fp_mul(an, wn), weft_pkg::FmtFp32);
    end
    fp_fma_bf16_en = r;
  endfunction

  function automatic logic [31:0] fp_fixed_to_fp32_en(input logic en,
                                                      input logic [FpPsW-1:0] ps);
    /* verilator no_inline_task */
    logic [31:0] r;
    r = '0;
    if (en) r = fp_fixed_to_fp32(ps);
    fp_fixed_to_fp32_en = r;
  endfunction

  function automatic logic [31:0] fp_output_en(input logic en, input logic [31:0] acc,
                                               input logic [31:0] scale,
                                               input logic [31:0] bias, input logic [2:0] fmt,
                                               input logic relu);
    /* verilator no_inline_task */
    logic [31:0] r;
    r = '0;
    if (en) r = fp_output(acc, scale, bias, fmt, relu);
    fp_output_en = r;
  endfunction

endpackage
