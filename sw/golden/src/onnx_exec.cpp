#include "weft/golden/onnx_exec.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <memory>
#include <set>
#include <stdexcept>
#include <utility>
#include <vector>

#include "weft/golden/fp.hpp"
#include "weft/golden/onnx_ops.hpp"
#include "weft/golden/quant.hpp"

namespace weft::golden::onnx {
namespace {

using weft::OnnxNode;
using weft::OnnxTensor;

constexpr float kInf = std::numeric_limits<float>::infinity();

// Thrown while a node runs; run_graph turns them into std::invalid_argument naming the node.
struct Unsupported {
  std::string why;
};
struct Malformed {
  std::string why;
};
[[noreturn]] void unsupported(const std::string& why) { throw Unsupported{why}; }
[[noreturn]] void malformed(const std::string& why) { throw Malformed{why}; }

// The first opset at which each supported op has the semantics implemented here (the opset 13-21
// definitions). A graph of an older opset runs an op only if its definition has not changed
// since (Softmax changed its axis semantics at 13, Pad and Clip moved attributes to inputs at 11).
const std::map<std::string, int64_t>& supported_since() {
  static const std::map<std::string, int64_t> ops = {
      {"QuantizeLinear", 10}, {"DequantizeLinear", 10}, {"QLinearConv", 10}, {"QLinearMatMul", 10},
      {"MatMulInteger", 10},  {"ConvInteger", 10},      {"Conv", 1},         {"MatMul", 1},
      {"Gemm", 7},            {"Relu", 1},              {"Clip", 11},        {"Add", 7},
      {"MaxPool", 1},         {"AveragePool", 1},       {"GlobalAveragePool", 1},
      {"Softmax", 13},        {"Reshape", 5},           {"Flatten", 1},      {"Transpose", 1},
      {"Concat", 4},          {"Pad", 11},              {"Identity", 1},     {"Squeeze", 1},
      {"Unsqueeze", 1},       {"Cast", 13}};
  return ops;
}

// Opset 22 added bfloat16 to Conv and the pools and stated the ceil_mode rule window() follows;
// nothing else here changed.
constexpr int64_t kNewestOpset = 22;

int64_t count(const std::vector<int64_t>& dims) {
  int64_t n = 1;
  for (int64_t d : dims) n *= d;
  return n;
}

std::string dims_str(const std::vector<int64_t>& dims) {
  // Appended piecewise: GCC 12's -Wrestrict misfires on `const char* + std::string` here.
  std::string s = "[";
  for (size_t i = 0; i < dims.size(); ++i) {
    if (i) s += ',';
    s += std::to_string(dims[i]);
  }
  s += ']';
  return s;
}

bool is_int(int32_t elem) {
  return elem == kOnnxUint8 || elem == kOnnxInt8 || elem == kOnnxInt32 || elem == kOnnxInt64;
}
bool is_8bit(int32_t elem) { return elem == kOnnxUint8 || elem == kOnnxInt8; }
bool is_fp8(int32_t elem) { return elem == kFloat8E4m3fn || elem == kFloat8E5m2; }
bool is_bf16(int32_t elem) { return elem == kOnnxBfloat16; }

// bfloat16 codes and values (golden::fp_decode exact, golden::fp_encode round to nearest even).
float bf16_value(int64_t code) { return fp_decode(static_cast<uint32_t>(code), FpFormat::kBf16); }
int64_t bf16_code(float v) { return fp_encode(v, FpFormat::kBf16); }
bool bf16_is_nan(int64_t code) { return (code & 0x7FFF) > 0x7F80; }
Fp8Type fp8_type(int32_t elem) { return elem == kFloat8E4m3fn ? Fp8Type::kE4m3fn : Fp8Type::kE5m2; }

QType qtype(int32_t elem) {
  if (!is_8bit(elem)) unsupported("quantized data type " + std::to_string(elem) + " (uint8 and int8 only)");
  return elem == kOnnxInt8 ? QType::kInt8 : QType::kUint8;
}

// Integer arithmetic wraps to the element type, as numpy (the node tests' reference) does.
int64_t wrap(int64_t v, int32_t elem) {
  switch (elem) {
    case kOnnxUint8: return static_cast<uint8_t>(v);
    case kOnnxInt8: return static_cast<int8_t>(v);
    case kOnnxInt32: return static_cast<int32_t>(v);
    default: return v;
  }
}

int64_t type_min(int32_t elem) {
  switch (elem) {
    case kOnnxUint8: return 0;
    case kOnnxInt8: return -128;
    case kOnnxInt32: return std::numeric_limits<int32_t>::min();
    default: return std::numeric_limits<int64_t>::min();
  }
}
int64_t type_max(int32_t elem) {
  switch (elem) {
    case kOnnxUint8: return 255;
    case kOnnxInt8: return 127;
    case kOnnxInt32: return std::numeric_limits<int32_t>::max();
    default: return std::numeric_limits<int64_t>::max();
  }
}

OnnxTensor empty_like(const OnnxTensor& src, std::vector<int64_t> dims) {
  OnnxTensor t;
  t.elem_type = src.elem_type;
  t.dims = std::move(dims);
  if (src.is_float()) {
    t.floats.resize(static_cast<size_t>(count(t.dims)));
  } else {
    t.ints.resize(static_cast<size_t>(count(t.dims)));
  }
  return t;
}

// dst[i] = src[j], or the fill value for j < 0; both tensors of one element type.
void copy_elem(OnnxTensor& dst, int64_t i, const OnnxTensor& src, int64_t j, float ffill = 0,
               int64_t ifill = 0) {
  if (dst.is_float()) {
    dst.floats[i] = j < 0 ? ffill : src.floats[j];
  } else {
    dst.ints[i] = j < 0 ? ifill : src.ints[j];
  }
}

std::vector<int64_t> strides_of(const std::vector<int64_t>& dims) {
  std::vector<int64_t> s(dims.size(), 1);
  for (size_t i = dims.size(); i-- > 1;) s[i - 1] = s[i] * dims[i];
  return s;
}

// Normalizes a possibly negative axis into [0, rank).
int64_t norm_axis(int64_t axis, int64_t rank, const char* what = "axis") {
  if (axis < -rank || axis >= rank) {
    malformed(std::string(what) + " " + std::to_string(axis) + " outside a rank-" + std::to_string(rank) + " tensor");
  }
  return axis < 0 ? axis + rank : axis;
}

// Where a DequantizeLinear output came from: the integer tensor and its parameters. A float
// Conv / MatMul / Gemm reading such values is evaluated on the integers (see Lazy).
struct DqOrigin {
  OnnxTensor q;
  std::vector<float> scale;
  std::vector<int64_t> zero_point;  // empty: 0
  int64_t axis = 1;                 // normalized; meaningful with more than one scale
  bool per_tensor() const { return scale.size() == 1; }
  int32_t zp(size_t i) const {
    return zero_point.empty() ? 0 : static_cast<int32_t>(zero_point[zero_point.size() == 1 ? 0 : i]);
  }
};

// The result of a QDQ Conv / MatMul / Gemm kept in its integer form, as onnxruntime's fusion
// into QLinearConv / QLinearMatMul keeps it: the exact accumulator (bias included), whose real
// value is acc * x_scale * w_scale[channel], and the Relu / Clip bounds applied since, in order.
// A QuantizeLinear consuming it requantizes the accumulator exactly like QLinearConv.
struct Lazy {
  std::vector<int64_t> acc;
  float x_scale = 1;
  std::vector<float> w_scale;  // one, or one per output channel
  int64_t channel_axis = 1;
  std::vector<std::pair<float, float>> clamps;  // (lo, hi), +-inf where a bound is absent
};

// The result of an FP8 QDQ MatMul / Gemm / Conv kept as the tensor unit holds it
// (GraphOptions::fp_tile_rows): the FP32 sums of the float8 codes in tile order, whose real
// value is sum * x_scale * w_scale[channel] + bias[channel], and whether a Relu followed. A
// QuantizeLinear to float8 consuming it applies the FP8 output stage.
struct LazyFp8 {
  std::vector<float> sums;
  float x_scale = 1;
  std::vector<float> w_scale;  // one, or one per output channel
  std::vector<float> bias;     // none, or one per output channel (the float32 bias as given)
  int64_t channel_axis = 1;
  bool relu = false;
};

// A value in the graph: a tensor, and what it is known to be beyond its elements. A lazy value's
// tensor holds only its element type (float) and dimensions until something needs the floats.
struct Value {
  OnnxTensor t;
  std::shared_ptr<const DqOrigin> dq;
  std::shared_ptr<const Lazy> lazy;
  std::shared_ptr<const LazyFp8> fp8 = nullptr;
};

size_t channel_of(const std::vector<int64_t>& dims, int64_t axis, size_t nparams, int64_t i) {
  if (nparams == 1) return 0;
  int64_t inner = 1;
  for (size_t d = static_cast<size_t>(axis) + 1; d < dims.size(); ++d) inner *= dims[d];
  return static_cast<size_t>((i / inner) % dims[axis]);
}

// A lazy value consumed by anything but QuantizeLinear, Relu, Clip or Identity becomes float:
// acc * (x_scale * w_scale) in float32, then its clamps. This is the float Conv's value up to
// float rounding (the float op sums products of dequantized values); the integer result is only
// defined where a QuantizeLinear follows, which is the only place the fused form exists.
OnnxTensor materialize(const Value& v) {
  if (v.fp8) {
    // A consumer other than QuantizeLinear to float8: the float value sum * (x_scale * w_scale)
    // + bias, then the Relu (in float32; the group's integer-free definition up to rounding).
    const LazyFp8& z = *v.fp8;
    OnnxTensor t = v.t;
    t.floats.resize(z.sums.size());
    for (size_t i = 0; i < z.sums.size(); ++i) {
      const size_t c =
          channel_of(t.dims, z.channel_axis, std::max(z.w_scale.size(), z.bias.size()), i);
      float f = z.sums[i] * (z.x_scale * z.w_scale[z.w_scale.size() == 1 ? 0 : c]);
      if (!z.bias.empty()) f += z.bias[c];
      if (z.relu && !(f >= 0)) f = std::isnan(f) ? f : 0.0f;
      t.floats[i] = f;
    }
    return t;
  }
  if (!v.lazy) return v.t;
  const Lazy& z = *v.lazy;
  OnnxTensor t = v.t;
  t.elem_type = kOnnxFloat;
  t.floats.resize(z.acc.size());
  for (size_t i = 0; i < z.acc.size(); ++i) {
    const float scale = z.x_scale * z.w_scale[channel_of(t.dims, z.channel_axis, z.w_scale.size(), i)];
    float f = static_cast<float>(z.acc[i]) * scale;
    for (const auto& [lo, hi] : z.clamps) f = std::min(std::max(f, lo), hi);
    t.floats[i] = f;
  }
  return t;
}

// Unidirectional / multidirectional numpy broadcasting: the output dims, and for each output
// element the element of `in` it reads.
std::vector<int64_t> broadcast_dims(const std::vector<int64_t>& a, const std::vector<int64_t>& b) {
  const size_t rank = std::max(a.size(), b.size());
  std::vector<int64_t> out(rank);
  for (size_t i = 0; i < rank; ++i) {
    const int64_t da = i + a.size() >= rank ? a[i + a.size() - rank] : 1;
    const int64_t db = i + b.size() >= rank ? b[i + b.size() - rank] : 1;
    if (da != db && da != 1 && db != 1) {
      malformed("shapes " + dims_str(a) + " and " + dims_str(b) + " do not broadcast");
    }
    out[i] = da == 1 ? db : da;
  }
  return out;
}

std::vector<int64_t> broadcast_index(const std::vector<int64_t>& out, const std::vector<int64_t>& in) {
  const std::vector<int64_t> in_strides = strides_of(in);
  std::vector<int64_t> idx(static_cast<size_t>(count(out)));
  for (int64_t i = 0; i < static_cast<int64_t>(idx.size()); ++i) {
    int64_t rem = i, j = 0;
    for (size_t d = out.size(); d-- > 0;) {
      const int64_t c = rem % out[d];
      rem /= out[d];
      const size_t din = d + in.size();
      if (din < out.size()) continue;  // a leading dimension `in` lacks
      const size_t k = din - out.size();
      if (in[k] != 1) j += c * in_strides[k];
    }
    idx[i] = j;
  }
  return idx;
}

// The window geometry of Conv and the pools over the spatial dimensions, from kernel_shape,
// strides, dilations, pads, auto_pad and ceil_mode. For each output position and kernel position
// `offs` holds the flat spatial input offset, -1 for a padded position, -2 for a position beyond
// the pads (only with ceil_mode).
struct Window {
  std::vector<int64_t> out;
  int64_t out_count = 1, k_count = 1;
  std::vector<int64_t> offs;
  std::vector<int64_t> stride, dilation, pad_begin, pad_end;
};

Window window(const OnnxNode& n, const std::vector<int64_t>& in, const std::vector<int64_t>& kernel,
              bool ceil_mode) {
  const size_t r = in.size();
  Window w;
  w.stride = n.ints("strides", std::vector<int64_t>(r, 1));
  w.dilation = n.ints("dilations", std::vector<int64_t>(r, 1));
  std::vector<int64_t> pads = n.ints("pads", std::vector<int64_t>(2 * r, 0));
  if (w.stride.size() != r || w.dilation.size() != r || pads.size() != 2 * r) {
    malformed("strides, dilations or pads do not match " + std::to_string(r) + " spatial dimensions");
  }
  const std::string auto_pad = n.sattr("auto_pad", "NOTSET");
  w.out.resize(r);
  w.pad_begin.resize(r);
  w.pad_end.resize(r);
  for (size_t d = 0; d < r; ++d) {
    const int64_t s = w.stride[d], dk = (kernel[d] - 1) * w.dilation[d] + 1;
    if (s < 1 || w.dilation[d] < 1 || kernel[d] < 1) malformed("non-positive stride, dilation or kernel");
    if (auto_pad == "NOTSET") {
      w.pad_begin[d] = pads[d];
      w.pad_end[d] = pads[d + r];
      const int64_t span = in[d] + pads[d] + pads[d + r] - dk;
      if (span < 0) malformed("the kernel is larger than the padded input " + dims_str(in));
      w.out[d] = (ceil_mode ? (span + s - 1) / s : span / s) + 1;
      // A ceil_mode window must start inside the input or its leading pad.
      if (ceil_mode && (w.out[d] - 1) * s >= in[d] + pads[d]) --w.out[d];
    } else if (auto_pad == "VALID") {
      if (in[d] < dk) malformed("the kernel is larger than the input " + dims_str(in));
      w.out[d] = (in[d] - dk) / s + 1;
    } else if (auto_pad == "SAME_UPPER" || auto_pad == "SAME_LOWER") {
      w.out[d] = (in[d] + s - 1) / s;
      const int64_t total = std::max<int64_t>(0, (w.out[d] - 1) * s + dk - in[d]);
      w.pad_begin[d] = auto_pad == "SAME_UPPER" ? total / 2 : total - total / 2;
      w.pad_end[d] = total - w.pad_begin[d];
    } else {
      unsupported("auto_pad " + auto_pad);
    }
    w.out_count *= w.out[d];
    w.k_count *= kernel[d];
  }
  const std::vector<int64_t> in_strides = strides_of(in);
  w.offs.resize(static_cast<size_t>(w.out_count * w.k_count));
  for (int64_t o = 0; o < w.out_count; ++o) {
    for (int64_t k = 0; k < w.k_count; ++k) {
      int64_t orem = o, krem = k, off = 0, where = 0;  // 0 inside, -1 pad, -2 beyond
      for (size_t d = r; d-- > 0;) {
        const int64_t oc = orem % w.out[d], kc = krem % kernel[d];
        orem /= w.out[d];
        krem /= kernel[d];
        const int64_t c = oc * w.stride[d] - w.pad_begin[d] + kc * w.dilation[d];
        if (c < -w.pad_begin[d] || c >= in[d] + w.pad_end[d]) {
          where = -2;
        } else if ((c < 0 || c >= in[d]) && where == 0) {
          where = -1;
        }
        off += c * in_strides[d];
      }
      w.offs[o * w.k_count + k] = where == 0 ? off : where;
    }
  }
  return w;
}

std::vector<int64_t> spatial(const std::vector<int64_t>& dims) { return {dims.begin() + 2, dims.end()}; }

// Conv2dGeometry for the integer conv operators from a 1-D or 2-D Window (1-D as H = 1).
Conv2dGeometry conv2d_geometry(const Window& w, int64_t group) {
  Conv2dGeometry g;
  g.group = group;
  const size_t r = w.stride.size(), x = r - 1;  // x: the innermost (width) dimension
  g.stride_w = w.stride[x];
  g.dilation_w = w.dilation[x];
  g.pad_left = w.pad_begin[x];
  g.pad_right = w.pad_end[x];
  if (r == 2) {
    g.stride_h = w.stride[0];
    g.dilation_h = w.dilation[0];
    g.pad_top = w.pad_begin[0];
    g.pad_bottom = w.pad_end[0];
  }
  return g;
}

IntTensor as_int(const OnnxTensor& t) { return {t.dims, std::vector<int32_t>(t.ints.begin(), t.ints.end())}; }

// 1-D conv operands as 2-D ones with H = 1.
IntTensor as_2d(IntTensor t) {
  if (t.dims.size() == 3) t.dims.insert(t.dims.begin() + 2, 1);
  return t;
}

OnnxTensor from_int(IntTensor t, int32_t elem, size_t rank) {
  OnnxTensor o;
  o.elem_type = elem;
  o.dims = std::move(t.dims);
  if (rank == 3 && o.dims.size() == 4) o.dims.erase(o.dims.begin() + 2);  // back to 1-D
  o.ints.assign(t.data.begin(), t.data.end());
  return o;
}

class Executor {
 public:
  Executor(const OnnxGraph& g, const std::map<std::string, OnnxTensor>& inputs, GraphOptions options = {})
      : g_(g), options_(options) {
    for (const auto& [name, t] : g.constants) put(name, Value{t, nullptr, nullptr});
    for (const auto& [name, t] : inputs) put(name, Value{t, nullptr, nullptr});
  }

