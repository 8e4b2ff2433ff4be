// ref:// — a functional C++ model of a Weft device, written from docs/programming-model.md only:
// CSRs (rtl/host/weft_regs.rdl), ring fetch, decode-time validation with the same error codes,
// DMA windows, execution with weft::golden semantics, in-order retirement, the completion record,
// IRQ status and performance counters (with a simple cost model: one A row per cycle, one bus
// beat per cycle, no overlap between engines). The SIMT core (option simt=WxT, default 4x8) runs
// SIMT_LAUNCH on weft::golden::simt with the device's SIMT data and instruction memories; its
// SIMT_CYCLES counter is the golden model's warp issue count (one warp instruction per cycle, no
// stalls), and a launch with max_issues = 0 stops after kRefMaxIssues (the RTL has no limit).
//
// Scheduling: `sched=inorder` (default) executes descriptors one at a time in ring order, so
// dependencies are trivially met. `sched=random` models engine concurrency instead: among the
// descriptors in flight (at most `inflight`), each engine's oldest unexecuted one may run once
// its dep0/dep1/WAIT_* conditions hold, and one of the ready engines is picked at random. A
// schedule that forgets a dependency then computes wrong results here too.
#include <algorithm>
#include <array>
#include <bit>
#include <cstring>
#include <deque>
#include <random>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

#include "backend.hpp"
#include "csr.hpp"
#include "weft/sim/host_memory.hpp"
#include "uri_options.hpp"
#include "weft/descriptor.hpp"
#include "weft/golden/fp.hpp"
#include "weft/golden/quant.hpp"
#include "weft/golden/simt.hpp"

namespace weft::detail {
namespace {

enum class Engine { kNone, kLoad, kCompute, kStore, kSimt };

// Warp instructions after which a launch without max_issues stops with StepLimit (the golden
// model's default): a hung kernel cannot hang the host.
constexpr uint64_t kRefMaxIssues = 50'000'000;

// The tensor unit's FP8 modes (CAP4.fp): ref:// always models them, as weft_top's default
// (TensorFp = 1) builds them.
constexpr bool kTensorFp = true;

// An FP8 operand format the array multiplies (either mix), present only with the FP modes.
bool fp8_operand(ElemFormat f) {
  return kTensorFp && (f == ElemFormat::kE4m3 || f == ElemFormat::kE5m2);
}

// COMPUTE's operand formats: both INT (the integer path), both FP8 or both BF16.
bool compute_formats_ok(ElemFormat a, ElemFormat w) {
  return (a == ElemFormat::kInt && w == ElemFormat::kInt) || (fp8_operand(a) && fp8_operand(w)) ||
         (kTensorFp && a == ElemFormat::kBf16 && w == ElemFormat::kBf16);
}

// STORE_ACC's output format: INT, or (with the FP modes) FP32, BF16, E4M3, E5M2; FP32 has no
// packed form.
bool store_format_ok(ElemFormat f, bool pack) {
  if (f > ElemFormat::kFp32 || (f != ElemFormat::kInt && !kTensorFp)) return false;
  return !(pack && f == ElemFormat::kFp32);
}

// Bytes of one STORE_ACC output row (weft_pkg::sacc_row_bytes): a 32-bit word per column, or
// packed one byte (INT, FP8) or two (BF16) per column.
uint64_t store_row_bytes(bool pack, ElemFormat f, uint64_t n) {
  if (!pack) return 4 * n;
  return f == ElemFormat::kBf16 ? 2 * n : n;
}

Engine engine_of(Opcode op) {
  switch (op) {
    case Opcode::kLoad:
      return Engine::kLoad;
    case Opcode::kCompute:
      return Engine::kCompute;
    case Opcode::kStoreSpad:
    case Opcode::kStoreAcc:
      return Engine::kStore;
    case Opcode::kSimtLaunch:
      return Engine::kSimt;
    default:
      return Engine::kNone;
  }
}

struct Fault {
  uint64_t lo, hi;
  bool write;
  unsigned resp;
};

class RefDevice final : public Backend {
 public:
  explicit RefDevice(const Options& opts) {
    OptionReader r(opts);
    r.array("array", &rows_, &cols_);
    acc_rows_ = static_cast<uint32_t>(r.u64("acc", 512, 4, 65536));
    spad_lines_ = static_cast<uint32_t>(r.u64("spad", 16384, 64, 1u << 24));
    banks_ = static_cast<uint32_t>(r.u64("banks", 4, 1, 64));
    inflight_ = static_cast<uint32_t>(r.u64("inflight", 16, 1, 255));
    const std::string sched = r.str("sched", "inorder");
    if (sched != "inorder" && sched != "random") {
      throw std::invalid_argument("option sched=" + sched + ": expected inorder or random");
    }
    random_ = sched == "random";
    rng_.seed(r.u64("seed", 1));
    const std::string simt = r.str("simt", "4x8");
    if (simt != "none") {
      Options o{{"simt", simt}};
      OptionReader(o).array("simt", &simt_warps_, &simt_threads_);
      simt_dmem_kib_ = static_cast<uint32_t>(r.u64("simt_dmem", 256, 1, 65535));
      simt_imem_kib_ = static_cast<uint32_t>(r.u64("simt_imem", 16, 1, 65535));
    } else {
      simt_warps_ = simt_threads_ = 0;
    }
    r.check_all_used("ref",
                     "array=RxC acc=N spad=LINES banks=N inflight=N sched=inorder|random "
                     "seed=N simt=WxT|none simt_dmem=KiB simt_imem=KiB (and the device options "
                     "mem, membase, ring, timeout)");
    if (std::popcount(acc_rows_) != 1) throw std::invalid_argument("option acc: a power of two");
    if (std::popcount(spad_lines_) != 1 || spad_lines_ % banks_ != 0) {
      throw std::invalid_argument("options spad/banks: spad a power of two divisible by banks");
    }
    bus_ = 16;
    while (bus_ < rows_ || bus_ < cols_) bus_ *= 2;
    spad_.assign(size_t{spad_lines_} * bus_, 0);
    acc_.assign(size_t{acc_rows_} * cols_, 0);
    params_.assign(cols_, ColumnParams{});
    if (simt_warps_) {
      dmem_.assign(size_t{simt_dmem_kib_} * 1024, 0);
      imem_.assign(size_t{simt_imem_kib_} * 1024, 0);
    }
  }

