#include "weft/onnx_graph.hpp"

#include <onnx/onnx_pb.h>

#include <cstring>
#include <fstream>
#include <limits>
#include <set>
#include <sstream>

#include "weft/error.hpp"

namespace weft {
namespace {

[[noreturn]] void bad(const std::string& path, const std::string& what) {
  throw Error(Errc::kBadModel, path + ": " + what);
}

OnnxValueInfo value_info(const onnx::ValueInfoProto& v) {
  OnnxValueInfo out;
  out.name = v.name();
  if (v.type().has_tensor_type()) {
    const auto& t = v.type().tensor_type();
    out.elem_type = t.elem_type();
    if (t.has_shape()) {
      out.has_shape = true;
      for (const auto& d : t.shape().dim()) out.dims.push_back(d.has_dim_value() ? d.dim_value() : -1);
    }
  }
  return out;
}

// The values of a TensorProto; `where` names the file (and tensor) in errors.
OnnxTensor tensor_value(const onnx::TensorProto& t, const std::string& path) {
  OnnxTensor out;
  out.name = t.name();
  out.elem_type = t.data_type();
  out.dims.assign(t.dims().begin(), t.dims().end());
  int64_t n = 1;
  for (int64_t d : out.dims) {
    if (d < 0) bad(path, "a negative dimension");
    if (d > 0 && n > (int64_t{1} << 40) / d) bad(path, "more than 2^40 elements");
    n *= d;
  }
  const std::string& raw = t.raw_data();
  auto from_raw = [&](auto sample, auto put) {
    using T = decltype(sample);
    if (raw.size() != static_cast<size_t>(n) * sizeof(T)) {
      bad(path, "raw_data holds " + std::to_string(raw.size()) + " bytes, the dimensions need " +
                    std::to_string(n * static_cast<int64_t>(sizeof(T))));
    }
    for (int64_t i = 0; i < n; ++i) {
      T v;
      std::memcpy(&v, raw.data() + i * sizeof(T), sizeof(T));  // little-endian, as ONNX stores
      put(v);
    }
  };
  auto put_int = [&](auto v) { out.ints.push_back(static_cast<int64_t>(v)); };
  const bool has_raw = t.has_raw_data();
  switch (t.data_type()) {
    case onnx::TensorProto::FLOAT:
      if (has_raw) from_raw(float{}, [&](float v) { out.floats.push_back(v); });
      else out.floats.assign(t.float_data().begin(), t.float_data().end());
      break;
    case onnx::TensorProto::UINT8:
      if (has_raw) from_raw(uint8_t{}, put_int);
      else for (int32_t v : t.int32_data()) put_int(static_cast<uint8_t>(v));
      break;
    case onnx::TensorProto::INT8:
      if (has_raw) from_raw(int8_t{}, put_int);
      else for (int32_t v : t.int32_data()) put_int(static_cast<int8_t>(v));
      break;
    case onnx::TensorProto::INT32:
      if (has_raw) from_raw(int32_t{}, put_int);
      else for (int32_t v : t.int32_data()) put_int(v);
      break;
    case onnx::TensorProto::INT64:
      if (has_raw) from_raw(int64_t{}, put_int);
      else for (int64_t v : t.int64_data()) put_int(v);
      break;
    // FLOAT8E4M3FN (17) and FLOAT8E5M2 (19), numbered here because Debian's libonnx (ONNX 1.12)
    // predates them: kept as their codes (0..255), which is what every consumer works on (the
    // host ops decode them; the tensor unit takes the bytes as they are). raw_data holds one
    // byte per element, int32_data one code per element.
    case kOnnxFloat8E4m3fn:
    case kOnnxFloat8E5m2:
      if (has_raw) {
        from_raw(uint8_t{}, put_int);
      } else {
        for (int32_t v : t.int32_data()) {
          // A code outside a byte is no FP8 encoding: a damaged file, not something to wrap.
          if (v < 0 || v > 255) bad(path, "a float8 code " + std::to_string(v) + " outside 0..255");
          put_int(v);
        }
      }
      break;
    // BFLOAT16 (16) as its codes, the float32's top 16 bits (0..65535): raw_data holds two
    // little-endian bytes per element, int32_data one code per element (ONNX stores the bits, not
    // a value to convert). UINT16 (4) the same way: ONNX 1.12's node tests
    // (test_cast_FLOAT_to_BFLOAT16 ...) store bfloat16 data as UINT16 tensors of the bits.
    case onnx::TensorProto::BFLOAT16:
    case onnx::TensorProto::UINT16:
      if (has_raw) {
        from_raw(uint16_t{}, put_int);
      } else {
        for (int32_t v : t.int32_data()) {
          if (v < 0 || v > 0xFFFF) {
            bad(path, "a 16-bit code " + std::to_string(v) + " outside 0..65535");
          }
          put_int(v);
        }
      }
      break;
    default:
      bad(path, "element type " + std::to_string(t.data_type()) +
                    " is not read (FLOAT, UINT8, INT8, UINT16, INT32, INT64, BFLOAT16, "
                    "FLOAT8E4M3FN, FLOAT8E5M2 are)");
  }
  const size_t got = out.floats.size() + out.ints.size();
  if (got != static_cast<size_t>(n)) {
    bad(path, std::to_string(got) + " elements, the dimensions need " + std::to_string(n));
  }
  return out;
}

}  // namespace

OnnxGraph load_onnx_graph(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) bad(path, "cannot open the file (give the path of an .onnx model)");
  std::stringstream bytes;
  bytes << in.rdbuf();
  const std::string data = bytes.str();
  if (data.empty()) bad(path, "the file is empty, not an ONNX model");
  if (data.size() > static_cast<size_t>(std::numeric_limits<int>::max())) {
    bad(path, "the file is larger than 2 GiB, which protobuf cannot parse");
  }

