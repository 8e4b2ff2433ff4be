// weft/onnx_graph.hpp: an ONNX model file read and checked, the first stage of the model runtime
// (docs/model-runtime.md). Parsing uses Debian's libonnx protobuf classes; nothing here touches a
// device.
#pragma once

#include <string>

#include "weft/onnx_types.hpp"

namespace weft {

// TensorProto.DataType of the two float8 types the runtime reads (OnnxElemType in
// weft/onnx_types.hpp stops at INT64). Their elements travel as codes (0..255) in
// OnnxTensor::ints, so is_float() is false for them: only the quantization ops and data movement
// read them, and those work on the codes.
inline constexpr int32_t kOnnxFloat8E4m3fn = 17;  // OCP E4M3FN: no infinities, NaN S.1111.111
inline constexpr int32_t kOnnxFloat8E5m2 = 19;    // OCP E5M2: IEEE-like, with infinities
inline bool is_float8(int32_t elem_type) {
  return elem_type == kOnnxFloat8E4m3fn || elem_type == kOnnxFloat8E5m2;
}

// Reads and checks `path`. Throws weft::Error(Errc::kBadModel) naming the file, and the node and
// its op where there is one, when the file is missing or unreadable, is not a protobuf ModelProto
// (malformed or truncated), has no graph or no ai.onnx opset, or a node reads a value that no
// graph input, initializer, Constant or earlier node provides.
OnnxGraph load_onnx_graph(const std::string& path);

// One tensor: a TensorProto file (an ONNX test data set's input_<i>.pb / output_<i>.pb). Integer
// element types (UINT8, INT8, INT32, INT64, ...) come in `ints`, FLOAT in `floats`, from raw_data
// or the typed fields; FLOAT8E4M3FN / FLOAT8E5M2 as their codes in `ints` (raw_data bytes, or
// int32_data with one code per element), BFLOAT16 and UINT16 as 16-bit codes in `ints` (raw_data
// two little-endian bytes per element, or int32_data one code per element); initializers and
// Constants alike. Throws weft::Error(Errc::kBadModel) naming the file on a
// missing, malformed or inconsistent file (an element count that does not match the dimensions) or
// another type.
OnnxTensor load_onnx_tensor(const std::string& path);

}  // namespace weft
