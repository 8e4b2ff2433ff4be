// SIMT model, many threads: min-PC reconvergence (warp issue and active-thread counts worked by
// hand for small if/else, nested and loop divergence), barriers (cross-warp exchange, threads that
// exit, repeated phases, divergent barriers), exit codes, and every error kind with its pc and
// thread.
#include <gtest/gtest.h>

#include <vector>

#include "weft/golden/simt.hpp"

namespace s = weft::golden::simt;
namespace rv = weft::golden::simt::rv;
using namespace weft::golden::simt::rv;  // register names
using s::ErrorCode;

namespace {

s::Result run(const rv::Program& p, const s::Launch& l, s::Machine& m) {
  m.load_imem(p.address_of("entry"), p.words());
  s::Launch launch = l;
  launch.entry_pc = p.address_of("entry");
  s::Result r = m.run(launch);
  if (r.ok()) {
    // Every retired instruction was one active thread of one warp issue.
    EXPECT_EQ(r.total_retired(), r.total_active_threads());
  }
  return r;
}

s::Result run(const rv::Program& p, const s::Launch& l) {
  s::Machine m;
  return run(p, l, m);
}

rv::Program program() {
  rv::Program p;
  p.label("entry");
  return p;
}

}  // namespace

// if (lane odd) a0 = 1 else a0 = 2, on one warp of 8. The "else" lies above the "then" and the
// join, so min-PC runs the then-path, then the else-path, then the join with all lanes.
TEST(SimtWarps, IfElseReconvergesWithHandCountedIssues) {
  rv::Program p = program();
  p << rv::csrr(t0, s::kCsrThreadId)         // 0   8 lanes
    << rv::andi(t1, t0, 1);                  // 4   8
  p.branch(rv::beq, t1, zero, "else");       // 8   8
  p << rv::addi(a0, zero, 1);                // 12  4 (odd)
  p.jal(zero, "end");                        // 16  4
  p.label("else") << rv::addi(a0, zero, 2);  // 20  4 (even)
  p.label("end") << rv::addi(a7, zero, 93)   // 24  8
                 << rv::ecall();             // 28  8
  const auto r = run(p, {.num_warps = 1, .threads_per_warp = 8});
  ASSERT_TRUE(r.ok()) << r.error.message();
  EXPECT_EQ(r.warp_issues[0], 8u);
  EXPECT_EQ(r.warp_active_threads[0], 8u + 8 + 8 + 4 + 4 + 4 + 8 + 8);
  for (uint32_t t = 0; t < 8; ++t) {
    EXPECT_EQ(r.threads[t].exit_code, t % 2 ? 1u : 2u);
    EXPECT_EQ(r.threads[t].retired, t % 2 ? 7u : 6u) << "thread " << t;
  }
}

TEST(SimtWarps, NestedDivergenceReconverges) {
  rv::Program p = program();
  p << rv::csrr(t0, s::kCsrLaneId) << rv::addi(t1, zero, 4);  // 0, 4
  p.branch(rv::bge, t0, t1, "C");                             // 8: lanes 4..7 -> C
  p << rv::andi(t2, t0, 1);                                   // 12
  p.branch(rv::beq, t2, zero, "B");                           // 16: lanes 0, 2 -> B
  p << rv::addi(a0, zero, 10);                                // 20: lanes 1, 3
  p.jal(zero, "end");                                         // 24
  p.label("B") << rv::addi(a0, zero, 20);                     // 28
  p.jal(zero, "end");                                         // 32
  p.label("C") << rv::addi(a0, zero, 30);                     // 36
  p.label("end") << rv::addi(a7, zero, 93) << rv::ecall();    // 40, 44
  const auto r = run(p, {.num_warps = 1, .threads_per_warp = 8});
  ASSERT_TRUE(r.ok()) << r.error.message();
  // Issues: 0,4,8 (8 lanes) 12,16 (4) 20,24 (2) 28,32 (2) 36 (4) 40,44 (8).
  EXPECT_EQ(r.warp_issues[0], 12u);
  EXPECT_EQ(r.warp_active_threads[0], 3u * 8 + 2 * 4 + 2 * 2 + 2 * 2 + 4 + 2 * 8);
  const uint32_t code[8] = {20, 10, 20, 10, 30, 30, 30, 30};
  const uint64_t retired[8] = {9, 9, 9, 9, 6, 6, 6, 6};
  for (uint32_t t = 0; t < 8; ++t) {
    EXPECT_EQ(r.threads[t].exit_code, code[t]) << "thread " << t;
    EXPECT_EQ(r.threads[t].retired, retired[t]) << "thread " << t;
  }
}

