// weft/sim/board_sim.hpp: a simulated weft_board behind a pseudo-terminal (docs/host-interfaces.md
// 2.4). The driver opens the pty's slave side exactly like /dev/ttyUSB0 (uart://<pty>); a thread
// owns the master side and a Verilated board model (anything with clk_i, rst_ni, uart_rx_i,
// uart_tx_o and led_o: the RTL weft_board or a post-synthesis netlist of it), clocks the model
// forever and moves bytes pty -> UartPhy::send (the board's uart_rx_i) and UartPhy received
// (uart_tx_o) -> pty, with seeded fault injection per direction: each byte is dropped,
// duplicated or gets one bit flipped with the configured probabilities.
//
//   weft::sim::BoardSim<Vvl_weft_board> sim({.clks_per_bit = 8});
//   auto dev = weft::Device::open(sim.uri());            // "uart:///dev/pts/N?baud=1000000"
//   sim.set_faults({.drop = 0.01}, {});                   // to the board, from the board
//   sim.faults_to_board().dropped ...                     // faults actually injected
//
// The model lives entirely in the simulator thread (constructed, clocked and destroyed there).
// When the board has been quiet (no UART traffic, led_o[1] "device busy" low) for `idle_cycles`,
// the thread waits for pty input for up to 1 ms at a time instead of clocking: the board's state
// does not change while nothing happens, and the machine is not kept busy by an idle board.
#pragma once

#include <fcntl.h>
#include <poll.h>
#include <stdlib.h>
#include <termios.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <cstdint>
#include <cstring>
#include <filesystem>
#include <memory>
#include <mutex>
#include <random>
#include <stdexcept>
#include <string>
#include <thread>
#include <vector>

#include "verilated.h"
#include "verilated_fst_c.h"
#include "weft/sim/link_faults.hpp"
#include "weft/sim/uart_phy.hpp"

namespace weft::sim {

struct BoardSimConfig {
  unsigned clks_per_bit = 8;      // must equal the model's ClksPerBit parameter
  uint64_t seed = 1;              // fault injection and the model's random initial state
  unsigned baud = 1000000;        // only printed in uri(): a pty has no bit rate
  std::string fst_path;           // non-empty: write an FST trace of the board there
  uint64_t idle_cycles = 20000;   // quiet cycles before the thread may wait for input
  unsigned reset_cycles = 16;
};

template <class Model>
class BoardSim {
 public:
  explicit BoardSim(BoardSimConfig cfg = {}) : cfg_(std::move(cfg)), rng_(cfg_.seed) {
    open_pty();
    thread_ = std::thread([this] {
      try {
        thread_main(ready_);
      } catch (...) {
        std::lock_guard<std::mutex> lk(mu_);
        error_ = current_message();
        if (ready_.load() == 0) start_error_ = std::current_exception();
        ready_.store(2);
      }
    });
    while (ready_.load() == 0) std::this_thread::sleep_for(std::chrono::microseconds(100));
    if (start_error_) {
      thread_.join();
      close_fds();
      std::rethrow_exception(start_error_);
    }
  }

  BoardSim(const BoardSim&) = delete;
  BoardSim& operator=(const BoardSim&) = delete;

  ~BoardSim() { stop(); }

  // Stops the clock and closes the pty (the driver then sees no answers).
  void stop() {
    stop_.store(true);
    if (thread_.joinable()) thread_.join();
    close_fds();
  }

  const std::string& pty_path() const { return slave_path_; }
  std::string uri() const { return "uart://" + slave_path_ + "?baud=" + std::to_string(cfg_.baud); }

  void set_faults(const LinkFaultRates& to_board, const LinkFaultRates& from_board) {
    std::lock_guard<std::mutex> lk(mu_);
    rates_[0] = to_board;
    rates_[1] = from_board;
  }
  LinkFaultCounts faults_to_board() const {
    std::lock_guard<std::mutex> lk(mu_);
    return counts_[0];
  }
  LinkFaultCounts faults_from_board() const {
    std::lock_guard<std::mutex> lk(mu_);
    return counts_[1];
  }
  uint64_t cycles() const { return cycles_.load(); }
  uint8_t leds() const { return leds_.load(); }
  // Non-empty when the simulation stopped on an error (a failed assertion in the model).
  std::string error() const {
    std::lock_guard<std::mutex> lk(mu_);
    return error_;
  }

