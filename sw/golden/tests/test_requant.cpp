// Golden TFLite fixed-point requantization: gemmlowp's SaturatingRoundingDoublingHighMul and
// RoundingDivideByPOT (INT32_MIN, ties, exponent limits), both MultiplyByQuantizedMultiplier
// variants and QuantizeMultiplier. Hand-worked values, plus random inputs checked against
// straightforward 128-bit formulas of the documented rules, written here and not calling the
// functions under test.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <limits>
#include <random>
#include <stdexcept>

#include "weft/golden/quant.hpp"
#include "weft/tb/options.hpp"

namespace g = weft::golden;

namespace {

constexpr int32_t kMin = std::numeric_limits<int32_t>::min();
constexpr int32_t kMax = std::numeric_limits<int32_t>::max();

__extension__ typedef __int128 i128;

// floor(p / d) for d > 0, without relying on how / or >> round negative values.
i128 floor_div(i128 p, i128 d) {
  i128 q = p / d;
  if (p % d != 0 && p < 0) q -= 1;
  return q;
}

int32_t clamp32(i128 v) {
  if (v > kMax) return kMax;
  if (v < kMin) return kMin;
  return static_cast<int32_t>(v);
}

// SRDHM as documented: a*b / 2^31 rounded to nearest, ties toward +infinity, i.e.
// floor((2ab + 2^31) / 2^32), saturated (only INT32_MIN * INT32_MIN exceeds the range).
int32_t ref_srdhm(int32_t a, int32_t b) {
  const i128 p = 2 * static_cast<i128>(a) * b + (static_cast<i128>(1) << 31);
  return clamp32(floor_div(p, static_cast<i128>(1) << 32));
}

// RoundingDivideByPOT as documented: x / 2^e rounded to nearest, ties away from zero.
int32_t ref_rdbpot(int32_t x, int e) {
  const int64_t mag = x < 0 ? -int64_t{x} : int64_t{x};
  const int64_t rounded =
      (2 * mag + (int64_t{1} << e)) / (int64_t{1} << (e + 1));  // half up on |x|
  return static_cast<int32_t>(x < 0 ? -rounded : rounded);
}

// x * 2^s modulo 2^32 as a signed value, in i128 arithmetic.
int32_t ref_wrap_shift(int32_t x, int s) {
  const i128 m = static_cast<i128>(1) << 32;
  i128 v = static_cast<i128>(x) * (static_cast<i128>(1) << s);
  v = ((v % m) + m) % m;
  if (v >= (static_cast<i128>(1) << 31)) v -= m;
  return static_cast<int32_t>(v);
}

int32_t ref_mbqm_double(int32_t x, int32_t m, int shift) {
  const int ls = shift > 0 ? shift : 0, rs = shift > 0 ? 0 : -shift;
  return ref_rdbpot(ref_srdhm(ref_wrap_shift(x, ls), m), rs);
}

// Single rounding as documented: floor((x*m + 2^(30-shift)) / 2^(31-shift)), saturated.
int32_t ref_mbqm_single(int32_t x, int32_t m, int shift) {
  const int total = 31 - shift;
  const i128 p = static_cast<i128>(x) * m + (static_cast<i128>(1) << (total - 1));
  return clamp32(floor_div(p, static_cast<i128>(1) << total));
}

// Random int32 values from families that hit the corners: anything, small, INT32 edges, powers of
// two and their neighbours.
int32_t interesting_int32(std::mt19937_64& rng) {
  std::uniform_int_distribution<int> kind(0, 5);
  std::uniform_int_distribution<int> bit(0, 30);
  switch (kind(rng)) {
    case 0:
    case 1:
      return static_cast<int32_t>(static_cast<uint32_t>(rng()));
    case 2:
      return std::uniform_int_distribution<int32_t>(-1000, 1000)(rng);
    case 3: {
      static constexpr int32_t edges[] = {kMin, kMin + 1, kMax,    kMax - 1,  0,
                                          1,    -1,       1 << 30, -(1 << 30)};
      return edges[std::uniform_int_distribution<int>(0, 8)(rng)];
    }
    case 4: {
      const int32_t p = int32_t{1} << bit(rng);
      const int32_t d = std::uniform_int_distribution<int32_t>(-2, 2)(rng);
      return (rng() & 1) ? p + d : -p + d;
    }
    default:
      return std::uniform_int_distribution<int32_t>(-(1 << 20), 1 << 20)(rng);
  }
}

}  // namespace

// --- SaturatingRoundingDoublingHighMul -----------------------------------------------------------

