// Tests of load_onnx_graph (weft/onnx_graph.hpp) on the ONNX project's own node-test models
// (Debian's libonnx-testdata, WEFT_ONNX_NODE_DIR), and on damaged copies of them: every damaged
// file either loads as a consistent graph or is refused with BAD_MODEL naming the file; none
// crashes. The expectation for the intact models is the node test's name (test_qlinearconv holds
// one QLinearConv node) and the ONNX rule that a node reads only values defined before it.
#include <gtest/gtest.h>
#include <onnx/onnx_pb.h>

#include <cstdio>
#include <filesystem>
#include <fstream>
#include <random>
#include <set>
#include <string>
#include <vector>

#include "weft/error.hpp"
#include "weft/onnx_graph.hpp"
#include "weft/tb/options.hpp"

namespace {

namespace fs = std::filesystem;

const fs::path kNodeDir = WEFT_ONNX_NODE_DIR;

struct NodeCase {
  const char* dir;
  const char* op;
};
const NodeCase kCases[] = {
    {"test_qlinearmatmul_2D", "QLinearMatMul"},   {"test_qlinearmatmul_3D", "QLinearMatMul"},
    {"test_qlinearconv", "QLinearConv"},          {"test_matmulinteger", "MatMulInteger"},
    {"test_basic_convinteger", "ConvInteger"},    {"test_convinteger_with_padding", "ConvInteger"},
    {"test_quantizelinear", "QuantizeLinear"},    {"test_quantizelinear_axis", "QuantizeLinear"},
    {"test_dequantizelinear", "DequantizeLinear"}, {"test_dequantizelinear_axis", "DequantizeLinear"},
};

std::string model_path(const char* dir) { return (kNodeDir / dir / "model.onnx").string(); }

std::string read_file(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  return {std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
}

void write_file(const std::string& path, const std::string& bytes) {
  std::ofstream(path, std::ios::binary).write(bytes.data(), static_cast<std::streamsize>(bytes.size()));
}

// A loaded graph obeys the rules load_onnx_graph promises: every non-empty node input is defined
// before the node, every output is defined.
void expect_consistent(const weft::OnnxGraph& g) {
  std::set<std::string> known;
  for (const auto& v : g.initializers) known.insert(v.name);
  for (const auto& v : g.inputs) known.insert(v.name);
  for (const auto& n : g.nodes) {
    EXPECT_FALSE(n.op_type.empty());
    for (const auto& x : n.inputs) EXPECT_TRUE(x.empty() || known.count(x)) << n.name << " reads " << x;
    for (const auto& y : n.outputs) known.insert(y);
  }
  for (const auto& v : g.outputs) EXPECT_TRUE(known.count(v.name)) << v.name;
  EXPECT_GT(g.opset, 0);
}

TEST(OnnxGraph, NodeTestModelsLoadWithTheirOperator) {
  ASSERT_TRUE(fs::is_directory(kNodeDir)) << kNodeDir << " missing: scripts/setup.sh installs libonnx-testdata";
  for (const NodeCase& c : kCases) {
    SCOPED_TRACE(c.dir);
    const weft::OnnxGraph g = weft::load_onnx_graph(model_path(c.dir));
    ASSERT_EQ(g.nodes.size(), 1u);
    EXPECT_EQ(g.nodes[0].op_type, c.op);
    EXPECT_EQ(g.nodes[0].domain, "");
    EXPECT_EQ(g.path, model_path(c.dir));
    ASSERT_EQ(g.outputs.size(), 1u);
    EXPECT_EQ(g.outputs[0].name, g.nodes[0].outputs[0]);
    // Every input of the node test is fed by a test_data_set input_<i>.pb: the graph inputs.
    size_t pb = 0;
    while (fs::exists(kNodeDir / c.dir / "test_data_set_0" / ("input_" + std::to_string(pb) + ".pb"))) ++pb;
    EXPECT_EQ(g.inputs.size() + g.initializers.size(), pb);
    expect_consistent(g);
  }
}

void expect_bad_model(const std::string& path, const std::string& phrase) {
  try {
    weft::load_onnx_graph(path);
    ADD_FAILURE() << path << " loaded";
  } catch (const weft::Error& e) {
    EXPECT_EQ(e.code(), weft::Errc::kBadModel);
    EXPECT_EQ(e.name(), "BAD_MODEL");
    const std::string msg = e.what();
    EXPECT_NE(msg.find(path), std::string::npos) << msg;
    EXPECT_NE(msg.find(phrase), std::string::npos) << msg;
  }
}

TEST(OnnxGraph, MissingEmptyAndForeignFilesAreRefusedByName) {
  const std::string dir = testing::TempDir();
  expect_bad_model(dir + "/no_such_model.onnx", "cannot open");
  write_file(dir + "/empty.onnx", "");
  expect_bad_model(dir + "/empty.onnx", "empty");
  write_file(dir + "/text.onnx", "ir_version: 8\ngraph { node { op_type: \"Relu\" } }\n");
  expect_bad_model(dir + "/text.onnx", "not an ONNX model");
}

TEST(OnnxGraph, ANodeReadingAnUndefinedValueIsNamed) {
  // QLinearMatMul's model with its first graph input renamed: the node now reads a value that
  // nothing provides (as when an initializer is missing).
  onnx::ModelProto m;
  ASSERT_TRUE(m.ParseFromString(read_file(model_path("test_qlinearmatmul_2D"))));
  const std::string name = m.graph().input(0).name();
  m.mutable_graph()->mutable_input(0)->set_name(name + "_renamed");
  const std::string path = testing::TempDir() + "/undefined_input.onnx";
  write_file(path, m.SerializeAsString());
  expect_bad_model(path, "reads '" + name + "'");
  expect_bad_model(path, "(QLinearMatMul)");
}

// Truncations at many lengths and random byte damage: either a consistent graph or BAD_MODEL.
TEST(OnnxGraph, DamagedCopiesNeverCrash) {
  std::mt19937_64 rng = weft::tb::make_rng();  // seed printed; WEFT_SEED / --seed=N repeats it
  const std::string path = testing::TempDir() + "/damaged.onnx";
  int tried = 0, loaded = 0, refused = 0;
  auto attempt = [&](const std::string& bytes) {
    write_file(path, bytes);
    ++tried;
    try {
      expect_consistent(weft::load_onnx_graph(path));
      ++loaded;
    } catch (const weft::Error& e) {
      EXPECT_EQ(e.code(), weft::Errc::kBadModel) << e.what();
      ++refused;
    }
  };
  for (const NodeCase& c : kCases) {
    const std::string bytes = read_file(model_path(c.dir));
    ASSERT_FALSE(bytes.empty()) << c.dir;
    for (size_t len = 0; len < bytes.size(); len += 1 + bytes.size() / 20) attempt(bytes.substr(0, len));
    for (int m = 0; m < 30; ++m) {
      std::string b = bytes;
      const int flips = 1 + static_cast<int>(rng() % 4);
      for (int f = 0; f < flips; ++f) b[rng() % b.size()] = static_cast<char>(rng());
      attempt(b);
    }
  }
  std::printf("%d damaged files: %d loaded consistent, %d refused with BAD_MODEL\n", tried, loaded, refused);
  EXPECT_GE(tried, 300);
  EXPECT_GT(refused, 0);
}

}  // namespace
