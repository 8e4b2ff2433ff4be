// Weft golden model: 2-D convolution (NHWC input, OHWI filter) lowered to the tensor unit's GEMM
// by im2col, as the driver does it.
//
// Output position (b, oy, ox) reads input rows iy = oy * stride_h - pad_top + ky and columns
// ix = ox * stride_w - pad_left + kx (TFLite reference Conv: in_y_origin = out_y * stride - pad).
// Positions outside the input are padding; they take the input zero point, so that
// (pad - zero_point) = 0 and they contribute nothing, exactly as TFLite's reference conv skips
// them. No dilation.
//   im2col:          [n*oh*ow][kh*kw*c_in]   row (b, oy, ox), column (ky, kx, ci)
//   filter_to_gemm:  [kh*kw*c_in][c_out]     row (ky, kx, ci), column co
//   conv2d:          gemm of the two: [n*oh*ow][c_out] = NHWC output [n][oh][ow][c_out]
#include <string>
#include <vector>

#include "check.hpp"
#include "weft/golden/quant.hpp"

namespace weft::golden {

using detail::fail;

namespace {

// Validates a shape; returns nothing but guarantees out_h(), out_w() >= 1.
void check_shape(const char* where, const Conv2dShape& s) {
  detail::positive_dim(where, "n", s.n);
  detail::positive_dim(where, "h", s.h);
  detail::positive_dim(where, "w", s.w);
  detail::positive_dim(where, "c_in", s.c_in);
  detail::positive_dim(where, "kh", s.kh);
  detail::positive_dim(where, "kw", s.kw);
  detail::positive_dim(where, "c_out", s.c_out);
  detail::positive_dim(where, "stride_h", s.stride_h);
  detail::positive_dim(where, "stride_w", s.stride_w);
  if (s.pad_top < 0 || s.pad_left < 0 || s.pad_bottom < 0 || s.pad_right < 0) {
    fail(where, "padding must be >= 0");
  }
  // Padded extents in int64: no overflow even for absurd paddings.
  const int64_t ph = int64_t{s.h} + s.pad_top + s.pad_bottom;
  const int64_t pw = int64_t{s.w} + s.pad_left + s.pad_right;
  if (ph > INT32_MAX || pw > INT32_MAX) fail(where, "padded input is too large");
  if (s.kh > ph || s.kw > pw) {
    fail(where, "kernel " + std::to_string(s.kh) + "x" + std::to_string(s.kw) +
                    " is larger than the padded input " + std::to_string(ph) + "x" +
                    std::to_string(pw));
  }
}

}  // namespace

std::vector<int32_t> im2col(std::span<const int32_t> input, const Conv2dShape& s,
                            int32_t pad_value) {
  const char* where = "im2col";
  check_shape(where, s);
  using detail::checked_mul;
  const std::size_t n = s.n, h = s.h, w = s.w, c_in = s.c_in, kh = s.kh, kw = s.kw;
  const std::size_t oh = static_cast<std::size_t>(s.out_h());
  const std::size_t ow = static_cast<std::size_t>(s.out_w());
  detail::expect_size(where, "input (n*h*w*c_in)", input.size(),
                      checked_mul(where, checked_mul(where, checked_mul(where, n, h), w), c_in));
  const std::size_t rows = checked_mul(where, checked_mul(where, n, oh), ow);
  const std::size_t cols = checked_mul(where, checked_mul(where, kh, kw), c_in);

  std::vector<int32_t> out(checked_mul(where, rows, cols));
  for (std::size_t b = 0; b < n; ++b) {
    for (std::size_t oy = 0; oy < oh; ++oy) {
      for (std::size_t ox = 0; ox < ow; ++ox) {
        const std::size_t row = (b * oh + oy) * ow + ox;
        for (std::size_t ky = 0; ky < kh; ++ky) {
          for (std::size_t kx = 0; kx < kw; ++kx) {
            // Signed input coordinates: negative or >= h / w means padding.
            const int64_t iy =
                static_cast<int64_t>(oy) * s.stride_h - s.pad_top + static_cast<int64_t>(ky);
            const int64_t ix =
                static_cast<int64_t>(ox) * s.stride_w - s.pad_left + static_cast<int64_t>(kx);
            const bool inside = iy >= 0 && iy < s.h && ix >= 0 && ix < s.w;
            for (std::size_t ci = 0; ci < c_in; ++ci) {
              const std::size_t col = (ky * kw + kx) * c_in + ci;
              out[row * cols + col] = inside ? input[((b * h + static_cast<std::size_t>(iy)) * w +
                                                      static_cast<std::size_t>(ix)) *
                                                         c_in +
                                                     ci]
                                             : pad_value;
            }
          }
        }
      }
    }
  }
  return out;
}

std::vector<int32_t> filter_to_gemm(std::span<const int32_t> filter, const Conv2dShape& s) {
  const char* where = "filter_to_gemm";
  check_shape(where, s);
  using detail::checked_mul;
  const std::size_t c_out = s.c_out;
  const std::size_t k = checked_mul(where, checked_mul(where, s.kh, s.kw), s.c_in);
  detail::expect_size(where, "filter (c_out*kh*kw*c_in)", filter.size(),
                      checked_mul(where, c_out, k));
  // OHWI [co][ky][kx][ci] is row-major [c_out][k] with k = (ky*kw + kx)*c_in + ci: transpose it.
  std::vector<int32_t> wg(filter.size());
  for (std::size_t co = 0; co < c_out; ++co) {
    for (std::size_t p = 0; p < k; ++p) wg[p * c_out + co] = filter[co * k + p];
  }
  return wg;
}

std::vector<int32_t> conv2d(std::span<const int32_t> input, std::span<const int32_t> filter,
                            const Conv2dShape& s, const OperandType& in_t,
                            const OperandType& filt_t) {
  const char* where = "conv2d";
  check_shape(where, s);
  // The padding value is the input zero point; check it before using it (gemm checks the rest).
  check_operand(in_t.zero_point, in_t);
  const std::vector<int32_t> a = im2col(input, s, in_t.zero_point);
  const std::vector<int32_t> wg = filter_to_gemm(filter, s);
  const int64_t rows = int64_t{s.n} * s.out_h() * s.out_w();
  const int64_t k = int64_t{s.kh} * s.kw * s.c_in;
  if (rows > INT32_MAX || k > INT32_MAX) fail(where, "GEMM dimensions do not fit in int");
  return gemm(a, wg, static_cast<int>(rows), static_cast<int>(k), s.c_out, in_t, filt_t);
}

}  // namespace weft::golden
