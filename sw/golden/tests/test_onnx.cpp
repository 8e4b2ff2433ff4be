// Golden ONNX-mode arithmetic and activation bounds, on hand-worked values: float32 conversion and
// product rounding, round half to even, saturation, special scales, the combined QLinear scale,
// and TFLite's activation ranges (ReLU / ReLU6, rounding half away from zero).
// onnxruntime itself is the reference in test_onnxruntime.cpp.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>
#include <random>
#include <stdexcept>
#include <utility>

#include "weft/golden/quant.hpp"
#include "weft/tb/options.hpp"

namespace g = weft::golden;

namespace {
constexpr int32_t kMin = std::numeric_limits<int32_t>::min();
constexpr int32_t kMax = std::numeric_limits<int32_t>::max();

float from_bits(uint32_t b) {
  float f;
  std::memcpy(&f, &b, sizeof f);
  return f;
}

std::pair<int32_t, int32_t> bounds(g::Activation act, bool is_signed, int32_t zp, float scale) {
  int32_t lo = 12345, hi = -12345;
  g::activation_bounds(act, is_signed, zp, scale, &lo, &hi);
  return {lo, hi};
}
}  // namespace

TEST(GoldenOnnx, ScaleRoundRoundsHalfToEven) {
  EXPECT_EQ(g::onnx_scale_round(1, 0.5f), 0);      //  0.5 ->  0
  EXPECT_EQ(g::onnx_scale_round(-1, 0.5f), 0);     // -0.5 ->  0
  EXPECT_EQ(g::onnx_scale_round(3, 0.5f), 2);      //  1.5 ->  2
  EXPECT_EQ(g::onnx_scale_round(-3, 0.5f), -2);    // -1.5 -> -2
  EXPECT_EQ(g::onnx_scale_round(5, 0.5f), 2);      //  2.5 ->  2
  EXPECT_EQ(g::onnx_scale_round(-5, 0.5f), -2);    // -2.5 -> -2
  EXPECT_EQ(g::onnx_scale_round(7, 0.5f), 4);      //  3.5 ->  4
  EXPECT_EQ(g::onnx_scale_round(-7, 0.5f), -4);    // -3.5 -> -4
  EXPECT_EQ(g::onnx_scale_round(9, 0.25f), 2);     //  2.25
  EXPECT_EQ(g::onnx_scale_round(-11, 0.25f), -3);  // -2.75
  // 0.01f = 0x3c23d70a = 0.0099999998; -1234 * 0.01f = -12.34 -> -12.
  EXPECT_EQ(g::onnx_scale_round(-1234, from_bits(0x3c23d70a)), -12);
}

TEST(GoldenOnnx, ConvertsToFloat32BeforeScaling) {
  // int32 -> float32 rounds to nearest even above 2^24.
  EXPECT_EQ(g::onnx_scale_round(16777217, 1.0f), 16777216);      // 2^24 + 1 -> 2^24
  EXPECT_EQ(g::onnx_scale_round(16777219, 1.0f), 16777220);      // tie -> even mantissa
  EXPECT_EQ(g::onnx_scale_round(2147483583, 1.0f), 2147483520);  // 2^31 - 65 -> 2^31 - 128
  EXPECT_EQ(g::onnx_scale_round(-16777217, 1.0f), -16777216);
}

TEST(GoldenOnnx, ProductIsRoundedToFloat32BeforeIntegerRounding) {
  // 16777215 * (1 + 2^-23) = 16777216.99999988: exactly it would round to 16777217, but the float32
  // product rounds first (spacing 2 above 2^24) to 16777216.
  EXPECT_EQ(g::onnx_scale_round(16777215, from_bits(0x3f800001)), 16777216);
  // 1e9 = 1000000 * 1000 is exact in float32.
  EXPECT_EQ(g::onnx_scale_round(1000000, 1000.0f), 1000000000);
}

