// weft::tb::board::start_board: BoardSim<Vvl_weft_board> behind the SimBoard interface.
#include "weft/tb/board_fixture.hpp"

#include "Vvl_weft_board.h"
#include "weft/sim/board_sim.hpp"

#ifndef WEFT_BOARD_CLKS_PER_BIT
#error "WEFT_BOARD_CLKS_PER_BIT: the ClksPerBit parameter of vl_weft_board"
#endif

namespace weft::tb::board {
namespace {

sim::BoardSimConfig config(uint64_t seed, const std::string& fst) {
  sim::BoardSimConfig c;
  c.clks_per_bit = WEFT_BOARD_CLKS_PER_BIT;
  c.seed = seed;
  c.fst_path = fst;
  return c;
}

class SimBoardImpl final : public SimBoard {
 public:
  SimBoardImpl(uint64_t seed, const std::string& fst) : sim_(config(seed, fst)) {}
  std::string uri(const std::string& extra) const override {
    // A simulated bit time is far longer than a real one: generous response timeout, a device
    // timeout (cycles of BR_CLK_HZ wall time) of a day rather than seconds, and a 16-entry ring
    // (opening zeroes the ring over the link).
    return sim_.uri() + "&timeout_ms=" + std::to_string(WEFT_BOARD_SIM_TIMEOUT_MS) +
           "&retries=12&timeout=" + std::to_string(uint64_t{1} << 42) + "&ring=16" + extra;
  }
  const std::string& pty_path() const override { return sim_.pty_path(); }
  void set_faults(const sim::LinkFaultRates& to, const sim::LinkFaultRates& from) override {
    sim_.set_faults(to, from);
  }
  sim::LinkFaultCounts faults_to_board() const override { return sim_.faults_to_board(); }
  sim::LinkFaultCounts faults_from_board() const override { return sim_.faults_from_board(); }
  uint64_t cycles() const override { return sim_.cycles(); }
  std::string error() const override { return sim_.error(); }

 private:
  sim::BoardSim<Vvl_weft_board> sim_;
};

}  // namespace

std::unique_ptr<SimBoard> start_board(uint64_t seed, const std::string& fst_path) {
  return std::make_unique<SimBoardImpl>(seed, fst_path);
}

}  // namespace weft::tb::board
