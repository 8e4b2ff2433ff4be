// Unit tests of weft::sim::PcieRc (the root-complex model) against a scripted endpoint (the test plays the device side of the link):
// completion splitting (Byte Count, Lower Address, RCB-aligned chunks) for odd addresses and
// lengths, fault kinds, link bandwidth and latency accounting, ordering under jitter, BAR0
// accesses, MSI, and the TLP checks. Expectations are worked out here byte by byte from the
// PCIe rules, independently of the model's arithmetic.
#include <gtest/gtest.h>

#include <array>
#include <cstdint>
#include <deque>
#include <random>
#include <set>
#include <vector>

#include "weft/sim/host_memory.hpp"
#include "weft/sim/pcie_rc.hpp"
#include "weft/tb/options.hpp"

namespace {

using weft::sim::PcieFault;
using weft::sim::PcieRc;
using weft::sim::PcieRcOptions;
using weft::sim::Tlp;
namespace tlp = weft::sim::tlp;

// The members PcieRc drives and reads.
struct Pins {
  uint8_t rx_valid = 0, rx_ready = 0, rx_sop = 0, rx_eop = 0;
  std::array<uint32_t, 4> rx_data{};
  uint8_t tx_valid = 0, tx_ready = 0, tx_sop = 0, tx_eop = 0;
  std::array<uint32_t, 4> tx_data{};
};

// A minimal endpoint: sends queued TLPs beat by beat on tx, collects what arrives on rx.
struct ScriptedEndpoint {
  Pins pins;
  std::deque<std::array<uint32_t, 4>> tx_beats;
  std::deque<std::pair<bool, bool>> tx_marks;  // sop, eop per beat
  std::vector<Tlp> received;
  std::vector<uint64_t> received_cycle;
  Tlp cur;
  size_t cur_left = 0;
  uint64_t cycle = 0;
  double rx_stall = 0;
  std::mt19937_64 rng{5};