TEST(GoldenOnnx, SaturatesToInt32) {
  EXPECT_EQ(g::onnx_scale_round(kMax, 1.0f), kMax);   // float(INT32_MAX) = 2^31: out of range
  EXPECT_EQ(g::onnx_scale_round(kMax, -1.0f), kMin);  // -2^31 fits exactly
  EXPECT_EQ(g::onnx_scale_round(kMin, 1.0f), kMin);
  EXPECT_EQ(g::onnx_scale_round(kMin, -1.0f), kMax);
  EXPECT_EQ(g::onnx_scale_round(2, 3e38f), kMax);   // product overflows to +inf
  EXPECT_EQ(g::onnx_scale_round(-2, 3e38f), kMin);  // -inf
  EXPECT_EQ(g::onnx_scale_round(kMin, std::numeric_limits<float>::max()), kMin);
}

TEST(GoldenOnnx, ZeroNegativeAndSubnormalScales) {
  EXPECT_EQ(g::onnx_scale_round(5, 0.0f), 0);
  EXPECT_EQ(g::onnx_scale_round(kMin, -0.0f), 0);
  EXPECT_EQ(g::onnx_scale_round(100, -0.25f), -25);
  EXPECT_EQ(g::onnx_scale_round(-6, -0.25f), 2);          // 1.5 -> 2
  EXPECT_EQ(g::onnx_scale_round(kMax, from_bits(1)), 0);  // smallest subnormal
  // The largest subnormal times 2^31 is ~2.5e-29: rounds to 0 too.
  EXPECT_EQ(g::onnx_scale_round(kMin, from_bits(0x007fffff)), 0);
}

TEST(GoldenOnnx, ScaleRoundRejectsNonFiniteScale) {
  EXPECT_THROW(g::onnx_scale_round(1, std::numeric_limits<float>::quiet_NaN()),
               std::invalid_argument);
  EXPECT_THROW(g::onnx_scale_round(1, std::numeric_limits<float>::infinity()),
               std::invalid_argument);
  EXPECT_THROW(g::onnx_scale_round(1, -std::numeric_limits<float>::infinity()),
               std::invalid_argument);
}

TEST(GoldenOnnx, OutputScaleIsFloat32ProductThenQuotient) {
  EXPECT_EQ(g::onnx_output_scale(0.5f, 0.25f, 2.0f), 0.0625f);
  // Independent reference: the float32 product and quotient, each computed exactly in double and
  // rounded once to float (double has more than 2*24+2 bits, so this equals float arithmetic).
  auto rng = weft::tb::make_rng();
  std::uniform_real_distribution<double> l2(-20.0, 4.0);
  int order_matters = 0;
  for (int i = 0; i < 100000; ++i) {
    const float a = static_cast<float>(std::exp2(l2(rng)));
    const float w = static_cast<float>(std::exp2(l2(rng)));
    const float y = static_cast<float>(std::exp2(l2(rng)));
    const float prod = static_cast<float>(static_cast<double>(a) * w);
    const float want = static_cast<float>(static_cast<double>(prod) / y);
    ASSERT_EQ(g::onnx_output_scale(a, w, y), want) << a << " " << w << " " << y;
    const float other =
        static_cast<float>(static_cast<double>(a) * static_cast<float>(static_cast<double>(w) / y));
    order_matters += other != want;
  }
  // The association a * (w / y) differs on some inputs, so the check above does tell them apart.
  EXPECT_GT(order_matters, 0);
}

TEST(GoldenOnnx, OutputScaleRejectsBadScales) {
  EXPECT_THROW(g::onnx_output_scale(1.0f, 1.0f, 0.0f), std::invalid_argument);
  EXPECT_THROW(g::onnx_output_scale(std::nanf(""), 1.0f, 1.0f), std::invalid_argument);
  EXPECT_THROW(g::onnx_output_scale(1.0f, INFINITY, 1.0f), std::invalid_argument);
  EXPECT_THROW(g::onnx_output_scale(1e30f, 1e30f, 1e-30f), std::invalid_argument);  // overflows
}

// --- Activation bounds (TFLite CalculateActivationRangeQuantized) --------------------------------

