// weft/golden/onnx_ops.hpp: the ONNX operators' integer semantics, written from the ONNX operator
// specification (onnx/docs/Operators.md, opsets 10-13; float8 QuantizeLinear / DequantizeLinear
// from opset 19) independently of the device path. The model runtime's golden graph executor is
// built from them (docs/model-runtime.md).
//
// Tensors are row-major with explicit dimensions; integer elements travel as int32 whatever
// their ONNX type (UINT8, INT8, INT32), with the type given where it sets a saturation range.
#pragma once

#include <cstdint>
#include <vector>

namespace weft::golden::onnx {

enum class QType { kUint8, kInt8 };

struct IntTensor {
  std::vector<int64_t> dims;
  std::vector<int32_t> data;
};
struct FloatTensor {
  std::vector<int64_t> dims;
  std::vector<float> data;
};

// QuantizeLinear: y = saturate(round_half_even(x / y_scale) + y_zero_point). A scale and zero
// point with one element are per tensor; with dims[axis] elements they are per axis (opset 13).
IntTensor quantize_linear(const FloatTensor& x, const std::vector<float>& y_scale,
                          const std::vector<int32_t>& y_zero_point, QType type, int axis = 1);

// DequantizeLinear: y = (x - x_zero_point) * x_scale, per tensor or per axis as above.
FloatTensor dequantize_linear(const IntTensor& x, const std::vector<float>& x_scale,
                              const std::vector<int32_t>& x_zero_point, int axis = 1);

// The shapes of numpy matmul: a [..., M, K] x b [..., K, N] with broadcast batch dimensions
// (a 1-D a or b gains and then loses a dimension of 1). Throws std::invalid_argument when the
// inner or batch dimensions do not match.
struct MatMulShape {
  std::vector<int64_t> out;  // batch..., M, N
  int64_t m, k, n, batch;
  std::vector<int64_t> a_batch_stride, b_batch_stride;  // per output batch index: element offset
};
MatMulShape matmul_shape(std::vector<int64_t> a, std::vector<int64_t> b);

// MatMulInteger: (a - a_zero_point) x (b - b_zero_point) in int32, numpy matmul rules for
// 2-D and batched (N-D, broadcast batch dimensions) operands; scalar zero points.
IntTensor matmul_integer(const IntTensor& a, const IntTensor& b, int32_t a_zero_point,
                         int32_t b_zero_point);

// QLinearMatMul: saturate(round_half_even((a - a_zp)(b - b_zp) * (a_scale * b_scale / y_scale))
// + y_zp), the real multiplier formed in float32 as the specification's reference does, the
// product of the int32 accumulator and that multiplier in double.
IntTensor qlinear_matmul(const IntTensor& a, float a_scale, int32_t a_zero_point,
                         const IntTensor& b, float b_scale, int32_t b_zero_point, float y_scale,
                         int32_t y_zero_point, QType y_type);

// Conv geometry of ConvInteger / QLinearConv (2-D, NCHW input, M x C/group x KH x KW weights):
// pads {top, left, bottom, right}, padded positions hold the input zero point (zero after its
// subtraction). With `group` > 1 the C input channels and M output channels split into `group`
// equal parts, output channel m reading only the channels of its part (group = C: depthwise).
struct Conv2dGeometry {
  int64_t stride_h = 1, stride_w = 1, dilation_h = 1, dilation_w = 1;
  int64_t pad_top = 0, pad_left = 0, pad_bottom = 0, pad_right = 0;
  int64_t group = 1;
};

// One value of QuantizeLinear: saturate(round_half_even(x / y_scale) + y_zero_point), the
// division in float32.
int32_t quantize_value(float x, float y_scale, int32_t y_zero_point, QType type);

// The requantization of QLinearConv / QLinearMatMul for one accumulator (bias included):
// saturate(round_half_even(acc * multiplier) + y_zero_point), the product in double. The caller
// forms `multiplier` in float32 as x_scale * w_scale / y_scale, in that order.
int32_t requantize(int64_t acc, float multiplier, int32_t y_zero_point, QType type);

// --- float8 (opset 19+): FLOAT8E4M3FN and FLOAT8E5M2, elements as their codes (0..255) -----

// TensorProto.DataType of the two float8 types (weft/onnx_types.hpp's OnnxElemType has none).
inline constexpr int32_t kFloat8E4m3fn = 17;
inline constexpr int32_t kFloat8E5m2 = 19;
enum class Fp8Type { kE4m3fn, kE5m2 };

// QuantizeLinear to float8 of one value: v = x / y_scale in float32, then
//   saturate: round to nearest even, +-Inf and values beyond the largest finite one to +-max
//     (0x7E / 0xFE, 0x7B / 0xFB), NaN to the canonical NaN (0x7F E4M3FN, 0x7E E5M2), as
//     golden::fp_encode (ONNX Cast saturate=1);
//   !saturate: round to nearest even; E4M3FN turns overflow and +-Inf into NaN, E5M2 overflow
//     into +-Inf, and NaN stays NaN, the sign kept in all three (what the specification's
//     reference, ml_dtypes' cast, gives).
// The zero point does not enter: the specification's reference and onnxruntime ignore it.
// Written apart from fp_encode (a search over the format's values) so that the two check each
// other.
int32_t quantize_fp8_value(float x, float y_scale, Fp8Type type, bool saturate);

// DequantizeLinear from float8 of one code: float32(x) * x_scale, one float32 multiply (the
// decoding is exact; every NaN decodes to the canonical quiet NaN).
float dequantize_fp8_value(int32_t code, float x_scale, Fp8Type type);

// The two on tensors, per tensor or per axis as quantize_linear / dequantize_linear.
IntTensor quantize_linear_fp8(const FloatTensor& x, const std::vector<float>& y_scale, Fp8Type type,
                              bool saturate, int axis = 1);
FloatTensor dequantize_linear_fp8(const IntTensor& x, const std::vector<float>& x_scale,
                                  Fp8Type type, int axis = 1);

// ConvInteger: sum over the group's c, kh, kw of (x - x_zero_point)(w - w_zero_point[m]) in
// int32, output N x M x OH x OW. w_zero_point has one element or M.
IntTensor conv_integer(const IntTensor& x, const IntTensor& w, int32_t x_zero_point,
                       const std::vector<int32_t>& w_zero_point, const Conv2dGeometry& g);

// QLinearConv: the ConvInteger accumulator plus the int32 bias (empty: none), times
// x_scale * w_scale[m] / y_scale (float32) in double, rounded half to even, plus y_zero_point,
// saturated; w_scale and w_zero_point have one element or M.
IntTensor qlinear_conv(const IntTensor& x, float x_scale, int32_t x_zero_point, const IntTensor& w,
                       const std::vector<float>& w_scale, const std::vector<int32_t>& w_zero_point,
                       float y_scale, int32_t y_zero_point, QType y_type,
                       const std::vector<int32_t>& bias, const Conv2dGeometry& g);

}  // namespace weft::golden::onnx
