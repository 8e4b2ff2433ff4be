// SIMT model encoder: the R/I/S/B/U/J formats against instruction words worked by hand from the
// RISC-V unprivileged ISA v20191213 (2.2 Figure 2.2, 2.3 Figures 2.3/2.4, Table 24.2); range
// checks; labels of rv::Program; li for every shape of constant (run on the model).
#include <gtest/gtest.h>

#include <stdexcept>

#include "weft/golden/simt.hpp"

namespace s = weft::golden::simt;
namespace rv = weft::golden::simt::rv;
using namespace weft::golden::simt::rv;  // register names

TEST(SimtEncoder, MatchesHandWorkedWords) {
  // Each word: fields packed by hand (comment: the field values, high to low).
  EXPECT_EQ(rv::nop(), 0x00000013u);     // ADDI x0, x0, 0 (2.4 NOP)
  EXPECT_EQ(rv::ecall(), 0x00000073u);   // Table 24.2
  EXPECT_EQ(rv::ebreak(), 0x00100073u);  // Table 24.2
  EXPECT_EQ(rv::fence(), 0x0FF0000Fu);   // pred=1111 succ=1111
  // R: 0000000 00011 00010 000 00001 0110011
  EXPECT_EQ(rv::add(1, 2, 3), 0x003100B3u);
  // R: 0100000 00011 00010 000 00001 0110011
  EXPECT_EQ(rv::sub(1, 2, 3), 0x403100B3u);
  // R: 0000001 01100 01011 000 01010 0110011
  EXPECT_EQ(rv::mul(a0, a1, a2), 0x02C58533u);
  // I (shift): 0100000 11111 00001 101 00001 0010011
  EXPECT_EQ(rv::srai(1, 1, 31), 0x41F0D093u);
  // I: imm=-4 (1111 1111 1100) 00010 010 01010 0000011
  EXPECT_EQ(rv::lw(a0, sp, -4), 0xFFC12503u);
  // I: ret = JALR x0, 0(x1)
  EXPECT_EQ(rv::jalr(0, ra, 0), 0x00008067u);
  // S: imm[11:5]=0 00101 00010 010 imm[4:0]=01000 0100011
  EXPECT_EQ(rv::sw(t0, sp, 8), 0x00512423u);
  // B: offset -4: imm[12]=1 imm[10:5]=111111 00010 00001 000 imm[4:1]=1110 imm[11]=1 1100011
  EXPECT_EQ(rv::beq(1, 2, -4), 0xFE208EE3u);
  // U: 0x12345 00101 0110111
  EXPECT_EQ(rv::lui(t0, 0x12345), 0x123452B7u);
  // U: 0xFFFFF 00011 0010111
  EXPECT_EQ(rv::auipc(gp, 0xFFFFF), 0xFFFFF197u);
  // J: offset 2048: only imm[11] set -> bit 20; rd=1
  EXPECT_EQ(rv::jal(ra, 2048), 0x001000EFu);
  // J: offset -8: imm[20]=1 imm[10:1]=1111111100 imm[11]=1 imm[19:12]=11111111, rd=0
  EXPECT_EQ(rv::jal(zero, -8), 0xFF9FF06Fu);
  // Zicsr: csr=0xCC0 rs1=0 funct3=010 rd=10 1110011 (binutils prints "csrr a0,0xcc0")
  EXPECT_EQ(rv::csrr(a0, s::kCsrThreadId), 0xCC002573u);
  // Barrier: csr=0x8C0 rs1=0 funct3=001 rd=0 1110011
  EXPECT_EQ(rv::barrier(), 0x8C001073u);
}

TEST(SimtEncoder, RejectsOutOfRangeFields) {
  EXPECT_THROW(rv::addi(a0, a0, 2048), std::invalid_argument);
  EXPECT_THROW(rv::addi(a0, a0, -2049), std::invalid_argument);
  EXPECT_NO_THROW(rv::addi(a0, a0, -2048));
  EXPECT_THROW(rv::beq(0, 0, 4096), std::invalid_argument);
  EXPECT_THROW(rv::beq(0, 0, 3), std::invalid_argument);
  EXPECT_THROW(rv::jal(0, 1 << 20), std::invalid_argument);
  EXPECT_THROW(rv::slli(a0, a0, 32), std::invalid_argument);
  EXPECT_THROW(rv::add(32, 0, 0), std::invalid_argument);
  EXPECT_THROW(rv::lui(a0, 0x100000), std::invalid_argument);
  EXPECT_THROW(rv::csrr(a0, 0x1000), std::invalid_argument);
}

TEST(SimtEncoder, ProgramResolvesForwardAndBackwardLabels) {
  rv::Program p(0x100);
  p.label("top");
  p << rv::nop();
  p.branch(rv::bne, a0, a1, "end");  // at 0x104 -> 0x110: +12
  p.jal(zero, "top");                // at 0x108 -> 0x100: -8
  p << rv::nop();
  p.label("end");
  p << rv::nop();
  const auto w = p.words();
  ASSERT_EQ(w.size(), 5u);
  EXPECT_EQ(w[1], rv::bne(a0, a1, 12));
  EXPECT_EQ(w[2], rv::jal(zero, -8));
  EXPECT_EQ(p.address_of("end"), 0x110u);
  rv::Program bad;
  bad.jal(zero, "nowhere");
  EXPECT_THROW(bad.words(), std::invalid_argument);
}

TEST(SimtEncoder, LiBuildsEveryConstantShape) {
  const uint32_t values[] = {0,          1,          2047,       0xFFFFF800u, 0xFFFFFFFFu,
                             0x800,      0x1000,     0x12345678, 0x12345FFF,  0x7FFFFFFF,
                             0x80000000, 0xFFFFF7FF, 0xDEADBEEF, 0x00000FFF,  0x7FFFF800};
  rv::Program p;
  const uint32_t regs[] = {s0, s1, s2, s3, s4, s5, s6, s7, s8, s9, s10, s11, t3, t4, t5};
  static_assert(std::size(regs) == std::size(values));
  for (size_t i = 0; i < std::size(values); ++i) p << rv::li(regs[i], values[i]);
  EXPECT_EQ(rv::li(a0, 5).size(), 1u);
  EXPECT_EQ(rv::li(a0, 0x12345000).size(), 1u);  // lui alone
  EXPECT_EQ(rv::li(a0, 0x12345678).size(), 2u);
  p << rv::exit_with(0);
  s::Machine m;
  m.load_imem(0, p.words());
  const auto r = m.run({.entry_pc = 0, .num_warps = 1, .threads_per_warp = 1});
  ASSERT_TRUE(r.ok()) << r.error.message();
  for (size_t i = 0; i < std::size(values); ++i) {
    EXPECT_EQ(r.threads[0].x[regs[i]], values[i]) << "li of 0x" << std::hex << values[i];
  }
}
