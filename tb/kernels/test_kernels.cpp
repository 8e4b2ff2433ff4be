// The SIMT kernel library (sw/kernels, docs/kernels.md) on the golden SIMT model: each kernel's
// ELF (built at build time by riscv64-unknown-elf-gcc) is loaded into a weft::golden::simt::Machine
// with the default memories (16 KiB instructions, 64 KiB scratchpad), its argument struct and
// random buffers are placed in the scratchpad, and it runs on 4 warps x 8 threads (and on 3 x 5
// and 1 x 1, so the grid-stride loops are checked for any launch shape). Outputs are compared
// with independent C++ references: weft::golden::postprocess (requant) and weft::golden::im2col
// where the golden model has them, plain loops otherwise, and for softmax a C++ restatement of
// TFLite's algorithm (bit-exact) plus float softmax (within 1 LSB); inputs and references are in
// kernel_cases.hpp (shared with the driver tests, tb/system/test_simt.cpp). Every run also checks
// that nothing outside the output buffers and the thread stacks changed.
//
// For the 4 x 8 launch each test prints "[kernel] <name> ..." with the warp instructions issued,
// issues per element (a cycles-per-element proxy: the RTL core issues at most one warp
// instruction per cycle) and the fraction of lanes active. Skipped, with a message, when the
// RISC-V compiler was not found at configure time.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <iomanip>
#include <iterator>
#include <random>
#include <sstream>
#include <stdexcept>
#include <string>
#include <vector>

#include "kernel_cases.hpp"
#include "softmax_reference.hpp"
#include "weft/golden/quant.hpp"
#include "weft/golden/simt.hpp"
#include "weft/tb/options.hpp"
#include "weft_kernel_args.h"
#include "weft_qfloat.h"

namespace s = weft::golden::simt;
namespace g = weft::golden;
namespace sm = weft::tb::softmax_ref;
using namespace weft::tb::kernel_cases;  // inputs and references, shared with tb/system

namespace {

const std::string kElfDir = WEFT_KERNEL_ELF_DIR;

#define SKIP_WITHOUT_KERNELS()                                                   \
  if (kElfDir.empty())                                                           \
  GTEST_SKIP()                                                                   \
      << "riscv64-unknown-elf-gcc not found at configure time (apt-get install " \
         "gcc-riscv64-unknown-elf): the SIMT kernels were not built, kernel tests skipped"

// Scratchpad layout (default Config: 64 KiB). The image (.text + .rodata) is mirrored at
// [0, image end) and is at most 16 KiB (load_elf rejects a segment larger than the instruction
// memory), so the arguments start at 16 KiB. Thread t's stack is the 256 bytes below
// kStackTop - t * 256.
constexpr uint32_t kArgsAddr = 0x4000;
constexpr uint32_t kHeapBase = 0x4100;
constexpr uint32_t kStackTop = 0x10000;
constexpr uint32_t kStackSize = 256;
constexpr uint32_t kMaxThreads = 32;
constexpr uint32_t kHeapEnd = kStackTop - kMaxThreads * kStackSize;

struct Shape {
  uint32_t warps, threads;
  bool reported;  // print the counters of this launch
};
constexpr Shape kShapes[] = {{4, 8, true}, {3, 5, false}, {1, 1, false}};

std::string shape_name(const Shape& sh) {
  return std::to_string(sh.warps) + "x" + std::to_string(sh.threads);
}

std::vector<uint8_t> read_file(const std::string& path) {
  std::ifstream f(path, std::ios::binary);
  EXPECT_TRUE(f.good()) << "cannot open " << path;
  return {std::istreambuf_iterator<char>(f), std::istreambuf_iterator<char>()};
}

// One launch of one kernel on a fresh machine: load the ELF, allocate buffers, run, read back.
class KernelRun {
 public:
  explicit KernelRun(const std::string& kernel) : name_(kernel) {
    entry_ = s::load_elf(m_, read_file(kElfDir + "/" + kernel + ".elf"));
  }

  // An input buffer holding v.
  template <class T>
  uint32_t input(const std::vector<T>& v) {
    const uint32_t addr = alloc(v.size() * sizeof(T));
    if (!v.empty()) {
      m_.write_dmem(addr, {reinterpret_cast<const uint8_t*>(v.data()), v.size() * sizeof(T)});
    }
    return addr;
  }

  // A buffer the kernel reads and writes, holding v.
  template <class T>
  uint32_t inout(const std::vector<T>& v) {
    const uint32_t addr = input(v);
    outputs_.push_back({addr, static_cast<uint32_t>(v.size() * sizeof(T))});
    return addr;
  }

  // An output buffer of n elements, filled with junk so that an element the kernel does not write
  // is seen; only output buffers (and stacks) may change.
  template <class T>
  uint32_t output(size_t n, std::mt19937_64& rng) {
    const uint32_t addr = alloc(n * sizeof(T));
    for (size_t i = 0; i < n * sizeof(T); ++i) m_.dmem()[addr + i] = static_cast<uint8_t>(rng());
    outputs_.push_back({addr, static_cast<uint32_t>(n * sizeof(T))});
    return addr;
  }

  template <class T>
  std::vector<T> read(uint32_t addr, size_t n) const {
    std::vector<T> v(n);
    if (n) std::memcpy(v.data(), m_.dmem().data() + addr, n * sizeof(T));
    return v;
  }

  // The image's writable segments (.data, .bss) may change too.
  void allow_writable_globals() {
    for (const auto& seg : s::parse_elf(read_file(kElfDir + "/" + name_ + ".elf")).segments) {
      if (!seg.exec) outputs_.push_back({seg.addr, static_cast<uint32_t>(seg.bytes.size())});
    }
  }
  // Fills the image's address range [0, kArgsAddr) with junk, then loads the ELF again: .data is
  // re-initialised and .bss zeroed.
  void reload(std::mt19937_64& rng) {
    for (uint32_t a = 0; a < kArgsAddr; ++a) m_.dmem()[a] = static_cast<uint8_t>(rng());
    entry_ = s::load_elf(m_, read_file(kElfDir + "/" + name_ + ".elf"));
  }
  // Thread t's exit-code slot (docs/kernels.md, "Exit codes"): the top word of its stack.
  static uint32_t exit_slot(uint32_t t) { return kStackTop - t * kStackSize - 4; }