 private:
  static std::string current_message() {
    try {
      throw;
    } catch (const std::exception& e) {
      return e.what();
    } catch (...) {
      return "unknown error";
    }
  }

  static void make_raw(int fd) {
    termios t{};
    if (::tcgetattr(fd, &t) != 0) return;
    ::cfmakeraw(&t);
    t.c_cflag |= CLOCAL | CREAD;
    ::tcsetattr(fd, TCSANOW, &t);
  }

  void open_pty() {
    master_ = ::posix_openpt(O_RDWR | O_NOCTTY | O_CLOEXEC);
    if (master_ < 0 || ::grantpt(master_) != 0 || ::unlockpt(master_) != 0) {
      const int e = errno;
      close_fds();
      throw std::runtime_error(std::string("BoardSim: cannot create a pseudo-terminal: ") +
                               std::strerror(e));
    }
    char name[128];
    if (::ptsname_r(master_, name, sizeof name) != 0) {
      close_fds();
      throw std::runtime_error("BoardSim: ptsname failed");
    }
    slave_path_ = name;
    // Keep a slave descriptor open for the simulator's lifetime: the master then never sees a
    // hang-up between driver sessions.
    slave_ = ::open(name, O_RDWR | O_NOCTTY | O_CLOEXEC);
    if (slave_ < 0) {
      const int e = errno;
      close_fds();
      throw std::runtime_error("BoardSim: cannot open " + slave_path_ + ": " + std::strerror(e));
    }
    make_raw(slave_);
    make_raw(master_);
    ::fcntl(master_, F_SETFL, ::fcntl(master_, F_GETFL) | O_NONBLOCK);
  }

  void close_fds() {
    if (slave_ >= 0) ::close(slave_);
    if (master_ >= 0) ::close(master_);
    slave_ = master_ = -1;
  }

  // Applies direction d's faults to `in`, appending what passes to `out`.
  void inject(int d, const uint8_t* in, size_t n, std::vector<uint8_t>& out) {
    std::lock_guard<std::mutex> lk(mu_);
    const LinkFaultRates r = rates_[d];
    LinkFaultCounts& c = counts_[d];
    std::uniform_real_distribution<double> u(0.0, 1.0);
    for (size_t i = 0; i < n; ++i) {
      uint8_t b = in[i];
      ++c.bytes;
      if (r.drop > 0 && u(rng_) < r.drop) {
        ++c.dropped;
        continue;
      }
      if (r.dup > 0 && u(rng_) < r.dup) {
        ++c.duplicated;
        out.push_back(b);
      }
      if (r.flip > 0 && u(rng_) < r.flip) {
        ++c.flipped;
        b ^= static_cast<uint8_t>(1u << (rng_() % 8));
      }
      out.push_back(b);
    }
  }

  void write_master(const std::vector<uint8_t>& bytes) {
    size_t off = 0;
    while (off < bytes.size() && !stop_.load()) {
      const ssize_t n = ::write(master_, bytes.data() + off, bytes.size() - off);
      if (n > 0) {
        off += static_cast<size_t>(n);
      } else if (n < 0 && (errno == EAGAIN || errno == EINTR)) {
        // The pty is full (nobody reads the slave): drop the rest, like a line nobody listens to.
        pollfd p{master_, POLLOUT, 0};
        if (::poll(&p, 1, 10) <= 0) return;
      } else {
        return;
      }
    }
  }

