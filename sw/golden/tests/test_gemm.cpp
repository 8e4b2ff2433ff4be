// Golden GEMM: hand-worked cases (signed, unsigned, mixed, with zero points), the INT32
// wrap-around of the accumulator, a straightforward int64 reference on random shapes, and argument
// validation.
#include <gtest/gtest.h>

#include <cstdint>
#include <random>
#include <stdexcept>
#include <vector>

#include "weft/golden/quant.hpp"
#include "weft/tb/options.hpp"

namespace g = weft::golden;

namespace {

// int64 -> int32 modulo 2^32, written with int64 arithmetic only (independent of the uint32 trick
// in the code under test).
int32_t wrap32(int64_t v) {
  const int64_t m = int64_t{1} << 32;
  int64_t r = ((v % m) + m) % m;  // [0, 2^32)
  if (r >= (int64_t{1} << 31)) r -= m;
  return static_cast<int32_t>(r);
}

std::vector<int32_t> random_operands(std::mt19937_64& rng, size_t count, bool is_signed) {
  std::uniform_int_distribution<int32_t> d(is_signed ? -128 : 0, is_signed ? 127 : 255);
  std::vector<int32_t> v(count);
  for (auto& x : v) x = d(rng);
  return v;
}

}  // namespace

TEST(GoldenGemm, HandWorkedSignedWithZeroPoints) {
  // A (int8, za = -1)       A - za           W (int8, zw = 2)   W - zw
  //   [ 1  -2     3]        [2  -1    4]       [3  0]            [1 -2]
  //   [ 0 127  -128]        [1 128 -127]       [2 -1]            [0 -3]
  //                                            [4  5]            [2  3]
  // C[0] = [2*1 + -1*0 + 4*2,  2*-2 + -1*-3 + 4*3]        = [10, 11]
  // C[1] = [1*1 + 128*0 + -127*2,  1*-2 + 128*-3 + -127*3] = [-253, -767]
  const std::vector<int32_t> a = {1, -2, 3, 0, 127, -128};
  const std::vector<int32_t> w = {3, 0, 2, -1, 4, 5};
  const auto c = g::gemm(a, w, 2, 3, 2, {true, -1}, {true, 2});
  EXPECT_EQ(c, (std::vector<int32_t>{10, 11, -253, -767}));
}

TEST(GoldenGemm, HandWorkedUnsignedWithZeroPoints) {
  // A (uint8, za = 128): [255 0] -> [127 -128]; W (uint8, zw = 0): [[255 1] [2 255]]
  // C = [127*255 + -128*2,  127*1 + -128*255] = [32129, -32513]
  const std::vector<int32_t> a = {255, 0};
  const std::vector<int32_t> w = {255, 1, 2, 255};
  EXPECT_EQ(g::gemm(a, w, 1, 2, 2, {false, 128}, {false, 0}),
            (std::vector<int32_t>{32129, -32513}));
}

TEST(GoldenGemm, HandWorkedUnsignedActivationsSignedWeights) {
  // A uint8 (za = 3): [200 100] -> [197 97]; W int8 (zw = -1): [[-128] [127]] -> [[-127] [128]]
  // C = 197*-127 + 97*128 = -25019 + 12416 = -12603
  const std::vector<int32_t> a = {200, 100};
  const std::vector<int32_t> w = {-128, 127};
  EXPECT_EQ(g::gemm(a, w, 1, 2, 1, {false, 3}, {true, -1}), (std::vector<int32_t>{-12603}));
}

TEST(GoldenGemm, ZeroPointEqualToEveryValueGivesZero) {
  const std::vector<int32_t> a(12, 77), w(12, -5);
  EXPECT_EQ(g::gemm(a, w, 3, 4, 3, {true, 77}, {true, 0}), std::vector<int32_t>(9, 0));
}

TEST(GoldenGemm, AccumulatorWrapsModulo2To32) {
  // 33027 products of 255 * 255 = 65025: 33027 * 65025 = 2147580675 > INT32_MAX, which wraps to
  // 2147580675 - 2^32 = -2147386621.
  const int k = 33027;
  {
    const std::vector<int32_t> a(k, 255), w(k, 255);
    EXPECT_EQ(g::gemm(a, w, 1, k, 1, {false, 0}, {false, 0}), (std::vector<int32_t>{-2147386621}));
  }
  // The same magnitude negative, from signed operands and zero points: (-128 - 127) * (127 + 128)
  // = -65025 per term; -2147580675 wraps to +2147386621.
  {
    const std::vector<int32_t> a(k, -128), w(k, 127);
    EXPECT_EQ(g::gemm(a, w, 1, k, 1, {true, 127}, {true, -128}),
              (std::vector<int32_t>{2147386621}));
  }
  // 33025 * 65025 = 2147450625 <= INT32_MAX does not wrap (33026 terms would: 2147515650).
  {
    const std::vector<int32_t> a(33025, 255), w(33025, 255);
    EXPECT_EQ(g::gemm(a, w, 1, 33025, 1, {false, 0}, {false, 0}),
              (std::vector<int32_t>{2147450625}));
  }
}

