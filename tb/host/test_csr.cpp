// Block tests of weft_csr (generated from rtl/host/weft_regs.rdl) over its AXI4-Lite slave, driven
// by weft::sim::AxilMaster.
//
// The expectation is the register map as weft/regs.hpp states it (offsets, fields, access kinds,
// reset values) with the field semantics of docs/registers.md implemented independently here in
// RefCsr, and each field's member of the reg2hw_o / hw2reg_i structs (docs/registers.md) bound
// by hand below through the bit positions of csr_structs.hpp (a member missing or misnamed does
// not compile; a field without a binding, or a port bit bound twice or not at all, fails
// BindingsCoverTheMap).
//
// Cycle numbering: cycle c is the one ending with the c-th clock edge; inputs for cycle c are set
// before its evaluation, outputs observed after it (Bench::inputs / Bench::monitor).
#include <gtest/gtest.h>

#include <algorithm>
#include <array>
#include <cstdint>
#include <cstdio>
#include <functional>
#include <map>
#include <random>
#include <set>
#include <string>
#include <type_traits>
#include <vector>

#include "Vvl_csr.h"
#include "csr_structs.hpp"
#include "weft/regs.hpp"
#include "weft/sim/axil_master.hpp"
#include "weft/tb/bits.hpp"
#include "weft/tb/harness.hpp"
#include "weft/tb/options.hpp"

