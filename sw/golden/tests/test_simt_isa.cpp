// SIMT model, one thread: every RV32IM instruction with its edge cases (ISA v20191213 Chapter 2 and
// Chapter 7), Weft's CSRs and the launch ABI. Expected values are worked by hand (comments show
// the arithmetic), never computed by the model's code.
#include <gtest/gtest.h>

#include <vector>

#include "weft/golden/simt.hpp"

namespace s = weft::golden::simt;
namespace rv = weft::golden::simt::rv;
using namespace weft::golden::simt::rv;  // register names

namespace {

// Runs p on one thread, then `li a7, 93; ecall`; returns the final state (asserting success).
s::ThreadState run1(rv::Program p, s::Machine& m) {
  p << rv::addi(a7, zero, 93) << rv::ecall();
  m.load_imem(0, p.words());
  const s::Result r = m.run({.entry_pc = 0, .num_warps = 1, .threads_per_warp = 1});
  EXPECT_TRUE(r.ok()) << r.error.message();
  EXPECT_TRUE(r.threads.at(0).exited);
  return r.threads.at(0);
}
s::ThreadState run1(const rv::Program& p) {
  s::Machine m;
  return run1(p, m);
}

// rd = op(a, b) for an R-type op, with a and b loaded by li.
uint32_t r_op(uint32_t (*op)(uint32_t, uint32_t, uint32_t), uint32_t a, uint32_t b) {
  rv::Program p;
  p << rv::li(t0, a) << rv::li(t1, b) << op(t2, t0, t1);
  return run1(p).x[t2];
}
// rd = op(a, imm) for an I-type op.
uint32_t i_op(uint32_t (*op)(uint32_t, uint32_t, int32_t), uint32_t a, int32_t imm) {
  rv::Program p;
  p << rv::li(t0, a) << op(t2, t0, imm);
  return run1(p).x[t2];
}
uint32_t sh_op(uint32_t (*op)(uint32_t, uint32_t, uint32_t), uint32_t a, uint32_t shamt) {
  rv::Program p;
  p << rv::li(t0, a) << op(t2, t0, shamt);
  return run1(p).x[t2];
}

}  // namespace

TEST(SimtIsa, LuiAndAuipc) {
  rv::Program p;
  p << rv::lui(t0, 0x80000)     // pc 0: 0x80000000
    << rv::auipc(t1, 1)         // pc 4: 4 + 0x1000
    << rv::auipc(t2, 0xFFFFF);  // pc 8: 8 - 0x1000 = 0xFFFFF008
  const auto t = run1(p);
  EXPECT_EQ(t.x[t0], 0x80000000u);
  EXPECT_EQ(t.x[t1], 0x1004u);
  EXPECT_EQ(t.x[t2], 0xFFFFF008u);
}

TEST(SimtIsa, ImmediateArithmeticAndLogic) {
  EXPECT_EQ(i_op(rv::addi, 0x7FFFFFFF, 1), 0x80000000u);  // wraps
  EXPECT_EQ(i_op(rv::addi, 5, -2048), 0xFFFFF805u);       // 5 - 2048 = -2043
  EXPECT_EQ(i_op(rv::slti, 0xFFFFFFFF, 0), 1u);           // -1 < 0
  EXPECT_EQ(i_op(rv::slti, 0, -1), 0u);
  EXPECT_EQ(i_op(rv::sltiu, 0, -1), 1u);           // 0 < 0xFFFFFFFF (sign-extended imm)
  EXPECT_EQ(i_op(rv::sltiu, 0xFFFFFFFF, -1), 0u);  // equal
  EXPECT_EQ(i_op(rv::sltiu, 0, 1), 1u);            // seqz
  EXPECT_EQ(i_op(rv::sltiu, 7, 1), 0u);
  EXPECT_EQ(i_op(rv::xori, 0x12345678, -1), 0xEDCBA987u);  // not
  EXPECT_EQ(i_op(rv::ori, 0, -2048), 0xFFFFF800u);
  EXPECT_EQ(i_op(rv::andi, 0x12345678, -16), 0x12345670u);
  EXPECT_EQ(i_op(rv::andi, 0x12345678, 0x7FF), 0x678u);
}

