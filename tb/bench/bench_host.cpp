// bench_host: end-to-end figures of the whole device through the driver (make bench).
//   1. GEMM utilisation, DMA included: M*N*K / (rows*cols * device cycles of the operation), for
//      I=128 K=256 J=256 (Gemmini's tiled_matmul_ws_perf shape) and 512x512x512, INT8 out with
//      per-channel requantization; the result is checked against the golden model.
//   2. DMA efficiency of a 1 MiB host -> scratchpad -> host copy with 32-cycle memory latency:
//      bytes / (bus bytes * cycles), for the read and the write side of the whole copy.
//   3. simulation speed of the whole default device (Verilator, 1 thread, no tracing).
//   5. FP8 GEMMs (E4M3 x E4M3 -> E4M3 and E5M2 x E4M3 -> FP32) and BF16 GEMMs (BF16 x BF16 ->
//      BF16 / FP32) on the shapes of 1: MAC/cycle against INT8's (target: the same rate; BF16
//      rows are two scratchpad lines, so BF16 is built for half of it) and the simulation speed
//      against INT8's; checked against the golden model (gemm_fp, fp_postprocess, fp_encode).
//   4. a convolution layer with >= 16 input and output channels on the whole device: the
//      device-resident implicit GEMM (weights packed once, activations in device memory, no host
//      im2col), ONNX requantization; utilisation as in 1, host bytes against the im2col matrix;
//      checked against the golden model.
// Each figure prints its target and "met" or "MISSES" (docs/performance.md).
// Usage: bench_host [device URI, default sim://?latency=32] [--json FILE]
//   --json FILE also writes the figures as JSON (the roofline plot's measured points,
//   scripts/roofline.py): the device's rows, cols and bus bytes, then per figure its kind
//   ("gemm", "copy", "conv"), shape, cycles, MACs, DMA bytes (read + write), wait counters.
#include <chrono>
#include <cstdio>
#include <fstream>
#include <random>
#include <stdexcept>
#include <string>
#include <vector>

#include "weft/golden/fp.hpp"
#include "weft/golden/quant.hpp"
#include "weft/ops.hpp"
#include "weft/weft.hpp"

