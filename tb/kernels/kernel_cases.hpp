// Inputs and independent expectations for the SIMT kernel library (sw/kernels), shared by the
// golden-model tests (tb/kernels/test_kernels.cpp) and the driver tests that launch the same
// kernels on a device (tb/system/test_simt.cpp). Every expectation is computed here from the
// kernel's definition (weft_kernel_args.h): plain loops, weft::golden::postprocess (requant),
// weft::golden::im2col (im2col) and the fixed-point softmax restatement (softmax_reference.hpp);
// never from the kernels or the SIMT model.
#pragma once

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <iomanip>
#include <random>
#include <sstream>
#include <string>
#include <utility>
#include <vector>

#include "weft/golden/quant.hpp"
#include "weft_kernel_args.h"

namespace weft::tb::kernel_cases {

inline constexpr int32_t kI8Min = -128, kI8Max = 127;

inline int32_t uniform(std::mt19937_64& rng, int32_t lo, int32_t hi) {
  return std::uniform_int_distribution<int32_t>(lo, hi)(rng);
}

template <class T>
std::vector<T> random_vector(std::mt19937_64& rng, size_t n, int32_t lo, int32_t hi) {
  std::vector<T> v(n);
  for (auto& x : v) x = static_cast<T>(uniform(rng, lo, hi));
  return v;
}

inline std::vector<int32_t> random_int32(std::mt19937_64& rng, size_t n) {
  std::vector<int32_t> v(n);
  for (auto& x : v) x = static_cast<int32_t>(static_cast<uint32_t>(rng()));
  return v;
}

// ---------------------------------------------------------------- element-wise
// vecadd: c[i] = a[i] + b[i] (mod 2^32).
inline std::vector<int32_t> vecadd_ref(const std::vector<int32_t>& a,
                                       const std::vector<int32_t>& b) {
  std::vector<int32_t> c(a.size());
  for (size_t i = 0; i < a.size(); ++i) {
    c[i] = static_cast<int32_t>(static_cast<uint32_t>(a[i]) + static_cast<uint32_t>(b[i]));
  }
  return c;
}

// saxpy: y[i] = alpha * x[i] + y[i] (mod 2^32).
inline std::vector<int32_t> saxpy_ref(int32_t alpha, const std::vector<int32_t>& x,
                                      const std::vector<int32_t>& y) {
  std::vector<int32_t> r(x.size());
  for (size_t i = 0; i < x.size(); ++i) {
    r[i] = static_cast<int32_t>(static_cast<uint32_t>(alpha) * static_cast<uint32_t>(x[i]) +
                                static_cast<uint32_t>(y[i]));
  }
  return r;
}

// relu: out[i] = max(in[i], zero_point).
inline std::vector<int8_t> relu_ref(const std::vector<int8_t>& in, int32_t zp) {
  std::vector<int8_t> r(in.size());
  for (size_t i = 0; i < in.size(); ++i) r[i] = static_cast<int8_t>(std::max<int32_t>(in[i], zp));
  return r;
}

// ---------------------------------------------------------------- requant
struct RequantCase {
  int channels = 1, rows = 1;
  std::vector<int32_t> acc, bias, mult, shift;
  golden::OutputParams op;
  std::vector<int8_t> want;  // golden::postprocess
  uint32_t n() const { return static_cast<uint32_t>(acc.size()); }
};

// Random per-channel parameters (mostly realistic scales, every fifth channel any legal pair),
// accumulators mostly moderate with some full-range ones, about `elements` elements.
// full_clamp: act range = the whole int8 range.
inline RequantCase requant_case(std::mt19937_64& rng, int channels, int elements, bool full_clamp) {
  namespace g = weft::golden;
  RequantCase rc;
  rc.channels = channels;
  rc.rows = std::max(1, elements / channels);
  const uint32_t n = static_cast<uint32_t>(rc.rows * channels);
  rc.bias.resize(channels), rc.mult.resize(channels), rc.shift.resize(channels);
  std::vector<g::ChannelParams> ch(channels);
  for (int c = 0; c < channels; ++c) {
    if (c % 5 == 4) {  // any legal pair, including extreme shifts
      rc.mult[c] = static_cast<int32_t>(rng() & 0x7FFFFFFF);
      rc.shift[c] = uniform(rng, -31, 30);
    } else {  // a realistic scale 2^-14 .. 2^2
      const double real = std::exp2(std::uniform_real_distribution<double>(-14, 2)(rng));
      int sh = 0;
      g::quantize_multiplier(real, &rc.mult[c], &sh);
      rc.shift[c] = sh;
    }
    rc.bias[c] = uniform(rng, -(1 << 20), 1 << 20);
    ch[c] = {.bias = rc.bias[c], .multiplier = rc.mult[c], .shift = rc.shift[c]};
  }
  rc.acc.resize(n);
  for (auto& a : rc.acc) {  // mostly moderate, some full-range (wrap-around and saturation)
    a = rng() % 8 == 0 ? static_cast<int32_t>(rng()) : uniform(rng, -(1 << 22), 1 << 22);
  }
  int32_t lo = uniform(rng, kI8Min, kI8Max), hi = uniform(rng, kI8Min, kI8Max);
  if (full_clamp) lo = kI8Min, hi = kI8Max;
  if (lo > hi) std::swap(lo, hi);
  rc.op = {.mode = g::RequantMode::kTfliteDouble,
           .zero_point = uniform(rng, kI8Min, kI8Max),
           .act_min = lo,
           .act_max = hi};
  const std::vector<int32_t> want32 = g::postprocess(rc.acc, rc.rows, channels, ch, rc.op);
  rc.want.assign(want32.begin(), want32.end());
  return rc;
}

// ---------------------------------------------------------------- layout
// maxpool 2x2 stride 2, int8 NHWC; out is [b][h/2][w/2][c].
inline std::vector<int8_t> maxpool_ref(const std::vector<int8_t>& in, uint32_t b, uint32_t h,
                                       uint32_t w, uint32_t c) {
  const uint32_t oh = h / 2, ow = w / 2;
  std::vector<int8_t> out(size_t{b} * oh * ow * c);
  for (uint32_t bi = 0; bi < b; ++bi)
    for (uint32_t y = 0; y < oh; ++y)
      for (uint32_t x = 0; x < ow; ++x)
        for (uint32_t ci = 0; ci < c; ++ci) {
          int v = kI8Min;
          for (uint32_t dy = 0; dy < 2; ++dy)
            for (uint32_t dx = 0; dx < 2; ++dx)
              v = std::max<int>(v, in[((bi * h + 2 * y + dy) * w + 2 * x + dx) * c + ci]);
          out[((bi * oh + y) * ow + x) * c + ci] = static_cast<int8_t>(v);
        }
  return out;
}

// transpose: out[c][r] = in[r][c].
inline std::vector<int8_t> transpose_ref(const std::vector<int8_t>& in, uint32_t rows,
                                         uint32_t cols) {
  std::vector<int8_t> out(size_t{rows} * cols);
  for (uint32_t r = 0; r < rows; ++r)
    for (uint32_t c = 0; c < cols; ++c) out[size_t{c} * rows + r] = in[size_t{r} * cols + c];
  return out;
}

// im2col shapes: round 0 a 3x3 "same" convolution of 12x12x8; otherwise random (strides 1-2,
// paddings 0-2) with at most `max_out` output bytes.
inline golden::Conv2dShape im2col_shape(std::mt19937_64& rng, int round, int64_t max_out = 12000) {
  golden::Conv2dShape cs;
  if (round == 0) {
    cs = {.n = 1,
          .h = 12,
          .w = 12,
          .c_in = 8,
          .kh = 3,
          .kw = 3,
          .c_out = 1,
          .stride_h = 1,
          .stride_w = 1,
          .pad_top = 1,
          .pad_left = 1,
          .pad_bottom = 1,
          .pad_right = 1};
    return cs;
  }
  do {
    cs = {.n = uniform(rng, 1, 2),
          .h = uniform(rng, 1, 10),
          .w = uniform(rng, 1, 10),
          .c_in = uniform(rng, 1, 8),
          .kh = uniform(rng, 1, 3),
          .kw = uniform(rng, 1, 3),
          .c_out = 1,
          .stride_h = uniform(rng, 1, 2),
          .stride_w = uniform(rng, 1, 2),
          .pad_top = uniform(rng, 0, 2),
          .pad_left = uniform(rng, 0, 2),
          .pad_bottom = uniform(rng, 0, 2),
          .pad_right = uniform(rng, 0, 2)};
  } while (cs.h + cs.pad_top + cs.pad_bottom < cs.kh || cs.w + cs.pad_left + cs.pad_right < cs.kw ||
           int64_t{cs.n} * cs.out_h() * cs.out_w() * cs.kh * cs.kw * cs.c_in > max_out);
  return cs;
}

// im2col through weft::golden::im2col.
inline std::vector<int8_t> im2col_ref(const std::vector<int8_t>& in, const golden::Conv2dShape& cs,
                                      int32_t pad) {
  const std::vector<int32_t> in32(in.begin(), in.end());
  const std::vector<int32_t> out32 = golden::im2col(in32, cs, pad);
  return {out32.begin(), out32.end()};
}

// The im2col kernel's argument struct for a shape, a pad value and the data addresses.
inline weft_im2col_args im2col_args(const golden::Conv2dShape& cs, int32_t pad, uint32_t in,
                                    uint32_t out) {
  auto u = [](auto v) { return static_cast<uint32_t>(v); };
  return weft_im2col_args{u(cs.n),        u(cs.h),        u(cs.w),           u(cs.c_in),
                          u(cs.kh),       u(cs.kw),       u(cs.stride_h),    u(cs.stride_w),
                          u(cs.pad_top),  u(cs.pad_left), u(cs.out_h()),     u(cs.out_w()),
                          pad,            in,             out};
}

// ---------------------------------------------------------------- softmax
// int8 logits [rows][depth]: rows of different spreads, every third with one peak at 127.
inline std::vector<int8_t> softmax_logits(std::mt19937_64& rng, uint32_t rows, uint32_t depth) {
  std::vector<int8_t> in(size_t{rows} * depth);
  for (uint32_t r = 0; r < rows; ++r) {
    const int spread = uniform(rng, 1, 255);
    const int base = uniform(rng, -128, 127 - std::min(spread, 255));
    for (uint32_t c = 0; c < depth; ++c) {
      in[r * depth + c] =
          static_cast<int8_t>(std::clamp(base + uniform(rng, 0, spread), -128, 127));
    }
    if (r % 3 == 0) in[r * depth + uniform(rng, 0, depth - 1)] = 127;
  }
  return in;
}

// lut (src/lut.c): the kernel's writable globals, modelled on the host. `table` starts as the
// initialiser in lut.c (.data) and `launches` as 0 (.bss); each launch computes
// out[i] = table[in[i] % 16] + launches, then table[launches % 16] += 1000 and ++launches.
struct LutModel {
  int32_t table[16] = {3, -1, 4, 1, -5, 9, 2, -6, 5, 3, -5, 8, 9, -7, 9, 3000000};
  uint32_t launches = 0;
  std::vector<int32_t> launch(const std::vector<uint32_t>& in) {
    std::vector<int32_t> out(in.size());
    for (size_t i = 0; i < in.size(); ++i) {
      out[i] = static_cast<int32_t>(static_cast<uint32_t>(table[in[i] % 16]) + launches);
    }
    table[launches % 16] += 1000;
    ++launches;
    return out;
  }
};

// exit_codes (src/exit_codes.c): thread t exits with t * mul + add (modulo 2^32).
inline std::vector<uint32_t> exit_codes_ref(uint32_t threads, uint32_t mul, uint32_t add) {
  std::vector<uint32_t> v(threads);
  for (uint32_t t = 0; t < threads; ++t) v[t] = t * mul + add;
  return v;
}

// ---------------------------------------------------------------- ONNX integer operators
// Bytes of a uint8 (is_signed 0) or int8 (is_signed 1) tensor as their integer values.
inline int32_t byte_value(uint8_t b, bool is_signed) {
  return is_signed ? int32_t{static_cast<int8_t>(b)} : int32_t{b};
}

// maxpool2d (ONNX MaxPool, NCHW): shape and attributes as the ONNX node has them.
struct MaxPool2dCase {
  uint32_t n = 1, c = 1, h = 1, w = 1;
  uint32_t kh = 1, kw = 1, stride_h = 1, stride_w = 1;
  uint32_t pad_top = 0, pad_left = 0, pad_bottom = 0, pad_right = 0;
  uint32_t dil_h = 1, dil_w = 1;
  bool ceil_mode = false, is_signed = false;
  uint32_t out_h = 0, out_w = 0;
  size_t in_size() const { return size_t{n} * c * h * w; }
  size_t out_size() const { return size_t{n} * c * out_h * out_w; }
};

// ONNX's output size for one axis (onnxruntime's PoolAttributes::ComputeOutputSize): floor or
// ceil of (in + pads - dilated kernel) / stride + 1; in ceil mode a last window that would start
// in the bottom / right padding is dropped.
inline uint32_t onnx_pool_out(uint32_t in, uint32_t k, uint32_t stride, uint32_t pad_head,
                              uint32_t pad_tail, uint32_t dil, bool ceil_mode) {
  const int64_t span = int64_t{in} + pad_head + pad_tail - (int64_t{dil} * (k - 1) + 1);
  int64_t out = (ceil_mode ? (span + stride - 1) / stride : span / stride) + 1;
  if (ceil_mode && (out - 1) * stride >= int64_t{in} + pad_head) --out;
  return static_cast<uint32_t>(out);
}

inline void set_out(MaxPool2dCase& mc) {
  mc.out_h = onnx_pool_out(mc.h, mc.kh, mc.stride_h, mc.pad_top, mc.pad_bottom, mc.dil_h,
                           mc.ceil_mode);
  mc.out_w = onnx_pool_out(mc.w, mc.kw, mc.stride_w, mc.pad_left, mc.pad_right, mc.dil_w,
                           mc.ceil_mode);
}

// Random attributes: kernel 1..4 (round 0: a 3x3 window, stride 2, pads 1, NxCxHxW 1x8x17x15),
// strides 1..3, dilations 1..2, each pad 0..kernel-1 (ONNX: pads smaller than the kernel),
// sizes not multiples of anything, at most about max_bytes of input + output.
inline MaxPool2dCase maxpool2d_case(std::mt19937_64& rng, int round, bool is_signed,
                                    size_t max_bytes = 24000) {
  MaxPool2dCase mc;
  auto u = [&](int lo, int hi) { return static_cast<uint32_t>(uniform(rng, lo, hi)); };
  if (round == 0) {
    mc = {.n = 1, .c = 8, .h = 17, .w = 15, .kh = 3, .kw = 3, .stride_h = 2, .stride_w = 2,
          .pad_top = 1, .pad_left = 1, .pad_bottom = 1, .pad_right = 1};
  } else if (round == 1) {
    // 2x2 / stride 2 without padding (the kernel's fast path), odd sizes: the last row and
    // column are dropped (floor mode).
    mc = {.n = 2, .c = 3, .h = u(2, 21), .w = u(2, 21), .kh = 2, .kw = 2, .stride_h = 2,
          .stride_w = 2};
  } else {
    do {
      mc.n = u(1, 2), mc.c = u(1, 5), mc.h = u(1, 23), mc.w = u(1, 23);
      mc.kh = u(1, 4), mc.kw = u(1, 4), mc.stride_h = u(1, 3), mc.stride_w = u(1, 3);
      mc.dil_h = u(1, 2), mc.dil_w = u(1, 2);
      mc.pad_top = u(0, mc.kh - 1), mc.pad_bottom = u(0, mc.kh - 1);
      mc.pad_left = u(0, mc.kw - 1), mc.pad_right = u(0, mc.kw - 1);
      mc.ceil_mode = rng() % 2;
    } while (int64_t{mc.h} + mc.pad_top + mc.pad_bottom < int64_t{mc.dil_h} * (mc.kh - 1) + 1 ||
             int64_t{mc.w} + mc.pad_left + mc.pad_right < int64_t{mc.dil_w} * (mc.kw - 1) + 1 ||
             (set_out(mc), mc.in_size() + mc.out_size() > max_bytes));
  }
  mc.is_signed = is_signed;
  set_out(mc);
  return mc;
}

// ONNX MaxPool by its definition: every output is the maximum over the window positions that
// lie inside the input (padding is not a value); the type's lowest value if there is none.
inline std::vector<uint8_t> maxpool2d_ref(const std::vector<uint8_t>& in, const MaxPool2dCase& mc) {
  std::vector<uint8_t> out(mc.out_size());
  const int32_t lowest = mc.is_signed ? -128 : 0;
  for (uint32_t p = 0; p < mc.n * mc.c; ++p)
    for (uint32_t oy = 0; oy < mc.out_h; ++oy)
      for (uint32_t ox = 0; ox < mc.out_w; ++ox) {
        int32_t m = lowest;
        for (uint32_t ky = 0; ky < mc.kh; ++ky)
          for (uint32_t kx = 0; kx < mc.kw; ++kx) {
            const int64_t iy = int64_t{oy} * mc.stride_h - mc.pad_top + int64_t{ky} * mc.dil_h;
            const int64_t ix = int64_t{ox} * mc.stride_w - mc.pad_left + int64_t{kx} * mc.dil_w;
            if (iy < 0 || iy >= mc.h || ix < 0 || ix >= mc.w) continue;
            m = std::max(m, byte_value(in[(size_t{p} * mc.h + iy) * mc.w + ix], mc.is_signed));
          }
        out[(size_t{p} * mc.out_h + oy) * mc.out_w + ox] = static_cast<uint8_t>(m);
      }
  return out;
}

inline weft_maxpool2d_args maxpool2d_args(const MaxPool2dCase& mc, uint32_t in, uint32_t out) {
  return weft_maxpool2d_args{mc.n,        mc.c,        mc.h,          mc.w,
                             mc.kh,       mc.kw,       mc.stride_h,   mc.stride_w,
                             mc.pad_top,  mc.pad_left, mc.dil_h,      mc.dil_w,
                             mc.out_h,    mc.out_w,    mc.is_signed ? 1u : 0u,
                             in,          out};
}

inline std::string maxpool2d_name(const MaxPool2dCase& mc) {
  std::ostringstream s;
  s << "maxpool2d " << (mc.is_signed ? "int8 " : "uint8 ") << mc.n << "x" << mc.c << "x" << mc.h
    << "x" << mc.w << " k" << mc.kh << "x" << mc.kw << " s" << mc.stride_h << "x" << mc.stride_w
    << " d" << mc.dil_h << "x" << mc.dil_w << " pads " << mc.pad_top << "," << mc.pad_left << ","
    << mc.pad_bottom << "," << mc.pad_right << (mc.ceil_mode ? " ceil" : " floor") << " -> "
    << mc.out_h << "x" << mc.out_w;
  return s.str();
}

// clamp8 (ONNX Clip / Relu on integers): min(max(x, lo), hi) in the byte's type.
inline std::vector<uint8_t> clamp8_ref(const std::vector<uint8_t>& in, bool is_signed, int32_t lo,
                                       int32_t hi) {
  std::vector<uint8_t> out(in.size());
  for (size_t i = 0; i < in.size(); ++i) {
    out[i] = static_cast<uint8_t>(std::min(std::max(byte_value(in[i], is_signed), lo), hi));
  }
  return out;
}

// transpose_nd (ONNX Transpose): out[o] = in[i] with i[perm[k]] = o[k], by odometer over the
// output coordinates.
inline std::vector<uint8_t> transpose_nd_ref(const std::vector<uint8_t>& in,
                                             const std::vector<uint32_t>& dims,
                                             const std::vector<uint32_t>& perm) {
  const size_t rank = dims.size();
  std::vector<size_t> istride(rank, 1);
  for (size_t k = rank; k-- > 1;) istride[k - 1] = istride[k] * dims[k];
  std::vector<uint32_t> odim(rank), o(rank, 0);
  for (size_t k = 0; k < rank; ++k) odim[k] = dims[perm[k]];
  std::vector<uint8_t> out(in.size());
  for (size_t j = 0; j < out.size(); ++j) {
    size_t src = 0;
    for (size_t k = 0; k < rank; ++k) src += o[k] * istride[perm[k]];
    out[j] = in[src];
    for (size_t k = rank; k-- > 0;) {  // next output coordinate
      if (++o[k] < odim[k]) break;
      o[k] = 0;
    }
  }
  return out;
}

struct TransposeNdCase {
  std::vector<uint32_t> dims, perm;
  size_t size() const {
    size_t n = 1;
    for (uint32_t d : dims) n *= d;
    return n;
  }
};

// Random rank 0..6 (round 0: NCHW -> NHWC of 1x16x9x11), dims 1..9 with at most max_elems
// elements, a random permutation.
inline TransposeNdCase transpose_nd_case(std::mt19937_64& rng, int round, size_t max_elems = 6000) {
  TransposeNdCase tc;
  if (round == 0) return {{1, 16, 9, 11}, {0, 2, 3, 1}};
  const int rank = round == 1 ? 6 : uniform(rng, 0, 6);
  do {
    tc.dims.clear();
    for (int k = 0; k < rank; ++k) tc.dims.push_back(static_cast<uint32_t>(uniform(rng, 1, 9)));
  } while (tc.size() > max_elems);
  tc.perm.resize(rank);
  for (int k = 0; k < rank; ++k) tc.perm[k] = static_cast<uint32_t>(k);
  std::shuffle(tc.perm.begin(), tc.perm.end(), rng);
  return tc;
}

inline weft_transpose_nd_args transpose_nd_args(const TransposeNdCase& tc, uint32_t in,
                                                uint32_t out) {
  weft_transpose_nd_args a{};
  a.rank = static_cast<uint32_t>(tc.dims.size());
  for (size_t k = 0; k < tc.dims.size(); ++k) a.dims[k] = tc.dims[k], a.perm[k] = tc.perm[k];
  a.in = in, a.out = out;
  return a;
}

inline std::string transpose_nd_name(const TransposeNdCase& tc) {
  std::ostringstream s;
  s << "transpose_nd dims";
  for (uint32_t d : tc.dims) s << " " << d;
  s << " perm";
  for (uint32_t k : tc.perm) s << " " << k;
  return s.str();
}

// ---------------------------------------------------------------- QDQ float operators
// The model runtime's host semantics (sw/model/src/host_ops.cpp) as straight host loops: float32
// and double are IEEE with round to nearest even on the host (SSE); volatile keeps every float
// operation a separate, rounded one whatever the compiler's contraction settings.
inline float f32_mul_ref(float a, float b) {
  volatile float r = a * b;
  return r;
}
inline float f32_add_ref(float a, float b) {
  volatile float r = a + b;
  return r;
}
inline float f32_div_ref(float a, float b) {
  volatile float r = a / b;
  return r;
}
inline uint32_t f32_bits(float f) {
  uint32_t u;
  std::memcpy(&u, &f, 4);
  return u;
}

// DequantizeLinear: f32((float)(v - zp) * scale).
inline float dequantize_ref(int32_t v, int32_t zp, float scale) {
  return f32_mul_ref(static_cast<float>(v - zp), scale);
}

// QuantizeLinear (host_ops.cpp quantize_value): nearbyint(x / scale) + zp, clamped to the type.
// NaN gives 0 (the host's int32 conversion of NaN is INT32_MIN on x86, low byte 0; the
// conversion is undefined in C++, so the reference says it explicitly).
inline int32_t quantize_ref(float x, float scale, int32_t zp, bool is_signed) {
  const float q = f32_div_ref(x, scale);
  if (std::isnan(q)) return 0;
  const float r = std::nearbyint(q);
  const double lo = is_signed ? -128 : 0, hi = is_signed ? 127 : 255;
  return static_cast<int32_t>(std::clamp(double(r) + zp, lo, hi));
}

struct QaddCase {
  uint32_t dims[4] = {1, 1, 1, 1}, adims[4] = {1, 1, 1, 1}, bdims[4] = {1, 1, 1, 1};
  float sa = 1, sb = 1, sy = 1;
  int32_t za = 0, zb = 0, zy = 0;
  bool a_s8 = false, b_s8 = false, y_s8 = false;
  std::string pattern;
  static size_t prod(const uint32_t* d) { return size_t{d[0]} * d[1] * d[2] * d[3]; }
  size_t out_size() const { return prod(dims); }
  size_t a_size() const { return prod(adims); }
  size_t b_size() const { return prod(bdims); }
};

inline float random_scale(std::mt19937_64& rng, double lo_exp2, double hi_exp2) {
  return static_cast<float>(std::exp2(std::uniform_real_distribution<double>(lo_exp2, hi_exp2)(rng)));
}
inline int32_t random_zp(std::mt19937_64& rng, bool is_signed) {
  return is_signed ? uniform(rng, -128, 127) : uniform(rng, 0, 255);
}

// Random rank-1..4 output dims (each 1..9, about max_elems at most; round 1 is 1x16x12x16 when
// max_elems allows, the per-channel case whose cost the tests print) and a broadcast pattern by
// round: same shape, per-channel b [1,C,1,1], scalar b, scalar a, then random per-axis broadcasts
// of either operand (e.g. [1,C,1,W] + [N,1,H,1]). Scales by round: every third one makes ties
// (sa = sb = 0.5, sy = 1, or 0.25 / 0.25 / 0.5), one in five a small sy (saturation), others
// random in [2^-9, 2^1]; zero points and the u8 / s8 types random.
inline QaddCase qadd_case(std::mt19937_64& rng, int round, size_t max_elems = 4000) {
  QaddCase c;
  const int rank = round < 4 ? 4 : uniform(rng, 1, 4);
  do {
    for (int k = 0; k < 4; ++k) c.dims[k] = k < 4 - rank ? 1 : static_cast<uint32_t>(uniform(rng, 1, 9));
    if (round < 4) c.dims[3] = static_cast<uint32_t>(uniform(rng, 5, 17));
  } while (c.out_size() > max_elems || c.out_size() < 2);
  if (round == 1 && max_elems >= 3072) {  // a fixed size for the cost measurement
    const uint32_t d[4] = {1, 16, 12, 16};
    std::copy(d, d + 4, c.dims);
  }
  const int pat = round % 5;
  for (int k = 0; k < 4; ++k) {
    c.adims[k] = c.bdims[k] = c.dims[k];
    if (pat == 1 && k != 1) c.bdims[k] = 1;
    if (pat == 2) c.bdims[k] = 1;
    if (pat == 3) c.adims[k] = 1;
    if (pat == 4) {
      const int m = uniform(rng, 0, 2);  // both full, a broadcast, b broadcast
      if (m == 1) c.adims[k] = 1;
      if (m == 2) c.bdims[k] = 1;
    }
  }
  c.pattern = pat == 0 ? "same" : pat == 1 ? "per-channel b" : pat == 2 ? "scalar b"
            : pat == 3 ? "scalar a" : "mixed";
  c.a_s8 = rng() % 2, c.b_s8 = rng() % 2, c.y_s8 = rng() % 2;
  if (round % 3 == 0) {
    const bool quarter = rng() % 2;
    c.sa = c.sb = quarter ? 0.25f : 0.5f;
    c.sy = quarter ? 0.5f : 1.0f;
  } else if (round % 3 == 1 && round % 2 == 1) {
    // One scale for a, b and y: the kernel's integer path, which must equal the float reference.
    c.sa = c.sb = c.sy = random_scale(rng, -12, 4);
  } else {
    c.sa = random_scale(rng, -9, 1), c.sb = random_scale(rng, -9, 1);
    c.sy = round % 5 == 2 ? random_scale(rng, -14, -10) : random_scale(rng, -9, 1);
  }
  c.za = random_zp(rng, c.a_s8), c.zb = random_zp(rng, c.b_s8), c.zy = random_zp(rng, c.y_s8);
  return c;
}

// y[o] = Q(DQ(a[ia]) + DQ(b[ib])) with ia, ib the operands' row-major indices of the output
// coordinates taken modulo their dims (0 on an axis of size 1).
inline std::vector<uint8_t> qadd_ref(const std::vector<uint8_t>& a, const std::vector<uint8_t>& b,
                                     const QaddCase& c) {
  std::vector<uint8_t> y;
  const uint32_t* d = c.dims;
  for (uint32_t i0 = 0; i0 < d[0]; ++i0)
    for (uint32_t i1 = 0; i1 < d[1]; ++i1)
      for (uint32_t i2 = 0; i2 < d[2]; ++i2)
        for (uint32_t i3 = 0; i3 < d[3]; ++i3) {
          const uint32_t o[4] = {i0, i1, i2, i3};
          size_t ia = 0, ib = 0;
          for (int k = 0; k < 4; ++k) {
            ia = ia * c.adims[k] + (c.adims[k] == 1 ? 0 : o[k]);
            ib = ib * c.bdims[k] + (c.bdims[k] == 1 ? 0 : o[k]);
          }
          const float da = dequantize_ref(byte_value(a[ia], c.a_s8), c.za, c.sa);
          const float db = dequantize_ref(byte_value(b[ib], c.b_s8), c.zb, c.sb);
          y.push_back(static_cast<uint8_t>(quantize_ref(f32_add_ref(da, db), c.sy, c.zy, c.y_s8)));
        }
  return y;
}

inline weft_qadd_args qadd_args(const QaddCase& c, uint32_t a, uint32_t b, uint32_t y) {
  weft_qadd_args r{};
  uint32_t sa = 1, sb = 1;
  for (int k = 3; k >= 0; --k) {
    r.dims[k] = c.dims[k];
    r.a_strides[k] = c.adims[k] == 1 ? 0 : sa;
    r.b_strides[k] = c.bdims[k] == 1 ? 0 : sb;
    sa *= c.adims[k], sb *= c.bdims[k];
  }
  r.a_scale = f32_bits(c.sa), r.b_scale = f32_bits(c.sb), r.y_scale = f32_bits(c.sy);
  r.a_zero_point = c.za, r.b_zero_point = c.zb, r.y_zero_point = c.zy;
  r.flags = (c.a_s8 ? WEFT_Q_A_INT8 : 0u) | (c.b_s8 ? WEFT_Q_B_INT8 : 0u) |
            (c.y_s8 ? WEFT_Q_Y_INT8 : 0u);
  r.a = a, r.b = b, r.y = y;
  return r;
}

inline std::string qadd_name(const QaddCase& c) {
  std::ostringstream s;
  auto dims = [&](const uint32_t* d) { s << d[0] << "x" << d[1] << "x" << d[2] << "x" << d[3]; };
  s << "qadd " << c.pattern << " ";
  dims(c.adims);
  s << (c.a_s8 ? " s8" : " u8") << " + ";
  dims(c.bdims);
  s << (c.b_s8 ? " s8" : " u8") << " -> ";
  dims(c.dims);
  s << (c.y_s8 ? " s8" : " u8") << std::setprecision(9) << " scales " << c.sa << " " << c.sb
    << " " << c.sy << " zps " << c.za << " " << c.zb << " " << c.zy;
  return s.str();
}

// qavgpool: the pool geometry of MaxPool2dCase plus count_include_pad and the quantization.
struct QAvgPoolCase {
  MaxPool2dCase g;  // g.is_signed: x is int8
  bool count_pad = false, y_s8 = false, global = false;
  float sx = 1, sy = 1;
  int32_t zx = 0, zy = 0;
};

// Round 0: 1x8x17x15, 3x3, stride 2, pads 1 (count_include_pad 0), round 1 the same with
// count_include_pad, round 2 GlobalAveragePool of 1x8x13x11 (window = plane), round 3 a 2x2 /
// stride 1 window with ties (sx = 1, sy = 1: means k/4), then random geometries (maxpool2d_case:
// kernels 1..4, strides 1..3, dilations 1..2, pads < kernel, floor / ceil) with random
// count_include_pad. Scales: ties every third round, huge ones (round 4: some dequantized values
// infinite), subnormal ones (round 5), else random in [2^-9, 2].
inline QAvgPoolCase qavgpool_case(std::mt19937_64& rng, int round, size_t max_bytes = 24000) {
  QAvgPoolCase c;
  const bool x_s8 = rng() % 2;
  if (round == 2) {
    c.global = true;
    c.g = {.n = 1, .c = 8, .h = 13, .w = 11, .kh = 13, .kw = 11};
    set_out(c.g);
  } else if (round == 3) {
    c.g = {.n = 2, .c = 3, .h = 9, .w = 10, .kh = 2, .kw = 2, .pad_top = 1, .pad_left = 0,
           .pad_bottom = 1, .pad_right = 1};
    set_out(c.g);
  } else {
    c.g = maxpool2d_case(rng, round < 2 ? 0 : round, x_s8, max_bytes);
  }
  c.g.is_signed = x_s8;
  c.count_pad = round == 1 || (round > 3 && rng() % 2);
  c.y_s8 = rng() % 2;
  if (round == 4) {  // some dequantized values infinite: the kernel's double-sum path
    c.sx = random_scale(rng, 119, 127), c.sy = random_scale(rng, 120, 127);
  } else if (round == 5) {  // subnormal scales (their ulp is 2^-149)
    c.sx = random_scale(rng, -140, -127), c.sy = random_scale(rng, -140, -127);
  } else if (round == 3 || round % 3 == 0) {
    c.sx = round == 3 ? 1.0f : 0.5f, c.sy = round == 3 ? 1.0f : 0.25f;
  } else {
    c.sx = random_scale(rng, -9, 1), c.sy = random_scale(rng, -9, 1);
  }
  c.zx = random_zp(rng, x_s8), c.zy = random_zp(rng, c.y_s8);
  return c;
}

// host_ops.cpp `pool` (non-max branch) on DequantizeLinear's floats, then QuantizeLinear.
inline std::vector<uint8_t> qavgpool_ref(const std::vector<uint8_t>& in, const QAvgPoolCase& c) {
  const MaxPool2dCase& g = c.g;
  std::vector<uint8_t> out;
  const int64_t h = g.h, w = g.w;
  for (uint32_t p = 0; p < g.n * g.c; ++p)
    for (uint32_t oy = 0; oy < g.out_h; ++oy)
      for (uint32_t ox = 0; ox < g.out_w; ++ox) {
        double sum = 0;
        int64_t count = 0;
        for (uint32_t ky = 0; ky < g.kh; ++ky)
          for (uint32_t kx = 0; kx < g.kw; ++kx) {
            const int64_t iy = int64_t{oy} * g.stride_h - g.pad_top + int64_t{ky} * g.dil_h;
            const int64_t ix = int64_t{ox} * g.stride_w - g.pad_left + int64_t{kx} * g.dil_w;
            if (iy < 0 || iy >= h || ix < 0 || ix >= w) {
              if (c.count_pad && iy >= -int64_t{g.pad_top} && iy < h + g.pad_bottom &&
                  ix >= -int64_t{g.pad_left} && ix < w + g.pad_right) {
                ++count;
              }
              continue;
            }
            ++count;
            sum += dequantize_ref(byte_value(in[(size_t{p} * h + iy) * w + ix], g.is_signed),
                                  c.zx, c.sx);
          }
        const float mean = count ? static_cast<float>(sum / double(count)) : 0.0f;
        out.push_back(static_cast<uint8_t>(quantize_ref(mean, c.sy, c.zy, c.y_s8)));
      }
  return out;
}

inline weft_qavgpool_args qavgpool_args(const QAvgPoolCase& c, uint32_t in, uint32_t out) {
  const MaxPool2dCase& g = c.g;
  return weft_qavgpool_args{g.n, g.c, g.h, g.w, g.kh, g.kw, g.stride_h, g.stride_w,
                            g.pad_top, g.pad_left, g.pad_bottom, g.pad_right, g.dil_h, g.dil_w,
                            g.out_h, g.out_w, c.count_pad ? 1u : 0u, f32_bits(c.sx),
                            f32_bits(c.sy), c.zx, c.zy,
                            (g.is_signed ? WEFT_Q_A_INT8 : 0u) | (c.y_s8 ? WEFT_Q_Y_INT8 : 0u),
                            in, out};
}

inline std::string qavgpool_name(const QAvgPoolCase& c) {
  std::ostringstream s;
  s << (c.global ? "qavgpool global" : "qavgpool") << maxpool2d_name(c.g).substr(9)
    << (c.count_pad ? " count_include_pad" : "") << (c.y_s8 ? " -> s8" : " -> u8")
    << std::setprecision(9) << " scales " << c.sx << " " << c.sy << " zps " << c.zx << " "
    << c.zy;
  return s.str();
}

}  // namespace weft::tb::kernel_cases
