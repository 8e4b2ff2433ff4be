// SimtDut: drives one Verilated weft_simt_core (launch inputs, memories through the SRAM back
// doors, results through the debug port) and the golden-model comparison used by every SIMT
// block test. The configuration comes from the build: WEFT_MODEL, WEFT_WARPS, WEFT_THREADS,
// WEFT_BANKS, WEFT_IMEM_WORDS, WEFT_DMEM_BYTES.
#pragma once

#include <gtest/gtest.h>

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <memory>
#include <sstream>
#include <string>
#include <vector>

#include WEFT_MODEL_HEADER
#include "weft/golden/simt.hpp"
#include "weft/tb/harness.hpp"
#include "weft/tb/sram_backdoor.hpp"

namespace weft::tb::simt {

namespace gs = weft::golden::simt;

inline constexpr uint32_t kWarps = WEFT_WARPS;
inline constexpr uint32_t kThreads = WEFT_THREADS;
inline constexpr uint32_t kBanks = WEFT_BANKS;
inline constexpr uint32_t kImemWords = WEFT_IMEM_WORDS;
inline constexpr uint32_t kDmemBytes = WEFT_DMEM_BYTES;

struct RtlThread {
  bool exited = false;
  uint32_t exit_code = 0;
  uint32_t retired = 0;
};

struct RtlResult {
  bool finished = false;  // done_o seen before the cycle budget ran out
  uint64_t cycles_waited = 0;
  gs::Error error;
  std::vector<RtlThread> threads;  // by thread id of the launch (warp * threads_per_warp + lane)
  std::vector<uint32_t> warp_issues, warp_active;
  uint32_t perf_cycles = 0, perf_issued = 0, perf_active = 0, perf_stall_pipe = 0,
           perf_stall_div = 0, perf_stall_mem = 0, perf_stall_barrier = 0, perf_replays = 0,
           perf_barriers = 0;
};

// One kernel: instruction words at imem address 0, an initial scratchpad image, a launch.
struct Kernel {
  std::vector<uint32_t> code;
  std::vector<uint8_t> dmem = std::vector<uint8_t>(kDmemBytes, 0);
  gs::Launch launch{0, kWarps, kThreads, 0, 0, 0, 0};
  uint64_t max_issues = 1'000'000;

  void put32(uint32_t addr, uint32_t v) {
    for (int i = 0; i < 4; ++i) dmem.at(addr + i) = static_cast<uint8_t>(v >> (8 * i));
  }
};

class SimtDut {
 public:
  SimtDut() {
    auto& d = h_.dut();
    d.imem_we_i = 0;
    d.start_i = 0;
    d.ext_req_i = 0;
    d.ext_we_i = 0;
    d.dbg_thread_i = 0;
    d.dbg_warp_i = 0;
    h_.reset();
    imem_ = std::make_unique<SramBackdoor>(h_.ctx(), "top.weft_simt_core.u_imem");
    for (uint32_t b = 0; b < kBanks; ++b) {
      banks_.push_back(std::make_unique<SramBackdoor>(
          h_.ctx(), "top.weft_simt_core.u_lsu.g_bank[" + std::to_string(b) + "].u_sram"));
    }
  }

  Harness<WEFT_MODEL>& harness() { return h_; }

  // The whole instruction memory: `words` at 0, zeros after (0 is an illegal instruction).
  void load_imem(const std::vector<uint32_t>& words) {
    for (uint32_t a = 0; a < kImemWords; ++a) imem_->write(a, {a < words.size() ? words[a] : 0u});
  }

  // Through the write port instead of the back door (one word per cycle).
  void write_imem_port(uint32_t word_addr, const std::vector<uint32_t>& words) {
    auto& d = h_.dut();
    for (size_t i = 0; i < words.size(); ++i) {
      d.imem_we_i = 1;
      d.imem_addr_i = word_addr + static_cast<uint32_t>(i);
      d.imem_wdata_i = words[i];
      h_.tick();
    }
    d.imem_we_i = 0;
  }

  void write_dmem(const std::vector<uint8_t>& bytes) {
    for (uint32_t w = 0; w < kDmemBytes / 4; ++w) {
      uint32_t v = 0;
      for (int i = 0; i < 4; ++i) v |= uint32_t{bytes.at(4 * w + i)} << (8 * i);
      banks_[w % kBanks]->write(w / kBanks, {v});
    }
  }

