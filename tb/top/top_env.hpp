// TopEnv: a Verilated weft_top with its host side: HostMemory behind an AxiMem (the AXI4 master
// port) and an AxilMaster on the register port, ticked by the Weft bus-model protocol. Helpers
// program windows and the ring through the registers and submit descriptors the way a driver
// does (descriptor into the ring entry, then the doorbell), so tests read as descriptor
// sequences. Independent of the RTL: register offsets come from weft/regs.hpp (generated from
// the register source), the descriptor encoding from weft/descriptor.hpp.
#pragma once

#include <cstdint>
#include <cstdio>
#include <functional>
#include <stdexcept>
#include <string>
#include <vector>

#include "weft/descriptor.hpp"
#include "weft/regs.hpp"
#include "weft/sim/axi_mem.hpp"
#include "weft/sim/axil_master.hpp"
#include "weft/sim/host_memory.hpp"
#include "weft/tb/device_queue.hpp"
#include "weft/tb/harness.hpp"

namespace weft::tb {

// PERF_* counters in register order.
enum PerfCtr : int {
  kPerfCycles, kPerfLoadBusy, kPerfComputeBusy, kPerfStoreBusy, kPerfLoadWaitDep,
  kPerfComputeWaitDep, kPerfStoreWaitDep, kPerfTuWaitW, kPerfTuWaitA, kPerfTuWaitDrain,
  kPerfMacs, kPerfDmaRdBytes, kPerfDmaWrBytes, kPerfDmaRdStall, kPerfDmaWrStall,
  kPerfDescRetired, kNumPerf
};

template <class Model>
class TopEnv : public DeviceQueue<TopEnv<Model>> {
 public:
  static constexpr unsigned kBusBytes = 16;

  // Register polls every 16 cycles (queue reset: 8), waits of 200k cycles.
  explicit TopEnv(sim::AxiMemOptions mo = {}, sim::AxilOptions lo = {})
      : DeviceQueue<TopEnv<Model>>(16, 8, 200000), axi(h.dut(), mem, kBusBytes, mo),
        csr(h.dut(), lo) {
    auto& d = h.dut();
    d.s_axil_awvalid = 0;
    d.s_axil_wvalid = 0;
    d.s_axil_arvalid = 0;
    d.s_axil_bready = 0;
    d.s_axil_rready = 0;
    // Device writes: the ones AxiMem makes while it samples (not the test's own writes).
    mem.on_write([this](uint64_t addr, uint64_t len) {
      if (in_bus_) device_writes.push_back({addr, len});
    });
    h.reset();
  }

  // One clock cycle of the whole bench.
  void step() {
    axi.drive();
    csr.drive();
    h.eval();
    in_bus_ = true;
    axi.sample();
    in_bus_ = false;
    csr.sample();
    h.tick();
    if (tick_hook) tick_hook();
  }
  void steps(uint64_t n) {
    for (uint64_t i = 0; i < n; ++i) step();
  }

  uint32_t rd(uint32_t off) {
    const uint64_t id = csr.read(off);
    for (int i = 0; i < 1000; ++i) {
      step();
      while (auto r = csr.pop_read()) {
        if (r->id == id) {
          if (r->resp != sim::AxilResp::kOkay)
            throw std::runtime_error("register read answered " + std::string(sim::axil_resp_name(r->resp)));
          return r->data;
        }
      }
    }
    throw std::runtime_error("register read timed out");
  }
  void wr(uint32_t off, uint32_t v) {
    const uint64_t id = csr.write(off, v);
    for (int i = 0; i < 1000; ++i) {
      step();
      while (auto r = csr.pop_write()) {
        if (r->id == id) {
          if (r->resp != sim::AxilResp::kOkay)
            throw std::runtime_error("register write answered " + std::string(sim::axil_resp_name(r->resp)));
          return;
        }
      }
    }
    throw std::runtime_error("register write timed out");
  }
  uint64_t rd64(uint32_t lo) {
    const uint32_t l = rd(lo);
    const uint32_t hi = rd(lo + 4);
    return (uint64_t{hi} << 32) | l;
  }
  uint64_t perf(int ctr) { return rd64(regs::kPerfCyclesLo + 8 * ctr); }

  Harness<Model> h;
  sim::HostMemory mem;
  sim::AxiMem<Model> axi;
  sim::AxilMaster<Model> csr;
  std::function<void()> tick_hook;
  std::vector<sim::HostMemory::WriteRecord> device_writes;  // every write the device made

 private:
  bool in_bus_ = false;
};

}  // namespace weft::tb