// Per-thread trip counts: thread (warp w, lane l) loops l + w + 1 times. Lanes that leave the loop
// wait at a higher PC until the last lane of their warp leaves it.
TEST(SimtWarps, LoopDivergenceIssuesUntilTheLongestLaneFinishes) {
  rv::Program p = program();
  p << rv::csrr(t0, s::kCsrLaneId) << rv::csrr(t1, s::kCsrWarpId)  // 0, 4
    << rv::add(t0, t0, t1) << rv::addi(t0, t0, 1);                 // 8, 12
  p.label("loop") << rv::addi(t0, t0, -1);                         // 16
  p.branch(rv::bne, t0, zero, "loop");                             // 20
  p << rv::csrr(a0, s::kCsrThreadId) << rv::addi(a7, zero, 93) << rv::ecall();
  const auto r = run(p, {.num_warps = 4, .threads_per_warp = 8});
  ASSERT_TRUE(r.ok()) << r.error.message();
  for (uint32_t w = 0; w < 4; ++w) {
    // 4 setup + 2 per iteration of the longest lane (w + 8) + 3 exit.
    EXPECT_EQ(r.warp_issues[w], 4 + 2 * (w + 8) + 3) << "warp " << w;
    // 8 lanes x 7 straight-line instructions + 2 x sum over lanes of (l + w + 1) = 2 (36 + 8w).
    EXPECT_EQ(r.warp_active_threads[w], 8 * 7 + 2 * (36 + 8 * w)) << "warp " << w;
    for (uint32_t l = 0; l < 8; ++l) {
      const auto& t = r.threads[8 * w + l];
      EXPECT_EQ(t.retired, 7 + 2 * (l + w + 1));
      EXPECT_EQ(t.exit_code, 8 * w + l);
    }
  }
  EXPECT_EQ(r.barriers, 0u);
}

// Threads of every warp store, meet at a barrier, then read a slot written by the next warp.
// Warp w first spins 40 * w + 1 times, so without the barrier warp 0 would read before warp 1
// has written (the last part shows that in this model's round-robin schedule).
TEST(SimtWarps, BarrierOrdersStoresBeforeLoadsAcrossWarps) {
  auto build = [](bool with_barrier) {
    rv::Program p = program();
    p << rv::csrr(t0, s::kCsrThreadId) << rv::csrr(t1, s::kCsrWarpId) << rv::addi(t2, zero, 40)
      << rv::mul(t2, t2, t1) << rv::addi(t2, t2, 1);
    p.label("spin") << rv::addi(t2, t2, -1);
    p.branch(rv::bne, t2, zero, "spin");
    p << rv::slli(t3, t0, 2) << rv::add(t3, t3, a0)  // &buf[tid], buf at arg_ptr
      << rv::addi(t4, t0, 100) << rv::sw(t4, t3, 0);
    if (with_barrier) p << rv::barrier();
    p << rv::addi(t5, t0, 8) << rv::andi(t5, t5, 31)  // (tid + 8) % 32
      << rv::slli(t5, t5, 2) << rv::add(t5, t5, a0) << rv::lw(a0, t5, 0) << rv::addi(a7, zero, 93)
      << rv::ecall();
    return p;
  };
  const s::Launch l{.num_warps = 4, .threads_per_warp = 8, .arg_ptr = 0x1000};
  const auto r = run(build(true), l);
  ASSERT_TRUE(r.ok()) << r.error.message();
  EXPECT_EQ(r.barriers, 1u);
  for (uint32_t t = 0; t < 32; ++t) EXPECT_EQ(r.threads[t].exit_code, (t + 8) % 32 + 100);
  const auto racy = run(build(false), l);
  ASSERT_TRUE(racy.ok());
  EXPECT_EQ(racy.threads[0].exit_code, 0u) << "the no-barrier variant should race in this model";
}