  std::vector<uint8_t> read_dmem() const {
    std::vector<uint8_t> out(kDmemBytes);
    for (uint32_t w = 0; w < kDmemBytes / 4; ++w) {
      const uint32_t v = banks_[w % kBanks]->read(w / kBanks)[0];
      for (int i = 0; i < 4; ++i) out[4 * w + i] = static_cast<uint8_t>(v >> (8 * i));
    }
    return out;
  }

  RtlResult run(const gs::Launch& l, uint64_t max_issues, uint64_t max_cycles = 2'000'000) {
    auto& d = h_.dut();
    d.start_pc_i = l.entry_pc;
    d.start_num_warps_i = l.num_warps;
    d.start_threads_i = l.threads_per_warp;
    d.start_block_id_i = l.block_id;
    d.start_arg_ptr_i = l.arg_ptr;
    d.start_stack_top_i = l.stack_top;
    d.start_stack_size_i = l.stack_size_per_thread;
    d.start_max_issues_i = static_cast<uint32_t>(max_issues);
    d.start_i = 1;
    h_.tick();
    d.start_i = 0;
    RtlResult r;
    const uint64_t t0 = h_.cycle();
    r.finished = h_.run_until([&] { return d.done_o != 0; }, max_cycles);
    r.cycles_waited = h_.cycle() - t0;
    r.error = {static_cast<gs::ErrorCode>(d.err_code_o), d.err_pc_o, d.err_thread_o, d.err_tval_o};
    r.perf_cycles = d.perf_cycles_o;
    r.perf_issued = d.perf_issued_o;
    r.perf_active = d.perf_active_o;
    r.perf_stall_pipe = d.perf_stall_pipe_o;
    r.perf_stall_div = d.perf_stall_div_o;
    r.perf_stall_mem = d.perf_stall_mem_o;
    r.perf_stall_barrier = d.perf_stall_barrier_o;
    r.perf_replays = d.perf_replays_o;
    r.perf_barriers = d.perf_barriers_o;
    h_.tick();  // back to idle (busy_o low); results hold
    if (r.finished && d.busy_o) ADD_FAILURE() << "busy_o still high after done_o";
    const uint32_t nw = l.num_warps > kWarps ? 0 : l.num_warps;
    const uint32_t tpw = l.threads_per_warp > kThreads ? 0 : l.threads_per_warp;
    for (uint32_t w = 0; w < nw; ++w) {
      d.dbg_warp_i = w;
      d.eval();
      r.warp_issues.push_back(d.dbg_warp_issues_o);
      r.warp_active.push_back(d.dbg_warp_active_o);
      for (uint32_t ln = 0; ln < tpw; ++ln) {
        d.dbg_thread_i = w * kThreads + ln;
        d.eval();
        r.threads.push_back({d.dbg_exited_o != 0, d.dbg_exit_code_o, d.dbg_retired_o});
      }
    }
    return r;
  }