TEST(GoldenRequant, DoublingHighMulSaturatesOnlyAtInt32Min) {
  EXPECT_EQ(g::saturating_rounding_doubling_high_mul(kMin, kMin), kMax);
  // Every other product of INT32_MIN is in range and exact or rounded normally.
  EXPECT_EQ(g::saturating_rounding_doubling_high_mul(kMin, kMax), -2147483647);  // -2^31 + 1
  EXPECT_EQ(g::saturating_rounding_doubling_high_mul(kMax, kMin), -2147483647);
  EXPECT_EQ(g::saturating_rounding_doubling_high_mul(kMin, kMin + 1), kMax);  // 2^31 - 1 exact
  EXPECT_EQ(g::saturating_rounding_doubling_high_mul(kMin, 1), -1);
  EXPECT_EQ(g::saturating_rounding_doubling_high_mul(kMin, -1), 1);
  EXPECT_EQ(g::saturating_rounding_doubling_high_mul(kMin, 0), 0);
  EXPECT_EQ(g::saturating_rounding_doubling_high_mul(kMin, 1 << 30), -(1 << 30));
  EXPECT_EQ(g::saturating_rounding_doubling_high_mul(kMin, -(1 << 30)), 1 << 30);
  EXPECT_EQ(g::saturating_rounding_doubling_high_mul(kMax, kMax), 2147483646);  // 2^31 - 2 + 2^-31
}

TEST(GoldenRequant, DoublingHighMulRoundsTiesTowardPlusInfinity) {
  // a * 2^30 / 2^31 = a / 2.
  EXPECT_EQ(g::saturating_rounding_doubling_high_mul(1, 1 << 30), 1);    //  0.5 ->  1
  EXPECT_EQ(g::saturating_rounding_doubling_high_mul(-1, 1 << 30), 0);   // -0.5 ->  0
  EXPECT_EQ(g::saturating_rounding_doubling_high_mul(3, 1 << 30), 2);    //  1.5 ->  2
  EXPECT_EQ(g::saturating_rounding_doubling_high_mul(-3, 1 << 30), -1);  // -1.5 -> -1
  EXPECT_EQ(g::saturating_rounding_doubling_high_mul(-5, 1 << 30), -2);  // -2.5 -> -2
  // Non-ties round to nearest.
  EXPECT_EQ(g::saturating_rounding_doubling_high_mul(1, 1 << 29), 0);          //  0.25
  EXPECT_EQ(g::saturating_rounding_doubling_high_mul(-1, 3 << 29), -1);        // -0.75
  EXPECT_EQ(g::saturating_rounding_doubling_high_mul(-(1 << 30) - 1, 1), -1);  // -0.5 - 2^-31
  EXPECT_EQ(g::saturating_rounding_doubling_high_mul(-(1 << 30) + 1, 1), 0);   // -0.5 + 2^-31
}

TEST(GoldenRequant, DoublingHighMulMatchesInt128FormulaOnRandomInputs) {
  auto rng = weft::tb::make_rng();
  for (int i = 0; i < 300000; ++i) {
    const int32_t a = interesting_int32(rng), b = interesting_int32(rng);
    ASSERT_EQ(g::saturating_rounding_doubling_high_mul(a, b), ref_srdhm(a, b)) << a << " * " << b;
  }
}

// --- RoundingDivideByPOT -------------------------------------------------------------------------

TEST(GoldenRequant, RoundingDivideByPotRoundsHalfAwayFromZero) {
  EXPECT_EQ(g::rounding_divide_by_pot(3, 1), 2);                   //  1.5
  EXPECT_EQ(g::rounding_divide_by_pot(-3, 1), -2);                 // -1.5
  EXPECT_EQ(g::rounding_divide_by_pot(1, 1), 1);                   //  0.5
  EXPECT_EQ(g::rounding_divide_by_pot(-1, 1), -1);                 // -0.5
  EXPECT_EQ(g::rounding_divide_by_pot(6, 2), 2);                   //  1.5
  EXPECT_EQ(g::rounding_divide_by_pot(-6, 2), -2);                 // -1.5
  EXPECT_EQ(g::rounding_divide_by_pot(5, 2), 1);                   //  1.25
  EXPECT_EQ(g::rounding_divide_by_pot(-5, 2), -1);                 // -1.25
  EXPECT_EQ(g::rounding_divide_by_pot(-7, 2), -2);                 // -1.75
  EXPECT_EQ(g::rounding_divide_by_pot(kMax, 1), 1073741824);       // 1073741823.5
  EXPECT_EQ(g::rounding_divide_by_pot(kMin, 1), -1073741824);      // exact
  EXPECT_EQ(g::rounding_divide_by_pot(kMin + 1, 1), -1073741824);  // -1073741823.5
}

