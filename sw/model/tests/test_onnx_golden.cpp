// The golden ONNX operators (weft/golden/onnx_ops.hpp) against the ONNX project's node tests
// (Debian's libonnx-testdata): each test's model gives the operator and its attributes, its
// test_data_set_*/input_<i>.pb the operands, and output_0.pb the expected result, which must match
// bit for bit. The expectation is the ONNX project's, not ours.
#include <gtest/gtest.h>

#include <filesystem>
#include <string>
#include <vector>

#include "weft/golden/onnx_ops.hpp"
#include "weft/onnx_graph.hpp"

namespace {

namespace fs = std::filesystem;
namespace go = weft::golden::onnx;

const fs::path kNodeDir = WEFT_ONNX_NODE_DIR;
constexpr int32_t kUint8 = 2, kInt8 = 3;

go::IntTensor ints(const weft::OnnxTensor& t) {
  return {t.dims, std::vector<int32_t>(t.ints.begin(), t.ints.end())};
}
go::FloatTensor floats(const weft::OnnxTensor& t) { return {t.dims, t.floats}; }
std::vector<int32_t> ivec(const weft::OnnxTensor& t) { return ints(t).data; }
go::QType qtype(int32_t elem) { return elem == kInt8 ? go::QType::kInt8 : go::QType::kUint8; }

struct Case {
  weft::OnnxNode node;
  std::vector<weft::OnnxTensor> in;
  weft::OnnxTensor out;
};

// Every data set of node test `dir`.
std::vector<Case> cases(const std::string& dir) {
  const weft::OnnxGraph g = weft::load_onnx_graph((kNodeDir / dir / "model.onnx").string());
  EXPECT_EQ(g.nodes.size(), 1u);
  std::vector<Case> out;
  for (int s = 0; fs::is_directory(kNodeDir / dir / ("test_data_set_" + std::to_string(s))); ++s) {
    const fs::path set = kNodeDir / dir / ("test_data_set_" + std::to_string(s));
    Case c{g.nodes.at(0), {}, weft::load_onnx_tensor((set / "output_0.pb").string())};
    for (int i = 0; fs::exists(set / ("input_" + std::to_string(i) + ".pb")); ++i) {
      c.in.push_back(weft::load_onnx_tensor((set / ("input_" + std::to_string(i) + ".pb")).string()));
    }
    out.push_back(std::move(c));
  }
  EXPECT_FALSE(out.empty()) << dir;
  return out;
}

void expect_ints(const go::IntTensor& got, const weft::OnnxTensor& want) {
  EXPECT_EQ(got.dims, want.dims);
  ASSERT_EQ(got.data.size(), want.ints.size());
  for (size_t i = 0; i < got.data.size(); ++i) ASSERT_EQ(got.data[i], want.ints[i]) << "element " << i;
}

int axis_of(const weft::OnnxNode& n) {
  auto it = n.int_attrs.find("axis");
  return it == n.int_attrs.end() ? 1 : static_cast<int>(it->second);
}

go::Conv2dGeometry geometry(const weft::OnnxNode& n) {
  go::Conv2dGeometry g;
  auto ints = [&](const char* k) {
    auto it = n.ints_attrs.find(k);
    return it == n.ints_attrs.end() ? std::vector<int64_t>{} : it->second;
  };
  if (auto s = ints("strides"); s.size() == 2) g.stride_h = s[0], g.stride_w = s[1];
  if (auto d = ints("dilations"); d.size() == 2) g.dilation_h = d[0], g.dilation_w = d[1];
  // ONNX pads: {x1_begin, x2_begin, x1_end, x2_end}.
  if (auto p = ints("pads"); p.size() == 4) g.pad_top = p[0], g.pad_left = p[1], g.pad_bottom = p[2], g.pad_right = p[3];
  auto it = n.int_attrs.find("group");
  EXPECT_TRUE(it == n.int_attrs.end() || it->second == 1) << "group " << it->second;
  EXPECT_EQ(n.int_attrs.count("auto_pad"), 0u);
  return g;
}

class OnnxNodeTest : public testing::TestWithParam<const char*> {};

TEST_P(OnnxNodeTest, GoldenMatchesTheExpectedOutputBitExact) {
  ASSERT_TRUE(fs::is_directory(kNodeDir)) << kNodeDir << " missing: scripts/setup.sh installs libonnx-testdata";
  for (const Case& c : cases(GetParam())) {
    const std::string& op = c.node.op_type;
    if (op == "QuantizeLinear") {
      const std::vector<int32_t> zp = c.in.size() > 2 ? ivec(c.in[2]) : std::vector<int32_t>{};
      const go::QType t = c.in.size() > 2 ? qtype(c.in[2].elem_type) : go::QType::kUint8;
      EXPECT_EQ(c.out.elem_type, c.in.size() > 2 ? c.in[2].elem_type : kUint8);
      expect_ints(go::quantize_linear(floats(c.in[0]), c.in[1].floats, zp, t, axis_of(c.node)), c.out);
    } else if (op == "DequantizeLinear") {
      const std::vector<int32_t> zp = c.in.size() > 2 ? ivec(c.in[2]) : std::vector<int32_t>{};
      const go::FloatTensor y = go::dequantize_linear(ints(c.in[0]), c.in[1].floats, zp, axis_of(c.node));
      EXPECT_EQ(y.dims, c.out.dims);
      ASSERT_EQ(y.data.size(), c.out.floats.size());
      for (size_t i = 0; i < y.data.size(); ++i) EXPECT_EQ(y.data[i], c.out.floats[i]) << i;
    } else if (op == "MatMulInteger") {
      const int32_t azp = c.in.size() > 2 ? ivec(c.in[2]).at(0) : 0;
      const int32_t bzp = c.in.size() > 3 ? ivec(c.in[3]).at(0) : 0;
      expect_ints(go::matmul_integer(ints(c.in[0]), ints(c.in[1]), azp, bzp), c.out);
    } else if (op == "QLinearMatMul") {
      ASSERT_EQ(c.in.size(), 8u);
      expect_ints(go::qlinear_matmul(ints(c.in[0]), c.in[1].floats.at(0), ivec(c.in[2]).at(0),
                                     ints(c.in[3]), c.in[4].floats.at(0), ivec(c.in[5]).at(0),
                                     c.in[6].floats.at(0), ivec(c.in[7]).at(0), qtype(c.in[7].elem_type)),
                  c.out);
    } else if (op == "ConvInteger") {
      const int32_t xzp = c.in.size() > 2 ? ivec(c.in[2]).at(0) : 0;
      const std::vector<int32_t> wzp = c.in.size() > 3 ? ivec(c.in[3]) : std::vector<int32_t>{};
      expect_ints(go::conv_integer(ints(c.in[0]), ints(c.in[1]), xzp, wzp, geometry(c.node)), c.out);
    } else if (op == "QLinearConv") {
      ASSERT_GE(c.in.size(), 8u);
      const std::vector<int32_t> bias = c.in.size() > 8 ? ivec(c.in[8]) : std::vector<int32_t>{};
      expect_ints(go::qlinear_conv(ints(c.in[0]), c.in[1].floats.at(0), ivec(c.in[2]).at(0),
                                   ints(c.in[3]), c.in[4].floats, ivec(c.in[5]), c.in[6].floats.at(0),
                                   ivec(c.in[7]).at(0), qtype(c.in[7].elem_type), bias,
                                   geometry(c.node)),
                  c.out);
    } else {
      FAIL() << GetParam() << ": no golden operator for " << op;
    }
  }
}

INSTANTIATE_TEST_SUITE_P(Node, OnnxNodeTest,
                         testing::Values("test_quantizelinear", "test_quantizelinear_axis",
                                         "test_dequantizelinear", "test_dequantizelinear_axis",
                                         "test_matmulinteger", "test_qlinearmatmul_2D",
                                         "test_qlinearmatmul_3D", "test_qlinearconv",
                                         "test_basic_convinteger", "test_convinteger_with_padding",
                                         "test_convinteger_without_padding"),
                         [](const testing::TestParamInfo<const char*>& i) {
                           return std::string(i.param).substr(5);  // without "test_"
                         });

}  // namespace
