// weft/onnx_graph.hpp: an ONNX model file read and checked, the first stage of the model runtime
// (docs/model-runtime.md). Parsing uses Debian's libonnx protobuf classes; nothing here touches a
// device.
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <vector>

namespace weft {

// A value's declared type: ONNX TensorProto.DataType (1 FLOAT, 2 UINT8, 3 INT8, 6 INT32, ...)
// and its dimensions (-1 for a symbolic or absent one; `has_shape` false when the model gives no
// shape at all).
struct OnnxValueInfo {
  std::string name;
  int32_t elem_type = 0;
  std::vector<int64_t> dims;
  bool has_shape = false;
};

struct OnnxNode {
  std::string name;     // may be empty in the file; then "#<index>"
  std::string op_type;  // "QLinearConv", ...
  std::string domain;   // "" (ai.onnx) for the standard operators
  std::vector<std::string> inputs;   // "" for an omitted optional input
  std::vector<std::string> outputs;
  std::map<std::string, int64_t> int_attrs;                 // INT attributes (axis, group, ...)
  std::map<std::string, std::vector<int64_t>> ints_attrs;  // INTS attributes (pads, strides, ...)
};

// The graph in file order (ONNX requires a topological order) with its interface.
struct OnnxGraph {
  std::string path;
  int64_t opset = 0;  // version of the default (ai.onnx) domain
  std::vector<OnnxNode> nodes;
  std::vector<OnnxValueInfo> inputs;        // graph inputs that are not initializers
  std::vector<OnnxValueInfo> outputs;
  std::vector<OnnxValueInfo> initializers;  // constant tensors (weights, scales, zero points)
};

// Reads and checks `path`. Throws weft::Error(Errc::kBadModel) naming the file, and the node and
// its op where there is one, when the file is missing or unreadable, is not a protobuf ModelProto
// (malformed or truncated), has no graph or no ai.onnx opset, or a node reads a value that no
// graph input, initializer, Constant or earlier node provides.
OnnxGraph load_onnx_graph(const std::string& path);

// One tensor: a TensorProto file (an ONNX test data set's input_<i>.pb / output_<i>.pb). Integer
// element types (UINT8, INT8, INT32, INT64, ...) come in `ints`, FLOAT in `floats`, from raw_data
// or the typed fields. Throws weft::Error(Errc::kBadModel) naming the file on a missing, malformed
// or inconsistent file (an element count that does not match the dimensions) or another type.
struct OnnxTensor {
  std::string name;
  int32_t elem_type = 0;
  std::vector<int64_t> dims;
  std::vector<int64_t> ints;
  std::vector<float> floats;
};
OnnxTensor load_onnx_tensor(const std::string& path);

}  // namespace weft
