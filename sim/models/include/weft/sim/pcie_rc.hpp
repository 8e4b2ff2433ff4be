// weft/sim/pcie_rc.hpp: root-complex model (header only) for the PCIe-like TLP link of
// weft_pcie_ep / weft_pcie_top (docs/host-interfaces.md section 1).
//
// Template on the Verilated model (or a test endpoint with the same members); it drives and reads:
//   rx_valid, rx_ready, rx_sop, rx_eop, rx_data[4]   (root complex -> endpoint; rx_data[i] = DW i)
//   tx_valid, tx_ready, tx_sop, tx_eop, tx_data[4]   (endpoint -> root complex)
//
// What it does:
//  - host memory (weft::sim::HostMemory) behind the endpoint's MRd / MWr: MRd is answered after
//    `mem_latency` cycles with CplDs split at the read completion boundary (rcb, 64 B) into chunks
//    of `cpl` bytes (the first ends at the next multiple of `cpl`), with Byte Count and Lower
//    Address per the PCIe rules; MWr land in HostMemory in arrival order; MWr into the MSI window
//    [msi_base, msi_base + msi_size) are counted as MSI (address and data kept), not stored;
//  - BAR0 accesses for the driver or a test: bar0_read(off) / bar0_write(off, v) queue an MRd /
//    MWr to bar0_base + off and return an id; pop_bar0() returns results (reads when their
//    completion arrived, writes once the MWr was handed to the endpoint);
//  - a serialising link in each direction: lanes x gts x 128/130 / 8 bytes per second, i.e.
//    peak_bytes_per_cycle() at clock_mhz; every TLP costs its header, payload and 12 B of framing;
//    it arrives `latency` cycles after its last byte went on the wire plus 0..jitter random cycles.
//    Requests and writes keep their order (each direction); completions of one tag keep their
//    order, completions of different tags may overtake each other. The endpoint's tx is
//    back-pressured when the wire is behind, and randomly with probability bp per cycle;
//  - fault injection on device reads: an MRd touching [lo, hi) of a fault range (add_fault) or
//    drawn at random (set_random_faults) gets no completion (kDrop), a Cpl with status UR / CA and
//    no data (Byte Count = the request's byte count), its CplDs with EP = 1 (kPoison), or a
//    malformed first CplD (kTruncated ... kGarbage: the endpoint must drop it, count it in
//    LINK_CPL_BAD and end the read with a completion timeout; the rest follow as usual);
//  - checks of every TLP the endpoint sends (recorded in violations(), never thrown): beats
//    without sop / sop inside a TLP, unknown Fmt/Type, Length vs eop, non-zero unused DWs,
//    4-DW header below 4 GiB, 4 KiB crossing, > MaxPayload / MaxReadReq, byte-enable rules,
//    wrong requester ID, tag >= num_tags or reused while outstanding, completions that do not
//    match a BAR0 read.
//
// Tick protocol (as every Weft bus model): per cycle drive() sets rx_* and tx_ready from the
// model's own state only; <evaluate>; sample() reads the DUT's outputs and commits the handshakes
// of the coming edge; <clock edge>. The model's cycle counter advances in sample().
#pragma once

#include <algorithm>
#include <array>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <deque>
#include <functional>
#include <map>
#include <optional>
#include <random>
#include <stdexcept>
#include <string>
#include <type_traits>
#include <vector>

#include "weft/sim/host_memory.hpp"

namespace weft::sim {

// ------------------------------------------------------------------------------------------ TLPs
namespace tlp {
constexpr uint8_t kFmt3dw = 0, kFmt4dw = 1, kFmt3dwData = 2, kFmt4dwData = 3;
constexpr uint8_t kTypeMem = 0x00, kTypeCpl = 0x0A;
constexpr uint8_t kStatusSc = 0, kStatusUr = 1, kStatusCa = 4;
}  // namespace tlp

// One TLP: header DWs (hdr[3] = 0 for a 3-DW header) and payload DWs (little-endian bytes).
struct Tlp {
  std::array<uint32_t, 4> hdr{};
  std::vector<uint32_t> payload;

