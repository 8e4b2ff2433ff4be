// Block tests of weft_pcie_top (weft_pcie_ep + weft_top) behind the root-complex model PcieRc.
// Built per link configuration (tb/pcie/CMakeLists.txt): the 4x4 device with NumTags /
// MaxPayload / MaxReadReq = 16 / 128 / 128 (AXI bursts split into several MRd / MWr; suite
// PcieTop4x4) and with the defaults 32 / 256 / 512 (suite PcieTop4x4Default).
// Expectations are independent of the RTL: register values from docs/registers.md and
// docs/host-interfaces.md 1.4, copied data against the bytes the test wrote, GEMM results against
// a plain integer matrix product computed here, errors against docs/host-interfaces.md 1.3 and
// docs/programming-model.md, TLP rules (format, 4 KiB, MaxPayload, MaxReadReq, byte enables, tag
// reuse) by the root-complex model's checks. Every test ends with LINK_TAGS_FREE = NumTags and no
// link-rule violation.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <memory>
#include <random>
#include <vector>

#include WEFT_MODEL_HEADER
#include "pcie_env.hpp"
#include "weft/descriptor.hpp"
#include "weft/regs.hpp"
#include "weft/tb/options.hpp"

namespace {

using Model = WEFT_MODEL;
using Env = weft::tb::PcieEnv<Model>;
using weft::ComputeArgs;
using weft::Descriptor;
using weft::ErrorCode;
using weft::StoreAccArgs;
using weft::StoreMode;
using weft::Transfer2d;
namespace regs = weft::regs;
namespace sim = weft::sim;
namespace link = weft::tb::link;

constexpr unsigned kNumTags = WEFT_NUM_TAGS;
constexpr unsigned kMaxPayload = WEFT_MAX_PAYLOAD;
constexpr unsigned kMaxReadReq = WEFT_MAX_READ_REQ;
constexpr int kRows = WEFT_ROWS;
constexpr int kCols = WEFT_COLS;
constexpr unsigned kBB = 16;
constexpr uint32_t kBankLines = 256;  // SpadLines 1024 in 4 banks

constexpr uint64_t kWinBase = 0x1000'0000;
constexpr uint64_t kWinLimit = 0x1100'0000;
constexpr uint64_t kRing = 0x1000'0000;
constexpr uint64_t kCpl = 0x1000'2000;
constexpr uint64_t kSrc = 0x1010'0000;
constexpr uint64_t kDst = 0x1080'0000;
constexpr unsigned kRingLog2 = 6;
constexpr uint64_t kMsiAddr = 0xFEE0'1000;  // inside the model's MSI window
// weft_top's DMA: bursts of at most 16 beats (256 B), at most 8 read bursts outstanding.
constexpr unsigned kBurstBytes = 256;
constexpr unsigned kMrdBytes = kMaxReadReq < kBurstBytes ? kMaxReadReq : kBurstBytes;  // per MRd
constexpr unsigned kLog2(unsigned v) { return v <= 1 ? 0 : 1 + kLog2(v / 2); }

class WEFT_SUITE : public ::testing::Test {
 protected:
  void SetUp() override {
    sim::PcieRcOptions o;
    o.num_tags = kNumTags;
    o.max_payload = kMaxPayload;
    o.max_read_req = kMaxReadReq;
    o.latency = 20;
    o.mem_latency = 16;
    o.seed = rng();
    make_env(o);
  }
  void make_env(sim::PcieRcOptions o) {
    env.reset();
    env = std::make_unique<Env>(o);
    env->mem.set_default_byte(0xcd);
  }
  // Every test: the tag pool is full again and the link rules held.
  void TearDown() override {
    if (!env) return;
    EXPECT_TRUE(env->wait([&] { return env->rd(link::kTagsFree) == kNumTags; }, 200000, 64))
        << "LINK_TAGS_FREE " << env->rd(link::kTagsFree);
    for (const auto& v : env->rc.violations()) ADD_FAILURE() << "link rule: " << v;
    const auto& st = env->rc.stats();
    weft::tb::verbose_printf(
        "[link] %llu cycles: %llu MRd, %llu MWr (%llu MSI), %llu CplD + %llu Cpl to the device, "
        "%llu faults\n",
        static_cast<unsigned long long>(env->h.cycle()), static_cast<unsigned long long>(st.mrd),
        static_cast<unsigned long long>(st.mwr), static_cast<unsigned long long>(st.msi),
        static_cast<unsigned long long>(st.cpld_sent), static_cast<unsigned long long>(st.cpl_sent),
        static_cast<unsigned long long>(st.faults));
  }