  std::string description() const override {
    return "functional reference device (no RTL; cycles from a cost model), " +
           std::to_string(rows_) + "x" + std::to_string(cols_) + " array, " +
           std::to_string(acc_rows_) + " accumulator rows, " + std::to_string(spad_lines_) +
           " scratchpad lines, " +
           (simt_warps_ ? "SIMT " + std::to_string(simt_warps_) + "x" +
                              std::to_string(simt_threads_) + " (golden model), "
                        : std::string("no SIMT core, ")) +
           (random_ ? "random engine order" : "in-order");
  }

  // ------------------------------------------------------------------------------ CSRs
  uint32_t csr_read(uint32_t off) override {
    using namespace csr;
    cycle_tick(2);
    if (off >= kPerfBase && off < kPerfBase + kPerfCount * 8) {
      const int i = static_cast<int>((off - kPerfBase) / 8);
      if ((off - kPerfBase) % 8 == 0) {
        perf_latch_[i] = static_cast<uint32_t>(perf_[i] >> 32);
        return static_cast<uint32_t>(perf_[i]);
      }
      if ((off - kPerfBase) % 8 == 4) return perf_latch_[i];
    }
    if (off >= kWinBase && off < kWinBase + 4 * kWinStride) {
      const Win& w = win_[(off - kWinBase) / kWinStride];
      switch ((off - kWinBase) % kWinStride) {
        case kWinBaseLo:
          return static_cast<uint32_t>(w.base);
        case kWinBaseHi:
          return static_cast<uint32_t>(w.base >> 32);
        case kWinLimitLo:
          return static_cast<uint32_t>(w.limit);
        case kWinLimitHi:
          return static_cast<uint32_t>(w.limit >> 32);
        case kWinCtrl:
          return (w.read ? kWinRead : 0) | (w.write ? kWinWrite : 0);
        default:
          break;
      }
    }
    switch (off) {
      case kId:
        return kIdMagic;
      case kVersion:
        return 1u << 16;
      case kCap0:
        return rows_ | (cols_ << 8) | (bus_ << 16) | (4u << 24);
      case kCap1:
        return spad_lines_ | (banks_ << 24);
      case kCap2:
        return acc_rows_ | (inflight_ << 16) | (16u << 24);
      case kCap3:
        return simt_warps_ ? simt_warps_ | (simt_threads_ << 8) | (simt_dmem_kib_ << 16) : 0;
      case kCap4:
        return (simt_warps_ ? simt_imem_kib_ | (kSimtBanks << 16) : 0) |
               (kTensorFp ? regs::cap4::kFpMask : 0);
      case kCtrl:
        return enable_ ? kCtrlEnable : 0;
      case kStatus:
        return (idle() ? kStatusIdle : 0) | (err_code_ ? kStatusError : 0);
      case kErrCode:
        return err_code_;
      case kErrIndex:
        return err_index_;
      case kErrAddrLo:
        return static_cast<uint32_t>(err_addr_);
      case kErrAddrHi:
        return static_cast<uint32_t>(err_addr_ >> 32);
      case kIrqStatus:
        return irq_status_;
      case kIrqEnable:
        return irq_enable_;
      case kRingBaseLo:
        return static_cast<uint32_t>(ring_base_);
      case kRingBaseHi:
        return static_cast<uint32_t>(ring_base_ >> 32);
      case kRingSize:
        return ring_log2_;
      case kRingTail:
        return tail_;
      case kRingHead:
        return head_;
      case kCompleted:
        return completed_;
      case kCplAddrLo:
        return static_cast<uint32_t>(cpl_addr_);
      case kCplAddrHi:
        return static_cast<uint32_t>(cpl_addr_ >> 32);
      default:
        break;
    }
    if (off >= kSimtErrCode && off <= kSimtLaunches && off % 4 == 0) {
      return simt_regs_[(off - kSimtErrCode) / 4];
    }
    throw std::invalid_argument("CSR read of unmapped offset " + std::to_string(off) +
                                " (the bus answers SLVERR)");
  }

  void csr_write(uint32_t off, uint32_t v) override {
    using namespace csr;
    cycle_tick(2);
    auto set_lo = [](uint64_t& x, uint32_t v) { x = (x & ~0xffffffffull) | v; };
    auto set_hi = [](uint64_t& x, uint32_t v) { x = (x & 0xffffffffull) | (uint64_t{v} << 32); };
    if (off >= kWinBase && off < kWinBase + 4 * kWinStride) {
      Win& w = win_[(off - kWinBase) / kWinStride];
      switch ((off - kWinBase) % kWinStride) {
        case kWinBaseLo:
          set_lo(w.base, v);
          return;
        case kWinBaseHi:
          set_hi(w.base, v);
          return;
        case kWinLimitLo:
          set_lo(w.limit, v);
          return;
        case kWinLimitHi:
          set_hi(w.limit, v);
          return;
        case kWinCtrl:
          w.read = v & kWinRead;
          w.write = v & kWinWrite;
          return;
        default:
          break;
      }
    }
    switch (off) {
      case kCtrl:
        enable_ = v & kCtrlEnable;
        if (v & kCtrlPerfClear) std::fill(std::begin(perf_), std::end(perf_), 0);
        if (v & kCtrlQreset) queue_reset();
        return;
      case kIrqStatus:
        irq_status_ &= ~v;
        return;
      case kIrqEnable:
        irq_enable_ = v & 3;
        return;
      case kRingBaseLo:
        set_lo(ring_base_, v);
        return;
      case kRingBaseHi:
        set_hi(ring_base_, v);
        return;
      case kRingSize:
        ring_log2_ = v & 31;
        return;
      case kRingTail:
        tail_ = v;
        return;
      case kCplAddrLo:
        set_lo(cpl_addr_, v);
        return;
      case kCplAddrHi:
        set_hi(cpl_addr_, v);
        return;
      default:
        break;
    }
    // Read-only registers ignore writes; unmapped ones answer SLVERR.
    if (off <= kCplAddrHi || (off >= kPerfBase && off < kPerfBase + kPerfCount * 8)) return;
    if (off >= kSimtErrCode && off <= kSimtLaunches) return;
    throw std::invalid_argument("CSR write to unmapped offset " + std::to_string(off) +
                                " (the bus answers SLVERR)");
  }