TEST(GoldenRequant, RoundingDivideByPotExponentZeroIsIdentity) {
  for (int32_t x : {kMin, kMin + 1, -3, -1, 0, 1, 3, kMax - 1, kMax}) {
    EXPECT_EQ(g::rounding_divide_by_pot(x, 0), x);
  }
}

TEST(GoldenRequant, RoundingDivideByPotExponent31) {
  EXPECT_EQ(g::rounding_divide_by_pot(kMin, 31), -1);        // -1.0
  EXPECT_EQ(g::rounding_divide_by_pot(kMax, 31), 1);         // 1 - 2^-31
  EXPECT_EQ(g::rounding_divide_by_pot(1 << 30, 31), 1);      //  0.5 -> 1
  EXPECT_EQ(g::rounding_divide_by_pot(-(1 << 30), 31), -1);  // -0.5 -> -1
  EXPECT_EQ(g::rounding_divide_by_pot((1 << 30) - 1, 31), 0);
  EXPECT_EQ(g::rounding_divide_by_pot(-(1 << 30) + 1, 31), 0);
  EXPECT_EQ(g::rounding_divide_by_pot(-(1 << 30) - 1, 31), -1);
  EXPECT_EQ(g::rounding_divide_by_pot(0, 31), 0);
}

TEST(GoldenRequant, RoundingDivideByPotRejectsExponentOutsideZeroTo31) {
  EXPECT_THROW(g::rounding_divide_by_pot(1, -1), std::invalid_argument);
  EXPECT_THROW(g::rounding_divide_by_pot(1, 32), std::invalid_argument);
}

TEST(GoldenRequant, RoundingDivideByPotMatchesExactFormulaOnRandomInputs) {
  auto rng = weft::tb::make_rng();
  std::uniform_int_distribution<int> exp(0, 31);
  for (int i = 0; i < 300000; ++i) {
    const int32_t x = interesting_int32(rng);
    const int e = exp(rng);
    ASSERT_EQ(g::rounding_divide_by_pot(x, e), ref_rdbpot(x, e)) << x << " / 2^" << e;
  }
  // Every tie, both signs: x = (2q + 1) * 2^(e-1).
  for (int e = 1; e <= 30; ++e) {
    for (int64_t q : {0, 1, 2, 7, 100}) {
      const int64_t x = (2 * q + 1) << (e - 1);
      if (x > kMax) continue;
      ASSERT_EQ(g::rounding_divide_by_pot(static_cast<int32_t>(x), e), q + 1) << x << " e" << e;
      ASSERT_EQ(g::rounding_divide_by_pot(static_cast<int32_t>(-x), e), -(q + 1))
          << -x << " e" << e;
    }
  }
}

// --- MultiplyByQuantizedMultiplier ---------------------------------------------------------------

TEST(GoldenRequant, MultiplyDoubleRoundingHandWorked) {
  // multiplier 2^30 is 0.5; shift -3 divides by 8: 1000 * 0.5 / 8 = 62.5.
  // SRDHM(1000, 2^30) = 500, RDBPOT(500, 3) = 62.5 -> 63 (away from zero); -1000 -> -63.
  EXPECT_EQ(g::multiply_by_quantized_multiplier_double(1000, 1 << 30, -3), 63);
  EXPECT_EQ(g::multiply_by_quantized_multiplier_double(-1000, 1 << 30, -3), -63);
  // shift +2: 7 * 4 * 0.5 = 14.
  EXPECT_EQ(g::multiply_by_quantized_multiplier_double(7, 1 << 30, 2), 14);
  // 0.75 = 1610612736 / 2^31: 100 * 0.75 = 75.
  EXPECT_EQ(g::multiply_by_quantized_multiplier_double(100, 1610612736, 0), 75);
  // shift -31 with the largest multiplier: INT32_MIN * (1 - 2^-31) / 2^31 -> -1.
  EXPECT_EQ(g::multiply_by_quantized_multiplier_double(kMin, kMax, -31), -1);
}

TEST(GoldenRequant, MultiplySingleRoundingHandWorked) {
  // (1000 * 2^30 + 2^33) >> 34 = 1008 / 16 = 63;  (-1000 * 2^30 + 2^33) >> 34 = floor(-62) = -62.
  EXPECT_EQ(g::multiply_by_quantized_multiplier_single(1000, 1 << 30, -3), 63);
  EXPECT_EQ(g::multiply_by_quantized_multiplier_single(-1000, 1 << 30, -3), -62);
  EXPECT_EQ(g::multiply_by_quantized_multiplier_single(7, 1 << 30, 2), 14);
  EXPECT_EQ(g::multiply_by_quantized_multiplier_single(100, 1610612736, 0), 75);
  EXPECT_EQ(g::multiply_by_quantized_multiplier_single(kMin, kMax, -31), -1);  // -1 + 2^-31 - 0.5
}

