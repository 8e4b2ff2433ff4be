// The Verilator context handling of VerilatedBackend (sw/driver/src/verilated_backend.hpp), the
// base of the sim:// and pcie-sim:// plugins. Every device of one configuration shares one
// Verilator runtime, whose per-thread "current context" receives assertion failures. Here two
// back ends around a small model with a live handshake assertion (weft_spill_register's input
// checker) are created and destroyed in every order, and an assertion provoked in the survivor
// must be reported by that survivor, as its own failure, with nothing touching freed memory.
#include <gtest/gtest.h>

#include <memory>
#include <stdexcept>
#include <string>

#include "Vvl_spill.h"
#include "verilated_backend.hpp"

namespace {

using weft::detail::Options;
using weft::detail::OptionReader;

// weft_spill_register (Width 16) as a back end: the "bus model" offers one word and, when told
// to, withdraws it while it is stalled, which the register's input checker must flag.
class SpillBackend final : public weft::detail::VerilatedBackend<Vvl_spill, false> {
 public:
  SpillBackend() : SpillBackend(Options{}) {}

  uint32_t csr_read(uint32_t) override { throw std::invalid_argument("no CSRs"); }
  void csr_write(uint32_t, uint32_t) override { throw std::invalid_argument("no CSRs"); }
  std::string description() const override { return "weft_spill_register"; }

  bool violate = false;  // drop in_valid while the word is stalled

 private:
  explicit SpillBackend(const Options& o) : SpillBackend(OptionReader(o)) {}
  explicit SpillBackend(OptionReader&& r)
      : VerilatedBackend<Vvl_spill, false>(r, 1, 1, false, "top") {
    reset();
  }

  void drive_models() override {
    // The consumer never takes a word: the register fills, then the producer is stalled.
    dut_->out_ready_i = 0;
    dut_->in_data_i = 0x1234;
    dut_->in_valid_i = violate ? 0 : 1;
  }
  void sample_models() override {}
};

enum class Order { kFirstOpenedGoesFirst, kLastOpenedGoesFirst };

class PluginContext : public ::testing::TestWithParam<Order> {};

TEST_P(PluginContext, AssertionInTheSurvivorIsItsOwnFailure) {
  auto a = std::make_unique<SpillBackend>();
  auto b = std::make_unique<SpillBackend>();
  a->run(20, {});
  b->run(20, {});
  std::unique_ptr<SpillBackend>& gone = GetParam() == Order::kFirstOpenedGoesFirst ? a : b;
  std::unique_ptr<SpillBackend>& kept = GetParam() == Order::kFirstOpenedGoesFirst ? b : a;
  gone.reset();
  kept->run(10, {});  // still healthy
  kept->violate = true;
  try {
    kept->run(10, {});
    ADD_FAILURE() << "the withdrawn word was not flagged";
  } catch (const std::runtime_error& e) {
    EXPECT_NE(std::string(e.what()).find("failed assertion"), std::string::npos) << e.what();
  }
  // A device opened after all this starts clean.
  auto c = std::make_unique<SpillBackend>();
  EXPECT_NO_THROW(c->run(20, {}));
  kept.reset();
  EXPECT_NO_THROW(c->run(20, {}));
}

INSTANTIATE_TEST_SUITE_P(
    Plugins, PluginContext,
    ::testing::Values(Order::kFirstOpenedGoesFirst, Order::kLastOpenedGoesFirst),
    [](const ::testing::TestParamInfo<Order>& i) {
      return std::string(i.param == Order::kFirstOpenedGoesFirst ? "FirstOpenedClosedFirst"
                                                                  : "LastOpenedClosedFirst");
    });

}  // namespace