  std::map<std::string, OnnxTensor> run() {
    if (g_.opset > kNewestOpset) {
      throw std::invalid_argument("unsupported: opset " + std::to_string(g_.opset) + " (up to " +
                                  std::to_string(kNewestOpset) + ")");
    }
    for (const OnnxNode& n : g_.nodes) {
      n_ = &n;
      const std::string where = "node " + n.name + " (" + n.op_type + "): ";
      try {
        std::string why;
        if (!op_supported(n, &why)) unsupported(why);
        if (g_.opset < supported_since().at(n.op_type)) {
          unsupported("opset " + std::to_string(g_.opset) + " (" + n.op_type + " is implemented from opset " +
                      std::to_string(supported_since().at(n.op_type)) + ")");
        }
        dispatch();
      } catch (const Unsupported& e) {
        throw std::invalid_argument("unsupported: " + where + e.why);
      } catch (const Malformed& e) {
        throw std::invalid_argument(where + e.why);
      } catch (const std::invalid_argument& e) {
        throw std::invalid_argument(where + e.what());  // from the golden operators
      } catch (const std::out_of_range&) {
        throw std::invalid_argument(where + "an input or parameter has too few elements");
      }
    }
    std::map<std::string, OnnxTensor> out;
    for (const OnnxValueInfo& o : g_.outputs) {
      auto it = env_.find(o.name);
      if (it == env_.end()) throw std::invalid_argument("graph output '" + o.name + "' has no value");
      OnnxTensor t = materialize(it->second);
      t.name = o.name;
      out[o.name] = std::move(t);
    }
    return out;
  }

 private:
  void put(const std::string& name, Value v) {
    v.t.name = name;
    env_[name] = std::move(v);
  }

  bool has(size_t i) const { return i < n_->inputs.size() && !n_->inputs[i].empty(); }