 private:
  Harness<WEFT_MODEL> h_;
  std::unique_ptr<SramBackdoor> imem_;
  std::vector<std::unique_ptr<SramBackdoor>> banks_;
};

// Runs a kernel on the golden model (machine `m`, memories loaded here).
inline gs::Result run_golden(gs::Machine& m, const Kernel& k) {
  m.dmem() = k.dmem;
  std::vector<uint32_t> all(kImemWords, 0);
  std::copy(k.code.begin(), k.code.end(), all.begin());
  m.load_imem(0, all);
  return m.run(k.launch);
}

inline gs::Config golden_config(uint64_t max_issues) {
  gs::Config c;
  c.dmem_bytes = kDmemBytes;
  c.imem_bytes = kImemWords * 4;
  c.max_warp_issues = max_issues;
  return c;
}

// What a comparison checks.
struct Compare {
  bool memory = true;        // final scratchpad (skipped after an error: undefined then)
  bool threads = true;       // exit codes, retired counts (skipped after an error)
  bool warp_counts = true;   // per-warp issues and active threads (skipped after an error)
  bool error_thread = true;  // error pc / thread / tval (exact only for a single faulting thread)
};

inline std::string first_mem_diff(const std::vector<uint8_t>& want,
                                  const std::vector<uint8_t>& got) {
  std::ostringstream s;
  int shown = 0;
  for (size_t i = 0; i < want.size() && shown < 8; ++i) {
    if (want[i] != got[i]) {
      s << " [0x" << std::hex << i << "] want 0x" << int{want[i]} << " got 0x" << int{got[i]}
        << std::dec;
      ++shown;
    }
  }
  return s.str();
}

// Runs `k` on a fresh RTL instance and on the golden model and compares everything that
// docs/simt-model.md says is defined. Returns both results for extra checks.
struct Both {
  gs::Result gold;
  RtlResult rtl;
  std::vector<uint8_t> gold_mem, rtl_mem;
};

inline Both run_and_compare(const Kernel& k, const Compare& c = {}) {
  Both b;
  gs::Machine m(golden_config(k.max_issues));
  b.gold = run_golden(m, k);
  b.gold_mem = m.dmem();
  SimtDut dut;
  dut.load_imem(k.code);
  dut.write_dmem(k.dmem);
  b.rtl = dut.run(k.launch, k.max_issues);
  b.rtl_mem = dut.read_dmem();
  EXPECT_TRUE(b.rtl.finished) << "the RTL launch did not finish";
  if (weft::tb::verbose()) {
    std::printf(
        "[simt] cycles %u issued %u active %u stalls pipe %u div %u mem %u bar %u replays %u"
        " barriers %u | golden issues %llu error %s\n",
        b.rtl.perf_cycles, b.rtl.perf_issued, b.rtl.perf_active, b.rtl.perf_stall_pipe,
        b.rtl.perf_stall_div, b.rtl.perf_stall_mem, b.rtl.perf_stall_barrier, b.rtl.perf_replays,
        b.rtl.perf_barriers, static_cast<unsigned long long>(b.gold.total_issues()),
        b.gold.error.message().c_str());
  }
  if (!b.rtl.finished) return b;
  EXPECT_EQ(b.rtl.error.code, b.gold.error.code)
      << "rtl: " << b.rtl.error.message() << "\ngolden: " << b.gold.error.message();
  if (b.gold.error.code != gs::ErrorCode::None) {
    if (c.error_thread) {
      EXPECT_EQ(b.rtl.error.pc, b.gold.error.pc) << b.gold.error.message();
      EXPECT_EQ(b.rtl.error.thread, b.gold.error.thread) << b.gold.error.message();
      EXPECT_EQ(b.rtl.error.tval, b.gold.error.tval) << b.gold.error.message();
    }
    return b;
  }
  if (c.memory) {
    EXPECT_TRUE(b.rtl_mem == b.gold_mem)
        << "scratchpad differs:" << first_mem_diff(b.gold_mem, b.rtl_mem);
  }
  if (c.threads) {
    EXPECT_EQ(b.rtl.threads.size(), b.gold.threads.size());
    for (size_t t = 0; t < std::min(b.rtl.threads.size(), b.gold.threads.size()); ++t) {
      EXPECT_TRUE(b.rtl.threads[t].exited) << "thread " << t;
      EXPECT_EQ(b.rtl.threads[t].exit_code, b.gold.threads[t].exit_code) << "thread " << t;
      EXPECT_EQ(b.rtl.threads[t].retired, b.gold.threads[t].retired) << "thread " << t;
    }
  }
  if (c.warp_counts) {
    for (size_t w = 0; w < std::min(b.rtl.warp_issues.size(), b.gold.warp_issues.size()); ++w) {
      EXPECT_EQ(b.rtl.warp_issues[w], b.gold.warp_issues[w]) << "warp " << w;
      EXPECT_EQ(b.rtl.warp_active[w], b.gold.warp_active_threads[w]) << "warp " << w;
    }
    EXPECT_EQ(b.rtl.perf_issued, b.gold.total_issues());
    EXPECT_EQ(b.rtl.perf_active, b.gold.total_active_threads());
    EXPECT_EQ(b.rtl.perf_barriers, b.gold.barriers);
  }
  // Counter consistency: every cycle issues or is a stall of one cause, up to the pipeline fill.
  const uint64_t stalls = uint64_t{b.rtl.perf_stall_pipe} + b.rtl.perf_stall_div +
                          b.rtl.perf_stall_mem + b.rtl.perf_stall_barrier;
  EXPECT_LE(b.rtl.perf_issued, b.rtl.perf_cycles);
  EXPECT_LE(stalls, b.rtl.perf_cycles);
  return b;
}

}  // namespace weft::tb::simt
