// weft: command line tool of the Weft NPU (libweft).
//
//   weft info [--device URI]                          capabilities and every register
//   weft gemm M N K [--seed S] [--check] [--device URI] [--mode MODE] [--int32] ...
//                                                     run a GEMM, check it, print the perf report
//   weft simt KERNEL [--n N] [--check] [--device URI] [--warps W] [--threads T] [--seed S]
//                                                     run a library kernel (sw/kernels) on the
//                                                     SIMT core: cycles, cycles/element, IPC
//
// Exit status: 0 success, 1 result differs from the golden model, 2 bad command line or
// argument, 3 device error or timeout.
#include "weft/weft.hpp"

#include <fmt/core.h>
#include <unistd.h>

#include <CLI/CLI.hpp>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <functional>
#include <iterator>
#include <random>
#include <string>
#include <vector>

#include "weft/golden/quant.hpp"
#include "weft/golden/simt.hpp"
#include "weft/regs.hpp"
#include "weft_kernel_args.h"

#ifndef WEFT_KERNEL_ELF_DIR
#define WEFT_KERNEL_ELF_DIR ""
#endif

namespace {

int cmd_info(const std::string& uri) {
  weft::Device dev = weft::Device::open(uri);
  fmt::print("device       {}\n", dev.description());
  fmt::print("capabilities {}\n\n", dev.caps().to_string());
  fmt::print("{:<22} {:>6}  {:>10}  {}\n", "register", "offset", "value", "fields");
  for (const auto& r : weft::regs::kRegisters) {
    const uint32_t v = dev.read_reg(r.offset);
    std::string fields;
    for (unsigned i = 0; i < r.num_fields; ++i) {
      const auto& f = weft::regs::kFields[r.first_field + i];
      const uint32_t mask = f.width >= 32 ? 0xffffffffu : ((1u << f.width) - 1);
      if (r.num_fields > 1) fields += fmt::format("{}={} ", f.name, (v >> f.lsb) & mask);
    }
    fmt::print("{:<22} 0x{:03x}  0x{:08x}  {}\n", r.name, r.offset, v, fields);
  }
  return 0;
}

struct GemmArgs {
  int m = 0, n = 0, k = 0;
  uint64_t seed = 1;
  bool check = false, int32 = false, a_unsigned = false, w_unsigned = false;
  bool no_fine_start = false, no_short_tail = false, quiet = false;
  std::string mode = "tflite-double";
};

int cmd_gemm(const std::string& uri, const GemmArgs& g) {
  if (g.m < 1 || g.n < 1 || g.k < 1) {
    fmt::print(stderr, "weft gemm: M, N and K must be >= 1 (got {} {} {})\n", g.m, g.n, g.k);
    return 2;
  }
  weft::StoreMode mode;
  if (g.int32 || g.mode == "int32") {
    mode = weft::StoreMode::kInt32;
  } else if (g.mode == "tflite-double") {
    mode = weft::StoreMode::kTfliteDouble;
  } else if (g.mode == "tflite-single") {
    mode = weft::StoreMode::kTfliteSingle;
  } else if (g.mode == "onnx") {
    mode = weft::StoreMode::kOnnx;
  } else {
    fmt::print(stderr, "weft gemm: unknown --mode {} (tflite-double, tflite-single, onnx, int32)\n",
               g.mode);
    return 2;
  }
  std::mt19937_64 rng(g.seed);
  auto bytes = [&](size_t n) {
    std::vector<uint8_t> v(n);
    for (auto& b : v) b = static_cast<uint8_t>(rng());
    return v;
  };
  const auto a = bytes(size_t(g.m) * g.k), w = bytes(size_t(g.k) * g.n);
  weft::GemmOptions opt;
  opt.a = {!g.a_unsigned, g.a_unsigned ? 128 : 0};
  opt.w = {!g.w_unsigned, g.w_unsigned ? 128 : 0};
  opt.fine_start = !g.no_fine_start;
  opt.short_tail = !g.no_short_tail;
  auto& o = opt.out;
  o.mode = mode;
  for (int i = 0; i < g.n; ++i) o.bias.push_back(static_cast<int32_t>(rng() % 2001) - 1000);
  const double real = 1.0 / (64.0 * std::sqrt(double(g.k)) + 1.0);
  int32_t mult;
  int shift;
  weft::golden::quantize_multiplier(real, &mult, &shift);
  o.multiplier = {mult};
  o.shift = {shift};
  o.scale = {static_cast<float>(real)};
  o.zero_point = 0;
  o.act_min = -128;
  o.act_max = 127;

  weft::Device dev = weft::Device::open(uri);
  fmt::print("device   {}\n", dev.description());
  fmt::print("gemm     M={} N={} K={} seed={} mode={}\n", g.m, g.n, g.k, g.seed,
             mode == weft::StoreMode::kInt32 ? "int32" : g.mode);
  const bool tty = isatty(2) && !g.quiet;
  const auto t0 = std::chrono::steady_clock::now();
  if (tty) {
    opt.progress = [&](double f) {
      const int w = 30, filled = static_cast<int>(f * w + 0.5);
      fmt::print(stderr, "\r[{}{}] {:3.0f} %  {:.1f} s", std::string(filled, '#'),
                 std::string(w - filled, ' '), 100 * f,
                 std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count());
    };
  }
  std::vector<int32_t> c32;
  std::vector<uint8_t> c8;
  weft::OpStats st;
  if (mode == weft::StoreMode::kInt32) {
    c32.resize(size_t(g.m) * g.n);
    st = weft::gemm(dev, g.m, g.n, g.k, a, w, c32, opt);
  } else {
    c8.resize(size_t(g.m) * g.n);
    st = weft::gemm(dev, g.m, g.n, g.k, a, w, c8, opt);
  }
  if (tty) fmt::print(stderr, "\n");
  const double secs = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  fmt::print("schedule {} ({} descriptors)\n", st.schedule, st.descriptors);
  int rc = 0;
  if (g.check) {
    auto vals = [](const std::vector<uint8_t>& b, bool s) {
      std::vector<int32_t> v(b.size());
      for (size_t i = 0; i < b.size(); ++i) v[i] = s ? int8_t(b[i]) : b[i];
      return v;
    };
    const auto acc = weft::golden::gemm(vals(a, opt.a.is_signed), vals(w, opt.w.is_signed), g.m,
                                        g.k, g.n, {opt.a.is_signed, opt.a.zero_point},
                                        {opt.w.is_signed, opt.w.zero_point});
    std::vector<weft::golden::ChannelParams> ch(g.n);
    for (int i = 0; i < g.n; ++i) ch[i] = {o.bias[i], mult, shift, o.scale[0]};
    const auto want = weft::golden::postprocess(
        acc, g.m, g.n, ch,
        {static_cast<weft::golden::RequantMode>(mode), o.zero_point, o.act_min, o.act_max});
    size_t bad = 0;
    for (size_t i = 0; i < want.size(); ++i) {
      const bool ok = mode == weft::StoreMode::kInt32 ? c32[i] == want[i]
                                                      : c8[i] == static_cast<uint8_t>(want[i]);
      if (!ok && bad++ < 5) {
        fmt::print("mismatch C[{}][{}]: device {}, golden {}\n", i / g.n, i % g.n,
                   mode == weft::StoreMode::kInt32 ? c32[i] : int8_t(c8[i]), want[i]);
      }
    }
    fmt::print("check    {} ({} of {} elements differ from the golden model)\n",
               bad ? "FAILED" : "passed, bit-exact", bad, want.size());
    rc = bad ? 1 : 0;
  }
  // cycle(): simulated cycles for sim:// and pcie-sim://; for uart:// the board's clock times the
  // wall time since the device was opened (a board has no cycle counter the host can see).
  fmt::print("time     {:.2f} s wall, device at cycle {}\n", secs, dev.cycle());
  fmt::print("{}\n", st.perf.to_string());
  return rc;
}

// ------------------------------------------------------------------------------------------ simt
struct SimtArgs {
  std::string kernel;
  uint64_t n = 4096;
  uint64_t seed = 1;
  uint32_t warps = 0, threads = 0;  // 0: the whole core (CAP3)
  bool check = false;
  std::string elf_dir;
};

// One run of a library kernel: its input buffers, its output buffers' initial contents (junk, or
// the data of an in/out buffer), and the argument struct given the buffers' addresses.
struct SimtJob {
  std::string shape;
  uint64_t elements = 0;
  std::vector<std::vector<uint8_t>> inputs, outputs;
  std::function<std::vector<uint8_t>(const std::vector<uint32_t>& in,
                                     const std::vector<uint32_t>& out)>
      args;
};

template <class T>
std::vector<uint8_t> as_bytes(const T& v) {
  std::vector<uint8_t> b(sizeof(T));
  std::memcpy(b.data(), &v, sizeof(T));
  return b;
}

// Random operands for `kernel`, sized so that about n elements are produced. Empty shape:
// unknown kernel.
SimtJob simt_job(const std::string& kernel, uint64_t n, std::mt19937_64& rng) {
  SimtJob j;
  auto bytes = [&](size_t k) {
    std::vector<uint8_t> v(k);
    for (auto& b : v) b = static_cast<uint8_t>(rng());
    return v;
  };
  const auto u32 = [](uint64_t v) { return static_cast<uint32_t>(v); };
  const auto side = [](double x) {
    return std::max<uint32_t>(1, uint32_t(std::lround(std::sqrt(x))));
  };
  const auto junk = [](size_t k) { return std::vector<uint8_t>(k, 0xa5); };
  if (kernel == "vecadd") {
    j.elements = n;
    j.shape = fmt::format("{} int32", n);
    j.inputs = {bytes(4 * n), bytes(4 * n)};
    j.outputs = {junk(4 * n)};
    j.args = [=](const auto& in, const auto& out) {
      return as_bytes(weft_vecadd_args{u32(n), in[0], in[1], out[0]});
    };
  } else if (kernel == "saxpy") {
    j.elements = n;
    const int32_t alpha = static_cast<int32_t>(rng() % 2001) - 1000;
    j.shape = fmt::format("{} int32, alpha {}", n, alpha);
    j.inputs = {bytes(4 * n)};
    j.outputs = {bytes(4 * n)};  // y: read and written
    j.args = [=](const auto& in, const auto& out) {
      return as_bytes(weft_saxpy_args{u32(n), alpha, in[0], out[0]});
    };
  } else if (kernel == "relu") {
    j.elements = n;
    j.shape = fmt::format("{} int8, zero point -3", n);
    j.inputs = {bytes(n)};
    j.outputs = {junk(n)};
    j.args = [=](const auto& in, const auto& out) {
      return as_bytes(weft_relu_args{u32(n), -3, in[0], out[0]});
    };
  } else if (kernel == "requant") {
    const uint32_t ch = 16, rows = u32(std::max<uint64_t>(1, n / ch));
    j.elements = uint64_t{rows} * ch;
    j.shape = fmt::format("{} x {} int32 -> int8, TFLite double rounding", rows, ch);
    std::vector<int32_t> acc(j.elements), bias(ch), mult(ch), shift(ch);
    for (auto& a : acc) a = static_cast<int32_t>(rng() % (1 << 23)) - (1 << 22);
    for (uint32_t c = 0; c < ch; ++c) {
      int sh = 0;
      weft::golden::quantize_multiplier(std::ldexp(1.0, -int(rng() % 14)) * 0.7, &mult[c], &sh);
      shift[c] = sh;
      bias[c] = static_cast<int32_t>(rng() % 20001) - 10000;
    }
    auto raw = [](const std::vector<int32_t>& v) {
      std::vector<uint8_t> b(v.size() * 4);
      std::memcpy(b.data(), v.data(), b.size());
      return b;
    };
    j.inputs = {raw(acc), raw(bias), raw(mult), raw(shift)};
    j.outputs = {junk(j.elements)};
    j.args = [=](const auto& in, const auto& out) {
      return as_bytes(
          weft_requant_args{u32(rows * ch), ch, in[0], out[0], in[1], in[2], in[3], -5, -128, 127});
    };
  } else if (kernel == "maxpool") {
    const uint32_t c = 16, hw = 2 * side(double(n) / c);
    j.elements = uint64_t{hw / 2} * (hw / 2) * c;
    j.shape = fmt::format("1 x {} x {} x {} int8 -> {} x {}", hw, hw, c, hw / 2, hw / 2);
    j.inputs = {bytes(size_t{hw} * hw * c)};
    j.outputs = {junk(j.elements)};
    j.args = [=](const auto& in, const auto& out) {
      return as_bytes(weft_maxpool_args{1, hw, hw, c, in[0], out[0]});
    };
  } else if (kernel == "transpose") {
    const uint32_t r = side(double(n)), c = u32((n + r - 1) / r);
    j.elements = uint64_t{r} * c;
    j.shape = fmt::format("{} x {} int8", r, c);
    j.inputs = {bytes(j.elements)};
    j.outputs = {junk(j.elements)};
    j.args = [=](const auto& in, const auto& out) {
      return as_bytes(weft_transpose_args{r, c, in[0], out[0]});
    };
  } else if (kernel == "im2col") {
    const uint32_t c = 8, hw = side(double(n) / (9 * c));
    j.elements = uint64_t{hw} * hw * 9 * c;
    j.shape = fmt::format("1 x {} x {} x {} int8, 3x3 same", hw, hw, c);
    j.inputs = {bytes(size_t{hw} * hw * c)};
    j.outputs = {junk(j.elements)};
    j.args = [=](const auto& in, const auto& out) {
      return as_bytes(
          weft_im2col_args{1, hw, hw, c, 3, 3, 1, 1, 1, 1, hw, hw, -128, in[0], out[0]});
    };
  } else if (kernel == "softmax") {
    const uint32_t depth = 100, rows = u32(std::max<uint64_t>(1, (n + depth - 1) / depth));
    j.elements = uint64_t{rows} * depth;
    j.shape = fmt::format("{} rows x {} int8 -> uint8, input scale 1/8", rows, depth);
    j.inputs = {bytes(j.elements)};
    j.outputs = {junk(j.elements)};
    // TFLite SoftmaxPrepare for beta 1, input scale 1/8: real multiplier 2^26 / 8 = 2^23
    // = 0.5 * 2^24 -> (2^30, shift 24); input radius 31 * 2^26 / 2^24 = 124.
    j.args = [=](const auto& in, const auto& out) {
      return as_bytes(weft_softmax_args{rows, depth, in[0], out[0], 1 << 30, 24, -124});
    };
  }
  return j;
}

std::vector<uint8_t> read_binary(const std::string& path) {
  std::ifstream f(path, std::ios::binary);
  if (!f) throw weft::Error(weft::Errc::kBadArgument, "cannot open " + path);
  return {std::istreambuf_iterator<char>(f), std::istreambuf_iterator<char>()};
}

int cmd_simt(const std::string& uri, const SimtArgs& a) {
  namespace gs = weft::golden::simt;
  std::mt19937_64 rng(a.seed);
  const SimtJob job = simt_job(a.kernel, a.n, rng);
  if (job.shape.empty()) {
    fmt::print(stderr,
               "weft simt: unknown kernel '{}' (vecadd, saxpy, relu, requant, maxpool, "
               "transpose, im2col, softmax)\n",
               a.kernel);
    return 2;
  }
  if (a.n < 1 || a.n > (1u << 20)) {
    fmt::print(stderr, "weft simt: --n must be in 1..1048576\n");
    return 2;
  }
  std::string dir = a.elf_dir;
  if (dir.empty() && std::getenv("WEFT_KERNEL_DIR")) dir = std::getenv("WEFT_KERNEL_DIR");
  if (dir.empty()) dir = WEFT_KERNEL_ELF_DIR;
  if (dir.empty()) {
    fmt::print(stderr,
               "weft simt: no kernel directory (--elf-dir or WEFT_KERNEL_DIR); the "
               "kernels are built by riscv64-unknown-elf-gcc (target weft_kernel_elfs)\n");
    return 2;
  }
  const std::vector<uint8_t> elf = read_binary(dir + "/" + a.kernel + ".elf");

  weft::Device dev = weft::Device::open(uri);
  const auto& caps = dev.caps();
  fmt::print("device   {}\n", dev.description());
  weft::Simt simt(dev);
  const weft::SimtShape shape{a.warps ? a.warps : caps.simt_warps,
                              a.threads ? a.threads : caps.simt_threads};
  fmt::print("kernel   {} ({}), {} elements, {} warps x {} threads, seed {}\n", a.kernel, job.shape,
             job.elements, shape.warps, shape.threads_per_warp, a.seed);
  simt.load(weft::SimtImage::from_elf(elf));
  std::vector<uint32_t> in, out;
  for (const auto& b : job.inputs) {
    in.push_back(simt.alloc(b.size()));
    simt.write(in.back(), b.data(), b.size());
  }
  for (const auto& b : job.outputs) {
    out.push_back(simt.alloc(b.size()));
    simt.write(out.back(), b.data(), b.size());
  }
  const std::vector<uint8_t> args = job.args(in, out);
  const uint32_t ap = simt.alloc(args.size());
  simt.write(ap, args.data(), args.size());
  const auto t0 = std::chrono::steady_clock::now();
  const uint64_t c0 = dev.cycle();
  const weft::SimtReport r = simt.launch(shape, ap);
  const double secs = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  const uint64_t dev_cycles = dev.cycle() - c0;
  int rc = 0;
  if (a.check) {
    gs::Machine m(
        gs::Config{.dmem_bytes = caps.simt_dmem_bytes, .imem_bytes = caps.simt_imem_bytes});
    const uint32_t entry = gs::load_elf(m, elf);
    for (size_t i = 0; i < in.size(); ++i) m.write_dmem(in[i], job.inputs[i]);
    for (size_t i = 0; i < out.size(); ++i) m.write_dmem(out[i], job.outputs[i]);
    m.write_dmem(ap, args);
    const gs::Result g = m.run({.entry_pc = entry,
                                .num_warps = shape.warps,
                                .threads_per_warp = shape.threads_per_warp,
                                .arg_ptr = ap,
                                .stack_top = simt.stack_top(),
                                .stack_size_per_thread = simt.stack_bytes()});
    size_t bad = 0, total = 0;
    for (size_t i = 0; i < out.size(); ++i) {
      const std::vector<uint8_t> got = simt.read<uint8_t>(out[i], job.outputs[i].size());
      for (size_t k = 0; k < got.size(); ++k, ++total) {
        if (got[k] != m.dmem()[out[i] + k] && bad++ < 5) {
          fmt::print("mismatch output {} byte {}: device {}, golden {}\n", i, k, got[k],
                     m.dmem()[out[i] + k]);
        }
      }
    }
    const bool counts = g.ok() && r.issued == static_cast<uint32_t>(g.total_issues()) &&
                        r.active == static_cast<uint32_t>(g.total_active_threads());
    fmt::print(
        "check    {} ({} of {} output bytes differ from the golden model; warp "
        "instructions {} vs golden {}, thread instructions {} vs {})\n",
        bad || !counts ? "FAILED" : "passed, bit-exact", bad, total, r.issued, g.total_issues(),
        r.active, g.total_active_threads());
    rc = bad || !counts ? 1 : 0;
  }
  fmt::print("cycles   {} SIMT cycles, {:.3f} cycles/element, IPC {:.3f} warp instructions/cycle\n",
             r.cycles, double(r.cycles) / double(job.elements), r.ipc());
  fmt::print("simt     {}\n", r.to_string());
  fmt::print("time     {:.2f} s wall, {} device cycles (transfers and launch)\n", secs, dev_cycles);
  return rc;
}

}  // namespace