  void mem_write(uint64_t a, const void* s, size_t n) override { mem_.write(a, s, n); }
  void mem_read(uint64_t a, void* d, size_t n) override { mem_.read(a, d, n); }
  uint64_t cycle() const override { return cycle_; }

  bool inject_bus_error(uint64_t lo, uint64_t hi, bool write, unsigned resp) override {
    faults_.push_back({lo, hi, write, resp});
    return true;
  }
  void clear_bus_errors() override { faults_.clear(); }
  std::vector<std::pair<uint64_t, uint64_t>> take_device_writes() override {
    return std::exchange(dev_writes_, {});
  }

  uint64_t run(uint64_t max_cycles, const std::function<bool()>& stop) override {
    const uint64_t start = cycle_;
    while (cycle_ - start < max_cycles) {
      if (stop && stop()) break;
      if (executing_) {
        // The descriptor's cost in cycles passes before it completes.
        const uint64_t n = std::min(busy_until_ - cycle_, max_cycles - (cycle_ - start));
        cycle_tick(n);
        if (cycle_ < busy_until_) break;
        finish();
        continue;
      }
      if (!step()) {
        cycle_tick(max_cycles - (cycle_ - start));  // idle: time passes, nothing changes
        break;
      }
    }
    return cycle_ - start;
  }

 private:
  struct Win {
    uint64_t base = 0, limit = 0;
    bool read = false, write = false;
  };
  struct Slot {
    uint32_t index;
    Descriptor d;
    Engine engine;
    bool done = false;
  };
  struct Check {
    ErrorCode code = ErrorCode::kNone;
    uint64_t addr = 0;
  };
  enum Perf {
    kCycles,
    kLoadBusy,
    kComputeBusy,
    kStoreBusy,
    kLoadWait,
    kComputeWait,
    kStoreWait,
    kWaitW,
    kWaitA,
    kWaitDrain,
    kMacs,
    kRdBytes,
    kWrBytes,
    kRdStall,
    kWrStall,
    kRetired
  };

  void cycle_tick(uint64_t n) {
    cycle_ += n;
    perf_[kCycles] += n;
  }
  bool idle() const {
    return !executing_ && rob_.empty() && (head_ == tail_ || !enable_ || err_code_);
  }

  void queue_reset() {
    rob_.clear();
    executing_ = false;
    head_ = completed_ = 0;
    err_code_ = 0;
    err_index_ = 0;
    err_addr_ = 0;
    pending_ = {};
    pending_index_ = 0;
  }

  // ---------------------------------------------------------------- host accesses and windows
  // [addr, addr + bytes) inside one window with the permission, every bus beat included: addr is
  // a multiple of the bus width here, and the last beat ends at addr + bytes rounded up to one,
  // which must not pass the limit (so a limit that is not a multiple of the bus width acts as the
  // multiple below it).
  bool in_window(uint64_t addr, uint64_t bytes, bool write) const {
    if (bytes == 0 || addr + bytes < addr) return false;
    for (const Win& w : win_) {
      if ((write ? w.write : w.read) && addr >= w.base &&
          addr + bytes <= (w.limit & ~uint64_t{bus_ - 1})) {
        return true;
      }
    }
    return false;
  }
  // The 2D extent [addr, addr + (rows-1)*stride + row_bytes).
  Check check_2d(uint64_t addr, uint64_t row_bytes, uint64_t rows, uint64_t stride,
                 bool write) const {
    const unsigned __int128 end =
        (unsigned __int128)addr + (unsigned __int128)(rows - 1) * stride + row_bytes;
    if (end > ~uint64_t{0} || !in_window(addr, static_cast<uint64_t>(end - addr), write)) {
      return {ErrorCode::kWindow, addr};
    }
    return {};
  }
  // An injected bus fault for a transfer of this extent, if any (consumes one count).
  Check bus_fault(uint64_t addr, uint64_t row_bytes, uint64_t rows, uint64_t stride, bool write) {
    for (auto it = faults_.begin(); it != faults_.end(); ++it) {
      if (it->write != write) continue;
      for (uint64_t r = 0; r < rows; ++r) {
        const uint64_t a = addr + r * stride;
        if (a < it->hi && a + row_bytes > it->lo) {
          const uint64_t where = std::max(a, it->lo) & ~uint64_t{bus_ - 1};
          return {it->resp == 3 ? ErrorCode::kDecerr : ErrorCode::kSlverr, where};
        }
      }
    }
    return {};
  }

  // ---------------------------------------------------------------- decode-time validation
  static constexpr uint64_t kMax20 = 1u << 20;