  void setup() {
    env->set_window(0, kWinBase, kWinLimit, true, true);
    env->setup_ring(kRing, kRingLog2, kCpl);
  }
  int uni(int lo, int hi) { return std::uniform_int_distribution<int>(lo, hi)(rng); }
  std::vector<uint8_t> random_bytes(size_t n) {
    std::vector<uint8_t> v(n);
    for (auto& b : v) b = static_cast<uint8_t>(rng());
    return v;
  }

  struct Copy {
    Transfer2d load, store;
    std::vector<uint8_t> data;
  };
  // rows x row_bytes from src (host_stride apart) to spad line `line`, then to dst.
  Copy make_copy(uint64_t src, uint64_t dst, uint32_t row_bytes, uint32_t rows, uint32_t sstride,
                 uint32_t dstride, uint32_t line = 0) {
    Copy c;
    c.load = Transfer2d{src, row_bytes, rows, sstride, line, row_bytes / kBB};
    c.store = Transfer2d{dst, row_bytes, rows, dstride, line, row_bytes / kBB};
    c.data = random_bytes(static_cast<size_t>(rows) * row_bytes);
    for (uint32_t r = 0; r < rows; ++r) env->mem.write(src + uint64_t{r} * sstride, c.data.data() + r * row_bytes, row_bytes);
    return c;
  }
  void submit_copy(const Copy& c) {
    env->put(Descriptor::load(c.load));
    env->put(Descriptor::store_spad(c.store).with_dep(0, 1));
    env->doorbell();
  }
  void expect_copied(const Copy& c) {
    const uint32_t rb = c.store.row_bytes;
    for (uint32_t r = 0; r < c.store.rows; ++r) {
      const auto got = env->mem.read(c.store.host_addr + uint64_t{r} * c.store.host_stride, rb);
      ASSERT_EQ(0, std::memcmp(got.data(), c.data.data() + r * rb, rb)) << "row " << r;
    }
  }
  std::string state() {
    char b[160];
    std::snprintf(b, sizeof b, "STATUS=%x COMPLETED=%u ERR_CODE=%u LINK_ERR=%x TAGS_FREE=%u",
                  env->rd(regs::kStatus), env->rd(regs::kCompleted), env->rd(regs::kErrCode),
                  env->rd(link::kErr), env->rd(link::kTagsFree));
    return b;
  }

  // A read of [lo, hi) fails with `fault`: the LOAD ends with `code`, LINK_ERR names the fault,
  // its tag and the failed MRd's address; then the device works again after CTRL.qreset.
  void check_read_error(sim::PcieFault fault, ErrorCode code, uint32_t link_code) {
    setup();
    if (fault == sim::PcieFault::kDrop) env->wr(link::kCplTimeout, 3000);
    const uint64_t src = kSrc + 0x3000;
    const uint64_t bad = src + 0x180;  // a later MRd of the first row
    env->rc.add_fault(fault, bad, bad + 16);
    Copy c = make_copy(src, kDst, 1024, 2, 2048, 1024);
    submit_copy(c);
    ASSERT_TRUE(env->wait_error()) << state();
    ASSERT_TRUE(env->wait_idle()) << state();
    EXPECT_EQ(env->rd(regs::kErrCode), static_cast<uint32_t>(code));
    EXPECT_EQ(env->rd(regs::kErrIndex), 0u);
    const uint32_t le = env->rd(link::kErr);
    EXPECT_EQ(le & 0xf, link_code) << std::hex << le;
    EXPECT_LT((le >> 8) & 0xff, kNumTags);
    EXPECT_EQ(env->rd(link::kErrAddrLo), static_cast<uint32_t>(bad & ~uint64_t{kMrdBytes - 1}));
    EXPECT_EQ(env->rd(link::kErrAddrHi), 0u);
    // Tags come back: the failed one at once, the others when their completions arrive.
    EXPECT_TRUE(env->wait([&] { return env->rd(link::kTagsFree) == kNumTags; }, 100000, 64));
    EXPECT_GE(env->rc.stats().faults, 1u);
    // LINK_ERR: any write clears it and the address.
    env->wr(link::kErr, 0);
    EXPECT_EQ(env->rd(link::kErr), 0u);
    EXPECT_EQ(env->rd(link::kErrAddrLo), 0u);
    // The device works again after a queue reset.
    env->rc.clear_faults();
    ASSERT_TRUE(env->queue_reset());
    Copy c2 = make_copy(kSrc + 0x8000, kDst + 0x8000, 512, 3, 512, 768, 64);
    submit_copy(c2);
    ASSERT_TRUE(env->wait_completed(2)) << state();
    EXPECT_EQ(env->rd(regs::kErrCode), 0u);
    expect_copied(c2);
    EXPECT_EQ(env->rd(link::kErr), 0u);
  }

