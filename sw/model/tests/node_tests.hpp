// ONNX node-test directories (model.onnx + test_data_set_*/input_*.pb, output_*.pb, the layout of
// Debian's libonnx-testdata and of the runtime's generated model corpus): listing, reading and
// comparing, shared by the runtime's tests.
#pragma once

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <map>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include "weft/onnx_graph.hpp"

namespace weft::test {

namespace fs = std::filesystem;

struct DataSet {
  std::map<std::string, OnnxTensor> inputs;  // by graph input name
  std::vector<OnnxTensor> outputs;           // in graph output order
};

inline std::vector<fs::path> sorted_dirs(const fs::path& root, const std::string& prefix = "") {
  std::vector<fs::path> v;
  if (!fs::is_directory(root)) return v;
  for (const auto& e : fs::directory_iterator(root)) {
    if (e.is_directory() && e.path().filename().string().rfind(prefix, 0) == 0) v.push_back(e.path());
  }
  std::sort(v.begin(), v.end());
  return v;
}

// The data sets of a test directory, inputs named after the graph's inputs in order.
inline std::vector<DataSet> data_sets(const fs::path& dir, const OnnxGraph& g) {
  std::vector<DataSet> sets;
  for (const fs::path& d : sorted_dirs(dir, "test_data_set_")) {
    DataSet s;
    for (size_t i = 0;; ++i) {
      const fs::path p = d / ("input_" + std::to_string(i) + ".pb");
      if (!fs::exists(p)) break;
      if (i >= g.inputs.size()) break;
      s.inputs[g.inputs[i].name] = load_onnx_tensor(p.string());
    }
    for (size_t i = 0;; ++i) {
      const fs::path p = d / ("output_" + std::to_string(i) + ".pb");
      if (!fs::exists(p)) break;
      s.outputs.push_back(load_onnx_tensor(p.string()));
    }
    sets.push_back(std::move(s));
  }
  return sets;
}

// Whether a float8 code is a NaN: E4M3FN S.1111.111, E5M2 S.11111.xx with xx != 0.
inline bool fp8_is_nan(int64_t code, int32_t elem_type) {
  const int64_t c = code & 0x7F;
  return elem_type == kOnnxFloat8E4m3fn ? c == 0x7F : c > 0x7C;
}

// "" when `got` equals `want`: integers exactly, floats within ONNX's backend-test tolerance
// (|got - want| <= atol + rtol * |want|, rtol 1e-3, atol 1e-7; equal infinities match) or, with
// `exact_floats`, bit for bit (the float8 tests: a float32 multiply has one right answer), float8
// codes exactly; any NaN equals any NaN (the reference keeps a NaN's sign, fp_encode's canonical
// NaN does not). Else the first difference.
inline std::string compare(const OnnxTensor& got, const OnnxTensor& want,
                           bool exact_floats = false) {
  std::ostringstream os;
  if (got.dims != want.dims) {
    os << "shape differs";
    return os.str();
  }
  if (got.is_float() != want.is_float() || (!want.is_float() && got.elem_type != want.elem_type)) {
    os << "element type " << got.elem_type << ", expected " << want.elem_type;
    return os.str();
  }
  if (want.is_float()) {
    for (size_t i = 0; i < want.floats.size(); ++i) {
      const float g = got.floats[i], w = want.floats[i];
      if (std::isnan(w) && std::isnan(g)) continue;
      const bool same = exact_floats ? std::signbit(g) == std::signbit(w) && g == w
                                     : g == w || std::fabs(g - w) <= 1e-7 + 1e-3 * std::fabs(w);
      if (!same) {
        os << "element " << i << ": " << g << ", expected " << w;
        return os.str();
      }
    }
  } else {
    const bool fp8 = is_float8(want.elem_type);
    for (size_t i = 0; i < want.ints.size(); ++i) {
      if (fp8 && fp8_is_nan(got.ints[i], want.elem_type) &&
          fp8_is_nan(want.ints[i], want.elem_type))
        continue;
      if (got.ints[i] != want.ints[i]) {
        os << "element " << i << ": " << got.ints[i] << ", expected " << want.ints[i];
        return os.str();
      }
    }
  }
  return "";
}

// The ops of a model file, without loading it through the runtime ("" when it does not load).
inline std::set<std::string> ops_of(const fs::path& model) {
  std::set<std::string> ops;
  try {
    for (const auto& n : load_onnx_graph(model.string()).nodes) ops.insert(n.op_type);
  } catch (...) {
  }
  return ops;
}

// The devices the runtime's tests run on: ref://, and sim:// when the test is built with a sim://
// plugin (WEFT_HAVE_SIM); and GoogleTest's names for them.
inline std::vector<std::string> test_devices() {
  std::vector<std::string> v = {"ref://"};
#ifdef WEFT_HAVE_SIM
  v.push_back("sim://?array=16x16");
#endif
  return v;
}
inline std::string device_test_name(const std::string& uri) {
  return uri.rfind("sim", 0) == 0 ? "Sim" : "Ref";
}

}  // namespace weft::test