  const Value& arg(size_t i) const {
    if (!has(i)) malformed("input " + std::to_string(i) + " is missing");
    auto it = env_.find(n_->inputs[i]);
    if (it == env_.end()) malformed("input '" + n_->inputs[i] + "' has no value (a missing graph input)");
    return it->second;
  }
  // The input as a plain tensor (a lazy value materialized as float).
  OnnxTensor tensor(size_t i) const { return materialize(arg(i)); }
  OnnxTensor float_tensor(size_t i) const {
    OnnxTensor t = tensor(i);
    if (!t.is_float()) unsupported("data type " + std::to_string(t.elem_type) + " of input " + std::to_string(i) + " (float only)");
    return t;
  }
  OnnxTensor int_tensor(size_t i, bool eight_bit_only) const {
    OnnxTensor t = tensor(i);
    if (eight_bit_only ? !is_8bit(t.elem_type) : !is_int(t.elem_type)) {
      unsupported("data type " + std::to_string(t.elem_type) + " of input " + std::to_string(i));
    }
    return t;
  }
  float scalar_float(size_t i) const {
    const OnnxTensor t = float_tensor(i);
    if (t.floats.size() != 1) malformed("input " + std::to_string(i) + " must be a scalar, is " + dims_str(t.dims));
    return t.floats[0];
  }
  int32_t scalar_zp(size_t i) const {
    if (!has(i)) return 0;
    const OnnxTensor t = int_tensor(i, true);
    if (t.ints.size() != 1) unsupported("per-axis zero point of input " + std::to_string(i));
    return static_cast<int32_t>(t.ints[0]);
  }
  std::vector<int64_t> int64_list(size_t i) const {
    const OnnxTensor t = tensor(i);
    if (t.elem_type != kOnnxInt64) malformed("input " + std::to_string(i) + " must be int64");
    return t.ints;
  }

  void out(size_t i, OnnxTensor t) { out(i, Value{std::move(t), nullptr, nullptr}); }
  void out(size_t i, Value v) {
    if (i < n_->outputs.size() && !n_->outputs[i].empty()) put(n_->outputs[i], std::move(v));
  }

  void dispatch() {
    const std::string& op = n_->op_type;
    if (op == "QuantizeLinear") return quantize_linear_op();
    if (op == "DequantizeLinear") return dequantize_linear_op();
    if (op == "QLinearConv" || op == "ConvInteger") return integer_conv_op(op == "QLinearConv");
    if (op == "QLinearMatMul") return qlinear_matmul_op();
    if (op == "MatMulInteger") return matmul_integer_op();
    if (op == "Conv") return conv_op();
    if (op == "MatMul") return matmul_op();
    if (op == "Gemm") return gemm_op();
    if (op == "Relu" || op == "Clip") return clamp_op(op == "Relu");
    if (op == "Add") return add_op();
    if (op == "MaxPool" || op == "AveragePool") return pool_op(op == "MaxPool");
    if (op == "GlobalAveragePool") return global_average_pool_op();
    if (op == "Softmax") return softmax_op();
    if (op == "Identity") return out(0, arg(0));
    if (op == "Cast") return cast_op();
    if (op == "Concat") return concat_op();
    if (op == "Pad") return pad_op();
    return reshape_family_op();  // Reshape, Flatten, Squeeze, Unsqueeze, Transpose
  }

  // --- quantization -----------------------------------------------------------------------

  void quantize_linear_op() {
    const OnnxTensor scale = float_tensor(1);
    int32_t y_elem = kOnnxUint8;
    std::vector<int32_t> zp;
    const int64_t output_dtype = n_->attr("output_dtype", 0);
    if (has(2)) {
      const OnnxTensor z = tensor(2);
      y_elem = z.elem_type;
      zp.assign(z.ints.begin(), z.ints.end());
      if (output_dtype != 0 && output_dtype != y_elem)
        malformed("output_dtype differs from the zero point's type");
    } else if (output_dtype != 0) {
      y_elem = static_cast<int32_t>(output_dtype);
    }
    if (is_fp8(y_elem)) {
      const bool saturate = n_->attr("saturate", 1) != 0;
      const Value& xv = arg(0);
      if (xv.fp8 && saturate && scale.floats.size() == 1) {
        // The FP8 output stage of the tensor unit: per column scale fl32(fl32(x_scale *
        // w_scale) / y_scale) and bias fl32(b / y_scale), the Relu, then the saturating
        // rounding into the output format.
        const LazyFp8& z = *xv.fp8;
        const float ys = scale.floats[0];
        const FpFormat f = y_elem == kFloat8E4m3fn ? FpFormat::kE4M3 : FpFormat::kE5M2;
        OnnxTensor y;
        y.elem_type = y_elem;
        y.dims = xv.t.dims;
        y.ints.resize(z.sums.size());
        for (size_t i = 0; i < z.sums.size(); ++i) {
          const size_t c =
              channel_of(y.dims, z.channel_axis, std::max(z.w_scale.size(), z.bias.size()), i);
          const float sc =
              onnx_output_scale(z.x_scale, z.w_scale[z.w_scale.size() == 1 ? 0 : c], ys);
          const float b = z.bias.empty() ? 0.0f : z.bias[c] / ys;
          y.ints[i] = fp_encode(fp_postprocess(z.sums[i], sc, b, z.relu), f);
        }
        return out(0, std::move(y));
      }
      // float8: x / y_scale rounded into the format (saturate, default 1, as ONNX Cast); the
      // zero point is not added (the specification's reference and onnxruntime ignore it).
      if (n_->attr("block_size", 0) != 0) unsupported("blocked quantization");
      const OnnxTensor xf = float_tensor(0);
      const int64_t axis =
          scale.floats.size() > 1 ? norm_axis(n_->attr("axis", 1), xf.dims.size()) : 1;
      IntTensor q = quantize_linear_fp8({xf.dims, xf.floats}, scale.floats, fp8_type(y_elem),
                                        saturate, static_cast<int>(axis));
      return out(0, from_int(std::move(q), y_elem, 0));
    }
    const QType type = qtype(y_elem);
    const Value& x = arg(0);
    if (x.lazy && scale.floats.size() == 1) {
      // The fused QLinearConv / QLinearMatMul: the accumulator requantized with the multiplier
      // x_scale * w_scale[m] / y_scale (float32, in that order), then the Relu / Clip bounds as
      // quantized bounds: Q is monotonic, so Q(clip(v, a, b)) = clamp(Q(v), Q(a), Q(b)).
      const Lazy& z = *x.lazy;
      const float y_scale = scale.floats[0];
      const int32_t y_zp = zp.empty() ? 0 : zp.at(0);
      std::vector<std::pair<int32_t, int32_t>> qclamps;
      for (const auto& [lo, hi] : z.clamps) {
        qclamps.emplace_back(quantize_value(lo, y_scale, y_zp, type), quantize_value(hi, y_scale, y_zp, type));
      }
      OnnxTensor y;
      y.elem_type = y_elem;
      y.dims = x.t.dims;
      y.ints.resize(z.acc.size());
      for (size_t i = 0; i < z.acc.size(); ++i) {
        const size_t m = channel_of(y.dims, z.channel_axis, z.w_scale.size(), i);
        const float multiplier = z.x_scale * z.w_scale[m] / y_scale;
        int32_t q = requantize(z.acc[i], multiplier, y_zp, type);
        for (const auto& [lo, hi] : qclamps) q = std::min(std::max(q, lo), hi);
        y.ints[i] = q;
      }
      return out(0, std::move(y));
    }
    const OnnxTensor xf = float_tensor(0);
    if (n_->attr("block_size", 0) != 0) unsupported("blocked quantization");
    const int64_t axis = scale.floats.size() > 1 ? norm_axis(n_->attr("axis", 1), xf.dims.size()) : 1;
    IntTensor q = weft::golden::onnx::quantize_linear({xf.dims, xf.floats}, scale.floats, zp, type,
                                                      static_cast<int>(axis));
    out(0, from_int(std::move(q), y_elem, 0));
  }

  void dequantize_linear_op() {
    if (n_->attr("block_size", 0) != 0) unsupported("blocked quantization");
    const OnnxTensor x = tensor(0);
    if (is_fp8(x.elem_type)) return dequantize_fp8_op(x);
    if (!is_8bit(x.elem_type) && x.elem_type != kOnnxInt32) {
      unsupported("data type " + std::to_string(x.elem_type) + " (uint8, int8, int32, float8)");
    }
    auto origin = std::make_shared<DqOrigin>();
    origin->q = x;
    origin->scale = float_tensor(1).floats;
    if (has(2)) {
      const OnnxTensor z = tensor(2);
      if (z.elem_type != x.elem_type) malformed("the zero point's type differs from the input's");
      origin->zero_point = z.ints;
    }
    if (origin->scale.size() > 1) origin->axis = norm_axis(n_->attr("axis", 1), x.dims.size());
    std::vector<int32_t> zp(origin->zero_point.begin(), origin->zero_point.end());
    FloatTensor y = weft::golden::onnx::dequantize_linear(as_int(x), origin->scale, zp,
                                                          static_cast<int>(origin->axis));
    OnnxTensor t;
    t.elem_type = kOnnxFloat;
    t.dims = std::move(y.dims);
    t.floats = std::move(y.data);
    out(0, Value{std::move(t), std::move(origin), nullptr});
  }

  // DequantizeLinear from float8: float32(x) * x_scale. The zero point, when given, must be +0
  // (code 0) of the input's type: the specification's reference raises on any other value, and
  // so does onnxruntime.
  void dequantize_fp8_op(const OnnxTensor& x) {
    const std::vector<float> scale = float_tensor(1).floats;
    if (has(2)) {
      const OnnxTensor z = tensor(2);
      if (z.elem_type != x.elem_type) malformed("the zero point's type differs from the input's");
      for (int64_t c : z.ints) {
        if (c != 0) malformed("a float8 zero point must be 0, is code " + std::to_string(c));
      }
    }
    const int64_t axis = scale.size() > 1 ? norm_axis(n_->attr("axis", 1), x.dims.size()) : 1;
    FloatTensor y =
        dequantize_linear_fp8(as_int(x), scale, fp8_type(x.elem_type), static_cast<int>(axis));
    OnnxTensor t;
    t.elem_type = kOnnxFloat;
    t.dims = std::move(y.dims);
    t.floats = std::move(y.data);
    // The codes and scales, for an FP8 MatMul / Gemm / Conv reading this (the zero point is 0).
    auto origin = std::make_shared<DqOrigin>();
    origin->q = x;
    origin->scale = scale;
    origin->axis = axis;
    out(0, Value{std::move(t), std::move(origin), nullptr});
  }

  // --- the FP8 QDQ group (GraphOptions::fp_tile_rows) --------------------------------------

