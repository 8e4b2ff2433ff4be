#include "weft/tb/options.hpp"

#include <gtest/gtest.h>

#include <cstdarg>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <map>
#include <string>

namespace weft::tb {
namespace {

bool g_trace_flag = false;
bool g_verbose_flag = false;
bool g_seed_given = false;
uint64_t g_seed_value = 0;

std::string env_or(const char* name, const std::string& fallback) {
  const char* v = std::getenv(name);
  return (v && *v) ? std::string(v) : fallback;
}

std::string current_test_stem() {
  const auto* info = ::testing::UnitTest::GetInstance()->current_test_info();
  if (!info) return "standalone";
  std::string stem = std::string(info->test_suite_name()) + "_" + info->name();
  for (char& c : stem) {
    if (c == '/' || c == ' ') c = '_';
  }
  return stem;
}

}  // namespace

uint64_t test_seed() {
  // One seed per test: drawn (or read) at the first call inside the test, then stable.
  static std::map<std::string, uint64_t> seeds;
  const auto* info = ::testing::UnitTest::GetInstance()->current_test_info();
  const std::string key =
      info ? std::string(info->test_suite_name()) + "." + info->name() : std::string("standalone");
  auto it = seeds.find(key);
  if (it != seeds.end()) return it->second;
  uint64_t seed;
  if (g_seed_given) {
    seed = g_seed_value;
  } else if (const char* env = std::getenv("WEFT_SEED"); env && *env) {
    seed = std::strtoull(env, nullptr, 0);
  } else if (!info) {
    seed = 1;  // outside a test (the benches): fixed, so a figure does not move between runs
  } else {
    std::random_device rd;
    seed = (static_cast<uint64_t>(rd()) << 32) ^ rd();
  }
  seeds[key] = seed;
  // Once per test, where the harness draws it; never for the fixed seed of a bench.
  if (info) {
    std::printf("[seed] %s WEFT_SEED=%llu\n", key.c_str(), static_cast<unsigned long long>(seed));
    std::fflush(stdout);
  }
  if (info) ::testing::Test::RecordProperty("seed", std::to_string(seed));
  return seed;
}

std::mt19937_64 make_rng() { return std::mt19937_64(test_seed()); }

bool trace_enabled() {
  if (g_trace_flag) return true;
  const char* v = std::getenv("WEFT_TRACE");
  return v && *v && std::strcmp(v, "0") != 0;
}

bool verbose() {
  if (g_verbose_flag) return true;
  const char* v = std::getenv("WEFT_VERBOSE");
  return v && *v && std::strcmp(v, "0") != 0;
}

void verbose_printf(const char* fmt, ...) {
  if (!verbose()) return;
  va_list ap;
  va_start(ap, fmt);
  std::vprintf(fmt, ap);
  va_end(ap);
  std::fflush(stdout);
}

std::string wave_file_for_current_test() {
  return env_or("WEFT_WAVE_DIR", WEFT_DEFAULT_WAVE_DIR) + "/" + current_test_stem() + ".fst";
}

std::string wave_file_if_tracing() {
  if (!trace_enabled()) return "";
  const std::string path = wave_file_for_current_test();
  std::filesystem::create_directories(std::filesystem::path(path).parent_path());
  std::printf("[waves] %s\n", path.c_str());
  std::fflush(stdout);
  return path;
}

std::string coverage_file_for_current_test() {
  return env_or("WEFT_COVERAGE_DIR", WEFT_DEFAULT_COVERAGE_DIR) + "/" + current_test_stem() + ".dat";
}

std::string vector_dir() { return env_or("WEFT_VECTOR_DIR", WEFT_DEFAULT_VECTOR_DIR); }

void parse_options(int* argc, char** argv) {
  int out = 1;
  for (int i = 1; i < *argc; ++i) {
    if (std::strcmp(argv[i], "--trace") == 0) {
      g_trace_flag = true;
    } else if (std::strcmp(argv[i], "--verbose") == 0) {
      g_verbose_flag = true;
    } else if (std::strncmp(argv[i], "--seed=", 7) == 0) {
      g_seed_given = true;
      g_seed_value = std::strtoull(argv[i] + 7, nullptr, 0);
    } else {
      argv[out++] = argv[i];
    }
  }
  *argc = out;
  argv[out] = nullptr;
}

}  // namespace weft::tb
