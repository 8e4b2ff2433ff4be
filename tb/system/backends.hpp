// The back ends every system test runs on (ref://, ref:// with random engine order, and sim:// —
// the Verilated weft_top — plain and stressed), and the fixture that opens one per test with the
// test's seed. Shared by test_system.cpp and test_simt.cpp (one binary, test_system).
#pragma once

#include <gtest/gtest.h>

#include <cstdio>
#include <filesystem>
#include <memory>
#include <ostream>
#include <random>
#include <string>
#include <vector>

#include "weft/tb/options.hpp"
#include "weft/weft.hpp"

namespace weft::tb::system {

struct Backend {
  std::string name;
  std::string uri;  // without the seed
  bool sim;         // simulated RTL: keep the work small
};

inline void PrintTo(const Backend& b, std::ostream* os) { *os << b.uri; }

inline std::string with_seed(const std::string& uri, uint64_t seed) {
  const bool has_q = uri.find('?') != std::string::npos;
  return uri + (has_q ? "&" : "?") + "seed=" + std::to_string(seed % 1000000007);
}

inline std::vector<Backend> backends() {
  std::vector<Backend> v = {{"Ref", "ref://", false},
                            {"RefRandomOrder", "ref://?sched=random", false}};
#ifdef WEFT_HAVE_SIM
  v.push_back({"Sim", "sim://?array=16x16", true});
  v.push_back({"SimStressed", "sim://?array=16x16&bp=0.3&latency=64", true});
#endif
  return v;
}

inline std::string backend_name(const ::testing::TestParamInfo<Backend>& i) { return i.param.name; }

// Opens the test's back end (seeded for the random ones, with waves under WEFT_TRACE=1).
class DeviceTest : public ::testing::TestWithParam<Backend> {
 protected:
  void SetUp() override {
    rng_ = weft::tb::make_rng();
    std::string uri = GetParam().uri;
    if (uri.find("sched=random") != std::string::npos || GetParam().sim) {
      uri = with_seed(uri, weft::tb::test_seed());
    }
    if (weft::tb::trace_enabled() && GetParam().sim) {
      const std::string wave = weft::tb::wave_file_for_current_test();
      std::filesystem::create_directories(std::filesystem::path(wave).parent_path());
      uri += "&trace=" + wave;
    }
    std::printf("[device] %s\n", uri.c_str());
    dev_ = std::make_unique<weft::Device>(weft::Device::open(uri));
  }

  bool sim() const { return GetParam().sim; }
  int rand_int(int lo, int hi) { return std::uniform_int_distribution<int>(lo, hi)(rng_); }

  std::mt19937_64 rng_;
  std::unique_ptr<weft::Device> dev_;
};

}  // namespace weft::tb::system
