// weft_sram_1rw (512 x 32, through tb_common_sram_1rw): front door against a C++ memory model,
// DPI back door in both directions.
#include <gtest/gtest.h>

#include <cstdint>
#include <optional>
#include <random>
#include <vector>

#include "Vvl_sram_1rw.h"
#include "weft/tb/harness.hpp"
#include "weft/tb/sram_backdoor.hpp"

namespace {

constexpr uint32_t kDepth = 512;
constexpr char kScope[] = "top.tb_common_sram_1rw.u_sram";

using H = weft::tb::Harness<Vvl_sram_1rw>;

// Reference: a word array with byte-enable writes, and the registered read data.
struct MemModel {
  std::vector<uint32_t> mem = std::vector<uint32_t>(kDepth, 0);
  std::optional<uint32_t> rdata;  // unknown until the first read

  void cycle(bool req, bool we, uint32_t addr, uint32_t wdata, uint32_t be) {
    if (!req) return;
    if (we) {
      uint32_t mask = 0;
      for (int b = 0; b < 4; ++b) {
        if ((be >> b) & 1) mask |= 0xffu << (8 * b);
      }
      mem[addr] = (mem[addr] & ~mask) | (wdata & mask);
    } else {
      rdata = mem[addr];
    }
  }
};

void drive(H& h, bool req, bool we, uint32_t addr, uint32_t wdata, uint32_t be) {
  h.dut().req_i = req;
  h.dut().we_i = we;
  h.dut().addr_i = addr;
  h.dut().wdata_i = wdata;
  h.dut().be_i = be;
  h.tick();
}

void idle(H& h) { drive(h, false, false, 0, 0, 0); }

// The harness randomises every variable at construction, top-level inputs included.
struct Sram : H {
  Sram() {
    dut().req_i = 0;
    dut().we_i = 0;
    dut().addr_i = 0;
    dut().wdata_i = 0;
    dut().be_i = 0;
    eval();
  }
};

uint32_t front_read(H& h, uint32_t addr) {
  drive(h, true, false, addr, 0, 0);
  return h.dut().rdata_o;
}

TEST(Sram1rw, BackdoorReportsGeometry) {
  Sram h;
  weft::tb::SramBackdoor bd(h.ctx(), kScope);
  EXPECT_EQ(bd.depth(), kDepth);
  EXPECT_EQ(bd.width(), 32u);
  EXPECT_EQ(bd.chunks(), 1u);
}

TEST(Sram1rw, BackdoorLoadIsReadByFrontDoor) {
  Sram h;
  auto rng = weft::tb::make_rng();
  weft::tb::SramBackdoor bd(h.ctx(), kScope);
  std::vector<uint32_t> ref(kDepth);
  for (uint32_t a = 0; a < kDepth; ++a) {
    ref[a] = static_cast<uint32_t>(rng());
    bd.write(a, {ref[a]});
  }
  for (uint32_t a = 0; a < kDepth; ++a) {
    ASSERT_EQ(front_read(h, a), ref[a]) << "address " << a;
  }
}

TEST(Sram1rw, FrontDoorByteEnableWritesAreSeenByBackdoor) {
  Sram h;
  auto rng = weft::tb::make_rng();
  weft::tb::SramBackdoor bd(h.ctx(), kScope);
  MemModel m;
  for (uint32_t a = 0; a < kDepth; ++a) {
    m.mem[a] = static_cast<uint32_t>(rng());
    bd.write(a, {m.mem[a]});
  }
  for (int i = 0; i < 4000; ++i) {
    const uint32_t addr = rng() % kDepth, data = static_cast<uint32_t>(rng()), be = rng() % 16;
    m.cycle(true, true, addr, data, be);
    drive(h, true, true, addr, data, be);
  }
  for (uint32_t a = 0; a < kDepth; ++a) {
    ASSERT_EQ(bd.read(a), std::vector<uint32_t>{m.mem[a]}) << "address " << a;
  }
}

TEST(Sram1rw, ReadDataHoldsWhenIdleAndDuringWrites) {
  Sram h;
  weft::tb::SramBackdoor bd(h.ctx(), kScope);
  bd.write(7, {0x01234567});
  bd.write(8, {0x89abcdef});
  ASSERT_EQ(front_read(h, 7), 0x01234567u);
  for (int i = 0; i < 5; ++i) {
    idle(h);
    EXPECT_EQ(h.dut().rdata_o, 0x01234567u) << "idle cycle " << i;
  }
  drive(h, true, true, 7, 0xffffffff, 0xf);  // a write, even to the word just read
  EXPECT_EQ(h.dut().rdata_o, 0x01234567u);
  drive(h, false, false, 8, 0, 0);  // address without request
  EXPECT_EQ(h.dut().rdata_o, 0x01234567u);
  EXPECT_EQ(front_read(h, 8), 0x89abcdefu);
  EXPECT_EQ(front_read(h, 7), 0xffffffffu);
}

TEST(Sram1rw, MatchesMemoryModelUnderRandomByteEnableTraffic) {
  Sram h;
  auto rng = weft::tb::make_rng();
  weft::tb::SramBackdoor bd(h.ctx(), kScope);
  MemModel m;
  for (uint32_t a = 0; a < kDepth; ++a) {
    m.mem[a] = static_cast<uint32_t>(rng());
    bd.write(a, {m.mem[a]});
  }
  // Phases with different request and write densities; a small address window in some phases
  // makes write-then-read of one word frequent.
  struct Phase { double req, we; uint32_t window; };
  const Phase phases[] = {{1.0, 0.5, kDepth}, {0.5, 0.3, kDepth}, {1.0, 0.5, 4},
                          {0.9, 0.9, 16},     {0.2, 0.5, kDepth}, {1.0, 0.1, 8}};
  std::uniform_real_distribution<double> u(0, 1);
  uint64_t checks = 0;
  for (const Phase& p : phases) {
    for (int i = 0; i < 25000; ++i) {
      const bool req = u(rng) < p.req, we = u(rng) < p.we;
      const uint32_t addr = rng() % p.window, data = static_cast<uint32_t>(rng()), be = rng() % 16;
      m.cycle(req, we, addr, data, be);
      drive(h, req, we, addr, data, be);
      if (m.rdata) {
        ASSERT_EQ(h.dut().rdata_o, *m.rdata) << "cycle " << h.cycle();
        ++checks;
      }
    }
  }
  EXPECT_GT(checks, 100000u);
  for (uint32_t a = 0; a < kDepth; ++a) {
    ASSERT_EQ(bd.read(a)[0], m.mem[a]) << "final contents, address " << a;
  }
}

TEST(Sram1rw, BackdoorRejectsUnknownScopeAndBadArguments) {
  Sram h;
  EXPECT_THROW(weft::tb::SramBackdoor(h.ctx(), "top.tb_common_sram_1rw.u_nope"),
               std::invalid_argument);
  EXPECT_THROW(weft::tb::SramBackdoor(h.ctx(), "TOP.tb_common_sram_1rw.u_sram"),
               std::invalid_argument);
  weft::tb::SramBackdoor bd(h.ctx(), kScope);
  EXPECT_THROW(bd.write(kDepth, {0}), std::out_of_range);
  EXPECT_THROW(bd.read(kDepth), std::out_of_range);
  EXPECT_THROW(bd.write(0, {1, 2}), std::invalid_argument);
  EXPECT_THROW(bd.write(0, {}), std::invalid_argument);
}

}  // namespace