  // Writes the argument struct at kArgsAddr and runs; checks that every thread exited with
  // `codes` (0 when empty), that the runtime stored each code in the thread's exit-code slot, and
  // that memory outside the outputs and the stacks is unchanged.
  template <class Args>
  s::Result run(const Args& args, const Shape& sh, const std::vector<uint32_t>& codes = {}) {
    m_.write_dmem(kArgsAddr, {reinterpret_cast<const uint8_t*>(&args), sizeof(Args)});
    const std::vector<uint8_t> before = m_.dmem();
    const s::Launch l{.entry_pc = entry_,
                      .num_warps = sh.warps,
                      .threads_per_warp = sh.threads,
                      .arg_ptr = kArgsAddr,
                      .stack_top = kStackTop,
                      .stack_size_per_thread = kStackSize};
    const s::Result r = m_.run(l);
    const std::string where = name_ + " on " + shape_name(sh);
    EXPECT_TRUE(r.ok()) << where << ": " << r.error.message();
    if (!r.ok()) return r;
    for (size_t t = 0; t < r.threads.size(); ++t) {
      const uint32_t want = codes.empty() ? 0 : codes.at(t);
      EXPECT_TRUE(r.threads[t].exited && r.threads[t].exit_code == want)
          << where << " thread " << t << " exit code " << r.threads[t].exit_code << ", expected "
          << want;
      EXPECT_EQ(m_.read32(exit_slot(static_cast<uint32_t>(t))), want)
          << where << ": thread " << t << "'s exit-code slot";
    }
    EXPECT_EQ(r.total_retired(), r.total_active_threads()) << where;
    const uint32_t stack_low = kStackTop - sh.warps * sh.threads * kStackSize;
    int changed = 0;
    for (uint32_t a = 0; a < before.size() && changed < 5; ++a) {
      if (before[a] == m_.dmem()[a] || a >= stack_low) continue;
      const bool in_output = std::any_of(outputs_.begin(), outputs_.end(), [&](const auto& o) {
        return a >= o.first && a < o.first + o.second;
      });
      if (!in_output) {
        ADD_FAILURE() << where << " wrote address 0x" << std::hex << a << " outside its outputs";
        ++changed;
      }
    }
    return r;
  }

 private:
  uint32_t alloc(size_t bytes) {
    const uint32_t addr = next_;
    next_ = static_cast<uint32_t>((next_ + bytes + 15) & ~size_t{15});
    if (next_ > kHeapEnd) throw std::length_error(name_ + ": buffers exceed the scratchpad");
    return addr;
  }

  std::string name_;
  s::Machine m_;
  uint32_t entry_ = 0;
  uint32_t next_ = kHeapBase;
  std::vector<std::pair<uint32_t, uint32_t>> outputs_;
};

// Issue statistics of one launch, printed for the 4 x 8 runs.
void report(const std::string& kernel, const s::Result& r, const Shape& sh, uint64_t elements,
            const std::string& what = "") {
  if (!sh.reported || !r.ok()) return;
  const uint64_t issues = r.total_issues(), active = r.total_active_threads();
  const double lanes = double(active) / double(issues * sh.threads);
  weft::tb::verbose_printf(
      "[kernel] %-9s %s threads, %6llu elements%s: %8llu warp issues, %7.3f issues/element, "
      "%5.1f%% lanes active\n",
      kernel.c_str(), shape_name(sh).c_str(), static_cast<unsigned long long>(elements),
      what.c_str(), static_cast<unsigned long long>(issues), double(issues) / double(elements),
      100.0 * lanes);
  ::testing::Test::RecordProperty(kernel + "_warp_issues", std::to_string(issues));
}

// Compares element by element, reporting the first mismatches (index and values).
template <class T>
void expect_same(const std::vector<T>& got, const std::vector<T>& want, const std::string& what) {
  ASSERT_EQ(got.size(), want.size()) << what;
  int bad = 0;
  for (size_t i = 0; i < got.size(); ++i) {
    if (got[i] != want[i] && ++bad <= 5) {
      ADD_FAILURE() << what << ": element " << i << " is " << int64_t{got[i]} << ", expected "
                    << int64_t{want[i]};
    }
  }
  EXPECT_EQ(bad, 0) << what << ": " << bad << " of " << got.size() << " elements differ";
}

}  // namespace

// ------------------------------------------------------------------------------------------------
// Element-wise kernels
// ------------------------------------------------------------------------------------------------

TEST(Kernels, VecaddInt32WrapsLikeTheReference) {
  SKIP_WITHOUT_KERNELS();
  auto rng = weft::tb::make_rng();
  const uint32_t n = static_cast<uint32_t>(uniform(rng, 1000, 2000));
  const auto a = random_int32(rng, n), b = random_int32(rng, n);
  const std::vector<int32_t> want = vecadd_ref(a, b);
  for (const Shape& sh : kShapes) {
    KernelRun k("vecadd");
    const weft_vecadd_args args{n, k.input(a), k.input(b), k.output<int32_t>(n, rng)};
    const s::Result r = k.run(args, sh);
    expect_same(k.read<int32_t>(args.c, n), want, "vecadd " + shape_name(sh));
    report("vecadd", r, sh, n);
  }
}

// lut: an initialised writable table (.data) and a launch counter (.bss) shared by every thread,
// kept from one launch to the next and re-initialised by loading the image again (over junk).
TEST(Kernels, LutUsesWritableGlobalsKeptAcrossLaunchesUntilReloaded) {
  SKIP_WITHOUT_KERNELS();
  auto rng = weft::tb::make_rng();
  const uint32_t n = static_cast<uint32_t>(uniform(rng, 500, 1000));
  const std::vector<uint32_t> in = random_vector<uint32_t>(rng, n, 0, 1 << 30);
  for (const Shape& sh : kShapes) {
    KernelRun k("lut");
    k.allow_writable_globals();
    LutModel model;
    // The same buffers every launch: each launch's outputs differ from the previous ones.
    const weft_lut_args args{n, k.input(in), k.output<int32_t>(n, rng)};
    for (int round = 0; round < 6; ++round) {
      if (round == 4) {
        k.reload(rng);
        model = LutModel{};
      }
      const s::Result r = k.run(args, sh);
      const std::string what = "lut " + shape_name(sh) + " launch " + std::to_string(round);
      expect_same(k.read<int32_t>(args.out, n), model.launch(in), what);
      if (round == 0) report("lut", r, sh, n);
    }
  }
}

