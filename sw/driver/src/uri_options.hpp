// Typed access to URI options (key=value) for the back ends. Errors are std::invalid_argument
// with a message naming the option and what it accepts; Device::open turns them into kBadUri.
#pragma once

#include <cstdint>
#include <set>
#include <stdexcept>
#include <string>

#include "backend.hpp"

namespace weft::detail {

class OptionReader {
 public:
  explicit OptionReader(const Options& o) : o_(o) {}

  bool has(const std::string& k) {
    used_.insert(k);
    return o_.count(k) != 0;
  }
  uint64_t u64(const std::string& k, uint64_t def, uint64_t lo = 0, uint64_t hi = UINT64_MAX) {
    if (!has(k)) return def;
    const std::string& v = o_.at(k);
    size_t pos = 0;
    uint64_t x = 0;
    try {
      x = std::stoull(v, &pos, 0);
    } catch (...) {
      pos = 0;
    }
    if (pos != v.size() || v.empty() || v[0] == '-') {
      throw std::invalid_argument("option " + k + "=" + v + ": expected an unsigned integer");
    }
    if (x < lo || x > hi) {
      throw std::invalid_argument("option " + k + "=" + v + ": must be in [" + std::to_string(lo) +
                                  ", " + std::to_string(hi) + "]");
    }
    return x;
  }
  double f64(const std::string& k, double def, double lo, double hi) {
    if (!has(k)) return def;
    const std::string& v = o_.at(k);
    size_t pos = 0;
    double x = 0;
    try {
      x = std::stod(v, &pos);
    } catch (...) {
      pos = 0;
    }
    if (pos != v.size() || v.empty() || !(x >= lo && x <= hi)) {
      throw std::invalid_argument("option " + k + "=" + v + ": expected a number in [" +
                                  std::to_string(lo) + ", " + std::to_string(hi) + "]");
    }
    return x;
  }
  std::string str(const std::string& k, const std::string& def) {
    if (!has(k)) return def;
    return o_.at(k);
  }
  // "RxC" -> rows, cols.
  void array(const std::string& k, uint32_t* rows, uint32_t* cols) {
    if (!has(k)) return;
    const std::string& v = o_.at(k);
    const auto x = v.find('x');
    try {
      if (x == std::string::npos) throw 0;
      size_t p1 = 0, p2 = 0;
      const unsigned long r = std::stoul(v.substr(0, x), &p1);
      const unsigned long c = std::stoul(v.substr(x + 1), &p2);
      if (p1 != x || p2 != v.size() - x - 1 || r < 1 || c < 1 || r > 64 || c > 64) throw 0;
      *rows = static_cast<uint32_t>(r);
      *cols = static_cast<uint32_t>(c);
    } catch (...) {
      throw std::invalid_argument("option " + k + "=" + v + ": expected ROWSxCOLS, e.g. 16x16");
    }
  }
  // Throws if an option was given that no one asked for.
  void check_all_used(const std::string& scheme, const std::string& known) {
    for (const auto& [k, v] : o_) {
      if (!used_.count(k)) {
        throw std::invalid_argument("unknown option '" + k + "' for " + scheme +
                                    "://; known options: " + known);
      }
    }
  }

 private:
  const Options& o_;
  std::set<std::string> used_;
};

}  // namespace weft::detail