  Check validate(const Descriptor& d, uint32_t index) const {
    if (d.seq() != index) return {ErrorCode::kSeq, 0};
    const Opcode op = d.opcode();
    const uint64_t half = acc_rows_ / 2;
    switch (op) {
      case Opcode::kNop:
      case Opcode::kFence:
        return {};
      case Opcode::kLoad:
      case Opcode::kStoreSpad: {
        const auto x = d.operands<Transfer2d>();
        const uint64_t addr = x.host_addr, rb = x.row_bytes, rows = x.rows, hs = x.host_stride;
        const uint64_t sa = x.spad_addr, ss = x.spad_stride;
        if (rb == 0 || rb > kMax20 || rows == 0 || rows > kMax20) return {ErrorCode::kSize, 0};
        if (addr % bus_ || rb % bus_ || hs % bus_) return {ErrorCode::kAlign, addr};
        if (!in_one_region(sa, sa + (rows - 1) * ss + rb / bus_ - 1, op == Opcode::kStoreSpad)) {
          return {ErrorCode::kSpadRange, 0};
        }
        return check_2d(addr, rb, rows, hs, op == Opcode::kStoreSpad);
      }
      case Opcode::kCompute: {
        const auto c = d.operands<ComputeArgs>();
        const uint64_t m = c.m, k = c.k, acc = c.acc_addr;
        if (m == 0 || m > half || k == 0 || k > kMax20) return {ErrorCode::kSize, 0};
        if (acc >= acc_rows_ || acc % half + m > half) return {ErrorCode::kAccRange, 0};
        if (!compute_formats_ok(c.a_fmt, c.w_fmt)) return {ErrorCode::kParam, 0};
        const uint64_t kt = (k + rows_ - 1) / rows_;
        // BF16 rows take two lines (the row's line and the next).
        const uint64_t extra = c.a_fmt == ElemFormat::kBf16 ? 1 : 0;
        uint64_t max_line = 0;
        for (uint64_t t = (kt >= 2 ? kt - 2 : 0); t < kt; ++t) {
          const uint64_t kr = std::min<uint64_t>(rows_, k - t * rows_);
          max_line = std::max(max_line, uint64_t{c.w_addr} + t * c.w_tile_stride +
                                            (kr - 1) * c.w_row_stride + extra);
          max_line = std::max(max_line, uint64_t{c.a_addr} + t * c.a_tile_stride +
                                            (m - 1) * c.a_row_stride + extra);
        }
        if (max_line >= spad_lines_) return {ErrorCode::kSpadRange, 0};
        return {};
      }
      case Opcode::kStoreAcc: {
        const auto s = d.operands<StoreAccArgs>();
        const uint64_t addr = s.host_addr, hs = s.host_stride, m = s.m, acc = s.acc_addr, n = s.n;
        if (m == 0 || m > half || n == 0 || n > cols_) return {ErrorCode::kSize, 0};
        if (addr % bus_ || hs % bus_) return {ErrorCode::kAlign, addr};
        if (acc >= acc_rows_ || acc % half + m > half) return {ErrorCode::kAccRange, 0};
        if (!store_format_ok(s.out_fmt, s.pack)) return {ErrorCode::kParam, 0};
        if (s.load_params && uint64_t{s.params_addr} + cols_ > spad_lines_) {
          return {ErrorCode::kSpadRange, 0};
        }
        return check_2d(addr, store_row_bytes(s.pack, s.out_fmt, n), m, hs, true);
      }
      case Opcode::kSimtLaunch: {
        if (!simt_warps_) return {ErrorCode::kOpcode, 0};
        const auto l = d.operands<SimtLaunch>();
        const uint64_t warps = l.num_warps, tpw = l.threads_per_warp;
        const uint64_t top = l.stack_top, size = l.stack_size;
        if (warps == 0 || warps > simt_warps_ || tpw == 0 || tpw > simt_threads_) {
          return {ErrorCode::kSize, 0};
        }
        // The golden model cannot run a launch outside the stack ABI (the RTL runs it as given):
        // ref:// calls it a SIZE error.
        if (top % 16 || size % 16 || (warps * tpw - 1) * size > top) return {ErrorCode::kSize, 0};
        return {};
      }
      default:
        return {ErrorCode::kOpcode, 0};
    }
  }

  // ---------------------------------------------------------------- execution
  void dev_write(uint64_t addr, const void* src, size_t n) {
    mem_.write(addr, src, n);
    dev_writes_.emplace_back(addr, n);
  }
  // A line of the LOAD / STORE_SPAD address space (validated: inside one region).
  uint8_t* line(uint64_t l) {
    if (l >= kSimtImemLine) return imem_.data() + (l - kSimtImemLine) * bus_;
    if (l >= kSimtDmemLine) return dmem_.data() + (l - kSimtDmemLine) * bus_;
    return spad_.data() + l * bus_;
  }
  // Lines [first, last] in one region: scratchpad, SIMT data memory, SIMT instruction memory
  // (not for STORE_SPAD).
  bool in_one_region(uint64_t first, uint64_t last, bool store) const {
    if (last < spad_lines_) return true;
    const uint64_t dl = dmem_.size() / bus_, il = imem_.size() / bus_;
    if (first >= kSimtDmemLine && last < kSimtDmemLine + dl) return true;
    return !store && first >= kSimtImemLine && last < kSimtImemLine + il;
  }
  int32_t* acc_row(uint32_t acc_addr, uint32_t j) {
    const uint32_t half = acc_rows_ / 2;
    const uint32_t bank = acc_addr / half;
    return acc_.data() + size_t{bank * half + (acc_addr % half + j) % half} * cols_;
  }

  // Executes one descriptor; returns an error for bus faults (SLVERR/DECERR).
  Check execute(const Descriptor& d) {
    const Opcode op = d.opcode();
    switch (op) {
      case Opcode::kNop:
      case Opcode::kFence:
        cost_ += 1;
        return {};
      case Opcode::kLoad:
      case Opcode::kStoreSpad: {
        const bool store = op == Opcode::kStoreSpad;
        const auto x = d.operands<Transfer2d>();
        const uint64_t addr = x.host_addr;
        const uint32_t rb = x.row_bytes, rows = x.rows, hs = x.host_stride;
        const uint32_t sa = x.spad_addr, ss = x.spad_stride;
        const uint64_t beats = uint64_t{rows} * (rb / bus_);
        cost_ += 16 + beats;
        perf_[store ? kStoreBusy : kLoadBusy] += 16 + beats;
        perf_[store ? kWrBytes : kRdBytes] += beats * bus_;
        if (Check f = bus_fault(addr, rb, rows, hs, store); f.code != ErrorCode::kNone) return f;
        for (uint32_t r = 0; r < rows; ++r) {
          uint8_t* l = line(sa + uint64_t{r} * ss);
          if (store) {
            dev_write(addr + uint64_t{r} * hs, l, rb);
          } else {
            mem_.read(addr + uint64_t{r} * hs, l, rb);
          }
        }
        return {};
      }
      case Opcode::kCompute:
        compute(d);
        return {};
      case Opcode::kStoreAcc:
        return store_acc(d);
      case Opcode::kSimtLaunch:
        return simt_launch(d);
      default:
        return {};
    }
  }

