// weft/onnx_graph.hpp: an ONNX model file read and checked, the first stage of the model runtime
// (docs/model-runtime.md). Parsing uses Debian's libonnx protobuf classes; nothing here touches a
// device.
#pragma once

#include <string>

#include "weft/onnx_types.hpp"

namespace weft {

// Reads and checks `path`. Throws weft::Error(Errc::kBadModel) naming the file, and the node and
// its op where there is one, when the file is missing or unreadable, is not a protobuf ModelProto
// (malformed or truncated), has no graph or no ai.onnx opset, or a node reads a value that no
// graph input, initializer, Constant or earlier node provides.
OnnxGraph load_onnx_graph(const std::string& path);

// One tensor: a TensorProto file (an ONNX test data set's input_<i>.pb / output_<i>.pb). Integer
// element types (UINT8, INT8, INT32, INT64, ...) come in `ints`, FLOAT in `floats`, from raw_data
// or the typed fields. Throws weft::Error(Errc::kBadModel) naming the file on a missing, malformed
// or inconsistent file (an element count that does not match the dimensions) or another type.
OnnxTensor load_onnx_tensor(const std::string& path);

}  // namespace weft
