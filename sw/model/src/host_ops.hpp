// The operators the model runtime runs on the host (docs/model-runtime.md, "Where operators
// run"), with the ONNX specification's semantics on ONNX's own layouts (NCHW). They are the
// runtime's, not the golden executor's: the two are written separately so that each checks the
// other. Errors are weft::Error(kBadModel) naming the node and op.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "weft/onnx_types.hpp"

namespace weft::model {

// Runs `n` on its inputs (nullptr for an omitted optional input) and returns its outputs.
std::vector<OnnxTensor> run_host_op(const OnnxNode& n, const std::vector<const OnnxTensor*>& in,
                                    int64_t opset);

// Whether the host runs this op; `why` says what is missing otherwise.
bool host_op_supported(const OnnxNode& n, std::string* why);

// QuantizeLinear's rounding of one value: saturate(round_half_even(x / scale) + zero_point) with
// the division in float32 (the tensor unit's fused clamps use it for Clip bounds).
int32_t quantize_value(float x, float scale, int32_t zero_point, int32_t qmin, int32_t qmax);

// 2-D pooling geometry of MaxPool / AveragePool on an NCHW tensor: kernel, strides, dilations,
// the paddings (from `pads` or `auto_pad`) and the output size (with `ceil_mode`).
struct Pool {
  int64_t kh = 1, kw = 1, sh = 1, sw = 1, dh = 1, dw = 1;
  int64_t pt = 0, pl = 0, pb = 0, pr = 0;
  int64_t oh = 0, ow = 0;
};
Pool pool_geometry(const OnnxNode& n, const OnnxTensor& x);

// Element count of `dims`; kBadModel when a dimension is negative or the count overflows.
int64_t element_count(const std::vector<int64_t>& dims, const std::string& where);

using weft::dims_string;  // weft/onnx_types.hpp

}  // namespace weft::model
