// Malformed device URIs (docs/driver.md, "Back ends and URIs"; docs/fuzz.md): every one that
// Device::open refuses is a weft::Error naming the problem (BAD_URI for the text, NO_DEVICE for
// a path that is not a device) -- unknown schemes, paths where none is taken, options that are
// not key=value, unknown options, values that are not numbers, overflow 64 bits or leave their
// range, arrays that are not RxC or name files outside the plugin directory. Then random and
// mutated URIs: Device::open either opens a device or throws weft::Error, nothing else.
#include <gtest/gtest.h>

#include <cstdio>
#include <filesystem>
#include <map>
#include <random>
#include <string>
#include <typeinfo>
#include <vector>

#include "weft/tb/options.hpp"
#include "weft/weft.hpp"

namespace {

using weft::Device;
using weft::Errc;

struct Bad {
  std::string uri;
  Errc code;
  std::string phrase;  // in the message
};

std::vector<Bad> bad_uris() {
  std::vector<Bad> v = {
      {"", Errc::kBadUri, "not a device URI"},
      {"ref", Errc::kBadUri, "not a device URI"},
      {"ref:/", Errc::kBadUri, "not a device URI"},
      {"://", Errc::kBadUri, "unknown scheme '://'"},
      {"REF://", Errc::kBadUri, "unknown scheme 'REF://'"},
      {"gpu://?x=1", Errc::kBadUri, "unknown scheme 'gpu://'"},
      {"ref://somewhere", Errc::kBadUri, "takes no path"},
      {"sim:///dev/ttyUSB0", Errc::kBadUri, "takes no path"},
      {"ref://?seed", Errc::kBadUri, "not key=value"},
      {"ref://?=5", Errc::kBadUri, "not key=value"},
      {"ref://?seed=1&&&=", Errc::kBadUri, "not key=value"},
      {"ref://?colour=blue", Errc::kBadUri, "unknown option 'colour'"},
      {"ref://?seed=", Errc::kBadUri, "seed"},
      {"ref://?seed=x", Errc::kBadUri, "expected an unsigned integer"},
      {"ref://?seed=-1", Errc::kBadUri, "expected an unsigned integer"},
      {"ref://?seed=1.5", Errc::kBadUri, "expected an unsigned integer"},
      {"ref://?seed=1e3", Errc::kBadUri, "expected an unsigned integer"},
      {"ref://?seed=%201", Errc::kBadUri, "expected an unsigned integer"},
      {"ref://?seed=18446744073709551616", Errc::kBadUri, "expected an unsigned integer"},
      {"ref://?seed=99999999999999999999999999", Errc::kBadUri, "expected an unsigned integer"},
      {"ref://?seed=0x", Errc::kBadUri, "expected an unsigned integer"},
      {"ref://?mem=0", Errc::kBadUri, "mem"},
      {"ref://?mem=1", Errc::kBadUri, "mem"},
      {"ref://?mem=18446744073709551615", Errc::kBadUri, "mem"},
      {"ref://?mem=1000000", Errc::kBadUri, "multiple of 4096"},
      {"ref://?membase=0x100000800", Errc::kBadUri, "multiple of 4096"},
      {"ref://?membase=0xFFFFFFFFFFFFF000", Errc::kBadUri, "membase"},
      {"ref://?ring=0", Errc::kBadUri, "ring"},
      {"ref://?ring=100", Errc::kBadUri, "power of two"},
      {"ref://?ring=131072", Errc::kBadUri, "ring"},
      {"ref://?ring=65536&mem=65536", Errc::kBadUri, "smaller ring"},
      {"ref://?timeout=0", Errc::kBadUri, "timeout"},
      {"ref://?array=16", Errc::kBadUri, "ROWSxCOLS"},
      {"ref://?array=0x0", Errc::kBadUri, "ROWSxCOLS"},
      {"ref://?array=65x16", Errc::kBadUri, "ROWSxCOLS"},
      {"ref://?array=16x", Errc::kBadUri, "ROWSxCOLS"},
      {"ref://?array=x16", Errc::kBadUri, "ROWSxCOLS"},
      {"ref://?array=16x16x16", Errc::kBadUri, "ROWSxCOLS"},
      {"ref://?array=-4x4", Errc::kBadUri, "ROWSxCOLS"},
      {"ref://?array=99999999999999999999x4", Errc::kBadUri, "ROWSxCOLS"},
      {"ref://?acc=3", Errc::kBadUri, "acc"},
      {"ref://?spad=100", Errc::kBadUri, "spad"},
      {"ref://?banks=0", Errc::kBadUri, "banks"},
      {"ref://?sched=chaos", Errc::kBadUri, "sched"},
      {"ref://?simt=4", Errc::kBadUri, "ROWSxCOLS"},
      {"ref://?simt_dmem=0", Errc::kBadUri, "simt_dmem"},
      {"sim://?array=7x9", Errc::kBadUri, "no simulator build"},
      {"sim://?array=../../../../etc/passwd", Errc::kBadUri, "ROWSxCOLS"},
      {"sim://?array=16x16/../16x16", Errc::kBadUri, "ROWSxCOLS"},
      {"pcie-sim://?array=1x1x1", Errc::kBadUri, "ROWSxCOLS"},
      {"pcie-sim://?array=7x9", Errc::kBadUri, "no simulator build"},
      {"uart://", Errc::kBadUri, "needs the serial device"},
      {"uart://?baud=115200", Errc::kBadUri, "needs the serial device"},
      {"uart:///dev/null?baud=123", Errc::kBadUri, "not a standard rate"},
      {"uart:///dev/null?baud=99999999999999999999", Errc::kBadUri, "baud"},
      {"uart:///dev/null?retries=1001", Errc::kBadUri, "retries"},
      {"uart:///dev/null?timeout_ms=0", Errc::kBadUri, "timeout_ms"},
      {"uart:///dev/null?flow=on", Errc::kBadUri, "unknown option 'flow'"},
      {"uart:///dev/null", Errc::kNoDevice, "not a serial device"},
      {"uart:///no/such/weft/tty", Errc::kNoDevice, "cannot open"},
  };
#ifdef WEFT_HAVE_SIM
  for (const Bad& b : std::vector<Bad>{
           {"sim://?array=16x16&bp=1", Errc::kBadUri, "bp"},
           {"sim://?array=16x16&bp=nan", Errc::kBadUri, "bp"},
           {"sim://?array=16x16&bp=-0.1", Errc::kBadUri, "bp"},
           {"sim://?array=16x16&latency=5000", Errc::kBadUri, "latency"},
           {"sim://?array=16x16&buslog=2", Errc::kBadUri, "buslog"},
           {"sim://?array=16x16&seed=18446744073709551616", Errc::kBadUri, "seed"},
           {"sim://?array=16x16&colour=1", Errc::kBadUri, "unknown option 'colour'"},
       }) {
    v.push_back(b);
  }
#endif
  return v;
}

TEST(Uri, MalformedUrisAreNamed) {
  for (const Bad& b : bad_uris()) {
    SCOPED_TRACE(b.uri);
    try {
      Device::open(b.uri);
      ADD_FAILURE() << "opened";
    } catch (const weft::Error& e) {
      EXPECT_EQ(e.code(), b.code) << e.what();
      EXPECT_NE(std::string(e.what()).find(b.phrase), std::string::npos) << e.what();
    } catch (const std::exception& e) {
      ADD_FAILURE() << "not a weft::Error: " << typeid(e).name() << ": " << e.what();
    }
  }
}

// Random strings and mutations of good URIs: a device or a weft::Error, never another exception
// or a crash. uart:// paths are kept inside a scratch directory (nothing there is a tty).
TEST(Uri, RandomAndMutatedUrisOpenOrAreNamed) {
  std::mt19937_64 rng = weft::tb::make_rng();
  const std::filesystem::path scratch =
      std::filesystem::path(::testing::TempDir()) / "weft_uri_scratch";
  std::filesystem::create_directories(scratch);
  std::vector<std::string> good = {"ref://", "ref://?seed=3&sched=random", "ref://?array=8x8&acc=256",
                                   "ref://?mem=1048576&ring=16", "ref://?simt=none,spad=4096"};
#ifdef WEFT_HAVE_SIM
  good.push_back("sim://?array=16x16&bp=0.2&latency=8");
#endif
  const std::string alphabet = "abcdefghijklmnopqrstuvwxyz0123456789:/?&=,.-_x%#@!~*[] \t\n";
  const std::vector<std::string> tokens = {"://", "?", "&", ",", "=", "x", "0x", "-1", "18446744073709551616",
                                           "99999999999999999999", "mem", "ring", "seed", "array", "bp",
                                           "latency", "timeout", "membase", "16x16", "ref", "sim", "uart",
                                           "pcie-sim", "nan", "inf", "1e9", "%00", "\x01", "\xff"};
  std::map<std::string, int> outcomes;
  int n = 0;
  auto attempt = [&](std::string uri) {
    if (uri.rfind("uart://", 0) == 0) uri = "uart://" + (scratch / "tty").string() + "?baud=9600";
    if (uri.rfind("pcie-sim://", 0) == 0 || uri.rfind("sim://", 0) == 0) {
      // Opening a simulator is slow: only with a known array, or one that does not exist.
      if (uri.find("array=16x16") == std::string::npos) uri += "&array=1x1";
    }
    ++n;
    try {
      Device d = Device::open(uri);
      ++outcomes["opened"];
    } catch (const weft::Error& e) {
      ++outcomes[std::string(e.name())];
    } catch (const std::exception& e) {
      ADD_FAILURE() << "'" << uri << "': not a weft::Error: " << typeid(e).name() << ": " << e.what();
    }
  };
  for (int i = 0; i < 300; ++i) {
    std::string u;
    const int len = int(rng() % 40);
    for (int k = 0; k < len; ++k) {
      if (rng() % 4 == 0) u += tokens[rng() % tokens.size()];
      else u += alphabet[rng() % alphabet.size()];
    }
    attempt(u);
  }
  for (int i = 0; i < 400; ++i) {
    std::string u = good[rng() % good.size()];
    for (int m = rng() % 2 ? 1 : 1 + int(rng() % 3); m > 0; --m) {
      const size_t at = rng() % (u.size() + 1);
      switch (rng() % 4) {
        case 0: u.insert(at, tokens[rng() % tokens.size()]); break;
        case 1: if (at < u.size()) u.erase(at, 1 + rng() % 4); break;
        case 2: if (at < u.size()) u[at] = alphabet[rng() % alphabet.size()]; break;
        default: u += (u.find('?') == std::string::npos ? "?" : "&") + tokens[rng() % tokens.size()] + "=" +
                      tokens[rng() % tokens.size()];
      }
    }
    attempt(u);
  }
  std::string s;
  for (const auto& [k, v] : outcomes) s += " " + k + ":" + std::to_string(v);
  std::printf("%d random and mutated URIs:%s\n", n, s.c_str());
  EXPECT_GT(outcomes["BAD_URI"], 100);
}

}  // namespace
