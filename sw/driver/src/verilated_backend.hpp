// The common part of the Verilated plugins (sim:// in sim_backend.cpp, pcie-sim:// in
// pcie_backend.cpp): the Verilator context and waves, the reset sequence, the clock with the
// Weft tick protocol, host memory with the log of the device's writes, and the exported factory.
// A plugin derives from VerilatedBackend<Model>, creates its bus models in its constructor, then
// calls reset(); it supplies drive_models() / sample_models() (one cycle of its bus models) and
// may report a protocol violation from check_models() after every edge. Memory error injection
// (flip_mem_bit) goes through the SRAM back door (weft/tb/sram_backdoor.hpp) of the scratchpad
// and accumulator banks under the weft_top instance the plugin names.
#pragma once

#include <verilated.h>
#include <verilated_fst_c.h>

#include <cstdint>
#include <cstdio>
#include <functional>
#include <memory>
#include <optional>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

#include "backend.hpp"
#include "uri_options.hpp"
#include "weft/sim/host_memory.hpp"
#include "weft/tb/sram_backdoor.hpp"

namespace weft::detail {

// kSramBackdoor: the model has weft_top's memories and their DPI back door (flip_mem_bit and
// mem_word_bits use it); a test model without them leaves it out and links without its exports.
template <class Model, bool kSramBackdoor = true>
class VerilatedBackend : public Backend {
 public:
  // Verilator keeps one "current context" per thread (and one "last context" per process) in
  // the runtime's statics, which every device of this configuration shares (one plugin object).
  // Assertion failures, $display and the model's scope registration go to that context, not to
  // the model's own. So each device makes its context current whenever it runs (tick, reset),
  // and the last one destroyed must not leave it pointing at freed memory.
  ~VerilatedBackend() override {
    make_current();
    dut_->final();
    if (fst_) fst_->close();
    fst_.reset();
    dut_.reset();  // unregisters the model's scopes from the current context: ours
    if (Verilated::threadContextp() == ctx_.get()) Verilated::threadContextp(nullptr);
    ctx_.reset();
  }

  void mem_write(uint64_t a, const void* s, size_t n) override {
    host_writing_ = true;
    mem_.write(a, s, n);
    host_writing_ = false;
  }
  void mem_read(uint64_t a, void* d, size_t n) override { mem_.read(a, d, n); }
  uint64_t cycle() const override { return cycle_; }

  uint64_t run(uint64_t max_cycles, const std::function<bool()>& stop) override {
    uint64_t n = 0;
    for (; n < max_cycles; ++n) {
      if (stop && stop()) break;
      tick();
    }
    return n;
  }

  std::vector<std::pair<uint64_t, uint64_t>> take_device_writes() override {
    return std::exchange(dev_writes_, {});
  }

  bool flip_mem_bit(int mem, uint64_t addr, unsigned bit) override {
    if constexpr (!kSramBackdoor) {
      static_cast<void>(mem), static_cast<void>(addr), static_cast<void>(bit);
      return false;
    } else {
      auto& banks = mem_banks(mem);
      if (banks.empty()) return false;
      const uint64_t depth = banks[0].depth();
      if (addr >= depth * banks.size()) {
        throw std::out_of_range("word " + std::to_string(addr) + " beyond the memory's " +
                                std::to_string(depth * banks.size()));
      }
      make_current();
      banks[addr / depth].flip(static_cast<uint32_t>(addr % depth), bit);
      return true;
    }
  }

  bool mem_word_bits(int mem, unsigned* data, unsigned* check) override {
    if constexpr (!kSramBackdoor) {
      static_cast<void>(mem), static_cast<void>(data), static_cast<void>(check);
      return false;
    } else {
      auto& banks = mem_banks(mem);
      if (banks.empty()) return false;
      *data = banks[0].width();
      *check = banks[0].check_bits();
      return true;
    }
  }


 protected:
  // Checks array=RxC and ecc=0|1 against this build, reads seed= and trace=, creates the model
  // (with waves when asked) and starts logging the device's host-memory writes. `top_scope` is
  // the weft_top instance's DPI scope prefix ("top.weft_top", ...).
  VerilatedBackend(OptionReader& r, uint32_t rows, uint32_t cols, bool ecc, std::string top_scope)
      : top_scope_(std::move(top_scope)) {
    uint32_t want_rows = rows, want_cols = cols;
    r.array("array", &want_rows, &want_cols);
    if (want_rows != rows || want_cols != cols) {
      throw std::invalid_argument("this plugin simulates a " + std::to_string(rows) + "x" +
                                  std::to_string(cols) + " device, not array=" +
                                  std::to_string(want_rows) + "x" + std::to_string(want_cols));
    }
    if ((r.u64("ecc", 0, 0, 1) != 0) != ecc) {
      throw std::invalid_argument(std::string("this plugin simulates a device ") +
                                  (ecc ? "with" : "without") + " memory ECC, not ecc=" +
                                  (ecc ? "0" : "1"));
    }
    seed_ = r.u64("seed", 1);
    trace_path_ = r.str("trace", "");
    ctx_ = std::make_unique<VerilatedContext>();
    ctx_->fatalOnError(false);
    ctx_->randReset(2);
    ctx_->randSeed(static_cast<int>(seed_ & 0x7fffffff));
    if (!trace_path_.empty()) ctx_->traceEverOn(true);
    dut_ = std::make_unique<Model>(ctx_.get(), "top");
    if (!trace_path_.empty()) {
      fst_ = std::make_unique<VerilatedFstC>();
      dut_->trace(fst_.get(), 99);
      fst_->open(trace_path_.c_str());
    }
    mem_.on_write([this](uint64_t a, uint64_t n) {
      if (!host_writing_) dev_writes_.emplace_back(a, n);
    });
  }

