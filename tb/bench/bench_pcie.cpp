// bench_pcie: host <-> scratchpad transfers through pcie-sim:// (weft_pcie_top behind the
// root-complex model, default link Gen3 x4 at 250 MHz = 15.75 B/cycle each way). Prints payload
// bytes per cycle per direction, as a fraction of the modelled link peak and of the TLP-overhead
// bound (64 B completions with 12 B header + 12 B framing; 256 B writes with a 16 B 4-DW header
// + 12 B framing, the arena being above 4 GiB), and checks the data bit-exact.
//   bench_pcie [uri]     (default "pcie-sim://?array=16x16")
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <random>
#include <string>
#include <vector>

#include "weft/weft.hpp"

namespace {

double peak_of(weft::Device& dev) {
  const auto m = dev.link_stat("link_peak_millibytes_per_cycle");
  return m ? double(*m) / 1000.0 : 15.75;
}

void line(const char* what, double bytes, double cycles, double peak, double bound) {
  const double bpc = bytes / cycles;
  std::printf(
      "   %-34s %9.0f cycles  %6.2f B/cycle  %.3f of link peak  %.3f of TLP bound"
      " (no target)\n",
      what, cycles, bpc, bpc / peak, bpc / (peak * bound));
}

// One LOAD of `bytes` then one STORE_SPAD of them back, each timed alone.
bool single(weft::Device& dev, size_t bytes, double peak, double rd_bound, double wr_bound) {
  weft::Buffer src = dev.alloc(bytes, 4096), dst = dev.alloc(bytes, 4096);
  std::vector<uint8_t> data(bytes);
  std::mt19937_64 rng(bytes);
  for (auto& v : data) v = static_cast<uint8_t>(rng());
  src.write(0, data.data(), bytes);
  dst.fill(0);
  auto& q = dev.queue();
  weft::Transfer2d t;
  t.row_bytes = static_cast<uint32_t>(bytes);
  t.rows = 1;
  t.spad_addr = 0;
  t.host_addr = src.device_address();
  uint64_t c0 = dev.cycle();
  q.wait(q.submit(weft::Descriptor::load(t)));
  const double load_cycles = double(dev.cycle() - c0);
  t.host_addr = dst.device_address();
  c0 = dev.cycle();
  q.wait(q.submit(weft::Descriptor::store_spad(t)));
  // Posted writes: STORE_SPAD retires when its last MWr was handed to the link; the data lands
  // one link latency later (the run below, not timed).
  const double store_cycles = double(dev.cycle() - c0);
  dev.run(400);
  std::vector<uint8_t> back(bytes);
  dst.read(0, back.data(), bytes);
  const bool ok = back == data;
  const std::string n = bytes >= 1024 * 1024 ? std::to_string(bytes >> 20) + " MiB"
                                              : std::to_string(bytes >> 10) + " KiB";
  line(("LOAD " + n + " (host -> device)").c_str(), double(bytes), load_cycles, peak, rd_bound);
  line(("STORE_SPAD " + n + " (device -> host)").c_str(), double(bytes), store_cycles, peak,
       wr_bound);
  std::printf("   %s round trip: data %s\n", n.c_str(), ok ? "identical" : "DIFFERENT");
  return ok;
}

// 1 MiB: all LOADs (32 KiB each, alternating scratchpad banks) back to back, then a pipelined
// copy host -> scratchpad -> host (both directions busy at once, full duplex), verified.
bool mib(weft::Device& dev, double peak, double rd_bound, double wr_bound) {
  const size_t total = size_t(1) << 20;
  const uint32_t chunk = 32 * 1024;
  const uint32_t bank_lines = dev.caps().spad_lines / dev.caps().spad_banks;
  weft::Buffer src = dev.alloc(total, 4096), dst = dev.alloc(total, 4096);
  std::vector<uint8_t> data(total);
  std::mt19937_64 rng(7);
  for (auto& v : data) v = static_cast<uint8_t>(rng());
  src.write(0, data.data(), total);
  dst.fill(0);
  auto& q = dev.queue();
  const size_t n = total / chunk;
  uint64_t c0 = dev.cycle();
  uint64_t last = 0;
  for (size_t i = 0; i < n; ++i) {
    weft::Transfer2d t;
    t.row_bytes = chunk;
    t.rows = 1;
    t.spad_addr = static_cast<uint32_t>((i % 2) * bank_lines);
    t.host_addr = src.device_address() + i * chunk;
    last = q.submit(weft::Descriptor::load(t));
  }
  q.wait(last);
  line("LOAD 1 MiB (32 x 32 KiB)", double(total), double(dev.cycle() - c0), peak, rd_bound);

  std::vector<uint64_t> loads, stores;
  c0 = dev.cycle();
  for (size_t i = 0; i < n; ++i) {
    weft::Transfer2d t;
    t.row_bytes = chunk;
    t.rows = 1;
    t.spad_addr = static_cast<uint32_t>((i % 2) * bank_lines);
    t.host_addr = src.device_address() + i * chunk;
    loads.push_back(i >= 2 ? q.submit(weft::Descriptor::load(t), {stores[i - 2]})
                           : q.submit(weft::Descriptor::load(t)));
    t.host_addr = dst.device_address() + i * chunk;
    stores.push_back(q.submit(weft::Descriptor::store_spad(t), {loads[i]}));
  }
  q.finish();
  const double cyc = double(dev.cycle() - c0);
  dev.run(400);
  line("copy 1 MiB: read direction", double(total), cyc, peak, rd_bound);
  line("copy 1 MiB: write direction", double(total), cyc, peak, wr_bound);
  std::vector<uint8_t> back(total);
  dst.read(0, back.data(), total);
  const bool ok = back == data;
  std::printf("   1 MiB copy: data %s\n", ok ? "identical" : "DIFFERENT");
  return ok;
}

}  // namespace

int main(int argc, char** argv) {
  const std::string uri = argc > 1 ? argv[1] : "pcie-sim://?array=16x16";
  try {
    weft::Device dev = weft::Device::open(uri);
    std::printf("   device: %s\n", dev.description().c_str());
    const double peak = peak_of(dev);
    const double rd_bound = 64.0 / (64 + 12 + 12);    // CplD of 64 B
    const double wr_bound = 256.0 / (256 + 16 + 12);  // MWr of 256 B, 4-DW header
    std::printf("   link peak %.2f B/cycle each way; TLP bounds: reads (64 B CplD) %.3f = %.2f "
                "B/cycle, writes (256 B MWr) %.3f = %.2f B/cycle\n",
                peak, rd_bound, rd_bound * peak, wr_bound, wr_bound * peak);
    bool ok = single(dev, 4096, peak, rd_bound, wr_bound);
    ok = single(dev, 32 * 1024, peak, rd_bound, wr_bound) && ok;
    ok = mib(dev, peak, rd_bound, wr_bound) && ok;
    if (const char* v = std::getenv("WEFT_VERBOSE"); v && *v && std::string(v) != "0") {
      const auto s = dev.link_stats();  // the link's raw counters
      std::printf("   link:");
      for (const auto& [k, n] : s)
        std::printf(" %s=%llu", k.c_str(), static_cast<unsigned long long>(n));
      std::printf("\n");
    }
    return ok ? 0 : 1;
  } catch (const std::exception& e) {
    std::fprintf(stderr, "bench_pcie: %s\n", e.what());
    return 1;
  }
}