  std::mt19937_64 rng = weft::tb::make_rng();
  std::unique_ptr<Env> env;
};

TEST_F(WEFT_SUITE, Bar0ReadsDeviceAndLinkIdentity) {
  EXPECT_EQ(env->rd(regs::kId), 0x54464557u);  // "WEFT"
  EXPECT_EQ(env->rd(link::kId), link::kIdValue);
  // LINK_CAP: [7:0] NumTags, [11:8] log2 MaxPayload, [15:12] log2 MaxReadReq
  EXPECT_EQ(env->rd(link::kCap), kNumTags | (kLog2(kMaxPayload) << 8) | (kLog2(kMaxReadReq) << 12));
  EXPECT_EQ(env->rd(link::kTagsFree), kNumTags);
  EXPECT_EQ(env->rd(link::kCplTimeout), 100000u);
  EXPECT_EQ(env->rd(link::kErr), 0u);
  EXPECT_EQ(env->rd(link::kCtrl), 0u);
}

TEST_F(WEFT_SUITE, Bar0WritesRoundTrip) {
  // A device register (RW, 32 bits) and the link's RW registers, with byte enables.
  env->wr(regs::kRingBaseHi, 0x89ABCDEFu);
  EXPECT_EQ(env->rd(regs::kRingBaseHi), 0x89ABCDEFu);
  env->wr(regs::kRingBaseHi, 0x00001100u, 0x2);  // byte 1 only
  EXPECT_EQ(env->rd(regs::kRingBaseHi), 0x89AB11EFu);
  env->wr(link::kMsiData, 0xA5A5F00Du);
  EXPECT_EQ(env->rd(link::kMsiData), 0xA5A5F00Du);
  env->wr(link::kMsiData, 0x12345678u, 0x9);      // bytes 0 and 3
  EXPECT_EQ(env->rd(link::kMsiData), 0x12A5F078u);
  env->wr(link::kMsiAddrLo, 0xFEE00040u);
  env->wr(link::kMsiAddrHi, 0x1u);
  EXPECT_EQ(env->rd(link::kMsiAddrLo), 0xFEE00040u);
  EXPECT_EQ(env->rd(link::kMsiAddrHi), 0x1u);
  env->wr(link::kCplTimeout, 777u);
  EXPECT_EQ(env->rd(link::kCplTimeout), 777u);
  env->wr(link::kCtrl, 1u);
  EXPECT_EQ(env->rd(link::kCtrl), 1u);
  env->wr(link::kTagsFree, 0u);  // read-only: no effect
  EXPECT_EQ(env->rd(link::kTagsFree), kNumTags);
  // A device register the CSR block does not map answers SLVERR: a Cpl with status CA.
  EXPECT_EQ(env->bar0(false, 0xFFC).status, sim::tlp::kStatusCa);
  EXPECT_EQ(env->rd(link::kRxBad), 0u);
}

TEST_F(WEFT_SUITE, Bar0BadRequestsAnsweredUnsupported) {
  std::vector<sim::Tlp> cpls;
  env->rc.on_device_tlp([&](const sim::Tlp& t) {
    if (t.is_cpl() && t.tag() >= 0xE0) {
      cpls.push_back(t);
      return true;
    }
    return false;
  });
  const uint64_t bar = env->rc.options().bar0_base;
  uint32_t bad = 0;
  // Reserved link-register offset, and beyond BAR0's 8 KiB: UR.
  EXPECT_EQ(env->bar0(false, 0x1040).status, sim::tlp::kStatusUr); ++bad;
  EXPECT_EQ(env->bar0(false, 0x1FFC).status, sim::tlp::kStatusUr); ++bad;
  EXPECT_EQ(env->bar0(false, 0x2000).status, sim::tlp::kStatusUr); ++bad;
  // Malformed MRds (sent raw, answered through the hook): Length 2; First BE 0; Last BE != 0.
  env->rc.send_raw(sim::tlp_mem(false, bar + regs::kId, 2, 0xf, 0xf, 0, 0xE1)); ++bad;
  env->rc.send_raw(sim::tlp_mem(false, bar + regs::kId, 1, 0x0, 0x0, 0, 0xE2)); ++bad;
  env->rc.send_raw(sim::tlp_mem(false, bar + link::kId, 1, 0xf, 0x1, 0, 0xE3)); ++bad;
  ASSERT_TRUE(env->wait([&] { return cpls.size() == 3; }, 5000, 8));
  for (size_t i = 0; i < cpls.size(); ++i) {
    const auto& t = cpls[i];
    EXPECT_EQ(t.tag(), 0xE1 + i);
    EXPECT_FALSE(t.has_data());
    EXPECT_EQ(t.status(), sim::tlp::kStatusUr);
    EXPECT_EQ(t.completer(), env->rc.options().ep_id);
    EXPECT_EQ(t.requester(), 0u);
  }
  // Posted bad requests are dropped: a 2-DW MWr and a MWr outside the map change nothing.
  env->wr(link::kMsiData, 0x11111111u);
  env->rc.send_raw(sim::tlp_mem(true, bar + link::kMsiData, 2, 0xf, 0xf, 0, 0, {0x2222, 0x3333})); ++bad;
  env->wr(0x1800, 0x44444444u); ++bad;
  env->wr(0x2004, 0x55555555u); ++bad;
  EXPECT_EQ(env->rd(link::kMsiData), 0x11111111u);
  EXPECT_EQ(env->rd(link::kRxBad), bad);
  // Good requests still work.
  EXPECT_EQ(env->rd(regs::kId), 0x54464557u);
}

TEST_F(WEFT_SUITE, CopiesThroughTheLinkWithSplitAndReorderedCompletions) {
  // Completions of 64 B (split at the RCB), random extra latency per TLP so completions of
  // different tags overtake each other, random tx back-pressure.
  sim::PcieRcOptions o = env->rc.options();
  o.cpl = 64;
  o.jitter = 60;
  o.bp = 0.2;
  make_env(o);
  setup();
  std::vector<Copy> copies;
  // Row crossing 4 KiB boundaries in host memory (source and destination), long rows, many rows.
  copies.push_back(make_copy(kSrc + 0x0F80, kDst + 0x1FA0 - 0x20, 4096, 2, 8192, 4224, 0));
  copies.push_back(make_copy(kSrc + 0x7000, kDst + 0x9000, 48, 16, 64, 80, 600));
  for (int i = 0; i < 4; ++i) {
    const uint32_t lines = static_cast<uint32_t>(uni(1, 24));
    const uint32_t rows = static_cast<uint32_t>(uni(1, 6));
    const uint32_t sstride = lines * kBB + kBB * static_cast<uint32_t>(uni(0, 300));
    const uint32_t dstride = lines * kBB + kBB * static_cast<uint32_t>(uni(0, 300));
    copies.push_back(make_copy(kSrc + 0x20000 + 0x20000 * static_cast<uint64_t>(i) + kBB * uni(0, 255),
                               kDst + 0x20000 + 0x20000 * static_cast<uint64_t>(i) + kBB * uni(0, 255),
                               lines * kBB, rows, sstride, dstride, 700));
  }
  // One at a time (they share scratchpad lines 700..): wait for each pair.
  uint32_t n = 0;
  for (const auto& c : copies) {
    submit_copy(c);
    n += 2;
    ASSERT_TRUE(env->wait_completed(n)) << state();
    ASSERT_EQ(env->rd(regs::kErrCode), 0u) << state();
    expect_copied(c);
  }
  // The endpoint's counters agree with what the root complex saw (BAR0 traffic is separate).
  EXPECT_TRUE(env->wait([&] { return env->rc.idle(); }, 10000, 8));
  EXPECT_EQ(env->rd(link::kMrd), env->rc.stats().mrd);
  EXPECT_EQ(env->rd(link::kMwr), env->rc.stats().mwr);
  EXPECT_GT(env->rc.stats().cpld_sent, env->rc.stats().mrd);  // completions were split
  EXPECT_EQ(env->rd(link::kCplBad), 0u);
  EXPECT_EQ(env->rd(link::kErr), 0u);
}

TEST_F(WEFT_SUITE, LongLoadKeepsManyMrdsOutstanding) {
  // A long LOAD keeps 8 AXI bursts outstanding: 8 x (256 B / MaxReadReq) MRds, or every tag
  // (then ARs wait for tags); the data still arrives intact.
  sim::PcieRcOptions o = env->rc.options();
  o.latency = 150;
  o.jitter = 100;
  make_env(o);
  setup();
  env->mem.store<uint32_t>(kCpl, 0);
  Copy c = make_copy(kSrc, kDst, 8192, 1, 8192, 8192, 0);
  submit_copy(c);
  // Tags outstanding as the root complex sees them (MRd received, last completion not yet
  // delivered), every cycle; the completion record says when both descriptors are done.
  unsigned max_out = 0;
  ASSERT_TRUE(env->wait([&] {
    max_out = std::max(max_out, env->rc.device_tags_outstanding());
    return env->mem.load<uint32_t>(kCpl) >= 2;
  }, 400000, 1)) << state();
  expect_copied(c);
  const unsigned want_busy = std::min(kNumTags, 8 * (kBurstBytes / kMrdBytes));
  weft::tb::verbose_printf("[link] most MRds outstanding: %u (tags %u)\n", max_out, kNumTags);
  EXPECT_GE(max_out, want_busy - 1);
  EXPECT_LE(max_out, kNumTags);
}

TEST_F(WEFT_SUITE, PartialStrobeWritesFromStoreAcc) {
  // INT32 STORE_ACC of n < Cols columns: each row ends mid-beat (4n bytes), so the AXI writes
  // have partial strobes; only those bytes may change. acc = A x W computed here.
  setup();
  const int m = 5, k = kRows;
  std::vector<int8_t> a(m * k), w(k * kCols);
  for (auto& v : a) v = static_cast<int8_t>(rng());
  for (auto& v : w) v = static_cast<int8_t>(rng());
  std::vector<uint8_t> aimg(m * kBB, 0), wimg(kRows * kBB, 0), pimg(kCols * kBB, 0);
  for (int j = 0; j < m; ++j)
    for (int r = 0; r < k; ++r) aimg[j * kBB + r] = static_cast<uint8_t>(a[j * k + r]);
  for (int r = 0; r < k; ++r)
    for (int c = 0; c < kCols; ++c) wimg[r * kBB + c] = static_cast<uint8_t>(w[r * kCols + c]);
  env->mem.write(kSrc, aimg);
  env->mem.write(kSrc + 0x1000, wimg);
  env->mem.write(kSrc + 0x2000, pimg);  // bias 0
  ComputeArgs ca;
  ca.a_addr = 0;
  ca.a_row_stride = 1;
  ca.a_tile_stride = m;
  ca.w_addr = kBankLines;
  ca.w_row_stride = 1;
  ca.w_tile_stride = kRows;
  ca.m = m;
  ca.k = k;
  ca.acc_addr = 0;
  uint32_t n_desc = 0;
  for (uint32_t n : {3u, 1u, 2u}) {
    const uint64_t dst = kDst + 0x1000 * n;
    const uint32_t stride = 32;
    env->mem.fill(dst, m * stride, 0xcd);
    env->put(Descriptor::load({kSrc, m * kBB, 1, 0, 0, 0}));
    env->put(Descriptor::load({kSrc + 0x1000, kRows * kBB, 1, 0, kBankLines, 0}));
    env->put(Descriptor::load({kSrc + 0x2000, kCols * kBB, 1, 0, 2 * kBankLines, 0}));
    env->put(Descriptor::compute(ca).with_dep(0, 2).with_dep(1, 3));
    StoreAccArgs sa;
    sa.host_addr = dst;
    sa.host_stride = stride;
    sa.m = m;
    sa.acc_addr = 0;
    sa.n = n;
    sa.mode = StoreMode::kInt32;
    sa.load_params = true;
    sa.params_addr = 2 * kBankLines;
    env->put(Descriptor::store_acc(sa).with_dep(0, 1).with_dep(1, 2));
    env->doorbell();
    n_desc += 5;
    ASSERT_TRUE(env->wait_completed(n_desc)) << state();
    ASSERT_EQ(env->rd(regs::kErrCode), 0u);
    for (int j = 0; j < m; ++j) {
      for (uint32_t c = 0; c < kCols; ++c) {
        const uint64_t at = dst + uint64_t{static_cast<uint32_t>(j)} * stride + 4 * c;
        if (c < n) {
          int32_t acc = 0;
          for (int r = 0; r < k; ++r) acc += int32_t{a[j * k + r]} * int32_t{w[r * kCols + c]};
          EXPECT_EQ(static_cast<int32_t>(env->mem.load<uint32_t>(at)), acc) << "n=" << n << " row " << j << " col " << c;
        } else {
          EXPECT_EQ(env->mem.load<uint32_t>(at), 0xcdcdcdcdu) << "n=" << n << " row " << j << " col " << c;
        }
      }
      for (uint32_t b = 16; b < stride; ++b) EXPECT_EQ(env->mem.read8(dst + j * stride + b), 0xcd);
    }
  }
}

TEST_F(WEFT_SUITE, CompletionTimeoutEndsLoadWithSlverr) {
  check_read_error(sim::PcieFault::kDrop, ErrorCode::kSlverr, 1);
}
TEST_F(WEFT_SUITE, UnsupportedRequestEndsLoadWithDecerr) {
  check_read_error(sim::PcieFault::kUr, ErrorCode::kDecerr, 2);
}
TEST_F(WEFT_SUITE, CompleterAbortEndsLoadWithSlverr) {
  check_read_error(sim::PcieFault::kCa, ErrorCode::kSlverr, 3);
}
TEST_F(WEFT_SUITE, PoisonedCompletionEndsLoadWithSlverr) {
  check_read_error(sim::PcieFault::kPoison, ErrorCode::kSlverr, 4);
}

TEST_F(WEFT_SUITE, SpuriousCompletionsAreCountedAndDropped) {
  // A completion for an idle tag and one with the wrong requester ID: LINK_CPL_BAD counts them.
  env->rc.send_raw(sim::tlp_cpl(0, sim::tlp::kStatusSc, 16, env->rc.options().ep_id, 3, 0, {1, 2, 3, 4}));
  env->rc.send_raw(sim::tlp_cpl(0, sim::tlp::kStatusSc, 16, 0x0200, 4, 0, {1, 2, 3, 4}));
  env->rc.send_raw(sim::tlp_cpl(0, sim::tlp::kStatusUr, 16, env->rc.options().ep_id, 5, 0));
  EXPECT_TRUE(env->wait([&] { return env->rd(link::kCplBad) == 3; }, 5000, 8));
  EXPECT_EQ(env->rd(link::kErr), 0u);
  // The device still reads host memory correctly.
  setup();
  Copy c = make_copy(kSrc, kDst, 256, 2, 256, 256, 0);
  submit_copy(c);
  ASSERT_TRUE(env->wait_completed(2)) << state();
  expect_copied(c);
}

TEST_F(WEFT_SUITE, MsiSentOnInterruptWithProgrammedAddressAndData) {
  setup();
  env->wr(link::kMsiAddrLo, static_cast<uint32_t>(kMsiAddr));
  env->wr(link::kMsiAddrHi, 0);
  env->wr(link::kMsiData, 0x4D5349A7u);
  env->wr(regs::kIrqEnable, 1u);  // done
  // MSI disabled: the interrupt rises, no MSI.
  env->submit(Descriptor::nop().with_flags(weft::kFlagIrq));
  ASSERT_TRUE(env->wait_completed(1));
  env->steps(500);
  EXPECT_EQ(env->rc.stats().msi, 0u);
  env->wr(regs::kIrqStatus, 1u);  // W1C: irq_o falls
  // Enabled: one MSI per rising edge, after the completion record's write.
  env->wr(link::kCtrl, 1u);
  env->submit(Descriptor::nop().with_flags(weft::kFlagIrq));
  ASSERT_TRUE(env->wait([&] { return env->rc.stats().msi >= 1; }, 20000, 8));
  EXPECT_EQ(env->rc.stats().msi, 1u);
  EXPECT_EQ(env->rc.stats().last_msi_addr, kMsiAddr);
  EXPECT_EQ(env->rc.stats().last_msi_data, 0x4D5349A7u);
  EXPECT_EQ(env->mem.load<uint32_t>(kCpl), 2u);  // the record was written before the MSI arrived
  env->wr(regs::kIrqStatus, 1u);
  env->submit(Descriptor::nop().with_flags(weft::kFlagIrq));
  ASSERT_TRUE(env->wait([&] { return env->rc.stats().msi >= 2; }, 20000, 8));
  env->steps(500);
  EXPECT_EQ(env->rc.stats().msi, 2u);
  EXPECT_EQ(env->rd(link::kMsi), 2u);
  EXPECT_EQ(env->rd(link::kMwr), env->rc.stats().mwr);
}

TEST_F(WEFT_SUITE, DmaBandwidthOverTheLink) {
  // The default link model (Gen3 x4 at 250 MHz, 100 cycles each way, host memory 32 cycles, 64-B
  // completions): four 16 KiB LOADs, then four 16 KiB STOREs, each group submitted with one
  // doorbell; time from the doorbell to the completion record (so one descriptor fetch and the
  // record write are included). Printed as a fraction of the link's peak; loose lower bounds.
  sim::PcieRcOptions o;
  o.num_tags = kNumTags;
  o.max_payload = kMaxPayload;
  o.max_read_req = kMaxReadReq;
  o.seed = rng();
  make_env(o);
  setup();
  const uint32_t bytes = 16384;
  std::vector<uint8_t> data = random_bytes(bytes);
  env->mem.write(kSrc, data);
  const double peak = env->rc.peak_bytes_per_cycle();
  auto run = [&](bool load) {
    const uint32_t done0 = env->mem.load<uint32_t>(kCpl);
    for (int i = 0; i < 4; ++i) {
      Transfer2d t{load ? kSrc : kDst + uint64_t{bytes} * static_cast<uint64_t>(i), bytes, 1, bytes, 0, 0};
      env->put(load ? Descriptor::load(t) : Descriptor::store_spad(t));
    }
    env->doorbell();
    const uint64_t t0 = env->h.cycle();
    EXPECT_TRUE(env->wait([&] { return env->mem.load<uint32_t>(kCpl) == done0 + 4; }, 400000, 1))
        << state() << " record " << env->mem.load<uint32_t>(kCpl) << " from " << done0;
    const double bpc = 4.0 * bytes / static_cast<double>(env->h.cycle() - t0);
    weft::tb::verbose_printf(
        "[bw] %s 4 x 16 KiB: %.2f B/cycle = %.0f%% of the link peak %.2f B/cycle\n",
        load ? "LOAD " : "STORE", bpc, 100.0 * bpc / peak, peak);
    return bpc / peak;
  };
  env->mem.store<uint32_t>(kCpl, 0);
  const double rd = run(true);
  const double wr = run(false);
  ASSERT_EQ(env->rd(regs::kErrCode), 0u);
  for (int i = 0; i < 4; ++i) {
    const auto got = env->mem.read(kDst + uint64_t{bytes} * static_cast<uint64_t>(i), bytes);
    ASSERT_EQ(0, std::memcmp(got.data(), data.data(), bytes)) << "copy " << i;
  }
  EXPECT_GT(rd, 0.25);
  EXPECT_GT(wr, 0.6);
}

}  // namespace