// Phases separated by barriers: write 1, sum all, write 2, sum all. The second barrier keeps a
// fast thread from overwriting its slot before slow threads have read it.
TEST(SimtWarps, RepeatedBarriersSeparatePhases) {
  rv::Program p = program();
  p << rv::csrr(t0, s::kCsrThreadId) << rv::slli(s1, t0, 2) << rv::add(s1, s1, a0);
  p << rv::addi(t1, zero, 1) << rv::sw(t1, s1, 0) << rv::barrier();
  p.jal(ra, "sum");
  p << rv::addi(s2, a2, 0);  // s2 = first sum
  p << rv::barrier() << rv::addi(t1, zero, 2) << rv::sw(t1, s1, 0) << rv::barrier();
  p.jal(ra, "sum");
  p << rv::addi(t1, zero, 1000) << rv::mul(s2, s2, t1) << rv::add(a0, s2, a2);
  p << rv::addi(a7, zero, 93) << rv::ecall();
  // sum: a2 = buf[0] + ... + buf[31]
  p.label("sum") << rv::addi(a2, zero, 0) << rv::addi(t2, a0, 0) << rv::addi(t3, zero, 32);
  p.label("sum_loop") << rv::lw(t4, t2, 0) << rv::add(a2, a2, t4) << rv::addi(t2, t2, 4)
                      << rv::addi(t3, t3, -1);
  p.branch(rv::bne, t3, zero, "sum_loop");
  p << rv::jalr(zero, ra, 0);
  const auto r = run(p, {.num_warps = 4, .threads_per_warp = 8, .arg_ptr = 0x2000});
  ASSERT_TRUE(r.ok()) << r.error.message();
  EXPECT_EQ(r.barriers, 3u);
  for (uint32_t t = 0; t < 32; ++t) EXPECT_EQ(r.threads[t].exit_code, 32u * 1000 + 64);
}

// Threads that have exited do not hold a barrier: odd threads exit at once, thread 0 spins a long
// time and then exits without a barrier; the others wait and are released when thread 0 exits.
TEST(SimtWarps, BarrierCountsOnlyThreadsThatHaveNotExited) {
  rv::Program p = program();
  p << rv::csrr(t0, s::kCsrThreadId) << rv::andi(t1, t0, 1) << rv::addi(a7, zero, 93)
    << rv::addi(a0, zero, 1);
  p.branch(rv::bne, t1, zero, "exit");
  p.branch(rv::bne, t0, zero, "wait");
  p << rv::addi(t2, zero, 500);
  p.label("spin") << rv::addi(t2, t2, -1);
  p.branch(rv::bne, t2, zero, "spin");
  p << rv::addi(a0, zero, 2);
  p.jal(zero, "exit");
  p.label("wait") << rv::barrier() << rv::addi(a0, zero, 3);
  p.label("exit") << rv::ecall();
  const auto r = run(p, {.num_warps = 2, .threads_per_warp = 4});
  ASSERT_TRUE(r.ok()) << r.error.message();
  EXPECT_EQ(r.barriers, 1u);
  for (uint32_t t = 0; t < 8; ++t) {
    EXPECT_TRUE(r.threads[t].exited);
    EXPECT_EQ(r.threads[t].exit_code, t % 2 ? 1u : t == 0 ? 2u : 3u) << "thread " << t;
  }
}

