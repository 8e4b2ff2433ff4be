// Block tests of weft_dma over the AXI4 slave memory model (weft::sim::AxiMem). Built once per
// configuration (tb/dma/CMakeLists.txt): WEFT_MODEL, WEFT_BUS_BYTES, WEFT_MAX_BURST,
// WEFT_MAX_RD_OUT and the suite name WEFT_SUITE come from the build.
//
// Expectations are the test's own: read data from HostMemory contents, written memory from a
// shadow image, check verdicts from ref_check() below (128-bit arithmetic), burst addresses from
// ref_bursts() (the AXI4 4 KiB and MaxBurst rules), bus-level rules from DmaEnv's monitor.
#include <gtest/gtest.h>

#include <cstdio>
#include <random>
#include <vector>

#include WEFT_MODEL_HEADER
#include "dma_env.hpp"
#include "weft/tb/options.hpp"

namespace {

using Model = WEFT_MODEL;
using weft::sim::AxiErrorRange;
using weft::sim::AxiMemOptions;
using weft::sim::AxiResp;
using weft::sim::HostMemory;
using weft::tb::DmaEnv;
using weft::tb::DmaReq;
using weft::tb::DmaWindow;
using Env = DmaEnv<Model>;
namespace tb = weft::tb;

constexpr unsigned kB = WEFT_BUS_BYTES;
constexpr unsigned kMaxBurst = WEFT_MAX_BURST;
constexpr unsigned kMaxRdOut = WEFT_MAX_RD_OUT;
constexpr unsigned kNumWin = 4;

// ---- reference rules ------------------------------------------------------------------------

// The verdict docs/device.md asks for: ALIGN, then SIZE, then WINDOW (one window, permission,
// no 64-bit overflow), computed with 128-bit integers. The window must hold every bus beat of the
// transfer (docs/dma.md): the last row's last beat, strobed or not, ends at its row start plus
// ceil(row_bytes / kB) beats; rows start on beat boundaries (ALIGN), so the first beat starts at
// addr, and later rows never end below earlier ones.
uint8_t ref_check(const DmaReq& r, bool write, const std::vector<DmaWindow>& wins) {
  if (r.addr % kB || r.stride % kB || (!write && r.row_bytes % kB)) return tb::kErrAlign;
  if (r.rows == 0 || r.row_bytes == 0) return tb::kErrSize;
  const uint64_t row_beats = (uint64_t{r.row_bytes} + kB - 1) / kB;
  const unsigned __int128 beats_end = static_cast<unsigned __int128>(r.addr) +
                                      static_cast<unsigned __int128>(r.rows - 1) * r.stride +
                                      row_beats * kB;
  for (const auto& w : wins) {
    if ((write ? w.write : w.read) && r.addr >= w.base && beats_end <= w.limit) return tb::kErrNone;
  }
  return tb::kErrWindow;
}

struct Burst {
  uint64_t addr;
  uint64_t beats;
};
// Bursts of a request: per row, from the row start, the longest run <= MaxBurst beats that
// stays in the row and inside its 4 KiB page.
std::vector<Burst> ref_bursts(const DmaReq& r) {
  std::vector<Burst> out;
  const uint64_t beats_per_row = (uint64_t{r.row_bytes} + kB - 1) / kB;
  for (uint32_t row = 0; row < r.rows; ++row) {
    uint64_t a = r.addr + uint64_t{row} * r.stride;
    uint64_t left = beats_per_row;
    while (left) {
      const uint64_t to_page = (4096 - a % 4096) / kB;
      const uint64_t n = std::min<uint64_t>({left, kMaxBurst, to_page});
      out.push_back({a, n});
      a += n * kB;
      left -= n;
    }
  }
  return out;
}

std::vector<uint8_t> rows_of(const HostMemory& m, const DmaReq& r) {
  std::vector<uint8_t> v;
  for (uint32_t row = 0; row < r.rows; ++row) {
    auto b = m.read(r.addr + uint64_t{row} * r.stride, r.row_bytes);
    v.insert(v.end(), b.begin(), b.end());
  }
  return v;
}

void fill_random(HostMemory& m, uint64_t addr, uint64_t n, std::mt19937_64& rng) {
  std::vector<uint8_t> b(n);
  for (auto& x : b) x = static_cast<uint8_t>(rng());
  m.write(addr, b);
}

std::vector<uint8_t> random_bytes(size_t n, std::mt19937_64& rng) {
  std::vector<uint8_t> b(n);
  for (auto& x : b) x = static_cast<uint8_t>(rng());
  return b;
}

// ---- fixture --------------------------------------------------------------------------------

// Windows of the random tests: two read-only regions (one high in the 64-bit space, across a
// 4 GiB boundary), one write-only region for wr0, one read/write region for wr1. Read clients
// read only the read-only regions, so their expected data never changes.
constexpr uint64_t kRd0 = 0x1000'0000, kRd0Size = 256 * 1024;
constexpr uint64_t kRd1 = 0xffff'fff0'ffff'0000ULL, kRd1Size = 128 * 1024;
constexpr uint64_t kWr0 = 0x2000'0000, kWr0Size = 128 * 1024;
constexpr uint64_t kWr1 = 0x3000'3000, kWr1Size = 64 * 1024;
constexpr uint64_t kMargin = 8192;  // checked around the write windows

class WEFT_SUITE : public ::testing::Test {
 protected:
  std::mt19937_64 rng{tb::test_seed()};

