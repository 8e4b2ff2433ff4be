// uart:// against the Verilated weft_board behind a pty (weft::sim::BoardSim): the board's
// capabilities and link counters, GEMMs bit-exact against weft::golden while the pty pump drops,
// duplicates and flips bytes in each direction and in both, and a board that stops answering.
// Built into test_system_uart together with the driver suite (tb/system/test_system.cpp).
#include <gtest/gtest.h>

#include <chrono>
#include <cstdio>
#include <map>
#include <ostream>
#include <random>
#include <string>
#include <vector>

#include "weft/golden/quant.hpp"
#include "weft/regs.hpp"
#include "weft/tb/board_fixture.hpp"
#include "weft/tb/link_fault_checks.hpp"
#include "weft/tb/options.hpp"
#include "weft/weft.hpp"

namespace {

using weft::Errc;

using weft::tb::board::link_stats;

// A random INT8 GEMM with INT32 output, compared element by element with weft::golden.
void gemm_matches_golden(weft::Device& dev, std::mt19937_64& rng, int m, int n, int k) {
  std::vector<uint8_t> a(size_t(m) * k), w(size_t(k) * n);
  for (auto& b : a) b = static_cast<uint8_t>(rng());
  for (auto& b : w) b = static_cast<uint8_t>(rng());
  weft::GemmOptions opt;
  opt.a = {true, 3};
  opt.w = {false, 128};
  std::vector<int32_t> c(size_t(m) * n);
  weft::gemm(dev, m, n, k, a, w, c, opt);
  std::vector<int32_t> av(a.size()), wv(w.size());
  for (size_t i = 0; i < a.size(); ++i) av[i] = int8_t(a[i]);
  for (size_t i = 0; i < w.size(); ++i) wv[i] = w[i];
  EXPECT_EQ(c, weft::golden::gemm(av, wv, m, k, n, {true, 3}, {false, 128}));
}

TEST(UartBoard, CapabilitiesAreTheBoards) {
  auto board =
      weft::tb::board::start_board(weft::tb::test_seed(), weft::tb::wave_file_if_tracing());
  weft::Device dev = weft::Device::open(board->uri());
  const auto& c = dev.caps();
  EXPECT_EQ(c.rows, 8u);
  EXPECT_EQ(c.cols, 8u);
  EXPECT_EQ(dev.arena_base(), 0x80000000u);
  EXPECT_EQ(dev.arena_size(), 65536u);
  EXPECT_NE(dev.description().find(board->pty_path()), std::string::npos) << dev.description();
  auto rng = weft::tb::make_rng();
  gemm_matches_golden(dev, rng, 9, 10, 20);
  auto s = link_stats(dev);
  EXPECT_GT(s["frames"], 10u);
  EXPECT_GT(s["br_frames"], 10u);
  EXPECT_EQ(s["retries"], 0u);
  EXPECT_EQ(s["br_crc_err"] + s["br_frame_err"] + s["br_dups"], 0u);
  EXPECT_EQ(board->error(), "");
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

class UartFaults : public ::testing::TestWithParam<FaultCase> {};

TEST_P(UartFaults, GemmIsExactAndWritesRunOnce) {
  const FaultCase& fc = GetParam();
  auto board =
      weft::tb::board::start_board(weft::tb::test_seed(), weft::tb::wave_file_if_tracing());
  weft::Device dev = weft::Device::open(board->uri("&timeout_ms=" WEFT_FAULT_TIMEOUT_MS "&retries=40"));
  auto rng = weft::tb::make_rng();
  board->set_faults(fc.to, fc.from);
  const auto t0 = std::chrono::steady_clock::now();
  const uint64_t c0 = board->cycles();
  gemm_matches_golden(dev, rng, 16, 12, 24);
  const bool from_configured = fc.from.drop + fc.from.dup + fc.from.flip > 0;
  if (from_configured) {
    // Short WRITEs with their 5-byte responses damaged 8x as often: resent WRITEs must reach the
    // bridge's duplicate rule (a GEMM alone has few WRITE responses to hit).
    weft::sim::LinkFaultRates f = fc.from;
    f.drop *= 8, f.dup *= 8, f.flip *= 8;
    board->set_faults(fc.to, f);
    weft::Buffer buf = dev.alloc(256);
    std::vector<uint32_t> want(64, 0);
    buf.write(0, want.data(), 256);
    for (int i = 0; i < 48; ++i) {
      const uint32_t v = static_cast<uint32_t>(rng());
      want[i % 64] = v;
      buf.write(4 * (i % 64), &v, 4);
    }
    board->set_faults({}, {});
    EXPECT_EQ(buf.read<uint32_t>(64), want);
  }
  board->set_faults({}, {});
  weft::tb::verbose_printf(
      "[board] %llu cycles in %.1f s\n", (unsigned long long)(board->cycles() - c0),
      std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count());
  weft::tb::board::expect_faults_handled(dev, fc.to, fc.from, board->faults_to_board(),
                                         board->faults_from_board());
  EXPECT_EQ(board->error(), "");
}

INSTANTIATE_TEST_SUITE_P(
    Link, UartFaults,
    // Each kind of fault on its own is covered against the C++ bridge (test_uart_link,
    // UartLinkFaults); here the RTL bridge sees all kinds per direction, then both directions.
    ::testing::Values(FaultCase{"ToBoard", {0.0006, 0.0006, 0.0006}, {}},
                      FaultCase{"FromBoard", {}, {0.0015, 0.0015, 0.0015}},
                      FaultCase{"MixedBothWays", {0.0005, 0.0005, 0.0005}, {0.001, 0.001, 0.001}}),
    [](const auto& i) { return std::string(i.param.name); });

TEST(UartFaults, SilentBoardIsATimeoutNotAHang) {
  auto board =
      weft::tb::board::start_board(weft::tb::test_seed(), weft::tb::wave_file_if_tracing());
  weft::Device dev = weft::Device::open(board->uri("&timeout_ms=1000&retries=2"));
  board->set_faults({}, {1.0, 0, 0});  // the pump drops every byte from the board
  const auto t0 = std::chrono::steady_clock::now();
  try {
    std::vector<int32_t> c(64);
    weft::gemm(dev, 8, 8, 8, std::vector<uint8_t>(64, 1), std::vector<uint8_t>(64, 1), c, {});
    ADD_FAILURE() << "the GEMM finished without answers from the board";
  } catch (const weft::Error& e) {
    EXPECT_EQ(e.code(), Errc::kTimeout) << e.what();
    const std::string m = e.what();
    EXPECT_NE(m.find("0x"), std::string::npos) << m;
    EXPECT_NE(m.find("cable"), std::string::npos) << m;
    EXPECT_NE(m.find("programmed"), std::string::npos) << m;
  }
  const double s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  EXPECT_LT(s, 10.0);  // 3 attempts of 1 s
}

}  // namespace