  void thread_main(std::atomic<int>& ready) {
    auto ctx = std::make_unique<VerilatedContext>();
    ctx->fatalOnError(false);
    ctx->randReset(2);
    ctx->randSeed(static_cast<int>(cfg_.seed & 0x7fffffff));
    if (!cfg_.fst_path.empty()) ctx->traceEverOn(true);
    Verilated::threadContextp(ctx.get());
    auto dut = std::make_unique<Model>(ctx.get(), "board");
    std::unique_ptr<VerilatedFstC> fst;
    if (!cfg_.fst_path.empty()) {
      fst = std::make_unique<VerilatedFstC>();
      dut->trace(fst.get(), 99);
      const auto parent = std::filesystem::path(cfg_.fst_path).parent_path();
      if (!parent.empty()) std::filesystem::create_directories(parent);
      fst->open(cfg_.fst_path.c_str());
    }
    UartPhy phy(*dut, cfg_.clks_per_bit);
    // One cycle is 1 ns in the waves: half a period in the model's time precision (1 ps: 500).
    uint64_t per_ns = 1;
    for (int p = ctx->timeprecision(); p < -9; ++p) per_ns *= 10;
    const uint64_t half = per_ns >= 2 ? per_ns / 2 : 1;
    auto edge = [&] {
      dut->clk_i = 1;
      dut->eval();
      ctx->timeInc(half);
      if (fst) fst->dump(ctx->time());
      dut->clk_i = 0;
      dut->eval();
      ctx->timeInc(half);
      if (fst) fst->dump(ctx->time());
      cycles_.fetch_add(1, std::memory_order_relaxed);
      if (ctx->gotError()) throw std::runtime_error("weft_board: Verilator error (failed assertion)");
    };
    // Reset: a falling edge of rst_ni (the asynchronous reset acts before any clock edge, so no
    // check sees the random initial state), reset_cycles clocks, then release.
    dut->clk_i = 0;
    dut->rst_ni = 1;
    dut->uart_rx_i = 1;
    dut->eval();
    dut->rst_ni = 0;
    dut->eval();
    for (unsigned i = 0; i < cfg_.reset_cycles; ++i) edge();
    dut->rst_ni = 1;
    dut->eval();
    ready.store(1);

    std::vector<uint8_t> in, out;
    uint8_t buf[4096];
    uint64_t quiet = 0;
    uint64_t n = 0;
    while (!stop_.load(std::memory_order_relaxed)) {
      // pty -> board, in batches (a syscall per cycle would dominate the simulation).
      if ((n & 63) == 0 && phy.tx_queued() < 64) {
        const ssize_t got = ::read(master_, buf, sizeof buf);
        if (got > 0) {
          in.clear();
          inject(0, buf, static_cast<size_t>(got), in);
          phy.send(in);
          quiet = 0;
        }
      }
      phy.drive();
      dut->eval();
      phy.sample();
      edge();
      ++n;
      if (phy.received_count() != 0 && ((n & 63) == 0 || phy.received_count() >= 64)) {
        const auto rx = phy.take_received();
        out.clear();
        inject(1, rx.data(), rx.size(), out);
        write_master(out);
        quiet = 0;
      }
      const uint8_t led = static_cast<uint8_t>(dut->led_o);
      leds_.store(led, std::memory_order_relaxed);
      const bool busy = (led & 0x2) != 0;
      if (!phy.idle() || busy) {
        quiet = 0;
      } else if (++quiet >= cfg_.idle_cycles && phy.received_count() == 0) {
        pollfd p{master_, POLLIN, 0};
        ::poll(&p, 1, 1);
        quiet = cfg_.idle_cycles;  // poll again after the next cycle unless input arrives
        n = 0;                     // read the pty right away
      }
    }
    dut->final();
    if (fst) fst->close();
  }

  BoardSimConfig cfg_;
  std::mt19937_64 rng_;
  int master_ = -1, slave_ = -1;
  std::string slave_path_;
  std::thread thread_;
  std::atomic<bool> stop_{false};
  std::atomic<int> ready_{0};
  std::exception_ptr start_error_;
  std::atomic<uint64_t> cycles_{0};
  std::atomic<uint8_t> leds_{0};
  mutable std::mutex mu_;
  LinkFaultRates rates_[2];
  LinkFaultCounts counts_[2];
  std::string error_;
};

}  // namespace weft::sim
