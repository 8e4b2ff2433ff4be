// The model runtime: lowering an ONNX graph to tensor-unit operations and host operations, and
// running the plan (docs/model-runtime.md, "Lowering" and "Running").
#include "weft/model.hpp"

#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <deque>
#include <filesystem>
#include <new>
#include <set>
#include <sstream>

#include "host_ops.hpp"
#include "weft/error.hpp"
#include "weft/golden/fp.hpp"
#include "weft/onnx_graph.hpp"
#include "weft/ops.hpp"
#include "weft/simt.hpp"
#include "weft_kernel_args.h"

#ifndef WEFT_KERNEL_ELF_DIR
#define WEFT_KERNEL_ELF_DIR ""
#endif

namespace weft {

std::string_view placement_name(Placement p) {
  switch (p) {
    case Placement::kTensorUnit: return "tensor unit";
    case Placement::kSimt: return "SIMT";
    case Placement::kHost: return "host";
  }
  return "?";
}

namespace {

using model::dims_string;
using model::element_count;

[[noreturn]] void bad_node(const std::string& path, const OnnxNode& n, const std::string& why) {
  throw Error(Errc::kBadModel, path + ": node " + n.name + " (" + n.op_type + "): " + why);
}

bool is_8bit(int32_t t) { return t == kOnnxUint8 || t == kOnnxInt8; }

float f32_mul(float a, float b) {
  volatile float r = a * b;
  return r;
}

// A tensor-unit operation: a convolution or a matrix product of 8-bit operands with int32
// accumulation, then either int32 out (ConvInteger / MatMulInteger) or ONNX requantization to 8
// bits with a clamp (QLinearConv / QLinearMatMul and the folded QDQ groups). Operands are named
// values; their contents may be constants (packed at load) or computed at run time.
struct TensorOp {
  bool conv = false;
  std::string label;  // "QLinearConv", "Conv (QDQ)", ...
  std::string x, w, y;
  // Quantization parameters by value name ("" = absent: zero point 0, or no bias).
  std::string x_scale, x_zp, w_scale, w_zp, bias, y_scale, y_zp;
  bool transpose_w = false;  // Gemm transB = 1: w is [N][K]
  bool int32_out = false;
  int32_t y_type = kOnnxUint8;  // quantized output type
  // Fused Relu / Clip (as float bounds in the real domain; applied after requantization).
  bool relu = false;
  std::string clip_min, clip_max;
  // Convolution attributes.
  std::vector<int64_t> strides, pads, dilations;
  int64_t group = 1;
  std::string auto_pad = "NOTSET";
  std::vector<std::string> folded;  // names of the nodes this op replaces
  // The FP8 form (docs/model-runtime.md, "FP8 on the tensor unit"): float8 input and weights,
  // FP32 sums in the tensor unit's tile order, the output stage's scale, optional float32 bias
  // (`fp_bias`, an initializer of N values, divided by y_scale) and Relu, a float8 output.
  bool fp8 = false;
  std::string fp_bias;
  int64_t y_dtype = 0;  // the QuantizeLinear's output_dtype attribute (0: none)
  // The BF16 form (docs/model-runtime.md, "BF16 on the tensor unit"): a MatMul / Gemm / Conv of a
  // bfloat16 input by bfloat16 weights (an initializer), FP32 sums in the tensor unit's tile
  // order, the optional bias (`fp_bias`: an initializer of N or 1 BFLOAT16 / FLOAT values) and a
  // following Relu in the output stage, a bfloat16 output.
  bool bf16 = false;
};

struct Step {
  Placement where = Placement::kHost;
  const OnnxNode* node = nullptr;  // the host op, or the compute node of a tensor op
  TensorOp t;
  std::string note;
  // A folded QDQ group run by a SIMT kernel (node->op_type "QAdd", "QAveragePool",
  // "QGlobalAveragePool"): the graph's own nodes, which the host runs in order instead when the
  // device cannot (no SIMT core, no kernel).
  std::vector<const OnnxNode*> fallback;
};

// Values: the runtime's tensors by name.
using Values = std::map<std::string, OnnxTensor>;

const OnnxTensor& get(const Values& v, const std::string& name, const std::string& who) {
  auto it = v.find(name);
  if (it == v.end()) throw Error(Errc::kBadModel, who + ": value '" + name + "' is not available");
  return it->second;
}

float scalar_float(const Values& v, const std::string& name, const std::string& who) {
  const OnnxTensor& t = get(v, name, who);
  if (!t.is_float() || t.floats.size() != 1) {
    throw Error(Errc::kBadModel, who + ": '" + name + "' must be one float32 value (a per-tensor scale)");
  }
  return t.floats[0];
}

std::vector<float> floats_of(const Values& v, const std::string& name, const std::string& who) {
  const OnnxTensor& t = get(v, name, who);
  if (!t.is_float() || t.floats.empty()) throw Error(Errc::kBadModel, who + ": '" + name + "' must be float32 values");
  return t.floats;
}

// A zero point: values and type (uint8 when absent, as ONNX defines).
struct ZeroPoint {
  std::vector<int32_t> v{0};
  int32_t type = kOnnxUint8;
};
ZeroPoint zero_point_of(const Values& v, const std::string& name, const std::string& who) {
  ZeroPoint z;
  if (name.empty()) return z;
  const OnnxTensor& t = get(v, name, who);
  if (!is_8bit(t.elem_type) || t.ints.empty()) throw Error(Errc::kBadModel, who + ": zero point '" + name + "' must be uint8 or int8");
  z.v.assign(t.ints.begin(), t.ints.end());
  z.type = t.elem_type;
  return z;
}

bool uniform(const std::vector<int32_t>& v) {
  return std::all_of(v.begin(), v.end(), [&](int32_t x) { return x == v[0]; });
}

struct MatGeometry {
  int64_t batches = 1, m = 0, k = 0, n = 0;  // per batch: [m][k] x [k][n]
  bool batched_w = false;
  std::vector<int64_t> out_dims;
};

}  // namespace

struct Model::Impl {
  Device* dev = nullptr;
  ModelOptions opt;
  OnnxGraph g;
  std::vector<Step> steps;
  std::vector<LayerReport> layers;
  // Device memory (docs/model-runtime.md, "Memory"): the values that stay on the device between
  // tensor-unit steps, the packed weights of each step (packed at its first run, kept), and the
  // activation buffers, reused within a run once their value is dead and across runs.
  std::map<std::string, std::vector<size_t>> readers;  // value -> steps that read it
  std::set<std::string> resident;      // tensor-op outputs whose every reader is a tensor op's input
  std::map<size_t, PackedConv> packed;  // step -> packed weights
  struct Resident {
    DeviceActivation act;
    std::vector<int64_t> dims;  // the ONNX dimensions of the value
    int32_t elem_type = 0;
    bool nchw = false;  // a convolution's NCHW value (else rows x columns)
  };
  std::map<std::string, Resident> on_device;  // this run's resident values
  std::vector<DeviceActivation> free_buffers;
  // SIMT steps: the nodes made by folding (stable addresses), the core and its loaded kernel.
  std::deque<OnnxNode> synthetic;
  std::unique_ptr<Simt> simt;
  std::string simt_loaded;
  std::string kernel_path(const std::string& kernel) const;
  void run_simt_maxpool(const Step& s, Values& v, LayerReport& r);
  void run_simt_qdq(const Step& s, Values& v, LayerReport& r);
  void run_fallback(const Step& s, Values& v, LayerReport& r, const std::string& why);
  bool simt_ready(const std::string& kernel, std::string* why);