  uint8_t fmt() const { return static_cast<uint8_t>((hdr[0] >> 29) & 7); }
  uint8_t type() const { return static_cast<uint8_t>((hdr[0] >> 24) & 0x1f); }
  bool has_data() const { return (fmt() & 2) != 0; }
  bool four_dw() const { return (fmt() & 1) != 0; }
  bool poisoned() const { return ((hdr[0] >> 14) & 1) != 0; }
  unsigned length_dw() const {
    const unsigned l = hdr[0] & 0x3ff;
    return l == 0 ? 1024 : l;
  }
  bool is_mem() const { return type() == tlp::kTypeMem && fmt() <= 3; }
  bool is_mrd() const { return is_mem() && !has_data(); }
  bool is_mwr() const { return is_mem() && has_data(); }
  bool is_cpl() const { return type() == tlp::kTypeCpl && (fmt() == 0 || fmt() == 2); }
  // Requests.
  uint16_t requester() const { return static_cast<uint16_t>(is_cpl() ? hdr[2] >> 16 : hdr[1] >> 16); }
  uint8_t tag() const { return static_cast<uint8_t>(is_cpl() ? hdr[2] >> 8 : hdr[1] >> 8); }
  uint8_t first_be() const { return hdr[1] & 0xf; }
  uint8_t last_be() const { return (hdr[1] >> 4) & 0xf; }
  uint64_t addr() const {  // DW-aligned address
    return four_dw() ? ((uint64_t{hdr[2]} << 32) | (hdr[3] & ~3u)) : (hdr[2] & ~3u);
  }
  // Completions.
  uint16_t completer() const { return static_cast<uint16_t>(hdr[1] >> 16); }
  uint8_t status() const { return (hdr[1] >> 13) & 7; }
  unsigned byte_count() const {
    const unsigned b = hdr[1] & 0xfff;
    return b == 0 ? 4096 : b;
  }
  uint8_t lower_addr() const { return hdr[2] & 0x7f; }

