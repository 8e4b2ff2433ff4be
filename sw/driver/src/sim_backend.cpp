// sim:// plugin: the Verilated weft_top driven cycle by cycle, with weft::sim::AxiMem as host
// memory (m_axi_*) and weft::sim::AxilMaster for the CSRs (s_axil_*). Built once per array
// configuration as weft_sim_<R>x<C>[_ecc].so (WEFT_PLUGIN_MODEL / WEFT_PLUGIN_HEADER /
// WEFT_PLUGIN_ROWS / WEFT_PLUGIN_COLS / WEFT_PLUGIN_ECC) and loaded by sim_loader.cpp with
// dlopen(RTLD_LOCAL); it exports only weft_create_sim_backend.
//
// URI options: array=RxC and ecc=0|1 (must be this build's), latency=N (memory read and write
// latency in cycles), bp=P (random back-pressure probability on every AXI and AXI-Lite channel),
// seed=N, trace=file.fst (waves of the whole run), buslog=0|1 (log every AXI read and write beat
// for Device::take_bus_accesses).
#include <cstdio>
#include <memory>
#include <stdexcept>
#include <string>

#include WEFT_PLUGIN_HEADER
#include "verilated_backend.hpp"
#include "weft/sim/axi_mem.hpp"
#include "weft/sim/axil_master.hpp"

namespace weft::detail {
namespace {

using Model = WEFT_PLUGIN_MODEL;

class SimBackend final : public VerilatedBackend<Model> {
 public:
  explicit SimBackend(const Options& opts) : SimBackend(OptionReader(opts)) {}

  std::string description() const override {
    char bp[32];
    std::snprintf(bp, sizeof bp, "%g", bp_);
    return "Verilated weft_top " + std::to_string(WEFT_PLUGIN_ROWS) + "x" +
           std::to_string(WEFT_PLUGIN_COLS) + (WEFT_PLUGIN_ECC ? " with memory ECC" : "") +
           " (RTL), memory latency " + std::to_string(latency_) +
           " cycles, back-pressure " + bp + ", seed " + std::to_string(seed_) + waves_note();
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

  bool take_bus_accesses(std::vector<BusAccess>* out) override {
    if (!axi_->options().log_accesses) return false;
    out->clear();
    for (const sim::AxiAccess& a : axi_->take_accesses()) out->push_back({a.addr, a.bytes, a.write});
    return true;
  }

 private:
  explicit SimBackend(OptionReader&& r)
      : VerilatedBackend<Model>(r, WEFT_PLUGIN_ROWS, WEFT_PLUGIN_COLS, WEFT_PLUGIN_ECC != 0,
                                "top.weft_top") {
    latency_ = static_cast<unsigned>(r.u64("latency", 4, 0, 4096));
    bp_ = r.f64("bp", 0.0, 0.0, 0.95);
    const bool buslog = r.u64("buslog", 0, 0, 1) != 0;
    r.check_all_used("sim",
                     "array=RxC ecc=0|1 latency=N bp=P seed=N trace=file.fst buslog=0|1 (and the "
                     "device options mem, membase, ring, timeout)");
    sim::AxiMemOptions mo;
    mo.read_latency = latency_;
    mo.write_latency = latency_;
    mo.ar_stall = mo.r_gap = mo.aw_stall = mo.w_stall = mo.b_gap = bp_;
    mo.seed = seed_ * 2 + 1;
    mo.log_accesses = buslog;
    const unsigned bus_bytes =
        static_cast<unsigned>(sizeof(dut_->m_axi_rdata) >= 16 ? sizeof(dut_->m_axi_rdata) : 16);
    axi_ = std::make_unique<sim::AxiMem<Model>>(*dut_, mem_, bus_bytes, mo);
    sim::AxilOptions lo =
        bp_ > 0 ? sim::AxilOptions::stressed(bp_, seed_ * 2 + 2) : sim::AxilOptions{};
    axil_ = std::make_unique<sim::AxilMaster<Model>>(*dut_, lo);
    reset();
  }

  void drive_models() override {
    axil_->drive();
    axi_->drive();
  }
  void sample_models() override {
    axil_->sample();
    axi_->sample();
  }
  std::string check_models() override {
    if (axi_->violations().size() == violations_seen_) return {};
    violations_seen_ = axi_->violations().size();
    return "AXI protocol violation by weft_top: " + axi_->violations().back();
  }

  unsigned latency_ = 4;
  double bp_ = 0;
  std::unique_ptr<sim::AxiMem<Model>> axi_;
  std::unique_ptr<sim::AxilMaster<Model>> axil_;
  size_t violations_seen_ = 0;
};

}  // namespace
}  // namespace weft::detail

extern "C" __attribute__((visibility("default"))) weft::detail::Backend* weft_create_sim_backend(
    const weft::detail::Options* opts, char* err, size_t err_len) {
  return weft::detail::create_plugin_backend<weft::detail::SimBackend>(opts, err, err_len);
}