// Lanes waiting at two different barrier instructions are released together once every live
// thread waits; each then reads the slot its partner (tid ^ 1, the other group) wrote.
TEST(SimtWarps, DivergentBarriersReleaseTogether) {
  rv::Program p = program();
  p << rv::csrr(t0, s::kCsrThreadId) << rv::slli(t1, t0, 2) << rv::add(t1, t1, a0)
    << rv::addi(t2, t0, 50) << rv::sw(t2, t1, 0) << rv::andi(t3, t0, 1);
  p.branch(rv::bne, t3, zero, "odd");
  p << rv::barrier();
  p.jal(zero, "join");
  p.label("odd") << rv::barrier();
  p.label("join") << rv::xori(t4, t0, 1) << rv::slli(t4, t4, 2) << rv::add(t4, t4, a0)
                  << rv::lw(a0, t4, 0) << rv::addi(a7, zero, 93) << rv::ecall();
  const auto r = run(p, {.num_warps = 2, .threads_per_warp = 4, .arg_ptr = 0x800});
  ASSERT_TRUE(r.ok()) << r.error.message();
  EXPECT_EQ(r.barriers, 1u);
  for (uint32_t t = 0; t < 8; ++t) EXPECT_EQ(r.threads[t].exit_code, (t ^ 1) + 50);
}

TEST(SimtWarps, BarrierCsrReadIsNotABarrierAndWriteFormsAre) {
  rv::Program p = program();
  p << rv::addi(a2, zero, 9) << rv::csrr(a2, s::kCsrBarrier)       // read only: a2 = 0, no barrier
    << rv::addi(a3, zero, 9) << rv::csrrwi(a3, s::kCsrBarrier, 5)  // barrier, a3 = 0
    << rv::csrrs(zero, s::kCsrBarrier, ra)  // rs1 != x0: a write, so a barrier
    << rv::barrier() << rv::exit_with(4);
  const auto r = run(p, {.num_warps = 1, .threads_per_warp = 2});
  ASSERT_TRUE(r.ok()) << r.error.message();
  EXPECT_EQ(r.barriers, 3u);
  for (const auto& t : r.threads) {
    EXPECT_EQ(t.x[a2], 0u);
    EXPECT_EQ(t.x[a3], 0u);
    EXPECT_EQ(t.retired, 9u);
  }
}

TEST(SimtWarps, EveryThreadHasItsOwnExitCodeAndState) {
  rv::Program p = program();
  p << rv::csrr(t0, s::kCsrThreadId) << rv::addi(t1, zero, 3) << rv::mul(a0, t0, t1)
    << rv::addi(a0, a0, -5) << rv::addi(a7, zero, 93) << rv::ecall();
  const auto r = run(p, {.num_warps = 3, .threads_per_warp = 5});
  ASSERT_TRUE(r.ok());
  ASSERT_EQ(r.threads.size(), 15u);
  for (uint32_t t = 0; t < 15; ++t) {
    EXPECT_EQ(r.threads[t].exit_code, 3 * t - 5);
    EXPECT_EQ(r.threads[t].retired, 6u);
  }
  EXPECT_EQ(r.total_issues(), 3u * 6);
}

TEST(SimtWarps, MemoryPersistsAcrossLaunchesWithTheirBlockIds) {
  s::Machine m;
  rv::Program p = program();
  p << rv::csrr(t0, s::kCsrBlockId) << rv::csrr(t1, s::kCsrThreadId) << rv::slli(t2, t0, 4)
    << rv::add(t2, t2, t1) << rv::slli(t3, t2, 2) << rv::add(t3, t3, a0) << rv::sw(t2, t3, 0)
    << rv::exit_with(0);
  for (uint32_t b = 0; b < 3; ++b) {
    ASSERT_TRUE(
        run(p, {.num_warps = 2, .threads_per_warp = 8, .block_id = b, .arg_ptr = 0x100}, m).ok());
  }
  for (uint32_t i = 0; i < 48; ++i) EXPECT_EQ(m.read32(0x100 + 4 * i), i);
}

// ---------------------------------------------------------------------------------------------
// Errors: code, pc, thread and tval
// ---------------------------------------------------------------------------------------------

