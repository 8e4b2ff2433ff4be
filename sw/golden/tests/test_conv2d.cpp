// Golden conv2d (im2col + GEMM): a tiny case worked by hand, a direct nested-loop convolution
// written here (no im2col) on random shapes with strides 1..3 and asymmetric padding, the layouts
// of im2col and filter_to_gemm, the INT32 wrap, and argument validation.
#include <gtest/gtest.h>

#include <cstdint>
#include <random>
#include <stdexcept>
#include <vector>

#include "weft/golden/quant.hpp"
#include "weft/tb/options.hpp"

namespace g = weft::golden;

namespace {

int32_t wrap32(int64_t v) {
  const int64_t m = int64_t{1} << 32;
  int64_t r = ((v % m) + m) % m;
  if (r >= (int64_t{1} << 31)) r -= m;
  return static_cast<int32_t>(r);
}

// Direct convolution, TFLite reference style: for every output, sum over the kernel window the
// products of (input - zin) and (filter - zf), skipping positions outside the input (padding).
// The output size is computed here independently of Conv2dShape::out_h / out_w.
std::vector<int32_t> direct_conv(const std::vector<int32_t>& in, const std::vector<int32_t>& f,
                                 const g::Conv2dShape& s, int32_t zin, int32_t zf) {
  const int oh = (s.h + s.pad_top + s.pad_bottom - s.kh) / s.stride_h + 1;
  const int ow = (s.w + s.pad_left + s.pad_right - s.kw) / s.stride_w + 1;
  std::vector<int32_t> out;
  for (int b = 0; b < s.n; ++b)
    for (int oy = 0; oy < oh; ++oy)
      for (int ox = 0; ox < ow; ++ox)
        for (int co = 0; co < s.c_out; ++co) {
          int64_t sum = 0;
          for (int ky = 0; ky < s.kh; ++ky)
            for (int kx = 0; kx < s.kw; ++kx) {
              const int iy = oy * s.stride_h - s.pad_top + ky;
              const int ix = ox * s.stride_w - s.pad_left + kx;
              if (iy < 0 || iy >= s.h || ix < 0 || ix >= s.w) continue;
              for (int ci = 0; ci < s.c_in; ++ci) {
                const int32_t x = in[((size_t(b) * s.h + iy) * s.w + ix) * s.c_in + ci];
                const int32_t k = f[((size_t(co) * s.kh + ky) * s.kw + kx) * s.c_in + ci];
                sum += int64_t{x - zin} * (k - zf);
              }
            }
          out.push_back(wrap32(sum));
        }
  return out;
}

}  // namespace

TEST(GoldenConv2d, HandWorked3x3Stride2AsymmetricPadding) {
  // Input 1x3x3x1 int8, zero point 1; filter OHWI [2][2][2][1] int8, zero point -1;
  // stride 2, padding top 1, left 0, bottom 0, right 1 -> padded 4x4, output 2x2x2.
  //   input - 1:     filter co0 (raw [[0 1] [-2 2]]) - (-1):   co1 (raw all 0) - (-1):
  //     1 2 3          1  2                                      1 1
  //     4 5 6         -1  3                                      1 1
  //     7 8 9
  // Output (oy, ox) reads input rows 2*oy - 1 + ky, columns 2*ox + kx; row -1 and column 3 are
  // padding (contribute 0):
  //   (0,0): row 0 cols 0,1 with kernel row 1:  1*-1 + 2*3 = 5       | co1: 1 + 2 = 3
  //   (0,1): row 0 col 2 with kernel (1,0):     3*-1 = -3            | co1: 3
  //   (1,0): rows 1,2 cols 0,1: 4*1 + 5*2 + 7*-1 + 8*3 = 31          | co1: 4 + 5 + 7 + 8 = 24
  //   (1,1): rows 1,2 col 2: 6*1 + 9*-1 = -3                         | co1: 6 + 9 = 15
  const std::vector<int32_t> input = {2, 3, 4, 5, 6, 7, 8, 9, 10};
  const std::vector<int32_t> filter = {0, 1, -2, 2, /* co1 */ 0, 0, 0, 0};
  g::Conv2dShape s;
  s.h = 3, s.w = 3, s.c_in = 1, s.kh = 2, s.kw = 2, s.c_out = 2;
  s.stride_h = 2, s.stride_w = 2;
  s.pad_top = 1, s.pad_left = 0, s.pad_bottom = 0, s.pad_right = 1;
  ASSERT_EQ(s.out_h(), 2);
  ASSERT_EQ(s.out_w(), 2);
  const auto out = g::conv2d(input, filter, s, {true, 1}, {true, -1});
  EXPECT_EQ(out, (std::vector<int32_t>{5, 3, -3, 3, 31, 24, -3, 15}));
}

TEST(GoldenConv2d, Im2colPadsWithGivenValueInNhwHwcOrder) {
  // 1x2x2x2 input, 2x2 kernel, stride 1, pad 1 on the left only -> out 1x1x2.
  g::Conv2dShape s;
  s.h = 2, s.w = 2, s.c_in = 2, s.kh = 2, s.kw = 2, s.pad_left = 1;
  const std::vector<int32_t> in = {1, 2, 3, 4, /* row 1 */ 5, 6, 7, 8};
  const auto cols = g::im2col(in, s, -9);
  // Row (0,0,0): window columns -1..0 -> (pad, in(0,0)), (pad, in(1,0)); row (0,0,1): columns 0..1.
  const std::vector<int32_t> want = {-9, -9, 1, 2, -9, -9, 5, 6, /* next row */ 1,
                                     2,  3,  4, 5, 6,  7,  8};
  EXPECT_EQ(cols, want);
}

