// AxiMem: AXI4 slave memory model for Verilated designs with an AXI4 master (m_axi_* ports).
#pragma once

#include <algorithm>
#include <cstdint>
#include <deque>
#include <map>
#include <optional>
#include <random>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

#include "weft/sim/host_memory.hpp"
#include "weft/tb/bits.hpp"

namespace weft::sim {

/// AXI response codes (RRESP / BRESP).
enum class AxiResp : uint8_t { kOkay = 0, kExOkay = 1, kSlvErr = 2, kDecErr = 3 };

/// An address range [base, limit) whose accesses answer `resp` instead of OKAY.
/// Reads: every R beat touching the range carries `resp` (and junk data, 0xE5 bytes).
/// Writes: a burst with a beat touching the range gets `resp` in B, and the bytes of those beats
/// are not written.
struct AxiErrorRange {
  uint64_t base = 0;
  uint64_t limit = 0;
  AxiResp resp = AxiResp::kSlvErr;
  bool reads = true;
  bool writes = true;
};

/// Beats the slave served on one channel: [addr, addr + bytes), consecutive beats of one burst
/// (and of bursts that continue each other) merged into one record.
struct AxiAccess {
  uint64_t addr = 0;
  uint64_t bytes = 0;
  bool write = false;
};

/// Behaviour of an AxiMem: latencies, back-pressure, limits, error injection.
struct AxiMemOptions {
  /// Cycles from the AR handshake (edge ending cycle t) to the first R beat, which may be valid
  /// from cycle t + 1 + read_latency. 0 = the next cycle.
  unsigned read_latency = 1;
  /// Cycles from the burst's last W beat (or its AW, whichever is later) to its B response.
  unsigned write_latency = 1;
  /// Random back-pressure, each a probability per cycle in [0, 1]:
  double ar_stall = 0.0;  ///< ARREADY low
  double r_gap = 0.0;     ///< no R beat offered although one is ready (never withdraws one)
  double aw_stall = 0.0;  ///< AWREADY low
  double w_stall = 0.0;   ///< WREADY low
  double b_gap = 0.0;     ///< no B offered although one is ready
  uint64_t seed = 1;
  /// Read bursts accepted and not finished; ARREADY stays low at the limit.
  unsigned max_reads = 16;
  /// Write bursts accepted whose B was not yet taken; AWREADY stays low at the limit.
  unsigned max_writes = 16;
  /// W beats accepted ahead of their AW (AXI allows W before AW); WREADY low at the limit.
  unsigned max_w_ahead = 256;
  /// R beats of different IDs interleave (a random ready ID per beat) and B responses of
  /// different IDs may overtake each other; false: one burst at a time, oldest first.
  bool interleave = true;
  /// Record FIXED and WRAP bursts as violations (Weft masters use INCR only).
  bool incr_only = true;
  /// Record a start address not aligned to the transfer size as a violation.
  bool require_aligned = true;
  std::vector<AxiErrorRange> errors;
  /// Log every R and W beat (its whole transfer-size span, strobed or not, OKAY or not) for
  /// take_accesses(): tests that prove no access left the DMA windows (sim:// option buslog=1).
  bool log_accesses = false;
};

/// Traffic counters. Cycles are AxiMem::cycle() values; `first_*` is UINT64_MAX while nothing
/// happened. Efficiency of a transfer: r_beats / (last_r_cycle - first_r_cycle + 1).
struct AxiMemStats {
  uint64_t ar_bursts = 0, aw_bursts = 0, b_resps = 0;
  uint64_t r_beats = 0, w_beats = 0;
  uint64_t r_bytes = 0;  ///< bytes of the transfer size per R beat
  uint64_t w_bytes = 0;  ///< strobed bytes of W beats
  uint64_t r_errors = 0, b_errors = 0;  ///< R beats / B responses that were not OKAY
  uint64_t first_r_cycle = UINT64_MAX, last_r_cycle = 0;
  uint64_t first_w_cycle = UINT64_MAX, last_w_cycle = 0;
  uint64_t first_cycle = UINT64_MAX, last_cycle = 0;  ///< any handshake on any channel
};

/// AXI4 slave memory over a HostMemory, driving the m_axi_* ports of a Verilated model by name
/// (the names of docs/device.md: m_axi_arvalid, m_axi_rdata, ...).
///
/// Tick protocol, once per clock cycle:
///   mem.drive();    // sets ARREADY/AWREADY/WREADY and R/B outputs from internal state only
///   h.eval();       // (after every model of the bench has driven)
///   mem.sample();   // reads the master's outputs, commits every handshake of this cycle
///   h.tick();
/// Ready/valid never depend combinationally on the master's outputs in the same cycle.
///
/// Bursts of one ID complete in order; with `interleave`, beats and responses of different IDs
/// may interleave. Supports INCR (and, if allowed, FIXED/WRAP treated as INCR), any transfer
/// size up to the bus width, strobes, W before AW. Protocol errors of the master are not fatal:
/// they are recorded in violations() (4 KiB crossing, size wider than the bus, reserved or
/// non-INCR burst type, unaligned start, WLAST on the wrong beat, strobes outside the beat's
/// lanes, AR/AW/W valid dropped or payload changed while stalled).
template <class Model>
class AxiMem {
 public:
  /// `bus_bytes`: data width of m_axi_rdata / m_axi_wdata in bytes (a power of two).
  AxiMem(Model& dut, HostMemory& mem, unsigned bus_bytes, AxiMemOptions opt = {})
      : dut_(dut), mem_(mem), bus_bytes_(bus_bytes), opt_(std::move(opt)), rng_(opt_.seed) {
    if (bus_bytes_ == 0 || (bus_bytes_ & (bus_bytes_ - 1)) != 0)
      throw std::invalid_argument("AxiMem: bus_bytes must be a power of two");
    idle_outputs();
  }

