// bench_simt: the SIMT core alone (weft_simt_core, 4 warps x 8 threads, 8 banks, 256 KiB data
// memory as in weft_top) running library kernels (sw/kernels ELFs, docs/kernels.md) (make bench).
// For each kernel it prints the cycles of the launch, cycles per element, IPC (warp instructions
// per cycle), active threads per issue, the stall breakdown of the core's counters and replays.
// Every run is checked against the golden model weft::golden::simt on the same memories: the
// whole data memory bit for bit, per-thread exit codes and retired counts, per-warp issue and
// active counts, errors; any difference makes the exit status non-zero.
//   vecadd  16384 int32 elements (target <= 1.5 cycles/element)
//   softmax 64 rows x 128 int8 (TFLite quantized softmax)
//   maxpool 1 x 64 x 64 x 16 int8 NHWC in, 2x2 stride 2 -> 16384 elements out
// Usage: bench_simt [vecadd|softmax|maxpool|all] (default all). Fixed inputs (seed 1).
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <functional>
#include <iterator>
#include <random>
#include <string>
#include <vector>

#include "simt_dut.hpp"
#include "softmax_reference.hpp"
#include "weft_kernel_args.h"

namespace {

namespace gs = weft::golden::simt;
namespace st = weft::tb::simt;
namespace sm = weft::tb::softmax_ref;

static_assert(st::kDmemBytes == 262144, "the bench runs weft_top's default data memory");

// Data memory layout: the image (.text + .rodata, <= 16 KiB) mirrored at 0, the argument block at
// 16 KiB, buffers above, 32 stacks of 256 bytes below the top.
constexpr uint32_t kArgsAddr = 0x4000;
constexpr uint32_t kHeapBase = 0x4100;
constexpr uint32_t kStackTop = st::kDmemBytes;
constexpr uint32_t kStackSize = 256;
constexpr uint32_t kHeapEnd = kStackTop - st::kWarps * st::kThreads * kStackSize;
constexpr uint64_t kMaxIssues = 50'000'000;

class Setup {
 public:
  explicit Setup(gs::Machine& m) : m_(m) {}
  template <class T>
  uint32_t put(const std::vector<T>& v) {
    const uint32_t addr = alloc(v.size() * sizeof(T));
    m_.write_dmem(addr, {reinterpret_cast<const uint8_t*>(v.data()), v.size() * sizeof(T)});
    return addr;
  }
  uint32_t out(size_t bytes) {
    const uint32_t addr = alloc(bytes);
    for (size_t i = 0; i < bytes; ++i) m_.dmem()[addr + i] = static_cast<uint8_t>(0xA5 ^ i);
    return addr;
  }
  template <class Args>
  void args(const Args& a) {
    m_.write_dmem(kArgsAddr, {reinterpret_cast<const uint8_t*>(&a), sizeof(Args)});
  }