  // Number of beats on the 128-bit stream.
  size_t beats() const { return 1 + (payload.size() + 3) / 4; }
  // Bytes of the TLP itself (header + payload, no framing).
  uint64_t bytes() const { return (four_dw() ? 16 : 12) + 4 * payload.size(); }
};

// Byte count of a memory request (PCIe rules for First/Last DW BE) and the offset of its first
// enabled byte within the first DW.
inline unsigned tlp_request_bytes(unsigned length_dw, uint8_t fbe, uint8_t lbe,
                                  unsigned* first_off = nullptr) {
  auto low = [](uint8_t be) { unsigned i = 0; while (i < 4 && !((be >> i) & 1)) ++i; return i; };
  auto high = [](uint8_t be) { int i = 3; while (i >= 0 && !((be >> i) & 1)) --i; return i; };
  if (length_dw == 1) {
    if (first_off) *first_off = fbe == 0 ? 0 : low(fbe);
    if (fbe == 0) return 1;  // zero-length read: Byte Count 1
    return static_cast<unsigned>(high(fbe)) - low(fbe) + 1;
  }
  if (first_off) *first_off = low(fbe);
  return length_dw * 4 - low(fbe) - (3 - static_cast<unsigned>(high(lbe)));
}

inline Tlp tlp_mem(bool write, uint64_t addr, unsigned length_dw, uint8_t fbe, uint8_t lbe,
                   uint16_t requester, uint8_t tag, std::vector<uint32_t> payload = {}) {
  Tlp t;
  const bool four = addr >= (uint64_t{1} << 32);
  const uint8_t fmt = static_cast<uint8_t>((write ? 2 : 0) | (four ? 1 : 0));
  t.hdr[0] = (uint32_t{fmt} << 29) | (uint32_t{tlp::kTypeMem} << 24) | (length_dw & 0x3ff);
  t.hdr[1] = (uint32_t{requester} << 16) | (uint32_t{tag} << 8) | (uint32_t{lbe & 0xfu} << 4) |
             (fbe & 0xfu);
  if (four) {
    t.hdr[2] = static_cast<uint32_t>(addr >> 32);
    t.hdr[3] = static_cast<uint32_t>(addr) & ~3u;
  } else {
    t.hdr[2] = static_cast<uint32_t>(addr) & ~3u;
  }
  t.payload = std::move(payload);
  return t;
}

// Cpl (no payload) or CplD.
inline Tlp tlp_cpl(uint16_t completer, uint8_t status, unsigned byte_count, uint16_t requester,
                   uint8_t tag, uint8_t lower_addr, std::vector<uint32_t> payload = {},
                   bool poisoned = false) {
  Tlp t;
  const bool data = !payload.empty();
  t.hdr[0] = (uint32_t{data ? tlp::kFmt3dwData : tlp::kFmt3dw} << 29) |
             (uint32_t{tlp::kTypeCpl} << 24) | (poisoned ? 1u << 14 : 0u) |
             (data ? static_cast<uint32_t>(payload.size()) & 0x3ff : 0u);
  t.hdr[1] = (uint32_t{completer} << 16) | (uint32_t{status & 7u} << 13) | (byte_count & 0xfff);
  t.hdr[2] = (uint32_t{requester} << 16) | (uint32_t{tag} << 8) | (lower_addr & 0x7fu);
  t.payload = std::move(payload);
  return t;
}

// The beats of a TLP on the 128-bit stream (beat 0 = header).
inline std::vector<std::array<uint32_t, 4>> tlp_beats(const Tlp& t) {
  std::vector<std::array<uint32_t, 4>> b(t.beats());
  b[0] = t.hdr;
  for (size_t j = 0; j < t.payload.size(); ++j) b[1 + j / 4][j % 4] = t.payload[j];
  return b;
}

// ------------------------------------------------------------------------------------ the model
enum class PcieFault : uint8_t {
  kNone = 0,
  kDrop = 1,
  kUr = 2,
  kCa = 3,
  kPoison = 4,
  // Malformed first completion of the read:
  kTruncated = 5,        // eop one beat before its Length says (no data beat at all if it had one)
  kOverlong = 6,         // one data beat more than its Length says
  kBadTag = 7,           // a tag the endpoint never uses (>= num_tags)
  kBadByteCount = 8,     // Byte Count 16 more than what is outstanding
  kBadLowerAddress = 9,  // Lower Address of another beat
  kGarbage = 10,         // random header fields (not the endpoint's requester ID), random Length
};
inline constexpr int kPcieFaultKinds = 11;

inline const char* pcie_fault_name(PcieFault f) {
  switch (f) {
    case PcieFault::kNone: return "none";
    case PcieFault::kDrop: return "drop";
    case PcieFault::kUr: return "ur";
    case PcieFault::kCa: return "ca";
    case PcieFault::kPoison: return "poison";
    case PcieFault::kTruncated: return "truncated";
    case PcieFault::kOverlong: return "overlong";
    case PcieFault::kBadTag: return "badtag";
    case PcieFault::kBadByteCount: return "badcount";
    case PcieFault::kBadLowerAddress: return "badaddr";
    case PcieFault::kGarbage: return "garbage";
  }
  return "?";
}

struct PcieRcOptions {
  unsigned lanes = 4;
  double gts = 8.0;          // GT/s per lane (Gen3)
  double clock_mhz = 250.0;  // device clock
  unsigned latency = 100;    // one-way link latency, cycles
  unsigned jitter = 0;       // random extra latency per TLP, 0..jitter cycles
  unsigned mem_latency = 32; // host memory latency before the completions, cycles
  unsigned cpl = 64;         // completion size in bytes (multiple of rcb)
  unsigned rcb = 64;         // read completion boundary
  double bp = 0.0;           // P(tx_ready held low in a cycle)
  uint64_t bar0_base = 0xF0000000ull;
  uint64_t msi_base = 0xFEE00000ull;  // MWr into [msi_base, msi_base + msi_size) are MSI
  uint64_t msi_size = 0x100000;
  uint16_t ep_id = 0x0100;   // the endpoint's requester / completer ID
  uint16_t rc_id = 0x0000;
  unsigned num_tags = 32;    // endpoint tags 0..num_tags-1
  unsigned max_payload = 256;
  unsigned max_read_req = 512;
  double wire_slack = 2.0;   // cycles of wire backlog before tx_ready drops
  uint64_t seed = 1;
};

struct Bar0Result {
  uint64_t id = 0;
  bool write = false;
  uint32_t offset = 0;
  uint8_t status = tlp::kStatusSc;  // SC, UR or CA (tlp::kStatus*)
  uint32_t data = 0;
  uint64_t issue_cycle = 0;
  uint64_t done_cycle = 0;
};

struct PcieRcStats {
  uint64_t mrd = 0, mwr = 0, cpl = 0;  // TLPs from the endpoint (MWr includes MSI)
  uint64_t cpld_sent = 0, cpl_sent = 0;  // completions to the endpoint (with / without data)
  uint64_t msi = 0, last_msi_addr = 0;
  uint32_t last_msi_data = 0;
  uint64_t wire_bytes_rx = 0, wire_bytes_tx = 0;        // framing + header + payload (host view)
  uint64_t payload_bytes_rx = 0, payload_bytes_tx = 0;  // payload only
  uint64_t faults = 0;
  std::array<uint64_t, kPcieFaultKinds> faults_by_kind{};  // indexed by PcieFault
};

template <class Dut>
class PcieRc {
 public:
  PcieRc(Dut& dut, HostMemory& mem, PcieRcOptions opt = {})
      : dut_(dut), mem_(mem), opt_(opt), rng_(opt.seed) {
    bpc_ = opt_.lanes * opt_.gts * 1e9 * 128.0 / 130.0 / 8.0 / (opt_.clock_mhz * 1e6);
    if (opt_.cpl == 0 || opt_.rcb == 0 || opt_.cpl % opt_.rcb != 0) opt_.cpl = opt_.rcb = 64;
    tag_busy_.assign(256, false);
    drive_idle();
  }
  PcieRc(const PcieRc&) = delete;
  PcieRc& operator=(const PcieRc&) = delete;

  const PcieRcOptions& options() const { return opt_; }
  double peak_bytes_per_cycle() const { return bpc_; }
  uint64_t cycle() const { return cycle_; }
  const PcieRcStats& stats() const { return stats_; }
  const std::vector<std::string>& violations() const { return violations_; }
  void clear_violations() { violations_.clear(); }
  void set_msi_window(uint64_t base, uint64_t size) { opt_.msi_base = base, opt_.msi_size = size; }

