// weft/sim/link_faults.hpp: per-byte fault rates and counters of a simulated serial link (used by
// weft/sim/board_sim.hpp; kept free of Verilator headers so that test fixtures can use them).
#pragma once

#include <cstdint>

namespace weft::sim {

// Per-byte fault probabilities of one direction (each in [0, 1]; drawn in this order).
struct LinkFaultRates {
  double drop = 0;  // the byte is lost
  double dup = 0;   // the byte arrives twice
  double flip = 0;  // one random bit of the byte is inverted
};

// Bytes passed and faults actually injected in one direction.
struct LinkFaultCounts {
  uint64_t bytes = 0;
  uint64_t dropped = 0;
  uint64_t duplicated = 0;
  uint64_t flipped = 0;
};

}  // namespace weft::sim
