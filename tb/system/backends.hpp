// The back ends every system test runs on (ref://, ref:// with random engine order, and sim:// —
// the Verilated weft_top — plain and stressed), and the fixture that opens one per test with the
// test's seed. Shared by test_system.cpp and test_simt.cpp (one binary, test_system).
#pragma once

#include <gtest/gtest.h>

#include <cstdio>
#include <memory>
#include <optional>
#include <ostream>
#include <random>
#include <string>
#include <vector>

#include "weft/tb/options.hpp"
#include "weft/weft.hpp"
#ifdef WEFT_SYSTEM_UART
#include "weft/tb/board_fixture.hpp"
#endif

namespace weft::tb::system {

struct Backend {
  std::string name;
  std::string uri;  // without the seed
  bool sim;         // simulated RTL: keep the work small
  // uart:// (tb/uart, test_system_uart): the device's host memory in bytes (0: ample) and a
  // simulated weft_board (8x8, no bus-fault injection, slow link) behind a pty per test.
  uint64_t max_host_bytes = 0;
  bool uart = false;
};

inline void PrintTo(const Backend& b, std::ostream* os) { *os << b.uri; }

inline std::string with_seed(const std::string& uri, uint64_t seed) {
  const bool has_q = uri.find('?') != std::string::npos;
  return uri + (has_q ? "&" : "?") + "seed=" + std::to_string(seed % 1000000007);
}

inline std::vector<Backend> backends() {
#ifdef WEFT_SYSTEM_UART
  return {{"Uart", "uart://", true, 64u << 10, true}};  // only uart:// in test_system_uart
#endif
  std::vector<Backend> v = {{"Ref", "ref://", false},
                            {"RefRandomOrder", "ref://?sched=random", false}};
#ifdef WEFT_HAVE_SIM
  v.push_back({"Sim", "sim://?array=16x16", true});
  v.push_back({"SimStressed", "sim://?array=16x16&bp=0.3&latency=64", true});
#endif
#ifdef WEFT_HAVE_PCIE
  v.push_back({"PcieSim", "pcie-sim://?array=16x16", true});
  v.push_back({"PcieSimJitter", "pcie-sim://?array=16x16&jitter=200&bp=0.2", true});
#endif
  return v;
}

// A small valid LOAD/STORE_SPAD transfer of buffer `b`: 2 rows of 32 bytes at scratchpad line
// 100, line stride 2 (lines 100..103).
inline weft::Transfer2d small_transfer(const weft::Buffer& b) {
  weft::Transfer2d t;
  t.host_addr = b.device_address();
  t.row_bytes = 32;
  t.rows = 2;
  t.host_stride = 32;
  t.spad_addr = 100;
  t.spad_stride = 2;
  return t;
}

inline std::string backend_name(const ::testing::TestParamInfo<Backend>& i) { return i.param.name; }

// Opens the test's back end (seeded for the random ones, with waves under WEFT_TRACE=1).
class DeviceTest : public ::testing::TestWithParam<Backend> {
 protected:
  void SetUp() override {
    rng_ = weft::tb::make_rng();
    std::string uri = GetParam().uri;
#ifdef WEFT_SYSTEM_UART
    if (GetParam().uart) {  // a fresh simulated board per test, seeded like the test
      board_ =
          weft::tb::board::start_board(weft::tb::test_seed(), weft::tb::wave_file_if_tracing());
      uri = board_->uri();
      weft::tb::verbose_printf("[device] %s\n", uri.c_str());
      dev_ = std::make_unique<weft::Device>(weft::Device::open(uri));
      return;
    }
#endif
    if (uri.find("sched=random") != std::string::npos || GetParam().sim) {
      uri = with_seed(uri, weft::tb::test_seed());
    }
    if (GetParam().sim) {
      if (const std::string wave = weft::tb::wave_file_if_tracing(); !wave.empty()) {
        uri += "&trace=" + wave;
      }
    }
    weft::tb::verbose_printf("[device] %s\n", uri.c_str());
    dev_ = std::make_unique<weft::Device>(weft::Device::open(uri));
  }

  // Links that count tags (pcie-sim://): after every test the endpoint's tag pool is full again
  // (given time for outstanding reads and completion timeouts to finish).
  void TearDown() override {
    if (!dev_) return;
    try {
      const auto total = dev_->link_stat("tags_total");
      if (!total) return;
      std::optional<uint64_t> free = dev_->link_stat("tags_free");
      for (int i = 0; i < 400 && free && *free != *total; ++i) {
        dev_->run(1000);
        free = dev_->link_stat("tags_free");
      }
      EXPECT_EQ(free.value_or(0), *total) << "tags not returned to the pool after the test";
    } catch (const std::exception& e) {
      ADD_FAILURE() << "reading the link's tag pool after the test: " << e.what();
    }
  }

  bool pcie() const { return GetParam().uri.rfind("pcie-sim://", 0) == 0; }
  bool sim() const { return GetParam().sim; }
  // A small host memory (uart://: the board's 64 KiB) and a slow link: tests shrink their shapes.
  bool small_host() const { return GetParam().max_host_bytes != 0; }
  int rand_int(int lo, int hi) { return std::uniform_int_distribution<int>(lo, hi)(rng_); }
  std::vector<uint8_t> rand_bytes(size_t n) {
    std::vector<uint8_t> v(n);
    for (auto& b : v) b = static_cast<uint8_t>(rng_());
    return v;
  }
  // 8-bit operand bytes as their values (int8 or uint8).
  static std::vector<int32_t> values(const std::vector<uint8_t>& b, bool is_signed) {
    std::vector<int32_t> v(b.size());
    for (size_t i = 0; i < b.size(); ++i) v[i] = is_signed ? int8_t(b[i]) : b[i];
    return v;
  }

  std::mt19937_64 rng_;
#ifdef WEFT_SYSTEM_UART
  std::unique_ptr<weft::tb::board::SimBoard> board_;  // outlives dev_
#endif
  std::unique_ptr<weft::Device> dev_;
};

}  // namespace weft::tb::system