  // ---------------------------------------------------------------- BAR0 (host requests)
  uint64_t bar0_read(uint32_t off) {
    const uint8_t tag = next_rc_tag();
    const uint64_t id = next_id_++;
    rc_reads_[tag] = Bar0Result{id, false, off, tlp::kStatusSc, 0, cycle_, 0};
    send_request(tlp_mem(false, opt_.bar0_base + off, 1, 0xf, 0, opt_.rc_id, tag), id);
    return id;
  }
  uint64_t bar0_write(uint32_t off, uint32_t v, uint8_t be = 0xf) {
    const uint64_t id = next_id_++;
    send_request(tlp_mem(true, opt_.bar0_base + off, 1, be, 0, opt_.rc_id, 0, {v}), id);
    pending_writes_[id] = Bar0Result{id, true, off, tlp::kStatusSc, v, cycle_, 0};
    return id;
  }
  std::optional<Bar0Result> pop_bar0() {
    if (bar0_done_.empty()) return std::nullopt;
    Bar0Result r = bar0_done_.front();
    bar0_done_.pop_front();
    return r;
  }
  // Any TLP to the endpoint (tests: malformed requests, spurious completions). Requests keep
  // their order with bar0_*; a completion goes in the per-tag completion order.
  void send_raw(const Tlp& t) {
    if (t.is_cpl()) {
      enqueue_out(t, 0, true);
    } else {
      send_request(t, 0);
    }
  }
  // Called with every TLP the endpoint sends, when it arrives (after the link); return true to
  // consume it (the model then does nothing else with it beyond the checks and counters).
  void on_device_tlp(std::function<bool(const Tlp&)> fn) { hook_ = std::move(fn); }

  // ---------------------------------------------------------------- faults
  void add_fault(PcieFault kind, uint64_t lo, uint64_t hi) { faults_.push_back({kind, lo, hi}); }
  void clear_faults() {
    faults_.clear();
    random_kind_ = PcieFault::kNone;
    random_rate_ = 0;
  }
  // Each device MRd fails with `kind` with probability `rate` (kNone: a random kind each time).
  void set_random_faults(PcieFault kind, double rate) {
    random_kind_ = kind;
    random_rate_ = rate;
  }

  // Nothing queued, in flight or being delivered in either direction (and no device read
  // waiting for its completions).
  bool idle() const {
    return out_.empty() && !cur_out_ && in_.empty() && !in_cur_open_ && mem_jobs_.empty() &&
           pending_writes_.empty() && rc_reads_.empty();
  }
  // Device tags the model considers outstanding (requested, last completion not yet delivered).
  unsigned device_tags_outstanding() const {
    return static_cast<unsigned>(std::count(tag_busy_.begin(), tag_busy_.end(), true));
  }

  // Forgets everything in flight (around a DUT reset); counters and violations stay.
  void clear() {
    out_.clear();
    cur_out_.reset();
    in_.clear();
    in_cur_ = Tlp{};
    in_cur_open_ = false;
    mem_jobs_.clear();
    pending_writes_.clear();
    rc_reads_.clear();
    bar0_done_.clear();
    std::fill(tag_busy_.begin(), tag_busy_.end(), false);
    last_req_arrival_ = 0;
    last_in_arrival_ = 0;
    last_cpl_arrival_.clear();
    drive_idle();
  }

  // ---------------------------------------------------------------- per cycle
  void drive() {
    // rx: the current TLP's beat, or the next TLP that has arrived.
    if (!cur_out_) pick_out();
    if (cur_out_) {
      const auto& b = cur_out_->beats[cur_beat_];
      dut_.rx_valid = 1;
      dut_.rx_sop = cur_beat_ == 0;
      dut_.rx_eop = cur_beat_ + 1 == cur_out_->beats.size();
      for (int i = 0; i < 4; ++i) dut_.rx_data[i] = b[i];
    } else {
      drive_rx_idle();
    }
    const bool wire_ok = in_wire_free_ - static_cast<double>(cycle_) < opt_.wire_slack;
    tx_ready_ = wire_ok && !chance(opt_.bp);
    dut_.tx_ready = tx_ready_;
  }

  void sample() {
    // rx handshake.
    if (cur_out_ && dut_.rx_ready) {
      if (++cur_beat_ == cur_out_->beats.size()) delivered();
    }
    // tx handshake.
    if (tx_ready_ && dut_.tx_valid) take_tx_beat();
    ++cycle_;
    // TLPs from the endpoint that have crossed the link.
    while (!in_.empty() && in_.front().arrival <= cycle_) {
      InFlight f = std::move(in_.front());
      in_.pop_front();
      handle_in(f.tlp);
    }
    // Host memory answering device reads.
    while (!mem_jobs_.empty() && mem_jobs_.front().ready <= cycle_) {
      MemJob j = mem_jobs_.front();
      mem_jobs_.pop_front();
      answer(j);
    }
  }

