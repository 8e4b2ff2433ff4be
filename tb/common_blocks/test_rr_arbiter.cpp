// weft_rr_arbiter (N = WEFT_ARB_N, Width 16) against weft::tb::stream::RrArbiterModel, with
// protocol-respecting random requesters and random back-pressure: grants, per-input order,
// fairness bound, grant lock while stalled, handshake assertions.
#include <gtest/gtest.h>

#include <algorithm>
#include <array>
#include <cstdint>
#include <random>
#include <vector>

#include WEFT_ARB_HEADER
#include "stream_model.hpp"
#include "weft/tb/bits.hpp"
#include "weft/tb/harness.hpp"

namespace {

using Model = WEFT_ARB_MODEL;
using H = weft::tb::Harness<Model>;
using weft::tb::stream::RrArbiterModel;
using weft::tb::stream::Source;

constexpr int kN = WEFT_ARB_N;
constexpr int kW = 16;

struct Out {
  int idx = -1;  // transferred input, -1 when no transfer
  uint32_t data = 0;
};

struct Bench {
  H h;
  RrArbiterModel m{kN};
  std::array<std::vector<uint32_t>, kN> sent, got;
  std::vector<int> grants;  // input index of every transfer, in order

  Bench() {
    // The harness randomises every variable at construction, top-level inputs included.
    h.dut().in_valid_i = 0;
    h.dut().in_data_i = 0;
    h.dut().out_ready_i = 0;
    h.reset();
  }

