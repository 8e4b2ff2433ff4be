// Golden ONNX mode against onnxruntime itself. scripts/onnx_vectors.py runs small ONNX graphs in
// onnxruntime at build time and writes what it computed to ${WEFT_VECTOR_DIR}/onnx/ (the file
// format is documented at the top of that script). Every value is compared; a missing or malformed
// file is a failure, not a skip.
//   Part A (requant_values.txt): Cast(int32->float) -> Mul(scale) -> QuantizeLinear(1.0, zp),
//     against postprocess(x, {bias 0, scale}, {kOnnx, zp, output type range}).
//   Part B (qlinearmatmul.txt): QLinearMatMul, against gemm + onnx_output_scale + postprocess.
#include <gtest/gtest.h>

#include <cstdint>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "weft/golden/quant.hpp"
#include "weft/tb/options.hpp"

namespace g = weft::golden;

namespace {

std::string vector_file(const char* name) { return weft::tb::vector_dir() + "/onnx/" + name; }

constexpr const char* kHowToMake =
    "(built by the CMake target golden_onnx_vectors, or: python3 scripts/onnx_vectors.py "
    "--out-dir <WEFT_VECTOR_DIR>/onnx)";

float float_from_hex(const std::string& hex) {
  const uint32_t bits = static_cast<uint32_t>(std::stoul(hex, nullptr, 16));
  float f;
  std::memcpy(&f, &bits, sizeof f);
  return f;
}

g::OutputParams onnx_output(int32_t zp, bool is_signed) {
  g::OutputParams o;
  o.mode = g::RequantMode::kOnnx;
  o.zero_point = zp;
  o.act_min = is_signed ? -128 : 0;
  o.act_max = is_signed ? 127 : 255;
  return o;
}

// The payload of a line "<tag> v v v ...", checked to have `count` values.
std::vector<int32_t> tagged_values(std::ifstream& in, const char* tag, size_t count, int* line_no) {
  std::string line;
  if (!std::getline(in, line)) throw std::runtime_error(std::string("missing '") + tag + "' line");
  ++*line_no;
  std::istringstream ss(line);
  std::string t;
  ss >> t;
  if (t != tag) throw std::runtime_error(std::string("expected '") + tag + "', got '" + t + "'");
  std::vector<int32_t> v;
  long long x;
  while (ss >> x) v.push_back(static_cast<int32_t>(x));
  if (v.size() != count) {
    throw std::runtime_error(std::string("'") + tag + "' has " + std::to_string(v.size()) +
                             " values, expected " + std::to_string(count));
  }
  return v;
}

}  // namespace

TEST(GoldenOnnxRuntime, RequantMatchesOnnxruntimeOnEveryValue) {
  const std::string path = vector_file("requant_values.txt");
  std::ifstream in(path);
  ASSERT_TRUE(in.good()) << "cannot open " << path << " " << kHowToMake;
  std::string line;
  int line_no = 0;
  size_t compared = 0, mismatches = 0, saturated = 0;
  while (std::getline(in, line)) {
    ++line_no;
    if (line.empty() || line[0] == '#') continue;
    std::istringstream ss(line);
    long long x = 0;
    std::string scale_hex;
    int zp = 0, is_signed = 0, result = 0;
    ASSERT_TRUE(ss >> x >> scale_hex >> zp >> is_signed >> result)
        << path << ":" << line_no << ": malformed line '" << line << "'";
    const float scale = float_from_hex(scale_hex);
    g::ChannelParams ch;
    ch.scale = scale;
    const auto o = onnx_output(zp, is_signed != 0);
    const int32_t got = g::postprocess(static_cast<int32_t>(x), ch, o);
    ++compared;
    saturated += (result == o.act_min || result == o.act_max);
    if (got != result) {
      ++mismatches;
      if (mismatches <= 20) {
        ADD_FAILURE() << path << ":" << line_no << ": x=" << x << " scale=0x" << scale_hex << " ("
                      << scale << ") zp=" << zp << (is_signed ? " int8" : " uint8")
                      << ": onnxruntime " << result << ", golden " << got;
      }
    }
  }
  std::printf(
      "[onnxruntime] compared %zu requantized values with onnxruntime (%zu at the type "
      "bounds), %zu mismatches\n",
      compared, saturated, mismatches);
  RecordProperty("compared", static_cast<int>(compared));
  EXPECT_EQ(mismatches, 0u);
  EXPECT_GE(compared, 20000u) << path << " holds too few values";
}

TEST(GoldenOnnxRuntime, QLinearMatMulMatchesOnnxruntimeOnEveryOutput) {
  const std::string path = vector_file("qlinearmatmul.txt");
  std::ifstream in(path);
  ASSERT_TRUE(in.good()) << "cannot open " << path << " " << kHowToMake;
  std::string line;
  int line_no = 0;
  size_t cases = 0, compared = 0, mismatches = 0;
  try {
    while (std::getline(in, line)) {
      ++line_no;
      if (line.empty() || line[0] == '#') continue;
      std::istringstream ss(line);
      std::string tag, as_hex, ws_hex, ys_hex;
      int m = 0, k = 0, n = 0, a_signed = 0, w_signed = 0, y_signed = 0, za = 0, zw = 0, zy = 0;
      ASSERT_TRUE(ss >> tag >> m >> k >> n >> a_signed >> w_signed >> y_signed >> as_hex >> za >>
                      ws_hex >> zw >> ys_hex >> zy &&
                  tag == "case")
          << path << ":" << line_no << ": malformed case line '" << line << "'";
      const int case_line = line_no;
      const auto a = tagged_values(in, "a", size_t(m) * k, &line_no);
      const auto w = tagged_values(in, "w", size_t(k) * n, &line_no);
      const auto y = tagged_values(in, "y", size_t(m) * n, &line_no);

      const auto acc = g::gemm(a, w, m, k, n, {a_signed != 0, za}, {w_signed != 0, zw});
      g::ChannelParams ch;
      ch.scale = g::onnx_output_scale(float_from_hex(as_hex), float_from_hex(ws_hex),
                                      float_from_hex(ys_hex));
      const std::vector<g::ChannelParams> chs(static_cast<size_t>(n), ch);
      const auto got = g::postprocess(acc, m, n, chs, onnx_output(zy, y_signed != 0));
      ++cases;
      for (size_t i = 0; i < got.size(); ++i) {
        ++compared;
        if (got[i] != y[i]) {
          ++mismatches;
          if (mismatches <= 20) {
            ADD_FAILURE() << path << ":" << case_line << ": case " << m << "x" << k << "x" << n
                          << " output " << i << " (acc " << acc[i] << ", scale " << ch.scale
                          << "): onnxruntime " << y[i] << ", golden " << got[i];
          }
        }
      }
    }
  } catch (const std::exception& e) {
    FAIL() << path << ":" << line_no << ": " << e.what();
  }
  std::printf(
      "[onnxruntime] compared %zu QLinearMatMul outputs (%zu cases) with onnxruntime, "
      "%zu mismatches\n",
      compared, cases, mismatches);
  RecordProperty("compared", static_cast<int>(compared));
  EXPECT_EQ(mismatches, 0u);
  EXPECT_GE(cases, 100u) << path << " holds too few cases";
}