  // Inputs `x_at` and `w_at` are DequantizeLinear outputs of float8 tensors, x per tensor, w per
  // tensor or per axis `w_axis` with `channels` scales, and the optional bias `bias_at` a float32
  // tensor of `channels` values (1-D, or 1 x channels for Gemm): the group the runtime lowers.
  bool fp8_operands(size_t x_at, size_t w_at, size_t bias_at, int64_t w_axis, int64_t channels,
                    std::vector<float>* bias) const {
    if (options_.fp_tile_rows < 1) return false;
    const Value& x = arg(x_at);
    const Value& w = arg(w_at);
    if (!x.dq || !w.dq || !is_fp8(x.dq->q.elem_type) || !is_fp8(w.dq->q.elem_type)) return false;
    if (!x.dq->per_tensor()) return false;
    if (!w.dq->per_tensor() &&
        (w.dq->axis != w_axis || static_cast<int64_t>(w.dq->scale.size()) != channels))
      return false;
    bias->clear();
    if (!has(bias_at)) return true;
    const Value& b = arg(bias_at);
    if (b.lazy || b.fp8 || !b.t.is_float() || b.t.size() != channels) return false;
    if (b.t.dims.size() != 1 &&
        !(n_->op_type == "Gemm" && b.t.dims == std::vector<int64_t>{1, channels}))
      return false;
    *bias = b.t.floats;
    return true;
  }

  // The FP32 sums of A [m][k] x W [k][n] (float8 codes) as the tensor unit forms them.
  std::vector<float> fp8_sums(const std::vector<int64_t>& a, int32_t a_elem,
                              const std::vector<int64_t>& w, int32_t w_elem, int64_t m, int64_t k,
                              int64_t n) const {
    const std::vector<uint32_t> a32(a.begin(), a.end()), w32(w.begin(), w.end());
    auto fmt = [](int32_t e) { return e == kFloat8E4m3fn ? FpFormat::kE4M3 : FpFormat::kE5M2; };
    return gemm_fp(a32, w32, static_cast<int>(m), static_cast<int>(k), static_cast<int>(n),
                   fmt(a_elem), fmt(w_elem), options_.fp_tile_rows);
  }

  Value fp8_value(std::vector<int64_t> dims, std::vector<float> sums, size_t x_at, size_t w_at,
                  std::vector<float> bias, int64_t channel_axis) const {
    auto z = std::make_shared<LazyFp8>();
    z->sums = std::move(sums);
    z->x_scale = arg(x_at).dq->scale[0];
    z->w_scale = arg(w_at).dq->scale;
    z->bias = std::move(bias);
    z->channel_axis = channel_axis;
    Value v;
    v.t.elem_type = kOnnxFloat;
    v.t.dims = std::move(dims);
    v.fp8 = std::move(z);
    return v;
  }

  // --- bfloat16 (GraphOptions::fp_tile_rows) -------------------------------------------------

  // Whether input i holds bfloat16 codes.
  bool bf16_arg(size_t i) const { return has(i) && is_bf16(arg(i).t.elem_type); }

  // A MatMul / Gemm / Conv with a bfloat16 operand: both must be bfloat16.
  void require_bf16_operands() const {
    if (!bf16_arg(0) || !bf16_arg(1)) {
      unsupported("a bfloat16 " + n_->op_type + " needs both operands bfloat16 (input type " +
                  std::to_string(arg(0).t.elem_type) + ", weights type " +
                  std::to_string(arg(1).t.elem_type) + ")");
    }
  }

  // The bias of a BF16 Gemm / Conv as one float per column: N values (or, for Gemm, 1 x N or one
  // value), BFLOAT16 (decoded exactly) or FLOAT.
  std::vector<float> bf16_bias(size_t at, int64_t channels) const {
    std::vector<float> bias;
    if (!has(at)) return bias;
    const OnnxTensor b = tensor(at);
    if (!is_bf16(b.elem_type) && !b.is_float()) {
      unsupported("a bias of type " + std::to_string(b.elem_type) + " (BFLOAT16 or FLOAT)");
    }
    const bool gemm = n_->op_type == "Gemm";
    const bool ok =
        (b.size() == channels &&
         (b.dims.size() == 1 || (gemm && b.dims == std::vector<int64_t>{1, channels}))) ||
        (gemm && b.size() == 1 && b.dims.size() <= 2);
    if (!ok) {
      unsupported("a bias of shape " + dims_str(b.dims) + " (" + std::to_string(channels) +
                  " values per output channel)");
    }
    for (int64_t j = 0; j < channels; ++j) {
      const size_t i = b.size() == 1 ? 0 : static_cast<size_t>(j);
      bias.push_back(b.is_float() ? b.floats[i] : bf16_value(b.ints[i]));
    }
    return bias;
  }

  // C = A [m][k] x W [k][n] of bfloat16 codes plus the per-column bias, as bfloat16 codes.
  // fp_tile_rows >= 1: the tensor unit's rule (gemm_fp, then fp_postprocess with scale 1 and the
  // bias, then fp_encode). 0: onnx's reference evaluator's float path, k in the given order: the
  // float32 products added from +0, then the bias added in float32 and one rounding to bfloat16
  // (Conv: numpy's matmul in float32, then + B), or with `round_before_bias` (Gemm: numpy's dot
  // on bfloat16 rounds, then + C rounds again) two.
  std::vector<int64_t> bf16_gemm(const std::vector<int64_t>& a, const std::vector<int64_t>& w,
                                 int64_t m, int64_t k, int64_t n, const std::vector<float>& bias,
                                 bool round_before_bias = false) const {
    std::vector<int64_t> y(static_cast<size_t>(m * n));
    if (options_.fp_tile_rows >= 1) {
      const std::vector<uint32_t> a32(a.begin(), a.end()), w32(w.begin(), w.end());
      const std::vector<float> sums =
          gemm_fp(a32, w32, static_cast<int>(m), static_cast<int>(k), static_cast<int>(n),
                  FpFormat::kBf16, FpFormat::kBf16, options_.fp_tile_rows);
      for (int64_t i = 0; i < m * n; ++i) {
        const float b = bias.empty() ? 0.0f : bias[static_cast<size_t>(i % n)];
        y[i] = bf16_code(fp_postprocess(sums[i], 1.0f, b, false));
      }
      return y;
    }
    for (int64_t i = 0; i < m; ++i) {
      for (int64_t j = 0; j < n; ++j) {
        float sum = 0.0f;  // float32 products added in k order from +0
        for (int64_t q = 0; q < k; ++q) sum += bf16_value(a[i * k + q]) * bf16_value(w[q * n + j]);
        if (bias.empty()) {
          y[i * n + j] = bf16_code(sum);
        } else if (round_before_bias) {
          y[i * n + j] = bf16_code(bf16_value(bf16_code(sum)) + bias[j]);  // a second rounding
        } else {
          y[i * n + j] = bf16_code(sum + bias[j]);
        }
      }
    }
    return y;
  }

  static OnnxTensor bf16_tensor(std::vector<int64_t> dims, std::vector<int64_t> codes) {
    OnnxTensor t;
    t.elem_type = kOnnxBfloat16;
    t.dims = std::move(dims);
    t.ints = std::move(codes);
    return t;
  }

  void cast_op() {
    const OnnxTensor x = tensor(0);
    const int64_t to = n_->attr("to", 0);
    OnnxTensor y;
    y.dims = x.dims;
    y.elem_type = static_cast<int32_t>(to);
    if (to == x.elem_type) {
      y = x;
    } else if (x.is_float() && is_bf16(static_cast<int32_t>(to))) {
      for (float v : x.floats) y.ints.push_back(bf16_code(v));
    } else if (is_bf16(x.elem_type) && to == kOnnxFloat) {
      for (int64_t c : x.ints) y.floats.push_back(bf16_value(c));
    } else {
      unsupported("Cast from type " + std::to_string(x.elem_type) + " to type " +
                  std::to_string(to) + " (FLOAT <-> BFLOAT16)");
    }
    out(0, std::move(y));
  }

  // --- the integer operators ----------------------------------------------------------------

  void integer_conv_op(bool qlinear) {
    const size_t w_at = qlinear ? 3 : 1;
    const OnnxTensor x = int_tensor(0, true), w = int_tensor(w_at, true);
    if (x.dims.size() != 3 && x.dims.size() != 4) unsupported("a " + std::to_string(x.dims.size() - 2) + "-D conv (1-D and 2-D only)");
    if (w.dims.size() != x.dims.size()) malformed("weights " + dims_str(w.dims) + " for input " + dims_str(x.dims));
    const Window win = window(*n_, spatial(x.dims), spatial(w.dims), false);
    const Conv2dGeometry geo = conv2d_geometry(win, n_->attr("group", 1));
    if (!qlinear) {
      const int32_t xzp = scalar_zp(2);
      std::vector<int32_t> wzp;
      if (has(3)) {
        const OnnxTensor z = int_tensor(3, true);
        wzp.assign(z.ints.begin(), z.ints.end());
      }
      return out(0, from_int(conv_integer(as_2d(as_int(x)), as_2d(as_int(w)), xzp, wzp, geo), kOnnxInt32, x.dims.size()));
    }
    const OnnxTensor w_zp = int_tensor(5, true), y_zp = int_tensor(7, true);
    std::vector<int32_t> bias;
    if (has(8)) {
      const OnnxTensor b = tensor(8);
      if (b.elem_type != kOnnxInt32) malformed("the bias must be int32");
      bias.assign(b.ints.begin(), b.ints.end());
    }
    if (y_zp.ints.size() != 1) unsupported("per-axis y_zero_point");
    IntTensor y = qlinear_conv(as_2d(as_int(x)), scalar_float(1), scalar_zp(2), as_2d(as_int(w)),
                               float_tensor(4).floats, std::vector<int32_t>(w_zp.ints.begin(), w_zp.ints.end()),
                               scalar_float(6), static_cast<int32_t>(y_zp.ints[0]), qtype(y_zp.elem_type), bias, geo);
    out(0, from_int(std::move(y), y_zp.elem_type, x.dims.size()));
  }

  // a - a_zero_point (per row of a 2-D-or-more a, or per tensor) and b - b_zero_point (per
  // column or per tensor), so that the product needs no zero points.
  static IntTensor minus_zp(const OnnxTensor& t, const std::vector<int64_t>& zp, bool per_row) {
    IntTensor r = as_int(t);
    if (zp.empty()) return r;
    const int64_t cols = t.dims.back(), rows = t.dims.size() >= 2 ? t.dims[t.dims.size() - 2] : 1;
    const int64_t n = per_row ? rows : cols;
    if (zp.size() != 1 && static_cast<int64_t>(zp.size()) != n) malformed("zero point of " + std::to_string(zp.size()) + " elements");
    for (int64_t i = 0; i < static_cast<int64_t>(r.data.size()); ++i) {
      const int64_t c = per_row ? (i / cols) % rows : i % cols;
      r.data[i] -= static_cast<int32_t>(zp[zp.size() == 1 ? 0 : c]);
    }
    return r;
  }

