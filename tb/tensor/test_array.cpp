// Block tests of weft_systolic_array against the golden GEMM (sw/golden), one vector at a time,
// with the fixed latency Rows + Cols - 1 and random weight-buffer switching and reloading.
// WEFT_ARRAY_MODEL / WEFT_ROWS / WEFT_COLS / WEFT_SUITE come from the build (one binary per
// array configuration).
#include <gtest/gtest.h>

#include <deque>
#include <random>
#include <vector>

#include WEFT_ARRAY_HEADER
#include "weft/golden/quant.hpp"
#include "weft/tb/bits.hpp"
#include "weft/tb/harness.hpp"

namespace {

using weft::tb::get_bits;
using weft::tb::Harness;
using weft::tb::set_bits;
namespace golden = weft::golden;

constexpr int kOpW = 9;


using ArrayModel = WEFT_ARRAY_MODEL;
constexpr int kRows = WEFT_ROWS;
constexpr int kCols = WEFT_COLS;
constexpr int kLatency = kRows + kCols - 1;

struct Vec {
  std::vector<int32_t> a, za;  // 8-bit values and zero points (a' = a - za)
  int buf;
};

TEST(WEFT_SUITE, MatchesGoldenGemmPerVectorWithBufferSwitching) {
  Harness<ArrayModel> h;
  auto rng = weft::tb::make_rng();
  auto& d = h.dut();
  d.w_we_i = 0;
  d.a_valid_i = 0;
  h.reset();
  std::uniform_int_distribution<int> s8(-128, 127), u8(0, 255);

  // Weights as 8-bit values with zero points, per buffer; the array gets w - zw.
  struct Tile {
    std::vector<int32_t> w;
    golden::OperandType t;
  } tiles[2];
  auto new_tile = [&](int b) {
    Tile& tl = tiles[b];
    tl.t.is_signed = rng() & 1;
    tl.t.zero_point = tl.t.is_signed ? s8(rng) : u8(rng);
    tl.w.resize(kRows * kCols);
    for (auto& v : tl.w) v = tl.t.is_signed ? s8(rng) : u8(rng);
  };
  auto drive_weight_row = [&](int b, int r) {
    d.w_we_i = 1;
    d.w_buf_i = b;
    d.w_row_i = r;
    for (int c = 0; c < kCols; ++c) {
      set_bits(d.w_data_i, c * kOpW, kOpW,
               static_cast<uint64_t>(tiles[b].w[r * kCols + c] - tiles[b].t.zero_point));
    }
  };
  for (int b = 0; b < 2; ++b) {
    new_tile(b);
    for (int r = 0; r < kRows; ++r) {
      drive_weight_row(b, r);
      h.tick();
    }
  }
  d.w_we_i = 0;

  // Each cycle: maybe a weight row of a buffer being reloaded (vectors then use only the other
  // buffer, and a reload starts only when no vector using that buffer is still in the array),
  // maybe a vector; then check the outputs after the clock edge.
  std::deque<std::pair<uint64_t, std::vector<int32_t>>> expected;  // (cycle due, C values)
  uint64_t last_use[2] = {0, 0};
  int reload_buf = -1, reload_row = 0, checked = 0;
  for (int i = 0; i < 40000; ++i) {
    const uint64_t now = h.cycle();
    if (reload_buf < 0 && (rng() % 200) == 0) {
      const int b = rng() & 1;
      if (now > last_use[b] + kLatency) {
        reload_buf = b;
        reload_row = 0;
        new_tile(b);
      }
    }
    d.w_we_i = 0;
    if (reload_buf >= 0) {
      drive_weight_row(reload_buf, reload_row);
      if (++reload_row == kRows) reload_buf = -2;  // done after this cycle
    }
    const bool valid = (rng() % 4) != 0;
    int buf = rng() & 1;
    if (reload_buf >= 0 || reload_buf == -2) buf = d.w_buf_i ^ 1;
    golden::OperandType at{static_cast<bool>(rng() & 1), 0};
    at.zero_point = at.is_signed ? s8(rng) : u8(rng);
    std::vector<int32_t> a(kRows);
    for (auto& v : a) v = at.is_signed ? s8(rng) : u8(rng);
    d.a_valid_i = valid;
    d.a_buf_i = buf;
    for (int r = 0; r < kRows; ++r) {
      set_bits(d.a_data_i, r * kOpW, kOpW, static_cast<uint64_t>(a[r] - at.zero_point));
    }
    if (valid) {
      expected.emplace_back(now + kLatency, golden::gemm(a, tiles[buf].w, 1, kRows, kCols, at, tiles[buf].t));
      last_use[buf] = now;
    }
    h.tick();
    if (reload_buf == -2) reload_buf = -1;
    // Outputs after the edge belong to the vector driven Latency edges ago.
    if (d.c_valid_o) {
      ASSERT_FALSE(expected.empty()) << "unexpected output at cycle " << h.cycle();
      ASSERT_EQ(expected.front().first, h.cycle()) << "latency is not Rows + Cols - 1";
      for (int c = 0; c < kCols; ++c) {
        ASSERT_EQ(static_cast<int32_t>(get_bits(d.c_data_o, 32 * c, 32)), expected.front().second[c])
            << "vector " << checked << " column " << c;
      }
      expected.pop_front();
      ++checked;
    } else {
      ASSERT_TRUE(expected.empty() || expected.front().first > h.cycle())
          << "missing output due at cycle " << expected.front().first;
    }
  }
  weft::tb::verbose_printf("[%dx%d] %d vectors checked against golden::gemm\n", kRows, kCols,
                           checked);
  EXPECT_GT(checked, 20000);
}

}  // namespace
