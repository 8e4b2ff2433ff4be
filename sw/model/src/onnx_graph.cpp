#include "weft/onnx_graph.hpp"

#include <onnx/onnx_pb.h>

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

}  // namespace weft
