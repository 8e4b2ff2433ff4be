// DmaEnv: a bench around a Verilated weft_dma: the AXI4 slave memory model (weft::sim::AxiMem
// over a HostMemory), one driver per read and write client with random stalls, a bus monitor
// with its own protocol checks, and the per-request results. Shared by test_dma.cpp and
// bench_dma.cpp. Every cycle: drive() of every model, eval, sample() of every model, tick.
#pragma once

#include <algorithm>
#include <cstdio>
#include <cstdint>
#include <deque>
#include <random>
#include <stdexcept>
#include <string>
#include <vector>

#include "weft/sim/axi_mem.hpp"
#include "weft/sim/host_memory.hpp"
#include "weft/tb/bits.hpp"
#include "weft/tb/harness.hpp"

namespace weft::tb {

// Error codes of weft_pkg (docs/programming-model.md), written out here as the test's own copy.
enum DmaErr : uint8_t {
  kErrNone = 0,
  kErrSize = 2,
  kErrWindow = 3,
  kErrAlign = 6,
  kErrSlverr = 7,
  kErrDecerr = 8,
};

struct DmaReq {
  uint64_t addr = 0;
  uint32_t row_bytes = 0;
  uint32_t rows = 0;
  uint32_t stride = 0;
};

struct DmaWindow {
  uint64_t base = 0, limit = 0;
  bool read = false, write = false;
};

// Client back-pressure: probabilities per cycle.
struct DmaClientStress {
  double req_gap = 0.0;   // a queued request is not offered
  double rd_stall = 0.0;  // rd_ready_i low
  double wr_gap = 0.0;    // no write beat offered (an offered beat is never withdrawn)
};

struct DmaReadResult {
  DmaReq req;
  uint8_t err = 0;
  uint64_t addr = 0;
  std::vector<uint8_t> data;  // every beat shown to the client, in order
  uint64_t lasts = 0;         // beats with rd_last_o
  bool last_on_final = false; // the final beat shown carried rd_last_o
  uint64_t accept_cycle = 0, done_cycle = 0;
};

struct DmaWriteResult {
  DmaReq req;
  uint8_t err = 0;
  uint64_t addr = 0;
  int starts = 0;              // wr_start_o pulses seen
  uint64_t beats_taken = 0;    // beats the DMA took
  uint64_t beats_total = 0;    // beats of the request
  uint64_t accept_cycle = 0, done_cycle = 0;
};

template <class Model>
class DmaEnv {
 public:
  static constexpr int kNumRd = 2;
  static constexpr int kNumWr = 2;

  DmaEnv(unsigned bus_bytes, unsigned max_burst, unsigned max_rd_out, unsigned num_win,
         sim::AxiMemOptions opt, uint64_t seed)
      : axi(h.dut(), mem, bus_bytes, opt),
        bus_(bus_bytes),
        max_burst_(max_burst),
        max_rd_out_(max_rd_out),
        num_win_(num_win),
        rng_(seed ^ 0x5eed5eedULL) {
    auto& d = h.dut();
    d.rd_req_valid_i = 0;
    d.wr_req_valid_i = 0;
    d.rd_ready_i = 0;
    d.wr_valid_i = 0;
    d.win_read_i = 0;
    d.win_write_i = 0;
    for (unsigned w = 0; w < num_win_; ++w) {
      set_bits(d.win_base_i, 64 * w, 64, 0);
      set_bits(d.win_limit_i, 64 * w, 64, 0);
    }
    h.reset();
  }

  Harness<Model> h;
  sim::HostMemory mem;
  sim::AxiMem<Model> axi;

  unsigned bus_bytes() const { return bus_; }

  void set_window(unsigned w, const DmaWindow& win) {
    auto& d = h.dut();
    set_bits(d.win_base_i, 64 * w, 64, win.base);
    set_bits(d.win_limit_i, 64 * w, 64, win.limit);
    set_bits(d.win_read_i, w, 1, win.read);
    set_bits(d.win_write_i, w, 1, win.write);
    if (windows_.size() <= w) windows_.resize(w + 1);
    windows_[w] = win;
  }
  const std::vector<DmaWindow>& windows() const { return windows_; }

