// DeviceQueue<Env>: the driver-like steps a block test of a whole device takes through the
// registers, whatever carries them (TopEnv: AXI4-Lite; PcieEnv: BAR0 TLPs). Programs DMA windows
// and the ring, writes descriptors into the ring in host memory and rings the doorbell, and waits
// on STATUS / COMPLETED. Register offsets come from weft/regs.hpp and the descriptor encoding from
// weft/descriptor.hpp, not from the RTL.
//
// Env derives from DeviceQueue<Env> and provides rd(off), wr(off, v), steps(n) and a HostMemory
// `mem`; it passes how often the waits poll the registers and their default budget in cycles.
#pragma once

#include <cstdint>
#include <functional>

#include "weft/descriptor.hpp"
#include "weft/regs.hpp"

namespace weft::tb {

// Status and control bits, by the names the tests use; the values are weft/regs.hpp's.
inline constexpr uint32_t kCtrlEnable = regs::ctrl::kEnableMask;
inline constexpr uint32_t kCtrlQreset = regs::ctrl::kQresetMask;
inline constexpr uint32_t kCtrlPerfClear = regs::ctrl::kPerfClearMask;
inline constexpr uint32_t kStatusIdle = regs::status::kIdleMask;
inline constexpr uint32_t kStatusError = regs::status::kErrorMask;
inline constexpr uint32_t kStatusResetBusy = regs::status::kResetBusyMask;
inline constexpr uint32_t kIrqDone = regs::irq_status::kDoneMask;
inline constexpr uint32_t kIrqError = regs::irq_status::kErrorMask;

template <class Env>
class DeviceQueue {
 public:
  void set_window(int i, uint64_t base, uint64_t limit, bool read, bool write) {
    env().wr(regs::kWinBaseLo[i], static_cast<uint32_t>(base));
    env().wr(regs::kWinBaseHi[i], static_cast<uint32_t>(base >> 32));
    env().wr(regs::kWinLimitLo[i], static_cast<uint32_t>(limit));
    env().wr(regs::kWinLimitHi[i], static_cast<uint32_t>(limit >> 32));
    env().wr(regs::kWinCtrl[i], (read ? regs::win_ctrl::kReadMask : 0u) | (write ? regs::win_ctrl::kWriteMask : 0u));
  }

  // Ring of 2^log2 entries at `base`, completion record at `cpl` (0: none); enables the queue.
  void setup_ring(uint64_t base, unsigned log2, uint64_t cpl) {
    ring_base = base;
    ring_log2 = log2;
    env().wr(regs::kRingBaseLo, static_cast<uint32_t>(base));
    env().wr(regs::kRingBaseHi, static_cast<uint32_t>(base >> 32));
    env().wr(regs::kRingSize, log2);
    env().wr(regs::kCplAddrLo, static_cast<uint32_t>(cpl));
    env().wr(regs::kCplAddrHi, static_cast<uint32_t>(cpl >> 32));
    env().wr(regs::kCtrl, kCtrlEnable);
  }

  // Writes descriptor `tail` (its seq set unless keep_seq) into the ring; no doorbell.
  void put(Descriptor d, bool keep_seq = false) {
    if (!keep_seq) d.with_seq(tail);
    const uint64_t slot = tail & ((uint64_t{1} << ring_log2) - 1);
    for (int i = 0; i < 16; ++i) env().mem.template store<uint32_t>(ring_base + slot * 64 + 4 * i, d.w[i]);
    ++tail;
  }
  void doorbell() { env().wr(regs::kRingTail, tail); }
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
      env().steps(every);
    }
    return pred();
  }
  // Until COMPLETED >= n (read through the registers); timeout 0: the environment's default.
  bool wait_completed(uint32_t n, uint64_t timeout = 0) {
    return wait([&] { return env().rd(regs::kCompleted) >= n; }, budget(timeout), poll_);
  }
  bool wait_idle(uint64_t timeout = 0) {
    return wait([&] { return (env().rd(regs::kStatus) & kStatusIdle) != 0; }, budget(timeout), poll_);
  }
  bool wait_error(uint64_t timeout = 0) {
    return wait([&] { return (env().rd(regs::kStatus) & kStatusError) != 0; }, budget(timeout),
                poll_);
  }
  // CTRL.qreset, then waits for STATUS.reset_busy = 0; the next descriptor is index 0 again.
  bool queue_reset(uint64_t timeout = 0) {
    env().wr(regs::kCtrl, kCtrlEnable | kCtrlQreset);
    tail = 0;
    return wait([&] { return (env().rd(regs::kStatus) & kStatusResetBusy) == 0; }, budget(timeout),
                reset_poll_);
  }

  uint64_t ring_base = 0;
  unsigned ring_log2 = 0;
  uint32_t tail = 0;

 protected:
  // poll: cycles between register reads of the waits (reset_poll: of queue_reset); timeout: the
  // waits' default budget in cycles.
  DeviceQueue(uint64_t poll, uint64_t reset_poll, uint64_t timeout)
      : poll_(poll), reset_poll_(reset_poll), timeout_(timeout) {}

 private:
  Env& env() { return static_cast<Env&>(*this); }
  uint64_t budget(uint64_t t) const { return t ? t : timeout_; }

  uint64_t poll_, reset_poll_, timeout_;
};

}  // namespace weft::tb
