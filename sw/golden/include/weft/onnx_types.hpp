// weft/onnx_types.hpp: an ONNX graph and its tensors as plain C++ values, with no protobuf in
// sight. The model runtime's loader (sw/model, weft/onnx_graph.hpp) fills them from a file; the
// golden graph executor (weft/golden/onnx_exec.hpp) and the runtime's lowering read them.
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <vector>

namespace weft {

// "1x3x32x32" ("scalar" for no dimensions), as the runtime's messages and reports print shapes.
inline std::string dims_string(const std::vector<int64_t>& dims) {
  std::string s;
  for (size_t i = 0; i < dims.size(); ++i) {
    if (i) s += 'x';  // appended piecewise: GCC 12's -Wrestrict misfires on "x" + std::string
    s += std::to_string(dims[i]);
  }
  return s.empty() ? "scalar" : s;
}

// ONNX TensorProto.DataType values the runtime reads.
enum OnnxElemType : int32_t {
  kOnnxFloat = 1,
  kOnnxUint8 = 2,
  kOnnxInt8 = 3,
  kOnnxUint16 = 4,  // read from files only: ONNX 1.12's node tests store bfloat16 bits as UINT16
  kOnnxInt32 = 6,
  kOnnxInt64 = 7,
  kOnnxBfloat16 = 16,  // bfloat16: held as its 16-bit codes in OnnxTensor::ints (see OnnxTensor)
};

// A value's declared type: elem_type (OnnxElemType) and its dimensions (-1 for a symbolic or
// absent one; `has_shape` false when the model gives no shape at all).
struct OnnxValueInfo {
  std::string name;
  int32_t elem_type = 0;
  std::vector<int64_t> dims;
  bool has_shape = false;
};

// One tensor. Integer element types (UINT8, INT8, UINT16, INT32, INT64) are held in `ints`, FLOAT
// in `floats`; the other vector is empty. The narrow float types travel as their codes in `ints`,
// so is_float() is false for them: BFLOAT16 as 0..65535 (the top half of the float32 bits),
// FLOAT8E4M3FN / FLOAT8E5M2 (weft/onnx_graph.hpp) as 0..255. Only the ops that know the format
// decode them (Cast, the quantization ops, the tensor unit); data movement copies codes.
struct OnnxTensor {
  std::string name;
  int32_t elem_type = 0;
  std::vector<int64_t> dims;
  std::vector<int64_t> ints;
  std::vector<float> floats;
  int64_t size() const {
    int64_t n = 1;
    for (int64_t d : dims) n *= d;
    return n;
  }
  bool is_float() const { return elem_type == kOnnxFloat; }
  bool is_bf16() const { return elem_type == kOnnxBfloat16; }
};

struct OnnxNode {
  std::string name;     // may be empty in the file; then "#<index>"
  std::string op_type;  // "QLinearConv", ...
  std::string domain;   // "" (ai.onnx) for the standard operators
  std::vector<std::string> inputs;   // "" for an omitted optional input
  std::vector<std::string> outputs;
  std::map<std::string, int64_t> int_attrs;                 // INT attributes (axis, group, ...)
  std::map<std::string, std::vector<int64_t>> ints_attrs;  // INTS attributes (pads, strides, ...)
  std::map<std::string, float> float_attrs;                 // FLOAT attributes (alpha, beta, ...)
  std::map<std::string, std::string> string_attrs;          // STRING attributes (auto_pad, ...)

  int64_t attr(const std::string& key, int64_t dflt) const {
    auto it = int_attrs.find(key);
    return it == int_attrs.end() ? dflt : it->second;
  }
  float fattr(const std::string& key, float dflt) const {
    auto it = float_attrs.find(key);
    return it == float_attrs.end() ? dflt : it->second;
  }
  std::vector<int64_t> ints(const std::string& key, std::vector<int64_t> dflt = {}) const {
    auto it = ints_attrs.find(key);
    return it == ints_attrs.end() ? dflt : it->second;
  }
  std::string sattr(const std::string& key, const std::string& dflt) const {
    auto it = string_attrs.find(key);
    return it == string_attrs.end() ? dflt : it->second;
  }
};

// The graph in file order (ONNX requires a topological order) with its interface.
struct OnnxGraph {
  std::string path;
  int64_t opset = 0;  // version of the default (ai.onnx) domain
  std::vector<OnnxNode> nodes;  // without the Constant nodes, whose values are in `constants`
  std::vector<OnnxValueInfo> inputs;        // graph inputs that are not initializers
  std::vector<OnnxValueInfo> outputs;
  std::vector<OnnxValueInfo> initializers;  // constant tensors (weights, scales, zero points)
  // The values of the initializers and of Constant nodes' outputs, by name.
  std::map<std::string, OnnxTensor> constants;
};

}  // namespace weft
