// A simulated weft_board behind a pty for system tests (tb/uart/board_fixture.cpp wraps
// weft::sim::BoardSim<Vvl_weft_board>), without exposing Verilator headers to the tests.
#pragma once

#include <cstdint>
#include <memory>
#include <string>

#include "weft/sim/link_faults.hpp"

namespace weft::tb::board {

class SimBoard {
 public:
  virtual ~SimBoard() = default;
  // "uart://<pty>?baud=..." plus response timeout, retries and a device timeout sized for the
  // simulated link; `extra` ("&k=v...") is appended.
  virtual std::string uri(const std::string& extra = "") const = 0;
  virtual const std::string& pty_path() const = 0;
  virtual void set_faults(const sim::LinkFaultRates& to_board,
                          const sim::LinkFaultRates& from_board) = 0;
  virtual sim::LinkFaultCounts faults_to_board() const = 0;
  virtual sim::LinkFaultCounts faults_from_board() const = 0;
  virtual uint64_t cycles() const = 0;
  virtual std::string error() const = 0;  // non-empty: the simulation stopped (assertion)
};

// Starts the board (seeded fault injection and random initial state; an FST trace when
// `fst_path` is not empty).
std::unique_ptr<SimBoard> start_board(uint64_t seed, const std::string& fst_path = "");

}  // namespace weft::tb::board
