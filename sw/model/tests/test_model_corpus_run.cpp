// The test model corpus (scripts/onnx_models.py: random networks quantized and run by
// onnxruntime at build time) through the model runtime, on ref:// (every model) and sim:// (every
// eighth), compared bit for bit with onnxruntime and with the golden graph executor
// (docs/model-runtime.md, "Random models").
//
// Every model the runtime accepts must equal the golden executor exactly. Against onnxruntime:
// - models whose every op onnxruntime runs with exact integer kernels ("ort_exact", no float
//   rounding or float accumulation recorded) must match exactly;
// - models where onnxruntime ran some op in float (its QLinearAdd / QLinearAveragePool /
//   QLinearGlobalAveragePool / QLinearSoftmax / QLinearConcat kernels, or a Conv it left unfused)
//   may differ by 1 in a few elements: the count is printed, a larger difference fails;
// - the u8 x s8 full-range models are exact on a CPU with VNNI and may differ on one without
//   (onnxruntime's int16 pair saturation, docs); the count is printed.
// Models with operators the runtime refuses (QOperator files with com.microsoft ops) count as
// unsupported, with the reason.
#include <gtest/gtest.h>

#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <random>
#include <typeinfo>
#include <unistd.h>

#include "weft/tb/options.hpp"

#include "node_tests.hpp"
#include "weft/golden/onnx_exec.hpp"
#include "weft/model.hpp"
#include "weft/weft.hpp"