  AxiMemOptions& options() { return opt_; }
  const AxiMemStats& stats() const { return stats_; }
  void clear_stats() { stats_ = {}; }
  const std::vector<std::string>& violations() const { return violations_; }
  uint64_t cycle() const { return cycle_; }
  /// The beats logged since the last call (options().log_accesses).
  std::vector<AxiAccess> take_accesses() { return std::exchange(accesses_, {}); }

  /// True when no burst is accepted and unfinished and no response is pending.
  bool idle() const {
    return reads_out_ == 0 && writes_out_ == 0 && w_ahead_.empty() && !r_cur_ && !b_cur_;
  }

  /// Forgets every burst in flight (e.g. when the master is reset); memory is kept.
  void reset() {
    rd_.clear();
    aw_.clear();
    w_ahead_.clear();
    b_.clear();
    r_cur_.reset();
    b_cur_.reset();
    r_lock_.reset();
    reads_out_ = writes_out_ = 0;
    ar_stalled_ = aw_stalled_ = w_stalled_ = false;
    idle_outputs();
  }

  /// Drives the slave's outputs for this cycle.
  void drive() {
    auto& d = dut_;
    ar_ready_ = reads_out_ < opt_.max_reads && !chance(opt_.ar_stall);
    aw_ready_ = writes_out_ < opt_.max_writes && !chance(opt_.aw_stall);
    w_ready_ = w_ahead_.size() < opt_.max_w_ahead && !chance(opt_.w_stall);
    d.m_axi_arready = ar_ready_;
    d.m_axi_awready = aw_ready_;
    d.m_axi_wready = w_ready_;

    if (!r_cur_) pick_r();
    d.m_axi_rvalid = r_cur_.has_value();
    if (r_cur_) {
      d.m_axi_rid = r_cur_->id;
      put_bytes(d.m_axi_rdata, r_cur_->data);
      d.m_axi_rresp = static_cast<uint8_t>(r_cur_->resp);
      d.m_axi_rlast = r_cur_->last;
    }

    if (!b_cur_) pick_b();
    d.m_axi_bvalid = b_cur_.has_value();
    if (b_cur_) {
      d.m_axi_bid = b_cur_->id;
      d.m_axi_bresp = static_cast<uint8_t>(b_cur_->resp);
    }
  }