  void send(const Tlp& t) {
    const auto b = weft::sim::tlp_beats(t);
    for (size_t i = 0; i < b.size(); ++i) {
      tx_beats.push_back(b[i]);
      tx_marks.push_back({i == 0, i + 1 == b.size()});
    }
  }
  void drive() {
    pins.tx_valid = !tx_beats.empty();
    if (pins.tx_valid) {
      pins.tx_data = tx_beats.front();
      pins.tx_sop = tx_marks.front().first;
      pins.tx_eop = tx_marks.front().second;
    } else {
      pins.tx_data = {};
      pins.tx_sop = pins.tx_eop = 0;
    }
    pins.rx_ready = rx_stall == 0 || std::uniform_real_distribution<double>(0, 1)(rng) >= rx_stall;
  }
  void sample() {
    if (pins.tx_valid && pins.tx_ready) {
      tx_beats.pop_front();
      tx_marks.pop_front();
    }
    if (pins.rx_valid && pins.rx_ready) {
      if (pins.rx_sop) {
        cur = Tlp{};
        cur.hdr = pins.rx_data;
        cur_left = cur.has_data() ? cur.length_dw() : 0;
      } else {
        for (int i = 0; i < 4 && cur_left > 0; ++i, --cur_left) cur.payload.push_back(pins.rx_data[i]);
      }
      if (pins.rx_eop) {
        received.push_back(cur);
        received_cycle.push_back(cycle);
      }
    }
    ++cycle;
  }
};

struct Bench {
  explicit Bench(PcieRcOptions o = {}) : rc(ep.pins, mem, o) {}
  void tick() {
    ep.drive();
    rc.drive();
    rc.sample();
    ep.sample();
  }
  void run(uint64_t n) {
    for (uint64_t i = 0; i < n; ++i) tick();
  }
  // Runs until the endpoint sent everything and the model is idle.
  uint64_t run_idle(uint64_t limit = 200000) {
    uint64_t i = 0;
    for (; i < limit && (!ep.tx_beats.empty() || !rc.idle()); ++i) tick();
    return i;
  }
  ScriptedEndpoint ep;
  weft::sim::HostMemory mem;
  PcieRc<Pins> rc;
};

Tlp device_mrd(uint64_t addr, unsigned bytes, uint8_t tag) {
  // DW range and byte enables of [addr, addr + bytes).
  const uint64_t dw0 = addr & ~uint64_t{3};
  const uint64_t end = addr + bytes;
  const unsigned len = static_cast<unsigned>((end - dw0 + 3) / 4);
  uint8_t fbe = static_cast<uint8_t>((0xf << (addr & 3)) & 0xf);
  uint8_t lbe = static_cast<uint8_t>(0xf >> ((4 - (end & 3)) & 3));
  if (len == 1) {
    fbe = static_cast<uint8_t>(fbe & lbe);
    lbe = 0;
  }
  return weft::sim::tlp_mem(false, addr, len, fbe, lbe, 0x0100, tag);
}

void fill_pattern(weft::sim::HostMemory& m, uint64_t base, uint64_t n) {
  for (uint64_t i = 0; i < n; ++i) {
    const uint8_t v = static_cast<uint8_t>((base + i) * 37 + 11);
    m.write(base + i, &v, 1);
  }
}

// Expected completions of a read of [addr, addr + bytes), worked out byte by byte: completion k
// starts at the k-th boundary (multiples of cpl) after addr; its Byte Count is the number of
// requested bytes from its first byte on, its Lower Address that byte's address bits 6:0.
struct ExpCpl {
  uint64_t first;
  unsigned byte_count;
  unsigned bytes_here;
};
std::vector<ExpCpl> expected_cpls(uint64_t addr, unsigned bytes, unsigned cpl) {
  std::vector<ExpCpl> v;
  for (uint64_t a = addr; a < addr + bytes; ++a) {
    if (a == addr || a % cpl == 0) v.push_back({a, static_cast<unsigned>(addr + bytes - a), 0});
    ++v.back().bytes_here;
  }
  return v;
}

TEST(PcieRc, CompletionsSplitAtCplBoundaryWithByteCountAndLowerAddress) {
  std::mt19937_64 rng = weft::tb::make_rng();
  for (unsigned cpl : {64u, 128u, 256u}) {
    PcieRcOptions o;
    o.cpl = cpl;
    o.latency = 5;
    o.mem_latency = 3;
    Bench b(o);
    const uint64_t base = 0x12340000;
    fill_pattern(b.mem, base, 0x3000);
    std::vector<std::pair<uint64_t, unsigned>> cases = {
        {base + 0, 4}, {base + 1, 1}, {base + 3, 2}, {base + 2, 7},      {base + 0x3d, 6},
        {base + 0x3f, 66}, {base + 1, 511}, {base + 0, 512}, {base + 0xe05, 500}, {base + 0xf80, 128}};
    for (int i = 0; i < 20; ++i) {
      const unsigned n = std::uniform_int_distribution<unsigned>(1, 509)(rng);
      uint64_t a = base + std::uniform_int_distribution<unsigned>(0, 0x1000 - 512)(rng);
      cases.push_back({a, n});
    }
    for (const auto& [addr, n] : cases) {
      SCOPED_TRACE("cpl " + std::to_string(cpl) + " addr " + std::to_string(addr) + " bytes " +
                   std::to_string(n));
      b.ep.received.clear();
      b.ep.send(device_mrd(addr, n, 7));
      b.run_idle();
      const auto exp = expected_cpls(addr, n, cpl);
      ASSERT_EQ(b.ep.received.size(), exp.size());
      for (size_t k = 0; k < exp.size(); ++k) {
        const Tlp& c = b.ep.received[k];
        EXPECT_TRUE(c.is_cpl() && c.has_data());
        EXPECT_EQ(c.status(), tlp::kStatusSc);
        EXPECT_EQ(c.tag(), 7);
        EXPECT_EQ(c.requester(), 0x0100);
        EXPECT_FALSE(c.poisoned());
        EXPECT_EQ(c.byte_count(), exp[k].byte_count) << "completion " << k;
        EXPECT_EQ(c.lower_addr(), exp[k].first & 0x7f) << "completion " << k;
        // Payload: DW-aligned from the first byte, covering this completion's bytes.
        const uint64_t dw0 = exp[k].first & ~uint64_t{3};
        const uint64_t dwend = (exp[k].first + exp[k].bytes_here + 3) & ~uint64_t{3};
        ASSERT_EQ(c.payload.size(), (dwend - dw0) / 4) << "completion " << k;
        for (uint64_t x = exp[k].first; x < exp[k].first + exp[k].bytes_here; ++x) {
          const uint64_t j = (x - dw0) / 4;
          const uint8_t got = static_cast<uint8_t>(c.payload[j] >> (8 * ((x - dw0) % 4)));
          ASSERT_EQ(got, static_cast<uint8_t>(x * 37 + 11)) << "byte at " << x;
        }
      }
    }
    EXPECT_TRUE(b.rc.violations().empty()) << b.rc.violations().front();
  }
}

TEST(PcieRc, FaultKindsAnswerAsSpecified) {
  for (PcieFault f : {PcieFault::kDrop, PcieFault::kUr, PcieFault::kCa, PcieFault::kPoison}) {
    SCOPED_TRACE(weft::sim::pcie_fault_name(f));
    Bench b;
    fill_pattern(b.mem, 0x1000, 0x1000);
    b.rc.add_fault(f, 0x1100, 0x1101);
    b.ep.send(device_mrd(0x1000, 256, 1));  // does not touch the range
    b.ep.send(device_mrd(0x10c0, 256, 2));  // touches it (0x1100)
    b.run_idle();
    std::vector<Tlp> t1, t2;
    for (const auto& t : b.ep.received) (t.tag() == 1 ? t1 : t2).push_back(t);
    EXPECT_EQ(t1.size(), 4u);
    for (const auto& t : t1) EXPECT_FALSE(t.poisoned());
    EXPECT_EQ(b.rc.stats().faults, 1u);
    EXPECT_EQ(b.rc.stats().faults_by_kind[static_cast<size_t>(f)], 1u);
    switch (f) {
      case PcieFault::kDrop:
        EXPECT_TRUE(t2.empty());
        break;
      case PcieFault::kUr:
      case PcieFault::kCa:
        ASSERT_EQ(t2.size(), 1u);
        EXPECT_FALSE(t2[0].has_data());
        EXPECT_EQ(t2[0].status(), f == PcieFault::kUr ? tlp::kStatusUr : tlp::kStatusCa);
        EXPECT_EQ(t2[0].byte_count(), 256u);
        break;
      default:
        ASSERT_EQ(t2.size(), 4u);
        for (const auto& t : t2) EXPECT_TRUE(t.poisoned() && t.has_data());
    }
    b.rc.clear_faults();
    b.ep.received.clear();
    b.ep.send(device_mrd(0x10c0, 256, 2));
    b.run_idle();
    EXPECT_EQ(b.ep.received.size(), 4u);
    EXPECT_TRUE(b.rc.violations().empty()) << b.rc.violations().front();
  }
}

TEST(PcieRc, RandomFaultsHitAboutTheRate) {
  Bench b;
  b.rc.set_random_faults(PcieFault::kNone, 0.25);
  for (int i = 0; i < 400; ++i) b.ep.send(device_mrd(0x2000 + 64 * (i % 32), 64, i % 32));
  // (Tags cycle through 0..31 back to back; the tag checks are not the point here.)
  b.run_idle(2000000);
  const auto& s = b.rc.stats();
  EXPECT_GT(s.faults, 60u);
  EXPECT_LT(s.faults, 140u);
  for (size_t k = 1; k <= 4; ++k) EXPECT_GT(s.faults_by_kind[k], 0u) << k;
}

// A stream of 256 B writes at full rate: the model must throttle tx to the link rate.
TEST(PcieRc, WriteStreamRunsAtLinkRateWithFramingOverhead) {
  PcieRcOptions o;  // Gen3 x4, 250 MHz
  Bench b(o);
  const double peak = 4 * 8e9 * 128.0 / 130.0 / 8.0 / 250e6;
  EXPECT_NEAR(b.rc.peak_bytes_per_cycle(), peak, 1e-9);
  const int n = 200;
  for (int i = 0; i < n; ++i) {
    std::vector<uint32_t> p(64, static_cast<uint32_t>(i));
    b.ep.send(weft::sim::tlp_mem(true, 0x100000 + 256 * i, 64, 0xf, 0xf, 0x0100, 0, p));
  }
  uint64_t cycles = 0;
  while (!b.ep.tx_beats.empty()) {
    b.tick();
    ++cycles;
  }
  // Wire bytes: 256 payload + 12 header + 12 framing per TLP.
  const double wire = n * (256.0 + 12 + 12);
  EXPECT_EQ(b.rc.stats().wire_bytes_rx, static_cast<uint64_t>(wire));
  EXPECT_EQ(b.rc.stats().payload_bytes_rx, 256u * n);
  EXPECT_NEAR(static_cast<double>(cycles), wire / peak, wire / peak * 0.02 + 4);
  b.run_idle();
  EXPECT_EQ(b.rc.stats().mwr, static_cast<uint64_t>(n));
  for (int i = 0; i < n; i += 37) {
    uint32_t v = 0;
    b.mem.read(0x100000 + 256 * i + 128, &v, 4);
    EXPECT_EQ(v, static_cast<uint32_t>(i));
  }
}

// Read latency: one 64 B read of an idle link = request on the wire + latency + memory latency
// + completion on the wire + latency.
TEST(PcieRc, ReadRoundTripIsLatencyPlusSerialisation) {
  PcieRcOptions o;
  o.latency = 100;
  o.mem_latency = 32;
  Bench b(o);
  b.ep.send(device_mrd(0x4000, 64, 3));
  b.run_idle();
  ASSERT_EQ(b.ep.received.size(), 1u);
  const double bpc = b.rc.peak_bytes_per_cycle();
  // MRd beat accepted in cycle 0 (sample), its 24 wire bytes end at 24/bpc; the completion is
  // generated when the request has arrived + 32, serialised (12+12+64 B) and 100 cycles later
  // handed over (one cycle on the stream).
  const double t_req = std::ceil(24 / bpc) + 100;
  const double t_cpl = std::ceil(t_req + 1 + 32 + 88 / bpc) + 100;
  EXPECT_NEAR(static_cast<double>(b.ep.received_cycle[0]), t_cpl, 3);
}

TEST(PcieRc, JitterReordersTagsButKeepsEachTagsCompletionsInOrder) {
  PcieRcOptions o;
  o.jitter = 200;
  o.seed = weft::tb::test_seed();
  Bench b(o);
  fill_pattern(b.mem, 0x8000, 0x2000);
  for (int t = 0; t < 16; ++t) b.ep.send(device_mrd(0x8000 + 512 * t, 512, static_cast<uint8_t>(t)));
  b.run_idle();
  ASSERT_EQ(b.ep.received.size(), 16u * 8);
  std::array<unsigned, 16> left;
  left.fill(512);
  bool reordered = false;
  int last_tag = -1;
  for (const auto& c : b.ep.received) {
    EXPECT_EQ(c.byte_count(), left[c.tag()]);  // in order within the tag
    left[c.tag()] -= 64;
    if (c.tag() < last_tag) reordered = true;
    last_tag = c.tag();
  }
  EXPECT_TRUE(reordered);
  // BAR0 writes keep their order whatever the jitter.
  b.ep.received.clear();
  for (uint32_t i = 0; i < 50; ++i) b.rc.bar0_write(0x100 + 4 * (i % 8), i);
  b.run_idle();
  ASSERT_EQ(b.ep.received.size(), 50u);
  for (uint32_t i = 0; i < 50; ++i) EXPECT_EQ(b.ep.received[i].payload.at(0), i);
  int writes = 0;
  while (auto r = b.rc.pop_bar0()) writes += r->write;
  EXPECT_EQ(writes, 50);
}

TEST(PcieRc, Bar0ReadReturnsTheEndpointsCompletion) {
  Bench b;
  const uint64_t id = b.rc.bar0_read(0x1010);
  // The endpoint answers once the MRd arrived.
  for (int i = 0; i < 2000 && b.ep.received.empty(); ++i) b.tick();
  ASSERT_EQ(b.ep.received.size(), 1u);
  const Tlp& r = b.ep.received[0];
  EXPECT_TRUE(r.is_mrd());
  EXPECT_EQ(r.addr(), 0xF0001010u);
  EXPECT_EQ(r.first_be(), 0xf);
  EXPECT_EQ(r.requester(), 0);
  b.ep.send(weft::sim::tlp_cpl(0x0100, tlp::kStatusSc, 4, 0, r.tag(), 0x10, {0xabcd1234}));
  std::optional<weft::sim::Bar0Result> res;
  for (int i = 0; i < 2000 && !res; ++i) {
    b.tick();
    res = b.rc.pop_bar0();
  }
  ASSERT_TRUE(res);
  EXPECT_EQ(res->id, id);
  EXPECT_EQ(res->data, 0xabcd1234u);
  EXPECT_EQ(res->status, tlp::kStatusSc);
  // A CA completion.
  b.ep.received.clear();
  b.rc.bar0_read(0x0ffc);
  for (int i = 0; i < 2000 && b.ep.received.empty(); ++i) b.tick();
  b.ep.send(weft::sim::tlp_cpl(0x0100, tlp::kStatusCa, 4, 0, b.ep.received[0].tag(), 0x7c));
  res.reset();
  for (int i = 0; i < 2000 && !res; ++i) {
    b.tick();
    res = b.rc.pop_bar0();
  }
  ASSERT_TRUE(res);
  EXPECT_EQ(res->status, tlp::kStatusCa);
  EXPECT_TRUE(b.rc.violations().empty()) << b.rc.violations().front();
}

TEST(PcieRc, MsiWritesAreCountedNotStored) {
  Bench b;
  b.ep.send(weft::sim::tlp_mem(true, 0xFEE00010, 1, 0xf, 0, 0x0100, 0, {0x55}));
  b.ep.send(weft::sim::tlp_mem(true, 0xFEE00010, 1, 0xf, 0, 0x0100, 0, {0x56}));
  b.ep.send(weft::sim::tlp_mem(true, 0x2000, 1, 0x6, 0, 0x0100, 0, {0x11223344}));
  b.mem.start_log();
  b.run_idle();
  EXPECT_EQ(b.rc.stats().msi, 2u);
  EXPECT_EQ(b.rc.stats().last_msi_addr, 0xFEE00010u);
  EXPECT_EQ(b.rc.stats().last_msi_data, 0x56u);
  ASSERT_EQ(b.mem.log().size(), 1u);  // only bytes 1..2 of the ordinary write
  EXPECT_EQ(b.mem.log()[0].addr, 0x2001u);
  EXPECT_EQ(b.mem.log()[0].len, 2u);
  EXPECT_EQ(b.mem.read8(0x2001), 0x33);
  EXPECT_EQ(b.mem.read8(0x2002), 0x22);
}

TEST(PcieRc, MalformedEndpointTlpsAreRecorded) {
  auto expect_violation = [](const Tlp& t, const char* what, bool truncate = false) {
    Bench b;
    if (truncate) {
      auto beats = weft::sim::tlp_beats(t);
      b.ep.tx_beats.push_back(beats[0]);
      b.ep.tx_marks.push_back({true, true});  // eop on the header of a TLP with payload
    } else {
      b.ep.send(t);
    }
    b.run_idle();
    ASSERT_FALSE(b.rc.violations().empty()) << what;
    EXPECT_NE(b.rc.violations().front().find(what), std::string::npos)
        << b.rc.violations().front();
  };
  std::vector<uint32_t> p64(64, 0), p4(4, 0);
  expect_violation(weft::sim::tlp_mem(true, 0x1f80, 64, 0xf, 0xf, 0x0100, 0, p64), "crosses 4 KiB");
  expect_violation(weft::sim::tlp_mem(false, 0x1000, 256, 0xf, 0xf, 0x0100, 0), "MaxReadReq");
  expect_violation(weft::sim::tlp_mem(true, 0x1000, 128, 0xf, 0xf, 0x0100, 0,
                                      std::vector<uint32_t>(128, 0)),
                   "MaxPayload");
  expect_violation(weft::sim::tlp_mem(true, 0x1000, 4, 0x5, 0xf, 0x0100, 0, p4), "non-contiguous");
  expect_violation(weft::sim::tlp_mem(false, 0x1000, 1, 0xf, 0x1, 0x0100, 0), "Last DW BE");
  expect_violation(weft::sim::tlp_mem(false, 0x1000, 1, 0xf, 0, 0x0200, 0), "requester ID");
  expect_violation(weft::sim::tlp_mem(false, 0x1000, 1, 0xf, 0, 0x0100, 40), "NumTags");
  expect_violation(weft::sim::tlp_mem(true, 0x1000, 4, 0xf, 0xf, 0x0100, 0, p4), "implies", true);
  {
    Bench b;  // a tag reused while its completion is outstanding
    b.ep.send(device_mrd(0x1000, 64, 9));
    b.ep.send(device_mrd(0x1040, 64, 9));
    b.run_idle();
    ASSERT_FALSE(b.rc.violations().empty());
    EXPECT_NE(b.rc.violations().front().find("reused"), std::string::npos);
  }
  {
    Bench b;  // a completion for a BAR0 read nobody made
    b.ep.send(weft::sim::tlp_cpl(0x0100, 0, 4, 0, 3, 0, {1}));
    b.run_idle();
    ASSERT_FALSE(b.rc.violations().empty());
    EXPECT_NE(b.rc.violations().front().find("matches no BAR0 read"), std::string::npos);
  }
}

}  // namespace
