// Golden post-processing pipeline (bias, requantization, zero point, clamp) on hand-worked values
// in every mode, the INT32 wrap of the bias add, the saturating zero-point add, per-column
// parameters of the matrix form, and argument validation.
#include <gtest/gtest.h>

#include <cstdint>
#include <limits>
#include <stdexcept>
#include <vector>

#include "weft/golden/quant.hpp"

namespace g = weft::golden;

namespace {
constexpr int32_t kMin = std::numeric_limits<int32_t>::min();
constexpr int32_t kMax = std::numeric_limits<int32_t>::max();

g::ChannelParams tflite(int32_t bias, int32_t multiplier, int shift) {
  g::ChannelParams c;
  c.bias = bias, c.multiplier = multiplier, c.shift = shift;
  return c;
}
g::ChannelParams onnx(int32_t bias, float scale) {
  g::ChannelParams c;
  c.bias = bias, c.scale = scale;
  return c;
}
g::OutputParams out(g::RequantMode mode, int32_t zp, int32_t lo = -128, int32_t hi = 127) {
  g::OutputParams o;
  o.mode = mode, o.zero_point = zp, o.act_min = lo, o.act_max = hi;
  return o;
}
}  // namespace

TEST(GoldenPostprocess, TfliteDoubleRoundingHandWorked) {
  // (1000 + 24) * 0.5 / 8 = 64; + zero point -5 = 59.
  EXPECT_EQ(g::postprocess(1000, tflite(24, 1 << 30, -3), out(g::RequantMode::kTfliteDouble, -5)),
            59);
  // 5 * 0.25 = 1.25 -> 2 with double rounding (see GoldenRequant), 1 with single rounding.
  EXPECT_EQ(g::postprocess(5, tflite(0, 1 << 30, -1), out(g::RequantMode::kTfliteDouble, 0)), 2);
  EXPECT_EQ(g::postprocess(5, tflite(0, 1 << 30, -1), out(g::RequantMode::kTfliteSingle, 0)), 1);
}

TEST(GoldenPostprocess, TfliteSingleRoundingHandWorked) {
  // (-1000 + 0) * 0.5 / 8 = -62.5 -> -62 (half up); + 10 = -52.
  EXPECT_EQ(g::postprocess(-1000, tflite(0, 1 << 30, -3), out(g::RequantMode::kTfliteSingle, 10)),
            -52);
  // Double rounding takes -62.5 away from zero: -63 + 10 = -53.
  EXPECT_EQ(g::postprocess(-1000, tflite(0, 1 << 30, -3), out(g::RequantMode::kTfliteDouble, 10)),
            -53);
}

TEST(GoldenPostprocess, OnnxHandWorked) {
  // (-250 + 5) * 0.25 = -61.25 -> -61; + 3 = -58.
  EXPECT_EQ(g::postprocess(-250, onnx(5, 0.25f), out(g::RequantMode::kOnnx, 3)), -58);
  // (-255 + 5) * 0.25 = -62.5 -> -62 (half to even); + 3 = -59.
  EXPECT_EQ(g::postprocess(-255, onnx(5, 0.25f), out(g::RequantMode::kOnnx, 3)), -59);
  // (-251 + 5) * 0.25 = -61.5 -> -62; + 3 = -59.
  EXPECT_EQ(g::postprocess(-251, onnx(5, 0.25f), out(g::RequantMode::kOnnx, 3)), -59);
  // uint8 output: 1000 * 0.25 = 250, + 128 -> clamped to 255.
  EXPECT_EQ(g::postprocess(1000, onnx(0, 0.25f), out(g::RequantMode::kOnnx, 128, 0, 255)), 255);
}

TEST(GoldenPostprocess, NoneModeReturnsAccPlusBiasUnclamped) {
  EXPECT_EQ(g::postprocess(1000, onnx(-5000, 0.25f), out(g::RequantMode::kNone, 7, 0, 10)), -4000);
}

