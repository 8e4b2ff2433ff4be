// weft/sim/axil_master.hpp: AXI4-Lite master bus model (header only) for Verilated designs with an
// s_axil_* slave port (weft_csr, weft_top).
//
// Template on the Verilated model; it drives and reads these members by name:
//   s_axil_awvalid/awready/awaddr/awprot, s_axil_wvalid/wready/wdata/wstrb,
//   s_axil_bvalid/bready/bresp, s_axil_arvalid/arready/araddr/arprot,
//   s_axil_rvalid/rready/rdata/rresp.
//
// Queued use (any number of transactions in flight on the model's side; writes and reads are
// independent streams, each answered in order as AXI4-Lite requires):
//   weft::sim::AxilMaster<Vtop> m(dut, opts);
//   const uint64_t w = m.write(0x05c, 7);         // ids count up from 1 over writes and reads
//   const uint64_t r = m.read(0x060);
//   per cycle: m.drive(); <evaluate>; m.sample(); <clock edge>     (the Weft tick protocol)
//   while (auto res = m.pop_read()) { ... res->data, res->resp ... }
//
// Tick protocol: drive() sets the inputs this model owns from its own state only (random gaps
// and back-pressure are drawn there); sample() reads the DUT's outputs after evaluation and
// commits every handshake that completes at the coming edge. No valid or ready of the model
// depends on the DUT's outputs in the same cycle.
//
// Stress options (AxilOptions): each cycle a channel with a transaction to offer keeps its valid
// low with probability aw_gap / w_gap / ar_gap (once raised, a valid stays up until accepted, as
// AXI requires); BREADY / RREADY are low with probability b_stall / r_stall; with probability
// w_first a write's AW waits until its W was accepted (otherwise AW and W go independently, so
// either may come first). Outstanding writes / reads are limited by max_writes / max_reads.
//
// Blocking use: write_sync() / read_sync() queue one transaction and run cycles until its answer,
// each cycle being drive(), dut.eval(), sample(), then step() — step must advance exactly one
// clock edge (e.g. [&] { h.tick(); }) and must not call this model's drive()/sample(). They throw
// std::runtime_error after `timeout` cycles without an answer.
#pragma once

#include <cstdint>
#include <deque>
#include <functional>
#include <optional>
#include <random>
#include <stdexcept>
#include <string>
#include <type_traits>

namespace weft::sim {

enum class AxilResp : uint8_t { kOkay = 0, kExOkay = 1, kSlvErr = 2, kDecErr = 3 };

inline const char* axil_resp_name(AxilResp r) {
  switch (r) {
    case AxilResp::kOkay:
      return "OKAY";
    case AxilResp::kExOkay:
      return "EXOKAY";
    case AxilResp::kSlvErr:
      return "SLVERR";
    case AxilResp::kDecErr:
      return "DECERR";
  }
  return "?";
}

struct AxilOptions {
  double aw_gap = 0.0;      // P(AW valid held low in a cycle it could be raised)
  double w_gap = 0.0;       // same for W
  double ar_gap = 0.0;      // same for AR
  double b_stall = 0.0;     // P(BREADY low in a cycle)
  double r_stall = 0.0;     // P(RREADY low in a cycle)
  double w_first = 0.0;     // P(a write's AW waits until its W has been accepted)
  unsigned max_writes = 4;  // writes issued (AW or W sent) and not yet answered
  unsigned max_reads = 4;   // reads issued and not yet answered
  uint64_t seed = 1;
  uint8_t prot = 0;  // AWPROT / ARPROT

  // Every stress knob at probability p (a convenient "stressed" configuration).
  static AxilOptions stressed(double p, uint64_t seed) {
    AxilOptions o;
    o.aw_gap = o.w_gap = o.ar_gap = o.b_stall = o.r_stall = p;
    o.w_first = 0.3;
    o.seed = seed;
    return o;
  }
};

struct AxilWriteResult {
  uint64_t id = 0;
  uint64_t addr = 0;
  uint32_t data = 0;
  uint8_t strb = 0;
  AxilResp resp = AxilResp::kOkay;
  uint64_t issue_cycle = 0;  // model cycle of write()
  uint64_t done_cycle = 0;   // model cycle of the B handshake
};

struct AxilReadResult {
  uint64_t id = 0;
  uint64_t addr = 0;
  uint32_t data = 0;
  AxilResp resp = AxilResp::kOkay;
  uint64_t issue_cycle = 0;
  uint64_t done_cycle = 0;  // model cycle of the R handshake
};

template <class Model>
class AxilMaster {
 public:
  explicit AxilMaster(Model& dut, AxilOptions opt = {}) : dut_(dut), opt_(opt), rng_(opt.seed) {}

  AxilMaster(const AxilMaster&) = delete;
  AxilMaster& operator=(const AxilMaster&) = delete;

  const AxilOptions& options() const { return opt_; }
  void set_options(const AxilOptions& opt) {
    opt_ = opt;
    rng_.seed(opt.seed);
  }