 private:
  struct Out {
    std::vector<std::array<uint32_t, 4>> beats;
    uint64_t arrival = 0;
    uint64_t seq = 0;
    uint64_t id = 0;  // BAR0 write id (result on delivery)
    bool cpl = false;
    uint8_t tag = 0;
    bool last_cpl = false;  // last completion of a device read: frees the tag on delivery
    uint64_t bytes = 0;
  };
  struct InFlight {
    Tlp tlp;
    uint64_t arrival;
  };
  struct MemJob {
    Tlp req;
    uint64_t ready;
    PcieFault fault;
  };
  struct FaultRange {
    PcieFault kind;
    uint64_t lo, hi;
  };

  template <class T>
  using port_t = std::remove_cv_t<std::remove_reference_t<T>>;

  bool chance(double p) {
    return p > 0.0 && std::uniform_real_distribution<double>(0.0, 1.0)(rng_) < p;
  }
  uint64_t jitter() {
    return opt_.jitter == 0 ? 0
                            : std::uniform_int_distribution<uint64_t>(0, opt_.jitter)(rng_);
  }
  void violation(const std::string& what) {
    violations_.push_back("cycle " + std::to_string(cycle_) + ": " + what);
  }
  static std::string hex(uint64_t v) {
    char b[24];
    std::snprintf(b, sizeof b, "0x%llx", static_cast<unsigned long long>(v));
    return b;
  }

  void drive_rx_idle() {
    dut_.rx_valid = 0;
    dut_.rx_sop = 0;
    dut_.rx_eop = 0;
    for (int i = 0; i < 4; ++i) dut_.rx_data[i] = 0;
  }
  void drive_idle() {
    drive_rx_idle();
    dut_.tx_ready = 0;
    tx_ready_ = false;
  }

  uint8_t next_rc_tag() {
    for (unsigned i = 0; i < 256; ++i) {
      const uint8_t t = static_cast<uint8_t>(rc_tag_next_ + i);
      if (!rc_reads_.count(t)) {
        rc_tag_next_ = static_cast<uint8_t>(t + 1);
        return t;
      }
    }
    throw std::runtime_error("PcieRc: more than 256 BAR0 reads outstanding");
  }

  // Puts a TLP on the RC -> EP wire: it arrives after serialisation + latency + jitter.
  uint64_t wire_out(const Tlp& t) {
    const uint64_t bytes = t.bytes() + 12;
    const double start = std::max(out_wire_free_, static_cast<double>(cycle_));
    out_wire_free_ = start + static_cast<double>(bytes) / bpc_;
    stats_.wire_bytes_tx += bytes;
    stats_.payload_bytes_tx += 4 * t.payload.size();
    return static_cast<uint64_t>(std::ceil(out_wire_free_)) + opt_.latency + jitter();
  }
  void send_request(const Tlp& t, uint64_t id) {
    Out o;
    o.beats = tlp_beats(t);
    o.arrival = std::max(wire_out(t), last_req_arrival_);
    last_req_arrival_ = o.arrival;
    o.seq = seq_++;
    o.id = id;
    out_.push_back(std::move(o));
  }
  void enqueue_out(const Tlp& t, uint64_t id, bool cpl, bool last_cpl = false) {
    Out o;
    o.beats = tlp_beats(t);
    uint64_t a = wire_out(t);
    if (cpl) {
      auto& last = last_cpl_arrival_[t.tag()];
      a = std::max(a, last);
      last = a;
    }
    o.arrival = a;
    o.seq = seq_++;
    o.id = id;
    o.cpl = cpl;
    o.tag = t.tag();
    o.last_cpl = last_cpl;
    out_.push_back(std::move(o));
  }
  // The next TLP to hand to the endpoint: earliest arrival (then sequence) among those arrived.
  void pick_out() {
    auto best = out_.end();
    for (auto it = out_.begin(); it != out_.end(); ++it) {
      if (it->arrival > cycle_) continue;
      if (best == out_.end() || it->arrival < best->arrival ||
          (it->arrival == best->arrival && it->seq < best->seq)) {
        best = it;
      }
    }
    if (best == out_.end()) return;
    cur_out_ = std::move(*best);
    out_.erase(best);
    cur_beat_ = 0;
  }
  void delivered() {
    Out o = std::move(*cur_out_);
    cur_out_.reset();
    if (o.id != 0) {
      auto it = pending_writes_.find(o.id);
      if (it != pending_writes_.end()) {
        it->second.done_cycle = cycle_;
        bar0_done_.push_back(it->second);
        pending_writes_.erase(it);
      }
    }
    if (o.last_cpl) tag_busy_[o.tag] = false;
  }

