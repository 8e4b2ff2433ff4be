#include "weft_run.hpp"

#include <fmt/core.h>

#include <cmath>
#include <filesystem>
#include <map>
#include <stdexcept>

#include "npy.hpp"
#include "weft/golden/fp.hpp"
#include "weft/golden/onnx_exec.hpp"
#include "weft/model.hpp"
#include "weft/onnx_graph.hpp"
#include "weft/weft.hpp"

namespace weft::tool {
namespace {

namespace fs = std::filesystem;

std::string type_name(int32_t t) {
  switch (t) {
    case kOnnxFloat: return "float32";
    case kOnnxUint8: return "uint8";
    case kOnnxInt8: return "int8";
    case kOnnxInt32: return "int32";
    case kOnnxInt64: return "int64";
    case kOnnxBfloat16: return "bfloat16";
  }
  return "type " + std::to_string(t);
}


OnnxTensor read_input(const std::string& file) {
  if (!fs::exists(file)) throw std::invalid_argument("weft run: --input " + file + ": no such file");
  const std::string ext = fs::path(file).extension().string();
  if (ext == ".pb") return load_onnx_tensor(file);
  if (ext != ".npy") {
    throw std::invalid_argument("weft run: --input " + file + ": give a .npy (numpy) or .pb (ONNX TensorProto) file");
  }
  const npy::Array a = npy::read(file);
  OnnxTensor t;
  for (uint64_t d : a.shape) t.dims.push_back(int64_t(d));
  const size_t n = a.elements();
  switch (a.dtype) {
    case npy::Dtype::kFloat32:
      t.elem_type = kOnnxFloat;
      for (size_t i = 0; i < n; ++i) t.floats.push_back(a.at_float(i));
      break;
    case npy::Dtype::kInt8: t.elem_type = kOnnxInt8; break;
    case npy::Dtype::kUint8: t.elem_type = kOnnxUint8; break;
    case npy::Dtype::kInt32: t.elem_type = kOnnxInt32; break;
  }
  if (a.dtype != npy::Dtype::kFloat32) {
    for (size_t i = 0; i < n; ++i) t.ints.push_back(a.at(i));
  }
  return t;
}

std::map<std::string, OnnxTensor> read_inputs(const Model& model, const RunArgs& a) {
  std::map<std::string, OnnxTensor> in;
  const auto& want = model.inputs();
  for (const std::string& arg : a.inputs) {
    const size_t eq = arg.find('=');
    std::string name, file = arg;
    if (eq != std::string::npos && !fs::exists(arg)) {
      name = arg.substr(0, eq), file = arg.substr(eq + 1);
    } else if (want.size() == 1) {
      name = want[0].name;
    } else {
      throw std::invalid_argument("weft run: the model has " + std::to_string(want.size()) +
                                  " inputs: give each as --input NAME=FILE");
    }
    auto it = std::find_if(want.begin(), want.end(), [&](const OnnxValueInfo& v) { return v.name == name; });
    if (it == want.end()) {
      std::string names;
      for (const auto& v : want) names += (names.empty() ? "" : ", ") + v.name;
      throw std::invalid_argument("weft run: the model has no input '" + name + "' (its inputs: " + names + ")");
    }
    OnnxTensor t = read_input(file);
    if (t.elem_type != it->elem_type) {
      throw std::invalid_argument("weft run: input '" + name + "' is " + type_name(it->elem_type) + " in the model, " + file + " holds " + type_name(t.elem_type));
    }
    in[name] = std::move(t);
  }
  for (const auto& v : want) {
    if (!in.count(v.name)) {
      throw std::invalid_argument("weft run: input '" + v.name + "' (" + type_name(v.elem_type) + " " + dims_string(v.dims) + ") is not given: --input " + (want.size() == 1 ? "FILE" : v.name + "=FILE"));
    }
  }
  return in;
}

// A bfloat16 element as its value (exact in float32); float8 elements stay codes.
float bf16_value(const OnnxTensor& t, size_t i) {
  return golden::fp_decode(uint32_t(t.ints[i]), golden::FpFormat::kBf16);
}

std::string value_text(const OnnxTensor& t, size_t i) {
  if (t.is_bf16()) return fmt::format("{:g}", bf16_value(t, i));
  return t.is_float() ? fmt::format("{:g}", t.floats[i]) : std::to_string(t.ints[i]);
}

// "" when equal bit for bit (floats compared as values; both NaN counts as equal).
std::string difference(const OnnxTensor& got, const OnnxTensor& want, size_t* count) {
  *count = 0;
  if (got.dims != want.dims || got.elem_type != want.elem_type) {
    *count = 1;
    return "type or shape differs: " + type_name(got.elem_type) + " " + dims_string(got.dims) + " vs " + type_name(want.elem_type) + " " + dims_string(want.dims);
  }
  std::string first;
  const size_t n = got.is_float() ? got.floats.size() : got.ints.size();
  for (size_t i = 0; i < n; ++i) {
    const bool same = got.is_float() ? (got.floats[i] == want.floats[i] || (std::isnan(got.floats[i]) && std::isnan(want.floats[i])))
                                     : got.ints[i] == want.ints[i];
    if (same) continue;
    if (!(*count)++) first = fmt::format("element {}: device {}, golden {}", i, value_text(got, i), value_text(want, i));
  }
  return first;
}

}  // namespace

std::string json_escape(const std::string& s) {
  std::string r;
  for (char c : s) {
    if (c == '"' || c == '\\') r += '\\';
    if (static_cast<unsigned char>(c) < 0x20) {
      r += fmt::format("\\u{:04x}", int(c));
      continue;
    }
    r += c;
  }
  return r;
}

void add_run_options(CLI::App* cmd, RunArgs& a, std::string& uri) {
  cmd->add_option("MODEL", a.model, "The .onnx model (QDQ or QOperator, as onnxruntime's quantizer writes it)")->required();
  cmd->add_option("--input,-i", a.inputs,
                  "An input: FILE for a model with one input, else NAME=FILE; .npy (float32, int8, "
                  "uint8, int32) or .pb (ONNX TensorProto); repeat for several")->required();
  cmd->add_option("--device,-d", uri,
                  "Device URI (default sim://, the Verilated RTL; ref://, pcie-sim://, uart://<tty>)");
  cmd->add_flag("--check", a.check, "Compare the outputs with the golden graph executor, bit for bit (exit 1 on a difference)");
  cmd->add_flag("--layers", a.layers, "Print a table of the steps: op, shape, where it ran, cycles, MACs, utilisation, bytes");
  cmd->add_flag("--json", a.json, "Print everything as one JSON object instead");
  cmd->add_option("--save", a.save_dir, "Write each output to DIR/<output name>.npy");
  cmd->add_option("--print", a.print_limit, "Values printed per output (default 64; 0: none, -1: all)");
}

int cmd_run(const std::string& uri, const RunArgs& a) {
  Device dev = Device::open(uri);
  Model model = Model::load(dev, a.model);
  const auto inputs = read_inputs(model, a);
  const uint64_t c0 = dev.cycle();
  const auto out = model.run(inputs);
  const uint64_t cycles = dev.cycle() - c0;

  // --check: the golden executor on the same inputs.
  std::map<std::string, std::pair<size_t, std::string>> diffs;
  bool mismatch = false;
  if (a.check) {
    std::map<std::string, OnnxTensor> want;
    try {
      want = golden::onnx::run_graph(load_onnx_graph(a.model), inputs);
    } catch (const std::invalid_argument& e) {
      throw Error(Errc::kBadModel, a.model + ": the golden executor: " + e.what());
    }
    for (const auto& [name, t] : out) {
      size_t count = 0;
      const std::string first = difference(t, want.at(name), &count);
      diffs[name] = {count, first};
      mismatch = mismatch || count > 0;
    }
  }

  if (!a.save_dir.empty()) {
    fs::create_directories(a.save_dir);
    for (const auto& [name, t] : out) {
      std::vector<uint64_t> shape(t.dims.begin(), t.dims.end());
      npy::Array arr;
      if (t.is_float()) {
        arr = npy::from_float32(t.floats, shape);
      } else if (t.is_bf16()) {
        // .npy has no bfloat16: the values as float32, exactly.
        std::vector<float> v(t.ints.size());
        for (size_t i = 0; i < v.size(); ++i) v[i] = bf16_value(t, i);
        arr = npy::from_float32(v, shape);
      } else if (t.elem_type == kOnnxInt32) {
        std::vector<int32_t> v(t.ints.begin(), t.ints.end());
        arr = npy::from_int32(v, shape);
      } else {
        std::vector<uint8_t> v(t.ints.size());
        for (size_t i = 0; i < v.size(); ++i) v[i] = uint8_t(t.ints[i]);
        arr = npy::from_int8(v, shape, t.elem_type == kOnnxInt8);
      }
      std::string file = name;
      for (char& c : file) {
        if (c == '/' || c == '\\') c = '_';
      }
      npy::write((fs::path(a.save_dir) / (file + ".npy")).string(), arr);
    }
  }

  const auto& layers = model.layers();
  if (a.json) {
    std::string j = fmt::format("{{\"model\": \"{}\", \"device\": \"{}\", \"cycles\": {}, \"outputs\": [", json_escape(a.model), json_escape(dev.description()), cycles);
    bool first = true;
    for (const auto& [name, t] : out) {
      j += fmt::format("{}{{\"name\": \"{}\", \"type\": \"{}\", \"dims\": [", first ? "" : ", ", json_escape(name), type_name(t.elem_type));
      for (size_t i = 0; i < t.dims.size(); ++i) j += fmt::format("{}{}", i ? ", " : "", t.dims[i]);
      j += "], \"values\": [";
      const size_t n = t.is_float() ? t.floats.size() : t.ints.size();
      for (size_t i = 0; i < n; ++i) {
        const std::string v = value_text(t, i);
        const bool finite = t.is_bf16()    ? std::isfinite(bf16_value(t, i))
                            : t.is_float() ? std::isfinite(t.floats[i])
                                           : true;
        j += (i ? ", " : "") + (finite ? v : "null");
      }
      j += "]";
      if (a.check) j += fmt::format(", \"golden_differences\": {}", diffs[name].first);
      j += "}";
      first = false;
    }
    j += "], \"layers\": [";
    for (size_t i = 0; i < layers.size(); ++i) {
      const LayerReport& l = layers[i];
      j += fmt::format("{}{{\"op\": \"{}\", \"node\": \"{}\", \"shape\": \"{}\", \"where\": \"{}\", \"cycles\": {}, \"macs\": {}, \"utilisation\": {:.4f}, \"dma_bytes\": {}, \"host_bytes\": {}, \"im2col_bytes\": {}, \"wait_weights\": {}, \"wait_activations\": {}, \"wait_drain\": {}, \"dma_stall\": {}, \"simt_issued\": {}, \"wall_s\": {:.6f}, \"first_cycle\": {}, \"last_cycle\": {}, \"note\": \"{}\"}}",
                       i ? ", " : "", json_escape(l.op), json_escape(l.node), json_escape(l.shape), placement_name(l.where), l.cycles, l.macs, l.utilisation, l.dma_bytes, l.host_bytes, l.im2col_bytes,
                       l.wait_weights, l.wait_activations, l.wait_drain, l.dma_stall, l.simt_issued, l.wall_seconds, l.first_cycle, l.last_cycle, json_escape(l.note));
    }
    j += fmt::format("], \"check\": {}}}", a.check ? (mismatch ? "\"differs\"" : "\"bit-exact\"") : "null");
    fmt::print("{}\n", j);
    return mismatch ? 1 : 0;
  }

  fmt::print("model    {}\ndevice   {}\n", a.model, dev.description());
  for (const auto& [name, t] : out) {
    const size_t n = t.is_float() ? t.floats.size() : t.ints.size();
    fmt::print("output   {}: {} {} ({} values)\n", name, type_name(t.elem_type), dims_string(t.dims), n);
    const size_t shown = a.print_limit < 0 ? n : std::min(n, size_t(a.print_limit));
    if (shown) {
      std::string line = "  [";
      for (size_t i = 0; i < shown; ++i) line += (i ? ", " : "") + value_text(t, i);
      line += shown < n ? fmt::format(", ... {} more]", n - shown) : "]";
      fmt::print("{}\n", line);
    }
  }
  if (a.layers) {
    fmt::print("{:<4} {:<16} {:<14} {:<11} {:<36} {:>10} {:>10} {:>6} {:>10} {:>10} {:>12}\n", "step", "op", "node", "where", "shape", "cycles", "MACs", "util", "DMA B", "host B", "im2col B");
    for (size_t i = 0; i < layers.size(); ++i) {
      const LayerReport& l = layers[i];
      fmt::print("{:<4} {:<16} {:<14} {:<11} {:<36} {:>10} {:>10} {:>6} {:>10} {:>10} {:>12}\n", i, l.op, l.node, placement_name(l.where), l.shape,
                 l.cycles, l.macs, l.cycles && l.macs ? fmt::format("{:.1f}%", 100 * l.utilisation) : "-", l.dma_bytes, l.host_bytes,
                 l.im2col_bytes ? std::to_string(l.im2col_bytes) : "-");
      if (l.last_cycle > l.first_cycle) fmt::print("     device clock {} .. {}\n", l.first_cycle, l.last_cycle);
      if (l.where == Placement::kTensorUnit && l.cycles) {
        fmt::print("     waits: weights {} ({:.0f}%), activations {} ({:.0f}%), drain {} ({:.0f}%); DMA stalled {}; {:.2f} DMA B/cycle\n",
                   l.wait_weights, 100.0 * double(l.wait_weights) / double(l.cycles), l.wait_activations,
                   100.0 * double(l.wait_activations) / double(l.cycles), l.wait_drain, 100.0 * double(l.wait_drain) / double(l.cycles),
                   l.dma_stall, double(l.dma_bytes) / double(l.cycles));
      }
      if (l.where == Placement::kSimt && l.cycles) {
        fmt::print("     SIMT: {} warp instructions, IPC {:.2f}; stalls pipe {}, divergence {}, memory {}, barrier {}\n", l.simt_issued,
                   double(l.simt_issued) / double(l.cycles), l.simt_stall_pipe, l.simt_stall_div, l.simt_stall_mem, l.simt_stall_barrier);
      }
      if (!l.note.empty()) fmt::print("     note: {}\n", l.note);
    }
  }
  fmt::print("cycles   {} (device, the whole run)\n", cycles);
  if (a.check) {
    for (const auto& [name, d] : diffs) {
      if (d.first == 0) fmt::print("check    {}: bit-exact with the golden executor\n", name);
      else fmt::print("check    {}: DIFFERS from the golden executor in {} values; first: {}\n", name, d.first, d.second);
    }
  }
  return mismatch ? 1 : 0;
}

}  // namespace weft::tool