 private:
  uint32_t alloc(size_t bytes) {
    const uint32_t addr = next_;
    next_ = static_cast<uint32_t>((next_ + bytes + 15) & ~size_t{15});
    if (next_ > kHeapEnd) {
      std::fprintf(stderr, "bench_simt: buffers exceed the data memory\n");
      std::exit(2);
    }
    return addr;
  }
  gs::Machine& m_;
  uint32_t next_ = kHeapBase;
};

std::vector<uint8_t> read_file(const std::string& path) {
  std::ifstream f(path, std::ios::binary);
  if (!f.good()) {
    std::fprintf(stderr, "bench_simt: cannot open %s (build target weft_kernel_elfs)\n",
                 path.c_str());
    std::exit(2);
  }
  return {std::istreambuf_iterator<char>(f), std::istreambuf_iterator<char>()};
}

struct Figure {
  std::string name, shape;
  uint64_t elements;
  double target;  // cycles per element, 0: none
  std::function<void(Setup&, std::mt19937_64&)> setup;
};

// Runs one kernel on the golden model and on the RTL from the same memories; prints the figures.
bool run(const Figure& f) {
  gs::Config cfg;
  cfg.dmem_bytes = st::kDmemBytes;
  cfg.imem_bytes = st::kImemWords * 4;
  cfg.max_warp_issues = kMaxIssues;
  gs::Machine m(cfg);
  const uint32_t entry = gs::load_elf(m, read_file(std::string(WEFT_KERNEL_ELF_DIR) + "/" +
                                                   f.name + ".elf"));
  std::mt19937_64 rng(1);
  Setup s(m);
  f.setup(s, rng);
  const std::vector<uint8_t> image = m.dmem();
  std::vector<uint32_t> code(st::kImemWords);
  for (uint32_t i = 0; i < st::kImemWords; ++i) code[i] = m.imem_word(4 * i);
  const gs::Launch l{.entry_pc = entry,
                     .num_warps = st::kWarps,
                     .threads_per_warp = st::kThreads,
                     .arg_ptr = kArgsAddr,
                     .stack_top = kStackTop,
                     .stack_size_per_thread = kStackSize};
  const gs::Result g = m.run(l);

  st::SimtDut dut;
  dut.load_imem(code);
  dut.write_dmem(image);
  const auto t0 = std::chrono::steady_clock::now();
  const st::RtlResult r = dut.run(l, kMaxIssues, 100'000'000);
  const double secs = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  const std::vector<uint8_t> mem = dut.read_dmem();

  // Golden comparison.
  std::vector<std::string> bad;
  if (!g.ok()) bad.push_back("golden model: " + g.error.message());
  if (!r.finished) bad.push_back("the RTL launch did not finish");
  if (r.error.code != g.error.code) bad.push_back("RTL error: " + r.error.message());
  if (mem != m.dmem()) bad.push_back("data memory differs:" + st::first_mem_diff(m.dmem(), mem));
  if (r.threads.size() != g.threads.size()) bad.push_back("thread count differs");
  for (size_t t = 0; t < std::min(r.threads.size(), g.threads.size()); ++t) {
    if (!r.threads[t].exited || r.threads[t].exit_code != g.threads[t].exit_code ||
        r.threads[t].retired != g.threads[t].retired) {
      bad.push_back("thread " + std::to_string(t) + ": exit/retired differ (retired " +
                    std::to_string(r.threads[t].retired) + ", golden " +
                    std::to_string(g.threads[t].retired) + ")");
      break;
    }
  }
  for (size_t w = 0; w < std::min(r.warp_issues.size(), g.warp_issues.size()); ++w) {
    if (r.warp_issues[w] != g.warp_issues[w] || r.warp_active[w] != g.warp_active_threads[w]) {
      bad.push_back("warp " + std::to_string(w) + ": issues " + std::to_string(r.warp_issues[w]) +
                    " / active " + std::to_string(r.warp_active[w]) + ", golden " +
                    std::to_string(g.warp_issues[w]) + " / " +
                    std::to_string(g.warp_active_threads[w]));
    }
  }
  if (r.perf_issued != g.total_issues()) bad.push_back("total issues differ");

  const double cyc = r.perf_cycles, n = double(f.elements), iss = r.perf_issued;
  const double cpe = cyc / n;
  char verdict[48] = " (no target)";
  if (f.target > 0) {
    std::snprintf(verdict, sizeof verdict, " (target <= %g: %s)", f.target,
                  cpe <= f.target ? "met" : "MISSES");
  }
  std::printf(
      "   %-8s %-26s %9u cycles  %7.3f cycles/element%s  IPC %.3f  %5.2f threads/issue"
      "  (%.2f issues/element)\n",
      f.name.c_str(), f.shape.c_str(), r.perf_cycles, cpe, verdict, iss / cyc,
      double(r.perf_active) / iss, iss / n);
  std::printf(
      "   %-8s stalls: pipe %u (%.1f%%), div %u (%.1f%%), mem %u (%.1f%%), barrier %u"
      " (%.1f%%); replays %u; %s; %.2f s (%.0f k cycles/s, no target)\n",
      "", r.perf_stall_pipe, 100 * r.perf_stall_pipe / cyc, r.perf_stall_div,
      100 * r.perf_stall_div / cyc, r.perf_stall_mem, 100 * r.perf_stall_mem / cyc,
      r.perf_stall_barrier, 100 * r.perf_stall_barrier / cyc, r.perf_replays,
      bad.empty() ? "bit-exact vs golden (memory, retired, warp issues)" : "MISMATCH", secs,
      cyc / secs / 1e3);
  for (const auto& b : bad) std::printf("   %-8s MISMATCH: %s\n", "", b.c_str());
  return bad.empty();
}

template <class T>
std::vector<T> random_vector(std::mt19937_64& rng, size_t n, int64_t lo, int64_t hi) {
  std::uniform_int_distribution<int64_t> d(lo, hi);
  std::vector<T> v(n);
  for (auto& x : v) x = static_cast<T>(d(rng));
  return v;
}

std::vector<Figure> figures() {
  std::vector<Figure> fs;
  {
    constexpr uint32_t n = 16384;
    fs.push_back({"vecadd", "16384 int32", n, 1.5, [](Setup& s, std::mt19937_64& rng) {
                    const auto a = random_vector<int32_t>(rng, n, INT32_MIN, INT32_MAX);
                    const auto b = random_vector<int32_t>(rng, n, INT32_MIN, INT32_MAX);
                    const uint32_t pa = s.put(a), pb = s.put(b);
                    s.args(weft_vecadd_args{n, pa, pb, s.out(4 * n)});
                  }});
  }
  {
    constexpr uint32_t rows = 64, depth = 128;
    fs.push_back({"softmax", "64 rows x 128 int8", rows * depth, 0,
                  [](Setup& s, std::mt19937_64& rng) {
                    const sm::Params p = sm::prepare(1.0, 0.1);
                    std::vector<int8_t> in(rows * depth);
                    std::uniform_int_distribution<int> u(0, 255);
                    for (uint32_t r = 0; r < rows; ++r) {  // rows of different spreads
                      const int spread = 1 + u(rng) % 255;
                      const int base = -128 + u(rng) % (256 - spread);
                      for (uint32_t c = 0; c < depth; ++c) {
                        in[r * depth + c] = static_cast<int8_t>(
                            std::clamp(base + u(rng) % (spread + 1), -128, 127));
                      }
                    }
                    const uint32_t pin = s.put(in);
                    s.args(weft_softmax_args{rows, depth, pin, s.out(rows * depth),
                                             p.input_multiplier, p.input_left_shift,
                                             p.diff_min});
                  }});
  }
  {
    constexpr uint32_t b = 1, h = 64, w = 64, c = 16;
    fs.push_back({"maxpool", "1x64x64x16 -> 16384 int8", b * (h / 2) * (w / 2) * c, 0,
                  [](Setup& s, std::mt19937_64& rng) {
                    const auto in = random_vector<int8_t>(rng, b * h * w * c, -128, 127);
                    const uint32_t pin = s.put(in);
                    s.args(weft_maxpool_args{b, h, w, c, pin, s.out(b * (h / 2) * (w / 2) * c)});
                  }});
  }
  return fs;
}

}  // namespace

int main(int argc, char** argv) {
  const std::string which = argc > 1 ? argv[1] : "all";
  if (std::string(WEFT_KERNEL_ELF_DIR).empty()) {
    std::printf("   bench_simt: riscv64-unknown-elf-gcc not found at configure time: no kernels\n");
    return 0;
  }
  bool ok = true, any = false;
  std::printf("   weft_simt_core %ux%u, %u banks, %u KiB data memory; each run checked against "
              "the golden model\n",
              st::kWarps, st::kThreads, st::kBanks, st::kDmemBytes / 1024);
  for (const Figure& f : figures()) {
    if (which != "all" && which != f.name) continue;
    any = true;
    ok = run(f) && ok;
  }
  if (!any) {
    std::fprintf(stderr, "usage: %s [vecadd|softmax|maxpool|all]\n", argv[0]);
    return 2;
  }
  return ok ? 0 : 1;
}
