#include "weft/golden/onnx_ops.hpp"

#include <algorithm>
#include <array>
#include <cfenv>
#include <cmath>
#include <limits>
#include <stdexcept>
#include <string>

#include "weft/golden/fp.hpp"
#include "weft/golden/quant.hpp"

namespace weft::golden::onnx {
namespace {

int32_t lo_of(QType t) { return t == QType::kUint8 ? 0 : -128; }
int32_t hi_of(QType t) { return t == QType::kUint8 ? 255 : 127; }

// Round half to even (IEEE roundTiesToEven), whatever the caller's rounding mode.
double round_half_even(double v) {
  const int saved = std::fegetround();
  std::fesetround(FE_TONEAREST);
  const double r = std::nearbyint(v);
  std::fesetround(saved);
  return r;
}

int64_t count(const std::vector<int64_t>& dims) {
  int64_t n = 1;
  for (int64_t d : dims) n *= d;
  return n;
}

// Index of the quantization parameter for flat element i: 0 per tensor, else the coordinate
// along `axis`.
size_t param_index(const std::vector<int64_t>& dims, size_t nparams, int axis, int64_t i) {
  if (nparams == 1) return 0;
  const int rank = static_cast<int>(dims.size());
  const int ax = axis < 0 ? axis + rank : axis;
  if (ax < 0 || ax >= rank || dims[ax] != static_cast<int64_t>(nparams)) {
    throw std::invalid_argument("onnx: per-axis parameters need dims[axis] elements, got " +
                                std::to_string(nparams));
  }
  int64_t inner = 1;
  for (int d = ax + 1; d < rank; ++d) inner *= dims[d];
  return static_cast<size_t>((i / inner) % dims[ax]);
}

}  // namespace

MatMulShape matmul_shape(std::vector<int64_t> a, std::vector<int64_t> b) {
  if (a.empty() || b.empty()) throw std::invalid_argument("onnx matmul: scalar operand");
  const bool a_vec = a.size() == 1, b_vec = b.size() == 1;
  if (a_vec) a.insert(a.begin(), 1);
  if (b_vec) b.push_back(1);
  MatMulShape s;
  s.m = a[a.size() - 2];
  s.k = a.back();
  s.n = b.back();
  if (b[b.size() - 2] != s.k) throw std::invalid_argument("onnx matmul: inner dimensions differ");
  const size_t rank = std::max(a.size(), b.size());
  std::vector<int64_t> ab(rank - 2, 1), bb(rank - 2, 1), ob(rank - 2, 1);
  for (size_t i = 0; i + 2 < a.size(); ++i) ab[rank - a.size() + i] = a[i];
  for (size_t i = 0; i + 2 < b.size(); ++i) bb[rank - b.size() + i] = b[i];
  for (size_t i = 0; i < rank - 2; ++i) {
    if (ab[i] != bb[i] && ab[i] != 1 && bb[i] != 1) {
      throw std::invalid_argument("onnx matmul: batch dimensions do not broadcast");
    }
    ob[i] = std::max(ab[i], bb[i]);
  }
  s.batch = count(ob);
  for (int64_t t = 0; t < s.batch; ++t) {
    int64_t rem = t, aoff = 0, boff = 0, astr = s.m * s.k, bstr = s.k * s.n;
    for (size_t i = rank - 2; i-- > 0;) {
      const int64_t c = rem % ob[i];
      rem /= ob[i];
      aoff += (ab[i] == 1 ? 0 : c) * astr;
      boff += (bb[i] == 1 ? 0 : c) * bstr;
      astr *= ab[i];
      bstr *= bb[i];
    }
    s.a_batch_stride.push_back(aoff);
    s.b_batch_stride.push_back(boff);
  }
  s.out = ob;
  if (!a_vec) s.out.push_back(s.m);
  if (!b_vec) s.out.push_back(s.n);
  return s;
}

namespace {

std::vector<int32_t> accumulate(const MatMulShape& s, const IntTensor& a, const IntTensor& b,
                                int32_t a_zp, int32_t b_zp) {
  std::vector<int32_t> acc(static_cast<size_t>(s.batch * s.m * s.n));
  for (int64_t t = 0; t < s.batch; ++t) {
    for (int64_t i = 0; i < s.m; ++i) {
      for (int64_t j = 0; j < s.n; ++j) {
        int64_t sum = 0;
        for (int64_t q = 0; q < s.k; ++q) {
          sum += static_cast<int64_t>(a.data[s.a_batch_stride[t] + i * s.k + q] - a_zp) *
                 (b.data[s.b_batch_stride[t] + q * s.n + j] - b_zp);
        }
        acc[(t * s.m + i) * s.n + j] = static_cast<int32_t>(sum);
      }
    }
  }
  return acc;
}

}  // namespace

int32_t quantize_value(float x, float y_scale, int32_t y_zero_point, QType type) {
  // x / y_scale in float32, as the operator's definition computes it.
  const float q = x / y_scale;
  const double v = round_half_even(q) + y_zero_point;
  return static_cast<int32_t>(std::clamp(v, double(lo_of(type)), double(hi_of(type))));
}

int32_t requantize(int64_t acc, float multiplier, int32_t y_zero_point, QType type) {
  // onnxruntime's MLAS convention, which the tensor unit implements: float32(acc) times the
  // float32 multiplier, rounded to float32, then half to even (weft::golden::onnx_scale_round).
  // The ONNX reference implementation forms the product in double; the two differ only where
  // the float32 product rounds across a .5 tie (docs/model-runtime.md, "Requantization").
  const int32_t acc32 = static_cast<int32_t>(static_cast<uint32_t>(acc));  // int32 wrap, as the device
  const double v = double(weft::golden::onnx_scale_round(acc32, multiplier)) + y_zero_point;
  return static_cast<int32_t>(std::clamp(v, double(lo_of(type)), double(hi_of(type))));
}

IntTensor conv_integer(const IntTensor& x, const IntTensor& w, int32_t x_zero_point,
                       const std::vector<int32_t>& w_zero_point, const Conv2dGeometry& g) {
  if (x.dims.size() != 4 || w.dims.size() != 4 || g.group < 1 || x.dims[1] % g.group != 0 ||
      w.dims[0] % g.group != 0 || x.dims[1] / g.group != w.dims[1]) {
    throw std::invalid_argument(
        "onnx conv: 2-D NCHW input and M x C/group x KH x KW weights, C and M multiples of group");
  }
  if (g.stride_h < 1 || g.stride_w < 1 || g.dilation_h < 1 || g.dilation_w < 1) {
    throw std::invalid_argument("onnx conv: strides and dilations must be positive");
  }
  const int64_t n = x.dims[0], c = x.dims[1], h = x.dims[2], wd = x.dims[3];
  const int64_t m = w.dims[0], kh = w.dims[2], kw = w.dims[3];
  const int64_t group_c = c / g.group, group_m = m / g.group;
  const int64_t oh = (h + g.pad_top + g.pad_bottom - g.dilation_h * (kh - 1) - 1) / g.stride_h + 1;
  const int64_t ow = (wd + g.pad_left + g.pad_right - g.dilation_w * (kw - 1) - 1) / g.stride_w + 1;
  if (oh < 1 || ow < 1) throw std::invalid_argument("onnx conv: the kernel is larger than the padded input");
  IntTensor y{{n, m, oh, ow}, std::vector<int32_t>(static_cast<size_t>(n * m * oh * ow))};
  for (int64_t b = 0; b < n; ++b) {
    for (int64_t o = 0; o < m; ++o) {
      const int32_t wzp = w_zero_point.empty() ? 0 : w_zero_point[w_zero_point.size() == 1 ? 0 : o];
      for (int64_t i = 0; i < oh; ++i) {
        for (int64_t j = 0; j < ow; ++j) {
          int64_t sum = 0;
          for (int64_t gc = 0; gc < group_c; ++gc) {
            const int64_t ch = (o / group_m) * group_c + gc;  // the input channel in o's group
            for (int64_t r = 0; r < kh; ++r) {
              for (int64_t q = 0; q < kw; ++q) {
                const int64_t yy = i * g.stride_h - g.pad_top + r * g.dilation_h;
                const int64_t xx = j * g.stride_w - g.pad_left + q * g.dilation_w;
                if (yy < 0 || yy >= h || xx < 0 || xx >= wd) continue;  // x - zp = 0 there
                const int32_t xv = x.data[((b * c + ch) * h + yy) * wd + xx] - x_zero_point;
                const int32_t wv = w.data[((o * group_c + gc) * kh + r) * kw + q] - wzp;
                sum += static_cast<int64_t>(xv) * wv;
              }
            }
          }
          y.data[((b * m + o) * oh + i) * ow + j] = static_cast<int32_t>(sum);
        }
      }
    }
  }
  return y;
}

IntTensor qlinear_conv(const IntTensor& x, float x_scale, int32_t x_zero_point, const IntTensor& w,
                       const std::vector<float>& w_scale, const std::vector<int32_t>& w_zero_point,
                       float y_scale, int32_t y_zero_point, QType y_type,
                       const std::vector<int32_t>& bias, const Conv2dGeometry& g) {
  IntTensor y = conv_integer(x, w, x_zero_point, w_zero_point, g);
  const int64_t m = y.dims[1], plane = y.dims[2] * y.dims[3];
  for (size_t i = 0; i < y.data.size(); ++i) {
    const int64_t o = (static_cast<int64_t>(i) / plane) % m;
    const float multiplier = x_scale * w_scale[w_scale.size() == 1 ? 0 : o] / y_scale;
    const int64_t acc = static_cast<int64_t>(y.data[i]) + (bias.empty() ? 0 : bias[o]);
    y.data[i] = requantize(acc, multiplier, y_zero_point, y_type);
  }
  return y;
}

IntTensor quantize_linear(const FloatTensor& x, const std::vector<float>& y_scale,
                          const std::vector<int32_t>& y_zero_point, QType type, int axis) {
  IntTensor y{x.dims, std::vector<int32_t>(x.data.size())};
  for (size_t i = 0; i < x.data.size(); ++i) {
    const size_t p = param_index(x.dims, y_scale.size(), axis, static_cast<int64_t>(i));
    const int32_t zp = y_zero_point.empty() ? 0 : y_zero_point[y_zero_point.size() == 1 ? 0 : p];
    y.data[i] = quantize_value(x.data[i], y_scale[p], zp, type);
  }
  return y;
}

FloatTensor dequantize_linear(const IntTensor& x, const std::vector<float>& x_scale,
                              const std::vector<int32_t>& x_zero_point, int axis) {
  FloatTensor y{x.dims, std::vector<float>(x.data.size())};
  for (size_t i = 0; i < x.data.size(); ++i) {
    const size_t p = param_index(x.dims, x_scale.size(), axis, static_cast<int64_t>(i));
    const int32_t zp = x_zero_point.empty() ? 0 : x_zero_point[x_zero_point.size() == 1 ? 0 : p];
    y.data[i] = static_cast<float>(x.data[i] - zp) * x_scale[p];
  }
  return y;
}

namespace {

FpFormat fp_format(Fp8Type t) { return t == Fp8Type::kE4m3fn ? FpFormat::kE4M3 : FpFormat::kE5M2; }

// The non-negative finite values of a float8 format in code order (codes 0x00 up to the largest
// finite one, 0x7E for E4M3FN, 0x7B for E5M2): increasing, so a value's neighbours are found by
// binary search.
struct Fp8Table {
  std::vector<double> value;  // value[code]
};
const Fp8Table& fp8_table(Fp8Type t) {
  static const std::array<Fp8Table, 2> tables = [] {
    std::array<Fp8Table, 2> a;
    for (int i = 0; i < 2; ++i) {
      const Fp8Type type = i == 0 ? Fp8Type::kE4m3fn : Fp8Type::kE5m2;
      const uint32_t last = type == Fp8Type::kE4m3fn ? 0x7E : 0x7B;
      for (uint32_t c = 0; c <= last; ++c) a[i].value.push_back(fp_decode(c, fp_format(type)));
    }
    return a;
  }();
  return tables[t == Fp8Type::kE4m3fn ? 0 : 1];
}

}  // namespace

int32_t quantize_fp8_value(float x, float y_scale, Fp8Type type, bool saturate) {
  const bool e4m3 = type == Fp8Type::kE4m3fn;
  const float v = x / y_scale;  // float32, the library builds without contraction
  const int32_t sign = std::signbit(v) ? 0x80 : 0;
  const int32_t nan = e4m3 ? 0x7F : 0x7E;
  if (std::isnan(v)) return saturate ? nan : nan | sign;
  const std::vector<double>& table = fp8_table(type).value;
  const int32_t max_code = static_cast<int32_t>(table.size()) - 1;
  const double a = std::fabs(static_cast<double>(v));
  int32_t code;
  if (a >= table.back()) {
    // At or past the largest finite value: the next step up would be 2^(emax+1) (E4M3FN's 480
    // is its NaN pattern, E5M2's 65536 its Inf). Half way there is a tie, which goes to the even
    // neighbour: max (mantissa 110) for E4M3FN, the even 2^16 (mantissa 00) for E5M2.
    const double next = table.back() + (table.back() - table[max_code - 1]);
    const double mid = (table.back() + next) / 2;
    const bool up = a > mid || (a == mid && !e4m3);
    if (!up || saturate) return max_code | sign;
    return e4m3 ? nan | sign : 0x7C | sign;  // E4M3FN has no Inf: NaN
  }
  // Neighbours lo <= a < hi; the midpoint of two float8 values is exact in double.
  const auto it = std::upper_bound(table.begin(), table.end(), a);
  const int32_t hi = static_cast<int32_t>(it - table.begin()), lo = hi - 1;
  const double mid = (table[lo] + table[hi]) / 2;
  if (a < mid)
    code = lo;
  else if (a > mid)
    code = hi;
  else
    code = (lo % 2 == 0) ? lo : hi;  // a tie: the even code (mantissa LSB 0)
  return code | sign;
}

float dequantize_fp8_value(int32_t code, float x_scale, Fp8Type type) {
  return fp_decode(static_cast<uint32_t>(code), fp_format(type)) * x_scale;
}

IntTensor quantize_linear_fp8(const FloatTensor& x, const std::vector<float>& y_scale, Fp8Type type,
                              bool saturate, int axis) {
  IntTensor y{x.dims, std::vector<int32_t>(x.data.size())};
  for (size_t i = 0; i < x.data.size(); ++i) {
    const size_t p = param_index(x.dims, y_scale.size(), axis, static_cast<int64_t>(i));
    y.data[i] = quantize_fp8_value(x.data[i], y_scale[p], type, saturate);
  }
  return y;
}

FloatTensor dequantize_linear_fp8(const IntTensor& x, const std::vector<float>& x_scale,
                                  Fp8Type type, int axis) {
  FloatTensor y{x.dims, std::vector<float>(x.data.size())};
  for (size_t i = 0; i < x.data.size(); ++i) {
    const size_t p = param_index(x.dims, x_scale.size(), axis, static_cast<int64_t>(i));
    y.data[i] = dequantize_fp8_value(x.data[i], x_scale[p], type);
  }
  return y;
}

IntTensor matmul_integer(const IntTensor& a, const IntTensor& b, int32_t a_zero_point,
                         int32_t b_zero_point) {
  const MatMulShape s = matmul_shape(a.dims, b.dims);
  return {s.out, accumulate(s, a, b, a_zero_point, b_zero_point)};
}

IntTensor qlinear_matmul(const IntTensor& a, float a_scale, int32_t a_zero_point,
                         const IntTensor& b, float b_scale, int32_t b_zero_point, float y_scale,
                         int32_t y_zero_point, QType y_type) {
  const MatMulShape s = matmul_shape(a.dims, b.dims);
  const std::vector<int32_t> acc = accumulate(s, a, b, a_zero_point, b_zero_point);
  const float multiplier = a_scale * b_scale / y_scale;
  IntTensor y{s.out, std::vector<int32_t>(acc.size())};
  for (size_t i = 0; i < acc.size(); ++i) y.data[i] = requantize(acc[i], multiplier, y_zero_point, y_type);
  return y;
}

}  // namespace weft::golden::onnx
