// PcieEnv: a Verilated weft_pcie_top behind the root-complex model weft::sim::PcieRc (host
// memory behind MRd/MWr/CplD, BAR0 reads and writes), ticked by the Weft bus-model protocol.
// Helpers reach the device registers through BAR0 (offset = register offset), the endpoint's
// link registers at BAR0 + 0x1000, and submit descriptors the way a driver does (descriptor into
// the ring in host memory, then the doorbell). Register offsets come from weft/regs.hpp, the
// descriptor encoding from weft/descriptor.hpp, the link registers from docs/host-interfaces.md
// 1.4 (constants below): nothing here is derived from the RTL.
#pragma once

#include <cstdint>
#include <functional>
#include <map>
#include <stdexcept>
#include <string>

#include "weft/regs.hpp"
#include "weft/sim/host_memory.hpp"
#include "weft/sim/pcie_rc.hpp"
#include "weft/tb/device_queue.hpp"
#include "weft/tb/harness.hpp"

namespace weft::tb {

// Link registers (docs/host-interfaces.md 1.4), offsets in BAR0.
namespace link {
inline constexpr uint32_t kId = 0x1000, kCap = 0x1004, kCtrl = 0x1008, kTagsFree = 0x100C,
                          kErr = 0x1010, kErrAddrLo = 0x1014, kErrAddrHi = 0x1018,
                          kCplTimeout = 0x101C, kMsiAddrLo = 0x1020, kMsiAddrHi = 0x1024,
                          kMsiData = 0x1028, kCplBad = 0x102C, kRxBad = 0x1030, kMrd = 0x1034,
                          kMwr = 0x1038, kMsi = 0x103C;
inline constexpr uint32_t kIdValue = 0x4B4E4C57;  // "WLNK"
}  // namespace link

template <class Model>
class PcieEnv : public DeviceQueue<PcieEnv<Model>> {
 public:
  // Register polls every 64 cycles (each is a BAR0 round trip), waits of 400k cycles.
  explicit PcieEnv(sim::PcieRcOptions o)
      : DeviceQueue<PcieEnv<Model>>(64, 16, 400000), rc(h.dut(), mem, o) {
    h.reset();
  }

  void step() {
    rc.drive();
    h.eval();
    rc.sample();
    h.tick();
  }
  void steps(uint64_t n) {
    for (uint64_t i = 0; i < n; ++i) step();
  }

  // BAR0 access; the result whatever its status.
  sim::Bar0Result bar0(bool write, uint32_t off, uint32_t v = 0, uint8_t be = 0xf,
                       uint64_t timeout = 20000) {
    const uint64_t id = write ? rc.bar0_write(off, v, be) : rc.bar0_read(off);
    for (uint64_t i = 0; i < timeout; ++i) {
      while (auto r = rc.pop_bar0()) done_[r->id] = *r;
      auto it = done_.find(id);
      if (it != done_.end()) {
        sim::Bar0Result r = it->second;
        done_.erase(it);
        return r;
      }
      step();
    }
    throw std::runtime_error("BAR0 access at " + std::to_string(off) + " timed out");
  }
  uint32_t rd(uint32_t off) {
    const auto r = bar0(false, off);
    if (r.status != sim::tlp::kStatusSc)
      throw std::runtime_error("BAR0 read answered status " + std::to_string(r.status));
    return r.data;
  }
  void wr(uint32_t off, uint32_t v, uint8_t be = 0xf) { bar0(true, off, v, be); }

  Harness<Model> h;
  sim::HostMemory mem;
  sim::PcieRc<Model> rc;

 private:
  std::map<uint64_t, sim::Bar0Result> done_;
};

}  // namespace weft::tb
