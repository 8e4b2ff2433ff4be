// Descriptor scheduling with automatic dependencies (used by the high-level ops).
//
// Each emitted descriptor declares what it reads and writes (scratchpad line ranges, accumulator
// row ranges). The scheduler finds the hazards (RAW, WAR, WAW) with the descriptors of *other*
// engines still possibly in flight (the last `inflight - 1`; anything older has retired), drops
// the ones already implied, and encodes the rest as dep0/dep1 (falling back to WAIT_* flags if
// more than two remain).
//
// What "implied" relies on (docs/programming-model.md): a descriptor starts only after its
// dependencies complete; each engine starts its descriptors in ring order; and each engine
// completes them in ring order (the load engine moves one transfer at a time, the tensor unit is
// a pipeline, the store engine drains one request at a time). So when X completes, every earlier
// descriptor of X's engine and everything X waited for have completed too.
#pragma once

#include <cstdint>
#include <deque>
#include <set>
#include <vector>

#include "weft/descriptor.hpp"

namespace weft::detail {

enum class Eng : uint8_t { kLoad = 0, kCompute = 1, kStore = 2 };

struct Span {
  uint8_t space;    // 0 scratchpad lines, 1 accumulator rows
  uint64_t lo, hi;  // [lo, hi)
  bool overlaps(const Span& o) const { return space == o.space && lo < o.hi && o.lo < hi; }
};

class Scheduler {
 public:
  explicit Scheduler(uint32_t inflight) : inflight_(inflight) {}

  // Appends `d` with its dependencies set; returns its position in the program.
  size_t emit(Descriptor d, Eng e, std::vector<Span> rd, std::vector<Span> wr);

  const std::vector<Descriptor>& program() const { return prog_; }
  // How many descriptors needed a WAIT_* flag (the schedule is designed to need none).
  size_t wait_flags_used() const { return waits_; }

 private:
  struct Rec {
    uint64_t index;
    Eng eng;
    std::vector<Span> rd, wr;
    std::set<uint64_t> started;   // complete when this one starts
    std::set<uint64_t> complete;  // complete when this one completes (incl. itself)
  };
  const Rec* find(uint64_t index) const;
  const Rec* prev_same(Eng e) const;

  uint32_t inflight_;
  std::vector<Descriptor> prog_;
  std::deque<Rec> win_;
  size_t waits_ = 0;
};

}  // namespace weft::detail