namespace {

namespace r = weft::regs;
using Dut = Vvl_csr;
using Master = weft::sim::AxilMaster<Dut>;
using weft::sim::AxilOptions;
using weft::sim::AxilReadResult;
using weft::sim::AxilResp;
using weft::tb::get_bits;
using weft::tb::Harness;
using weft::tb::set_bits;
namespace csr = weft::tb::csr;
using Access = r::Access;

constexpr uint32_t kAddrSpace = 1u << 12;  // weft_csr AddrW = 12

uint32_t field_mask(unsigned width) { return width >= 32 ? 0xffffffffu : ((1u << width) - 1u); }

uint32_t strobe_mask(uint8_t strb) {
  uint32_t m = 0;
  for (int b = 0; b < 4; ++b) {
    if ((strb >> b) & 1) m |= 0xffu << (8 * b);
  }
  return m;
}

// ---------------------------------------------------------------------------------------------
// Bindings: every field of the map to its member(s) of weft_csr's reg2hw_o / hw2reg_i, named by
// hand below (csr_structs.hpp, generated with the structs, says where each member sits in the
// Verilated port: a member missing or misnamed does not compile).

// One member of reg2hw_o / hw2reg_i.
uint32_t get_member(Dut& d, csr::Bits b) {
  return static_cast<uint32_t>(get_bits(d.reg2hw_o, b.lsb, b.width));
}
void set_member(Dut& d, csr::Bits b, uint32_t v) { set_bits(d.hw2reg_i, b.lsb, b.width, v); }

struct InBind {  // RO field: hw2reg <f>
  uint32_t offset;
  unsigned shift, width;
  csr::Bits bits;
  void set(Dut& d, uint32_t v) const { set_member(d, bits, v); }
};
struct OutBind {  // RW / W1C / W1P field: reg2hw <f>
  uint32_t offset;
  unsigned shift, width;
  csr::Bits bits;
  uint32_t get(Dut& d) const { return get_member(d, bits); }
};
struct SetBind {  // W1C field: hw2reg <f>_set
  uint32_t offset;
  unsigned shift;
  csr::Bits bits;
  void set(Dut& d, uint32_t v) const { set_member(d, bits, v); }
};
struct PulseBind {  // swmod: reg2hw <f>_wr, swacc: reg2hw <f>_rd
  uint32_t offset;
  unsigned shift;
  csr::Bits bits;
  bool get(Dut& d) const { return get_member(d, bits) != 0; }
};

#define WEFT_IN(off, ns, F, member) \
  InBind { off, r::ns::k##F##Shift, r::ns::k##F##Width, csr::hw2reg::member }
#define WEFT_OUT(off, ns, F, member) \
  OutBind { off, r::ns::k##F##Shift, r::ns::k##F##Width, csr::reg2hw::member }
#define WEFT_PERF(Camel, snake)                                                    \
  WEFT_IN(r::kPerf##Camel##Lo, perf_##snake##_lo, Count, perf_##snake::lo::count), \
      WEFT_IN(r::kPerf##Camel##Hi, perf_##snake##_hi, Count, perf_##snake::hi::count)
#define WEFT_PERF_RD(Camel, snake)                          \
  PulseBind {                                               \
    r::kPerf##Camel##Lo, r::perf_##snake##_lo::kCountShift, \
        csr::reg2hw::perf_##snake::lo::count_rd             \
  }
#define WEFT_WIN(i)                                                            \
  WEFT_OUT(r::kWinBaseLo[i], win_base_lo, Addr, win##i::base_lo::addr),        \
      WEFT_OUT(r::kWinBaseHi[i], win_base_hi, Addr, win##i::base_hi::addr),    \
      WEFT_OUT(r::kWinLimitLo[i], win_limit_lo, Addr, win##i::limit_lo::addr), \
      WEFT_OUT(r::kWinLimitHi[i], win_limit_hi, Addr, win##i::limit_hi::addr), \
      WEFT_OUT(r::kWinCtrl[i], win_ctrl, Read, win##i::ctrl::read),            \
      WEFT_OUT(r::kWinCtrl[i], win_ctrl, Write, win##i::ctrl::write)

const std::vector<InBind>& in_binds() {
  static const std::vector<InBind> v = {
      WEFT_IN(r::kCap0, cap0, Rows, cap0::rows),
      WEFT_IN(r::kCap0, cap0, Cols, cap0::cols),
      WEFT_IN(r::kCap0, cap0, BusBytes, cap0::bus_bytes),
      WEFT_IN(r::kCap0, cap0, Windows, cap0::windows),
      WEFT_IN(r::kCap1, cap1, SpadLines, cap1::spad_lines),
      WEFT_IN(r::kCap1, cap1, SpadBanks, cap1::spad_banks),
      WEFT_IN(r::kCap2, cap2, AccRows, cap2::acc_rows),
      WEFT_IN(r::kCap2, cap2, Inflight, cap2::inflight),
      WEFT_IN(r::kCap2, cap2, MaxBurst, cap2::max_burst),
      WEFT_IN(r::kCap3, cap3, Warps, cap3::warps),
      WEFT_IN(r::kCap3, cap3, Threads, cap3::threads),
      WEFT_IN(r::kCap3, cap3, DmemKib, cap3::dmem_kib),
      WEFT_IN(r::kCap4, cap4, ImemKib, cap4::imem_kib),
      WEFT_IN(r::kCap4, cap4, DmemBanks, cap4::dmem_banks),
      WEFT_IN(r::kCap4, cap4, Fp, cap4::fp),
      WEFT_IN(r::kCap4, cap4, Ecc, cap4::ecc),
      WEFT_IN(r::kEccCorrected, ecc_corrected, Count, ecc_corrected::count),
      WEFT_IN(r::kEccDetected, ecc_detected, Count, ecc_detected::count),
      WEFT_IN(r::kEccLastCorr, ecc_last_corr, Addr, ecc_last_corr::addr),
      WEFT_IN(r::kEccLastCorr, ecc_last_corr, Acc, ecc_last_corr::acc),
      WEFT_IN(r::kEccLastErr, ecc_last_err, Addr, ecc_last_err::addr),
      WEFT_IN(r::kEccLastErr, ecc_last_err, Acc, ecc_last_err::acc),
      WEFT_IN(r::kSimtErrCode, simt_err_code, Code, simt_err_code::code),
      WEFT_IN(r::kSimtErrPc, simt_err_pc, Pc, simt_err_pc::pc),
      WEFT_IN(r::kSimtErrThread, simt_err_thread, Thread, simt_err_thread::thread),
      WEFT_IN(r::kSimtErrTval, simt_err_tval, Tval, simt_err_tval::tval),
      WEFT_IN(r::kSimtCycles, simt_cycles, Count, simt_cycles::count),
      WEFT_IN(r::kSimtIssued, simt_issued, Count, simt_issued::count),
      WEFT_IN(r::kSimtActive, simt_active, Count, simt_active::count),
      WEFT_IN(r::kSimtStallPipe, simt_stall_pipe, Count, simt_stall_pipe::count),
      WEFT_IN(r::kSimtStallDiv, simt_stall_div, Count, simt_stall_div::count),
      WEFT_IN(r::kSimtStallMem, simt_stall_mem, Count, simt_stall_mem::count),
      WEFT_IN(r::kSimtStallBarrier, simt_stall_barrier, Count, simt_stall_barrier::count),
      WEFT_IN(r::kSimtReplays, simt_replays, Count, simt_replays::count),
      WEFT_IN(r::kSimtBarriers, simt_barriers, Count, simt_barriers::count),
      WEFT_IN(r::kSimtLaunches, simt_launches, Count, simt_launches::count),
      WEFT_IN(r::kStatus, status, Idle, status::idle),
      WEFT_IN(r::kStatus, status, Error, status::error),
      WEFT_IN(r::kStatus, status, ResetBusy, status::reset_busy),
      WEFT_IN(r::kErrCode, err_code, Code, err_code::code),
      WEFT_IN(r::kErrIndex, err_index, Index, err_index::index),
      WEFT_IN(r::kErrAddrLo, err_addr_lo, Addr, err_addr_lo::addr),
      WEFT_IN(r::kErrAddrHi, err_addr_hi, Addr, err_addr_hi::addr),
      WEFT_IN(r::kRingHead, ring_head, Count, ring_head::count),
      WEFT_IN(r::kCompleted, completed, Count, completed::count),
      WEFT_PERF(Cycles, cycles),
      WEFT_PERF(LoadBusy, load_busy),
      WEFT_PERF(ComputeBusy, compute_busy),
      WEFT_PERF(StoreBusy, store_busy),
      WEFT_PERF(LoadWaitDep, load_wait_dep),
      WEFT_PERF(ComputeWaitDep, compute_wait_dep),
      WEFT_PERF(StoreWaitDep, store_wait_dep),
      WEFT_PERF(TuWaitW, tu_wait_w),
      WEFT_PERF(TuWaitA, tu_wait_a),
      WEFT_PERF(TuWaitDrain, tu_wait_drain),
      WEFT_PERF(Macs, macs),
      WEFT_PERF(DmaRdBytes, dma_rd_bytes),
      WEFT_PERF(DmaWrBytes, dma_wr_bytes),
      WEFT_PERF(DmaRdStall, dma_rd_stall),
      WEFT_PERF(DmaWrStall, dma_wr_stall),
      WEFT_PERF(DescRetired, desc_retired),
  };
  return v;
}

const std::vector<OutBind>& out_binds() {
  static const std::vector<OutBind> v = {
      WEFT_OUT(r::kCtrl, ctrl, Enable, ctrl::enable),
      WEFT_OUT(r::kCtrl, ctrl, Qreset, ctrl::qreset),
      WEFT_OUT(r::kCtrl, ctrl, PerfClear, ctrl::perf_clear),
      WEFT_OUT(r::kCtrl, ctrl, EccClear, ctrl::ecc_clear),
      WEFT_OUT(r::kIrqStatus, irq_status, Done, irq_status::done),
      WEFT_OUT(r::kIrqStatus, irq_status, Error, irq_status::error),
      WEFT_OUT(r::kIrqEnable, irq_enable, Done, irq_enable::done),
      WEFT_OUT(r::kIrqEnable, irq_enable, Error, irq_enable::error),
      WEFT_OUT(r::kRingBaseLo, ring_base_lo, Addr, ring_base_lo::addr),
      WEFT_OUT(r::kRingBaseHi, ring_base_hi, Addr, ring_base_hi::addr),
      WEFT_OUT(r::kRingSize, ring_size, Log2, ring_size::log2),
      WEFT_OUT(r::kRingTail, ring_tail, Count, ring_tail::count),
      WEFT_OUT(r::kCplAddrLo, cpl_addr_lo, Addr, cpl_addr_lo::addr),
      WEFT_OUT(r::kCplAddrHi, cpl_addr_hi, Addr, cpl_addr_hi::addr),
      WEFT_WIN(0),
      WEFT_WIN(1),
      WEFT_WIN(2),
      WEFT_WIN(3),
  };
  return v;
}

const std::vector<SetBind>& set_binds() {
  static const std::vector<SetBind> v = {
      {r::kIrqStatus, r::irq_status::kDoneShift, csr::hw2reg::irq_status::done_set},
      {r::kIrqStatus, r::irq_status::kErrorShift, csr::hw2reg::irq_status::error_set},
  };
  return v;
}

const std::vector<PulseBind>& wr_pulse_binds() {
  static const std::vector<PulseBind> v = {
      {r::kRingTail, r::ring_tail::kCountShift, csr::reg2hw::ring_tail::count_wr},
  };
  return v;
}

const std::vector<PulseBind>& rd_pulse_binds() {
  static const std::vector<PulseBind> v = {
      WEFT_PERF_RD(Cycles, cycles),
      WEFT_PERF_RD(LoadBusy, load_busy),
      WEFT_PERF_RD(ComputeBusy, compute_busy),
      WEFT_PERF_RD(StoreBusy, store_busy),
      WEFT_PERF_RD(LoadWaitDep, load_wait_dep),
      WEFT_PERF_RD(ComputeWaitDep, compute_wait_dep),
      WEFT_PERF_RD(StoreWaitDep, store_wait_dep),
      WEFT_PERF_RD(TuWaitW, tu_wait_w),
      WEFT_PERF_RD(TuWaitA, tu_wait_a),
      WEFT_PERF_RD(TuWaitDrain, tu_wait_drain),
      WEFT_PERF_RD(Macs, macs),
      WEFT_PERF_RD(DmaRdBytes, dma_rd_bytes),
      WEFT_PERF_RD(DmaWrBytes, dma_wr_bytes),
      WEFT_PERF_RD(DmaRdStall, dma_rd_stall),
      WEFT_PERF_RD(DmaWrStall, dma_wr_stall),
      WEFT_PERF_RD(DescRetired, desc_retired),
  };
  return v;
}

// ---------------------------------------------------------------------------------------------
// Reference model of the register semantics (docs/registers.md), laid out by weft/regs.hpp.
class RefCsr {
 public:
  RefCsr() {
    for (const r::RegInfo& reg : r::kRegisters) {
      uint32_t v = 0;
      for (const r::FieldInfo& f : fields(reg)) {
        if (f.access == Access::kRW || f.access == Access::kW1C) v |= f.reset;
      }
      stored_[reg.offset] = v;
      inputs_[reg.offset] = 0;
    }
  }

  static const r::RegInfo* reg_at(uint32_t addr) {
    return (addr % 4 == 0) ? r::find_register(addr) : nullptr;
  }
  static bool mapped(uint32_t addr) { return reg_at(addr) != nullptr; }

  static std::vector<r::FieldInfo> fields(const r::RegInfo& reg) {
    return {r::kFields.begin() + reg.first_field,
            r::kFields.begin() + reg.first_field + reg.num_fields};
  }

  uint32_t read(uint32_t addr) const {
    const r::RegInfo* reg = reg_at(addr);
    if (reg == nullptr) return 0;
    uint32_t v = 0;
    for (const r::FieldInfo& f : fields(*reg)) {
      const uint32_t m = field_mask(f.width) << f.lsb;
      switch (f.access) {
        case Access::kConst:
          v |= f.reset & m;
          break;
        case Access::kRO:
          v |= inputs_.at(reg->offset) & m;
          break;
        case Access::kRW:
        case Access::kW1C:
          v |= stored_.at(reg->offset) & m;
          break;
        case Access::kW1P:
          break;  // reads 0
      }
    }
    return v;
  }

  // A write that answered OKAY: its effect on the stored fields.
  void write(uint32_t addr, uint32_t data, uint8_t strb) {
    const r::RegInfo* reg = reg_at(addr);
    if (reg == nullptr) return;
    const uint32_t bm = strobe_mask(strb);
    uint32_t& s = stored_[reg->offset];
    for (const r::FieldInfo& f : fields(*reg)) {
      const uint32_t m = (field_mask(f.width) << f.lsb) & bm;
      if (f.access == Access::kRW) s = (s & ~m) | (data & m);
      if (f.access == Access::kW1C) s &= ~(data & m);
    }
  }

  // The value of the field <p>_o of the field at (offset, shift) now (W1P: 0 outside its pulse).
  uint32_t out(uint32_t offset, unsigned shift, unsigned width) const {
    return (stored_.at(offset) >> shift) & field_mask(width);
  }

  void set_input(uint32_t offset, unsigned shift, unsigned width, uint32_t v) {
    const uint32_t m = field_mask(width) << shift;
    inputs_[offset] = (inputs_[offset] & ~m) | ((v << shift) & m);
  }
  void hw_set(uint32_t offset, unsigned shift) { stored_[offset] |= 1u << shift; }

  // Does a write (OKAY) of this register with these strobes pulse the swmod field at shift?
  static bool wr_pulse(uint32_t addr, uint8_t strb, unsigned shift) {
    const r::RegInfo* reg = reg_at(addr);
    if (reg == nullptr) return false;
    for (const r::FieldInfo& f : fields(*reg)) {
      if (f.lsb == shift && f.wr_pulse) {
        return ((field_mask(f.width) << f.lsb) & strobe_mask(strb)) != 0;
      }
    }
    return false;
  }

 private:
  std::map<uint32_t, uint32_t> stored_;  // RW / W1C fields, in place
  std::map<uint32_t, uint32_t> inputs_;  // RO field inputs, in place
};

// ---------------------------------------------------------------------------------------------
// A Verilated weft_csr with its master. Per cycle: inputs(c); master drive; eval; master sample;
// monitor(c); clock edge.
class Bench {
 public:
  explicit Bench(AxilOptions opt = {}) : m_(h_.dut(), opt) {
    for (const auto& b : in_binds()) b.set(h_.dut(), 0);
    for (const auto& b : set_binds()) b.set(h_.dut(), 0);
    m_.drive();
    h_.reset();
  }

  Dut& dut() { return h_.dut(); }
  Harness<Dut>& h() { return h_; }
  Master& m() { return m_; }
  uint64_t cycle() const { return h_.cycle(); }

  std::function<void(Dut&, uint64_t)> inputs;   // sets DUT inputs for cycle c
  std::function<void(Dut&, uint64_t)> monitor;  // observes cycle c (after evaluation)

  // One cycle in the order of the tick protocol.
  void cycle_once() {
    apply_inputs();
    m_.drive();
    h_.eval();
    m_.sample();
    finish();
  }
  void idle(int n) {
    for (int i = 0; i < n; ++i) cycle_once();
  }

  AxilResp write(uint32_t addr, uint32_t data, uint8_t strb = 0xf) {
    apply_inputs();
    return m_.write_sync(
        addr, data, strb, [this] { step(); }, 1000);
  }
  AxilReadResult read(uint32_t addr) {
    apply_inputs();
    return m_.read_sync(
        addr, [this] { step(); }, 1000);
  }
  void drain() {
    apply_inputs();
    m_.drain([this] { step(); }, 1000000);
  }

 private:
  void apply_inputs() {
    if (inputs) inputs(h_.dut(), h_.cycle());
  }
  void finish() {
    if (monitor) monitor(h_.dut(), h_.cycle());
    h_.tick();
  }
  // The master's blocking calls: drive, eval, sample, then this.
  void step() {
    finish();
    apply_inputs();
  }

  Harness<Dut> h_;
  Master m_;
};

// Registers whose fields are all software-writable RW (the plain read/write registers).
std::vector<const r::RegInfo*> rw_registers() {
  std::vector<const r::RegInfo*> v;
  for (const r::RegInfo& reg : r::kRegisters) {
    bool all_rw = reg.num_fields > 0;
    for (const r::FieldInfo& f : RefCsr::fields(reg)) all_rw = all_rw && f.access == Access::kRW;
    if (all_rw) v.push_back(&reg);
  }
  return v;
}

void expect_outputs_match(Dut& d, const RefCsr& ref, const std::string& when) {
  for (const auto& b : out_binds()) {
    const r::RegInfo* reg = r::find_register(b.offset);
    ASSERT_NE(reg, nullptr);
    bool pulse = false;
    for (const auto& f : RefCsr::fields(*reg))
      pulse |= f.lsb == b.shift && f.access == Access::kW1P;
    const uint32_t want = pulse ? 0 : ref.out(b.offset, b.shift, b.width);
    EXPECT_EQ(b.get(d), want) << reg->name << " bit " << b.shift << " output, " << when;
  }
}

// The Verilated ports are as wide as the generated structs (Verilator's storage for the width).
constexpr size_t storage_bits(unsigned bits) {
  return bits <= 8    ? 8
         : bits <= 16 ? 16
         : bits <= 32 ? 32
         : bits <= 64 ? 64
                      : (bits + 31) / 32 * 32;
}
static_assert(sizeof(Dut::reg2hw_o) * 8 == storage_bits(csr::kReg2HwBits));
static_assert(sizeof(Dut::hw2reg_i) * 8 == storage_bits(csr::kHw2RegBits));

// The bound members are exactly the struct's members: every bit of the port bound once, and the
// bound (lsb, width) pairs are the generated member list.
template <size_t N>
void expect_bindings_are_the_members(const std::vector<csr::Bits>& bound,
                                     const std::array<csr::Member, N>& members, unsigned total,
                                     const char* port) {
  std::vector<int> times(total, 0);
  for (const csr::Bits& b : bound) {
    ASSERT_LE(b.lsb + b.width, total) << port;
    for (unsigned i = 0; i < b.width; ++i) ++times[b.lsb + i];
  }
  for (unsigned i = 0; i < total; ++i) {
    EXPECT_EQ(times[i], 1) << port << " bit " << i << " is bound " << times[i] << " times";
  }
  std::set<std::pair<unsigned, unsigned>> want, got;
  for (const csr::Member& m : members) want.insert({m.bits.lsb, m.bits.width});
  for (const csr::Bits& b : bound) got.insert({b.lsb, b.width});
  EXPECT_EQ(got, want) << port;
}

// ---------------------------------------------------------------------------------------------
TEST(Csr, BindingsCoverTheMap) {
  // Every field with a member in the map has exactly one binding here (and nothing else).
  std::set<std::pair<uint32_t, unsigned>> in, out, set, wr, rd;
  for (const auto& b : in_binds()) EXPECT_TRUE(in.insert({b.offset, b.shift}).second);
  for (const auto& b : out_binds()) EXPECT_TRUE(out.insert({b.offset, b.shift}).second);
  for (const auto& b : set_binds()) EXPECT_TRUE(set.insert({b.offset, b.shift}).second);
  for (const auto& b : wr_pulse_binds()) EXPECT_TRUE(wr.insert({b.offset, b.shift}).second);
  for (const auto& b : rd_pulse_binds()) EXPECT_TRUE(rd.insert({b.offset, b.shift}).second);
  size_t n_in = 0, n_out = 0, n_set = 0, n_wr = 0, n_rd = 0;
  for (const r::RegInfo& reg : r::kRegisters) {
    for (const r::FieldInfo& f : RefCsr::fields(reg)) {
      const std::pair<uint32_t, unsigned> key{reg.offset, f.lsb};
      const std::string what = std::string(reg.name) + "." + std::string(f.name);
      if (f.access == Access::kRO) {
        ++n_in;
        EXPECT_TRUE(in.count(key)) << what << ": no hw2reg binding";
      }
      if (f.access == Access::kRW || f.access == Access::kW1C || f.access == Access::kW1P) {
        ++n_out;
        EXPECT_TRUE(out.count(key)) << what << ": no reg2hw binding";
      }
      if (f.access == Access::kW1C) {
        ++n_set;
        EXPECT_TRUE(set.count(key)) << what << ": no hw2reg _set binding";
      }
      if (f.wr_pulse) {
        ++n_wr;
        EXPECT_TRUE(wr.count(key)) << what << ": no reg2hw _wr binding";
      }
      if (f.rd_pulse) {
        ++n_rd;
        EXPECT_TRUE(rd.count(key)) << what << ": no reg2hw _rd binding";
      }
    }
  }
  EXPECT_EQ(in.size(), n_in);
  EXPECT_EQ(out.size(), n_out);
  EXPECT_EQ(set.size(), n_set);
  EXPECT_EQ(wr.size(), n_wr);
  EXPECT_EQ(rd.size(), n_rd);
  // Each binding's member is as wide as its field (pulses and W1C sets: 1 bit per field bit).
  for (const auto& b : in_binds()) EXPECT_EQ(b.bits.width, b.width) << "RO at " << b.offset;
  for (const auto& b : out_binds()) EXPECT_EQ(b.bits.width, b.width) << "field at " << b.offset;
  for (const auto& b : wr_pulse_binds()) EXPECT_EQ(b.bits.width, 1u) << "wr at " << b.offset;
  for (const auto& b : rd_pulse_binds()) EXPECT_EQ(b.bits.width, 1u) << "rd at " << b.offset;
  // ... and together they are the ports: nothing unbound, nothing bound twice.
  std::vector<csr::Bits> hw2reg, reg2hw;
  for (const auto& b : in_binds()) hw2reg.push_back(b.bits);
  for (const auto& b : set_binds()) hw2reg.push_back(b.bits);
  for (const auto& b : out_binds()) reg2hw.push_back(b.bits);
  for (const auto& b : wr_pulse_binds()) reg2hw.push_back(b.bits);
  for (const auto& b : rd_pulse_binds()) reg2hw.push_back(b.bits);
  expect_bindings_are_the_members(hw2reg, csr::kHw2Reg, csr::kHw2RegBits, "hw2reg_i");
  expect_bindings_are_the_members(reg2hw, csr::kReg2Hw, csr::kReg2HwBits, "reg2hw_o");
}

TEST(Csr, ResetValuesMatchTheRegisterMap) {
  Bench b;
  RefCsr ref;
  expect_outputs_match(b.dut(), ref, "after reset");
  int checked = 0;
  for (const r::RegInfo& reg : r::kRegisters) {
    const AxilReadResult res = b.read(reg.offset);
    EXPECT_EQ(res.resp, AxilResp::kOkay) << reg.name;
    if (reg.has_reset) {
      EXPECT_EQ(res.data, reg.reset) << reg.name;
      ++checked;
    }
    EXPECT_EQ(res.data, ref.read(reg.offset)) << reg.name;  // RO fields: inputs held at 0
  }
  EXPECT_GE(checked, 30);  // ID, VERSION and every software-writable register
}

TEST(Csr, ConstantRegistersReadTheirValueAndIgnoreWrites) {
  Bench b;
  // Independent of the map: the ID spells "WEFT" in memory (little-endian) order; version 1.0.
  const uint32_t id = b.read(r::kId).data;
  EXPECT_EQ(
      std::string({char(id & 0xff), char(id >> 8 & 0xff), char(id >> 16 & 0xff), char(id >> 24)}),
      "WEFT");
  EXPECT_EQ(b.read(r::kVersion).data, 0x00010000u);
  for (const uint32_t off : {r::kId, r::kVersion}) {
    EXPECT_EQ(b.write(off, 0xffffffffu), AxilResp::kOkay);
    EXPECT_EQ(b.write(off, 0x0), AxilResp::kOkay);
    EXPECT_EQ(b.read(off).data, r::find_register(off)->reset);
  }
}

TEST(Csr, RwRegistersWriteAndReadBackWithByteStrobes) {
  Bench b;
  RefCsr ref;
  auto rng = weft::tb::make_rng();
  const auto regs = rw_registers();
  ASSERT_GE(regs.size(), 27u);  // 7 single registers + 4 windows x 5
  for (const r::RegInfo* reg : regs) {
    for (int strb = 0; strb < 16; ++strb) {
      const auto data = static_cast<uint32_t>(rng());
      ASSERT_EQ(b.write(reg->offset, data, static_cast<uint8_t>(strb)), AxilResp::kOkay)
          << reg->name;
      ref.write(reg->offset, data, static_cast<uint8_t>(strb));
      const AxilReadResult res = b.read(reg->offset);
      ASSERT_EQ(res.resp, AxilResp::kOkay);
      ASSERT_EQ(res.data, ref.read(reg->offset))
          << reg->name << " after writing 0x" << std::hex << data << " strb 0x" << strb;
    }
    // All ones then all zeros through all strobes: every implemented bit toggles.
    b.write(reg->offset, 0xffffffffu);
    ref.write(reg->offset, 0xffffffffu, 0xf);
    EXPECT_EQ(b.read(reg->offset).data, ref.read(reg->offset)) << reg->name;
    expect_outputs_match(b.dut(), ref, std::string("after all-ones to ") + std::string(reg->name));
  }
  // Nothing written to one register leaked into another.
  for (const r::RegInfo& reg : r::kRegisters) {
    EXPECT_EQ(b.read(reg.offset).data, ref.read(reg.offset)) << reg.name;
  }
  for (const r::RegInfo* reg : regs) {
    b.write(reg->offset, 0);
    ref.write(reg->offset, 0, 0xf);
  }
  expect_outputs_match(b.dut(), ref, "after all-zeros");
}

TEST(Csr, RoFieldsReflectTheirInputs) {
  Bench b;
  RefCsr ref;
  auto rng = weft::tb::make_rng();
  for (int round = 0; round < 20; ++round) {
    for (const auto& in : in_binds()) {
      const uint32_t v = static_cast<uint32_t>(rng()) & field_mask(in.width);
      in.set(b.dut(), v);
      ref.set_input(in.offset, in.shift, in.width, v);
    }
    for (const r::RegInfo& reg : r::kRegisters) {
      const AxilReadResult res = b.read(reg.offset);
      ASSERT_EQ(res.data, ref.read(reg.offset)) << reg.name << " round " << round;
    }
    // Writes to read-only registers answer OKAY and change nothing.
    for (const r::RegInfo& reg : r::kRegisters) {
      if (reg.access != Access::kRO) continue;
      EXPECT_EQ(b.write(reg.offset, ~ref.read(reg.offset)), AxilResp::kOkay) << reg.name;
      EXPECT_EQ(b.read(reg.offset).data, ref.read(reg.offset)) << reg.name;
    }
  }
}

// Per-cycle trace of the signals the pulse tests look at.
struct Trace {
  std::vector<uint64_t> bvalid_rise, rvalid_rise;     // first cycle of each response
  std::map<std::string, std::vector<uint64_t>> high;  // cycles a named output was high
  bool last_b = false, last_r = false;

  void sample(Dut& d, uint64_t c) {
    if (d.s_axil_bvalid && !last_b) bvalid_rise.push_back(c);
    if (d.s_axil_rvalid && !last_r) rvalid_rise.push_back(c);
    // A response accepted at the end of this cycle ends it, so a following one is a new rise.
    last_b = d.s_axil_bvalid && !d.s_axil_bready;
    last_r = d.s_axil_rvalid && !d.s_axil_rready;
  }
  void flag(const std::string& name, bool v, uint64_t c) {
    if (v) high[name].push_back(c);
  }
  std::vector<uint64_t> cycles(const std::string& name) const {
    auto it = high.find(name);
    return it == high.end() ? std::vector<uint64_t>{} : it->second;
  }
};

TEST(Csr, SinglePulseFieldsPulseOneCycleWithTheWriteResponse) {
  Bench b;
  Trace t;
  std::vector<uint32_t> enable_at_pulse;
  b.monitor = [&](Dut& d, uint64_t c) {
    t.sample(d, c);
    t.flag("qreset", get_member(d, csr::reg2hw::ctrl::qreset), c);
    t.flag("perf_clear", get_member(d, csr::reg2hw::ctrl::perf_clear), c);
    t.flag("ecc_clear", get_member(d, csr::reg2hw::ctrl::ecc_clear), c);
    if (get_member(d, csr::reg2hw::ctrl::qreset))
      enable_at_pulse.push_back(get_member(d, csr::reg2hw::ctrl::enable));
  };
  using V = std::vector<uint64_t>;
  // qreset alone: one pulse, in the first cycle of B (the cycle after the write took effect).
  ASSERT_EQ(b.write(r::kCtrl, r::ctrl::kQresetMask, 0x1), AxilResp::kOkay);
  b.idle(3);
  ASSERT_EQ(t.bvalid_rise.size(), 1u);
  EXPECT_EQ(t.cycles("qreset"), V{t.bvalid_rise[0]});
  EXPECT_EQ(t.cycles("perf_clear"), V{});
  EXPECT_EQ(get_member(b.dut(), csr::reg2hw::ctrl::enable), 0u);
  // All three bits: both pulses in the same cycle, enable set together with them.
  ASSERT_EQ(
      b.write(r::kCtrl, r::ctrl::kEnableMask | r::ctrl::kQresetMask | r::ctrl::kPerfClearMask),
      AxilResp::kOkay);
  b.idle(3);
  ASSERT_EQ(t.bvalid_rise.size(), 2u);
  EXPECT_EQ(t.cycles("qreset"), (V{t.bvalid_rise[0], t.bvalid_rise[1]}));
  EXPECT_EQ(t.cycles("perf_clear"), V{t.bvalid_rise[1]});
  EXPECT_EQ(enable_at_pulse, (std::vector<uint32_t>{0, 1}));
  // Writing 0, or 1 with the byte strobe off: no pulse (enable kept at 1 by the 0x1 write).
  b.write(r::kCtrl, r::ctrl::kEnableMask, 0x1);
  b.write(r::kCtrl, 0xffffffffu, 0x0);
  b.write(r::kCtrl, 0xfffffffeu, 0xe);
  b.idle(3);
  EXPECT_EQ(t.cycles("qreset").size(), 2u);
  EXPECT_EQ(t.cycles("perf_clear").size(), 1u);
  EXPECT_EQ(t.cycles("ecc_clear").size(), 0u);
  EXPECT_EQ(get_member(b.dut(), csr::reg2hw::ctrl::enable), 1u);
  // They read 0, even right after a write of 1.
  b.m().write(r::kCtrl, r::ctrl::kEnableMask | r::ctrl::kQresetMask | r::ctrl::kPerfClearMask);
  b.m().read(r::kCtrl);
  b.drain();
  EXPECT_EQ(b.m().pop_read()->data, r::ctrl::kEnableMask);
  // Back-to-back writes of 1: one pulse each.
  const size_t before = t.cycles("qreset").size();
  for (int i = 0; i < 5; ++i) b.m().write(r::kCtrl, r::ctrl::kQresetMask);
  b.drain();
  b.idle(3);
  EXPECT_EQ(t.cycles("qreset").size(), before + 5);
  const auto q = t.cycles("qreset");
  for (size_t i = 1; i < q.size(); ++i) EXPECT_GT(q[i], q[i - 1] + 1) << "pulses merged";
  // ecc_clear (bit 3) pulses like the others, with its write's response, and alone.
  ASSERT_EQ(b.write(r::kCtrl, r::ctrl::kEccClearMask), AxilResp::kOkay);
  b.idle(3);
  EXPECT_EQ(t.cycles("ecc_clear"), V{t.bvalid_rise.back()});
  EXPECT_EQ(t.cycles("qreset").size(), before + 5);
}

TEST(Csr, SwmodPulsesOnceWhenTheWriteTakesEffect) {
  Bench b;
  Trace t;
  std::vector<uint32_t> tail_at_pulse;
  b.monitor = [&](Dut& d, uint64_t c) {
    t.sample(d, c);
    t.flag("wr", get_member(d, csr::reg2hw::ring_tail::count_wr), c);
    if (get_member(d, csr::reg2hw::ring_tail::count_wr))
      tail_at_pulse.push_back(get_member(d, csr::reg2hw::ring_tail::count));
  };
  using V = std::vector<uint64_t>;
  ASSERT_EQ(b.write(r::kRingTail, 5), AxilResp::kOkay);
  b.idle(2);
  ASSERT_EQ(t.bvalid_rise.size(), 1u);
  EXPECT_EQ(t.cycles("wr"), V{t.bvalid_rise[0]});
  EXPECT_EQ(tail_at_pulse, std::vector<uint32_t>{5});  // the new value comes with the pulse
  // Writing the same value again still pulses (a doorbell); one byte lane suffices.
  b.write(r::kRingTail, 5);
  b.write(r::kRingTail, 0x0000ff00u, 0x2);
  b.idle(2);
  ASSERT_EQ(t.bvalid_rise.size(), 3u);
  EXPECT_EQ(t.cycles("wr"), (V{t.bvalid_rise[0], t.bvalid_rise[1], t.bvalid_rise[2]}));
  EXPECT_EQ(tail_at_pulse, (std::vector<uint32_t>{5, 5, 0xff05}));
  // No strobe, other registers, an unaligned or unmapped address, reads: no pulse.
  EXPECT_EQ(b.write(r::kRingTail, 9, 0x0), AxilResp::kOkay);
  b.write(r::kRingHead, 1);
  b.write(r::kRingSize, 1);
  b.write(r::kCplAddrLo, 1);
  EXPECT_EQ(b.write(r::kRingTail + 1, 1), AxilResp::kSlvErr);
  EXPECT_EQ(b.write(r::kRingTail + 0x800, 1), AxilResp::kSlvErr);
  EXPECT_EQ(b.read(r::kRingTail).data, 0xff05u);
  b.idle(2);
  EXPECT_EQ(t.cycles("wr").size(), 3u);
  EXPECT_EQ(get_member(b.dut(), csr::reg2hw::ring_tail::count), 0xff05u);
}

TEST(Csr, SwaccPulsesInTheCycleTheReadSamples) {
  Bench b;
  // Every counter input changes every cycle: LO_i(c) = c * 0x01010101 + k, HI_i(c) = ~that.
  auto lo_at = [](uint64_t c, unsigned k) { return static_cast<uint32_t>(c * 0x01010101u + k); };
  b.inputs = [&](Dut& d, uint64_t c) {
    unsigned k = 0;
    for (const auto& in : in_binds()) {
      if (in.offset >= r::kPerfCyclesLo) in.set(d, (in.offset & 4) ? ~lo_at(c, k) : lo_at(c, k));
      ++k;
    }
  };
  Trace t;
  std::vector<std::pair<uint32_t, uint64_t>> pulses;  // (register offset, cycle)
  b.monitor = [&](Dut& d, uint64_t c) {
    t.sample(d, c);
    for (const auto& p : rd_pulse_binds()) {
      if (p.get(d)) pulses.emplace_back(p.offset, c);
    }
  };
  unsigned k_lo = 0;
  std::map<uint32_t, unsigned> k_of;
  for (const auto& in : in_binds()) k_of[in.offset] = k_lo++;
  size_t n = 0;
  for (const auto& p : rd_pulse_binds()) {
    pulses.clear();
    const AxilReadResult lo = b.read(p.offset);
    ASSERT_EQ(t.rvalid_rise.size(), ++n);
    ASSERT_EQ(pulses.size(), 1u) << std::hex << p.offset;
    EXPECT_EQ(pulses[0].first, p.offset);
    const uint64_t c = pulses[0].second;
    EXPECT_EQ(c + 1, t.rvalid_rise.back()) << "pulse not in the cycle before R";
    EXPECT_EQ(lo.data, lo_at(c, k_of[p.offset])) << "LO not sampled in the pulse cycle";
    // HI: its own value, no pulse.
    const AxilReadResult hi = b.read(p.offset + 4);
    ++n;
    EXPECT_TRUE(pulses.size() == 1u) << "reading HI pulsed";
    EXPECT_EQ(hi.data, ~lo_at(t.rvalid_rise.back() - 1, k_of[p.offset + 4]));
  }
  // Writes to a LO register, unaligned reads of it: no pulse.
  pulses.clear();
  b.write(r::kPerfCyclesLo, 0);
  EXPECT_EQ(b.read(r::kPerfCyclesLo + 2).resp, AxilResp::kSlvErr);
  b.idle(2);
  EXPECT_TRUE(pulses.empty());
}

// IRQ_STATUS.done: set by hw2reg irq_status.done_set, cleared by writing 1. The set input is high
// in exactly one cycle k around a clearing write whose write edge ends cycle e (= first B cycle -
// 1): the field ends up 1 when k >= e (a set at the clear's edge wins), 0 when k < e.
TEST(Csr, W1cClearsAndAHardwareSetWinsOverAClear) {
  // Timing of the clearing write without any set.
  uint64_t write_edge = 0;
  {
    Bench b;
    Trace t;
    b.monitor = [&](Dut& d, uint64_t c) { t.sample(d, c); };
    b.idle(3);
    b.write(r::kIrqStatus, r::irq_status::kDoneMask);
    ASSERT_EQ(t.bvalid_rise.size(), 1u);
    write_edge = t.bvalid_rise[0] - 1;
  }
  for (uint64_t k = write_edge - 3; k <= write_edge + 1; ++k) {
    Bench b;
    const uint64_t base = b.cycle();  // the first cycle after reset (same in every bench)
    b.inputs = [&](Dut& d, uint64_t c) {
      set_member(d, csr::hw2reg::irq_status::done_set,
                 c == base + 1 || c == k);  // set early, then again at cycle k
      set_member(d, csr::hw2reg::irq_status::error_set, c == base + 1);
    };
    std::vector<uint64_t> done_high;
    b.monitor = [&](Dut& d, uint64_t c) {
      if (get_member(d, csr::reg2hw::irq_status::done)) done_high.push_back(c);
    };
    b.idle(3);
    ASSERT_EQ(get_member(b.dut(), csr::reg2hw::irq_status::done), 1u) << "the early set";
    ASSERT_EQ(b.write(r::kIrqStatus, r::irq_status::kDoneMask), AxilResp::kOkay);
    b.idle(2);
    const bool expect_set = k >= write_edge;
    // In the cycle after the clearing edge the bit is 1 only if the set came at that very edge.
    const bool high_after_edge =
        std::find(done_high.begin(), done_high.end(), write_edge + 1) != done_high.end();
    EXPECT_EQ(high_after_edge, k == write_edge) << "set at cycle " << k;
    EXPECT_EQ(get_member(b.dut(), csr::reg2hw::irq_status::done), expect_set ? 1u : 0u)
        << "set at cycle " << k << ", clear at edge of " << write_edge;
    EXPECT_EQ(b.read(r::kIrqStatus).data,
              (expect_set ? r::irq_status::kDoneMask : 0u) | r::irq_status::kErrorMask);
    // The error bit: writing 0, or 1 without its strobe, keeps it; writing 1 clears it.
    b.write(r::kIrqStatus, 0);
    b.write(r::kIrqStatus, r::irq_status::kErrorMask, 0xe);
    EXPECT_EQ(get_member(b.dut(), csr::reg2hw::irq_status::error), 1u);
    b.write(r::kIrqStatus, r::irq_status::kErrorMask | r::irq_status::kDoneMask);
    EXPECT_EQ(b.read(r::kIrqStatus).data, 0u);
    EXPECT_EQ(get_member(b.dut(), csr::reg2hw::irq_status::error), 0u);
  }
}

TEST(Csr, UnmappedAndUnalignedAddressesAnswerSlverrWithoutSideEffects) {
  Bench b(AxilOptions{.max_writes = 4, .max_reads = 4});
  int pulses = 0;
  b.monitor = [&](Dut& d, uint64_t) {
    for (const auto& p : wr_pulse_binds()) pulses += p.get(d);
    for (const auto& p : rd_pulse_binds()) pulses += p.get(d);
    pulses += get_member(d, csr::reg2hw::ctrl::qreset) +
              get_member(d, csr::reg2hw::ctrl::perf_clear) +
              get_member(d, csr::reg2hw::ctrl::ecc_clear);
  };
  RefCsr ref;
  int bad = 0;
  for (uint32_t a = 0; a < kAddrSpace; ++a) {
    if (RefCsr::mapped(a)) continue;
    ++bad;
    b.m().write(a, 0xffffffffu, 0xf);
    b.m().read(a);
  }
  b.drain();
  int n_w = 0, n_r = 0;
  while (auto w = b.m().pop_write()) {
    ++n_w;
    EXPECT_EQ(w->resp, AxilResp::kSlvErr) << "write 0x" << std::hex << w->addr;
  }
  while (auto rr = b.m().pop_read()) {
    ++n_r;
    EXPECT_EQ(rr->resp, AxilResp::kSlvErr) << "read 0x" << std::hex << rr->addr;
    EXPECT_EQ(rr->data, 0u) << "read 0x" << std::hex << rr->addr;
  }
  EXPECT_EQ(n_w, bad);
  EXPECT_EQ(n_r, bad);
  EXPECT_EQ(bad, int(kAddrSpace) - int(r::kRegisters.size()));
  EXPECT_EQ(pulses, 0);
  expect_outputs_match(b.dut(), ref, "after every unmapped access");
  for (const r::RegInfo& reg : r::kRegisters) {
    const AxilReadResult res = b.read(reg.offset);
    EXPECT_EQ(res.resp, AxilResp::kOkay);
    EXPECT_EQ(res.data, ref.read(reg.offset)) << reg.name;
  }
}

// AW and W in every relative order and distance, with B back-pressure: each write lands once.
TEST(Csr, AwAndWAcceptedInAnyOrder) {
  struct Mode {
    const char* name;
    AxilOptions opt;
  };
  const std::vector<Mode> modes = {
      {"together", AxilOptions{}},
      {"w first", AxilOptions{.w_first = 1.0}},
      {"aw late", AxilOptions{.aw_gap = 0.9, .seed = 3}},
      {"w late", AxilOptions{.w_gap = 0.9, .seed = 4}},
      {"b stalled", AxilOptions{.b_stall = 0.9, .seed = 5}},
  };
  for (const Mode& mode : modes) {
    Bench b(mode.opt);
    RefCsr ref;
    auto rng = weft::tb::make_rng();
    for (int i = 0; i < 40; ++i) {
      const uint32_t off = r::kWinBaseLo[i % 4] + 4 * static_cast<uint32_t>(i % 4);
      const auto data = static_cast<uint32_t>(rng());
      b.m().write(off, data);
      ref.write(off, data, 0xf);
    }
    b.drain();
    while (auto w = b.m().pop_write()) EXPECT_EQ(w->resp, AxilResp::kOkay) << mode.name;
    for (const r::RegInfo& reg : r::kRegisters) {
      EXPECT_EQ(b.read(reg.offset).data, ref.read(reg.offset)) << mode.name << " " << reg.name;
    }
  }
}

// Random reads and writes of every kind of address under random valid gaps, W-before-AW, and
// B/R back-pressure, against RefCsr. Per batch, reads and writes run concurrently, so a batch
// never reads a register it writes; between batches the RO inputs change and W1C bits get set.
// Every response and read value is checked, the outputs after each batch, and the pulse counts.
TEST(Csr, RandomTrafficUnderBackPressureMatchesTheReferenceModel) {
  auto rng = weft::tb::make_rng();
  const double p = std::uniform_real_distribution<double>(0.2, 0.7)(rng);
  weft::tb::verbose_printf("[stress] back-pressure probability %.2f\n", p);
  Bench b(AxilOptions::stressed(p, rng()));
  RefCsr ref;
  uint64_t wr_pulses = 0, rd_pulses = 0, w1p_pulses = 0;
  b.monitor = [&](Dut& d, uint64_t) {
    for (const auto& q : wr_pulse_binds()) wr_pulses += q.get(d);
    for (const auto& q : rd_pulse_binds()) rd_pulses += q.get(d);
    w1p_pulses += get_member(d, csr::reg2hw::ctrl::qreset) +
                  get_member(d, csr::reg2hw::ctrl::perf_clear) +
                  get_member(d, csr::reg2hw::ctrl::ecc_clear);
  };
  uint64_t want_wr = 0, want_rd = 0, want_w1p = 0;
  std::vector<uint32_t> offsets;
  for (const r::RegInfo& reg : r::kRegisters) offsets.push_back(reg.offset);
  auto random_addr = [&]() -> uint32_t {
    const int kind = static_cast<int>(rng() % 10);
    if (kind == 0) return static_cast<uint32_t>(rng() % kAddrSpace);  // mostly unmapped
    if (kind == 1) return offsets[rng() % offsets.size()] + 1 + static_cast<uint32_t>(rng() % 3);
    return offsets[rng() % offsets.size()];
  };
  const int batches = 2000;
  int reads_checked = 0;
  for (int batch = 0; batch < batches; ++batch) {
    // Between batches: new RO inputs, W1C sets (one cycle).
    for (const auto& in : in_binds()) {
      if (rng() % 4) continue;
      const uint32_t v = static_cast<uint32_t>(rng()) & field_mask(in.width);
      in.set(b.dut(), v);
      ref.set_input(in.offset, in.shift, in.width, v);
    }
    if (rng() % 3 == 0) {
      for (const auto& s : set_binds()) {
        const bool on = rng() % 2;
        s.set(b.dut(), on);
        if (on) ref.hw_set(s.offset, s.shift);
      }
      b.idle(1);
      for (const auto& s : set_binds()) s.set(b.dut(), 0);
    }
    // The batch.
    struct W {
      uint32_t addr, data;
      uint8_t strb;
    };
    std::vector<W> writes;
    std::vector<uint32_t> reads;
    std::set<uint32_t> written;  // register offsets written in this batch
    const int n = 1 + static_cast<int>(rng() % 8);
    for (int i = 0; i < n; ++i) {
      if (rng() % 2) {
        const uint32_t a = random_addr();
        const auto strb = static_cast<uint8_t>(rng() % 3 ? 0xf : rng() % 16);
        writes.push_back({a, static_cast<uint32_t>(rng()), strb});
        written.insert(a & ~3u);
      }
    }
    for (int i = 0; i < n; ++i) {
      const uint32_t a = random_addr();
      if (!written.count(a & ~3u)) reads.push_back(a);
    }
    for (const W& w : writes) b.m().write(w.addr, w.data, w.strb);
    for (const uint32_t a : reads) b.m().read(a);
    b.drain();
    for (const W& w : writes) {
      const auto res = b.m().pop_write();
      ASSERT_TRUE(res.has_value());
      ASSERT_EQ(res->addr, w.addr);
      ASSERT_EQ(res->resp, RefCsr::mapped(w.addr) ? AxilResp::kOkay : AxilResp::kSlvErr)
          << "write 0x" << std::hex << w.addr << " batch " << std::dec << batch;
    }
    for (const uint32_t a : reads) {
      const auto res = b.m().pop_read();
      ASSERT_TRUE(res.has_value());
      ASSERT_EQ(res->addr, a);
      ASSERT_EQ(res->resp, RefCsr::mapped(a) ? AxilResp::kOkay : AxilResp::kSlvErr)
          << "read 0x" << std::hex << a << " batch " << std::dec << batch;
      ASSERT_EQ(res->data, ref.read(a))
          << "read 0x" << std::hex << a << " batch " << std::dec << batch;
      ++reads_checked;
      if (RefCsr::mapped(a)) {
        for (const auto& q : rd_pulse_binds()) want_rd += q.offset == a;
      }
    }
    for (const W& w : writes) {
      if (!RefCsr::mapped(w.addr)) continue;
      ref.write(w.addr, w.data, w.strb);
      for (const auto& q : wr_pulse_binds()) {
        want_wr += q.offset == w.addr && RefCsr::wr_pulse(w.addr, w.strb, q.shift);
      }
      if (w.addr == r::kCtrl) {
        const uint32_t d = w.data & strobe_mask(w.strb);
        want_w1p += ((d & r::ctrl::kQresetMask) != 0) + ((d & r::ctrl::kPerfClearMask) != 0) +
                    ((d & r::ctrl::kEccClearMask) != 0);
      }
    }
    b.idle(1);  // the last write's pulses
    expect_outputs_match(b.dut(), ref, "after batch " + std::to_string(batch));
    ASSERT_FALSE(::testing::Test::HasFailure());
  }
  EXPECT_EQ(wr_pulses, want_wr);
  EXPECT_EQ(rd_pulses, want_rd);
  EXPECT_EQ(w1p_pulses, want_w1p);
  EXPECT_GT(reads_checked, batches);
  weft::tb::verbose_printf("[stress] %d batches, %d reads checked, %llu cycles\n", batches,
                           reads_checked, static_cast<unsigned long long>(b.cycle()));
}

}  // namespace
