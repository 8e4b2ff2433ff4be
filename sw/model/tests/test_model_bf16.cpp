// BFloat16 in the model runtime (docs/model-runtime.md, "BF16"): the loader's bfloat16 tensors,
// the host Cast / Relu against independent formulas, MatMul / Gemm / Conv with bfloat16 operands
// as one tensor-unit step each (scripts/onnx_bf16_nodes.py, ops/) against the golden executor
// (bit for bit) and onnx's ReferenceEvaluator (exact where the summation order is the same,
// else within a stated bound), and the models the runtime refuses. The bfloat16 node tests of the
// same script run in test_model_node and test_golden_graph.
#include <gtest/gtest.h>
#include <onnx/onnx_pb.h>
#include <unistd.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "../src/host_ops.hpp"
#include "node_tests.hpp"
#include "onnx_builder.hpp"
#include "weft/error.hpp"
#include "weft/golden/fp.hpp"
#include "weft/golden/onnx_exec.hpp"
#include "weft/model.hpp"
#include "weft/onnx_graph.hpp"
#include "weft/weft.hpp"

namespace {

namespace fs = std::filesystem;
namespace go = weft::golden::onnx;
using weft::kOnnxBfloat16;
using weft::kOnnxFloat;

fs::path temp_dir() { return weft::test::scratch_dir("bf16"); }

using weft::test::bits_of;
using weft::test::error_of;
using weft::test::f32_tensor;
using weft::test::from_bits;

// The bfloat16 code of a float32 by round to nearest even on the bits, written here apart from
// golden::fp_encode: NaN to 0x7FC0, else (u + 0x7FFF + bit 16 of u) >> 16 (a carry into the
// exponent is the right result, up to Inf).
int64_t rne_code(float f) {
  const uint32_t u = bits_of(f);
  if ((u & 0x7FFFFFFFu) > 0x7F800000u) return 0x7FC0;
  return int64_t((uint64_t(u) + 0x7FFFu + ((u >> 16) & 1u)) >> 16);
}
bool bf16_nan(int64_t c) { return (c & 0x7FFF) > 0x7F80; }
// Position on the number line (sign-magnitude: +0 and -0 both 0, neighbours one apart).
int64_t bf16_order(int64_t c) { return (c & 0x8000) ? -(c & 0x7FFF) : (c & 0x7FFF); }

struct Builder : weft::test::ModelBuilder {
  explicit Builder(int opset = 19) : ModelBuilder(opset, "bf16", temp_dir()) {}
  using ModelBuilder::codes;
  // bfloat16 codes (or another 16-bit element type), raw_data or int32_data.
  void codes(const std::string& name, const std::vector<int64_t>& dims, const std::vector<int>& c,
             bool int32_data = false, int elem = kOnnxBfloat16) {
    ModelBuilder::codes(name, elem, dims, c, int32_data);
  }
};

weft::OnnxTensor bf16_tensor(std::vector<int64_t> dims, std::vector<int64_t> codes) {
  return weft::test::code_tensor(kOnnxBfloat16, std::move(dims), std::move(codes));
}

// --- loader --------------------------------------------------------------------------------

TEST(Bf16Loader, ReadsCodesFromRawDataAndInt32Data) {
  const std::vector<int> c = {0x0000, 0x8000, 0x3F80, 0xFFC1, 0x7F80, 0x0001};
  for (bool int32_data : {false, true}) {
    for (int elem : {int(kOnnxBfloat16), int(weft::kOnnxUint16)}) {
      Builder b;
      b.codes("w", {2, 3}, c, int32_data, elem);
      b.input("x", kOnnxFloat, {1});
      b.node("Identity", {"x"}, {"y"});
      b.output("y", kOnnxFloat);
      const weft::OnnxGraph g = weft::load_onnx_graph(b.save("codes.onnx"));
      const weft::OnnxTensor& w = g.constants.at("w");
      EXPECT_EQ(w.elem_type, elem);
      EXPECT_FALSE(w.is_float());
      EXPECT_EQ(w.is_bf16(), elem == kOnnxBfloat16);
      EXPECT_EQ(w.dims, (std::vector<int64_t>{2, 3}));
      EXPECT_EQ(w.ints, std::vector<int64_t>(c.begin(), c.end()));
    }
  }
}

TEST(Bf16Loader, RefusesACodeOutside16BitsAndAShortRawData) {
  Builder b;
  b.codes("w", {2}, {1, 0x10000}, true);
  b.input("x", kOnnxFloat, {1});
  b.node("Identity", {"x"}, {"y"});
  b.output("y", kOnnxFloat);
  weft::Errc code{};
  const std::string msg = error_of([&] { weft::load_onnx_graph(b.save("bad_code.onnx")); }, &code);
  EXPECT_NE(msg.find("outside 0..65535"), std::string::npos) << msg;
  EXPECT_EQ(code, weft::Errc::kBadModel);
  Builder s;
  s.codes("w", {3}, {1, 2, 3});
  s.g->mutable_initializer(0)->mutable_raw_data()->pop_back();  // 5 bytes for 3 elements
  s.input("x", kOnnxFloat, {1});
  s.node("Identity", {"x"}, {"y"});
  s.output("y", kOnnxFloat);
  const std::string short_msg = error_of([&] { weft::load_onnx_graph(s.save("short.onnx")); });
  EXPECT_NE(short_msg.find("raw_data holds 5 bytes, the dimensions need 6"), std::string::npos)
      << short_msg;
}

// --- host ops --------------------------------------------------------------------------------

weft::OnnxNode node_of(const std::string& op, int64_t to = -1) {
  weft::OnnxNode n;
  n.name = op;
  n.op_type = op;
  if (to >= 0) n.int_attrs["to"] = to;
  return n;
}

// Cast float -> bfloat16 on the host, and in the golden executor, equals the rounding computed on
// the bits for float32 patterns of every exponent and mantissa (1 048 833 of them); bfloat16 ->
// float gives every code's exact value (the code in the top half, NaN canonical).
TEST(Bf16HostOps, CastRoundsToNearestEvenAndBackExactly) {
  std::vector<float> x;
  for (uint64_t bits = 0; bits < (uint64_t{1} << 32); bits += 4095)
    x.push_back(from_bits(uint32_t(bits)));
  const weft::OnnxTensor xt = f32_tensor({int64_t(x.size())}, x);
  const weft::OnnxTensor y =
      weft::model::run_host_op(node_of("Cast", kOnnxBfloat16), {&xt}, 19).at(0);
  ASSERT_EQ(y.elem_type, kOnnxBfloat16);
  ASSERT_EQ(y.ints.size(), x.size());
  int64_t nan = 0, inf = 0;
  for (size_t i = 0; i < x.size(); ++i) {
    ASSERT_EQ(y.ints[i], rne_code(x[i])) << std::hexfloat << x[i];
    nan += bf16_nan(y.ints[i]);
    inf += (y.ints[i] & 0x7FFF) == 0x7F80;
  }
  EXPECT_GT(nan, 0);
  EXPECT_GT(inf, 0);
  // The golden executor's Cast, through a graph.
  Builder b;
  b.input("x", kOnnxFloat, {int64_t(x.size())});
  Builder::attr(b.node("Cast", {"x"}, {"y"}), "to", kOnnxBfloat16);
  b.output("y", kOnnxBfloat16);
  const auto golden = go::run_graph(weft::load_onnx_graph(b.save("cast.onnx")), {{"x", xt}});
  EXPECT_EQ(golden.at("y").ints, y.ints);

  std::vector<int64_t> codes(65536);
  for (int64_t c = 0; c < 65536; ++c) codes[size_t(c)] = c;
  const weft::OnnxTensor ct = bf16_tensor({65536}, codes);
  const weft::OnnxTensor f = weft::model::run_host_op(node_of("Cast", kOnnxFloat), {&ct}, 19).at(0);
  ASSERT_EQ(f.elem_type, kOnnxFloat);
  for (int64_t c = 0; c < 65536; ++c) {
    const uint32_t want = bf16_nan(c) ? 0x7FC00000u : uint32_t(c) << 16;
    ASSERT_EQ(bits_of(f.floats[size_t(c)]), want) << "code " << c;
  }
  std::printf("bf16 Cast: %zu float32 patterns rounded (%lld NaN, %lld +-Inf), 65536 codes back\n",
              x.size(), (long long)nan, (long long)inf);
}

// The host's Relu on bfloat16 codes applied after the rounding equals the tensor unit's fused Relu
// before it (golden::fp_postprocess, then golden::fp_encode), for float32 sums of every exponent:
// folding a Relu into a BF16 MatMul / Gemm / Conv changes nothing.
TEST(Bf16HostOps, ReluOnCodesEqualsTheOutputStagesFusedRelu) {
  const weft::OnnxNode relu = node_of("Relu");
  std::vector<float> s;
  for (uint64_t bits = 0; bits < (uint64_t{1} << 32); bits += 4093)
    s.push_back(from_bits(uint32_t(bits)));
  weft::OnnxTensor codes = bf16_tensor({int64_t(s.size())}, {});
  for (float v : s)
    codes.ints.push_back(int64_t(weft::golden::fp_encode(v, weft::golden::FpFormat::kBf16)));
  const weft::OnnxTensor y = weft::model::run_host_op(relu, {&codes}, 19).at(0);
  for (size_t i = 0; i < s.size(); ++i) {
    // The output stage with a bias of -0, which leaves every value (-0 included) as it is.
    const int64_t fused = int64_t(weft::golden::fp_encode(
        weft::golden::fp_postprocess(s[i], 1.0f, -0.0f, true), weft::golden::FpFormat::kBf16));
    ASSERT_EQ(y.ints[i], fused) << std::hexfloat << s[i];
  }
  std::printf("bf16 Relu: %zu float32 sums, the Relu on codes = the fused Relu\n", s.size());
}

// --- MatMul / Gemm / Conv on the tensor unit --------------------------------------------------

struct OpModel {
  std::string name, expect, what;
};
std::vector<OpModel> read_ops(const fs::path& dir) {
  std::vector<OpModel> v;
  std::ifstream in(dir / "index.txt");
  std::string line;
  while (std::getline(in, line)) {
    if (line.empty() || line[0] == '#') continue;
    std::istringstream is(line);
    OpModel m;
    is >> m.name >> m.expect;
    std::getline(is, m.what);
    v.push_back(m);
  }
  return v;
}

// The bfloat16 codes of an output: its codes, or (after a Cast to float) the top halves of the
// floats, which hold bfloat16 values exactly.
std::vector<int64_t> codes_of(const weft::OnnxTensor& t) {
  if (t.is_bf16()) return t.ints;
  std::vector<int64_t> c;
  for (float f : t.floats) {
    const uint32_t u = bits_of(f);
    EXPECT_EQ(u & 0xFFFFu, 0u) << "not a bfloat16 value: " << f;
    c.push_back(int64_t(u >> 16));
  }
  return c;
}

class Bf16Ops : public ::testing::TestWithParam<std::string> {};

// A bfloat16 ulp at x: 2^(exponent - 7), 2^-133 for the subnormals and zero.
double bf16_ulp(double x) {
  const double a = std::fabs(x);
  if (a < 0x1p-126) return 0x1p-133;
  return std::ldexp(1.0, std::ilogb(a) - 7);
}

// Each model of scripts/onnx_bf16_nodes.py's ops/ (Cast float -> bfloat16, MatMul / Gemm / Conv
// with BFLOAT16 initializers, [Relu], [Cast back]): every MatMul / Gemm / Conv is one tensor-unit
// step with its Relu folded, and the outputs equal the golden executor's bit for bit (gemm_fp with
// the array's rows per k-tile). Against onnx's ReferenceEvaluator: where the reference uses
// numpy's dot (2-D MatMul, Gemm), the golden executor's float path (fp_tile_rows = 0: float32 in
// k order, Gemm's C after a bfloat16 rounding) equals it bit for bit, so the runtime differs from
// it by the tile order and the reference's second rounding and nothing else. Per the model's
// `expect`: "exact" (one k-tile, no bias) must equal the reference, "ulp1" be within one
// bfloat16 ulp, "gemm_c" within ulp(y) + ulp(y - C) in value (the reference rounds A x B before
// it adds C), "crafted" give the codes worked out in the script; "chain" (two layers) is measured.
// Prints the counts.
TEST_P(Bf16Ops, OneTensorUnitStepEqualToGoldenAndNearTheReference) {
  const fs::path dir = fs::path(WEFT_ONNX_BF16_DIR) / "ops";
  const std::vector<OpModel> models = read_ops(dir);
  ASSERT_EQ(models.size(), 10u) << dir << "/index.txt: build weft_onnx_bf16_nodes";
  weft::Device dev = weft::Device::open(GetParam());
  if (!dev.caps().tensor_fp) GTEST_SKIP() << GetParam() << " has no FP tensor modes";
  go::GraphOptions golden_opt, float_path;
  golden_opt.fp_tile_rows = int(dev.caps().rows);
  float_path.fp_tile_rows = 0;
  int64_t total = 0, differ = 0, compared = 0, worst = 0;
  for (const OpModel& om : models) {
    SCOPED_TRACE(om.name + " (" + om.expect + "): " + om.what);
    const std::string path = (dir / om.name / "model.onnx").string();
    const weft::OnnxGraph g = weft::load_onnx_graph(path);
    const auto sets = weft::test::data_sets(dir / om.name, g);
    ASSERT_EQ(sets.size(), 1u);
    weft::Model model = weft::Model::load(dev, path);
    const auto out = model.run(sets[0].inputs);
    int products = 0, tensor_steps = 0, relu_steps = 0;
    // Whether the reference computes every product with numpy's dot: no Conv, and 2-D operands
    // (the models' one activation input has the rank of every product's input).
    bool numpy_dot = g.inputs.at(0).dims.size() <= 2;
    std::vector<float> gemm_c;
    for (const weft::OnnxNode& n : g.nodes) {
      if (n.op_type != "MatMul" && n.op_type != "Gemm" && n.op_type != "Conv") continue;
      ++products;
      numpy_dot = numpy_dot && n.op_type != "Conv";
      if (n.op_type == "Gemm" && n.inputs.size() > 2) {
        const weft::OnnxTensor& c = g.constants.at(n.inputs[2]);
        for (int64_t v : c.ints)
          gemm_c.push_back(weft::golden::fp_decode(uint32_t(v), weft::golden::FpFormat::kBf16));
      }
    }
    for (const weft::LayerReport& l : model.layers()) {
      relu_steps += l.op == "Relu";
      if (l.where != weft::Placement::kTensorUnit) continue;
      ++tensor_steps;
      EXPECT_NE(l.op.find("(BF16)"), std::string::npos) << l.op;
      EXPECT_GT(l.cycles, 0u);
      EXPECT_GT(l.macs, 0u);
    }
    EXPECT_EQ(tensor_steps, products) << "one tensor-unit step per MatMul / Gemm / Conv";
    EXPECT_EQ(relu_steps, 0) << "every Relu here follows a product and folds into it";
    ASSERT_EQ(g.outputs.size(), 1u);
    const std::string& yname = g.outputs[0].name;
    const weft::OnnxTensor& y = out.at(yname);
    const weft::OnnxTensor golden = go::run_graph(g, sets[0].inputs, golden_opt).at(yname);
    EXPECT_EQ(y.elem_type, golden.elem_type);
    EXPECT_EQ(y.dims, golden.dims);
    EXPECT_EQ(weft::test::compare(y, golden, true), "")
        << "the runtime and the golden executor differ";
    const weft::OnnxTensor& want = sets[0].outputs.at(0);
    const std::vector<int64_t> got = codes_of(y), ref = codes_of(want);
    const std::vector<int64_t> fpath =
        codes_of(go::run_graph(g, sets[0].inputs, float_path).at(yname));
    ASSERT_EQ(got.size(), ref.size());
    ASSERT_EQ(fpath.size(), ref.size());
    int n = 0, float_path_differ = 0;
    int64_t most = 0;
    for (size_t i = 0; i < got.size(); ++i) {
      ASSERT_FALSE(bf16_nan(got[i]) || bf16_nan(ref[i])) << i;
      const int64_t d = std::llabs(bf16_order(got[i]) - bf16_order(ref[i]));
      n += d != 0;
      most = std::max(most, d);
      float_path_differ += fpath[i] != ref[i];
      const double vg = weft::golden::fp_decode(uint32_t(got[i]), weft::golden::FpFormat::kBf16);
      const double vr = weft::golden::fp_decode(uint32_t(ref[i]), weft::golden::FpFormat::kBf16);
      if (om.expect == "exact") {
        EXPECT_EQ(got[i], ref[i]) << "element " << i;
      } else if (om.expect == "ulp1") {
        EXPECT_LE(d, 1) << "element " << i << ": " << got[i] << ", reference " << ref[i];
      } else if (om.expect == "gemm_c") {
        const double c = gemm_c.size() == 1 ? gemm_c[0] : gemm_c.at(i % gemm_c.size());
        EXPECT_LE(std::fabs(vg - vr), bf16_ulp(vr) + bf16_ulp(vr - c))
            << "element " << i << ": " << vg << ", reference " << vr << ", C " << c;
      }
    }
    if (numpy_dot) {
      EXPECT_EQ(float_path_differ, 0)
          << "the golden executor's float path differs from the reference";
    }
    if (om.name == "matmul_tile_order") {
      // Row 0: the tile sums keep the sixteen 1s (2^24 + 2^17); the float32 running sum loses
      // them and lands on the tie (2^24). Row 1: both keep them.
      EXPECT_EQ(got, (std::vector<int64_t>{0x4B81, 0x4608, 0x4608, 0x4B81}));
      EXPECT_EQ(ref, (std::vector<int64_t>{0x4B80, 0x4608, 0x4608, 0x4B81}));
    }
    if (om.name == "gemm_bias_double_rounding") {
      // 1 + 2^-8 - 1 rounded once is 2^-8; rounded to bfloat16 first (1) it is 0.
      EXPECT_EQ(got, (std::vector<int64_t>{0x3B80, 0x3C80}));
      EXPECT_EQ(ref, (std::vector<int64_t>{0x0000, 0x3C80}));
    }
    std::printf(
        "bf16 model %-28s %-7s on %s: %4zu elements = golden; %3d differ from the "
        "reference (at most %lld ulp); golden's float path differs from it in %d (%s)\n",
        om.name.c_str(), om.expect.c_str(), GetParam().c_str(), got.size(), n, (long long)most,
        float_path_differ, numpy_dot ? "numpy dot: must be 0" : "numpy matmul: BLAS order");
    total += int64_t(got.size());
    if (om.expect == "exact" || om.expect == "ulp1") {
      compared += int64_t(got.size()), differ += n, worst = std::max(worst, most);
    }
  }
  std::printf(
      "bf16 models on %s: %lld elements bit-exact with the golden executor; exact / ulp1 "
      "models: %lld of %lld elements differ from the reference, at most %lld ulp\n",
      GetParam().c_str(), (long long)total, (long long)differ, (long long)compared,
      (long long)worst);
}

INSTANTIATE_TEST_SUITE_P(Devices, Bf16Ops, ::testing::ValuesIn(weft::test::test_devices()),
                         [](const auto& info) { return weft::test::device_test_name(info.param); });

// --- what the runtime refuses -----------------------------------------------------------------

// x [2, 4] (bfloat16 or float) -> MatMul / Gemm with weights w of the given element type.
std::string product_model(const std::string& file, int x_elem, int w_elem, const std::string& op,
                          std::vector<int64_t> w_dims = {4, 3}) {
  Builder b;
  b.input("x", x_elem, {2, 4});
  int64_t count = 1;
  for (int64_t d : w_dims) count *= d;
  if (w_elem == kOnnxFloat) {
    b.floats("w", w_dims, std::vector<float>(size_t(count), 0.5f));
  } else {
    b.codes("w", w_dims, std::vector<int>(size_t(count), 0x3F00));
  }
  b.node(op, {"x", "w"}, {"y"});
  b.output("y", x_elem);
  return b.save(file);
}

// Each refusal is BAD_MODEL "unsupported: ..." with a reason a user can act on.
void expect_unsupported(weft::Device& dev, const std::string& path, const std::string& phrase,
                        const weft::OnnxTensor* run_with = nullptr) {
  weft::Errc code{};
  const std::string msg = error_of(
      [&] {
        weft::Model m = weft::Model::load(dev, path);
        if (run_with) m.run({{"x", *run_with}});
      },
      &code);
  EXPECT_EQ(code, weft::Errc::kBadModel) << msg;
  EXPECT_NE(msg.find("unsupported: "), std::string::npos) << msg;
  EXPECT_NE(msg.find(phrase), std::string::npos) << msg;
  std::printf("refused: %s\n", msg.c_str());
}

TEST(Bf16Errors, MixedOperandTypesAreRefusedWithTheReason) {
  weft::Device dev = weft::Device::open("ref://");
  if (!dev.caps().tensor_fp) GTEST_SKIP() << "ref:// has no FP tensor modes";
  // A bfloat16 input with float32 weights (ONNX's type constraint T forbids it too).
  expect_unsupported(dev, product_model("bf16_x_f32_w.onnx", kOnnxBfloat16, kOnnxFloat, "MatMul"),
                     "needs BFLOAT16 weights that are an initializer; its weights 'w' are float32");
  // A float32 input with bfloat16 weights: the Cast is missing.
  expect_unsupported(dev, product_model("f32_x_bf16_w.onnx", kOnnxFloat, kOnnxBfloat16, "Gemm"),
                     "its input 'x' is float32 (the tensor unit multiplies BF16 by BF16 only: "
                     "Cast the input to BFLOAT16)");
  // The golden executor refuses the same graphs.
  const std::string p = product_model("bf16_x_f32_w2.onnx", kOnnxBfloat16, kOnnxFloat, "MatMul");
  const weft::OnnxTensor x = bf16_tensor({2, 4}, std::vector<int64_t>(8, 0x3F80));
  try {
    go::run_graph(weft::load_onnx_graph(p), {{"x", x}});
    ADD_FAILURE() << "the golden executor took a bfloat16 x float32 MatMul";
  } catch (const std::invalid_argument& e) {
    EXPECT_NE(std::string(e.what()).find("unsupported: "), std::string::npos) << e.what();
  }
}

TEST(Bf16Errors, FormsTheTensorUnitCannotTakeAreRefused) {
  weft::Device dev = weft::Device::open("ref://");
  if (!dev.caps().tensor_fp) GTEST_SKIP() << "ref:// has no FP tensor modes";
  // Batched (3-D) weights.
  expect_unsupported(
      dev, product_model("batched.onnx", kOnnxBfloat16, kOnnxBfloat16, "MatMul", {2, 4, 3}),
      "weights of rank 3 (2-D weights only)");
  {  // Gemm transA.
    Builder b;
    b.input("x", kOnnxBfloat16, {4, 2});
    b.codes("w", {4, 3}, std::vector<int>(12, 0x3F80));
    Builder::attr(b.node("Gemm", {"x", "w"}, {"y"}), "transA", 1);
    b.output("y", kOnnxBfloat16);
    expect_unsupported(dev, b.save("transa.onnx"), "transA, alpha or beta");
  }
  {  // A bias of M x N values.
    Builder b;
    b.input("x", kOnnxBfloat16, {2, 4});
    b.codes("w", {4, 3}, std::vector<int>(12, 0x3F80));
    b.codes("c", {2, 3}, std::vector<int>(6, 0x3F80));
    b.node("Gemm", {"x", "w", "c"}, {"y"});
    b.output("y", kOnnxBfloat16);
    expect_unsupported(dev, b.save("bias2d.onnx"),
                       "must be an initializer of 3 BFLOAT16 or FLOAT values");
  }
  {  // A grouped convolution.
    Builder b(22);
    b.input("x", kOnnxBfloat16, {1, 4, 5, 5});
    b.codes("w", {4, 2, 3, 3}, std::vector<int>(72, 0x3F80));
    Builder::attr(b.node("Conv", {"x", "w"}, {"y"}), "group", 2);
    b.output("y", kOnnxBfloat16);
    expect_unsupported(dev, b.save("group.onnx"), "group = 2");
  }
  // Host ops that would compute on the codes: refused when they run.
  for (const char* op : {"Clip", "Softmax"}) {
    Builder b;
    b.input("x", kOnnxBfloat16, {2, 4});
    b.node(op, {"x"}, {"y"});
    b.output("y", kOnnxBfloat16);
    const weft::OnnxTensor x = bf16_tensor({2, 4}, std::vector<int64_t>(8, 0xBF80));
    expect_unsupported(dev, b.save(std::string(op) + ".onnx"),
                       std::string(op) + " on a bfloat16 tensor", &x);
  }
  {  // Cast to a type other than float / bfloat16: at load.
    Builder b;
    b.input("x", kOnnxFloat, {2});
    Builder::attr(b.node("Cast", {"x"}, {"y"}), "to", 10);  // FLOAT16
    b.output("y", 10);
    expect_unsupported(dev, b.save("cast_f16.onnx"), "Cast to type 10");
  }
}

// A float32 bias that holds bfloat16 values gives the same codes as the BFLOAT16 bias (the
// output stage adds the exact value either way), on the runtime and the golden executor; a
// bfloat16 graph input is checked against its declared type.
TEST(Bf16Model, Float32BiasEqualsTheSameBf16BiasAndTheInputTypeIsChecked) {
  weft::Device dev = weft::Device::open("ref://");
  if (!dev.caps().tensor_fp) GTEST_SKIP() << "ref:// has no FP tensor modes";
  const std::vector<int> wc = {0x3F80, 0xBF00, 0x3E80, 0x4000, 0xC040, 0x3DCD,
                               0x3F40, 0xBE00, 0x3FA0, 0x4120, 0xBF80, 0x3C00};
  auto build = [&](bool float_bias, const std::string& file) {
    Builder b;
    b.input("x", kOnnxBfloat16, {2, 4});
    b.codes("w", {3, 4}, wc);
    if (float_bias)
      b.floats("c", {3}, {0.5f, -1.25f, 3.0f});
    else
      b.codes("c", {3}, {0x3F00, 0xBFA0, 0x4040}, true);
    Builder::attr(b.node("Gemm", {"x", "w", "c"}, {"g"}), "transB", 1);
    b.node("Relu", {"g"}, {"y"});
    b.output("y", kOnnxBfloat16);
    return b.save(file);
  };
  const weft::OnnxTensor x =
      bf16_tensor({2, 4}, {0x3F80, 0x4000, 0xBF80, 0x3F00, 0x4040, 0xC000, 0x3E00, 0x0000});
  std::vector<int64_t> results[2];
  for (bool float_bias : {false, true}) {
    const std::string path = build(float_bias, float_bias ? "fbias.onnx" : "bbias.onnx");
    weft::Model m = weft::Model::load(dev, path);
    EXPECT_NE(m.plan_summary().find("Gemm (BF16)"), std::string::npos) << m.plan_summary();
    EXPECT_EQ(m.plan_summary().find("Relu"), std::string::npos) << "the Relu folds";
    const weft::OnnxTensor y = m.run({{"x", x}}).at("y");
    EXPECT_EQ(y.ints, go::run_graph(weft::load_onnx_graph(path), {{"x", x}}).at("y").ints);
    results[float_bias] = y.ints;
    weft::Errc code{};
    error_of([&] { m.run({{"x", f32_tensor({2, 4}, std::vector<float>(8, 1.0f))}}); }, &code);
    EXPECT_EQ(code, weft::Errc::kBadArgument);  // a float32 tensor for the bfloat16 input
  }
  EXPECT_EQ(results[0], results[1]);
  // By hand: x row 0 (1, 2, -1, 0.5) . w row 0 (1, -0.5, 0.25, 2) = 0.75, + 0.5 = 1.25 (0x3FA0).
  EXPECT_EQ(results[0].at(0), 0x3FA0);
}

}  // namespace
