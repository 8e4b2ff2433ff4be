// Block tests of weft_spad against a C++ memory model. Built once per configuration
// (tb/top/spad.cmake): WEFT_DATAW, WEFT_LINES, WEFT_BANKS, WEFT_NUMRD and the suite name.
// Checked: every accepted read returns the model's line exactly weft_pkg::SpadReadLatency (2)
// cycles later, responses never appear without a request, a port that keeps requesting waits
// at most NumRd-1 cycles (round-robin per bank), ports on different banks never wait, and the
// DPI back door of each bank (used by the weft_top tests) reaches the same lines.
#include <gtest/gtest.h>

#include <array>
#include <cstdint>
#include <deque>
#include <random>
#include <string>
#include <vector>

#include WEFT_MODEL_HEADER
#include "weft/tb/bits.hpp"
#include "weft/tb/harness.hpp"
#include "weft/tb/sram_backdoor.hpp"

namespace {

using Model = WEFT_MODEL;
using weft::tb::get_bits;
using weft::tb::set_bits;

constexpr int kDataW = WEFT_DATAW;
constexpr int kLines = WEFT_LINES;
constexpr int kBanks = WEFT_BANKS;
constexpr int kNumRd = WEFT_NUMRD;
constexpr int kWords = kDataW / 64;
constexpr int kBankLines = kLines / kBanks;
constexpr int kLatency = 2;  // weft_pkg::SpadReadLatency

int line_aw() {
  int w = 0;
  while ((1 << w) < kLines) ++w;
  return w;
}

using Line = std::array<uint64_t, kWords>;

class WEFT_SUITE : public ::testing::Test {
 protected:
  void SetUp() override {
    auto& d = h.dut();
    d.wr_valid_i = 0;
    d.rd_req_valid_i = 0;
    h.reset();
  }

  Line random_line() {
    Line l;
    for (auto& w : l) w = rng();
    return l;
  }

  void set_write(bool valid, uint32_t addr, const Line& l) {
    auto& d = h.dut();
    d.wr_valid_i = valid;
    d.wr_addr_i = addr;
    for (int i = 0; i < kWords; ++i) set_bits(d.wr_data_i, 64 * i, 64, l[i]);
  }

  Line rsp_data(int port) {
    Line l;
    for (int i = 0; i < kWords; ++i) l[i] = get_bits(h.dut().rd_rsp_data_o, port * kDataW + 64 * i, 64);
    return l;
  }

  // Fills every line through the write port (and the model).
  void fill() {
    mem.resize(kLines);
    for (int a = 0; a < kLines; ++a) {
      mem[a] = random_line();
      set_write(true, a, mem[a]);
      h.tick();
    }
    set_write(false, 0, Line{});
  }

  struct Pending {
    uint64_t due;
    Line data;
    uint32_t addr;
  };

  // Random traffic: each port requests with probability p_req a random line (biased towards
  // `hot_bank` with probability p_hot), holding the request until it is accepted; a random
  // write per cycle (never to a line read in the same cycle). Checks responses and wait times.
  void run_random(int cycles, double p_req, double p_hot, double p_write) {
    const int aw = line_aw();
    std::uniform_real_distribution<double> u(0, 1);
    std::uniform_int_distribution<uint32_t> any_line(0, kLines - 1);
    std::uniform_int_distribution<uint32_t> in_bank(0, kBankLines - 1);
    std::vector<bool> req(kNumRd, false);
    std::vector<uint32_t> addr(kNumRd, 0);
    std::vector<int> waited(kNumRd, 0);
    std::vector<std::deque<Pending>> pend(kNumRd);
    uint64_t accepted = 0, responses = 0;
    auto& d = h.dut();
    for (int c = 0; c < cycles; ++c) {
      const uint64_t now = h.cycle();
      for (int i = 0; i < kNumRd; ++i) {
        if (!req[i] && u(rng) < p_req) {
          req[i] = true;
          addr[i] = u(rng) < p_hot ? hot_bank * kBankLines + in_bank(rng) : any_line(rng);
          waited[i] = 0;
        }
      }
      uint32_t valid = 0, addrs = 0;
      for (int i = 0; i < kNumRd; ++i) {
        if (req[i]) valid |= 1u << i;
        addrs |= addr[i] << (i * aw);
      }
      d.rd_req_valid_i = valid;
      set_bits(d.rd_req_addr_i, 0, kNumRd * aw, addrs);
      bool wr = u(rng) < p_write;
      uint32_t wa = any_line(rng);
      for (int i = 0; i < kNumRd; ++i) {
        if (req[i] && addr[i] == wa) wr = false;
      }
      const Line wl = random_line();
      set_write(wr, wa, wl);
      h.eval();
      // sample
      for (int i = 0; i < kNumRd; ++i) {
        const bool rv = (d.rd_rsp_valid_o >> i) & 1;
        if (!pend[i].empty() && pend[i].front().due == now) {
          ASSERT_TRUE(rv) << "port " << i << " missing response at cycle " << now;
          ASSERT_EQ(rsp_data(i), pend[i].front().data)
              << "port " << i << " line " << pend[i].front().addr << " at cycle " << now;
          pend[i].pop_front();
          ++responses;
        } else {
          ASSERT_FALSE(rv) << "port " << i << " response without request at cycle " << now;
        }
        const bool rdy = (d.rd_req_ready_o >> i) & 1;
        ASSERT_FALSE(rdy && !req[i]) << "port " << i << " ready without a request";
        if (req[i] && rdy) {
          pend[i].push_back({now + kLatency, mem[addr[i]], addr[i]});
          req[i] = false;
          ++accepted;
        } else if (req[i]) {
          ++waited[i];
          ASSERT_LT(waited[i], kNumRd) << "port " << i << " starved at cycle " << now;
        }
      }
      // Ports of distinct banks are all served in one cycle.
      uint32_t served = d.rd_req_ready_o;
      std::vector<bool> bank_req(kBanks, false), bank_served(kBanks, false);
      for (int i = 0; i < kNumRd; ++i) {
        if ((valid >> i) & 1) bank_req[addr[i] / kBankLines] = true;
        if ((served >> i) & 1) {
          ASSERT_FALSE(bank_served[addr[i] / kBankLines]) << "two ports served by one bank";
          bank_served[addr[i] / kBankLines] = true;
        }
      }
      for (int b = 0; b < kBanks; ++b) ASSERT_EQ(bank_req[b], bank_served[b]) << "bank " << b << " idle";
      h.tick();
      if (wr) mem[wa] = wl;
    }
    d.rd_req_valid_i = 0;
    set_write(false, 0, Line{});
    for (int c = 0; c < kLatency + 1; ++c) {
      h.eval();
      for (int i = 0; i < kNumRd; ++i) {
        if (!pend[i].empty() && pend[i].front().due == h.cycle()) {
          ASSERT_TRUE((d.rd_rsp_valid_o >> i) & 1);
          ASSERT_EQ(rsp_data(i), pend[i].front().data);
          pend[i].pop_front();
          ++responses;
        }
      }
      h.tick();
    }
    EXPECT_EQ(accepted, responses);
    EXPECT_GT(accepted, static_cast<uint64_t>(cycles) / 4);
  }