  void set_stress(const DmaClientStress& s) { stress_ = s; }

  // Queues a read on client c.
  void read(int c, const DmaReq& r) { rd_[c].queue.push_back(r); }
  // Queues a write on client c; `bytes` holds rows * row_bytes bytes, row after row.
  void write(int c, const DmaReq& r, std::vector<uint8_t> bytes) {
    if (bytes.size() != static_cast<size_t>(r.rows) * r.row_bytes && r.rows != 0 && r.row_bytes != 0)
      throw std::invalid_argument("DmaEnv::write: wrong byte count");
    wr_[c].queue.push_back({r, std::move(bytes)});
  }

  std::vector<DmaReadResult>& read_results(int c) { return rd_[c].results; }
  std::vector<DmaWriteResult>& write_results(int c) { return wr_[c].results; }
  // Protocol problems seen by this bench's own monitor (independent of AxiMem's checks).
  const std::vector<std::string>& errors() const { return errors_; }
  unsigned max_reads_seen() const { return max_rd_seen_; }
  uint64_t stat_rd_beats() const { return stat_rd_beats_; }
  uint64_t stat_wr_beats() const { return stat_wr_beats_; }
  uint64_t stat_wr_bytes() const { return stat_wr_bytes_; }
  uint64_t stat_rd_stall() const { return stat_rd_stall_; }
  uint64_t stat_wr_stall() const { return stat_wr_stall_; }

  bool clients_idle() const {
    for (auto& c : rd_)
      if (!c.queue.empty() || c.active) return false;
    for (auto& c : wr_)
      if (!c.queue.empty() || c.active) return false;
    return true;
  }

  // One cycle.
  void step() {
    axi.drive();
    drive_clients();
    h.eval();
    axi.sample();
    sample_clients();
    monitor();
    h.tick();
  }

  // Steps until every queued request is done and the DMA and the memory are idle.
  void run(uint64_t timeout = 2'000'000) {
    for (uint64_t i = 0; i < timeout; ++i) {
      h.eval();
      if (clients_idle() && !h.dut().busy_o && axi.idle()) return;
      step();
    }
    throw std::runtime_error("DMA bench did not finish within " + std::to_string(timeout) + " cycles");
  }

 private:
  struct RdClient {
    std::deque<DmaReq> queue;
    bool active = false;    // request accepted, done not yet seen
    bool offering = false;  // rd_req_valid_i high and not yet accepted
    DmaReadResult cur;
    std::vector<DmaReadResult> results;
  };
  struct WrJob {
    DmaReq req;
    std::vector<uint8_t> bytes;
  };
  struct WrClient {
    std::deque<WrJob> queue;
    bool active = false;
    bool offering = false;
    bool started = false;
    bool beat_offered = false;
    std::deque<std::vector<uint8_t>> beats;  // beats still to send
    DmaWriteResult cur;
    std::vector<DmaWriteResult> results;
  };

  bool chance(double p) { return p > 0 && std::uniform_real_distribution<double>(0, 1)(rng_) < p; }

  // Client c's request at [c*kReqBits +: kReqBits] of rd_req_i / wr_req_i, laid out as
  // weft_dma_req_t (rtl/common/weft_dma_types.svh; a packed struct's first field is its top):
  // {addr[63:0], row_bytes[31:0], rows[31:0], stride[31:0]}.
  static constexpr int kReqBits = 64 + 3 * 32;
  void put_req(auto& port, int c, const DmaReq& r) {
    const int base = kReqBits * c;
    set_bits(port, base + 96, 64, r.addr);
    set_bits(port, base + 64, 32, r.row_bytes);
    set_bits(port, base + 32, 32, r.rows);
    set_bits(port, base, 32, r.stride);
  }