TEST(SimtIsa, ImmediateShiftsIncludingBy31) {
  EXPECT_EQ(sh_op(rv::slli, 1, 31), 0x80000000u);
  EXPECT_EQ(sh_op(rv::slli, 0xFFFFFFFF, 31), 0x80000000u);
  EXPECT_EQ(sh_op(rv::srli, 0x80000000, 31), 1u);
  EXPECT_EQ(sh_op(rv::srai, 0x80000000, 31), 0xFFFFFFFFu);
  EXPECT_EQ(sh_op(rv::srai, 0x7FFFFFFF, 31), 0u);
  EXPECT_EQ(sh_op(rv::srai, 0x80000010, 4), 0xF8000001u);
  EXPECT_EQ(sh_op(rv::srli, 0x80000010, 4), 0x08000001u);
  EXPECT_EQ(sh_op(rv::slli, 0x12345678, 0), 0x12345678u);
}

TEST(SimtIsa, RegisterArithmeticAndLogic) {
  EXPECT_EQ(r_op(rv::add, 0xFFFFFFFF, 1), 0u);
  EXPECT_EQ(r_op(rv::add, 0x7FFFFFFF, 0x7FFFFFFF), 0xFFFFFFFEu);
  EXPECT_EQ(r_op(rv::sub, 0, 1), 0xFFFFFFFFu);
  EXPECT_EQ(r_op(rv::sub, 0x80000000, 1), 0x7FFFFFFFu);
  EXPECT_EQ(r_op(rv::slt, 0xFFFFFFFF, 1), 1u);   // -1 < 1
  EXPECT_EQ(r_op(rv::sltu, 0xFFFFFFFF, 1), 0u);  // 2^32-1 > 1
  EXPECT_EQ(r_op(rv::slt, 0x80000000, 0x7FFFFFFF), 1u);
  EXPECT_EQ(r_op(rv::sltu, 0x80000000, 0x7FFFFFFF), 0u);
  EXPECT_EQ(r_op(rv::slt, 5, 5), 0u);
  EXPECT_EQ(r_op(rv::xor_, 0xFF00FF00, 0x0FF00FF0), 0xF0F0F0F0u);
  EXPECT_EQ(r_op(rv::or_, 0xFF00FF00, 0x0FF00FF0), 0xFFF0FFF0u);
  EXPECT_EQ(r_op(rv::and_, 0xFF00FF00, 0x0FF00FF0), 0x0F000F00u);
}

TEST(SimtIsa, RegisterShiftsUseLowFiveBits) {
  EXPECT_EQ(r_op(rv::sll, 1, 31), 0x80000000u);
  EXPECT_EQ(r_op(rv::sll, 1, 32), 1u);  // 32 & 31 = 0
  EXPECT_EQ(r_op(rv::sll, 1, 33), 2u);  // 33 & 31 = 1
  EXPECT_EQ(r_op(rv::srl, 0x80000000, 31), 1u);
  EXPECT_EQ(r_op(rv::srl, 0x80000000, 0xFFFFFFFF), 1u);  // by 31
  EXPECT_EQ(r_op(rv::sra, 0x80000000, 31), 0xFFFFFFFFu);
  EXPECT_EQ(r_op(rv::sra, 0x80000000, 0xFFFFFFE1), 0xC0000000u);  // by 1
  EXPECT_EQ(r_op(rv::sra, 0x40000000, 31), 0u);
}