TEST(GoldenActivation, NoneIsTheOutputTypeRange) {
  EXPECT_EQ(bounds(g::Activation::kNone, true, 5, 0.1f), (std::pair<int32_t, int32_t>(-128, 127)));
  EXPECT_EQ(bounds(g::Activation::kNone, false, 5, 0.1f), (std::pair<int32_t, int32_t>(0, 255)));
  // The scale is not used without an activation.
  EXPECT_EQ(bounds(g::Activation::kNone, false, 0, 0.0f), (std::pair<int32_t, int32_t>(0, 255)));
}

TEST(GoldenActivation, ReluLowerBoundIsTheZeroPoint) {
  EXPECT_EQ(bounds(g::Activation::kRelu, true, -10, 0.05f),
            (std::pair<int32_t, int32_t>(-10, 127)));
  EXPECT_EQ(bounds(g::Activation::kRelu, true, -128, 0.05f),
            (std::pair<int32_t, int32_t>(-128, 127)));
  EXPECT_EQ(bounds(g::Activation::kRelu, false, 200, 1.0f),
            (std::pair<int32_t, int32_t>(200, 255)));
}

TEST(GoldenActivation, Relu6UpperBoundIsZeroPointPlusSixOverScale) {
  // 6 / 0.05f = 120 -> [-10, 110];  6 / 0.1f = 60 -> [0, 60];  6 / 1 = 6 -> [200, 206].
  EXPECT_EQ(bounds(g::Activation::kRelu6, true, -10, 0.05f),
            (std::pair<int32_t, int32_t>(-10, 110)));
  EXPECT_EQ(bounds(g::Activation::kRelu6, false, 0, 0.1f), (std::pair<int32_t, int32_t>(0, 60)));
  EXPECT_EQ(bounds(g::Activation::kRelu6, false, 200, 1.0f),
            (std::pair<int32_t, int32_t>(200, 206)));
  // Scale 6/255 maps 6.0 to 255 steps above the zero point: the whole int8 range.
  EXPECT_EQ(bounds(g::Activation::kRelu6, true, -128, 6.0f / 255.0f),
            (std::pair<int32_t, int32_t>(-128, 127)));
}

TEST(GoldenActivation, Relu6RoundsHalfAwayFromZero) {
  // 6 / 12 = 0.5 -> 1 (TfLiteRound = std::round), where round-half-even would give 0.
  EXPECT_EQ(bounds(g::Activation::kRelu6, false, 0, 12.0f), (std::pair<int32_t, int32_t>(0, 1)));
  // 6 / 4 = 1.5 -> 2.
  EXPECT_EQ(bounds(g::Activation::kRelu6, true, -128, 4.0f),
            (std::pair<int32_t, int32_t>(-128, -126)));
}

TEST(GoldenActivation, BoundsAreIntersectedWithTheTypeRange) {
  // zero point 100 + 6 / 0.01 = 700 > 127.
  EXPECT_EQ(bounds(g::Activation::kRelu6, true, 100, 0.01f),
            (std::pair<int32_t, int32_t>(100, 127)));
  EXPECT_EQ(bounds(g::Activation::kRelu6, false, 255, 0.5f),
            (std::pair<int32_t, int32_t>(255, 255)));
}

TEST(GoldenActivation, RejectsBadZeroPointScaleAndOverflow) {
  int32_t lo = 0, hi = 0;
  EXPECT_THROW(g::activation_bounds(g::Activation::kNone, true, 128, 1.0f, &lo, &hi),
               std::invalid_argument);
  EXPECT_THROW(g::activation_bounds(g::Activation::kRelu, false, -1, 1.0f, &lo, &hi),
               std::invalid_argument);
  EXPECT_THROW(g::activation_bounds(g::Activation::kRelu, true, 0, 0.0f, &lo, &hi),
               std::invalid_argument);
  EXPECT_THROW(g::activation_bounds(g::Activation::kRelu6, true, 0, -0.5f, &lo, &hi),
               std::invalid_argument);
  EXPECT_THROW(g::activation_bounds(g::Activation::kRelu6, true, 0, std::nanf(""), &lo, &hi),
               std::invalid_argument);
  // 6 / 1e-30 does not fit in int32: TFLite's Quantize() reports an error too.
  EXPECT_THROW(g::activation_bounds(g::Activation::kRelu6, true, 0, 1e-30f, &lo, &hi),
               std::invalid_argument);
  EXPECT_THROW(g::activation_bounds(static_cast<g::Activation>(9), true, 0, 1.0f, &lo, &hi),
               std::invalid_argument);
}

