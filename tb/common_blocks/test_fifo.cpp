// weft_fifo (Width 16, Depth WEFT_FIFO_DEPTH) against weft::tb::stream::FifoModel, with
// protocol-respecting random producers and random back-pressure; handshake assertions.
#include <gtest/gtest.h>

#include <cstdint>
#include <random>
#include <vector>

#include WEFT_FIFO_HEADER
#include "stream_model.hpp"
#include "weft/tb/harness.hpp"

namespace {

using Model = WEFT_FIFO_MODEL;
using H = weft::tb::Harness<Model>;
using weft::tb::stream::FifoModel;
using weft::tb::stream::Source;

constexpr int kDepth = WEFT_FIFO_DEPTH;
constexpr uint32_t kMask = 0xffff;

// Drives one cycle, checks every output against the model before the edge, then ticks.
// Returns true when the output transferred a word (appended to `got`).
struct Bench {
  H h;
  FifoModel m{kDepth, {}};
  std::vector<uint32_t> sent, got;

  Bench() {
    // The harness randomises every variable at construction, top-level inputs included.
    h.dut().flush_i = 0;
    h.dut().in_valid_i = 0;
    h.dut().in_data_i = 0;
    h.dut().out_ready_i = 0;
    h.reset();
  }

  void cycle(bool flush, bool in_valid, uint32_t in_data, bool out_ready, bool* in_taken = nullptr,
             bool* out_taken = nullptr) {
    auto& d = h.dut();
    d.flush_i = flush;
    d.in_valid_i = in_valid;
    d.in_data_i = in_data;
    d.out_ready_i = out_ready;
    h.eval();
    ASSERT_EQ(bool(d.in_ready_o), m.in_ready(flush)) << "cycle " << h.cycle();
    ASSERT_EQ(bool(d.out_valid_o), m.out_valid()) << "cycle " << h.cycle();
    ASSERT_EQ(d.usage_o, m.q.size()) << "cycle " << h.cycle();
    if (m.out_valid()) ASSERT_EQ(d.out_data_o, m.out_data()) << "cycle " << h.cycle();
    const bool pushed = in_valid && m.in_ready(flush);
    const bool popped = m.out_valid() && out_ready;
    if (pushed) sent.push_back(in_data);
    if (popped) got.push_back(m.out_data());
    if (in_taken) *in_taken = pushed;
    if (out_taken) *out_taken = popped;
    m.step(flush, in_valid, in_data, out_ready);
    h.tick();
  }
};

struct Phase {
  double p_valid, p_ready, p_flush;
  int cycles;
};

void run_random(Bench& b, const std::vector<Phase>& phases) {
  auto rng = weft::tb::make_rng();
  std::uniform_real_distribution<double> u(0, 1);
  Source src;
  bool taken = false, released = false;
  for (const Phase& p : phases) {
    for (int i = 0; i < p.cycles; ++i) {
      src.next(rng, p.p_valid, taken, released, kMask);
      const bool flush = u(rng) < p.p_flush;
      b.cycle(flush, src.valid, src.data, u(rng) < p.p_ready, &taken);
      if (::testing::Test::HasFatalFailure()) return;
      released = flush;
    }
  }
  // A producer may not withdraw a word it offers (the handshake checker asserts it): the last
  // offer of the phases is held until the FIFO takes it, before any caller drains or stops.
  for (int i = 0; src.valid && !taken && i < 4 * kDepth + 4; ++i) {
    b.cycle(false, true, src.data, true, &taken);
    if (::testing::Test::HasFatalFailure()) return;
  }
}

TEST(WEFT_SUITE, KeepsOrderUnderRandomBackPressure) {
  Bench b;
  run_random(b, {{0.9, 0.3, 0, 30000}, {0.3, 0.9, 0, 30000}, {0.5, 0.5, 0, 30000},
                 {1.0, 1.0, 0, 30000}, {1.0, 0.1, 0, 30000}, {0.1, 1.0, 0, 30000}});
  ASSERT_FALSE(HasFatalFailure());
  // Drain what is left, then the output sequence must be the input sequence.
  for (int i = 0; i < kDepth + 2; ++i) b.cycle(false, false, 0, true);
  EXPECT_EQ(b.got, b.sent);
  EXPECT_GT(b.sent.size(), 30000u);  // Depth 1 moves at half rate
}

TEST(WEFT_SUITE, MatchesReferenceModelWithRandomFlushes) {
  Bench b;
  run_random(b, {{0.9, 0.3, 0.03, 50000}, {0.5, 0.5, 0.1, 50000}, {1.0, 1.0, 0.02, 50000}});
}

TEST(WEFT_SUITE, FillsToDepthThenRefusesInput) {
  Bench b;
  for (int i = 0; i < kDepth; ++i) {
    bool taken = false;
    b.cycle(false, true, 0x100 + i, false, &taken);
    ASSERT_TRUE(taken) << "word " << i;
  }
  EXPECT_EQ(b.h.dut().usage_o, kDepth);
  for (int i = 0; i < 3; ++i) {
    bool taken = true;
    b.cycle(false, true, 0xbeef, false, &taken);  // offered and held: refused while full
    EXPECT_FALSE(taken);
  }
  for (int i = 0; i < kDepth + 1; ++i) b.cycle(false, true, 0xbeef, true);
  std::vector<uint32_t> expect;
  for (int i = 0; i < kDepth; ++i) expect.push_back(0x100 + i);
  b.got.resize(kDepth);
  EXPECT_EQ(b.got, expect);
}

#if WEFT_FIFO_DEPTH >= 2
TEST(WEFT_SUITE, SustainsOneTransferPerCycle) {
  Bench b;
  uint32_t next = 0;
  for (int i = 0; i < 1000; ++i) {
    bool in_taken = false, out_taken = false;
    b.cycle(false, true, next & kMask, true, &in_taken, &out_taken);
    if (in_taken) ++next;
    if (i >= 1) {
      ASSERT_TRUE(in_taken) << "cycle " << i;
      ASSERT_TRUE(out_taken) << "cycle " << i;
    }
  }
}
#else
TEST(WEFT_SUITE, MovesOneWordEveryOtherCycleAtDepthOne) {
  Bench b;
  uint32_t next = 0;
  int transfers = 0;
  for (int i = 0; i < 1000; ++i) {
    bool in_taken = false, out_taken = false;
    b.cycle(false, true, next & kMask, true, &in_taken, &out_taken);
    if (in_taken) ++next;
    if (out_taken) ++transfers;
  }
  EXPECT_EQ(transfers, 500);
}
#endif

TEST(WEFT_SUITE, FlushEmptiesAndRefusesInputDuringFlush) {
  Bench b;
  for (int i = 0; i < kDepth; ++i) b.cycle(false, true, 0x10 + i, false);
  bool taken = true;
  b.cycle(true, true, 0x77, false, &taken);  // flush: nothing accepted, everything dropped
  EXPECT_FALSE(taken);
  EXPECT_EQ(b.h.dut().usage_o, 0);
  b.h.eval();
  EXPECT_FALSE(b.h.dut().out_valid_o);
  // After the flush the next word is the first one out.
  b.cycle(false, true, 0x55, false);
  b.got.clear();
  b.cycle(false, false, 0, true);
  EXPECT_EQ(b.got, std::vector<uint32_t>{0x55});
}

TEST(WEFT_SUITE, HasNoCombinationalPathBetweenStreams) {
  Bench b;
  auto& d = b.h.dut();
  // Empty: raising in_valid_i does not make out_valid_o rise before the edge.
  d.in_valid_i = 1;
  d.in_data_i = 0x1234;
  d.out_ready_i = 1;
  b.h.eval();
  EXPECT_FALSE(d.out_valid_o);
  d.in_valid_i = 0;
  // Full: raising out_ready_i does not make in_ready_o rise before the edge.
  for (int i = 0; i < kDepth; ++i) b.cycle(false, true, i, false);
  d.out_ready_i = 0;
  b.h.eval();
  EXPECT_FALSE(d.in_ready_o);
  d.out_ready_i = 1;
  b.h.eval();
  EXPECT_FALSE(d.in_ready_o);
}

TEST(WEFT_SUITE, AssertsWhenProducerDropsValidWhileStalled) {
  Bench b;
  for (int i = 0; i < kDepth; ++i) b.cycle(false, true, i, false);
  b.cycle(false, true, 0xaaaa, false);  // offered while full: stalled
  auto& d = b.h.dut();
  d.in_valid_i = 0;  // withdrawn without a transfer
  EXPECT_THROW(b.h.tick(), std::runtime_error);
}

TEST(WEFT_SUITE, AssertsWhenProducerChangesDataWhileStalled) {
  Bench b;
  for (int i = 0; i < kDepth; ++i) b.cycle(false, true, i, false);
  b.cycle(false, true, 0xaaaa, false);
  b.h.dut().in_data_i = 0x5555;
  EXPECT_THROW(b.h.tick(), std::runtime_error);
}

TEST(WEFT_SUITE, AllowsWithdrawalDuringFlush) {
  Bench b;
  for (int i = 0; i < kDepth; ++i) b.cycle(false, true, i, false);
  b.cycle(false, true, 0xaaaa, false);  // stalled
  b.cycle(true, false, 0, false);       // withdrawn in the flush cycle: allowed
  EXPECT_NO_THROW(b.cycle(false, false, 0, true));
}

}  // namespace