namespace {
// Runs `word` at pc 8 (after two nops) on 1 x 2 threads and returns the error.
s::Error error_of_word(uint32_t word) {
  rv::Program p = program();
  p << rv::nop() << rv::nop() << word << rv::exit_with(0);
  const auto r = run(p, {.num_warps = 1, .threads_per_warp = 2});
  return r.error;
}
}  // namespace

TEST(SimtErrors, IllegalInstructions) {
  const uint32_t words[] = {
      0x00000000,                              // all zeros (defined illegal)
      0xFFFFFFFF,                              // all ones
      0x00000001,                              // compressed c.nop (no "C")
      rv::r_type(0x20, 3, 2, 0b001, 1, 0x33),  // "sub" with funct3 = SLL
      rv::r_type(0x02, 3, 2, 0b000, 1, 0x33),  // unknown funct7
      rv::r_type(0x01, 0, 2, 0b001, 1, 0x13),  // slli with shamt[5] = 1 (RV64 only)
      rv::r_type(0x20, 1, 2, 0b001, 1, 0x13),  // slli with funct7 0100000
      rv::r_type(0x10, 1, 2, 0b101, 1, 0x13),  // srli/srai with bad funct7
      rv::i_type(0, 2, 0b011, 1, 0x03),        // ld (RV64)
      rv::i_type(0, 2, 0b110, 1, 0x03),        // lwu (RV64)
      rv::s_type(0, 2, 1, 0b011, 0x23),        // sd (RV64)
      rv::b_type(8, 2, 1, 0b010, 0x63),        // branch funct3 = 010
      rv::i_type(0, 1, 0b001, 0, 0x67),        // jalr with funct3 != 0
      0x0000100F,                              // fence.i (Zifencei: outside RV32IM, illegal)
      0x30200073,                              // mret
      0x10500073,                              // wfi
      0x00200073,                              // SYSTEM funct3 0 with imm 2
      rv::i_type(0, 0, 0b100, 0, 0x73),        // SYSTEM funct3 100
      rv::csrr(a0, 0xC00),                     // cycle (Zicntr: outside RV32IM, illegal)
      rv::csrr(a0, 0xCC8),                     // first unused custom CSR
      rv::csrrw(zero, s::kCsrThreadId, zero),  // write to a read-only CSR
      rv::csrrs(a0, s::kCsrLaneId, t0),        // set bits (rs1 != x0): a write
      rv::csrrci(a0, s::kCsrWarpId, 1),        // clear bits with uimm != 0: a write
      rv::csrrwi(a0, s::kCsrBlockId, 0),       // csrrwi always writes
      0x0000002F,                              // AMO opcode ("A": outside RV32IM, illegal)
      0x00000053,                              // OP-FP ("F": outside RV32IM, illegal)
  };
  for (uint32_t w : words) {
    const s::Error e = error_of_word(w);
    EXPECT_EQ(e.code, ErrorCode::IllegalInstruction) << std::hex << "word 0x" << w;
    EXPECT_EQ(e.pc, 8u);
    EXPECT_EQ(e.thread, 0u);
    EXPECT_EQ(e.tval, w);
  }
}

TEST(SimtErrors, EbreakStopsTheLaunch) {
  const s::Error e = error_of_word(rv::ebreak());
  EXPECT_EQ(e.code, ErrorCode::Breakpoint);
  EXPECT_EQ(e.pc, 8u);
  EXPECT_EQ(static_cast<uint32_t>(e.code), 2u);
}

TEST(SimtErrors, UnsupportedEcall) {
  rv::Program p = program();
  p << rv::addi(a7, zero, 64) << rv::ecall();
  const auto r = run(p, {.num_warps = 1, .threads_per_warp = 1});
  EXPECT_EQ(r.error.code, ErrorCode::UnsupportedEcall);
  EXPECT_EQ(r.error.pc, 4u);
  EXPECT_EQ(r.error.tval, 64u);
  EXPECT_EQ(r.threads[0].retired, 1u);  // the faulting ecall does not retire
}