  int uni(int lo, int hi) { return std::uniform_int_distribution<int>(lo, hi)(rng); }
  bool coin(double p = 0.5) { return std::uniform_real_distribution<double>(0, 1)(rng) < p; }

  std::unique_ptr<Env> make_env(const AxiMemOptions& o) {
    return std::make_unique<Env>(kB, kMaxBurst, kMaxRdOut, kNumWin, o, rng());
  }

  void standard_windows(Env& e) {
    e.set_window(0, {kRd0, kRd0 + kRd0Size, true, false});
    e.set_window(1, {kWr0, kWr0 + kWr0Size, false, true});
    e.set_window(2, {kWr1, kWr1 + kWr1Size, true, true});
    e.set_window(3, {kRd1, kRd1 + kRd1Size, true, false});
    fill_random(e.mem, kRd0, kRd0Size, rng);
    fill_random(e.mem, kRd1, kRd1Size, rng);
    fill_random(e.mem, kWr0 - kMargin, kWr0Size + 2 * kMargin, rng);
    fill_random(e.mem, kWr1 - kMargin, kWr1Size + 2 * kMargin, rng);
  }

  // A random request with its whole extent in [base, base + size).
  DmaReq random_req(uint64_t base, uint64_t size, bool write) {
    DmaReq r;
    const bool big = coin(0.1);
    if (write) {
      r.row_bytes = static_cast<uint32_t>(big ? uni(1, 8192) : coin() ? uni(1, 3 * kB) : uni(1, 40 * kB));
    } else {
      r.row_bytes = kB * static_cast<uint32_t>(big ? uni(1, 8192 / kB) : coin() ? uni(1, 3) : uni(1, 40));
    }
    const uint32_t rounded = (r.row_bytes + kB - 1) / kB * kB;
    r.rows = big ? 1 : static_cast<uint32_t>(uni(1, 6));
    r.stride = rounded + kB * static_cast<uint32_t>(coin(0.3) ? uni(0, 4) : uni(0, 300));
    if (!write && coin(0.05)) r.stride = 0;  // every row the same bytes
    uint64_t extent = uint64_t{r.rows - 1} * r.stride + r.row_bytes;
    if (extent > size) {
      r.rows = 1;
      extent = r.row_bytes;
    }
    r.addr = base + kB * static_cast<uint64_t>(uni(0, static_cast<int>((size - extent) / kB)));
    return r;
  }

  // Turns a good request into one that fails a check (the verdict is ref_check's).
  DmaReq spoil(DmaReq r, uint64_t win_limit, bool write) {
    switch (uni(0, write ? 5 : 6)) {
      case 0: r.addr += static_cast<uint64_t>(uni(1, kB - 1)); break;
      case 1: r.rows = std::max<uint32_t>(r.rows, 2); r.stride += static_cast<uint32_t>(uni(1, kB - 1)); break;
      case 2: r.rows = 0; break;
      case 3: r.row_bytes = 0; break;
      case 4: r.addr = win_limit - kB * static_cast<uint64_t>(uni(1, 4)); r.rows = 1;
              r.row_bytes = 5 * kB; break;  // straddles the window's end
      case 5: r.addr = write ? kRd0 : kWr0; break;  // wrong permission
      case 6: r.row_bytes += static_cast<uint32_t>(uni(1, kB - 1)); break;  // read length unaligned
    }
    return r;
  }

  struct ReadJob {
    DmaReq req;
    uint8_t err;
    std::vector<uint8_t> data;
  };
  struct WriteJob {
    DmaReq req;
    uint8_t err;
  };

