// The golden ONNX graph executor (weft/golden/onnx_exec.hpp) against every ONNX node test
// (Debian's libonnx-testdata) whose operators it claims, and direct tests of its QDQ integer
// semantics on small graphs built by hand.
//
// A node test is tried when all of its model's operators are in kClaimedOps (a model that does
// not load counts when its directory is named after a claimed op). Each tried test passes (every
// output of every data set matches: integers exactly, floats within the ONNX backend tests'
// rtol 1e-3 / atol 1e-7), is unsupported (the loader or the executor says so, with the reason),
// or fails; the test fails on any failure. WEFT_NODE_TABLE=<file> writes the table as markdown.
#include <gtest/gtest.h>

#include <algorithm>
#include <cctype>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <random>
#include <set>
#include <stdexcept>
#include <string>
#include <vector>

#include "node_tests.hpp"
#include "weft/error.hpp"
#include "weft/golden/onnx_exec.hpp"
#include "weft/golden/onnx_ops.hpp"
#include "weft/onnx_graph.hpp"

namespace {

namespace fs = std::filesystem;
namespace go = weft::golden::onnx;

const fs::path kNodeDir = WEFT_ONNX_NODE_DIR;

// The operators the executor claims (docs/model-runtime.md, "Golden graph executor").
const std::set<std::string> kClaimedOps = {
    "QuantizeLinear", "DequantizeLinear", "QLinearConv", "QLinearMatMul", "MatMulInteger",
    "ConvInteger",    "Conv",             "MatMul",      "Gemm",          "Relu",
    "Clip",           "Add",              "MaxPool",     "AveragePool",   "GlobalAveragePool",
    "Softmax",        "Reshape",          "Flatten",     "Transpose",     "Concat",
    "Pad",            "Identity",         "Squeeze",     "Unsqueeze",     "Cast"};

// kKnown: ONNX 1.12's truncating Cast float -> bfloat16 data (node_tests.hpp), checked to differ
// by exactly that.
enum class Verdict { kPass, kUnsupported, kFail, kKnown };

struct Outcome {
  std::string name;
  Verdict verdict = Verdict::kPass;
  std::string detail;  // the reason (unsupported) or the first mismatch (fail)
};

std::string lower(std::string s) {
  for (char& c : s) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return s;
}

// A directory whose model does not load is tried when named after a claimed op: test_<op>...
bool named_after_claimed_op(const std::string& dir) {
  for (const std::string& op : kClaimedOps) {
    const std::string prefix = "test_" + lower(op);
    if (dir == prefix || dir.rfind(prefix + "_", 0) == 0) return true;
  }
  return false;
}

std::string dims_str(const std::vector<int64_t>& dims) {
  std::string s = "[";
  for (size_t i = 0; i < dims.size(); ++i) {
    if (i) s += ',';
    s += std::to_string(dims[i]);
  }
  s += ']';
  return s;
}

// Whether a float8 code is a NaN (E4M3FN S.1111.111, E5M2 S.11111.xx, xx != 0).
bool fp8_nan(int64_t code, int32_t elem) {
  return elem == weft::kOnnxFloat8E4m3fn ? (code & 0x7F) == 0x7F : (code & 0x7F) > 0x7C;
}

// The first difference of `got` from `want`, empty when they match (float8 codes exactly, except
// that any NaN equals any NaN: the reference keeps a NaN's sign, saturate=1 gives the canonical
// NaN).
// With `exact_floats` (the float8 tests) floats match bit for bit, NaN as NaN.
std::string mismatch(const std::string& name, const weft::OnnxTensor& got,
                     const weft::OnnxTensor& want, bool exact_floats = false) {
  if (got.elem_type != want.elem_type) {
    return name + ": type " + std::to_string(got.elem_type) + ", expected " + std::to_string(want.elem_type);
  }
  if (got.dims != want.dims) return name + ": dims " + dims_str(got.dims) + ", expected " + dims_str(want.dims);
  if (got.ints.size() != want.ints.size() || got.floats.size() != want.floats.size()) {
    return name + ": element count differs";
  }
  for (size_t i = 0; i < want.ints.size(); ++i) {
    if (weft::is_float8(want.elem_type) && fp8_nan(got.ints[i], want.elem_type) &&
        fp8_nan(want.ints[i], want.elem_type))
      continue;
    if (want.is_bf16() && weft::test::bf16_is_nan(got.ints[i]) &&
        weft::test::bf16_is_nan(want.ints[i]))
      continue;
    if (got.ints[i] != want.ints[i]) {
      return name + "[" + std::to_string(i) + "] = " + std::to_string(got.ints[i]) + ", expected " +
             std::to_string(want.ints[i]);
    }
  }
  for (size_t i = 0; i < want.floats.size(); ++i) {
    const float g = got.floats[i], w = want.floats[i];
    if (std::isnan(g) && std::isnan(w)) continue;
    const bool same = exact_floats ? std::signbit(g) == std::signbit(w) && g == w
                                   : g == w || std::fabs(g - w) <= 1e-7f + 1e-3f * std::fabs(w);
    if (!same) {
      return name + "[" + std::to_string(i) + "] = " + std::to_string(g) + ", expected " + std::to_string(w);
    }
  }
  return "";
}

// Runs node test `dir` of `root`; false when it is not tried (an op outside kClaimedOps).
// Float8 tests (a root other than kNodeDir) compare floats bit for bit.
bool run_node_test(const std::string& dir, Outcome* o, const fs::path& root = kNodeDir) {
  const bool exact = root != kNodeDir;
  o->name = dir;
  weft::OnnxGraph g;
  try {
    g = weft::load_onnx_graph((root / dir / "model.onnx").string());
  } catch (const weft::Error& e) {
    if (!named_after_claimed_op(dir)) return false;
    o->verdict = Verdict::kUnsupported;
    o->detail = std::string("the model does not load: ") + e.what();
    return true;
  }
  if (g.nodes.empty()) return false;
  for (const weft::OnnxNode& n : g.nodes) {
    if (!n.domain.empty() || !kClaimedOps.count(n.op_type)) return false;
  }
  int sets = 0;
  for (int s = 0; fs::is_directory(root / dir / ("test_data_set_" + std::to_string(s)));
       ++s, ++sets) {
    const fs::path set = root / dir / ("test_data_set_" + std::to_string(s));
    std::map<std::string, weft::OnnxTensor> inputs, expected;
    try {
      for (size_t i = 0; fs::exists(set / ("input_" + std::to_string(i) + ".pb")); ++i) {
        if (i >= g.inputs.size()) throw std::runtime_error("more input files than graph inputs");
        inputs[g.inputs[i].name] = weft::test::as_declared(
            weft::load_onnx_tensor((set / ("input_" + std::to_string(i) + ".pb")).string()),
            g.inputs[i].elem_type);
      }
      for (size_t i = 0; fs::exists(set / ("output_" + std::to_string(i) + ".pb")); ++i) {
        if (i >= g.outputs.size()) throw std::runtime_error("more output files than graph outputs");
        expected[g.outputs[i].name] = weft::test::as_declared(
            weft::load_onnx_tensor((set / ("output_" + std::to_string(i) + ".pb")).string()),
            g.outputs[i].elem_type);
      }
    } catch (const std::exception& e) {  // weft::Error: a data file of a type the reader lacks
      o->verdict = Verdict::kUnsupported;
      o->detail = std::string("the test data do not load: ") + e.what();
      return true;
    }
    std::map<std::string, weft::OnnxTensor> got;
    try {
      got = go::run_graph(g, inputs);
    } catch (const std::invalid_argument& e) {
      const std::string what = e.what();
      const bool unsupported = what.rfind("unsupported:", 0) == 0;
      o->verdict = unsupported ? Verdict::kUnsupported : Verdict::kFail;
      o->detail = unsupported ? what.substr(std::string("unsupported: ").size()) : "set " + std::to_string(s) + ": " + what;
      return true;
    }
    for (const auto& [name, want] : expected) {
      auto it = got.find(name);
      const std::string diff =
          it == got.end() ? name + ": not produced" : mismatch(name, it->second, want, exact);
      if (!diff.empty() && weft::test::truncating_bf16_cast_test(dir)) {
        int differ = 0;
        const std::string why = weft::test::check_truncating_bf16_cast(
            inputs.at(g.inputs.at(0).name), it->second, want, &differ);
        o->verdict = why.empty() ? Verdict::kKnown : Verdict::kFail;
        o->detail = why.empty() ? "rounds to nearest even; ONNX 1.12's data truncate: " +
                                      std::to_string(differ) + " elements differ, each by that"
                                : "set " + std::to_string(s) + ": " + why;
        if (!why.empty()) return true;
        continue;
      }
      if (!diff.empty()) {
        o->verdict = Verdict::kFail;
        o->detail = "set " + std::to_string(s) + ": " + diff;
        return true;
      }
    }
  }
  if (sets == 0) {
    o->verdict = Verdict::kFail;
    o->detail = "no test_data_set_0";
  }
  return true;
}

TEST(GoldenGraphNodeTests, EveryClaimedOpsNodeTestPassesOrIsUnsupported) {
  ASSERT_TRUE(fs::is_directory(kNodeDir)) << kNodeDir << " missing: scripts/setup.sh installs libonnx-testdata";
  std::vector<std::string> dirs;
  for (const auto& e : fs::directory_iterator(kNodeDir)) {
    if (e.is_directory()) dirs.push_back(e.path().filename().string());
  }
  std::sort(dirs.begin(), dirs.end());
  std::vector<Outcome> tried;
  int pass = 0, unsupported = 0, fail = 0, known = 0;
  for (const std::string& dir : dirs) {
    Outcome o;
    if (!run_node_test(dir, &o)) continue;
    switch (o.verdict) {
      case Verdict::kPass:
        ++pass;
        std::printf("node-test %s: pass\n", dir.c_str());
        break;
      case Verdict::kKnown:
        ++known;
        std::printf("node-test %s: known difference: %s\n", dir.c_str(), o.detail.c_str());
        break;
      case Verdict::kUnsupported:
        ++unsupported;
        std::printf("node-test %s: unsupported: %s\n", dir.c_str(), o.detail.c_str());
        break;
      case Verdict::kFail:
        ++fail;
        std::printf("node-test %s: FAIL: %s\n", dir.c_str(), o.detail.c_str());
        ADD_FAILURE() << dir << ": " << o.detail;
        break;
    }
    tried.push_back(std::move(o));
  }
  std::printf(
      "node tests: %zu of %zu tried (all ops claimed): %d pass, %d unsupported, %d known "
      "differences, %d fail\n",
      tried.size(), dirs.size(), pass, unsupported, known, fail);
  if (const char* path = std::getenv("WEFT_NODE_TABLE")) {
    std::ofstream md(path);
    md << "| node test | result |\n|---|---|\n";
    for (const Outcome& o : tried) {
      std::string detail = o.detail;
      std::replace(detail.begin(), detail.end(), '|', '/');
      md << "| `" << o.name << "` | "
         << (o.verdict == Verdict::kPass          ? "pass"
             : o.verdict == Verdict::kUnsupported ? "unsupported: "
             : o.verdict == Verdict::kKnown       ? "known difference: "
                                                  : "FAIL: ")
         << detail << " |\n";
    }
    md << "\n" << pass << " pass, " << unsupported << " unsupported, " << known
       << " known differences, " << fail << " fail (" << tried.size()
       << " of " << dirs.size() << " node tests tried)\n";
  }
  EXPECT_GT(pass, 0);
}

// The float8 node tests (scripts/onnx_fp8_nodes.py, expected outputs from onnx's
// ReferenceEvaluator): every one passes.
TEST(GoldenGraphNodeTests, EveryFloat8NodeTestPasses) {
  const fs::path root = WEFT_ONNX_FP8_DIR;
  ASSERT_TRUE(fs::exists(root / "index.txt")) << root << " missing: build weft_onnx_fp8_nodes";
  int tried = 0;
  for (const auto& e : fs::directory_iterator(root)) {
    if (!e.is_directory() || e.path().filename().string().rfind("test_", 0) != 0)
      continue;  // not groups/
    Outcome o;
    ASSERT_TRUE(run_node_test(e.path().filename().string(), &o, root)) << e.path();
    ++tried;
    EXPECT_EQ(o.verdict, Verdict::kPass) << o.name << ": " << o.detail;
  }
  std::printf("fp8 node tests through the golden executor: %d tried\n", tried);
  EXPECT_EQ(tried, 30) << "scripts/onnx_fp8_nodes.py writes 30 tests";
}

// The bfloat16 node tests (scripts/onnx_bf16_nodes.py): every one passes, bit for bit.
TEST(GoldenGraphNodeTests, EveryBf16NodeTestPasses) {
  const fs::path root = WEFT_ONNX_BF16_DIR;
  ASSERT_TRUE(fs::exists(root / "index.txt")) << root << " missing: build weft_onnx_bf16_nodes";
  int tried = 0;
  for (const auto& e : fs::directory_iterator(root)) {
    if (!e.is_directory() || e.path().filename().string().rfind("test_", 0) != 0)
      continue;  // not ops/
    Outcome o;
    ASSERT_TRUE(run_node_test(e.path().filename().string(), &o, root)) << e.path();
    ++tried;
    EXPECT_EQ(o.verdict, Verdict::kPass) << o.name << ": " << o.detail;
  }
  std::printf("bf16 node tests through the golden executor: %d tried\n", tried);
  EXPECT_EQ(tried, 8) << "scripts/onnx_bf16_nodes.py writes 8 node tests";
}

// --- the QDQ semantics on graphs built by hand ----------------------------------------------

weft::OnnxTensor tensor(int32_t elem, std::vector<int64_t> dims, std::vector<int64_t> ints) {
  weft::OnnxTensor t;
  t.elem_type = elem;
  t.dims = std::move(dims);
  t.ints = std::move(ints);
  return t;
}
weft::OnnxTensor ftensor(std::vector<int64_t> dims, std::vector<float> floats) {
  weft::OnnxTensor t;
  t.elem_type = weft::kOnnxFloat;
  t.dims = std::move(dims);
  t.floats = std::move(floats);
  return t;
}

std::vector<int64_t> random_ints(size_t n, int lo, int hi, std::mt19937& rng) {
  std::uniform_int_distribution<int> d(lo, hi);
  std::vector<int64_t> v(n);
  for (auto& x : v) x = d(rng);
  return v;
}

weft::OnnxNode node(std::string op, std::vector<std::string> in, std::vector<std::string> out) {
  weft::OnnxNode n;
  n.name = op + "_" + out.at(0);
  n.op_type = std::move(op);
  n.inputs = std::move(in);
  n.outputs = std::move(out);
  return n;
}

// x (uint8, per tensor) -> DQ; w (int8, per output channel) -> DQ axis 0; bias (int32, scale
// x_scale * w_scale[m]) -> DQ; Conv; then `activation` nodes; Q to uint8.
struct QdqConv {
  weft::OnnxGraph g;
  go::IntTensor x, w;
  float x_scale = 0.02f, y_scale = 0.05f;
  int32_t x_zp = 128, y_zp = 100;
  std::vector<float> w_scale;
  std::vector<int32_t> bias;
  go::Conv2dGeometry geo;
  weft::OnnxTensor input;