TEST(GoldenPostprocess, BiasAddWrapsModulo2To32) {
  EXPECT_EQ(g::postprocess(kMax, onnx(1, 1.0f), out(g::RequantMode::kNone, 0)), kMin);
  EXPECT_EQ(g::postprocess(kMin, onnx(-1, 1.0f), out(g::RequantMode::kNone, 0)), kMax);
  // In a requantizing mode the wrapped value is what gets scaled: INT32_MIN * 1.0, not INT32_MAX.
  EXPECT_EQ(g::postprocess(kMax, onnx(1, 1.0f), out(g::RequantMode::kOnnx, 0, kMin, kMax)), kMin);
  // TFLite: SRDHM(INT32_MIN, 2^30) = -2^30, clamped to -128.
  EXPECT_EQ(g::postprocess(kMax, tflite(1, 1 << 30, 0), out(g::RequantMode::kTfliteDouble, 0)),
            -128);
}

TEST(GoldenPostprocess, ZeroPointAddSaturates) {
  EXPECT_EQ(g::postprocess(kMax, onnx(0, 1.0f), out(g::RequantMode::kOnnx, 10, kMin, kMax)), kMax);
  EXPECT_EQ(g::postprocess(kMin, onnx(0, 1.0f), out(g::RequantMode::kOnnx, -10, kMin, kMax)), kMin);
  EXPECT_EQ(g::postprocess(kMax - 5, tflite(0, kMax, 30),
                           out(g::RequantMode::kTfliteSingle, 100, kMin, kMax)),
            kMax);
}

TEST(GoldenPostprocess, ClampsToActivationBounds) {
  // ReLU6-like bounds [zp, zp + 20] with zp = -10.
  const auto o = out(g::RequantMode::kOnnx, -10, -10, 10);
  EXPECT_EQ(g::postprocess(-100, onnx(0, 1.0f), o), -10);
  EXPECT_EQ(g::postprocess(5, onnx(0, 1.0f), o), -5);
  EXPECT_EQ(g::postprocess(100, onnx(0, 1.0f), o), 10);
}

TEST(GoldenPostprocess, MatrixUsesOneChannelParamsPerColumn) {
  // 2 x 3, columns with different bias / multiplier / shift.
  const std::vector<int32_t> acc = {100, 100, 100, -100, -100, -100};
  const std::vector<g::ChannelParams> ch = {tflite(0, 1 << 30, 0), tflite(10, 1 << 30, -1),
                                            tflite(-100, 1 << 30, 1)};
  // Column 0: x * 0.5; column 1: (x + 10) * 0.25; column 2: (x - 100) * 1.0.
  //   row 0: 50, 27.5 -> 28, 0      row 1: -50, -22.5 -> -23 (away from zero), -200 -> -128
  const auto y = g::postprocess(acc, 2, 3, ch, out(g::RequantMode::kTfliteDouble, 0));
  EXPECT_EQ(y, (std::vector<int32_t>{50, 28, 0, -50, -23, -128}));
}

TEST(GoldenPostprocess, RejectsBadParameters) {
  EXPECT_THROW(g::postprocess(1, tflite(0, 1 << 30, 31), out(g::RequantMode::kTfliteDouble, 0)),
               std::invalid_argument);
  EXPECT_THROW(g::postprocess(1, tflite(0, 1 << 30, -32), out(g::RequantMode::kTfliteSingle, 0)),
               std::invalid_argument);
  EXPECT_THROW(g::postprocess(1, onnx(0, std::numeric_limits<float>::quiet_NaN()),
                              out(g::RequantMode::kOnnx, 0)),
               std::invalid_argument);
  EXPECT_THROW(g::postprocess(1, onnx(0, 1.0f), out(g::RequantMode::kOnnx, 0, 5, 4)),
               std::invalid_argument);
  EXPECT_THROW(g::postprocess(1, onnx(0, 1.0f), out(static_cast<g::RequantMode>(7), 0)),
               std::invalid_argument);
  const std::vector<int32_t> acc(6, 0);
  const std::vector<g::ChannelParams> ch(2);
  EXPECT_THROW(g::postprocess(acc, 2, 3, ch, out(g::RequantMode::kOnnx, 0)), std::invalid_argument);
  EXPECT_THROW(g::postprocess(acc, 4, 2, ch, out(g::RequantMode::kOnnx, 0)), std::invalid_argument);
  EXPECT_THROW(g::postprocess(acc, 0, 2, ch, out(g::RequantMode::kOnnx, 0)), std::invalid_argument);
}
