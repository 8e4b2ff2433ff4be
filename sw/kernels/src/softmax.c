/* softmax over the last axis of int8 logits -> uint8 Q0.8 (struct weft_softmax_args), TFLite's
 * quantized softmax (reference_ops::Softmax<int8_t, uint8_t>, double-rounding build) on gemmlowp
 * fixed point. docs/kernels.md ("softmax") states the algorithm step by step; in short, per row:
 *
 *   max = max_c x[c]
 *   for each c with d = x[c] - max >= diff_min:
 *     s_c = SRDHM(d * 2^input_left_shift, input_multiplier)   d * beta * scale in Q5.26
 *     e_c = exp_on_negative_values(s_c)                        exp in Q0.31
 *   sum = sum_c RoundingDivideByPOT(e_c, 12)                   Q12.19
 *   k = clz(sum); rcp = one_over_one_plus_x((sum << k) - 2^31)  1 / (sum * 2^(k-12)) in Q0.31
 *   out[c] = clamp(RoundingDivideByPOT(SRDHM(rcp, e_c), 35 - k), 0, 255), 0 where d < diff_min
 *
 * Depth must be 1..511: then sum < 512 (every e_c <= 1), k >= 4 and the final shift 35 - k stays
 * <= 31 (TFLite checks the same). Work item = one row, handed out grid-stride; a row is read three
 * times (max, sum, output) and exp is recomputed in the last pass, as TFLite does. No tables: all
 * constants are immediates, so the kernel has no .rodata.
 *
 * -DWEFT_SOFTMAX_PROBE builds the test variant softmax_probe.elf: `out` is then int32
 * [rows][depth + 2] and receives the intermediates instead of the probabilities: e_c (0 where
 * d < diff_min), then sum and rcp, so tests can compare them bit for bit. */
#include "weft_fixedpoint.h"
#include "weft_kernel_args.h"
#include "weft_simt.h"

static inline int32_t add32(int32_t a, int32_t b) { return (int32_t)((uint32_t)a + (uint32_t)b); }
static inline int32_t sub32(int32_t a, int32_t b) { return (int32_t)((uint32_t)a - (uint32_t)b); }

/* gemmlowp exp_on_interval_between_negative_one_quarter_and_0_excl: exp(a) for a in [-1/4, 0),
 * Q0.31 in and out. Taylor series around -1/8: exp(-1/8) * (1 + x + x^2/2 + x^3/6 + x^4/24),
 * x = a + 1/8. */
static int32_t exp_on_interval(int32_t a) {
  const int32_t constant_term = 1895147668;    /* exp(-1/8) in Q0.31 */
  const int32_t constant_1_over_3 = 715827883; /* 1/3 in Q0.31 */
  const int32_t x = add32(a, 1 << 28);         /* a + 1/8 */
  const int32_t x2 = weft_srdhm(x, x);
  const int32_t x3 = weft_srdhm(x2, x);
  const int32_t x4 = weft_srdhm(x2, x2);
  const int32_t x4_over_4 = weft_rdbpot(x4, 2);
  const int32_t poly =
      weft_rdbpot(add32(weft_srdhm(add32(x4_over_4, x3), constant_1_over_3), x2), 1);
  return add32(constant_term, weft_srdhm(constant_term, add32(x, poly)));
}

/* gemmlowp exp_on_negative_values for a Q5.26 input a <= 0: exp of a's fractional part modulo
 * 1/4 from the series, then one multiplication by exp(-2^k) for every set bit k (-2..4) of the
 * rest (the "barrel shifter"); exp(0) = 1 is returned as INT32_MAX. Result in Q0.31. */
static int32_t exp_on_negative_values(int32_t a) {
  const int32_t one_quarter = 1 << 24; /* 1/4 in Q5.26 */
  const int32_t a_mod_quarter_minus_one_quarter = sub32(a & (one_quarter - 1), one_quarter);
  /* Rescale<0>: Q5.26 -> Q0.31 is a saturating shift left by 5 */
  int32_t result = exp_on_interval(weft_saturating_shl(a_mod_quarter_minus_one_quarter, 5));
  const int32_t remainder = sub32(a_mod_quarter_minus_one_quarter, a);
  if (remainder & (1 << 24)) result = weft_srdhm(result, 1672461947); /* exp(-1/4) */
  if (remainder & (1 << 25)) result = weft_srdhm(result, 1302514674); /* exp(-1/2) */
  if (remainder & (1 << 26)) result = weft_srdhm(result, 790015084);  /* exp(-1) */
  if (remainder & (1 << 27)) result = weft_srdhm(result, 290630308);  /* exp(-2) */
  if (remainder & (1 << 28)) result = weft_srdhm(result, 39332535);   /* exp(-4) */
  if (remainder & (1 << 29)) result = weft_srdhm(result, 720401);     /* exp(-8) */
  if (remainder & (1 << 30)) result = weft_srdhm(result, 242);        /* exp(-16) */
  return a == 0 ? WEFT_INT32_MAX : result;
}

