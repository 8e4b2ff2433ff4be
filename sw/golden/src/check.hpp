// Internal helpers of the golden model: argument validation that throws std::invalid_argument with
// a message naming the function and the offending value. Not part of the public API.
#pragma once

#include <cstddef>
#include <cstdint>
#include <stdexcept>
#include <string>

namespace weft::golden::detail {

[[noreturn]] inline void fail(const std::string& where, const std::string& what) {
  throw std::invalid_argument("weft::golden::" + where + ": " + what);
}

// A dimension must be >= 1; returns it as size_t.
inline std::size_t positive_dim(const char* where, const char* name, int v) {
  if (v < 1) fail(where, std::string(name) + " must be >= 1, got " + std::to_string(v));
  return static_cast<std::size_t>(v);
}

// a * b, rejecting products that do not fit in size_t (element counts of the buffers).
inline std::size_t checked_mul(const char* where, std::size_t a, std::size_t b) {
  if (a != 0 && b > SIZE_MAX / a) fail(where, "element count overflows size_t");
  return a * b;
}

inline void expect_size(const char* where, const char* name, std::size_t got, std::size_t want) {
  if (got != want) {
    fail(where, std::string(name) + " has " + std::to_string(got) + " elements, expected " +
                    std::to_string(want));
  }
}

// Two's complement wrap-around addition (modulo 2^32) without signed-overflow UB: the sum is done
// in uint32_t and converted back (the conversion is modular since C++20).
inline int32_t wrap_add(int32_t a, int32_t b) {
  return static_cast<int32_t>(static_cast<uint32_t>(a) + static_cast<uint32_t>(b));
}

// Saturate an int64 to the int32 range.
inline int32_t sat32(int64_t v) {
  if (v > INT32_MAX) return INT32_MAX;
  if (v < INT32_MIN) return INT32_MIN;
  return static_cast<int32_t>(v);
}

}  // namespace weft::golden::detail
