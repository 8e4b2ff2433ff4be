// Weft golden model: requantization of INT32 accumulators, both modes of the tensor unit.
//
// TFLite fixed point: gemmlowp fixedpoint/fixedpoint.h (SaturatingRoundingDoublingHighMul,
// RoundingDivideByPOT) composed as tensorflow/lite/kernels/internal/common.{h,cc}
// MultiplyByQuantizedMultiplier, in its default double-rounding build and in its
// TFLITE_SINGLE_ROUNDING build; multipliers from quantization_util.cc QuantizeMultiplier.
//
// ONNX QLinear: onnxruntime MLAS MlasRequantizeOutput (core/mlas/lib/quantize.cpp): the INT32 value
// converted to float32, multiplied by a float32 scale, rounded half to even. The combined scale as
// core/providers/cpu/quantization/quantize_linear_matmul.cc computes it.
//
// Every function reproduces its source bit for bit, including the corner cases (INT32_MIN,
// ties, shift limits); the comments say which rule decides each one. No signed-overflow UB: where
// the reference relies on int32 wrap-around the arithmetic is done in uint32_t.
#include <cmath>
#include <cstdint>
#include <limits>
#include <string>

#include "check.hpp"
#include "weft/golden/quant.hpp"

namespace weft::golden {

using detail::fail;

int32_t saturating_rounding_doubling_high_mul(int32_t a, int32_t b) {
  // gemmlowp: the only product that does not fit is INT32_MIN * INT32_MIN (= 2^62, i.e. +1.0 in
  // Q0.31, which is not representable); it saturates to INT32_MAX.
  const bool overflow = a == b && a == std::numeric_limits<int32_t>::min();
  const int64_t ab = static_cast<int64_t>(a) * static_cast<int64_t>(b);  // exact, |ab| <= 2^62
  // Round to nearest: add half of 2^31 for ab >= 0, (1 - 2^30) for ab < 0, then divide truncating
  // toward zero. Together this is floor((ab + 2^30) / 2^31): ties go toward +infinity.
  const int64_t nudge = ab >= 0 ? (int64_t{1} << 30) : (1 - (int64_t{1} << 30));
  const int64_t q = (ab + nudge) / (int64_t{1} << 31);  // fits in int32 unless overflow
  return overflow ? std::numeric_limits<int32_t>::max() : static_cast<int32_t>(q);
}

int32_t rounding_divide_by_pot(int32_t x, int exponent) {
  if (exponent < 0 || exponent > 31) {
    fail("rounding_divide_by_pot", "exponent must be in [0, 31], got " + std::to_string(exponent));
  }
  // gemmlowp: remainder = x & mask; threshold = mask/2, plus one for negative x; round up when the
  // remainder exceeds the threshold. With the arithmetic shift (floor) this is round half away from
  // zero: for x >= 0 a remainder of exactly half rounds up, for x < 0 it stays at the floor.
  const int32_t mask = static_cast<int32_t>((int64_t{1} << exponent) - 1);
  const int32_t remainder = x & mask;
  const int32_t threshold = (mask >> 1) + (x < 0 ? 1 : 0);
  return (x >> exponent) + (remainder > threshold ? 1 : 0);  // >> of a negative int: arithmetic
}

namespace {

void check_shift(const char* where, int shift) {
  if (shift < -31 || shift > 30) {
    fail(where, "shift must be in [-31, 30], got " + std::to_string(shift));
  }
}

}  // namespace

int32_t multiply_by_quantized_multiplier_double(int32_t x, int32_t multiplier, int shift) {
  check_shift("multiply_by_quantized_multiplier_double", shift);
  const int left_shift = shift > 0 ? shift : 0;
  const int right_shift = shift > 0 ? 0 : -shift;
  // TFLite: x * (1 << left_shift) in int32, which wraps modulo 2^32 on every real target
  // (TFLITE_NO_SANITIZE_INTEGER_OVERFLOW). Done in uint32_t here.
  const int32_t shifted = static_cast<int32_t>(static_cast<uint32_t>(x) << left_shift);
  return rounding_divide_by_pot(saturating_rounding_doubling_high_mul(shifted, multiplier),
                                right_shift);
}

int32_t multiply_by_quantized_multiplier_single(int32_t x, int32_t multiplier, int shift) {
  check_shift("multiply_by_quantized_multiplier_single", shift);
  // TFLite (TFLITE_SINGLE_ROUNDING): one rounding, half up (toward +infinity), in int64:
  //   (x * multiplier + 2^(30 - shift)) >> (31 - shift)
  // |x * multiplier| <= 2^62 and the rounding term <= 2^61, so the int64 sum cannot overflow.
  const int total_shift = 31 - shift;  // in [1, 62]
  const int64_t round = int64_t{1} << (total_shift - 1);
  const int64_t result = (static_cast<int64_t>(x) * multiplier + round) >> total_shift;
  // TFLite only DCHECKs that the result fits; the defined behaviour here is saturation.
  return detail::sat32(result);
}

void quantize_multiplier(double real, int32_t* multiplier, int* shift) {
  const char* where = "quantize_multiplier";
  if (multiplier == nullptr || shift == nullptr) fail(where, "null output pointer");
  if (!std::isfinite(real) || real < 0.0 || real >= 2147483648.0) {
    fail(where, "real multiplier must be finite and in [0, 2^31), got " + std::to_string(real));
  }
  if (real == 0.0) {  // TFLite: zero maps to (0, 0)
    *multiplier = 0;
    *shift = 0;
    return;
  }
  // TFLite quantization_util.cc: q in [0.5, 1), real = q * 2^e; q_fixed = round(q * 2^31)
  // (std::round, half away from zero); a carry to 2^31 renormalizes.
  int e = 0;
  const double q = std::frexp(real, &e);
  int64_t q_fixed = static_cast<int64_t>(std::round(q * static_cast<double>(int64_t{1} << 31)));
  if (q_fixed == (int64_t{1} << 31)) {
    q_fixed /= 2;
    ++e;
  }
  if (e < -31) {  // TFLite: flush multipliers below ~2^-32 to zero
    e = 0;
    q_fixed = 0;
  }
  if (e > 30) {  // TFLite single-rounding build (here always): saturate to the largest legal value
    e = 30;
    q_fixed = (int64_t{1} << 31) - 1;
  }
  *multiplier = static_cast<int32_t>(q_fixed);
  *shift = e;
}

int32_t onnx_scale_round(int32_t x, float scale) {
  if (!std::isfinite(scale)) fail("onnx_scale_round", "scale must be finite");
  // Each step is a separate float32 operation stored through a volatile, so that the compiler can
  // neither keep extra precision nor fuse steps (the project never builds with -ffast-math; on
  // x86-64 float arithmetic is SSE, FLT_EVAL_METHOD == 0).
  volatile float xf = static_cast<float>(x);  // int32 -> float32, round to nearest even
  volatile float product = xf * scale;        // one float32 multiply, round to nearest even
  const float p = product;
  // An overflowing product is +-infinity: saturate (MLAS clamps in float before converting).
  // 2^31 is exactly representable as float; every float >= 2^31 or < -2^31 is out of range.
  if (p >= 2147483648.0f) return std::numeric_limits<int32_t>::max();
  if (p < -2147483648.0f) return std::numeric_limits<int32_t>::min();
  // Round half to even (the default rounding mode, as MLAS's cvtps2dq / magic-number rounding).
  // |p| < 2^31 and every float that large is already an integer, so the rounded value fits.
  const float r = std::nearbyint(p);
  return static_cast<int32_t>(r);
}

float onnx_output_scale(float a_scale, float w_scale, float y_scale) {
  const char* where = "onnx_output_scale";
  if (!std::isfinite(a_scale) || !std::isfinite(w_scale) || !std::isfinite(y_scale)) {
    fail(where, "scales must be finite");
  }
  if (y_scale == 0.0f) fail(where, "y_scale must be nonzero");
  // onnxruntime: a_scale * b_scale / y_scale, evaluated left to right in float32.
  volatile float product = a_scale * w_scale;
  volatile float quotient = product / y_scale;
  const float s = quotient;
  if (!std::isfinite(s)) fail(where, "combined scale overflows float32");
  return s;
}

}  // namespace weft::golden