  // ---------------------------------------------------------------- endpoint -> RC
  void take_tx_beat() {
    std::array<uint32_t, 4> d{};
    for (int i = 0; i < 4; ++i) d[i] = static_cast<uint32_t>(dut_.tx_data[i]);
    const bool sop = dut_.tx_sop, eop = dut_.tx_eop;
    double bytes = 0;
    if (sop) {
      if (in_cur_open_) violation("tx: sop inside a TLP (previous TLP has no eop)");
      in_cur_ = Tlp{};
      in_cur_.hdr = d;
      in_cur_open_ = true;
      in_beats_ = 1;
      in_expect_ = 0;
      const bool data = in_cur_.has_data();
      const unsigned len = in_cur_.length_dw();
      in_expect_ = data ? len : 0;
      bytes = static_cast<double>((in_cur_.four_dw() ? 16 : 12) + 12);
      if (!in_cur_.four_dw() && d[3] != 0) violation("tx: 3-DW header with DW3 != 0");
    } else {
      if (!in_cur_open_) {
        violation("tx: beat without sop");
        return;
      }
      ++in_beats_;
      for (int i = 0; i < 4; ++i) {
        if (in_cur_.payload.size() < in_expect_) {
          in_cur_.payload.push_back(d[i]);
          bytes += 4;
        } else if (d[i] != 0) {
          violation("tx: unused DW " + std::to_string(i) + " of the last beat is not zero");
        }
      }
    }
    const double start = std::max(in_wire_free_, static_cast<double>(cycle_));
    in_wire_free_ = start + bytes / bpc_;
    stats_.wire_bytes_rx += static_cast<uint64_t>(bytes);
    if (!sop) stats_.payload_bytes_rx += static_cast<uint64_t>(bytes);
    const size_t want_beats = 1 + (in_expect_ + 3) / 4;
    if (eop) {
      in_cur_open_ = false;
      if (in_beats_ != want_beats) {
        violation("tx: eop after " + std::to_string(in_beats_) + " beats, Length " +
                  std::to_string(in_cur_.length_dw()) + " implies " + std::to_string(want_beats));
        return;
      }
      uint64_t a = static_cast<uint64_t>(std::ceil(in_wire_free_)) + opt_.latency + jitter();
      a = std::max(a, last_in_arrival_);
      last_in_arrival_ = a;
      check_tlp(in_cur_);
      in_.push_back({std::move(in_cur_), a});
      in_cur_ = Tlp{};
    } else if (in_beats_ >= want_beats) {
      violation("tx: no eop on beat " + std::to_string(in_beats_) + " where Length " +
                std::to_string(in_cur_.length_dw()) + " ends the TLP");
    }
  }

  static bool be_contig_high(uint8_t be) { return be == 0xf || be == 0xe || be == 0xc || be == 0x8; }
  static bool be_contig_low(uint8_t be) { return be == 0xf || be == 0x7 || be == 0x3 || be == 0x1; }

  // Format checks at reception (before the link latency).
  void check_tlp(const Tlp& t) {
    if (t.is_mem()) {
      const std::string what = std::string(t.is_mrd() ? "MRd" : "MWr") + " at " + hex(t.addr());
      if (t.four_dw() && t.addr() < (uint64_t{1} << 32)) violation(what + ": 4-DW header below 4 GiB");
      if (t.requester() != opt_.ep_id) violation(what + ": requester ID " + hex(t.requester()));
      const unsigned len = t.length_dw();
      const uint64_t bytes = uint64_t{len} * 4;
      if ((t.addr() >> 12) != ((t.addr() + bytes - 1) >> 12)) violation(what + ": crosses 4 KiB");
      if (t.is_mwr() && bytes > opt_.max_payload) {
        violation(what + ": " + std::to_string(bytes) + " B > MaxPayload");
      }
      if (t.is_mrd() && bytes > opt_.max_read_req) {
        violation(what + ": " + std::to_string(bytes) + " B > MaxReadReq");
      }
      const uint8_t f = t.first_be(), l = t.last_be();
      if (len == 1) {
        if (l != 0) violation(what + ": Length 1 with Last DW BE != 0");
      } else {
        if (f == 0 || l == 0) violation(what + ": Length > 1 with a zero First/Last DW BE");
        const bool qw2 = len == 2 && (t.addr() & 7) == 0;
        if (!qw2 && (!be_contig_high(f) || !be_contig_low(l))) {
          violation(what + ": non-contiguous byte enables (First " + hex(f) + ", Last " + hex(l) + ")");
        }
      }
      if (t.is_mrd()) {
        if (t.tag() >= opt_.num_tags) violation(what + ": tag " + std::to_string(t.tag()) + " >= NumTags");
        if (tag_busy_[t.tag()]) {
          violation(what + ": tag " + std::to_string(t.tag()) + " reused while outstanding");
        }
        tag_busy_[t.tag()] = true;
      }
    } else if (t.is_cpl()) {
      if (t.has_data() && t.status() != tlp::kStatusSc) violation("tx: CplD with status != SC");
    } else {
      violation("tx: unknown Fmt/Type " + hex(t.hdr[0] >> 24));
    }
  }

