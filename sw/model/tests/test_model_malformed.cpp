// Malformed .onnx files through the whole model runtime (docs/model-runtime.md, docs/fuzz.md):
// Model::load (read, lower, plan) and Model::run on ref://. Every damaged or crafted file must
// end in a weft::Error with a code (BAD_MODEL for the file, BAD_ARGUMENT for inputs,
// OUT_OF_MEMORY for what does not fit) -- never another exception, a crash or an allocation of
// terabytes. Damaged copies: truncations, byte damage and random bytes of the committed networks;
// crafted models: wrong types, missing values, absurd and overflowing dimensions, attributes out
// of range, sizes that would need terabytes.
#include <gtest/gtest.h>
#include <onnx/onnx_pb.h>
#include <unistd.h>

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <functional>
#include <map>
#include <optional>
#include <random>
#include <sstream>
#include <string>
#include <typeinfo>
#include <vector>

#include "weft/model.hpp"
#include "weft/tb/options.hpp"
#include "weft/weft.hpp"

namespace {

namespace fs = std::filesystem;
using weft::Errc;

fs::path temp_dir() {
  struct Dir {
    fs::path path = fs::temp_directory_path() / ("weft_malformed_" + std::to_string(::getpid()));
    Dir() { fs::create_directories(path); }
    ~Dir() {
      std::error_code ec;
      fs::remove_all(path, ec);
    }
  };
  static const Dir dir;
  return dir.path;
}

std::string read_file(const fs::path& p) {
  std::ifstream f(p, std::ios::binary);
  std::stringstream s;
  s << f.rdbuf();
  return s.str();
}

void write_file(const fs::path& p, const std::string& bytes) {
  std::ofstream f(p, std::ios::binary | std::ios::trunc);
  f.write(bytes.data(), static_cast<std::streamsize>(bytes.size()));
}

// Inputs of the declared shapes (unknown dimensions 1) and types, random values; empty when the
// declared shape is too large to build (the run is then skipped: a model may declare anything).
std::optional<std::map<std::string, weft::OnnxTensor>> inputs_for(const weft::Model& m,
                                                                  std::mt19937_64& rng) {
  std::map<std::string, weft::OnnxTensor> in;
  for (const weft::OnnxValueInfo& v : m.inputs()) {
    weft::OnnxTensor t;
    t.name = v.name;
    t.elem_type = v.elem_type;
    int64_t n = 1;
    for (int64_t d : v.dims) {
      const int64_t x = d < 0 ? 1 : d;
      if (x > 0 && n > (int64_t{1} << 20) / x) return std::nullopt;
      n *= x;
      t.dims.push_back(x);
    }
    if (v.elem_type == weft::kOnnxFloat) {
      for (int64_t i = 0; i < n; ++i) t.floats.push_back(float(int(rng() % 200) - 100) / 16.0f);
    } else {
      const int64_t mod = v.elem_type == weft::kOnnxBfloat16 ? 0x7F00 : 256;
      for (int64_t i = 0; i < n; ++i) {
        const int64_t x = int64_t(rng() % uint64_t(mod));
        t.ints.push_back(v.elem_type == weft::kOnnxInt8 ? x - 128 : x);
      }
    }
    in[v.name] = std::move(t);
  }
  return in;
}

// What one file did: "ok" (loaded and ran), "ok-load" (loaded, inputs too large to run), or the
// weft::Error's name. Any other exception fails the test.
struct Tally {
  std::map<std::string, int> by_outcome;
  int total = 0;
  std::string summary() const {
    std::string s;
    for (const auto& [k, v] : by_outcome) s += " " + k + ":" + std::to_string(v);
    return s;
  }
};

std::string try_model(weft::Device& dev, const fs::path& path, std::mt19937_64& rng,
                      std::string* message = nullptr) {
  try {
    weft::Model m = weft::Model::load(dev, path.string());
    const auto in = inputs_for(m, rng);
    if (!in) return "ok-load";
    m.run(*in);
    return "ok";
  } catch (const weft::Error& e) {
    if (message) *message = e.what();
    // The code leads the message once: a wrapping layer adds context, not a second "CODE: ".
    const std::string what = e.what(), code = std::string(e.name()) + ": ";
    EXPECT_EQ(what.rfind(code, 0), 0u) << what;
    EXPECT_EQ(what.find(code, code.size()), std::string::npos) << path << ": " << what;
    dev.queue().reset();  // a device error may have stopped the queue
    return std::string(e.name());
  } catch (const std::exception& e) {
    ADD_FAILURE() << path << ": not a weft::Error but " << typeid(e).name() << ": " << e.what();
    return "FOREIGN-EXCEPTION";
  }
}

// Truncated, byte-damaged and random copies of the committed networks: each loads and runs, or
// is refused with a named error.
TEST(ModelMalformed, DamagedNetworksLoadAndRunOrAreNamed) {
  std::mt19937_64 rng = weft::tb::make_rng();
  weft::Device dev = weft::Device::open("ref://");
  Tally tally;
  const fs::path dir = WEFT_MODEL_NETWORK_DIR;
  std::vector<fs::path> nets;
  for (const auto& e : fs::directory_iterator(dir)) {
    if (e.path().extension() == ".onnx") nets.push_back(e.path());
  }
  std::sort(nets.begin(), nets.end());
  ASSERT_FALSE(nets.empty()) << dir;
  const fs::path path = temp_dir() / "damaged.onnx";
  auto attempt = [&](const std::string& bytes) {
    write_file(path, bytes);
    ++tally.total;
    ++tally.by_outcome[try_model(dev, path, rng)];
  };
  for (const fs::path& net : nets) {
    SCOPED_TRACE(net.filename().string());
    const std::string bytes = read_file(net);
    ASSERT_GT(bytes.size(), 100u);
    for (int i = 0; i < 10; ++i) attempt(bytes.substr(0, rng() % bytes.size()));
    for (int i = 0; i < 30; ++i) {
      std::string b = bytes;
      const int damage = 1 + int(rng() % 6);
      for (int k = 0; k < damage; ++k) {
        const size_t at = rng() % b.size();
        if (rng() % 2) b[at] = char(b[at] ^ (1 << (rng() % 8)));  // one bit
        else b[at] = char(rng());                                 // one byte
      }
      attempt(b);
    }
    // A damaged varint length or tag in the first bytes, then random bytes.
    std::string head = bytes.substr(0, 64);
    for (int i = 0; i < 4; ++i) {
      std::string b = head;
      for (size_t k = 0; k < 200; ++k) b.push_back(char(rng()));
      attempt(b);
    }
  }
  std::printf("%d damaged networks:%s\n", tally.total, tally.summary().c_str());
  EXPECT_GE(tally.total, 150);
  EXPECT_GT(tally.by_outcome["BAD_MODEL"], 0);
}

// ------------------------------------------------------------------------------- crafted models
struct Builder {
  onnx::ModelProto m;
  onnx::GraphProto* g;
  explicit Builder(int opset = 13) {
    m.set_ir_version(8);
    auto* o = m.add_opset_import();
    o->set_domain("");
    o->set_version(opset);
    g = m.mutable_graph();
    g->set_name("malformed");
  }
  // Copies point at their own graph.
  Builder(const Builder& o) : m(o.m), g(m.mutable_graph()) {}
  Builder& operator=(const Builder& o) {
    m = o.m;
    g = m.mutable_graph();
    return *this;
  }
  Builder& input(const std::string& name, int elem, std::vector<int64_t> dims) {
    auto* v = g->add_input();
    v->set_name(name);
    v->mutable_type()->mutable_tensor_type()->set_elem_type(elem);
    auto* shape = v->mutable_type()->mutable_tensor_type()->mutable_shape();
    for (int64_t d : dims) shape->add_dim()->set_dim_value(d);
    return *this;
  }
  Builder& output(const std::string& name, int elem = weft::kOnnxFloat) {
    auto* v = g->add_output();
    v->set_name(name);
    v->mutable_type()->mutable_tensor_type()->set_elem_type(elem);
    return *this;
  }
  onnx::NodeProto* node(const std::string& op, std::vector<std::string> in,
                        std::vector<std::string> out) {
    auto* n = g->add_node();
    n->set_op_type(op);
    n->set_name(op + "_" + out.at(0));
    for (const auto& x : in) n->add_input(x);
    for (const auto& y : out) n->add_output(y);
    return n;
  }
  static void ints(onnx::NodeProto* n, const std::string& name, std::vector<int64_t> v) {
    auto* a = n->add_attribute();
    a->set_name(name);
    a->set_type(onnx::AttributeProto::INTS);
    for (int64_t x : v) a->add_ints(x);
  }
  static void i(onnx::NodeProto* n, const std::string& name, int64_t v) {
    auto* a = n->add_attribute();
    a->set_name(name);
    a->set_type(onnx::AttributeProto::INT);
    a->set_i(v);
  }
  // An initializer: float_data / int64_data / raw_data as the type says; `raw` overrides.
  onnx::TensorProto* init(const std::string& name, int elem, std::vector<int64_t> dims,
                          std::vector<double> values = {}) {
    auto* t = g->add_initializer();
    t->set_name(name);
    t->set_data_type(elem);
    for (int64_t d : dims) t->add_dims(d);
    for (double v : values) {
      if (elem == weft::kOnnxFloat) t->add_float_data(float(v));
      else if (elem == weft::kOnnxInt64) t->add_int64_data(int64_t(v));
      else t->add_int32_data(int32_t(v));
    }
    return t;
  }
  // An int64 initializer holding exactly these values.
  void i64(const std::string& name, std::vector<int64_t> values) {
    auto* t = g->add_initializer();
    t->set_name(name);
    t->set_data_type(weft::kOnnxInt64);
    t->add_dims(int64_t(values.size()));
    for (int64_t v : values) t->add_int64_data(v);
  }
  fs::path save(const std::string& file) const {
    const fs::path p = temp_dir() / file;
    write_file(p, m.SerializeAsString());
    return p;
  }
};

constexpr int kF = weft::kOnnxFloat, kU8 = weft::kOnnxUint8, kI8 = weft::kOnnxInt8,
              kI64 = weft::kOnnxInt64;

struct Crafted {
  const char* name;
  std::function<Builder()> make;
  std::vector<Errc> codes;  // any of these; empty: any weft::Error
  const char* phrase = "";  // in the message, when given
};

// A float unary graph x -> op -> y with x of `dims`.
Builder unary(const std::string& op, std::vector<int64_t> dims,
              const std::function<void(onnx::NodeProto*)>& attrs = {}) {
  Builder b;
  b.input("x", kF, dims).output("y");
  onnx::NodeProto* n = b.node(op, {"x"}, {"y"});
  if (attrs) attrs(n);
  return b;
}

// A QDQ MatMul: x (float [m, k]) -> QuantizeLinear -> DequantizeLinear -> MatMul with W (int8
// [k, n] through DequantizeLinear) -> QuantizeLinear -> DequantizeLinear -> y.
Builder qdq_matmul(int64_t m, int64_t k, int64_t n, std::vector<int64_t> w_dims = {}) {
  Builder b;
  b.input("x", kF, {m, k}).output("y");
  b.init("s", kF, {}, {0.05});
  b.init("z", kU8, {}, {128});
  b.init("ws", kF, {}, {0.02});
  b.init("wz", kI8, {}, {0});
  if (w_dims.empty()) w_dims = {k, n};
  int64_t count = 1;
  for (int64_t d : w_dims) count *= d;
  std::vector<double> w(size_t(std::max<int64_t>(count, 0)), 1.0);
  b.init("w", kI8, w_dims, w);
  b.node("QuantizeLinear", {"x", "s", "z"}, {"xq"});
  b.node("DequantizeLinear", {"xq", "s", "z"}, {"xd"});
  b.node("DequantizeLinear", {"w", "ws", "wz"}, {"wd"});
  b.node("MatMul", {"xd", "wd"}, {"mm"});
  b.node("QuantizeLinear", {"mm", "s", "z"}, {"yq"});
  b.node("DequantizeLinear", {"yq", "s", "z"}, {"y"});
  return b;
}

// A QLinearConv on a uint8 [1, c, h, w] input with int8 weights [oc, c / group, kh, kw] and the
// given attributes (empty: left out).
Builder qlinear_conv(std::vector<int64_t> x_dims, std::vector<int64_t> w_dims,
                     std::vector<int64_t> strides, std::vector<int64_t> pads,
                     std::vector<int64_t> dilations, int64_t group = 1) {
  Builder b;
  b.input("x", kU8, x_dims).output("y", kU8);
  b.init("s", kF, {}, {0.05});
  b.init("z", kU8, {}, {128});
  b.init("ws", kF, {}, {0.02});
  b.init("wz", kI8, {}, {0});
  int64_t count = 1;
  for (int64_t d : w_dims) count *= d;
  b.init("w", kI8, w_dims, std::vector<double>(size_t(count), 1.0));
  onnx::NodeProto* n = b.node("QLinearConv", {"x", "s", "z", "w", "ws", "wz", "s", "z"}, {"y"});
  if (!strides.empty()) Builder::ints(n, "strides", strides);
  if (!pads.empty()) Builder::ints(n, "pads", pads);
  if (!dilations.empty()) Builder::ints(n, "dilations", dilations);
  if (group != 1) Builder::i(n, "group", group);
  return b;
}

std::vector<Crafted> crafted_models() {
  const int64_t T = int64_t{1} << 40;  // elements that would be terabytes
  return {
      {"input_of_type_double", [] { return unary("Relu", {2, 2}).input("d", 11, {2}); },
       {Errc::kBadModel}, "unsupported: input 'd'"},
      {"input_of_type_string", [] { Builder b = unary("Relu", {2}); b.g->mutable_input(0)->mutable_type()->mutable_tensor_type()->set_elem_type(8); return b; },
       {Errc::kBadModel}, "unsupported: input"},
      {"node_reads_a_missing_value", [] { Builder b; b.input("x", kF, {2}).output("y"); b.node("Add", {"x", "nowhere"}, {"y"}); return b; },
       {Errc::kBadModel}, "reads 'nowhere'"},
      {"output_produced_by_nothing", [] { Builder b = unary("Relu", {2}); b.output("ghost"); return b; },
       {Errc::kBadModel}, "ghost"},
      {"no_nodes", [] { Builder b; b.input("x", kF, {2}).output("x"); return b; }, {Errc::kBadModel}, "no nodes"},
      {"opset_99", [] { Builder b = unary("Relu", {2}); b.m.mutable_opset_import(0)->set_version(99); return b; },
       {Errc::kBadModel}, "opset"},
      {"initializer_of_type_double", [] { Builder b = unary("Relu", {2}); b.init("d", 11, {1}); return b; },
       {Errc::kBadModel}, "element type 11"},
      {"initializer_negative_dim", [] { Builder b = unary("Relu", {2}); b.init("n", kF, {-3}); return b; },
       {Errc::kBadModel}, "negative"},
      {"initializer_dims_overflow_int64", [] { Builder b = unary("Relu", {2}); b.init("n", kF, {int64_t{1} << 31, int64_t{1} << 31, int64_t{1} << 31}); return b; },
       {Errc::kBadModel}, "2^40"},
      {"initializer_raw_data_too_short", [] { Builder b = unary("Relu", {2}); b.init("n", kF, {1 << 20})->set_raw_data(std::string(4, '\0')); return b; },
       {Errc::kBadModel}, "raw_data"},
      {"initializer_too_few_values", [] { Builder b = unary("Relu", {2}); b.init("n", kF, {1 << 16}, {1.0}); return b; },
       {Errc::kBadModel}, "elements"},
      {"unknown_operator", [] { return unary("FancyOp", {2}); }, {Errc::kBadModel}, "FancyOp"},
      {"matmul_inner_dims_differ", [] { return qdq_matmul(4, 16, 8, {12, 8}); }, {Errc::kBadModel}, "inner dimensions"},
      {"matmul_declared_terabyte_input", [] { return qdq_matmul(T, 16, 16); }, {}},
      {"matmul_weights_rank_1", [] { return qdq_matmul(4, 16, 8, {16}); }, {Errc::kBadModel}},
      {"pad_to_terabytes", [] {
         Builder b;
         b.input("x", kF, {1, 1}).output("y");
         b.i64("p", {0, 0, int64_t{1} << 20, int64_t{1} << 20});
         b.node("Pad", {"x", "p"}, {"y"});
         return b;
       }, {Errc::kBadModel, Errc::kOutOfMemory}},
      {"pad_int64_overflow", [] {
         Builder b;
         b.input("x", kF, {2}).output("y");
         b.i64("p", {INT64_MAX, INT64_MAX});
         b.node("Pad", {"x", "p"}, {"y"});
         return b;
       }, {Errc::kBadModel, Errc::kOutOfMemory}},
      {"pad_negative_output", [] {
         Builder b;
         b.input("x", kF, {2}).output("y");
         b.i64("p", {-5, 0});
         b.node("Pad", {"x", "p"}, {"y"});
         return b;
       }, {Errc::kBadModel}},
      {"reshape_to_terabytes", [] {
         Builder b;
         b.input("x", kF, {4}).output("y");
         b.i64("s", {int64_t{1} << 30, int64_t{1} << 30});
         b.node("Reshape", {"x", "s"}, {"y"});
         return b;
       }, {Errc::kBadModel}},
      {"reshape_two_minus_ones", [] {
         Builder b;
         b.input("x", kF, {4}).output("y");
         b.i64("s", {-1, -1});
         b.node("Reshape", {"x", "s"}, {"y"});
         return b;
       }, {Errc::kBadModel}},
      {"transpose_perm_out_of_range", [] { return unary("Transpose", {2, 3}, [](auto* n) { Builder::ints(n, "perm", {0, 7}); }); },
       {Errc::kBadModel}},
      {"transpose_perm_repeated", [] { return unary("Transpose", {2, 3}, [](auto* n) { Builder::ints(n, "perm", {1, 1}); }); },
       {Errc::kBadModel}},
      {"transpose_perm_negative", [] { return unary("Transpose", {2, 3}, [](auto* n) { Builder::ints(n, "perm", {-1, 0}); }); },
       {}},  // the runtime normalises negative axes

      {"softmax_axis_out_of_range", [] { return unary("Softmax", {2, 3}, [](auto* n) { Builder::i(n, "axis", 9); }); },
       {Errc::kBadModel}},
      {"flatten_axis_out_of_range", [] { return unary("Flatten", {2, 3}, [](auto* n) { Builder::i(n, "axis", -9); }); },
       {Errc::kBadModel}},
      {"concat_axis_out_of_range", [] { return unary("Concat", {2, 3}, [](auto* n) { Builder::i(n, "axis", 5); }); },
       {Errc::kBadModel}},
      {"squeeze_axis_out_of_range", [] {
         Builder b;
         b.input("x", kF, {1, 3}).output("y");
         b.i64("a", {40});
         b.node("Squeeze", {"x", "a"}, {"y"});
         return b;
       }, {Errc::kBadModel}},
      {"unsqueeze_to_rank_65", [] {
         Builder b;
         b.input("x", kF, {1}).output("y");
         std::vector<int64_t> axes;
         for (int i = 0; i < 64; ++i) axes.push_back(i);
         b.i64("a", axes);
         b.node("Unsqueeze", {"x", "a"}, {"y"});
         return b;
       }, {}},
      {"maxpool_zero_kernel", [] { return unary("MaxPool", {1, 1, 4, 4}, [](auto* n) { Builder::ints(n, "kernel_shape", {0, 0}); }); },
       {Errc::kBadModel}},
      {"maxpool_zero_stride", [] { return unary("MaxPool", {1, 1, 4, 4}, [](auto* n) { Builder::ints(n, "kernel_shape", {2, 2}); Builder::ints(n, "strides", {0, 0}); }); },
       {Errc::kBadModel}},
      {"maxpool_kernel_larger_than_input", [] { return unary("MaxPool", {1, 1, 4, 4}, [](auto* n) { Builder::ints(n, "kernel_shape", {9, 9}); }); },
       {Errc::kBadModel}},
      {"averagepool_negative_pads", [] { return unary("AveragePool", {1, 1, 4, 4}, [](auto* n) { Builder::ints(n, "kernel_shape", {2, 2}); Builder::ints(n, "pads", {-3, -3, -3, -3}); }); },
       {Errc::kBadModel}},
      {"maxpool_huge_dilation", [] { return unary("MaxPool", {1, 1, 4, 4}, [](auto* n) { Builder::ints(n, "kernel_shape", {2, 2}); Builder::ints(n, "dilations", {INT64_MAX / 2, 1}); }); },
       {Errc::kBadModel}},
      {"cast_to_unknown_type", [] { return unary("Cast", {2}, [](auto* n) { Builder::i(n, "to", 99); }); },
       {Errc::kBadModel}},
      {"quantize_zero_scale", [] {
         Builder b;
         b.input("x", kF, {4}).output("y", kU8);
         b.init("s", kF, {}, {0.0});
         b.init("z", kU8, {}, {0});
         b.node("QuantizeLinear", {"x", "s", "z"}, {"y"});
         return b;
       }, {}},
      {"qlinearconv_valid", [] { return qlinear_conv({1, 2, 6, 6}, {3, 2, 3, 3}, {1, 1}, {1, 1, 1, 1}, {1, 1}); }, {}},
      {"qlinearconv_stride_zero", [] { return qlinear_conv({1, 2, 6, 6}, {3, 2, 3, 3}, {0, 0}, {}, {}); },
       {Errc::kBadModel}, "strides"},
      {"qlinearconv_stride_2_pow_32", [] { return qlinear_conv({1, 2, 6, 6}, {3, 2, 3, 3}, {int64_t{1} << 32, 1}, {}, {}); },
       {Errc::kBadModel}, "strides"},
      {"qlinearconv_stride_negative", [] { return qlinear_conv({1, 2, 6, 6}, {3, 2, 3, 3}, {-2, 1}, {}, {}); },
       {Errc::kBadModel}, "strides"},
      {"qlinearconv_pads_negative", [] { return qlinear_conv({1, 2, 6, 6}, {3, 2, 3, 3}, {1, 1}, {-1, -1, -1, -1}, {}); },
       {Errc::kBadModel}, "pads"},
      {"qlinearconv_pads_huge", [] { return qlinear_conv({1, 2, 6, 6}, {3, 2, 3, 3}, {1, 1}, {int64_t{1} << 30, 1, int64_t{1} << 30, 1}, {}); },
       {Errc::kBadModel}, "pads"},
      {"qlinearconv_dilation_2_pow_31", [] { return qlinear_conv({1, 2, 6, 6}, {3, 2, 3, 3}, {1, 1}, {}, {int64_t{1} << 31, 1}); },
       {Errc::kBadModel}, "dilations"},
      {"qlinearconv_group_zero", [] { return qlinear_conv({1, 2, 6, 6}, {3, 2, 3, 3}, {}, {}, {}, 0); },
       {Errc::kBadModel}, "group"},
      {"qlinearconv_three_strides", [] { return qlinear_conv({1, 2, 6, 6}, {3, 2, 3, 3}, {1, 1, 1}, {}, {}); },
       {Errc::kBadModel}},
      {"qlinearconv_kernel_larger_than_input", [] { return qlinear_conv({1, 2, 2, 2}, {3, 2, 5, 5}, {}, {}, {}); },
       {Errc::kBadModel}, "larger"},
      {"qlinearconv_channels_differ", [] { return qlinear_conv({1, 2, 6, 6}, {3, 4, 3, 3}, {}, {}, {}); },
       {Errc::kBadModel}, "input channels"},
      {"qlinearconv_weights_rank_2", [] { return qlinear_conv({1, 2, 6, 6}, {3, 2}, {}, {}, {}); },
       {Errc::kBadModel}},
      {"conv_group_zero", [] {
         Builder b;
         b.input("x", kF, {1, 2, 4, 4}).output("y");
         b.init("w", kF, {2, 2, 3, 3}, std::vector<double>(36, 0.5));
         Builder::i(b.node("Conv", {"x", "w"}, {"y"}), "group", 0);
         return b;
       }, {Errc::kBadModel}},
  };
}

TEST(ModelMalformed, CraftedModelsAreRefusedWithANamedError) {
  std::mt19937_64 rng = weft::tb::make_rng();
  weft::Device dev = weft::Device::open("ref://");
  Tally tally;
  for (const Crafted& c : crafted_models()) {
    SCOPED_TRACE(c.name);
    const fs::path p = c.make().save(std::string(c.name) + ".onnx");
    std::string msg;
    const std::string outcome = try_model(dev, p, rng, &msg);
    ++tally.total;
    ++tally.by_outcome[outcome];
    weft::tb::verbose_printf("%-36s %s %s\n", c.name, outcome.c_str(), msg.c_str());
    if (outcome == "ok" || outcome == "ok-load") {
      if (!c.codes.empty()) {
        ADD_FAILURE() << c.name << ": accepted (" << outcome << ")";
      }
      continue;
    }
    if (!c.codes.empty()) {
      bool any = false;
      for (Errc e : c.codes) any = any || outcome == weft::errc_name(e);
      EXPECT_TRUE(any) << c.name << ": " << outcome << ": " << msg;
    }
    EXPECT_NE(msg.find(p.string()), std::string::npos) << "names the file: " << msg;
    if (*c.phrase) {
      EXPECT_NE(msg.find(c.phrase), std::string::npos) << msg;
    }
  }
  std::printf("%d crafted models:%s\n", tally.total, tally.summary().c_str());
}

// A run whose inputs disagree with the model: named BAD_ARGUMENT, and the model runs again after.
TEST(ModelMalformed, InputsThatDisagreeWithTheModelAreBadArguments) {
  weft::Device dev = weft::Device::open("ref://");
  const fs::path p = unary("Relu", {2, 3}).save("relu.onnx");
  weft::Model m = weft::Model::load(dev, p.string());
  weft::OnnxTensor x;
  x.name = "x";
  x.elem_type = kF;
  x.dims = {2, 3};
  x.floats.assign(6, -1.0f);
  const auto expect_bad = [&](std::map<std::string, weft::OnnxTensor> in, const char* phrase) {
    SCOPED_TRACE(phrase);
    try {
      m.run(in);
      ADD_FAILURE() << "ran";
    } catch (const weft::Error& e) {
      EXPECT_EQ(e.code(), Errc::kBadArgument) << e.what();
      EXPECT_NE(std::string(e.what()).find(phrase), std::string::npos) << e.what();
    }
  };
  weft::OnnxTensor y = x;
  y.dims = {3, 2};
  expect_bad({{"x", y}}, "has shape");
  y = x;
  y.floats.resize(5);
  expect_bad({{"x", y}}, "different number of values");
  y = x;
  y.elem_type = kU8;
  expect_bad({{"x", y}}, "element type");
  y = x;
  y.dims = {int64_t{1} << 40, int64_t{1} << 40};
  expect_bad({{"x", y}}, "has shape");
  expect_bad({}, "is not given");
  expect_bad({{"x", x}, {"extra", x}}, "no input 'extra'");
  const auto out = m.run({{"x", x}});
  EXPECT_EQ(out.at("y").floats, std::vector<float>(6, 0.0f));
}

}  // namespace