TEST(SimtIsa, MultiplyLowAndHighWithAllSignCombinations) {
  EXPECT_EQ(r_op(rv::mul, 0xFFFFFFFD, 7), 0xFFFFFFEBu);  // -3 * 7 = -21
  EXPECT_EQ(r_op(rv::mul, 0x10000, 0x10000), 0u);        // 2^32 mod 2^32
  EXPECT_EQ(r_op(rv::mul, 0x80000000, 0xFFFFFFFF), 0x80000000u);
  // MULH: signed x signed.
  EXPECT_EQ(r_op(rv::mulh, 0x80000000, 0x80000000), 0x40000000u);  // 2^62
  EXPECT_EQ(r_op(rv::mulh, 0xFFFFFFFF, 1), 0xFFFFFFFFu);           // -1: high word all ones
  EXPECT_EQ(r_op(rv::mulh, 0x7FFFFFFF, 0x7FFFFFFF), 0x3FFFFFFFu);  // 2^62 - 2^32 + 1
  EXPECT_EQ(r_op(rv::mulh, 0x80000000, 0x7FFFFFFF), 0xC0000000u);  // -2^62 + 2^31
  EXPECT_EQ(r_op(rv::mulh, 2, 0x80000000), 0xFFFFFFFFu);           // -2^32
  // MULHU: unsigned x unsigned.
  EXPECT_EQ(r_op(rv::mulhu, 0xFFFFFFFF, 0xFFFFFFFF), 0xFFFFFFFEu);  // 2^64 - 2^33 + 1
  EXPECT_EQ(r_op(rv::mulhu, 0x80000000, 2), 1u);
  EXPECT_EQ(r_op(rv::mulhu, 0xFFFFFFFF, 1), 0u);
  // MULHSU: signed rs1 x unsigned rs2.
  EXPECT_EQ(r_op(rv::mulhsu, 0xFFFFFFFF, 0xFFFFFFFF), 0xFFFFFFFFu);  // -(2^32-1)
  EXPECT_EQ(r_op(rv::mulhsu, 0x80000000, 0xFFFFFFFF), 0x80000000u);  // -2^63 + 2^31
  EXPECT_EQ(r_op(rv::mulhsu, 2, 0x80000000), 1u);                    // +2^32 (MULH gives -1)
  EXPECT_EQ(r_op(rv::mulhsu, 0x7FFFFFFF, 0xFFFFFFFF), 0x7FFFFFFEu);  // 2^63 - 2^32 - 2^31 + 1
}

TEST(SimtIsa, DivideTruncatesTowardZero) {
  EXPECT_EQ(r_op(rv::div, 7, 0xFFFFFFFE), 0xFFFFFFFDu);  // 7 / -2 = -3
  EXPECT_EQ(r_op(rv::rem, 7, 0xFFFFFFFE), 1u);           // 7 = -2*-3 + 1
  EXPECT_EQ(r_op(rv::div, 0xFFFFFFF9, 2), 0xFFFFFFFDu);  // -7 / 2 = -3
  EXPECT_EQ(r_op(rv::rem, 0xFFFFFFF9, 2), 0xFFFFFFFFu);  // remainder has the dividend's sign
  EXPECT_EQ(r_op(rv::div, 0xFFFFFFF9, 0xFFFFFFFE), 3u);  // -7 / -2 = 3
  EXPECT_EQ(r_op(rv::rem, 0xFFFFFFF9, 0xFFFFFFFE), 0xFFFFFFFFu);
  EXPECT_EQ(r_op(rv::divu, 0xFFFFFFF9, 2), 0x7FFFFFFCu);  // (2^32-7)/2
  EXPECT_EQ(r_op(rv::remu, 0xFFFFFFF9, 2), 1u);
  EXPECT_EQ(r_op(rv::divu, 7, 2), 3u);
  EXPECT_EQ(r_op(rv::remu, 7, 2), 1u);
}

TEST(SimtIsa, DivideByZeroAndOverflowFollowTable7_1) {
  // Division by zero: quotient all ones, remainder the dividend.
  EXPECT_EQ(r_op(rv::div, 5, 0), 0xFFFFFFFFu);
  EXPECT_EQ(r_op(rv::div, 0xFFFFFFFB, 0), 0xFFFFFFFFu);
  EXPECT_EQ(r_op(rv::divu, 5, 0), 0xFFFFFFFFu);
  EXPECT_EQ(r_op(rv::rem, 0xFFFFFFFB, 0), 0xFFFFFFFBu);
  EXPECT_EQ(r_op(rv::remu, 5, 0), 5u);
  // Overflow: INT_MIN / -1 = INT_MIN, remainder 0. (Unsigned: an ordinary division.)
  EXPECT_EQ(r_op(rv::div, 0x80000000, 0xFFFFFFFF), 0x80000000u);
  EXPECT_EQ(r_op(rv::rem, 0x80000000, 0xFFFFFFFF), 0u);
  EXPECT_EQ(r_op(rv::divu, 0x80000000, 0xFFFFFFFF), 0u);
  EXPECT_EQ(r_op(rv::remu, 0x80000000, 0xFFFFFFFF), 0x80000000u);
}

