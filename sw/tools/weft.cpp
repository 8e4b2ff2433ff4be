// weft: command line tool of the Weft NPU (libweft).
//
//   weft info [--device URI]                          capabilities and every register
//   weft gemm M N K [--seed S] [--check] [--device URI] [--mode MODE] [--int32] ...
//                                                     run a GEMM, check it, print the perf report
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
#include <random>
#include <string>
#include <vector>

#include "weft/golden/quant.hpp"
#include "weft/regs.hpp"

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
  fmt::print("time     {:.2f} s wall, {} device cycles simulated\n", secs, dev.cycle());
  fmt::print("{}\n", st.perf.to_string());
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
  CLI11_PARSE(app, argc, argv);
  try {
    if (info->parsed()) return cmd_info(uri);
    if (gemm->parsed()) return cmd_gemm(uri, g);
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