  void lower();
  void plan_memory();
  void run_tensor_op(const Step& s, Values& v, LayerReport& r);
  void run_fp8_op(const Step& s, Values& v, LayerReport& r);
  void run_bf16_op(const Step& s, Values& v, LayerReport& r);
  template <class T>
  void run_fp_codes(const Step& s, const OnnxTensor& x, const OnnxTensor& w, const Conv2dShape& cs,
                    const MatGeometry& mg, const GemmOptions& opt, int32_t y_type, Values& v,
                    LayerReport& r, const char* note);
  bool run_resident(size_t index, const Conv2dShape& cs, const std::vector<uint8_t>& filter_ohwi,
                    const GemmOptions& opt, const std::vector<int32_t>& channel_zps,
                    const OnnxTensor& x, const MatGeometry& mg, Values& v, LayerReport& r);
  void run_step(const Step& s, Values& v, LayerReport& r);
  Border border_for(const std::string& value, int h, int w, const Values& v) const;
  DeviceActivation take_buffer(int n, int h, int w, int c, Operand type, Border border);
  void release(const std::string& value, size_t step);
  void materialize(const std::string& value, Values& v);
};

namespace {

// Producer and consumers of every value.
struct Uses {
  std::map<std::string, int> producer;                 // node index
  std::map<std::string, std::vector<int>> consumers;  // node indices
  std::set<std::string> graph_outputs;
};

Uses uses_of(const OnnxGraph& g) {
  Uses u;
  for (int i = 0; i < int(g.nodes.size()); ++i) {
    for (const auto& y : g.nodes[i].outputs) u.producer[y] = i;
    for (const auto& x : g.nodes[i].inputs) {
      if (!x.empty()) u.consumers[x].push_back(i);
    }
  }
  for (const auto& o : g.outputs) u.graph_outputs.insert(o.name);
  return u;
}

std::string input(const OnnxNode& n, size_t i) { return i < n.inputs.size() ? n.inputs[i] : ""; }

// The single consumer of `value`, if it has exactly one and is not a graph output.
const OnnxNode* sole_consumer(const OnnxGraph& g, const Uses& u, const std::string& value) {
  if (u.graph_outputs.count(value)) return nullptr;
  auto it = u.consumers.find(value);
  if (it == u.consumers.end() || it->second.size() != 1) return nullptr;
  return &g.nodes[it->second[0]];
}

const OnnxNode* producer_of(const OnnxGraph& g, const Uses& u, const std::string& value,
                            const char* op) {
  auto it = u.producer.find(value);
  if (it == u.producer.end()) return nullptr;
  const OnnxNode& n = g.nodes[it->second];
  return n.op_type == op && n.domain.empty() ? &n : nullptr;
}


// DequantizeLinear(s) -> Add / AveragePool / GlobalAveragePool -> QuantizeLinear, every scale and
// zero point a per-tensor constant: one step that a SIMT kernel runs with the specification's
// float32 arithmetic (IEEE soft-float, the same results as the host), as the synthetic node
// "QAdd" (inputs a, a_scale, a_zp, b, b_scale, b_zp, y_scale, y_zp) or "QAveragePool" /
// "QGlobalAveragePool" (x, x_scale, x_zp, y_scale, y_zp; the pool's attributes).
bool fold_qdq_simt(const OnnxGraph& g, const Uses& u, const OnnxNode& n, Step* s,
                   std::deque<OnnxNode>* synthetic) {
  if (!n.domain.empty()) return false;
  const bool add = n.op_type == "Add";
  if (!add && n.op_type != "AveragePool" && n.op_type != "GlobalAveragePool") return false;
  if (!model::host_op_supported(n, nullptr)) return false;
  auto per_tensor_const = [&](const std::string& name, bool may_be_absent) {
    if (name.empty()) return may_be_absent;
    const auto it = g.constants.find(name);
    return it != g.constants.end() && it->second.size() == 1;
  };
  std::vector<const OnnxNode*> dqs;
  for (size_t i = 0; i < (add ? 2u : 1u); ++i) {
    const OnnxNode* dq = producer_of(g, u, input(n, i), "DequantizeLinear");
    if (!dq || !per_tensor_const(input(*dq, 1), false) || !per_tensor_const(input(*dq, 2), true)) return false;
    dqs.push_back(dq);
  }
  const OnnxNode* q = sole_consumer(g, u, n.outputs.at(0));
  if (!q || q->op_type != "QuantizeLinear" || !q->domain.empty() || !per_tensor_const(input(*q, 1), false) ||
      !per_tensor_const(input(*q, 2), true)) {
    return false;
  }
  OnnxNode m = n;
  m.op_type = add ? "QAdd" : "Q" + n.op_type;
  m.domain = "weft";
  m.inputs.clear();
  for (const OnnxNode* dq : dqs) {
    m.inputs.push_back(dq->inputs.at(0));
    m.inputs.push_back(input(*dq, 1));
    m.inputs.push_back(input(*dq, 2));
  }
  m.inputs.push_back(input(*q, 1));
  m.inputs.push_back(input(*q, 2));
  m.outputs = {q->outputs.at(0)};
  synthetic->push_back(std::move(m));
  s->node = &synthetic->back();
  s->where = Placement::kSimt;
  s->fallback = dqs;
  s->fallback.push_back(&n);
  s->fallback.push_back(q);
  s->note = "DequantizeLinear -> " + n.op_type + " -> QuantizeLinear on the SIMT core, float32 by soft-float";
  return true;
}

void conv_attrs(const OnnxNode& n, TensorOp* t) {
  t->strides = n.ints("strides", {1, 1});
  t->pads = n.ints("pads", {0, 0, 0, 0});
  t->dilations = n.ints("dilations", {1, 1});
  t->group = n.attr("group", 1);
  t->auto_pad = n.sattr("auto_pad", "NOTSET");
}

// DequantizeLinear -> Conv / MatMul / Gemm (-> Relu | Clip) -> QuantizeLinear, with constant
// weights (and bias): the integer op onnxruntime fuses it into. Returns false (and leaves the
// nodes to the host) when the group does not have that form.
bool match_qdq(const OnnxGraph& g, const Uses& u, const OnnxNode& n, TensorOp* t, std::string* why) {
  const bool is_conv = n.op_type == "Conv", is_gemm = n.op_type == "Gemm";
  const OnnxNode* dqx = producer_of(g, u, input(n, 0), "DequantizeLinear");
  const OnnxNode* dqw = producer_of(g, u, input(n, 1), "DequantizeLinear");
  if (!dqx || !dqw) {
    *why = "its inputs are not DequantizeLinear outputs (a float operator; the runtime runs quantized networks)";
    return false;
  }
  // Float8 weights (an initializer of FLOAT8E4M3FN / E5M2) make it the FP8 form.
  const auto w_const = g.constants.find(dqw->inputs.at(0));
  const bool fp8 = w_const != g.constants.end() && is_float8(w_const->second.elem_type);
  const std::string bias_in = input(n, 2);
  const OnnxNode* dqb = bias_in.empty() ? nullptr : producer_of(g, u, bias_in, "DequantizeLinear");
  if (fp8 && !bias_in.empty()) {
    // The output stage adds one float32 per column: a float32 initializer of N values (Gemm's C
    // also as 1 x N) divided by y_scale. Anything else would need the sums on the host.
    const OnnxTensor& wt = w_const->second;
    const bool rows_out = is_conv || (is_gemm && n.attr("transB", 0) != 0);  // [N][...] weights
    const int64_t n_out = wt.dims.empty() ? -1 : rows_out ? wt.dims.front() : wt.dims.back();
    const auto b = g.constants.find(bias_in);
    const bool ok = b != g.constants.end() && b->second.is_float() && b->second.size() == n_out &&
                    (b->second.dims.size() == 1 ||
                     (is_gemm && b->second.dims == std::vector<int64_t>{1, n_out}));
    if (!ok) {
      *why = "an FP8 group's bias must be a float32 initializer of one value per output channel";
      return false;
    }
  } else if (!bias_in.empty() && !dqb) {
    *why = "its bias is not the DequantizeLinear of an int32 tensor";
    return false;
  }
  if (is_gemm) {
    if (n.attr("transA", 0) != 0 || n.fattr("alpha", 1.0f) != 1.0f || n.fattr("beta", 1.0f) != 1.0f) {
      *why = "Gemm with transA, alpha or beta other than 0, 1, 1";
      return false;
    }
  }
  // The output chain.
  const OnnxNode* next = sole_consumer(g, u, n.outputs.at(0));
  bool relu = false;
  std::string clip_min, clip_max, act_node;
  if (next && (next->op_type == "Relu" || next->op_type == "Clip") && next->domain.empty()) {
    relu = next->op_type == "Relu";
    if (fp8 && !relu) {
      *why = "Clip after an FP8 MatMul / Gemm / Conv (the FP8 output stage folds Relu only)";
      return false;
    }
    if (!relu) {
      clip_min = input(*next, 1), clip_max = input(*next, 2);
      for (const auto& c : {clip_min, clip_max}) {
        if (!c.empty() && !g.constants.count(c)) {
          *why = "its Clip bounds are not constants";
          return false;
        }
      }
    }
    act_node = next->name;
    next = sole_consumer(g, u, next->outputs.at(0));
  }
  if (!next || next->op_type != "QuantizeLinear" || !next->domain.empty()) {
    *why = "its output does not go (through Relu / Clip) to one QuantizeLinear";
    return false;
  }
  if (!g.constants.count(dqw->inputs.at(0))) {
    *why = "its weights are not an initializer";
    return false;
  }
  if (fp8 && next->attr("saturate", 1) == 0) {
    *why =
        "QuantizeLinear with saturate = 0 after an FP8 MatMul / Gemm / Conv (the tensor unit's "
        "FP8 output saturates)";
    return false;
  }
  // Per-axis weight parameters must lie along the output channels.
  if (g.constants.count(input(*dqw, 1)) && g.constants.at(input(*dqw, 1)).size() > 1) {
    const int64_t rank = int64_t(g.constants.at(dqw->inputs.at(0)).dims.size());
    int64_t axis = dqw->attr("axis", 1);
    if (axis < 0) axis += rank;
    const bool trans_b = is_gemm && n.attr("transB", 0) != 0;
    const int64_t want = is_conv ? 0 : (trans_b ? 0 : 1);
    if (axis != want) {
      *why = "its per-axis weight scales are not along the output channels";
      return false;
    }
  }
  if (input(*dqx, 1).empty() || input(*next, 1).empty()) {
    *why = "a QuantizeLinear or DequantizeLinear without a scale";
    return false;
  }
  if (dqb && !fp8) {
    // The bias must be an addend of the accumulator: int32, zero point 0, scale x_scale * w_scale
    // per channel (the quantizer's convention; within float32 rounding of the product).
    const std::string bq = dqb->inputs.at(0), bs = input(*dqb, 1), bz = input(*dqb, 2);
    const std::string xs = input(*dqx, 1), ws = input(*dqw, 1);
    const auto c = [&](const std::string& name) -> const OnnxTensor* {
      const auto it = g.constants.find(name);
      return it == g.constants.end() ? nullptr : &it->second;
    };
    const OnnxTensor *tb = c(bq), *ts = c(bs), *tz = c(bz), *tx = c(xs), *tw = c(ws);
    bool ok = tb && tb->elem_type == kOnnxInt32 && ts && ts->is_float() && tx && tx->is_float() &&
              tx->floats.size() == 1 && tw && tw->is_float();
    if (ok && tz) ok = std::all_of(tz->ints.begin(), tz->ints.end(), [](int64_t z) { return z == 0; });
    if (ok) {
      for (size_t m = 0; ok && m < ts->floats.size(); ++m) {
        const float want = tx->floats[0] * tw->floats[tw->floats.size() == 1 ? 0 : m % tw->floats.size()];
        ok = std::fabs(ts->floats[m] - want) <= 1e-6f * std::fabs(want);
      }
    }
    if (!ok) {
      *why = "its bias is not an int32 initializer with zero point 0 and scale x_scale * w_scale "
             "(requantize the bias to the input and weight scales)";
      return false;
    }
  }
  t->conv = is_conv;
  t->label = n.op_type + (fp8 ? " (FP8 QDQ)" : " (QDQ)");
  t->fp8 = fp8;
  t->fp_bias = fp8 ? bias_in : "";
  t->y_dtype = next->attr("output_dtype", 0);
  t->x = dqx->inputs.at(0), t->x_scale = input(*dqx, 1), t->x_zp = input(*dqx, 2);
  t->w = dqw->inputs.at(0), t->w_scale = input(*dqw, 1), t->w_zp = input(*dqw, 2);
  t->bias = dqb && !fp8 ? dqb->inputs.at(0) : "";
  t->y = next->outputs.at(0), t->y_scale = input(*next, 1), t->y_zp = input(*next, 2);
  t->transpose_w = is_gemm && n.attr("transB", 0) != 0;
  t->relu = relu, t->clip_min = clip_min, t->clip_max = clip_max;
  if (is_conv) conv_attrs(n, t);
  t->folded = {n.name};
  if (!act_node.empty()) t->folded.push_back(act_node);
  t->folded.push_back(next->name);
  return true;
}

// The element type of `value` as far as the file says it before anything runs: an initializer's
// or graph input's declared type, a Cast's `to`, DequantizeLinear's float, and through the ops
// whose output has their first input's type. 0 when it is not known (an op not listed).
int32_t known_type(const OnnxGraph& g, const Uses& u, const std::string& value) {
  if (const auto c = g.constants.find(value); c != g.constants.end()) return c->second.elem_type;
  for (const OnnxValueInfo& in : g.inputs) {
    if (in.name == value) return in.elem_type;
  }
  const auto p = u.producer.find(value);
  if (p == u.producer.end()) return 0;
  const OnnxNode& n = g.nodes[p->second];
  if (!n.domain.empty()) return 0;
  if (n.op_type == "Cast") return int32_t(n.attr("to", 0));
  if (n.op_type == "DequantizeLinear") return kOnnxFloat;
  static const std::set<std::string> same = {
      "Relu",    "Clip",      "Identity", "Reshape", "Flatten",           "Transpose",
      "Squeeze", "Unsqueeze", "Pad",      "Concat",  "MaxPool",           "AveragePool",
      "Softmax", "Add",       "MatMul",   "Gemm",    "GlobalAveragePool", "Conv"};
  if (same.count(n.op_type) && n.outputs.size() == 1 && !n.inputs.empty()) {
    return known_type(g, u, n.inputs[0]);
  }
  return 0;
}

std::string type_text(int32_t t) {
  switch (t) {
    case kOnnxFloat: return "float32";
    case kOnnxUint8: return "uint8";
    case kOnnxInt8: return "int8";
    case kOnnxInt32: return "int32";
    case kOnnxInt64: return "int64";
    case kOnnxBfloat16: return "bfloat16";
    case kOnnxFloat8E4m3fn: return "float8e4m3fn";
    case kOnnxFloat8E5m2: return "float8e5m2";
  }
  return "type " + std::to_string(t);
}

// A MatMul / Gemm / Conv of bfloat16 values (docs/model-runtime.md, "BF16 on the tensor unit"):
// BFLOAT16 weights that are an initializer, or an input known to be BFLOAT16. Returns false when
// the node is not of that form (the caller tries the QDQ forms); throws BAD_MODEL "unsupported:"
// with the reason when it is but the tensor unit cannot take it. The input's type is checked
// again when the step runs.
bool match_bf16(const OnnxGraph& g, const Uses& u, const OnnxNode& n, TensorOp* t) {
  const bool is_conv = n.op_type == "Conv", is_gemm = n.op_type == "Gemm";
  const std::string x = input(n, 0), w = input(n, 1), b = input(n, 2);
  const int32_t x_type = known_type(g, u, x), w_type = known_type(g, u, w);
  if (x_type != kOnnxBfloat16 && w_type != kOnnxBfloat16) return false;
  auto refuse = [&](const std::string& why) { bad_node(g.path, n, "unsupported: " + why); };
  if (w_type != kOnnxBfloat16 || !g.constants.count(w)) {
    refuse("a BF16 " + n.op_type +
           " needs BFLOAT16 weights that are an initializer; its weights '" + w + "' are " +
           (w_type ? type_text(w_type) : "of unknown type") +
           (g.constants.count(w) ? "" : ", not an initializer") +
           " (the tensor unit multiplies BF16 by BF16 only: store the weights as BFLOAT16)");
  }
  if (x_type != 0 && x_type != kOnnxBfloat16) {
    refuse("its weights are BFLOAT16 and its input '" + x + "' is " + type_text(x_type) +
           " (the tensor unit multiplies BF16 by BF16 only: Cast the input to BFLOAT16)");
  }
  const OnnxTensor& wt = g.constants.at(w);
  if (is_gemm && (n.attr("transA", 0) != 0 || n.fattr("alpha", 1.0f) != 1.0f ||
                  (!b.empty() && n.fattr("beta", 1.0f) != 1.0f))) {
    refuse("a BF16 Gemm with transA, alpha or beta other than 0, 1, 1");
  }
  if (!is_conv && wt.dims.size() != 2) {
    refuse("BF16 " + n.op_type + " weights of rank " + std::to_string(wt.dims.size()) +
           " (2-D weights only)");
  }
  const bool rows_out = is_conv || (is_gemm && n.attr("transB", 0) != 0);  // [N][...] weights
  const int64_t n_out = wt.dims.empty() ? -1 : rows_out ? wt.dims.front() : wt.dims.back();
  if (!b.empty()) {
    // The output stage adds one float32 per column: N values (Gemm's C also as 1 x N, or one
    // value for every column), BFLOAT16 as ONNX types it or FLOAT.
    const auto c = g.constants.find(b);
    const OnnxTensor* bt = c == g.constants.end() ? nullptr : &c->second;
    const bool typed = bt && (bt->is_bf16() || bt->is_float());
    const bool shaped =
        bt && ((bt->size() == n_out && (bt->dims.size() == 1 ||
                                        (is_gemm && bt->dims == std::vector<int64_t>{1, n_out}))) ||
               (is_gemm && bt->size() == 1 && bt->dims.size() <= 2));
    if (!typed || !shaped) {
      refuse("the bias of a BF16 " + n.op_type + " must be an initializer of " +
             std::to_string(n_out) + " BFLOAT16 or FLOAT values" +
             (is_gemm ? " (or 1 x N, or one value)" : "") +
             " (the output stage adds one value per output channel)");
    }
  }
  t->conv = is_conv;
  t->bf16 = true;
  t->label = n.op_type + " (BF16)";
  t->x = x, t->w = w, t->fp_bias = b;
  t->transpose_w = is_gemm && n.attr("transB", 0) != 0;
  t->y = n.outputs.at(0);
  t->folded = {n.name};
  if (is_conv) conv_attrs(n, t);
  // A Relu reading only this output folds into the output stage (negative values and -0 to +0,
  // NaN through: what the host's bfloat16 Relu gives after the rounding too).
  const OnnxNode* next = sole_consumer(g, u, t->y);
  if (next && next->op_type == "Relu" && next->domain.empty()) {
    t->relu = true;
    t->y = next->outputs.at(0);
    t->folded.push_back(next->name);
  }
  return true;
}

// QOperator nodes: the integer op itself.
TensorOp qoperator_op(const OnnxNode& n) {
  TensorOp t;
  t.label = n.op_type;
  t.folded = {n.name};
  const std::string& op = n.op_type;
  t.y = n.outputs.at(0);
  if (op == "QLinearConv" || op == "QLinearMatMul") {
    t.conv = op == "QLinearConv";
    t.x = input(n, 0), t.x_scale = input(n, 1), t.x_zp = input(n, 2);
    t.w = input(n, 3), t.w_scale = input(n, 4), t.w_zp = input(n, 5);
    t.y_scale = input(n, 6), t.y_zp = input(n, 7);
    t.bias = t.conv ? input(n, 8) : "";
  } else {  // ConvInteger, MatMulInteger
    t.conv = op == "ConvInteger";
    t.x = input(n, 0), t.w = input(n, 1), t.x_zp = input(n, 2), t.w_zp = input(n, 3);
    t.int32_out = true;
  }
  if (t.conv) conv_attrs(n, &t);
  return t;
}

}  // namespace

void Model::Impl::lower() {
  const Uses u = uses_of(g);
  std::set<std::string> folded;  // Relu / Clip / QuantizeLinear nodes absorbed into a tensor op
  const std::set<std::string> qoperator = {"QLinearConv", "QLinearMatMul", "ConvInteger",
                                           "MatMulInteger"};
  std::vector<Step> plan;
  for (const OnnxNode& n : g.nodes) {
    if (folded.count(n.name)) continue;
    Step s;
    s.node = &n;
    if (!n.domain.empty() && n.domain != "ai.onnx") {
      bad_node(g.path, n, "unsupported: domain '" + n.domain +
                              "' (the runtime runs the standard ai.onnx operators; quantize with "
                              "QuantFormat.QDQ or without contrib operators)");
    }
    if (qoperator.count(n.op_type)) {
      s.where = Placement::kTensorUnit;
      s.t = qoperator_op(n);
    } else if (n.op_type == "Conv" || n.op_type == "MatMul" || n.op_type == "Gemm") {
      std::string why;
      if (match_bf16(g, u, n, &s.t)) {
        if (!dev->caps().tensor_fp) {
          bad_node(g.path, n,
                   "unsupported: BF16 operands need the tensor unit's FP modes, which this "
                   "device does not have (CAP4.fp = 0); the runtime has no float MatMul / Conv "
                   "on the host");
        }
      } else if (!match_qdq(g, u, n, &s.t, &why)) {
        bad_node(g.path, n, "unsupported: " + why);
      }
      if (s.t.fp8 && !dev->caps().tensor_fp) {
        bad_node(g.path, n,
                 "unsupported: FP8 operands need the tensor unit's FP8 modes, which this "
                 "device does not have (CAP4.fp = 0); the runtime has no float MatMul / Conv "
                 "on the host");
      }
      s.where = Placement::kTensorUnit;
      for (size_t i = 1; i < s.t.folded.size(); ++i) folded.insert(s.t.folded[i]);
    } else if (fold_qdq_simt(g, u, n, &s, &synthetic)) {
      for (const OnnxNode* f : s.fallback) {
        if (f->op_type == "QuantizeLinear") folded.insert(f->name);
      }
    } else if (n.op_type == "MaxPool" && n.domain.empty() && model::host_op_supported(n, nullptr)) {
      // DequantizeLinear -> MaxPool -> QuantizeLinear with the same scale and zero point is the
      // integer MaxPool (Q(DQ(v)) = v and both are monotonic), as onnxruntime runs it.
      const OnnxNode* dq = producer_of(g, u, input(n, 0), "DequantizeLinear");
      const OnnxNode* q = sole_consumer(g, u, n.outputs.at(0));
      auto same_const = [&](const std::string& a, const std::string& b) {
        if (a.empty() || b.empty() || !g.constants.count(a) || !g.constants.count(b)) return false;
        const OnnxTensor &ta = g.constants.at(a), &tb = g.constants.at(b);
        // 8-bit integer zero points only: float8 codes are not ordered as integers, so the
        // integer MaxPool does not apply to them.
        return ta.elem_type == tb.elem_type && ta.ints == tb.ints && ta.floats == tb.floats &&
               ta.size() == 1 && (ta.is_float() || is_8bit(ta.elem_type));
      };
      s.where = Placement::kHost;
      if (dq && q && q->op_type == "QuantizeLinear" && q->domain.empty() && sole_consumer(g, u, dq->outputs.at(0)) == &n &&
          same_const(input(*dq, 1), input(*q, 1)) && same_const(input(*dq, 2), input(*q, 2))) {
        OnnxNode m = n;
        m.inputs = {dq->inputs.at(0)};
        m.outputs = {q->outputs.at(0)};
        synthetic.push_back(std::move(m));
        s.node = &synthetic.back();
        folded.insert(q->name);
        s.note = "DequantizeLinear -> MaxPool -> QuantizeLinear as an integer MaxPool";
      }
      s.where = Placement::kSimt;  // integer inputs; a float MaxPool runs on the host (run_step)
    } else {
      std::string why;
      if (!model::host_op_supported(n, &why)) {
        bad_node(g.path, n, "unsupported: " + why +
                                " (supported: QLinearConv, QLinearMatMul, ConvInteger, MatMulInteger, "
                                "QDQ Conv / MatMul / Gemm, BF16 Conv / MatMul / Gemm, and on the "
                                "host QuantizeLinear, DequantizeLinear, Cast (float <-> bfloat16), "
                                "Relu, Clip, Add, MaxPool, AveragePool, GlobalAveragePool, Softmax, "
                                "Reshape, Flatten, Transpose, Concat, Pad, Identity, Squeeze, "
                                "Unsqueeze)");
      }
      s.where = Placement::kHost;
      s.note = "no tensor-unit or SIMT lowering for " + n.op_type;
    }
    if (s.where == Placement::kTensorUnit && s.t.conv) {
      if (s.t.group != 1) bad_node(g.path, n, "unsupported: group = " + std::to_string(s.t.group) + " (only group = 1 convolutions run on the tensor unit)");
      if (s.t.strides.size() != 2 || s.t.pads.size() != 4 || s.t.dilations.size() != 2) {
        bad_node(g.path, n, "unsupported: only 2-D convolutions (strides 2, pads 4 values)");
      }
      // The geometry (tensor_geometry, conv2d) is computed in int: each attribute in a range where
      // no sum or product can overflow (a stride of 0 used to divide by zero).
      constexpr int64_t kMaxAttr = 65535;
      for (int64_t d : s.t.dilations) {
        if (d < 1 || d > kMaxAttr) bad_node(g.path, n, "dilations must be in [1, 65535], not " + std::to_string(d));
      }
      for (int64_t st : s.t.strides) {
        if (st < 1 || st > kMaxAttr) bad_node(g.path, n, "strides must be in [1, 65535], not " + std::to_string(st));
      }
      for (int64_t pd : s.t.pads) {
        if (pd < 0 || pd > kMaxAttr) bad_node(g.path, n, "pads must be in [0, 65535], not " + std::to_string(pd));
      }
    }
    plan.push_back(std::move(s));
  }

  // Keep the steps whose outputs are needed (DequantizeLinear nodes of folded groups drop out).
  std::set<std::string> needed(u.graph_outputs.begin(), u.graph_outputs.end());
  std::vector<bool> keep(plan.size(), false);
  for (int i = int(plan.size()) - 1; i >= 0; --i) {
    const Step& s = plan[i];
    std::vector<std::string> outs, ins;
    if (s.where == Placement::kTensorUnit) {
      const TensorOp& t = s.t;
      outs = {t.y};
      ins = {t.x,    t.w,       t.x_scale, t.x_zp,     t.w_scale,  t.w_zp,
             t.bias, t.y_scale, t.y_zp,    t.clip_min, t.clip_max, t.fp_bias};
    } else {
      outs = s.node->outputs;
      ins = s.node->inputs;
    }
    if (std::none_of(outs.begin(), outs.end(), [&](const std::string& o) { return needed.count(o); })) continue;
    keep[i] = true;
    for (const auto& x : ins) {
      if (!x.empty()) needed.insert(x);
    }
  }
  steps.clear();
  for (size_t i = 0; i < plan.size(); ++i) {
    if (keep[i]) steps.push_back(std::move(plan[i]));
  }
}


namespace {

// A's rows as bytes (8-bit two's complement).
std::vector<uint8_t> to_bytes(const std::vector<int64_t>& v, size_t begin, size_t count) {
  std::vector<uint8_t> b(count);
  for (size_t i = 0; i < count; ++i) b[i] = static_cast<uint8_t>(v[begin + i]);
  return b;
}

// The paddings of a convolution step on an h x w input with a kh x kw kernel.
Border conv_pads(const TensorOp& t, int h, int w, int kh, int kw) {
  Border b;
  if (t.auto_pad == "NOTSET") {
    if (t.pads.size() == 4) b = {int(t.pads[0]), int(t.pads[1]), int(t.pads[2]), int(t.pads[3])};
  } else if (t.auto_pad == "SAME_UPPER" || t.auto_pad == "SAME_LOWER") {
    const bool upper = t.auto_pad == "SAME_UPPER";
    auto split = [&](int in, int k, int st, int* begin, int* end) {
      const int o = (in + st - 1) / st, total = std::max(0, (o - 1) * st + k - in);
      *begin = upper ? total / 2 : total - total / 2;
      *end = total - *begin;
    };
    split(h, kh, int(t.strides.at(0)), &b.top, &b.bottom);
    split(w, kw, int(t.strides.at(1)), &b.left, &b.right);
  }
  return b;
}

bool covers(const Border& have, const Border& need) {
  return have.top >= need.top && have.left >= need.left && have.bottom >= need.bottom &&
         have.right >= need.right;
}

Border max_border(const Border& a, const Border& b) {
  return {std::max(a.top, b.top), std::max(a.left, b.left), std::max(a.bottom, b.bottom),
          std::max(a.right, b.right)};
}

}  // namespace

namespace {

// An activation read back (NHWC bytes) as the ONNX tensor it holds.
template <class R>
OnnxTensor to_onnx(const std::string& name, const std::vector<uint8_t>& nhwc, const R& res) {
  OnnxTensor t;
  t.name = name;
  t.elem_type = res.elem_type;
  t.dims = res.dims;
  t.ints.resize(nhwc.size());
  const bool is_signed = res.elem_type == kOnnxInt8;
  const int64_t c = res.act.c, hw = int64_t(res.act.h) * res.act.w;
  for (size_t i = 0; i < nhwc.size(); ++i) {
    const int64_t val = is_signed ? int8_t(nhwc[i]) : int64_t(nhwc[i]);
    if (res.nchw) {
      const int64_t ch = int64_t(i) % c, p = (int64_t(i) / c) % hw, b = int64_t(i) / (c * hw);
      t.ints[size_t((b * c + ch) * hw + p)] = val;
    } else {
      t.ints[i] = val;
    }
  }
  return t;
}

void add_simt_counters(const SimtReport& rep, LayerReport& r) {
  r.simt_issued += rep.issued;
  r.simt_stall_pipe += rep.stall_pipe, r.simt_stall_div += rep.stall_div;
  r.simt_stall_mem += rep.stall_mem, r.simt_stall_barrier += rep.stall_barrier;
}

bool same_geometry(const DeviceActivation& a, int n, int h, int w, int c, Operand type, Border b) {
  return a.n == n && a.h == h && a.w == w && a.c == c && a.type.is_signed == type.is_signed &&
         a.type.zero_point == type.zero_point && a.border.top == b.top &&
         a.border.left == b.left && a.border.bottom == b.bottom && a.border.right == b.right;
}

}  // namespace

void Model::Impl::plan_memory() {
  readers.clear();
  resident.clear();
  for (size_t i = 0; i < steps.size(); ++i) {
    const Step& s = steps[i];
    std::vector<std::string> ins;
    if (s.where == Placement::kTensorUnit) {
      const TensorOp& t = s.t;
      ins = {t.x,    t.w,       t.x_scale, t.x_zp,     t.w_scale,  t.w_zp,
             t.bias, t.y_scale, t.y_zp,    t.clip_min, t.clip_max, t.fp_bias};
    } else {
      ins = s.node->inputs;
    }
    for (const auto& x : ins) {
      if (!x.empty() && (readers[x].empty() || readers[x].back() != i)) readers[x].push_back(i);
    }
  }
  std::set<std::string> outputs;
  for (const auto& o : g.outputs) outputs.insert(o.name);
  for (const Step& s : steps) {
    // FP8 and BF16 steps run host-packed (the resident conv2d is integer): their outputs come
    // back.
    if (s.where != Placement::kTensorUnit || s.t.int32_out || s.t.fp8 || s.t.bf16 ||
        outputs.count(s.t.y))
      continue;
    const auto it = readers.find(s.t.y);
    if (it == readers.end()) continue;
    const bool all_inputs = std::all_of(it->second.begin(), it->second.end(), [&](size_t r) {
      const Step& c = steps[r];
      return c.where == Placement::kTensorUnit && c.t.x == s.t.y && c.t.w != s.t.y &&
             !c.t.int32_out && !c.t.fp8 && !c.t.bf16;
    });
    if (all_inputs) resident.insert(s.t.y);
  }
}

Border Model::Impl::border_for(const std::string& value, int h, int w, const Values& v) const {
  Border b;
  const auto it = readers.find(value);
  if (it == readers.end()) return b;
  for (size_t r : it->second) {
    const TensorOp& t = steps[r].t;
    if (steps[r].where != Placement::kTensorUnit || !t.conv || t.x != value) continue;
    const auto w_it = v.find(t.w);
    if (w_it == v.end() || w_it->second.dims.size() != 4) continue;
    const int dh = t.dilations.size() == 2 ? int(t.dilations[0]) : 1, dw = t.dilations.size() == 2 ? int(t.dilations[1]) : 1;
    b = max_border(b, conv_pads(t, h, w, (int(w_it->second.dims[2]) - 1) * dh + 1, (int(w_it->second.dims[3]) - 1) * dw + 1));
  }
  return b;
}

DeviceActivation Model::Impl::take_buffer(int n, int h, int w, int c, Operand type, Border border) {
  for (size_t i = 0; i < free_buffers.size(); ++i) {
    if (same_geometry(free_buffers[i], n, h, w, c, type, border)) {
      DeviceActivation a = free_buffers[i];
      free_buffers.erase(free_buffers.begin() + long(i));
      return a;
    }
  }
  return alloc_activation(*dev, n, h, w, c, type, border);
}

void Model::Impl::release(const std::string& value, size_t step) {
  const auto it = on_device.find(value);
  if (it == on_device.end()) return;
  const auto r = readers.find(value);
  if (r != readers.end() && !r->second.empty() && r->second.back() > step) return;
  free_buffers.push_back(it->second.act);
  on_device.erase(it);
}

// A resident value brought to the host in its ONNX layout (for a step that cannot read it on the
// device).
void Model::Impl::materialize(const std::string& value, Values& v) {
  const auto it = on_device.find(value);
  if (it == on_device.end() || v.count(value)) return;
  v[value] = to_onnx(value, read_activation(it->second.act), it->second);
}

// The tensor-unit step with its operands in device memory (docs/model-runtime.md, "Memory"): the
// weights packed once, the input read from the previous step's output buffer when it stayed on
// the device (else written once from the host), an implicit-GEMM convolution (a MatMul / Gemm is a
// 1x1 convolution over its rows), the output left on the device for the next tensor-unit step or
// read back. Returns false when the device cannot take this form (the caller then runs the
// host-packed path).
bool Model::Impl::run_resident(size_t index, const Conv2dShape& cs,
                               const std::vector<uint8_t>& filter_ohwi, const GemmOptions& opt,
                               const std::vector<int32_t>& channel_zps, const OnnxTensor& x,
                               const MatGeometry& mg, Values& v, LayerReport& r) {
  const TensorOp& t = steps[index].t;
  const Capabilities& cap = dev->caps();
  if (cap.rows != cap.cols || cap.bus_bytes < cap.rows) return false;
  uint64_t host = 0;
  // A first layer with few input channels (kh*kw*c_in <= R, e.g. 3x3 on one channel), whose
  // input comes from the host anyway: its im2col rows fit one line each, so they are fewer bytes
  // than the channel-padded activation (R bytes per pixel) and one k-tile instead of kh*kw; the
  // convolution then runs as a 1x1 over them.
  const bool from_host = !on_device.count(t.x);
  const bool small_im2col = t.conv && from_host && cs.kh * cs.kw > 1 &&
                            uint64_t(cs.kh) * cs.kw * cs.c_in <= cap.rows;
  Conv2dShape run_cs = cs;
  if (small_im2col) {
    run_cs = Conv2dShape{};
    run_cs.n = cs.n, run_cs.h = cs.out_h(), run_cs.w = cs.out_w();
    run_cs.c_in = cs.kh * cs.kw * cs.c_in, run_cs.c_out = cs.c_out;
  }
  auto pk = packed.find(index);
  const bool constant_w = g.constants.count(t.w) > 0;
  auto same_shape = [&](const Conv2dShape& a) {
    const Conv2dShape& b = run_cs;
    return a.c_in == b.c_in && a.c_out == b.c_out && a.kh == b.kh && a.kw == b.kw &&
           a.stride_h == b.stride_h && a.stride_w == b.stride_w && a.pad_top == b.pad_top &&
           a.pad_left == b.pad_left && a.pad_bottom == b.pad_bottom && a.pad_right == b.pad_right &&
           a.dilation_h == b.dilation_h && a.dilation_w == b.dilation_w;
  };
  if (pk == packed.end() || !constant_w || !same_shape(pk->second.shape)) {
    // OHWI [c_out][kh][kw][c_in] is also [c_out][1][1][kh*kw*c_in] in im2col's column order.
    PackedConv p = pack_conv(*dev, run_cs, filter_ohwi, opt.w, opt.out, channel_zps);
    host += p.host_bytes_written;
    r.note = constant_w ? "weights packed into device memory at the first run, kept" : "weights are a graph input: packed each run";
    pk = packed.insert_or_assign(index, std::move(p)).first;
  }
  const PackedConv& p = pk->second;

  const Border need{cs.pad_top, cs.pad_left, cs.pad_bottom, cs.pad_right};
  DeviceActivation in;
  bool staged = false;
  const auto rv = on_device.find(t.x);
  if (rv != on_device.end() && covers(rv->second.act.border, need) &&
      rv->second.act.type.is_signed == opt.a.is_signed && rv->second.act.type.zero_point == opt.a.zero_point &&
      rv->second.act.n == cs.n && rv->second.act.h == cs.h && rv->second.act.w == cs.w && rv->second.act.c == cs.c_in) {
    in = rv->second.act;
  } else {
    materialize(t.x, v);
    const OnnxTensor& xin = v.count(t.x) ? v.at(t.x) : x;
    std::vector<uint8_t> nhwc(size_t(xin.size()));
    if (small_im2col) {
      // Rows (b, oy, ox) of kh*kw*c_in bytes in (ky, kx, c) order; taps in the padding take the
      // input zero point, so they contribute exactly 0.
      const int64_t k = run_cs.c_in, oh = run_cs.h, ow = run_cs.w, hw = int64_t(cs.h) * cs.w;
      nhwc.assign(size_t(cs.n * oh * ow * k), uint8_t(opt.a.zero_point));
      for (int64_t b = 0; b < cs.n; ++b)
        for (int64_t oy = 0; oy < oh; ++oy)
          for (int64_t ox = 0; ox < ow; ++ox)
            for (int64_t ky = 0; ky < cs.kh; ++ky)
              for (int64_t kx = 0; kx < cs.kw; ++kx) {
                const int64_t iy = oy * cs.stride_h - cs.pad_top + ky * cs.dilation_h;
                const int64_t ix = ox * cs.stride_w - cs.pad_left + kx * cs.dilation_w;
                if (iy < 0 || iy >= cs.h || ix < 0 || ix >= cs.w) continue;
                for (int64_t c = 0; c < cs.c_in; ++c) {
                  nhwc[size_t((((b * oh + oy) * ow + ox) * cs.kh + ky) * cs.kw * cs.c_in + kx * cs.c_in + c)] =
                      uint8_t(xin.ints[size_t((b * cs.c_in + c) * hw + iy * cs.w + ix)]);
                }
              }
      r.note += std::string(r.note.empty() ? "" : "; ") + "input as im2col rows (kh*kw*c_in = " +
                std::to_string(run_cs.c_in) + " <= one line: fewer bytes than the channel-padded layout)";
    } else if (t.conv) {
      const int64_t hw = int64_t(cs.h) * cs.w;
      for (int64_t b = 0; b < cs.n; ++b)
        for (int64_t c = 0; c < cs.c_in; ++c)
          for (int64_t q = 0; q < hw; ++q) nhwc[size_t((b * hw + q) * cs.c_in + c)] = uint8_t(xin.ints[size_t((b * cs.c_in + c) * hw + q)]);
    } else {
      for (size_t i = 0; i < nhwc.size(); ++i) nhwc[i] = uint8_t(xin.ints[i]);
    }
    in = small_im2col ? take_buffer(run_cs.n, run_cs.h, run_cs.w, run_cs.c_in, opt.a, {})
                      : take_buffer(cs.n, cs.h, cs.w, cs.c_in, opt.a, need);
    host += write_activation(in, nhwc);
    staged = true;
  }

  const bool keep = resident.count(t.y) > 0;
  const Border out_border = keep ? border_for(t.y, cs.out_h(), cs.out_w(), v) : Border{};
  DeviceActivation out = take_buffer(cs.n, cs.out_h(), cs.out_w(), cs.c_out, p.out_type, out_border);
  const OpStats st = conv2d(*dev, p, in, out, ConvRunOptions{opt.timeout, {}});
  if (staged) free_buffers.push_back(in);

  const int32_t y_type = p.out_type.is_signed ? kOnnxInt8 : kOnnxUint8;
  if (keep) {
    on_device[t.y] = Resident{out, mg.out_dims, y_type, t.conv};
  } else {
    uint64_t read = 0;
    const std::vector<uint8_t> nhwc = read_activation(out, &read);
    host += read;
    v[t.y] = to_onnx(t.y, nhwc, Resident{out, mg.out_dims, y_type, t.conv});
    free_buffers.push_back(out);
  }
  release(t.x, index);

  r.macs = uint64_t(mg.batches * mg.m * mg.n * mg.k);
  r.cycles = st.perf.c.cycles;
  // The operator's own MACs (not the array's MACS counter, which counts the padding of partial
  // tiles) over the array's peak.
  r.utilisation = r.cycles ? double(r.macs) / (double(r.cycles) * cap.rows * cap.cols) : 0;
  r.dma_bytes = st.perf.c.dma_rd_bytes + st.perf.c.dma_wr_bytes;
  r.wait_weights = st.perf.c.tu_wait_w, r.wait_activations = st.perf.c.tu_wait_a;
  r.wait_drain = st.perf.c.tu_wait_drain, r.dma_stall = st.perf.c.dma_rd_stall + st.perf.c.dma_wr_stall;
  r.host_bytes = host;
  if (t.conv) r.im2col_bytes = im2col_bytes(cs);
  r.shape = dims_string(x.dims) + " -> " + dims_string(mg.out_dims);
  if (t.conv) r.shape += ", k" + std::to_string(cs.kh) + "x" + std::to_string(cs.kw) + " s" + std::to_string(cs.stride_h);
  if (keep) r.note += std::string(r.note.empty() ? "" : "; ") + "output stays in device memory";
  return true;
}

namespace {

// The geometry of a tensor-unit step: a GEMM of rows x k by k x n (per batch), the convolution's
// shape, and the output's ONNX dimensions.
void tensor_geometry(const TensorOp& t, const OnnxTensor& x, const OnnxTensor& w,
                     const std::string& who, Conv2dShape* csp, MatGeometry* mgp) {
  Conv2dShape& cs = *csp;
  MatGeometry& mg = *mgp;
  if (t.conv) {
    if (x.dims.size() != 4 || w.dims.size() != 4) throw Error(Errc::kBadModel, who + ": unsupported: only 2-D convolutions (4-D input and weights)");
    if (w.dims[1] != x.dims[1]) throw Error(Errc::kBadModel, who + ": the weights have " + std::to_string(w.dims[1]) + " input channels, the input " + std::to_string(x.dims[1]));
    cs.n = int(x.dims[0]), cs.c_in = int(x.dims[1]), cs.h = int(x.dims[2]), cs.w = int(x.dims[3]);
    cs.c_out = int(w.dims[0]), cs.kh = int(w.dims[2]), cs.kw = int(w.dims[3]);
    cs.stride_h = int(t.strides[0]), cs.stride_w = int(t.strides[1]);
    cs.dilation_h = int(t.dilations[0]), cs.dilation_w = int(t.dilations[1]);
    const int ekh = (cs.kh - 1) * cs.dilation_h + 1, ekw = (cs.kw - 1) * cs.dilation_w + 1;
    if (t.auto_pad == "NOTSET") {
      cs.pad_top = int(t.pads[0]), cs.pad_left = int(t.pads[1]);
      cs.pad_bottom = int(t.pads[2]), cs.pad_right = int(t.pads[3]);
    } else if (t.auto_pad == "SAME_UPPER" || t.auto_pad == "SAME_LOWER") {
      const bool upper = t.auto_pad == "SAME_UPPER";
      auto split = [&](int in, int k, int st, int* begin, int* end) {
        const int o = (in + st - 1) / st, total = std::max(0, (o - 1) * st + k - in);
        *begin = upper ? total / 2 : total - total / 2;
        *end = total - *begin;
      };
      split(cs.h, ekh, cs.stride_h, &cs.pad_top, &cs.pad_bottom);
      split(cs.w, ekw, cs.stride_w, &cs.pad_left, &cs.pad_right);
    } else if (t.auto_pad != "VALID") {
      throw Error(Errc::kBadModel, who + ": auto_pad '" + t.auto_pad + "' is not NOTSET, VALID, SAME_UPPER or SAME_LOWER");
    }
    if (cs.h + cs.pad_top + cs.pad_bottom < ekh || cs.w + cs.pad_left + cs.pad_right < ekw) {
      throw Error(Errc::kBadModel, who + ": the kernel is larger than the padded input");
    }
    mg.m = int64_t(cs.n) * cs.out_h() * cs.out_w();
    mg.k = int64_t(cs.kh) * cs.kw * cs.c_in;
    mg.n = cs.c_out;
    mg.out_dims = {cs.n, cs.c_out, cs.out_h(), cs.out_w()};
  } else {
    if (x.dims.size() < 2 || w.dims.size() < 2) throw Error(Errc::kBadModel, who + ": unsupported: operands of rank < 2");
    const int64_t k = x.dims.back();
    const int64_t wk = t.transpose_w ? w.dims.back() : w.dims[w.dims.size() - 2];
    const int64_t wn = t.transpose_w ? w.dims[w.dims.size() - 2] : w.dims.back();
    if (wk != k) throw Error(Errc::kBadModel, who + ": inner dimensions differ (" + dims_string(x.dims) + " x " + dims_string(w.dims) + ")");
    mg.k = k, mg.n = wn;
    if (w.dims.size() == 2) {
      // The batch folds into the rows: the weights stay stationary.
      mg.m = x.size() / k;
      mg.out_dims.assign(x.dims.begin(), x.dims.end() - 1);
    } else {
      std::vector<int64_t> xb(x.dims.begin(), x.dims.end() - 2), wb(w.dims.begin(), w.dims.end() - 2);
      if (xb != wb) throw Error(Errc::kBadModel, who + ": unsupported: batch dimensions " + dims_string(xb) + " and " + dims_string(wb) + " differ (no broadcasting of batched weights)");
      mg.batched_w = true;
      mg.batches = x.size() / (x.dims[x.dims.size() - 2] * k);
      mg.m = x.dims[x.dims.size() - 2];
      mg.out_dims.assign(x.dims.begin(), x.dims.end() - 1);
    }
    mg.out_dims.push_back(wn);
  }
}

}  // namespace

void Model::Impl::run_tensor_op(const Step& s, Values& v, LayerReport& r) {
  const TensorOp& t = s.t;
  const std::string who = g.path + ": node " + s.node->name + " (" + t.label + ")";
  const size_t index = size_t(&s - steps.data());
  // A resident input is known here by its shape and type only (its values are on the device).
  OnnxTensor x_shape;
  if (!v.count(t.x) && on_device.count(t.x)) {
    x_shape.dims = on_device.at(t.x).dims;
    x_shape.elem_type = on_device.at(t.x).elem_type;
  }
  const OnnxTensor& x = v.count(t.x) ? get(v, t.x, who) : x_shape;
  const OnnxTensor& w = get(v, t.w, who);
  if (!is_8bit(x.elem_type) || !is_8bit(w.elem_type)) {
    throw Error(Errc::kBadModel,
                who + ": unsupported: the input and weights must be uint8 or int8");
  }
  const bool x_signed = x.elem_type == kOnnxInt8, w_signed = w.elem_type == kOnnxInt8;
  const ZeroPoint xz = zero_point_of(v, t.x_zp, who);
  const ZeroPoint wz = zero_point_of(v, t.w_zp, who);

  // Geometry: a GEMM of rows x k by k x n (per batch), and the output's ONNX dimensions.
  Conv2dShape cs;
  MatGeometry mg;
  tensor_geometry(t, x, w, who, &cs, &mg);
  const int64_t rows = mg.m, K = mg.k, N = mg.n;

  // Zero points per row of A (MatMulInteger) or per output channel: exact correction on the host.
  const bool row_zp = xz.v.size() > 1;
  if (row_zp && (t.conv || !t.int32_out)) {
    throw Error(Errc::kBadModel, who + ": a per-row input zero point is only defined for MatMulInteger");
  }
  if (row_zp && int64_t(xz.v.size()) != x.dims[x.dims.size() - 2]) {
    throw Error(Errc::kBadModel, who + ": the input zero point has " + std::to_string(xz.v.size()) + " values, not 1 or the row count");
  }
  if (wz.v.size() != 1 && int64_t(wz.v.size()) != N) {
    throw Error(Errc::kBadModel, who + ": the weight zero point has " + std::to_string(wz.v.size()) + " values, not 1 or " + std::to_string(N));
  }
  const bool col_zp = !uniform(wz.v);
  const bool corrected = row_zp || col_zp;

  // Output stage.
  GemmOptions opt;
  opt.timeout = this->opt.timeout;
  opt.a = {x_signed, corrected && row_zp ? 0 : xz.v[0]};
  opt.w = {w_signed, corrected ? 0 : wz.v[0]};
  std::vector<int32_t> bias;
  if (!t.bias.empty()) {
    const OnnxTensor& b = get(v, t.bias, who);
    if (b.elem_type != kOnnxInt32 || b.size() != N) throw Error(Errc::kBadModel, who + ": the bias must be " + std::to_string(N) + " int32 values");
    bias.assign(b.ints.begin(), b.ints.end());
  }
  std::vector<float> scale;
  int32_t lo = 0, hi = 0, yzp = 0, y_type = kOnnxInt32;
  if (!t.int32_out) {
    const float xs = scalar_float(v, t.x_scale, who), ys = scalar_float(v, t.y_scale, who);
    const std::vector<float> ws = floats_of(v, t.w_scale, who);
    if (ws.size() != 1 && int64_t(ws.size()) != N) throw Error(Errc::kBadModel, who + ": the weight scale has " + std::to_string(ws.size()) + " values, not 1 or " + std::to_string(N));
    for (float f : ws) {
      if (!(f > 0) || !std::isfinite(f)) throw Error(Errc::kBadModel, who + ": a weight scale is not a positive finite number");
    }
    if (!(xs > 0) || !std::isfinite(xs) || !(ys > 0) || !std::isfinite(ys)) throw Error(Errc::kBadModel, who + ": a scale is not a positive finite number");
    const ZeroPoint yz = zero_point_of(v, t.y_zp, who);
    if (yz.v.size() != 1) throw Error(Errc::kBadModel, who + ": the output zero point must be one value");
    y_type = yz.type, yzp = yz.v[0];
    lo = y_type == kOnnxInt8 ? -128 : 0, hi = y_type == kOnnxInt8 ? 127 : 255;
    if (t.relu) lo = std::max(lo, yzp);
    if (!t.clip_min.empty()) lo = std::max(lo, model::quantize_value(get(v, t.clip_min, who).floats.at(0), ys, yzp, lo, hi));
    if (!t.clip_max.empty()) hi = std::min(hi, model::quantize_value(get(v, t.clip_max, who).floats.at(0), ys, yzp, lo, hi));
    // x_scale * w_scale / y_scale in float32, in onnxruntime's order.
    for (int64_t j = 0; j < N; ++j) scale.push_back(onnx_output_scale(xs, ws[ws.size() == 1 ? 0 : j], ys));
  }
  // Per-channel weight zero points: the resident path takes them (pack_conv's second pass); the
  // host-packed path needs the exact correction below.
  const bool device_requant = !t.int32_out && !row_zp;
  if (device_requant) {
    opt.out.mode = StoreMode::kOnnx;
    opt.out.bias = bias;
    opt.out.scale = scale;
    opt.out.zero_point = yzp;
    opt.out.act_min = lo, opt.out.act_max = hi;
    opt.out.type = y_type == kOnnxInt8 ? OutputType::kInt8 : OutputType::kUint8;
  } else {
    opt.out.mode = StoreMode::kInt32;
  }

  // The device-resident path (implicit GEMM, packed weights, activations left on the device).
  if (device_requant && !mg.batched_w) {
    opt.w.zero_point = wz.v[0];
    Conv2dShape dcs = cs;
    std::vector<uint8_t> filter(size_t(N * K));
    if (t.conv) {
      const int64_t khw = int64_t(cs.kh) * cs.kw;
      for (int64_t o = 0; o < N; ++o)
        for (int64_t c = 0; c < cs.c_in; ++c)
          for (int64_t q = 0; q < khw; ++q)
            filter[size_t((o * khw + q) * cs.c_in + c)] = uint8_t(w.ints[size_t((o * cs.c_in + c) * khw + q)]);
    } else {
      dcs = Conv2dShape{};
      dcs.w = int(rows), dcs.c_in = int(K), dcs.c_out = int(N);  // [rows][K] as 1 x rows pixels
      for (int64_t j = 0; j < N; ++j)
        for (int64_t k = 0; k < K; ++k)
          filter[size_t(j * K + k)] = uint8_t(t.transpose_w ? w.ints[size_t(j * K + k)] : w.ints[size_t(k * N + j)]);
    }
    std::vector<int32_t> channel_zps;
    if (col_zp) channel_zps = wz.v;
    if (run_resident(index, dcs, filter, opt, channel_zps, x, mg, v, r)) return;
  }
  if (device_requant && col_zp) {
    // Back to the exact correction on the host.
    opt.w.zero_point = 0;
    opt.out = OutputStage{};
    opt.out.mode = StoreMode::kInt32;
  }
  const bool packed_requant = device_requant && !corrected;  // the host-packed path's 8-bit out
  materialize(t.x, v);
  const OnnxTensor& xh = get(v, t.x, who);

  // Operands in the device's layouts: A rows (NHWC pixels for a convolution), W as K x N
  // (OHWI filters for a convolution), plus a column of ones when the zero points need the
  // row sums of A.
  const int64_t n_dev = N + (corrected ? 1 : 0);
  Conv2dShape dev_cs = cs;
  dev_cs.c_out = int(n_dev);
  std::vector<int32_t> acc(size_t(mg.batches * rows * N));
  std::vector<int64_t> row_sum(size_t(mg.batches * rows), 0);
  OpStats total;
  uint64_t host_bytes = 0;
  for (int64_t b = 0; b < mg.batches; ++b) {
    std::vector<uint8_t> a_bytes, w_bytes;
    if (t.conv) {
      a_bytes.resize(size_t(x.size()));
      const int64_t hw = int64_t(cs.h) * cs.w;
      for (int64_t nb = 0; nb < cs.n; ++nb)
        for (int64_t c = 0; c < cs.c_in; ++c)
          for (int64_t p = 0; p < hw; ++p)
            a_bytes[size_t((nb * hw + p) * cs.c_in + c)] = uint8_t(xh.ints[size_t((nb * cs.c_in + c) * hw + p)]);
      // OIHW -> O HWI, plus the ones filter.
      const int64_t khw = int64_t(cs.kh) * cs.kw;
      w_bytes.assign(size_t(n_dev * K), 1);
      for (int64_t o = 0; o < N; ++o)
        for (int64_t c = 0; c < cs.c_in; ++c)
          for (int64_t p = 0; p < khw; ++p)
            w_bytes[size_t((o * khw + p) * cs.c_in + c)] = uint8_t(w.ints[size_t((o * cs.c_in + c) * khw + p)]);
    } else {
      a_bytes = to_bytes(xh.ints, size_t(b * rows * K), size_t(rows * K));
      w_bytes.assign(size_t(K * n_dev), 1);
      const size_t wbase = mg.batched_w ? size_t(b * K * N) : 0;
      for (int64_t k = 0; k < K; ++k)
        for (int64_t j = 0; j < N; ++j)
          w_bytes[size_t(k * n_dev + j)] = uint8_t(t.transpose_w ? w.ints[wbase + size_t(j * K + k)] : w.ints[wbase + size_t(k * N + j)]);
    }
    OpStats st;
    if (packed_requant) {
      std::vector<uint8_t> out(size_t(rows * N));
      st = t.conv ? conv2d(*dev, cs, a_bytes, w_bytes, out, opt)
                  : gemm(*dev, int(rows), int(N), int(K), a_bytes, w_bytes, out, opt);
      for (size_t i = 0; i < out.size(); ++i) {
        acc[size_t(b * rows * N) + i] = y_type == kOnnxInt8 ? int32_t(int8_t(out[i])) : int32_t(out[i]);
      }
    } else {
      std::vector<int32_t> out(size_t(rows * n_dev));
      st = t.conv ? conv2d(*dev, dev_cs, a_bytes, w_bytes, out, opt)
                  : gemm(*dev, int(rows), int(n_dev), int(K), a_bytes, w_bytes, out, opt);
      for (int64_t m = 0; m < rows; ++m) {
        for (int64_t j = 0; j < N; ++j) acc[size_t((b * rows + m) * N + j)] = out[size_t(m * n_dev + j)];
        if (corrected) row_sum[size_t(b * rows + m)] = out[size_t(m * n_dev + N)];
      }
    }
    const GemmFootprint fp = gemm_footprint(dev->caps(), uint64_t(rows), uint64_t(n_dev), uint64_t(K), !packed_requant);
    host_bytes += fp.total();
    total.perf.c.cycles += st.perf.c.cycles;
    total.perf.c.macs += st.perf.c.macs;
    total.perf.c.dma_rd_bytes += st.perf.c.dma_rd_bytes;
    total.perf.c.dma_wr_bytes += st.perf.c.dma_wr_bytes;
    total.perf.c.tu_wait_w += st.perf.c.tu_wait_w;
    total.perf.c.tu_wait_a += st.perf.c.tu_wait_a;
    total.perf.c.tu_wait_drain += st.perf.c.tu_wait_drain;
    total.perf.c.dma_rd_stall += st.perf.c.dma_rd_stall + st.perf.c.dma_wr_stall;
    total.perf.rows = st.perf.rows, total.perf.cols = st.perf.cols, total.perf.bus_bytes = st.perf.bus_bytes;
  }

  // The exact zero-point correction and the requantization on the host, when the device could
  // not take the zero points:  sum (a - za[m])(w - zw[n]) = acc0 - zw[n] * S[m] - dza[m] * Wn
  // with acc0 = sum (a - za_dev) w, S[m] = sum (a - za_dev), dza = za[m] - za_dev and
  // Wn = sum_k (w[k][n] - zw[n]).
  if (corrected) {
    std::vector<int64_t> wsum(size_t(mg.batches * N), 0);
    if (row_zp) {
      for (int64_t b = 0; b < mg.batches; ++b)
        for (int64_t k = 0; k < K; ++k)
          for (int64_t j = 0; j < N; ++j) {
            const size_t wbase = mg.batched_w ? size_t(b * K * N) : 0;
            const int64_t wv = t.transpose_w ? w.ints[wbase + size_t(j * K + k)] : w.ints[wbase + size_t(k * N + j)];
            wsum[size_t(b * N + j)] += wv - wz.v[wz.v.size() == 1 ? 0 : j];
          }
    }
    const int64_t rows_per_matrix = t.conv ? rows : x.dims[x.dims.size() - 2];
    for (int64_t b = 0; b < mg.batches; ++b) {
      for (int64_t m = 0; m < rows; ++m) {
        const int64_t dza = row_zp ? xz.v[size_t(m % rows_per_matrix)] : 0;
        for (int64_t j = 0; j < N; ++j) {
          const int64_t zw = wz.v[wz.v.size() == 1 ? 0 : j];
          int64_t a = acc[size_t((b * rows + m) * N + j)];
          a -= zw * row_sum[size_t(b * rows + m)] + dza * wsum[size_t(b * N + j)];
          int32_t val = int32_t(uint32_t(a));
          if (!t.int32_out) {
            // The tensor unit's ONNX requantization: float32(acc + bias) * scale, half to even.
            const int32_t sum = int32_t(uint32_t(val) + uint32_t(bias.empty() ? 0 : bias[size_t(j)]));
            const float prod = f32_mul(float(sum), scale[size_t(j)]);
            const double q = std::nearbyint(double(prod)) + yzp;
            val = int32_t(std::clamp(q, double(lo), double(hi)));
          }
          acc[size_t((b * rows + m) * N + j)] = val;
        }
      }
    }
  }

  // The result in ONNX's layout.
  OnnxTensor y;
  y.name = t.y;
  y.elem_type = t.int32_out ? kOnnxInt32 : y_type;
  y.dims = mg.out_dims;
  y.ints.resize(acc.size());
  if (t.conv) {
    const int64_t hw = int64_t(cs.out_h()) * cs.out_w();
    for (int64_t nb = 0; nb < cs.n; ++nb)
      for (int64_t p = 0; p < hw; ++p)
        for (int64_t c = 0; c < N; ++c) y.ints[size_t((nb * N + c) * hw + p)] = acc[size_t((nb * hw + p) * N + c)];
  } else {
    for (size_t i = 0; i < acc.size(); ++i) y.ints[i] = acc[i];
  }

  r.macs = uint64_t(mg.batches * rows * N * K);
  r.cycles = total.perf.c.cycles;
  r.utilisation = r.cycles ? double(r.macs) / (double(r.cycles) * dev->caps().rows * dev->caps().cols) : 0;
  r.dma_bytes = total.perf.c.dma_rd_bytes + total.perf.c.dma_wr_bytes;
  r.wait_weights = total.perf.c.tu_wait_w, r.wait_activations = total.perf.c.tu_wait_a;
  r.wait_drain = total.perf.c.tu_wait_drain, r.dma_stall = total.perf.c.dma_rd_stall;
  r.host_bytes = host_bytes;
  if (t.conv) r.im2col_bytes = uint64_t(rows * K);
  r.shape = dims_string(x.dims) + " -> " + dims_string(y.dims);
  if (t.conv) r.shape += ", k" + std::to_string(cs.kh) + "x" + std::to_string(cs.kw) + " s" + std::to_string(cs.stride_h);
  if (corrected) r.note = "zero points per row / channel: int32 out, exact correction and requantization on the host";
  r.note += std::string(r.note.empty() ? "" : "; ") + "operands packed by the host for this call";
  v[t.y] = std::move(y);
  release(t.x, index);
}

// One FP tensor-unit call on element codes (float8: one byte, T = uint8_t; bfloat16: two,
// little-endian, T = uint16_t), shared by the FP8 and BF16 forms: x's codes as A rows (NCHW ->
// NHWC pixels for a convolution, whose im2col pads with code 0, +0), w's as K x N (OIHW -> OHWI
// filters), the device's codes back into y (NHWC -> NCHW), and the layer report.
template <class T>
void Model::Impl::run_fp_codes(const Step& s, const OnnxTensor& x, const OnnxTensor& w,
                               const Conv2dShape& cs, const MatGeometry& mg, const GemmOptions& opt,
                               int32_t y_type, Values& v, LayerReport& r, const char* note) {
  const TensorOp& t = s.t;
  const int64_t rows = mg.m, K = mg.k, N = mg.n;
  constexpr size_t kBytes = sizeof(T);
  std::vector<uint8_t> a_bytes(size_t(x.size()) * kBytes), w_bytes(size_t(K * N) * kBytes);
  auto put = [](std::vector<uint8_t>& bytes, int64_t at, int64_t code) {
    for (size_t b = 0; b < kBytes; ++b) bytes[size_t(at) * kBytes + b] = uint8_t(code >> (8 * b));
  };
  std::vector<T> out(size_t(rows * N));
  OpStats st;
  if (t.conv) {
    const int64_t hw = int64_t(cs.h) * cs.w, khw = int64_t(cs.kh) * cs.kw;
    for (int64_t nb = 0; nb < cs.n; ++nb)
      for (int64_t c = 0; c < cs.c_in; ++c)
        for (int64_t p = 0; p < hw; ++p)
          put(a_bytes, (nb * hw + p) * cs.c_in + c, x.ints[size_t((nb * cs.c_in + c) * hw + p)]);
    for (int64_t o = 0; o < N; ++o)
      for (int64_t c = 0; c < cs.c_in; ++c)
        for (int64_t p = 0; p < khw; ++p)
          put(w_bytes, (o * khw + p) * cs.c_in + c, w.ints[size_t((o * cs.c_in + c) * khw + p)]);
    st = conv2d(*dev, cs, a_bytes, w_bytes, std::span<T>(out), opt);
  } else {
    for (int64_t i = 0; i < x.size(); ++i) put(a_bytes, i, x.ints[size_t(i)]);
    for (int64_t k = 0; k < K; ++k)
      for (int64_t j = 0; j < N; ++j)
        put(w_bytes, k * N + j,
            t.transpose_w ? w.ints[size_t(j * K + k)] : w.ints[size_t(k * N + j)]);
    st = gemm(*dev, int(rows), int(N), int(K), a_bytes, w_bytes, std::span<T>(out), opt);
  }

  OnnxTensor y;
  y.name = t.y;
  y.elem_type = y_type;
  y.dims = mg.out_dims;
  y.ints.resize(out.size());
  if (t.conv) {
    const int64_t hw = int64_t(cs.out_h()) * cs.out_w();
    for (int64_t nb = 0; nb < cs.n; ++nb)
      for (int64_t p = 0; p < hw; ++p)
        for (int64_t c = 0; c < N; ++c)
          y.ints[size_t((nb * N + c) * hw + p)] = out[size_t((nb * hw + p) * N + c)];
  } else {
    for (size_t i = 0; i < out.size(); ++i) y.ints[i] = out[i];
  }
  const Capabilities& cap = dev->caps();
  r.macs = uint64_t(rows * N * K);
  r.cycles = st.perf.c.cycles;
  r.utilisation = r.cycles ? double(r.macs) / (double(r.cycles) * cap.rows * cap.cols) : 0;
  r.dma_bytes = st.perf.c.dma_rd_bytes + st.perf.c.dma_wr_bytes;
  r.wait_weights = st.perf.c.tu_wait_w, r.wait_activations = st.perf.c.tu_wait_a;
  r.wait_drain = st.perf.c.tu_wait_drain;
  r.dma_stall = st.perf.c.dma_rd_stall + st.perf.c.dma_wr_stall;
  r.host_bytes =
      gemm_footprint(cap, uint64_t(rows), uint64_t(N), uint64_t(K), false, kBytes == 2).total();
  if (t.conv) r.im2col_bytes = uint64_t(rows * K) * kBytes;
  r.shape = dims_string(x.dims) + " -> " + dims_string(y.dims);
  if (t.conv)
    r.shape += ", k" + std::to_string(cs.kh) + "x" + std::to_string(cs.kw) + " s" +
               std::to_string(cs.stride_h);
  r.note = note;
  v[t.y] = std::move(y);
  release(t.x, size_t(&s - steps.data()));
}

// The FP8 form of a QDQ MatMul / Gemm / Conv as one host-packed tensor-unit call (the resident
// implicit-GEMM path is integer only): FP8 operands as they are (one byte per element), FP32 sums
// in the tensor unit's tile order (docs/tensor-unit.md, "Floating-point modes"), then per column
// y = relu?(fl32(fl32(acc * scale) + bias)) rounded into the output's float8 format with
// saturation, where scale = fl32(fl32(x_scale * w_scale[n]) / y_scale) and bias = fl32(b[n] /
// y_scale). That is the tensor unit's rule, not the specification's float path (which rounds
// every dequantized product and sums in an unspecified order); the golden executor lowers the
// same group the same way (weft/golden/onnx_exec.hpp, GraphOptions::fp_tile_rows).
void Model::Impl::run_fp8_op(const Step& s, Values& v, LayerReport& r) {
  const TensorOp& t = s.t;
  const std::string who = g.path + ": node " + s.node->name + " (" + t.label + ")";
  materialize(t.x, v);
  const OnnxTensor& x = get(v, t.x, who);
  const OnnxTensor& w = get(v, t.w, who);
  if (!is_float8(x.elem_type) || !is_float8(w.elem_type)) {
    throw Error(Errc::kBadModel, who + ": unsupported: float8 weights with a " +
                                     std::to_string(x.elem_type) +
                                     " input (both operands must be float8)");
  }
  auto format_of = [](int32_t elem) {
    return elem == kOnnxFloat8E4m3fn ? ElemFormat::kE4m3 : ElemFormat::kE5m2;
  };
  // Zero points: none or +0 (code 0), as for the host DequantizeLinear.
  for (const auto& [zp, elem] : {std::pair{t.x_zp, x.elem_type}, std::pair{t.w_zp, w.elem_type}}) {
    if (zp.empty()) continue;
    const OnnxTensor& z = get(v, zp, who);
    if (z.elem_type != elem)
      throw Error(Errc::kBadModel,
                  who + ": the zero point '" + zp + "' differs in type from its input");
    if (std::any_of(z.ints.begin(), z.ints.end(), [](int64_t c) { return c != 0; })) {
      throw Error(Errc::kBadModel, who + ": a float8 zero point must be 0 (code 0x00)");
    }
  }
  // The output type: the QuantizeLinear's zero point, else its output_dtype.
  int32_t y_type = int32_t(t.y_dtype);
  if (!t.y_zp.empty()) {
    y_type = get(v, t.y_zp, who).elem_type;
    if (t.y_dtype != 0 && t.y_dtype != y_type)
      throw Error(Errc::kBadModel, who + ": output_dtype differs from the zero point's type");
  }
  if (!is_float8(y_type)) {
    throw Error(Errc::kBadModel,
                who + ": unsupported: an FP8 MatMul / Gemm / Conv quantized to type " +
                    std::to_string(y_type) + " (the FP8 output stage writes float8)");
  }
  Conv2dShape cs;
  MatGeometry mg;
  tensor_geometry(t, x, w, who, &cs, &mg);
  if (mg.batched_w) throw Error(Errc::kBadModel, who + ": unsupported: batched FP8 weights");
  const int64_t N = mg.n;

  const float xs = scalar_float(v, t.x_scale, who), ys = scalar_float(v, t.y_scale, who);
  const std::vector<float> ws = floats_of(v, t.w_scale, who);
  if (ws.size() != 1 && int64_t(ws.size()) != N)
    throw Error(Errc::kBadModel, who + ": the weight scale has " + std::to_string(ws.size()) +
                                     " values, not 1 or " + std::to_string(N));
  for (float f : ws) {
    if (!(f > 0) || !std::isfinite(f))
      throw Error(Errc::kBadModel, who + ": a weight scale is not a positive finite number");
  }
  if (!(xs > 0) || !std::isfinite(xs) || !(ys > 0) || !std::isfinite(ys))
    throw Error(Errc::kBadModel, who + ": a scale is not a positive finite number");
  GemmOptions opt;
  opt.timeout = this->opt.timeout;
  opt.a = {false, 0, format_of(x.elem_type)};
  opt.w = {false, 0, format_of(w.elem_type)};
  opt.out.format = format_of(y_type);
  opt.out.relu = t.relu;
  for (int64_t j = 0; j < N; ++j)
    opt.out.scale.push_back(onnx_output_scale(xs, ws[ws.size() == 1 ? 0 : size_t(j)], ys));
  if (!t.fp_bias.empty()) {
    const std::vector<float> b = floats_of(v, t.fp_bias, who);
    for (int64_t j = 0; j < N; ++j) {
      volatile float q = b.at(size_t(j)) / ys;  // one float32 division, not contracted
      opt.out.fp_bias.push_back(float(q));
    }
  }

  run_fp_codes<uint8_t>(
      s, x, w, cs, mg, opt, y_type, v, r,
      "FP8 operands, FP32 sums in the tensor unit's tile order (its rule, not the "
      "specification's float path); operands packed by the host for this call");
}

// A BF16 MatMul / Gemm / Conv as one host-packed tensor-unit call: BF16 operands (two bytes per
// element, little-endian codes), FP32 sums in the tensor unit's tile order (docs/tensor-unit.md,
// "Floating-point modes": per k-tile of `rows` a float32 fma chain from +0, tiles added in
// float32), then per column y = relu?(fl32(acc + bias[n])) rounded to nearest even into BF16.
// That is the tensor unit's rule; the specification leaves the summation to the implementation
// (onnx's reference sums in float32 in k order and rounds each op's result to bfloat16). The
// golden executor computes the same rule (weft/golden/onnx_exec.hpp, GraphOptions::fp_tile_rows).
void Model::Impl::run_bf16_op(const Step& s, Values& v, LayerReport& r) {
  const TensorOp& t = s.t;
  const std::string who = g.path + ": node " + s.node->name + " (" + t.label + ")";
  materialize(t.x, v);
  const OnnxTensor& x = get(v, t.x, who);
  const OnnxTensor& w = get(v, t.w, who);
  if (!x.is_bf16() || !w.is_bf16()) {
    throw Error(Errc::kBadModel, who + ": unsupported: BFLOAT16 weights with a " +
                                     type_text(x.elem_type) +
                                     " input (the tensor unit multiplies BF16 by BF16 only: Cast "
                                     "the input to BFLOAT16)");
  }
  Conv2dShape cs;
  MatGeometry mg;
  tensor_geometry(t, x, w, who, &cs, &mg);
  if (mg.batched_w) throw Error(Errc::kBadModel, who + ": unsupported: batched BF16 weights");
  const int64_t N = mg.n;

  GemmOptions opt;
  opt.timeout = this->opt.timeout;
  opt.a = {false, 0, ElemFormat::kBf16};
  opt.w = {false, 0, ElemFormat::kBf16};
  opt.out.format = ElemFormat::kBf16;
  opt.out.relu = t.relu;  // scale left empty: 1.0, so fl32(acc * 1) = acc
  if (!t.fp_bias.empty()) {
    // The bias's exact values (a bfloat16 is a float32), one per column.
    const OnnxTensor& b = get(v, t.fp_bias, who);
    if ((!b.is_bf16() && !b.is_float()) || (b.size() != N && b.size() != 1)) {
      throw Error(Errc::kBadModel, who + ": the bias must be " + std::to_string(N) +
                                       " BFLOAT16 or FLOAT values");
    }
    for (int64_t j = 0; j < N; ++j) {
      const size_t i = b.size() == 1 ? 0 : size_t(j);
      opt.out.fp_bias.push_back(b.is_float() ? b.floats[i]
                                             : golden::fp_decode(uint32_t(b.ints[i]),
                                                                 golden::FpFormat::kBf16));
    }
  }

  run_fp_codes<uint16_t>(s, x, w, cs, mg, opt, kOnnxBfloat16, v, r,
                         "BF16 operands, FP32 sums in the tensor unit's tile order (its rule; the "
                         "specification leaves the summation open); operands packed by the host "
                         "for this call");
}

std::string Model::Impl::kernel_path(const std::string& kernel) const {
  namespace fs = std::filesystem;
  std::vector<fs::path> dirs;
  if (!opt.kernel_dir.empty()) dirs.push_back(opt.kernel_dir);
  if (const char* env = std::getenv("WEFT_KERNEL_DIR")) dirs.push_back(env);
  char exe[4096];
  const ssize_t len = readlink("/proc/self/exe", exe, sizeof exe - 1);
  if (len > 0) dirs.push_back(fs::path(std::string(exe, size_t(len))).parent_path() / ".." / "share" / "weft" / "kernels");
  if (*WEFT_KERNEL_ELF_DIR) dirs.push_back(WEFT_KERNEL_ELF_DIR);
  for (const fs::path& d : dirs) {
    const fs::path p = d / (kernel + ".elf");
    std::error_code ec;
    if (fs::is_regular_file(p, ec)) return p.string();
  }
  return "";
}


bool Model::Impl::simt_ready(const std::string& kernel, std::string* why) {
  const std::string elf = kernel_path(kernel);
  if (!dev->caps().has_simt()) {
    *why = "the device has no SIMT core";
    return false;
  }
  if (elf.empty()) {
    *why = kernel + ".elf not found (ModelOptions::kernel_dir, WEFT_KERNEL_DIR)";
    return false;
  }
  if (!simt) simt = std::make_unique<Simt>(*dev);
  if (simt_loaded != elf) {
    simt->load(SimtImage::from_file(elf));
    simt_loaded = elf;
  }
  return true;
}

// The graph's own nodes of a folded step, on the host in order.
void Model::Impl::run_fallback(const Step& s, Values& v, LayerReport& r, const std::string& why) {
  for (const OnnxNode* f : s.fallback) {
    const std::string who = g.path + ": node " + f->name + " (" + f->op_type + ")";
    std::vector<const OnnxTensor*> in;
    for (const auto& name : f->inputs) in.push_back(name.empty() ? nullptr : &get(v, name, who));
    std::vector<OnnxTensor> out = model::run_host_op(*f, in, g.opset);
    for (size_t i = 0; i < out.size() && i < f->outputs.size(); ++i) {
      if (!f->outputs[i].empty()) v[f->outputs[i]] = std::move(out[i]);
    }
  }
  r.where = Placement::kHost;
  r.note = "on the host: " + why;
  const OnnxTensor& y = get(v, s.node->outputs.at(0), g.path);
  r.shape = dims_string(get(v, s.node->inputs.at(0), g.path).dims) + " -> " + dims_string(y.dims);
}

// A folded QDQ Add / AveragePool / GlobalAveragePool on the SIMT core (sw/kernels qadd,
// qavgpool: the host's float32 arithmetic by IEEE soft-float, bit for bit).
void Model::Impl::run_simt_qdq(const Step& s, Values& v, LayerReport& r) {
  const OnnxNode& n = *s.node;
  const std::string who = g.path + ": node " + n.name + " (" + n.op_type + ")";
  const bool add = n.op_type == "QAdd";
  std::string why;
  if (!simt_ready(add ? "qadd" : "qavgpool", &why)) return run_fallback(s, v, r, why);
  auto bits = [](float f) {
    uint32_t u;
    std::memcpy(&u, &f, sizeof u);
    return u;
  };
  auto scale_of = [&](const std::string& name) { return get(v, name, who).floats.at(0); };
  auto zp_of = [&](const std::string& name, int32_t* type) {
    if (name.empty()) return int32_t{0};
    const OnnxTensor& t = get(v, name, who);
    *type = t.elem_type;
    return int32_t(t.ints.at(0));
  };
  auto bytes_of = [](const OnnxTensor& t, int64_t first, int64_t len) {
    std::vector<uint8_t> bytes(static_cast<size_t>(len));
    for (int64_t i = 0; i < len; ++i) bytes[size_t(i)] = uint8_t(t.ints[size_t(first + i)]);
    return bytes;
  };
  const Capabilities& cap = dev->caps();
  const uint64_t room = simt->heap_end() - simt->heap_begin();
  const uint64_t slack = 512;  // the argument struct and line rounding
  OnnxTensor y;
  int32_t y_type = kOnnxUint8;
  uint64_t host = 0;
  if (add) {
    const OnnxTensor& a = get(v, n.inputs.at(0), who);
    const OnnxTensor& b = get(v, n.inputs.at(3), who);
    int32_t a_type = a.elem_type, b_type = b.elem_type;
    weft_qadd_args args{};
    args.a_scale = bits(scale_of(n.inputs.at(1))), args.b_scale = bits(scale_of(n.inputs.at(4)));
    args.y_scale = bits(scale_of(n.inputs.at(6)));
    args.a_zero_point = zp_of(n.inputs.at(2), &a_type), args.b_zero_point = zp_of(n.inputs.at(5), &b_type);
    args.y_zero_point = zp_of(input(n, 7), &y_type);
    const auto bad_type = [](int32_t t) { return t != kOnnxUint8 && t != kOnnxInt8; };
    if (bad_type(a.elem_type) || bad_type(b.elem_type) || bad_type(y_type) || a.dims.size() > 4 || b.dims.size() > 4) {
      return run_fallback(s, v, r, "the qadd kernel takes uint8 / int8 tensors of rank <= 4");
    }
    // numpy broadcasting, right-aligned to rank 4; element strides 0 on broadcast axes.
    std::vector<int64_t> out_dims;
    const size_t rank = std::max(a.dims.size(), b.dims.size());
    for (size_t i = 0; i < rank; ++i) {
      const int64_t da = i < rank - a.dims.size() ? 1 : a.dims[i - (rank - a.dims.size())];
      const int64_t db = i < rank - b.dims.size() ? 1 : b.dims[i - (rank - b.dims.size())];
      if (da != db && da != 1 && db != 1) throw Error(Errc::kBadModel, who + ": shapes " + dims_string(a.dims) + " and " + dims_string(b.dims) + " do not broadcast");
      out_dims.push_back(std::max(da, db) == 1 ? 1 : (da == 1 ? db : da));
    }
    auto strides4 = [&](const std::vector<int64_t>& d, uint32_t* st) {
      int64_t stride = 1;
      for (int k = 3, j = int(d.size()) - 1; k >= 0; --k, --j) {
        const int64_t dim = j >= 0 ? d[size_t(j)] : 1;
        const int64_t od = k - (4 - int(rank)) >= 0 ? out_dims[size_t(k - (4 - int(rank)))] : 1;
        st[k] = dim == 1 && od != 1 ? 0 : uint32_t(stride);
        stride *= dim;
      }
    };
    const int64_t count = element_count(out_dims, who);
    const bool flat = a.dims == b.dims;  // the same shape: chunks of the flat arrays
    const uint64_t per = flat ? 3 : 1;
    if (!flat && uint64_t(a.size() + b.size() + count) + slack > room) {
      return run_fallback(s, v, r, "the broadcast operands do not fit the SIMT data memory");
    }
    const int64_t chunk = flat ? std::max<int64_t>(16, int64_t((room - slack) / per) / 16 * 16) : count;
    y.elem_type = y_type;
    y.dims = out_dims;
    y.ints.reserve(size_t(count));
    args.flags = (a.elem_type == kOnnxInt8 ? WEFT_Q_A_INT8 : 0u) | (b.elem_type == kOnnxInt8 ? WEFT_Q_B_INT8 : 0u) |
                 (y_type == kOnnxInt8 ? WEFT_Q_Y_INT8 : 0u);
    for (int64_t first = 0; first < count; first += chunk) {
      const int64_t len = std::min(chunk, count - first);
      simt->free_all();
      if (flat) {
        for (int k = 0; k < 4; ++k) args.dims[k] = 1, args.a_strides[k] = args.b_strides[k] = 1;
        args.dims[3] = uint32_t(len);
        const std::vector<uint8_t> ab = bytes_of(a, first, len), bb = bytes_of(b, first, len);
        args.a = simt->put(ab), args.b = simt->put(bb);
        host += ab.size() + bb.size();
      } else {
        for (int k = 0; k < 4; ++k) {
          const int j = k - (4 - int(rank));
          args.dims[k] = j >= 0 ? uint32_t(out_dims[size_t(j)]) : 1u;
        }
        strides4(a.dims, args.a_strides);
        strides4(b.dims, args.b_strides);
        const std::vector<uint8_t> ab = bytes_of(a, 0, a.size()), bb = bytes_of(b, 0, b.size());
        args.a = simt->put(ab), args.b = simt->put(bb);
        host += ab.size() + bb.size();
      }
      args.y = simt->alloc(size_t(len));
      const SimtReport rep = simt->launch({cap.simt_warps, cap.simt_threads}, simt->put_args(args), 0, 0, opt.timeout);
      const std::vector<uint8_t> out = simt->read<uint8_t>(args.y, size_t(len), opt.timeout);
      for (uint8_t byte : out) y.ints.push_back(y_type == kOnnxInt8 ? int64_t(int8_t(byte)) : int64_t(byte));
      r.cycles += rep.cycles;
      add_simt_counters(rep, r);
      host += out.size();
    }
  } else {
    const OnnxTensor& x = get(v, n.inputs.at(0), who);
    int32_t x_type = x.elem_type;
    weft_qavgpool_args args{};
    args.x_scale = bits(scale_of(n.inputs.at(1))), args.y_scale = bits(scale_of(n.inputs.at(3)));
    args.x_zero_point = zp_of(n.inputs.at(2), &x_type), args.y_zero_point = zp_of(input(n, 4), &y_type);
    if ((x.elem_type != kOnnxUint8 && x.elem_type != kOnnxInt8) || (y_type != kOnnxUint8 && y_type != kOnnxInt8) || x.dims.size() != 4) {
      return run_fallback(s, v, r, "the qavgpool kernel takes 2-D pools of uint8 / int8 NCHW tensors");
    }
    const int64_t nb = x.dims[0], c = x.dims[1], h = x.dims[2], w = x.dims[3];
    int64_t oh = 1, ow = 1;
    if (n.op_type == "QGlobalAveragePool") {
      args.kh = uint32_t(h), args.kw = uint32_t(w), args.stride_h = args.stride_w = 1;
      args.dilation_h = args.dilation_w = 1;
    } else {
      const model::Pool p = model::pool_geometry(n, x);
      args.kh = uint32_t(p.kh), args.kw = uint32_t(p.kw), args.stride_h = uint32_t(p.sh), args.stride_w = uint32_t(p.sw);
      args.pad_top = uint32_t(p.pt), args.pad_left = uint32_t(p.pl), args.pad_bottom = uint32_t(p.pb), args.pad_right = uint32_t(p.pr);
      args.dilation_h = uint32_t(p.dh), args.dilation_w = uint32_t(p.dw);
      args.count_include_pad = n.attr("count_include_pad", 0) != 0;
      oh = p.oh, ow = p.ow;
    }
    args.h = uint32_t(h), args.w = uint32_t(w), args.out_h = uint32_t(oh), args.out_w = uint32_t(ow);
    args.flags = (x.elem_type == kOnnxInt8 ? WEFT_Q_A_INT8 : 0u) | (y_type == kOnnxInt8 ? WEFT_Q_Y_INT8 : 0u);
    const int64_t planes = nb * c, in_plane = h * w, out_plane = oh * ow;
    const uint64_t per_plane = uint64_t((in_plane + 15) / 16 * 16 + (out_plane + 15) / 16 * 16);
    if (per_plane + slack > room) return run_fallback(s, v, r, "a plane does not fit the SIMT data memory");
    const int64_t chunk = std::max<int64_t>(1, int64_t((room - slack) / per_plane));
    y.elem_type = y_type;
    y.dims = n.op_type == "QGlobalAveragePool" ? std::vector<int64_t>{nb, c, 1, 1} : std::vector<int64_t>{nb, c, oh, ow};
    y.ints.reserve(size_t(planes * out_plane));
    for (int64_t first = 0; first < planes; first += chunk) {
      const int64_t count = std::min(chunk, planes - first);
      simt->free_all();
      const std::vector<uint8_t> in = bytes_of(x, first * in_plane, count * in_plane);
      args.batch = 1, args.channels = uint32_t(count);
      args.in = simt->put(in);
      args.out = simt->alloc(size_t(count * out_plane));
      const SimtReport rep = simt->launch({cap.simt_warps, cap.simt_threads}, simt->put_args(args), 0, 0, opt.timeout);
      const std::vector<uint8_t> out = simt->read<uint8_t>(args.out, size_t(count * out_plane), opt.timeout);
      for (uint8_t byte : out) y.ints.push_back(y_type == kOnnxInt8 ? int64_t(int8_t(byte)) : int64_t(byte));
      r.cycles += rep.cycles;
      add_simt_counters(rep, r);
      host += in.size() + out.size();
    }
  }
  r.where = Placement::kSimt;
  r.host_bytes = host;
  r.shape = dims_string(get(v, n.inputs.at(0), who).dims) + " -> " + dims_string(y.dims);
  v[n.outputs.at(0)] = std::move(y);
}

// An integer MaxPool on the SIMT core (sw/kernels/src/maxpool2d.c), as many planes per launch as
// the data memory holds. Returns after placing the result in `v`; falls back to the host (and
// says why in the report) when the device has no SIMT core or the kernel is not found.
void Model::Impl::run_simt_maxpool(const Step& s, Values& v, LayerReport& r) {
  const OnnxNode& n = *s.node;
  const std::string who = g.path + ": node " + n.name + " (MaxPool)";
  const OnnxTensor& x = get(v, n.inputs.at(0), who);
  const model::Pool p = model::pool_geometry(n, x);
  const std::string elf = kernel_path("maxpool2d");
  std::string why;
  if (!dev->caps().has_simt()) why = "the device has no SIMT core";
  else if (elf.empty()) why = "maxpool2d.elf not found (ModelOptions::kernel_dir, WEFT_KERNEL_DIR)";
  if (!why.empty()) {
    r.where = Placement::kHost;
    r.note += std::string(r.note.empty() ? "" : "; ") + why;
    std::vector<const OnnxTensor*> in{&x};
    v[n.outputs.at(0)] = model::run_host_op(n, in, g.opset).at(0);
    return;
  }
  if (!simt) simt = std::make_unique<Simt>(*dev);
  if (simt_loaded != elf) {
    simt->load(SimtImage::from_file(elf));
    simt_loaded = elf;
  }
  const int64_t nb = x.dims[0], c = x.dims[1], h = x.dims[2], w = x.dims[3];
  const int64_t planes = nb * c, in_plane = h * w, out_plane = p.oh * p.ow;
  const uint64_t room = simt->heap_end() - simt->heap_begin();
  const uint64_t per_plane = uint64_t((in_plane + 15) / 16 * 16 + (out_plane + 15) / 16 * 16);
  const int64_t chunk = std::max<int64_t>(1, int64_t((room > 256 ? room - 256 : 0) / per_plane));
  if (per_plane + 256 > room) throw Error(Errc::kBadModel, who + ": unsupported: a plane of " + std::to_string(in_plane) + " bytes does not fit the SIMT data memory");
  OnnxTensor y;
  y.elem_type = x.elem_type;
  y.dims = {nb, c, p.oh, p.ow};
  y.ints.reserve(size_t(planes * out_plane));
  const Capabilities& cap = dev->caps();
  uint64_t host = 0;
  for (int64_t first = 0; first < planes; first += chunk) {
    const int64_t count = std::min(chunk, planes - first);
    simt->free_all();
    std::vector<uint8_t> bytes(size_t(count * in_plane));
    for (size_t i = 0; i < bytes.size(); ++i) bytes[i] = uint8_t(x.ints[size_t(first * in_plane) + i]);
    weft_maxpool2d_args a{};
    a.batch = 1, a.channels = uint32_t(count), a.h = uint32_t(h), a.w = uint32_t(w);
    a.kh = uint32_t(p.kh), a.kw = uint32_t(p.kw), a.stride_h = uint32_t(p.sh), a.stride_w = uint32_t(p.sw);
    a.pad_top = uint32_t(p.pt), a.pad_left = uint32_t(p.pl), a.dilation_h = uint32_t(p.dh), a.dilation_w = uint32_t(p.dw);
    a.out_h = uint32_t(p.oh), a.out_w = uint32_t(p.ow), a.is_signed = x.elem_type == kOnnxInt8;
    a.in = simt->put(bytes);
    a.out = simt->alloc(size_t(count * out_plane));
    const SimtReport rep = simt->launch({cap.simt_warps, cap.simt_threads}, simt->put_args(a), 0, 0, opt.timeout);
    const std::vector<uint8_t> out = simt->read<uint8_t>(a.out, size_t(count * out_plane), opt.timeout);
    for (uint8_t b : out) y.ints.push_back(x.elem_type == kOnnxInt8 ? int64_t(int8_t(b)) : int64_t(b));
    r.cycles += rep.cycles;
    add_simt_counters(rep, r);
    host += bytes.size() + out.size();
  }
  r.host_bytes = host;
  r.where = Placement::kSimt;
  r.shape = dims_string(x.dims) + " -> " + dims_string(y.dims) + ", k" + std::to_string(p.kh) + "x" + std::to_string(p.kw) + " s" + std::to_string(p.sh);
  v[n.outputs.at(0)] = std::move(y);
}

void Model::Impl::run_step(const Step& s, Values& v, LayerReport& r) {
  r.node = s.node->name;
  r.where = s.where;
  r.note = s.note;
  if (s.where == Placement::kTensorUnit) {
    r.op = s.t.label;
    if (s.t.fp8) return run_fp8_op(s, v, r);
    if (s.t.bf16) return run_bf16_op(s, v, r);
    run_tensor_op(s, v, r);
    return;
  }
  r.op = s.node->op_type;
  const std::string who = g.path + ": node " + s.node->name + " (" + s.node->op_type + ")";
  if (s.where == Placement::kSimt && !s.fallback.empty()) return run_simt_qdq(s, v, r);
  if (s.where == Placement::kSimt) {
    const OnnxTensor& x = get(v, s.node->inputs.at(0), who);
    if ((x.elem_type == kOnnxUint8 || x.elem_type == kOnnxInt8) && x.dims.size() == 4) return run_simt_maxpool(s, v, r);
    r.where = Placement::kHost;
    r.note = x.dims.size() == 4 ? "a float MaxPool: the SIMT core has no FPU" : "the SIMT maxpool2d kernel is 2-D";
  }
  std::vector<const OnnxTensor*> in;
  for (const auto& name : s.node->inputs) in.push_back(name.empty() ? nullptr : &get(v, name, who));
  std::vector<OnnxTensor> out;
  try {
    out = model::run_host_op(*s.node, in, g.opset);
  } catch (const Error& e) {
    throw Error(e.code(), g.path + ": " + std::string(e.detail()));
  }
  r.shape = in.empty() || !in[0] ? "" : dims_string(in[0]->dims);
  r.shape += " -> " + dims_string(out.at(0).dims);
  for (size_t i = 0; i < out.size() && i < s.node->outputs.size(); ++i) {
    if (!s.node->outputs[i].empty()) v[s.node->outputs[i]] = std::move(out[i]);
  }
}

Model::Model(std::unique_ptr<Impl> impl) : impl_(std::move(impl)) {}
Model::Model(Model&&) noexcept = default;
Model& Model::operator=(Model&&) noexcept = default;
Model::~Model() = default;

namespace {

// A host allocation that fails is OUT_OF_MEMORY, like the device arena's (never std::bad_alloc).
template <class F>
auto named_out_of_memory(const std::string& path, F&& f) {
  try {
    return f();
  } catch (const std::bad_alloc&) {
    throw Error(Errc::kOutOfMemory, path + ": the host ran out of memory (a tensor of the model is too large)");
  }
}

}  // namespace

Model Model::load(Device& dev, const std::string& path, const ModelOptions& opt) {
  return named_out_of_memory(path, [&] { return load_unchecked(dev, path, opt); });
}

std::map<std::string, OnnxTensor> Model::run(const std::map<std::string, OnnxTensor>& inputs) {
  return named_out_of_memory(impl_->g.path, [&] { return run_unchecked(inputs); });
}

Model Model::load_unchecked(Device& dev, const std::string& path, const ModelOptions& opt) {
  auto impl = std::make_unique<Impl>();
  impl->dev = &dev;
  impl->opt = opt;
  impl->g = load_onnx_graph(path);
  // Opset 22 only added types to the operators here (bfloat16 to Conv and the pools) and wrote
  // down the pools' ceil_mode rule the runtime follows (a window starting in the right padding is
  // dropped); 23 changes more.
  if (impl->g.opset > 22) {
    throw Error(Errc::kBadModel, path + ": unsupported: opset " + std::to_string(impl->g.opset) +
                                     " (the runtime knows opsets up to 22)");
  }
  const std::set<int32_t> tensor_types = {kOnnxFloat, kOnnxUint8,        kOnnxInt8,
                                          kOnnxInt32, kOnnxInt64,        kOnnxBfloat16,
                                          kOnnxFloat8E4m3fn, kOnnxFloat8E5m2};
  for (const OnnxValueInfo& in : impl->g.inputs) {
    if (!tensor_types.count(in.elem_type)) {
      throw Error(Errc::kBadModel, path + ": unsupported: input '" + in.name +
                                       "' is not a float32, uint8, int8, int32, int64, bfloat16 "
                                       "or float8 (e4m3fn, e5m2) tensor (type " +
                                       std::to_string(in.elem_type) +
                                       "; sequence, optional and map values are not supported)");
    }
  }
  impl->lower();
  impl->plan_memory();
  return Model(std::move(impl));
}

const std::vector<OnnxValueInfo>& Model::inputs() const { return impl_->g.inputs; }
const std::vector<OnnxValueInfo>& Model::outputs() const { return impl_->g.outputs; }
const std::vector<LayerReport>& Model::layers() const { return impl_->layers; }

std::string Model::plan_summary() const {
  std::ostringstream os;
  for (const Step& s : impl_->steps) {
    os << (s.where == Placement::kTensorUnit ? s.t.label : s.node->op_type) << "  " << s.node->name
       << "  -> " << placement_name(s.where);
    if (!s.note.empty()) os << " (" << s.note << ")";
    os << "\n";
  }
  return os.str();
}

std::map<std::string, OnnxTensor> Model::run_unchecked(const std::map<std::string, OnnxTensor>& inputs) {
  Impl& m = *impl_;
  Values v = m.g.constants;
  for (const OnnxValueInfo& in : m.g.inputs) {
    auto it = inputs.find(in.name);
    if (it == inputs.end()) throw Error(Errc::kBadArgument, m.g.path + ": input '" + in.name + "' is not given");
    const OnnxTensor& t = it->second;
    if (in.elem_type != 0 && t.elem_type != in.elem_type) {
      throw Error(Errc::kBadArgument, m.g.path + ": input '" + in.name + "' has element type " + std::to_string(t.elem_type) + ", the model declares " + std::to_string(in.elem_type));
    }
    if (in.has_shape) {
      bool ok = in.dims.size() == t.dims.size();
      for (size_t i = 0; ok && i < in.dims.size(); ++i) ok = in.dims[i] < 0 || in.dims[i] == t.dims[i];
      if (!ok) throw Error(Errc::kBadArgument, m.g.path + ": input '" + in.name + "' has shape " + dims_string(t.dims) + ", the model declares " + dims_string(in.dims));
    }
    if (model::element_count(t.dims, in.name) != int64_t(t.floats.size() + t.ints.size())) {
      throw Error(Errc::kBadArgument, m.g.path + ": input '" + in.name + "' holds a different number of values than its shape " + dims_string(t.dims));
    }
    v[in.name] = t;
  }
  for (const auto& [name, t] : inputs) {
    if (std::none_of(m.g.inputs.begin(), m.g.inputs.end(), [&](const OnnxValueInfo& i) { return i.name == name; })) {
      throw Error(Errc::kBadArgument, m.g.path + ": the model has no input '" + name + "'");
    }
  }
  m.layers.clear();
  for (auto& [name, res] : m.on_device) m.free_buffers.push_back(res.act);
  m.on_device.clear();
  for (const Step& s : m.steps) {
    LayerReport r;
    const auto t0 = std::chrono::steady_clock::now();
    r.first_cycle = m.dev->cycle();
    m.run_step(s, v, r);
    r.last_cycle = m.dev->cycle();
    r.wall_seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    m.layers.push_back(std::move(r));
  }
  std::map<std::string, OnnxTensor> out;
  for (const OnnxValueInfo& o : m.g.outputs) {
    OnnxTensor t = get(v, o.name, m.g.path);
    t.name = o.name;
    out[o.name] = std::move(t);
  }
  return out;
}

}  // namespace weft