  Out cycle(const std::array<bool, kN>& valid, const std::array<uint32_t, kN>& data, bool out_ready) {
    auto& d = h.dut();
    uint32_t v = 0;
    for (int i = 0; i < kN; ++i) {
      v |= uint32_t{valid[i]} << i;
      weft::tb::set_bits(d.in_data_i, kW * i, kW, data[i]);
    }
    d.in_valid_i = v;
    d.out_ready_i = out_ready;
    h.eval();
    const int g = m.grant(valid);
    const bool out_valid = g >= 0 && valid[g];
    Out o;
    EXPECT_EQ(bool(d.out_valid_o), out_valid) << "cycle " << h.cycle();
    if (out_valid) {
      EXPECT_EQ(int(d.out_idx_o), g) << "cycle " << h.cycle();
      EXPECT_EQ(uint32_t(d.out_data_o), data[g]) << "cycle " << h.cycle();
    }
    const uint32_t accept = out_valid && out_ready ? (1u << g) : 0u;
    EXPECT_EQ(uint32_t(d.in_ready_o) & v, accept) << "cycle " << h.cycle();
    if (accept) {
      o.idx = g;
      o.data = data[g];
      sent[g].push_back(data[g]);
      got[d.out_idx_o].push_back(d.out_data_o);
      grants.push_back(g);
    }
    m.step(valid, out_ready);
    h.tick();
    return o;
  }
};

TEST(WEFT_SUITE, MatchesReferenceModelUnderRandomTraffic) {
  Bench b;
  auto rng = weft::tb::make_rng();
  std::uniform_real_distribution<double> u(0, 1);
  std::array<Source, kN> src;
  std::array<bool, kN> taken{};
  const double mix[][2] = {{0.9, 0.3}, {0.3, 0.9}, {0.5, 0.5}, {1.0, 1.0}, {0.2, 0.2}, {1.0, 0.05}};
  for (const auto& p : mix) {
    for (int c = 0; c < 25000; ++c) {
      std::array<bool, kN> valid;
      std::array<uint32_t, kN> data;
      for (int i = 0; i < kN; ++i) {
        src[i].next(rng, p[0] * (1.0 - 0.15 * i), taken[i], false, 0xffff);
        valid[i] = src[i].valid;
        data[i] = src[i].data;
      }
      const Out o = b.cycle(valid, data, u(rng) < p[1]);
      for (int i = 0; i < kN; ++i) taken[i] = (o.idx == i);
      ASSERT_FALSE(HasFailure()) << "stopping at the first mismatch";
    }
  }
  for (int i = 0; i < kN; ++i) {
    EXPECT_EQ(b.got[i], b.sent[i]) << "input " << i << " order";
    EXPECT_GT(b.sent[i].size(), 3000u) << "input " << i;
  }
}

TEST(WEFT_SUITE, GrantsInRotationWhenAllRequest) {
  Bench b;
  std::array<bool, kN> valid;
  std::array<uint32_t, kN> data;
  std::array<uint32_t, kN> served{};
  valid.fill(true);
  for (int c = 0; c < 10 * kN; ++c) {
    // Every input always requests; a waiting input holds its word, a served one offers the next.
    for (int i = 0; i < kN; ++i) data[i] = 0x100 * i + served[i];
    const Out o = b.cycle(valid, data, true);
    if (o.idx >= 0) ++served[o.idx];
  }
  for (int i = 0; i < kN; ++i) EXPECT_EQ(b.got[i], b.sent[i]);
  for (size_t t = 0; t < b.grants.size(); ++t) ASSERT_EQ(b.grants[t], int(t % kN)) << "transfer " << t;
}

TEST(WEFT_SUITE, ServesAPersistentRequesterWithinNTransfers) {
  Bench b;
  auto rng = weft::tb::make_rng();
  std::uniform_real_distribution<double> u(0, 1);
  std::array<Source, kN> src;
  std::array<bool, kN> taken{};
  std::array<int, kN> waited{};  // transfers to other inputs since this input's word was offered
  std::array<int, kN> count{};
  int worst = 0;
  for (int c = 0; c < 100000; ++c) {
    std::array<bool, kN> valid;
    std::array<uint32_t, kN> data;
    for (int i = 0; i < kN; ++i) {
      src[i].next(rng, 0.95, taken[i], false, 0xffff);
      valid[i] = src[i].valid;
      data[i] = src[i].data;
    }
    const Out o = b.cycle(valid, data, u(rng) < 0.5);
    ASSERT_FALSE(HasFailure());
    for (int i = 0; i < kN; ++i) {
      taken[i] = (o.idx == i);
      if (taken[i]) {
        ++count[i];
        waited[i] = 0;
      } else if (o.idx >= 0 && valid[i]) {
        worst = std::max(worst, ++waited[i]);
      } else if (!valid[i]) {
        waited[i] = 0;
      }
    }
  }
  EXPECT_LE(worst, kN - 1);
  const auto [mn, mx] = std::minmax_element(count.begin(), count.end());
  EXPECT_LE(*mx - *mn, *mx / 20) << "grants per input differ by more than 5 %";
}

TEST(WEFT_SUITE, HoldsGrantWhileOutputStalled) {
  Bench b;
  std::array<bool, kN> valid{};
  std::array<uint32_t, kN> data{};
  valid[kN - 1] = true;
  data[kN - 1] = 0xbbbb;
  b.cycle(valid, data, false);  // input N-1 granted, output stalled
  valid[0] = true;              // input 0 would win a fresh search from ptr 0
  data[0] = 0xaaaa;
  for (int c = 0; c < 3; ++c) {
    b.cycle(valid, data, false);
    EXPECT_EQ(int(b.h.dut().out_idx_o), kN - 1);
    EXPECT_EQ(uint32_t(b.h.dut().out_data_o), 0xbbbbu);
  }
  Out o = b.cycle(valid, data, true);
  EXPECT_EQ(o.idx, kN - 1);
  valid[kN - 1] = false;
  o = b.cycle(valid, data, true);
  EXPECT_EQ(o.idx, 0);
}

TEST(WEFT_SUITE, AssertsWhenGrantedRequesterDropsValidWhileStalled) {
  Bench b;
  std::array<bool, kN> valid{};
  std::array<uint32_t, kN> data{};
  valid[1 % kN] = true;
  b.cycle(valid, data, false);  // stalled
  b.h.dut().in_valid_i = 0;
  EXPECT_THROW(b.h.tick(), std::runtime_error);
}

}  // namespace
