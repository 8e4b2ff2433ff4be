// Weft golden model: the tensor unit's post-processing of one accumulator value.
//
//   v = acc + bias                     INT32, wraps modulo 2^32 (the hardware adder is 32 bits)
//   kNone: the result is v             (INT32 out, no requantization and no clamp)
//   r = requant(v)                     kTfliteDouble / kTfliteSingle: TFLite
//                                      MultiplyByQuantizedMultiplier; kOnnx: MLAS float32 path
//   r = sat32(r + zero_point)          saturating add of the output zero point
//   out = clamp(r, act_min, act_max)   activation and output type range in one clamp
//
// For TFLite this is the per-channel quantized conv / fully-connected output stage
// (reference_integer_ops::ConvPerChannel: acc += bias; MultiplyByQuantizedMultiplier; += offset;
// clamp). For ONNX it is MlasRequantizeOutput, whose float clamp to [lowest - zp, max - zp] before
// rounding equals rounding first and clamping after adding zp, because the bounds are integers.
// Activation bounds follow TFLite CalculateActivationRangeQuantized (kernel_util.cc).
#include <algorithm>
#include <cmath>
#include <string>
#include <vector>

#include "check.hpp"
#include "weft/golden/quant.hpp"

namespace weft::golden {

using detail::fail;

namespace {

// TFLite kernel_util.cc Quantize(): zero_point + (int32) TfLiteRound(f / scale), the quotient in
// float32; TfLiteRound is std::round (half away from zero). Overflow is an error, as in TFLite.
int64_t tflite_quantize(float f, float scale, int32_t zero_point) {
  volatile float quotient = f / scale;
  const float q = std::round(static_cast<float>(quotient));
  if (!(q >= -2147483648.0f && q < 2147483648.0f)) {
    fail("activation_bounds",
         "activation bound " + std::to_string(f) + " / scale does not fit in int32");
  }
  return static_cast<int64_t>(zero_point) + static_cast<int64_t>(q);
}

}  // namespace

void activation_bounds(Activation act, bool out_signed, int32_t out_zero_point, float out_scale,
                       int32_t* act_min, int32_t* act_max) {
  const char* where = "activation_bounds";
  if (act_min == nullptr || act_max == nullptr) fail(where, "null output pointer");
  const int32_t qmin = out_signed ? -128 : 0;
  const int32_t qmax = out_signed ? 127 : 255;
  if (out_zero_point < qmin || out_zero_point > qmax) {
    fail(where, "output zero point " + std::to_string(out_zero_point) +
                    " is outside the output type's range");
  }
  switch (act) {
    case Activation::kNone:
      *act_min = qmin;
      *act_max = qmax;
      return;
    case Activation::kRelu:
    case Activation::kRelu6:
      break;
    default:
      fail(where, "unknown activation " + std::to_string(static_cast<int>(act)));
  }
  if (!std::isfinite(out_scale) || !(out_scale > 0.0f)) {
    fail(where, "output scale must be finite and > 0 for ReLU / ReLU6");
  }
  // Both bounds lie in [qmin, qmax] and min <= max: quantize(0) == zero_point <= qmax and
  // quantize(6) >= zero_point >= qmin because the scale is positive.
  *act_min = static_cast<int32_t>(
      std::max<int64_t>(qmin, tflite_quantize(0.0f, out_scale, out_zero_point)));
  *act_max = act == Activation::kRelu6
                 ? static_cast<int32_t>(
                       std::min<int64_t>(qmax, tflite_quantize(6.0f, out_scale, out_zero_point)))
                 : qmax;
}

int32_t postprocess(int32_t acc, const ChannelParams& ch, const OutputParams& out) {
  const char* where = "postprocess";
  const int32_t v = detail::wrap_add(acc, ch.bias);
  int32_t r = 0;
  switch (out.mode) {
    case RequantMode::kNone:
      return v;
    case RequantMode::kTfliteDouble:
      r = multiply_by_quantized_multiplier_double(v, ch.multiplier, ch.shift);
      break;
    case RequantMode::kTfliteSingle:
      r = multiply_by_quantized_multiplier_single(v, ch.multiplier, ch.shift);
      break;
    case RequantMode::kOnnx:
      r = onnx_scale_round(v, ch.scale);
      break;
    default:
      fail(where, "unknown requantization mode " + std::to_string(static_cast<int>(out.mode)));
  }
  if (out.act_min > out.act_max) {
    fail(where,
         "act_min " + std::to_string(out.act_min) + " > act_max " + std::to_string(out.act_max));
  }
  r = detail::sat32(static_cast<int64_t>(r) + out.zero_point);
  return std::clamp(r, out.act_min, out.act_max);
}

std::vector<int32_t> postprocess(std::span<const int32_t> acc, int m, int n,
                                 std::span<const ChannelParams> ch, const OutputParams& out) {
  const char* where = "postprocess";
  const std::size_t um = detail::positive_dim(where, "m", m);
  const std::size_t un = detail::positive_dim(where, "n", n);
  detail::expect_size(where, "acc (m*n)", acc.size(), detail::checked_mul(where, um, un));
  detail::expect_size(where, "channel params (n)", ch.size(), un);
  std::vector<int32_t> y(acc.size());
  for (std::size_t i = 0; i < um; ++i) {
    for (std::size_t j = 0; j < un; ++j) y[i * un + j] = postprocess(acc[i * un + j], ch[j], out);
  }
  return y;
}

}  // namespace weft::golden