TEST(GoldenRequant, DoubleAndSingleRoundingDifferWhereTheFirstRoundingCreatesATie) {
  // 5 * 0.25 = 1.25. Double: SRDHM(5, 2^30) = 2.5 -> 3, then 3 / 2 = 1.5 -> 2.
  // Single: (5 * 2^30 + 2^31) >> 32 = floor(1.75) = 1.
  EXPECT_EQ(g::multiply_by_quantized_multiplier_double(5, 1 << 30, -1), 2);
  EXPECT_EQ(g::multiply_by_quantized_multiplier_single(5, 1 << 30, -1), 1);
}

TEST(GoldenRequant, DoubleRoundingLeftShiftWrapsModulo2To32) {
  // x * 2^shift is int32 arithmetic in TFLite: 2^30 << 2 wraps to 0.
  EXPECT_EQ(g::multiply_by_quantized_multiplier_double(1 << 30, 1 << 30, 2), 0);
  // (2^30 + 1) << 1 = 0x80000002 = -2147483646; times 0.5 = -1073741823.
  EXPECT_EQ(g::multiply_by_quantized_multiplier_double((1 << 30) + 1, 1 << 30, 1), -1073741823);
  // Single rounding computes in int64 and saturates instead.
  EXPECT_EQ(g::multiply_by_quantized_multiplier_single(1 << 30, 1 << 30, 2), kMax);
  EXPECT_EQ(g::multiply_by_quantized_multiplier_single(-(1 << 30) - 1, 1 << 30, 2), kMin);
}

TEST(GoldenRequant, MultiplyRejectsShiftOutsideMinus31To30) {
  EXPECT_THROW(g::multiply_by_quantized_multiplier_double(1, 1 << 30, 31), std::invalid_argument);
  EXPECT_THROW(g::multiply_by_quantized_multiplier_double(1, 1 << 30, -32), std::invalid_argument);
  EXPECT_THROW(g::multiply_by_quantized_multiplier_single(1, 1 << 30, 31), std::invalid_argument);
  EXPECT_THROW(g::multiply_by_quantized_multiplier_single(1, 1 << 30, -32), std::invalid_argument);
  EXPECT_NO_THROW(g::multiply_by_quantized_multiplier_double(1, 1 << 30, 30));
  EXPECT_NO_THROW(g::multiply_by_quantized_multiplier_single(1, 1 << 30, -31));
}

TEST(GoldenRequant, MultiplyMatchesInt128FormulasOnRandomInputs) {
  auto rng = weft::tb::make_rng();
  std::uniform_int_distribution<int> shift_d(-31, 30);
  std::uniform_int_distribution<int32_t> mult_d(1 << 30, kMax);  // QuantizeMultiplier's range
  for (int i = 0; i < 300000; ++i) {
    const int32_t x = interesting_int32(rng);
    // Mostly normalized multipliers; sometimes any int32 (negative ones are defined too).
    const int32_t m = (i % 8 == 0) ? interesting_int32(rng) : mult_d(rng);
    const int shift = (i % 2 == 0) ? shift_d(rng) : std::uniform_int_distribution<int>(-12, 2)(rng);
    ASSERT_EQ(g::multiply_by_quantized_multiplier_double(x, m, shift), ref_mbqm_double(x, m, shift))
        << x << " m " << m << " shift " << shift;
    ASSERT_EQ(g::multiply_by_quantized_multiplier_single(x, m, shift), ref_mbqm_single(x, m, shift))
        << x << " m " << m << " shift " << shift;
  }
}