TEST(SimtIsa, LoadsSignAndZeroExtendLittleEndian) {
  s::Machine m;
  const std::vector<uint8_t> bytes = {0x80, 0x7F, 0xFF, 0x01, 0x01, 0x80, 0xFF, 0x7F};
  m.write_dmem(0x100, bytes);
  rv::Program p;
  p << rv::li(s0, 0x108);
  p << rv::lb(a1, s0, -8) << rv::lbu(a2, s0, -8)  // byte 0x80
    << rv::lb(a3, s0, -7) << rv::lbu(a4, s0, -6)  // 0x7F, 0xFF
    << rv::lh(a5, s0, -8) << rv::lh(a6, s0, -4)   // 0x7F80, 0x8001
    << rv::lhu(t3, s0, -4) << rv::lw(t4, s0, -8)  // 0x8001, 0x01FF7F80
    << rv::lw(t5, s0, -4) << rv::lb(t6, s0, -6)   // 0x7FFF8001, 0xFF
    << rv::lw(zero, s0, -8);                      // x0 stays 0
  const auto t = run1(p, m);
  EXPECT_EQ(t.x[a1], 0xFFFFFF80u);
  EXPECT_EQ(t.x[a2], 0x80u);
  EXPECT_EQ(t.x[a3], 0x7Fu);
  EXPECT_EQ(t.x[a4], 0xFFu);
  EXPECT_EQ(t.x[a5], 0x7F80u);
  EXPECT_EQ(t.x[a6], 0xFFFF8001u);
  EXPECT_EQ(t.x[t3], 0x8001u);
  EXPECT_EQ(t.x[t4], 0x01FF7F80u);
  EXPECT_EQ(t.x[t5], 0x7FFF8001u);
  EXPECT_EQ(t.x[t6], 0xFFFFFFFFu);
  EXPECT_EQ(t.x[zero], 0u);
}

TEST(SimtIsa, StoresWriteOnlyTheirBytesLittleEndian) {
  s::Machine m;
  const std::vector<uint8_t> fill(16, 0xAA);
  m.write_dmem(0x200, fill);
  rv::Program p;
  p << rv::li(s0, 0x200) << rv::li(t0, 0x12345678);
  p << rv::sb(t0, s0, 1) << rv::sh(t0, s0, 6) << rv::sw(t0, s0, 8) << rv::sw(zero, s0, 12);
  run1(p, m);
  const std::vector<uint8_t> want = {0xAA, 0x78, 0xAA, 0xAA, 0xAA, 0xAA, 0x78, 0x56,
                                     0x78, 0x56, 0x34, 0x12, 0x00, 0x00, 0x00, 0x00};
  EXPECT_EQ(std::vector<uint8_t>(m.dmem().begin() + 0x200, m.dmem().begin() + 0x210), want);
  EXPECT_EQ(m.read32(0x208), 0x12345678u);
}

// Each branch with operands that take it and operands that do not, including the cases where
// signed and unsigned comparisons disagree (-1 vs 1). Exit code 2 = taken, 1 = fell through.
TEST(SimtIsa, BranchesTakenAndNotTaken) {
  using Op = uint32_t (*)(uint32_t, uint32_t, int32_t);
  struct Case {
    const char* name;
    Op op;
    uint32_t a, b;
    bool taken;
  };
  const Case cases[] = {
      {"beq", rv::beq, 5, 5, true},
      {"beq", rv::beq, 5, 6, false},
      {"bne", rv::bne, 5, 6, true},
      {"bne", rv::bne, 5, 5, false},
      {"blt", rv::blt, 0xFFFFFFFF, 1, true},
      {"blt", rv::blt, 1, 0xFFFFFFFF, false},
      {"blt", rv::blt, 3, 3, false},
      {"bge", rv::bge, 3, 3, true},
      {"bge", rv::bge, 1, 0xFFFFFFFF, true},
      {"bge", rv::bge, 0xFFFFFFFF, 1, false},
      {"bltu", rv::bltu, 1, 0xFFFFFFFF, true},
      {"bltu", rv::bltu, 0xFFFFFFFF, 1, false},
      {"bltu", rv::bltu, 3, 3, false},
      {"bgeu", rv::bgeu, 3, 3, true},
      {"bgeu", rv::bgeu, 0xFFFFFFFF, 1, true},
      {"bgeu", rv::bgeu, 1, 0xFFFFFFFF, false},
  };
  for (const Case& c : cases) {
    rv::Program p;
    p << rv::li(t0, c.a) << rv::li(t1, c.b);
    p.branch(c.op, t0, t1, "taken");
    p << rv::addi(a0, zero, 1);
    p.jal(zero, "end");
    p.label("taken") << rv::addi(a0, zero, 2);
    p.label("end");
    EXPECT_EQ(run1(p).exit_code, c.taken ? 2u : 1u)
        << c.name << " 0x" << std::hex << c.a << ", 0x" << c.b;
  }
}

