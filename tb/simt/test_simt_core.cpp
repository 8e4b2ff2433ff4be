// Block tests of weft_simt_core against the golden model weft::golden::simt (docs/simt-model.md):
// hand-written kernels (every RV32IM instruction with edge operands, divergence, loops, early
// exit, barriers, each error kind, launch shapes, coalescing and bank conflicts) and random
// programs with random per-thread data. Compared: final scratchpad, per-thread exit codes and
// retired counts, per-warp issue and active-thread counts, errors (code, pc, thread, tval).
// Some kernels are also checked against values worked out here (independent of both models).
#include <gtest/gtest.h>

#include <algorithm>
#include <array>
#include <cstdint>
#include <random>
#include <string>
#include <vector>

#include "simt_dut.hpp"

namespace {

using namespace weft::tb::simt;
namespace rv = weft::golden::simt::rv;
using gs::ErrorCode;
using rv::Program;
using namespace rv;  // register names, instruction encoders

// Scratchpad layout of the tests: per-thread regions (in: 0..127, scratch: 128..255, out:
// 256..1023), a shared table, a shared exchange area, stacks at the top.
constexpr uint32_t kRegionShift = 10;
constexpr uint32_t kData = 0x4000;
constexpr uint32_t kTable = 0xC000;  // 1 KiB, read only
constexpr uint32_t kShared = 0xD000;
constexpr uint32_t kOut = 256;
constexpr uint32_t kNumThreads = kWarps * kThreads;
static_assert(kData + (kNumThreads << kRegionShift) <= kTable, "regions overlap the table");

uint32_t region(uint32_t tid) { return kData + (tid << kRegionShift); }

// s0 = this thread's region, s1 = the table, a4 = thread id.
void prologue(Program& p) {
  p << csrr(a4, gs::kCsrThreadId) << slli(t0, a4, kRegionShift) << li(s0, kData) << add(s0, s0, t0)
    << li(s1, kTable);
}

Kernel base_kernel() {
  Kernel k;
  k.launch.stack_top = 0x10000;
  k.launch.stack_size_per_thread = 128;
  return k;
}

uint32_t edge_value(std::mt19937_64& rng) {
  static constexpr std::array<uint32_t, 12> kEdges = {
      0, 1,           0xFFFFFFFFu, 0x80000000u, 0x7FFFFFFFu, 0x80000001u,
      2, 0xFFFFFFFEu, 31,          32,          33,          0x10000};
  if (rng() % 2) return kEdges[rng() % kEdges.size()];
  return static_cast<uint32_t>(rng());
}

// ---------------------------------------------------------------------------------------------
// Every instruction
// ---------------------------------------------------------------------------------------------

Kernel isa_kernel(std::mt19937_64& rng) {
  Kernel k = base_kernel();
  Program p;
  prologue(p);
  p << lw(a2, s0, 0) << lw(a3, s0, 4);
  uint32_t out = kOut;
  auto st = [&](uint32_t r) {
    p << sw(r, s0, static_cast<int32_t>(out));
    out += 4;
  };
  using ROp = uint32_t (*)(uint32_t, uint32_t, uint32_t);
  for (ROp op : {add, sub, sll, slt, sltu, xor_, srl, sra, or_, and_, mul, mulh, mulhsu, mulhu, div,
                 divu, rem, remu}) {
    p << op(t1, a2, a3);
    st(t1);
    p << op(t2, a3, a2);
    st(t2);
  }
  // A divide and a load whose results are used at once (scoreboard), and x0 destinations.
  p << div(t3, a2, a3) << add(t4, t3, t3) << remu(zero, a2, a3) << lw(zero, s0, 128)
    << add(t5, zero, t4);
  st(t4);
  st(t5);
  p << lw(t3, s0, 132) << addi(t4, t3, 1);
  st(t4);
  using IOp = uint32_t (*)(uint32_t, uint32_t, int32_t);
  for (IOp op : {addi, slti, sltiu, xori, ori, andi}) {
    for (int32_t imm : {0, 1, -1, 2047, -2048, 0x555}) {
      p << op(t1, a2, imm);
      st(t1);
    }
  }
  using SOp = uint32_t (*)(uint32_t, uint32_t, uint32_t);
  for (SOp op : {slli, srli, srai}) {
    for (uint32_t sh : {0u, 1u, 15u, 31u}) {
      p << op(t1, a2, sh);
      st(t1);
    }
  }
  p << lui(t1, 0xABCDE);
  st(t1);
  p << auipc(t1, 0x12345);
  st(t1);
  // Loads of the scratch area (filled with random bytes), every size and offset.
  for (int32_t off = 128; off < 136; ++off) {
    p << lb(t1, s0, off) << lbu(t2, s0, off);
    st(t1);
    st(t2);
    if (off % 2 == 0) {
      p << lh(t1, s0, off) << lhu(t2, s0, off);
      st(t1);
      st(t2);
    }
    if (off % 4 == 0) {
      p << lw(t1, s0, off);
      st(t1);
    }
  }
  // Stores of each size into the scratch area, read back.
  p << sb(a2, s0, 161) << sb(a3, s0, 162) << sh(a3, s0, 166) << sw(a2, s0, 168) << lw(t1, s0, 160)
    << lw(t2, s0, 164) << lw(t3, s0, 168);
  st(t1);
  st(t2);
  st(t3);
  // Branches both ways (operands differ per thread, so they diverge), and on equal operands.
  using BOp = uint32_t (*)(uint32_t, uint32_t, int32_t);
  int n = 0;
  for (BOp op : {beq, bne, blt, bge, bltu, bgeu}) {
    for (auto [x, y] : {std::pair{a2, a3}, std::pair{a3, a2}, std::pair{a2, a2}}) {
      const std::string l = "b" + std::to_string(n++);
      p << addi(t1, zero, 0);
      p.branch(op, x, y, l);
      p << addi(t1, t1, 1);
      p.label(l);
      st(t1);
    }
  }
  // JAL and JALR links; JALR clears bit 0 of the target.
  p.jal(ra, "j1");
  p << addi(t1, zero, 7);
  p.label("j1");
  st(ra);
  p << auipc(t2, 0) << jalr(ra, t2, 13) << addi(t1, zero, 9) << sub(t1, ra, t2);
  st(t1);
  // CSRs: every read-only one, the barrier CSR read (0), the set/clear forms that do not write.
  for (uint32_t c = gs::kCsrThreadId; c <= gs::kCsrThreadsPerWarp; ++c) {
    p << csrr(t1, c);
    st(t1);
  }
  p << addi(t1, zero, 5) << csrr(t1, gs::kCsrBarrier);
  st(t1);
  p << csrrc(t1, gs::kCsrLaneId, zero) << csrrsi(t2, gs::kCsrBlockId, 0)
    << csrrci(t3, gs::kCsrArgPtr, 0) << fence();
  st(t1);
  st(t2);
  st(t3);
  // Exit code: a2 ^ thread id.
  p << xor_(a0, a2, a4) << addi(a7, zero, 93) << ecall();
  EXPECT_LE(out, 1024u);
  k.code = p.words();

  for (uint32_t t = 0; t < kNumThreads; ++t) {
    uint32_t a = edge_value(rng), b = edge_value(rng);
    // Table 7.1 cases on fixed threads.
    if (t == 0) a = 0x80000000u, b = 0xFFFFFFFFu;
    if (t == 1) b = 0;
    if (t == 2) a = 0x80000000u, b = 0;
    if (t == 3) a = 0xFFFFFFFFu, b = 0xFFFFFFFFu;
    k.put32(region(t), a);
    k.put32(region(t) + 4, b);
    for (uint32_t i = 128; i < 256; ++i) k.dmem[region(t) + i] = static_cast<uint8_t>(rng());
  }
  k.launch.block_id = 0x1234;
  k.launch.arg_ptr = 0xC0FFEE;
  return k;
}

class WEFT_SUITE : public ::testing::Test {};

TEST_F(WEFT_SUITE, EveryInstructionWithEdgeOperandsMatchesGolden) {
  auto rng = weft::tb::make_rng();
  for (int i = 0; i < 3; ++i) {
    SCOPED_TRACE("data set " + std::to_string(i));
    run_and_compare(isa_kernel(rng));
  }
}

TEST_F(WEFT_SUITE, DivisionTableAndMulhOnFixedThreads) {
  // Independent of both models: the values of ISA Table 7.1 and hand-worked MULH* products.
  auto rng = weft::tb::make_rng();
  const Kernel k = isa_kernel(rng);
  const Both b = run_and_compare(k);
  auto out = [&](uint32_t t, uint32_t idx) {
    uint32_t v = 0;
    for (int i = 0; i < 4; ++i) v |= uint32_t{b.rtl_mem[region(t) + kOut + 4 * idx + i]} << (8 * i);
    return v;
  };
  // Store index of op j (first operand order) is 2j: mulh 11, mulhsu 12, mulhu 13, div 14,
  // divu 15, rem 16, remu 17.
  EXPECT_EQ(out(0, 2 * 14), 0x80000000u);  // INT_MIN / -1
  EXPECT_EQ(out(0, 2 * 16), 0u);           // INT_MIN % -1
  EXPECT_EQ(out(1, 2 * 14), 0xFFFFFFFFu);  // x / 0
  EXPECT_EQ(out(1, 2 * 15), 0xFFFFFFFFu);  // x /u 0
  EXPECT_EQ(out(2, 2 * 16), 0x80000000u);  // x % 0 = x
  EXPECT_EQ(out(2, 2 * 17), 0x80000000u);  // x %u 0 = x
  EXPECT_EQ(out(3, 2 * 11), 0u);           // mulh(-1, -1) = high word of 1
  EXPECT_EQ(out(3, 2 * 12), 0xFFFFFFFFu);  // mulhsu(-1, 2^32-1) = high of -(2^32-1)
  EXPECT_EQ(out(3, 2 * 13), 0xFFFFFFFEu);  // mulhu: (2^32-1)^2 = 2^64 - 2^33 + 1
  EXPECT_EQ(out(0, 2 * 11), 0u);           // mulh(INT_MIN, -1) = 2^31: high word 0
}

// ---------------------------------------------------------------------------------------------
// Divergence, loops, early exit (with expectations worked out here)
// ---------------------------------------------------------------------------------------------

TEST_F(WEFT_SUITE, NestedIfElseLoopsAndEarlyExitReconverge) {
  Kernel k = base_kernel();
  Program p;
  prologue(p);
  // Nested if/else on thread id bits.
  p << andi(t1, a4, 1);
  p.branch(beq, t1, zero, "else1");
  p << andi(t2, a4, 2);
  p.branch(beq, t2, zero, "else2");
  p << addi(t3, zero, 11);
  p.jal(zero, "end2");
  p.label("else2");
  p << addi(t3, zero, 12);
  p.label("end2");
  p.jal(zero, "end1");
  p.label("else1");
  p << andi(t2, a4, 4);
  p.branch(bne, t2, zero, "else3");
  p << addi(t3, zero, 21);
  p.jal(zero, "end3");
  p.label("else3");
  p << addi(t3, zero, 22);
  p.label("end3");
  p.label("end1");
  p << sw(t3, s0, kOut);
  // Loop with tid % 5 + 1 trips: sum of 1..n.
  p << addi(t2, zero, 5) << remu(t5, a4, t2) << addi(t5, t5, 1) << addi(t4, zero, 0);
  p.label("loop");
  p << add(t4, t4, t5) << addi(t5, t5, -1);
  p.branch(bne, t5, zero, "loop");
  p << sw(t4, s0, kOut + 4);
  // Threads with tid % 3 == 0 exit early with 100 + tid.
  p << addi(t2, zero, 3) << remu(t1, a4, t2);
  p.branch(bne, t1, zero, "cont");
  p << addi(a0, a4, 100) << addi(a7, zero, 93) << ecall();
  p.label("cont");
  p << addi(t1, zero, 0x55) << sw(t1, s0, kOut + 8) << slli(a0, a4, 1) << addi(a7, zero, 93)
    << ecall();
  k.code = p.words();
  const Both b = run_and_compare(k);
  for (uint32_t t = 0; t < kNumThreads; ++t) {
    auto word = [&](uint32_t off) {
      uint32_t v = 0;
      for (int i = 0; i < 4; ++i) v |= uint32_t{b.rtl_mem[region(t) + off + i]} << (8 * i);
      return v;
    };
    const uint32_t want0 = (t & 1) ? ((t & 2) ? 11 : 12) : ((t & 4) ? 22 : 21);
    const uint32_t n = t % 5 + 1;
    EXPECT_EQ(word(kOut), want0) << "thread " << t;
    EXPECT_EQ(word(kOut + 4), n * (n + 1) / 2) << "thread " << t;
    EXPECT_EQ(word(kOut + 8), t % 3 == 0 ? 0u : 0x55u) << "thread " << t;
    ASSERT_LT(t, b.rtl.threads.size());
    EXPECT_EQ(b.rtl.threads[t].exit_code, t % 3 == 0 ? 100 + t : 2 * t) << "thread " << t;
  }
}

// ---------------------------------------------------------------------------------------------
// Barriers
// ---------------------------------------------------------------------------------------------

TEST_F(WEFT_SUITE, BarriersOrderExchangesAcrossWarpsWithExitedThreads) {
  Kernel k = base_kernel();
  Program p;
  prologue(p);
  p << csrr(a5, gs::kCsrNumThreads) << slli(t6, a4, 2) << li(s2, kShared) << add(s3, s2, t6);
  // Phase 1: slot[tid] = 7 tid + 1; barrier; read slot[(tid + 1) % n].
  p << addi(t1, zero, 7) << mul(t1, t1, a4) << addi(t1, t1, 1) << sw(t1, s3, 0) << barrier();
  p << addi(t2, a4, 1) << remu(t2, t2, a5) << slli(t2, t2, 2) << add(t2, t2, s2) << lw(t1, t2, 0)
    << sw(t1, s0, kOut) << barrier();
  // Phase 2: slot[tid] = 2 * read value; threads with tid % 4 == 3 exit; the others wait at a
  // barrier that must not wait for them, then read slot[(tid + n - 1) % n].
  p << slli(t1, t1, 1) << sw(t1, s3, 0) << andi(t3, a4, 3) << addi(t4, zero, 3);
  p.branch(bne, t3, t4, "stay");
  p << exit_with(77);
  p.label("stay");
  p << barrier();
  p << add(t2, a4, a5) << addi(t2, t2, -1) << remu(t2, t2, a5) << slli(t2, t2, 2) << add(t2, t2, s2)
    << lw(t1, t2, 0) << sw(t1, s0, kOut + 4);
  // Barriers at divergent pcs: odd threads wait at one, even threads at another.
  p << andi(t3, a4, 1);
  p.branch(beq, t3, zero, "even");
  p << barrier() << addi(t5, zero, 1);
  p.jal(zero, "join");
  p.label("even");
  p << barrier() << addi(t5, zero, 2);
  p.label("join");
  p << sw(t5, s0, kOut + 8) << addi(a0, a4, 0) << addi(a7, zero, 93) << ecall();
  k.code = p.words();
  const Both b = run_and_compare(k);
  const uint32_t n = kNumThreads;
  for (uint32_t t = 0; t < n; ++t) {
    auto word = [&](uint32_t off) {
      uint32_t v = 0;
      for (int i = 0; i < 4; ++i) v |= uint32_t{b.rtl_mem[region(t) + off + i]} << (8 * i);
      return v;
    };
    EXPECT_EQ(word(kOut), ((t + 1) % n) * 7 + 1) << "thread " << t;
    if (t % 4 != 3) {
      EXPECT_EQ(word(kOut + 4), 2 * (7 * t + 1)) << "thread " << t;
      EXPECT_EQ(word(kOut + 8), t % 2 ? 1u : 2u) << "thread " << t;
    }
  }
  EXPECT_EQ(b.rtl.perf_barriers, 4u);
  EXPECT_GT(b.rtl.perf_stall_barrier, 0u);
}

// ---------------------------------------------------------------------------------------------
// Errors: one faulting thread (not lane 0 of warp 0), exact code, pc, thread, tval
// ---------------------------------------------------------------------------------------------

constexpr uint32_t kFaultThread = (kWarps - 1) * kThreads + kThreads / 2;

Kernel fault_kernel(const std::vector<uint32_t>& fault_code) {
  Kernel k = base_kernel();
  Program p;
  prologue(p);
  p << li(t0, kFaultThread);
  p.branch(bne, a4, t0, "skip");
  p << fault_code;
  p.label("skip");
  p << exit_with(0);
  k.code = p.words();
  return k;
}

void expect_fault(const Kernel& k, ErrorCode code) {
  const Both b = run_and_compare(k);
  EXPECT_EQ(b.gold.error.code, code) << b.gold.error.message();  // the kernel does what it says
  EXPECT_EQ(b.rtl.error.code, code);
}

TEST_F(WEFT_SUITE, IllegalInstructionsStopWithTheWord) {
  const std::vector<uint32_t> words = {
      0xFFFFFFFFu,                        // unknown opcode
      0x00000000u,                        // bits[1:0] = 00 (no "C")
      0x0000100Fu,                        // FENCE.I
      0x30200073u,                        // MRET
      0x10500073u,                        // WFI
      csrrw(zero, gs::kCsrThreadId, t1),  // write to a read-only CSR
      csrrs(t1, gs::kCsrThreadId, t2),    // set with rs1 != x0 writes
      csrrsi(t1, gs::kCsrArgPtr, 1),      // ... uimm != 0
      csrr(t1, 0xC00),                    // cycle (Zicntr: outside RV32IM, illegal)
      csrr(t1, 0xCC8),                    // reserved
      0x02051513u,                        // slli with imm[5] = 1 (RV64 form)
      0x4000D513u | (1u << 25),           // srai with a bad funct7
      0x40002533u,                        // sub's funct7 with funct3 slt
      0x0000B003u,                        // load funct3 011 (LD)
      0x00003023u,                        // store funct3 011 (SD)
      0x00002063u,                        // branch funct3 010
      0x00001067u,                        // jalr funct3 001
      0x00004073u,                        // SYSTEM funct3 100
      0x06000033u,                        // OP funct7 0x03
  };
  for (uint32_t w : words) {
    SCOPED_TRACE("word 0x" + [&] {
      char buf[16];
      std::snprintf(buf, sizeof buf, "%08x", w);
      return std::string(buf);
    }());
    expect_fault(fault_kernel({w}), ErrorCode::IllegalInstruction);
  }
}

TEST_F(WEFT_SUITE, EachMemoryAndControlFaultStopsWithPcThreadAndTval) {
  expect_fault(fault_kernel({ebreak()}), ErrorCode::Breakpoint);
  expect_fault(fault_kernel({auipc(t1, 0), jalr(zero, t1, 6)}), ErrorCode::FetchMisaligned);
  expect_fault(fault_kernel({jal(ra, 6)}), ErrorCode::FetchMisaligned);
  expect_fault(fault_kernel({addi(t1, zero, 1), bne(t1, zero, 10)}), ErrorCode::FetchMisaligned);
  {
    std::vector<uint32_t> c = li(t1, kImemWords * 4);
    c.push_back(jalr(zero, t1, 0));
    expect_fault(fault_kernel(c), ErrorCode::FetchOutOfRange);
  }
  expect_fault(fault_kernel({lw(t1, s0, 2)}), ErrorCode::LoadMisaligned);
  expect_fault(fault_kernel({lh(t1, s0, 1)}), ErrorCode::LoadMisaligned);
  {
    std::vector<uint32_t> c = li(t1, kDmemBytes);
    c.push_back(lb(t2, t1, 0));
    expect_fault(fault_kernel(c), ErrorCode::LoadOutOfRange);
    c = li(t1, kDmemBytes - 2);
    c.push_back(lw(t2, t1, -2));  // last word: fine
    c.push_back(lhu(t2, t1, 2));  // [DmemBytes, +2): out
    expect_fault(fault_kernel(c), ErrorCode::LoadOutOfRange);
    c = {addi(t1, zero, -4), lw(t2, t1, 0)};  // 0xFFFFFFFC: no wrap-around
    expect_fault(fault_kernel(c), ErrorCode::LoadOutOfRange);
  }
  expect_fault(fault_kernel({sh(t1, s0, 3)}), ErrorCode::StoreMisaligned);
  {
    std::vector<uint32_t> c = li(t1, kDmemBytes);
    c.push_back(sw(t2, t1, -8));
    c.push_back(sb(t2, t1, 0));
    expect_fault(fault_kernel(c), ErrorCode::StoreOutOfRange);
  }
  expect_fault(fault_kernel({addi(a7, zero, 64), ecall()}), ErrorCode::UnsupportedEcall);
}

TEST_F(WEFT_SUITE, MisalignedEntryAndStepLimit) {
  Kernel k = base_kernel();
  k.code = exit_with(1);
  k.launch.entry_pc = 2;
  expect_fault(k, ErrorCode::FetchMisaligned);
  // A hung kernel on one warp: the step limit stops it at the loop's pc, thread 0.
  Kernel h = base_kernel();
  Program p;
  p << addi(t1, zero, 0);
  p.label("spin");
  p << addi(t1, t1, 1);
  p.jal(zero, "spin");
  h.code = p.words();
  h.launch.num_warps = 1;
  h.max_issues = 1001;
  expect_fault(h, ErrorCode::StepLimit);
  // On every warp: code only (which warp hits the limit depends on the interleaving).
  h.launch.num_warps = kWarps;
  Compare c;
  c.error_thread = false;
  const Both b = run_and_compare(h, c);
  EXPECT_EQ(b.rtl.error.code, ErrorCode::StepLimit);
  EXPECT_EQ(b.rtl.perf_issued, 1001u);
}

TEST_F(WEFT_SUITE, InvalidLaunchShapeIsRejected) {
  // The golden model throws for these; the RTL stops at once with its own code 11.
  for (auto [nw, tpw] : {std::pair{0u, kThreads}, std::pair{kWarps + 1, kThreads},
                         std::pair{kWarps, 0u}, std::pair{kWarps, kThreads + 1}}) {
    Kernel k = base_kernel();
    k.code = exit_with(1);
    k.launch.num_warps = nw;
    k.launch.threads_per_warp = tpw;
    gs::Machine m(golden_config(k.max_issues));
    if (nw == 0 || tpw == 0) EXPECT_THROW(run_golden(m, k), std::invalid_argument);
    SimtDut dut;
    dut.load_imem(k.code);
    const RtlResult r = dut.run(k.launch, k.max_issues, 100);
    EXPECT_TRUE(r.finished);
    EXPECT_EQ(static_cast<uint32_t>(r.error.code), 11u);
  }
}

// ---------------------------------------------------------------------------------------------
// Launch shapes, CSRs, repeated launches, the imem write port
// ---------------------------------------------------------------------------------------------

Kernel csr_kernel() {
  Kernel k = base_kernel();
  Program p;
  prologue(p);
  for (uint32_t c = gs::kCsrThreadId; c <= gs::kCsrThreadsPerWarp; ++c) {
    p << csrr(t1, c) << sw(t1, s0, static_cast<int32_t>(kOut + 4 * (c - gs::kCsrThreadId)));
  }
  // Launch registers: sp, a0, a1 (never written before), and sp's stack is usable.
  p << sw(sp, s0, kOut + 32) << sw(a0, s0, kOut + 36) << sw(a1, s0, kOut + 40) << sw(a1, sp, -4)
    << lw(t1, sp, -4) << sw(t1, s0, kOut + 44) << exit_with(3);
  k.code = p.words();
  k.launch.block_id = 9;
  k.launch.arg_ptr = 0xABC0;
  return k;
}

TEST_F(WEFT_SUITE, PartialLaunchShapesCsrsAndLaunchRegisters) {
  for (auto [nw, tpw] : {std::pair{kWarps, kThreads}, std::pair{1u, 1u}, std::pair{1u, kThreads},
                         std::pair{kWarps, 1u}, std::pair{(kWarps + 1) / 2, (kThreads + 1) / 2}}) {
    SCOPED_TRACE(std::to_string(nw) + " x " + std::to_string(tpw));
    Kernel k = csr_kernel();
    k.launch.num_warps = nw;
    k.launch.threads_per_warp = tpw;
    const Both b = run_and_compare(k);
    // Independent: the CSR values of docs/simt-model.md for thread t.
    for (uint32_t t = 0; t < nw * tpw; ++t) {
      auto word = [&](uint32_t idx) {
        uint32_t v = 0;
        for (int i = 0; i < 4; ++i)
          v |= uint32_t{b.rtl_mem[region(t) + kOut + 4 * idx + i]} << (8 * i);
        return v;
      };
      EXPECT_EQ(word(0), t);
      EXPECT_EQ(word(1), t / tpw);
      EXPECT_EQ(word(2), t % tpw);
      EXPECT_EQ(word(3), 9u);
      EXPECT_EQ(word(4), nw * tpw);
      EXPECT_EQ(word(5), 0xABC0u);
      EXPECT_EQ(word(6), nw);
      EXPECT_EQ(word(7), tpw);
      EXPECT_EQ(word(8), 0x10000u - 128 * t);
      EXPECT_EQ(word(9), 0xABC0u);
      EXPECT_EQ(word(10), t);
      EXPECT_EQ(word(11), t);
    }
  }
}

TEST_F(WEFT_SUITE, BackToBackLaunchesStartFromFreshRegisters) {
  // Launch 1 scribbles registers; launch 2 (other block id) stores its launch registers: they must
  // be the launch values again. Memory persists across launches, as in the golden machine.
  Kernel k1 = base_kernel();
  Program p1;
  p1 << addi(sp, zero, 4) << addi(a0, zero, 5) << addi(a1, zero, 6) << addi(t1, zero, 7)
     << exit_with(1);
  k1.code = p1.words();
  Kernel k2 = csr_kernel();
  k2.launch.block_id = 2;
  gs::Machine m(golden_config(k1.max_issues));
  SimtDut dut;
  dut.write_dmem(k1.dmem);
  for (int round = 0; round < 2; ++round) {
    for (const Kernel* k : {&k1, &k2}) {
      std::vector<uint32_t> all(kImemWords, 0);
      std::copy(k->code.begin(), k->code.end(), all.begin());
      m.load_imem(0, all);
      const gs::Result g = m.run(k->launch);
      // Load through the write port this time (one word per cycle).
      dut.write_imem_port(0, all);
      const RtlResult r = dut.run(k->launch, k->max_issues);
      ASSERT_TRUE(r.finished);
      EXPECT_EQ(r.error.code, ErrorCode::None);
      ASSERT_EQ(r.threads.size(), g.threads.size());
      for (size_t t = 0; t < g.threads.size(); ++t) {
        EXPECT_EQ(r.threads[t].exit_code, g.threads[t].exit_code);
        EXPECT_EQ(r.threads[t].retired, g.threads[t].retired);
      }
      EXPECT_TRUE(dut.read_dmem() == m.dmem()) << first_mem_diff(m.dmem(), dut.read_dmem());
    }
  }
}

// ---------------------------------------------------------------------------------------------
// Load/store unit: coalescing, bank conflicts, byte merging
// ---------------------------------------------------------------------------------------------

// Every thread loads `reps` times from table + f(tid) and accumulates; stores the sum.
Kernel access_kernel(uint32_t stride_words, uint32_t reps) {
  Kernel k = base_kernel();
  Program p;
  prologue(p);
  p << li(t1, stride_words * 4) << mul(t1, t1, a4) << andi(t1, t1, 0x3FC) << add(t1, t1, s1)
    << addi(t2, zero, 0) << li(t3, reps);
  p.label("l");
  p << lw(t4, t1, 0) << add(t2, t2, t4) << addi(t3, t3, -1);
  p.branch(bne, t3, zero, "l");
  // Byte stores of 4 lanes into one shared word each (different bytes: race-free).
  p << li(t5, kShared) << add(t5, t5, a4) << sb(a4, t5, 0);
  p << sw(t2, s0, kOut) << exit_with(0);
  k.code = p.words();
  for (uint32_t i = 0; i < 256; ++i) k.put32(kTable + 4 * i, 0x1000 + i * 3);
  return k;
}

TEST_F(WEFT_SUITE, CoalescedAndConflictingAccessesMatchGoldenAndCostWhatTheyShould) {
  const Both same = run_and_compare(access_kernel(0, 64));           // one word for all lanes
  const Both spread = run_and_compare(access_kernel(1, 64));         // one bank per lane
  const Both conflict = run_and_compare(access_kernel(kBanks, 64));  // one bank, distinct rows
  // Same instruction counts; the conflicting pattern needs more memory stall cycles.
  EXPECT_EQ(same.rtl.perf_issued, conflict.rtl.perf_issued);
  EXPECT_LE(same.rtl.perf_cycles, spread.rtl.perf_cycles + 64);
  if (kThreads > 1) EXPECT_GT(conflict.rtl.perf_cycles, spread.rtl.perf_cycles);
  // The shared bytes: byte i of the shared area holds i.
  for (uint32_t t = 0; t < kNumThreads; ++t) EXPECT_EQ(conflict.rtl_mem[kShared + t], t & 0xFF);
}

TEST_F(WEFT_SUITE, DividerDoesNotBlockOtherWarps) {
  // Warp 0 divides in a dependent chain; the other warps run ALU loops meanwhile. The launch
  // must take far fewer cycles than the divides alone serialised with everything else.
  Kernel k = base_kernel();
  Program p;
  prologue(p);
  p << csrr(t0, gs::kCsrWarpId) << addi(t1, zero, 16) << li(t2, 0x7FFFFFFF);
  p.branch(bne, t0, zero, "alu");
  p.label("d");
  p << divu(t2, t2, t1) << addi(t2, t2, 0x7FF) << addi(t1, t1, -1);
  p.branch(bne, t1, zero, "d");
  p.jal(zero, "end");
  p.label("alu");
  p << li(t1, 100);
  p.label("a");
  p << add(t2, t2, t1) << xor_(t2, t2, a4) << addi(t1, t1, -1);
  p.branch(bne, t1, zero, "a");
  p.label("end");
  p << sw(t2, s0, kOut) << exit_with(0);
  k.code = p.words();
  const Both b = run_and_compare(k);
  EXPECT_GT(b.rtl.perf_stall_div + b.rtl.perf_replays, 0u);
  if (kWarps > 1) {
    // Had the divider stopped every warp, the launch would take the 16 divides (33 cycles each)
    // plus the other warps' issues: one per cycle at best, and one per pipeline turnaround for
    // one warp (IS, RR, OF, EX, WB: a warp issues again the cycle after its instruction leaves
    // WB, docs/simt.md "Pipeline").
    constexpr uint64_t kWarpTurnaround = 5;
    uint64_t others = 0, most = 0;
    for (size_t w = 1; w < b.gold.warp_issues.size(); ++w) {
      others += b.gold.warp_issues[w];
      most = std::max(most, b.gold.warp_issues[w]);
    }
    const uint64_t blocking = 16 * 33 + std::max(others, kWarpTurnaround * most);
    EXPECT_LT(b.rtl.perf_cycles, blocking) << "others " << others;
  }
}

// ---------------------------------------------------------------------------------------------
// Random programs
// ---------------------------------------------------------------------------------------------

// Straight-line groups with forward branches between group starts (so every thread ends),
// random ALU/MUL/DIV, loads and stores in the thread's scratch area, loads from the shared table
// (random banks), CSR reads, barriers and early exits. The epilogue stores x1..x31.
Kernel random_kernel(std::mt19937_64& rng, uint32_t groups) {
  Kernel k = base_kernel();
  Program p;
  prologue(p);
  std::vector<uint32_t> pool;
  for (uint32_t r = 1; r < 32; ++r) {
    if (r != s0 && r != s1) pool.push_back(r);
  }
  auto reg = [&] { return pool[rng() % pool.size()]; };
  auto rd = [&] { return rng() % 16 == 0 ? 0u : reg(); };
  for (int i = 0; i < 14; ++i) p << lw(reg(), s0, 4 * (rng() % 32));
  auto imm12 = [&] { return static_cast<int32_t>(rng() % 4096) - 2048; };
  using ROp = uint32_t (*)(uint32_t, uint32_t, uint32_t);
  using IOp = uint32_t (*)(uint32_t, uint32_t, int32_t);
  using SOp = uint32_t (*)(uint32_t, uint32_t, uint32_t);
  const std::vector<ROp> rops = {add,  sub, sll,  slt,    sltu,  xor_, srl,  sra, or_,
                                 and_, mul, mulh, mulhsu, mulhu, div,  divu, rem, remu};
  const std::vector<IOp> iops = {addi, slti, sltiu, xori, ori, andi};
  const std::vector<SOp> sops = {slli, srli, srai};
  const std::vector<IOp> loads = {lb, lh, lw, lbu, lhu};
  const std::vector<IOp> stores = {sb, sh, sw};
  using BOp = uint32_t (*)(uint32_t, uint32_t, int32_t);
  const std::vector<BOp> brs = {beq, bne, blt, bge, bltu, bgeu};
  for (uint32_t g = 0; g < groups; ++g) {
    p.label("g" + std::to_string(g));
    const uint32_t kind = rng() % 100;
    if (kind < 30) {
      p << rops[rng() % rops.size()](rd(), reg(), reg());
    } else if (kind < 42) {
      p << iops[rng() % iops.size()](rd(), reg(), imm12());
    } else if (kind < 48) {
      p << sops[rng() % sops.size()](rd(), reg(), static_cast<uint32_t>(rng() % 32));
    } else if (kind < 51) {
      p << (rng() % 2 ? lui(rd(), rng() & 0xFFFFF) : auipc(rd(), rng() & 0xFFFFF));
    } else if (kind < 59) {
      const uint32_t f = rng() % loads.size();
      const uint32_t size = (f == 2) ? 4 : (f == 1 || f == 4) ? 2 : 1;
      p << loads[f](rd(), s0, static_cast<int32_t>(128 + size * (rng() % (128 / size))));
    } else if (kind < 65) {
      const uint32_t f = rng() % stores.size();
      const uint32_t size = 1u << f;
      p << stores[f](reg(), s0, static_cast<int32_t>(128 + size * (rng() % (128 / size))));
    } else if (kind < 71) {
      const uint32_t tmp = reg();
      p << andi(tmp, reg(), 0x3FC) << add(tmp, tmp, s1) << lw(rd(), tmp, 0);
    } else if (kind < 87) {
      const uint32_t target = std::min<uint32_t>(groups, g + 1 + rng() % 8);
      p.branch(brs[rng() % brs.size()], reg(), reg(), "g" + std::to_string(target));
    } else if (kind < 91) {
      p << csrr(rd(), rng() % 9 == 8 ? gs::kCsrBarrier : gs::kCsrThreadId + rng() % 8);
    } else if (kind < 94) {
      p << barrier();
    } else if (kind < 95) {
      p << addi(a7, zero, 93) << ecall();  // early exit of the threads that get here
    } else if (kind < 97) {
      p << fence();
    } else {
      p.jal(rng() % 2 ? ra : zero,
            "g" + std::to_string(std::min<uint32_t>(groups, g + 1 + rng() % 4)));
    }
  }
  p.label("g" + std::to_string(groups));
  for (uint32_t r = 1; r < 32; ++r) p << sw(r, s0, static_cast<int32_t>(kOut + 4 * r));
  p << addi(a7, zero, 93) << ecall();
  k.code = p.words();
  for (uint32_t t = 0; t < kNumThreads; ++t) {
    for (uint32_t i = 0; i < 256; i += 4) k.put32(region(t) + i, edge_value(rng));
  }
  for (uint32_t i = 0; i < 1024; i += 4) k.put32(kTable + i, edge_value(rng));
  if (rng() % 3 == 0) {
    k.launch.num_warps = 1 + static_cast<uint32_t>(rng() % kWarps);
    k.launch.threads_per_warp = 1 + static_cast<uint32_t>(rng() % kThreads);
  }
  k.launch.block_id = static_cast<uint32_t>(rng());
  k.launch.arg_ptr = static_cast<uint32_t>(rng());
  return k;
}

TEST_F(WEFT_SUITE, RandomProgramsMatchGolden) {
  auto rng = weft::tb::make_rng();
  for (int i = 0; i < 150; ++i) {
    SCOPED_TRACE("program " + std::to_string(i));
    const Kernel k = random_kernel(rng, 120 + static_cast<uint32_t>(rng() % 120));
    const Both b = run_and_compare(k);
    ASSERT_EQ(b.gold.error.code, ErrorCode::None) << b.gold.error.message();
    if (::testing::Test::HasFailure()) break;
  }
}

}  // namespace
