// The test model corpus (docs/model-runtime.md, "Test model corpus"), written at build time by
// scripts/onnx_models.py into WEFT_ONNX_MODEL_DIR: the corpus is complete (at least 300 cases that
// onnxruntime computes exactly, plus the u8 x s8 ones), every model loads with load_onnx_graph and
// its data set with load_onnx_tensor, consistently with the model's interface; and damaged copies
// of the corpus models either load or are refused with BAD_MODEL, never crash.
#include <gtest/gtest.h>

#include <cstdio>
#include <filesystem>
#include <fstream>
#include <random>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include "weft/error.hpp"
#include "weft/onnx_graph.hpp"
#include "weft/tb/options.hpp"

namespace {

namespace fs = std::filesystem;

const fs::path kCorpus = WEFT_ONNX_MODEL_DIR;

struct Case {
  std::string name;
  bool exact = false;
  std::string format;
  std::string family;
};

// index.txt: "<name> <ort_exact 0|1> <format> <family>" per line, '#' comments.
std::vector<Case> read_index() {
  std::vector<Case> out;
  std::ifstream in(kCorpus / "index.txt");
  std::string line;
  while (std::getline(in, line)) {
    if (line.empty() || line[0] == '#') continue;
    std::istringstream ls(line);
    Case c;
    int exact = -1;
    ls >> c.name >> exact >> c.format >> c.family;
    EXPECT_TRUE(ls && (exact == 0 || exact == 1)) << "index.txt: " << line;
    c.exact = exact == 1;
    out.push_back(c);
  }
  return out;
}

std::string read_file(const fs::path& path) {
  std::ifstream in(path, std::ios::binary);
  return {std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
}

void write_file(const std::string& path, const std::string& bytes) {
  std::ofstream(path, std::ios::binary).write(bytes.data(), static_cast<std::streamsize>(bytes.size()));
}

#define CORPUS_OR_FAIL(cases)                                                                   \
  ASSERT_TRUE(fs::exists(kCorpus / "index.txt"))                                                \
      << kCorpus << "/index.txt missing: build the target weft_onnx_models (needs `make setup`)"; \
  const std::vector<Case> cases = read_index()

TEST(ModelCorpus, IndexListsTheExactAndTheU8S8Cases) {
  CORPUS_OR_FAIL(cases);
  int exact = 0, u8s8 = 0, qoperator = 0;
  std::set<std::string> families, names;
  for (const Case& c : cases) {
    (c.exact ? exact : u8s8)++;
    qoperator += c.format == "QOperator";
    EXPECT_TRUE(c.format == "QDQ" || c.format == "QOperator") << c.name;
    families.insert(c.family);
    EXPECT_TRUE(names.insert(c.name).second) << "listed twice: " << c.name;
    EXPECT_TRUE(fs::exists(kCorpus / c.name / "meta.json")) << c.name;
  }
  std::printf("corpus %s: %d exact + %d u8s8 cases (%d QOperator), %zu families\n",
              kCorpus.c_str(), exact, u8s8, qoperator, families.size());
  EXPECT_GE(exact, 300);
  EXPECT_GE(u8s8, 1);
  EXPECT_GT(qoperator, 0);
  EXPECT_GE(families.size(), 12u);
}

// Every model loads with one float input and two outputs (the float output, then the integer
// tensor its final DequantizeLinear reads); the data set's tensors have the model's types, the
// input's dimensions, and output 0 is DequantizeLinear of output 1.
TEST(ModelCorpus, EveryModelAndDataSetLoads) {
  CORPUS_OR_FAIL(cases);
  ASSERT_FALSE(cases.empty());
  int dq_checked = 0;
  for (const Case& c : cases) {
    SCOPED_TRACE(c.name);
    const fs::path dir = kCorpus / c.name;
    weft::OnnxGraph g;
    ASSERT_NO_THROW(g = weft::load_onnx_graph((dir / "model.onnx").string()));
    ASSERT_EQ(g.inputs.size(), 1u);
    ASSERT_EQ(g.outputs.size(), 2u);
    EXPECT_EQ(g.inputs[0].elem_type, weft::kOnnxFloat);
    EXPECT_EQ(g.outputs[0].elem_type, weft::kOnnxFloat);
    const int32_t qtype = g.outputs[1].elem_type;
    EXPECT_TRUE(qtype == weft::kOnnxUint8 || qtype == weft::kOnnxInt8) << qtype;

    const fs::path ds = dir / "test_data_set_0";
    weft::OnnxTensor x, y, yq;
    ASSERT_NO_THROW(x = weft::load_onnx_tensor((ds / "input_0.pb").string()));
    ASSERT_NO_THROW(y = weft::load_onnx_tensor((ds / "output_0.pb").string()));
    ASSERT_NO_THROW(yq = weft::load_onnx_tensor((ds / "output_1.pb").string()));
    EXPECT_TRUE(x.is_float());
    EXPECT_EQ(x.dims, g.inputs[0].dims);
    EXPECT_EQ(static_cast<int64_t>(x.floats.size()), x.size());
    EXPECT_TRUE(y.is_float());
    EXPECT_EQ(yq.elem_type, qtype);
    ASSERT_EQ(y.dims, yq.dims);
    ASSERT_EQ(static_cast<int64_t>(yq.ints.size()), yq.size());
    ASSERT_EQ(static_cast<int64_t>(y.floats.size()), y.size());
    const int64_t lo = qtype == weft::kOnnxUint8 ? 0 : -128, hi = qtype == weft::kOnnxUint8 ? 255 : 127;
    for (int64_t v : yq.ints) ASSERT_TRUE(v >= lo && v <= hi) << v;

    // The final DequantizeLinear (per tensor): y = float(q - zero_point) * scale, in float32.
    for (const weft::OnnxNode& n : g.nodes) {
      if (n.op_type != "DequantizeLinear" || n.outputs[0] != g.outputs[0].name) continue;
      EXPECT_EQ(n.inputs[0], g.outputs[1].name);
      auto s = g.constants.find(n.inputs[1]);
      auto z = n.inputs.size() > 2 ? g.constants.find(n.inputs[2]) : g.constants.end();
      if (s == g.constants.end() || s->second.floats.size() != 1) break;
      const float scale = s->second.floats[0];
      const int64_t zp = (z != g.constants.end() && z->second.ints.size() == 1) ? z->second.ints[0] : 0;
      for (size_t i = 0; i < yq.ints.size(); ++i) {
        const volatile float d = static_cast<float>(yq.ints[i] - zp);
        ASSERT_EQ(y.floats[i], d * scale) << "element " << i;
      }
      ++dq_checked;
    }
  }
  std::printf("%zu models and data sets loaded; output 0 = DequantizeLinear(output 1) checked on %d\n",
              cases.size(), dq_checked);
  EXPECT_EQ(dq_checked, static_cast<int>(cases.size()));
}

// For 100 corpus models (spread over the index): 5 truncations and 5 random byte mutations each.
// load_onnx_graph either returns a graph or throws weft::Error(BAD_MODEL); it never crashes.
TEST(ModelCorpus, DamagedCorpusModelsNeverCrash) {
  CORPUS_OR_FAIL(cases);
  ASSERT_FALSE(cases.empty());
  std::mt19937_64 rng = weft::tb::make_rng();  // seed printed; WEFT_SEED / --seed=N repeats it
  const std::string path = testing::TempDir() + "/damaged_corpus.onnx";
  int tried = 0, loaded = 0, refused = 0;
  auto attempt = [&](const std::string& bytes) {
    write_file(path, bytes);
    ++tried;
    try {
      weft::load_onnx_graph(path);
      ++loaded;
    } catch (const weft::Error& e) {
      EXPECT_EQ(e.code(), weft::Errc::kBadModel) << e.what();
      ++refused;
    }
  };
  const size_t models = std::min<size_t>(100, cases.size());
  for (size_t m = 0; m < models; ++m) {
    const Case& c = cases[m * cases.size() / models];
    const std::string bytes = read_file(kCorpus / c.name / "model.onnx");
    ASSERT_FALSE(bytes.empty()) << c.name;
    for (int t = 0; t < 5; ++t) attempt(bytes.substr(0, rng() % bytes.size()));
    for (int t = 0; t < 5; ++t) {
      std::string b = bytes;
      const int flips = 1 + static_cast<int>(rng() % 8);
      for (int f = 0; f < flips; ++f) b[rng() % b.size()] = static_cast<char>(rng());
      attempt(b);
    }
  }
  std::printf("%d mutated corpus files tried (%zu models): %d loaded, %d refused with BAD_MODEL\n",
              tried, models, loaded, refused);
  EXPECT_EQ(tried, static_cast<int>(models) * 10);
  EXPECT_GT(refused, 0);
}

}  // namespace