TEST(SimtIsa, BackwardBranchLoops) {
  rv::Program p;
  p << rv::addi(t0, zero, 10) << rv::addi(a0, zero, 0);
  p.label("loop") << rv::addi(a0, a0, 3) << rv::addi(t0, t0, -1);
  p.branch(rv::bne, t0, zero, "loop");
  const auto t = run1(p);
  EXPECT_EQ(t.exit_code, 30u);
  EXPECT_EQ(t.retired, 2u + 3u * 10 + 2);  // setup, 10 iterations, li a7 + ecall
}

TEST(SimtIsa, JalLinksAndJumpsBothWays) {
  rv::Program p;
  p.jal(ra, "fwd");                          // 0: ra = 4
  p << rv::addi(a0, zero, 99);               // 4: skipped
  p.label("back") << rv::addi(a1, zero, 7);  // 8
  p.jal(zero, "end");                        // 12
  p.label("fwd") << rv::addi(a0, zero, 1);   // 16
  p.jal(t0, "back");                         // 20: t0 = 24, backward
  p.label("end");
  const auto t = run1(p);
  EXPECT_EQ(t.x[ra], 4u);
  EXPECT_EQ(t.x[t0], 24u);
  EXPECT_EQ(t.x[a0], 1u);
  EXPECT_EQ(t.x[a1], 7u);
}

TEST(SimtIsa, JalrClearsBitZeroAndLinksBeforeOverwritingRs1) {
  rv::Program p;
  p << rv::addi(t0, zero, 17);  // 0: target 16 with bit 0 set
  p << rv::jalr(ra, t0, 0);     // 4: -> 16, ra = 8
  p << rv::addi(a0, zero, 99);  // 8: skipped
  p << rv::addi(a0, zero, 98);  // 12: skipped
  p << rv::addi(t1, zero, 36);  // 16
  p << rv::jalr(t1, t1, -7);    // 20: (36 - 7) & ~1 = 28, t1 = 24 (rd == rs1)
  p << rv::addi(a0, zero, 97);  // 24: skipped
  p << rv::addi(a0, zero, 5);   // 28
  const auto t = run1(p);
  EXPECT_EQ(t.x[ra], 8u);
  EXPECT_EQ(t.x[t1], 24u);
  EXPECT_EQ(t.exit_code, 5u);
}

TEST(SimtIsa, X0IsHardwiredAndFenceIsANoOp) {
  rv::Program p;
  p << rv::addi(zero, zero, 5) << rv::lui(zero, 1) << rv::fence() << rv::add(a1, zero, zero)
    << rv::jal(zero, 4);  // jal x0: no link
  const auto t = run1(p);
  EXPECT_EQ(t.x[zero], 0u);
  EXPECT_EQ(t.x[a1], 0u);
  EXPECT_EQ(t.retired, 7u);
}

TEST(SimtIsa, ExitCodeIsFullA0) {
  rv::Program p;
  p << rv::exit_with(0xDEADBEEF);
  s::Machine m;
  m.load_imem(0, p.words());
  const auto r = m.run({.entry_pc = 0, .num_warps = 1, .threads_per_warp = 1});
  ASSERT_TRUE(r.ok());
  EXPECT_TRUE(r.threads[0].exited);
  EXPECT_EQ(r.threads[0].exit_code, 0xDEADBEEFu);
  EXPECT_EQ(r.threads[0].retired, 4u);  // lui, addi, addi a7, ecall
}

