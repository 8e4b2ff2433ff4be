// Link faults over pcie-sim:// (weft_pcie_top behind the root-complex model): each fault kind on
// the host range of a LOAD operand stops the queue with the expected device error (SLVERR /
// DECERR), the driver names the link's account (completion timeout, Unsupported Request,
// Completer Abort, poisoned data), the device writes nothing outside its window, the tag pool
// refills, and after Queue::reset() a GEMM is bit-exact against weft::golden. Also random faults
// (every failing command named, recovery each time) and MSI counting. docs/host-interfaces.md.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <memory>
#include <ostream>
#include <random>
#include <string>
#include <vector>

#include "backends.hpp"
#include "weft/golden/quant.hpp"
#include "weft/regs.hpp"
#include "weft/tb/options.hpp"
#include "weft/weft.hpp"

namespace {

using weft::Errc;
using weft::ErrorCode;
using weft::LinkFault;
using weft::tb::system::small_transfer;

// Completion timeout for the tests (cycles): well above a round trip (2 x 100 + 32 + a few TLPs)
// so only dropped completions time out, short enough to keep the binary fast.
constexpr int kCplTimeout = 3000;

class PcieLink : public ::testing::Test {
 protected:
  void open(const std::string& extra = "") {
    const std::string uri = "pcie-sim://?array=16x16&cpl_timeout=" + std::to_string(kCplTimeout) +
                            "&seed=" + std::to_string(weft::tb::test_seed() % 1000000007) + extra +
                            [] {
                              const std::string w = weft::tb::wave_file_if_tracing();
                              return w.empty() ? w : "&trace=" + w;
                            }();
    weft::tb::verbose_printf("[device] %s\n", uri.c_str());
    dev_ = std::make_unique<weft::Device>(weft::Device::open(uri));
    rng_ = weft::tb::make_rng();
  }
  void TearDown() override {
    if (dev_) expect_tags_full();
  }

  uint64_t stat(const char* name) {
    const auto v = dev_->link_stat(name);
    EXPECT_TRUE(v.has_value()) << "link_stat " << name;
    return v.value_or(0);
  }
  // The endpoint's tag pool is full again (waiting out completion timeouts if needed).
  void expect_tags_full() {
    const uint64_t total = stat("tags_total");
    uint64_t free = stat("tags_free");
    for (int i = 0; i < 100 && free != total; ++i) {
      dev_->run(500);
      free = stat("tags_free");
    }
    EXPECT_EQ(free, total) << "tag pool not full";
    EXPECT_EQ(total, 32u);
  }
  void expect_writes_inside_arena() {
    for (const auto& [addr, len] : dev_->take_device_writes()) {
      EXPECT_TRUE(addr >= dev_->arena_base() &&
                  addr + len <= dev_->arena_base() + dev_->arena_size())
          << "device wrote " << len << " bytes at 0x" << std::hex << addr << " outside the window";
    }
  }

  // A GEMM with INT32 output, compared element by element with weft::golden::gemm.
  void check_gemm(int m, int n, int k) {
    std::vector<uint8_t> a(size_t(m) * k), w(size_t(k) * n);
    for (auto& x : a) x = static_cast<uint8_t>(rng_());
    for (auto& x : w) x = static_cast<uint8_t>(rng_());
    weft::GemmOptions opt;
    opt.a = {true, 3};
    opt.w = {false, 128};
    opt.out.mode = weft::StoreMode::kInt32;
    std::vector<int32_t> out(size_t(m) * n);
    weft::gemm(*dev_, m, n, k, a, w, out, opt);
    std::vector<int32_t> av(a.size()), wv(w.size());
    for (size_t i = 0; i < a.size(); ++i) av[i] = int8_t(a[i]);
    for (size_t i = 0; i < w.size(); ++i) wv[i] = w[i];
    const auto want = weft::golden::gemm(av, wv, m, k, n, {true, 3}, {false, 128});
    size_t bad = 0;
    for (size_t i = 0; i < out.size(); ++i) {
      if (out[i] != want[i] && bad++ < 5) {
        ADD_FAILURE() << "C[" << i / n << "][" << i % n << "] = " << out[i] << ", golden " << want[i];
      }
    }
    EXPECT_EQ(bad, 0u);
  }

