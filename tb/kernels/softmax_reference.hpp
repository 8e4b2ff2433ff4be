// C++ reference of the softmax kernel's fixed-point algorithm (docs/kernels.md, "softmax"):
// TFLite's quantized softmax (tensorflow/lite/kernels/internal/reference/softmax.h,
// Softmax<int8_t, uint8_t>, default double-rounding build) written the way TFLite writes it, on a
// small re-statement of gemmlowp's FixedPoint<int32_t, IntegerBits> (fixedpoint/fixedpoint.h):
// typed Q formats, operator* = SRDHM, Rescale<> / ExactMulByPot<>, and every constant derived
// from its real value with FromDouble (round(x * 2^fractional_bits)) instead of being copied as a
// raw number. SRDHM and RoundingDivideByPOT are the golden model's (weft/golden/quant.hpp).
// Independent of sw/kernels/src/softmax.c, which is plain C with the constants written out.
#pragma once

#include <algorithm>
#include <bit>
#include <cmath>
#include <cstdint>
#include <limits>
#include <span>
#include <vector>

#include "weft/golden/quant.hpp"

namespace weft::tb::softmax_ref {

inline constexpr int kScaledDiffIntegerBits = 5;     // Q5.26 input to exp
inline constexpr int kAccumulationIntegerBits = 12;  // Q12.19 sum of exps

// gemmlowp FixedPoint<int32_t, I>: value = raw / 2^(31 - I).
template <int I>
struct Fx {
  static constexpr int kFractionalBits = 31 - I;
  int32_t raw = 0;
  static Fx FromRaw(int32_t r) { return Fx{r}; }
  static Fx Zero() { return Fx{0}; }
  static Fx One() {
    return Fx{I == 0 ? std::numeric_limits<int32_t>::max() : int32_t{1} << kFractionalBits};
  }
  template <int E>
  static Fx ConstantPOT() {
    static_assert(kFractionalBits + E < 31);
    return Fx{int32_t{1} << (kFractionalBits + E)};
  }
  static Fx FromDouble(double x) {  // gemmlowp FixedPoint::FromDouble
    const double v = std::round(x * static_cast<double>(int64_t{1} << kFractionalBits));
    const double lo = std::numeric_limits<int32_t>::min(), hi = std::numeric_limits<int32_t>::max();
    return Fx{static_cast<int32_t>(std::min(std::max(v, lo), hi))};
  }
};

inline int32_t wrap_add(int32_t a, int32_t b) {
  return static_cast<int32_t>(static_cast<uint32_t>(a) + static_cast<uint32_t>(b));
}
inline int32_t wrap_sub(int32_t a, int32_t b) {
  return static_cast<int32_t>(static_cast<uint32_t>(a) - static_cast<uint32_t>(b));
}

template <int A, int B>
Fx<A + B> operator*(Fx<A> a, Fx<B> b) {
  return Fx<A + B>{golden::saturating_rounding_doubling_high_mul(a.raw, b.raw)};
}
template <int I>
Fx<I> operator+(Fx<I> a, Fx<I> b) {
  return Fx<I>{wrap_add(a.raw, b.raw)};
}
template <int I>
Fx<I> operator-(Fx<I> a, Fx<I> b) {
  return Fx<I>{wrap_sub(a.raw, b.raw)};
}

// gemmlowp SaturatingRoundingMultiplyByPOT<E> on a raw int32.
template <int E>
int32_t saturating_rounding_multiply_by_pot(int32_t x) {
  if constexpr (E == 0) {
    return x;
  } else if constexpr (E > 0) {
    const int32_t threshold = (int32_t{1} << (31 - E)) - 1;
    if (x > threshold) return std::numeric_limits<int32_t>::max();
    if (x < -threshold) return std::numeric_limits<int32_t>::min();
    return static_cast<int32_t>(static_cast<uint32_t>(x) << E);
  } else {
    return golden::rounding_divide_by_pot(x, -E);
  }
}

template <int Dst, int Src>
Fx<Dst> Rescale(Fx<Src> x) {
  return Fx<Dst>{saturating_rounding_multiply_by_pot<Src - Dst>(x.raw)};
}
template <int E, int I>
Fx<I> SaturatingRoundingMultiplyByPOT(Fx<I> x) {
  return Fx<I>{saturating_rounding_multiply_by_pot<E>(x.raw)};
}
template <int E, int I>
Fx<I + E> ExactMulByPot(Fx<I> x) {
  return Fx<I + E>{x.raw};
}

inline int32_t rounding_half_sum(int32_t a, int32_t b) {
  const int64_t sum = int64_t{a} + b;
  const int64_t sign = sum >= 0 ? 1 : -1;
  return static_cast<int32_t>((sum + sign) / 2);
}

// exp(a) for a in [-1/4, 0).
inline Fx<0> exp_on_interval_between_negative_one_quarter_and_0_excl(Fx<0> a) {
  using F = Fx<0>;
  const F constant_term = F::FromDouble(std::exp(-1.0 / 8.0));
  const F constant_1_over_3 = F::FromDouble(1.0 / 3.0);
  const F x = a + F::ConstantPOT<-3>();
  const F x2 = x * x;
  const F x3 = x2 * x;
  const F x4 = x2 * x2;
  const F x4_over_4 = SaturatingRoundingMultiplyByPOT<-2>(x4);
  const F x4_over_24_plus_x3_over_6_plus_x2_over_2 =
      SaturatingRoundingMultiplyByPOT<-1>(((x4_over_4 + x3) * constant_1_over_3) + x2);
  return constant_term + constant_term * (x + x4_over_24_plus_x3_over_6_plus_x2_over_2);
}

// exp(a) for a <= 0, a in Q(I).(31-I).
template <int I>
Fx<0> exp_on_negative_values(Fx<I> a) {
  using InputF = Fx<I>;
  using ResultF = Fx<0>;
  const InputF one_quarter = InputF::template ConstantPOT<-2>();
  const int32_t mask = one_quarter.raw - 1;
  const InputF a_mod_quarter_minus_one_quarter = InputF{a.raw & mask} - one_quarter;
  ResultF result = exp_on_interval_between_negative_one_quarter_and_0_excl(
      Rescale<0>(a_mod_quarter_minus_one_quarter));
  const int32_t remainder = (a_mod_quarter_minus_one_quarter - a).raw;
  for (int exponent = -2; exponent <= 4; ++exponent) {  // the barrel shifter
    if (I > exponent) {
      const ResultF multiplier = ResultF::FromDouble(std::exp(-std::pow(2.0, exponent)));
      const int shift = InputF::kFractionalBits + exponent;
      if (remainder & (int32_t{1} << shift)) result = result * multiplier;
    }
  }
  if constexpr (I > 5) {
    const InputF clamp = InputF::FromDouble(-32.0);
    if (a.raw < clamp.raw) result = ResultF::Zero();
  }
  if (a.raw == 0) result = ResultF::One();
  return result;
}

// 1 / (1 + a) for a in [0, 1).
inline Fx<0> one_over_one_plus_x_for_x_in_0_1(Fx<0> a) {
  using F0 = Fx<0>;
  using F2 = Fx<2>;
  const F0 half_denominator = F0{rounding_half_sum(a.raw, F0::One().raw)};
  const F2 constant_48_over_17 = F2::FromDouble(48.0 / 17.0);
  const F2 constant_neg_32_over_17 = F2::FromDouble(-32.0 / 17.0);
  F2 x = constant_48_over_17 + half_denominator * constant_neg_32_over_17;
  for (int i = 0; i < 3; i++) {
    const F2 half_denominator_times_x = half_denominator * x;
    const F2 one_minus_half_denominator_times_x = F2::One() - half_denominator_times_x;
    x = x + Rescale<2>(x * one_minus_half_denominator_times_x);
  }
  return Rescale<0>(ExactMulByPot<-1>(x));
}

// TFLite GetReciprocal.
inline int32_t get_reciprocal(int32_t x, int x_integer_digits, int* num_bits_over_unit) {
  const int headroom_plus_one = std::countl_zero(static_cast<uint32_t>(x));
  *num_bits_over_unit = x_integer_digits - headroom_plus_one;
  const int32_t shifted_sum_minus_one = static_cast<int32_t>(
      (static_cast<uint32_t>(x) << headroom_plus_one) - (static_cast<uint32_t>(1) << 31));
  return one_over_one_plus_x_for_x_in_0_1(Fx<0>{shifted_sum_minus_one}).raw;
}

struct Params {
  int32_t input_multiplier = 0;
  int input_left_shift = 0;
  int diff_min = 0;
};

// TFLite SoftmaxPrepare for int8 input: PreprocessSoftmaxScaling (min(beta * scale * 2^26,
// 2^31 - 1), QuantizeMultiplierGreaterThanOne) and diff_min = -CalculateInputRadius(5, shift).
inline Params prepare(double beta, double input_scale) {
  Params p;
  const double real =
      std::min(beta * input_scale * double(int64_t{1} << (31 - kScaledDiffIntegerBits)),
               double((int64_t{1} << 31) - 1));
  golden::quantize_multiplier(real, &p.input_multiplier, &p.input_left_shift);
  const double max_input_rescaled = 1.0 * ((1 << kScaledDiffIntegerBits) - 1) *
                                    double(int64_t{1} << (31 - kScaledDiffIntegerBits)) /
                                    double(int64_t{1} << p.input_left_shift);
  p.diff_min = -static_cast<int>(std::floor(max_input_rescaled));
  return p;
}

// One row of reference_ops::Softmax<int8_t, uint8_t>, with its intermediates.
struct Row {
  std::vector<int32_t> exps;  // exp(beta * scale * (x - max)) in Q0.31, 0 where d < diff_min
  int32_t sum_of_exps = 0;    // Q12.19
  int32_t shifted_scale = 0;  // GetReciprocal: 1 / (sum * 2^-num_bits_over_unit) in Q0.31
  std::vector<uint8_t> out;   // Q0.8
};

inline Row softmax_row(std::span<const int8_t> x, const Params& p) {
  using FixedPointScaledDiff = Fx<kScaledDiffIntegerBits>;
  using FixedPointAccum = Fx<kAccumulationIntegerBits>;
  using FixedPoint0 = Fx<0>;
  const int depth = static_cast<int>(x.size());
  Row row;
  row.exps.assign(depth, 0);
  row.out.assign(depth, 0);
  int8_t max_in_row = std::numeric_limits<int8_t>::min();
  for (int c = 0; c < depth; ++c) max_in_row = std::max(max_in_row, x[c]);
  FixedPointAccum sum_of_exps = FixedPointAccum::Zero();
  for (int c = 0; c < depth; ++c) {
    const int32_t input_diff = int32_t{x[c]} - max_in_row;
    if (input_diff >= p.diff_min) {
      // MultiplyByQuantizedMultiplierGreaterThanOne
      const int32_t input_diff_rescaled = golden::saturating_rounding_doubling_high_mul(
          static_cast<int32_t>(static_cast<uint32_t>(input_diff) << p.input_left_shift),
          p.input_multiplier);
      const FixedPoint0 e =
          exp_on_negative_values(FixedPointScaledDiff::FromRaw(input_diff_rescaled));
      row.exps[c] = e.raw;
      sum_of_exps = sum_of_exps + Rescale<kAccumulationIntegerBits>(e);
    }
  }
  int num_bits_over_unit = 0;
  const FixedPoint0 shifted_scale = FixedPoint0::FromRaw(
      get_reciprocal(sum_of_exps.raw, kAccumulationIntegerBits, &num_bits_over_unit));
  row.sum_of_exps = sum_of_exps.raw;
  row.shifted_scale = shifted_scale.raw;
  const int exponent = num_bits_over_unit + 31 - 8;
  for (int c = 0; c < depth; ++c) {
    const int32_t input_diff = int32_t{x[c]} - max_in_row;
    if (input_diff >= p.diff_min) {
      const int32_t unsat_output = golden::rounding_divide_by_pot(
          (shifted_scale * FixedPoint0::FromRaw(row.exps[c])).raw, exponent);
      row.out[c] = static_cast<uint8_t>(std::clamp(unsat_output, 0, 255));
    }
  }
  return row;
}

// The probabilities of rows x depth logits.
inline std::vector<uint8_t> softmax(std::span<const int8_t> in, int rows, int depth,
                                    const Params& p) {
  std::vector<uint8_t> out;
  for (int i = 0; i < rows; ++i) {
    const Row r = softmax_row(in.subspan(size_t(i) * depth, depth), p);
    out.insert(out.end(), r.out.begin(), r.out.end());
  }
  return out;
}

// The intermediates in the layout of softmax_probe.elf: per row exps, sum, shifted_scale.
inline std::vector<int32_t> softmax_parts(std::span<const int8_t> in, int rows, int depth,
                                          const Params& p) {
  std::vector<int32_t> parts;
  for (int i = 0; i < rows; ++i) {
    const Row r = softmax_row(in.subspan(size_t(i) * depth, depth), p);
    parts.insert(parts.end(), r.exps.begin(), r.exps.end());
    parts.push_back(r.sum_of_exps);
    parts.push_back(r.shifted_scale);
  }
  return parts;
}

// Float softmax of the real logits beta * scale * x, quantized to Q0.8: round(256 p), at most 255.
inline std::vector<uint8_t> softmax_float(std::span<const int8_t> in, int rows, int depth,
                                          double beta, double input_scale) {
  std::vector<uint8_t> out(in.size());
  for (int i = 0; i < rows; ++i) {
    int max_in_row = -128;
    for (int c = 0; c < depth; ++c) max_in_row = std::max<int>(max_in_row, in[i * depth + c]);
    double sum = 0;
    for (int c = 0; c < depth; ++c)
      sum += std::exp(beta * input_scale * (in[i * depth + c] - max_in_row));
    for (int c = 0; c < depth; ++c) {
      const double prob = std::exp(beta * input_scale * (in[i * depth + c] - max_in_row)) / sum;
      out[i * depth + c] = static_cast<uint8_t>(std::min(255.0, std::round(256.0 * prob)));
    }
  }
  return out;
}

}  // namespace weft::tb::softmax_ref
