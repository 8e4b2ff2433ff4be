// Float8 (FLOAT8E4M3FN / FLOAT8E5M2) in the model runtime (docs/model-runtime.md, "FP8"): the
// loader's float8 tensors, the host QuantizeLinear / DequantizeLinear against the golden
// executor's (written apart: each checks the other) over float32 values of every exponent and
// every code, and the errors the specification's reference raises. The ONNX-reference node tests
// are in test_model_node (scripts/onnx_fp8_nodes.py).
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
#include <string>
#include <vector>

#include "../src/host_ops.hpp"
#include "node_tests.hpp"
#include "onnx_builder.hpp"
#include "weft/error.hpp"
#include "weft/golden/onnx_exec.hpp"
#include "weft/golden/onnx_ops.hpp"
#include "weft/model.hpp"
#include "weft/onnx_graph.hpp"
#include "weft/weft.hpp"

namespace {

namespace fs = std::filesystem;
namespace go = weft::golden::onnx;
using weft::kOnnxFloat8E4m3fn;
using weft::kOnnxFloat8E5m2;

fs::path temp_dir() { return weft::test::scratch_dir("fp8"); }

using weft::test::bits_of;
using weft::test::error_of;
using weft::test::f32_tensor;
using weft::test::from_bits;

struct Builder : weft::test::ModelBuilder {
  explicit Builder(int opset) : ModelBuilder(opset, "fp8", temp_dir()) {}
};

weft::OnnxTensor fp8_tensor(int elem, std::vector<int64_t> dims, std::vector<int64_t> codes) {
  return weft::test::code_tensor(elem, std::move(dims), std::move(codes));
}

TEST(Fp8Loader, ReadsCodesFromRawDataAndInt32Data) {
  for (bool int32_data : {false, true}) {
    for (int elem : {kOnnxFloat8E4m3fn, kOnnxFloat8E5m2}) {
      Builder b(19);
      b.codes("w", elem, {2, 2}, {0x00, 0x80, 0x7F, 0xFE}, int32_data);
      b.input("x", weft::kOnnxFloat, {1});
      b.node("Identity", {"x"}, {"y"});
      b.output("y", weft::kOnnxFloat);
      const weft::OnnxGraph g = weft::load_onnx_graph(b.save("codes.onnx"));
      const weft::OnnxTensor& w = g.constants.at("w");
      EXPECT_EQ(w.elem_type, elem);
      EXPECT_FALSE(w.is_float());
      EXPECT_EQ(w.dims, (std::vector<int64_t>{2, 2}));
      EXPECT_EQ(w.ints, (std::vector<int64_t>{0x00, 0x80, 0x7F, 0xFE}));
    }
  }
}

TEST(Fp8Loader, RefusesACodeOutsideAByteAndTheOtherFloat8Types) {
  Builder b(19);
  b.codes("w", kOnnxFloat8E4m3fn, {2}, {1, 256}, true);
  b.input("x", weft::kOnnxFloat, {1});
  b.node("Identity", {"x"}, {"y"});
  b.output("y", weft::kOnnxFloat);
  weft::Errc code{};
  EXPECT_NE(error_of([&] { weft::load_onnx_graph(b.save("bad_code.onnx")); }, &code)
                .find("outside 0..255"),
            std::string::npos);
  EXPECT_EQ(code, weft::Errc::kBadModel);
  Builder fnuz(19);
  fnuz.codes("w", 18, {1}, {1});  // FLOAT8E4M3FNUZ: not read
  fnuz.input("x", weft::kOnnxFloat, {1});
  fnuz.node("Identity", {"x"}, {"y"});
  fnuz.output("y", weft::kOnnxFloat);
  EXPECT_NE(error_of([&] {
              weft::load_onnx_graph(fnuz.save("fnuz.onnx"));
            }).find("element type 18 is not read"),
            std::string::npos);
}

// QuantizeLinear on the host (the runtime's rounding) equals the golden executor's (a search over
// the format's values) for float32 values of every exponent and mantissa pattern, both formats,
// saturate 1 and 0, and two scales: the two implementations check each other.
TEST(Fp8HostOps, QuantizeEqualsTheGoldenExecutorOverFloat32) {
  std::vector<float> x;
  for (uint64_t bits = 0; bits < (uint64_t{1} << 32); bits += 8191)
    x.push_back(from_bits(uint32_t(bits)));
  const weft::OnnxTensor xt = f32_tensor({int64_t(x.size())}, x);
  int64_t compared = 0;
  for (int elem : {kOnnxFloat8E4m3fn, kOnnxFloat8E5m2}) {
    for (int saturate : {1, 0}) {
      for (float scale : {1.0f, 0.37f}) {
        weft::OnnxNode n;
        n.name = "q";
        n.op_type = "QuantizeLinear";
        n.int_attrs["saturate"] = saturate;
        const weft::OnnxTensor s = f32_tensor({}, {scale});
        const weft::OnnxTensor z = fp8_tensor(elem, {}, {0});
        const weft::OnnxTensor y = weft::model::run_host_op(n, {&xt, &s, &z}, 19).at(0);
        ASSERT_EQ(y.elem_type, elem);
        const go::Fp8Type t = elem == kOnnxFloat8E4m3fn ? go::Fp8Type::kE4m3fn : go::Fp8Type::kE5m2;
        for (size_t i = 0; i < x.size(); ++i) {
          ASSERT_EQ(y.ints[i], go::quantize_fp8_value(x[i], scale, t, saturate != 0))
              << std::hexfloat << x[i] << " elem " << elem << " saturate " << saturate << " scale "
              << scale;
        }
        compared += int64_t(x.size());
      }
    }
  }
  EXPECT_GT(compared, 4000000);
}

// DequantizeLinear on the host equals the golden executor's bit for bit for every code under
// scales that round, overflow float32, give float32 subnormals and flip the sign.
TEST(Fp8HostOps, DequantizeEqualsTheGoldenExecutorForEveryCode) {
  std::vector<int64_t> codes;
  for (int c = 0; c < 256; ++c) codes.push_back(c);
  for (int elem : {kOnnxFloat8E4m3fn, kOnnxFloat8E5m2}) {
    for (float scale : {1.0f, 1.7f, 3e36f, 1e-39f, -0.5f, 0.0f}) {
      weft::OnnxNode n;
      n.name = "dq";
      n.op_type = "DequantizeLinear";
      const weft::OnnxTensor x = fp8_tensor(elem, {256}, codes), s = f32_tensor({}, {scale});
      const weft::OnnxTensor y = weft::model::run_host_op(n, {&x, &s}, 19).at(0);
      const go::Fp8Type t = elem == kOnnxFloat8E4m3fn ? go::Fp8Type::kE4m3fn : go::Fp8Type::kE5m2;
      for (int c = 0; c < 256; ++c) {
        ASSERT_EQ(bits_of(y.floats[c]), bits_of(go::dequantize_fp8_value(c, scale, t)))
            << "code " << c << " scale " << scale;
      }
    }
  }
}

// DequantizeLinear x8 (zero point) -> y, as a model.
std::string dq_model(int elem, int zp_code, const std::string& file) {
  Builder b(19);
  b.input("x", elem, {4});
  b.scalar_f32("s", 0.5f);
  b.codes("z", elem, {}, {zp_code});
  b.node("DequantizeLinear", {"x", "s", "z"}, {"y"});
  b.output("y", weft::kOnnxFloat);
  return b.save(file);
}

// What the specification's reference raises on, the runtime refuses with BAD_MODEL and a reason,
// and so does the golden executor (std::invalid_argument); what it ignores, both ignore.
TEST(Fp8Errors, ANonzeroFloat8ZeroPointOfDequantizeIsRefused) {
  weft::Device dev = weft::Device::open("ref://");
  const weft::OnnxTensor x = fp8_tensor(kOnnxFloat8E4m3fn, {4}, {0x38, 0x40, 0xB8, 0x00});
  for (int zp : {0x80, 0x38, 0x01}) {  // -0 too: the reference and onnxruntime refuse it
    const std::string path = dq_model(kOnnxFloat8E4m3fn, zp, "dq_zp.onnx");
    weft::Model model = weft::Model::load(dev, path);
    weft::Errc code{};
    const std::string msg = error_of([&] { model.run({{"x", x}}); }, &code);
    EXPECT_EQ(code, weft::Errc::kBadModel) << msg;
    EXPECT_NE(msg.find("float8 zero point must be 0"), std::string::npos) << msg;
    EXPECT_THROW(go::run_graph(weft::load_onnx_graph(path), {{"x", x}}), std::invalid_argument);
  }
  // Zero point +0: y = x * 0.5.
  const std::string path = dq_model(kOnnxFloat8E4m3fn, 0, "dq_zp0.onnx");
  weft::Model model = weft::Model::load(dev, path);
  EXPECT_EQ(model.run({{"x", x}}).at("y").floats, (std::vector<float>{0.5f, 1.0f, -0.5f, 0.0f}));
}

TEST(Fp8Errors, OutputDtypeMustAgreeWithTheZeroPointAndArithmeticOnCodesIsRefused) {
  weft::Device dev = weft::Device::open("ref://");
  Builder b(21);
  b.input("x", weft::kOnnxFloat, {2});
  b.scalar_f32("s", 1.0f);
  b.codes("z", kOnnxFloat8E5m2, {}, {0});
  Builder::attr(b.node("QuantizeLinear", {"x", "s", "z"}, {"y"}), "output_dtype",
                kOnnxFloat8E4m3fn);
  b.output("y", kOnnxFloat8E4m3fn);
  weft::Model model = weft::Model::load(dev, b.save("dtype.onnx"));
  const std::string msg = error_of([&] { model.run({{"x", f32_tensor({2}, {1.0f, 2.0f})}}); });
  EXPECT_NE(msg.find("output_dtype 17 differs"), std::string::npos) << msg;

  // Relu reading float8 codes would compute on the codes: refused as unsupported.
  Builder r(19);
  r.input("x", kOnnxFloat8E4m3fn, {2});
  r.node("Relu", {"x"}, {"y"});
  r.output("y", kOnnxFloat8E4m3fn);
  weft::Model relu = weft::Model::load(dev, r.save("relu.onnx"));
  const std::string why = error_of([&] {
    relu.run({{"x", fp8_tensor(kOnnxFloat8E4m3fn, {2}, {0x38, 0xB8})}});
  });
  EXPECT_NE(why.find("unsupported: Relu on a float8 tensor"), std::string::npos) << why;
}

// A float8 graph input is accepted with its type and checked against it.
TEST(Fp8Model, Float8InputsAndOutputsRunOnTheHost) {
  weft::Device dev = weft::Device::open("ref://");
  Builder b(19);
  b.input("x", kOnnxFloat8E5m2, {3});
  b.scalar_f32("s", 2.0f);
  b.codes("z", kOnnxFloat8E4m3fn, {}, {0});
  b.node("DequantizeLinear", {"x", "s"}, {"f"});
  b.node("QuantizeLinear", {"f", "s", "z"}, {"y"});
  b.output("y", kOnnxFloat8E4m3fn);
  weft::Model model = weft::Model::load(dev, b.save("chain.onnx"));
  // E5M2 1.0 (0x3C), -57344 (0xFB), NaN (0x7F) -> x 2 / 2 -> E4M3FN 1.0, -448 (saturated), NaN.
  const weft::OnnxTensor y =
      model.run({{"x", fp8_tensor(kOnnxFloat8E5m2, {3}, {0x3C, 0xFB, 0x7F})}}).at("y");
  EXPECT_EQ(y.elem_type, kOnnxFloat8E4m3fn);
  EXPECT_EQ(y.ints, (std::vector<int64_t>{0x38, 0xFE, 0x7F}));
  weft::Errc code{};
  error_of([&] { model.run({{"x", fp8_tensor(kOnnxFloat8E4m3fn, {3}, {0, 0, 0})}}); }, &code);
  EXPECT_EQ(code, weft::Errc::kBadArgument);  // an E4M3FN tensor for the E5M2 input
}

// --- the FP8 QDQ group on the tensor unit -------------------------------------------------

// Position of a finite float8 code on the number line (sign-magnitude codes: +0 and -0 both 0,
// neighbouring values one apart), for counting ulps.
int64_t fp8_order(int64_t c) { return (c & 0x80) ? -(c & 0x7F) : (c & 0x7F); }

struct Group {
  std::string name, what;
};
std::vector<Group> read_groups(const fs::path& dir) {
  std::vector<Group> v;
  std::ifstream in(dir / "index.txt");
  std::string line;
  while (std::getline(in, line)) {
    if (line.empty() || line[0] == '#') continue;
    const size_t sp = line.find(' ');
    v.push_back({line.substr(0, sp), sp == std::string::npos ? "" : line.substr(sp + 1)});
  }
  return v;
}

class Fp8Groups : public ::testing::TestWithParam<std::string> {};

// DequantizeLinear(x8), DequantizeLinear(w8) -> MatMul / Gemm / Conv [-> Relu] -> QuantizeLinear
// (scripts/onnx_fp8_nodes.py, groups/): one tensor-unit step, bit-exact with the golden executor
// lowering the group the same way (gemm_fp with the array's rows per k-tile), and within one FP8
// ulp of onnx's ReferenceEvaluator, whose float path rounds each dequantized product and sums in
// numpy's order. Prints how many elements differ from the reference.
TEST_P(Fp8Groups, OneTensorUnitStepEqualToGoldenWithinAnUlpOfTheReference) {
  const fs::path dir = fs::path(WEFT_ONNX_FP8_DIR) / "groups";
  const std::vector<Group> groups = read_groups(dir);
  ASSERT_EQ(groups.size(), 8u) << dir << "/index.txt: build weft_onnx_fp8_nodes";
  weft::Device dev = weft::Device::open(GetParam());
  if (!dev.caps().tensor_fp) GTEST_SKIP() << GetParam() << " has no FP8 tensor modes";
  go::GraphOptions golden_opt;
  golden_opt.fp_tile_rows = int(dev.caps().rows);
  int64_t total = 0, differ = 0, zero_sign = 0;
  for (const Group& grp : groups) {
    SCOPED_TRACE(grp.name + ": " + grp.what);
    const std::string path = (dir / grp.name / "model.onnx").string();
    const weft::OnnxGraph g = weft::load_onnx_graph(path);
    const auto sets = weft::test::data_sets(dir / grp.name, g);
    ASSERT_EQ(sets.size(), 1u);
    weft::Model model = weft::Model::load(dev, path);
    const auto out = model.run(sets[0].inputs);
    int tensor_steps = 0;
    for (const weft::LayerReport& l : model.layers()) {
      if (l.where == weft::Placement::kTensorUnit) {
        ++tensor_steps;
        EXPECT_NE(l.op.find("(FP8 QDQ)"), std::string::npos) << l.op;
        EXPECT_GT(l.cycles, 0u);
      }
    }
    EXPECT_EQ(tensor_steps, 1) << "the group is one tensor-unit step";
    const weft::OnnxTensor& y = out.at("y");
    const weft::OnnxTensor golden = go::run_graph(g, sets[0].inputs, golden_opt).at("y");
    EXPECT_EQ(y.elem_type, golden.elem_type);
    EXPECT_EQ(y.dims, golden.dims);
    EXPECT_EQ(y.ints, golden.ints) << "the runtime and the golden executor differ";
    if (grp.name == "matmul_e5m2_tile_exact") {
      // The tile's exact sum keeps the 1s whatever their order (E4M3 1.125 = 0x39 on the
      // diagonal); the specification's float path, here the golden executor's sequential float32
      // sum, loses them when the large products come first (the tie 1.0625 -> 1.0 = 0x38).
      EXPECT_EQ(y.ints, (std::vector<int64_t>{0x39, 0, 0, 0x39}));
      go::GraphOptions float_path;
      float_path.fp_tile_rows = 0;
      EXPECT_EQ(go::run_graph(g, sets[0].inputs, float_path).at("y").ints,
                (std::vector<int64_t>{0x38, 0, 0, 0x39}));
    }
    const weft::OnnxTensor& want = sets[0].outputs.at(0);
    ASSERT_EQ(y.ints.size(), want.ints.size());
    int n = 0, worst = 0, signs = 0;
    for (size_t i = 0; i < y.ints.size(); ++i) {
      ASSERT_FALSE(weft::test::fp8_is_nan(y.ints[i], y.elem_type)) << i;
      const int64_t d = std::llabs(fp8_order(y.ints[i]) - fp8_order(want.ints[i]));
      if (d == 0 && y.ints[i] != want.ints[i]) ++signs;  // +0 against -0
      if (d) ++n, worst = std::max(worst, int(d));
      EXPECT_LE(d, 1) << "element " << i << ": code " << y.ints[i] << ", reference "
                      << want.ints[i];
    }
    std::printf(
        "fp8 group %s on %s: %zu elements, %d differ from the reference (at most %d ulp), "
        "%d are zeros of the other sign\n",
        grp.name.c_str(), GetParam().c_str(), y.ints.size(), n, worst, signs);
    total += int64_t(y.ints.size()), differ += n, zero_sign += signs;
  }
  std::printf(
      "fp8 groups on %s: %lld elements, %lld differ from the reference by one ulp, %lld zeros "
      "differ in sign only\n",
      GetParam().c_str(), (long long)total, (long long)differ, (long long)zero_sign);
}

INSTANTIATE_TEST_SUITE_P(Devices, Fp8Groups, ::testing::ValuesIn(weft::test::test_devices()),
                         [](const auto& info) { return weft::test::device_test_name(info.param); });

// An FP8 group the tensor unit cannot take is refused at load with the reason: the runtime has no
// float MatMul / Conv on the host to fall back on.
TEST(Fp8Groups, FormsTheOutputStageCannotTakeAreRefused) {
  weft::Device dev = weft::Device::open("ref://");
  if (!dev.caps().tensor_fp) GTEST_SKIP() << "ref:// has no FP8 tensor modes";
  auto build = [](const std::string& tail, const std::string& file) {
    Builder b(19);
    b.input("x", kOnnxFloat8E4m3fn, {2, 4});
    b.scalar_f32("s", 0.5f);
    b.codes("w", kOnnxFloat8E4m3fn, {4, 3}, std::vector<int>(12, 0x38));
    b.codes("z", kOnnxFloat8E4m3fn, {}, {0});
    b.node("DequantizeLinear", {"x", "s"}, {"xf"});
    b.node("DequantizeLinear", {"w", "s"}, {"wf"});
    std::string last = b.node("MatMul", {"xf", "wf"}, {"mm"})->output(0);
    if (tail == "clip") last = b.node("Clip", {last}, {"act"})->output(0);
    onnx::NodeProto* q = b.node("QuantizeLinear", {last, "s", "z"}, {"y"});
    if (tail == "saturate0") Builder::attr(q, "saturate", 0);
    b.output("y", kOnnxFloat8E4m3fn);
    return b.save(file);
  };
  const std::pair<const char*, const char*> cases[] = {{"saturate0", "saturate = 0"},
                                                       {"clip", "Clip after an FP8"}};
  for (const auto& [tail, phrase] : cases) {
    weft::Errc code{};
    const std::string msg =
        error_of([&] { weft::Model::load(dev, build(tail, std::string(tail) + ".onnx")); }, &code);
    EXPECT_EQ(code, weft::Errc::kBadModel) << msg;
    EXPECT_NE(msg.find("unsupported: "), std::string::npos) << msg;
    EXPECT_NE(msg.find(phrase), std::string::npos) << msg;
  }
  // The plain group loads as one FP8 step, and int8 activations against float8 weights are
  // refused when they arrive.
  weft::Model model = weft::Model::load(dev, build("", "plain.onnx"));
  EXPECT_NE(model.plan_summary().find("MatMul (FP8 QDQ)"), std::string::npos)
      << model.plan_summary();
}

}  // namespace
