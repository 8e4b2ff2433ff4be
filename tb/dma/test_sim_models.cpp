// Unit tests of the C++ bus and memory models (sim/models): HostMemory and AxiMem, driven by a
// hand-written fake AXI4 master (a plain struct with the m_axi_* members a Verilated model has),
// against hand-worked cycle numbers and byte values.
#include <gtest/gtest.h>
#include <verilated.h>

#include <vector>

#include "weft/sim/axi_mem.hpp"
#include "weft/sim/host_memory.hpp"

namespace {

using weft::sim::AxiMem;
using weft::sim::AxiMemOptions;
using weft::sim::AxiResp;
using weft::sim::HostMemory;
using weft::tb::get_bits;
using weft::tb::set_bits;

// The master side of a 128-bit AXI4 port, typed as Verilator types them.
struct FakeMaster {
  CData m_axi_awvalid = 0, m_axi_awready = 0, m_axi_awid = 0, m_axi_awlen = 0, m_axi_awsize = 4,
        m_axi_awburst = 1;
  QData m_axi_awaddr = 0;
  CData m_axi_wvalid = 0, m_axi_wready = 0, m_axi_wlast = 0;
  VlWide<4> m_axi_wdata{};
  SData m_axi_wstrb = 0;
  CData m_axi_bvalid = 0, m_axi_bready = 1, m_axi_bid = 0, m_axi_bresp = 0;
  CData m_axi_arvalid = 0, m_axi_arready = 0, m_axi_arid = 0, m_axi_arlen = 0, m_axi_arsize = 4,
        m_axi_arburst = 1;
  QData m_axi_araddr = 0;
  CData m_axi_rvalid = 0, m_axi_rready = 1, m_axi_rid = 0, m_axi_rresp = 0, m_axi_rlast = 0;
  VlWide<4> m_axi_rdata{};
};

std::vector<uint8_t> rdata(const FakeMaster& m) {
  std::vector<uint8_t> v(16);
  for (int i = 0; i < 16; ++i) v[i] = static_cast<uint8_t>(get_bits(m.m_axi_rdata, 8 * i, 8));
  return v;
}

TEST(HostMemory, SparsePagesRoundTripAcrossPageBoundaries) {
  HostMemory m;
  EXPECT_EQ(m.read8(0x1234), 0);
  std::vector<uint8_t> b(10000);
  for (size_t i = 0; i < b.size(); ++i) b[i] = static_cast<uint8_t>(i * 7 + 3);
  m.write(0xfff'fff0, b);  // spans four pages
  EXPECT_EQ(m.read(0xfff'fff0, b.size()), b);
  EXPECT_EQ(m.pages(), 4u);
  EXPECT_EQ(m.read8(0xfff'ffef), 0);
  m.store<uint32_t>(0x40, 0x11223344);
  EXPECT_EQ(m.read8(0x40), 0x44);
  EXPECT_EQ(m.read8(0x43), 0x11);
  EXPECT_EQ(m.load<uint16_t>(0x41), 0x2233);
  m.fill(0x5000 - 2, 4, 0xab);
  EXPECT_EQ(m.read(0x5000 - 3, 6), (std::vector<uint8_t>{0, 0xab, 0xab, 0xab, 0xab, 0}));
}

TEST(HostMemory, LogsAndObservesWritesAndClipsAtTopOfAddressSpace) {
  HostMemory m;
  m.write(0x10, std::vector<uint8_t>{1, 2});  // before the log: not recorded
  std::vector<std::pair<uint64_t, uint64_t>> seen;
  const int id = m.on_write([&](uint64_t a, uint64_t n) { seen.emplace_back(a, n); });
  m.start_log();
  m.write(0x100, std::vector<uint8_t>{1, 2, 3});
  m.fill(0xffff'ffff'ffff'fffeULL, 8, 0x5a);  // clipped to the last two bytes
  ASSERT_EQ(m.log().size(), 2u);
  EXPECT_EQ(m.log()[0].addr, 0x100u);
  EXPECT_EQ(m.log()[0].len, 3u);
  EXPECT_EQ(m.log()[1].addr, 0xffff'ffff'ffff'fffeULL);
  EXPECT_EQ(m.log()[1].len, 2u);
  EXPECT_EQ(m.read8(0xffff'ffff'ffff'ffffULL), 0x5a);
  EXPECT_EQ(seen.size(), 2u);
  m.remove_observer(id);
  m.write(0x200, std::vector<uint8_t>{9});
  EXPECT_EQ(seen.size(), 2u);
  EXPECT_EQ(m.log().size(), 3u);
}

TEST(AxiMem, ReadBurstArrivesAfterLatencyInOrder) {
  HostMemory mem;
  std::vector<uint8_t> src(64);
  for (int i = 0; i < 64; ++i) src[i] = static_cast<uint8_t>(200 - i);
  mem.write(0x1000, src);
  FakeMaster m;
  AxiMemOptions o;
  o.read_latency = 5;
  AxiMem<FakeMaster> ax(m, mem, 16, o);
  std::vector<uint64_t> beat_cycles;
  std::vector<uint8_t> got;
  int lasts = 0;
  for (int c = 0; c < 20; ++c) {
    ax.drive();
    m.m_axi_arvalid = c == 0;  // AR accepted in cycle 0 (ARREADY high without stalls)
    m.m_axi_araddr = 0x1000;
    m.m_axi_arlen = 3;
    m.m_axi_arid = 2;
    if (m.m_axi_rvalid) {
      beat_cycles.push_back(ax.cycle());
      auto d = rdata(m);
      got.insert(got.end(), d.begin(), d.end());
      lasts += m.m_axi_rlast;
      EXPECT_EQ(m.m_axi_rid, 2);
      EXPECT_EQ(m.m_axi_rresp, 0);
    }
    ax.sample();
  }
  // first beat in cycle 0 + 1 + 5, then one per cycle
  EXPECT_EQ(beat_cycles, (std::vector<uint64_t>{6, 7, 8, 9}));
  EXPECT_EQ(got, src);
  EXPECT_EQ(lasts, 1);
  EXPECT_EQ(ax.stats().r_beats, 4u);
  EXPECT_EQ(ax.stats().first_r_cycle, 6u);
  EXPECT_TRUE(ax.violations().empty());
  EXPECT_TRUE(ax.idle());
}

TEST(AxiMem, WriteBeforeAddressHonoursStrobesAndAnswersAfterLatency) {
  HostMemory mem;
  mem.fill(0x2000, 64, 0x11);
  FakeMaster m;
  AxiMemOptions o;
  o.write_latency = 3;
  AxiMem<FakeMaster> ax(m, mem, 16, o);
  uint64_t b_cycle = 0;
  for (int c = 0; c < 12; ++c) {
    ax.drive();
    // W beats in cycles 0 and 1, AW only in cycle 2
    m.m_axi_wvalid = c < 2;
    for (int i = 0; i < 16; ++i) set_bits(m.m_axi_wdata, 8 * i, 8, static_cast<uint64_t>(0xa0 + 16 * c + i));
    m.m_axi_wstrb = c == 0 ? 0xffff : 0x0007;  // second beat: three bytes
    m.m_axi_wlast = c == 1;
    m.m_axi_awvalid = c == 2;
    m.m_axi_awaddr = 0x2010;
    m.m_axi_awlen = 1;
    m.m_axi_awid = 1;
    if (m.m_axi_bvalid) {
      b_cycle = ax.cycle();
      EXPECT_EQ(m.m_axi_bid, 1);
      EXPECT_EQ(m.m_axi_bresp, 0);
    }
    ax.sample();
  }
  EXPECT_EQ(b_cycle, 2u + 1 + 3);  // after the later of last W (1) and AW (2)
  EXPECT_EQ(mem.read8(0x200f), 0x11);
  EXPECT_EQ(mem.read8(0x2010), 0xa0);
  EXPECT_EQ(mem.read8(0x201f), 0xaf);
  EXPECT_EQ(mem.read8(0x2020), 0xb0);
  EXPECT_EQ(mem.read8(0x2022), 0xb2);
  EXPECT_EQ(mem.read8(0x2023), 0x11);
  EXPECT_EQ(ax.stats().w_bytes, 19u);
  EXPECT_TRUE(ax.violations().empty()) << ax.violations().front();
}

TEST(AxiMem, RecordsProtocolViolations) {
  HostMemory mem;
  FakeMaster m;
  AxiMemOptions o;
  o.ar_stall = 1.0;  // never ready: the AR is stalled
  AxiMem<FakeMaster> ax(m, mem, 16, o);
  // AR offered then withdrawn while stalled
  ax.drive();
  m.m_axi_arvalid = 1;
  ax.sample();
  ax.drive();
  m.m_axi_arvalid = 0;
  ax.sample();
  EXPECT_EQ(ax.violations().size(), 1u);
  // AW across 4 KiB, unaligned, too wide; then a burst with WLAST one beat early
  ax.options().ar_stall = 0;
  auto aw = [&](uint64_t addr, int len, int size) {
    ax.drive();
    m.m_axi_awvalid = 1;
    m.m_axi_awaddr = addr;
    m.m_axi_awlen = static_cast<CData>(len - 1);
    m.m_axi_awsize = static_cast<CData>(size);
    ax.sample();
    m.m_axi_awvalid = 0;
  };
  aw(0x1fe0, 4, 4);
  EXPECT_EQ(ax.violations().size(), 2u);
  aw(0x3008, 1, 4);
  EXPECT_EQ(ax.violations().size(), 3u);
  aw(0x4000, 1, 5);
  EXPECT_EQ(ax.violations().size(), 4u);
  aw(0x5000, 3, 4);
  for (int beat = 0; beat < 4 + 1 + 1 + 3; ++beat) {  // beats of all four bursts
    ax.drive();
    m.m_axi_wvalid = 1;
    m.m_axi_wstrb = 0xffff;
    // right for the first three bursts (4, 1, 1 beats); one beat early in the last (3 beats):
    // WLAST on its beat 2 and none on its beat 3, two violations
    m.m_axi_wlast = beat == 3 || beat == 4 || beat == 5 || beat == 7;
    ax.sample();
  }
  // (plus one for the full strobes of the unaligned single beat at 0x3008)
  ASSERT_EQ(ax.violations().size(), 7u);
  EXPECT_NE(ax.violations()[4].find("strobe"), std::string::npos) << ax.violations()[4];
  EXPECT_NE(ax.violations()[5].find("WLAST 1 on beat 2"), std::string::npos) << ax.violations()[5];
  EXPECT_NE(ax.violations()[6].find("WLAST 0 on beat 3"), std::string::npos) << ax.violations()[6];
}

TEST(AxiMem, InjectsSlverrOnReadsAndDecerrOnWrites) {
  HostMemory mem;
  mem.fill(0x3000, 64, 0x77);
  FakeMaster m;
  AxiMemOptions o;
  o.read_latency = 0;
  o.write_latency = 0;
  o.errors.push_back({0x3010, 0x3011, AxiResp::kSlvErr, true, false});
  o.errors.push_back({0x3020, 0x3030, AxiResp::kDecErr, false, true});
  AxiMem<FakeMaster> ax(m, mem, 16, o);
  std::vector<int> rresp;
  int bresp = -1;
  for (int c = 0; c < 10; ++c) {
    ax.drive();
    m.m_axi_arvalid = c == 0;
    m.m_axi_araddr = 0x3000;
    m.m_axi_arlen = 2;
    m.m_axi_awvalid = c == 0;
    m.m_axi_awaddr = 0x3010;
    m.m_axi_awlen = 1;
    m.m_axi_wvalid = c < 2;
    m.m_axi_wstrb = 0xffff;
    m.m_axi_wlast = c == 1;
    for (int i = 0; i < 16; ++i) set_bits(m.m_axi_wdata, 8 * i, 8, 0x99);
    if (m.m_axi_rvalid) {
      rresp.push_back(m.m_axi_rresp);
      if (m.m_axi_rresp) {
        EXPECT_EQ(rdata(m), std::vector<uint8_t>(16, 0xe5));
      }
    }
    if (m.m_axi_bvalid) bresp = m.m_axi_bresp;
    ax.sample();
  }
  EXPECT_EQ(rresp, (std::vector<int>{0, 2, 0}));
  EXPECT_EQ(bresp, 3);
  EXPECT_EQ(mem.read8(0x3010), 0x99);  // first beat outside the write error range: written
  EXPECT_EQ(mem.read8(0x3020), 0x77);  // second beat inside it: not written
  EXPECT_EQ(ax.stats().r_errors, 1u);
  EXPECT_EQ(ax.stats().b_errors, 1u);
}

}  // namespace