  // SIMT_LAUNCH on the golden model, with this device's SIMT memories.
  Check simt_launch(const Descriptor& d) {
    namespace gs = golden::simt;
    gs::Config cfg;
    cfg.dmem_bytes = static_cast<uint32_t>(dmem_.size());
    cfg.imem_bytes = static_cast<uint32_t>(imem_.size());
    const auto launch = d.operands<SimtLaunch>();
    cfg.max_warp_issues = launch.max_issues ? launch.max_issues : kRefMaxIssues;
    gs::Machine m(cfg);
    m.dmem() = dmem_;
    m.load_imem_bytes(0, imem_);
    gs::Launch l;
    l.entry_pc = launch.pc;
    l.num_warps = launch.num_warps;
    l.threads_per_warp = launch.threads_per_warp;
    l.block_id = launch.block_id;
    l.arg_ptr = launch.arg_ptr;
    l.stack_top = launch.stack_top;
    l.stack_size_per_thread = launch.stack_size;
    const gs::Result r = m.run(l);
    dmem_ = m.dmem();
    const uint64_t issues = r.total_issues();
    simt_regs_.fill(0);
    simt_regs_[kSimtRegErrCode] = static_cast<uint32_t>(r.error.code);
    simt_regs_[kSimtRegErrPc] = r.error.pc;
    simt_regs_[kSimtRegErrThread] = r.error.thread;
    simt_regs_[kSimtRegErrTval] = r.error.tval;
    simt_regs_[kSimtRegCycles] = static_cast<uint32_t>(issues);
    simt_regs_[kSimtRegIssued] = static_cast<uint32_t>(issues);
    simt_regs_[kSimtRegActive] = static_cast<uint32_t>(r.total_active_threads());
    simt_regs_[kSimtRegBarriers] = static_cast<uint32_t>(r.barriers);
    simt_regs_[kSimtRegLaunches] = ++simt_launches_;
    cost_ += std::max<uint64_t>(issues, 1);
    if (!r.ok()) return {ErrorCode::kSimt, uint64_t{r.error.thread} << 32 | r.error.pc};
    return {};
  }

  void compute(const Descriptor& d) {
    const auto c = d.operands<ComputeArgs>();
    // Validated: a_fmt and w_fmt are both INT, both FP8 or both BF16. The cost is the same for
    // INT and FP8; a BF16 row takes two cycles (two scratchpad lines).
    if (c.a_fmt == ElemFormat::kInt) {
      compute_int(c);
    } else {
      compute_fp(c);
    }
    const uint64_t lines = c.a_fmt == ElemFormat::kBf16 ? 2 : 1;
    const uint64_t m = c.m, kt = (uint64_t{c.k} + rows_ - 1) / rows_;
    const uint64_t cyc = m * kt * lines + rows_ + cols_;
    cost_ += cyc;
    perf_[kComputeBusy] += cyc;
    perf_[kMacs] += m * kt * rows_ * cols_;
  }

  void compute_int(const ComputeArgs& c) {
    const uint32_t a_addr = c.a_addr, a_rs = c.a_row_stride, a_ts = c.a_tile_stride;
    const uint32_t w_addr = c.w_addr, w_rs = c.w_row_stride, w_ts = c.w_tile_stride;
    const uint32_t m = c.m, k = c.k, acc_addr = c.acc_addr;
    const bool accumulate = c.accumulate, a_signed = c.a_signed, w_signed = c.w_signed;
    const auto zp = [](bool s, uint32_t b) { return s ? int32_t(int8_t(b)) : int32_t(b & 0xff); };
    const golden::OperandType at{a_signed, zp(a_signed, c.a_zp)};
    const golden::OperandType wt{w_signed, zp(w_signed, c.w_zp)};
    const uint32_t kt = (k + rows_ - 1) / rows_;
    std::vector<int32_t> a, w;
    for (uint32_t t = 0; t < kt; ++t) {
      const uint32_t kr = std::min(rows_, k - t * rows_);
      a.assign(size_t{m} * kr, 0);
      w.assign(size_t{kr} * cols_, 0);
      for (uint32_t j = 0; j < m; ++j) {
        const uint8_t* l = line(uint64_t{a_addr} + uint64_t{t} * a_ts + uint64_t{j} * a_rs);
        for (uint32_t r = 0; r < kr; ++r) a[size_t{j} * kr + r] = zp(a_signed, l[r]);
      }
      for (uint32_t r = 0; r < kr; ++r) {
        const uint8_t* l = line(uint64_t{w_addr} + uint64_t{t} * w_ts + uint64_t{r} * w_rs);
        for (uint32_t c = 0; c < cols_; ++c) w[size_t{r} * cols_ + c] = zp(w_signed, l[c]);
      }
      const std::vector<int32_t> c = golden::gemm(a, w, int(m), int(kr), int(cols_), at, wt);
      for (uint32_t j = 0; j < m; ++j) {
        int32_t* row = acc_row(acc_addr, j);
        for (uint32_t col = 0; col < cols_; ++col) {
          const int32_t v = c[size_t{j} * cols_ + col];
          row[col] = (t == 0 && !accumulate)
                         ? v
                         : static_cast<int32_t>(static_cast<uint32_t>(row[col]) +
                                                static_cast<uint32_t>(v));
        }
      }
    }
  }

