// The ONNX project's node tests (Debian libonnx-testdata) through the model runtime, on ref:// and
// sim:// (docs/model-runtime.md, "Node tests"). Every node test whose operators are all among the
// ones the runtime claims (plus the float Conv / MatMul / Gemm, which it refuses: it runs
// quantized networks) is tried: each ends as pass, unsupported (the runtime refused it at load or
// run with BAD_MODEL "unsupported: ..."), or fail (anything else: a wrong value, another error).
// The test fails on any "fail"; the table of all of them is printed, and written as markdown to
// $WEFT_NODE_TABLE when that is set. The float8 node tests that scripts/onnx_fp8_nodes.py writes
// at build time (Debian's set has none) must all pass, and so must the bfloat16 ones of
// scripts/onnx_bf16_nodes.py.
#include <gtest/gtest.h>

#include <cstdio>
#include <cstdlib>
#include <fstream>

#include "node_tests.hpp"
#include "weft/model.hpp"
#include "weft/weft.hpp"

namespace {

namespace fs = std::filesystem;
using weft::test::compare;

const std::set<std::string> kTriedOps = {
    "QLinearConv", "QLinearMatMul", "ConvInteger", "MatMulInteger", "QuantizeLinear",
    "DequantizeLinear", "MaxPool", "AveragePool", "GlobalAveragePool", "Relu", "Clip", "Softmax",
    "Reshape", "Flatten", "Transpose", "Concat", "Pad", "Add", "Identity", "Squeeze", "Unsqueeze",
    "Cast",
    // Tried to show they are refused with a reason (float operators).
    "Conv", "MatMul", "Gemm"};

struct Outcome {
  std::string name, result, detail;
};

Outcome run_one(weft::Device& dev, const fs::path& dir, bool exact_floats = false) {
  Outcome o{dir.filename().string(), "pass", ""};
  try {
    weft::Model model = weft::Model::load(dev, (dir / "model.onnx").string());
    const weft::OnnxGraph g = weft::load_onnx_graph((dir / "model.onnx").string());
    const auto sets = weft::test::data_sets(dir, g);
    if (sets.empty()) return {o.name, "FAIL", "no test data set"};
    for (const auto& s : sets) {
      const auto out = model.run(s.inputs);
      for (size_t i = 0; i < s.outputs.size() && i < model.outputs().size(); ++i) {
        const weft::OnnxTensor& got = out.at(model.outputs()[i].name);
        const std::string diff = compare(got, s.outputs[i], exact_floats);
        if (!diff.empty() && weft::test::truncating_bf16_cast_test(o.name)) {
          // ONNX 1.12's data truncate; the runtime rounds to nearest even (node_tests.hpp).
          int differ = 0;
          const std::string why = weft::test::check_truncating_bf16_cast(
              s.inputs.at(model.inputs().at(0).name), got, s.outputs[i], &differ);
          if (!why.empty()) return {o.name, "FAIL", "output " + std::to_string(i) + ": " + why};
          o = {o.name, "known difference",
               "rounds to nearest even (the current reference); ONNX 1.12's data truncate: " +
                   std::to_string(differ) + " of " + std::to_string(got.ints.size()) +
                   " elements differ, each by that"};
          continue;
        }
        if (!diff.empty()) return {o.name, "FAIL", "output " + std::to_string(i) + ": " + diff};
      }
    }
  } catch (const weft::Error& e) {
    const std::string msg = e.what();
    // ONNX 1.12's CastLike expansions give their unused 'like' input 1 element where the model
    // declares 3 x 4: the runtime checks declared input shapes and says so.
    if (o.name.rfind("test_castlike_", 0) == 0 && e.code() == weft::Errc::kBadArgument &&
        msg.find("input 'like' has shape 1, the model declares 3x4") != std::string::npos) {
      return {o.name, "known difference",
              "the test data's 'like' is 1 element, the model declares 3x4 (BAD_ARGUMENT)"};
    }
    const size_t u = msg.find("unsupported: ");
    if (e.code() == weft::Errc::kBadModel && u != std::string::npos) {
      return {o.name, "unsupported", msg.substr(u + 13)};
    }
    return {o.name, "FAIL", msg};
  }
  return o;
}

class NodeTests : public ::testing::TestWithParam<std::string> {};

TEST_P(NodeTests, EveryClaimedNodeTestPassesOrIsRefusedWithAReason) {
  const fs::path root = WEFT_ONNX_NODE_DIR;
  if (!fs::is_directory(root)) GTEST_SKIP() << "no ONNX node tests at " << root << " (apt-get install libonnx-testdata)";
  weft::Device dev = weft::Device::open(GetParam());
  std::vector<Outcome> all;
  for (const fs::path& dir : weft::test::sorted_dirs(root, "test_")) {
    const auto ops = weft::test::ops_of(dir / "model.onnx");
    if (ops.empty()) continue;
    if (!std::all_of(ops.begin(), ops.end(), [](const std::string& op) { return kTriedOps.count(op) > 0; })) continue;
    all.push_back(run_one(dev, dir));
  }
  int pass = 0, unsupported = 0, fail = 0, known = 0;
  std::string table = "| node test | result |\n|---|---|\n";
  for (const auto& o : all) {
    std::printf("node-test %s: %s%s%s\n", o.name.c_str(), o.result.c_str(), o.detail.empty() ? "" : ": ", o.detail.c_str());
    (o.result == "pass"               ? pass
     : o.result == "unsupported"      ? unsupported
     : o.result == "known difference" ? known
                                      : fail)++;
    table += "| `" + o.name + "` | " + o.result + (o.detail.empty() ? "" : ": " + o.detail) + " |\n";
    EXPECT_NE(o.result, "FAIL") << o.name << ": " << o.detail;
  }
  std::printf(
      "node tests on %s: %zu tried, %d pass, %d unsupported, %d known differences, %d fail\n",
      GetParam().c_str(), all.size(), pass, unsupported, known, fail);
  if (const char* path = std::getenv("WEFT_NODE_TABLE")) std::ofstream(path) << table;
  EXPECT_GT(pass, 30) << "fewer node tests pass than the runtime claims";
}

// Every test of a generated node-test set (`kind`: "fp8", "bf16") under `root` passes on `uri`,
// bit for bit (NaN as NaN); `expected` tests were written (`script` writes them).
void every_generated_test_passes(const std::string& uri, const fs::path& root, const char* kind,
                                 const char* script, int expected) {
  ASSERT_TRUE(fs::exists(root / "index.txt"))
      << root << " missing: build it (" << script << ", make setup)";
  weft::Device dev = weft::Device::open(uri);
  int pass = 0, tried = 0;
  for (const fs::path& dir : weft::test::sorted_dirs(root, "test_")) {
    const Outcome o = run_one(dev, dir, true);
    ++tried;
    pass += o.result == "pass";
    std::printf("%s node-test %s: %s%s%s\n", kind, o.name.c_str(), o.result.c_str(),
                o.detail.empty() ? "" : ": ", o.detail.c_str());
    EXPECT_EQ(o.result, "pass") << o.name << ": " << o.detail;
  }
  std::printf("%s node tests on %s: %d tried, %d pass\n", kind, uri.c_str(), tried, pass);
  EXPECT_EQ(tried, expected) << script << " writes " << expected << " tests";
}

// The float8 node tests (scripts/onnx_fp8_nodes.py: QuantizeLinear / DequantizeLinear with
// FLOAT8E4M3FN / FLOAT8E5M2, expected outputs from onnx's ReferenceEvaluator).
TEST_P(NodeTests, EveryFloat8NodeTestPasses) {
  every_generated_test_passes(GetParam(), WEFT_ONNX_FP8_DIR, "fp8", "scripts/onnx_fp8_nodes.py",
                              30);
}

// The bfloat16 node tests (scripts/onnx_bf16_nodes.py: Cast float <-> bfloat16, Relu and Add on
// bfloat16, data movement of bfloat16 codes; expected outputs from onnx's ReferenceEvaluator).
TEST_P(NodeTests, EveryBf16NodeTestPasses) {
  every_generated_test_passes(GetParam(), WEFT_ONNX_BF16_DIR, "bf16", "scripts/onnx_bf16_nodes.py",
                              8);
}

INSTANTIATE_TEST_SUITE_P(Devices, NodeTests, ::testing::ValuesIn(weft::test::test_devices()),
                         [](const auto& info) { return weft::test::device_test_name(info.param); });

}  // namespace