// --- QuantizeLinear / DequantizeLinear with float8 (weft/golden/onnx_ops.hpp) ----------------

#include "weft/golden/fp.hpp"
#include "weft/golden/onnx_ops.hpp"

namespace {
namespace go = weft::golden::onnx;
constexpr go::Fp8Type kE4m3 = go::Fp8Type::kE4m3fn, kE5m2 = go::Fp8Type::kE5m2;
bool nan8(int32_t c, go::Fp8Type t) { return t == kE4m3 ? (c & 0x7F) == 0x7F : (c & 0x7F) > 0x7C; }
}  // namespace

// Hand-worked values with y_scale 1 (the division exact, the rounding alone decides).
TEST(GoldenOnnxFp8, QuantizeRoundsTiesToEvenAndSaturatesOrOverflows) {
  struct Case {
    go::Fp8Type t;
    float x;
    int32_t sat, nosat;  // expected codes, saturate 1 / 0
  };
  const float inf = std::numeric_limits<float>::infinity();
  const Case cases[] = {
      {kE4m3, 1.0625f, 0x38, 0x38},         // 1 + 1/16: tie between 1.0 (even) and 1.125
      {kE4m3, 1.1875f, 0x3A, 0x3A},         // tie between 1.125 and 1.25 (even)
      {kE4m3, 0x1p-10f, 0x00, 0x00},        // half the smallest subnormal: tie to +0
      {kE4m3, 3 * 0x1p-10f, 0x02, 0x02},    // 1.5 subnormal steps: tie to the even 2
      {kE4m3, 7.5f * 0x1p-9f, 0x08, 0x08},  // largest subnormal + half: tie to 2^-6 (even)
      {kE4m3, -1e-30f, 0x80, 0x80},         // underflow keeps the sign
      {kE4m3, 464.0f, 0x7E, 0x7E},          // 448 + half an ulp: tie to the even 448
      {kE4m3, 464.5f, 0x7E, 0x7F},          // past it: max, or NaN
      {kE4m3, -500.0f, 0xFE, 0xFF},         // -max, or NaN with the sign (ml_dtypes' cast)
      {kE4m3, inf, 0x7E, 0x7F},
      {kE4m3, -inf, 0xFE, 0xFF},
      {kE5m2, 1.125f, 0x3C, 0x3C},        // tie between 1.0 (even) and 1.25
      {kE5m2, 1.375f, 0x3E, 0x3E},        // tie between 1.25 and 1.5 (even)
      {kE5m2, 3 * 0x1p-17f, 0x02, 0x02},  // subnormal tie to the even 2^-15
      {kE5m2, 61439.0f, 0x7B, 0x7B},      // below the tie: 57344
      {kE5m2, 61440.0f, 0x7B, 0x7C},      // the tie: its even neighbour is 2^16 = Inf
      {kE5m2, -65536.0f, 0xFB, 0xFC | 0x80},
      {kE5m2, -inf, 0xFB, 0xFC},
  };
  for (const Case& c : cases) {
    EXPECT_EQ(go::quantize_fp8_value(c.x, 1.0f, c.t, true), c.sat) << c.x;
    EXPECT_EQ(go::quantize_fp8_value(c.x, 1.0f, c.t, false), c.nosat) << c.x;
  }
  const float nan = std::numeric_limits<float>::quiet_NaN();
  EXPECT_EQ(go::quantize_fp8_value(nan, 1.0f, kE4m3, true), 0x7F);
  EXPECT_EQ(go::quantize_fp8_value(-nan, 1.0f, kE4m3, true), 0x7F);   // canonical, as fp_encode
  EXPECT_EQ(go::quantize_fp8_value(-nan, 1.0f, kE4m3, false), 0xFF);  // the sign kept
  EXPECT_EQ(go::quantize_fp8_value(-nan, 1.0f, kE5m2, false), 0xFE);
  // x / y_scale rounds to float32 before the float8 rounding: the exact quotient of these two is
  // a little above 1.0625 (1.125 nearer), its float32 rounding the tie 1.0625 itself (to 1.0).
  EXPECT_EQ(go::quantize_fp8_value(0x1.b1617ep+2f, 0x1.97e348p+2f, kE4m3, true), 0x38);
}