// Launch ABI: every CSR, the initial sp/a0/a1, and zeros elsewhere, for 2 warps x 3 threads.
TEST(SimtIsa, CsrsAndInitialRegistersFollowTheLaunch) {
  s::Machine m;
  rv::Program p;
  p << rv::slli(t0, a1, 6) << rv::add(t0, t0, a0);  // t0 = arg_ptr + tid * 64
  p << rv::sw(sp, t0, 0) << rv::sw(a0, t0, 4) << rv::sw(a1, t0, 8);
  const uint32_t csrs[] = {s::kCsrThreadId, s::kCsrWarpId,        s::kCsrLaneId,
                           s::kCsrBlockId,  s::kCsrNumThreads,    s::kCsrArgPtr,
                           s::kCsrNumWarps, s::kCsrThreadsPerWarp};
  for (int i = 0; i < 8; ++i) p << rv::csrr(t1, csrs[i]) << rv::sw(t1, t0, 12 + 4 * i);
  // The other read-only forms: csrrsi/csrrci with uimm 0 and csrrc with rs1 = x0.
  p << rv::csrrsi(t2, s::kCsrLaneId, 0) << rv::sw(t2, t0, 44);
  p << rv::csrrci(t2, s::kCsrWarpId, 0) << rv::sw(t2, t0, 48);
  p << rv::csrrc(t2, s::kCsrBlockId, zero) << rv::sw(t2, t0, 52);
  p << rv::addi(a7, zero, 93) << rv::ecall();
  m.load_imem(0x40, p.words());
  const s::Launch l{.entry_pc = 0x40,
                    .num_warps = 2,
                    .threads_per_warp = 3,
                    .block_id = 7,
                    .arg_ptr = 0x400,
                    .stack_top = 0x8000,
                    .stack_size_per_thread = 0x100};
  const auto r = m.run(l);
  ASSERT_TRUE(r.ok()) << r.error.message();
  ASSERT_EQ(r.threads.size(), 6u);
  for (uint32_t t = 0; t < 6; ++t) {
    const uint32_t b = 0x400 + 64 * t;
    EXPECT_EQ(m.read32(b + 0), 0x8000 - 0x100 * t) << "sp of thread " << t;
    EXPECT_EQ(m.read32(b + 4), 0x400u);
    EXPECT_EQ(m.read32(b + 8), t);
    EXPECT_EQ(m.read32(b + 12), t);      // thread id
    EXPECT_EQ(m.read32(b + 16), t / 3);  // warp id
    EXPECT_EQ(m.read32(b + 20), t % 3);  // lane id
    EXPECT_EQ(m.read32(b + 24), 7u);     // block id
    EXPECT_EQ(m.read32(b + 28), 6u);     // threads
    EXPECT_EQ(m.read32(b + 32), 0x400u);
    EXPECT_EQ(m.read32(b + 36), 2u);
    EXPECT_EQ(m.read32(b + 40), 3u);
    EXPECT_EQ(m.read32(b + 44), t % 3);
    EXPECT_EQ(m.read32(b + 48), t / 3);
    EXPECT_EQ(m.read32(b + 52), 7u);
    const auto& x = r.threads[t].x;
    for (uint32_t reg : {ra, gp, tp, s0, s1, a2, a3, a4, a5, a6, s2, s11, t3, t6}) {
      EXPECT_EQ(x[reg], 0u) << "x" << reg << " of thread " << t;
    }
  }
}

TEST(SimtIsa, InvalidLaunchesThrow) {
  s::Machine m;
  EXPECT_THROW(m.run({.num_warps = 0}), std::invalid_argument);
  EXPECT_THROW(m.run({.threads_per_warp = 0}), std::invalid_argument);
  EXPECT_THROW(m.run({.stack_top = 0x1008}), std::invalid_argument);
  EXPECT_THROW(m.run({.stack_top = 0x1000, .stack_size_per_thread = 0x18}), std::invalid_argument);
  // 32 threads x 0x100 bytes need stack_top >= 31 * 0x100.
  EXPECT_THROW(m.run({.stack_top = 0x1E00, .stack_size_per_thread = 0x100}), std::invalid_argument);
}
