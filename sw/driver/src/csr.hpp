// The CSR offsets and fields libweft uses, named for the driver's code, taken from the generated
// weft/regs.hpp (rtl/host/weft_regs.rdl), with compile-time checks of the layout the driver
// relies on (window stride, perf counter block).
#pragma once

#include <cstdint>

#include "weft/regs.hpp"

namespace weft::detail::csr {

namespace r = weft::regs;

inline constexpr uint32_t kId = r::kId, kVersion = r::kVersion, kCap0 = r::kCap0, kCap1 = r::kCap1,
                          kCap2 = r::kCap2, kCap3 = r::kCap3, kCap4 = r::kCap4, kCtrl = r::kCtrl, kStatus = r::kStatus,
                          kErrCode = r::kErrCode, kErrIndex = r::kErrIndex,
                          kErrAddrLo = r::kErrAddrLo, kErrAddrHi = r::kErrAddrHi,
                          kIrqStatus = r::kIrqStatus, kIrqEnable = r::kIrqEnable,
                          kRingBaseLo = r::kRingBaseLo, kRingBaseHi = r::kRingBaseHi,
                          kRingSize = r::kRingSize, kRingTail = r::kRingTail,
                          kRingHead = r::kRingHead, kCompleted = r::kCompleted,
                          kCplAddrLo = r::kCplAddrLo, kCplAddrHi = r::kCplAddrHi;

// WIN[i].<reg> = kWinBase + i * kWinStride + <reg>.
inline constexpr uint32_t kWinBase = r::kWinBaseLo[0];
inline constexpr uint32_t kWinStride = r::kWinBaseLo[1] - r::kWinBaseLo[0];
inline constexpr uint32_t kWinBaseLo = 0, kWinBaseHi = r::kWinBaseHi[0] - kWinBase,
                          kWinLimitLo = r::kWinLimitLo[0] - kWinBase,
                          kWinLimitHi = r::kWinLimitHi[0] - kWinBase,
                          kWinCtrl = r::kWinCtrl[0] - kWinBase;
constexpr uint32_t win(int i, uint32_t reg) { return kWinBase + uint32_t(i) * kWinStride + reg; }
static_assert(r::kWinCtrl[3] == kWinBase + 3 * kWinStride + kWinCtrl);

// 16 64-bit counters, LO then HI, in this order: cycles, load/compute/store busy, load/compute/
// store wait-dep, TU wait W/A/drain, MACs, DMA rd/wr bytes, DMA rd/wr stall, retired.
inline constexpr uint32_t kPerfBase = r::kPerfCyclesLo;
inline constexpr int kPerfCount = 16;
static_assert(r::kPerfMacsLo == kPerfBase + 10 * 8);
static_assert(r::kPerfDescRetiredLo == kPerfBase + 15 * 8);

// SIMT core: the last launch's error and counters (SIMT_ERR_CODE .. SIMT_LAUNCHES, consecutive).
inline constexpr uint32_t kSimtErrCode = r::kSimtErrCode, kSimtErrPc = r::kSimtErrPc,
                          kSimtErrThread = r::kSimtErrThread, kSimtErrTval = r::kSimtErrTval,
                          kSimtCycles = r::kSimtCycles, kSimtIssued = r::kSimtIssued,
                          kSimtActive = r::kSimtActive, kSimtStallPipe = r::kSimtStallPipe,
                          kSimtStallDiv = r::kSimtStallDiv, kSimtStallMem = r::kSimtStallMem,
                          kSimtStallBarrier = r::kSimtStallBarrier, kSimtReplays = r::kSimtReplays,
                          kSimtBarriers = r::kSimtBarriers, kSimtLaunches = r::kSimtLaunches;
static_assert(kSimtLaunches == kSimtErrCode + 13 * 4);

inline constexpr uint32_t kIdMagic = r::id::kMagicReset;

inline constexpr uint32_t kCtrlEnable = r::ctrl::kEnableMask;
inline constexpr uint32_t kCtrlQreset = r::ctrl::kQresetMask;
inline constexpr uint32_t kCtrlPerfClear = r::ctrl::kPerfClearMask;
inline constexpr uint32_t kStatusIdle = r::status::kIdleMask;
inline constexpr uint32_t kStatusError = r::status::kErrorMask;
inline constexpr uint32_t kStatusResetBusy = r::status::kResetBusyMask;
inline constexpr uint32_t kIrqDone = r::irq_status::kDoneMask;
inline constexpr uint32_t kIrqError = r::irq_status::kErrorMask;
inline constexpr uint32_t kWinRead = r::win_ctrl::kReadMask;
inline constexpr uint32_t kWinWrite = r::win_ctrl::kWriteMask;

}  // namespace weft::detail::csr
