// `weft run` as a user runs it: a model of the test corpus (scripts/onnx_models.py, quantized
// and run by onnxruntime at build time) on sim:// and ref://; its printed / saved output against
// onnxruntime's stored one, --check, --layers, --json; and the errors a user makes, each with exit
// status 2 and a message saying what to fix.
#include <gtest/gtest.h>

#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include "npy.hpp"
#include "weft/onnx_graph.hpp"
#include "weft/tb/process.hpp"

namespace {

namespace fs = std::filesystem;

struct Outcome {
  int code = -1;
  std::string out, err;
};

Outcome weft_run(std::vector<std::string> args) {
  args.insert(args.begin(), {WEFT_EXE, "run"});
  const weft::tb::ProcessResult p = weft::tb::run_process(args, 300, {});
  if (p.timed_out) ADD_FAILURE() << "weft run still running after 300 s";
  return {p.timed_out || p.signal ? -1 : p.exit_code, p.out, p.err};
}

std::string show(const Outcome& r) {
  return "exit " + std::to_string(r.code) + "\n--- stdout\n" + r.out + "--- stderr\n" + r.err;
}

const fs::path kCorpus = WEFT_ONNX_MODEL_DIR;

fs::path scratch() {
  const fs::path d = fs::path(testing::TempDir()) / ("weft_run_" + std::to_string(getpid()) + "_" +
                                                      testing::UnitTest::GetInstance()->current_test_info()->name());
  fs::create_directories(d);
  return d;
}

// The first corpus model of a family that the runtime runs whole on the device and host.
fs::path corpus_case(const std::string& name_part) {
  for (const auto& e : fs::directory_iterator(kCorpus)) {
    const std::string n = e.path().filename().string();
    if (e.is_directory() && n.find(name_part) != std::string::npos) return e.path();
  }
  return {};
}

TEST(CliRun, ConvModelOnSimMatchesOnnxruntimeAndShowsTheBytesIm2colWouldMove) {
  const fs::path c = corpus_case("_conv_relu_qdq_u8u8");
  ASSERT_FALSE(c.empty()) << "no conv_relu u8u8 model in " << kCorpus;
  const fs::path dir = scratch();
  const Outcome r = weft_run({(c / "model.onnx").string(), "--input", (c / "test_data_set_0" / "input_0.pb").string(), "--device", "sim://", "--layers", "--check", "--save", dir.string()});
  ASSERT_EQ(r.code, 0) << show(r);
  EXPECT_NE(r.out.find("bit-exact with the golden executor"), std::string::npos) << show(r);
  EXPECT_NE(r.out.find("tensor unit"), std::string::npos) << show(r);
  EXPECT_NE(r.out.find("im2col B"), std::string::npos) << show(r);
  // The saved integer output equals onnxruntime's (output_1.pb).
  const weft::OnnxGraph g = weft::load_onnx_graph((c / "model.onnx").string());
  const weft::OnnxTensor want = weft::load_onnx_tensor((c / "test_data_set_0" / "output_1.pb").string());
  const weft::npy::Array got = weft::npy::read((dir / (g.outputs[1].name + ".npy")).string());
  ASSERT_EQ(got.elements(), want.ints.size());
  for (size_t i = 0; i < want.ints.size(); ++i) ASSERT_EQ(got.at(i), want.ints[i]) << i;
}

// A bfloat16 model (scripts/onnx_bf16_nodes.py): its bfloat16 output printed as values and saved
// as float32 (.npy has no bfloat16), each the reference's bfloat16 value exactly (one k-tile:
// the tensor unit's sum is the reference's), --check bit-exact.
TEST(CliRun, Bf16OutputIsPrintedAsValuesAndSavedAsFloat32) {
  const fs::path c = fs::path(WEFT_ONNX_BF16_DIR) / "ops" / "matmul_k8_exact";
  const fs::path dir = scratch();
  const Outcome r = weft_run({(c / "model.onnx").string(), "-i", (c / "test_data_set_0" / "input_0.pb").string(), "-d", "ref://", "--check", "--layers", "--save", dir.string(), "--print", "4"});
  ASSERT_EQ(r.code, 0) << show(r);
  EXPECT_NE(r.out.find("output   y: bfloat16 6x24 (144 values)"), std::string::npos) << show(r);
  EXPECT_NE(r.out.find("MatMul (BF16)"), std::string::npos) << show(r);
  EXPECT_NE(r.out.find("bit-exact with the golden executor"), std::string::npos) << show(r);
  const weft::OnnxTensor want = weft::load_onnx_tensor((c / "test_data_set_0" / "output_0.pb").string());
  const weft::npy::Array got = weft::npy::read((dir / "y.npy").string());
  ASSERT_EQ(got.dtype, weft::npy::Dtype::kFloat32);
  ASSERT_EQ(got.elements(), want.ints.size());
  for (size_t i = 0; i < want.ints.size(); ++i) {
    const uint32_t bits = uint32_t(want.ints[i]) << 16;
    float f;
    std::memcpy(&f, &bits, sizeof f);
    ASSERT_EQ(got.at_float(i), f) << i;
  }
  // The first printed value is the first element's.
  char first[32];
  std::snprintf(first, sizeof first, "  [%g, ", double(got.at_float(0)));
  EXPECT_NE(r.out.find(first), std::string::npos) << first << "\n" << show(r);
}

TEST(CliRun, JsonOnRefHasOutputsAndLayers) {
  const fs::path c = corpus_case("_matmul_2d_qdq_u8u8");
  ASSERT_FALSE(c.empty());
  const Outcome r = weft_run({(c / "model.onnx").string(), "-i", (c / "test_data_set_0" / "input_0.pb").string(), "-d", "ref://", "--json", "--check"});
  ASSERT_EQ(r.code, 0) << show(r);
  EXPECT_EQ(r.out.rfind("{\"model\": ", 0), 0u) << show(r);
  EXPECT_NE(r.out.find("\"layers\": [{"), std::string::npos) << show(r);
  EXPECT_NE(r.out.find("\"check\": \"bit-exact\""), std::string::npos) << show(r);
}

TEST(CliRun, NpyInputAndSavedOutputsOnRefMatchOnnxruntime) {
  const fs::path c = corpus_case("_conv_maxpool_qdq_s8s8");
  ASSERT_FALSE(c.empty());
  const fs::path dir = scratch();
  const weft::OnnxTensor x = weft::load_onnx_tensor((c / "test_data_set_0" / "input_0.pb").string());
  std::vector<uint64_t> shape(x.dims.begin(), x.dims.end());
  weft::npy::write((dir / "x.npy").string(), weft::npy::from_float32(x.floats, shape));
  const Outcome r = weft_run({(c / "model.onnx").string(), "--input", (dir / "x.npy").string(), "-d", "ref://", "--save", dir.string(), "--print", "0", "--layers"});
  ASSERT_EQ(r.code, 0) << show(r);
  if (*WEFT_KERNEL_ELF_DIR) {  // the SIMT kernels are built (riscv64-unknown-elf-gcc present)
    EXPECT_NE(r.out.find("SIMT"), std::string::npos) << "the integer MaxPool runs on the SIMT core\n" << show(r);
  }
  const weft::OnnxGraph g = weft::load_onnx_graph((c / "model.onnx").string());
  for (size_t o = 0; o < 2; ++o) {
    const weft::OnnxTensor want = weft::load_onnx_tensor((c / "test_data_set_0" / ("output_" + std::to_string(o) + ".pb")).string());
    const weft::npy::Array got = weft::npy::read((dir / (g.outputs[o].name + ".npy")).string());
    ASSERT_EQ(got.elements(), uint64_t(want.size()));
    for (size_t i = 0; i < got.elements(); ++i) {
      if (want.is_float()) ASSERT_EQ(got.at_float(i), want.floats[i]) << o << " " << i;
      else ASSERT_EQ(got.at(i), want.ints[i]) << o << " " << i;
    }
  }
}

TEST(CliRun, UserErrorsExitTwoWithWhatToFix) {
  const fs::path c = corpus_case("_conv_relu_qdq_u8u8");
  ASSERT_FALSE(c.empty());
  const std::string model = (c / "model.onnx").string(), input = (c / "test_data_set_0" / "input_0.pb").string();
  const fs::path dir = scratch();
  struct Bad {
    std::vector<std::string> args;
    std::string phrase;
  };
  std::ofstream(dir / "not_a_model.onnx") << "hello";
  std::ofstream(dir / "x.txt") << "1 2 3";
  const std::vector<Bad> cases = {
      {{(dir / "missing.onnx").string(), "-i", input, "-d", "ref://"}, "cannot open the file"},
      {{(dir / "not_a_model.onnx").string(), "-i", input, "-d", "ref://"}, "not an ONNX model"},
      {{model, "-i", (dir / "nope.pb").string(), "-d", "ref://"}, "no such file"},
      {{model, "-i", (dir / "x.txt").string(), "-d", "ref://"}, "give a .npy"},
      {{model, "-i", "wrong_name=" + input, "-d", "ref://"}, "has no input 'wrong_name'"},
      {{model, "-i", (c / "test_data_set_0" / "output_1.pb").string(), "-d", "ref://"}, "holds uint8"},
      {{model, "-i", input, "-d", "nosuch://"}, "nosuch"},
  };
  for (const Bad& b : cases) {
    const Outcome r = weft_run(b.args);
    EXPECT_EQ(r.code, 2) << show(r);
    EXPECT_NE(r.err.find(b.phrase), std::string::npos) << "expected '" << b.phrase << "'\n" << show(r);
  }
}

}  // namespace