// exit_codes: distinct codes by weft_exit() from a nested call, by returning from
// weft_main_code, and by returning after a barrier; each also in the thread's exit-code slot.
TEST(Kernels, ExitCodesPerThreadFromWeftExitAndReturn) {
  SKIP_WITHOUT_KERNELS();
  for (const Shape& sh : kShapes) {
    for (const auto& [mul, add] : {std::pair{3u, 1u}, std::pair{0x9E3779B9u, 0xFFFFFFF0u}}) {
      KernelRun k("exit_codes");
      const uint32_t threads = sh.warps * sh.threads;
      k.run(weft_exit_codes_args{mul, add}, sh, exit_codes_ref(threads, mul, add));
    }
  }
}

TEST(Kernels, VecaddWithFewerElementsThanThreads) {
  SKIP_WITHOUT_KERNELS();
  auto rng = weft::tb::make_rng();
  for (uint32_t n : {0u, 1u, 7u, 31u, 32u, 33u}) {
    const auto a = random_int32(rng, n), b = random_int32(rng, n);
    const std::vector<int32_t> want = vecadd_ref(a, b);
    KernelRun k("vecadd");
    const weft_vecadd_args args{n, k.input(a), k.input(b), k.output<int32_t>(n, rng)};
    k.run(args, kShapes[0]);
    expect_same(k.read<int32_t>(args.c, n), want, "vecadd n=" + std::to_string(n));
  }
}

TEST(Kernels, SaxpyInt32WrapsLikeTheReference) {
  SKIP_WITHOUT_KERNELS();
  auto rng = weft::tb::make_rng();
  const uint32_t n = static_cast<uint32_t>(uniform(rng, 1000, 2000));
  const auto x = random_int32(rng, n), y = random_int32(rng, n);
  for (int32_t alpha : {static_cast<int32_t>(rng()), -3, 0}) {
    const std::vector<int32_t> want = saxpy_ref(alpha, x, y);
    for (const Shape& sh : kShapes) {
      if (alpha != -3 && !sh.reported) continue;  // other shapes once
      KernelRun k("saxpy");
      const weft_saxpy_args args{n, alpha, k.input(x), k.inout(y)};
      const s::Result r = k.run(args, sh);
      expect_same(k.read<int32_t>(args.y, n), want,
                  "saxpy alpha=" + std::to_string(alpha) + " " + shape_name(sh));
      if (alpha == -3) report("saxpy", r, sh, n);
    }
  }
}

TEST(Kernels, ReluInt8ClampsAtTheZeroPoint) {
  SKIP_WITHOUT_KERNELS();
  auto rng = weft::tb::make_rng();
  const uint32_t n = static_cast<uint32_t>(uniform(rng, 3000, 6000));
  const auto in = random_vector<int8_t>(rng, n, kI8Min, kI8Max);
  for (int32_t zp : {0, uniform(rng, kI8Min, kI8Max), int32_t{kI8Min}, int32_t{kI8Max}}) {
    const std::vector<int8_t> want = relu_ref(in, zp);
    for (const Shape& sh : kShapes) {
      if (zp != 0 && !sh.reported) continue;
      KernelRun k("relu");
      const weft_relu_args args{n, zp, k.input(in), k.output<int8_t>(n, rng)};
      const s::Result r = k.run(args, sh);
      expect_same(k.read<int8_t>(args.out, n), want,
                  "relu zp=" + std::to_string(zp) + " " + shape_name(sh));
      if (zp == 0) report("relu", r, sh, n);
    }
  }
}

// ------------------------------------------------------------------------------------------------
// Requantization: the golden model's TFLite double-rounding output stage
// ------------------------------------------------------------------------------------------------

TEST(Kernels, RequantPerChannelMatchesGoldenPostprocess) {
  SKIP_WITHOUT_KERNELS();
  auto rng = weft::tb::make_rng();
  for (int round = 0; round < 3; ++round) {
    const int channels = round == 0 ? 1 : round == 1 ? 16 : uniform(rng, 2, 48);
    const RequantCase rc = requant_case(rng, channels, uniform(rng, 1500, 2500), round == 0);
    const uint32_t n = rc.n();
    const auto &acc = rc.acc, &bias = rc.bias, &mult = rc.mult, &shift = rc.shift;
    const auto& op = rc.op;
    const auto& want = rc.want;
    for (const Shape& sh : kShapes) {
      KernelRun k("requant");
      const weft_requant_args args{n,
                                   static_cast<uint32_t>(channels),
                                   k.input(acc),
                                   k.output<int8_t>(n, rng),
                                   k.input(bias),
                                   k.input(mult),
                                   k.input(shift),
                                   op.zero_point,
                                   op.act_min,
                                   op.act_max};
      const s::Result r = k.run(args, sh);
      expect_same(k.read<int8_t>(args.out, n), want,
                  "requant channels=" + std::to_string(channels) + " " + shape_name(sh));
      if (round == 1) report("requant", r, sh, n, " (16 channels)");
    }
  }
}

