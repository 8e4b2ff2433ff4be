// sim:// plugin: the Verilated weft_top driven cycle by cycle, with weft::sim::AxiMem as host
// memory (m_axi_*) and weft::sim::AxilMaster for the CSRs (s_axil_*). Built once per array
// configuration as weft_sim_<R>x<C>.so (WEFT_SIM_MODEL / WEFT_SIM_HEADER / WEFT_SIM_ROWS /
// WEFT_SIM_COLS) and loaded by sim_loader.cpp with dlopen(RTLD_LOCAL); it exports only
// weft_create_sim_backend.
//
// URI options: array=RxC (must be this build's), latency=N (memory read and write latency in
// cycles), bp=P (random back-pressure probability on every AXI and AXI-Lite channel), seed=N,
// trace=file.fst (waves of the whole run).
#include <verilated.h>
#include <verilated_fst_c.h>

#include <cstdio>
#include <cstring>
#include <memory>
#include <stdexcept>
#include <string>

#include WEFT_SIM_HEADER
#include "backend.hpp"
#include "uri_options.hpp"
#include "weft/sim/axi_mem.hpp"
#include "weft/sim/axil_master.hpp"
#include "weft/sim/host_memory.hpp"

namespace weft::detail {
namespace {

using Model = WEFT_SIM_MODEL;

class SimBackend final : public Backend {
 public:
  explicit SimBackend(const Options& opts) {
    OptionReader r(opts);
    uint32_t rows = WEFT_SIM_ROWS, cols = WEFT_SIM_COLS;
    r.array("array", &rows, &cols);
    if (rows != WEFT_SIM_ROWS || cols != WEFT_SIM_COLS) {
      throw std::invalid_argument("this plugin simulates a " + std::to_string(WEFT_SIM_ROWS) + "x" +
                                  std::to_string(WEFT_SIM_COLS) + " device, not array=" +
                                  std::to_string(rows) + "x" + std::to_string(cols));
    }
    latency_ = static_cast<unsigned>(r.u64("latency", 4, 0, 4096));
    bp_ = r.f64("bp", 0.0, 0.0, 0.95);
    seed_ = r.u64("seed", 1);
    trace_path_ = r.str("trace", "");
    r.check_all_used("sim",
                     "array=RxC latency=N bp=P seed=N trace=file.fst (and the device "
                     "options mem, membase, ring, timeout)");

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
    sim::AxiMemOptions mo;
    mo.read_latency = latency_;
    mo.write_latency = latency_;
    mo.ar_stall = mo.r_gap = mo.aw_stall = mo.w_stall = mo.b_gap = bp_;
    mo.seed = seed_ * 2 + 1;
    bus_bytes_ =
        static_cast<unsigned>(sizeof(dut_->m_axi_rdata) >= 16 ? sizeof(dut_->m_axi_rdata) : 16);
    axi_ = std::make_unique<sim::AxiMem<Model>>(*dut_, mem_, bus_bytes_, mo);
    sim::AxilOptions lo =
        bp_ > 0 ? sim::AxilOptions::stressed(bp_, seed_ * 2 + 2) : sim::AxilOptions{};
    axil_ = std::make_unique<sim::AxilMaster<Model>>(*dut_, lo);
    mem_.on_write([this](uint64_t a, uint64_t n) {
      if (!host_writing_) dev_writes_.emplace_back(a, n);
    });
    // Reset: a falling edge of rst_ni (asynchronous reset), 8 clock cycles with the bus models
    // idle (they only drive their idle outputs), then release.
    dut_->clk_i = 0;
    dut_->rst_ni = 1;
    axil_->drive();  // idle AXI-Lite inputs (AxiMem drove its idle outputs when constructed)
    dut_->eval();
    dut_->rst_ni = 0;
    dut_->eval();
    for (int i = 0; i < 8; ++i) edge();
    dut_->rst_ni = 1;
    dut_->eval();
    for (int i = 0; i < 2; ++i) tick();
  }

  ~SimBackend() override {
    Verilated::threadContextp(ctx_.get());
    dut_->final();
    if (fst_) fst_->close();
  }

