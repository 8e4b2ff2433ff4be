// weft_fuzz: the descriptor fuzzer (docs/fuzz.md). Runs random and mutated descriptor programs
// through libweft on one or more devices (sim:// with buslog=1, plain and with back-pressure) and
// checks four oracles on every case:
//   1. no hang: every batch completes or stops on an error within a cycle budget computed from
//      the work it asks for (Queue::wait's cycle limit), and the device is idle again within it;
//   2. every error named, with the right index: a decode error is exactly the one
//      decode_model.hpp (the check table of docs/cmd.md) predicts, with its index and ERR_ADDR;
//      an execution error (SLVERR, DECERR, SIMT, PARAM) comes from a descriptor that can raise it,
//      before the first decode error; weft::Error, Queue::error() and the completion record agree;
//   3. no device access outside the open windows: every read and write beat of the AXI memory
//      model's log (and every byte it wrote) lies inside a window with that permission;
//   4. after Queue::reset() a GEMM with windows restored is bit-exact (against a plain loop here).
//
// Deterministic for a seed: case n of a run is the same whatever --cases or --seconds says, so a
// failure at case n repeats with --seed S --cases n+1. Prints totals per category and per error
// code; exit status 1 if any oracle failed.
//
//   weft_fuzz --uri 'sim://?array=16x16&buslog=1' --seed 1 --cases 200
//   weft_fuzz --seconds 600 --jobs 2          # both default devices, one process each
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cinttypes>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <random>
#include <sstream>
#include <string>
#include <vector>

#include "decode_model.hpp"
#include "weft/golden/simt.hpp"
#include "weft/regs.hpp"
#include "weft/weft.hpp"

namespace weft::tb::fuzz {
namespace {

namespace regs = weft::regs;
namespace rv = weft::golden::simt::rv;
using Clock = std::chrono::steady_clock;

std::string hex(uint64_t v) {
  char b[24];
  std::snprintf(b, sizeof b, "0x%" PRIx64, v);
  return b;
}

// ============================================================================== totals
struct Totals {
  uint64_t cases = 0, hangs = 0, oow_reads = 0, oow_writes = 0, post_reset_failures = 0,
           wrong_errors = 0, crashes = 0, rerolled = 0, reopened = 0, cycles = 0;
  double seconds = 0;
  std::map<std::string, uint64_t> by_category;  // cases
  std::map<std::string, uint64_t> by_code;      // outcome: error name, or NONE
  std::map<std::string, uint64_t> by_category_code;  // "category code"

