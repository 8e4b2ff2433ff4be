// pcie-sim:// plugin: the Verilated weft_pcie_top (weft_pcie_ep + weft_top) driven cycle by
// cycle behind weft::sim::PcieRc, the root-complex model (docs/host-interfaces.md 1.5). CSRs are
// BAR0 MRd / MWr TLPs (writes are posted), host memory is the root complex's HostMemory. Built
// once per array configuration as weft_pcie_<R>x<C>.so (WEFT_PLUGIN_MODEL / WEFT_PLUGIN_HEADER /
// WEFT_PLUGIN_ROWS / WEFT_PLUGIN_COLS) and loaded by sim_loader.cpp; it exports only
// weft_create_sim_backend.
//
// URI options: array=RxC, lanes=N, gts=R, clock_mhz=F, latency=N, jitter=N, mem_latency=N,
// cpl=N, bp=P, fault=drop|ur|ca|poison|truncated|overlong|badtag|badcount|badaddr|garbage
// with fault_rate=P, cpl_timeout=N (written to
// LINK_CPL_TIMEOUT at open), seed=N, trace=file.fst.
#include <cmath>
#include <cstdio>
#include <cstring>
#include <memory>
#include <stdexcept>
#include <string>

#include WEFT_PLUGIN_HEADER
#include "verilated_backend.hpp"
#include "weft/sim/pcie_rc.hpp"

namespace weft::detail {
namespace {

using Model = WEFT_PLUGIN_MODEL;

// Link registers (BAR0 offsets, docs/host-interfaces.md 1.4).
constexpr uint32_t kLinkId = 0x1000, kLinkCap = 0x1004, kLinkCtrl = 0x1008, kLinkTagsFree = 0x100C,
                   kLinkErr = 0x1010, kLinkErrAddrLo = 0x1014, kLinkErrAddrHi = 0x1018,
                   kLinkCplTimeout = 0x101C, kLinkMsiAddrLo = 0x1020, kLinkMsiAddrHi = 0x1024,
                   kLinkMsiData = 0x1028, kLinkCplBad = 0x102C, kLinkRxBad = 0x1030,
                   kLinkMrd = 0x1034, kLinkMwr = 0x1038, kLinkMsi = 0x103C;
constexpr uint32_t kLinkIdValue = 0x4B4E4C57;  // "WLNK"
constexpr uint64_t kMsiAddr = 0xFEE00000;      // outside any arena (below 4 GiB, x86 MSI window)
constexpr uint32_t kMsiData = 0x0057;

const char* link_error_name(uint32_t kind) {
  switch (kind) {
    case 1: return "completion timeout";
    case 2: return "Unsupported Request";
    case 3: return "Completer Abort";
    case 4: return "poisoned data";
  }
  return "unknown link error";
}

class PcieBackend final : public VerilatedBackend<Model> {
 public:
  explicit PcieBackend(const Options& opts) : PcieBackend(OptionReader(opts)) {}

