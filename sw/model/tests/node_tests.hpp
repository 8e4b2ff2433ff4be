// ONNX node-test directories (model.onnx + test_data_set_*/input_*.pb, output_*.pb, the layout of
// Debian's libonnx-testdata and of the runtime's generated model corpus): listing, reading and
// comparing, shared by the runtime's tests.
#pragma once

#include <algorithm>
#include <cmath>
#include <cstring>
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

// ONNX 1.12's node tests (Debian's) store bfloat16 data as UINT16 tensors of the bits
// (test_cast_BFLOAT16_to_FLOAT ...): such a tensor, where the graph declares BFLOAT16, is the
// bfloat16 tensor it holds.
inline OnnxTensor as_declared(OnnxTensor t, int32_t declared) {
  if (declared == kOnnxBfloat16 && t.elem_type == kOnnxUint16) t.elem_type = kOnnxBfloat16;
  return t;
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
      s.inputs[g.inputs[i].name] =
          as_declared(load_onnx_tensor(p.string()), g.inputs[i].elem_type);
    }
    for (size_t i = 0;; ++i) {
      const fs::path p = d / ("output_" + std::to_string(i) + ".pb");
      if (!fs::exists(p)) break;
      OnnxTensor t = load_onnx_tensor(p.string());
      if (i < g.outputs.size()) t = as_declared(std::move(t), g.outputs[i].elem_type);
      s.outputs.push_back(std::move(t));
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

// Whether a bfloat16 code is a NaN: S.11111111.xxxxxxx with x != 0.
inline bool bf16_is_nan(int64_t code) { return (code & 0x7FFF) > 0x7F80; }

// "" when `got` equals `want`: integers exactly, floats within ONNX's backend-test tolerance
// (|got - want| <= atol + rtol * |want|, rtol 1e-3, atol 1e-7; equal infinities match) or, with
// `exact_floats`, bit for bit (the float8 tests: a float32 multiply has one right answer), float8
// and bfloat16 codes exactly; any NaN equals any NaN (the reference keeps a NaN's sign and
// payload, fp_encode's canonical NaN does not). Else the first difference.
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
      if (want.is_bf16() && bf16_is_nan(got.ints[i]) && bf16_is_nan(want.ints[i])) continue;
      if (got.ints[i] != want.ints[i]) {
        os << "element " << i << ": " << got.ints[i] << ", expected " << want.ints[i];
        return os.str();
      }
    }
  }
  return "";
}

// ONNX 1.12's node tests of Cast float -> bfloat16 (Debian's libonnx-testdata) expect the
// float32's top 16 bits, a truncation; the specification's reference since (onnx 1.23's
// backend/test/case/node/cast.py: astype(ml_dtypes.bfloat16)) and onnxruntime round to nearest
// even, as the runtime and the golden executor do. For those tests, "" when every element of
// `got` is the rounding of `x` and every element of `want` its truncation (NaN as NaN); `differ`
// counts the elements where the two differ. The rounding is computed here on the bits, apart
// from golden::fp_encode: (u + 0x7FFF + bit 16 of u) >> 16.
inline bool truncating_bf16_cast_test(const std::string& name) {
  return name == "test_cast_FLOAT_to_BFLOAT16" ||
         name == "test_castlike_FLOAT_to_BFLOAT16_expanded";
}
inline std::string check_truncating_bf16_cast(const OnnxTensor& x, const OnnxTensor& got,
                                              const OnnxTensor& want, int* differ) {
  *differ = 0;
  if (!x.is_float() || !got.is_bf16() || !want.is_bf16() || got.ints.size() != x.floats.size() ||
      want.ints.size() != x.floats.size()) {
    return "not a float -> bfloat16 Cast of the same size";
  }
  for (size_t i = 0; i < x.floats.size(); ++i) {
    uint32_t u;
    std::memcpy(&u, &x.floats[i], sizeof u);
    const bool nan = (u & 0x7FFFFFFFu) > 0x7F800000u;
    const int64_t rne = nan ? 0x7FC0 : int64_t((uint64_t(u) + 0x7FFFu + ((u >> 16) & 1u)) >> 16);
    const int64_t trunc = int64_t(u >> 16);
    const bool got_ok = nan ? bf16_is_nan(got.ints[i]) : got.ints[i] == rne;
    const bool want_ok = nan ? bf16_is_nan(want.ints[i]) : want.ints[i] == trunc;
    if (!got_ok || !want_ok) {
      std::ostringstream os;
      os << "element " << i << ": got " << got.ints[i] << ", expected " << want.ints[i]
         << "; rounding " << rne << ", truncation " << trunc;
      return os.str();
    }
    *differ += !nan && rne != trunc;
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
