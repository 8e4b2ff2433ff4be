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
#include "weft/tb/harness.hpp"

namespace weft::tb {

// Status and control bits (docs/registers.md).
inline constexpr uint32_t kCtrlEnable = 1u << 0;
inline constexpr uint32_t kCtrlQreset = 1u << 1;
inline constexpr uint32_t kCtrlPerfClear = 1u << 2;
inline constexpr uint32_t kStatusIdle = 1u << 0;
inline constexpr uint32_t kStatusError = 1u << 1;
inline constexpr uint32_t kStatusResetBusy = 1u << 2;
inline constexpr uint32_t kIrqDone = 1u << 0;
inline constexpr uint32_t kIrqError = 1u << 1;

// PERF_* counters in register order.
enum PerfCtr : int {
  kPerfCycles, kPerfLoadBusy, kPerfComputeBusy, kPerfStoreBusy, kPerfLoadWaitDep,
  kPerfComputeWaitDep, kPerfStoreWaitDep, kPerfTuWaitW, kPerfTuWaitA, kPerfTuWaitDrain,
  kPerfMacs, kPerfDmaRdBytes, kPerfDmaWrBytes, kPerfDmaRdStall, kPerfDmaWrStall,
  kPerfDescRetired, kNumPerf
};

template <class Model>
class TopEnv {
 public:
  static constexpr unsigned kBusBytes = 16;

  explicit TopEnv(sim::AxiMemOptions mo = {}, sim::AxilOptions lo = {})
      : axi(h.dut(), mem, kBusBytes, mo), csr(h.dut(), lo) {
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

  void set_window(int i, uint64_t base, uint64_t limit, bool read, bool write) {
    wr(regs::kWinBaseLo[i], static_cast<uint32_t>(base));
    wr(regs::kWinBaseHi[i], static_cast<uint32_t>(base >> 32));
    wr(regs::kWinLimitLo[i], static_cast<uint32_t>(limit));
    wr(regs::kWinLimitHi[i], static_cast<uint32_t>(limit >> 32));
    wr(regs::kWinCtrl[i], (read ? 1u : 0u) | (write ? 2u : 0u));
  }

  // Ring of 2^log2 entries at `base`, completion record at `cpl` (0: none); enables the queue.
  void setup_ring(uint64_t base, unsigned log2, uint64_t cpl) {
    ring_base = base;
    ring_log2 = log2;
    wr(regs::kRingBaseLo, static_cast<uint32_t>(base));
    wr(regs::kRingBaseHi, static_cast<uint32_t>(base >> 32));
    wr(regs::kRingSize, log2);
    wr(regs::kCplAddrLo, static_cast<uint32_t>(cpl));
    wr(regs::kCplAddrHi, static_cast<uint32_t>(cpl >> 32));
    wr(regs::kCtrl, kCtrlEnable);
  }

  // Writes descriptor `tail` (its seq set unless keep_seq) into the ring; no doorbell.
  void put(Descriptor d, bool keep_seq = false) {
    if (!keep_seq) d.with_seq(tail);
    const uint64_t slot = tail & ((uint64_t{1} << ring_log2) - 1);
    for (int i = 0; i < 16; ++i) mem.store<uint32_t>(ring_base + slot * 64 + 4 * i, d.w[i]);
    ++tail;
  }
  void doorbell() { wr(regs::kRingTail, tail); }
  // put + doorbell; returns the descriptor's index.
  uint32_t submit(const Descriptor& d, bool keep_seq = false) {
    put(d, keep_seq);
    doorbell();
    return tail - 1;
  }

  // Steps until pred() (checked every `every` cycles); false on timeout.
  bool wait(const std::function<bool()>& pred, uint64_t timeout, uint64_t every = 1) {
    for (uint64_t i = 0; i < timeout; i += every) {
      if (pred()) return true;
      steps(every);
    }
    return pred();
  }
  // Until COMPLETED >= n (read through the registers).
  bool wait_completed(uint32_t n, uint64_t timeout = 200000) {
    return wait([&] { return rd(regs::kCompleted) >= n; }, timeout, 16);
  }
  bool wait_idle(uint64_t timeout = 200000) {
    return wait([&] { return (rd(regs::kStatus) & kStatusIdle) != 0; }, timeout, 16);
  }
  bool wait_error(uint64_t timeout = 200000) {
    return wait([&] { return (rd(regs::kStatus) & kStatusError) != 0; }, timeout, 16);
  }
  // CTRL.qreset, then waits for STATUS.reset_busy = 0; the next descriptor is index 0 again.
  bool queue_reset(uint64_t timeout = 200000) {
    wr(regs::kCtrl, kCtrlEnable | kCtrlQreset);
    tail = 0;
    return wait([&] { return (rd(regs::kStatus) & kStatusResetBusy) == 0; }, timeout, 8);
  }

  Harness<Model> h;
  sim::HostMemory mem;
  sim::AxiMem<Model> axi;
  sim::AxilMaster<Model> csr;
  std::function<void()> tick_hook;
  std::vector<sim::HostMemory::WriteRecord> device_writes;  // every write the device made
  uint64_t ring_base = 0;
  unsigned ring_log2 = 0;
  uint32_t tail = 0;

 private:
  bool in_bus_ = false;
};

}  // namespace weft::tb