  void matmul_integer_op() {
    const OnnxTensor a = int_tensor(0, true), b = int_tensor(1, true);
    const std::vector<int64_t> azp = has(2) ? int_tensor(2, true).ints : std::vector<int64_t>{};
    const std::vector<int64_t> bzp = has(3) ? int_tensor(3, true).ints : std::vector<int64_t>{};
    out(0, from_int(matmul_integer(minus_zp(a, azp, true), minus_zp(b, bzp, false), 0, 0), kOnnxInt32, 0));
  }

  void qlinear_matmul_op() {
    const OnnxTensor a = int_tensor(0, true), b = int_tensor(3, true), y_zp = int_tensor(7, true);
    if (float_tensor(1).floats.size() != 1 || float_tensor(6).floats.size() != 1) {
      unsupported("per-axis a_scale or y_scale");
    }
    const std::vector<float> b_scale = float_tensor(4).floats;
    if (b_scale.size() == 1 && int_tensor(5, true).ints.size() == 1) {
      IntTensor y = qlinear_matmul(as_int(a), scalar_float(1), scalar_zp(2), as_int(b), b_scale[0], scalar_zp(5),
                                   scalar_float(6), scalar_zp(7), qtype(y_zp.elem_type));
      return out(0, from_int(std::move(y), y_zp.elem_type, 0));
    }
    // b_scale / b_zero_point per column of b (the N output columns).
    const int64_t n = b.dims.back();
    if (b_scale.size() != 1 && static_cast<int64_t>(b_scale.size()) != n) malformed("b_scale of " + std::to_string(b_scale.size()) + " elements");
    const std::vector<int64_t> azp = int_tensor(2, true).ints, bzp = int_tensor(5, true).ints;
    if (azp.size() != 1) unsupported("per-row a_zero_point");
    IntTensor acc = matmul_integer(minus_zp(a, azp, true), minus_zp(b, bzp, false), 0, 0);
    const float a_s = scalar_float(1), y_s = scalar_float(6);
    for (size_t i = 0; i < acc.data.size(); ++i) {
      const size_t col = b_scale.size() == 1 ? 0 : i % static_cast<size_t>(n);
      const float multiplier = weft::golden::onnx_output_scale(a_s, b_scale[col], y_s);
      acc.data[i] = requantize(acc.data[i], multiplier, scalar_zp(7), qtype(y_zp.elem_type));
    }
    out(0, from_int(std::move(acc), y_zp.elem_type, 0));
  }

  // --- QDQ Conv / MatMul / Gemm -------------------------------------------------------------

  // The operands of an integer evaluation, when input `x_at` is a per-tensor DequantizeLinear of
  // an 8-bit tensor, `w_at` one per tensor or per axis `w_axis` with `channels` scales, and
  // `bias_at` absent or a DequantizeLinear of int32 with zero point 0 and scale x_scale * w_scale
  // (the quantizer's convention, which makes the bias an addend of the accumulator).
  struct QdqOperands {
    const DqOrigin* x = nullptr;
    const DqOrigin* w = nullptr;
    std::vector<int64_t> bias;  // empty: none; else one or `channels` elements
  };
  bool qdq_operands(size_t x_at, size_t w_at, size_t bias_at, int64_t w_axis, int64_t channels, QdqOperands* q) const {
    const Value& x = arg(x_at);
    const Value& w = arg(w_at);
    if (!x.dq || !w.dq || !is_8bit(x.dq->q.elem_type) || !is_8bit(w.dq->q.elem_type)) return false;
    if (!x.dq->per_tensor() || x.dq->zero_point.size() > 1) return false;
    if (!w.dq->per_tensor() && (w.dq->axis != w_axis || static_cast<int64_t>(w.dq->scale.size()) != channels)) return false;
    q->x = x.dq.get();
    q->w = w.dq.get();
    if (!has(bias_at)) return true;
    const Value& b = arg(bias_at);
    if (!b.dq || b.dq->q.elem_type != kOnnxInt32 || b.dq->q.dims.size() > 1) return false;
    const int64_t nb = static_cast<int64_t>(b.dq->q.ints.size());
    if (nb != 1 && nb != channels) return false;
    for (int64_t m = 0; m < nb; ++m) {
      if (b.dq->zp(m) != 0) return false;
      const float want = q->x->scale[0] * q->w->scale[q->w->per_tensor() ? 0 : m];
      const float got = b.dq->scale[b.dq->per_tensor() ? 0 : m];
      // The quantizer stores float32(x_scale * w_scale); allow its double-then-float rounding.
      if (std::fabs(got - want) > 1e-6f * std::fabs(want)) return false;
    }
    q->bias = b.dq->q.ints;
    return true;
  }

  Value lazy_value(std::vector<int64_t> dims, std::vector<int64_t> acc, const QdqOperands& q, int64_t channel_axis) {
    auto z = std::make_shared<Lazy>();
    z->acc = std::move(acc);
    z->x_scale = q.x->scale[0];
    z->w_scale = q.w->scale;
    z->channel_axis = channel_axis;
    Value v;
    v.t.elem_type = kOnnxFloat;
    v.t.dims = std::move(dims);
    v.lazy = std::move(z);
    return v;
  }

  void conv_op() {
    const OnnxTensor& xs = arg(0).t;  // shapes only: a lazy input's dims are known
    const OnnxTensor& ws = arg(1).t;
    if (xs.dims.size() < 3 || ws.dims.size() != xs.dims.size()) malformed("input " + dims_str(xs.dims) + ", weights " + dims_str(ws.dims));
    const int64_t group = n_->attr("group", 1);
    const int64_t n = xs.dims[0], c = xs.dims[1], m = ws.dims[0];
    if (group < 1 || c % group || m % group || ws.dims[1] != c / group) {
      malformed("weights " + dims_str(ws.dims) + " for input " + dims_str(xs.dims) + " and group " + std::to_string(group));
    }
    const Window win = window(*n_, spatial(xs.dims), spatial(ws.dims), false);
    std::vector<int64_t> ydims = {n, m};
    ydims.insert(ydims.end(), win.out.begin(), win.out.end());

    QdqOperands q;
    if (xs.dims.size() <= 4 && qdq_operands(0, 1, 2, 0, m, &q)) {
      // QDQ Conv: the QLinearConv accumulator (ConvInteger) plus the int32 bias.
      std::vector<int32_t> wzp;
      for (int64_t o = 0; o < m; ++o) wzp.push_back(q.w->zp(o));
      const IntTensor acc32 = conv_integer(as_2d(as_int(q.x->q)), as_2d(as_int(q.w->q)), q.x->zp(0), wzp,
                                           conv2d_geometry(win, group));
      std::vector<int64_t> acc(acc32.data.begin(), acc32.data.end());
      const int64_t plane = win.out_count;
      if (!q.bias.empty()) {
        for (size_t i = 0; i < acc.size(); ++i) acc[i] += q.bias[q.bias.size() == 1 ? 0 : (i / plane) % m];
      }
      return out(0, lazy_value(ydims, std::move(acc), q, 1));
    }
    if (bf16_arg(0) || bf16_arg(1)) {
      require_bf16_operands();
      if (xs.dims.size() != 4 || group != 1) {
        unsupported("a bfloat16 Conv that is not 2-D with group 1");
      }
      const OnnxTensor& x = arg(0).t;
      const OnnxTensor& w = arg(1).t;
      const std::vector<float> bias = bf16_bias(2, m);
      const int64_t in_plane = count(spatial(xs.dims)), kk = win.k_count * c,
                    rows = n * win.out_count;
      const bool float_path = options_.fp_tile_rows < 1;
      // im2col rows (b, output position); K in the tensor unit's (kernel position, channel)
      // order, or the reference's (channel, kernel position) for the float path. Padded taps are
      // code 0 (+0).
      auto kidx = [&](int64_t kp, int64_t ch) {
        return float_path ? ch * win.k_count + kp : kp * c + ch;
      };
      std::vector<int64_t> a(static_cast<size_t>(rows * kk), 0), wk(static_cast<size_t>(kk * m));
      for (int64_t b = 0; b < n; ++b) {
        for (int64_t p = 0; p < win.out_count; ++p) {
          for (int64_t kp = 0; kp < win.k_count; ++kp) {
            const int64_t off = win.offs[p * win.k_count + kp];
            if (off < 0) continue;
            for (int64_t ch = 0; ch < c; ++ch) {
              a[(b * win.out_count + p) * kk + kidx(kp, ch)] =
                  x.ints[(b * c + ch) * in_plane + off];
            }
          }
        }
      }
      for (int64_t o = 0; o < m; ++o) {
        for (int64_t ch = 0; ch < c; ++ch) {
          for (int64_t kp = 0; kp < win.k_count; ++kp) {
            wk[kidx(kp, ch) * m + o] = w.ints[(o * c + ch) * win.k_count + kp];
          }
        }
      }
      const std::vector<int64_t> codes = bf16_gemm(a, wk, rows, kk, m, bias);
      std::vector<int64_t> nchw(codes.size());
      for (int64_t b = 0; b < n; ++b) {
        for (int64_t p = 0; p < win.out_count; ++p) {
          for (int64_t o = 0; o < m; ++o) {
            nchw[(b * m + o) * win.out_count + p] = codes[(b * win.out_count + p) * m + o];
          }
        }
      }
      return out(0, bf16_tensor(ydims, std::move(nchw)));
    }
    std::vector<float> fbias;
    if (xs.dims.size() == 4 && group == 1 && fp8_operands(0, 1, 2, 0, m, &fbias)) {
      // The FP8 group: im2col rows (b, output position) of K = (kernel position, channel), the
      // runtime's and the driver's order, padded positions code 0 (+0); OIHW weights as K x M.
      const OnnxTensor& x8 = arg(0).dq->q;
      const OnnxTensor& w8 = arg(1).dq->q;
      const int64_t in_plane = count(spatial(xs.dims)), kk = win.k_count * c,
                    rows = n * win.out_count;
      std::vector<int64_t> a(static_cast<size_t>(rows * kk), 0), wk(static_cast<size_t>(kk * m));
      for (int64_t b = 0; b < n; ++b) {
        for (int64_t p = 0; p < win.out_count; ++p) {
          for (int64_t kp = 0; kp < win.k_count; ++kp) {
            const int64_t off = win.offs[p * win.k_count + kp];
            if (off < 0) continue;
            for (int64_t ch = 0; ch < c; ++ch) {
              a[(b * win.out_count + p) * kk + kp * c + ch] =
                  x8.ints[(b * c + ch) * in_plane + off];
            }
          }
        }
      }
      for (int64_t o = 0; o < m; ++o) {
        for (int64_t ch = 0; ch < c; ++ch) {
          for (int64_t kp = 0; kp < win.k_count; ++kp)
            wk[(kp * c + ch) * m + o] = w8.ints[(o * c + ch) * win.k_count + kp];
        }
      }
      const std::vector<float> sums = fp8_sums(a, x8.elem_type, wk, w8.elem_type, rows, kk, m);
      std::vector<float> nchw(sums.size());
      for (int64_t b = 0; b < n; ++b) {
        for (int64_t p = 0; p < win.out_count; ++p) {
          for (int64_t o = 0; o < m; ++o)
            nchw[(b * m + o) * win.out_count + p] = sums[(b * win.out_count + p) * m + o];
        }
      }
      return out(0, fp8_value(ydims, std::move(nchw), 0, 1, std::move(fbias), 1));
    }

    const OnnxTensor x = float_tensor(0), w = float_tensor(1);
    std::vector<float> bias;
    if (has(2)) {
      bias = float_tensor(2).floats;
      if (static_cast<int64_t>(bias.size()) != m) malformed("bias of " + std::to_string(bias.size()) + " elements for " + std::to_string(m) + " channels");
    }
    const int64_t gc = c / group, gm = m / group, in_plane = count(spatial(x.dims));
    OnnxTensor y = empty_like(x, ydims);
    for (int64_t b = 0; b < n; ++b) {
      for (int64_t o = 0; o < m; ++o) {
        for (int64_t p = 0; p < win.out_count; ++p) {
          float sum = 0;
          for (int64_t ci = 0; ci < gc; ++ci) {
            const int64_t ch = (o / gm) * gc + ci;
            const float* xp = &x.floats[(b * c + ch) * in_plane];
            const float* wp = &w.floats[(o * gc + ci) * win.k_count];
            for (int64_t k = 0; k < win.k_count; ++k) {
              const int64_t off = win.offs[p * win.k_count + k];
              if (off >= 0) sum += xp[off] * wp[k];
            }
          }
          y.floats[(b * m + o) * win.out_count + p] = sum + (bias.empty() ? 0.0f : bias[o]);
        }
      }
    }
    out(0, std::move(y));
  }

