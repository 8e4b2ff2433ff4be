// Block tests of weft_pe, cycle by cycle against plain C++ integer arithmetic:
//   ps_o = ps_i + a * w[a_buf]  (INT32 wrap-around), a and a_buf forwarded one cycle later.
#include <gtest/gtest.h>

#include <cstdint>
#include <random>

#include "Vvl_pe.h"
#include "weft/tb/bits.hpp"
#include "weft/tb/harness.hpp"

namespace {

using weft::tb::Harness;
using weft::tb::sext;

constexpr int kOpW = 9;

TEST(Pe, MultipliesAccumulatesAndForwardsEveryCycle) {
  Harness<Vvl_pe> h;
  auto rng = weft::tb::make_rng();
  std::uniform_int_distribution<int> op(-255, 255);
  auto& d = h.dut();
  d.w_we_i = 0;
  d.a_valid_i = 0;
  h.reset();
  int32_t w[2] = {0, 0};
  // Load both buffers first.
  for (int b = 0; b < 2; ++b) {
    w[b] = op(rng);
    d.w_we_i = 1;
    d.w_buf_i = b;
    d.w_data_i = static_cast<uint32_t>(w[b]) & 0x1ff;
    h.tick();
  }
  d.w_we_i = 0;
  for (int i = 0; i < 200000; ++i) {
    const int a = (i % 1000 < 8) ? (i % 2 ? -255 : 255) : op(rng);  // extremes now and then
    const int buf = rng() & 1;
    const uint32_t ps = static_cast<uint32_t>(rng());
    const bool valid = rng() & 1;
    d.a_valid_i = valid;
    d.a_buf_i = buf;
    d.a_data_i = static_cast<uint32_t>(a) & 0x1ff;
    d.ps_i = ps;
    // Occasionally rewrite the buffer not in use this cycle: must not affect this product.
    const bool we = (rng() % 8) == 0;
    const int wb = 1 - buf;
    const int nw = op(rng);
    d.w_we_i = we;
    d.w_buf_i = wb;
    d.w_data_i = static_cast<uint32_t>(nw) & 0x1ff;
    h.tick();
    const uint32_t want = ps + static_cast<uint32_t>(a * w[buf]);  // int32 wrap
    ASSERT_EQ(d.ps_o, want) << "cycle " << i << " a=" << a << " w=" << w[buf];
    ASSERT_EQ(sext(d.a_data_o, kOpW), a);
    ASSERT_EQ(d.a_buf_o, buf);
    ASSERT_EQ(d.a_valid_o, valid);
    if (we) w[wb] = nw;
  }
}

// Every operand pair of the 9-bit range against C++ multiplication, with the partial sum at the
// INT32 extremes (every fourth activation) or varied, so sign extension and wrap-around show.
TEST(Pe, EveryOperandPairIsExact) {
  Harness<Vvl_pe> h;
  auto& d = h.dut();
  d.w_we_i = 0;
  d.a_valid_i = 0;
  h.reset();
  constexpr uint32_t kEdges[4] = {0u, 0x7fffffffu, 0x80000000u, 0xffffffffu};
  uint32_t lcg = 0x12345678u;
  for (int wv = -256; wv <= 255; ++wv) {
    const int buf = wv & 1;
    d.w_we_i = 1;
    d.w_buf_i = buf;
    d.w_data_i = static_cast<uint32_t>(wv) & 0x1ff;
    h.tick();
    d.w_we_i = 0;
    for (int a = -256; a <= 255; ++a) {
      lcg = lcg * 1664525u + 1013904223u;
      const uint32_t ps = (a & 3) == 0 ? kEdges[(a >> 2) & 3] : lcg;
      d.a_valid_i = 1;
      d.a_buf_i = buf;
      d.a_data_i = static_cast<uint32_t>(a) & 0x1ff;
      d.ps_i = ps;
      h.tick();
      ASSERT_EQ(d.ps_o, ps + static_cast<uint32_t>(a * wv)) << a << "*" << wv << "+" << ps;
    }
  }
}

}  // namespace