namespace {

namespace fs = std::filesystem;

struct Case {
  std::string name, format, family;
  bool ort_exact = false, float_rounding = false, float_accum = false;
};

std::vector<Case> read_index(const fs::path& dir) {
  std::vector<Case> v;
  std::ifstream in(dir / "index.txt");
  std::string line;
  while (std::getline(in, line)) {
    if (line.empty() || line[0] == '#') continue;
    std::istringstream ls(line);
    Case c;
    int e = 0, fr = 0, fa = 0;
    ls >> c.name >> e >> c.format >> c.family >> fr >> fa;
    c.ort_exact = e, c.float_rounding = fr, c.float_accum = fa;
    v.push_back(c);
  }
  return v;
}

// Elements that differ, and the largest difference.
int64_t differences(const weft::OnnxTensor& a, const weft::OnnxTensor& b, int64_t* max_diff) {
  *max_diff = 0;
  if (a.dims != b.dims || a.ints.size() != b.ints.size()) {
    *max_diff = 1 << 30;
    return 1;
  }
  int64_t n = 0;
  for (size_t i = 0; i < a.ints.size(); ++i) {
    const int64_t d = std::llabs(a.ints[i] - b.ints[i]);
    if (d) ++n, *max_diff = std::max(*max_diff, d);
  }
  return n;
}

class Corpus : public ::testing::TestWithParam<std::string> {};

TEST_P(Corpus, EveryModelMatchesOnnxruntimeAndTheGoldenExecutor) {
  const fs::path dir = WEFT_ONNX_MODEL_DIR;
  ASSERT_TRUE(fs::exists(dir / "index.txt")) << dir << "/index.txt missing: build the target weft_onnx_models (make setup)";
  const std::vector<Case> cases = read_index(dir);
  ASSERT_GE(cases.size(), 300u);
  const bool sim = GetParam().rfind("sim", 0) == 0;
  weft::Device dev = weft::Device::open(GetParam());
  int tried = 0, unsupported = 0, exact_vs_ort = 0, float_op_models = 0, float_op_elements = 0;
  int u8s8 = 0, u8s8_differing = 0, golden_exact = 0;
  std::map<std::string, int> unsupported_why;
  for (size_t i = 0; i < cases.size(); ++i) {
    if (sim && i % 8) continue;
    const Case& c = cases[i];
    SCOPED_TRACE(c.name);
    const fs::path model_path = dir / c.name / "model.onnx";
    ++tried;
    try {
      weft::Model model = weft::Model::load(dev, model_path.string());
      const weft::OnnxGraph g = weft::load_onnx_graph(model_path.string());
      const auto sets = weft::test::data_sets(dir / c.name, g);
      ASSERT_EQ(sets.size(), 1u);
      const auto out = model.run(sets[0].inputs);
      // The golden executor: every output equal.
      const auto want = weft::golden::onnx::run_graph(g, sets[0].inputs);
      bool golden_ok = true;
      for (const auto& [name, t] : out) {
        const std::string diff = weft::test::compare(t, want.at(name));
        const bool exact = t.is_float() ? t.floats == want.at(name).floats : diff.empty();
        EXPECT_TRUE(exact) << "runtime vs golden, output " << name << ": " << diff;
        golden_ok = golden_ok && exact;
      }
      golden_exact += golden_ok;
      // onnxruntime: the integer output (output 1).
      ASSERT_EQ(sets[0].outputs.size(), 2u);
      int64_t max_diff = 0;
      const int64_t n = differences(out.at(g.outputs[1].name), sets[0].outputs[1], &max_diff);
      if (!c.ort_exact) {
        ++u8s8;
        u8s8_differing += n > 0;
        if (n) std::printf("%s: %lld elements differ from onnxruntime (u8 x s8; max %lld)\n", c.name.c_str(), (long long)n, (long long)max_diff);
      } else if (c.float_rounding || c.float_accum) {
        if (n) {
          ++float_op_models, float_op_elements += int(n);
          std::printf("%s: %lld elements differ from onnxruntime by at most %lld (onnxruntime ran %s in float)\n", c.name.c_str(), (long long)n, (long long)max_diff,
                      c.float_accum ? "a Conv" : "a QLinear contrib kernel");
        } else {
          ++exact_vs_ort;
        }
        EXPECT_LE(max_diff, 1) << "more than a float rounding apart from onnxruntime";
      } else {
        EXPECT_EQ(n, 0) << "differs from onnxruntime in " << n << " elements (max " << max_diff << ")";
        exact_vs_ort += n == 0;
      }
    } catch (const weft::Error& e) {
      const std::string msg = e.what();
      const size_t u = msg.find("unsupported: ");
      ASSERT_TRUE(e.code() == weft::Errc::kBadModel && u != std::string::npos) << msg;
      ++unsupported;
      unsupported_why[msg.substr(u + 13, 60)]++;
    }
  }
  std::printf("corpus on %s: %d models tried, %d unsupported, %d equal to the golden executor, %d bit-exact with onnxruntime, "
              "%d differ from onnxruntime's float-rounding kernels (%d elements, each by 1), %d u8 x s8 models (%d differ from onnxruntime)\n",
              GetParam().c_str(), tried, unsupported, golden_exact, exact_vs_ort, float_op_models, float_op_elements, u8s8, u8s8_differing);
  for (const auto& [why, k] : unsupported_why) std::printf("  unsupported x%d: %s...\n", k, why.c_str());
  EXPECT_GE(exact_vs_ort, sim ? 20 : 150);
}

// Damaged copies of corpus models (truncated, bytes changed) through Model::load and run on
// ref://: each either runs or ends in a weft::Error (BAD_MODEL, BAD_ARGUMENT, ...): never a crash,
// an abort or another exception. Seed printed; WEFT_SEED repeats it.
TEST(CorpusDamaged, DamagedModelsThroughTheRuntimeEndInAnErrorOrARun) {
  const fs::path dir = WEFT_ONNX_MODEL_DIR;
  const std::vector<Case> cases = read_index(dir);
  ASSERT_GE(cases.size(), 100u);
  std::mt19937_64 rng = weft::tb::make_rng();
  weft::Device dev = weft::Device::open("ref://");
  const fs::path tmp = fs::path(testing::TempDir()) / ("weft_damaged_" + std::to_string(getpid()) + ".onnx");
  int tried = 0, ran = 0, refused = 0;
  std::map<std::string, int> codes;
  for (size_t m = 0; m < 100; ++m) {
    const Case& c = cases[m * cases.size() / 100];
    std::ifstream f(dir / c.name / "model.onnx", std::ios::binary);
    const std::string bytes{std::istreambuf_iterator<char>(f), std::istreambuf_iterator<char>()};
    const weft::OnnxGraph g = weft::load_onnx_graph((dir / c.name / "model.onnx").string());
    const auto sets = weft::test::data_sets(dir / c.name, g);
    for (int t = 0; t < 8; ++t) {
      std::string b = bytes;
      if (t < 3) {
        b = bytes.substr(0, rng() % bytes.size());
      } else {
        const int flips = 1 + int(rng() % 6);
        for (int k = 0; k < flips; ++k) b[rng() % b.size()] = char(rng());
      }
      std::ofstream(tmp, std::ios::binary).write(b.data(), std::streamsize(b.size()));
      ++tried;
      try {
        weft::Model model = weft::Model::load(dev, tmp.string());
        model.run(sets.at(0).inputs);
        ++ran;
      } catch (const weft::Error& e) {
        ++refused;
        codes[std::string(weft::errc_name(e.code()))]++;
      } catch (const std::exception& e) {
        ADD_FAILURE() << c.name << " mutation " << t << ": " << typeid(e).name() << ": " << e.what();
      }
    }
  }
  fs::remove(tmp);
  std::printf("%d damaged corpus models through the runtime: %d ran, %d refused (", tried, ran, refused);
  for (const auto& [code, k] : codes) std::printf(" %s %d", code.c_str(), k);
  std::printf(" )\n");
  EXPECT_EQ(tried, 800);
}

bool host_has_vnni() {
  std::ifstream f("/proc/cpuinfo");
  const std::string info{std::istreambuf_iterator<char>(f), std::istreambuf_iterator<char>()};
  return info.find(" avx512_vnni") != std::string::npos || info.find(" avx_vnni") != std::string::npos;
}

// onnxruntime as a reference (docs/model-runtime.md): on x86 without VNNI its u8 x s8 kernels add
// adjacent products in saturating int16. For the u8 x s8 MatMul / Gemm models of the corpus
// (generated on this host at build time), onnxruntime's integer output must equal the
// specification's exact result (the golden executor, which the runtime equals) on a host with
// VNNI, and the golden executor with that saturation emulated on a host without: then a
// difference from Weft is that saturation and nothing else. Prints how many elements the
// saturation changes, i.e. how much these inputs exercise it.
TEST(CorpusU8S8, OnnxruntimeIsExactWithVnniAndTheInt16PairSaturationWithout) {
  const fs::path dir = WEFT_ONNX_MODEL_DIR;
  const bool vnni = host_has_vnni();
  int models = 0, changed_models = 0;
  int64_t changed = 0, elements = 0;
  for (const Case& c : read_index(dir)) {
    if (c.ort_exact || c.float_rounding || c.float_accum || c.format != "QDQ") continue;
    if (c.family != "matmul_2d" && c.family != "matmul_3d" && c.family != "gemm_relu_gemm") continue;
    SCOPED_TRACE(c.name);
    const fs::path model_path = dir / c.name / "model.onnx";
    const weft::OnnxGraph g = weft::load_onnx_graph(model_path.string());
    const auto sets = weft::test::data_sets(dir / c.name, g);
    const std::string y = g.outputs.at(1).name;
    const auto exact = weft::golden::onnx::run_graph(g, sets.at(0).inputs).at(y);
    const auto saturated = weft::golden::onnx::run_graph(g, sets.at(0).inputs, {.emulate_u8s8_int16_pairs = true}).at(y);
    int64_t diff = 0;
    const int64_t n = differences(exact, saturated, &diff);
    ++models, changed += n, elements += int64_t(exact.ints.size()), changed_models += n > 0;
    int64_t max_diff = 0;
    EXPECT_EQ(differences(sets.at(0).outputs.at(1), vnni ? exact : saturated, &max_diff), 0)
        << "onnxruntime differs from " << (vnni ? "the exact result on this VNNI host" : "the emulated int16 saturation on this host without VNNI");
  }
  std::printf("u8 x s8 MatMul / Gemm models: %d; the int16 pair saturation changes %lld of %lld output elements in %d of them; "
              "this host %s VNNI, so onnxruntime must equal the %s result: checked\n",
              models, (long long)changed, (long long)elements, changed_models, vnni ? "has" : "has no", vnni ? "exact" : "saturated");
  EXPECT_GE(models, 5);
}

INSTANTIATE_TEST_SUITE_P(Devices, Corpus, ::testing::ValuesIn(weft::test::test_devices()),
                         [](const auto& info) { return weft::test::device_test_name(info.param); });

}  // namespace