TEST(GoldenConv2d, FilterToGemmTransposesOhwiToKByCout) {
  g::Conv2dShape s;
  s.kh = 1, s.kw = 2, s.c_in = 2, s.c_out = 3, s.w = 2;
  // OHWI: co-major, then (kx, ci).
  const std::vector<int32_t> f = {1, 2, 3, 4, /* co1 */ 5, 6, 7, 8, /* co2 */ 9, 10, 11, 12};
  EXPECT_EQ(g::filter_to_gemm(f, s), (std::vector<int32_t>{1, 5, 9, 2, 6, 10, 3, 7, 11, 4, 8, 12}));
}

TEST(GoldenConv2d, MatchesDirectConvolutionOnRandomShapes) {
  auto rng = weft::tb::make_rng();
  auto uni = [&](int lo, int hi) { return std::uniform_int_distribution<int>(lo, hi)(rng); };
  for (int iter = 0; iter < 250; ++iter) {
    g::Conv2dShape s;
    s.n = uni(1, 2), s.h = uni(1, 9), s.w = uni(1, 9), s.c_in = uni(1, 5);
    s.c_out = uni(1, 5), s.stride_h = uni(1, 3), s.stride_w = uni(1, 3);
    s.pad_top = uni(0, 3), s.pad_bottom = uni(0, 3), s.pad_left = uni(0, 3),
    s.pad_right = uni(0, 3);
    s.kh = uni(1, s.h + s.pad_top + s.pad_bottom), s.kw = uni(1, s.w + s.pad_left + s.pad_right);
    const bool in_signed = uni(0, 1), f_signed = uni(0, 1);
    const int in_lo = in_signed ? -128 : 0, f_lo = f_signed ? -128 : 0;
    const int32_t zin = uni(in_lo, in_lo + 255), zf = uni(f_lo, f_lo + 255);
    std::vector<int32_t> in(size_t(s.n) * s.h * s.w * s.c_in),
        f(size_t(s.c_out) * s.kh * s.kw * s.c_in);
    for (auto& v : in) v = uni(in_lo, in_lo + 255);
    for (auto& v : f) v = uni(f_lo, f_lo + 255);
    const auto got = g::conv2d(in, f, s, {in_signed, zin}, {f_signed, zf});
    const auto want = direct_conv(in, f, s, zin, zf);
    ASSERT_EQ(got, want) << "iter " << iter << ": n" << s.n << " h" << s.h << " w" << s.w << " ci"
                         << s.c_in << " k" << s.kh << "x" << s.kw << " co" << s.c_out << " stride "
                         << s.stride_h << "," << s.stride_w << " pad t" << s.pad_top << " l"
                         << s.pad_left << " b" << s.pad_bottom << " r" << s.pad_right;
  }
}

TEST(GoldenConv2d, AccumulatorWrapsModulo2To32) {
  // A 1x1 convolution over 33027 channels of 255 * 255 wraps like the GEMM (see GoldenGemm).
  g::Conv2dShape s;
  s.c_in = 33027;
  const std::vector<int32_t> in(33027, 255), f(33027, 255);
  EXPECT_EQ(g::conv2d(in, f, s, {false, 0}, {false, 0}), (std::vector<int32_t>{-2147386621}));
}

TEST(GoldenConv2d, RejectsBadShapes) {
  const std::vector<int32_t> in(9, 0), f(4, 0);
  g::Conv2dShape s;
  s.h = 3, s.w = 3, s.kh = 2, s.kw = 2;
  EXPECT_NO_THROW(g::conv2d(in, f, s, {}, {}));
  auto bad = [&](auto mutate) {
    g::Conv2dShape t = s;
    mutate(t);
    EXPECT_THROW(g::conv2d(in, f, t, {}, {}), std::invalid_argument);
  };
  bad([](g::Conv2dShape& t) { t.stride_h = 0; });
  bad([](g::Conv2dShape& t) { t.stride_w = -1; });
  bad([](g::Conv2dShape& t) { t.pad_top = -1; });
  bad([](g::Conv2dShape& t) { t.kh = 4; });  // kernel taller than the input
  bad([](g::Conv2dShape& t) { t.c_in = 0; });
  bad([](g::Conv2dShape& t) { t.h = 2; });      // input size no longer matches
  bad([](g::Conv2dShape& t) { t.c_out = 2; });  // filter size no longer matches
  EXPECT_THROW(g::conv2d(in, f, s, {true, 200}, {}), std::invalid_argument);  // bad zero point
  EXPECT_THROW(g::im2col(
                   in,
                   [&] {
                     auto t = s;
                     t.w = 4;
                     return t;
                   }(),
                   0),
               std::invalid_argument);
  EXPECT_THROW(g::filter_to_gemm(in, s), std::invalid_argument);
}