// Rounding ties of both steps, exhaustively for small values: multiplier 2^30 (SRDHM halves, ties
// toward +infinity) and shifts -1..-4 (RoundingDivideByPOT, ties away from zero), zero point 0,
// no clamp inside int8: every acc in [-120, 120] on every channel.
TEST(Kernels, RequantRoundsTiesLikeGemmlowp) {
  SKIP_WITHOUT_KERNELS();
  auto rng = weft::tb::make_rng();
  const int channels = 5;
  const std::vector<int32_t> bias(channels, 0), mult(channels, 1 << 30),
      shift = {0, -1, -2, -3, -4};
  std::vector<g::ChannelParams> ch(channels);
  for (int c = 0; c < channels; ++c) ch[c] = {.bias = 0, .multiplier = mult[c], .shift = shift[c]};
  std::vector<int32_t> acc;
  for (int32_t v = -120; v <= 120; ++v) acc.insert(acc.end(), channels, v);
  const int rows = static_cast<int>(acc.size()) / channels;
  const uint32_t n = static_cast<uint32_t>(acc.size());
  const g::OutputParams op{.mode = g::RequantMode::kTfliteDouble};
  const std::vector<int32_t> want32 = g::postprocess(acc, rows, channels, ch, op);
  // Hand-worked: -5 / 2 = -2.5 -> -2 (SRDHM ties up), then / 2 = -1 (RDBPOT: -1 exactly);
  // -6 / 2 = -3, / 2 = -1.5 -> -2 (away from zero); 6 -> 3 -> 1.5 -> 2.
  EXPECT_EQ(want32[(-5 + 120) * channels + 1], -1);
  EXPECT_EQ(want32[(-6 + 120) * channels + 1], -2);
  EXPECT_EQ(want32[(6 + 120) * channels + 1], 2);
  EXPECT_EQ(want32[(-5 + 120) * channels + 0], -2);
  const std::vector<int8_t> want(want32.begin(), want32.end());
  KernelRun k("requant");
  const weft_requant_args args{n,
                               channels,
                               k.input(acc),
                               k.output<int8_t>(n, rng),
                               k.input(bias),
                               k.input(mult),
                               k.input(shift),
                               op.zero_point,
                               op.act_min,
                               op.act_max};
  k.run(args, kShapes[0]);
  expect_same(k.read<int8_t>(args.out, n), want, "requant ties");
}

// ------------------------------------------------------------------------------------------------
// Layout kernels: max pool, transpose, im2col
// ------------------------------------------------------------------------------------------------

TEST(Kernels, MaxPool2x2Stride2Int8Nhwc) {
  SKIP_WITHOUT_KERNELS();
  auto rng = weft::tb::make_rng();
  for (int round = 0; round < 3; ++round) {
    // round 0: 1 x 16 x 16 x 16 (reported); then random shapes with odd sizes
    const uint32_t b = static_cast<uint32_t>(round == 0 ? 1 : uniform(rng, 1, 2));
    const uint32_t h = static_cast<uint32_t>(round == 0 ? 16 : uniform(rng, 2, 17));
    const uint32_t w = static_cast<uint32_t>(round == 0 ? 16 : uniform(rng, 2, 17));
    const uint32_t c = static_cast<uint32_t>(round == 0 ? 16 : uniform(rng, 1, 16));
    const auto in = random_vector<int8_t>(rng, b * h * w * c, kI8Min, kI8Max);
    const uint32_t n_out = b * (h / 2) * (w / 2) * c;
    const std::vector<int8_t> want = maxpool_ref(in, b, h, w, c);
    for (const Shape& sh : kShapes) {
      KernelRun k("maxpool");
      const weft_maxpool_args args{b, h, w, c, k.input(in), k.output<int8_t>(n_out, rng)};
      const s::Result r = k.run(args, sh);
      std::ostringstream what;
      what << "maxpool " << b << "x" << h << "x" << w << "x" << c << " " << shape_name(sh);
      expect_same(k.read<int8_t>(args.out, n_out), want, what.str());
      if (round == 0) {
        report("maxpool", r, sh, n_out, " (16x16x16 in)");
      }
    }
  }
}

TEST(Kernels, TransposeInt8Matrix) {
  SKIP_WITHOUT_KERNELS();
  auto rng = weft::tb::make_rng();
  const std::pair<uint32_t, uint32_t> dims[] = {
      {64, 64},
      {1, 77},
      {77, 1},
      {static_cast<uint32_t>(uniform(rng, 2, 90)), static_cast<uint32_t>(uniform(rng, 2, 90))}};
  for (const auto& [rows, cols] : dims) {
    const auto in = random_vector<int8_t>(rng, rows * cols, kI8Min, kI8Max);
    const std::vector<int8_t> want = transpose_ref(in, rows, cols);
    for (const Shape& sh : kShapes) {
      KernelRun k("transpose");
      const weft_transpose_args args{rows, cols, k.input(in), k.output<int8_t>(rows * cols, rng)};
      const s::Result r = k.run(args, sh);
      expect_same(
          k.read<int8_t>(args.out, rows * cols), want,
          "transpose " + std::to_string(rows) + "x" + std::to_string(cols) + " " + shape_name(sh));
      if (rows == 64 && cols == 64) report("transpose", r, sh, rows * cols, " (64x64)");
    }
  }
}

TEST(Kernels, Im2colInt8NhwcMatchesGoldenIm2col) {
  SKIP_WITHOUT_KERNELS();
  auto rng = weft::tb::make_rng();
  for (int round = 0; round < 4; ++round) {
    const g::Conv2dShape cs = im2col_shape(rng, round);  // round 0: a 3x3 "same" convolution
    const int32_t pad = uniform(rng, kI8Min, kI8Max);
    const auto in =
        random_vector<int8_t>(rng, size_t(cs.n) * cs.h * cs.w * cs.c_in, kI8Min, kI8Max);
    const std::vector<int8_t> want = im2col_ref(in, cs, pad);
    for (const Shape& sh : kShapes) {
      KernelRun k("im2col");
      const uint32_t in_addr = k.input(in);
      const uint32_t out_addr = k.output<int8_t>(want.size(), rng);
      const weft_im2col_args args = im2col_args(cs, pad, in_addr, out_addr);
      const s::Result r = k.run(args, sh);
      std::ostringstream what;
      what << "im2col n" << cs.n << " " << cs.h << "x" << cs.w << "x" << cs.c_in << " k" << cs.kh
           << "x" << cs.kw << " s" << cs.stride_h << "x" << cs.stride_w << " pad " << cs.pad_top
           << "," << cs.pad_left << "," << cs.pad_bottom << "," << cs.pad_right << " "
           << shape_name(sh);
      expect_same(k.read<int8_t>(args.out, want.size()), want, what.str());
      if (round == 0) report("im2col", r, sh, want.size(), " (12x12x8, 3x3 same)");
    }
  }
}

