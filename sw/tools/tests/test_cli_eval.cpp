// `weft eval` as a user runs it: the errors a user makes (exit status 2 and a phrase saying what
// to fix), the stand-in networks of tests/eval_models (always present) and, when they are
// committed, the networks of sw/model/networks: every prediction equal to onnxruntime's stored one
// on a subset of the test split, on ref:// and (briefly) sim://.
#include <gtest/gtest.h>
#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include "weft/tb/process.hpp"

namespace {

namespace fs = std::filesystem;

struct Outcome {
  int code = -1;
  std::string out, err;
};

Outcome weft_eval(std::vector<std::string> args) {
  args.insert(args.begin(), {WEFT_EXE, "eval"});
  const weft::tb::ProcessResult p = weft::tb::run_process(args, 280, {});
  if (p.timed_out) ADD_FAILURE() << "weft eval still running after 280 s";
  return {p.timed_out || p.signal ? -1 : p.exit_code, p.out, p.err};
}

std::string show(const Outcome& r) { return "exit " + std::to_string(r.code) + "\n--- stdout\n" + r.out + "--- stderr\n" + r.err; }

const fs::path kStandins = WEFT_EVAL_STANDIN_DIR;
// $WEFT_NETWORK_DIR overrides the source tree's sw/model/networks.
const fs::path kNetworks = std::getenv("WEFT_NETWORK_DIR") ? std::getenv("WEFT_NETWORK_DIR") : WEFT_NETWORK_DIR;
const std::string kDigits = (kStandins / "standin_digits_mlp.onnx").string();
const std::string kFashion = (kStandins / "standin_fashion_cnn.onnx").string();

bool have_digits() { return fs::exists("/usr/lib/python3/dist-packages/sklearn/datasets/data/digits.csv.gz"); }
bool have_fashion() { return fs::exists("/usr/share/datasets/fashion-mnist/t10k-images-idx3-ubyte.gz"); }

// "images <n>" and "<n> of <n> predictions equal onnxruntime's" in the text output.
void expect_all_agree(const Outcome& r, int n) {
  ASSERT_EQ(r.code, 0) << show(r);
  EXPECT_NE(r.out.find("images      " + std::to_string(n) + " "), std::string::npos) << show(r);
  EXPECT_NE(r.out.find(std::to_string(n) + " of " + std::to_string(n) + " predictions equal onnxruntime's"), std::string::npos)
      << show(r);
}

TEST(CliEval, UserErrorsExitTwoWithWhatToFix) {
  ASSERT_TRUE(fs::exists(kDigits)) << kDigits;
  struct Bad {
    std::vector<std::string> args;
    std::string phrase;
  };
  std::vector<Bad> cases = {
      {{kDigits, "--dataset", "cifar10", "-d", "ref://"}, "unknown data set 'cifar10'"},
      {{kDigits, "--dataset", "digits", "--data", "/nonexistent/digits.csv.gz", "-d", "ref://"}, "python3-sklearn"},
      {{kFashion, "--dataset", "fashion-mnist", "--data", "/nonexistent", "-d", "ref://"}, "dataset-fashion-mnist"},
      {{kDigits, "--dataset", "digits", "--split", "validation", "-d", "ref://"}, "--split test"},
      {{kDigits, "--dataset", "digits", "--batch", "0", "-d", "ref://"}, "at least 1"},
      {{(kStandins / "missing.onnx").string(), "--dataset", "digits", "-d", "ref://"}, "cannot open the file"},
      {{kDigits, "--dataset", "digits", "-d", "nosuch://"}, "nosuch"},
  };
  if (have_fashion()) {
    // 64 features vs 1x28x28 images, both shapes named.
    cases.push_back({{kDigits, "--dataset", "fashion-mnist", "-d", "ref://"}, "Nx64, but the fashion-mnist data set gives images of 1x28x28"});
    // A batch the device cannot hold: a 1 MiB arena.
    cases.push_back({{kFashion, "--dataset", "fashion-mnist", "-d", "sim://?mem=1048576", "--batch", "2000", "--limit", "2000"},
                     "use a smaller --batch"});
  }
  if (have_digits()) {
    cases.push_back({{kFashion, "--dataset", "digits", "-d", "ref://"}, "Nx1x28x28, but the digits data set gives images of 64"});
    cases.push_back({{(kStandins / "standin_digits_b4.onnx").string(), "--dataset", "digits", "-d", "ref://"}, "give --batch 4"});
    cases.push_back({{kDigits, "--dataset", "digits", "-d", "ref://", "--predictions", (kStandins / "standin_fashion_cnn.predictions").string()},
                     "holds 10000 predictions, the digits test split has 359"});
  }
  for (const Bad& b : cases) {
    const Outcome r = weft_eval(b.args);
    EXPECT_EQ(r.code, 2) << show(r);
    EXPECT_NE(r.err.find(b.phrase), std::string::npos) << "expected '" << b.phrase << "'\n" << show(r);
  }
}

TEST(CliEval, StandinDigitsAgreesOnRefSimAndGolden) {
  if (!have_digits()) GTEST_SKIP() << "the digits data (python3-sklearn) is not installed";
  expect_all_agree(weft_eval({kDigits, "--dataset", "digits", "-d", "ref://"}), 359);
  expect_all_agree(weft_eval({kDigits, "--dataset", "digits", "-d", "golden"}), 359);
  expect_all_agree(weft_eval({kDigits, "--dataset", "digits", "-d", "sim://", "--limit", "40", "--batch", "8"}), 40);
  // A fixed batch dimension: the last batch (359 = 89 x 4 + 3) is filled up.
  const Outcome b4 = weft_eval({(kStandins / "standin_digits_b4.onnx").string(), "--dataset", "digits", "-d", "ref://", "--batch", "4",
                                "--predictions", (kStandins / "standin_digits_mlp.predictions").string()});
  expect_all_agree(b4, 359);
  // Wrong stored predictions: exit 1, the differing images named.
  const Outcome j = weft_eval({kDigits, "--dataset", "digits", "-d", "ref://", "--json", "--limit", "20"});
  ASSERT_EQ(j.code, 0) << show(j);
  for (const char* key : {"\"model\": ", "\"dataset\": \"digits\"", "\"split\": \"test\"", "\"device\": \"ref://\"", "\"images\": 20",
                          "\"accuracy\": ", "\"agree\": 20", "\"differ\": 0", "\"wall_s\": ", "\"images_per_s\": ", "\"cycles_per_image\": ",
                          "\"rows\": 16", "\"cols\": 16", "\"bus_bytes\": ", "\"layers\": [{\"op\": ", "\"where\": \"tensor unit\"",
                          "\"utilisation\": ", "\"dma_bytes\": ", "\"host_bytes\": "}) {
    EXPECT_NE(j.out.find(key), std::string::npos) << key << "\n" << show(j);
  }
  const Outcome l = weft_eval({kDigits, "--dataset", "digits", "-d", "ref://", "--layers", "--limit", "32"});
  ASSERT_EQ(l.code, 0) << show(l);
  EXPECT_NE(l.out.find("summed over 2 batches"), std::string::npos) << show(l);
  EXPECT_NE(l.out.find("Gemm (QDQ)"), std::string::npos) << show(l);
}

TEST(CliEval, DifferingPredictionsExitOne) {
  if (!have_digits()) GTEST_SKIP() << "the digits data (python3-sklearn) is not installed";
  // The fashion stand-in's predictions, cut to the digits test split's 359 lines, are wrong for
  // the digits network in most images.
  const fs::path dir = fs::path(testing::TempDir()) / ("weft_eval_" + std::to_string(getpid()));
  fs::create_directories(dir);
  {
    std::ifstream in(kStandins / "standin_digits_mlp.predictions");
    std::ofstream out(dir / "wrong.predictions");
    std::string line;
    int k = 0;
    while (std::getline(in, line)) {
      if (line.empty() || line[0] == '#') continue;
      out << ((std::stoi(line) + (k++ % 7 == 3 ? 1 : 0)) % 10) << "\n";
    }
  }
  const Outcome r = weft_eval({kDigits, "--dataset", "digits", "-d", "ref://", "--predictions", (dir / "wrong.predictions").string()});
  EXPECT_EQ(r.code, 1) << show(r);
  EXPECT_NE(r.out.find("DIFFERS: 51 of 359"), std::string::npos) << show(r);
  EXPECT_NE(r.out.find("first images: 3, 10, 17"), std::string::npos) << show(r);
}

TEST(CliEval, StandinFashionAgreesOnRefAndSim) {
  if (!have_fashion()) GTEST_SKIP() << "the Fashion-MNIST data (dataset-fashion-mnist) is not installed";
  expect_all_agree(weft_eval({kFashion, "--dataset", "fashion-mnist", "-d", "ref://", "--limit", "100"}), 100);
  expect_all_agree(weft_eval({kFashion, "--dataset", "fashion-mnist", "-d", "sim://", "--limit", "16"}), 16);
}

// The committed networks (sw/model/networks), each against onnxruntime's stored predictions.
struct NetCase {
  const char* name;
  const char* dataset;
  int ref_images, sim_images;
};

class CliEvalNetworks : public testing::TestWithParam<NetCase> {};

TEST_P(CliEvalNetworks, EveryPredictionEqualsOnnxruntime) {
  const NetCase& c = GetParam();
  const fs::path model = kNetworks / (std::string(c.name) + ".onnx");
  if (!fs::exists(model)) GTEST_SKIP() << model << " is not committed yet";
  if (!fs::exists(fs::path(model).replace_extension(".predictions"))) GTEST_SKIP() << "no " << c.name << ".predictions";
  if (std::string(c.dataset) == "digits" ? !have_digits() : !have_fashion()) GTEST_SKIP() << "the " << c.dataset << " data is not installed";
  const Outcome r = weft_eval({model.string(), "--dataset", c.dataset, "-d", "ref://", "--limit", std::to_string(c.ref_images)});
  expect_all_agree(r, c.ref_images);
  if (c.sim_images) {
    expect_all_agree(weft_eval({model.string(), "--dataset", c.dataset, "-d", "sim://", "--limit", std::to_string(c.sim_images)}),
                     c.sim_images);
  }
}

INSTANTIATE_TEST_SUITE_P(Networks, CliEvalNetworks,
                         testing::Values(NetCase{"digits_mlp", "digits", 359, 64}, NetCase{"fashion_cnn", "fashion-mnist", 200, 32},
                                         NetCase{"fashion_cnn_qop", "fashion-mnist", 100, 0},
                                         NetCase{"fashion_residual", "fashion-mnist", 100, 0}),
                         [](const testing::TestParamInfo<NetCase>& i) { return std::string(i.param.name); });

}  // namespace
