// weft/tb/link_fault_checks.hpp: what a uart:// run under injected byte faults must show, shared
// by the tests against the RTL bridge (test_uart.cpp) and against the C++ bridge
// (test_uart_link.cpp): faults were injected exactly where asked, the host retransmitted, the
// bridge dropped the damaged requests, and resent WRITEs were answered without running again.
#pragma once

#include <gtest/gtest.h>

#include <cstdint>
#include <cstdio>
#include <map>
#include <string>

#include "weft/sim/link_faults.hpp"
#include "weft/tb/options.hpp"
#include "weft/weft.hpp"

namespace weft::tb::board {

// The device's link counters by name (docs/host-interfaces.md 2.4).
inline std::map<std::string, uint64_t> link_stats(weft::Device& d) {
  std::map<std::string, uint64_t> m;
  for (const auto& [k, v] : d.link_stats()) m[k] = v;
  return m;
}

// Prints the counters and checks them against the faults asked for (to / from the board) and the
// faults the pump actually injected (a / b).
inline void expect_faults_handled(weft::Device& dev, const weft::sim::LinkFaultRates& to,
                                  const weft::sim::LinkFaultRates& from,
                                  const weft::sim::LinkFaultCounts& a,
                                  const weft::sim::LinkFaultCounts& b) {
  auto s = link_stats(dev);
  weft::tb::verbose_printf(
      "[faults] to board %llu B: %llu dropped %llu duplicated %llu flipped; from board "
      "%llu B: %llu dropped %llu duplicated %llu flipped; retries %llu timeouts %llu "
      "bad_responses %llu; bridge frames %llu crc_err %llu frame_err %llu dups %llu\n",
      (unsigned long long)a.bytes, (unsigned long long)a.dropped, (unsigned long long)a.duplicated,
      (unsigned long long)a.flipped, (unsigned long long)b.bytes, (unsigned long long)b.dropped,
      (unsigned long long)b.duplicated, (unsigned long long)b.flipped,
      (unsigned long long)s["retries"], (unsigned long long)s["timeouts"],
      (unsigned long long)s["bad_responses"], (unsigned long long)s["br_frames"],
      (unsigned long long)s["br_crc_err"], (unsigned long long)s["br_frame_err"],
      (unsigned long long)s["br_dups"]);
  const uint64_t to_faults = a.dropped + a.duplicated + a.flipped;
  const uint64_t from_faults = b.dropped + b.duplicated + b.flipped;
  EXPECT_EQ(to_faults > 0, to.drop + to.dup + to.flip > 0);
  EXPECT_EQ(from_faults > 0, from.drop + from.dup + from.flip > 0);
  EXPECT_GT(s["retries"], 0u);
  // Damaged requests are dropped by the bridge and counted.
  if (to_faults > 0) {
    EXPECT_GT(s["br_crc_err"] + s["br_frame_err"], 0u);
  }
  // A lost or damaged response makes the host resend an executed WRITE: the bridge answers it
  // from the stored status without executing it again.
  if (from_faults > 0) {
    EXPECT_GT(s["br_dups"], 0u);
  }
}

}  // namespace weft::tb::board
