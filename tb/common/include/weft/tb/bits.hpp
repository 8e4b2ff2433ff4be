// Bit-field access to Verilated ports of any width: CData/SData/IData/QData (<= 64 bits) and
// VlWide<N> (> 64 bits, 32-bit words, least significant first), so one test source can drive
// every configuration of a parameterized block.
#pragma once

#include <verilated.h>

#include <cstdint>
#include <type_traits>

namespace weft::tb {

template <class T>
inline void set_bits(T& port, int lsb, int width, uint64_t value) {
  if constexpr (std::is_integral_v<T>) {
    const uint64_t mask = (width >= 64) ? ~uint64_t{0} : ((uint64_t{1} << width) - 1);
    uint64_t p = static_cast<uint64_t>(port);
    p = (p & ~(mask << lsb)) | ((value & mask) << lsb);
    port = static_cast<T>(p);
  } else {
    for (int i = 0; i < width; ++i) {
      const int bit = lsb + i;
      const uint32_t m = uint32_t{1} << (bit % 32);
      if ((value >> i) & 1) {
        port[bit / 32] |= m;
      } else {
        port[bit / 32] &= ~m;
      }
    }
  }
}

template <class T>
inline uint64_t get_bits(const T& port, int lsb, int width) {
  if constexpr (std::is_integral_v<T>) {
    const uint64_t mask = (width >= 64) ? ~uint64_t{0} : ((uint64_t{1} << width) - 1);
    return (static_cast<uint64_t>(port) >> lsb) & mask;
  } else {
    uint64_t v = 0;
    for (int i = 0; i < width; ++i) {
      const int bit = lsb + i;
      v |= static_cast<uint64_t>((port[bit / 32] >> (bit % 32)) & 1) << i;
    }
    return v;
  }
}

// Sign-extends the low `width` bits of v.
inline int64_t sext(uint64_t v, int width) {
  const uint64_t m = uint64_t{1} << (width - 1);
  v &= (width >= 64) ? ~uint64_t{0} : ((uint64_t{1} << width) - 1);
  return static_cast<int64_t>((v ^ m) - m);
}

}  // namespace weft::tb