TEST(GoldenGemm, MatchesInt64ReferenceOnRandomShapes) {
  auto rng = weft::tb::make_rng();
  std::uniform_int_distribution<int> dim(1, 17);
  std::uniform_int_distribution<int> bit(0, 1);
  for (int iter = 0; iter < 300; ++iter) {
    const int m = dim(rng), k = dim(rng) * (iter % 10 == 0 ? 50 : 1), n = dim(rng);
    const bool as = bit(rng), ws = bit(rng);
    const g::OperandType at{as, random_operands(rng, 1, as)[0]};
    const g::OperandType wt{ws, random_operands(rng, 1, ws)[0]};
    const auto a = random_operands(rng, size_t(m) * k, as);
    const auto w = random_operands(rng, size_t(k) * n, ws);
    const auto c = g::gemm(a, w, m, k, n, at, wt);
    ASSERT_EQ(c.size(), size_t(m) * n);
    for (int i = 0; i < m; ++i) {
      for (int j = 0; j < n; ++j) {
        int64_t sum = 0;
        for (int p = 0; p < k; ++p) {
          sum += int64_t{a[size_t(i) * k + p] - at.zero_point} *
                 (w[size_t(p) * n + j] - wt.zero_point);
        }
        ASSERT_EQ(c[size_t(i) * n + j], wrap32(sum)) << "iter " << iter << " at " << i << "," << j;
      }
    }
  }
}

TEST(GoldenGemm, CheckOperandAcceptsExactlyTheTypeRange) {
  EXPECT_NO_THROW(g::check_operand(-128, {true, 0}));
  EXPECT_NO_THROW(g::check_operand(127, {true, 0}));
  EXPECT_THROW(g::check_operand(128, {true, 0}), std::invalid_argument);
  EXPECT_THROW(g::check_operand(-129, {true, 0}), std::invalid_argument);
  EXPECT_NO_THROW(g::check_operand(0, {false, 0}));
  EXPECT_NO_THROW(g::check_operand(255, {false, 255}));
  EXPECT_THROW(g::check_operand(-1, {false, 0}), std::invalid_argument);
  EXPECT_THROW(g::check_operand(256, {false, 0}), std::invalid_argument);
  // The zero point must be in the operand's own range too.
  EXPECT_THROW(g::check_operand(0, {true, 128}), std::invalid_argument);
  EXPECT_THROW(g::check_operand(0, {false, -1}), std::invalid_argument);
}

TEST(GoldenGemm, RejectsBadShapesAndOperands) {
  const std::vector<int32_t> a(6, 1), w(6, 1);
  EXPECT_THROW(g::gemm(a, w, 0, 3, 2, {}, {}), std::invalid_argument);
  EXPECT_THROW(g::gemm(a, w, 2, -3, 2, {}, {}), std::invalid_argument);
  EXPECT_THROW(g::gemm(a, w, 2, 3, 3, {}, {}), std::invalid_argument);  // W is not 3x3
  EXPECT_THROW(g::gemm(a, w, 3, 3, 2, {}, {}), std::invalid_argument);  // A is not 3x3
  const std::vector<int32_t> bad = {1, 2, 300, 4, 5, 6};
  EXPECT_THROW(g::gemm(bad, w, 2, 3, 2, {}, {}), std::invalid_argument);
  EXPECT_THROW(g::gemm(a, bad, 2, 3, 2, {}, {}), std::invalid_argument);
  EXPECT_THROW(g::gemm(a, w, 2, 3, 2, {false, -3}, {}), std::invalid_argument);
  try {
    g::gemm(a, w, 2, 3, 3, {}, {});
    FAIL() << "no exception";
  } catch (const std::invalid_argument& e) {
    EXPECT_NE(std::string(e.what()).find("gemm"), std::string::npos) << e.what();
  }
}
