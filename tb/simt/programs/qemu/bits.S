/* qemu vs core, in assembly: instruction edge cases whose results are written as raw words
 * (prog_write of a stack buffer): loads of every size and sign from a .rodata table, narrow stores
 * merged into words, register shifts by amounts >= 32 (low 5 bits), SLT/SLTU/SLTI/SLTIU at the
 * sign boundary, LUI/AUIPC, JALR with bit 0 of the target set, branches at the signed/unsigned
 * boundary, MULH/MULHSU/MULHU and DIV/REM special cases (ISA Table 7.1), x0 as destination.
 * Exits with 0x5a. */
  .option norelax

.macro R reg                    /* append a result word */
  sw \reg, 0(s1)
  addi s1, s1, 4
.endm

  .section .rodata
  .balign 4
bits_table:
  .word 0x80ff7f01, 0xfedcba98, 0x00017fff, 0x7fffffff, 0x80000000, 0xffffffff

  .text
  .globl main
main:
  addi sp, sp, -320
  sw ra, 316(sp)
  sw s0, 312(sp)
  sw s1, 308(sp)
  sw s2, 304(sp)
  mv s1, sp                     /* result buffer: sp .. sp + 300 */
  la s0, bits_table
  /* loads: every byte, halfword, word, signed and unsigned */
  lb t0, 0(s0)
  R t0
  lb t0, 1(s0)
  R t0
  lb t0, 2(s0)
  R t0
  lb t0, 3(s0)
  R t0
  lbu t0, 3(s0)
  R t0
  lbu t0, 0(s0)
  R t0
  lh t0, 0(s0)
  R t0
  lh t0, 2(s0)
  R t0
  lhu t0, 2(s0)
  R t0
  lh t0, 10(s0)
  R t0
  lhu t0, 6(s0)
  R t0
  lw t0, 4(s0)
  R t0
  /* narrow stores into a word, read back */
  li t0, -1
  sw t0, 300(sp)
  li t1, 0x12345678
  sb t1, 301(sp)
  sh t1, 302(sp)
  lw t0, 300(sp)
  R t0
  sb zero, 300(sp)
  lw t0, 300(sp)
  R t0
  lh t0, 302(sp)
  R t0
  /* register shifts: amount = low 5 bits */
  lw t1, 16(s0)                 /* 0x80000000 */
  li t2, 33
  sll t0, t1, t2
  R t0
  srl t0, t1, t2
  R t0
  sra t0, t1, t2
  R t0
  li t2, -1                     /* 31 */
  sra t0, t1, t2
  R t0
  srl t0, t1, t2
  R t0
  li t2, 64                     /* 0 */
  sra t0, t1, t2
  R t0
  /* comparisons at the sign boundary */
  lw t2, 12(s0)                 /* 0x7fffffff */
  slt t0, t1, t2
  R t0
  sltu t0, t1, t2
  R t0
  slti t0, t1, -1
  R t0
  sltiu t0, t1, -1              /* 0x80000000 < 0xffffffff */
  R t0
  sltiu t0, zero, 1             /* seqz */
  R t0
  slt t0, t2, t1
  R t0
  /* LUI, AUIPC (relative to a linker-computed address), JALR with bit 0 set */
  lui t0, 0xfffff
  R t0
1:
  auipc t0, 0x80001
  lui t3, %hi(1b)
  addi t3, t3, %lo(1b)
  sub t0, t0, t3
  R t0
  lui t3, %hi(2f)
  addi t3, t3, %lo(2f)
  addi t3, t3, 1                /* odd target: bit 0 is cleared */
3:
  jalr t4, 0(t3)
  li t0, 0xbad
  R t0
2:
  lui t3, %hi(3b)
  addi t3, t3, %lo(3b)
  sub t0, t4, t3                /* link - pc = 4 */
  R t0
  /* branches at the boundary: record taken (1) / not taken (0) */
  li s2, 0
  blt t1, t2, 4f                /* -2^31 < 2^31-1: taken */
  ori s2, s2, 1
4:
  bltu t1, t2, 5f               /* unsigned: not taken */
  ori s2, s2, 2
5:
  bge t2, t1, 6f                /* taken */
  ori s2, s2, 4
6:
  bgeu t2, t1, 7f               /* not taken */
  ori s2, s2, 8
7:
  beq t1, t1, 8f                /* taken */
  ori s2, s2, 16
8:
  bne t1, t1, 9f                /* not taken */
  ori s2, s2, 32
9:
  R s2
  /* M: high products and Table 7.1 */
  lw t3, 20(s0)                 /* -1 */
  mulh t0, t1, t3
  R t0
  mulhsu t0, t1, t3
  R t0
  mulhu t0, t1, t3
  R t0
  mulhsu t0, t3, t1
  R t0
  mul t0, t1, t3
  R t0
  div t0, t1, t3                /* INT_MIN / -1 = INT_MIN */
  R t0
  rem t0, t1, t3                /* 0 */
  R t0
  div t0, t2, zero              /* -1 */
  R t0
  divu t0, t2, zero             /* 2^32 - 1 */
  R t0
  rem t0, t2, zero              /* dividend */
  R t0
  remu t0, t1, zero             /* dividend */
  R t0
  li t4, -7
  li t5, 2
  div t0, t4, t5                /* -3: towards zero */
  R t0
  rem t0, t4, t5                /* -1: sign of the dividend */
  R t0
  divu t0, t4, t5
  R t0
  remu t0, t4, t5
  R t0
  /* x0 as destination stays 0 */
  addi zero, zero, 5
  lw zero, 0(s0)
  mul zero, t1, t1
  R zero
  /* write the buffer, return 0x5a */
  mv a0, sp
  sub a1, s1, sp
  call prog_write
  li a0, 0x5a
  lw ra, 316(sp)
  lw s0, 312(sp)
  lw s1, 308(sp)
  lw s2, 304(sp)
  addi sp, sp, 320
  ret