// The golden quantizer (a search over the format's values) equals fp_encode (bit manipulation)
// wherever both are defined, saturate=1, over float32 values of every exponent; saturate=0
// differs from it only past the overflow threshold.
TEST(GoldenOnnxFp8, QuantizeEqualsFpEncodeOverFloat32) {
  int64_t checked = 0;
  for (uint64_t bits = 0; bits < (uint64_t{1} << 32);
       bits += 4093) {  // a prime stride: all mantissas
    const float x = from_bits(static_cast<uint32_t>(bits));
    for (go::Fp8Type t : {kE4m3, kE5m2}) {
      const g::FpFormat f = t == kE4m3 ? g::FpFormat::kE4M3 : g::FpFormat::kE5M2;
      const int32_t want = static_cast<int32_t>(g::fp_encode(x, f));
      const int32_t sat = go::quantize_fp8_value(x, 1.0f, t, true);
      ASSERT_EQ(sat, want) << std::hexfloat << x;
      const int32_t nosat = go::quantize_fp8_value(x, 1.0f, t, false);
      const float limit = t == kE4m3 ? 464.0f : 61440.0f;
      if (std::isnan(x)) {
        ASSERT_TRUE(nan8(nosat, t));
      } else if (t == kE4m3 ? std::fabs(x) > limit : std::fabs(x) >= limit) {
        ASSERT_EQ(nosat, (t == kE4m3 ? 0x7F : 0x7C) | (std::signbit(x) ? 0x80 : 0)) << x;
      } else {
        ASSERT_EQ(nosat, want) << std::hexfloat << x;
      }
      ++checked;
    }
  }
  EXPECT_GT(checked, 2000000);
}

TEST(GoldenOnnxFp8, DequantizeIsTheExactValueTimesTheScaleInFloat32) {
  for (go::Fp8Type t : {kE4m3, kE5m2}) {
    const g::FpFormat f = t == kE4m3 ? g::FpFormat::kE4M3 : g::FpFormat::kE5M2;
    for (int32_t c = 0; c < 256; ++c) {
      const float y = go::dequantize_fp8_value(c, 1.7f, t);
      const float v = g::fp_decode(static_cast<uint32_t>(c), f);
      if (nan8(c, t)) {
        EXPECT_TRUE(std::isnan(y)) << c;
      } else {
        EXPECT_EQ(y, static_cast<float>(static_cast<double>(v) * 1.7f)) << c;  // one rounding
        EXPECT_EQ(std::signbit(y), (c & 0x80) != 0) << c;
      }
    }
  }
  EXPECT_EQ(go::dequantize_fp8_value(0x7E, 1.0f, kE4m3), 448.0f);
  EXPECT_EQ(go::dequantize_fp8_value(0x7C, 1.0f, kE5m2), std::numeric_limits<float>::infinity());
  EXPECT_EQ(go::dequantize_fp8_value(0x01, 1.0f, kE4m3), 0x1p-9f);
  EXPECT_EQ(go::dequantize_fp8_value(0x01, 1.0f, kE5m2), 0x1p-16f);
}

TEST(GoldenOnnxFp8, PerAxisParameters) {
  const go::FloatTensor x{{2, 3}, {1, 2, 3, 4, 5, 6}};
  const go::IntTensor q = go::quantize_linear_fp8(x, {1.0f, 2.0f}, kE4m3, true, 0);
  EXPECT_EQ(q.data, (std::vector<int32_t>{0x38, 0x40, 0x44, 0x40, 0x42, 0x44}));  // 1 2 3 | 2 2.5 3
  const go::FloatTensor y = go::dequantize_linear_fp8(q, {1.0f, 2.0f, 0.5f}, kE4m3, 1);
  EXPECT_EQ(y.data, (std::vector<float>{1, 4, 1.5f, 2, 5, 1.5f}));
}