  weft::tb::Harness<Model> h;
  std::mt19937_64 rng = weft::tb::make_rng();
  std::vector<Line> mem;
  int hot_bank = 0;
};

TEST_F(WEFT_SUITE, RandomConcurrentReadsMatchMemoryModel) {
  fill();
  run_random(20000, 0.7, 0.0, 0.5);
}

TEST_F(WEFT_SUITE, ConflictingReadsAreServedRoundRobin) {
  fill();
  hot_bank = kBanks - 1;
  run_random(20000, 0.9, 0.8, 0.3);
}

TEST_F(WEFT_SUITE, EveryPortOnOneBankGetsItsShareInRotation) {
  fill();
  auto& d = h.dut();
  const int aw = line_aw();
  // All ports request line i of bank 0 continuously: each is served once every NumRd cycles,
  // in port order after the first grant.
  uint32_t addrs = 0;
  for (int i = 0; i < kNumRd; ++i) addrs |= static_cast<uint32_t>(i) << (i * aw);
  set_bits(d.rd_req_addr_i, 0, kNumRd * aw, addrs);
  d.rd_req_valid_i = (1u << kNumRd) - 1;
  std::vector<int> order;
  for (int c = 0; c < 4 * kNumRd; ++c) {
    h.eval();
    const uint32_t r = d.rd_req_ready_o;
    ASSERT_EQ(__builtin_popcount(r), 1);
    order.push_back(__builtin_ctz(r));
    h.tick();
  }
  for (size_t c = 1; c < order.size(); ++c) EXPECT_EQ(order[c], (order[c - 1] + 1) % kNumRd);
}

TEST_F(WEFT_SUITE, BackdoorReachesEveryBank) {
  std::vector<weft::tb::SramBackdoor> bd;
  for (int b = 0; b < kBanks; ++b) {
    bd.emplace_back(h.ctx(), "top.weft_spad.g_bank[" + std::to_string(b) + "].u_sram");
    ASSERT_EQ(bd.back().depth(), static_cast<uint32_t>(kBankLines));
    ASSERT_EQ(bd.back().width(), static_cast<uint32_t>(kDataW));
  }
  mem.resize(kLines);
  for (int a = 0; a < kLines; ++a) {
    mem[a] = random_line();
    std::vector<uint32_t> chunks(kDataW / 32);
    for (int i = 0; i < kDataW / 32; ++i) chunks[i] = static_cast<uint32_t>(mem[a][i / 2] >> (32 * (i % 2)));
    bd[a / kBankLines].write(a % kBankLines, chunks);
  }
  run_random(5000, 0.8, 0.0, 0.0);
  // Lines written through the front door read back through the back door.
  const Line l = random_line();
  set_write(true, kLines - 1, l);
  h.tick();
  set_write(false, 0, Line{});
  const auto got = bd[kBanks - 1].read(kBankLines - 1);
  for (int i = 0; i < kDataW / 32; ++i) EXPECT_EQ(got[i], static_cast<uint32_t>(l[i / 2] >> (32 * (i % 2))));
}

}  // namespace
