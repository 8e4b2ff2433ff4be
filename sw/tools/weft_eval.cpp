#include "weft_eval.hpp"
#include "weft_run.hpp"

#include <fmt/core.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <map>
#include <optional>
#include <stdexcept>
#include <vector>

#include "weft/datasets.hpp"
#include "weft/golden/onnx_exec.hpp"
#include "weft/model.hpp"
#include "weft/onnx_graph.hpp"
#include "weft/weft.hpp"

namespace weft::tool {
namespace {

namespace fs = std::filesystem;
using Clock = std::chrono::steady_clock;

[[noreturn]] void usage(const std::string& msg) { throw Error(Errc::kBadArgument, "weft eval: " + msg); }

std::string shape_text(const std::vector<int64_t>& dims) {
  std::string s;
  for (size_t i = 0; i < dims.size(); ++i) {
    if (i) s += 'x';
    s += dims[i] < 0 ? (i == 0 ? "N" : "?") : std::to_string(dims[i]);
  }
  return s.empty() ? "scalar" : s;
}

// Progress of the batches on stderr: on a terminal a bar redrawn after each batch and cleared at
// the end; otherwise a line every 10 s (every minute after the first), none for a short run.
// The same behaviour as the other commands' progress (weft.cpp).
class BatchProgress {
 public:
  BatchProgress(bool quiet, int64_t total) : tty_(isatty(2) != 0), on_(!quiet), total_(total) {}
  ~BatchProgress() { clear(); }
  void update(int64_t done) {
    if (!on_) return;
    const double el = std::chrono::duration<double>(Clock::now() - t0_).count();
    const double f = total_ ? double(done) / double(total_) : 1;
    if (tty_) {
      const int w = 30, filled = int(f * w + 0.5);
      fmt::print(stderr, "\reval     [{}{}] {:3.0f} %  {}/{} images  {:.1f} s\x1b[K", std::string(size_t(filled), '#'),
                 std::string(size_t(w - filled), ' '), 100 * f, done, total_, el);
      std::fflush(stderr);
      drawn_ = true;
    } else if (Clock::now() - last_ >= std::chrono::seconds(el < 60 ? 10 : 60)) {
      last_ = Clock::now();
      fmt::print(stderr, "weft: eval {:.0f} % ({}/{} images) after {:.1f} s\n", 100 * f, done, total_, el);
    }
  }
  void clear() {
    if (drawn_) {
      fmt::print(stderr, "\r\x1b[K");
      std::fflush(stderr);
      drawn_ = false;
    }
  }