 private:
  explicit PcieBackend(OptionReader&& r)
      : VerilatedBackend<Model>(r, WEFT_PLUGIN_ROWS, WEFT_PLUGIN_COLS, WEFT_PLUGIN_ECC != 0,
                                "top.weft_pcie_top.u_top") {
    o_.lanes = static_cast<unsigned>(r.u64("lanes", 4, 1, 32));
    o_.gts = r.f64("gts", 8.0, 0.1, 64.0);
    o_.clock_mhz = r.f64("clock_mhz", 250.0, 1.0, 5000.0);
    o_.latency = static_cast<unsigned>(r.u64("latency", 100, 0, 100000));
    o_.jitter = static_cast<unsigned>(r.u64("jitter", 0, 0, 100000));
    o_.mem_latency = static_cast<unsigned>(r.u64("mem_latency", 32, 0, 100000));
    o_.cpl = static_cast<unsigned>(r.u64("cpl", 64, 64, 256));
    if (o_.cpl % 64 != 0) throw std::invalid_argument("option cpl: must be a multiple of 64");
    o_.bp = r.f64("bp", 0.0, 0.0, 0.95);
    o_.msi_base = kMsiAddr;
    o_.msi_size = 4;
    o_.seed = seed_ * 2 + 1;
    const std::string fault = r.str("fault", "");
    fault_rate_ = r.f64("fault_rate", 0.0, 0.0, 1.0);
    if (fault.empty()) {
      random_fault_ = sim::PcieFault::kNone;  // with fault_rate: a random kind each time
    } else if (fault == "drop") {
      random_fault_ = sim::PcieFault::kDrop;
    } else if (fault == "ur") {
      random_fault_ = sim::PcieFault::kUr;
    } else if (fault == "ca") {
      random_fault_ = sim::PcieFault::kCa;
    } else {
      random_fault_ = sim::PcieFault::kNone;
      for (int k = 1; k < sim::kPcieFaultKinds; ++k) {
        if (fault == sim::pcie_fault_name(static_cast<sim::PcieFault>(k))) {
          random_fault_ = static_cast<sim::PcieFault>(k);
        }
      }
      if (random_fault_ == sim::PcieFault::kNone) {
        throw std::invalid_argument("option fault=" + fault +
                                    ": expected drop, ur, ca, poison, truncated, overlong, badtag, "
                                    "badcount, badaddr or garbage");
      }
    }
    const bool has_timeout = r.has("cpl_timeout");
    const uint64_t cpl_timeout = r.u64("cpl_timeout", 100000, 16, 0xffffffffu);
    r.check_all_used("pcie-sim",
                     "array=RxC ecc=0|1 lanes=N gts=R clock_mhz=F latency=N jitter=N "
                     "mem_latency=N cpl=N bp=P "
                     "fault=drop|ur|ca|poison|truncated|overlong|badtag|badcount|badaddr|garbage "
                     "fault_rate=P cpl_timeout=N seed=N "
                     "trace=file.fst (and the device options mem, membase, ring, timeout)");

    rc_ = std::make_unique<sim::PcieRc<Model>>(*dut_, mem_, o_);
    reset();

    const uint32_t id = csr_read(kLinkId);
    if (id != kLinkIdValue) {
      throw std::runtime_error("BAR0 + 0x1000 reads " + hex(id) + ", not the link ID 0x4b4e4c57");
    }
    tags_total_ = csr_read(kLinkCap) & 0xff;
    if (has_timeout) csr_write(kLinkCplTimeout, static_cast<uint32_t>(cpl_timeout));
    csr_write(kLinkMsiAddrLo, static_cast<uint32_t>(kMsiAddr));
    csr_write(kLinkMsiAddrHi, static_cast<uint32_t>(kMsiAddr >> 32));
    csr_write(kLinkMsiData, kMsiData);
    csr_write(kLinkCtrl, 1);  // msi_enable
    apply_faults();
  }

 public:

  std::string description() const override {
    char link[160];
    std::snprintf(link, sizeof link,
                  "%u lanes x %.1f GT/s = %.2f B/cycle at %.0f MHz, latency %u+0..%u, memory "
                  "latency %u, cpl %u B, bp %.2f",
                  o_.lanes, o_.gts, rc_->peak_bytes_per_cycle(), o_.clock_mhz, o_.latency,
                  o_.jitter, o_.mem_latency, o_.cpl, o_.bp);
    return "Verilated weft_pcie_top (RTL) " + std::to_string(WEFT_PLUGIN_ROWS) + "x" +
           std::to_string(WEFT_PLUGIN_COLS) + ", " + link + ", seed " + std::to_string(seed_) +
           waves_note();
  }

  uint32_t csr_read(uint32_t off) override {
    const uint64_t id = rc_->bar0_read(off);
    for (int i = 0; i < 1000000; ++i) {
      tick();
      while (auto res = rc_->pop_bar0()) {
        if (res->id != id) continue;  // posted writes delivered
        if (res->status != sim::tlp::kStatusSc) {
          throw std::invalid_argument(
              "CSR read of offset " + hex(off) + " answered " +
              (res->status == sim::tlp::kStatusUr
                   ? "UR (Unsupported Request: not a BAR0 register)"
                   : "CA (Completer Abort: the device's AXI4-Lite slave answered SLVERR or "
                     "DECERR)"));
        }
        return res->data;
      }
    }
    throw std::runtime_error("BAR0 read of offset " + std::to_string(off) + " not completed");
  }

  // Posted: the MWr is queued on the link; later reads are ordered behind it.
  void csr_write(uint32_t off, uint32_t v) override { rc_->bar0_write(off, v); }