// ------------------------------------------------------------------------------------------------
// Softmax
// ------------------------------------------------------------------------------------------------

namespace {

std::vector<uint8_t> run_softmax(const std::vector<int8_t>& in, uint32_t rows, uint32_t depth,
                                 const sm::Params& p, const Shape& sh, std::mt19937_64& rng,
                                 const std::string& what) {
  KernelRun k("softmax");
  const weft_softmax_args args{rows,
                               depth,
                               k.input(in),
                               k.output<uint8_t>(in.size(), rng),
                               p.input_multiplier,
                               p.input_left_shift,
                               p.diff_min};
  const s::Result r = k.run(args, sh);
  report("softmax", r, sh, in.size(), what);
  return k.read<uint8_t>(args.out, in.size());
}

}  // namespace

// The reference itself: its exp and reciprocal against std::exp and 1/x (gemmlowp's stated
// accuracy is far below an output LSB), and the TFLite parameters for a worked scale.
TEST(Kernels, SoftmaxReferenceFixedPointPiecesAreAccurate) {
  for (double x = -31.9; x <= 0; x += 0.0371) {
    const auto a = sm::Fx<5>::FromDouble(x);
    const double got = sm::exp_on_negative_values(a).raw / 2147483648.0;
    EXPECT_NEAR(got, std::exp(a.raw / double(1 << 26)), 2e-7) << "exp(" << x << ")";
  }
  EXPECT_EQ(sm::exp_on_negative_values(sm::Fx<5>{0}).raw, INT32_MAX);
  for (double x = 0; x < 1; x += 0.0123) {
    const auto a = sm::Fx<0>::FromDouble(x);
    const double got = sm::one_over_one_plus_x_for_x_in_0_1(a).raw / 2147483648.0;
    EXPECT_NEAR(got, 1.0 / (1.0 + a.raw / 2147483648.0), 1e-8) << "1/(1+" << x << ")";
  }
  // scale 1/8, beta 1: real multiplier 2^23 = 0.5 * 2^24 -> (2^30, 24); radius 31*2^26/2^24 = 124
  const sm::Params p = sm::prepare(1.0, 0.125);
  EXPECT_EQ(p.input_multiplier, 1 << 30);
  EXPECT_EQ(p.input_left_shift, 24);
  EXPECT_EQ(p.diff_min, -124);
}

TEST(Kernels, SoftmaxHandWorkedRows) {
  SKIP_WITHOUT_KERNELS();
  auto rng = weft::tb::make_rng();
  const sm::Params p = sm::prepare(1.0, 0.5);  // diff_min = -31
  struct Case {
    std::vector<int8_t> in;
    std::vector<uint8_t> want;
  };
  const Case cases[] = {
      {{5, 5, 5, 5}, {64, 64, 64, 64}},  // 1/4 = 64/256
      {{-128, -128}, {128, 128}},        // 1/2
      {{7}, {255}},                      // 1.0 saturates to 255
      {{0, -128}, {255, 0}},             // d = -128 < diff_min: exactly 0; the max gets ~1
      // scale 0.5, d = -2: e^-1; 256 / (1 + e^-1) = 187.15, 256 e^-1 / (1 + e^-1) = 68.85
      {{100, 98}, {187, 69}},
  };
  for (size_t i = 0; i < std::size(cases); ++i) {
    const Case& c = cases[i];
    const uint32_t depth = static_cast<uint32_t>(c.in.size());
    const auto got = run_softmax(c.in, 1, depth, p, {4, 8, false}, rng, "");
    expect_same(got, c.want, "softmax row " + std::to_string(i));
  }
  // depth 256, all equal: 1/256 = 1 LSB each. Depth 511 (the largest): sum = 511 (k = 4, final
  // shift 31); 256/511 = 0.501 rounds to 1.
  for (uint32_t depth : {256u, 511u}) {
    const std::vector<int8_t> flat(depth, 3);
    expect_same(run_softmax(flat, 1, depth, p, {4, 8, false}, rng, ""),
                std::vector<uint8_t>(depth, 1),
                "softmax " + std::to_string(depth) + " equal logits");
  }
}

TEST(Kernels, SoftmaxMatchesFixedPointReferenceAndFloatWithinOneLsb) {
  SKIP_WITHOUT_KERNELS();
  auto rng = weft::tb::make_rng();
  struct Config {
    double beta, scale;
  };
  const Config configs[] = {{1.0, 0.1}, {1.0, 0.5}, {1.0, 1.0 / 16}, {1.0, 0.02}, {0.5, 0.25}};
  for (size_t ci = 0; ci < std::size(configs); ++ci) {
    const Config& cfg = configs[ci];
    const sm::Params p = sm::prepare(cfg.beta, cfg.scale);
    const uint32_t depth = ci == 0 ? 100 : static_cast<uint32_t>(uniform(rng, 1, 511));
    const uint32_t rows = ci == 0 ? 40 : std::max<uint32_t>(1, 6000 / depth);
    const std::vector<int8_t> in = softmax_logits(rng, rows, depth);
    const std::vector<uint8_t> want = sm::softmax(in, rows, depth, p);
    const std::vector<uint8_t> want_float = sm::softmax_float(in, rows, depth, cfg.beta, cfg.scale);
    for (const Shape& sh : kShapes) {
      if (ci != 0 && !sh.reported) continue;  // the other shapes once
      std::ostringstream what;
      what << "softmax beta " << cfg.beta << " scale " << cfg.scale << " " << rows << "x" << depth
           << " " << shape_name(sh);
      const std::vector<uint8_t> got =
          run_softmax(in, rows, depth, p, {sh.warps, sh.threads, sh.reported && ci == 0}, rng,
                      ci == 0 ? " (40 rows x 100)" : "");
      expect_same(got, want, what.str() + " vs fixed-point reference");
      int worst = 0;
      for (size_t i = 0; i < got.size(); ++i) {
        worst = std::max(worst, std::abs(int{got[i]} - int{want_float[i]}));
      }
      EXPECT_LE(worst, 1) << what.str() << ": differs from float softmax by " << worst << " LSB";
    }
  }
}

