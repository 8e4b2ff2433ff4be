// The hand-built QOperator models (scripts/onnx_special_models.py, docs/model-runtime.md,
// "Hand-built models") through the model runtime on ref:// and sim://?array=16x16.
//
// `exact` cases: loaded with weft::Model::load and run twice (the weights are packed at the first
// run); every output must equal onnxruntime's and the golden executor's bit for bit, on both runs.
// Each case prints its placement (Model::layers(): op, where, note, host bytes). For the chain
// cases, the tensor-unit steps between the first and the last move no host bytes on the second
// run (their input and output stay resident in device memory).
// `refused` cases: Model::load ends in weft::Error BAD_MODEL with "unsupported" in the message;
// where onnxruntime's output was written and the golden executor takes the graph, the golden
// executor must still equal onnxruntime.
#include <gtest/gtest.h>

#include <cstdio>
#include <fstream>
#include <sstream>

#include "node_tests.hpp"
#include "weft/golden/onnx_exec.hpp"
#include "weft/model.hpp"
#include "weft/weft.hpp"

namespace {

namespace fs = std::filesystem;

struct Case {
  std::string name, expect, what;
};

std::vector<Case> read_index(const fs::path& dir) {
  std::vector<Case> v;
  std::ifstream in(dir / "index.txt");
  std::string line;
  while (std::getline(in, line)) {
    if (line.empty() || line[0] == '#') continue;
    std::istringstream ls(line);
    Case c;
    ls >> c.name >> c.expect;
    std::getline(ls, c.what);
    v.push_back(c);
  }
  return v;
}

bool equal_bits(const weft::OnnxTensor& a, const weft::OnnxTensor& b) {
  return a.elem_type == b.elem_type && a.dims == b.dims && a.ints == b.ints && a.floats == b.floats;
}

std::string diff(const weft::OnnxTensor& got, const weft::OnnxTensor& want) {
  if (equal_bits(got, want)) return "";
  const std::string d = weft::test::compare(got, want);
  int64_t n = 0, maxd = 0;
  if (got.dims == want.dims && got.ints.size() == want.ints.size()) {
    for (size_t i = 0; i < got.ints.size(); ++i) {
      const int64_t x = std::llabs(got.ints[i] - want.ints[i]);
      if (x) ++n, maxd = std::max(maxd, x);
    }
  }
  std::ostringstream os;
  os << (d.empty() ? "differs" : d) << " (" << n << " of " << want.size() << " elements differ, max " << maxd << ")";
  return os.str();
}

class Special : public ::testing::TestWithParam<std::string> {};

TEST_P(Special, ExactCasesMatchOnnxruntimeAndGoldenRefusedCasesAreRefused) {
  const fs::path dir = WEFT_ONNX_SPECIAL_DIR;
  ASSERT_TRUE(fs::exists(dir / "index.txt")) << dir << "/index.txt missing: build the target weft_onnx_special_models (make setup)";
  const std::vector<Case> cases = read_index(dir);
  ASSERT_GE(cases.size(), 15u);
  weft::Device dev = weft::Device::open(GetParam());
  int exact_ok = 0, exact_n = 0, refused_ok = 0, refused_n = 0;
  for (const Case& c : cases) {
    SCOPED_TRACE(c.name + ":" + c.what);
    const fs::path model_path = dir / c.name / "model.onnx";
    const weft::OnnxGraph g = weft::load_onnx_graph(model_path.string());
    const auto sets = weft::test::data_sets(dir / c.name, g);
    ASSERT_EQ(sets.size(), 1u);
    const auto& set = sets[0];
    if (c.expect == "refused") {
      ++refused_n;
      bool refused = false;
      std::string msg;
      try {
        weft::Model model = weft::Model::load(dev, model_path.string());
        model.run(set.inputs);
      } catch (const weft::Error& e) {
        msg = e.what();
        refused = e.code() == weft::Errc::kBadModel && msg.find("unsupported") != std::string::npos;
      }
      EXPECT_TRUE(refused) << "expected BAD_MODEL unsupported, got: " << (msg.empty() ? "a run" : msg);
      refused_ok += refused;
      std::string golden = "golden: no onnxruntime output";
      if (!set.outputs.empty()) {
        bool supported = true;
        std::string why;
        for (const auto& n : g.nodes) supported = supported && weft::golden::onnx::op_supported(n, &why);
        if (!supported) {
          golden = "golden: " + why;
        } else {
          const auto want = weft::golden::onnx::run_graph(g, set.inputs);
          for (size_t i = 0; i < g.outputs.size(); ++i) {
            const std::string d = diff(want.at(g.outputs[i].name), set.outputs[i]);
            EXPECT_EQ(d, "") << "golden vs onnxruntime, output " << g.outputs[i].name;
          }
          golden = "golden = onnxruntime";
        }
      }
      std::printf("%-26s refused   %s | %s\n", c.name.c_str(), msg.substr(0, 140).c_str(), golden.c_str());
      continue;
    }
    ASSERT_EQ(c.expect, "exact");
    ++exact_n;
    try {
      weft::Model model = weft::Model::load(dev, model_path.string());
      const auto want = weft::golden::onnx::run_graph(g, set.inputs);
      ASSERT_EQ(set.outputs.size(), g.outputs.size());
      bool ok = true;
      for (int run = 0; run < 2; ++run) {
        const auto out = model.run(set.inputs);
        for (size_t i = 0; i < g.outputs.size(); ++i) {
          const std::string& name = g.outputs[i].name;
          const std::string d_ort = diff(out.at(name), set.outputs[i]);
          const std::string d_gold = diff(out.at(name), want.at(name));
          EXPECT_EQ(d_ort, "") << "run " << run << ", runtime vs onnxruntime, output " << name;
          EXPECT_EQ(d_gold, "") << "run " << run << ", runtime vs golden, output " << name;
          if (!d_ort.empty() || !d_gold.empty()) {
            std::printf("%s run %d: vs onnxruntime: %s; vs golden: %s\n", c.name.c_str(), run, d_ort.empty() ? "equal" : d_ort.c_str(),
                        d_gold.empty() ? "equal" : d_gold.c_str());
          }
          ok = ok && d_ort.empty() && d_gold.empty();
        }
      }
      exact_ok += ok;
      std::printf("%-26s %s %s\n", c.name.c_str(), ok ? "exact    " : "MISMATCH ", c.what.c_str());
      const auto& layers = model.layers();
      std::vector<size_t> tu;
      for (size_t i = 0; i < layers.size(); ++i) {
        const weft::LayerReport& l = layers[i];
        std::printf("    %-14s %-11s host B %7llu  %s%s%s\n", l.op.c_str(), std::string(weft::placement_name(l.where)).c_str(),
                    (unsigned long long)l.host_bytes, l.shape.c_str(), l.note.empty() ? "" : " | ", l.note.c_str());
        if (l.where == weft::Placement::kTensorUnit) tu.push_back(i);
      }
      if (c.name.rfind("chain_", 0) == 0) {
        EXPECT_GE(tu.size(), 3u) << "a chain runs its steps on the tensor unit";
        for (size_t k = 1; k + 1 < tu.size(); ++k) {
          EXPECT_EQ(layers[tu[k]].host_bytes, 0u) << "middle step " << layers[tu[k]].node << " moved host bytes on the second run";
        }
      }
    } catch (const weft::Error& e) {
      ADD_FAILURE() << "runtime error: " << e.what();
      std::printf("%-26s ERROR     %s\n", c.name.c_str(), e.what());
    }
  }
  std::printf("special models on %s: %d/%d exact cases bit-exact, %d/%d refused cases refused\n", GetParam().c_str(), exact_ok, exact_n,
              refused_ok, refused_n);
}

INSTANTIATE_TEST_SUITE_P(Devices, Special, ::testing::ValuesIn(weft::test::test_devices()),
                         [](const auto& info) { return weft::test::device_test_name(info.param); });

}  // namespace