  // Runs random traffic on all four clients at once and checks every result.
  void random_traffic(const AxiMemOptions& o, const tb::DmaClientStress& s, int jobs, double bad) {
    auto env = make_env(o);
    Env& e = *env;
    standard_windows(e);
    if (coin()) {
      // wr1's read/write window with bounds that are not multiples of the bus width: requests
      // whose first or last beat sticks out fail (ref_check), and the monitor sees every beat
      // of the others inside the window.
      const uint64_t base = kWr1 + static_cast<uint64_t>(uni(0, kB - 1));
      const uint64_t limit = kWr1 + kWr1Size - static_cast<uint64_t>(uni(1, kB - 1));
      std::printf("[info] window 2 = [0x%llx, 0x%llx)\n", static_cast<unsigned long long>(base),
                  static_cast<unsigned long long>(limit));
      e.set_window(2, {base, limit, true, true});
    }
    e.set_stress(s);
    HostMemory expect;
    expect.write(kWr0 - kMargin, e.mem.read(kWr0 - kMargin, kWr0Size + 2 * kMargin));
    expect.write(kWr1 - kMargin, e.mem.read(kWr1 - kMargin, kWr1Size + 2 * kMargin));
    e.mem.start_log();

    std::vector<ReadJob> rj[2];
    std::vector<WriteJob> wj[2];
    for (int i = 0; i < jobs; ++i) {
      for (int c = 0; c < 2; ++c) {
        const bool hi = coin(0.3);
        DmaReq r = random_req(hi ? kRd1 : kRd0, hi ? kRd1Size : kRd0Size, false);
        if (coin(bad)) r = spoil(r, hi ? kRd1 + kRd1Size : kRd0 + kRd0Size, false);
        const uint8_t err = ref_check(r, false, e.windows());
        rj[c].push_back({r, err, err ? std::vector<uint8_t>{} : rows_of(e.mem, r)});
        e.read(c, r);
      }
      for (int c = 0; c < 2; ++c) {
        const uint64_t base = c == 0 ? kWr0 : kWr1, size = c == 0 ? kWr0Size : kWr1Size;
        DmaReq r = random_req(base, size, true);
        if (coin(bad)) r = spoil(r, base + size, true);
        const uint8_t err = ref_check(r, true, e.windows());
        const size_t n = size_t{r.rows} * r.row_bytes;  // sent only if the check passes
        auto bytes = random_bytes(n, rng);
        if (!err) {
          for (uint32_t row = 0; row < r.rows; ++row)
            expect.write(r.addr + uint64_t{row} * r.stride, bytes.data() + size_t{row} * r.row_bytes,
                         r.row_bytes);
        }
        wj[c].push_back({r, err});
        e.write(c, r, std::move(bytes));
      }
    }
    e.run(20'000'000);

    int checked_beats = 0;
    for (int c = 0; c < 2; ++c) {
      const auto& res = e.read_results(c);
      ASSERT_EQ(res.size(), rj[c].size()) << "rd" << c;
      for (size_t i = 0; i < res.size(); ++i) {
        const auto& j = rj[c][i];
        char what[160];
        std::snprintf(what, sizeof what, "rd%d request %zu: addr 0x%llx row_bytes %u rows %u stride %u",
                      c, i, static_cast<unsigned long long>(j.req.addr), j.req.row_bytes, j.req.rows,
                      j.req.stride);
        SCOPED_TRACE(what);
        ASSERT_EQ(res[i].err, j.err);
        if (j.err) {
          EXPECT_EQ(res[i].addr, j.req.addr);
          EXPECT_TRUE(res[i].data.empty());
        } else {
          ASSERT_EQ(res[i].data, j.data);
          EXPECT_EQ(res[i].lasts, 1u);
          EXPECT_TRUE(res[i].last_on_final);
          checked_beats += static_cast<int>(j.data.size() / kB);
        }
      }
    }
    for (int c = 0; c < 2; ++c) {
      const auto& res = e.write_results(c);
      ASSERT_EQ(res.size(), wj[c].size()) << "wr" << c;
      for (size_t i = 0; i < res.size(); ++i) {
        SCOPED_TRACE("wr" + std::to_string(c) + " request " + std::to_string(i));
        ASSERT_EQ(res[i].err, wj[c][i].err);
        EXPECT_EQ(res[i].starts, wj[c][i].err ? 0 : 1);
        // all beats after wr_start, none after a failed check
        EXPECT_EQ(res[i].beats_taken, wj[c][i].err ? 0 : res[i].beats_total);
        if (wj[c][i].err) {
          EXPECT_EQ(res[i].addr, wj[c][i].req.addr);
        }
      }
    }
    // Memory: the write windows and their margins equal the shadow image byte for byte.
    EXPECT_EQ(e.mem.read(kWr0 - kMargin, kWr0Size + 2 * kMargin),
              expect.read(kWr0 - kMargin, kWr0Size + 2 * kMargin));
    EXPECT_EQ(e.mem.read(kWr1 - kMargin, kWr1Size + 2 * kMargin),
              expect.read(kWr1 - kMargin, kWr1Size + 2 * kMargin));
    // Nothing written outside the writable windows.
    for (const auto& w : e.mem.log()) {
      const bool in0 = w.addr >= kWr0 && w.addr + w.len <= kWr0 + kWr0Size;
      const bool in1 = w.addr >= kWr1 && w.addr + w.len <= kWr1 + kWr1Size;
      EXPECT_TRUE(in0 || in1) << "device wrote " << w.len << " bytes at 0x" << std::hex << w.addr;
    }
    EXPECT_TRUE(e.axi.violations().empty()) << e.axi.violations().front();
    EXPECT_TRUE(e.errors().empty()) << e.errors().front();
    // Status outputs agree with the bus.
    EXPECT_EQ(e.stat_rd_beats(), e.axi.stats().r_beats);
    EXPECT_EQ(e.stat_wr_beats(), e.axi.stats().w_beats);
    EXPECT_EQ(e.stat_wr_bytes(), e.axi.stats().w_bytes);
    EXPECT_GT(checked_beats, 0);
    weft::tb::verbose_printf(
        "[info] %d read beats checked, %llu write beats, %llu cycles, max reads in flight %u\n",
        checked_beats, static_cast<unsigned long long>(e.axi.stats().w_beats),
        static_cast<unsigned long long>(e.h.cycle()), e.max_reads_seen());
  }