namespace {

namespace golden = weft::golden;

constexpr double kCopyTarget = 0.97;      // 1 MiB copy, 32-cycle latency: of the bus peak
constexpr double kSimTargetKcps = 150.0;  // whole default device, k cycles per wall second

// One measured figure for --json.
struct Figure {
  std::string kind, name;
  int m = 0, n = 0, k = 0;  // GEMM shape; conv: output pixels, c_out, kh*kw*c_in
  uint64_t bytes = 0;       // copy: bytes copied
  weft::PerfCounters c;
  uint64_t macs = 0;
  double target = 0;
};
std::vector<Figure> g_figures;

void record(const std::string& kind, const std::string& name, int m, int n, int k, uint64_t bytes,
            const weft::PerfCounters& c, uint64_t macs, double target) {
  Figure f;
  f.kind = kind, f.name = name, f.m = m, f.n = n, f.k = k, f.bytes = bytes, f.c = c;
  f.macs = macs, f.target = target;
  g_figures.push_back(f);
}

void write_json(const std::string& file, const weft::Device& dev) {
  std::ofstream o(file);
  if (!o) throw std::runtime_error("cannot write " + file);
  const auto& caps = dev.caps();
  std::string desc;
  for (char ch : dev.description()) {
    if (ch == '"' || ch == '\\') desc += '\\';
    desc += ch;
  }
  o << "{\"tool\": \"bench_host\", \"device\": \"" << desc << "\", \"rows\": " << caps.rows
    << ", \"cols\": " << caps.cols << ", \"bus_bytes\": " << caps.bus_bytes << ", \"figures\": [";
  for (size_t i = 0; i < g_figures.size(); ++i) {
    const Figure& f = g_figures[i];
    const uint64_t dma = f.c.dma_rd_bytes + f.c.dma_wr_bytes;
    o << (i ? ",\n  " : "\n  ") << "{\"kind\": \"" << f.kind << "\", \"name\": \"" << f.name
      << "\", \"m\": " << f.m << ", \"n\": " << f.n << ", \"k\": " << f.k
      << ", \"bytes\": " << f.bytes << ", \"cycles\": " << f.c.cycles << ", \"macs\": " << f.macs
      << ", \"dma_bytes\": " << dma << ", \"dma_rd_bytes\": " << f.c.dma_rd_bytes
      << ", \"dma_wr_bytes\": " << f.c.dma_wr_bytes << ", \"dma_stall\": "
      << f.c.dma_rd_stall + f.c.dma_wr_stall << ", \"wait_weights\": " << f.c.tu_wait_w
      << ", \"wait_activations\": " << f.c.tu_wait_a << ", \"wait_drain\": " << f.c.tu_wait_drain
      << ", \"target\": " << f.target << "}";
  }
  o << "\n]}\n";
}

// INT8 GEMM of figure 1; its cycles and wall seconds go to *cycles / *secs_out (FP8's base).
bool gemm_figure(weft::Device& dev, int m, int n, int k, double target, uint64_t* cycles,
                 double* secs_out) {
  std::mt19937_64 rng(1);
  std::uniform_int_distribution<int> byte(0, 255);
  std::vector<uint8_t> a(size_t(m) * k), w(size_t(k) * n), out(size_t(m) * n);
  for (auto& v : a) v = static_cast<uint8_t>(byte(rng));
  for (auto& v : w) v = static_cast<uint8_t>(byte(rng));
  weft::GemmOptions opt;
  opt.a = {true, 3};
  opt.w = {true, -2};
  opt.out.mode = weft::StoreMode::kTfliteDouble;
  std::uniform_int_distribution<int> bias(-5000, 5000);
  std::vector<golden::ChannelParams> ch(n);
  for (int j = 0; j < n; ++j) {
    int32_t mult = 0;
    int shift = 0;
    golden::quantize_multiplier(0.0007 + 0.0001 * (j % 7), &mult, &shift);
    ch[j].bias = bias(rng);
    ch[j].multiplier = mult;
    ch[j].shift = shift;
    opt.out.bias.push_back(ch[j].bias);
    opt.out.multiplier.push_back(mult);
    opt.out.shift.push_back(shift);
  }
  opt.out.zero_point = -1;
  opt.out.act_min = -128;
  opt.out.act_max = 127;
  const auto t0 = std::chrono::steady_clock::now();
  const weft::OpStats st = weft::gemm(dev, m, n, k, a, w, out, opt);
  const double secs = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();

  // Independent check: golden GEMM + post-processing.
  std::vector<int32_t> av(a.begin(), a.end()), wv(w.begin(), w.end());
  for (auto& v : av) v = static_cast<int8_t>(v);
  for (auto& v : wv) v = static_cast<int8_t>(v);
  const auto acc = golden::gemm(av, wv, m, k, n, {true, 3}, {true, -2});
  golden::OutputParams op;
  op.mode = golden::RequantMode::kTfliteDouble;
  op.zero_point = -1;
  op.act_min = -128;
  op.act_max = 127;
  size_t bad = 0;
  for (int i = 0; i < m; ++i)
    for (int j = 0; j < n; ++j) {
      const int32_t g = golden::postprocess(acc[size_t(i) * n + j], ch[j], op);
      if (static_cast<int8_t>(out[size_t(i) * n + j]) != g) ++bad;
    }
  const auto& p = st.perf.c;
  const double util = double(m) * n * k /
                      (double(dev.caps().rows) * dev.caps().cols * double(p.cycles));
  const double kcps = p.cycles / secs / 1e3;
  std::printf(
      "   M=%d N=%d K=%d: %llu cycles, %.4f of %ux%u MAC/cycle (target >= %.3f: %s); "
      "result %s; %llu descriptors\n",
      m, n, k, static_cast<unsigned long long>(p.cycles), util, dev.caps().rows, dev.caps().cols,
      target, util >= target ? "met" : "MISSES", bad == 0 ? "bit-exact vs golden" : "MISMATCH",
      static_cast<unsigned long long>(st.descriptors));
  std::printf(
      "      simulation: %.1f s wall, %.0f k cycles/s (Verilator, 1 thread, no tracing; "
      "target >= %.0f k: %s)\n",
      secs, kcps, kSimTargetKcps, kcps >= kSimTargetKcps ? "met" : "MISSES");
  std::printf("      %s\n", st.schedule.c_str());
  record("gemm", "GEMM " + std::to_string(m) + "x" + std::to_string(n) + "x" + std::to_string(k), m, n,
         k, 0, p, uint64_t(m) * n * k, target);
  *cycles = p.cycles;
  *secs_out = secs;
  return bad == 0;
}

const char* format_name(weft::ElemFormat f) {
  switch (f) {
    case weft::ElemFormat::kE4m3:
      return "E4M3";
    case weft::ElemFormat::kE5m2:
      return "E5M2";
    case weft::ElemFormat::kBf16:
      return "BF16";
    case weft::ElemFormat::kFp32:
      return "FP32";
    default:
      return "INT";
  }
}

// FP GEMM of the same shape as an INT8 one (int8_cycles, int8_secs): the rate against INT8's
// and the simulation speed against INT8's, the result against the golden model. BF16 pairs with
// BF16 (wf is E4M3 otherwise).
bool fp_gemm_figure(weft::Device& dev, int m, int n, int k, weft::ElemFormat af,
                    weft::ElemFormat of, uint64_t int8_cycles, double int8_secs) {
  if (!dev.caps().tensor_fp) {
    std::printf("   FP GEMM: skipped (the device has no FP modes, CAP4.fp = 0)\n");
    return true;
  }
  const bool bf16 = af == weft::ElemFormat::kBf16;
  const weft::ElemFormat wf = bf16 ? af : weft::ElemFormat::kE4m3;
  std::mt19937_64 rng(2);
  // Finite codes about N(0, 1) in magnitude, and their bytes (BF16 two, little-endian).
  auto codes = [&](size_t count, weft::ElemFormat f, std::vector<uint8_t>* bytes) {
    std::normal_distribution<float> d(0.0f, 1.0f);
    std::vector<uint32_t> c(count);
    for (auto& v : c) {
      v = golden::fp_encode(d(rng), static_cast<golden::FpFormat>(f));
      bytes->push_back(uint8_t(v));
      if (f == weft::ElemFormat::kBf16) bytes->push_back(uint8_t(v >> 8));
    }
    return c;
  };
  std::vector<uint8_t> a, w;
  const std::vector<uint32_t> ab = codes(size_t(m) * k, af, &a);
  const std::vector<uint32_t> wb = codes(size_t(k) * n, wf, &w);
  weft::GemmOptions opt;
  opt.a.format = af;
  opt.w.format = wf;
  opt.out.format = of;
  opt.out.scale = {1.0f / 16.0f};
  opt.out.relu = true;
  const auto t0 = std::chrono::steady_clock::now();
  weft::OpStats st;
  std::vector<uint32_t> got(size_t(m) * n);
  if (of == weft::ElemFormat::kFp32) {
    std::vector<float> out(got.size());
    st = weft::gemm(dev, m, n, k, a, w, out, opt);
    for (size_t i = 0; i < out.size(); ++i) got[i] = golden::fp32_bits(out[i]);
  } else if (of == weft::ElemFormat::kBf16) {
    std::vector<uint16_t> out(got.size());
    st = weft::gemm(dev, m, n, k, a, w, out, opt);
    got.assign(out.begin(), out.end());
  } else {
    std::vector<uint8_t> out(got.size());
    st = weft::gemm(dev, m, n, k, a, w, out, opt);
    got.assign(out.begin(), out.end());
  }
  const double secs = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  const auto acc = golden::gemm_fp(ab, wb, m, k, n, static_cast<golden::FpFormat>(af),
                                   static_cast<golden::FpFormat>(wf), int(dev.caps().rows));
  size_t bad = 0;
  for (size_t i = 0; i < got.size(); ++i) {
    const float y = golden::fp_postprocess(acc[i], opt.out.scale[0], 0.0f, true);
    const uint32_t want = of == weft::ElemFormat::kFp32
                              ? golden::fp32_bits(y)
                              : golden::fp_encode(y, static_cast<golden::FpFormat>(of));
    if (got[i] != want) ++bad;
  }
  const auto& p = st.perf.c;
  const double rate = double(int8_cycles) / double(p.cycles);  // MAC/cycle against INT8's
  const std::string name = std::string(format_name(af)) + " x " + format_name(wf);
  std::printf(
      "   %s %s -> %s M=%d N=%d K=%d: %llu cycles, %.4f of INT8's MAC/cycle (target >= 0.99, "
      "the same rate: %s%s); result %s\n",
      bf16 ? "BF16" : "FP8", name.c_str(), format_name(of), m, n, k,
      static_cast<unsigned long long>(p.cycles), rate, rate >= 0.99 ? "met" : "MISSES",
      bf16 ? "; a BF16 row is two scratchpad lines, one line per cycle per operand port: built "
             "for 0.5"
           : "",
      bad == 0 ? "bit-exact vs golden" : "MISMATCH");
  std::printf(
      "      simulation: %.1f s wall, %.2f x INT8's wall time on the same shape (FP datapath "
      "evaluated only for FP rows)\n",
      secs, secs / int8_secs);
  record("gemm",
         std::string(bf16 ? "BF16" : "FP8") + " GEMM " + name + " " + std::to_string(m) + "x" +
             std::to_string(n) + "x" + std::to_string(k),
         m, n, k, 0, p, uint64_t(m) * n * k, 0.99);
  return bad == 0;
}

bool copy_figure(weft::Device& dev) {
  const size_t total = size_t(1) << 20;
  const uint32_t bb = dev.caps().bus_bytes;
  const uint32_t chunk = 32 * 1024;  // bytes per LOAD / STORE_SPAD pair
  const uint32_t bank_lines = dev.caps().spad_lines / dev.caps().spad_banks;
  weft::Buffer src = dev.alloc(total, 4096), dst = dev.alloc(total, 4096);
  std::vector<uint8_t> data(total);
  std::mt19937_64 rng(7);
  for (auto& v : data) v = static_cast<uint8_t>(rng());
  src.write(0, data.data(), total);
  dst.fill(0);
  auto& q = dev.queue();
  dev.clear_perf();
  // Two scratchpad buffers in different banks: load chunk i+1 while chunk i is stored.
  std::vector<uint64_t> loads, stores;
  const size_t n = total / chunk;
  for (size_t i = 0; i < n; ++i) {
    const uint32_t spad = static_cast<uint32_t>((i % 2) * bank_lines);
    weft::Transfer2d t;
    t.row_bytes = chunk;
    t.rows = 1;
    t.spad_addr = spad;
    t.host_addr = src.device_address() + i * chunk;
    std::vector<uint64_t> after;
    if (i >= 2) after.push_back(stores[i - 2]);  // buffer free again
    loads.push_back(after.empty() ? q.submit(weft::Descriptor::load(t))
                                  : q.submit(weft::Descriptor::load(t), {after[0]}));
    t.host_addr = dst.device_address() + i * chunk;
    stores.push_back(q.submit(weft::Descriptor::store_spad(t), {loads[i]}));
  }
  q.finish();
  const auto perf = dev.perf();
  std::vector<uint8_t> back(total);
  dst.read(0, back.data(), total);
  const bool ok = back == data;
  const double cyc = double(perf.c.cycles);
  const double beats = double(total) / bb;
  std::printf(
      "   1 MiB copy host -> scratchpad -> host, %u-byte bus: %.0f cycles; read %.4f, "
      "write %.4f of bus peak (beats / cycles; target >= %.2f: %s); data %s\n",
      bb, cyc, beats / cyc, beats / cyc, kCopyTarget, beats / cyc >= kCopyTarget ? "met" : "MISSES",
      ok ? "identical" : "DIFFERENT");
  record("copy", "copy 1 MiB", 0, 0, 0, total, perf.c, 0, kCopyTarget);
  return ok;
}


constexpr double kConvTarget = 0.85;  // conv layers with >= 16 in / out channels, whole device

bool conv_figure(weft::Device& dev, int h, int w, int c_in, int c_out, int k, int stride) {
  weft::Conv2dShape s;
  s.n = 1, s.h = h, s.w = w, s.c_in = c_in, s.kh = k, s.kw = k, s.c_out = c_out;
  s.stride_h = s.stride_w = stride;
  s.pad_top = s.pad_left = s.pad_bottom = s.pad_right = k / 2;
  std::mt19937_64 rng(3);
  std::vector<uint8_t> in(size_t(h) * w * c_in), filter(size_t(c_out) * k * k * c_in);
  for (auto& v : in) v = static_cast<uint8_t>(rng());
  for (auto& v : filter) v = static_cast<uint8_t>(rng());
  const weft::Operand a{false, 7}, wt{true, 0};
  weft::OutputStage out;
  out.mode = weft::StoreMode::kOnnx;
  out.type = weft::OutputType::kUint8;
  out.zero_point = 5;
  std::vector<golden::ChannelParams> ch(c_out);
  for (int j = 0; j < c_out; ++j) {
    ch[j].bias = int32_t(rng() % 2001) - 1000;
    ch[j].scale = weft::onnx_output_scale(0.02f, 0.003f + 0.0001f * float(j % 5), 0.05f);
    out.bias.push_back(ch[j].bias);
    out.scale.push_back(ch[j].scale);
  }
  const weft::PackedConv packed = weft::pack_conv(dev, s, filter, wt, out);
  weft::DeviceActivation x = weft::alloc_activation(dev, 1, h, w, c_in, a, {k / 2, k / 2, k / 2, k / 2});
  const uint64_t written = weft::write_activation(x, in);
  weft::DeviceActivation y = weft::alloc_conv_output(dev, packed, x);
  const weft::OpStats st = weft::conv2d(dev, packed, x, y);
  uint64_t read = 0;
  const std::vector<uint8_t> got = weft::read_activation(y, &read);

  golden::Conv2dShape gs;
  gs.n = 1, gs.h = h, gs.w = w, gs.c_in = c_in, gs.kh = k, gs.kw = k, gs.c_out = c_out;
  gs.stride_h = gs.stride_w = stride;
  gs.pad_top = gs.pad_left = gs.pad_bottom = gs.pad_right = k / 2;
  std::vector<int32_t> iv(in.begin(), in.end()), fv(filter.size());
  for (size_t i = 0; i < filter.size(); ++i) fv[i] = static_cast<int8_t>(filter[i]);
  const auto acc = golden::conv2d(iv, fv, gs, {false, 7}, {true, 0});
  golden::OutputParams op;
  op.mode = golden::RequantMode::kOnnx;
  op.zero_point = 5;
  op.act_min = 0;
  op.act_max = 255;
  size_t bad = 0;
  for (size_t i = 0; i < acc.size(); ++i) {
    if (got[i] != golden::postprocess(acc[i], ch[i % size_t(c_out)], op)) ++bad;
  }
  const double macs = double(s.out_h()) * s.out_w() * c_out * k * k * c_in;
  const double util = macs / (double(dev.caps().rows) * dev.caps().cols * double(st.perf.c.cycles));
  std::printf(
      "   conv %dx%dx%d -> %dx%d s%d -> %d (implicit GEMM, device-resident): %llu cycles, %.4f of "
      "%ux%u MAC/cycle (target >= %.2f: %s); host bytes %llu (input %llu + output %llu) vs im2col "
      "%llu; result %s\n",
      h, w, c_in, k, k, stride, c_out, static_cast<unsigned long long>(st.perf.c.cycles), util,
      dev.caps().rows, dev.caps().cols, kConvTarget, util >= kConvTarget ? "met" : "MISSES",
      static_cast<unsigned long long>(written + read), static_cast<unsigned long long>(written),
      static_cast<unsigned long long>(read),
      static_cast<unsigned long long>(weft::im2col_bytes(s)), bad == 0 ? "bit-exact vs golden" : "MISMATCH");
  record("conv",
         "conv " + std::to_string(h) + "x" + std::to_string(w) + "x" + std::to_string(c_in) + " k" +
             std::to_string(k) + " s" + std::to_string(stride) + " -> " + std::to_string(c_out),
         s.out_h() * s.out_w(), c_out, k * k * c_in, 0, st.perf.c, uint64_t(macs), kConvTarget);
  return bad == 0;
}

}  // namespace