  /// Samples the master's outputs and commits this cycle's handshakes; advances cycle().
  void sample() {
    auto& d = dut_;
    // AR
    {
      const AddrReq a = read_ar();
      check_stable("AR", ar_stalled_, ar_prev_, d.m_axi_arvalid, a);
      if (d.m_axi_arvalid && ar_ready_) {
        check_addr("AR", a);
        ReadBurst rb;
        rb.req = a;
        rb.ready_cycle = cycle_ + 1 + opt_.read_latency;
        rb.seq = seq_++;
        rd_[a.id].push_back(rb);
        ++reads_out_;
        ++stats_.ar_bursts;
        activity();
      }
      ar_stalled_ = d.m_axi_arvalid && !ar_ready_;
      ar_prev_ = a;
    }
    // R
    if (r_cur_ && d.m_axi_rready) {
      auto& q = rd_[r_cur_->id];
      ReadBurst& rb = q.front();
      ++rb.beat;
      ++stats_.r_beats;
      stats_.r_bytes += uint64_t{1} << rb.req.size;
      if (r_cur_->resp != AxiResp::kOkay) ++stats_.r_errors;
      stats_.first_r_cycle = std::min(stats_.first_r_cycle, cycle_);
      stats_.last_r_cycle = cycle_;
      activity();
      if (r_cur_->last) {
        q.pop_front();
        --reads_out_;
        r_lock_.reset();
      }
      r_cur_.reset();
    }
    // AW
    {
      const AddrReq a = read_aw();
      check_stable("AW", aw_stalled_, aw_prev_, d.m_axi_awvalid, a);
      if (d.m_axi_awvalid && aw_ready_) {
        check_addr("AW", a);
        WriteBurst wb;
        wb.req = a;
        wb.aw_cycle = cycle_;
        aw_.push_back(wb);
        ++writes_out_;
        ++stats_.aw_bursts;
        activity();
      }
      aw_stalled_ = d.m_axi_awvalid && !aw_ready_;
      aw_prev_ = a;
    }
    // W
    {
      WBeat w;
      w.data.resize(bus_bytes_);
      get_bytes(d.m_axi_wdata, w.data);
      w.strb.resize(bus_bytes_);
      for (unsigned i = 0; i < bus_bytes_; ++i)
        w.strb[i] = static_cast<uint8_t>(weft::tb::get_bits(d.m_axi_wstrb, static_cast<int>(i), 1));
      w.last = d.m_axi_wlast;
      if (w_stalled_ && !d.m_axi_wvalid) violation("W: WVALID dropped while stalled");
      if (w_stalled_ && d.m_axi_wvalid &&
          (w.data != w_prev_.data || w.strb != w_prev_.strb || w.last != w_prev_.last))
        violation("W: data, strobes or WLAST changed while stalled");
      if (d.m_axi_wvalid && w_ready_) {
        w.cycle = cycle_;
        w_ahead_.push_back(w);
        ++stats_.w_beats;
        for (auto s : w.strb) stats_.w_bytes += s;
        stats_.first_w_cycle = std::min(stats_.first_w_cycle, cycle_);
        stats_.last_w_cycle = cycle_;
        activity();
      }
      w_stalled_ = d.m_axi_wvalid && !w_ready_;
      w_prev_ = std::move(w);
      match_writes();
    }
    // B
    if (b_cur_ && d.m_axi_bready) {
      auto& q = b_[b_cur_->id];
      q.pop_front();
      --writes_out_;
      ++stats_.b_resps;
      if (b_cur_->resp != AxiResp::kOkay) ++stats_.b_errors;
      activity();
      b_cur_.reset();
    }
    ++cycle_;
  }

 private:
  struct AddrReq {
    uint32_t id = 0;
    uint64_t addr = 0;
    unsigned len = 1;  // beats
    unsigned size = 0;
    unsigned burst = 1;
    bool operator==(const AddrReq&) const = default;
  };
  struct ReadBurst {
    AddrReq req;
    uint64_t ready_cycle = 0;
    uint64_t seq = 0;
    unsigned beat = 0;
  };
  struct RBeat {
    uint32_t id;
    std::vector<uint8_t> data;
    AxiResp resp;
    bool last;
  };
  struct WriteBurst {
    AddrReq req;
    uint64_t aw_cycle = 0;
    unsigned beat = 0;
    AxiResp resp = AxiResp::kOkay;
  };
  struct WBeat {
    std::vector<uint8_t> data, strb;
    bool last = false;
    uint64_t cycle = 0;
  };
  struct BResp {
    uint32_t id;
    AxiResp resp;
    uint64_t ready_cycle;
    uint64_t seq;
  };