  // ---------------------------------------------------------------- queued transactions
  uint64_t write(uint64_t addr, uint32_t data, uint8_t strb = 0xf) {
    Write w;
    w.res.id = next_id_++;
    w.res.addr = addr;
    w.res.data = data;
    w.res.strb = static_cast<uint8_t>(strb & 0xf);
    w.res.issue_cycle = cycle_;
    w.w_first = opt_.w_first > 0.0 && chance(opt_.w_first);
    writes_.push_back(w);
    return w.res.id;
  }

  uint64_t read(uint64_t addr) {
    Read r;
    r.res.id = next_id_++;
    r.res.addr = addr;
    r.res.issue_cycle = cycle_;
    reads_.push_back(r);
    return r.res.id;
  }

  std::optional<AxilWriteResult> pop_write() { return pop(write_done_); }
  std::optional<AxilReadResult> pop_read() { return pop(read_done_); }

  // Transactions queued or in flight (answered ones waiting in pop_*() not counted).
  size_t pending() const { return writes_.size() + reads_.size(); }
  bool idle() const { return pending() == 0; }
  uint64_t cycle() const { return cycle_; }

  // Forget every queued and in-flight transaction and result (e.g. around a DUT reset).
  void clear() {
    writes_.clear();
    reads_.clear();
    write_done_.clear();
    read_done_.clear();
    aw_up_ = w_up_ = ar_up_ = false;
    bready_ = rready_ = false;
  }

  // ---------------------------------------------------------------- per cycle
  void drive() {
    // AW: the first write whose AW has not been accepted, within the outstanding limit.
    if (!aw_up_) {
      const Write* w = next_aw();
      if (w != nullptr && !chance(opt_.aw_gap)) {
        aw_up_ = true;
        aw_addr_ = w->res.addr;
      }
    }
    if (!w_up_) {
      const Write* w = next_w();
      if (w != nullptr && !chance(opt_.w_gap)) {
        w_up_ = true;
        w_data_ = w->res.data;
        w_strb_ = w->res.strb;
      }
    }
    if (!ar_up_) {
      const Read* r = next_ar();
      if (r != nullptr && !chance(opt_.ar_gap)) {
        ar_up_ = true;
        ar_addr_ = r->res.addr;
      }
    }
    bready_ = !chance(opt_.b_stall);
    rready_ = !chance(opt_.r_stall);

    dut_.s_axil_awvalid = aw_up_;
    dut_.s_axil_awaddr = static_cast<port_t<decltype(dut_.s_axil_awaddr)>>(aw_up_ ? aw_addr_ : 0);
    dut_.s_axil_awprot = static_cast<port_t<decltype(dut_.s_axil_awprot)>>(opt_.prot & 7);
    dut_.s_axil_wvalid = w_up_;
    dut_.s_axil_wdata = static_cast<port_t<decltype(dut_.s_axil_wdata)>>(w_up_ ? w_data_ : 0);
    dut_.s_axil_wstrb = static_cast<port_t<decltype(dut_.s_axil_wstrb)>>(w_up_ ? w_strb_ : 0);
    dut_.s_axil_bready = bready_;
    dut_.s_axil_arvalid = ar_up_;
    dut_.s_axil_araddr = static_cast<port_t<decltype(dut_.s_axil_araddr)>>(ar_up_ ? ar_addr_ : 0);
    dut_.s_axil_arprot = static_cast<port_t<decltype(dut_.s_axil_arprot)>>(opt_.prot & 7);
    dut_.s_axil_rready = rready_;
  }

  void sample() {
    // Handshakes completing at the coming edge, from what drive() presented.
    if (aw_up_ && dut_.s_axil_awready) {
      aw_up_ = false;
      next_aw_mut()->aw_done = true;
    }
    if (w_up_ && dut_.s_axil_wready) {
      w_up_ = false;
      next_w_mut()->w_done = true;
    }
    if (ar_up_ && dut_.s_axil_arready) {
      ar_up_ = false;
      next_ar_mut()->ar_done = true;
    }
    if (bready_ && dut_.s_axil_bvalid) {
      if (writes_.empty() || !writes_.front().aw_done || !writes_.front().w_done) {
        throw std::runtime_error("AxilMaster: B response at cycle " + std::to_string(cycle_) +
                                 " without a write whose AW and W were both accepted");
      }
      Write w = writes_.front();
      writes_.pop_front();
      w.res.resp = static_cast<AxilResp>(dut_.s_axil_bresp & 3);
      w.res.done_cycle = cycle_;
      write_done_.push_back(w.res);
    }
    if (rready_ && dut_.s_axil_rvalid) {
      if (reads_.empty() || !reads_.front().ar_done) {
        throw std::runtime_error("AxilMaster: R response at cycle " + std::to_string(cycle_) +
                                 " without an accepted read address");
      }
      Read r = reads_.front();
      reads_.pop_front();
      r.res.data = static_cast<uint32_t>(dut_.s_axil_rdata);
      r.res.resp = static_cast<AxilResp>(dut_.s_axil_rresp & 3);
      r.res.done_cycle = cycle_;
      read_done_.push_back(r.res);
    }
    ++cycle_;
  }

