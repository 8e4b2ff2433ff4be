// Weft golden model: quantized arithmetic that defines the bit-exact results of the tensor unit.
// Written for clarity, not speed. Each function names the rule it implements.
#pragma once

#include <cstdint>
#include <span>
#include <vector>

namespace weft::golden {

// ---------------------------------------------------------------------------------------------
// Operands and GEMM
// ---------------------------------------------------------------------------------------------

// How an 8-bit operand is read: as int8 (-128..127) or uint8 (0..255), minus its zero point.
// Values are held in int32_t so both kinds fit; zero_point must be in the operand's own range.
struct OperandType {
  bool is_signed = true;
  int32_t zero_point = 0;
};

// Checks that v is a legal 8-bit value of the given kind (throws std::invalid_argument if not).
void check_operand(int32_t v, const OperandType& t);

// C[m][n] = sum_k (A[m][k] - za) * (W[k][n] - zw), accumulated modulo 2^32 (two's complement
// int32 wrap-around, as the hardware's INT32 accumulators do). Row-major: A is M x K, W is K x N,
// the result M x N. Zero points are handled exactly by subtraction (gemmlowp's "offsets").
std::vector<int32_t> gemm(std::span<const int32_t> a, std::span<const int32_t> w, int m, int k,
                          int n, const OperandType& at, const OperandType& wt);

// ---------------------------------------------------------------------------------------------
// Requantization
// ---------------------------------------------------------------------------------------------

// gemmlowp fixedpoint.h SaturatingRoundingDoublingHighMul (= ARM VQRDMULH): (a*b*2 + 2^31) >> 32
// with an arithmetic (floor) shift, i.e. a*b / 2^31 rounded to nearest with ties toward +infinity
// (0.5 -> 1 but -0.5 -> 0, -1.5 -> -1: gemmlowp adds the nudge 1 - 2^30 to negative products and
// divides truncating toward zero, which is the same thing). The one overflow case
// a == b == INT32_MIN gives INT32_MAX.
int32_t saturating_rounding_doubling_high_mul(int32_t a, int32_t b);

// gemmlowp fixedpoint.h RoundingDivideByPOT: x / 2^exponent rounded to nearest, ties away from
// zero. exponent in [0, 31].
int32_t rounding_divide_by_pot(int32_t x, int exponent);

// TFLite MultiplyByQuantizedMultiplier (tensorflow/lite/kernels/internal/common.h), shift in
// [-31, 30] (positive = left). TFLite's QuantizeMultiplier only makes multipliers in [0, 2^31)
// and TFLite DCHECKs multiplier >= 0; both formulas below are defined for every int32 multiplier
// and are evaluated as written for negative ones too. Double rounding (default TFLite build):
//   RoundingDivideByPOT(SRDHM(x * 2^max(shift,0), multiplier), max(-shift,0))
// where x * 2^left_shift wraps modulo 2^32 as int32 arithmetic does on every real target.
// Single rounding (TFLITE_SINGLE_ROUNDING): (x * multiplier + 2^(30-shift)) >> (31-shift),
// computed in int64 and saturated to int32 (TFLite only DCHECKs that it fits).
int32_t multiply_by_quantized_multiplier_double(int32_t x, int32_t multiplier, int shift);
int32_t multiply_by_quantized_multiplier_single(int32_t x, int32_t multiplier, int shift);

// Quantize a real multiplier (0 < real < 2^31) into (multiplier, shift) as TFLite's
// QuantizeMultiplier does (frexp, round, 2^31 carry), so real ~= multiplier * 2^(shift-31).
// Also as TFLite: real == 0 gives (0, 0); a shift below -31 (real < ~2^-32) is flushed to (0, 0);
// a shift above 30 (real >= ~2^30) saturates to (2^31 - 1, 30) -- TFLite does this last step only
// in its single-rounding build, here always, so that the result is a legal shift for both modes.
void quantize_multiplier(double real, int32_t* multiplier, int* shift);

// ONNX QLinear requantization as onnxruntime's MLAS computes it (MlasRequantizeOutput):
// float32(x) (round to nearest even), times the float32 scale (one float32 multiply, round to
// nearest even), then round half to even to an integer, saturated to the int32 range.
// The scale must be finite; zero, negative and subnormal scales are allowed.
int32_t onnx_scale_round(int32_t x, float scale);

// The combined QLinearMatMul / QLinearConv scale as onnxruntime computes it, in float32:
// (a_scale * w_scale) / y_scale, each operation rounded to float32 (onnxruntime
// quantize_linear_matmul.cc: `a_scale_data * b_scale_data[i] / y_scale_data`). Inputs must be
// finite, y_scale nonzero and the result finite.
float onnx_output_scale(float a_scale, float w_scale, float y_scale);

enum class RequantMode : uint8_t {
  kTfliteDouble = 0,  // TFLite fixed point, gemmlowp double rounding
  kTfliteSingle = 1,  // TFLite fixed point, single rounding
  kOnnx = 2,          // ONNX QLinear: float32 scale, round half to even
  kNone = 3,          // no requantization: INT32 out (acc + bias)
};

// Per output channel (column) parameters.
struct ChannelParams {
  int32_t bias = 0;        // INT32 bias added to the accumulator (wraps modulo 2^32)
  int32_t multiplier = 0;  // TFLite modes: quantized multiplier
  int shift = 0;           // TFLite modes: shift in [-31, 30]
  float scale = 1.0f;      // ONNX mode: float32 scale
};

// Per command output parameters. The activation is a clamp in the output integer domain:
// ReLU is act_min = zero_point, ReLU6 is act_max = zero_point + round(6 / scale), and the
// output type's range (int8 -128..127, uint8 0..255) is folded into the bounds by the caller
// (see activation_bounds). In kNone mode no clamp is applied.
struct OutputParams {
  RequantMode mode = RequantMode::kTfliteDouble;
  int32_t zero_point = 0;
  int32_t act_min = -128;
  int32_t act_max = 127;
};

enum class Activation : uint8_t { kNone, kRelu, kRelu6 };

// Clamp bounds for an activation on an output of the given type, zero point and scale
// (TFLite CalculateActivationRangeQuantized): bounds are intersected with the type's range.
// quantize(f) = zero_point + round(f / scale), the quotient in float32 and round() half away from
// zero (TfLiteRound); ReLU: [max(qmin, quantize(0)), qmax]; ReLU6: [max(qmin, quantize(0)),
// min(qmax, quantize(6))]; kNone: [qmin, qmax]. The zero point must lie in the type's range; for
// ReLU / ReLU6 the scale must be finite and > 0, and round(f / scale) must fit in int32 (TFLite's
// Quantize() rejects it otherwise; here std::invalid_argument).
void activation_bounds(Activation act, bool out_signed, int32_t out_zero_point, float out_scale,
                       int32_t* act_min, int32_t* act_max);

// One accumulator value through the post-processing pipeline:
//   v = acc + bias (wraps);  kNone: return v.
//   r = requant(v) (mode as above);  r = sat32(r + zero_point);  clamp(r, act_min, act_max).
int32_t postprocess(int32_t acc, const ChannelParams& ch, const OutputParams& out);

// The same over an M x N matrix, one ChannelParams per column.
std::vector<int32_t> postprocess(std::span<const int32_t> acc, int m, int n,
                                 std::span<const ChannelParams> ch, const OutputParams& out);

// ---------------------------------------------------------------------------------------------
// Convolution (NHWC) via im2col
// ---------------------------------------------------------------------------------------------

struct Conv2dShape {
  int n = 1, h = 1, w = 1, c_in = 1;  // input NHWC
  int kh = 1, kw = 1, c_out = 1;      // filter OHWI: [c_out][kh][kw][c_in] (TFLite layout)
  int stride_h = 1, stride_w = 1;
  int pad_top = 0, pad_left = 0, pad_bottom = 0, pad_right = 0;
  int out_h() const { return (h + pad_top + pad_bottom - kh) / stride_h + 1; }
  int out_w() const { return (w + pad_left + pad_right - kw) / stride_w + 1; }
};

// im2col: rows = n*out_h*out_w (NHW order), cols = kh*kw*c_in (HWC order). Padding positions take
// the input zero point, so they contribute exactly zero after zero-point subtraction.
std::vector<int32_t> im2col(std::span<const int32_t> input, const Conv2dShape& s,
                            int32_t pad_value);

// Filter OHWI -> GEMM weights [kh*kw*c_in][c_out].
std::vector<int32_t> filter_to_gemm(std::span<const int32_t> filter, const Conv2dShape& s);

// conv2d = gemm(im2col(input), filter_to_gemm(filter)): INT32 NHWC output [n][oh][ow][c_out].
std::vector<int32_t> conv2d(std::span<const int32_t> input, std::span<const int32_t> filter,
                            const Conv2dShape& s, const OperandType& in_t,
                            const OperandType& filt_t);

}  // namespace weft::golden
