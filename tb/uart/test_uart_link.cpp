// The uart:// driver's link layer over a real pseudo-terminal (weft::sim::BoardSim) against
// FakeBoard, a C++ bridge written from docs/host-interfaces.md: data moves exactly (chunking,
// unaligned ends), faults in both directions are survived by retransmission, duplicates of
// executed WRITEs are absorbed by the seq rule, a silent board gives a timeout error (not a
// hang), and bad URIs or a foreign device give errors that say what to fix. Malformed response
// frames (bad CRC, wrong lengths, garbage, truncated, oversized, bad escapes, stale seq, wrong
// cmd, unknown status) are retried when they are occasional and end in a named error when every
// response is malformed.
#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <cstdio>
#include <map>
#include <ostream>
#include <random>
#include <string>
#include <thread>
#include <vector>

#include "fake_board.hpp"
#include "weft/regs.hpp"
#include "weft/sim/board_sim.hpp"
#include "weft/tb/link_fault_checks.hpp"
#include "weft/tb/options.hpp"
#include "weft/weft.hpp"

namespace {

using weft::Errc;
using weft::tb::board::FakeBoard;
using Sim = weft::sim::BoardSim<FakeBoard>;

using weft::tb::board::link_stats;

std::unique_ptr<Sim> start(uint64_t seed) {
  FakeBoard::id_value = weft::uart::kBrIdValue;
  weft::sim::BoardSimConfig cfg;
  cfg.clks_per_bit = FakeBoard::kClksPerBit;
  cfg.seed = seed;
  return std::make_unique<Sim>(cfg);
}

// Random writes (unaligned offsets and sizes, some over several 256-byte frames) and reads back.
void exercise(weft::Device& dev, std::mt19937_64& rng, int rounds) {
  const uint64_t base = dev.arena_base() + 8192;
  std::vector<uint8_t> shadow(16384);
  dev.host_write(base, shadow.data(), shadow.size());
  for (int i = 0; i < rounds; ++i) {
    const size_t off = rng() % 15000, n = 1 + rng() % std::min<size_t>(1300, shadow.size() - off);
    std::vector<uint8_t> data(n);
    for (auto& b : data) b = rng() % 4 == 0 ? 0x7E : static_cast<uint8_t>(rng());
    dev.host_write(base + off, data.data(), n);
    std::copy(data.begin(), data.end(), shadow.begin() + off);
    const size_t roff = rng() % 15000, rn = 1 + rng() % std::min<size_t>(1000, shadow.size() - roff);
    std::vector<uint8_t> got(rn);
    dev.host_read(base + roff, got.data(), rn);
    ASSERT_TRUE(std::equal(got.begin(), got.end(), shadow.begin() + roff))
        << "read of " << rn << " B at +" << roff << " differs";
    // Many short WRITEs (CSR stores): their 5-byte responses are what a damaged response
    // usually hits, so these exercise the bridge's duplicate rule.
    uint32_t regs[24];
    for (int r = 0; r < 24; ++r) dev.write_reg(0x100 + 4 * r, regs[r] = static_cast<uint32_t>(rng()));
    for (int r = 0; r < 24; r += 5) ASSERT_EQ(dev.read_reg(0x100 + 4 * r), regs[r]);
  }
  std::vector<uint8_t> all(shadow.size());
  dev.host_read(base, all.data(), all.size());
  ASSERT_EQ(all, shadow);
}

TEST(UartLink, OpensAndMovesDataExactly) {
  auto sim = start(weft::tb::test_seed());
  auto rng = weft::tb::make_rng();
  weft::Device dev = weft::Device::open(sim->uri());
  EXPECT_EQ(dev.arena_base(), weft::uart::kMemBase);
  EXPECT_EQ(dev.arena_size(), 65536u);
  EXPECT_NE(dev.description().find(sim->pty_path()), std::string::npos) << dev.description();
  exercise(dev, rng, 40);
  auto s = link_stats(dev);
  for (const char* k : {"frames", "retries", "timeouts", "bad_responses", "br_frames",
                        "br_crc_err", "br_frame_err", "br_dups"})
    EXPECT_TRUE(s.count(k)) << k;
  EXPECT_GT(s["frames"], 100u);
  EXPECT_EQ(s["retries"], 0u);
  EXPECT_EQ(s["br_crc_err"] + s["br_frame_err"], 0u);
}

struct FaultCase {
  const char* name;
  weft::sim::LinkFaultRates to, from;
};

// GoogleTest prints the parameter of a failing test with this (not as a hex dump of the struct).
void PrintTo(const FaultCase& fc, std::ostream* os) {
  *os << fc.name << " (to board: drop " << fc.to.drop << " dup " << fc.to.dup << " flip "
      << fc.to.flip << "; from board: drop " << fc.from.drop << " dup " << fc.from.dup << " flip "
      << fc.from.flip << ")";
}

class UartLinkFaults : public ::testing::TestWithParam<FaultCase> {};

TEST_P(UartLinkFaults, DataStaysExactAndWritesRunOnce) {
  const FaultCase& fc = GetParam();
  auto sim = start(weft::tb::test_seed());
  auto rng = weft::tb::make_rng();
  weft::Device dev = weft::Device::open(sim->uri() + "&timeout_ms=60&retries=30");
  const uint64_t repeats0 = FakeBoard::write_seq_repeats;
  sim->set_faults(fc.to, fc.from);
  exercise(dev, rng, 20);
  sim->set_faults({}, {});
  weft::tb::board::expect_faults_handled(dev, fc.to, fc.from, sim->faults_to_board(),
                                         sim->faults_from_board());
  EXPECT_EQ(FakeBoard::write_seq_repeats, repeats0);
}

INSTANTIATE_TEST_SUITE_P(
    Faults, UartLinkFaults,
    ::testing::Values(FaultCase{"DropToBoard", {0.001, 0, 0}, {}},
                      FaultCase{"DupToBoard", {0, 0.001, 0}, {}},
                      FaultCase{"FlipToBoard", {0, 0, 0.001}, {}},
                      FaultCase{"DropFromBoard", {}, {0.003, 0, 0}},
                      FaultCase{"DupFromBoard", {}, {0, 0.003, 0}},
                      FaultCase{"FlipFromBoard", {}, {0, 0, 0.003}},
                      FaultCase{"Mixed", {0.0005, 0.0005, 0.0005}, {0.001, 0.001, 0.001}}),
    [](const auto& i) { return std::string(i.param.name); });

TEST(UartLink, SilentBoardIsATimeoutNotAHang) {
  auto sim = start(weft::tb::test_seed());
  weft::Device dev = weft::Device::open(sim->uri() + "&timeout_ms=50&retries=3");
  sim->set_faults({}, {1.0, 0, 0});  // every byte from the board is lost
  const auto t0 = std::chrono::steady_clock::now();
  try {
    dev.read_reg(weft::regs::kStatus);
    ADD_FAILURE() << "read succeeded";
  } catch (const weft::Error& e) {
    EXPECT_EQ(e.code(), Errc::kTimeout) << e.what();
    const std::string m = e.what();
    EXPECT_NE(m.find("0x"), std::string::npos) << m;
    EXPECT_NE(m.find("cable"), std::string::npos) << m;
    EXPECT_NE(m.find("baud"), std::string::npos) << m;
  }
  const double s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  EXPECT_LT(s, 2.0);  // 4 attempts of 50 ms
}

TEST(UartLink, ForeignDeviceIsNamed) {
  weft::sim::BoardSimConfig cfg;
  cfg.clks_per_bit = FakeBoard::kClksPerBit;
  FakeBoard::id_value = 0x12345678;  // read by the board's constructor
  Sim sim(cfg);
  try {
    weft::Device::open(sim.uri());
    ADD_FAILURE() << "opened";
  } catch (const weft::Error& e) {
    EXPECT_EQ(e.code(), Errc::kNoDevice) << e.what();
    EXPECT_NE(std::string(e.what()).find("0x12345678"), std::string::npos) << e.what();
    EXPECT_NE(std::string(e.what()).find("Weft board"), std::string::npos) << e.what();
  }
  FakeBoard::id_value = weft::uart::kBrIdValue;
}

TEST(UartLink, BadUrisNameTheProblem) {
  auto sim = start(1);
  auto expect = [](const std::string& uri, Errc code, const char* needle) {
    SCOPED_TRACE(uri);
    try {
      weft::Device::open(uri);
      ADD_FAILURE() << uri << " opened";
    } catch (const weft::Error& e) {
      EXPECT_EQ(e.code(), code) << e.what();
      EXPECT_NE(std::string(e.what()).find(needle), std::string::npos) << e.what();
    }
  };
  expect("uart://", Errc::kBadUri, "needs the serial device");
  expect("uart://?baud=115200", Errc::kBadUri, "needs the serial device");
  expect("uart://" + sim->pty_path() + "?baud=123456", Errc::kBadUri, "not a standard rate");
  expect("uart://" + sim->pty_path() + "?baud=fast", Errc::kBadUri, "baud");
  expect("uart://" + sim->pty_path() + "?retries=-1", Errc::kBadUri, "retries");
  expect("uart://" + sim->pty_path() + "?colour=blue", Errc::kBadUri, "colour");
  expect("uart:///dev/ttyNoSuchWeftBoard", Errc::kNoDevice, "plugged in");
  expect("uart:///dev/null", Errc::kNoDevice, "not a serial device");
}

// ------------------------------------------------------------------------ malformed responses
namespace u = weft::uart;

// A response body with a valid CRC from its fields (for malformed but CRC-clean responses).
std::vector<uint8_t> framed(const u::Response& r) { return u::encode_response(r); }

// The kinds of malformed response, each made from the good one.
struct Malform {
  const char* name;
  std::vector<uint8_t> (*make)(const u::Request&, const u::Response&, std::mt19937_64&);
  bool retried;  // occasional ones are survived by retransmission
};

std::vector<uint8_t> random_bytes(std::mt19937_64& rng, size_t n, bool flags) {
  std::vector<uint8_t> v(n);
  for (auto& b : v) {
    b = static_cast<uint8_t>(rng());
    if (!flags && b == u::kFlag) b = 0x11;
  }
  return v;
}

const Malform kMalforms[] = {
    {"BadCrc", [](const u::Request&, const u::Response& r, std::mt19937_64& rng) {
       std::vector<uint8_t> b = u::encode_response_body(r);
       b[b.size() - 1 - rng() % 2] ^= static_cast<uint8_t>(1 + rng() % 255);
       return u::frame(b);
     }, true},
    {"TruncatedBody", [](const u::Request&, const u::Response& r, std::mt19937_64& rng) {
       std::vector<uint8_t> b = u::encode_response_body(r);
       b.resize(1 + rng() % (b.size() - 1));
       return u::frame(b);
     }, true},
    {"UnclosedFrame", [](const u::Request&, const u::Response& r, std::mt19937_64& rng) {
       std::vector<uint8_t> f = framed(r);
       f.resize(1 + rng() % (f.size() - 2));  // the opening flag and less than the body
       return f;
     }, true},
    {"DataTooShort", [](const u::Request&, const u::Response& r, std::mt19937_64&) {
       u::Response x = r;
       if (!x.data.empty()) x.data.pop_back();
       else x.data.push_back(0);
       return framed(x);
     }, true},
    {"DataTooLong", [](const u::Request&, const u::Response& r, std::mt19937_64& rng) {
       u::Response x = r;
       for (size_t i = 1 + rng() % 8; i > 0; --i) x.data.push_back(static_cast<uint8_t>(rng()));
       return framed(x);
     }, true},
    {"WrongCmd", [](const u::Request&, const u::Response& r, std::mt19937_64&) {
       u::Response x = r;
       x.cmd ^= 3;
       return framed(x);
     }, true},
    {"StaleSeq", [](const u::Request&, const u::Response& r, std::mt19937_64& rng) {
       u::Response x = r;
       x.seq = static_cast<uint8_t>(x.seq - 1 - rng() % 4);
       return framed(x);
     }, true},
    {"Garbage", [](const u::Request&, const u::Response&, std::mt19937_64& rng) {
       return random_bytes(rng, 1 + rng() % 64, false);
     }, true},
    {"GarbageFrames", [](const u::Request&, const u::Response&, std::mt19937_64& rng) {
       std::vector<uint8_t> w;
       for (int i = 1 + int(rng() % 3); i > 0; --i) {
         const auto f = u::frame(random_bytes(rng, 1 + rng() % 40, true));
         w.insert(w.end(), f.begin(), f.end());
       }
       return w;
     }, true},
    {"Oversized", [](const u::Request&, const u::Response& r, std::mt19937_64& rng) {
       u::Response x = r;
       x.data = random_bytes(rng, 400 + rng() % 300, true);
       return framed(x);
     }, true},
    {"BadEscape", [](const u::Request&, const u::Response& r, std::mt19937_64& rng) {
       std::vector<uint8_t> f = framed(r);
       const size_t at = 1 + rng() % (f.size() - 2);
       f.insert(f.begin() + static_cast<std::ptrdiff_t>(at), {u::kEsc, 0x00});
       return f;
     }, true},
    {"EmptyFrames", [](const u::Request&, const u::Response&, std::mt19937_64&) {
       return std::vector<uint8_t>{u::kFlag, u::kFlag, u::kFlag, u::kFlag};
     }, true},
    {"Silence", [](const u::Request&, const u::Response&, std::mt19937_64&) {
       return std::vector<uint8_t>{};
     }, true},
    // A CRC-clean response whose status byte is none of the protocol's: not a damaged frame but
    // a board that answers something else (named, not retried).
    {"UnknownStatus", [](const u::Request&, const u::Response& r, std::mt19937_64&) {
       u::Response x = r;
       x.status = 0x55;
       x.data.clear();
       return framed(x);
     }, false},
};

// The mangler is installed once (FakeBoard::mangle runs in the board's thread); the test switches
// it with these.
std::atomic<int> g_malform{-1};        // index into kMalforms, -1: none
std::atomic<double> g_malform_rate{0};  // probability per response
std::atomic<uint64_t> g_malformed{0};   // responses damaged so far

void install_mangler(uint64_t seed) {
  static std::mt19937_64 rng;  // the board's thread only
  rng.seed(seed);
  FakeBoard::mangle = [](const u::Request& q, const u::Response& r) {
    const int k = g_malform.load();
    if (k < 0 || std::uniform_real_distribution<double>(0, 1)(rng) >= g_malform_rate.load()) {
      return u::encode_response(r);
    }
    ++g_malformed;
    return kMalforms[k].make(q, r, rng);
  };
}

class UartMalformed : public ::testing::TestWithParam<int> {
 protected:
  void SetUp() override { install_mangler(weft::tb::test_seed()); }
  void TearDown() override {
    g_malform = -1;
    FakeBoard::mangle = nullptr;  // the board is stopped by now
  }
};

// The kinds a driver survives by retransmission.
class UartMalformedRetried : public UartMalformed {};

// Every tenth response malformed (one kind per test): data still moves exactly, by
// retransmission, and the driver counted what it threw away.
TEST_P(UartMalformedRetried, OccasionalOnesAreRetriedAndDataStaysExact) {
  const Malform& k = kMalforms[GetParam()];
  auto sim = start(weft::tb::test_seed());
  auto rng = weft::tb::make_rng();
  weft::Device dev = weft::Device::open(sim->uri() + "&timeout_ms=40&retries=40");
  g_malformed = 0;
  g_malform_rate = 0.1;
  g_malform = GetParam();
  exercise(dev, rng, 3);
  g_malform = -1;
  auto s = link_stats(dev);
  EXPECT_GT(g_malformed.load(), 3u);
  EXPECT_GE(s["retries"], 1u) << k.name;
  weft::tb::verbose_printf("[%s] %llu malformed responses, %llu retries, %llu timeouts, %llu bad\n",
                           k.name, (unsigned long long)g_malformed.load(),
                           (unsigned long long)s["retries"], (unsigned long long)s["timeouts"],
                           (unsigned long long)s["bad_responses"]);
}

// Every response malformed: each access ends in a named error (TIMEOUT after the retries, or
// what an unknown status means) within its bounded time, never a crash or a hang; then, with the
// board well again, the same device works.
TEST_P(UartMalformed, AllMalformedEndsInANamedErrorThenRecovers) {
  const Malform& k = kMalforms[GetParam()];
  auto sim = start(weft::tb::test_seed());
  weft::Device dev = weft::Device::open(sim->uri() + "&timeout_ms=30&retries=3");
  g_malform_rate = 1.0;
  g_malform = GetParam();
  for (int op = 0; op < 3; ++op) {
    const auto t0 = std::chrono::steady_clock::now();
    try {
      if (op == 0) dev.read_reg(weft::regs::kStatus);
      if (op == 1) dev.write_reg(0x100, 0x12345678);
      if (op == 2) {
        uint8_t buf[300];
        dev.host_read(dev.arena_base(), buf, sizeof buf);
      }
      ADD_FAILURE() << k.name << ": operation " << op << " succeeded";
    } catch (const weft::Error& e) {
      if (k.retried) {
        EXPECT_EQ(e.code(), Errc::kTimeout) << k.name << ": " << e.what();
      } else {
        EXPECT_TRUE(e.code() == Errc::kBadArgument || e.code() == Errc::kSimulation) << e.what();
        EXPECT_NE(std::string(e.what()).find("unknown status"), std::string::npos) << e.what();
      }
    }
    const double s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    EXPECT_LT(s, 2.0) << k.name << ": 4 attempts of 30 ms";
  }
  // The board well again: once the damaged answers still on the line have drained (each stale
  // bad frame costs the driver an attempt), the same device works.
  g_malform = -1;
  bool ok = false;
  for (int attempt = 0; attempt < 5 && !ok; ++attempt) {
    std::this_thread::sleep_for(std::chrono::milliseconds(100));
    try {
      dev.write_reg(0x100, 0xCAFEF00D);
      ok = dev.read_reg(0x100) == 0xCAFEF00Du;
    } catch (const weft::Error& e) {
      EXPECT_EQ(e.code(), Errc::kTimeout) << e.what();
    }
  }
  EXPECT_TRUE(ok) << k.name << ": no recovery";
}

// Opening a device that answers only malformed frames: a named error, not a crash.
TEST(UartLink, OpenOverMalformedResponsesIsNamed) {
  install_mangler(weft::tb::test_seed());
  auto sim = start(weft::tb::test_seed());
  for (int k = 0; k < int(std::size(kMalforms)); ++k) {
    SCOPED_TRACE(kMalforms[k].name);
    g_malform_rate = 1.0;
    g_malform = k;
    try {
      weft::Device::open(sim->uri() + "&timeout_ms=20&retries=1");
      ADD_FAILURE() << "opened";
    } catch (const weft::Error& e) {
      EXPECT_TRUE(e.code() == Errc::kTimeout || e.code() == Errc::kNoDevice) << e.what();
    }
  }
  g_malform = -1;
  sim.reset();
  FakeBoard::mangle = nullptr;
}

std::string malform_name(const ::testing::TestParamInfo<int>& i) {
  return kMalforms[i.param].name;
}
std::vector<int> retried_kinds() {
  std::vector<int> v;
  for (int k = 0; k < int(std::size(kMalforms)); ++k) {
    if (kMalforms[k].retried) v.push_back(k);
  }
  return v;
}
INSTANTIATE_TEST_SUITE_P(Kinds, UartMalformed, ::testing::Range(0, int(std::size(kMalforms))),
                         malform_name);
INSTANTIATE_TEST_SUITE_P(Kinds, UartMalformedRetried, ::testing::ValuesIn(retried_kinds()),
                         malform_name);

}  // namespace