  bool chance(double p) {
    return p > 0.0 && std::uniform_real_distribution<double>(0.0, 1.0)(rng_) < p;
  }

  void activity() {
    stats_.first_cycle = std::min(stats_.first_cycle, cycle_);
    stats_.last_cycle = cycle_;
  }

  // A beat of `nb` bytes at `a` (aligned down to nb), appended to the access log.
  void log_beat(uint64_t a, uint64_t nb, bool write) {
    if (!opt_.log_accesses) return;
    const uint64_t lo = a & ~(nb - 1);
    if (!accesses_.empty()) {
      AxiAccess& last = accesses_.back();
      if (last.write == write && last.addr + last.bytes == lo) {
        last.bytes += nb;
        return;
      }
    }
    accesses_.push_back({lo, nb, write});
  }

  void violation(const std::string& what) {
    violations_.push_back("cycle " + std::to_string(cycle_) + ": " + what);
  }

  void idle_outputs() {
    dut_.m_axi_arready = 0;
    dut_.m_axi_awready = 0;
    dut_.m_axi_wready = 0;
    dut_.m_axi_rvalid = 0;
    dut_.m_axi_bvalid = 0;
    dut_.m_axi_rid = 0;
    dut_.m_axi_rresp = 0;
    dut_.m_axi_rlast = 0;
    dut_.m_axi_bid = 0;
    dut_.m_axi_bresp = 0;
  }

  // ---- port access --------------------------------------------------------------------------
  template <class T>
  void put_bytes(T& port, const std::vector<uint8_t>& b) {
    for (unsigned i = 0; i < bus_bytes_; i += 4) {
      uint32_t w = 0;
      const unsigned n = std::min(4u, bus_bytes_ - i);
      for (unsigned k = 0; k < n; ++k) w |= static_cast<uint32_t>(b[i + k]) << (8 * k);
      weft::tb::set_bits(port, static_cast<int>(8 * i), static_cast<int>(8 * n), w);
    }
  }
  template <class T>
  void get_bytes(const T& port, std::vector<uint8_t>& b) {
    for (unsigned i = 0; i < bus_bytes_; i += 4) {
      const unsigned n = std::min(4u, bus_bytes_ - i);
      const uint64_t w = weft::tb::get_bits(port, static_cast<int>(8 * i), static_cast<int>(8 * n));
      for (unsigned k = 0; k < n; ++k) b[i + k] = static_cast<uint8_t>(w >> (8 * k));
    }
  }
  AddrReq read_ar() const {
    return {static_cast<uint32_t>(dut_.m_axi_arid), static_cast<uint64_t>(dut_.m_axi_araddr),
            static_cast<unsigned>(dut_.m_axi_arlen) + 1, static_cast<unsigned>(dut_.m_axi_arsize),
            static_cast<unsigned>(dut_.m_axi_arburst)};
  }
  AddrReq read_aw() const {
    return {static_cast<uint32_t>(dut_.m_axi_awid), static_cast<uint64_t>(dut_.m_axi_awaddr),
            static_cast<unsigned>(dut_.m_axi_awlen) + 1, static_cast<unsigned>(dut_.m_axi_awsize),
            static_cast<unsigned>(dut_.m_axi_awburst)};
  }

  // ---- protocol checks ----------------------------------------------------------------------
  void check_stable(const char* ch, bool stalled, const AddrReq& prev, bool valid, const AddrReq& now) {
    if (!stalled) return;
    if (!valid) {
      violation(std::string(ch) + ": VALID dropped while stalled");
    } else if (!(now == prev)) {
      violation(std::string(ch) + ": payload changed while stalled");
    }
  }