  void drive_clients() {
    auto& d = h.dut();
    for (int c = 0; c < kNumRd; ++c) {
      auto& cl = rd_[c];
      if (!cl.active && !cl.offering && !cl.queue.empty() && !chance(stress_.req_gap)) cl.offering = true;
      set_bits(d.rd_req_valid_i, c, 1, cl.offering);
      if (cl.offering)
        put_req(d.rd_req_i, c, cl.queue.front());
      set_bits(d.rd_ready_i, c, 1, !chance(stress_.rd_stall));
    }
    for (int c = 0; c < kNumWr; ++c) {
      auto& cl = wr_[c];
      if (!cl.active && !cl.offering && !cl.queue.empty() && !chance(stress_.req_gap)) cl.offering = true;
      set_bits(d.wr_req_valid_i, c, 1, cl.offering);
      if (cl.offering)
        put_req(d.wr_req_i, c, cl.queue.front().req);
      if (cl.started && !cl.beats.empty() && !cl.beat_offered && !chance(stress_.wr_gap))
        cl.beat_offered = true;
      set_bits(d.wr_valid_i, c, 1, cl.beat_offered);
      if (cl.beat_offered) {
        const auto& b = cl.beats.front();
        for (unsigned i = 0; i < bus_; i += 4)
          set_bits(d.wr_data_i, 8 * (c * bus_ + i), 32,
                   uint32_t{b[i]} | uint32_t{b[i + 1]} << 8 | uint32_t{b[i + 2]} << 16 |
                       uint32_t{b[i + 3]} << 24);
      }
    }
  }

  void sample_clients() {
    auto& d = h.dut();
    const uint64_t now = h.cycle();
    for (int c = 0; c < kNumRd; ++c) {
      auto& cl = rd_[c];
      if (cl.offering && get_bits(d.rd_req_ready_o, c, 1)) {
        cl.offering = false;
        cl.active = true;
        cl.cur = DmaReadResult{};
        cl.cur.req = cl.queue.front();
        cl.cur.accept_cycle = now;
        cl.queue.pop_front();
      }
      const bool v = get_bits(d.rd_valid_o, c, 1);
      if (v && !cl.active) errors_.push_back("rd" + std::to_string(c) + ": beat with no request");
      if (v && get_bits(d.rd_ready_i, c, 1)) {
        const size_t n = cl.cur.data.size();
        cl.cur.data.resize(n + bus_);
        for (unsigned i = 0; i < bus_; i += 4) {
          const uint64_t w = get_bits(d.rd_data_o, 8 * i, 32);
          for (unsigned k = 0; k < 4; ++k) cl.cur.data[n + i + k] = static_cast<uint8_t>(w >> (8 * k));
        }
        cl.cur.last_on_final = d.rd_last_o;
        if (d.rd_last_o) ++cl.cur.lasts;
      }
      if (get_bits(d.rd_done_valid_o, c, 1)) {
        if (!cl.active) {
          errors_.push_back("rd" + std::to_string(c) + ": done with no request");
        } else {
          cl.cur.err = static_cast<uint8_t>(get_bits(d.rd_done_err_o, 8 * c, 8));
          cl.cur.addr = get_bits(d.rd_done_addr_o, 64 * c, 64);
          cl.cur.done_cycle = now;
          cl.results.push_back(std::move(cl.cur));
          cl.active = false;
        }
      }
    }
    for (int c = 0; c < kNumWr; ++c) {
      auto& cl = wr_[c];
      if (cl.offering && get_bits(d.wr_req_ready_o, c, 1)) {
        cl.offering = false;
        cl.active = true;
        cl.started = false;
        cl.cur = DmaWriteResult{};
        const WrJob& job = cl.queue.front();
        cl.cur.req = job.req;
        cl.cur.accept_cycle = now;
        // Beats: ceil(row_bytes / bus) per row, the row's first byte in byte 0, random padding.
        cl.beats.clear();
        if (job.req.rows && job.req.row_bytes) {
          const uint64_t per_row = (job.req.row_bytes + bus_ - 1) / bus_;
          for (uint32_t r = 0; r < job.req.rows; ++r) {
            for (uint64_t k = 0; k < per_row; ++k) {
              std::vector<uint8_t> b(bus_);
              for (unsigned i = 0; i < bus_; ++i) {
                const uint64_t off = k * bus_ + i;
                b[i] = off < job.req.row_bytes
                           ? job.bytes[static_cast<size_t>(r) * job.req.row_bytes + off]
                           : static_cast<uint8_t>(rng_());
              }
              cl.beats.push_back(std::move(b));
            }
          }
        }
        cl.cur.beats_total = cl.beats.size();
        cl.queue.pop_front();
      }
      if (get_bits(d.wr_start_o, c, 1)) {
        if (!cl.active) errors_.push_back("wr" + std::to_string(c) + ": wr_start with no request");
        ++cl.cur.starts;
        cl.started = true;
      }
      if (get_bits(d.wr_ready_o, c, 1) && cl.beat_offered) {
        cl.beats.pop_front();
        cl.beat_offered = false;
        ++cl.cur.beats_taken;
      }
      if (get_bits(d.wr_done_valid_o, c, 1)) {
        if (!cl.active) {
          errors_.push_back("wr" + std::to_string(c) + ": done with no request");
        } else {
          cl.cur.err = static_cast<uint8_t>(get_bits(d.wr_done_err_o, 8 * c, 8));
          cl.cur.addr = get_bits(d.wr_done_addr_o, 64 * c, 64);
          cl.cur.done_cycle = now;
          cl.results.push_back(std::move(cl.cur));
          cl.active = false;
          cl.started = false;
          cl.beats.clear();
          cl.beat_offered = false;
        }
      }
    }
  }