  // The QDQ MatMul accumulator of 2-D-or-batched a (uint8) by 2-D-or-batched b (int8) the way
  // MLAS's u8 x s8 AVX2 kernel adds it without VNNI (GraphOptions): pairs of raw products
  // saturated to int16.
  IntTensor u8s8_int16_pairs(const OnnxTensor& a, int32_t za, const OnnxTensor& b, const std::vector<int64_t>& zb) {
    const MatMulShape s = matmul_shape(a.dims, b.dims);
    IntTensor y;
    y.dims = s.out;
    y.data.resize(static_cast<size_t>(s.batch * s.m * s.n));
    for (int64_t t = 0; t < s.batch; ++t) {
      for (int64_t i = 0; i < s.m; ++i) {
        for (int64_t j = 0; j < s.n; ++j) {
          const int64_t zw = zb.empty() ? 0 : zb[zb.size() == 1 ? 0 : static_cast<size_t>(j)];
          int64_t raw = 0, sum_a = 0, sum_w = 0;
          for (int64_t k = 0; k < s.k; k += 2) {
            int64_t pair = 0;
            for (int64_t kk = k; kk < std::min(k + 2, s.k); ++kk) {
              const int64_t av = a.ints[static_cast<size_t>(s.a_batch_stride[t] + i * s.k + kk)];
              const int64_t wv = b.ints[static_cast<size_t>(s.b_batch_stride[t] + kk * s.n + j)];
              pair += av * wv;
              sum_a += av, sum_w += wv;
            }
            raw += std::clamp<int64_t>(pair, -32768, 32767);
          }
          y.data[static_cast<size_t>((t * s.m + i) * s.n + j)] =
              static_cast<int32_t>(raw - zw * sum_a - za * sum_w + s.k * za * zw);
        }
      }
    }
    return y;
  }

  bool emulating_u8s8(const QdqOperands& q) const {
    return options_.emulate_u8s8_int16_pairs && q.x->q.elem_type == kOnnxUint8 && q.w->q.elem_type == kOnnxInt8;
  }

  void matmul_op() {
    const OnnxTensor& as = arg(0).t;
    const OnnxTensor& bs = arg(1).t;
    const MatMulShape s = matmul_shape(as.dims, bs.dims);
    QdqOperands q;
    // Per-axis weights only as a 2-D B, per column (axis 1), the layout the quantizer writes.
    if (qdq_operands(0, 1, 99, bs.dims.size() == 2 ? 1 : -1, s.n, &q)) {
      std::vector<int64_t> wzp;
      for (int64_t j = 0; j < (q.w->per_tensor() ? 1 : s.n); ++j) wzp.push_back(q.w->zp(j));
      const IntTensor acc32 = emulating_u8s8(q) ? u8s8_int16_pairs(q.x->q, q.x->zp(0), q.w->q, wzp)
                                                : matmul_integer(minus_zp(q.x->q, {q.x->zp(0)}, true), minus_zp(q.w->q, wzp, false), 0, 0);
      return out(0, lazy_value(s.out, std::vector<int64_t>(acc32.data.begin(), acc32.data.end()), q,
                               static_cast<int64_t>(s.out.size()) - 1));
    }
    if (bf16_arg(0) || bf16_arg(1)) {
      // Every leading dimension of A folds into the rows; the weights must be 2-D.
      require_bf16_operands();
      if (bs.dims.size() != 2) {
        unsupported("bfloat16 MatMul weights of rank " + std::to_string(bs.dims.size()) +
                    " (2-D only)");
      }
      return out(0, bf16_tensor(s.out, bf16_gemm(as.ints, bs.ints, s.batch * s.m, s.k, s.n, {})));
    }
    std::vector<float> fbias;
    if (bs.dims.size() == 2 && fp8_operands(0, 1, 99, 1, s.n, &fbias)) {
      // The FP8 group with 2-D weights: every leading dimension of A folds into the rows.
      const OnnxTensor& a8 = arg(0).dq->q;
      const OnnxTensor& b8 = arg(1).dq->q;
      return out(0, fp8_value(s.out,
                              fp8_sums(a8.ints, a8.elem_type, b8.ints, b8.elem_type, s.batch * s.m,
                                       s.k, s.n),
                              0, 1, {}, static_cast<int64_t>(s.out.size()) - 1));
    }
    const OnnxTensor a = float_tensor(0), b = float_tensor(1);
    OnnxTensor y = empty_like(a, s.out);
    for (int64_t t = 0; t < s.batch; ++t) {
      for (int64_t i = 0; i < s.m; ++i) {
        for (int64_t j = 0; j < s.n; ++j) {
          float sum = 0;
          for (int64_t k = 0; k < s.k; ++k) {
            sum += a.floats[s.a_batch_stride[t] + i * s.k + k] * b.floats[s.b_batch_stride[t] + k * s.n + j];
          }
          y.floats[(t * s.m + i) * s.n + j] = sum;
        }
      }
    }
    out(0, std::move(y));
  }

  static OnnxTensor transposed_2d(const OnnxTensor& t) {
    OnnxTensor r = empty_like(t, {t.dims[1], t.dims[0]});
    for (int64_t i = 0; i < t.dims[0]; ++i) {
      for (int64_t j = 0; j < t.dims[1]; ++j) copy_elem(r, j * t.dims[0] + i, t, i * t.dims[1] + j);
    }
    return r;
  }

  void gemm_op() {
    const bool trans_a = n_->attr("transA", 0) != 0, trans_b = n_->attr("transB", 0) != 0;
    const float alpha = n_->fattr("alpha", 1.0f), beta = n_->fattr("beta", 1.0f);
    const OnnxTensor& as = arg(0).t;
    const OnnxTensor& bs = arg(1).t;
    if (as.dims.size() != 2 || bs.dims.size() != 2) malformed("A " + dims_str(as.dims) + " and B " + dims_str(bs.dims) + " must be 2-D");
    const int64_t m = as.dims[trans_a ? 1 : 0], k = as.dims[trans_a ? 0 : 1];
    const int64_t n = bs.dims[trans_b ? 0 : 1];
    if (bs.dims[trans_b ? 1 : 0] != k) malformed("A " + dims_str(as.dims) + " and B " + dims_str(bs.dims) + " do not multiply");
    QdqOperands q;
    if (alpha == 1.0f && (beta == 1.0f || !has(2)) && qdq_operands(0, 1, 2, trans_b ? 0 : 1, n, &q)) {
      // QDQ Gemm: the QLinearMatMul accumulator of op(A) x op(B) plus the int32 bias per column.
      std::vector<int64_t> wzp;
      for (int64_t j = 0; j < (q.w->per_tensor() ? 1 : n); ++j) wzp.push_back(q.w->zp(j));
      const OnnxTensor a8 = trans_a ? transposed_2d(q.x->q) : q.x->q;
      const OnnxTensor b8 = trans_b ? transposed_2d(q.w->q) : q.w->q;
      const IntTensor acc32 = emulating_u8s8(q) ? u8s8_int16_pairs(a8, q.x->zp(0), b8, wzp)
                                                : matmul_integer(minus_zp(a8, {q.x->zp(0)}, true), minus_zp(b8, wzp, false), 0, 0);
      std::vector<int64_t> acc(acc32.data.begin(), acc32.data.end());
      if (!q.bias.empty()) {
        for (size_t i = 0; i < acc.size(); ++i) acc[i] += q.bias[q.bias.size() == 1 ? 0 : i % n];
      }
      return out(0, lazy_value({m, n}, std::move(acc), q, 1));
    }
    if (bf16_arg(0) || bf16_arg(1)) {
      require_bf16_operands();
      if (trans_a || alpha != 1.0f || (has(2) && beta != 1.0f)) {
        unsupported("a bfloat16 Gemm with transA, alpha or beta other than 0, 1, 1");
      }
      const OnnxTensor b16 = trans_b ? transposed_2d(arg(1).t) : arg(1).t;
      const std::vector<float> bias = bf16_bias(2, n);
      return out(0, bf16_tensor({m, n}, bf16_gemm(as.ints, b16.ints, m, k, n, bias, true)));
    }
    std::vector<float> fbias;
    if (!trans_a && alpha == 1.0f && (beta == 1.0f || !has(2)) &&
        fp8_operands(0, 1, 2, trans_b ? 0 : 1, n, &fbias)) {
      const OnnxTensor& a8 = arg(0).dq->q;
      const OnnxTensor b8 = trans_b ? transposed_2d(arg(1).dq->q) : arg(1).dq->q;
      return out(
          0, fp8_value({m, n}, fp8_sums(a8.ints, a8.elem_type, b8.ints, b8.elem_type, m, k, n), 0,
                       1, std::move(fbias), 1));
    }
    const OnnxTensor a = float_tensor(0), b = float_tensor(1);
    std::vector<float> c;
    std::vector<int64_t> c_index;
    if (has(2)) {
      const OnnxTensor ct = float_tensor(2);
      if (broadcast_dims({m, n}, ct.dims) != std::vector<int64_t>{m, n}) malformed("C " + dims_str(ct.dims) + " does not broadcast to the output");
      c = ct.floats;
      c_index = broadcast_index({m, n}, ct.dims);
    }
    OnnxTensor y = empty_like(a, {m, n});
    for (int64_t i = 0; i < m; ++i) {
      for (int64_t j = 0; j < n; ++j) {
        float sum = 0;
        for (int64_t p = 0; p < k; ++p) {
          const float av = a.floats[trans_a ? p * m + i : i * k + p];
          const float bv = b.floats[trans_b ? j * k + p : p * n + j];
          sum += av * bv;
        }
        float v = alpha * sum;
        if (!c.empty()) v += beta * c[c_index[i * n + j]];
        y.floats[i * n + j] = v;
      }
    }
    out(0, std::move(y));
  }

