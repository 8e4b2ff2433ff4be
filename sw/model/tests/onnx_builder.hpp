// Small ONNX models built in place for the runtime's tests (protobuf, no Python), and the
// helpers those tests share: a scratch directory, float bit casts, tensors, an error's message.
#pragma once

#include <onnx/onnx_pb.h>
#include <unistd.h>

#include <cstdint>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <string>
#include <system_error>
#include <utility>
#include <vector>

#include "weft/error.hpp"
#include "weft/onnx_graph.hpp"

namespace weft::test {

// A directory for the models a test program builds (`tag` names it), removed when the program
// ends.
inline std::filesystem::path scratch_dir(const std::string& tag) {
  namespace fs = std::filesystem;
  struct Dir {
    fs::path path;
    explicit Dir(const std::string& t)
        : path(fs::temp_directory_path() / ("weft_" + t + "_" + std::to_string(::getpid()))) {
      fs::create_directories(path);
    }
    ~Dir() {
      std::error_code ec;
      fs::remove_all(path, ec);
    }
  };
  static const Dir dir(tag);
  return dir.path;
}

inline uint32_t bits_of(float f) {
  uint32_t u;
  std::memcpy(&u, &f, sizeof u);
  return u;
}
inline float from_bits(uint32_t u) {
  float f;
  std::memcpy(&f, &u, sizeof f);
  return f;
}

// A one-graph ONNX model (default domain, the given opset), saved into `dir`.
struct ModelBuilder {
  onnx::ModelProto m;
  onnx::GraphProto* g;
  std::filesystem::path dir;
  ModelBuilder(int opset, const std::string& graph_name, std::filesystem::path where)
      : dir(std::move(where)) {
    m.set_ir_version(9);
    auto* o = m.add_opset_import();
    o->set_domain("");
    o->set_version(opset);
    g = m.mutable_graph();
    g->set_name(graph_name);
  }
  void input(const std::string& name, int elem, const std::vector<int64_t>& dims) {
    auto* v = g->add_input();
    v->set_name(name);
    v->mutable_type()->mutable_tensor_type()->set_elem_type(elem);
    auto* shape = v->mutable_type()->mutable_tensor_type()->mutable_shape();
    for (int64_t d : dims) shape->add_dim()->set_dim_value(d);
  }
  void output(const std::string& name, int elem) {
    auto* v = g->add_output();
    v->set_name(name);
    v->mutable_type()->mutable_tensor_type()->set_elem_type(elem);
  }
  onnx::NodeProto* node(const std::string& op, const std::vector<std::string>& in,
                        const std::vector<std::string>& out) {
    auto* n = g->add_node();
    n->set_op_type(op);
    n->set_name(op + "_" + out.at(0));
    for (const auto& x : in) n->add_input(x);
    for (const auto& y : out) n->add_output(y);
    return n;
  }
  static void attr(onnx::NodeProto* n, const std::string& name, int64_t v) {
    auto* a = n->add_attribute();
    a->set_name(name);
    a->set_type(onnx::AttributeProto::INT);
    a->set_i(v);
  }
  void floats(const std::string& name, const std::vector<int64_t>& dims,
              const std::vector<float>& v) {
    auto* t = g->add_initializer();
    t->set_name(name);
    t->set_data_type(onnx::TensorProto::FLOAT);
    for (int64_t d : dims) t->add_dims(d);
    for (float f : v) t->add_float_data(f);
  }
  void scalar_f32(const std::string& name, float v) { floats(name, {}, {v}); }
  // Element codes of type `elem` (float8: one byte each, bfloat16: two little-endian bytes), as
  // raw_data or (int32_data) one code per int32.
  void codes(const std::string& name, int elem, const std::vector<int64_t>& dims,
             const std::vector<int>& c, bool int32_data = false) {
    auto* t = g->add_initializer();
    t->set_name(name);
    t->set_data_type(elem);
    for (int64_t d : dims) t->add_dims(d);
    const int bytes = is_float8(elem) ? 1 : 2;
    std::string raw;
    for (int v : c) {
      if (int32_data) {
        t->add_int32_data(v);
      } else {
        for (int b = 0; b < bytes; ++b) raw.push_back(static_cast<char>((v >> (8 * b)) & 0xFF));
      }
    }
    if (!int32_data) t->set_raw_data(raw);
  }
  std::string save(const std::string& file) const {
    const std::string path = (dir / file).string();
    std::ofstream(path, std::ios::binary) << m.SerializeAsString();
    return path;
  }
};

inline OnnxTensor f32_tensor(std::vector<int64_t> dims, std::vector<float> v) {
  OnnxTensor t;
  t.elem_type = kOnnxFloat;
  t.dims = std::move(dims);
  t.floats = std::move(v);
  return t;
}
// A tensor of element codes (float8, bfloat16), held in `ints`.
inline OnnxTensor code_tensor(int elem, std::vector<int64_t> dims, std::vector<int64_t> codes) {
  OnnxTensor t;
  t.elem_type = elem;
  t.dims = std::move(dims);
  t.ints = std::move(codes);
  return t;
}

// The message of the weft::Error that `f` throws ("" when it throws none).
template <class F>
std::string error_of(F f, Errc* code = nullptr) {
  try {
    f();
  } catch (const Error& e) {
    if (code) *code = e.code();
    return e.what();
  }
  return "";
}

}  // namespace weft::test