  // The bench's own checks of the AXI master: burst shape and outstanding reads.
  void monitor() {
    auto& d = h.dut();
    const unsigned size_log2 = static_cast<unsigned>(__builtin_ctz(bus_));
    auto check = [&](const char* ch, uint64_t addr, unsigned len, unsigned size, unsigned burst) {
      char hex[24];
      std::snprintf(hex, sizeof hex, "%llx", static_cast<unsigned long long>(addr));
      const std::string pre = std::string(ch) + " at 0x" + hex + ": ";
      if (len > max_burst_) errors_.push_back(pre + "longer than MaxBurst");
      if (size != size_log2) errors_.push_back(pre + "not full width");
      if (burst != 1) errors_.push_back(pre + "not INCR");
      if (addr % bus_) errors_.push_back(pre + "unaligned");
      if (addr / 4096 != (addr + uint64_t{len} * bus_ - 1) / 4096) errors_.push_back(pre + "crosses 4 KiB");
      if (!in_some_window(addr, uint64_t{len} * bus_)) errors_.push_back(pre + "outside every window");
    };
    if (d.m_axi_arvalid && d.m_axi_arready) {
      check("AR", d.m_axi_araddr, d.m_axi_arlen + 1u, d.m_axi_arsize, d.m_axi_arburst);
      ++rd_out_;
    }
    if (d.m_axi_awvalid && d.m_axi_awready)
      check("AW", d.m_axi_awaddr, d.m_axi_awlen + 1u, d.m_axi_awsize, d.m_axi_awburst);
    max_rd_seen_ = std::max(max_rd_seen_, rd_out_);
    if (rd_out_ > max_rd_out_) errors_.push_back("more than MaxRdOut reads outstanding");
    if (d.m_axi_rvalid && d.m_axi_rready && d.m_axi_rlast) --rd_out_;
    stat_rd_beats_ += d.stat_rd_beat_o;
    stat_wr_beats_ += d.stat_wr_beat_o;
    stat_wr_bytes_ += d.stat_wr_bytes_o;
    stat_rd_stall_ += d.stat_rd_stall_o;
    stat_wr_stall_ += d.stat_wr_stall_o;
  }

  bool in_some_window(uint64_t addr, uint64_t n) const {
    for (const auto& w : windows_)
      if ((w.read || w.write) && addr >= w.base && addr + n <= w.limit) return true;
    return false;
  }

  unsigned bus_, max_burst_, max_rd_out_, num_win_;
  std::mt19937_64 rng_;
  DmaClientStress stress_;
  std::vector<DmaWindow> windows_;
  RdClient rd_[kNumRd];
  WrClient wr_[kNumWr];
  std::vector<std::string> errors_;
  unsigned rd_out_ = 0, max_rd_seen_ = 0;
  uint64_t stat_rd_beats_ = 0, stat_wr_beats_ = 0, stat_wr_bytes_ = 0, stat_rd_stall_ = 0,
           stat_wr_stall_ = 0;
};

}  // namespace weft::tb
