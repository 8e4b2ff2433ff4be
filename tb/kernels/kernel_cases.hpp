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
#include <random>
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

}  // namespace weft::tb::kernel_cases
