/* gemmlowp / TFLite fixed-point primitives in C for Weft kernels (docs/kernels.md).
 *
 * Each function is the scalar int32 specialisation of the gemmlowp fixedpoint/fixedpoint.h
 * function it is named after, written out as that code computes it; TFLite's
 * MultiplyByQuantizedMultiplier is the default (double-rounding) build of
 * tensorflow/lite/kernels/internal/common.h. Signed overflow is avoided by computing wrapping
 * steps in uint32_t. RV32IM has no count-leading-zeros instruction and the kernels do not link
 * libgcc's __clzsi2, so weft_clz32 is written out. */
#ifndef WEFT_FIXEDPOINT_H
#define WEFT_FIXEDPOINT_H

#include <stdint.h>

#define WEFT_INT32_MIN (-2147483647 - 1)
#define WEFT_INT32_MAX 2147483647

/* SaturatingRoundingDoublingHighMul: a*b / 2^31 rounded to nearest (ties toward +infinity), the
 * one overflow case a == b == INT32_MIN giving INT32_MAX.
 *
 * gemmlowp adds the nudge 2^30 (ab >= 0) or 1 - 2^30 (ab < 0) and divides by 2^31 truncating
 * toward zero. Both cases equal floor((ab + 2^30) / 2^31): for ab < 0,
 * trunc((ab + 1 - 2^30) / 2^31) = ceil(...) = floor((ab + 1 - 2^30 + 2^31 - 1) / 2^31). The floor
 * is an arithmetic shift, so no branch on the sign (branches cost SIMT lanes). That expression is
 * -2^31 only when it overflows (a == b == INT32_MIN gives +2^31, wrapped): every other product
 * gives at least floor((-2^62 + 2^31 + 2^30) / 2^31) = -2^31 + 1. Subtracting 1 in that one case
 * wraps it to INT32_MAX. */
static inline int32_t weft_srdhm(int32_t a, int32_t b) {
  const int64_t ab = (int64_t)a * (int64_t)b;
  const int32_t r = (int32_t)(uint32_t)((uint64_t)(ab + ((int64_t)1 << 30)) >> 31);
  return (int32_t)((uint32_t)r - (uint32_t)(r == WEFT_INT32_MIN));
}

/* RoundingDivideByPOT: x / 2^exponent rounded to nearest, ties away from zero; exponent 0..31. */
static inline int32_t weft_rdbpot(int32_t x, int exponent) {
  const int32_t mask = (int32_t)((1u << exponent) - 1u);
  const int32_t remainder = x & mask;
  const int32_t threshold = (mask >> 1) + (x < 0 ? 1 : 0);
  return (x >> exponent) + (remainder > threshold ? 1 : 0);
}

/* SaturatingRoundingMultiplyByPOT<exponent> for exponent 1..30: x * 2^exponent saturated to int32
 * (gemmlowp's threshold test: x > 2^(31-e) - 1 gives INT32_MAX, x < -(2^(31-e) - 1) INT32_MIN). */
static inline int32_t weft_saturating_shl(int32_t x, int exponent) {
  const int32_t threshold = (int32_t)((1u << (31 - exponent)) - 1u);
  if (x > threshold) return WEFT_INT32_MAX;
  if (x < -threshold) return WEFT_INT32_MIN;
  return (int32_t)((uint32_t)x << exponent);
}

/* RoundingHalfSum: (a + b) / 2 rounded to nearest, ties away from zero. */
static inline int32_t weft_rounding_half_sum(int32_t a, int32_t b) {
  const int64_t sum = (int64_t)a + (int64_t)b;
  const int64_t sign = sum >= 0 ? 1 : -1;
  return (int32_t)((sum + sign) / 2);
}

/* TFLite MultiplyByQuantizedMultiplier, double rounding, shift -31..30 (positive = left):
 * RoundingDivideByPOT(SRDHM(x * 2^max(shift, 0), multiplier), max(-shift, 0)); the left shift
 * wraps modulo 2^32 as int32 arithmetic does on every real target. */
static inline int32_t weft_multiply_by_quantized_multiplier(int32_t x, int32_t multiplier,
                                                            int shift) {
  const int left = shift > 0 ? shift : 0;
  const int right = shift > 0 ? 0 : -shift;
  return weft_rdbpot(weft_srdhm((int32_t)((uint32_t)x << left), multiplier), right);
}

/* Leading zeros of a 32-bit word (32 for 0), by binary search. */
static inline int weft_clz32(uint32_t x) {
  if (x == 0) return 32;
  int n = 0;
  if ((x >> 16) == 0) n += 16, x <<= 16;
  if ((x >> 24) == 0) n += 8, x <<= 8;
  if ((x >> 28) == 0) n += 4, x <<= 4;
  if ((x >> 30) == 0) n += 2, x <<= 2;
  if ((x >> 31) == 0) n += 1;
  return n;
}

#endif /* WEFT_FIXEDPOINT_H */