  uint64_t failures() const {
    return hangs + oow_reads + oow_writes + post_reset_failures + wrong_errors + crashes;
  }
  void merge(const Totals& o) {
    cases += o.cases, hangs += o.hangs, oow_reads += o.oow_reads, oow_writes += o.oow_writes;
    post_reset_failures += o.post_reset_failures, wrong_errors += o.wrong_errors;
    crashes += o.crashes, rerolled += o.rerolled, reopened += o.reopened, cycles += o.cycles;
    seconds = std::max(seconds, o.seconds);
    for (const auto& [k, v] : o.by_category) by_category[k] += v;
    for (const auto& [k, v] : o.by_code) by_code[k] += v;
    for (const auto& [k, v] : o.by_category_code) by_category_code[k] += v;
  }
  // One "key value" per line (the children of --jobs send their totals this way).
  std::string serialize() const {
    std::ostringstream s;
    s << "cases " << cases << "\nhangs " << hangs << "\noow_reads " << oow_reads << "\noow_writes "
      << oow_writes << "\npost_reset_failures " << post_reset_failures << "\nwrong_errors "
      << wrong_errors << "\ncrashes " << crashes << "\nrerolled " << rerolled << "\nreopened "
      << reopened << "\ncycles " << cycles << "\nseconds " << seconds << "\n";
    for (const auto& [k, v] : by_category) s << "cat " << k << " " << v << "\n";
    for (const auto& [k, v] : by_code) s << "code " << k << " " << v << "\n";
    for (const auto& [k, v] : by_category_code) s << "catcode " << k << " " << v << "\n";
    return s.str();
  }
  static Totals parse(const std::string& text) {
    Totals t;
    std::istringstream in(text);
    std::string key;
    while (in >> key) {
      if (key == "cat" || key == "code") {
        std::string k;
        uint64_t v;
        in >> k >> v;
        (key == "cat" ? t.by_category : t.by_code)[k] += v;
      } else if (key == "catcode") {
        std::string a, b;
        uint64_t v;
        in >> a >> b >> v;
        t.by_category_code[a + " " + b] += v;
      } else if (key == "seconds") {
        in >> t.seconds;
      } else {
        uint64_t v;
        in >> v;
        std::map<std::string, uint64_t*> f = {{"cases", &t.cases},
                                              {"hangs", &t.hangs},
                                              {"oow_reads", &t.oow_reads},
                                              {"oow_writes", &t.oow_writes},
                                              {"post_reset_failures", &t.post_reset_failures},
                                              {"wrong_errors", &t.wrong_errors},
                                              {"crashes", &t.crashes},
                                              {"rerolled", &t.rerolled},
                                              {"reopened", &t.reopened},
                                              {"cycles", &t.cycles}};
        if (f.count(key)) *f[key] += v;
      }
    }
    return t;
  }
};

void print_totals(const Totals& t, const std::string& title) {
  std::printf("\n== %s: %" PRIu64 " cases, %.1f s, %.1f M device cycles\n", title.c_str(), t.cases,
              t.seconds, double(t.cycles) / 1e6);
  std::printf("%-14s %8s   outcomes (error code: cases)\n", "category", "cases");
  for (const auto& [cat, n] : t.by_category) {
    std::string outs;
    for (const auto& [k, v] : t.by_category_code) {
      if (k.rfind(cat + " ", 0) != 0) continue;
      outs += ' ';  // not " " + ...: GCC 12's -Wrestrict misfires on it
      outs += k.substr(cat.size() + 1);
      outs += ':';
      outs += std::to_string(v);
    }
    std::printf("%-14s %8" PRIu64 "  %s\n", cat.c_str(), n, outs.c_str());
  }
  std::printf("%-14s %8s\n", "error code", "cases");
  for (const auto& [k, v] : t.by_code) std::printf("%-14s %8" PRIu64 "\n", k.c_str(), v);
  std::printf("hangs %" PRIu64 ", out-of-window accesses %" PRIu64 " (reads %" PRIu64
              ", writes %" PRIu64 "), post-reset GEMM failures %" PRIu64
              ", wrong error or index %" PRIu64 ", crashes %" PRIu64 "; rerolled mutations %" PRIu64
              ", device reopened %" PRIu64 "\n",
              t.hangs, t.oow_reads + t.oow_writes, t.oow_reads, t.oow_writes, t.post_reset_failures,
              t.wrong_errors, t.crashes, t.rerolled, t.reopened);
}

// ============================================================================== a case
struct Fault {
  uint64_t lo = 0, hi = 0;
  bool write = false;
  unsigned resp = 2;  // 2 SLVERR, 3 DECERR
};

enum class RingMod { kNone, kBadLog2, kMisaligned, kMoved };

struct Case {
  std::string category, what;
  Windows win{};
  std::vector<Descriptor> prog;
  std::map<size_t, uint32_t> seq_patch;  // position -> seq written over the driver's
  uint32_t pre_nops = 0;
  std::vector<Fault> faults;
  RingMod ring = RingMod::kNone;
  uint32_t ring_log2 = 0;
  uint64_t ring_base = 0;
  // Outcomes known exactly beyond the decode checks: launches of well-formed kernels that must
  // end without error, and the PARAM case (position of its STORE_ACC, bad column or none).
  std::vector<size_t> simt_must_pass;
  std::optional<std::pair<size_t, std::optional<uint64_t>>> param;
};

// Host regions that data windows cover: ordinary memory far from the arena, the top of the
// address space (its last beat can never be inside a window), address 0 and the 4 GiB line.
struct Region {
  const char* name;
  uint64_t base, size;
};
constexpr Region kRegions[] = {
    {"mid", 0x0000'0040'0000'0000ull, 0x40000},
    {"top", 0xFFFF'FFFF'FFFC'0000ull, 0x40000},
    {"zero", 0x0, 0x40000},
    {"4g", 0x0000'0000'FFFE'0000ull, 0x40000},
};

constexpr const char* kCategories[] = {"random_bytes", "field", "wrap",  "windows", "simt",     "seq",
                                       "batch",        "bus_fault", "ring", "param", "reset_mid"};
constexpr int kWeights[] = {10, 26, 10, 14, 10, 7, 7, 8, 3, 3, 4};

// ============================================================================== the fuzzer
class Fuzzer {
 public:
  Fuzzer(std::string uri, uint64_t seed, Totals& t, bool verbose)
      : uri_(std::move(uri)), seed_(seed), t_(t), verbose_(verbose) {
    open();
  }

  void run_case(uint64_t n, const std::string& only) {
    // Case n's stimulus depends only on (seed, n).
    std::seed_seq ss{uint32_t(seed_), uint32_t(seed_ >> 32), uint32_t(n), uint32_t(n >> 32)};
    rng_.seed(ss);
    case_no_ = n;
    const uint64_t c0 = dev_->cycle();
    Case c;
    c.category = only.empty() ? pick_category() : only;
    try {
      generate(c);
      execute(c);
    } catch (const std::exception& e) {
      // An exception the oracles did not expect: a TIMEOUT (the queue reset or a step after the
      // case never finished) is a hang; anything else (a simulation failure, a driver bug) is
      // counted as a crash. The device is opened again so that the run goes on.
      const auto* we = dynamic_cast<const Error*>(&e);
      const bool timeout = we && we->code() == Errc::kTimeout;
      if (timeout) ++t_.by_code["HANG"];
      fail(c, std::string(timeout ? "hang: " : "exception: ") + e.what(),
           timeout ? &t_.hangs : &t_.crashes);
      reopen();
    }
    ++t_.cases;
    ++t_.by_category[c.category];
    const uint64_t c1 = dev_->cycle();
    t_.cycles += c1 >= c0 ? c1 - c0 : c1;
  }

 private:
  // ------------------------------------------------------------------------- device
  void open() {
    // The device's own randomness (back-pressure, Verilator's initial state) follows the seed.
    // The arena (ring, completion record, the GEMM's buffers) at 32 GiB, clear of the data
    // regions (one of which crosses 4 GiB, where the driver's default arena starts).
    const std::string sep = uri_.find('?') == std::string::npos ? "?" : "&";
    std::string uri = uri_ + sep + "seed=" + std::to_string(seed_ % 1000000007 + reopens_);
    if (uri_.find("membase=") == std::string::npos) uri += "&membase=0x800000000&mem=16777216";
    dev_ = std::make_unique<Device>(Device::open(uri));
    shape_ = Shape::of(dev_->caps());
    mem_ecc_ = dev_->caps().mem_ecc;
    ring_addr_ = dev_->read_reg(regs::kRingBaseLo) | uint64_t{dev_->read_reg(regs::kRingBaseHi)} << 32;
    cpl_addr_ = dev_->read_reg(regs::kCplAddrLo) | uint64_t{dev_->read_reg(regs::kCplAddrHi)} << 32;
    ring_log2_ = dev_->read_reg(regs::kRingSize) & 31;
    ring_entries_ = 1u << ring_log2_;
    if (ring_entries_ != dev_->queue().ring_entries()) throw std::runtime_error("ring size mismatch");
    gemm_a_ = dev_->alloc(64 * 16);
    gemm_w_ = dev_->alloc(64 * 16);
    gemm_p_ = dev_->alloc(64 * 16);
    gemm_out_ = dev_->alloc(64 * 64);
    readback_ = dev_->alloc(64 * 16);
    dev_->take_bus_accesses();  // also fails early (UNSUPPORTED) without buslog=1
    dev_->take_device_writes();
  }
  void reopen() {
    ++reopens_;
    ++t_.reopened;
    gemm_a_ = gemm_w_ = gemm_p_ = gemm_out_ = readback_ = Buffer();
    dev_.reset();
    open();
  }

  uint32_t rnd(uint32_t lo, uint32_t hi) { return std::uniform_int_distribution<uint32_t>(lo, hi)(rng_); }
  uint64_t rnd64(uint64_t lo, uint64_t hi) { return std::uniform_int_distribution<uint64_t>(lo, hi)(rng_); }
  bool chance(double p) { return std::uniform_real_distribution<double>(0, 1)(rng_) < p; }
  template <class T>
  const T& pick(const std::vector<T>& v) { return v[rnd(0, uint32_t(v.size() - 1))]; }

  std::string pick_category() {
    int total = 0;
    for (int w : kWeights) total += w;
    int r = int(rnd(0, uint32_t(total - 1)));
    for (size_t i = 0; i < std::size(kWeights); ++i) {
      if (r < kWeights[i]) return kCategories[i];
      r -= kWeights[i];
    }
    return kCategories[0];
  }

  // ------------------------------------------------------------------------- windows
  // W0: the ring, read-only; W1: the completion record, write-only (the driver's arena window is
  // restored after every case). W2, W3: the data region, in one of several layouts.
  void layout(Case& c, const Region& r, const std::string& style) {
    c.win[0] = {ring_addr_, ring_addr_ + uint64_t{ring_entries_} * 64, true, false};
    c.win[1] = {cpl_addr_, cpl_addr_ + 64, false, true};
    const uint64_t b = r.base, s = r.size, top = b + s;  // top may be 0 (2^64)
    const uint64_t end = top == 0 ? ~uint64_t{0} : top;
    Window& w2 = c.win[2];
    Window& w3 = c.win[3];
    if (style == "normal") {
      w2 = {b, end, true, true};
    } else if (style == "ro_wo") {  // read-only lower half, write-only upper half
      w2 = {b, b + s / 2, true, false};
      w3 = {b + s / 2, end, false, true};
    } else if (style == "overlap") {  // the whole region twice: read-only and write-only
      w2 = {b, end, true, false};
      w3 = {b, end, false, true};
    } else if (style == "split") {  // two RW halves: a transfer across the middle fits neither
      w2 = {b, b + s / 2, true, true};
      w3 = {b + s / 2, end, true, true};
    } else if (style == "empty") {  // base = limit, and base > limit
      w2 = {b + s / 4, b + s / 4, true, true};
      w3 = {end, b, true, true};
    } else if (style == "closed") {  // covering the region, no permission
      w2 = {b, end, false, false};
    } else if (style == "odd_limit") {  // limits that are not whole beats
      w2 = {b, b + s / 2 + 8, true, true};
      w3 = {b + s / 2 + 16, end - 1, true, true};
    } else if (style == "tiny") {  // one beat, and two beats
      w2 = {b + 256, b + 256 + shape_.bb, true, true};
      w3 = {b + 1024, b + 1024 + 2 * shape_.bb, true, true};
    }
    c.what += "windows " + style + " in region " + r.name + "; ";
  }
  const Region& pick_region(bool odd) {
    if (!odd || chance(0.5)) return kRegions[0];
    return kRegions[rnd(1, uint32_t(std::size(kRegions) - 1))];
  }
  void program_windows(const Windows& w) {
    for (int i = 0; i < 4; ++i) {
      dev_->write_reg(regs::kWinCtrl[i], 0);
      dev_->write_reg(regs::kWinBaseLo[i], uint32_t(w[i].base));
      dev_->write_reg(regs::kWinBaseHi[i], uint32_t(w[i].base >> 32));
      dev_->write_reg(regs::kWinLimitLo[i], uint32_t(w[i].limit));
      dev_->write_reg(regs::kWinLimitHi[i], uint32_t(w[i].limit >> 32));
      dev_->write_reg(regs::kWinCtrl[i], (w[i].read ? regs::win_ctrl::kReadMask : 0) |
                                             (w[i].write ? regs::win_ctrl::kWriteMask : 0));
    }
  }
  // The driver's layout: window 0 = the arena, read and write; the others closed.
  Windows standard_windows() const {
    Windows w{};
    w[0] = {dev_->arena_base(), dev_->arena_base() + dev_->arena_size(), true, true};
    return w;
  }

  // ------------------------------------------------------------------------- valid descriptors
  // A 16-byte aligned host address with `bytes` after it inside region r (the window decides).
  uint64_t host_in(const Region& r, uint64_t bytes) {
    const uint64_t room = r.size > bytes ? r.size - bytes : 0;
    return r.base + (rnd64(0, room) & ~uint64_t{shape_.bb - 1});
  }
  Transfer2d transfer(const Region& r, bool simt_region) {
    const uint32_t bb = shape_.bb;
    Transfer2d t;
    t.row_bytes = bb * (chance(0.8) ? rnd(1, 8) : rnd(9, 64));
    t.rows = chance(0.8) ? rnd(1, 12) : rnd(13, 64);
    t.host_stride = chance(0.1) ? 0 : t.row_bytes + bb * rnd(0, 4);
    t.host_addr = host_in(r, uint64_t{t.rows - 1} * t.host_stride + t.row_bytes);
    const uint32_t row_lines = t.row_bytes / bb;
    t.spad_stride = chance(0.1) ? 0 : row_lines + rnd(0, 3);
    const uint64_t span = uint64_t{t.rows - 1} * t.spad_stride + row_lines;
    if (simt_region && shape_.simt) {
      const uint64_t lines = shape_.dmem_lines;
      t.spad_addr = uint32_t(kSimtDmemLine + rnd64(0, lines - span));
    } else {
      t.spad_addr = uint32_t(rnd64(0, shape_.spad_lines - span));
    }
    return t;
  }
  ComputeArgs compute() {
    ComputeArgs c;
    const uint32_t half = shape_.acc_rows / 2;
    c.m = chance(0.8) ? rnd(1, 24) : rnd(25, std::min(128u, half));
    c.k = chance(0.8) ? rnd(1, 3 * shape_.rows) : rnd(1, 12 * shape_.rows);
    c.acc_addr = rnd(0, 1) * half + rnd(0, half - c.m);
    const int f = int(rnd(0, 9));
    if (shape_.fp && f == 8) {
      c.a_fmt = chance(0.5) ? ElemFormat::kE4m3 : ElemFormat::kE5m2;
      c.w_fmt = chance(0.5) ? ElemFormat::kE4m3 : ElemFormat::kE5m2;
    } else if (shape_.fp && f == 9) {
      c.a_fmt = c.w_fmt = ElemFormat::kBf16;
    }
    const uint32_t wide = c.a_fmt == ElemFormat::kBf16 ? 2 : 1;
    const uint32_t kt = (c.k + shape_.rows - 1) / shape_.rows;
    c.a_row_stride = wide * rnd(1, 2);
    c.a_tile_stride = c.m * c.a_row_stride + rnd(0, 4);
    c.w_row_stride = wide;
    c.w_tile_stride = shape_.rows * wide + rnd(0, 4);
    const uint32_t a_span = (kt - 1) * c.a_tile_stride + (c.m - 1) * c.a_row_stride + wide;
    const uint32_t w_span = (kt - 1) * c.w_tile_stride + shape_.rows * wide;
    c.a_addr = rnd(0, shape_.spad_lines - a_span - 1);
    c.w_addr = rnd(0, shape_.spad_lines - w_span - 1);
    c.accumulate = chance(0.3);
    c.a_signed = chance(0.7);
    c.w_signed = chance(0.7);
    c.a_zp = uint8_t(rnd(0, 3) == 0 ? rnd(0, 255) : 0);
    c.w_zp = uint8_t(rnd(0, 3) == 0 ? rnd(0, 255) : 0);
    return c;
  }
  StoreAccArgs store_acc(const Region& r) {
    StoreAccArgs s;
    const uint32_t half = shape_.acc_rows / 2, bb = shape_.bb;
    s.m = rnd(1, 12);
    s.n = rnd(1, shape_.cols);
    s.acc_addr = rnd(0, 1) * half + rnd(0, half - s.m);
    s.mode = static_cast<StoreMode>(rnd(0, 3));
    s.pack = chance(0.5);
    s.out_fmt = ElemFormat::kInt;
    if (shape_.fp && chance(0.2)) {
      s.out_fmt = static_cast<ElemFormat>(rnd(1, 4));
      if (s.out_fmt == ElemFormat::kFp32) s.pack = false;
      s.relu = chance(0.5);
    }
    s.load_params = chance(0.5);
    s.params_addr = rnd(0, shape_.spad_lines - shape_.cols);
    const uint64_t rb = store_row_bytes(s);
    s.host_stride = uint32_t((rb + bb - 1) / bb * bb + bb * rnd(0, 2));
    s.host_addr = host_in(r, uint64_t{s.m - 1} * s.host_stride + rb);
    s.zp = int32_t(rnd(0, 40)) - 20;
    s.act_min = chance(0.5) ? INT32_MIN : -int32_t(rnd(0, 200));
    s.act_max = chance(0.5) ? INT32_MAX : int32_t(rnd(0, 200));
    return s;
  }

  // A SIMT kernel image: well-formed (each thread writes a word to its stack and exits), or
  // random RV32IM instructions, or random words. Written to host memory at `host`.
  std::vector<uint32_t> simt_image(int kind) {
    std::vector<uint32_t> w;
    if (kind == 0) {
      w.push_back(rv::csrr(rv::t0, weft::golden::simt::kCsrThreadId));
      w.push_back(rv::addi(rv::t1, rv::t0, int32_t(rnd(0, 100))));
      w.push_back(rv::sw(rv::t1, rv::sp, -4));
      w.push_back(rv::lw(rv::t2, rv::sp, -4));
      if (chance(0.5)) w.push_back(rv::barrier());
      for (uint32_t x : rv::exit_with(rnd(0, 5))) w.push_back(x);
      return w;
    }
    const uint32_t n = rnd(4, 40);
    for (uint32_t i = 0; i < n; ++i) {
      if (kind == 2) {
        w.push_back(uint32_t(rng_()));
        continue;
      }
      const uint32_t rd = rnd(5, 15), rs1 = rnd(0, 15), rs2 = rnd(0, 15);
      switch (rnd(0, 14)) {
        case 0: w.push_back(rv::addi(rd, rs1, int32_t(rnd(0, 4095)) - 2048)); break;
        case 1: w.push_back(rv::add(rd, rs1, rs2)); break;
        case 2: w.push_back(rv::mul(rd, rs1, rs2)); break;
        case 3: w.push_back(rv::div(rd, rs1, rs2)); break;
        case 4: w.push_back(rv::lw(rd, chance(0.5) ? rv::sp : rs1, -4 * int32_t(rnd(0, 64)))); break;
        case 5: w.push_back(rv::sw(rs2, chance(0.5) ? rv::sp : rs1, -4 * int32_t(rnd(0, 64)))); break;
        case 6: w.push_back(rv::lb(rd, rs1, int32_t(rnd(0, 64)))); break;
        case 7: w.push_back(rv::bne(rs1, rs2, 4 * (int32_t(rnd(0, 8)) - 4))); break;
        case 8: w.push_back(rv::beq(rs1, rs2, 4 * int32_t(rnd(1, 6)))); break;
        case 9: w.push_back(rv::jal(rv::zero, 4 * (int32_t(rnd(0, 6)) - 2))); break;
        case 10: w.push_back(rv::barrier()); break;
        case 11: w.push_back(rv::csrr(rd, 0xCC0 + rnd(0, 7))); break;
        case 12: w.push_back(chance(0.5) ? rv::ebreak() : rv::ecall()); break;
        case 13: w.push_back(rv::jalr(rv::zero, rs1, int32_t(rnd(0, 64)))); break;
        default:
          for (uint32_t x : rv::exit_with(rnd(0, 9))) w.push_back(x);
      }
    }
    if (chance(0.7)) {
      for (uint32_t x : rv::exit_with(0)) w.push_back(x);
    }
    return w;
  }
  // LOAD of a kernel image into the SIMT instruction memory, then a launch that depends on it.
  std::vector<Descriptor> simt_pair(const Region& r, int kind) {
    const uint32_t bb = shape_.bb;
    const std::vector<uint32_t> img = simt_image(kind);
    Transfer2d t;
    t.row_bytes = uint32_t((img.size() * 4 + bb - 1) / bb * bb);
    t.rows = 1;
    t.host_stride = t.row_bytes;
    t.host_addr = host_in(r, t.row_bytes);
    const uint32_t lines = t.row_bytes / bb;
    const uint32_t at = rnd(0, uint32_t(shape_.imem_lines - lines));
    t.spad_addr = kSimtImemLine + at;
    std::vector<uint8_t> bytes(t.row_bytes, 0);
    std::memcpy(bytes.data(), img.data(), img.size() * 4);
    dev_->host_write(t.host_addr, bytes.data(), bytes.size());
    SimtLaunch l;
    l.pc = at * bb;
    l.num_warps = rnd(1, shape_.warps);
    l.threads_per_warp = rnd(1, shape_.threads);
    l.block_id = uint32_t(rng_());
    l.arg_ptr = rnd(0, 1024) * 4;
    l.stack_top = uint32_t(shape_.dmem_lines * bb) - 16 * rnd(0, 64);
    l.stack_size = 256;
    // Well-formed kernels get room for every warp's few instructions; the others any limit.
    l.max_issues = kind == 0 ? rnd(400, 3000) : rnd(1, 3000);
    return {Descriptor::load(t), Descriptor::simt_launch(l).with_dep(0, 1)};
  }

  // A valid program of n descriptors over region r (dependencies and flags at random).
  std::vector<Descriptor> program(const Region& r, size_t n) {
    std::vector<Descriptor> p;
    while (p.size() < n) {
      const uint32_t k = rnd(0, 99);
      if (k < 25) {
        p.push_back(Descriptor::load(transfer(r, chance(0.15))));
      } else if (k < 38) {
        p.push_back(Descriptor::store_spad(transfer(r, chance(0.15))));
      } else if (k < 58) {
        p.push_back(Descriptor::compute(compute()));
      } else if (k < 78) {
        p.push_back(Descriptor::store_acc(store_acc(r)));
      } else if (k < 84) {
        p.push_back(Descriptor::nop());
      } else if (k < 88) {
        p.push_back(Descriptor::fence());
      } else if (shape_.simt) {
        // Mostly well-formed kernels here (the simt category has the random ones), so that a
        // kernel fault does not hide the category's own mutation too often.
        for (const Descriptor& d : simt_pair(r, chance(0.8) ? 0 : int(rnd(1, 2)))) p.push_back(d);
      }
    }
    for (size_t i = 1; i < p.size(); ++i) {
      if (p[i].opcode() == Opcode::kSimtLaunch && p[i].dep(0) == 1) continue;
      if (chance(0.35)) p[i].with_dep(0, uint8_t(rnd(1, uint32_t(std::min<size_t>(i, 6)))));
      if (chance(0.15)) p[i].with_dep(1, uint8_t(rnd(1, uint32_t(std::min<size_t>(i, 20)))));
    }
    for (Descriptor& d : p) {
      if (chance(0.15)) d.with_flags(kFlagWaitLoad);
      if (chance(0.15)) d.with_flags(kFlagWaitCompute);
      if (chance(0.15)) d.with_flags(kFlagWaitStore);
      if (chance(0.2)) d.with_flags(kFlagIrq);
    }
    return p;
  }

  // ------------------------------------------------------------------------- mutations
  // Interesting values for a field of `width` bits now holding v.
  uint64_t interesting(const DescField& f, uint64_t v, const Case& c) {
    if (f.width == 1) return v ^ 1;
    const uint64_t mask = f.width == 64 ? ~uint64_t{0} : (uint64_t{1} << f.width) - 1;
    if (f.width <= 8) {
      const uint64_t xs[] = {0, 1, mask, v ^ (uint64_t{1} << rnd(0, f.width - 1)), rng_() & mask,
                             v + 1, v - 1};
      return xs[rnd(0, std::size(xs) - 1)] & mask;
    }
    if (f.width == 64) {  // host addresses: window edges and wrap points
      std::vector<uint64_t> xs = {0, 16, ~uint64_t{0} - 15, ~uint64_t{0} - 63, uint64_t{1} << 63,
                                  0xFFFF'FFF0ull, 0x1'0000'0000ull, v + 16, v - 16, v + 8, v + 1,
                                  v ^ (uint64_t{1} << rnd(0, 63)), rng_(), ring_addr_};
      for (int i = 2; i < 4; ++i) {
        const Window& w = c.win[i];
        for (uint64_t x : {w.base, w.base - 16, w.base + 16, w.limit - 16, w.limit - 32, w.limit,
                           w.limit & ~uint64_t{15}}) {
          xs.push_back(x);
        }
      }
      return pick(xs);
    }
    const uint64_t half = shape_.acc_rows / 2;
    const uint64_t xs[] = {0, 1, 2, 15, 16, 17, kMax20 - 1, kMax20, kMax20 + 1, 0x7FFF'FFFF,
                           0x8000'0000, 0xFFFF'FFFF, 0xFFFF'FFF0, v + 1, v - 1,
                           v ^ (uint64_t{1} << rnd(0, 31)), rng_(), shape_.spad_lines - 1,
                           shape_.spad_lines, half, half - 1, shape_.acc_rows, shape_.cols,
                           shape_.cols + 1, kSimtDmemLine - 1, kSimtDmemLine,
                           kSimtDmemLine + shape_.dmem_lines - 1, kSimtImemLine,
                           kSimtImemLine + shape_.imem_lines, shape_.warps + 1, shape_.threads + 1,
                           v * 2, v / 2};
    return xs[rnd(0, std::size(xs) - 1)] & mask;
  }
  static void put_field(Descriptor& d, const DescField& f, uint64_t v) {
    if (f.width == 64) {
      d.w[size_t(f.word)] = uint32_t(v);
      d.w[size_t(f.word) + 1] = uint32_t(v >> 32);
      return;
    }
    const uint32_t mask = f.width == 32 ? ~0u : ((1u << f.width) - 1u);
    d.w[size_t(f.word)] = (d.w[size_t(f.word)] & ~(mask << f.lsb)) | ((uint32_t(v) & mask) << f.lsb);
  }
  static uint64_t get_field(const Descriptor& d, const DescField& f) {
    if (f.width == 64) return d.w[size_t(f.word)] | uint64_t{d.w[size_t(f.word) + 1]} << 32;
    const uint32_t mask = f.width == 32 ? ~0u : ((1u << f.width) - 1u);
    return (d.w[size_t(f.word)] >> f.lsb) & mask;
  }
  std::vector<DescField> fields_of(const Descriptor& d) {
    std::vector<DescField> v;
    for (const DescField& f : DescriptorHeader::kFields) {
      if (std::string_view(f.name) != "seq") v.push_back(f);  // the seq category does that
    }
    auto add = [&](const auto& k) { v.insert(v.end(), k.begin(), k.end()); };
    switch (d.opcode()) {
      case Opcode::kLoad:
      case Opcode::kStoreSpad: add(Transfer2d::kFields); break;
      case Opcode::kCompute: add(ComputeArgs::kFields); break;
      case Opcode::kStoreAcc: add(StoreAccArgs::kFields); break;
      case Opcode::kSimtLaunch: add(SimtLaunch::kFields); break;
      default: break;
    }
    return v;
  }

  // Is a descriptor that passes decode small enough to run within a case's budget?
  bool bounded(const Descriptor& d) {
    const uint64_t w = work(d, shape_);
    return w <= 40000;
  }
  // Applies `mutate` to d until the result is an error or a bounded valid descriptor.
  template <class F>
  void mutate_bounded(Descriptor& d, const Case& c, size_t pos, F mutate) {
    const Descriptor orig = d;
    for (int attempt = 0; attempt < 24; ++attempt) {
      d = orig;
      mutate(d);
      Descriptor probe = d;
      probe.with_seq(uint32_t(pos));  // the seq is the queue's; the verdict here ignores it
      const Verdict v = decode(probe, uint32_t(pos), shape_, c.win, 0);
      if (!v.ok() || bounded(d)) return;
      ++t_.rerolled;
    }
    d = orig;
  }
  void mutate_field(Case& c, size_t pos) {
    Descriptor& d = c.prog[pos];
    std::string note;
    mutate_bounded(d, c, pos, [&](Descriptor& x) {
      const auto fs = fields_of(x);
      const DescField& f = pick(fs);
      const uint64_t before = get_field(x, f);
      const uint64_t v = interesting(f, before, c);
      put_field(x, f, v);
      note = std::string(f.name) + " " + hex(before) + " -> " + hex(v);
    });
    c.what += "field of #" + std::to_string(pos) + " (" + std::string(opcode_name(d.opcode())) + "): " +
              note + "; ";
  }
  void mutate_random(Case& c, size_t pos) {
    static const uint8_t ops[] = {0x00, 0x01, 0x10, 0x11, 0x20, 0x30, 0x40};
    mutate_bounded(c.prog[pos], c, pos, [&](Descriptor& x) {
      for (auto& w : x.w) w = uint32_t(rng_());
      if (chance(0.6)) x.w[0] = (x.w[0] & ~0xffu) | ops[rnd(0, 6)];
      if (chance(0.5)) x.w[0] &= 0xff;  // no flags and dependencies
    });
    c.what += "random bytes at #" + std::to_string(pos) + " (opcode " + hex(c.prog[pos].w[0] & 0xff) + "); ";
  }

  // 32- and 64-bit wrap-arounds of the extent arithmetic.
  void mutate_wrap(Case& c, const Region& r) {
    const size_t pos = rnd(0, uint32_t(c.prog.size() - 1));
    Descriptor& d = c.prog[pos];
    const uint32_t bb = shape_.bb;
    const int k = int(rnd(0, 7));
    std::string note;
    if (k <= 2) {  // host extents past 2^64 (or near it)
      Transfer2d t = transfer(r, false);
      const bool store = chance(0.5);
      if (k == 0) {
        t.host_addr = (~uint64_t{0} - 16 * rnd(0, 8)) & ~uint64_t{bb - 1};
        t.row_bytes = bb * rnd(1, 16);
        t.rows = rnd(1, 4);
        note = "host extent from 2^64 - small";
      } else if (k == 1) {
        t.host_addr = 0xFFFF'FFFF'FFFF'F000ull;
        t.host_stride = 0xFFFF'FFF0u;
        t.rows = rnd(2, uint32_t(kMax20));
        t.row_bytes = bb;
        note = "rows x stride wrap 2^64 (a wrapped end would look inside a low window)";
      } else {
        t.host_addr = r.base + r.size - bb * rnd(1, 4);
        t.row_bytes = bb * rnd(1, 8);
        note = "host extent across the region's end";
      }
      d = store ? Descriptor::store_spad(t) : Descriptor::load(t);
    } else if (k == 3) {  // scratchpad line arithmetic past 2^32
      Transfer2d t = transfer(r, false);
      t.spad_addr = 0xFFFF'FFFFu - rnd(0, 16);
      t.spad_stride = rnd(1, 64);
      t.rows = rnd(1, 8);
      note = "spad lines past 2^32";
      d = chance(0.5) ? Descriptor::store_spad(t) : Descriptor::load(t);
    } else if (k == 4) {  // COMPUTE line arithmetic past 2^32
      ComputeArgs a = compute();
      a.k = shape_.rows * rnd(2, 4);
      switch (rnd(0, 3)) {
        case 0: a.a_tile_stride = 0xFFFF'FFFFu - rnd(0, 8); break;
        case 1: a.w_tile_stride = 0xFFFF'FFFFu - rnd(0, 8); break;
        case 2: a.a_row_stride = 0x8000'0000u; a.m = rnd(2, 8); break;
        default: a.w_addr = 0xFFFF'FFFFu - rnd(0, 4);
      }
      note = "COMPUTE lines past 2^32";
      d = Descriptor::compute(a);
    } else if (k == 5) {  // accumulator rows past 2^32 / the bank
      ComputeArgs a = compute();
      a.acc_addr = 0xFFFF'FFFFu - rnd(0, 4);
      note = "acc_addr near 2^32";
      d = chance(0.5) ? Descriptor::compute(a) : [&] {
        StoreAccArgs s = store_acc(r);
        s.acc_addr = a.acc_addr;
        return Descriptor::store_acc(s);
      }();
    } else if (k == 6) {  // STORE_ACC extent past 2^64
      StoreAccArgs s = store_acc(r);
      s.host_addr = (~uint64_t{0} - 16 * rnd(0, 4)) & ~uint64_t{bb - 1};
      s.host_stride = 0xFFFF'FFF0u;
      s.m = rnd(1, 8);
      note = "STORE_ACC extent past 2^64";
      d = Descriptor::store_acc(s);
    } else {  // a valid transfer across the 4 GiB line (32-bit address carry)
      Transfer2d t = transfer(kRegions[3], false);
      t.host_addr = 0x1'0000'0000ull - bb * rnd(1, 8);
      t.host_stride = t.row_bytes;
      note = "transfer across 4 GiB";
      d = chance(0.5) ? Descriptor::store_spad(t) : Descriptor::load(t);
    }
    if (!bounded(d)) {  // e.g. a valid extent of 2^20 rows
      Descriptor probe = d;
      probe.with_seq(uint32_t(pos));
      if (decode(probe, uint32_t(pos), shape_, c.win, 0).ok()) {
        ++t_.rerolled;
        d = Descriptor::nop();
        note += " (too long to run: NOP instead)";
      }
    }
    c.what += "wrap at #" + std::to_string(pos) + ": " + note + "; ";
  }

  // A host address at a window edge for a transfer of the program.
  void mutate_edge(Case& c) {
    for (size_t pos = 0; pos < c.prog.size(); ++pos) {
      Descriptor& d = c.prog[pos];
      const auto e = host_extent(d);
      if (!e || !chance(0.6)) continue;
      const Window& w = c.win[rnd(2, 3)];
      const uint64_t span = uint64_t(e->end() - e->addr);
      const uint64_t lim = w.limit & ~uint64_t{shape_.bb - 1};
      const uint64_t xs[] = {w.base, w.base - shape_.bb, lim - span, lim - span + shape_.bb,
                             w.limit - span, (w.base + w.limit) / 2 & ~uint64_t{shape_.bb - 1}};
      const uint64_t a = xs[rnd(0, std::size(xs) - 1)] & ~uint64_t{shape_.bb - 1};
      put_field(d, StoreAccArgs::kFields[0], a);  // host_addr: words 2, 3 in both layouts
      c.what += "#" + std::to_string(pos) + " at window edge " + hex(a) + "; ";
    }
  }

  // ------------------------------------------------------------------------- generation
  void generate(Case& c) {
    const std::string& cat = c.category;
    const bool odd = cat == "windows" || chance(0.15);
    static const std::vector<std::string> styles = {"ro_wo", "overlap", "split", "empty",
                                                    "closed", "odd_limit", "tiny"};
    const Region& r = cat == "wrap" && chance(0.5) ? kRegions[1] : pick_region(odd);
    layout(c, r, odd ? pick(styles) : std::string("normal"));
    // Random host data in the region (kernel images are written over it below).
    std::vector<uint8_t> data(r.size);
    for (size_t i = 0; i < data.size(); i += 8) {
      const uint64_t x = rng_();
      std::memcpy(&data[i], &x, 8);
    }
    dev_->host_write(r.base, data.data(), data.size());

    const size_t n = cat == "batch" ? rnd(6, 24) : rnd(1, 6);
    if (cat == "simt" && shape_.simt) {
      c.prog = program(r, rnd(0, 2));
      const int kind = int(rnd(0, 2));
      for (const Descriptor& d : simt_pair(r, kind)) c.prog.push_back(d);
      // A well-formed kernel must run clean unless another image LOAD of the batch may overwrite
      // its code.
      size_t image_loads = 0;
      for (const Descriptor& d : c.prog) {
        image_loads += d.opcode() == Opcode::kLoad && d.operands<Transfer2d>().spad_addr >= kSimtImemLine;
      }
      if (kind == 0 && image_loads == 1) c.simt_must_pass.push_back(c.prog.size() - 1);
      c.what += std::string("kernel ") + (kind == 0 ? "well-formed" : kind == 1 ? "random RV32IM" : "random words") + "; ";
      if (chance(0.4)) {
        const size_t pos = c.prog.size() - 1;
        mutate_bounded(c.prog[pos], c, pos, [&](Descriptor& x) {
          const auto& fs = SimtLaunch::kFields;
          const DescField& f = fs[rnd(0, uint32_t(fs.size() - 1))];
          put_field(x, f, interesting(f, get_field(x, f), c));
        });
        c.simt_must_pass.clear();
        c.what += "launch mutated; ";
      }
    } else if (cat == "param") {
      param_case(c, r);
    } else {
      c.prog = program(r, n);
    }
    if (c.prog.empty()) c.prog.push_back(Descriptor::nop());
    const auto any_pos = [&] { return size_t(rnd(0, uint32_t(c.prog.size() - 1))); };
    if (cat == "random_bytes") {
      mutate_random(c, any_pos());
    } else if (cat == "field") {
      mutate_field(c, any_pos());
      if (chance(0.2)) mutate_field(c, any_pos());
    } else if (cat == "wrap") {
      mutate_wrap(c, r);
    } else if (cat == "windows") {
      mutate_edge(c);
    } else if (cat == "batch") {
      for (uint32_t i = rnd(1, 3); i > 0; --i) {
        const uint32_t how = rnd(0, 3);
        if (how == 0) mutate_random(c, any_pos());
        else if (how == 1) mutate_field(c, any_pos());
        else if (how == 2) c.seq_patch[any_pos()] = uint32_t(rng_());
      }
    } else if (cat == "seq") {
      for (uint32_t i = rnd(1, 2); i > 0; --i) {
        const size_t pos = any_pos();
        const uint32_t x[] = {0, 1, uint32_t(rng_()), 0xFFFF'FFFFu, uint32_t(pos) + 1, uint32_t(pos) - 1,
                              uint32_t(pos) + ring_entries_};
        c.seq_patch[pos] = x[rnd(0, std::size(x) - 1)];  // relative: resolved at submission
      }
    } else if (cat == "bus_fault") {
      fault_case(c, r);
    } else if (cat == "ring") {
      const uint32_t k = rnd(0, 2);
      c.ring = k == 0 ? RingMod::kBadLog2 : k == 1 ? RingMod::kMisaligned : RingMod::kMoved;
      c.ring_log2 = chance(0.5) ? 0 : rnd(17, 31);
      c.ring_base = k == 1 ? ring_addr_ + 16 * rnd(1, 3) : 0x0000'2000'0000'0000ull + 64 * rnd(0, 1000);
      c.what += std::string("ring ") + (k == 0 ? "RING_SIZE.log2 " + std::to_string(c.ring_log2)
                                         : "base " + hex(c.ring_base)) + "; ";
    }
    // Batches at the ring's wrap: descriptors submitted (and completed) first.
    if (cat == "seq" || cat == "batch" || chance(0.08)) {
      c.pre_nops = chance(0.5) ? ring_entries_ - rnd(1, 6) : rnd(0, 40);
    }
  }

  // PARAM: TFLite shift -32 or 31 in a parameter line, loaded by the STORE_ACC itself.
  void param_case(Case& c, const Region& r) {
    const uint32_t bb = shape_.bb, cols = shape_.cols;
    std::vector<uint8_t> lines(size_t{cols} * bb, 0);
    for (uint32_t col = 0; col < cols; ++col) {
      uint8_t* l = &lines[size_t{col} * bb];
      const uint32_t bias = uint32_t(rng_()), mult = uint32_t(rng_()) | 0x4000'0000u;
      std::memcpy(l, &bias, 4);
      std::memcpy(l + 4, &mult, 4);
      l[8] = uint8_t(int(rnd(0, 61)) - 31) & 0x3f;  // a legal shift
    }
    const uint32_t bad = rnd(0, cols - 1);
    lines[size_t{bad} * bb + 8] = chance(0.5) ? 0x1f : 0x20;
    Transfer2d t;
    t.row_bytes = bb;
    t.rows = cols;
    t.host_stride = bb;
    t.host_addr = host_in(r, uint64_t{cols} * bb);
    t.spad_stride = 1;
    t.spad_addr = rnd(0, shape_.spad_lines - cols);
    dev_->host_write(t.host_addr, lines.data(), lines.size());
    StoreAccArgs s = store_acc(r);
    s.load_params = true;
    s.params_addr = t.spad_addr;
    s.mode = chance(0.8) ? static_cast<StoreMode>(rnd(0, 1)) : static_cast<StoreMode>(rnd(2, 3));
    s.out_fmt = ElemFormat::kInt;
    c.prog = {Descriptor::load(t), Descriptor::store_acc(s).with_dep(0, 1)};
    const bool tflite = uint8_t(s.mode) <= 1;
    c.param = {1, tflite && bad < s.n ? std::optional<uint64_t>(bad) : std::nullopt};
    c.what += "shift " + std::to_string(int(lines[size_t{bad} * bb + 8])) + " at column " +
              std::to_string(bad) + ", n " + std::to_string(s.n) + ", mode " +
              std::to_string(int(s.mode)) + "; ";
  }

  // SLVERR / DECERR on part of a transfer's host range (or on a range nothing touches).
  void fault_case(Case& c, const Region& r) {
    std::vector<size_t> xfers;
    for (size_t i = 0; i < c.prog.size(); ++i) {
      if (host_extent(c.prog[i])) xfers.push_back(i);
    }
    Fault f;
    f.resp = chance(0.5) ? 2 : 3;
    if (xfers.empty() || chance(0.15)) {
      f.lo = r.base + 16 * rnd(0, uint32_t(r.size / 16 - 2));
      f.hi = f.lo + 16;
      f.write = chance(0.5);
      c.what += "fault " + hex(f.lo) + " (maybe untouched); ";
    } else {
      const size_t i = pick(xfers);
      const Extent e = *host_extent(c.prog[i]);
      const uint64_t row = rnd64(0, e.rows - 1);
      const uint64_t a = e.addr + row * e.stride + 16 * rnd64(0, (e.row_bytes - 1) / 16);
      f.lo = a;
      f.hi = a + 16 * rnd(1, 3);
      f.write = e.write;
      c.what += "fault on #" + std::to_string(i) + " at " + hex(f.lo) + "; ";
    }
    c.faults.push_back(f);
  }

  // ------------------------------------------------------------------------- execution
  struct Outcome {
    bool hang = false;
    std::optional<DeviceError> err;
    std::string note;
  };

  // The cycle budget of a batch: its descriptors up to the first that fails decode (nothing
  // after it runs), by their work, generously (bus latency and back-pressure per row).
  uint64_t budget(const Case& c, uint64_t first) const {
    uint64_t w = 0, rows = 0;
    for (size_t i = 0; i < c.prog.size(); ++i) {
      const uint64_t idx = first + i;
      if (!decode(c.prog[i], uint32_t(idx), shape_, c.win, 0).ok()) break;
      w += std::min<uint64_t>(work(c.prog[i], shape_), 1'000'000);
      if (auto e = host_extent(c.prog[i])) rows += e->rows;
    }
    return 40'000 + 16 * w + 300 * rows;
  }

  bool idle() { return (dev_->read_reg(regs::kStatus) & regs::status::kIdleMask) != 0; }
  bool run_until_idle(uint64_t cycles) {
    for (uint64_t spent = 0; spent < cycles; spent += 500) {
      if (idle()) return true;
      dev_->run(500);
    }
    return idle();
  }

  void execute(Case& c) {
    Queue& q = dev_->queue();
    program_windows(c.win);
    if (c.pre_nops) {
      const std::vector<Descriptor> nops(c.pre_nops, Descriptor::nop());
      q.wait(q.submit(nops), {.cycles = 100'000 + 200ull * c.pre_nops});
    }
    const uint64_t first = q.submitted();
    for (const Fault& f : c.faults) dev_->inject_bus_error(f.lo, f.hi, f.write, f.resp);
    const bool hold = !c.seq_patch.empty() || c.ring != RingMod::kNone;
    if (hold) dev_->write_reg(regs::kCtrl, 0);  // no fetch until the ring is patched
    const uint64_t last = q.submit(c.prog);
    for (const auto& [pos, rel] : c.seq_patch) {
      // The value is taken as given, except that "index + x" patterns were generated relative.
      const uint64_t idx = first + pos;
      uint32_t seq = rel;
      if (c.category == "seq") {
        const uint32_t rel_values[] = {uint32_t(pos) + 1, uint32_t(pos) - 1, uint32_t(pos) + ring_entries_};
        for (uint32_t x : rel_values) {
          if (rel == x) seq = uint32_t(first) + x;
        }
      }
      c.prog[pos].with_seq(seq);
      dev_->host_write(ring_addr_ + (idx % ring_entries_) * 64 + 4, &seq, 4);
      c.what += "seq of #" + std::to_string(pos) + " = " + std::to_string(seq) + "; ";
    }
    if (c.ring == RingMod::kBadLog2) dev_->write_reg(regs::kRingSize, c.ring_log2);
    if (c.ring == RingMod::kMisaligned || c.ring == RingMod::kMoved) {
      dev_->write_reg(regs::kRingBaseLo, uint32_t(c.ring_base));
      dev_->write_reg(regs::kRingBaseHi, uint32_t(c.ring_base >> 32));
    }
    if (hold) dev_->write_reg(regs::kCtrl, regs::ctrl::kEnableMask);
    for (size_t i = 0; i < c.prog.size(); ++i) {
      if (!c.seq_patch.count(i)) c.prog[i].with_seq(uint32_t(first + i));
    }
    const uint64_t b = budget(c, first);
    if (c.category == "reset_mid") {
      // Queue::reset() of a running queue, at a random moment: it must finish (what had started
      // runs to its end, the rest is dropped), touch nothing outside the windows, and leave the
      // queue empty at index 0.
      dev_->run(rnd64(0, b / 8));
      q.reset({.cycles = b + 200'000, .seconds = 600});
      ++t_.by_code["RESET"];
      ++t_.by_category_code[c.category + " RESET"];
      if (q.completed() != 0 || q.error() || q.submitted() != 0) {
        fail(c, "the queue after Queue::reset(): completed " + std::to_string(q.completed()) +
                    ", submitted " + std::to_string(q.submitted()) +
                    (q.error() ? ", error " + q.error()->to_string() : std::string()),
             &t_.wrong_errors);
      }
      check_accesses(c, c.win);
      restore(c);
      return;
    }

    Outcome o;
    std::optional<Error> thrown;
    try {
      q.wait(last, {.cycles = b, .seconds = 600});
    } catch (const Error& e) {
      if (e.code() == Errc::kTimeout) {
        o.hang = true;
        o.note = e.what();
      } else {
        thrown = e;
      }
    }
    if (!o.hang && !run_until_idle(b)) {
      o.hang = true;
      o.note = "not idle " + std::to_string(b) + " cycles after the wait";
    }
    o.err = q.error();
    check(c, first, o, thrown);
    check_accesses(c, c.win);
    restore(c);
  }

  // ------------------------------------------------------------------------- oracles
  void fail(const Case& c, const std::string& why, uint64_t* counter) {
    ++*counter;
    std::printf("FAIL case %" PRIu64 " [%s] on %s: %s\n  case: %s\n", case_no_, c.category.c_str(),
                uri_.c_str(), why.c_str(), c.what.c_str());
    for (size_t i = 0; i < c.prog.size(); ++i) {
      std::printf("  #%zu %-11s", i, std::string(opcode_name(c.prog[i].opcode())).c_str());
      for (uint32_t w : c.prog[i].w) std::printf(" %08x", w);
      std::printf("\n");
    }
    std::printf("  repeat: weft_fuzz --uri '%s' --seed %" PRIu64 " --cases %" PRIu64
                " (this case alone: --first %" PRIu64 ")\n",
                uri_.c_str(), seed_, case_no_ + 1, case_no_);
    std::fflush(stdout);
  }

  static bool execution_code(ErrorCode e) {
    return e == ErrorCode::kSlverr || e == ErrorCode::kDecerr || e == ErrorCode::kSimt ||
           e == ErrorCode::kParam;
  }

  void check(const Case& c, uint64_t first, const Outcome& o, const std::optional<Error>& thrown) {
    const std::string code_name = o.hang ? "HANG" : o.err ? std::string(error_name(o.err->code)) : "NONE";
    if (verbose_) {
      std::printf("case %" PRIu64 " [%s] %s: %s\n", case_no_, c.category.c_str(),
                  o.err ? o.err->to_string().c_str() : code_name.c_str(), c.what.c_str());
    }
    ++t_.by_code[code_name];
    ++t_.by_category_code[c.category + " " + code_name];
    if (o.hang) {
      fail(c, "hang: " + o.note, &t_.hangs);
      return;
    }
    // The expected decode outcome, descriptor by descriptor.
    std::optional<size_t> first_bad;
    Verdict expect;
    for (size_t i = 0; i < c.prog.size(); ++i) {
      Descriptor d = c.prog[i];
      const uint64_t idx = first + i;
      if (!c.seq_patch.count(i)) d.with_seq(uint32_t(idx));
      Verdict v = decode(d, uint32_t(idx), shape_, c.win, ring_addr_ + (idx % ring_entries_) * 64);
      if (i == 0 && (c.ring == RingMod::kBadLog2 || c.ring == RingMod::kMisaligned)) {
        v = {ErrorCode::kRing, c.ring == RingMod::kMisaligned ? c.ring_base : ring_addr_};
      } else if (i == 0 && c.ring == RingMod::kMoved) {
        v = {ErrorCode::kWindow, c.ring_base + (idx % ring_entries_) * 64};
      }
      if (!v.ok()) {
        first_bad = i;
        expect = v;
        break;
      }
    }
    const size_t stop = first_bad.value_or(c.prog.size());
    // A transfer before the first decode error touching an injected fault must fail.
    std::optional<size_t> must_fail;
    for (size_t i = 0; i < stop && !must_fail; ++i) {
      const auto e = host_extent(c.prog[i]);
      for (const Fault& f : c.faults) {
        if (e && e->write == f.write && e->touches(f.lo, f.hi, shape_.bb)) must_fail = i;
      }
    }
    // The PARAM case and well-formed kernels, when nothing before them stops the queue.
    std::optional<std::pair<size_t, ErrorCode>> must_error;  // position, code (PARAM)
    std::vector<size_t> must_pass;
    if (c.param && c.param->first < stop && !must_fail) {
      if (c.param->second) must_error = {c.param->first, ErrorCode::kParam};
      else must_pass.push_back(c.param->first);
    }
    for (size_t i : c.simt_must_pass) {
      if (i < stop && !must_fail) must_pass.push_back(i);
    }
    if (must_error && o.err && o.err->code == ErrorCode::kParam &&
        (o.err->index != first + must_error->first || o.err->address != *c.param->second)) {
      fail(c, "expected PARAM at #" + std::to_string(must_error->first) + " column " +
                  std::to_string(*c.param->second) + ", got " + o.err->to_string(),
           &t_.wrong_errors);
      return;
    }
    if (must_error && !o.err) {
      fail(c, "no error, expected PARAM at #" + std::to_string(must_error->first), &t_.wrong_errors);
      return;
    }
    if (o.err) {
      for (size_t i : must_pass) {
        if (o.err->index == first + i) {
          fail(c, "#" + std::to_string(i) + " must run without error, got " + o.err->to_string(),
               &t_.wrong_errors);
          return;
        }
      }
    }
    // Named: the driver's exception and Queue::error() agree and carry a known name.
    if (o.err) {
      if (error_name(o.err->code) == "UNKNOWN" || o.err->code == ErrorCode::kNone) {
        fail(c, "unnamed error code " + std::to_string(int(o.err->code)), &t_.wrong_errors);
        return;
      }
      if (!thrown || thrown->code() != to_errc(o.err->code) || thrown->index() != o.err->index ||
          thrown->name() != error_name(o.err->code)) {
        fail(c, "Queue::wait's exception (" + std::string(thrown ? thrown->what() : "none") +
                    ") disagrees with Queue::error(): " + o.err->to_string(),
             &t_.wrong_errors);
        return;
      }
    } else if (thrown) {
      fail(c, std::string("Queue::wait threw, Queue::error() is empty: ") + thrown->what(), &t_.wrong_errors);
      return;
    }
    const uint64_t done = dev_->queue().completed();
    if (!o.err) {
      if (first_bad || must_fail) {
        fail(c, std::string("no error, expected ") +
                    (first_bad ? std::string(error_name(expect.code)) + " at #" + std::to_string(*first_bad)
                               : "a bus error at #" + std::to_string(*must_fail)),
             &t_.wrong_errors);
      } else if (done != first + c.prog.size()) {
        fail(c, "no error but COMPLETED " + std::to_string(done), &t_.wrong_errors);
      }
      return;
    }
    const DeviceError& e = *o.err;
    const std::string got = e.to_string();
    if (e.index < first || e.index >= first + c.prog.size()) {
      fail(c, "error index outside the batch: " + got, &t_.wrong_errors);
      return;
    }
    const size_t pos = size_t(e.index - first);
    if (done != e.index) {
      fail(c, "COMPLETED " + std::to_string(done) + " after an error at " + std::to_string(e.index),
           &t_.wrong_errors);
      return;
    }
    // With ECC, a word never written since the device opened reads as an uncorrectable error
    // (docs/common.md "ECC"), and random programs read such words: ECC_SPAD / ECC_ACC is then a
    // plausible outcome, named with the oldest descriptor not completed -- so at or before the
    // first decode error and any transfer that must fail.
    if (mem_ecc_ && (e.code == ErrorCode::kEccSpad || e.code == ErrorCode::kEccAcc)) {
      if ((first_bad && pos > *first_bad) || (must_fail && pos > *must_fail)) {
        fail(c, "ECC error " + got + " after the batch's first failing descriptor", &t_.wrong_errors);
      }
      return;
    }
    // PARAM is a decode error (element formats) or an execution error (a TFLite shift).
    const bool decode_param = e.code == ErrorCode::kParam && first_bad && pos == *first_bad &&
                              expect.code == ErrorCode::kParam;
    if (!execution_code(e.code) || decode_param) {
      if (!first_bad || pos != *first_bad || e.code != expect.code || e.address != expect.addr) {
        fail(c, "got " + got + "; expected " +
                    (first_bad ? std::string(error_name(expect.code)) + " at #" + std::to_string(*first_bad) +
                                     " address " + hex(expect.addr)
                               : std::string("no decode error")),
             &t_.wrong_errors);
      }
      return;
    }
    // An execution error: from a descriptor that can raise it, before the first decode error
    // and not after a transfer that must fail.
    std::string why;
    if (pos >= stop) why = "after the first decode error";
    if (must_fail && pos > *must_fail) why = "after #" + std::to_string(*must_fail) + ", which must fail";
    const Descriptor& d = c.prog[pos];
    if (why.empty()) why = plausible(c, pos, d, e);
    if (!why.empty()) fail(c, "execution error " + got + " is implausible: " + why, &t_.wrong_errors);
  }

  std::string plausible(const Case& c, size_t pos, const Descriptor& d, const DeviceError& e) {
    switch (e.code) {
      case ErrorCode::kSlverr:
      case ErrorCode::kDecerr: {
        const auto x = host_extent(d);
        if (!x) return "not a transfer";
        // ERR_ADDR lies in a row that touches the fault, not past the fault (a write burst's
        // error response names the burst, which may start before the failing beat).
        for (const Fault& f : c.faults) {
          if ((f.resp == 3) != (e.code == ErrorCode::kDecerr) || f.write != x->write) continue;
          for (uint64_t r = 0; r < x->rows; ++r) {
            const Extent row{x->addr + r * x->stride, x->row_bytes, 1, 0, x->write};
            if (row.touches(f.lo, f.hi, shape_.bb) && e.address >= row.addr && e.address < f.hi) return {};
            if (x->stride == 0) break;
          }
        }
        return "no injected fault of that kind at " + hex(e.address) + " in its range";
      }
      case ErrorCode::kSimt: {
        if (d.opcode() != Opcode::kSimtLaunch) return "not a SIMT_LAUNCH";
        const auto l = d.operands<SimtLaunch>();
        if ((e.address >> 32) >= uint64_t{l.num_warps} * l.threads_per_warp) return "thread out of range";
        if ((dev_->read_reg(regs::kSimtErrCode) & 0xff) == 0) return "SIMT_ERR_CODE is 0";
        return {};
      }
      case ErrorCode::kParam: {
        if (d.opcode() != Opcode::kStoreAcc) return "not a STORE_ACC";
        const auto s = d.operands<StoreAccArgs>();
        if (s.out_fmt != ElemFormat::kInt || uint8_t(s.mode) > 1) return "not a TFLite mode";
        if (e.address >= s.n) return "column " + std::to_string(e.address) + " >= n";
        if (!s.load_params) {
          // Parameters are legal at the start of every case (the GEMM check loads zeros), so an
          // earlier STORE_ACC of this batch must have loaded them.
          for (size_t i = 0; i < pos; ++i) {
            if (c.prog[i].opcode() == Opcode::kStoreAcc && c.prog[i].operands<StoreAccArgs>().load_params) return {};
          }
          return "no parameters loaded in this batch";
        }
        // The lines it loaded, unless another LOAD of the batch may have written them.
        for (size_t i = 0; i < c.prog.size(); ++i) {
          if (c.prog[i].opcode() != Opcode::kLoad || i == pos) continue;
          const auto t = c.prog[i].operands<Transfer2d>();
          const uint64_t lo = t.spad_addr, hi = lo + uint64_t{t.rows - 1} * t.spad_stride + t.row_bytes / shape_.bb;
          if (lo < uint64_t{s.params_addr} + shape_.cols && hi > s.params_addr &&
              !(i + 1 == pos && c.category == "param")) {
            return {};  // raced: plausible
          }
        }
        pending_param_ = {s.params_addr, s.n, e.address};
        return {};
      }
      default:
        return "not an execution error";
    }
  }

  // Every beat of the case inside a window with its permission; every byte written too. The bus
  // log merges adjacent beats (of one burst, or of transfers that continue each other, possibly
  // in two windows), so a run is checked beat by beat.
  void check_accesses(const Case& c, const Windows& w) {
    const auto inside = [&](uint64_t a, uint64_t n, bool write) {
      for (const Window& x : w) {
        if ((write ? x.write : x.read) && a >= x.base && u128(a) + n <= u128(x.limit)) return true;
      }
      return false;
    };
    const auto beats_inside = [&](uint64_t a, uint64_t n, bool write) {
      for (u128 b = a; b < u128(a) + n; b += shape_.bb) {
        if (!inside(uint64_t(b), shape_.bb, write)) return false;
      }
      return true;
    };
    std::string bad;
    uint64_t reads = 0, writes = 0;
    for (const BusAccess& a : dev_->take_bus_accesses()) {
      if (beats_inside(a.addr, a.bytes, a.write)) continue;
      ++(a.write ? writes : reads);
      if (bad.size() < 400) bad += std::string(a.write ? " write " : " read ") + hex(a.addr) + "+" + std::to_string(a.bytes);
    }
    for (const auto& [a, n] : dev_->take_device_writes()) {
      if (inside(a, n, true)) continue;
      ++writes;
      if (bad.size() < 400) bad += " wrote " + hex(a) + "+" + std::to_string(n);
    }
    if (reads) fail(c, "reads outside the windows:" + bad, &t_.oow_reads);
    if (writes) fail(c, "writes outside the windows:" + bad, &t_.oow_writes);
  }

  // Windows, ring and faults back; Queue::reset(); then the GEMM.
  void restore(const Case& c) {
    dev_->clear_bus_errors();
    if (c.ring != RingMod::kNone) {
      dev_->write_reg(regs::kRingSize, ring_log2_);
      dev_->write_reg(regs::kRingBaseLo, uint32_t(ring_addr_));
      dev_->write_reg(regs::kRingBaseHi, uint32_t(ring_addr_ >> 32));
    }
    const Windows std_win = standard_windows();
    program_windows(std_win);
    dev_->queue().reset({.cycles = 2'000'000, .seconds = 600});
    if (pending_param_) {
      check_param_lines(c);
      pending_param_.reset();
    }
    gemm_check(c);
    check_accesses(c, std_win);
  }

  // The parameter lines of a STORE_ACC that stopped on PARAM: the lowest column c < n with
  // shift -32 or 31 is ERR_ADDR.
  void check_param_lines(const Case& c) {
    const auto [lines_at, n, col] = *pending_param_;
    const uint32_t bb = shape_.bb, cols = shape_.cols;
    Transfer2d t;
    t.host_addr = readback_.device_address();
    t.row_bytes = bb;
    t.rows = cols;
    t.host_stride = bb;
    t.spad_addr = lines_at;
    t.spad_stride = 1;
    Queue& q = dev_->queue();
    q.wait(q.submit(Descriptor::store_spad(t)), {.cycles = 200'000});
    const auto bytes = readback_.read<uint8_t>(size_t{cols} * bb);
    uint64_t want = UINT64_MAX;
    for (uint32_t k = 0; k < n && k < cols; ++k) {
      const uint8_t sh = bytes[size_t{k} * bb + 8] & 0x3f;
      if (sh == 0x1f || sh == 0x20) {
        want = k;
        break;
      }
    }
    if (want != col) {
      fail(c, "PARAM at column " + std::to_string(col) + ", the loaded lines say " +
                  (want == UINT64_MAX ? std::string("no bad column") : "column " + std::to_string(want)),
           &t_.wrong_errors);
    }
  }

  // A bit-exact INT32 GEMM (m x rows x cols) with freshly loaded, zero parameters.
  void gemm_check(const Case& c) {
    const uint32_t bb = shape_.bb, R = shape_.rows, C = shape_.cols;
    const uint32_t m = rnd(1, 16);
    const bool as = chance(0.5), ws = chance(0.5);
    std::vector<uint8_t> a(size_t{m} * bb), w(size_t{R} * bb), p(size_t{C} * bb, 0);
    for (auto& x : a) x = uint8_t(rng_());
    for (auto& x : w) x = uint8_t(rng_());
    gemm_a_.write(0, a.data(), a.size());
    gemm_w_.write(0, w.data(), w.size());
    gemm_p_.write(0, p.data(), p.size());
    gemm_out_.fill(0xcd);
    const uint32_t pl = rnd(0, 1000), al = 2000 + rnd(0, 1000), wl = 8000 + rnd(0, 1000);
    const auto load = [&](const Buffer& b, uint32_t rows, uint32_t line) {
      Transfer2d t;
      t.host_addr = b.device_address();
      t.row_bytes = bb;
      t.rows = rows;
      t.host_stride = bb;
      t.spad_addr = line;
      t.spad_stride = 1;
      return Descriptor::load(t);
    };
    ComputeArgs k;
    k.a_addr = al;
    k.a_row_stride = 1;
    k.a_tile_stride = m;
    k.w_addr = wl;
    k.w_row_stride = 1;
    k.w_tile_stride = R;
    k.m = m;
    k.k = R;
    const uint32_t half = shape_.acc_rows / 2;
    k.acc_addr = rnd(0, 1) * half + rnd(0, half - m);
    k.a_signed = as;
    k.w_signed = ws;
    StoreAccArgs s;
    s.host_addr = gemm_out_.device_address();
    s.host_stride = 4 * C;
    s.m = m;
    s.acc_addr = k.acc_addr;
    s.n = C;
    s.mode = StoreMode::kInt32;
    s.load_params = true;
    s.params_addr = pl;
    const std::vector<Descriptor> prog = {load(gemm_p_, C, pl), load(gemm_a_, m, al), load(gemm_w_, R, wl),
                                          Descriptor::compute(k).with_dep(0, 1).with_dep(1, 2),
                                          Descriptor::store_acc(s).with_dep(0, 1).with_dep(1, 4)};
    Queue& q = dev_->queue();
    std::string why;
    try {
      q.wait(q.submit(prog), {.cycles = 400'000, .seconds = 600});
      const auto out = gemm_out_.read<int32_t>(size_t{m} * C);
      for (uint32_t i = 0; i < m && why.empty(); ++i) {
        for (uint32_t j = 0; j < C; ++j) {
          int32_t want = 0;
          for (uint32_t r = 0; r < R; ++r) {
            const int32_t x = as ? int8_t(a[size_t{i} * bb + r]) : a[size_t{i} * bb + r];
            const int32_t y = ws ? int8_t(w[size_t{r} * bb + j]) : w[size_t{r} * bb + j];
            want += x * y;
          }
          if (out[size_t{i} * C + j] != want) {
            why = "row " + std::to_string(i) + " column " + std::to_string(j) + ": " +
                  std::to_string(out[size_t{i} * C + j]) + ", expected " + std::to_string(want);
            break;
          }
        }
      }
    } catch (const Error& e) {
      why = e.what();
    }
    if (!why.empty()) {
      fail(c, "GEMM after Queue::reset(): " + why, &t_.post_reset_failures);
      // Start the next case from a fresh device rather than a broken one.
      reopen();
    }
  }

  std::string uri_;
  uint64_t seed_;
  Totals& t_;
  bool verbose_;
  std::unique_ptr<Device> dev_;
  Shape shape_;
  bool mem_ecc_ = false;  // CAP4.ecc: a word never written reads as an uncorrectable error
  uint64_t ring_addr_ = 0, cpl_addr_ = 0;
  uint32_t ring_log2_ = 8, ring_entries_ = 256;
  std::mt19937_64 rng_;
  uint64_t case_no_ = 0, reopens_ = 0;
  Buffer gemm_a_, gemm_w_, gemm_p_, gemm_out_, readback_;
  struct PendingParam {
    uint32_t lines;
    uint32_t n;
    uint64_t col;
  };
  std::optional<PendingParam> pending_param_;
};

// ============================================================================== main
struct Args {
  uint64_t seed = 1;
  uint64_t cases = 0;
  double seconds = 0;
  std::vector<std::string> uris;
  int jobs = 1;
  bool verbose = false;
  std::string only;
  uint64_t first = 0;
};

void usage() {
  std::printf(
      "weft_fuzz: the descriptor fuzzer (docs/fuzz.md)\n"
      "  --uri URI       device to fuzz (repeatable; default: sim://?array=16x16&buslog=1 and\n"
      "                  sim://?array=16x16&buslog=1&bp=0.3&latency=64); buslog=1 is required\n"
      "  --seed N        stimulus seed (default 1): device k of the list runs seed + k; case n\n"
      "                  depends only on that seed and n\n"
      "  --cases N       cases per device\n"
      "  --seconds S     run until S seconds have passed (per device; with --cases: whichever first)\n"
      "  --jobs N        devices fuzzed in parallel, one process each (default 1)\n"
      "  --category C    only this category (%s", kCategories[0]);
  for (size_t i = 1; i < std::size(kCategories); ++i) std::printf(", %s", kCategories[i]);
  std::printf(
      ")\n  --first N       start at case N (a failure at case n: --first n --cases n+1; the\n"
      "                  device state of the cases before differs, the stimulus does not)\n"
      "  --verbose       one line per case\n");
}

// Device k of the list is fuzzed with seed + k: the configurations see different cases.
Totals fuzz_one(const Args& a, const std::string& uri, uint64_t seed) {
  Totals t;
  const auto t0 = Clock::now();
  const auto elapsed = [&] { return std::chrono::duration<double>(Clock::now() - t0).count(); };
  std::printf("weft_fuzz: %s, seed %" PRIu64 "%s%s\n", uri.c_str(), seed,
              a.cases ? (", " + std::to_string(a.cases) + " cases").c_str() : "",
              a.seconds > 0 ? (", " + std::to_string(int(a.seconds)) + " s").c_str() : "");
  std::fflush(stdout);
  try {
    Fuzzer f(uri, seed, t, a.verbose);
    double next_report = 60;
    for (uint64_t n = a.first;; ++n) {
      if (a.cases && n >= a.cases) break;
      if (a.seconds > 0 && elapsed() >= a.seconds) break;
      const uint64_t failures = t.failures();
      f.run_case(n, a.only);
      if (a.verbose || t.failures() != failures) {
        std::printf("case %" PRIu64 " done (%" PRIu64 " failures so far)\n", n, t.failures());
      }
      if (elapsed() >= next_report) {
        std::printf("weft_fuzz: %s: %" PRIu64 " cases, %.0f s, %" PRIu64 " failures\n", uri.c_str(),
                    t.cases, elapsed(), t.failures());
        std::fflush(stdout);
        next_report += 60;
      }
    }
  } catch (const std::exception& e) {
    std::printf("FAIL: %s: %s\n", uri.c_str(), e.what());
    ++t.crashes;
  }
  t.seconds = elapsed();
  return t;
}

int run(int argc, char** argv) {
  Args a;
  for (int i = 1; i < argc; ++i) {
    const std::string s = argv[i];
    auto next = [&]() -> std::string {
      if (i + 1 >= argc) {
        std::fprintf(stderr, "weft_fuzz: %s needs a value\n", s.c_str());
        std::exit(2);
      }
      return argv[++i];
    };
    try {
      if (s == "--uri") a.uris.push_back(next());
      else if (s == "--seed") a.seed = std::stoull(next(), nullptr, 0);
      else if (s == "--cases") a.cases = std::stoull(next());
      else if (s == "--seconds") a.seconds = std::stod(next());
      else if (s == "--jobs") a.jobs = std::max(1, std::stoi(next()));
      else if (s == "--category") a.only = next();
      else if (s == "--verbose") a.verbose = true;
      else if (s == "--first") a.first = std::stoull(next());
      else if (s == "--help" || s == "-h") { usage(); return 0; }
      else { std::fprintf(stderr, "weft_fuzz: unknown option %s\n", s.c_str()); usage(); return 2; }
    } catch (const std::exception&) {
      std::fprintf(stderr, "weft_fuzz: bad value for %s\n", s.c_str());
      return 2;
    }
  }
  if (!a.only.empty() && std::find(std::begin(kCategories), std::end(kCategories), a.only) == std::end(kCategories)) {
    std::fprintf(stderr, "weft_fuzz: unknown category %s\n", a.only.c_str());
    return 2;
  }
  if (a.uris.empty()) {
    a.uris = {"sim://?array=16x16&buslog=1", "sim://?array=16x16&buslog=1&bp=0.3&latency=64"};
  }
  if (a.cases == 0 && a.seconds <= 0) a.cases = 100;
  Totals all;
  if (a.jobs > 1 && a.uris.size() > 1) {
    // One child per device, at most `jobs` at a time; each sends its totals through a pipe.
    std::vector<std::pair<pid_t, int>> kids;
    size_t next = 0;
    auto reap = [&] {
      auto [pid, fd] = kids.front();
      kids.erase(kids.begin());
      std::string text;
      char buf[4096];
      for (ssize_t n; (n = ::read(fd, buf, sizeof buf)) > 0;) text.append(buf, size_t(n));
      ::close(fd);
      int status = 0;
      ::waitpid(pid, &status, 0);
      Totals t = Totals::parse(text);
      if (!WIFEXITED(status) || text.empty()) ++t.crashes;  // the child itself crashed
      all.merge(t);
    };
    while (next < a.uris.size() || !kids.empty()) {
      if (next < a.uris.size() && kids.size() < size_t(a.jobs)) {
        int fds[2];
        if (::pipe(fds) != 0) return 2;
        std::fflush(stdout);
        const pid_t pid = ::fork();
        if (pid == 0) {
          ::close(fds[0]);
          const Totals t = fuzz_one(a, a.uris[next], a.seed + next);
          print_totals(t, a.uris[next]);
          std::fflush(stdout);
          const std::string s = t.serialize();
          (void)!::write(fds[1], s.data(), s.size());
          ::close(fds[1]);
          std::_Exit(0);
        }
        ::close(fds[1]);
        kids.emplace_back(pid, fds[0]);
        ++next;
      } else {
        reap();
      }
    }
  } else {
    for (size_t k = 0; k < a.uris.size(); ++k) {
      const std::string& uri = a.uris[k];
      const Totals t = fuzz_one(a, uri, a.seed + k);
      if (a.uris.size() > 1) print_totals(t, uri);
      all.merge(t);
    }
  }
  print_totals(all, "weft_fuzz totals (seed " + std::to_string(a.seed) + ", " +
                        std::to_string(a.uris.size()) + " device configurations)");
  std::printf("%s\n", all.failures() == 0 ? "PASS" : "FAIL");
  return all.failures() == 0 ? 0 : 1;
}

}  // namespace
}  // namespace weft::tb::fuzz

int main(int argc, char** argv) { return weft::tb::fuzz::run(argc, argv); }