  // A TLP from the endpoint after the link.
  void handle_in(const Tlp& t) {
    if (t.is_mrd()) ++stats_.mrd;
    if (t.is_mwr()) ++stats_.mwr;
    if (t.is_cpl()) ++stats_.cpl;
    if (hook_ && hook_(t)) {
      if (t.is_mrd()) tag_busy_[t.tag()] = false;
      return;
    }
    if (t.is_mwr()) {
      const uint64_t a = t.addr();
      if (a >= opt_.msi_base && a < opt_.msi_base + opt_.msi_size) {
        ++stats_.msi;
        stats_.last_msi_addr = a;
        stats_.last_msi_data = t.payload.empty() ? 0 : t.payload[0];
        if (t.length_dw() != 1 || t.first_be() != 0xf) violation("MSI write not 1 DW with BE 0xF");
        return;
      }
      const unsigned n = static_cast<unsigned>(t.payload.size());
      for (unsigned j = 0; j < n; ++j) {
        const uint8_t be = j == 0 ? t.first_be() : (j + 1 == n ? t.last_be() : 0xf);
        const uint32_t v = t.payload[j];
        // Contiguous runs of enabled bytes go in one write (one log record per run).
        unsigned i = 0;
        while (i < 4) {
          if (!((be >> i) & 1)) { ++i; continue; }
          unsigned k = i;
          uint8_t buf[4];
          while (k < 4 && ((be >> k) & 1)) { buf[k - i] = static_cast<uint8_t>(v >> (8 * k)); ++k; }
          mem_.write(a + 4 * j + i, buf, k - i);
          i = k;
        }
      }
    } else if (t.is_mrd()) {
      PcieFault f = PcieFault::kNone;
      unsigned off = 0;
      const unsigned bc = tlp_request_bytes(t.length_dw(), t.first_be(), t.last_be(), &off);
      const uint64_t lo = t.addr() + off, hi = lo + bc;
      for (const auto& r : faults_) {
        if (lo < r.hi && r.lo < hi) { f = r.kind; break; }
      }
      if (f == PcieFault::kNone && random_rate_ > 0 && chance(random_rate_)) {
        f = random_kind_;
        if (f == PcieFault::kNone) {
          f = static_cast<PcieFault>(std::uniform_int_distribution<int>(1, 4)(rng_));
        }
      }
      if (f != PcieFault::kNone) {
        ++stats_.faults;
        ++stats_.faults_by_kind[static_cast<size_t>(f)];
      }
      if (f == PcieFault::kDrop || f >= PcieFault::kTruncated) {
        tag_busy_[t.tag()] = false;  // the endpoint frees it at its completion timeout
        if (f == PcieFault::kDrop) return;
      }
      mem_jobs_.push_back({t, cycle_ + opt_.mem_latency, f});
    } else if (t.is_cpl()) {
      auto it = rc_reads_.find(t.tag());
      if (t.requester() != opt_.rc_id || it == rc_reads_.end()) {
        violation("completion for requester " + hex(t.requester()) + " tag " +
                  std::to_string(t.tag()) + " matches no BAR0 read");
        return;
      }
      Bar0Result r = it->second;
      rc_reads_.erase(it);
      if (t.completer() != opt_.ep_id) violation("BAR0 completion: completer ID " + hex(t.completer()));
      r.status = t.status();
      if (t.status() == tlp::kStatusSc) {
        if (!t.has_data() || t.payload.size() != 1) {
          violation("BAR0 read completion with status SC is not a 1-DW CplD");
        } else {
          r.data = t.payload[0];
        }
        if (t.byte_count() != 4) violation("BAR0 CplD: Byte Count " + std::to_string(t.byte_count()));
        if (t.lower_addr() != ((opt_.bar0_base + r.offset) & 0x7f)) {
          violation("BAR0 CplD: Lower Address " + hex(t.lower_addr()));
        }
      } else if (t.has_data()) {
        violation("BAR0 completion with status " + std::to_string(t.status()) + " carries data");
      }
      r.done_cycle = cycle_;
      bar0_done_.push_back(r);
    }
  }

