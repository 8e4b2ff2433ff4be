// Weft test harness: owns one Verilated model and its context, drives clk_i / rst_ni, optionally
// writes FST waves and coverage, and turns Verilator assertion failures into test failures.
//
// Usage (GoogleTest):
//   weft::tb::Harness<Vtu_4x4> h;      // a fresh context + model per test, no globals
//   h.reset();
//   h.dut().a_valid_i = 1; h.tick();
//   ASSERT_TRUE(h.run_until([&] { return h.dut().o_valid_o; }, 1000));
//
// Waves: WEFT_TRACE=1 in the environment or --trace on the test binary's command line writes
// $WEFT_WAVE_DIR/<suite>_<test>.fst (build/waves by default when run through CTest). One clock
// cycle is 1 ns in the waves (time precision 1 ps, Verilator's default: each half period is 500).
#pragma once

#include <gtest/gtest.h>
#include <verilated.h>
#include <verilated_fst_c.h>
#if VM_COVERAGE
#include <verilated_cov.h>
#endif

#include <cstdint>
#include <filesystem>
#include <memory>
#include <stdexcept>
#include <string>

#include "weft/tb/options.hpp"

namespace weft::tb {

template <class Model>
class Harness {
 public:
  Harness() : ctx_(std::make_unique<VerilatedContext>()) {
    ctx_->fatalOnError(false);  // a failing assertion fails this test, not the whole binary
    ctx_->randReset(2);         // randomise uninitialised state: reset must cover every flop
    ctx_->randSeed(static_cast<int>(test_seed() & 0x7fffffff));
    if (trace_enabled()) ctx_->traceEverOn(true);
    model_ = std::make_unique<Model>(ctx_.get(), "top");
    half_period_ = half_period_units(ctx_->timeprecision());
    if (trace_enabled()) {
      trace_ = std::make_unique<VerilatedFstC>();
      model_->trace(trace_.get(), 99);
      wave_path_ = wave_file_for_current_test();
      std::filesystem::create_directories(std::filesystem::path(wave_path_).parent_path());
      trace_->open(wave_path_.c_str());
    }
    model_->clk_i = 0;
    model_->rst_ni = 1;
    model_->eval();
    dump();
  }

  Harness(const Harness&) = delete;
  Harness& operator=(const Harness&) = delete;

  ~Harness() {
    // A model unregisters its DPI scopes from the thread's current context: make that ours, or
    // destroying one of two live harnesses touches the other's (or a freed) context.
    Verilated::threadContextp(ctx_.get());
    model_->final();
    if (trace_) {
      trace_->close();
      std::printf("[waves] %s\n", wave_path_.c_str());
    }
#if VM_COVERAGE
    const std::string cov = coverage_file_for_current_test();
    std::filesystem::create_directories(std::filesystem::path(cov).parent_path());
    ctx_->coveragep()->write(cov.c_str());
#endif
    if (ctx_->gotError() && !reported_) ADD_FAILURE() << "Verilator reported an error (assertion?)";
    // The model goes while its context is current; then Verilator's thread context must not be
    // left pointing at the context this harness is about to free.
    trace_.reset();
    model_.reset();
    Verilated::threadContextp(nullptr);
  }

  Model& dut() { return *model_; }
  VerilatedContext& ctx() { return *ctx_; }
  uint64_t cycle() const { return cycle_; }

  // Settle combinational logic after changing inputs (no clock edge).
  void eval() { model_->eval(); }

  // One full clock cycle: rising edge, then falling edge. Inputs set before tick() are sampled
  // at the rising edge; outputs read after tick() are the post-edge values.
  void tick() {
    // This model's context is the thread's current one (a harness built before another one was
    // destroyed would otherwise format an assertion's message through the freed context).
    Verilated::threadContextp(ctx_.get());
    model_->clk_i = 1;
    model_->eval();
    ctx_->timeInc(half_period_);
    dump();
    model_->clk_i = 0;
    model_->eval();
    ctx_->timeInc(half_period_);
    dump();
    ++cycle_;
    if (ctx_->gotError()) {
      reported_ = true;
      throw std::runtime_error("Verilator error (failed assertion) at cycle " + std::to_string(cycle_));
    }
  }

  // Half a 1 ns clock period in units of the model's time precision (10^precision s; -12 = 1 ps,
  // Verilator's default without a `timescale: 500). A precision coarser than 100 ps cannot place
  // the falling edge inside the nanosecond: then each half period is one unit.
  static uint64_t half_period_units(int precision) {
    uint64_t per_ns = 1;
    for (int e = precision; e < -9; ++e) per_ns *= 10;
    return per_ns >= 2 ? per_ns / 2 : 1;
  }

  void ticks(uint64_t n) {
    for (uint64_t i = 0; i < n; ++i) tick();
  }

  // Asynchronous active-low reset held for `cycles` clock cycles.
  void reset(int cycles = 4) {
    model_->rst_ni = 0;
    model_->eval();
    for (int i = 0; i < cycles; ++i) tick();
    model_->rst_ni = 1;
    model_->eval();
  }

  // Ticks until pred() holds (checked before each tick). False on timeout.
  template <class Pred>
  bool run_until(Pred pred, uint64_t timeout_cycles) {
    for (uint64_t i = 0; i < timeout_cycles; ++i) {
      model_->eval();
      if (pred()) return true;
      tick();
    }
    model_->eval();
    return pred();
  }

 private:
  void dump() {
    if (trace_) trace_->dump(ctx_->time());
  }

  std::unique_ptr<VerilatedContext> ctx_;
  std::unique_ptr<Model> model_;
  std::unique_ptr<VerilatedFstC> trace_;
  std::string wave_path_;
  uint64_t cycle_ = 0;
  uint64_t half_period_ = 500;
  bool reported_ = false;
};

}  // namespace weft::tb
