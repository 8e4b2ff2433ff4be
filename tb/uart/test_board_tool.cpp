// The `weft` tool against `weft-board-sim` (the Verilated weft_board behind a pty), run as a user
// runs them: separate processes, one after the other, on one board that keeps its state. A
// second run must work, and so must a run after one that was killed mid-queue.
#include <gtest/gtest.h>

#include <chrono>
#include <string>
#include <thread>

#include "weft/tb/options.hpp"
#include "weft/tb/process.hpp"

namespace {

using weft::tb::Process;
using weft::tb::run_process;

TEST(BoardSimTool, SecondRunAndRunAfterAKilledOneAreBitExact) {
  Process board({WEFT_BOARD_SIM_PATH, "--seconds", "900", "--seed",
                 std::to_string(weft::tb::test_seed() % 1000000)});
  const auto uri = board.first_line(60);
  ASSERT_TRUE(uri.has_value()) << "weft-board-sim printed no URI: " << board.err();
  const std::string device = *uri + "&timeout_ms=3000&ring=16";
  const auto gemm_check = [&](const char* what) {
    SCOPED_TRACE(what);
    const auto r = run_process(
        {WEFT_TOOL_PATH, "gemm", "16", "16", "16", "--check", "-q", "--device", device}, 600);
    EXPECT_EQ(r.exit_code, 0) << r.describe();
    EXPECT_NE(r.out.find("bit-exact"), std::string::npos) << r.describe();
  };
  gemm_check("first run");
  gemm_check("second run");
  {
    // A run killed in the middle: this GEMM moves about 28 KB over the simulated link, tens of
    // seconds, and is killed after 5 (its stdout is a pipe, so it prints nothing before it ends).
    Process doomed({WEFT_TOOL_PATH, "gemm", "64", "64", "192", "-q", "--device", device});
    std::this_thread::sleep_for(std::chrono::seconds(5));
    doomed.signal(SIGKILL);
    const auto r = doomed.wait(30);
    EXPECT_EQ(r.signal, SIGKILL) << "the run ended before it could be killed: " << r.describe();
  }
  gemm_check("run after a killed one");
}

}  // namespace
