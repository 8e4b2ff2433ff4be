// weft-board-sim: a simulated weft_board (the Verilated RTL) behind a pseudo-terminal, so that
// the driver and the `weft` tool talk to it exactly as to a board on /dev/ttyUSB0:
//
//   $ weft-board-sim &                       # prints: uart:///dev/pts/5?baud=1000000
//   $ weft info --device 'uart:///dev/pts/5?timeout_ms=2000'
//
// Options: fault injection per direction (--drop-rx/--dup-rx/--flip-rx for bytes to the board,
// --drop-tx/--dup-tx/--flip-tx for bytes from it), --seed, --trace FILE.fst, --seconds N (stop
// after N s; default: until SIGINT/SIGTERM). On exit it prints the faults it injected.
#include <csignal>
#include <cstdio>
#include <string>
#include <thread>

#include <CLI/CLI.hpp>

#include "Vvl_weft_board.h"
#include "weft/sim/board_sim.hpp"

namespace {
volatile std::sig_atomic_t g_stop = 0;
void on_signal(int) { g_stop = 1; }
}  // namespace

int main(int argc, char** argv) {
  CLI::App app{"weft-board-sim: the Verilated weft_board behind a pty (uart://)"};
  weft::sim::BoardSimConfig cfg;
  cfg.clks_per_bit = WEFT_BOARD_CLKS_PER_BIT;
  weft::sim::LinkFaultRates rx, tx;
  double seconds = 0;
  app.add_option("--seed", cfg.seed, "seed of the fault injection and the initial state");
  app.add_option("--trace", cfg.fst_path, "write an FST trace of the board to this file");
  app.add_option("--seconds", seconds, "stop after this many seconds (default: run until killed)");
  app.add_option("--drop-rx", rx.drop, "probability that a byte to the board is lost")
      ->check(CLI::Range(0.0, 1.0));
  app.add_option("--dup-rx", rx.dup, "probability that a byte to the board arrives twice")
      ->check(CLI::Range(0.0, 1.0));
  app.add_option("--flip-rx", rx.flip, "probability that a byte to the board has a bit flipped")
      ->check(CLI::Range(0.0, 1.0));
  app.add_option("--drop-tx", tx.drop, "probability that a byte from the board is lost")
      ->check(CLI::Range(0.0, 1.0));
  app.add_option("--dup-tx", tx.dup, "probability that a byte from the board arrives twice")
      ->check(CLI::Range(0.0, 1.0));
  app.add_option("--flip-tx", tx.flip, "probability that a byte from the board has a bit flipped")
      ->check(CLI::Range(0.0, 1.0));
  CLI11_PARSE(app, argc, argv);

  std::signal(SIGINT, on_signal);
  std::signal(SIGTERM, on_signal);
  try {
    weft::sim::BoardSim<Vvl_weft_board> sim(cfg);
    sim.set_faults(rx, tx);
    std::printf("%s\n", sim.uri().c_str());
    std::fflush(stdout);
    std::fprintf(stderr,
                 "weft-board-sim: weft_board (ClksPerBit %u) on %s; a simulated bit is slow, so "
                 "add e.g. &timeout_ms=2000 to the URI. Ctrl-C stops.\n",
                 cfg.clks_per_bit, sim.pty_path().c_str());
    const auto t0 = std::chrono::steady_clock::now();
    while (!g_stop && sim.error().empty()) {
      std::this_thread::sleep_for(std::chrono::milliseconds(50));
      if (seconds > 0 &&
          std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count() >= seconds)
        break;
    }
    const std::string err = sim.error();
    const auto a = sim.faults_to_board(), b = sim.faults_from_board();
    const uint64_t cycles = sim.cycles();
    sim.stop();
    std::fprintf(stderr,
                 "weft-board-sim: %llu cycles; to the board %llu bytes (%llu dropped, %llu "
                 "duplicated, %llu flipped); from the board %llu bytes (%llu dropped, %llu "
                 "duplicated, %llu flipped)\n",
                 (unsigned long long)cycles, (unsigned long long)a.bytes,
                 (unsigned long long)a.dropped, (unsigned long long)a.duplicated,
                 (unsigned long long)a.flipped, (unsigned long long)b.bytes,
                 (unsigned long long)b.dropped, (unsigned long long)b.duplicated,
                 (unsigned long long)b.flipped);
    if (!err.empty()) {
      std::fprintf(stderr, "weft-board-sim: the simulation stopped: %s\n", err.c_str());
      return 1;
    }
  } catch (const std::exception& e) {
    std::fprintf(stderr, "weft-board-sim: %s\n", e.what());
    return 1;
  }
  return 0;
}