  // `ties`: scales 0.1, 0.1 and 0.02 (multiplier ~0.5, inexact in float) and small operands, so
  // that every odd accumulator lands next to a rounding tie, where float evaluation of the Conv
  // goes either way and only the integer accumulator decides.
  QdqConv(int64_t c, int64_t m, int64_t group, uint32_t seed, bool ties = false) {
    std::mt19937 rng(seed);
    const int64_t h = 6, wd = 5, k = 3;
    const int x_range = ties ? 3 : 128, w_range = ties ? 3 : 127, b_range = ties ? 20 : 3000;
    if (ties) x_scale = 0.1f, y_scale = 0.02f;
    x = {{1, c, h, wd}, {}};
    for (int64_t v : random_ints(static_cast<size_t>(c * h * wd), x_zp - x_range, std::min(255, x_zp + x_range), rng)) {
      x.data.push_back(static_cast<int32_t>(v));
    }
    w = {{m, c / group, k, k}, {}};
    for (int64_t v : random_ints(static_cast<size_t>(m * (c / group) * k * k), -w_range, w_range, rng)) {
      w.data.push_back(static_cast<int32_t>(v));
    }
    std::vector<float> b_scale;
    for (int64_t o = 0; o < m; ++o) {
      w_scale.push_back(ties ? 0.1f : 0.002f + 0.001f * static_cast<float>(o));
      b_scale.push_back(x_scale * w_scale.back());
      bias.push_back(static_cast<int32_t>(random_ints(1, -b_range, b_range, rng)[0]));
    }
    geo.pad_top = geo.pad_left = geo.pad_bottom = geo.pad_right = 1;
    geo.stride_w = 2;
    geo.group = group;

    g.opset = 13;
    g.inputs.push_back({"x", weft::kOnnxUint8, x.dims, true});
    input = tensor(weft::kOnnxUint8, x.dims, {x.data.begin(), x.data.end()});
    auto constant = [&](const std::string& name, weft::OnnxTensor t) {
      t.name = name;
      g.constants[name] = std::move(t);
    };
    constant("x_scale", ftensor({}, {x_scale}));
    constant("x_zp", tensor(weft::kOnnxUint8, {}, {x_zp}));
    constant("w", tensor(weft::kOnnxInt8, w.dims, {w.data.begin(), w.data.end()}));
    constant("w_scale", ftensor({m}, w_scale));
    constant("w_zp", tensor(weft::kOnnxInt8, {m}, std::vector<int64_t>(static_cast<size_t>(m), 0)));
    constant("b", tensor(weft::kOnnxInt32, {m}, {bias.begin(), bias.end()}));
    constant("b_scale", ftensor({m}, b_scale));
    constant("b_zp", tensor(weft::kOnnxInt32, {m}, std::vector<int64_t>(static_cast<size_t>(m), 0)));
    constant("y_scale", ftensor({}, {y_scale}));
    constant("y_zp", tensor(weft::kOnnxUint8, {}, {y_zp}));
    constant("zero", ftensor({}, {0.0f}));
    constant("six", ftensor({}, {6.0f}));
    g.nodes.push_back(node("DequantizeLinear", {"x", "x_scale", "x_zp"}, {"xf"}));
    weft::OnnxNode dqw = node("DequantizeLinear", {"w", "w_scale", "w_zp"}, {"wf"});
    dqw.int_attrs["axis"] = 0;
    g.nodes.push_back(dqw);
    weft::OnnxNode dqb = node("DequantizeLinear", {"b", "b_scale", "b_zp"}, {"bf"});
    dqb.int_attrs["axis"] = 0;
    g.nodes.push_back(dqb);
    weft::OnnxNode conv = node("Conv", {"xf", "wf", "bf"}, {"conv"});
    conv.ints_attrs["pads"] = {1, 1, 1, 1};
    conv.ints_attrs["strides"] = {1, 2};
    conv.int_attrs["group"] = group;
    g.nodes.push_back(conv);
  }

