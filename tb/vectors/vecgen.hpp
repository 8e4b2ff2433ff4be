// weft_vecgen: writes the hex vector files that the SV benches (tb/sv) read with $readmemh.
// Each bench registers one generator in its own .cpp file:
//   static weft::vecgen::Registration reg("pe", &generate_pe);
#pragma once

#include <cstdint>
#include <cstdio>
#include <filesystem>
#include <functional>
#include <random>
#include <string>
#include <vector>

namespace weft::vecgen {

// Writes dir/<file>: one hex word per line, each `digits` hex digits wide (zero padded,
// two's complement for negative values masked to digits*4 bits).
class HexFile {
 public:
  HexFile(const std::filesystem::path& path, int digits);
  ~HexFile();
  HexFile(const HexFile&) = delete;
  HexFile& operator=(const HexFile&) = delete;
  void word(uint64_t v);
  // A word wider than 64 bits, given as little-endian 64-bit limbs.
  void wide(const std::vector<uint64_t>& limbs);
  size_t count() const { return count_; }

 private:
  std::FILE* f_;
  int digits_;
  size_t count_ = 0;
};

using Generator = std::function<void(const std::filesystem::path& dir, std::mt19937_64& rng)>;

struct Registration {
  Registration(const std::string& name, Generator g);
};

}  // namespace weft::vecgen