  std::string description() const override {
    return "sim:// Verilated weft_top " + std::to_string(WEFT_SIM_ROWS) + "x" +
           std::to_string(WEFT_SIM_COLS) + ", memory latency " + std::to_string(latency_) +
           " cycles, back-pressure " + std::to_string(bp_) + ", seed " + std::to_string(seed_) +
           (trace_path_.empty() ? "" : ", waves " + trace_path_);
  }

  uint32_t csr_read(uint32_t off) override {
    const uint64_t id = axil_->read(off);
    for (int i = 0; i < 100000; ++i) {
      tick();
      if (auto res = axil_->pop_read()) {
        if (res->id != id) continue;
        if (res->resp != sim::AxilResp::kOkay) {
          throw std::invalid_argument("CSR read of offset " + std::to_string(off) + " answered " +
                                      sim::axil_resp_name(res->resp));
        }
        return res->data;
      }
    }
    throw std::runtime_error("CSR read of offset " + std::to_string(off) + " not answered");
  }

  void csr_write(uint32_t off, uint32_t v) override {
    const uint64_t id = axil_->write(off, v);
    for (int i = 0; i < 100000; ++i) {
      tick();
      if (auto res = axil_->pop_write()) {
        if (res->id != id) continue;
        if (res->resp != sim::AxilResp::kOkay) {
          throw std::invalid_argument("CSR write to offset " + std::to_string(off) + " answered " +
                                      sim::axil_resp_name(res->resp));
        }
        return;
      }
    }
    throw std::runtime_error("CSR write to offset " + std::to_string(off) + " not answered");
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

  bool inject_bus_error(uint64_t lo, uint64_t hi, bool write, unsigned resp) override {
    sim::AxiErrorRange e;
    e.base = lo;
    e.limit = hi;
    e.resp = resp == 3 ? sim::AxiResp::kDecErr : sim::AxiResp::kSlvErr;
    e.reads = !write;
    e.writes = write;
    axi_->options().errors.push_back(e);
    return true;
  }
  void clear_bus_errors() override { axi_->options().errors.clear(); }
  std::vector<std::pair<uint64_t, uint64_t>> take_device_writes() override {
    return std::exchange(dev_writes_, {});
  }

 private:
  // One clock cycle with the Weft tick protocol: models drive, evaluate, models sample, edge.
  void tick() {
    axil_->drive();
    axi_->drive();
    dut_->eval();
    axil_->sample();
    axi_->sample();
    edge();
  }

  // One clock edge pair (rising, falling) with waves.
  void edge() {
    dut_->clk_i = 1;
    dut_->eval();
    ctx_->timeInc(5);
    if (fst_) fst_->dump(ctx_->time());
    dut_->clk_i = 0;
    dut_->eval();
    ctx_->timeInc(5);
    if (fst_) fst_->dump(ctx_->time());
    ++cycle_;
    if (ctx_->gotError()) {
      throw std::runtime_error("Verilator reported an error (failed assertion) at cycle " +
                               std::to_string(cycle_));
    }
    if (!axi_->violations().empty() && violations_seen_ != axi_->violations().size()) {
      violations_seen_ = axi_->violations().size();
      throw std::runtime_error("AXI protocol violation by weft_top at cycle " +
                               std::to_string(cycle_) + ": " + axi_->violations().back());
    }
  }

  unsigned latency_ = 4, bus_bytes_ = 16;
  double bp_ = 0;
  uint64_t seed_ = 1;
  std::string trace_path_;
  std::unique_ptr<VerilatedContext> ctx_;
  std::unique_ptr<Model> dut_;
  std::unique_ptr<VerilatedFstC> fst_;
  sim::HostMemory mem_;
  std::unique_ptr<sim::AxiMem<Model>> axi_;
  std::unique_ptr<sim::AxilMaster<Model>> axil_;
  bool host_writing_ = false;
  std::vector<std::pair<uint64_t, uint64_t>> dev_writes_;
  size_t violations_seen_ = 0;
  uint64_t cycle_ = 0;
};

}  // namespace
}  // namespace weft::detail

extern "C" __attribute__((visibility("default"))) weft::detail::Backend* weft_create_sim_backend(
    const weft::detail::Options* opts, char* err, size_t err_len) {
  try {
    return new weft::detail::SimBackend(*opts);
  } catch (const std::exception& e) {
    std::snprintf(err, err_len, "%s", e.what());
    return nullptr;
  }
}