  // Completions of one device read.
  void answer(const MemJob& j) {
    const Tlp& t = j.req;
    unsigned off = 0;
    const unsigned total = tlp_request_bytes(t.length_dw(), t.first_be(), t.last_be(), &off);
    const uint64_t first = t.addr() + off;  // first enabled byte
    if (j.fault == PcieFault::kUr || j.fault == PcieFault::kCa) {
      const uint8_t st = j.fault == PcieFault::kUr ? tlp::kStatusUr : tlp::kStatusCa;
      ++stats_.cpl_sent;
      enqueue_out(tlp_cpl(opt_.rc_id, st, total, t.requester(), t.tag(),
                          static_cast<uint8_t>(first & 0x7f)),
                  0, true, true);
      return;
    }
    const bool poison = j.fault == PcieFault::kPoison;
    const bool malformed = j.fault >= PcieFault::kTruncated;
    bool first_cpl = true;
    uint64_t a = first;
    const uint64_t end = t.addr() + uint64_t{t.length_dw()} * 4;  // DW-aligned end of the request
    unsigned left = total;
    while (a < end) {
      // This completion ends at the next multiple of cpl (RCB-aligned) or at the request's end.
      const uint64_t stop = std::min(end, (a / opt_.cpl + 1) * opt_.cpl);
      const uint64_t dw0 = a & ~uint64_t{3};
      const unsigned ndw = static_cast<unsigned>((stop - dw0 + 3) / 4);
      std::vector<uint32_t> p(ndw);
      for (unsigned k = 0; k < ndw; ++k) {
        uint8_t b[4];
        mem_.read(dw0 + 4 * k, b, 4);
        p[k] = uint32_t{b[0]} | (uint32_t{b[1]} << 8) | (uint32_t{b[2]} << 16) | (uint32_t{b[3]} << 24);
      }
      const bool last = stop >= end;
      ++stats_.cpld_sent;
      Tlp c = tlp_cpl(opt_.rc_id, tlp::kStatusSc, left, t.requester(), t.tag(),
                      static_cast<uint8_t>(a & 0x7f), std::move(p), poison);
      if (malformed && first_cpl) malform(c, j.fault);
      first_cpl = false;
      // A malformed read's tag was freed when its MRd arrived (the endpoint frees it at its
      // completion timeout).
      enqueue_out(c, 0, true, last && !malformed);
      // Bytes of this completion counted in Byte Count: from a to min(stop, last enabled byte).
      const uint64_t covered = std::min<uint64_t>(stop - a, left);
      left -= static_cast<unsigned>(covered);
      a = stop;
    }
  }

  // Damages a completion as `f` says (PcieFault kTruncated ... kGarbage).
  void malform(Tlp& c, PcieFault f) {
    switch (f) {
      case PcieFault::kTruncated: {
        const size_t beats = (c.payload.size() + 3) / 4;  // data beats
        c.payload.resize(beats > 0 ? (beats - 1) * 4 : 0);
        break;
      }
      case PcieFault::kOverlong:
        for (int i = 0; i < 4; ++i) c.payload.push_back(static_cast<uint32_t>(rng_()));
        break;
      case PcieFault::kBadTag: {
        const unsigned tag = opt_.num_tags + static_cast<unsigned>(rng_() % (256 - opt_.num_tags));
        c.hdr[2] = (c.hdr[2] & ~0xff00u) | (tag << 8);
        break;
      }
      case PcieFault::kBadByteCount:
        c.hdr[1] = (c.hdr[1] & ~0xfffu) | ((c.byte_count() + 16) & 0xfffu);
        break;
      case PcieFault::kBadLowerAddress:
        c.hdr[2] ^= 0x10u;
        break;
      case PcieFault::kGarbage: {
        uint16_t req = static_cast<uint16_t>(rng_());
        if (req == opt_.ep_id) req ^= 1;
        c.hdr[0] = (c.hdr[0] & ~0x3ffu) | static_cast<uint32_t>(rng_() & 0x3ff);
        c.hdr[1] = static_cast<uint32_t>(rng_());
        c.hdr[2] = (uint32_t{req} << 16) | (static_cast<uint32_t>(rng_()) & 0xffffu);
        break;
      }
      default:
        break;
    }
  }

  Dut& dut_;
  HostMemory& mem_;
  PcieRcOptions opt_;
  std::mt19937_64 rng_;
  double bpc_ = 16;
  uint64_t cycle_ = 0;
  uint64_t next_id_ = 1;
  uint64_t seq_ = 0;
  PcieRcStats stats_;
  std::vector<std::string> violations_;
  std::function<bool(const Tlp&)> hook_;
  // RC -> EP
  std::deque<Out> out_;
  std::optional<Out> cur_out_;
  size_t cur_beat_ = 0;
  double out_wire_free_ = 0;
  uint64_t last_req_arrival_ = 0;
  std::map<uint8_t, uint64_t> last_cpl_arrival_;
  // EP -> RC
  bool tx_ready_ = false;
  double in_wire_free_ = 0;
  Tlp in_cur_;
  bool in_cur_open_ = false;
  size_t in_beats_ = 0;
  size_t in_expect_ = 0;
  uint64_t last_in_arrival_ = 0;
  std::deque<InFlight> in_;
  std::deque<MemJob> mem_jobs_;
  std::vector<bool> tag_busy_;
  // BAR0
  std::map<uint8_t, Bar0Result> rc_reads_;
  std::map<uint64_t, Bar0Result> pending_writes_;
  std::deque<Bar0Result> bar0_done_;
  uint8_t rc_tag_next_ = 0;
  // Faults
  std::vector<FaultRange> faults_;
  PcieFault random_kind_ = PcieFault::kNone;
  double random_rate_ = 0;
};

}  // namespace weft::sim