  // ---------------------------------------------------------------- blocking
  AxilResp write_sync(uint64_t addr, uint32_t data, uint8_t strb, const std::function<void()>& step,
                      uint64_t timeout = 10000) {
    const uint64_t id = write(addr, data, strb);
    for (uint64_t i = 0; i < timeout; ++i) {
      cycle_once(step);
      if (auto res = take(write_done_, id)) return res->resp;
    }
    throw std::runtime_error("AxilMaster: write to 0x" + hex(addr) + " not answered within " +
                             std::to_string(timeout) + " cycles");
  }

  AxilReadResult read_sync(uint64_t addr, const std::function<void()>& step,
                           uint64_t timeout = 10000) {
    const uint64_t id = read(addr);
    for (uint64_t i = 0; i < timeout; ++i) {
      cycle_once(step);
      if (auto res = take(read_done_, id)) return *res;
    }
    throw std::runtime_error("AxilMaster: read of 0x" + hex(addr) + " not answered within " +
                             std::to_string(timeout) + " cycles");
  }

  // Runs cycles (as the blocking calls do) until every queued transaction is answered.
  void drain(const std::function<void()>& step, uint64_t timeout = 100000) {
    for (uint64_t i = 0; i < timeout && !idle(); ++i) cycle_once(step);
    if (!idle()) {
      throw std::runtime_error("AxilMaster: " + std::to_string(pending()) +
                               " transactions not answered within " + std::to_string(timeout) +
                               " cycles");
    }
  }

 private:
  template <class T>
  using port_t = std::remove_cv_t<std::remove_reference_t<T>>;

  struct Write {
    AxilWriteResult res;
    bool aw_done = false;
    bool w_done = false;
    bool w_first = false;
  };
  struct Read {
    AxilReadResult res;
    bool ar_done = false;
  };

  bool chance(double p) {
    return p > 0.0 && std::uniform_real_distribution<double>(0.0, 1.0)(rng_) < p;
  }

  // Position of the next write needing AW (W, AR) in its queue; those form a suffix, since each
  // channel goes in order. Eligible only within the outstanding limit.
  Write* next_aw_mut() {
    for (size_t i = 0; i < writes_.size(); ++i) {
      if (!writes_[i].aw_done) return &writes_[i];
    }
    return nullptr;
  }
  Write* next_w_mut() {
    for (size_t i = 0; i < writes_.size(); ++i) {
      if (!writes_[i].w_done) return &writes_[i];
    }
    return nullptr;
  }
  Read* next_ar_mut() {
    for (size_t i = 0; i < reads_.size(); ++i) {
      if (!reads_[i].ar_done) return &reads_[i];
    }
    return nullptr;
  }
  const Write* next_aw() {
    for (size_t i = 0; i < writes_.size() && i < opt_.max_writes; ++i) {
      if (!writes_[i].aw_done)
        return (writes_[i].w_first && !writes_[i].w_done) ? nullptr : &writes_[i];
    }
    return nullptr;
  }
  const Write* next_w() {
    for (size_t i = 0; i < writes_.size() && i < opt_.max_writes; ++i) {
      if (!writes_[i].w_done) return &writes_[i];
    }
    return nullptr;
  }
  const Read* next_ar() {
    for (size_t i = 0; i < reads_.size() && i < opt_.max_reads; ++i) {
      if (!reads_[i].ar_done) return &reads_[i];
    }
    return nullptr;
  }

  void cycle_once(const std::function<void()>& step) {
    drive();
    dut_.eval();
    sample();
    step();
  }

  template <class T>
  static std::optional<T> pop(std::deque<T>& q) {
    if (q.empty()) return std::nullopt;
    T v = q.front();
    q.pop_front();
    return v;
  }

  template <class T>
  static std::optional<T> take(std::deque<T>& q, uint64_t id) {
    for (auto it = q.begin(); it != q.end(); ++it) {
      if (it->id == id) {
        T v = *it;
        q.erase(it);
        return v;
      }
    }
    return std::nullopt;
  }

  static std::string hex(uint64_t v) {
    static const char* digits = "0123456789abcdef";
    std::string s;
    do {
      s.insert(s.begin(), digits[v & 15]);
      v >>= 4;
    } while (v != 0);
    return s;
  }

  Model& dut_;
  AxilOptions opt_;
  std::mt19937_64 rng_;
  uint64_t next_id_ = 1;
  uint64_t cycle_ = 0;
  std::deque<Write> writes_;  // in issue order, until their B
  std::deque<Read> reads_;    // in issue order, until their R
  std::deque<AxilWriteResult> write_done_;
  std::deque<AxilReadResult> read_done_;
  // What drive() presents this cycle (a raised valid stays up until its handshake).
  bool aw_up_ = false, w_up_ = false, ar_up_ = false;
  bool bready_ = false, rready_ = false;
  uint64_t aw_addr_ = 0, ar_addr_ = 0;
  uint32_t w_data_ = 0;
  uint8_t w_strb_ = 0;
};

}  // namespace weft::sim