// Only thread 5 of 8 computes a bad address (its lane id is 5); the error names it.
namespace {
s::Error fault_in_lane5(uint32_t (*mem_op)(uint32_t, uint32_t, int32_t), uint32_t bad_addr,
                        uint32_t* pc = nullptr) {
  rv::Program p = program();
  p << rv::csrr(t0, s::kCsrLaneId) << rv::addi(t1, zero, 5) << rv::li(s0, 0x100);
  p.branch(rv::bne, t0, t1, "go");
  p << rv::li(s0, bad_addr);
  p.label("go");
  if (pc) *pc = p.pc();
  p << mem_op(t2, s0, 0) << rv::exit_with(0);
  const auto r = run(p, {.num_warps = 1, .threads_per_warp = 8});
  return r.error;
}
}  // namespace

TEST(SimtErrors, LoadMisalignedAndOutOfRange) {
  const uint32_t size = s::Config{}.dmem_bytes;
  struct Case {
    uint32_t (*op)(uint32_t, uint32_t, int32_t);
    uint32_t addr;
    ErrorCode code;
  };
  const Case cases[] = {
      {rv::lw, 0x102, ErrorCode::LoadMisaligned},
      {rv::lw, 0x101, ErrorCode::LoadMisaligned},
      {rv::lh, 0x101, ErrorCode::LoadMisaligned},
      {rv::lhu, 0x103, ErrorCode::LoadMisaligned},
      {rv::lw, size, ErrorCode::LoadOutOfRange},
      {rv::lb, size, ErrorCode::LoadOutOfRange},
      {rv::lbu, 0xFFFFFFFF, ErrorCode::LoadOutOfRange},
      {rv::lh, 0xFFFFFFFE, ErrorCode::LoadOutOfRange},  // wraps past 2^32: still out of range
      {rv::lw, size + 1, ErrorCode::LoadMisaligned},    // misaligned is checked first
  };
  for (const Case& c : cases) {
    uint32_t pc = 0;
    const s::Error e = fault_in_lane5(c.op, c.addr, &pc);
    EXPECT_EQ(e.code, c.code) << std::hex << "addr 0x" << c.addr;
    EXPECT_EQ(e.thread, 5u);
    EXPECT_EQ(e.pc, pc);
    EXPECT_EQ(e.tval, c.addr);
  }
  // The last bytes of the scratchpad are in range.
  EXPECT_EQ(fault_in_lane5(rv::lw, size - 4).code, ErrorCode::None);
  EXPECT_EQ(fault_in_lane5(rv::lb, size - 1).code, ErrorCode::None);
}

TEST(SimtErrors, StoreMisalignedAndOutOfRange) {
  const uint32_t size = s::Config{}.dmem_bytes;
  struct Case {
    uint32_t (*op)(uint32_t, uint32_t, int32_t);
    uint32_t addr;
    ErrorCode code;
  };
  const Case cases[] = {
      {rv::sw, 0x102, ErrorCode::StoreMisaligned},      {rv::sh, 0x101, ErrorCode::StoreMisaligned},
      {rv::sw, size, ErrorCode::StoreOutOfRange},       {rv::sb, size, ErrorCode::StoreOutOfRange},
      {rv::sh, 0xFFFFFFFE, ErrorCode::StoreOutOfRange},
  };
  for (const Case& c : cases) {
    uint32_t pc = 0;
    const s::Error e = fault_in_lane5(c.op, c.addr, &pc);
    EXPECT_EQ(e.code, c.code) << std::hex << "addr 0x" << c.addr;
    EXPECT_EQ(e.thread, 5u);
    EXPECT_EQ(e.pc, pc);
    EXPECT_EQ(e.tval, c.addr);
  }
  EXPECT_EQ(fault_in_lane5(rv::sw, size - 4).code, ErrorCode::None);
}