  // --- elementwise --------------------------------------------------------------------------

  void clamp_op(bool relu) {
    const Value& x = arg(0);
    if (x.fp8 && relu) {
      // Folded into the FP8 output stage (relu after the bias, -0 to +0, NaN through).
      auto z = std::make_shared<LazyFp8>(*x.fp8);
      z->relu = true;
      Value v;
      v.t = x.t;
      v.fp8 = std::move(z);
      return out(0, std::move(v));
    }
    if (x.lazy) {
      // Exact in the integer domain: the bound is applied to the quantized value when a
      // QuantizeLinear consumes this (see quantize_linear_op).
      auto z = std::make_shared<Lazy>(*x.lazy);
      float lo = relu ? 0.0f : -kInf, hi = kInf;
      if (!relu && has(1)) lo = scalar_float(1);
      if (!relu && has(2)) hi = scalar_float(2);
      z->clamps.emplace_back(lo, hi);
      return out(0, Value{x.t, nullptr, std::move(z)});
    }
    OnnxTensor y = materialize(x);
    if (is_bf16(y.elem_type)) {
      // Relu on bfloat16: negative values and -0 to +0, NaN kept (the device's fused Relu).
      if (!relu) unsupported("Clip on bfloat16");
      for (int64_t& c : y.ints) {
        if ((c & 0x8000) && !bf16_is_nan(c)) c = 0;
      }
    } else if (y.is_float()) {
      const float lo = relu ? 0.0f : (has(1) ? scalar_float(1) : -kInf);
      const float hi = relu || !has(2) ? kInf : scalar_float(2);
      for (float& v : y.floats) v = std::min(std::max(v, lo), hi);
    } else if (is_int(y.elem_type)) {
      auto bound = [&](size_t i, int64_t dflt) {
        if (relu || !has(i)) return dflt;
        const OnnxTensor b = tensor(i);
        if (b.elem_type != y.elem_type || b.ints.size() != 1) malformed("a bound must be a scalar of the input's type");
        return b.ints[0];
      };
      const int64_t lo = relu ? 0 : bound(1, type_min(y.elem_type)), hi = bound(2, type_max(y.elem_type));
      for (int64_t& v : y.ints) v = std::min(std::max(v, lo), hi);
    } else {
      unsupported("data type " + std::to_string(y.elem_type));
    }
    out(0, std::move(y));
  }

  void add_op() {
    const OnnxTensor a = tensor(0), b = tensor(1);
    if (a.elem_type != b.elem_type) malformed("operand types " + std::to_string(a.elem_type) + " and " + std::to_string(b.elem_type) + " differ");
    if (!a.is_float() && !is_int(a.elem_type) && !is_bf16(a.elem_type)) {
      unsupported("data type " + std::to_string(a.elem_type));
    }
    const std::vector<int64_t> dims = broadcast_dims(a.dims, b.dims);
    const std::vector<int64_t> ia = broadcast_index(dims, a.dims), ib = broadcast_index(dims, b.dims);
    OnnxTensor y = empty_like(a, dims);
    for (size_t i = 0; i < ia.size(); ++i) {
      if (is_bf16(y.elem_type)) {
        // The float32 sum of the two values, rounded once.
        y.ints[i] = bf16_code(bf16_value(a.ints[ia[i]]) + bf16_value(b.ints[ib[i]]));
      } else if (y.is_float()) {
        y.floats[i] = a.floats[ia[i]] + b.floats[ib[i]];
      } else {
        y.ints[i] = wrap(a.ints[ia[i]] + b.ints[ib[i]], a.elem_type);
      }
    }
    out(0, std::move(y));
  }

  // --- pooling and softmax ------------------------------------------------------------------

  void pool_op(bool max) {
    const OnnxTensor x = tensor(0);
    if (!x.is_float() && !(max && is_8bit(x.elem_type))) unsupported("data type " + std::to_string(x.elem_type));
    if (x.dims.size() < 3) malformed("input " + dims_str(x.dims) + " has no spatial dimensions");
    const std::vector<int64_t> kernel = n_->ints("kernel_shape");
    if (kernel.size() != x.dims.size() - 2) malformed("kernel_shape does not match the input " + dims_str(x.dims));
    const Window win = window(*n_, spatial(x.dims), kernel, n_->attr("ceil_mode", 0) != 0);
    const bool count_pad = n_->attr("count_include_pad", 0) != 0;
    const bool column_major = n_->attr("storage_order", 0) != 0;
    const int64_t planes = x.dims[0] * x.dims[1], in_plane = count(spatial(x.dims));
    std::vector<int64_t> ydims = {x.dims[0], x.dims[1]};
    ydims.insert(ydims.end(), win.out.begin(), win.out.end());
    OnnxTensor y = empty_like(x, ydims), indices;
    indices.elem_type = kOnnxInt64;
    indices.dims = ydims;
    indices.ints.resize(static_cast<size_t>(count(ydims)));
    for (int64_t pl = 0; pl < planes; ++pl) {
      for (int64_t p = 0; p < win.out_count; ++p) {
        const int64_t yi = pl * win.out_count + p;
        double sum = 0;
        int64_t n = 0, best = -1;
        for (int64_t k = 0; k < win.k_count; ++k) {
          const int64_t off = win.offs[p * win.k_count + k];
          if (off == -1 && count_pad) ++n;
          if (off < 0) continue;
          const int64_t xi = pl * in_plane + off;
          ++n;
          if (max) {
            const bool better = best < 0 || (x.is_float() ? x.floats[xi] > x.floats[best] : x.ints[xi] > x.ints[best]);
            if (better) best = xi;
          } else {
            sum += x.floats[xi];
          }
        }
        if (max) {
          if (best < 0) malformed("a window covers only padding");
          copy_elem(y, yi, x, best);
          indices.ints[yi] = column_major ? pl * in_plane + column_major_offset(best - pl * in_plane, spatial(x.dims)) : best;
        } else {
          // The float32 mean of the window (the sum kept in double: order-independent enough
          // for the specification's float32 tolerance).
          y.floats[yi] = n ? static_cast<float>(sum / static_cast<double>(n)) : 0.0f;
        }
      }
    }
    out(0, std::move(y));
    if (max) out(1, std::move(indices));
  }

  // MaxPool's Indices with storage_order 1: the spatial offset with the first dimension fastest.
  static int64_t column_major_offset(int64_t row_major, const std::vector<int64_t>& dims) {
    int64_t offset = 0, stride = 1;
    std::vector<int64_t> coord(dims.size());
    for (size_t d = dims.size(); d-- > 0;) {
      coord[d] = row_major % dims[d];
      row_major /= dims[d];
    }
    for (size_t d = 0; d < dims.size(); ++d) {
      offset += coord[d] * stride;
      stride *= dims[d];
    }
    return offset;
  }

  void global_average_pool_op() {
    const OnnxTensor x = float_tensor(0);
    if (x.dims.size() < 3) malformed("input " + dims_str(x.dims) + " has no spatial dimensions");
    const int64_t planes = x.dims[0] * x.dims[1], plane = count(spatial(x.dims));
    std::vector<int64_t> ydims(x.dims.size(), 1);
    ydims[0] = x.dims[0];
    ydims[1] = x.dims[1];
    OnnxTensor y = empty_like(x, ydims);
    for (int64_t p = 0; p < planes; ++p) {
      double sum = 0;
      for (int64_t i = 0; i < plane; ++i) sum += x.floats[p * plane + i];
      y.floats[p] = static_cast<float>(sum / static_cast<double>(plane));
    }
    out(0, std::move(y));
  }

  void softmax_op() {
    const OnnxTensor x = float_tensor(0);
    const int64_t rank = static_cast<int64_t>(x.dims.size());
    const int64_t axis = norm_axis(n_->attr("axis", -1), rank);
    const int64_t len = x.dims[axis];
    int64_t inner = 1;
    for (int64_t d = axis + 1; d < rank; ++d) inner *= x.dims[d];
    const int64_t outer = len * inner == 0 ? 0 : x.size() / (len * inner);
    OnnxTensor y = x;
    for (int64_t o = 0; o < outer; ++o) {
      for (int64_t in = 0; in < inner; ++in) {
        auto at = [&](int64_t j) -> float& { return y.floats[(o * len + j) * inner + in]; };
        float mx = -kInf;
        for (int64_t j = 0; j < len; ++j) mx = std::max(mx, at(j));
        float sum = 0;
        for (int64_t j = 0; j < len; ++j) sum += (at(j) = std::exp(at(j) - mx));
        for (int64_t j = 0; j < len; ++j) at(j) /= sum;
      }
    }
    out(0, std::move(y));
  }

  // --- data movement ------------------------------------------------------------------------