// The intermediates of every row (each exp in Q0.31, the Q12.19 sum, the reciprocal) bit for bit:
// differences far below an output LSB are visible here. softmax_probe.elf is softmax.c built
// with -DWEFT_SOFTMAX_PROBE (same arithmetic, stores the intermediates).
TEST(Kernels, SoftmaxFixedPointIntermediatesMatchReferenceBitExactly) {
  SKIP_WITHOUT_KERNELS();
  auto rng = weft::tb::make_rng();
  for (int round = 0; round < 6; ++round) {
    const double beta = round == 5 ? 0.75 : 1.0;
    const double scale = std::exp2(std::uniform_real_distribution<double>(-6, 0)(rng));
    const sm::Params p = sm::prepare(beta, scale);
    const uint32_t depth = static_cast<uint32_t>(uniform(rng, 1, 511));
    const uint32_t rows = std::max<uint32_t>(1, 2000 / depth);
    const auto in = random_vector<int8_t>(rng, rows * depth, kI8Min, kI8Max);
    const std::vector<int32_t> want = sm::softmax_parts(in, rows, depth, p);
    KernelRun k("softmax_probe");
    const weft_softmax_args args{rows,
                                 depth,
                                 k.input(in),
                                 k.output<int32_t>(want.size(), rng),
                                 p.input_multiplier,
                                 p.input_left_shift,
                                 p.diff_min};
    k.run(args, kShapes[0]);
    std::ostringstream what;
    what << "softmax intermediates scale " << scale << " " << rows << "x" << depth;
    expect_same(k.read<int32_t>(args.out, want.size()), want, what.str());
  }
}

// ------------------------------------------------------------------------------------------------
// ONNX integer operators for the model runtime: maxpool2d (NCHW), clamp8, transpose_nd
// ------------------------------------------------------------------------------------------------

namespace {

std::vector<uint8_t> run_maxpool2d(const MaxPool2dCase& mc, const std::vector<uint8_t>& in,
                                   const Shape& sh, std::mt19937_64& rng, const std::string& what) {
  KernelRun k("maxpool2d");
  const uint32_t in_addr = k.input(in);
  const uint32_t out_addr = k.output<uint8_t>(mc.out_size(), rng);
  const s::Result r = k.run(maxpool2d_args(mc, in_addr, out_addr), sh);
  if (!what.empty()) report("maxpool2d", r, sh, mc.out_size(), what);
  return k.read<uint8_t>(out_addr, mc.out_size());
}

}  // namespace

// Random shapes and attributes (kernels 1..4, strides 1..3, dilations 1..2, pads up to the kernel
// size minus one, floor and ceil mode), uint8 and int8, against ONNX's definition.
TEST(Kernels, MaxPool2dOnnxNchwUint8AndInt8MatchReference) {
  SKIP_WITHOUT_KERNELS();
  auto rng = weft::tb::make_rng();
  for (const bool is_signed : {false, true}) {
    for (int round = 0; round < 8; ++round) {
      const MaxPool2dCase mc = maxpool2d_case(rng, round, is_signed);
      const auto in = random_vector<uint8_t>(rng, mc.in_size(), 0, 255);
      const std::vector<uint8_t> want = maxpool2d_ref(in, mc);
      for (const Shape& sh : kShapes) {
        if (round > 2 && !sh.reported) continue;  // the other shapes on three cases each
        const std::string what = maxpool2d_name(mc) + " " + shape_name(sh);
        const bool rep = round == 0 && is_signed && sh.reported;
        expect_same(run_maxpool2d(mc, in, sh, rng, rep ? " (1x8x17x15, 3x3 s2 p1)" : ""), want,
                    what);
      }
    }
  }
}

// Hand-worked: a 2x2 input, 2x2 window, stride 1, pads 1 on every side, out 4x3 (one row more
// than ONNX's 3x3, so its windows lie wholly below the input): padding never wins (the corner is
// -100, not 0) and a window with no input position gives the type's lowest value.
TEST(Kernels, MaxPool2dPaddingNeverWinsHandWorked) {
  SKIP_WITHOUT_KERNELS();
  auto rng = weft::tb::make_rng();
  MaxPool2dCase mc{.n = 1, .c = 1, .h = 2, .w = 2, .kh = 2, .kw = 2, .stride_h = 1,
                   .stride_w = 1, .pad_top = 1, .pad_left = 1, .pad_bottom = 1, .pad_right = 1};
  set_out(mc);
  EXPECT_EQ(mc.out_h, 3u);
  EXPECT_EQ(mc.out_w, 3u);
  mc.out_h = 4;
  const std::vector<uint8_t> in = {uint8_t(-100), uint8_t(-50), uint8_t(-70), uint8_t(-90)};
  const std::vector<int8_t> want_s8 = {-100, -50, -50, -70, -50, -50, -70, -70, -90,
                                       -128, -128, -128};
  const std::vector<uint8_t> want_u8 = {156, 206, 206, 186, 206, 206, 186, 186, 166, 0, 0, 0};
  for (const bool is_signed : {false, true}) {
    mc.is_signed = is_signed;
    const std::vector<uint8_t> want =
        is_signed ? std::vector<uint8_t>(want_s8.begin(), want_s8.end()) : want_u8;
    EXPECT_EQ(maxpool2d_ref(in, mc), want) << "reference, signed " << is_signed;
    for (const Shape& sh : kShapes) {
      expect_same(run_maxpool2d(mc, in, sh, rng, ""), want,
                  std::string(is_signed ? "int8" : "uint8") + " hand-worked " + shape_name(sh));
    }
  }
}

