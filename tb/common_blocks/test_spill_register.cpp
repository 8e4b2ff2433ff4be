// weft_spill_register (Width 16): behaves exactly like a two-entry FIFO with registered ready
// (weft::tb::stream::FifoModel with depth 2), at full throughput, with no combinational path
// between its two streams.
#include <gtest/gtest.h>

#include <cstdint>
#include <random>
#include <vector>

#include "Vvl_spill.h"
#include "stream_model.hpp"
#include "weft/tb/harness.hpp"

namespace {

using H = weft::tb::Harness<Vvl_spill>;
using weft::tb::stream::FifoModel;
using weft::tb::stream::Source;

struct Bench {
  H h;
  FifoModel m{2, {}};
  std::vector<uint32_t> sent, got;

  Bench() {
    // The harness randomises every variable at construction, top-level inputs included.
    h.dut().in_valid_i = 0;
    h.dut().in_data_i = 0;
    h.dut().out_ready_i = 0;
    h.reset();
  }

  void cycle(bool in_valid, uint32_t in_data, bool out_ready, bool* in_taken = nullptr,
             bool* out_taken = nullptr) {
    auto& d = h.dut();
    d.in_valid_i = in_valid;
    d.in_data_i = in_data;
    d.out_ready_i = out_ready;
    h.eval();
    ASSERT_EQ(bool(d.in_ready_o), m.in_ready(false)) << "cycle " << h.cycle();
    ASSERT_EQ(bool(d.out_valid_o), m.out_valid()) << "cycle " << h.cycle();
    if (m.out_valid()) ASSERT_EQ(d.out_data_o, m.out_data()) << "cycle " << h.cycle();
    const bool pushed = in_valid && m.in_ready(false);
    const bool popped = m.out_valid() && out_ready;
    if (pushed) sent.push_back(in_data);
    if (popped) got.push_back(m.out_data());
    if (in_taken) *in_taken = pushed;
    if (out_taken) *out_taken = popped;
    m.step(false, in_valid, in_data, out_ready);
    h.tick();
  }
};

TEST(SpillRegister, KeepsOrderUnderRandomBackPressure) {
  Bench b;
  auto rng = weft::tb::make_rng();
  std::uniform_real_distribution<double> u(0, 1);
  Source src;
  bool taken = false;
  const double mix[][2] = {{0.9, 0.3}, {0.3, 0.9}, {0.5, 0.5}, {1.0, 1.0}, {1.0, 0.1}, {0.1, 1.0}};
  for (const auto& p : mix) {
    for (int i = 0; i < 30000; ++i) {
      src.next(rng, p[0], taken, false, 0xffff);
      b.cycle(src.valid, src.data, u(rng) < p[1], &taken);
      ASSERT_FALSE(HasFatalFailure());
    }
  }
  for (int i = 0; i < 4; ++i) b.cycle(false, 0, true);
  EXPECT_EQ(b.got, b.sent);
  EXPECT_GT(b.sent.size(), 60000u);
}

TEST(SpillRegister, SustainsOneTransferPerCycle) {
  Bench b;
  uint32_t next = 0;
  for (int i = 0; i < 1000; ++i) {
    bool in_taken = false, out_taken = false;
    b.cycle(true, next, true, &in_taken, &out_taken);
    if (in_taken) ++next;
    if (i >= 1) {
      ASSERT_TRUE(in_taken) << "cycle " << i;
      ASSERT_TRUE(out_taken) << "cycle " << i;
    }
  }
}

TEST(SpillRegister, HoldsTwoWordsWhenStalled) {
  Bench b;
  bool taken = false;
  b.cycle(true, 0xa, false, &taken);
  EXPECT_TRUE(taken);
  b.cycle(true, 0xb, false, &taken);
  EXPECT_TRUE(taken);
  b.cycle(true, 0xc, false, &taken);
  EXPECT_FALSE(taken);
  b.cycle(true, 0xc, true);
  b.cycle(true, 0xc, true);
  b.cycle(false, 0, true);
  EXPECT_EQ(b.got, (std::vector<uint32_t>{0xa, 0xb, 0xc}));
}

TEST(SpillRegister, HasNoCombinationalPathBetweenStreams) {
  Bench b;
  auto& d = b.h.dut();
  d.in_valid_i = 1;
  d.in_data_i = 0x1234;
  b.h.eval();
  EXPECT_FALSE(d.out_valid_o);  // empty: input does not reach the output before the edge
  b.cycle(true, 1, false);
  b.cycle(true, 2, false);      // full
  for (int r = 0; r < 2; ++r) {
    d.out_ready_i = r;
    b.h.eval();
    EXPECT_FALSE(d.in_ready_o) << "out_ready_i=" << r;  // ready does not pass through
  }
}

TEST(SpillRegister, AssertsWhenProducerDropsValidWhileStalled) {
  Bench b;
  b.cycle(true, 1, false);
  b.cycle(true, 2, false);
  b.cycle(true, 3, false);  // stalled
  b.h.dut().in_valid_i = 0;
  EXPECT_THROW(b.h.tick(), std::runtime_error);
}

}  // namespace