/* gemmlowp one_over_one_plus_x_for_x_in_0_1: 1 / (1 + a) for a in [0, 1), Q0.31 in and out.
 * Newton-Raphson on the half denominator d = (1 + a) / 2 in Q2.29: x0 = 48/17 - 32/17 * d, then
 * three steps x += x * (1 - d * x); the result x / 2 = 1 / (1 + a). */
static int32_t one_over_one_plus_x(int32_t a) {
  const int32_t half_denominator = weft_rounding_half_sum(a, WEFT_INT32_MAX);
  const int32_t constant_48_over_17 = 1515870810;      /* Q2.29 */
  const int32_t constant_neg_32_over_17 = -1010580540; /* Q2.29 */
  int32_t x = add32(constant_48_over_17, weft_srdhm(half_denominator, constant_neg_32_over_17));
  for (int i = 0; i < 3; ++i) {
    const int32_t half_denominator_times_x = weft_srdhm(half_denominator, x); /* Q2.29 */
    const int32_t one_minus = sub32(1 << 29, half_denominator_times_x);       /* 1 in Q2.29 */
    /* x * one_minus is Q4.27; Rescale<2> back to Q2.29 is a saturating shift left by 2 */
    x = add32(x, weft_saturating_shl(weft_srdhm(x, one_minus), 2));
  }
  /* ExactMulByPot<-1> (Q2.29 -> Q1.30, same raw) then Rescale<0>: saturating shift left by 1 */
  return weft_saturating_shl(x, 1);
}

/* exp(beta * scale * d) in Q0.31 for one input difference d = x - max >= diff_min. */
static inline int32_t scaled_exp(int32_t d, int32_t multiplier, int left_shift) {
  /* MultiplyByQuantizedMultiplierGreaterThanOne: SRDHM(d * 2^left_shift, multiplier), Q5.26 */
  const int32_t rescaled = weft_srdhm((int32_t)((uint32_t)d << left_shift), multiplier);
  return exp_on_negative_values(rescaled);
}

void weft_main(const void* p) {
  const struct weft_softmax_args* args = p;
  const int8_t* in = WEFT_PTR(const int8_t, args->in);
  uint8_t* out = WEFT_PTR(uint8_t, args->out);
  const uint32_t rows = args->rows, depth = args->depth, step = weft_num_threads();
  const int32_t multiplier = args->input_multiplier, diff_min = args->diff_min;
  const int left_shift = args->input_left_shift;
  for (uint32_t row = weft_thread_id(); row < rows; row += step) {
    const int8_t* x = in + row * depth;
    uint8_t* y = out + row * depth;
    int32_t max = -128;
    for (uint32_t c = 0; c < depth; ++c) max = x[c] > max ? x[c] : max;

#ifdef WEFT_SOFTMAX_PROBE
    int32_t* probe = WEFT_PTR(int32_t, args->out) + row * (depth + 2);
#endif
    int32_t sum = 0; /* Q12.19 */
    for (uint32_t c = 0; c < depth; ++c) {
      const int32_t d = x[c] - max;
      const int32_t e = d >= diff_min ? scaled_exp(d, multiplier, left_shift) : 0;
      /* Rescale<12>: Q0.31 -> Q12.19 is RoundingDivideByPOT by 12 (adds 0 for e = 0) */
      sum = add32(sum, weft_rdbpot(e, 12));
#ifdef WEFT_SOFTMAX_PROBE
      probe[c] = e;
#endif
    }

    /* TFLite GetReciprocal(sum, 12): sum = 2^(12 - k) * (1 + f), f in [0, 1) */
    const int headroom_plus_one = weft_clz32((uint32_t)sum);
    const int num_bits_over_unit = 12 - headroom_plus_one;
    const int32_t shifted_sum_minus_one =
        (int32_t)(((uint32_t)sum << headroom_plus_one) - (1u << 31));
    const int32_t shifted_scale = one_over_one_plus_x(shifted_sum_minus_one);
    const int exponent = num_bits_over_unit + 31 - 8; /* uint8 output: 8 bits */
#ifdef WEFT_SOFTMAX_PROBE
    probe[depth] = sum;
    probe[depth + 1] = shifted_scale;
    continue;
#endif

    for (uint32_t c = 0; c < depth; ++c) {
      const int32_t d = x[c] - max;
      int32_t v = 0;
      if (d >= diff_min) {
        const int32_t e = scaled_exp(d, multiplier, left_shift);
        v = weft_rdbpot(weft_srdhm(shifted_scale, e), exponent);
        v = v < 0 ? 0 : v > 255 ? 255 : v;
      }
      y[c] = (uint8_t)v;
    }
  }
}
