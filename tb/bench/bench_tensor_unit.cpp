// bench_tensor_unit: throughput of the Verilated weft_tensor_unit (make bench).
// Streams output tiles of M rows, each accumulating K/Rows weight tiles, drained with
// requantization while the next output tile computes, and prints
//   - MACs per cycle while streaming (rows entering the array x Rows x Cols / cycles between the
//     first and the last row) and as a fraction of Rows x Cols;
//   - end to end, from the first command to the last output row (pipeline fill and drain incl.);
//   - simulated cycles per second of wall-clock time (1 thread, no tracing).
// Results are checked against the golden model, so a fast wrong answer cannot pass as a figure.
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <random>
#include <vector>

#include WEFT_MODEL_HEADER
#include "tu_driver.hpp"
#include "weft/golden/quant.hpp"

using Model = WEFT_MODEL;
namespace golden = weft::golden;

int main(int argc, char** argv) {
  const int m = argc > 1 ? std::atoi(argv[1]) : 128;      // rows per output tile
  const int k = argc > 2 ? std::atoi(argv[2]) : 256;      // K per output tile
  const int tiles = argc > 3 ? std::atoi(argv[3]) : 16;   // output tiles
  constexpr int R = WEFT_ROWS, C = WEFT_COLS, D = WEFT_ACC_DEPTH;

  weft::tb::Harness<Model> h;
  auto& d = h.dut();
  d.cmd_valid_i = d.w_valid_i = d.a_valid_i = d.pc_we_i = 0;
  d.o_ready_i = 1;
  h.reset();
  weft::tb::TuDriver<Model> drv(h, R, C, D, 1);

  std::mt19937_64 rng(12345);
  std::uniform_int_distribution<int> s8(-128, 127);
  std::vector<golden::ChannelParams> ch(C);
  for (auto& c : ch) {
    c.bias = static_cast<int32_t>(rng() % 20000) - 10000;
    golden::quantize_multiplier(0.0007, &c.multiplier, &c.shift);
  }
  drv.set_channels(ch, false);
  const golden::OperandType t{true, 0};
  golden::OutputParams out;
  out.mode = golden::RequantMode::kTfliteDouble;
  out.zero_point = -3;
  out.act_min = -128;
  out.act_max = 127;

  std::vector<std::vector<int32_t>> as, ws;
  for (int i = 0; i < tiles; ++i) {
    std::vector<int32_t> a(static_cast<size_t>(m) * k), w(static_cast<size_t>(k) * C);
    for (auto& v : a) v = s8(rng);
    for (auto& v : w) v = s8(rng);
    drv.queue_gemm(a, w, m, k, C, t, t, static_cast<uint32_t>((i % 2) * (D / 2)), out, true);
    as.push_back(std::move(a));
    ws.push_back(std::move(w));
  }

  const uint64_t c0 = h.cycle();
  const auto t0 = std::chrono::steady_clock::now();
  drv.run(100'000'000);
  const auto t1 = std::chrono::steady_clock::now();
  const uint64_t cycles = h.cycle() - c0;
  const double secs = std::chrono::duration<double>(t1 - t0).count();

  // Check every result against the golden model.
  size_t row = 0, errors = 0;
  for (int i = 0; i < tiles; ++i) {
    const auto want = golden::postprocess(golden::gemm(as[i], ws[i], m, k, C, t, t), m, C, ch, out);
    for (int r = 0; r < m; ++r, ++row) {
      const auto got = weft::tb::TuDriver<Model>::decode(drv.outputs()[row], C, true);
      for (int c = 0; c < C; ++c) errors += got[c] != (want[r * C + c] & 0xff);
    }
  }

  const double macs = static_cast<double>(drv.array_rows()) * R * C;
  const double peak = R * C;
  std::printf("tensor unit %dx%d, %d output tiles of M=%d K=%d N=%d (%d weight tiles)\n", R, C,
              tiles, m, k, C, tiles * ((k + R - 1) / R));
  const double streaming = macs / drv.array_span() / peak;
  std::printf(
      "  streaming  : %.1f MACs/cycle = %.4f x Rows*Cols (%llu rows in %llu cycles; "
      "target >= 0.98 once the pipe is full: %s)\n",
      macs / drv.array_span(), streaming, static_cast<unsigned long long>(drv.array_rows()),
      static_cast<unsigned long long>(drv.array_span()), streaming >= 0.98 ? "met" : "MISSES");
  std::printf(
      "  end to end : %.1f MACs/cycle = %.4f x Rows*Cols (%llu cycles incl. fill/drain; "
      "no target: the DMA-inclusive targets are in section 4)\n",
      macs / cycles, macs / cycles / peak, static_cast<unsigned long long>(cycles));
  std::printf(
      "  simulation : %.0f cycles/s (Verilator, 1 thread, no trace; %.2f s; target >= 50 k: "
      "%s)\n",
      cycles / secs, secs, cycles / secs >= 50e3 ? "met" : "MISSES");
  std::printf("  results    : %zu values checked against the golden model, %zu mismatches\n",
              static_cast<size_t>(tiles) * m * C, errors);
  return errors == 0 ? 0 : 1;
}