int main(int argc, char** argv) {
  std::string uri = "sim://?latency=32", json;
  for (int i = 1; i < argc; ++i) {
    const std::string arg = argv[i];
    if (arg == "--json" && i + 1 < argc) {
      json = argv[++i];
    } else if (arg.rfind("--", 0) == 0) {
      std::fprintf(stderr, "usage: bench_host [device URI] [--json FILE]\n");
      return 2;
    } else {
      uri = arg;
    }
  }
  try {
    weft::Device dev = weft::Device::open(uri);
    std::printf("   device: %s\n", dev.description().c_str());
    uint64_t cycles_small = 0, cycles_large = 0;
    double secs_small = 0, secs_large = 0;
    bool ok = gemm_figure(dev, 128, 256, 256, 0.985, &cycles_small, &secs_small);
    ok = gemm_figure(dev, 512, 512, 512, 0.998, &cycles_large, &secs_large) && ok;
    // FP8 and BF16 on the shapes of figure 1, each against the INT8 run of its shape.
    using weft::ElemFormat;
    struct FpRun {
      bool large;
      ElemFormat a, out;
    };
    constexpr FpRun kFpRuns[] = {{false, ElemFormat::kE4m3, ElemFormat::kE4m3},
                                 {false, ElemFormat::kE5m2, ElemFormat::kFp32},
                                 {true, ElemFormat::kE4m3, ElemFormat::kE4m3},
                                 {false, ElemFormat::kBf16, ElemFormat::kBf16},
                                 {false, ElemFormat::kBf16, ElemFormat::kFp32},
                                 {true, ElemFormat::kBf16, ElemFormat::kBf16}};
    for (const FpRun& r : kFpRuns) {
      const int mm = r.large ? 512 : 128, nk = r.large ? 512 : 256;
      ok = fp_gemm_figure(dev, mm, nk, nk, r.a, r.out, r.large ? cycles_large : cycles_small,
                          r.large ? secs_large : secs_small) &&
           ok;
    }
    ok = copy_figure(dev) && ok;
    ok = conv_figure(dev, 32, 32, 64, 64, 3, 1) && ok;
    ok = conv_figure(dev, 16, 16, 32, 64, 3, 2) && ok;
    if (!json.empty()) write_json(json, dev);
    return ok ? 0 : 1;
  } catch (const std::exception& e) {
    std::fprintf(stderr, "bench_host: %s\n", e.what());
    return 1;
  }
}
