// weft/perf.hpp: the device's performance counters (PERF_* registers) and what they mean.
#pragma once

#include <cstdint>
#include <string>

#include "weft/error.hpp"

namespace weft {

// Raw PERF_* counter values (64-bit), counted since the last CTRL.perf_clear.
struct PerfCounters {
  uint64_t cycles = 0;
  uint64_t load_busy = 0, compute_busy = 0, store_busy = 0;              // engine executing
  uint64_t load_wait_dep = 0, compute_wait_dep = 0, store_wait_dep = 0;  // head blocked on deps
  uint64_t tu_wait_w = 0, tu_wait_a = 0, tu_wait_drain = 0;              // tensor unit stalls
  uint64_t macs = 0;                                                     // rows*cols per A row
  uint64_t dma_rd_bytes = 0, dma_wr_bytes = 0;
  uint64_t dma_rd_stall = 0, dma_wr_stall = 0;
  uint64_t desc_retired = 0;
};

struct WEFT_API PerfReport {
  PerfCounters c;
  uint32_t rows = 0, cols = 0, bus_bytes = 0;  // from the capabilities

  // MACS / (rows * cols * cycles): the fraction of the array's peak used.
  double utilisation() const;
  // Bytes per cycle moved by the AXI master, and as a fraction of the bus peak (bus_bytes per
  // cycle per direction: AXI reads and writes use separate channels).
  double rd_bytes_per_cycle() const;
  double wr_bytes_per_cycle() const;
  double rd_bus_fraction() const;
  double wr_bus_fraction() const;
  // A counter as a fraction of the cycles.
  double fraction(uint64_t counter) const;

  // A few aligned lines: utilisation, bandwidth, per-engine busy / dependency wait / stalls.
  std::string to_string() const;
};

}  // namespace weft
