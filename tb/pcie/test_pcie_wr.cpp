// Block test of weft_pcie_wr alone (AXI4 write bursts -> MWr TLPs) with strobe patterns the DMA
// never makes: random, holes, single bytes, empty beats. Built with MaxPayload=64 so bursts of up
// to 256 B split by size too. Checks, independent of the RTL: every TLP obeys the PCIe rules
// (Length <= MaxPayload, no 4 KiB crossing, First/Last DW BE rules, middle DWs fully enabled,
// unused DWs zero, 3-DW header below 4 GiB), host memory rebuilt from the TLPs equals the strobed
// bytes of the bursts with every byte written exactly once, B comes once per burst with its ID and
// only after all of the burst's bytes have gone out as TLP beats.
#include <gtest/gtest.h>

#include <array>
#include <cstdint>
#include <cstdio>
#include <deque>
#include <map>
#include <random>
#include <vector>

#include "Vvl_pcie_wr.h"
#include "weft/tb/harness.hpp"

namespace {

constexpr unsigned kMaxPayload = 64;
constexpr uint16_t kEpId = 0x0100;

struct Burst {
  uint64_t addr;
  unsigned beats;
  unsigned id;
  std::vector<std::array<uint8_t, 16>> data;
  std::vector<uint16_t> strb;
  unsigned strobed = 0;  // bytes
};

bool up(uint8_t be) { return be == 0x8 || be == 0xc || be == 0xe || be == 0xf; }
bool lo(uint8_t be) { return be == 0x1 || be == 0x3 || be == 0x7 || be == 0xf; }

class PcieWr : public ::testing::Test {
 protected:
  std::mt19937_64 rng = weft::tb::make_rng();
  bool coin(double p) { return std::uniform_real_distribution<double>(0, 1)(rng) < p; }
  unsigned uni(unsigned a, unsigned b) { return std::uniform_int_distribution<unsigned>(a, b)(rng); }

  uint16_t random_strobe(int style) {
    switch (style) {
      case 0: return 0xffff;
      case 1: return static_cast<uint16_t>(rng());
      case 2: {  // a contiguous run
        const unsigned a = uni(0, 15), b = uni(a, 15);
        return static_cast<uint16_t>(((1u << (b + 1)) - 1) & ~((1u << a) - 1));
      }
      case 3: return coin(0.5) ? 0 : static_cast<uint16_t>(1u << uni(0, 15));
      default: return coin(0.8) ? 0xffff : static_cast<uint16_t>(rng());
    }
  }