TEST(Kernels, Clamp8Uint8AndInt8ClipAndRelu) {
  SKIP_WITHOUT_KERNELS();
  auto rng = weft::tb::make_rng();
  const uint32_t n = static_cast<uint32_t>(uniform(rng, 3000, 6000));
  const auto in = random_vector<uint8_t>(rng, n, 0, 255);
  for (const bool is_signed : {false, true}) {
    const int32_t tmin = is_signed ? -128 : 0, tmax = is_signed ? 127 : 255;
    const int32_t a = uniform(rng, tmin, tmax), b = uniform(rng, tmin, tmax);
    const std::pair<int32_t, int32_t> ranges[] = {
        {std::min(a, b), std::max(a, b)},    // Clip
        {uniform(rng, tmin, tmax), tmax},    // Relu with a zero point
        {tmin, tmax},                        // identity
        {std::max(a, b), std::min(a, b)},    // lo > hi: hi everywhere (ONNX order)
    };
    for (size_t ri = 0; ri < std::size(ranges); ++ri) {
      const auto [lo, hi] = ranges[ri];
      const std::vector<uint8_t> want = clamp8_ref(in, is_signed, lo, hi);
      for (const Shape& sh : kShapes) {
        if (ri != 0 && !sh.reported) continue;
        const bool in_place = ri == 1;
        KernelRun k("clamp8");
        const uint32_t in_addr = in_place ? k.inout(in) : k.input(in);
        const uint32_t out_addr = in_place ? in_addr : k.output<uint8_t>(n, rng);
        const weft_clamp8_args args{n, is_signed ? 1u : 0u, lo, hi, in_addr, out_addr};
        const s::Result r = k.run(args, sh);
        std::ostringstream what;
        what << "clamp8 " << (is_signed ? "int8" : "uint8") << " [" << lo << ", " << hi << "]"
             << (in_place ? " in place " : " ") << shape_name(sh);
        expect_same(k.read<uint8_t>(out_addr, n), want, what.str());
        if (ri == 0 && is_signed) report("clamp8", r, sh, n);
      }
    }
  }
}

TEST(Kernels, TransposeNdRank0To6MatchesReference) {
  SKIP_WITHOUT_KERNELS();
  auto rng = weft::tb::make_rng();
  // A hand-worked one first: dims 2x3, perm (1, 0) is the matrix transpose.
  EXPECT_EQ(transpose_nd_ref({1, 2, 3, 4, 5, 6}, {2, 3}, {1, 0}),
            (std::vector<uint8_t>{1, 4, 2, 5, 3, 6}));
  for (int round = 0; round < 10; ++round) {
    const TransposeNdCase tc = transpose_nd_case(rng, round);
    const auto in = random_vector<uint8_t>(rng, tc.size(), 0, 255);
    const std::vector<uint8_t> want = transpose_nd_ref(in, tc.dims, tc.perm);
    for (const Shape& sh : kShapes) {
      if (round > 3 && !sh.reported) continue;
      KernelRun k("transpose_nd");
      const uint32_t in_addr = k.input(in);
      const uint32_t out_addr = k.output<uint8_t>(want.size(), rng);
      const s::Result r = k.run(transpose_nd_args(tc, in_addr, out_addr), sh);
      expect_same(k.read<uint8_t>(out_addr, want.size()), want,
                  transpose_nd_name(tc) + " " + shape_name(sh));
      if (round == 0) report("transpose_nd", r, sh, want.size(), " (1x16x9x11 NCHW->NHWC)");
      if (round == 1) report("transpose_nd", r, sh, want.size(), " (rank 6)");
    }
  }
}

// ------------------------------------------------------------------------------------------------
// QDQ float operators (qadd, qavgpool): IEEE float32 / double through libgcc's soft-float, bit for
// bit the model runtime's host code
// ------------------------------------------------------------------------------------------------

// The kernels' QuantizeLinear (weft_qfloat.h, integer rounding on the float's fields) compiled
// for the host against nearbyint: every tie k + 1/2 and its neighbours for |k| < 2^12, random
// bit patterns of every exponent, values around 2^23, infinities and NaN.
TEST(Kernels, QuantizeRoundingMatchesNearbyintOnTheHost) {
  auto rng = weft::tb::make_rng();
  int bad = 0;
  auto check = [&](float x) {
    for (const bool s8 : {false, true}) {
      const int32_t zp = s8 ? -3 : 7, lo = s8 ? -128 : 0, hi = s8 ? 127 : 255;
      // scale 1: q = x; a scale of 2^-8 shifts the whole range into the clamp
      const int32_t got = weft_quantize(x, 1.0f, zp, lo, hi);
      const int32_t want = quantize_ref(x, 1.0f, zp, s8);
      if (got != want && ++bad <= 5) {
        ADD_FAILURE() << "x = " << std::setprecision(9) << x << " (0x" << std::hex
                      << f32_bits(x) << std::dec << ") s8 " << s8 << ": " << got << ", expected "
                      << want;
      }
    }
  };
  for (int k = -4096; k < 4096; ++k) {
    const float t = static_cast<float>(k) + 0.5f;
    check(t), check(std::nextafter(t, 1e9f)), check(std::nextafter(t, -1e9f));
    check(static_cast<float>(k));
  }
  for (int i = 0; i < 2000000; ++i) {
    uint32_t u = static_cast<uint32_t>(rng());
    if (i % 2) u = (u & 0x807fffffu) | (uint32_t(uniform(rng, 100, 160)) << 23);  // |x| ~ 2^-27..2^33
    float x;
    std::memcpy(&x, &u, 4);
    check(x);
  }
  for (const float x : {8388607.5f, 8388608.0f, 8388609.0f, -8388607.5f, -8388608.0f, 0.0f,
                        -0.0f, 0.49999997f, -0.49999997f, 1e-45f, -1e-45f, INFINITY, -INFINITY,
                        NAN}) {
    check(x);
  }
  EXPECT_EQ(bad, 0) << bad << " values differ";
}

