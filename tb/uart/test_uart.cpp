// uart:// against the Verilated weft_board behind a pty (weft::sim::BoardSim): the board's
// capabilities and link counters, GEMMs bit-exact against weft::golden while the pty pump drops,
// duplicates and flips bytes in each direction and in both, and a board that stops answering.
// Built into test_system_uart together with the driver suite (tb/system/test_system.cpp).
#include <gtest/gtest.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

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

// ------------------------------------------------------------------------------------ reopen
// A board keeps its state between processes: the next Device::open must start from a known
// state whatever the last session left -- a clean close, a queue stopped on an error.
TEST(UartBoard, EachOpenStartsFromAKnownState) {
  auto board = weft::tb::board::start_board(weft::tb::test_seed());
  auto rng = weft::tb::make_rng();
  for (int session = 0; session < 3; ++session) {
    SCOPED_TRACE("session " + std::to_string(session));
    weft::Device dev = weft::Device::open(board->uri());
    auto& q = dev.queue();
    EXPECT_EQ(q.completed(), 0u);
    EXPECT_FALSE(q.error().has_value());
    gemm_matches_golden(dev, rng, 9, 10, 20);
    if (session == 1) {
      // Leave the queue stopped on an error, as a process that gives up would.
      const uint64_t i = q.submit(weft::Descriptor::raw(0x7f));
      EXPECT_THROW(q.wait(i), weft::Error);
      ASSERT_TRUE(q.error().has_value());
    }
  }
  EXPECT_EQ(board->error(), "");
}

// A process killed with descriptors in flight and in the ring: the next open drops what had not
// started, waits for what had, and the board computes correctly again.
TEST(UartBoard, OpenAfterAProcessKilledMidQueue) {
  auto board = weft::tb::board::start_board(weft::tb::test_seed());
  const std::string uri = board->uri();
  int pipefd[2];
  ASSERT_EQ(pipe(pipefd), 0);
  const pid_t child = fork();
  ASSERT_GE(child, 0);
  if (child == 0) {
    // The doomed process: only its own pty fd and the pipe; never returns into GoogleTest.
    close(pipefd[0]);
    uint64_t report[2] = {0, 0};
    try {
      weft::Device dev = weft::Device::open(uri);
      auto& q = dev.queue();
      weft::ComputeArgs c;  // 400 k-tiles of 100 rows: about 40 000 array cycles each
      c.m = 100;
      c.k = 8 * 400;
      c.w_tile_stride = 8;
      c.a_tile_stride = 10;
      c.a_row_stride = 1;
      c.w_row_stride = 1;
      c.w_addr = 1200;
      std::vector<weft::Descriptor> work(12, weft::Descriptor::compute(c));
      report[0] = q.submit(work) + 1;
      report[1] = q.completed();
    } catch (...) {
    }
    if (write(pipefd[1], report, sizeof report) != sizeof report) _exit(2);
    pause();
    _exit(0);
  }
  close(pipefd[1]);
  uint64_t report[2] = {0, 0};
  const ssize_t got = read(pipefd[0], report, sizeof report);
  kill(child, SIGKILL);
  int status = 0;
  waitpid(child, &status, 0);
  close(pipefd[0]);
  ASSERT_EQ(got, static_cast<ssize_t>(sizeof report));
  ASSERT_EQ(report[0], 12u) << "the killed process did not submit its work";
  ASSERT_LT(report[1], report[0]) << "nothing was in flight when the process was killed";
  EXPECT_TRUE(WIFSIGNALED(status) && WTERMSIG(status) == SIGKILL);
  weft::tb::verbose_printf("[killed] %llu of %llu descriptors completed before the kill\n",
              (unsigned long long)report[1], (unsigned long long)report[0]);

  weft::Device dev = weft::Device::open(uri);
  EXPECT_EQ(dev.queue().completed(), 0u);
  EXPECT_FALSE(dev.queue().error().has_value());
  auto rng = weft::tb::make_rng();
  gemm_matches_golden(dev, rng, 16, 12, 24);
  EXPECT_EQ(board->error(), "");
}

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