  std::mt19937_64 rng_;
  std::unique_ptr<weft::Device> dev_;
};

struct FaultCase {
  LinkFault fault;
  ErrorCode code;
  const char* link_name;
};

// GoogleTest prints the parameter of a failing test with this (not as a hex dump of the struct).
void PrintTo(const FaultCase& fc, std::ostream* os) {
  *os << "fault " << static_cast<int>(fc.fault) << " -> " << weft::error_name(fc.code) << " ("
      << fc.link_name << ")";
}

class PcieFaults : public PcieLink, public ::testing::WithParamInterface<FaultCase> {};

TEST_P(PcieFaults, LoadOperandFaultStopsTheQueueNamedByTheLinkThenResetRecovers) {
  open();
  const FaultCase fc = GetParam();
  auto& q = dev_->queue();
  weft::Buffer b = dev_->alloc(4096);
  b.fill(0x5a);
  const weft::Transfer2d t = small_transfer(b);
  q.wait(q.submit(weft::Descriptor::nop()));
  dev_->take_device_writes();
  dev_->inject_link_fault(fc.fault, b.device_address() + 16, b.device_address() + 32);
  const uint64_t i = q.submit(weft::Descriptor::load(t));
  try {
    q.wait(i, {.cycles = 200000});
    ADD_FAILURE() << "no error";
  } catch (const weft::Error& e) {
    EXPECT_TRUE(e.is_device_error()) << e.what();
    EXPECT_NE(std::string(e.what()).find(weft::error_name(fc.code)), std::string::npos) << e.what();
    EXPECT_NE(std::string(e.what()).find(fc.link_name), std::string::npos) << e.what();
    EXPECT_EQ(e.index(), i);
  }
  const auto err = q.error();
  ASSERT_TRUE(err.has_value());
  EXPECT_EQ(err->code, fc.code) << err->to_string();
  EXPECT_EQ(err->index, i);
  EXPECT_NE(err->link.find(fc.link_name), std::string::npos) << err->link;
  EXPECT_NE(err->link.find("tag "), std::string::npos) << err->link;
  EXPECT_NE(err->link.find("address 0x"), std::string::npos) << err->link;
  EXPECT_EQ(stat("faults"), 1u);
  expect_writes_inside_arena();
  expect_tags_full();
  dev_->clear_link_faults();
  q.reset();
  EXPECT_FALSE(q.error().has_value());
  // The link's error record was cleared with the queue.
  EXPECT_EQ(dev_->read_reg(0x1010), 0u) << "LINK_ERR after Queue::reset()";
  check_gemm(20, 24, 40);
  expect_writes_inside_arena();
}

INSTANTIATE_TEST_SUITE_P(
    Kinds, PcieFaults,
    ::testing::Values(FaultCase{LinkFault::kDropCompletion, ErrorCode::kSlverr, "completion timeout"},
                      FaultCase{LinkFault::kUnsupportedRequest, ErrorCode::kDecerr,
                                "Unsupported Request"},
                      FaultCase{LinkFault::kCompleterAbort, ErrorCode::kSlverr, "Completer Abort"},
                      FaultCase{LinkFault::kPoisoned, ErrorCode::kSlverr, "poisoned"}),
    [](const ::testing::TestParamInfo<FaultCase>& i) {
      switch (i.param.fault) {
        case LinkFault::kDropCompletion: return std::string("DroppedCompletion");
        case LinkFault::kUnsupportedRequest: return std::string("UnsupportedRequest");
        case LinkFault::kCompleterAbort: return std::string("CompleterAbort");
        case LinkFault::kPoisoned: return std::string("Poisoned");
        default: return std::string("Unknown");
      }
    });

// Malformed completions (docs/host-interfaces.md 1.3, case 5; docs/fuzz.md): a truncated or
// overlong CplD, a wrong tag, Byte Count or Lower Address, random header fields, on the first
// completion of a LOAD's read. The endpoint counts each in LINK_CPL_BAD and drops it (none of
// its beats is used, an overlong CplD's within its Length included); the LOAD then stops the
// queue with SLVERR at its index, named "completion timeout" by the link, and its STORE_SPAD
// writes nothing. No tag is lost, nothing is written outside the window, and after
// Queue::reset() a GEMM is bit-exact.
class PcieMalformed : public PcieLink, public ::testing::WithParamInterface<LinkFault> {};

TEST_P(PcieMalformed, CompletionIsDroppedAndCountedTheLoadFailsNamedThenResetRecovers) {
  open();
  auto& q = dev_->queue();
  weft::Buffer b = dev_->alloc(4096), dst = dev_->alloc(4096);
  std::vector<uint8_t> data(4096);
  for (auto& x : data) x = static_cast<uint8_t>(rng_());
  b.write(0, data.data(), data.size());
  dst.fill(0);
  weft::Transfer2d t = small_transfer(b);
  t.rows = 4;  // 4 x 32 contiguous bytes: a read of several completions
  q.wait(q.submit(weft::Descriptor::nop()));
  dev_->take_device_writes();
  const uint64_t bad0 = stat("cpl_bad");
  dev_->inject_link_fault(GetParam(), b.device_address() + 32, b.device_address() + 48);
  const uint64_t i = q.submit(weft::Descriptor::load(t));
  weft::Transfer2d back = t;
  back.host_addr = dst.device_address();
  const uint64_t j = q.submit(weft::Descriptor::store_spad(back), {i});
  try {
    q.wait(j, {.cycles = 200000});
    ADD_FAILURE() << "the read completed: the malformed completion was used, not dropped";
  } catch (const weft::Error& e) {
    weft::tb::verbose_printf("[malformed %d] %s\n", int(GetParam()), e.what());
    EXPECT_EQ(e.code(), Errc::kSlverr) << e.what();
    EXPECT_EQ(e.index(), i) << e.what();
    EXPECT_NE(std::string(e.what()).find("completion timeout"), std::string::npos) << e.what();
    const auto err = q.error();
    ASSERT_TRUE(err.has_value());
    EXPECT_EQ(err->code, ErrorCode::kSlverr) << err->to_string();
    EXPECT_EQ(err->index, i);
  }
  EXPECT_EQ(dst.read<uint8_t>(128), std::vector<uint8_t>(128, 0)) << "the STORE_SPAD ran";
  EXPECT_GE(stat("faults"), 1u);
  EXPECT_GT(stat("cpl_bad"), bad0) << "the malformed completion was not counted";
  expect_writes_inside_arena();
  expect_tags_full();
  dev_->clear_link_faults();
  q.reset();
  EXPECT_FALSE(q.error().has_value());
  check_gemm(20, 24, 40);
  expect_writes_inside_arena();
  EXPECT_EQ(stat("rx_bad"), 0u);
}

INSTANTIATE_TEST_SUITE_P(
    Kinds, PcieMalformed,
    ::testing::Values(LinkFault::kTruncated, LinkFault::kOverlong, LinkFault::kBadTag,
                      LinkFault::kBadByteCount, LinkFault::kBadLowerAddress, LinkFault::kGarbage),
    [](const ::testing::TestParamInfo<LinkFault>& i) {
      switch (i.param) {
        case LinkFault::kTruncated: return std::string("Truncated");
        case LinkFault::kOverlong: return std::string("Overlong");
        case LinkFault::kBadTag: return std::string("BadTag");
        case LinkFault::kBadByteCount: return std::string("BadByteCount");
        case LinkFault::kBadLowerAddress: return std::string("BadLowerAddress");
        case LinkFault::kGarbage: return std::string("Garbage");
        default: return std::string("Other");
      }
    });

// Malformed completions at random on every device read (ring fetches included), several kinds
// per run: each failing command is named, the device recovers each time.
TEST_F(PcieLink, RandomMalformedCompletionsAreEachNamedAndRecoveredFrom) {
  auto& q = [&]() -> weft::Queue& {
    open("&fault=garbage&fault_rate=0.1&jitter=30");
    return dev_->queue();
  }();
  weft::Buffer src = dev_->alloc(4096), dst = dev_->alloc(4096);
  int failed = 0, passed = 0;
  for (int round = 0; round < 20; ++round) {
    std::vector<uint8_t> data(64);
    for (auto& x : data) x = static_cast<uint8_t>(rng_());
    src.write(0, data.data(), data.size());
    dst.fill(0);
    weft::Transfer2d t = small_transfer(src);
    try {
      const uint64_t i0 = q.submit(weft::Descriptor::load(t));
      t.host_addr = dst.device_address();
      q.wait(q.submit(weft::Descriptor::store_spad(t), {i0}), {.cycles = 200000});
      EXPECT_EQ(dst.read<uint8_t>(64), data) << "round " << round;
      ++passed;
    } catch (const weft::Error& e) {
      ASSERT_TRUE(e.is_device_error()) << e.what();
      const auto err = q.error();
      ASSERT_TRUE(err.has_value()) << e.what();
      EXPECT_EQ(err->code, ErrorCode::kSlverr) << err->to_string();
      EXPECT_NE(err->link.find("completion timeout"), std::string::npos) << err->to_string();
      ++failed;
      expect_tags_full();
      q.reset();
    }
    expect_writes_inside_arena();
  }
  EXPECT_GT(failed, 0);
  EXPECT_GT(stat("cpl_bad"), 0u);
  dev_->clear_link_faults();
  q.reset();
  check_gemm(16, 16, 32);
}

// Random faults on every device read (ring fetches included): each command that fails is named
// by the link, and the device recovers every time.
TEST_F(PcieLink, RandomFaultsAreEachNamedAndRecoveredFrom) {
  open("&fault_rate=0.15&jitter=50");
  auto& q = dev_->queue();
  weft::Buffer src = dev_->alloc(4096), dst = dev_->alloc(4096);
  int failed = 0, passed = 0;
  for (int round = 0; round < 30; ++round) {
    std::vector<uint8_t> data(64);
    for (auto& x : data) x = static_cast<uint8_t>(rng_());
    src.write(0, data.data(), data.size());
    dst.fill(0);
    weft::Transfer2d t = small_transfer(src);
    try {
      const uint64_t i0 = q.submit(weft::Descriptor::load(t));
      t.host_addr = dst.device_address();
      const uint64_t i1 = q.submit(weft::Descriptor::store_spad(t), {i0});
      q.wait(i1, {.cycles = 200000});
      EXPECT_EQ(dst.read<uint8_t>(64), data) << "round " << round;
      ++passed;
    } catch (const weft::Error& e) {
      ASSERT_TRUE(e.is_device_error()) << e.what();
      const auto err = q.error();
      ASSERT_TRUE(err.has_value()) << e.what();
      EXPECT_TRUE(err->code == ErrorCode::kSlverr || err->code == ErrorCode::kDecerr)
          << err->to_string();
      const std::string& l = err->link;
      EXPECT_TRUE(l.find("completion timeout") != std::string::npos ||
                  l.find("Unsupported Request") != std::string::npos ||
                  l.find("Completer Abort") != std::string::npos ||
                  l.find("poisoned") != std::string::npos)
          << "round " << round << ": " << err->to_string();
      ++failed;
      expect_tags_full();
      q.reset();
    }
    expect_writes_inside_arena();
  }
  weft::tb::verbose_printf("[random faults] %d rounds failed, %d passed, %llu faults injected\n",
                           failed, passed, static_cast<unsigned long long>(stat("faults")));
  EXPECT_GT(failed, 0);
  EXPECT_GT(passed, 0);
  dev_->clear_link_faults();
  q.reset();
  check_gemm(16, 16, 32);
}

// One MSI per rising edge of the interrupt: a descriptor with the IRQ flag sends one MSI; none
// while IRQ_STATUS stays set; one again after it was cleared. Descriptors without the flag send
// none.
TEST_F(PcieLink, MsiCountedOncePerCompletionInterrupt) {
  open();
  auto& q = dev_->queue();
  const uint64_t m0 = stat("msi");
  q.wait(q.submit(weft::Descriptor::nop()));
  dev_->run(1000);
  EXPECT_EQ(stat("msi"), m0) << "MSI without an IRQ flag";
  for (int r = 1; r <= 3; ++r) {
    dev_->write_reg(weft::regs::kIrqStatus, 0xffffffffu);  // W1C
    q.wait(q.submit(weft::Descriptor::nop().with_flags(weft::kFlagIrq)));
    dev_->run(1000);  // the MSI crosses the link
    EXPECT_EQ(stat("msi"), m0 + r) << "round " << r;
    EXPECT_EQ(stat("msi_sent"), m0 + r) << "LINK_MSI, round " << r;
  }
  // A second IRQ descriptor while IRQ_STATUS.done is still set: no new edge, no MSI.
  q.wait(q.submit(weft::Descriptor::nop().with_flags(weft::kFlagIrq)));
  dev_->run(1000);
  EXPECT_EQ(stat("msi"), m0 + 3);
}

// The link's counters are consistent with what the tests did.
TEST_F(PcieLink, LinkStatsAreReported) {
  open();
  const auto s = dev_->link_stats();
  std::vector<std::string> names;
  for (const auto& [k, v] : s) names.push_back(k);
  for (const char* n : {"tags_total", "tags_free", "mrd", "mwr", "msi", "cpl_bad", "rx_bad",
                        "link_bytes_rx", "link_bytes_tx", "link_peak_bytes_per_cycle", "faults"}) {
    EXPECT_NE(std::find(names.begin(), names.end(), n), names.end()) << n;
  }
  // Gen3 x4 at 250 MHz: 4 x 8e9 x 128/130 / 8 / 250e6 = 15.75 B/cycle.
  EXPECT_EQ(stat("link_peak_bytes_per_cycle"), 15u);
  EXPECT_EQ(stat("cpl_bad"), 0u);
  EXPECT_EQ(stat("rx_bad"), 0u);
  EXPECT_GT(stat("link_bytes_tx"), 0u);
  EXPECT_FALSE(dev_->description().empty());
}

}  // namespace