  // Element e of the array row at `first` (width elements): one byte, or (BF16) two bytes whose
  // row spans two lines: the row's first `width` bytes in line `first`, the rest in the next.
  uint32_t row_element(uint64_t first, uint32_t e, uint32_t width, bool bf16) {
    if (!bf16) return line(first)[e];
    auto byte = [&](uint32_t j) { return uint32_t{line(first + j / width)[j % width]}; };
    return byte(2 * e) | (byte(2 * e + 1) << 8);
  }

  // COMPUTE in the FP formats, tile by tile as the array sums: golden::gemm_fp over one k-tile
  // (FP8: the exact tile sum rounded once; BF16: an fma chain from +0), added in float32 to the
  // FP32 sums the accumulator rows hold as bits (or replacing them in tile 0 without
  // `accumulate`). Only the lanes k < K of a short last tile take part, whatever A holds in the
  // others; the columns past the weight data are computed too (their weight bytes, 0x00 when
  // unwritten, decode to +0).
  void compute_fp(const ComputeArgs& c) {
    const uint32_t a_addr = c.a_addr, a_rs = c.a_row_stride, a_ts = c.a_tile_stride;
    const uint32_t w_addr = c.w_addr, w_rs = c.w_row_stride, w_ts = c.w_tile_stride;
    const uint32_t m = c.m, k = c.k, acc_addr = c.acc_addr;
    // ElemFormat and golden::FpFormat share their numbering (E4M3 = 1, E5M2 = 2).
    const auto af = static_cast<golden::FpFormat>(c.a_fmt);
    const auto wf = static_cast<golden::FpFormat>(c.w_fmt);
    const uint32_t kt = (k + rows_ - 1) / rows_;
    std::vector<uint32_t> a, w;
    std::vector<float> c_in;
    for (uint32_t t = 0; t < kt; ++t) {
      const uint32_t kr = std::min(rows_, k - t * rows_);
      a.assign(size_t{m} * kr, 0);
      w.assign(size_t{kr} * cols_, 0);
      const bool bf16 = c.a_fmt == ElemFormat::kBf16;
      for (uint32_t j = 0; j < m; ++j) {
        const uint64_t l = uint64_t{a_addr} + uint64_t{t} * a_ts + uint64_t{j} * a_rs;
        for (uint32_t r = 0; r < kr; ++r) a[size_t{j} * kr + r] = row_element(l, r, rows_, bf16);
      }
      for (uint32_t r = 0; r < kr; ++r) {
        const uint64_t l = uint64_t{w_addr} + uint64_t{t} * w_ts + uint64_t{r} * w_rs;
        for (uint32_t col = 0; col < cols_; ++col) {
          w[size_t{r} * cols_ + col] = row_element(l, col, cols_, bf16);
        }
      }
      const bool add = t > 0 || c.accumulate;
      c_in.assign(add ? size_t{m} * cols_ : 0, 0.0f);
      for (uint32_t j = 0; add && j < m; ++j) {
        const int32_t* row = acc_row(acc_addr, j);
        for (uint32_t col = 0; col < cols_; ++col) {
          c_in[size_t{j} * cols_ + col] = std::bit_cast<float>(row[col]);
        }
      }
      const std::vector<float> sum =
          golden::gemm_fp(a, w, int(m), int(kr), int(cols_), af, wf, int(rows_), add, c_in);
      for (uint32_t j = 0; j < m; ++j) {
        int32_t* row = acc_row(acc_addr, j);
        for (uint32_t col = 0; col < cols_; ++col) {
          row[col] = static_cast<int32_t>(golden::fp32_bits(sum[size_t{j} * cols_ + col]));
        }
      }
    }
  }

  // golden::postprocess, extended to the inputs it rejects but the RTL computes as
  // docs/requant.md describes (descriptor data must never stop ref:// where the device runs):
  // an ONNX scale with exponent field 255 (Inf, NaN) saturates x = acc + bias by the sign of x
  // xor the scale's sign bit (x = 0 gives 0), and act_min > act_max clamps r + zp (exact) as
  // `v < act_min ? act_min : v > act_max ? act_max : v`. Equal to golden inside its contract.
  static int32_t postprocess(int32_t acc, const golden::ChannelParams& ch, uint32_t scale_bits,
                             const golden::OutputParams& out) {
    if (out.mode == golden::RequantMode::kNone) return golden::postprocess(acc, ch, out);
    int32_t r = 0;
    if (out.mode == golden::RequantMode::kOnnx && ((scale_bits >> 23) & 0xff) == 0xff) {
      const int32_t x =
          static_cast<int32_t>(static_cast<uint32_t>(acc) + static_cast<uint32_t>(ch.bias));
      if (x != 0) r = (x < 0) != (scale_bits >> 31 != 0) ? INT32_MIN : INT32_MAX;
    } else {
      golden::OutputParams requant_only = out;  // no zero point, no clamp: r itself
      requant_only.zero_point = 0;
      requant_only.act_min = INT32_MIN;
      requant_only.act_max = INT32_MAX;
      r = golden::postprocess(acc, ch, requant_only);
    }
    const int64_t v = int64_t{r} + out.zero_point;
    return v < out.act_min ? out.act_min : v > out.act_max ? out.act_max : static_cast<int32_t>(v);
  }