  virtual void drive_models() = 0;
  virtual void sample_models() = 0;
  // A protocol violation seen by the bus models, else "" (checked after every edge).
  virtual std::string check_models() { return {}; }

  // A falling edge of rst_ni (asynchronous reset), 8 clock cycles with the bus models idle (they
  // only drive their idle outputs), release, 2 cycles.
  void reset() {
    make_current();
    dut_->clk_i = 0;
    dut_->rst_ni = 1;
    drive_models();
    dut_->eval();
    dut_->rst_ni = 0;
    dut_->eval();
    for (int i = 0; i < 8; ++i) edge();
    dut_->rst_ni = 1;
    dut_->eval();
    for (int i = 0; i < 2; ++i) tick();
  }

  // One clock cycle with the Weft tick protocol: models drive, evaluate, models sample, edge.
  void tick() {
    make_current();
    drive_models();
    dut_->eval();
    sample_models();
    edge();
  }

  // Points Verilator's per-thread context at this device's (see the destructor).
  void make_current() { Verilated::threadContextp(ctx_.get()); }

  std::string waves_note() const { return trace_path_.empty() ? "" : ", waves " + trace_path_; }

  uint64_t seed_ = 1;
  std::unique_ptr<VerilatedContext> ctx_;
  std::unique_ptr<Model> dut_;
  sim::HostMemory mem_;

 private:
  // One clock edge pair (rising, falling) with waves, then the checks.
  void edge() {
    // One cycle is 1 ns in the waves: half a period in the model's time precision (1 ps: 500).
    static const uint64_t half = [](int p) {
      uint64_t per_ns = 1;
      for (; p < -9; ++p) per_ns *= 10;
      return per_ns >= 2 ? per_ns / 2 : 1;
    }(ctx_->timeprecision());
    dut_->clk_i = 1;
    dut_->eval();
    ctx_->timeInc(half);
    if (fst_) fst_->dump(ctx_->time());
    dut_->clk_i = 0;
    dut_->eval();
    ctx_->timeInc(half);
    if (fst_) fst_->dump(ctx_->time());
    ++cycle_;
    if (ctx_->gotError()) {
      throw std::runtime_error("Verilator reported an error (failed assertion) at cycle " +
                               std::to_string(cycle_));
    }
    if (std::string v = check_models(); !v.empty()) {
      throw std::runtime_error(v + " (cycle " + std::to_string(cycle_) + ")");
    }
  }

  // The SRAM banks of memory `mem` (0 scratchpad, 1 accumulator), found on first use: the
  // scopes <top_scope>.u_spad.g_bank[i].u_sram / <top_scope>.u_tu.u_acc.g_bank[i].u_sram.
  std::vector<weft::tb::SramBackdoor>& mem_banks(int mem) {
    if (mem < 0 || mem > 1) throw std::out_of_range("no memory " + std::to_string(mem));
    auto& banks = mem_banks_[mem];
    if (!banks) {
      banks.emplace();
      make_current();
      const std::string base = top_scope_ + (mem == 0 ? ".u_spad" : ".u_tu.u_acc");
      for (int i = 0;; ++i) {
        const std::string scope = base + ".g_bank[" + std::to_string(i) + "].u_sram";
        if (!svGetScopeFromName(scope.c_str())) break;
        banks->emplace_back(scope);
      }
    }
    return *banks;
  }

  std::string top_scope_;
  std::optional<std::vector<weft::tb::SramBackdoor>> mem_banks_[2];
  std::string trace_path_;
  std::unique_ptr<VerilatedFstC> fst_;
  bool host_writing_ = false;
  std::vector<std::pair<uint64_t, uint64_t>> dev_writes_;
  uint64_t cycle_ = 0;
};

// The factory a plugin exports (kCreateBackendSymbol): constructs `Impl` from the options, or
// returns nullptr with the reason in err.
template <class Impl>
Backend* create_plugin_backend(const Options* opts, char* err, size_t err_len) {
  try {
    return new Impl(*opts);
  } catch (const std::exception& e) {
    std::snprintf(err, err_len, "%s", e.what());
    return nullptr;
  }
}

}  // namespace weft::detail