 private:
  const bool tty_, on_;
  const int64_t total_;
  bool drawn_ = false;
  Clock::time_point t0_ = Clock::now(), last_ = Clock::now();
};

// onnxruntime's predicted classes: one integer a line, '#' comments and blank lines skipped.
std::vector<int> read_predictions(const std::string& path) {
  std::ifstream f(path);
  if (!f) usage("--predictions " + path + ": cannot open the file");
  std::vector<int> p;
  std::string line;
  int n = 0;
  while (std::getline(f, line)) {
    ++n;
    const size_t a = line.find_first_not_of(" \t\r");
    if (a == std::string::npos || line[a] == '#') continue;
    const size_t b = line.find_last_not_of(" \t\r");
    const std::string v = line.substr(a, b - a + 1);
    char* e = nullptr;
    const long x = std::strtol(v.c_str(), &e, 10);
    if (*e != '\0' || x < 0 || x > 1000000) {
      usage(path + ": line " + std::to_string(n) + " '" + v + "' is not a class number: the file holds one predicted class per line ('#' comments)");
    }
    p.push_back(int(x));
  }
  return p;
}

// The class of each of `n` images from the network's output: the index of the largest value of
// each image's slice (the first of equal ones, as numpy's argmax).
std::vector<int> argmax_rows(const OnnxTensor& out, int64_t n, const std::string& model) {
  const int64_t total = out.size();
  if (n <= 0 || total % n != 0 || total / n < 1) {
    usage(model + ": the output '" + out.name + "' (" + dims_string(out.dims) + ") does not hold one score vector per image (" +
          std::to_string(n) + " images)");
  }
  const int64_t c = total / n;
  std::vector<int> r(static_cast<size_t>(n));
  for (int64_t i = 0; i < n; ++i) {
    int64_t best = 0;
    for (int64_t k = 1; k < c; ++k) {
      const size_t at = size_t(i * c + k), bt = size_t(i * c + best);
      const bool gt = out.is_float() ? out.floats[at] > out.floats[bt] : out.ints[at] > out.ints[bt];
      if (gt) best = k;
    }
    r[size_t(i)] = int(best);
  }
  return r;
}

}  // namespace

void add_eval_options(CLI::App* cmd, EvalArgs& a, std::string& uri) {
  cmd->add_option("MODEL", a.model, "The .onnx classification network (float32 input, one score per class out)")->required();
  cmd->add_option("--dataset", a.dataset, "digits (python3-sklearn's 8x8 digits) or fashion-mnist (dataset-fashion-mnist)")->required();
  cmd->add_option("--data", a.data,
                  fmt::format("The data: the digits .csv.gz file (default {}) or the Fashion-MNIST directory (default {})",
                              kDigitsPath, kFashionMnistDir));
  cmd->add_option("--split", a.split, "test (default; digits: rows with index % 5 == 4, Fashion-MNIST: t10k) or train");
  cmd->add_option("--limit", a.limit, "Evaluate only the first N images of the split");
  cmd->add_option("--batch", a.batch, "Images per run of the network (default 16)");
  cmd->add_option("--device,-d", uri,
                  "Device URI (default sim://, the Verilated RTL; ref://, pcie-sim://, uart://<tty>), or golden: the golden "
                  "graph executor on the host");
  cmd->add_option("--predictions", a.predictions,
                  "onnxruntime's predicted class per image of the split, one a line (default: MODEL with .onnx replaced by "
                  ".predictions, for the test split); exit 1 when a prediction differs");
  cmd->add_flag("--layers", a.layers, "Also print the per-layer table summed over all batches");
  cmd->add_flag("--json", a.json, "Print everything as one JSON object instead");
  cmd->add_flag("--quiet,-q", a.quiet, "No progress indication");
}

int cmd_eval(const std::string& uri, const EvalArgs& a) {
  if (a.batch < 1) usage("--batch " + std::to_string(a.batch) + ": give a batch of at least 1 image");
  if (a.limit == 0 || a.limit < -1) usage("--limit " + std::to_string(a.limit) + ": give at least 1 image");
  const Dataset ds = load_dataset(a.dataset, a.data, a.split);
  const int64_t n = a.limit > 0 ? std::min(a.limit, ds.count) : ds.count;
  const bool golden = uri == "golden" || uri == "golden://";

  // The network.
  std::optional<Device> dev;
  std::optional<Model> model;
  std::optional<OnnxGraph> graph;
  std::vector<OnnxValueInfo> ins, outs;
  if (golden) {
    graph = load_onnx_graph(a.model);
    ins = graph->inputs, outs = graph->outputs;
  } else {
    dev.emplace(Device::open(uri));
    model.emplace(Model::load(*dev, a.model));
    ins = model->inputs(), outs = model->outputs();
  }
  if (ins.size() != 1) usage(a.model + ": the model has " + std::to_string(ins.size()) + " inputs; weft eval feeds one (the images)");
  if (outs.empty()) usage(a.model + ": the model has no output");
  const OnnxValueInfo& in = ins[0];
  if (in.elem_type != kOnnxFloat) {
    usage(a.model + ": the input '" + in.name + "' is of element type " + std::to_string(in.elem_type) +
          "; weft eval gives float32 images (pixel * " + fmt::format("{:g}", ds.scale) + ")");
  }
  // The input's shape: [batch, image dims...] (or the same count of values in another shape).
  std::vector<int64_t> img_dims = ds.image_dims;
  if (in.has_shape) {
    std::vector<int64_t> want = {a.batch};
    want.insert(want.end(), ds.image_dims.begin(), ds.image_dims.end());
    bool ok = !in.dims.empty();
    int64_t model_img = 1;
    for (size_t i = 1; i < in.dims.size(); ++i) model_img = in.dims[i] < 0 ? -1 : (model_img < 0 ? -1 : model_img * in.dims[i]);
    if (ok && in.dims.size() == want.size()) {
      for (size_t i = 1; i < want.size(); ++i) ok = ok && (in.dims[i] < 0 || in.dims[i] == want[i]);
    } else if (ok && model_img == ds.image_size()) {
      img_dims.assign(in.dims.begin() + 1, in.dims.end());  // e.g. [N, 784] for 1x28x28 images
    } else {
      ok = false;
    }
    if (!ok) {
      throw Error(Errc::kBadArgument,
                  fmt::format("weft eval: {}: the model's input '{}' is float32 {}, but the {} data set gives images of {} "
                              "(a batch of {}: {}): the model is not for this data set (give the --dataset it was trained on)",
                              a.model, in.name, shape_text(in.dims), ds.name, dims_string(ds.image_dims), a.batch, dims_string(want)));
    }
    if (in.dims[0] >= 0 && in.dims[0] != a.batch) {
      usage(fmt::format("{}: the model's batch dimension is fixed at {} (input '{}' is {}): give --batch {}", a.model, in.dims[0],
                        in.name, shape_text(in.dims), in.dims[0]));
    }
  }
  const bool fixed_batch = in.has_shape && !in.dims.empty() && in.dims[0] >= 0;

  // The stored predictions.
  std::string pred_path = a.predictions;
  std::string pred_note;
  if (pred_path.empty()) {
    fs::path p(a.model);
    p.replace_extension(".predictions");
    if (a.split != "test") {
      pred_note = "not checked: the stored predictions are for the test split (give --predictions FILE)";
    } else if (!fs::exists(p)) {
      pred_note = "not checked: no " + p.string();
    } else {
      pred_path = p.string();
    }
  }
  std::vector<int> stored;
  if (!pred_path.empty()) {
    stored = read_predictions(pred_path);
    if (int64_t(stored.size()) != ds.count) {
      usage(pred_path + " holds " + std::to_string(stored.size()) + " predictions, the " + ds.name + " " + ds.split + " split has " +
            std::to_string(ds.count) + " images: the file is for another split or data set (give --predictions FILE)");
    }
  }


  // The batches.
  std::vector<int> predicted;
  predicted.reserve(size_t(n));
  std::vector<LayerReport> sum;
  uint64_t cycles = 0;
  int64_t batches = 0;
  BatchProgress prog(a.quiet, n);
  const auto t0 = Clock::now();
  prog.update(0);
  for (int64_t first = 0; first < n; first += a.batch) {
    const int64_t b = std::min(a.batch, n - first);
    // A model with a fixed batch dimension takes whole batches: the last one is filled up with
    // copies of its last image, whose classes are not counted.
    const int64_t run_b = fixed_batch ? a.batch : b;
    OnnxTensor x = ds.batch(first, b, in.name);
    if (run_b > b) {
      const size_t sz = size_t(ds.image_size());
      for (int64_t k = b; k < run_b; ++k) x.floats.insert(x.floats.end(), x.floats.end() - std::ptrdiff_t(sz), x.floats.end());
    }
    x.dims = {run_b};
    x.dims.insert(x.dims.end(), img_dims.begin(), img_dims.end());
    std::map<std::string, OnnxTensor> out;
    if (golden) {
      try {
        out = golden::onnx::run_graph(*graph, {{in.name, x}});
      } catch (const std::invalid_argument& e) {
        throw Error(Errc::kBadModel, a.model + ": the golden executor: " + e.what());
      }
    } else {
      try {
        out = model->run({{in.name, x}});
      } catch (const Error& e) {
        if (e.code() == Errc::kOutOfMemory) {
          throw Error(Errc::kOutOfMemory, fmt::format("weft eval: a batch of {} images does not fit the device: use a smaller --batch ({})",
                                                      run_b, std::string(e.what()).substr(std::string(e.what()).find(": ") + 2)));
        }
        throw;
      }
      const auto& ls = model->layers();
      if (sum.empty()) {
        sum = ls;
      } else {
        for (size_t i = 0; i < ls.size(); ++i) {
          size_t j = i;
          if (j >= sum.size() || sum[j].node != ls[i].node || sum[j].op != ls[i].op) {
            j = size_t(std::find_if(sum.begin(), sum.end(), [&](const LayerReport& s) { return s.node == ls[i].node && s.op == ls[i].op; }) -
                       sum.begin());
            if (j == sum.size()) sum.push_back(ls[i]), sum.back().cycles = sum.back().macs = sum.back().dma_bytes = sum.back().host_bytes = 0;
          }
          sum[j].cycles += ls[i].cycles, sum[j].macs += ls[i].macs;
          sum[j].dma_bytes += ls[i].dma_bytes, sum[j].host_bytes += ls[i].host_bytes, sum[j].im2col_bytes += ls[i].im2col_bytes;
        }
      }
      for (const LayerReport& l : ls) cycles += l.cycles;
    }
    auto it = out.find(outs[0].name);
    if (it == out.end()) usage(a.model + ": the run gave no output '" + outs[0].name + "'");
    std::vector<int> cls = argmax_rows(it->second, run_b, a.model);
    predicted.insert(predicted.end(), cls.begin(), cls.begin() + b);
    ++batches;
    prog.update(first + b);
  }
  const double wall = std::chrono::duration<double>(Clock::now() - t0).count();
  prog.clear();

  uint32_t rows = 0, cols = 0, bus = 0;
  if (dev) rows = dev->caps().rows, cols = dev->caps().cols, bus = dev->caps().bus_bytes;
  for (LayerReport& l : sum) {
    l.utilisation = l.cycles && rows && cols ? double(l.macs) / (double(l.cycles) * rows * cols) : 0;
  }
  int64_t correct = 0, differ = 0;
  std::vector<int64_t> differing;
  for (int64_t i = 0; i < n; ++i) {
    correct += predicted[size_t(i)] == ds.labels[size_t(i)];
    if (!stored.empty() && predicted[size_t(i)] != stored[size_t(i)]) {
      ++differ;
      if (differing.size() < 10) differing.push_back(i);
    }
  }
  const bool checked = !stored.empty();
  const double accuracy = double(correct) / double(n);
  const double per_s = wall > 0 ? double(n) / wall : 0;
  const double cpi = double(cycles) / double(n);
  const std::string device_text = golden ? "golden (the golden graph executor on the host)" : dev->description();

  if (a.json) {
    std::string j = fmt::format(
        "{{\"model\": \"{}\", \"dataset\": \"{}\", \"split\": \"{}\", \"device\": \"{}\", \"description\": \"{}\", \"batch\": {}, "
        "\"images\": {}, \"correct\": {}, \"accuracy\": {:.6f}, \"agree\": {}, \"differ\": {}, \"differing\": [",
        json_escape(a.model), ds.name, ds.split, json_escape(golden ? "golden" : uri), json_escape(device_text), a.batch, n, correct,
        accuracy, checked ? std::to_string(n - differ) : "null", checked ? std::to_string(differ) : "null");
    for (size_t i = 0; i < differing.size(); ++i) j += fmt::format("{}{}", i ? ", " : "", differing[i]);
    j += fmt::format("], \"wall_s\": {:.4f}, \"images_per_s\": {:.3f}, \"cycles_per_image\": {:.1f}, \"rows\": {}, \"cols\": {}, "
                     "\"bus_bytes\": {}, \"layers\": [",
                     wall, per_s, cpi, rows, cols, bus);
    for (size_t i = 0; i < sum.size(); ++i) {
      const LayerReport& l = sum[i];
      j += fmt::format("{}{{\"op\": \"{}\", \"node\": \"{}\", \"where\": \"{}\", \"cycles\": {}, \"macs\": {}, \"utilisation\": {:.4f}, "
                       "\"dma_bytes\": {}, \"host_bytes\": {}}}",
                       i ? ", " : "", json_escape(l.op), json_escape(l.node), placement_name(l.where), l.cycles, l.macs, l.utilisation,
                       l.dma_bytes, l.host_bytes);
    }
    j += "]}";
    fmt::print("{}\n", j);
    return differ ? 1 : 0;
  }

  fmt::print("model       {}\n", a.model);
  fmt::print("dataset     {} {} split ({} images, {})\n", ds.name, ds.split, ds.count, ds.source);
  fmt::print("device      {}\n", device_text);
  fmt::print("images      {} in {} batches of {}\n", n, batches, a.batch);
  fmt::print("accuracy    {:.2f} % top-1 ({} of {} correct)\n", 100 * accuracy, correct, n);
  if (!checked) {
    fmt::print("agreement   {}\n", pred_note);
  } else if (differ == 0) {
    fmt::print("agreement   {} of {} predictions equal onnxruntime's ({})\n", n, n, pred_path);
  } else {
    std::string idx;
    for (size_t i = 0; i < differing.size(); ++i) idx += (i ? ", " : "") + std::to_string(differing[i]);
    fmt::print("agreement   DIFFERS: {} of {} predictions differ from onnxruntime's ({}); first images: {}\n", differ, n, pred_path, idx);
  }
  fmt::print("time        {:.3f} s wall, {:.1f} images/s\n", wall, per_s);
  const std::string scheme = uri.substr(0, uri.find("://"));
  fmt::print("cycles      {:.0f} device cycles per image{}\n", cpi,
             golden ? " (golden: no device)" : scheme == "ref" ? " (ref:// cost-model estimate, not RTL)" : "");
  if (a.layers && !sum.empty()) {
    fmt::print("{:<4} {:<20} {:<26} {:<11} {:>14} {:>14} {:>6} {:>14} {:>12}\n", "step", "op", "node", "where", "cycles", "MACs", "util",
               "DMA B", "host B");
    for (size_t i = 0; i < sum.size(); ++i) {
      const LayerReport& l = sum[i];
      fmt::print("{:<4} {:<20} {:<26} {:<11} {:>14} {:>14} {:>6} {:>14} {:>12}\n", i, l.op, l.node, placement_name(l.where), l.cycles,
                 l.macs, l.cycles && l.macs ? fmt::format("{:.1f}%", 100 * l.utilisation) : "-", l.dma_bytes, l.host_bytes);
    }
    fmt::print("(summed over {} batches; utilisation of the {}x{} array)\n", batches, rows, cols);
  }
  return differ ? 1 : 0;
}

}  // namespace weft::tool
