// weft/golden/onnx_exec.hpp: the golden ONNX graph executor. It runs a whole graph on the host
// with the ONNX operators' semantics (written from the operator specification, independently of
// the device path), and is the reference the model runtime's device results are compared with
// (docs/model-runtime.md, "Golden graph executor").
//
// The QDQ form gives the ONNX integer result: a float Conv / MatMul / Gemm whose operands are
// DequantizeLinear outputs of 8-bit tensors (and whose bias is the DequantizeLinear of an int32
// tensor) is evaluated as the QLinearConv / QLinearMatMul onnxruntime fuses it into; a Relu or
// Clip between it and the consuming QuantizeLinear is applied exactly in the integer domain. The
// float8 form of the same group follows the tensor unit's FP8 rule, and bfloat16 MatMul / Gemm /
// Conv its BF16 rule (GraphOptions::fp_tile_rows).
#pragma once

#include <map>
#include <string>

#include "weft/onnx_types.hpp"

namespace weft::golden::onnx {

// Runs the graph on the host with the ONNX integer semantics; returns every graph output by name.
// `inputs` gives each graph input (not the initializers) by name; shapes come from these tensors.
// Throws std::invalid_argument naming the node, its op and the reason: for an unsupported op,
// attribute, data type or opset the message begins with "unsupported:"; otherwise the graph or
// its inputs are malformed (a missing input, a shape that does not resolve, ...).
std::map<std::string, weft::OnnxTensor> run_graph(const weft::OnnxGraph& g,
                                                  const std::map<std::string, weft::OnnxTensor>& inputs);

// Not the specification: what onnxruntime computes on an x86 CPU without AVX512-VNNI / AVX-VNNI,
// for showing that a difference between onnxruntime and the specification is that and nothing
// else (docs/model-runtime.md, "onnxruntime as a reference"). With `emulate_u8s8_int16_pairs`, a
// QDQ MatMul / Gemm of a uint8 input by int8 weights sums the raw products in pairs of adjacent
// k (k even, k + 1) saturated to int16 (MLAS's vpmaddubsw), the pair sums exactly in int32, then
// subtracts the zero points' terms exactly: sum_k (a - za)(w - zw) = raw - zw sum_k a - za sum_k w
// + K za zw.
//
// `fp_tile_rows`: the k-tile height of the tensor unit's FP rule (golden::gemm_fp; the array's
// rows, default the 16 x 16 array's), for the two forms the model runtime lowers onto the FP
// modes:
//   - the FP8 QDQ group, DequantizeLinear of float8 x and w -> MatMul / Gemm / Conv [-> Relu] ->
//     QuantizeLinear to float8 (saturate 1, per-tensor y_scale) (docs/model-runtime.md, "FP8 on
//     the tensor unit"): golden::gemm_fp, then per column golden::fp_postprocess with scale
//     fl32(fl32(x_scale * w_scale[n]) / y_scale), bias fl32(b[n] / y_scale) and the Relu, then
//     golden::fp_encode;
//   - MatMul (2-D weights) / Gemm (transA 0, alpha = beta = 1) / Conv (2-D, group 1) of bfloat16
//     x and w (docs/model-runtime.md, "BF16 on the tensor unit"): golden::gemm_fp on the codes,
//     then per column golden::fp_postprocess(sum, 1, bias[n]) (bias: Gemm's C or Conv's B, N or
//     1 BFLOAT16 or FLOAT values) and golden::fp_encode into bfloat16. A following Relu runs on
//     the codes (negative and -0 to +0, NaN kept), which equals the device's fused Relu.
// Neither is the specification's float path. 0 evaluates a float path instead: for FP8 the
// dequantized float MatMul / Conv; for BF16 the arithmetic of onnx's reference evaluator: the
// products and their sum in float32 in k order from +0 (Conv's k in (channel, kernel row, kernel
// column) order), Conv's B added in float32, then one rounding to bfloat16; Gemm rounds the
// product to bfloat16 before it adds C (numpy's dot on bfloat16), a second rounding. (The
// reference's Conv and batched MatMul go through numpy's float32 matmul, whose summation order
// is BLAS's: k order is the nearest fixed choice.)
struct GraphOptions {
  bool emulate_u8s8_int16_pairs = false;
  int fp_tile_rows = 16;
};
std::map<std::string, weft::OnnxTensor> run_graph(const weft::OnnxGraph& g,
                                                  const std::map<std::string, weft::OnnxTensor>& inputs,
                                                  const GraphOptions& options);

// Whether an op (domain "", opset 13-22) is supported, and if not, why (for a node-test table).
// Judges what the node alone shows (op, domain, attributes); data types and shapes are checked
// when the graph runs.
bool op_supported(const weft::OnnxNode& n, std::string* why);

}  // namespace weft::golden::onnx