int main(int argc, char** argv) {
  CLI::App app{"weft: the Weft NPU command line (libweft)"};
  app.require_subcommand(1);
  std::string uri = "ref://";
  auto* info = app.add_subcommand("info", "Show the device's capabilities and registers");
  info->add_option("--device,-d", uri, "Device URI (ref://, sim://?array=16x16&bp=0.3, ...)");
  GemmArgs g;
  auto* gemm = app.add_subcommand("gemm", "Run a random INT8 GEMM C[M][N] = A[M][K] x W[K][N]");
  gemm->add_option("M", g.m, "rows of A and C")->required();
  gemm->add_option("N", g.n, "columns of W and C")->required();
  gemm->add_option("K", g.k, "columns of A, rows of W")->required();
  gemm->add_option("--device,-d", uri, "Device URI (ref://, sim://?array=16x16, ...)");
  gemm->add_option("--seed", g.seed, "Seed of the random operands");
  gemm->add_flag("--check", g.check, "Compare with the golden model (exit 1 on a mismatch)");
  gemm->add_option("--mode", g.mode, "Requantization: tflite-double, tflite-single, onnx, int32");
  gemm->add_flag("--int32", g.int32, "INT32 output (acc + bias), same as --mode int32");
  gemm->add_flag("--unsigned-a", g.a_unsigned, "A is uint8 with zero point 128");
  gemm->add_flag("--unsigned-w", g.w_unsigned, "W is uint8 with zero point 128");
  gemm->add_flag("--no-fine-start", g.no_fine_start, "Do not split the first output tile");
  gemm->add_flag("--no-short-tail", g.no_short_tail, "Do not split the last output tile");
  gemm->add_flag("--quiet,-q", g.quiet, "No progress indication");
  SimtArgs sa;
  auto* simt = app.add_subcommand("simt", "Run a kernel of the SIMT library on random data");
  simt->add_option("KERNEL", sa.kernel,
                   "vecadd, saxpy, relu, requant, maxpool, transpose, im2col or softmax")
      ->required();
  simt->add_option("--n", sa.n, "About how many output elements (default 4096)");
  simt->add_option("--device,-d", uri, "Device URI (ref://, sim://?array=16x16, ...)");
  simt->add_option("--warps", sa.warps, "Warps of the launch (default: CAP3.warps)");
  simt->add_option("--threads", sa.threads, "Threads per warp (default: CAP3.threads)");
  simt->add_option("--seed", sa.seed, "Seed of the random operands");
  simt->add_option("--elf-dir", sa.elf_dir,
                   "Directory of <kernel>.elf (default: $WEFT_KERNEL_DIR, else the build's)");
  simt->add_flag("--check", sa.check,
                 "Compare with the golden SIMT model (outputs and instruction counts; exit 1 on "
                 "a mismatch)");
  CLI11_PARSE(app, argc, argv);
  try {
    if (info->parsed()) return cmd_info(uri);
    if (gemm->parsed()) return cmd_gemm(uri, g);
    if (simt->parsed()) return cmd_simt(uri, sa);
  } catch (const weft::Error& e) {
    fmt::print(stderr, "weft: {}\n", e.what());
    const bool arg = e.code() == weft::Errc::kBadArgument || e.code() == weft::Errc::kBadUri;
    return arg ? 2 : 3;
  } catch (const std::exception& e) {
    fmt::print(stderr, "weft: {}\n", e.what());
    return 3;
  }
  return 0;
}