TEST(SimtErrors, MisalignedJumpTargetsAreReportedAtTheJump) {
  {  // jalr to a 2-byte aligned address
    rv::Program p = program();
    p << rv::addi(t0, zero, 0x22) << rv::jalr(ra, t0, 0);
    const auto r = run(p, {.num_warps = 1, .threads_per_warp = 1});
    EXPECT_EQ(r.error.code, ErrorCode::FetchMisaligned);
    EXPECT_EQ(r.error.pc, 4u);
    EXPECT_EQ(r.error.tval, 0x22u);
    EXPECT_EQ(r.threads[0].x[ra], 0u);  // rd not written
  }
  {  // jal by 6 bytes
    rv::Program p = program();
    p << rv::nop() << rv::jal(ra, 6);
    const auto r = run(p, {.num_warps = 1, .threads_per_warp = 1});
    EXPECT_EQ(r.error.code, ErrorCode::FetchMisaligned);
    EXPECT_EQ(r.error.pc, 4u);
    EXPECT_EQ(r.error.tval, 10u);
  }
  {  // taken branch by 6 faults; the same branch not taken does not
    rv::Program p = program();
    p << rv::csrr(t0, s::kCsrLaneId) << rv::addi(t1, zero, 3) << rv::beq(t0, t1, 6)
      << rv::exit_with(0);
    const auto r = run(p, {.num_warps = 1, .threads_per_warp = 4});
    EXPECT_EQ(r.error.code, ErrorCode::FetchMisaligned);
    EXPECT_EQ(r.error.pc, 8u);
    EXPECT_EQ(r.error.thread, 3u);
    EXPECT_EQ(r.error.tval, 14u);
  }
  {  // misaligned entry pc
    s::Machine m;
    const auto r = m.run({.entry_pc = 2, .num_warps = 1, .threads_per_warp = 1});
    EXPECT_EQ(r.error.code, ErrorCode::FetchMisaligned);
    EXPECT_EQ(r.error.pc, 2u);
  }
}

TEST(SimtErrors, FetchOutOfRange) {
  const uint32_t isize = s::Config{}.imem_bytes;
  {  // falling off the end of instruction memory
    s::Machine m;
    m.load_imem(isize - 8, std::vector<uint32_t>{rv::nop(), rv::nop()});
    const auto r = m.run({.entry_pc = isize - 8, .num_warps = 1, .threads_per_warp = 2});
    EXPECT_EQ(r.error.code, ErrorCode::FetchOutOfRange);
    EXPECT_EQ(r.error.pc, isize);
    EXPECT_EQ(r.error.tval, isize);
    EXPECT_EQ(r.threads[1].retired, 2u);
  }
  {  // jumping beyond it (the fault is at the fetch of the target)
    rv::Program p = program();
    p << rv::li(t0, 0x80000000) << rv::jalr(zero, t0, 0);
    const auto r = run(p, {.num_warps = 1, .threads_per_warp = 1});
    EXPECT_EQ(r.error.code, ErrorCode::FetchOutOfRange);
    EXPECT_EQ(r.error.pc, 0x80000000u);
  }
}

TEST(SimtErrors, StepLimitCatchesHungKernels) {
  s::Machine m({.max_warp_issues = 1000});
  rv::Program p = program();
  p << rv::jal(zero, 0);
  const auto r = run(p, {.num_warps = 2, .threads_per_warp = 4}, m);
  EXPECT_EQ(r.error.code, ErrorCode::StepLimit);
  EXPECT_EQ(r.total_issues(), 1000u);
}

TEST(SimtErrors, CodesAndMessagesAreStable) {
  EXPECT_EQ(static_cast<uint32_t>(ErrorCode::None), 0u);
  EXPECT_EQ(static_cast<uint32_t>(ErrorCode::IllegalInstruction), 1u);
  EXPECT_EQ(static_cast<uint32_t>(ErrorCode::StepLimit), 10u);
  const s::Error e{ErrorCode::LoadOutOfRange, 0x40, 5, 0x10000};
  EXPECT_EQ(e.message(), "load out of range at pc 0x00000040, thread 5 (tval 0x00010000)");
}