  Check store_acc(const Descriptor& d) {
    const auto s = d.operands<StoreAccArgs>();
    const uint64_t addr = s.host_addr;
    const uint32_t hs = s.host_stride, m = s.m, acc_addr = s.acc_addr, n = s.n;
    const auto mode = static_cast<golden::RequantMode>(s.mode);
    const bool pack = s.pack, load = s.load_params;
    const ElemFormat fmt = s.out_fmt;  // validated: INT, or an FP format (FP32 unpacked)
    const bool fp = fmt != ElemFormat::kInt;
    const auto row_bytes = static_cast<uint32_t>(store_row_bytes(pack, fmt, n));
    const uint64_t beats = uint64_t{m} * ((row_bytes + bus_ - 1) / bus_);
    cost_ += 16 + beats;
    perf_[kStoreBusy] += 16 + beats;
    perf_[kWrBytes] += uint64_t{m} * row_bytes;
    if (load) {
      for (uint32_t c = 0; c < cols_; ++c) std::memcpy(&params_[c], line(s.params_addr + c), 16);
    }
    // PARAM: a TFLite mode uses the shifts of columns c < n, which must lie in [-31, 30]; the
    // 6-bit field also holds -32 and 31. Found before any row is stored (the parameters stay
    // loaded); ERR_ADDR = the first such column. ONNX, INT32 and the FP formats (mode ignored)
    // do not read the shift.
    const auto shift_of = [](const ColumnParams& p) {
      const int32_t s = p.shift & 0x3f;
      return s >= 32 ? s - 64 : s;
    };
    if (!fp && (mode == golden::RequantMode::kTfliteDouble ||
                mode == golden::RequantMode::kTfliteSingle)) {
      for (uint32_t c = 0; c < n; ++c) {
        const int32_t s = shift_of(params_[c]);
        if (s < -31 || s > 30) return {ErrorCode::kParam, c};
      }
    }
    if (Check f = bus_fault(addr, row_bytes, m, hs, true); f.code != ErrorCode::kNone) return f;
    golden::OutputParams out;
    out.mode = mode;
    out.zero_point = s.zp;
    out.act_min = s.act_min;
    out.act_max = s.act_max;
    std::vector<uint8_t> bytes(row_bytes);
    for (uint32_t j = 0; j < m; ++j) {
      const int32_t* row = acc_row(acc_addr, j);
      for (uint32_t c = 0; c < n; ++c) {
        if (fp) {
          store_fp(row[c], params_[c], fmt, s.relu, pack, bytes.data(), c);
          continue;
        }
        golden::ChannelParams ch;
        ch.bias = params_[c].bias;
        ch.multiplier = static_cast<int32_t>(params_[c].mult);
        ch.shift = shift_of(params_[c]);
        ch.scale = std::bit_cast<float>(params_[c].mult);
        const int32_t v = postprocess(row[c], ch, params_[c].mult, out);
        if (pack) {
          bytes[c] = static_cast<uint8_t>(v);
        } else {
          std::memcpy(&bytes[4 * c], &v, 4);
        }
      }
      dev_write(addr + uint64_t{j} * hs, bytes.data(), row_bytes);
    }
    return {};
  }

  // One column of a STORE_ACC in an FP format: the accumulator's FP32 sum scaled and biased by
  // the column's FP32 scale (the multiplier word) and bias (golden::fp_postprocess), converted.
  // Into column c of the output row `out`: unpacked, the encoding in the low bits of a 32-bit
  // little-endian word (upper bits zero); packed, its one (FP8) or two (BF16) bytes.
  static void store_fp(int32_t acc, const ColumnParams& p, ElemFormat fmt, bool relu, bool pack,
                       uint8_t* out, uint32_t c) {
    const float y = golden::fp_postprocess(std::bit_cast<float>(acc), std::bit_cast<float>(p.mult),
                                           std::bit_cast<float>(p.bias), relu);
    const uint32_t v = fmt == ElemFormat::kFp32
                           ? golden::fp32_bits(y)
                           : golden::fp_encode(y, static_cast<golden::FpFormat>(fmt));
    if (!pack) {
      for (int b = 0; b < 4; ++b) out[4 * c + b] = static_cast<uint8_t>(v >> (8 * b));
    } else if (fmt == ElemFormat::kBf16) {
      out[2 * c] = static_cast<uint8_t>(v);
      out[2 * c + 1] = static_cast<uint8_t>(v >> 8);
    } else {
      out[c] = static_cast<uint8_t>(v);
    }
  }

  // ---------------------------------------------------------------- queue
  void raise(ErrorCode code, uint32_t index, uint64_t addr) {
    err_code_ = static_cast<uint8_t>(code);
    err_index_ = index;
    err_addr_ = addr;
    irq_status_ |= csr::kIrqError;
    write_completion();
  }

  void write_completion() {
    if (cpl_addr_ == 0) return;
    if (!in_window(cpl_addr_, 16, true)) {
      if (!err_code_) {
        err_code_ = static_cast<uint8_t>(ErrorCode::kWindow);
        err_index_ = completed_;
        err_addr_ = cpl_addr_;
        irq_status_ |= csr::kIrqError;
      }
      return;
    }
    const uint32_t rec[4] = {completed_, err_code_, err_index_, 0};
    dev_write(cpl_addr_, rec, 16);
    perf_[kWrBytes] += 16;
  }

  // Fetch and decode into the in-flight window (stops at a decode error).
  void fetch() {
    while (pending_.code == ErrorCode::kNone && rob_.size() < inflight_ && head_ != tail_) {
      const uint32_t index = head_;
      if (ring_log2_ < 1 || ring_log2_ > 16 || ring_base_ % 64 != 0) {
        pending_ = {ErrorCode::kRing, ring_base_};
        pending_index_ = index;
        return;
      }
      const uint64_t entry = ring_base_ + uint64_t{index % (1u << ring_log2_)} * 64;
      if (!in_window(entry, 64, false)) {
        pending_ = {ErrorCode::kWindow, entry};
        pending_index_ = index;
        return;
      }
      Descriptor d;
      mem_.read(entry, d.w.data(), 64);
      perf_[kRdBytes] += 64;
      if (Check c = validate(d, index); c.code != ErrorCode::kNone) {
        // ERR_ADDR: the host address for ALIGN / WINDOW, else the descriptor's ring entry.
        if (c.code != ErrorCode::kAlign && c.code != ErrorCode::kWindow) c.addr = entry;
        pending_ = c;
        pending_index_ = index;
        return;
      }
      rob_.push_back({index, d, engine_of(d.opcode())});
      ++head_;
    }
  }