  void concat_op() {
    if (!n_->int_attrs.count("axis")) malformed("no axis");
    std::vector<OnnxTensor> parts;
    for (size_t i = 0; i < n_->inputs.size(); ++i) {
      if (has(i)) parts.push_back(tensor(i));
    }
    if (parts.empty()) malformed("no inputs");
    const int64_t rank = static_cast<int64_t>(parts[0].dims.size());
    const int64_t axis = norm_axis(n_->attr("axis", 0), rank);
    std::vector<int64_t> dims = parts[0].dims;
    dims[axis] = 0;
    for (const OnnxTensor& p : parts) {
      bool same = p.elem_type == parts[0].elem_type && static_cast<int64_t>(p.dims.size()) == rank;
      for (int64_t d = 0; same && d < rank; ++d) same = d == axis || p.dims[d] == parts[0].dims[d];
      if (!same) malformed("inputs " + dims_str(parts[0].dims) + " and " + dims_str(p.dims) + " do not concatenate");
      dims[axis] += p.dims[axis];
    }
    int64_t outer = 1, inner = 1;
    for (int64_t d = 0; d < axis; ++d) outer *= dims[d];
    for (int64_t d = axis + 1; d < rank; ++d) inner *= dims[d];
    OnnxTensor y = empty_like(parts[0], dims);
    int64_t yi = 0;
    for (int64_t o = 0; o < outer; ++o) {
      for (const OnnxTensor& p : parts) {
        const int64_t chunk = p.dims[axis] * inner;
        for (int64_t j = 0; j < chunk; ++j) copy_elem(y, yi++, p, o * chunk + j);
      }
    }
    out(0, std::move(y));
  }

  void pad_op() {
    const OnnxTensor x = tensor(0);
    const std::string mode = n_->sattr("mode", "constant");
    if (mode != "constant" && mode != "edge" && mode != "reflect") unsupported("Pad mode " + mode);
    const int64_t rank = static_cast<int64_t>(x.dims.size());
    const std::vector<int64_t> given = int64_list(1);
    std::vector<int64_t> axes;
    if (has(3)) {
      for (int64_t a : int64_list(3)) axes.push_back(norm_axis(a, rank));
    } else {
      for (int64_t a = 0; a < rank; ++a) axes.push_back(a);
    }
    if (given.size() != 2 * axes.size()) malformed("pads of " + std::to_string(given.size()) + " elements for " + std::to_string(axes.size()) + " axes");
    std::vector<int64_t> begin(rank, 0), dims = x.dims;
    for (size_t i = 0; i < axes.size(); ++i) {
      begin[axes[i]] = given[i];
      dims[axes[i]] += given[i] + given[i + axes.size()];
      if (dims[axes[i]] < 0) malformed("pads remove more than the input has");
    }
    float ffill = 0;
    int64_t ifill = 0;
    if (has(2)) {
      const OnnxTensor v = tensor(2);
      if (v.elem_type != x.elem_type || v.size() != 1) malformed("constant_value must be a scalar of the input's type");
      if (v.is_float()) ffill = v.floats[0]; else ifill = v.ints[0];
    }
    const std::vector<int64_t> in_strides = strides_of(x.dims);
    OnnxTensor y = empty_like(x, dims);
    for (int64_t i = 0; i < y.size(); ++i) {
      int64_t rem = i, j = 0;
      for (int64_t d = rank; d-- > 0;) {
        int64_t c = rem % dims[d] - begin[d];
        rem /= dims[d];
        if (c < 0 || c >= x.dims[d]) {
          if (mode == "constant" || x.dims[d] == 0) {
            j = -1;
            break;
          }
          if (mode == "edge") {
            c = std::clamp<int64_t>(c, 0, x.dims[d] - 1);
          } else {
            const int64_t period = 2 * (x.dims[d] - 1);
            if (period == 0) {
              c = 0;
            } else {
              c = ((c % period) + period) % period;
              if (c >= x.dims[d]) c = period - c;
            }
          }
        }
        j += c * in_strides[d];
      }
      copy_elem(y, i, x, j, ffill, ifill);
    }
    out(0, std::move(y));
  }

  void reshape_family_op() {
    const std::string& op = n_->op_type;
    OnnxTensor x = tensor(0);
    const int64_t rank = static_cast<int64_t>(x.dims.size());
    std::vector<int64_t> dims;
    if (op == "Reshape") {
      const std::vector<int64_t> shape = int64_list(1);
      const bool allowzero = n_->attr("allowzero", 0) != 0;
      int64_t known = 1, infer = -1;
      for (size_t i = 0; i < shape.size(); ++i) {
        int64_t d = shape[i];
        if (d == 0 && !allowzero) {
          if (static_cast<int64_t>(i) >= rank) malformed("shape " + dims_str(shape) + " copies a dimension " + dims_str(x.dims) + " lacks");
          d = x.dims[i];
        }
        if (d == -1) {
          if (infer >= 0) malformed("shape " + dims_str(shape) + " has two -1");
          infer = static_cast<int64_t>(i);
        } else if (d < 0) {
          malformed("shape " + dims_str(shape) + " has a negative dimension");
        } else {
          known *= d;
        }
        dims.push_back(d);
      }
      if (infer >= 0) {
        if (known == 0 || x.size() % known) malformed("shape " + dims_str(shape) + " does not resolve for " + dims_str(x.dims));
        dims[infer] = x.size() / known;
      }
    } else if (op == "Flatten") {
      int64_t axis = n_->attr("axis", 1);
      if (axis < -rank || axis > rank) malformed("axis " + std::to_string(axis) + " outside a rank-" + std::to_string(rank) + " tensor");
      if (axis < 0) axis += rank;
      int64_t outer = 1;
      for (int64_t d = 0; d < axis; ++d) outer *= x.dims[d];
      dims = {outer, outer ? x.size() / outer : 0};
    } else if (op == "Squeeze" || op == "Unsqueeze") {
      std::vector<int64_t> axes = has(1) ? int64_list(1) : n_->ints("axes");
      if (op == "Squeeze") {
        std::set<int64_t> drop;
        for (int64_t a : axes) drop.insert(norm_axis(a, rank));
        for (int64_t d = 0; d < rank; ++d) {
          const bool squeeze = axes.empty() ? x.dims[d] == 1 : drop.count(d) > 0;
          if (squeeze && x.dims[d] != 1) malformed("axis " + std::to_string(d) + " of " + dims_str(x.dims) + " is not 1");
          if (!squeeze) dims.push_back(x.dims[d]);
        }
      } else {
        const int64_t out_rank = rank + static_cast<int64_t>(axes.size());
        std::set<int64_t> add;
        for (int64_t a : axes) {
          if (!add.insert(norm_axis(a, out_rank)).second) malformed("axes repeat");
        }
        for (int64_t d = 0, src = 0; d < out_rank; ++d) dims.push_back(add.count(d) ? 1 : x.dims[src++]);
      }
    } else if (op == "Transpose") {
      std::vector<int64_t> perm = n_->ints("perm");
      if (perm.empty()) {
        for (int64_t d = rank; d-- > 0;) perm.push_back(d);
      }
      std::vector<int64_t> sorted = perm;
      std::sort(sorted.begin(), sorted.end());
      for (int64_t d = 0; d < rank; ++d) {
        if (static_cast<int64_t>(sorted.size()) != rank || sorted[d] != d) malformed("perm is no permutation of " + std::to_string(rank) + " axes");
      }
      for (int64_t d = 0; d < rank; ++d) dims.push_back(x.dims[perm[d]]);
      const std::vector<int64_t> in_strides = strides_of(x.dims);
      OnnxTensor y = empty_like(x, dims);
      for (int64_t i = 0; i < y.size(); ++i) {
        int64_t rem = i, j = 0;
        for (int64_t d = rank; d-- > 0;) {
          j += (rem % dims[d]) * in_strides[perm[d]];
          rem /= dims[d];
        }
        copy_elem(y, i, x, j);
      }
      return out(0, std::move(y));
    }
    if (count(dims) != x.size()) malformed("shape " + dims_str(dims) + " does not hold the " + std::to_string(x.size()) + " elements of " + dims_str(x.dims));
    x.dims = std::move(dims);
    out(0, std::move(x));
  }

  const OnnxGraph& g_;
  GraphOptions options_;
  std::map<std::string, Value> env_;
  const OnnxNode* n_ = nullptr;
};

}  // namespace

bool op_supported(const weft::OnnxNode& n, std::string* why) {
  auto no = [&](const std::string& reason) {
    if (why) *why = reason;
    return false;
  };
  if (!n.domain.empty() && n.domain != "ai.onnx") return no("domain '" + n.domain + "'");
  if (!supported_since().count(n.op_type)) return no("operator " + n.op_type);
  const std::string auto_pad = n.sattr("auto_pad", "NOTSET");
  if (auto_pad != "NOTSET" && auto_pad != "VALID" && auto_pad != "SAME_UPPER" && auto_pad != "SAME_LOWER") {
    return no("auto_pad " + auto_pad);
  }
  if ((n.op_type == "QuantizeLinear" || n.op_type == "DequantizeLinear") && n.attr("block_size", 0) != 0) {
    return no("blocked quantization (block_size)");
  }
  if (n.op_type == "QuantizeLinear") {
    const int64_t t = n.attr("output_dtype", 0);
    if (t != 0 && !is_8bit(static_cast<int32_t>(t)) && !is_fp8(static_cast<int32_t>(t))) {
      return no("output_dtype " + std::to_string(t));
    }
  }
  if (n.op_type == "Cast") {
    const int64_t to = n.attr("to", 0);
    if (to != kOnnxFloat && to != kOnnxBfloat16) {
      return no("Cast to type " + std::to_string(to) + " (FLOAT <-> BFLOAT16)");
    }
  }
  if (n.op_type == "Pad") {
    const std::string mode = n.sattr("mode", "constant");
    if (mode != "constant" && mode != "edge" && mode != "reflect") return no("Pad mode " + mode);
  }
  if (why) why->clear();
  return true;
}

std::map<std::string, weft::OnnxTensor> run_graph(const weft::OnnxGraph& g,
                                                  const std::map<std::string, weft::OnnxTensor>& inputs) {
  return Executor(g, inputs).run();
}

std::map<std::string, weft::OnnxTensor> run_graph(const weft::OnnxGraph& g,
                                                  const std::map<std::string, weft::OnnxTensor>& inputs,
                                                  const GraphOptions& options) {
  return Executor(g, inputs, options).run();
}

}  // namespace weft::golden::onnx