  // Runs one request alone and checks it fails its check with `code`, without any AXI traffic.
  void expect_check_error(Env& e, bool write, const DmaReq& r, uint8_t code) {
    ASSERT_EQ(ref_check(r, write, e.windows()), code) << "test vector is not what it claims";
    const auto before = e.axi.stats();
    const uint64_t t0 = e.h.cycle();
    if (write) {
      const size_t n = (r.rows && r.row_bytes) ? size_t{r.rows} * r.row_bytes : 0;
      e.write(1, r, std::vector<uint8_t>(n, 0xAB));
    } else {
      e.read(0, r);
    }
    e.run(1000);
    const auto after = e.axi.stats();
    EXPECT_EQ(after.ar_bursts, before.ar_bursts);
    EXPECT_EQ(after.aw_bursts, before.aw_bursts);
    EXPECT_EQ(after.w_beats, before.w_beats);
    EXPECT_EQ(after.r_beats, before.r_beats);
    EXPECT_LT(e.h.cycle() - t0, 20u) << "a failed check should end the request quickly";
    if (write) {
      const auto& res = e.write_results(1).back();
      EXPECT_EQ(res.err, code);
      EXPECT_EQ(res.addr, r.addr);
      EXPECT_EQ(res.starts, 0);
      EXPECT_EQ(res.beats_taken, 0u);
    } else {
      const auto& res = e.read_results(0).back();
      EXPECT_EQ(res.err, code);
      EXPECT_EQ(res.addr, r.addr);
      EXPECT_TRUE(res.data.empty());
    }
  }
};

// ---- directed -------------------------------------------------------------------------------

TEST_F(WEFT_SUITE, ReadsOneRowInAddressOrder) {
  AxiMemOptions o;
  o.read_latency = 3;
  auto env = make_env(o);
  Env& e = *env;
  standard_windows(e);
  const DmaReq r{kRd0 + 4096 - 2 * kB, 5 * kB, 1, 0};  // crosses a 4 KiB boundary
  e.read(1, r);
  e.run();
  ASSERT_EQ(e.read_results(1).size(), 1u);
  const auto& res = e.read_results(1)[0];
  EXPECT_EQ(res.err, tb::kErrNone);
  EXPECT_EQ(res.data, e.mem.read(r.addr, r.row_bytes));
  EXPECT_EQ(res.lasts, 1u);
  EXPECT_TRUE(res.last_on_final);
  EXPECT_EQ(e.axi.stats().ar_bursts, 2u);  // split at the 4 KiB boundary
  EXPECT_TRUE(e.axi.violations().empty());
  EXPECT_TRUE(e.errors().empty()) << e.errors().front();
}

TEST_F(WEFT_SUITE, WritesStrobeRowTailsAndLeaveOtherBytesUntouched) {
  auto env = make_env({});
  Env& e = *env;
  standard_windows(e);
  const DmaReq r{kWr0 + 4096 - kB, 2 * kB + 3, 3, 4096 + 5 * kB};  // rows cross 4 KiB, 3-byte tails
  const auto before = e.mem.read(kWr0, 3 * 8192);
  auto bytes = random_bytes(size_t{r.rows} * r.row_bytes, rng);
  e.write(0, r, bytes);
  e.run();
  ASSERT_EQ(e.write_results(0).size(), 1u);
  EXPECT_EQ(e.write_results(0)[0].err, tb::kErrNone);
  EXPECT_EQ(e.write_results(0)[0].starts, 1);
  auto expect = before;
  for (uint32_t row = 0; row < r.rows; ++row)
    std::copy_n(bytes.begin() + row * r.row_bytes, r.row_bytes,
                expect.begin() + static_cast<long>(r.addr - kWr0 + row * r.stride));
  EXPECT_EQ(e.mem.read(kWr0, 3 * 8192), expect);
  EXPECT_EQ(e.axi.stats().w_bytes, uint64_t{r.rows} * r.row_bytes);
  EXPECT_EQ(e.stat_wr_bytes(), uint64_t{r.rows} * r.row_bytes);
  EXPECT_EQ(e.axi.stats().aw_bursts, ref_bursts(r).size());
  EXPECT_TRUE(e.axi.violations().empty()) << e.axi.violations().front();
  EXPECT_TRUE(e.errors().empty()) << e.errors().front();
}

TEST_F(WEFT_SUITE, BurstsFollowMaxBurstAnd4KiBRule) {
  auto env = make_env({});
  Env& e = *env;
  standard_windows(e);
  // Unaligned to the burst grid, many 4 KiB boundaries, long rows.
  const DmaReq rr{kRd0 + 3 * kB, 3 * 4096, 3, 3 * 4096 + 7 * kB};
  const DmaReq wr{kWr0 + 5 * kB, 2 * 4096 + 1, 2, 3 * 4096};
  e.read(0, rr);
  e.write(0, wr, random_bytes(size_t{wr.rows} * wr.row_bytes, rng));
  e.run();
  EXPECT_EQ(e.axi.stats().ar_bursts, ref_bursts(rr).size());
  EXPECT_EQ(e.axi.stats().aw_bursts, ref_bursts(wr).size());
  EXPECT_TRUE(e.axi.violations().empty()) << e.axi.violations().front();
  EXPECT_TRUE(e.errors().empty()) << e.errors().front();
  EXPECT_EQ(e.read_results(0).at(0).data, rows_of(e.mem, rr));
}

TEST_F(WEFT_SUITE, ExtentEndingAtWindowLimitIsAllowed) {
  auto env = make_env({});
  Env& e = *env;
  standard_windows(e);
  const DmaReq r{kRd0, 4 * kB, 2, static_cast<uint32_t>(kRd0Size - 4 * kB)};  // last byte = limit-1
  e.read(0, r);
  e.run();
  ASSERT_EQ(e.read_results(0).at(0).err, tb::kErrNone);
  EXPECT_EQ(e.read_results(0).at(0).data, rows_of(e.mem, r));
  const DmaReq w{kWr1 + kWr1Size - 5, 5, 1, 0};  // write ending exactly at the limit
  e.write(1, w, random_bytes(5, rng));
  e.run();
  EXPECT_EQ(e.write_results(1).at(0).err, tb::kErrAlign);  // address not bus aligned
  const DmaReq w2{kWr1 + kWr1Size - kB, kB, 1, 0};
  auto bytes = random_bytes(kB, rng);
  e.write(1, w2, bytes);
  e.run();
  EXPECT_EQ(e.write_results(1).at(1).err, tb::kErrNone);
  EXPECT_EQ(e.mem.read(w2.addr, kB), bytes);
}

TEST_F(WEFT_SUITE, CheckErrorsReportCodeAndAddressWithoutBusTraffic) {
  auto env = make_env({});
  Env& e = *env;
  standard_windows(e);
  const uint64_t lim0 = kRd0 + kRd0Size;
  // ALIGN
  expect_check_error(e, false, {kRd0 + kB / 2, kB, 1, 0}, tb::kErrAlign);
  expect_check_error(e, false, {kRd0, kB, 2, kB + 4}, tb::kErrAlign);
  expect_check_error(e, false, {kRd0, kB + 1, 1, 0}, tb::kErrAlign);
  expect_check_error(e, true, {kWr1 + kB / 2, 4, 1, 0}, tb::kErrAlign);
  expect_check_error(e, true, {kWr1, 4, 2, 20}, tb::kErrAlign);
  expect_check_error(e, false, {kRd0 + 1, 0, 0, 3}, tb::kErrAlign);  // ALIGN wins over SIZE
  // SIZE
  expect_check_error(e, false, {kRd0, kB, 0, kB}, tb::kErrSize);
  expect_check_error(e, false, {kRd0, 0, 1, kB}, tb::kErrSize);
  expect_check_error(e, true, {kWr1, 0, 3, kB}, tb::kErrSize);
  expect_check_error(e, true, {kWr1, 7, 0, kB}, tb::kErrSize);
  // WINDOW: outside, straddling the end (first row, then only a later row), straddling the start
  expect_check_error(e, false, {0x4000'0000, kB, 1, 0}, tb::kErrWindow);
  expect_check_error(e, false, {lim0 - kB, 2 * kB, 1, 0}, tb::kErrWindow);
  expect_check_error(e, false, {lim0 - 8 * kB, kB, 9, kB}, tb::kErrWindow);
  expect_check_error(e, false, {kRd0 - kB, 2 * kB, 1, 0}, tb::kErrWindow);
  expect_check_error(e, true, {kWr1 + kWr1Size - kB, kB + 1, 1, 0}, tb::kErrWindow);
  // permission: write into a read-only window, read from a write-only one
  expect_check_error(e, true, {kRd0, kB, 1, 0}, tb::kErrWindow);
  expect_check_error(e, false, {kWr0, kB, 1, 0}, tb::kErrWindow);
  // two adjacent windows do not make one: [A, B) read + [B, C) read, extent across B
  e.set_window(1, {lim0, lim0 + 4096, true, false});
  expect_check_error(e, false, {lim0 - kB, 2 * kB, 1, 0}, tb::kErrWindow);
  // a disabled window (no permission) admits nothing
  e.set_window(1, {kWr0, kWr0 + kWr0Size, false, false});
  expect_check_error(e, true, {kWr0, kB, 1, 0}, tb::kErrWindow);
  // 64-bit overflow: the end wraps past 2^64 into the window's range of values
  e.set_window(3, {0xffff'ffff'ffff'0000ULL, 0xffff'ffff'ffff'ffffULL, true, true});
  expect_check_error(e, false, {0xffff'ffff'ffff'ff00ULL, 0x100, 2, 0x100}, tb::kErrWindow);
  expect_check_error(e, true, {0xffff'ffff'ffff'fff0ULL, 0x20, 1, 0}, tb::kErrWindow);
  e.set_window(3, {0, 0xffff'ffff'ffff'ffffULL, true, false});  // everything readable
  expect_check_error(e, false, {0x8000'0000'0000'0000ULL, kB, 0xffff'ffff, 0xffff'fff0}, tb::kErrWindow);
  // (rows-1)*stride needing all 64 bits of the product, inside the window: accepted by the
  // reference; only checked, not run (it would read 2^32 rows)
  EXPECT_EQ(ref_check({0x10, kB, 0xffff'ffff, 0xffff'fff0}, false, e.windows()), tb::kErrNone);
  // the DMA is still healthy
  const DmaReq ok{kRd0 + 64 * kB, 3 * kB, 2, 4096};
  e.read(0, ok);
  e.run();
  EXPECT_EQ(e.read_results(0).back().err, tb::kErrNone);
  EXPECT_EQ(e.read_results(0).back().data, rows_of(e.mem, ok));
  EXPECT_TRUE(e.errors().empty()) << e.errors().front();
}

// A window whose limit (or base) is not a multiple of the bus width: a write row ends in a beat
// with only its low bytes strobed, and that whole beat must lie inside the window too, so that a
// bus firewall checking whole beats never sees one that runs past the limit (docs/dma.md). The
// bench's monitor checks every AR/AW burst, beat by beat, against the windows; ref_check gives
// the verdicts.
TEST_F(WEFT_SUITE, EveryBeatStaysBelowAWindowLimitThatIsNotAMultipleOfTheBusWidth) {
  auto env = make_env({});
  Env& e = *env;
  standard_windows(e);
  const uint64_t edge = kWr1 + 0x800;  // a beat boundary inside wr1's window
  for (unsigned d = 1; d < kB; ++d) {
    SCOPED_TRACE("limit = beat boundary + " + std::to_string(d));
    const uint64_t limit = edge + d;
    e.set_window(2, {kWr1, limit, true, true});
    // Every byte below the limit, but the row's last beat [edge, edge + kB) is not: WINDOW,
    // before any traffic (one row; three rows with only the last one at the edge).
    expect_check_error(e, true, {edge, d, 1, 0}, tb::kErrWindow);
    expect_check_error(e, true, {edge - 2 * kB, static_cast<uint32_t>(uni(1, static_cast<int>(d))), 3, kB},
                       tb::kErrWindow);
    expect_check_error(e, true, {edge - kB, kB + 1, 1, 0}, tb::kErrWindow);
    // Reads are whole beats: the beat at the edge is outside, the one below it inside.
    expect_check_error(e, false, {edge, kB, 1, 0}, tb::kErrWindow);
    // Ending in the beat below the edge: written, and no byte from the edge on changes.
    const auto above = e.mem.read(edge, 2 * kB);
    const DmaReq w{edge - 3 * kB, static_cast<uint32_t>(uni(1, kB)), 3, kB};
    ASSERT_EQ(ref_check(w, true, e.windows()), tb::kErrNone);
    auto bytes = random_bytes(size_t{w.rows} * w.row_bytes, rng);
    e.write(0, w, bytes);
    e.run();
    EXPECT_EQ(e.write_results(0).back().err, tb::kErrNone);
    EXPECT_EQ(rows_of(e.mem, w), bytes);
    const DmaReq r{edge - 2 * kB, 2 * kB, 1, 0};  // after the write: it reads what was written
    e.read(1, r);
    e.run();
    EXPECT_EQ(e.read_results(1).back().err, tb::kErrNone);
    EXPECT_EQ(e.read_results(1).back().data, rows_of(e.mem, r));
    EXPECT_EQ(e.mem.read(edge, 2 * kB), above);
  }
  // A base that is not a multiple of the bus width: the beat that holds it is outside.
  const uint64_t base = kWr1 + kB + 3;
  e.set_window(2, {base, kWr1 + kWr1Size, true, true});
  expect_check_error(e, true, {kWr1 + kB, kB, 1, 0}, tb::kErrWindow);
  expect_check_error(e, false, {kWr1 + kB, kB, 1, 0}, tb::kErrWindow);
  const DmaReq w{kWr1 + 2 * kB, 5, 2, kB};
  ASSERT_EQ(ref_check(w, true, e.windows()), tb::kErrNone);
  auto bytes = random_bytes(10, rng);
  e.write(0, w, bytes);
  e.run();
  EXPECT_EQ(e.write_results(0).back().err, tb::kErrNone);
  EXPECT_EQ(rows_of(e.mem, w), bytes);
  // The bench's monitor saw no AR/AW burst with a beat outside every window.
  EXPECT_TRUE(e.axi.violations().empty()) << e.axi.violations().front();
  EXPECT_TRUE(e.errors().empty()) << e.errors().front();
}

TEST_F(WEFT_SUITE, WindowCheckUsesFullProductOfRowsAndStride) {
  // (rows-1)*stride > 2^32: a window check on a truncated product would pass this request.
  auto env = make_env({});
  Env& e = *env;
  standard_windows(e);
  const DmaReq r{kRd0, kB, 0x10001, 0x10000};  // extent 4 GiB + kB, window 256 KiB
  expect_check_error(e, false, r, tb::kErrWindow);
  const DmaReq r2{kRd0, kB, 3, 0x8000'0000};  // 2*stride = 2^32 exactly
  expect_check_error(e, false, r2, tb::kErrWindow);
}

// ---- bus errors -----------------------------------------------------------------------------

TEST_F(WEFT_SUITE, ReadBusErrorsEndRequestWithCodeAndBeatAddress) {
  for (AxiResp resp : {AxiResp::kSlvErr, AxiResp::kDecErr}) {
    for (int c = 0; c < 2; ++c) {
      const DmaReq bad{kRd0 + 0x3000, 40 * kB, 12, 0x400};  // many bursts, several in flight
      AxiMemOptions o;
      o.read_latency = static_cast<unsigned>(uni(5, 40));
      o.r_gap = 0.2;
      o.ar_stall = 0.2;
      // the error range starts inside a row (row 2..9) and may reach into the next rows
      const uint64_t ebase = bad.addr + bad.stride * static_cast<uint64_t>(uni(2, 9)) +
                             static_cast<uint64_t>(uni(0, static_cast<int>(bad.row_bytes) - 1));
      o.errors.push_back({ebase, ebase + static_cast<uint64_t>(uni(1, 40 * kB)), resp, true, false});
      auto env = make_env(o);
      Env& e = *env;
      standard_windows(e);
      e.set_stress({0.1, 0.3, 0.2});
      const DmaReq good{kRd0 + 0x20000, 7 * kB, 3, 4096 - kB};
      const DmaReq other{kRd1, 50 * kB, 4, 0x1000};
      e.read(c, bad);
      e.read(c, good);
      e.read(1 - c, other);
      e.run();
      // expected: the first beat in request order that touches the error range
      uint64_t first = 0, index = 0;
      bool found = false;
      for (uint32_t row = 0; row < bad.rows && !found; ++row) {
        for (uint32_t k = 0; k < bad.row_bytes / kB; ++k) {
          const uint64_t a = bad.addr + uint64_t{row} * bad.stride + uint64_t{k} * kB;
          if (a < o.errors[0].limit && a + kB > o.errors[0].base) {
            first = a;
            found = true;
            break;
          }
          ++index;
        }
      }
      ASSERT_TRUE(found);
      const auto& r0 = e.read_results(c).at(0);
      const uint8_t code = resp == AxiResp::kSlvErr ? tb::kErrSlverr : tb::kErrDecerr;
      EXPECT_EQ(r0.err, code);
      EXPECT_EQ(r0.addr, first);
      auto want = rows_of(e.mem, bad);
      want.resize(index * kB);  // the beats before the error, nothing after
      EXPECT_EQ(r0.data, want);
      EXPECT_EQ(r0.lasts, 0u);
      const auto& r1 = e.read_results(c).at(1);
      EXPECT_EQ(r1.err, tb::kErrNone);
      EXPECT_EQ(r1.data, rows_of(e.mem, good));
      const auto& r2 = e.read_results(1 - c).at(0);
      EXPECT_EQ(r2.err, tb::kErrNone);
      EXPECT_EQ(r2.data, rows_of(e.mem, other));
      EXPECT_TRUE(e.axi.violations().empty()) << e.axi.violations().front();
      EXPECT_TRUE(e.errors().empty()) << e.errors().front();
    }
  }
}

TEST_F(WEFT_SUITE, WriteBusErrorsEndRequestWithCodeAndBurstAddress) {
  for (AxiResp resp : {AxiResp::kSlvErr, AxiResp::kDecErr}) {
    for (int c = 0; c < 2; ++c) {
      const uint64_t base = c == 0 ? kWr0 : kWr1;
      const DmaReq bad{base + 0x1000, 30 * kB + 5, 10, 0x500};
      AxiMemOptions o;
      o.write_latency = static_cast<unsigned>(uni(5, 40));
      o.w_stall = 0.2;
      o.b_gap = 0.2;
      // the error range starts inside a row (row 2..7)
      const uint64_t ebase = bad.addr + bad.stride * static_cast<uint64_t>(uni(2, 7)) +
                             static_cast<uint64_t>(uni(0, static_cast<int>(bad.row_bytes) - 1));
      o.errors.push_back({ebase, ebase + static_cast<uint64_t>(uni(1, 100)), resp, false, true});
      auto env = make_env(o);
      Env& e = *env;
      standard_windows(e);
      e.set_stress({0.1, 0.0, 0.3});
      const DmaReq good{base + 0x9000, 3 * kB + 1, 4, 4096};
      const DmaReq other{(c == 0 ? kWr1 : kWr0) + 0x100 * kB, 20 * kB, 3, 0x800};
      const auto before = e.mem.read(base, 0x10000);
      auto bad_bytes = random_bytes(size_t{bad.rows} * bad.row_bytes, rng);
      auto good_bytes = random_bytes(size_t{good.rows} * good.row_bytes, rng);
      auto other_bytes = random_bytes(size_t{other.rows} * other.row_bytes, rng);
      e.write(c, bad, bad_bytes);
      e.write(c, good, good_bytes);
      e.write(1 - c, other, other_bytes);
      e.run();
      // expected: the first burst touching the error range (B responses come in order per ID)
      const auto bursts = ref_bursts(bad);
      size_t fail = bursts.size();
      for (size_t i = 0; i < bursts.size(); ++i) {
        const uint64_t a = bursts[i].addr, n = bursts[i].beats * kB;
        if (a < o.errors[0].limit && a + n > o.errors[0].base) {
          fail = i;
          break;
        }
      }
      ASSERT_LT(fail, bursts.size());
      const uint8_t code = resp == AxiResp::kSlvErr ? tb::kErrSlverr : tb::kErrDecerr;
      const auto& w0 = e.write_results(c).at(0);
      EXPECT_EQ(w0.err, code);
      EXPECT_EQ(w0.addr, bursts[fail].addr);
      EXPECT_EQ(w0.starts, 1);
      EXPECT_EQ(w0.beats_taken, w0.beats_total);  // the rest was taken and dropped
      // Bytes of the bursts before the failing one are written; no byte outside the rows of
      // `bad` and `good` changed; the error range was not written.
      std::vector<int> owner(0x10000, -1);  // -1 outside rows, else offset into bad_bytes
      for (uint32_t row = 0; row < bad.rows; ++row)
        for (uint32_t k = 0; k < bad.row_bytes; ++k)
          owner[bad.addr - base + row * bad.stride + k] = static_cast<int>(row * bad.row_bytes + k);
      const auto after = e.mem.read(base, 0x10000);
      const uint64_t written_end = bursts[fail].addr;  // bursts before `fail` end below it (rows go up)
      for (uint64_t off = 0; off < 0x10000; ++off) {
        const uint64_t a = base + off;
        const bool in_good = a >= good.addr && a < good.addr + uint64_t{good.rows - 1} * good.stride +
                                                       good.row_bytes &&
                             (a - good.addr) % good.stride < good.row_bytes;
        if (in_good) continue;
        if (owner[off] < 0 || (a >= o.errors[0].base && a < o.errors[0].limit)) {
          ASSERT_EQ(after[off], before[off]) << "byte 0x" << std::hex << a << " changed";
        } else if (a < written_end) {
          ASSERT_EQ(after[off], bad_bytes[owner[off]]) << "byte 0x" << std::hex << a << " not written";
        }
      }
      const auto& w1 = e.write_results(c).at(1);
      EXPECT_EQ(w1.err, tb::kErrNone);
      EXPECT_EQ(rows_of(e.mem, good), good_bytes);
      EXPECT_EQ(e.write_results(1 - c).at(0).err, tb::kErrNone);
      EXPECT_EQ(rows_of(e.mem, other), other_bytes);
      EXPECT_TRUE(e.axi.violations().empty()) << e.axi.violations().front();
      EXPECT_TRUE(e.errors().empty()) << e.errors().front();
    }
  }
}

// ---- random ---------------------------------------------------------------------------------

TEST_F(WEFT_SUITE, RandomTrafficWithoutBackPressureIsByteExact) {
  AxiMemOptions o;
  o.read_latency = 0;
  o.write_latency = 0;
  o.seed = rng();
  random_traffic(o, {}, 150, 0.0);
}

TEST_F(WEFT_SUITE, RandomTrafficWithBackPressureAndLatencyIsByteExact) {
  for (int round = 0; round < 6; ++round) {
    AxiMemOptions o;
    o.read_latency = static_cast<unsigned>(uni(0, 64));
    o.write_latency = static_cast<unsigned>(uni(0, 64));
    o.ar_stall = uni(0, 70) / 100.0;
    o.r_gap = uni(0, 70) / 100.0;
    o.aw_stall = uni(0, 70) / 100.0;
    o.w_stall = uni(0, 70) / 100.0;
    o.b_gap = uni(0, 70) / 100.0;
    o.max_reads = static_cast<unsigned>(uni(1, 16));
    o.max_writes = static_cast<unsigned>(uni(1, 16));
    o.max_w_ahead = static_cast<unsigned>(uni(1, 64));
    o.interleave = coin(0.7);
    o.seed = rng();
    tb::DmaClientStress s{uni(0, 50) / 100.0, uni(0, 60) / 100.0, uni(0, 60) / 100.0};
    weft::tb::verbose_printf(
        "[info] round %d: latency r%u w%u, stalls ar %.2f r %.2f aw %.2f w %.2f b %.2f, "
        "clients req %.2f rd %.2f wr %.2f, interleave %d\n",
        round, o.read_latency, o.write_latency, o.ar_stall, o.r_gap, o.aw_stall, o.w_stall, o.b_gap,
        s.req_gap, s.rd_stall, s.wr_gap, o.interleave);
    random_traffic(o, s, 40, 0.1);
    if (HasFatalFailure() || HasNonfatalFailure()) return;
  }
}

TEST_F(WEFT_SUITE, LongLatencyKeepsMaxRdOutReadsInFlight) {
  AxiMemOptions o;
  o.read_latency = 64;
  auto env = make_env(o);
  Env& e = *env;
  standard_windows(e);
  const DmaReq r{kRd0, 64 * 1024, 1, 0};
  e.read(1, r);
  e.run();
  EXPECT_EQ(e.read_results(1).at(0).data, rows_of(e.mem, r));
  EXPECT_EQ(e.max_reads_seen(), kMaxRdOut);
  // 4096 beats; reads wait ~64 cycles per MaxRdOut bursts, so the stall counter must show it
  EXPECT_GT(e.stat_rd_stall(), 64u);
  EXPECT_EQ(e.stat_rd_beats(), r.row_bytes / kB);
  EXPECT_TRUE(e.errors().empty()) << e.errors().front();
}

}  // namespace