  void run(int nbursts, double bp) {
    weft::tb::Harness<Vvl_pcie_wr> h;
    auto& d = h.dut();
    d.awvalid_i = 0;
    d.wvalid_i = 0;
    d.bready_i = 0;
    d.tx_ready_i = 0;
    h.reset();

    std::vector<Burst> bursts;
    std::map<uint64_t, uint8_t> want;  // last strobed value of every byte
    for (int i = 0; i < nbursts; ++i) {
      Burst b;
      b.beats = uni(1, 16);
      const uint64_t page = (coin(0.3) ? 0x1'2345'0000ull : 0x4000'0000ull) + 0x1000ull * uni(0, 3);
      b.addr = page + 16ull * uni(0, 256 - b.beats);  // never crosses 4 KiB
      b.id = uni(0, 15);
      const int style = static_cast<int>(uni(0, 4));
      for (unsigned k = 0; k < b.beats; ++k) {
        std::array<uint8_t, 16> beat;
        for (auto& x : beat) x = static_cast<uint8_t>(rng());
        const uint16_t s = random_strobe(style);
        b.data.push_back(beat);
        b.strb.push_back(s);
        for (unsigned j = 0; j < 16; ++j)
          if ((s >> j) & 1) {
            want[b.addr + 16 * k + j] = beat[j];
            ++b.strobed;
          }
      }
      bursts.push_back(std::move(b));
    }

    std::map<uint64_t, uint8_t> got;
    std::map<uint64_t, int> writes;
    size_t aw_i = 0, w_i = 0, w_beat = 0;
    bool aw_on = false, w_on = false;
    std::deque<size_t> b_expect;  // bursts whose AW went out, in order
    size_t b_count = 0;
    uint64_t bytes_out = 0;       // strobed bytes seen in completed TLPs
    uint64_t bytes_before = 0;    // strobed bytes of bursts before the one B answers
    // TLP being received
    std::vector<std::array<uint32_t, 4>> tlp;
    unsigned tlps = 0;

    auto finish_tlp = [&] {
      const auto& hd = tlp[0];
      const unsigned fmt = hd[0] >> 29, type = (hd[0] >> 24) & 0x1f;
      ASSERT_TRUE((fmt == 2 || fmt == 3) && type == 0) << std::hex << hd[0];
      const unsigned len = (hd[0] & 0x3ff) ? (hd[0] & 0x3ff) : 1024;
      ASSERT_LE(len * 4, kMaxPayload);
      ASSERT_EQ(hd[1] >> 16, kEpId);
      const uint8_t fbe = hd[1] & 0xf, lbe = (hd[1] >> 4) & 0xf;
      const uint64_t addr = fmt == 3 ? ((uint64_t{hd[2]} << 32) | (hd[3] & ~3u)) : (hd[2] & ~3u);
      if (fmt == 3) ASSERT_GE(addr, 1ull << 32); else ASSERT_EQ(hd[3], 0u);
      ASSERT_EQ(addr >> 12, (addr + 4 * len - 1) >> 12) << "crosses 4 KiB";
      ASSERT_EQ(tlp.size(), 1 + (len + 3) / 4) << "eop vs Length";
      ASSERT_NE(fbe, 0);
      if (len == 1) {
        ASSERT_EQ(lbe, 0);
      } else {
        ASSERT_TRUE(up(fbe)) << std::hex << int(fbe);
        ASSERT_TRUE(lo(lbe)) << std::hex << int(lbe);
      }
      for (unsigned j = 0; j < len; ++j) {
        const uint32_t v = tlp[1 + j / 4][j % 4];
        const uint8_t be = j == 0 ? fbe : (j + 1 == len ? lbe : 0xf);
        for (unsigned b = 0; b < 4; ++b)
          if ((be >> b) & 1) {
            got[addr + 4 * j + b] = static_cast<uint8_t>(v >> (8 * b));
            ++writes[addr + 4 * j + b];
            ++bytes_out;
          }
      }
      for (unsigned j = len; j < 4 * (tlp.size() - 1); ++j) ASSERT_EQ(tlp[1 + j / 4][j % 4], 0u);
      ++tlps;
    };

    for (uint64_t cyc = 0; cyc < 200000 && b_count < bursts.size(); ++cyc) {
      // drive
      if (!aw_on && aw_i < bursts.size() && coin(0.7)) aw_on = true;
      if (!w_on && w_i < aw_i && coin(0.8)) w_on = true;
      d.awvalid_i = aw_on;
      if (aw_on) {
        d.awaddr_i = bursts[aw_i].addr;
        d.awlen_i = bursts[aw_i].beats - 1;
        d.awid_i = bursts[aw_i].id;
      }
      d.wvalid_i = w_on;
      if (w_on) {
        const auto& b = bursts[w_i];
        for (int q = 0; q < 4; ++q) {
          uint32_t v = 0;
          for (int k = 0; k < 4; ++k) v |= uint32_t{b.data[w_beat][4 * q + k]} << (8 * k);
          d.wdata_i[q] = v;
        }
        d.wstrb_i = b.strb[w_beat];
        d.wlast_i = w_beat + 1 == b.beats;
      }
      const bool bready = coin(0.8);
      const bool tready = !coin(bp);
      d.bready_i = bready;
      d.tx_ready_i = tready;
      h.eval();
      // sample
      if (aw_on && d.awready_o) {
        b_expect.push_back(aw_i);
        ++aw_i;
        aw_on = false;
      }
      if (w_on && d.wready_o) {
        if (++w_beat == bursts[w_i].beats) {
          w_beat = 0;
          ++w_i;
        }
        w_on = false;
      }
      if (tready && d.tx_valid_o) {
        std::array<uint32_t, 4> beat;
        for (int q = 0; q < 4; ++q) beat[q] = d.tx_data_o[q];
        if (d.tx_sop_o) {
          ASSERT_TRUE(tlp.empty()) << "sop inside a TLP";
          tlp.clear();
        } else {
          ASSERT_FALSE(tlp.empty()) << "beat without sop";
        }
        tlp.push_back(beat);
        if (d.tx_eop_o) {
          finish_tlp();
          if (HasFatalFailure()) return;
          tlp.clear();
        }
      }
      if (bready && d.bvalid_o) {
        ASSERT_FALSE(b_expect.empty()) << "B without a burst";
        const size_t k = b_expect.front();
        b_expect.pop_front();
        ASSERT_EQ(d.bid_o, bursts[k].id) << "burst " << k;
        bytes_before += bursts[k].strobed;
        ASSERT_GE(bytes_out, bytes_before) << "B of burst " << k << " before its last TLP";
        ++b_count;
      }
      h.tick();
    }
    ASSERT_EQ(b_count, bursts.size()) << "not every burst answered";
    ASSERT_EQ(got.size(), want.size());
    for (const auto& [a, v] : want) {
      ASSERT_EQ(got.count(a), 1u) << std::hex << a;
      ASSERT_EQ(got[a], v) << std::hex << a;
    }
    weft::tb::verbose_printf("[wr] %d bursts, %u TLPs, %llu bytes, %llu cycles\n", nbursts, tlps,
                             static_cast<unsigned long long>(bytes_out),
                             static_cast<unsigned long long>(h.cycle()));
    // Each strobed byte once per burst that strobes it (bursts may overlap: count, not just value).
    uint64_t total = 0;
    for (const auto& b : bursts) total += b.strobed;
    ASSERT_EQ(bytes_out, total);
  }
};

TEST_F(PcieWr, RandomStrobesBecomeLegalMwrs) { run(300, 0.0); }
TEST_F(PcieWr, RandomStrobesWithBackPressure) { run(300, 0.4); }

TEST_F(PcieWr, FullBurstsStreamAtOneBeatPerCycle) {
  // 16-beat bursts with all strobes, no back-pressure: 16 data beats cost at most 16 + 4 headers
  // (four 64-B MWr each) + 1 cycles in steady state.
  weft::tb::Harness<Vvl_pcie_wr> h;
  auto& d = h.dut();
  d.awvalid_i = 0;
  d.wvalid_i = 0;
  d.bready_i = 1;
  d.tx_ready_i = 1;
  h.reset();
  const unsigned n = 32;
  unsigned aw = 0, w = 0, beat = 0, bs = 0;
  uint64_t first_tx = 0, last_tx = 0, tx_beats = 0;
  for (uint64_t cyc = 0; cyc < 5000 && bs < n; ++cyc) {
    d.awvalid_i = aw < n;
    d.awaddr_i = 0x8000'0000ull + 256ull * aw;
    d.awlen_i = 15;
    d.awid_i = 1;
    d.wvalid_i = w < aw || (w < n && w == aw && false);
    for (int q = 0; q < 4; ++q) d.wdata_i[q] = 0x01010101u * (beat + q);
    d.wstrb_i = 0xffff;
    d.wlast_i = beat == 15;
    h.eval();
    if (d.awvalid_i && d.awready_o) ++aw;
    if (d.wvalid_i && d.wready_o && ++beat == 16) {
      beat = 0;
      ++w;
    }
    if (d.tx_valid_o) {
      if (tx_beats == 0) first_tx = cyc;
      last_tx = cyc;
      ++tx_beats;
    }
    if (d.bvalid_o) ++bs;
    h.tick();
  }
  ASSERT_EQ(bs, n);
  EXPECT_EQ(tx_beats, n * (16 + 4));
  const uint64_t span = last_tx - first_tx + 1;
  weft::tb::verbose_printf("[wr] %u full bursts: %llu tx beats in %llu cycles\n", n,
                           static_cast<unsigned long long>(tx_beats),
                           static_cast<unsigned long long>(span));
  EXPECT_LE(span, uint64_t{n} * 21);
}

}  // namespace