TEST(GoldenRequant, MultiplyIsWithinRoundingOfTheExactProduct) {
  // Where nothing wraps or saturates, single rounding is within 1/2 of x * m * 2^(shift - 31) and
  // double rounding within 1 (two roundings of 1/2 each). The exact value fits a long double:
  // |x * m| < 2^63 and the scaling is by a power of two.
  auto rng = weft::tb::make_rng();
  std::uniform_int_distribution<int> shift_d(-31, 6);
  std::uniform_int_distribution<int32_t> mult_d(1 << 30, kMax);
  int checked = 0;
  for (int i = 0; i < 200000; ++i) {
    const int32_t x = interesting_int32(rng), m = mult_d(rng);
    const int shift = shift_d(rng);
    const long double exact = std::ldexp(static_cast<long double>(x) * m, shift - 31);
    if (shift > 0 && std::fabs(std::ldexp(static_cast<long double>(x), shift)) >= 2147483648.0L)
      continue;
    if (std::fabs(exact) >= 2147483647.0L) continue;
    const int32_t d = g::multiply_by_quantized_multiplier_double(x, m, shift);
    const int32_t s = g::multiply_by_quantized_multiplier_single(x, m, shift);
    ASSERT_LE(std::fabs(static_cast<long double>(s) - exact), 0.5L)
        << x << " " << m << " " << shift;
    ASSERT_LE(std::fabs(static_cast<long double>(d) - exact), 1.0L)
        << x << " " << m << " " << shift;
    ++checked;
  }
  EXPECT_GT(checked, 100000);
}

// --- QuantizeMultiplier --------------------------------------------------------------------------

TEST(GoldenQuantizeMultiplier, HandWorkedValues) {
  auto qm = [](double r) {
    int32_t m = -1;
    int s = -100;
    g::quantize_multiplier(r, &m, &s);
    return std::pair<int32_t, int>(m, s);
  };
  EXPECT_EQ(qm(0.5), (std::pair<int32_t, int>(1 << 30, 0)));  // 0.5 * 2^0
  EXPECT_EQ(qm(1.0), (std::pair<int32_t, int>(1 << 30, 1)));  // 0.5 * 2^1
  EXPECT_EQ(qm(0.25), (std::pair<int32_t, int>(1 << 30, -1)));
  EXPECT_EQ(qm(0.75), (std::pair<int32_t, int>(1610612736, 0)));  // 0.75 * 2^31
  EXPECT_EQ(qm(0.0), (std::pair<int32_t, int>(0, 0)));
  // q * 2^31 rounds up to 2^31: renormalize to (2^30, e + 1).
  EXPECT_EQ(qm(1.0 - std::ldexp(1.0, -40)), (std::pair<int32_t, int>(1 << 30, 1)));
  // Smallest exponent kept: 2^-32 = 0.5 * 2^-31; below that, flushed to zero.
  EXPECT_EQ(qm(std::ldexp(1.0, -32)), (std::pair<int32_t, int>(1 << 30, -31)));
  EXPECT_EQ(qm(std::ldexp(1.0, -33)), (std::pair<int32_t, int>(0, 0)));
  // Largest legal shift is 30: 2^29 = 0.5 * 2^30 is kept, 2^30 saturates.
  EXPECT_EQ(qm(std::ldexp(1.0, 29)), (std::pair<int32_t, int>(1 << 30, 30)));
  EXPECT_EQ(qm(std::ldexp(1.0, 30)), (std::pair<int32_t, int>(kMax, 30)));
  // Rounding of q * 2^31 is half away from zero (std::round): 0.5 + 2^-32 -> q*2^31 = 2^30 + 0.5.
  EXPECT_EQ(qm(0.5 + std::ldexp(1.0, -32)), (std::pair<int32_t, int>((1 << 30) + 1, 0)));
}

TEST(GoldenQuantizeMultiplier, RepresentsTheRealWithinHalfAStep) {
  auto rng = weft::tb::make_rng();
  std::uniform_real_distribution<double> log2_d(-31.0, 29.9);
  for (int i = 0; i < 100000; ++i) {
    const double real = std::exp2(log2_d(rng));
    int32_t m = 0;
    int s = 0;
    g::quantize_multiplier(real, &m, &s);
    ASSERT_GE(m, 1 << 30) << real;
    ASSERT_GE(s, -31) << real;
    ASSERT_LE(s, 30) << real;
    // real ~= m * 2^(s - 31), to within half of one step 2^(s - 31).
    const long double err = std::fabs(std::ldexp(static_cast<long double>(m), s - 31) - real);
    ASSERT_LE(err, std::ldexp(0.5L, s - 31)) << real;
  }
}

TEST(GoldenQuantizeMultiplier, RejectsNegativeNonFiniteAndTooLarge) {
  int32_t m = 0;
  int s = 0;
  EXPECT_THROW(g::quantize_multiplier(-0.5, &m, &s), std::invalid_argument);
  EXPECT_THROW(g::quantize_multiplier(std::nan(""), &m, &s), std::invalid_argument);
  EXPECT_THROW(g::quantize_multiplier(INFINITY, &m, &s), std::invalid_argument);
  EXPECT_THROW(g::quantize_multiplier(2147483648.0, &m, &s), std::invalid_argument);
  EXPECT_THROW(g::quantize_multiplier(0.5, nullptr, &s), std::invalid_argument);
}