  // Reads only: a PCIe write is posted, the device never hears of a failed one.
  bool inject_bus_error(uint64_t lo, uint64_t hi, bool write, unsigned resp) override {
    if (write) return false;
    bus_faults_.push_back({resp == 3 ? sim::PcieFault::kUr : sim::PcieFault::kCa, lo, hi});
    apply_faults();
    return true;
  }
  void clear_bus_errors() override {
    bus_faults_.clear();
    apply_faults();
  }
  bool inject_link_fault(int kind, uint64_t lo, uint64_t hi) override {
    if (kind < 1 || kind >= sim::kPcieFaultKinds) return false;
    link_faults_.push_back({static_cast<sim::PcieFault>(kind), lo, hi});
    apply_faults();
    return true;
  }
  // Also ends the URI's random faults (fault_rate).
  void clear_link_faults() override {
    link_faults_.clear();
    fault_rate_ = 0;
    apply_faults();
  }

  std::string explain_error(uint32_t code) override {
    if (code != 7 && code != 8 && code != 11) return {};  // SLVERR, DECERR, SIMT
    const uint32_t err = csr_read(kLinkErr);
    const uint32_t kind = err & 0xf;
    if (kind == 0) return {};
    const uint64_t addr = csr_read(kLinkErrAddrLo) | (uint64_t{csr_read(kLinkErrAddrHi)} << 32);
    return std::string(link_error_name(kind)) + ", tag " + std::to_string((err >> 8) & 0xff) +
           ", address " + hex(addr);
  }
  void on_queue_reset() override { csr_write(kLinkErr, 0xffffffffu); }

  std::vector<std::pair<std::string, uint64_t>> link_stats() override {
    const auto& s = rc_->stats();
    std::vector<std::pair<std::string, uint64_t>> v = {
        {"tags_total", tags_total_},
        {"tags_free", csr_read(kLinkTagsFree)},
        {"mrd", csr_read(kLinkMrd)},
        {"mwr", csr_read(kLinkMwr)},
        {"msi", s.msi},
        {"msi_sent", csr_read(kLinkMsi)},
        {"cpl_bad", csr_read(kLinkCplBad)},
        {"rx_bad", csr_read(kLinkRxBad)},
        {"link_bytes_rx", s.wire_bytes_rx},
        {"link_bytes_tx", s.wire_bytes_tx},
        {"payload_bytes_rx", s.payload_bytes_rx},
        {"payload_bytes_tx", s.payload_bytes_tx},
        {"link_peak_bytes_per_cycle",
         static_cast<uint64_t>(std::floor(rc_->peak_bytes_per_cycle()))},
        {"link_peak_millibytes_per_cycle",
         static_cast<uint64_t>(std::llround(rc_->peak_bytes_per_cycle() * 1000))},
        {"faults", s.faults},
        {"faults_drop", s.faults_by_kind[1]},
        {"faults_ur", s.faults_by_kind[2]},
        {"faults_ca", s.faults_by_kind[3]},
        {"faults_poison", s.faults_by_kind[4]},
    };
    return v;
  }

 private:
  struct Fault {
    sim::PcieFault kind;
    uint64_t lo, hi;
  };

  void apply_faults() {
    rc_->clear_faults();
    for (const auto& f : link_faults_) rc_->add_fault(f.kind, f.lo, f.hi);
    for (const auto& f : bus_faults_) rc_->add_fault(f.kind, f.lo, f.hi);
    if (fault_rate_ > 0) rc_->set_random_faults(random_fault_, fault_rate_);
  }

  static std::string hex(uint64_t v) {
    char b[24];
    std::snprintf(b, sizeof b, "0x%llx", static_cast<unsigned long long>(v));
    return b;
  }

  void drive_models() override { rc_->drive(); }
  void sample_models() override { rc_->sample(); }
  std::string check_models() override {
    if (!rc_ || rc_->violations().size() == violations_seen_) return {};
    violations_seen_ = rc_->violations().size();
    return "TLP rule violation by weft_pcie_top: " + rc_->violations().back();
  }

  sim::PcieRcOptions o_;
  double fault_rate_ = 0;
  sim::PcieFault random_fault_ = sim::PcieFault::kNone;
  std::unique_ptr<sim::PcieRc<Model>> rc_;
  std::vector<Fault> link_faults_, bus_faults_;
  uint64_t tags_total_ = 0;
  size_t violations_seen_ = 0;
};

}  // namespace
}  // namespace weft::detail

extern "C" __attribute__((visibility("default"))) weft::detail::Backend* weft_create_sim_backend(
    const weft::detail::Options* opts, char* err, size_t err_len) {
  return weft::detail::create_plugin_backend<weft::detail::PcieBackend>(opts, err, err_len);
}
