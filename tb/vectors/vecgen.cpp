#include "vecgen.hpp"

#include <cstdlib>
#include <map>
#include <stdexcept>

namespace weft::vecgen {
namespace {
std::map<std::string, Generator>& registry() {
  static std::map<std::string, Generator> r;
  return r;
}
}  // namespace

HexFile::HexFile(const std::filesystem::path& path, int digits) : digits_(digits) {
  f_ = std::fopen(path.c_str(), "w");
  if (!f_) throw std::runtime_error("cannot write " + path.string());
}

HexFile::~HexFile() { std::fclose(f_); }

void HexFile::word(uint64_t v) {
  if (digits_ < 16) v &= (uint64_t{1} << (4 * digits_)) - 1;
  std::fprintf(f_, "%0*llx\n", digits_, static_cast<unsigned long long>(v));
  ++count_;
}

void HexFile::wide(const std::vector<uint64_t>& limbs) {
  // Most significant limb first; the top limb is trimmed to the remaining digits.
  int remaining = digits_;
  std::string line;
  for (size_t i = limbs.size(); i-- > 0;) {
    const int limb_digits = std::min(16, remaining - 16 * static_cast<int>(i));
    if (limb_digits <= 0) continue;
    uint64_t v = limbs[i];
    if (limb_digits < 16) v &= (uint64_t{1} << (4 * limb_digits)) - 1;
    char buf[20];
    std::snprintf(buf, sizeof buf, "%0*llx", limb_digits, static_cast<unsigned long long>(v));
    line += buf;
  }
  std::fprintf(f_, "%s\n", line.c_str());
  ++count_;
}

Registration::Registration(const std::string& name, Generator g) { registry()[name] = std::move(g); }

}  // namespace weft::vecgen

int main(int argc, char** argv) {
  using namespace weft::vecgen;
  if (argc != 4) {
    std::fprintf(stderr, "usage: weft_vecgen <generator> <output dir> <seed>\ngenerators:");
    for (const auto& [name, g] : registry()) std::fprintf(stderr, " %s", name.c_str());
    std::fprintf(stderr, "\n");
    return 2;
  }
  auto it = registry().find(argv[1]);
  if (it == registry().end()) {
    std::fprintf(stderr, "weft_vecgen: unknown generator '%s'\n", argv[1]);
    return 2;
  }
  std::filesystem::create_directories(argv[2]);
  std::mt19937_64 rng(std::strtoull(argv[3], nullptr, 0));
  it->second(argv[2], rng);
  return 0;
}
