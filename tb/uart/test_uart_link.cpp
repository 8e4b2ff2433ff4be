// The uart:// driver's link layer over a real pseudo-terminal (weft::sim::BoardSim) against
// FakeBoard, a C++ bridge written from docs/host-interfaces.md: data moves exactly (chunking,
// unaligned ends), faults in both directions are survived by retransmission, duplicates of
// executed WRITEs are absorbed by the seq rule, a silent board gives a timeout error (not a
// hang), and bad URIs or a foreign device give errors that say what to fix.
#include <gtest/gtest.h>

#include <chrono>
#include <cstdio>
#include <map>
#include <ostream>
#include <random>
#include <string>
#include <vector>

#include "fake_board.hpp"
#include "weft/regs.hpp"
#include "weft/sim/board_sim.hpp"
#include "weft/tb/link_fault_checks.hpp"
#include "weft/tb/options.hpp"
#include "weft/weft.hpp"

namespace {

using weft::Errc;
using weft::tb::board::FakeBoard;
using Sim = weft::sim::BoardSim<FakeBoard>;

using weft::tb::board::link_stats;

std::unique_ptr<Sim> start(uint64_t seed) {
  FakeBoard::id_value = weft::uart::kBrIdValue;
  weft::sim::BoardSimConfig cfg;
  cfg.clks_per_bit = FakeBoard::kClksPerBit;
  cfg.seed = seed;
  return std::make_unique<Sim>(cfg);
}

// Random writes (unaligned offsets and sizes, some over several 256-byte frames) and reads back.
void exercise(weft::Device& dev, std::mt19937_64& rng, int rounds) {
  const uint64_t base = dev.arena_base() + 8192;
  std::vector<uint8_t> shadow(16384);
  dev.host_write(base, shadow.data(), shadow.size());
  for (int i = 0; i < rounds; ++i) {
    const size_t off = rng() % 15000, n = 1 + rng() % std::min<size_t>(1300, shadow.size() - off);
    std::vector<uint8_t> data(n);
    for (auto& b : data) b = rng() % 4 == 0 ? 0x7E : static_cast<uint8_t>(rng());
    dev.host_write(base + off, data.data(), n);
    std::copy(data.begin(), data.end(), shadow.begin() + off);
    const size_t roff = rng() % 15000, rn = 1 + rng() % std::min<size_t>(1000, shadow.size() - roff);
    std::vector<uint8_t> got(rn);
    dev.host_read(base + roff, got.data(), rn);
    ASSERT_TRUE(std::equal(got.begin(), got.end(), shadow.begin() + roff))
        << "read of " << rn << " B at +" << roff << " differs";
    // Many short WRITEs (CSR stores): their 5-byte responses are what a damaged response
    // usually hits, so these exercise the bridge's duplicate rule.
    uint32_t regs[24];
    for (int r = 0; r < 24; ++r) dev.write_reg(0x100 + 4 * r, regs[r] = static_cast<uint32_t>(rng()));
    for (int r = 0; r < 24; r += 5) ASSERT_EQ(dev.read_reg(0x100 + 4 * r), regs[r]);
  }
  std::vector<uint8_t> all(shadow.size());
  dev.host_read(base, all.data(), all.size());
  ASSERT_EQ(all, shadow);
}

TEST(UartLink, OpensAndMovesDataExactly) {
  auto sim = start(weft::tb::test_seed());
  auto rng = weft::tb::make_rng();
  weft::Device dev = weft::Device::open(sim->uri());
  EXPECT_EQ(dev.arena_base(), weft::uart::kMemBase);
  EXPECT_EQ(dev.arena_size(), 65536u);
  EXPECT_NE(dev.description().find(sim->pty_path()), std::string::npos) << dev.description();
  exercise(dev, rng, 40);
  auto s = link_stats(dev);
  for (const char* k : {"frames", "retries", "timeouts", "bad_responses", "br_frames",
                        "br_crc_err", "br_frame_err", "br_dups"})
    EXPECT_TRUE(s.count(k)) << k;
  EXPECT_GT(s["frames"], 100u);
  EXPECT_EQ(s["retries"], 0u);
  EXPECT_EQ(s["br_crc_err"] + s["br_frame_err"], 0u);
}

struct FaultCase {
  const char* name;
  weft::sim::LinkFaultRates to, from;
};

// GoogleTest prints the parameter of a failing test with this (not as a hex dump of the struct).
void PrintTo(const FaultCase& fc, std::ostream* os) {
  *os << fc.name << " (to board: drop " << fc.to.drop << " dup " << fc.to.dup << " flip "
      << fc.to.flip << "; from board: drop " << fc.from.drop << " dup " << fc.from.dup << " flip "
      << fc.from.flip << ")";
}

class UartLinkFaults : public ::testing::TestWithParam<FaultCase> {};

TEST_P(UartLinkFaults, DataStaysExactAndWritesRunOnce) {
  const FaultCase& fc = GetParam();
  auto sim = start(weft::tb::test_seed());
  auto rng = weft::tb::make_rng();
  weft::Device dev = weft::Device::open(sim->uri() + "&timeout_ms=60&retries=30");
  const uint64_t repeats0 = FakeBoard::write_seq_repeats;
  sim->set_faults(fc.to, fc.from);
  exercise(dev, rng, 20);
  sim->set_faults({}, {});
  weft::tb::board::expect_faults_handled(dev, fc.to, fc.from, sim->faults_to_board(),
                                         sim->faults_from_board());
  EXPECT_EQ(FakeBoard::write_seq_repeats, repeats0);
}

INSTANTIATE_TEST_SUITE_P(
    Faults, UartLinkFaults,
    ::testing::Values(FaultCase{"DropToBoard", {0.001, 0, 0}, {}},
                      FaultCase{"DupToBoard", {0, 0.001, 0}, {}},
                      FaultCase{"FlipToBoard", {0, 0, 0.001}, {}},
                      FaultCase{"DropFromBoard", {}, {0.003, 0, 0}},
                      FaultCase{"DupFromBoard", {}, {0, 0.003, 0}},
                      FaultCase{"FlipFromBoard", {}, {0, 0, 0.003}},
                      FaultCase{"Mixed", {0.0005, 0.0005, 0.0005}, {0.001, 0.001, 0.001}}),
    [](const auto& i) { return std::string(i.param.name); });

TEST(UartLink, SilentBoardIsATimeoutNotAHang) {
  auto sim = start(weft::tb::test_seed());
  weft::Device dev = weft::Device::open(sim->uri() + "&timeout_ms=50&retries=3");
  sim->set_faults({}, {1.0, 0, 0});  // every byte from the board is lost
  const auto t0 = std::chrono::steady_clock::now();
  try {
    dev.read_reg(weft::regs::kStatus);
    ADD_FAILURE() << "read succeeded";
  } catch (const weft::Error& e) {
    EXPECT_EQ(e.code(), Errc::kTimeout) << e.what();
    const std::string m = e.what();
    EXPECT_NE(m.find("0x"), std::string::npos) << m;
    EXPECT_NE(m.find("cable"), std::string::npos) << m;
    EXPECT_NE(m.find("baud"), std::string::npos) << m;
  }
  const double s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  EXPECT_LT(s, 2.0);  // 4 attempts of 50 ms
}

TEST(UartLink, ForeignDeviceIsNamed) {
  weft::sim::BoardSimConfig cfg;
  cfg.clks_per_bit = FakeBoard::kClksPerBit;
  FakeBoard::id_value = 0x12345678;  // read by the board's constructor
  Sim sim(cfg);
  try {
    weft::Device::open(sim.uri());
    ADD_FAILURE() << "opened";
  } catch (const weft::Error& e) {
    EXPECT_EQ(e.code(), Errc::kNoDevice) << e.what();
    EXPECT_NE(std::string(e.what()).find("0x12345678"), std::string::npos) << e.what();
    EXPECT_NE(std::string(e.what()).find("Weft board"), std::string::npos) << e.what();
  }
  FakeBoard::id_value = weft::uart::kBrIdValue;
}

TEST(UartLink, BadUrisNameTheProblem) {
  auto sim = start(1);
  auto expect = [](const std::string& uri, Errc code, const char* needle) {
    SCOPED_TRACE(uri);
    try {
      weft::Device::open(uri);
      ADD_FAILURE() << uri << " opened";
    } catch (const weft::Error& e) {
      EXPECT_EQ(e.code(), code) << e.what();
      EXPECT_NE(std::string(e.what()).find(needle), std::string::npos) << e.what();
    }
  };
  expect("uart://", Errc::kBadUri, "needs the serial device");
  expect("uart://?baud=115200", Errc::kBadUri, "needs the serial device");
  expect("uart://" + sim->pty_path() + "?baud=123456", Errc::kBadUri, "not a standard rate");
  expect("uart://" + sim->pty_path() + "?baud=fast", Errc::kBadUri, "baud");
  expect("uart://" + sim->pty_path() + "?retries=-1", Errc::kBadUri, "retries");
  expect("uart://" + sim->pty_path() + "?colour=blue", Errc::kBadUri, "colour");
  expect("uart:///dev/ttyNoSuchWeftBoard", Errc::kNoDevice, "plugged in");
  expect("uart:///dev/null", Errc::kNoDevice, "not a serial device");
}

}  // namespace