  // The tail: `op` ("Relu", "Clip" or "" for none) and the QuantizeLinear; output "y".
  void finish(const std::string& op) {
    std::string last = "conv";
    if (op == "Relu") g.nodes.push_back(node("Relu", {"conv"}, {last = "act"}));
    if (op == "Clip") g.nodes.push_back(node("Clip", {"conv", "zero", "six"}, {last = "act"}));
    g.nodes.push_back(node("QuantizeLinear", {last, "y_scale", "y_zp"}, {"y"}));
    g.outputs.push_back({"y", weft::kOnnxUint8, {}, false});
  }

  go::IntTensor reference() const {
    return go::qlinear_conv(x, x_scale, x_zp, w, w_scale, std::vector<int32_t>(w_scale.size(), 0), y_scale, y_zp,
                            go::QType::kUint8, bias, geo);
  }

  std::vector<int64_t> run() const { return go::run_graph(g, {{"x", input}}).at("y").ints; }
};

TEST(GoldenGraphQdq, ConvQuantizeIsQLinearConv) {
  QdqConv q(3, 4, 1, 1);
  q.finish("");
  const go::IntTensor want = q.reference();
  const std::vector<int64_t> got = q.run();
  ASSERT_EQ(got.size(), want.data.size());
  int saturated = 0;
  for (size_t i = 0; i < got.size(); ++i) {
    EXPECT_EQ(got[i], want.data[i]) << i;
    saturated += want.data[i] == 0 || want.data[i] == 255;
  }
  EXPECT_LT(saturated, static_cast<int>(got.size()) / 2) << "scales chosen so that most results are in range";
}

TEST(GoldenGraphQdq, RoundingTiesFollowTheIntegerAccumulator) {
  QdqConv q(3, 4, 1, 10, true);
  q.finish("");
  const go::IntTensor want = q.reference();
  const std::vector<int64_t> got = q.run();
  ASSERT_EQ(got.size(), want.data.size());
  for (size_t i = 0; i < got.size(); ++i) EXPECT_EQ(got[i], want.data[i]) << i;
  // The same graph in float32 (dequantize, conv summed in float, bias, quantize) differs at some
  // ties: the reason the executor evaluates the QDQ Conv on its integers.
  go::Conv2dGeometry geo = q.geo;
  const go::FloatTensor xf = go::dequantize_linear(q.x, {q.x_scale}, {q.x_zp});
  const go::FloatTensor wf = go::dequantize_linear(q.w, q.w_scale, {0}, 0);
  const go::IntTensor ones = go::conv_integer(q.x, q.w, q.x_zp, {0}, geo);  // for the dimensions
  go::FloatTensor yf{ones.dims, std::vector<float>(ones.data.size())};
  const int64_t c = q.x.dims[1], h = q.x.dims[2], wd = q.x.dims[3], oh = ones.dims[2], ow = ones.dims[3];
  for (int64_t o = 0; o < ones.dims[1]; ++o) {
    for (int64_t i = 0; i < oh; ++i) {
      for (int64_t j = 0; j < ow; ++j) {
        float sum = 0;
        for (int64_t ch = 0; ch < c; ++ch) {
          for (int64_t r = 0; r < 3; ++r) {
            for (int64_t s = 0; s < 3; ++s) {
              const int64_t yy = i - 1 + r, xx = j * 2 - 1 + s;
              if (yy < 0 || yy >= h || xx < 0 || xx >= wd) continue;
              sum += xf.data[(ch * h + yy) * wd + xx] * wf.data[((o * c + ch) * 3 + r) * 3 + s];
            }
          }
        }
        yf.data[(o * oh + i) * ow + j] = sum + static_cast<float>(q.bias[o]) * (q.x_scale * q.w_scale[o]);
      }
    }
  }
  const go::IntTensor by_float = go::quantize_linear(yf, {q.y_scale}, {q.y_zp}, go::QType::kUint8);
  int differ = 0;
  for (size_t i = 0; i < got.size(); ++i) differ += by_float.data[i] != want.data[i];
  EXPECT_GT(differ, 0) << "float evaluation happens to agree: the test no longer shows the difference";
  std::printf("float32 evaluation differs from the integer result at %d of %zu outputs\n", differ, got.size());
}

TEST(GoldenGraphQdq, ReluBetweenConvAndQuantizeClampsAtTheZeroPoint) {
  QdqConv q(3, 4, 1, 2, true);  // at ties: the integer path decides
  q.finish("Relu");
  const go::IntTensor want = q.reference();
  const std::vector<int64_t> got = q.run();
  ASSERT_EQ(got.size(), want.data.size());
  int clamped = 0;
  for (size_t i = 0; i < got.size(); ++i) {
    // Q(relu(v)) = max(Q(v), Q(0)) and Q(0) = y_zero_point.
    EXPECT_EQ(got[i], std::max(want.data[i], q.y_zp)) << i;
    clamped += want.data[i] < q.y_zp;
  }
  EXPECT_GT(clamped, 0) << "some results are negative before the Relu";
}

TEST(GoldenGraphQdq, ClipBetweenConvAndQuantizeClampsAtTheQuantizedBounds) {
  QdqConv q(3, 4, 1, 3);
  q.finish("Clip");
  const go::IntTensor want = q.reference();
  const std::vector<int64_t> got = q.run();
  // Q(6) = round_half_even(6 / 0.05) + 100 = 220, Q(0) = 100.
  const int32_t q6 = static_cast<int32_t>(std::nearbyint(6.0f / q.y_scale)) + q.y_zp;
  ASSERT_EQ(q6, 220);
  ASSERT_EQ(got.size(), want.data.size());
  for (size_t i = 0; i < got.size(); ++i) EXPECT_EQ(got[i], std::clamp(want.data[i], q.y_zp, q6)) << i;
}

TEST(GoldenGraphQdq, DepthwiseConvGroupC) {
  QdqConv q(4, 4, 4, 4, true);  // at ties: the integer path decides
  q.finish("Relu");
  const go::IntTensor want = q.reference();
  const std::vector<int64_t> got = q.run();
  ASSERT_EQ(got.size(), want.data.size());
  // Each output channel reads only its own input channel.
  go::IntTensor x1 = q.x, w1 = q.w;
  const int64_t plane = q.x.dims[2] * q.x.dims[3];
  for (int64_t i = 0; i < plane; ++i) x1.data[i + plane] ^= 0x55;  // channel 1 changed
  go::Conv2dGeometry geo = q.geo;
  const go::IntTensor changed = go::qlinear_conv(x1, q.x_scale, q.x_zp, w1, q.w_scale, std::vector<int32_t>(4, 0),
                                                 q.y_scale, q.y_zp, go::QType::kUint8, q.bias, geo);
  const int64_t out_plane = want.dims[2] * want.dims[3];
  for (size_t i = 0; i < got.size(); ++i) {
    EXPECT_EQ(got[i], std::max(want.data[i], q.y_zp)) << i;
    if (static_cast<int64_t>(i) / out_plane != 1) EXPECT_EQ(changed.data[i], want.data[i]) << i;
  }
}

TEST(GoldenGraphQdq, LazyConvConsumedByAddIsMaterializedAsFloat) {
  QdqConv q(3, 4, 1, 5);
  q.g.nodes.push_back(node("Add", {"conv", "zero"}, {"sum"}));
  q.g.outputs.push_back({"sum", weft::kOnnxFloat, {}, false});
  const weft::OnnxTensor sum = go::run_graph(q.g, {{"x", q.input}}).at("sum");
  go::Conv2dGeometry geo = q.geo;
  const go::IntTensor acc = go::conv_integer(q.x, q.w, q.x_zp, std::vector<int32_t>(4, 0), geo);
  ASSERT_EQ(sum.floats.size(), acc.data.size());
  const int64_t plane = acc.dims[2] * acc.dims[3];
  for (size_t i = 0; i < acc.data.size(); ++i) {
    const int64_t m = static_cast<int64_t>(i) / plane;
    const double real = (static_cast<double>(acc.data[i]) + q.bias[m]) * q.x_scale * q.w_scale[m];
    EXPECT_NEAR(sum.floats[i], real, 1e-5 + 1e-5 * std::fabs(real)) << i;
  }
}

TEST(GoldenGraphQdq, QdqGemmIsQLinearMatMul) {
  std::mt19937 rng(6);
  const int64_t m = 3, k = 8, n = 5;
  const std::vector<int64_t> a = random_ints(m * k, 0, 255, rng), b = random_ints(k * n, -127, 127, rng);
  weft::OnnxGraph g;
  g.opset = 17;
  g.inputs.push_back({"a", weft::kOnnxUint8, {m, k}, true});
  g.constants["a_scale"] = ftensor({}, {0.03f});
  g.constants["a_zp"] = tensor(weft::kOnnxUint8, {}, {120});
  g.constants["b"] = tensor(weft::kOnnxInt8, {k, n}, b);
  g.constants["b_scale"] = ftensor({}, {0.01f});
  g.constants["y_scale"] = ftensor({}, {0.07f});
  g.constants["y_zp"] = tensor(weft::kOnnxInt8, {}, {-5});
  g.nodes.push_back(node("DequantizeLinear", {"a", "a_scale", "a_zp"}, {"af"}));
  g.nodes.push_back(node("DequantizeLinear", {"b", "b_scale"}, {"bf"}));
  g.nodes.push_back(node("Gemm", {"af", "bf"}, {"mm"}));
  g.nodes.push_back(node("QuantizeLinear", {"mm", "y_scale", "y_zp"}, {"y"}));
  g.outputs.push_back({"y", weft::kOnnxInt8, {}, false});
  const weft::OnnxTensor y = go::run_graph(g, {{"a", tensor(weft::kOnnxUint8, {m, k}, a)}}).at("y");
  const go::IntTensor want = go::qlinear_matmul({{m, k}, {a.begin(), a.end()}}, 0.03f, 120, {{k, n}, {b.begin(), b.end()}},
                                                0.01f, 0, 0.07f, -5, go::QType::kInt8);
  EXPECT_EQ(y.elem_type, weft::kOnnxInt8);
  EXPECT_EQ(y.dims, want.dims);
  EXPECT_EQ(y.ints, std::vector<int64_t>(want.data.begin(), want.data.end()));
}

// MatMul with per-column weights (axis 1) and Gemm with transB = 1 and per-row weights (axis 0)
// plus an int32 bias: both are the QLinearMatMul accumulator of each output column requantized
// with its own w_scale, computed here column by column with qlinear_matmul.
void expect_per_channel_matmul(bool gemm) {
  std::mt19937 rng(gemm ? 9 : 8);
  const int64_t m = 4, k = 6, n = 3;
  const std::vector<int64_t> a = random_ints(m * k, -128, 127, rng), b = random_ints(k * n, -127, 127, rng);
  const std::vector<float> w_scale = {0.004f, 0.011f, 0.007f};
  const std::vector<int64_t> bias = gemm ? std::vector<int64_t>{500, -800, 0} : std::vector<int64_t>{};
  std::vector<int64_t> b_stored = b;  // K x N, or N x K for transB
  if (gemm) {
    for (int64_t p = 0; p < k; ++p) {
      for (int64_t j = 0; j < n; ++j) b_stored[j * k + p] = b[p * n + j];
    }
  }
  weft::OnnxGraph g;
  g.opset = 19;
  g.inputs.push_back({"a", weft::kOnnxInt8, {m, k}, true});
  g.constants["a_scale"] = ftensor({}, {0.05f});
  g.constants["a_zp"] = tensor(weft::kOnnxInt8, {}, {3});
  g.constants["b"] = tensor(weft::kOnnxInt8, gemm ? std::vector<int64_t>{n, k} : std::vector<int64_t>{k, n}, b_stored);
  g.constants["b_scale"] = ftensor({n}, w_scale);
  g.constants["c"] = tensor(weft::kOnnxInt32, {n}, bias);
  std::vector<float> c_scale;
  for (float s : w_scale) c_scale.push_back(0.05f * s);
  g.constants["c_scale"] = ftensor({n}, c_scale);
  g.constants["y_scale"] = ftensor({}, {0.04f});
  g.constants["y_zp"] = tensor(weft::kOnnxUint8, {}, {128});
  g.nodes.push_back(node("DequantizeLinear", {"a", "a_scale", "a_zp"}, {"af"}));
  weft::OnnxNode dqb = node("DequantizeLinear", {"b", "b_scale"}, {"bf"});
  dqb.int_attrs["axis"] = gemm ? 0 : 1;
  g.nodes.push_back(dqb);
  if (gemm) {
    weft::OnnxNode dqc = node("DequantizeLinear", {"c", "c_scale"}, {"cf"});
    dqc.int_attrs["axis"] = 0;
    g.nodes.push_back(dqc);
    weft::OnnxNode op = node("Gemm", {"af", "bf", "cf"}, {"mm"});
    op.int_attrs["transB"] = 1;
    g.nodes.push_back(op);
  } else {
    g.nodes.push_back(node("MatMul", {"af", "bf"}, {"mm"}));
  }
  g.nodes.push_back(node("QuantizeLinear", {"mm", "y_scale", "y_zp"}, {"y"}));
  g.outputs.push_back({"y", weft::kOnnxUint8, {}, false});
  const weft::OnnxTensor y = go::run_graph(g, {{"a", tensor(weft::kOnnxInt8, {m, k}, a)}}).at("y");
  ASSERT_EQ(y.dims, (std::vector<int64_t>{m, n}));
  for (int64_t j = 0; j < n; ++j) {
    // Column j alone, with the bias as one more row of A (a 1 after the zero point) and of B.
    go::IntTensor aj{{m, k + 1}, {}}, bj{{k + 1, 1}, {}};
    for (int64_t i = 0; i < m; ++i) {
      for (int64_t p = 0; p < k; ++p) aj.data.push_back(static_cast<int32_t>(a[i * k + p]));
      aj.data.push_back(3 + 1);
    }
    for (int64_t p = 0; p < k; ++p) bj.data.push_back(static_cast<int32_t>(b[p * n + j]));
    bj.data.push_back(static_cast<int32_t>(bias.empty() ? 0 : bias[j]));
    const go::IntTensor want = go::qlinear_matmul(aj, 0.05f, 3, bj, w_scale[j], 0, 0.04f, 128, go::QType::kUint8);
    for (int64_t i = 0; i < m; ++i) EXPECT_EQ(y.ints[i * n + j], want.data[i]) << "row " << i << " column " << j;
  }
}

TEST(GoldenGraphQdq, MatMulPerColumnWeights) { expect_per_channel_matmul(false); }
TEST(GoldenGraphQdq, GemmTransBPerRowWeightsAndBias) { expect_per_channel_matmul(true); }

TEST(GoldenGraphErrors, UnsupportedAndMalformedAreTold) {
  QdqConv q(3, 4, 1, 7);
  q.finish("");
  weft::OnnxGraph g = q.g;
  g.nodes.push_back(node("LeakyRelu", {"conv"}, {"leaky"}));
  try {
    go::run_graph(g, {{"x", q.input}});
    FAIL() << "LeakyRelu ran";
  } catch (const std::invalid_argument& e) {
    EXPECT_EQ(std::string(e.what()).rfind("unsupported:", 0), 0u) << e.what();
    EXPECT_NE(std::string(e.what()).find("LeakyRelu_leaky"), std::string::npos) << e.what();
  }
  std::string why;
  EXPECT_FALSE(go::op_supported(g.nodes.back(), &why));
  EXPECT_NE(why.find("LeakyRelu"), std::string::npos) << why;
  EXPECT_TRUE(go::op_supported(q.g.nodes.back(), &why)) << why;
  try {
    go::run_graph(q.g, {});  // no value for the graph input
    FAIL() << "ran without its input";
  } catch (const std::invalid_argument& e) {
    EXPECT_NE(std::string(e.what()).rfind("unsupported:", 0), 0u) << e.what();
    EXPECT_NE(std::string(e.what()).find("DequantizeLinear"), std::string::npos) << e.what();
    EXPECT_NE(std::string(e.what()).find("'x'"), std::string::npos) << e.what();
  }
}

}  // namespace