  void check_addr(const char* ch, const AddrReq& a) {
    const std::string pre = std::string(ch) + " id " + std::to_string(a.id) + " addr 0x" + hex(a.addr) +
                            " len " + std::to_string(a.len) + ": ";
    if ((1u << a.size) > bus_bytes_) violation(pre + "size wider than the bus");
    if (a.burst == 3) violation(pre + "reserved burst type");
    if (opt_.incr_only && a.burst != 1) violation(pre + "burst type not INCR");
    const uint64_t nb = uint64_t{1} << a.size;
    if (opt_.require_aligned && (a.addr & (nb - 1)) != 0) violation(pre + "start not aligned to size");
    if (a.burst == 1) {
      const uint64_t start = a.addr & ~(nb - 1);
      const uint64_t last = start + a.len * nb - 1;
      if ((a.addr >> 12) != (last >> 12)) violation(pre + "burst crosses a 4 KiB boundary");
    }
    if (a.burst == 2) {
      if (a.len != 2 && a.len != 4 && a.len != 8 && a.len != 16) violation(pre + "WRAP length illegal");
    }
    if (a.burst != 1 && a.len > 16) violation(pre + "FIXED/WRAP longer than 16 beats");
  }

  static std::string hex(uint64_t v) {
    char buf[20];
    std::snprintf(buf, sizeof buf, "%llx", static_cast<unsigned long long>(v));
    return buf;
  }

  // Address of beat i of a burst (INCR semantics; FIXED keeps the address, WRAP wraps).
  static uint64_t beat_addr(const AddrReq& a, unsigned i) {
    const uint64_t nb = uint64_t{1} << a.size;
    if (i == 0) return a.addr;
    if (a.burst == 0) return a.addr;
    const uint64_t aligned = a.addr & ~(nb - 1);
    if (a.burst == 2) {
      const uint64_t span = nb * a.len;
      const uint64_t lower = a.addr & ~(span - 1);
      return lower + ((aligned - lower + i * nb) % span);
    }
    return aligned + i * nb;
  }

  std::optional<AxiResp> error_for(uint64_t lo, uint64_t n, bool write) const {
    for (const auto& e : opt_.errors) {
      if ((write ? e.writes : e.reads) && lo < e.limit && lo + n > e.base) return e.resp;
    }
    return std::nullopt;
  }

  // ---- R ------------------------------------------------------------------------------------
  void pick_r() {
    // Candidate IDs: head burst's data is due.
    std::vector<uint32_t> ready;
    if (r_lock_) {
      ready.push_back(*r_lock_);
    } else {
      for (auto& [id, q] : rd_) {
        if (!q.empty() && q.front().ready_cycle <= cycle_) ready.push_back(id);
      }
      if (ready.empty()) return;
      if (!opt_.interleave) {
        // the oldest burst that is due, if it heads its ID's queue
        uint32_t best = ready.front();
        uint64_t best_seq = UINT64_MAX;
        for (auto id : ready) {
          if (rd_[id].front().seq < best_seq) {
            best_seq = rd_[id].front().seq;
            best = id;
          }
        }
        ready.assign(1, best);
      }
    }
    if (chance(opt_.r_gap)) return;
    const uint32_t id =
        ready[std::uniform_int_distribution<size_t>(0, ready.size() - 1)(rng_)];
    ReadBurst& rb = rd_[id].front();
    if (!opt_.interleave) r_lock_ = id;
    RBeat beat;
    beat.id = id;
    beat.data.assign(bus_bytes_, 0);
    const uint64_t a = beat_addr(rb.req, rb.beat);
    const uint64_t nb = uint64_t{1} << rb.req.size;
    const uint64_t lane0 = a & (bus_bytes_ - 1);
    const uint64_t n = nb - (a & (nb - 1));  // bytes up to the next size boundary
    log_beat(a, nb, false);
    const auto err = error_for(a, n, false);
    beat.resp = err.value_or(AxiResp::kOkay);
    if (err) {
      std::fill(beat.data.begin(), beat.data.end(), 0xE5);
    } else {
      mem_.read(a, beat.data.data() + lane0, std::min<uint64_t>(n, bus_bytes_ - lane0));
    }
    beat.last = (rb.beat + 1 == rb.req.len);
    r_cur_ = std::move(beat);
  }