  onnx::ModelProto model;
  if (!model.ParseFromString(data)) {
    bad(path, "not an ONNX model: the protobuf ModelProto does not parse (malformed or truncated)");
  }
  if (!model.has_graph()) bad(path, "the model has no graph (not an ONNX model, or truncated)");

  OnnxGraph g;
  g.path = path;
  for (const auto& op : model.opset_import()) {
    if (op.domain().empty() || op.domain() == "ai.onnx") g.opset = op.version();
  }
  if (g.opset <= 0) bad(path, "no ai.onnx opset in opset_import (not an ONNX model, or truncated)");

  const onnx::GraphProto& graph = model.graph();
  if (graph.node_size() == 0) bad(path, "the graph has no nodes");

  std::set<std::string> known;  // values available so far, in file order
  for (const auto& t : graph.initializer()) {
    if (t.name().empty()) bad(path, "an initializer has no name");
    OnnxValueInfo vi;
    vi.name = t.name();
    vi.elem_type = t.data_type();
    vi.has_shape = true;
    vi.dims.assign(t.dims().begin(), t.dims().end());
    g.initializers.push_back(vi);
    g.constants[t.name()] = tensor_value(t, path + ": initializer '" + t.name() + "'");
    known.insert(t.name());
  }
  for (const auto& v : graph.input()) {
    if (v.name().empty()) bad(path, "a graph input has no name");
    if (!known.count(v.name())) g.inputs.push_back(value_info(v));
    known.insert(v.name());
  }
  for (int i = 0; i < graph.node_size(); ++i) {
    const onnx::NodeProto& n = graph.node(i);
    OnnxNode node;
    if (n.name().empty()) {
      node.name = std::to_string(i);
      node.name.insert(node.name.begin(), '#');  // not "#" + s: GCC 12's -Wrestrict misfires on it
    } else {
      node.name = n.name();
    }
    node.op_type = n.op_type();
    node.domain = n.domain();
    if (node.op_type.empty()) bad(path, "node " + node.name + " has no op_type");
    const std::string where = "node " + node.name + " (" + node.op_type + ")";
    for (const auto& x : n.input()) {
      if (!x.empty() && !known.count(x)) {
        bad(path, where + " reads '" + x +
                      "', which no graph input, initializer or earlier node provides "
                      "(a missing initializer, or nodes out of order)");
      }
      node.inputs.push_back(x);
    }
    for (const auto& a : n.attribute()) {
      if (a.type() == onnx::AttributeProto::INT) node.int_attrs[a.name()] = a.i();
      if (a.type() == onnx::AttributeProto::FLOAT) node.float_attrs[a.name()] = a.f();
      if (a.type() == onnx::AttributeProto::STRING) node.string_attrs[a.name()] = a.s();
      if (a.type() == onnx::AttributeProto::INTS) {
        node.ints_attrs[a.name()].assign(a.ints().begin(), a.ints().end());
      }
    }
    if (node.op_type == "Constant" && node.domain.empty()) {
      // A Constant's value is known at load: it becomes one of the graph's constants.
      const onnx::AttributeProto* value = nullptr;
      for (const auto& a : n.attribute()) {
        if (a.name() == "value" && a.type() == onnx::AttributeProto::TENSOR) value = &a;
      }
      if (!value || n.output_size() != 1 || n.output(0).empty()) {
        bad(path, where + ": only a Constant with one output and a tensor 'value' is supported");
      }
      OnnxTensor c = tensor_value(value->t(), path + ": " + where);
      c.name = n.output(0);
      g.constants[c.name] = std::move(c);
      known.insert(n.output(0));
      continue;
    }
    for (const auto& y : n.output()) {
      if (!y.empty()) known.insert(y);
      node.outputs.push_back(y);
    }
    g.nodes.push_back(std::move(node));
  }
  if (graph.output_size() == 0) bad(path, "the graph has no outputs");
  for (const auto& v : graph.output()) {
    if (!known.count(v.name())) {
      bad(path, "graph output '" + v.name() + "' is produced by no node, input or initializer");
    }
    g.outputs.push_back(value_info(v));
  }
  return g;
}

OnnxTensor load_onnx_tensor(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) bad(path, "cannot open the file (give the path of a TensorProto .pb file)");
  std::stringstream bytes;
  bytes << in.rdbuf();
  onnx::TensorProto t;
  if (!t.ParseFromString(bytes.str())) bad(path, "not a TensorProto: does not parse");
  return tensor_value(t, path);
}

}  // namespace weft
