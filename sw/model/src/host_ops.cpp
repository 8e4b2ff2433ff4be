#include "host_ops.hpp"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <functional>
#include <limits>
#include <numeric>
#include <set>

#include "weft/error.hpp"
#include "weft/golden/fp.hpp"
#include "weft/onnx_graph.hpp"

namespace weft::model {
namespace {

[[noreturn]] void fail(const OnnxNode& n, const std::string& why) {
  throw Error(Errc::kBadModel, "node " + n.name + " (" + n.op_type + "): " + why);
}

const std::set<std::string> kHostOps = {
    "QuantizeLinear", "DequantizeLinear", "Relu",    "Clip",    "Add",       "MaxPool",
    "AveragePool",    "GlobalAveragePool", "Softmax", "Reshape", "Flatten",  "Transpose",
    "Concat",         "Pad",              "Identity", "Squeeze", "Unsqueeze", "Cast"};

// bfloat16 codes (OnnxTensor::ints) and their values: golden::fp_decode is exact (every NaN to the
// canonical float32 NaN), golden::fp_encode rounds to nearest even (overflow to +-Inf, NaN to the
// canonical 0x7FC0), which is ONNX Cast's float -> bfloat16 as the specification's reference
// (ml_dtypes) and onnxruntime compute it.
float bf16_value(int64_t code) {
  return golden::fp_decode(uint32_t(code), golden::FpFormat::kBf16);
}
int64_t bf16_code(float v) { return int64_t(golden::fp_encode(v, golden::FpFormat::kBf16)); }
bool bf16_is_nan(int64_t code) { return (code & 0x7FFF) > 0x7F80; }

bool is_int_type(int32_t t) {
  return t == kOnnxUint8 || t == kOnnxInt8 || t == kOnnxInt32 || t == kOnnxInt64;
}

void type_range(int32_t t, int32_t* lo, int32_t* hi) {
  if (t == kOnnxUint8) {
    *lo = 0, *hi = 255;
  } else {
    *lo = -128, *hi = 127;
  }
}

// float32 arithmetic that the compiler may not contract or keep in wider registers.
float f32_mul(float a, float b) {
  volatile float r = a * b;
  return r;
}
float f32_div(float a, float b) {
  volatile float r = a / b;
  return r;
}
float f32_add(float a, float b) {
  volatile float r = a + b;
  return r;
}

// The exact value of a float8 code, decoded here from the OCP formats' definitions (not with the
// golden model's fp_decode, which the golden executor uses: the two check each other). Every NaN
// becomes the canonical quiet NaN (0x7FC00000), as fp_decode gives it.
float fp8_value(int64_t code, int32_t type) {
  const bool e4m3 = type == kOnnxFloat8E4m3fn;
  const int mbits = e4m3 ? 3 : 2, bias = e4m3 ? 7 : 15, emax = e4m3 ? 15 : 31;
  const int c = int(code) & 0xFF, e = (c & 0x7F) >> mbits, m = c & ((1 << mbits) - 1);
  float v;
  if (e4m3 && (c & 0x7F) == 0x7F)
    return std::numeric_limits<float>::quiet_NaN();  // E4M3FN: only NaN
  if (!e4m3 && e == emax) {
    if (m) return std::numeric_limits<float>::quiet_NaN();
    v = std::numeric_limits<float>::infinity();
  } else if (e == 0) {
    v = std::ldexp(float(m), 1 - bias - mbits);  // subnormal: m * 2^(1 - bias - mbits), exact
  } else {
    v = std::ldexp(float((1 << mbits) | m), e - bias - mbits);
  }
  return (c & 0x80) ? -v : v;
}

// QuantizeLinear's float8 rounding of v = x / y_scale (already rounded to float32).
//   saturate = 1: golden::fp_encode, which is ONNX Cast's saturate=1 (round to nearest even,
//     +-Inf and overflow to +-max, NaN to the canonical NaN 0x7F / 0x7E).
//   saturate = 0: round to nearest even without saturation, as the specification's reference
//     (ml_dtypes' astype) does: E4M3FN has no infinity, so |v| > 464 (448 + half its ulp; 464
//     itself is a tie that goes to the even 448) and +-Inf become NaN, the sign kept (0x7F /
//     0xFF); E5M2 overflows to +-Inf from 61440 (57344 + half its ulp, a tie whose even
//     neighbour is 2^16 = Inf). A NaN keeps its sign. Below the overflow both round as
//     fp_encode does.
int64_t quantize_fp8(float v, int32_t type, bool saturate) {
  const bool e4m3 = type == kOnnxFloat8E4m3fn;
  const golden::FpFormat f = e4m3 ? golden::FpFormat::kE4M3 : golden::FpFormat::kE5M2;
  if (saturate) return int64_t(golden::fp_encode(v, f));
  const int64_t sign = std::signbit(v) ? 0x80 : 0;
  if (std::isnan(v)) return (e4m3 ? 0x7F : 0x7E) | sign;
  const float a = std::fabs(v);
  if (e4m3 && a > 464.0f) return 0x7F | sign;
  if (!e4m3 && a >= 61440.0f) return 0x7C | sign;
  return int64_t(golden::fp_encode(v, f));
}

// Values of a tensor as float / int64 (converting integers to float for float ops).
float fval(const OnnxTensor& t, int64_t i) { return t.is_float() ? t.floats[i] : float(t.ints[i]); }

OnnxTensor like(const OnnxTensor& t, std::vector<int64_t> dims) {
  OnnxTensor r;
  r.elem_type = t.elem_type;
  r.dims = std::move(dims);
  return r;
}

void append(OnnxTensor& dst, const OnnxTensor& src, int64_t i) {
  if (src.is_float()) dst.floats.push_back(src.floats[i]);
  else dst.ints.push_back(src.ints[i]);
}

std::vector<int64_t> strides_of(const std::vector<int64_t>& dims) {
  std::vector<int64_t> s(dims.size(), 1);
  for (int i = int(dims.size()) - 2; i >= 0; --i) s[i] = s[i + 1] * dims[i + 1];
  return s;
}

int64_t norm_axis(const OnnxNode& n, int64_t axis, size_t rank) {
  const int64_t r = int64_t(rank);
  if (axis < -r || axis >= r) fail(n, "axis " + std::to_string(axis) + " outside the rank " + std::to_string(r));
  return axis < 0 ? axis + r : axis;
}

const OnnxTensor& need(const OnnxNode& n, const std::vector<const OnnxTensor*>& in, size_t i) {
  if (i >= in.size() || !in[i]) fail(n, "input " + std::to_string(i) + " is missing");
  return *in[i];
}

std::vector<int64_t> int_values(const OnnxNode& n, const OnnxTensor& t, const char* what) {
  if (!is_int_type(t.elem_type)) fail(n, std::string(what) + " must be an integer tensor");
  return t.ints;
}

// Quantization parameters: scale (float, 1 or per axis) and zero point (1 or per axis, optional;
// integer values, or float8 codes).
struct QParams {
  std::vector<float> scale;
  std::vector<int64_t> zp;
  int32_t type = kOnnxUint8;
  bool has_zp = false;
};
QParams qparams(const OnnxNode& n, const std::vector<const OnnxTensor*>& in) {
  QParams q;
  if (n.attr("block_size", 0) != 0) fail(n, "unsupported: blocked quantization (block_size)");
  const OnnxTensor& s = need(n, in, 1);
  if (!s.is_float() || s.floats.empty()) fail(n, "the scale must be a non-empty float tensor");
  q.scale = s.floats;
  if (in.size() > 2 && in[2]) {
    if (!is_float8(in[2]->elem_type)) int_values(n, *in[2], "the zero point");  // checks the type
    q.zp = in[2]->ints;
    q.type = in[2]->elem_type;
    q.has_zp = true;
    if (q.zp.size() != q.scale.size()) fail(n, "the zero point and scale differ in size");
  } else {
    q.zp.assign(q.scale.size(), 0);
  }
  return q;
}

// For per-axis parameters: the index of the parameter of element i.
std::function<size_t(int64_t)> param_index(const OnnxNode& n, const OnnxTensor& x, size_t count,
                                           int64_t axis_attr) {
  if (count == 1) return [](int64_t) { return size_t{0}; };
  const int64_t axis = norm_axis(n, axis_attr, x.dims.size());
  if (x.dims[axis] != int64_t(count)) {
    fail(n, "per-axis parameters need " + std::to_string(x.dims[axis]) + " elements, not " +
                std::to_string(count));
  }
  const int64_t inner = strides_of(x.dims)[axis], dim = x.dims[axis];
  return [inner, dim](int64_t i) { return size_t((i / inner) % dim); };
}

OnnxTensor quantize(const OnnxNode& n, const std::vector<const OnnxTensor*>& in) {
  const OnnxTensor& x = need(n, in, 0);
  if (is_float8(x.elem_type)) fail(n, "the input must be a float or integer tensor, not float8");
  QParams q = qparams(n, in);
  // Opset 21's output_dtype: the output type when there is no zero point; with one, it must agree
  // (the specification's reference raises otherwise).
  if (const int64_t dtype = n.attr("output_dtype", 0); dtype != 0) {
    if (q.has_zp && dtype != q.type)
      fail(n, "output_dtype " + std::to_string(dtype) + " differs from the zero point's type " +
                  std::to_string(q.type));
    q.type = int32_t(dtype);
  }
  OnnxTensor y;
  y.elem_type = q.type;
  y.dims = x.dims;
  const int64_t count = x.size();
  y.ints.resize(count);
  auto pi = param_index(n, x, q.scale.size(), n.attr("axis", 1));
  if (is_float8(q.type)) {
    // The zero point is not added for float8: the specification calls it "usually not used", and
    // its reference and onnxruntime ignore it whatever its value (a nonzero one too).
    const bool saturate = n.attr("saturate", 1) != 0;
    for (int64_t i = 0; i < count; ++i)
      y.ints[i] = quantize_fp8(f32_div(fval(x, i), q.scale[pi(i)]), q.type, saturate);
    return y;
  }
  if (q.type != kOnnxUint8 && q.type != kOnnxInt8)
    fail(n, "unsupported: output type " + std::to_string(q.type) +
                " (uint8, int8, float8 e4m3fn / e5m2 are)");
  int32_t lo, hi;
  type_range(q.type, &lo, &hi);
  for (int64_t i = 0; i < count; ++i) {
    const size_t p = pi(i);
    y.ints[i] = quantize_value(fval(x, i), q.scale[p], int32_t(q.zp[p]), lo, hi);
  }
  return y;
}

OnnxTensor dequantize(const OnnxNode& n, const std::vector<const OnnxTensor*>& in) {
  const OnnxTensor& x = need(n, in, 0);
  if (!is_int_type(x.elem_type) && !is_float8(x.elem_type))
    fail(n, "the input must be an integer or float8 tensor");
  const QParams q = qparams(n, in);
  auto pi = param_index(n, x, q.scale.size(), n.attr("axis", 1));
  OnnxTensor y;
  y.elem_type = kOnnxFloat;
  y.dims = x.dims;
  const int64_t count = x.size();
  y.floats.resize(count);
  if (is_float8(x.elem_type)) {
    // y = float32(x) * x_scale: the decoding is exact, the product one float32 rounding. A zero
    // point other than +0 (code 0; -0 included) is an error, as the specification's reference
    // and onnxruntime make it.
    if (q.has_zp && q.type != x.elem_type)
      fail(n, "the zero point's type differs from the input's");
    for (int64_t z : q.zp) {
      if (z != 0)
        fail(n, "a float8 zero point must be 0 (code 0x00), not code " + std::to_string(z) +
                    " (the specification's reference and onnxruntime refuse it too)");
    }
    for (int64_t i = 0; i < count; ++i)
      y.floats[i] = f32_mul(fp8_value(x.ints[i], x.elem_type), q.scale[pi(i)]);
    return y;
  }
  // An integer input with a float8 zero point would read codes as integers.
  if (q.has_zp && is_float8(q.type)) fail(n, "the zero point's type differs from the input's");
  for (int64_t i = 0; i < count; ++i) {
    const size_t p = pi(i);
    // int32 - zero point is exact; its conversion to float32 rounds once, as the spec's reference.
    y.floats[i] = f32_mul(float(x.ints[i] - q.zp[p]), q.scale[p]);
  }
  return y;
}

OnnxTensor clip(const OnnxNode& n, const std::vector<const OnnxTensor*>& in, bool relu) {
  const OnnxTensor& x = need(n, in, 0);
  OnnxTensor y = x;
  if (x.is_bf16()) {
    // Relu on bfloat16 codes: every negative value and -0 becomes +0, NaN stays. The same as the
    // tensor unit's fused Relu (golden::fp_postprocess) before or after the bfloat16 rounding, so
    // a Relu the runtime folds into a BF16 MatMul / Gemm / Conv and one it runs here agree.
    if (!relu) fail(n, "unsupported: Clip on a bfloat16 tensor (Relu is supported)");
    for (int64_t& c : y.ints) {
      if ((c & 0x8000) && !bf16_is_nan(c)) c = 0;
    }
    return y;
  }
  if (x.is_float()) {
    float lo = relu ? 0.0f : -std::numeric_limits<float>::infinity();
    float hi = std::numeric_limits<float>::infinity();
    if (!relu) lo = n.fattr("min", lo), hi = n.fattr("max", hi);  // opset < 11: attributes
    if (!relu && in.size() > 1 && in[1]) lo = fval(*in[1], 0);
    if (!relu && in.size() > 2 && in[2]) hi = fval(*in[2], 0);
    for (float& v : y.floats) v = std::min(std::max(v, lo), hi);
  } else {
    int64_t lo = relu ? 0 : std::numeric_limits<int64_t>::min();
    int64_t hi = std::numeric_limits<int64_t>::max();
    if (!relu && in.size() > 1 && in[1]) lo = in[1]->ints.at(0);
    if (!relu && in.size() > 2 && in[2]) hi = in[2]->ints.at(0);
    for (int64_t& v : y.ints) v = std::min(std::max(v, lo), hi);
  }
  return y;
}

// numpy broadcasting of two shapes.
std::vector<int64_t> broadcast(const OnnxNode& n, const std::vector<int64_t>& a,
                               const std::vector<int64_t>& b) {
  const size_t r = std::max(a.size(), b.size());
  std::vector<int64_t> out(r);
  for (size_t i = 0; i < r; ++i) {
    const int64_t da = i < r - a.size() ? 1 : a[i - (r - a.size())];
    const int64_t db = i < r - b.size() ? 1 : b[i - (r - b.size())];
    if (da != db && da != 1 && db != 1) fail(n, "shapes " + dims_string(a) + " and " + dims_string(b) + " do not broadcast");
    out[i] = da == 1 ? db : da;
  }
  return out;
}

// Index into `dims` (right-aligned to `out`) of the element at flat output index i.
int64_t broadcast_index(int64_t i, const std::vector<int64_t>& out, const std::vector<int64_t>& dims) {
  int64_t idx = 0, stride = 1;
  for (int k = int(out.size()) - 1, d = int(dims.size()) - 1; k >= 0; --k, --d) {
    const int64_t coord = i % out[k];
    i /= out[k];
    if (d >= 0) {
      if (dims[d] != 1) idx += coord * stride;
      stride *= dims[d];
    }
  }
  return idx;
}

OnnxTensor add(const OnnxNode& n, const std::vector<const OnnxTensor*>& in) {
  const OnnxTensor& a = need(n, in, 0);
  const OnnxTensor& b = need(n, in, 1);
  if (a.elem_type != b.elem_type) fail(n, "the inputs differ in type");
  const std::vector<int64_t> dims = broadcast(n, a.dims, b.dims);
  OnnxTensor y = like(a, dims);
  const int64_t count = element_count(dims, n.name);
  for (int64_t i = 0; i < count; ++i) {
    const int64_t ia = broadcast_index(i, dims, a.dims), ib = broadcast_index(i, dims, b.dims);
    // bfloat16: the exact values added in float32, rounded once to bfloat16 (as the reference).
    if (a.is_bf16()) {
      y.ints.push_back(bf16_code(f32_add(bf16_value(a.ints[ia]), bf16_value(b.ints[ib]))));
    } else if (a.is_float()) {
      y.floats.push_back(f32_add(a.floats[ia], b.floats[ib]));
    } else {
      y.ints.push_back(a.ints[ia] + b.ints[ib]);  // int32 add (tests keep it in range)
    }
  }
  return y;
}

// Cast between FLOAT and BFLOAT16 (and to its own type: a copy). float -> bfloat16 rounds to
// nearest even (overflow to +-Inf, NaN to 0x7FC0); bfloat16 -> float is exact (NaN to the
// canonical 0x7FC00000).
OnnxTensor cast(const OnnxNode& n, const std::vector<const OnnxTensor*>& in) {
  const OnnxTensor& x = need(n, in, 0);
  const int64_t to = n.attr("to", 0);
  if (to == x.elem_type) return x;
  if (x.is_float() && to == kOnnxBfloat16) {
    OnnxTensor y = like(x, x.dims);
    y.elem_type = kOnnxBfloat16;
    y.ints.reserve(x.floats.size());
    for (float v : x.floats) y.ints.push_back(bf16_code(v));
    return y;
  }
  if (x.is_bf16() && to == kOnnxFloat) {
    OnnxTensor y = like(x, x.dims);
    y.elem_type = kOnnxFloat;
    y.floats.reserve(x.ints.size());
    for (int64_t c : x.ints) y.floats.push_back(bf16_value(c));
    return y;
  }
  fail(n, "unsupported: Cast from type " + std::to_string(x.elem_type) + " to type " +
              std::to_string(to) + " (FLOAT <-> BFLOAT16 only)");
}

}  // namespace

Pool pool_geometry(const OnnxNode& n, const OnnxTensor& x) {
  if (x.dims.size() != 4) fail(n, "unsupported: only 2-D pooling (NCHW input) is supported");
  Pool p;
  const auto k = n.ints("kernel_shape");
  if (k.size() != 2) fail(n, "kernel_shape must have 2 values");
  p.kh = k[0], p.kw = k[1];
  const auto s = n.ints("strides", {1, 1});
  const auto d = n.ints("dilations", {1, 1});
  const auto pads = n.ints("pads", {0, 0, 0, 0});
  if (s.size() != 2 || d.size() != 2 || pads.size() != 4) fail(n, "strides, dilations, pads: wrong length");
  p.sh = s[0], p.sw = s[1], p.dh = d[0], p.dw = d[1];
  if (p.kh < 1 || p.kw < 1 || p.sh < 1 || p.sw < 1 || p.dh < 1 || p.dw < 1) fail(n, "kernel, strides and dilations must be >= 1");
  const int64_t h = x.dims[2], w = x.dims[3];
  const int64_t ekh = (p.kh - 1) * p.dh + 1, ekw = (p.kw - 1) * p.dw + 1;
  const std::string auto_pad = n.sattr("auto_pad", "NOTSET");
  const bool ceil_mode = n.attr("ceil_mode", 0) != 0;
  if (auto_pad == "NOTSET") {
    p.pt = pads[0], p.pl = pads[1], p.pb = pads[2], p.pr = pads[3];
    auto out = [&](int64_t in, int64_t pad_begin, int64_t pad_end, int64_t ek, int64_t st) {
      const int64_t span = in + pad_begin + pad_end - ek;
      if (span < 0) fail(n, "the window is larger than the padded input");
      int64_t o = (ceil_mode ? (span + st - 1) / st : span / st) + 1;
      // ceil_mode: the last window must start inside the input or its begin padding
      if (ceil_mode && (o - 1) * st >= in + pad_begin) --o;
      return o;
    };
    p.oh = out(h, p.pt, p.pb, ekh, p.sh);
    p.ow = out(w, p.pl, p.pr, ekw, p.sw);
  } else if (auto_pad == "VALID") {
    p.oh = (h - ekh) / p.sh + 1;
    p.ow = (w - ekw) / p.sw + 1;
  } else if (auto_pad == "SAME_UPPER" || auto_pad == "SAME_LOWER") {
    p.oh = (h + p.sh - 1) / p.sh;
    p.ow = (w + p.sw - 1) / p.sw;
    const int64_t ph = std::max<int64_t>(0, (p.oh - 1) * p.sh + ekh - h);
    const int64_t pw = std::max<int64_t>(0, (p.ow - 1) * p.sw + ekw - w);
    const bool upper = auto_pad == "SAME_UPPER";
    p.pt = upper ? ph / 2 : ph - ph / 2, p.pb = ph - p.pt;
    p.pl = upper ? pw / 2 : pw - pw / 2, p.pr = pw - p.pl;
  } else {
    fail(n, "auto_pad '" + auto_pad + "' is not one of NOTSET, VALID, SAME_UPPER, SAME_LOWER");
  }
  if (p.oh < 1 || p.ow < 1) fail(n, "the output would be empty");
  return p;
}

namespace {

OnnxTensor pool(const OnnxNode& n, const std::vector<const OnnxTensor*>& in, bool is_max) {
  const OnnxTensor& x = need(n, in, 0);
  const Pool p = pool_geometry(n, x);
  if (!is_max && !x.is_float()) fail(n, "unsupported: AveragePool on integer tensors");
  const bool count_pad = n.attr("count_include_pad", 0) != 0;
  const int64_t nb = x.dims[0], c = x.dims[1], h = x.dims[2], w = x.dims[3];
  OnnxTensor y = like(x, {nb, c, p.oh, p.ow});
  for (int64_t b = 0; b < nb; ++b) {
    for (int64_t ch = 0; ch < c; ++ch) {
      const int64_t base = (b * c + ch) * h * w;
      for (int64_t oy = 0; oy < p.oh; ++oy) {
        for (int64_t ox = 0; ox < p.ow; ++ox) {
          float fmax = -std::numeric_limits<float>::infinity();
          double sum = 0;  // exact for any window of float32 values that fits here
          int64_t imax = std::numeric_limits<int64_t>::min(), count = 0;
          const int64_t y0 = oy * p.sh - p.pt, x0 = ox * p.sw - p.pl;
          for (int64_t ky = 0; ky < p.kh; ++ky) {
            const int64_t iy = y0 + ky * p.dh;
            for (int64_t kx = 0; kx < p.kw; ++kx) {
              const int64_t ix = x0 + kx * p.dw;
              const bool inside = iy >= 0 && iy < h && ix >= 0 && ix < w;
              if (!inside) {
                // count_include_pad counts the explicit padding, not positions past it
                if (count_pad && iy >= -p.pt && iy < h + p.pb && ix >= -p.pl && ix < w + p.pr) ++count;
                continue;
              }
              ++count;
              const int64_t i = base + iy * w + ix;
              if (x.is_float()) {
                fmax = std::max(fmax, x.floats[i]);
                sum += x.floats[i];
              } else {
                imax = std::max(imax, x.ints[i]);
              }
            }
          }
          if (is_max) {
            if (x.is_float()) y.floats.push_back(fmax);
            else y.ints.push_back(imax);
          } else {
            // the mean rounded once to float32: what the operator's definition (a real mean) gives
            y.floats.push_back(count ? static_cast<float>(sum / double(count)) : 0.0f);
          }
        }
      }
    }
  }
  return y;
}

// A 1-D pool [N][C][L] as the 2-D pool of [N][C][1][L] with a 1 x k window.
OnnxTensor pool_1d(const OnnxNode& n, const std::vector<const OnnxTensor*>& in, bool is_max) {
  OnnxNode m = n;
  auto widen = [&](const char* key, int64_t one) {
    auto it = n.ints_attrs.find(key);
    if (it == n.ints_attrs.end()) return;
    const auto& v = it->second;
    if (std::string(key) == "pads") {
      if (v.size() != 2) fail(n, "pads must have 2 values for a 1-D pool");
      m.ints_attrs[key] = {0, v[0], 0, v[1]};
    } else {
      if (v.size() != 1) fail(n, std::string(key) + " must have 1 value for a 1-D pool");
      m.ints_attrs[key] = {one, v[0]};
    }
  };
  widen("kernel_shape", 1);
  widen("strides", 1);
  widen("dilations", 1);
  widen("pads", 0);
  OnnxTensor x = need(n, in, 0);
  x.dims = {x.dims[0], x.dims[1], 1, x.dims[2]};
  std::vector<const OnnxTensor*> in2 = in;
  in2[0] = &x;
  OnnxTensor y = pool(m, in2, is_max);
  y.dims = {y.dims[0], y.dims[1], y.dims[3]};
  return y;
}

OnnxTensor global_average_pool(const OnnxNode& n, const std::vector<const OnnxTensor*>& in) {
  const OnnxTensor& x = need(n, in, 0);
  if (!x.is_float()) fail(n, "unsupported: GlobalAveragePool on integer tensors");
  if (x.dims.size() < 3) fail(n, "the input needs N, C and spatial dimensions");
  std::vector<int64_t> dims = x.dims;
  int64_t spatial = 1;
  for (size_t i = 2; i < dims.size(); ++i) spatial *= dims[i], dims[i] = 1;
  OnnxTensor y = like(x, dims);
  for (int64_t nc = 0; nc < dims[0] * dims[1]; ++nc) {
    double sum = 0;  // the mean rounded once to float32, as for AveragePool
    for (int64_t i = 0; i < spatial; ++i) sum += x.floats[nc * spatial + i];
    y.floats.push_back(static_cast<float>(sum / double(spatial)));
  }
  return y;
}

OnnxTensor softmax(const OnnxNode& n, const std::vector<const OnnxTensor*>& in, int64_t opset) {
  const OnnxTensor& x = need(n, in, 0);
  if (!x.is_float()) fail(n, "unsupported: Softmax on integer tensors");
  if (opset < 13) fail(n, "unsupported: Softmax before opset 13 (2-D coercion semantics)");
  const int64_t axis = norm_axis(n, n.attr("axis", -1), x.dims.size());
  const int64_t inner = strides_of(x.dims)[axis], len = x.dims[axis];
  const int64_t outer = x.size() / (inner * len);
  OnnxTensor y = x;
  for (int64_t o = 0; o < outer; ++o) {
    for (int64_t i = 0; i < inner; ++i) {
      const int64_t base = o * len * inner + i;
      float m = -std::numeric_limits<float>::infinity();
      for (int64_t k = 0; k < len; ++k) m = std::max(m, x.floats[base + k * inner]);
      float sum = 0;
      for (int64_t k = 0; k < len; ++k) {
        const float e = std::exp(x.floats[base + k * inner] - m);
        y.floats[base + k * inner] = e;
        sum = f32_add(sum, e);
      }
      for (int64_t k = 0; k < len; ++k) y.floats[base + k * inner] = f32_div(y.floats[base + k * inner], sum);
    }
  }
  return y;
}

OnnxTensor reshape_to(const OnnxTensor& x, std::vector<int64_t> dims) {
  OnnxTensor y = x;
  y.dims = std::move(dims);
  return y;
}

OnnxTensor reshape(const OnnxNode& n, const std::vector<const OnnxTensor*>& in) {
  const OnnxTensor& x = need(n, in, 0);
  std::vector<int64_t> shape = int_values(n, need(n, in, 1), "the shape");
  const bool allowzero = n.attr("allowzero", 0) != 0;
  int64_t known = 1, infer = -1;
  for (size_t i = 0; i < shape.size(); ++i) {
    if (shape[i] == 0 && !allowzero) {
      if (i >= x.dims.size()) fail(n, "a 0 in the shape has no input dimension to copy");
      shape[i] = x.dims[i];
    }
    if (shape[i] == -1) {
      if (infer >= 0) fail(n, "more than one -1 in the shape");
      infer = int64_t(i);
    } else if (shape[i] < 0) {
      fail(n, "a negative dimension in the shape");
    } else {
      known *= shape[i];
    }
  }
  const int64_t count = x.size();
  if (infer >= 0) {
    if (known == 0 || count % known) fail(n, "the shape " + dims_string(shape) + " cannot hold " + std::to_string(count) + " elements");
    shape[infer] = count / known;
  }
  if (element_count(shape, n.name) != count) fail(n, "the shape " + dims_string(shape) + " does not hold " + std::to_string(count) + " elements");
  return reshape_to(x, shape);
}

OnnxTensor flatten(const OnnxNode& n, const std::vector<const OnnxTensor*>& in) {
  const OnnxTensor& x = need(n, in, 0);
  int64_t axis = n.attr("axis", 1);
  const int64_t r = int64_t(x.dims.size());
  if (axis < -r || axis > r) fail(n, "axis outside the rank");
  if (axis < 0) axis += r;
  int64_t a = 1, b = 1;
  for (int64_t i = 0; i < r; ++i) (i < axis ? a : b) *= x.dims[i];
  return reshape_to(x, {a, b});
}

OnnxTensor transpose(const OnnxNode& n, const std::vector<const OnnxTensor*>& in) {
  const OnnxTensor& x = need(n, in, 0);
  const size_t r = x.dims.size();
  std::vector<int64_t> perm = n.ints("perm");
  if (perm.empty()) {
    for (size_t i = 0; i < r; ++i) perm.push_back(int64_t(r - 1 - i));
  }
  if (perm.size() != r) fail(n, "perm has " + std::to_string(perm.size()) + " values for rank " + std::to_string(r));
  std::vector<int64_t> dims(r);
  std::vector<bool> used(r, false);
  for (size_t i = 0; i < r; ++i) {
    const int64_t p = norm_axis(n, perm[i], r);
    if (used[p]) fail(n, "perm repeats an axis");
    used[p] = true;
    perm[i] = p;
    dims[i] = x.dims[p];
  }
  const auto in_strides = strides_of(x.dims);
  OnnxTensor y = like(x, dims);
  const int64_t count = x.size();
  std::vector<int64_t> coord(r, 0);
  for (int64_t i = 0; i < count; ++i) {
    int64_t src = 0;
    for (size_t k = 0; k < r; ++k) src += coord[k] * in_strides[perm[k]];
    append(y, x, src);
    for (int k = int(r) - 1; k >= 0; --k) {
      if (++coord[k] < dims[k]) break;
      coord[k] = 0;
    }
  }
  return y;
}

OnnxTensor concat(const OnnxNode& n, const std::vector<const OnnxTensor*>& in) {
  const OnnxTensor& first = need(n, in, 0);
  const int64_t axis = norm_axis(n, n.attr("axis", 0), first.dims.size());
  std::vector<int64_t> dims = first.dims;
  dims[axis] = 0;
  for (size_t i = 0; i < in.size(); ++i) {
    const OnnxTensor& t = need(n, in, i);
    if (t.elem_type != first.elem_type || t.dims.size() != first.dims.size()) fail(n, "inputs differ in type or rank");
    for (size_t k = 0; k < dims.size(); ++k) {
      if (int64_t(k) != axis && t.dims[k] != first.dims[k]) fail(n, "inputs differ outside the axis");
    }
    dims[axis] += t.dims[axis];
  }
  OnnxTensor y = like(first, dims);
  int64_t outer = 1;
  for (int64_t k = 0; k < axis; ++k) outer *= dims[k];
  for (int64_t o = 0; o < outer; ++o) {
    for (const OnnxTensor* t : in) {
      const int64_t block = t->size() / std::max<int64_t>(outer, 1);
      for (int64_t i = 0; i < block; ++i) append(y, *t, o * block + i);
    }
  }
  return y;
}

OnnxTensor pad(const OnnxNode& n, const std::vector<const OnnxTensor*>& in) {
  const OnnxTensor& x = need(n, in, 0);
  const std::string mode = n.sattr("mode", "constant");
  if (mode != "constant" && mode != "edge" && mode != "reflect") fail(n, "unsupported: pad mode '" + mode + "'");
  // opset < 11: pads and value are attributes
  const std::vector<int64_t> pads = in.size() > 1 && in[1] ? int_values(n, *in[1], "pads") : n.ints("pads");
  const size_t r = x.dims.size();
  if (in.size() > 3 && in[3]) fail(n, "unsupported: the axes input");
  if (pads.size() != 2 * r) fail(n, "pads needs " + std::to_string(2 * r) + " values");
  float fvalue = n.fattr("value", 0.0f);
  int64_t ivalue = 0;
  if (in.size() > 2 && in[2] && in[2]->size() > 0) {
    if (in[2]->is_float()) fvalue = in[2]->floats[0];
    else ivalue = in[2]->ints[0];
  }
  std::vector<int64_t> dims(r);
  for (size_t k = 0; k < r; ++k) {
    // In int64 without overflow (pads near INT64_MAX used to wrap around to a small size).
    if (__builtin_add_overflow(x.dims[k], pads[k], &dims[k]) ||
        __builtin_add_overflow(dims[k], pads[k + r], &dims[k])) {
      fail(n, "pads overflow the output dimension");
    }
    if (dims[k] < 0) fail(n, "negative output dimension");
  }
  OnnxTensor y = like(x, dims);
  const auto in_strides = strides_of(x.dims);
  const int64_t count = element_count(dims, n.name);
  if (mode != "constant") {
    for (size_t k = 0; k < r; ++k) {
      if (x.dims[k] == 0 && dims[k] > 0) fail(n, "edge / reflect padding of an empty axis");
      if (mode == "reflect" && (pads[k] >= x.dims[k] || pads[k + r] >= x.dims[k]) && x.dims[k] > 1) {
        fail(n, "reflect padding wider than the axis");
      }
    }
  }
  std::vector<int64_t> coord(r, 0);
  for (int64_t i = 0; i < count; ++i) {
    int64_t src = 0;
    bool inside = true;
    for (size_t k = 0; k < r; ++k) {
      int64_t c = coord[k] - pads[k];
      if (c < 0 || c >= x.dims[k]) {
        if (mode == "edge") {
          c = std::clamp<int64_t>(c, 0, x.dims[k] - 1);
        } else if (mode == "reflect") {
          if (x.dims[k] == 1) {
            c = 0;
          } else {
            const int64_t period = 2 * (x.dims[k] - 1);  // reflection without repeating the edge
            c = ((c % period) + period) % period;
            if (c >= x.dims[k]) c = period - c;
          }
        } else {
          inside = false;
          continue;
        }
      }
      src += c * in_strides[k];
    }
    if (inside) append(y, x, src);
    else if (x.is_float()) y.floats.push_back(fvalue);
    else y.ints.push_back(ivalue);
    for (int k = int(r) - 1; k >= 0; --k) {
      if (++coord[k] < dims[k]) break;
      coord[k] = 0;
    }
  }
  return y;
}

OnnxTensor squeeze(const OnnxNode& n, const std::vector<const OnnxTensor*>& in, bool un) {
  const OnnxTensor& x = need(n, in, 0);
  std::vector<int64_t> axes = n.ints("axes");  // before opset 13
  if (in.size() > 1 && in[1]) axes = int_values(n, *in[1], "axes");
  std::vector<int64_t> dims;
  if (un) {
    const size_t r = x.dims.size() + axes.size();
    std::vector<bool> is_new(r, false);
    for (int64_t a : axes) is_new[norm_axis(n, a, r)] = true;
    size_t j = 0;
    for (size_t k = 0; k < r; ++k) dims.push_back(is_new[k] ? 1 : x.dims[j++]);
  } else {
    std::vector<bool> drop(x.dims.size(), axes.empty());
    for (int64_t a : axes) drop[norm_axis(n, a, x.dims.size())] = true;
    for (size_t k = 0; k < x.dims.size(); ++k) {
      if (drop[k] && x.dims[k] != 1 && !axes.empty()) fail(n, "a squeezed axis is not 1");
      if (!(drop[k] && x.dims[k] == 1)) dims.push_back(x.dims[k]);
    }
  }
  return reshape_to(x, dims);
}

}  // namespace

int32_t quantize_value(float x, float scale, int32_t zero_point, int32_t qmin, int32_t qmax) {
  const float q = f32_div(x, scale);
  const float r = std::nearbyint(q);  // round half to even in the default rounding mode
  const double v = double(r) + zero_point;
  return int32_t(std::clamp(v, double(qmin), double(qmax)));
}

int64_t element_count(const std::vector<int64_t>& dims, const std::string& where) {
  int64_t n = 1;
  for (int64_t d : dims) {
    if (d < 0) throw Error(Errc::kBadModel, where + ": a negative dimension in " + dims_string(dims));
    // The host's limit for one tensor (docs/model-runtime.md, Limits): 2^31 elements, 8 GiB of
    // float32; a larger one is refused before any of it is allocated.
    if (d > 0 && n > (int64_t{1} << 31) / d) throw Error(Errc::kBadModel, where + ": more than 2^31 elements");
    n *= d;
  }
  return n;
}


bool host_op_supported(const OnnxNode& n, std::string* why) {
  if (!n.domain.empty() && n.domain != "ai.onnx") {
    if (why) *why = "domain '" + n.domain + "' is not supported (only the standard ai.onnx operators)";
    return false;
  }
  if (!kHostOps.count(n.op_type)) {
    if (why) *why = "operator " + n.op_type + " is not supported";
    return false;
  }
  if (n.op_type == "MaxPool" && n.outputs.size() > 1 && !n.outputs[1].empty()) {
    if (why) *why = "MaxPool's Indices output is not supported";
    return false;
  }
  if (n.op_type == "Cast") {
    const int64_t to = n.attr("to", 0);
    if (to != kOnnxFloat && to != kOnnxBfloat16) {
      if (why) *why = "Cast to type " + std::to_string(to) + " (between FLOAT and BFLOAT16 only)";
      return false;
    }
  }
  return true;
}

std::vector<OnnxTensor> run_host_op(const OnnxNode& n, const std::vector<const OnnxTensor*>& in,
                                    int64_t opset) {
  const std::string& op = n.op_type;
  // Float8 tensors hold codes, which only the quantization ops decode and data movement copies;
  // arithmetic on them (Relu, Add, MaxPool, ...) would compute on the codes.
  static const std::set<std::string> kFloat8Ops = {
      "QuantizeLinear", "DequantizeLinear", "Reshape",  "Flatten", "Transpose", "Concat", "Pad",
      "Identity",       "Squeeze",          "Unsqueeze"};
  if (!kFloat8Ops.count(op)) {
    for (const OnnxTensor* t : in) {
      if (t && is_float8(t->elem_type))
        fail(n, "unsupported: " + op +
                    " on a float8 tensor (float8 is read by QuantizeLinear, DequantizeLinear and "
                    "data movement)");
    }
  }
  // bfloat16 likewise: Cast, Relu and Add decode it, data movement copies the codes.
  static const std::set<std::string> kBf16Ops = {"Cast",     "Relu",      "Add",      "Reshape",
                                                 "Flatten",  "Transpose", "Concat",   "Pad",
                                                 "Identity", "Squeeze",   "Unsqueeze"};
  if (!kBf16Ops.count(op)) {
    for (const OnnxTensor* t : in) {
      if (t && t->is_bf16())
        fail(n, "unsupported: " + op +
                    " on a bfloat16 tensor (bfloat16 is read by Cast, Relu, Add, the tensor "
                    "unit's MatMul / Gemm / Conv and data movement)");
    }
  }
  OnnxTensor y;
  if (op == "QuantizeLinear") y = quantize(n, in);
  else if (op == "DequantizeLinear") y = dequantize(n, in);
  else if (op == "Relu") y = clip(n, in, true);
  else if (op == "Clip") y = clip(n, in, false);
  else if (op == "Add") y = add(n, in);
  else if ((op == "MaxPool" || op == "AveragePool") && need(n, in, 0).dims.size() == 3) y = pool_1d(n, in, op == "MaxPool");
  else if (op == "MaxPool") y = pool(n, in, true);
  else if (op == "AveragePool") y = pool(n, in, false);
  else if (op == "GlobalAveragePool") y = global_average_pool(n, in);
  else if (op == "Softmax") y = softmax(n, in, opset);
  else if (op == "Reshape") y = reshape(n, in);
  else if (op == "Flatten") y = flatten(n, in);
  else if (op == "Transpose") y = transpose(n, in);
  else if (op == "Concat") y = concat(n, in);
  else if (op == "Pad") y = pad(n, in);
  else if (op == "Identity") y = need(n, in, 0);
  else if (op == "Squeeze") y = squeeze(n, in, false);
  else if (op == "Unsqueeze") y = squeeze(n, in, true);
  else if (op == "Cast") y = cast(n, in);
  else fail(n, "unsupported: operator " + op);
  std::vector<OnnxTensor> out;
  out.push_back(std::move(y));
  return out;
}

}  // namespace weft::model