namespace {

std::vector<uint8_t> run_qadd(const QaddCase& c, const std::vector<uint8_t>& a,
                              const std::vector<uint8_t>& b, const Shape& sh,
                              std::mt19937_64& rng, const std::string& what) {
  KernelRun k("qadd");
  k.allow_writable_globals();  // its table of dequantized values (.bss)
  const uint32_t a_addr = k.input(a), b_addr = k.input(b);
  const uint32_t y_addr = k.output<uint8_t>(c.out_size(), rng);
  const s::Result r = k.run(qadd_args(c, a_addr, b_addr, y_addr), sh);
  if (!what.empty()) report("qadd", r, sh, c.out_size(), what);
  return k.read<uint8_t>(y_addr, c.out_size());
}

std::vector<uint8_t> run_qavgpool(const QAvgPoolCase& c, const std::vector<uint8_t>& in,
                                  const Shape& sh, std::mt19937_64& rng, const std::string& what) {
  KernelRun k("qavgpool");
  k.allow_writable_globals();  // its table of dequantized values (.bss)
  const uint32_t in_addr = k.input(in);
  const uint32_t out_addr = k.output<uint8_t>(c.g.out_size(), rng);
  const s::Result r = k.run(qavgpool_args(c, in_addr, out_addr), sh);
  if (!what.empty()) report("qavgpool", r, sh, c.g.out_size(), what);
  return k.read<uint8_t>(out_addr, c.g.out_size());
}

}  // namespace

// Random shapes (rank 1..4), broadcast patterns (same shape, per-channel, scalar, mixed), u8 / s8
// mixes, zero points and scales (ties: 0.5 + 0.5 -> 1; saturating small output scales).
TEST(Kernels, QaddBroadcastU8S8MatchesHostFloat) {
  SKIP_WITHOUT_KERNELS();
  auto rng = weft::tb::make_rng();
  for (int round = 0; round < 15; ++round) {
    const QaddCase c = qadd_case(rng, round);
    const auto a = random_vector<uint8_t>(rng, c.a_size(), 0, 255);
    const auto b = random_vector<uint8_t>(rng, c.b_size(), 0, 255);
    const std::vector<uint8_t> want = qadd_ref(a, b, c);
    for (const Shape& sh : kShapes) {
      if (round > 4 && !sh.reported) continue;
      const std::string rep = round == 1 ? " (per-channel b, " + std::to_string(c.out_size()) + ")" : "";
      expect_same(run_qadd(c, a, b, sh, rng, sh.reported ? rep : ""), want,
                  qadd_name(c) + " " + shape_name(sh));
    }
  }
}

// Hand-worked: ties to even in both signs (0.5 + 0.5 scales, y scale 1), saturation at both ends,
// an infinite sum (a scale of 3e38) saturating, inf + -inf = NaN giving 0.
TEST(Kernels, QaddTiesSaturationInfNanHandWorked) {
  SKIP_WITHOUT_KERNELS();
  auto rng = weft::tb::make_rng();
  QaddCase c;
  c.dims[3] = c.adims[3] = c.bdims[3] = 8;
  c.sa = c.sb = 0.5f, c.sy = 1.0f;
  c.a_s8 = c.b_s8 = c.y_s8 = true;
  // a + b (in halves): 1 -> 0, 3 -> 2, 5 -> 2, -1 -> 0, -3 -> -2, -5 -> -2, 254 -> 127, -256 -> -128
  const std::vector<int8_t> as = {1, 2, 3, -1, -2, -3, 127, -128};
  const std::vector<int8_t> bs = {0, 1, 2, 0, -1, -2, 127, -128};
  const std::vector<int8_t> want_s = {0, 2, 2, 0, -2, -2, 127, -128};
  std::vector<uint8_t> a(as.begin(), as.end()), b(bs.begin(), bs.end());
  std::vector<uint8_t> want(want_s.begin(), want_s.end());
  EXPECT_EQ(qadd_ref(a, b, c), want) << "reference";
  for (const Shape& sh : kShapes) expect_same(run_qadd(c, a, b, sh, rng, ""), want, "ties " + shape_name(sh));
  // uint8 output with zero point 10: -1.5 -> -2 + 10 = 8; 0.5 -> 0 + 10
  c.y_s8 = false, c.zy = 10;
  want = {10, 12, 12, 10, 8, 8, 137, 0};
  EXPECT_EQ(qadd_ref(a, b, c), want) << "reference u8";
  for (const Shape& sh : kShapes) expect_same(run_qadd(c, a, b, sh, rng, ""), want, "ties u8 " + shape_name(sh));
  // infinities: a scale of 3e38 makes |a - za| >= 2 infinite; inf + (-inf) is NaN -> 0
  c.sa = 3e38f, c.sb = 3e38f, c.y_s8 = true, c.zy = 0;
  a = {2, 2, uint8_t(-2), 1, 0, 2, 0, 0};
  b = {0, uint8_t(-2), 0, 0, 0, uint8_t(-3), 1, uint8_t(-1)};
  want = {127, 0, uint8_t(-128), 127, 0, 0, 127, uint8_t(-128)};
  EXPECT_EQ(qadd_ref(a, b, c), want) << "reference inf";
  for (const Shape& sh : kShapes) expect_same(run_qadd(c, a, b, sh, rng, ""), want, "inf/nan " + shape_name(sh));
}

// AveragePool (3x3 s2 p1 with and without count_include_pad, 2x2 ties, random geometries with
// dilations and ceil mode) and GlobalAveragePool, u8 / s8 in and out, against the host's loops.
TEST(Kernels, QAvgPoolAndGlobalAveragePoolMatchHostFloat) {
  SKIP_WITHOUT_KERNELS();
  auto rng = weft::tb::make_rng();
  for (int round = 0; round < 14; ++round) {
    const QAvgPoolCase c = qavgpool_case(rng, round, 6000);
    const auto in = random_vector<uint8_t>(rng, c.g.in_size(), 0, 255);
    const std::vector<uint8_t> want = qavgpool_ref(in, c);
    for (const Shape& sh : kShapes) {
      if (round > 3 && !sh.reported) continue;
      std::string rep;
      if (round == 0) rep = " (1x8x17x15, 3x3 s2 p1)";
      if (round == 2) rep = " (global 1x8x13x11)";
      if (round == 4) rep = " (scale > FLT_MAX / 383: double sum)";
      expect_same(run_qavgpool(c, in, sh, rng, sh.reported ? rep : ""), want,
                  qavgpool_name(c) + " " + shape_name(sh));
    }
  }
}