  // ---- W / B --------------------------------------------------------------------------------
  void match_writes() {
    while (!w_ahead_.empty()) {
      auto it = std::find_if(aw_.begin(), aw_.end(), [](const WriteBurst& wb) { return wb.beat < wb.req.len; });
      if (it == aw_.end()) return;
      WriteBurst& wb = *it;
      WBeat w = std::move(w_ahead_.front());
      w_ahead_.pop_front();
      const bool last = (wb.beat + 1 == wb.req.len);
      if (w.last != last)
        violation("W: WLAST " + std::to_string(w.last) + " on beat " + std::to_string(wb.beat + 1) +
                  " of a " + std::to_string(wb.req.len) + "-beat burst at 0x" + hex(wb.req.addr));
      const uint64_t a = beat_addr(wb.req, wb.beat);
      const uint64_t nb = uint64_t{1} << wb.req.size;
      const uint64_t lane0 = a & (bus_bytes_ - 1);
      const uint64_t lane_end = std::min<uint64_t>(bus_bytes_, lane0 + nb - (a & (nb - 1)));
      const uint64_t base = a - lane0;  // address of byte lane 0
      for (unsigned i = 0; i < bus_bytes_; ++i) {
        if (w.strb[i] && (i < lane0 || i >= lane_end)) {
          violation("W: strobe on byte lane " + std::to_string(i) + " outside the beat at 0x" + hex(a));
          break;  // one record per beat
        }
      }
      log_beat(a, nb, true);
      const auto err = error_for(a, lane_end - lane0, true);
      if (err) {
        if (wb.resp == AxiResp::kOkay) wb.resp = *err;
      } else {
        // write runs of strobed bytes
        unsigned i = static_cast<unsigned>(lane0);
        while (i < lane_end) {
          if (!w.strb[i]) {
            ++i;
            continue;
          }
          unsigned j = i;
          while (j < lane_end && w.strb[j]) ++j;
          mem_.write(base + i, w.data.data() + i, j - i);
          i = j;
        }
      }
      ++wb.beat;
      if (wb.beat == wb.req.len) {
        const uint64_t t = std::max(w.cycle, wb.aw_cycle);
        b_[wb.req.id].push_back({wb.req.id, wb.resp, t + 1 + opt_.write_latency, seq_++});
        aw_.erase(it);
      }
    }
  }

  void pick_b() {
    std::vector<uint32_t> ready;
    for (auto& [id, q] : b_) {
      if (!q.empty() && q.front().ready_cycle <= cycle_) ready.push_back(id);
    }
    if (ready.empty() || chance(opt_.b_gap)) return;
    uint32_t id;
    if (opt_.interleave) {
      id = ready[std::uniform_int_distribution<size_t>(0, ready.size() - 1)(rng_)];
    } else {
      id = *std::min_element(ready.begin(), ready.end(), [&](uint32_t x, uint32_t y) {
        return b_[x].front().seq < b_[y].front().seq;
      });
    }
    b_cur_ = b_[id].front();
  }

  Model& dut_;
  HostMemory& mem_;
  unsigned bus_bytes_;
  AxiMemOptions opt_;
  std::mt19937_64 rng_;
  AxiMemStats stats_;
  std::vector<std::string> violations_;
  std::vector<AxiAccess> accesses_;
  uint64_t cycle_ = 0;
  uint64_t seq_ = 0;

  bool ar_ready_ = false, aw_ready_ = false, w_ready_ = false;
  bool ar_stalled_ = false, aw_stalled_ = false, w_stalled_ = false;
  AddrReq ar_prev_, aw_prev_;
  WBeat w_prev_;

  std::map<uint32_t, std::deque<ReadBurst>> rd_;
  std::optional<RBeat> r_cur_;
  std::optional<uint32_t> r_lock_;
  unsigned reads_out_ = 0;

  std::deque<WriteBurst> aw_;
  std::deque<WBeat> w_ahead_;
  std::map<uint32_t, std::deque<BResp>> b_;
  std::optional<BResp> b_cur_;
  unsigned writes_out_ = 0;
};

}  // namespace weft::sim