  bool done_or_retired(uint32_t target) const {
    const uint32_t base = rob_.front().index;
    if (static_cast<int32_t>(target - base) < 0) return true;
    return rob_[target - base].done;
  }

  bool ready(size_t pos) const {
    const Slot& s = rob_[pos];
    for (size_t i = 0; i < pos; ++i) {
      const Slot& e = rob_[i];
      if (e.done) continue;
      if (e.d.opcode() == Opcode::kFence) return false;
      const uint8_t f = s.d.flags();
      if ((f & kFlagWaitLoad) && e.engine == Engine::kLoad) return false;
      if ((f & kFlagWaitCompute) && e.engine == Engine::kCompute) return false;
      if ((f & kFlagWaitStore) && e.engine == Engine::kStore) return false;
      if (s.d.opcode() == Opcode::kFence) return false;
    }
    for (int slot = 0; slot < 2; ++slot) {
      const uint8_t back = s.d.dep(slot);
      if (back && !done_or_retired(s.index - back)) return false;
    }
    return true;
  }

  // One scheduling step. False when there is nothing to do.
  bool step() {
    if (err_code_ || !enable_) return false;
    fetch();
    if (rob_.empty()) {
      if (pending_.code != ErrorCode::kNone) {
        raise(pending_.code, pending_index_, pending_.addr);
        return true;
      }
      return false;
    }
    // Candidates: the oldest unexecuted descriptor of each engine (NOP/FENCE count as their own).
    std::vector<size_t> cand;
    bool seen[5] = {false, false, false, false, false};
    for (size_t i = 0; i < rob_.size(); ++i) {
      const Slot& s = rob_[i];
      if (s.done) continue;
      const int e = static_cast<int>(s.engine);
      if (seen[e] && s.engine != Engine::kNone) continue;
      seen[e] = true;
      if (ready(i)) cand.push_back(i);
      if (!random_) break;
    }
    if (cand.empty()) {
      // Count dependency waits for the engines' heads, then let time pass (cannot happen in
      // practice: the oldest descriptor is always ready).
      cycle_tick(1);
      return true;
    }
    const size_t pick =
        random_ ? cand[std::uniform_int_distribution<size_t>(0, cand.size() - 1)(rng_)] : cand[0];
    Slot& s = rob_[pick];
    cost_ = 0;
    const Check c = execute(s.d);
    if (c.code != ErrorCode::kNone) {
      // Bus errors: the descriptor ends with the error; the queue stops.
      rob_.clear();
      raise(c.code, s.index, c.addr);
      return true;
    }
    executing_ = true;
    exec_index_ = s.index;
    busy_until_ = cycle_ + cost_;
    return true;
  }

  // The executing descriptor completes; retire what can retire.
  void finish() {
    executing_ = false;
    for (Slot& s : rob_) {
      if (s.index == exec_index_) s.done = true;
    }
    bool retired = false;
    while (!rob_.empty() && rob_.front().done) {
      if (rob_.front().d.flags() & kFlagIrq) irq_status_ |= csr::kIrqDone;
      rob_.pop_front();
      ++completed_;
      ++perf_[kRetired];
      retired = true;
    }
    if (retired) write_completion();
  }

  // configuration
  uint32_t rows_ = 16, cols_ = 16, bus_ = 16, acc_rows_ = 512, spad_lines_ = 16384, banks_ = 4;
  uint32_t inflight_ = 16;
  uint32_t simt_warps_ = 4, simt_threads_ = 8, simt_dmem_kib_ = 256, simt_imem_kib_ = 16;
  static constexpr uint32_t kSimtBanks = 8;  // CAP4.dmem_banks (informative here)
  bool random_ = false;
  std::mt19937_64 rng_;
  // registers
  bool enable_ = false;
  uint64_t ring_base_ = 0, cpl_addr_ = 0, err_addr_ = 0;
  uint32_t ring_log2_ = 0, tail_ = 0, head_ = 0, completed_ = 0, err_index_ = 0;
  uint8_t err_code_ = 0;
  uint32_t irq_status_ = 0, irq_enable_ = 0;
  Win win_[4];
  uint64_t perf_[csr::kPerfCount] = {};
  uint32_t perf_latch_[csr::kPerfCount] = {};
  // state
  sim::HostMemory mem_;  // the same sparse memory model the sim:// back end uses
  std::vector<uint8_t> spad_;
  std::vector<int32_t> acc_;
  std::vector<ColumnParams> params_;
  std::vector<uint8_t> dmem_, imem_;  // SIMT data and instruction memories
  // SIMT_ERR_CODE .. SIMT_LAUNCHES (consecutive words from kSimtErrCode).
  enum SimtReg {
    kSimtRegErrCode,
    kSimtRegErrPc,
    kSimtRegErrThread,
    kSimtRegErrTval,
    kSimtRegCycles,
    kSimtRegIssued,
    kSimtRegActive,
    kSimtRegStallPipe,
    kSimtRegStallDiv,
    kSimtRegStallMem,
    kSimtRegStallBarrier,
    kSimtRegReplays,
    kSimtRegBarriers,
    kSimtRegLaunches,
    kSimtRegCount
  };
  std::array<uint32_t, kSimtRegCount> simt_regs_{};
  uint32_t simt_launches_ = 0;
  std::deque<Slot> rob_;
  Check pending_;
  uint32_t pending_index_ = 0;
  std::vector<Fault> faults_;
  std::vector<std::pair<uint64_t, uint64_t>> dev_writes_;
  uint64_t cycle_ = 0;
  uint64_t cost_ = 0, busy_until_ = 0;
  bool executing_ = false;
  uint32_t exec_index_ = 0;
};

}  // namespace

Backend* make_ref_backend(const Options& opts) { return new RefDevice(opts); }

}  // namespace weft::detail
