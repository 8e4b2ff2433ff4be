/* RV32IM self-check program (docs/simt-tests.md). Every thread runs the tests of one group (the
 * group lists isa_*.def) on its own operands and compares each result with its own expected value:
 *
 *   operands  in[t][i]  = {a, b}      per thread, from the host (thread-dependent)
 *   expected  exp[t][i]               computed by the host's spec-derived reference
 *   result    got[t][i]               stored for diagnostics
 *   status    {fails, first failing test or -1, tests run, ISA_STATUS_MAGIC}; exit code = fails
 *
 * Each test loads its operands, runs the instruction under test into t3, then NEXT stores t3,
 * compares it with the expected word, counts a failure and advances the table pointers.
 *
 * Two builds from this file:
 *   core (default)  tables at the fixed scratchpad addresses of isa_layout.h, thread id from CSR
 *                   0xCC0, group from the argument block (a0 = arg_ptr); linked at 0 by
 *                   sw/kernels/runtime/weft_kernel.ld.
 *   -DWEFT_QEMU     one thread under qemu-riscv32: stdin gives the group, operands, load data and
 *                   scratch contents; the result words go to stdout (so the host can check its
 *                   reference against an independent RV32IM implementation).
 *
 * Registers: s0 operands, s1 results, s2 expected, s3 load data, s4 store scratch, s5 failures,
 * s6 first failing index, s7 test index; a2/a3 operands; t3 result; t2, t4..t6, ra temporaries.
 * Relaxation is off: what is written here is what runs. */
#include "isa_layout.h"

  .option norelax

/* ---- check and advance ------------------------------------------------------------------ */
.macro NEXT
  sw t3, 0(s1)
  lw t4, 0(s2)
  beq t3, t4, .Lok\@
  addi s5, s5, 1
  bgez s6, .Lok\@
  mv s6, s7
.Lok\@:
  addi s0, s0, 8
  addi s1, s1, 4
  addi s2, s2, 4
  addi s7, s7, 1
.endm

.macro OPERANDS
  lw a2, 0(s0)
  lw a3, 4(s0)
.endm

/* ---- register-register ------------------------------------------------------------------- */
.macro TEST_RR op
  OPERANDS
  \op t3, a2, a3
  NEXT
.endm
.macro TEST_RRA op          /* rd = rs1 */
  OPERANDS
  \op a2, a2, a3
  mv t3, a2
  NEXT
.endm
.macro TEST_RRB op          /* rd = rs2 */
  OPERANDS
  \op a3, a2, a3
  mv t3, a3
  NEXT
.endm
.macro TEST_RRS op          /* rs1 = rs2 */
  OPERANDS
  \op t3, a2, a2
  NEXT
.endm
.macro TEST_X0 op           /* rd = x0: stays 0; the result is a */
  OPERANDS
  li t3, -1
  \op zero, a2, a3
  add t3, zero, a2
  NEXT
.endm

/* ---- register-immediate ------------------------------------------------------------------ */
.macro TEST_RI op, imm
  OPERANDS
  \op t3, a2, \imm
  NEXT
.endm
.macro TEST_RIA op, imm     /* rd = rs1 */
  OPERANDS
  \op a2, a2, \imm
  mv t3, a2
  NEXT
.endm

/* ---- loads and stores -------------------------------------------------------------------- */
.macro TEST_LD op, imm      /* a = offset into the load data (minus imm) */
  OPERANDS
  add a2, a2, s3
  \op t3, \imm(a2)
  NEXT
.endm
.macro TEST_LDA op, imm     /* rd = rs1 */
  OPERANDS
  add a2, a2, s3
  \op a2, \imm(a2)
  mv t3, a2
  NEXT
.endm
.macro TEST_LDX0 op, imm    /* rd = x0; the result is b */
  OPERANDS
  add a2, a2, s3
  \op zero, \imm(a2)
  add t3, zero, a3
  NEXT
.endm
.macro TEST_ST op, imm      /* store b at scratch + a + imm, read back the aligned word */
  OPERANDS
  add a2, a2, s4
  \op a3, \imm(a2)
  addi t5, a2, \imm
  andi t5, t5, -4
  lw t3, 0(t5)
  NEXT
.endm

/* ---- control transfer -------------------------------------------------------------------- */
.macro TEST_BR op           /* forward: t3 = 1 if taken */
  OPERANDS
  li t3, 1
  \op a2, a3, .Ltaken\@
  li t3, 0
.Ltaken\@:
  NEXT
.endm
.macro TEST_BRB op          /* backward: t3 = 1 if taken */
  OPERANDS
  j .Lbranch\@
.Ltaken\@:
  li t3, 1
  j .Lend\@
.Lbranch\@:
  li t3, 0
  \op a2, a3, .Ltaken\@
.Lend\@:
  NEXT
.endm
.macro TEST_LUI imm         /* (imm << 12) ^ a */
  OPERANDS
  lui t3, \imm
  xor t3, t3, a2
  NEXT
.endm
.macro TEST_AUIPC imm       /* (pc + (imm << 12)) - pc, pc from the linker: (imm << 12) ^ a */
  OPERANDS
.Lpc\@:
  auipc t3, \imm
  lui t4, %hi(.Lpc\@)
  addi t4, t4, %lo(.Lpc\@)
  sub t3, t3, t4
  xor t3, t3, a2
  NEXT
.endm
.macro TEST_JAL             /* forward: (link - pc) ^ a = 4 ^ a */
  OPERANDS
  li ra, 0
.Ljal\@:
  jal ra, .Ltarget\@
  li t3, 0xbad
  j .Lend\@
.Ltarget\@:
  lui t4, %hi(.Ljal\@)
  addi t4, t4, %lo(.Ljal\@)
  sub t3, ra, t4
  xor t3, t3, a2
.Lend\@:
  NEXT
.endm
.macro TEST_JALB            /* backward */
  OPERANDS
  li ra, 0
  j .Ljal\@
.Ltarget\@:
  lui t4, %hi(.Ljal\@)
  addi t4, t4, %lo(.Ljal\@)
  sub t3, ra, t4
  xor t3, t3, a2
  j .Lend\@
.Ljal\@:
  jal ra, .Ltarget\@
  li t3, 0xbad
.Lend\@:
  NEXT
.endm
/* JALR to pad k (8 bytes each) at pads + a + imm (a = 8k - imm, plus 1 on some lanes: bit 0 of
 * the target is cleared). Result: k | (link - pc of the jalr) << 8 = k | 0x400. */
.macro TEST_JALR imm, link
  OPERANDS
  lui t2, %hi(.Lpads\@)
  addi t2, t2, %lo(.Lpads\@)
  add t2, t2, a2
.Ljalr\@:
  jalr \link, \imm(t2)
  li t3, 0xbad
  j .Lend\@
.Lpads\@:
  addi t3, zero, 0
  j .Ljoin\@
  addi t3, zero, 1
  j .Ljoin\@
  addi t3, zero, 2
  j .Ljoin\@
  addi t3, zero, 3
  j .Ljoin\@
  addi t3, zero, 4
  j .Ljoin\@
  addi t3, zero, 5
  j .Ljoin\@
  addi t3, zero, 6
  j .Ljoin\@
  addi t3, zero, 7
  j .Ljoin\@
.Ljoin\@:
  lui t4, %hi(.Ljalr\@)
  addi t4, t4, %lo(.Ljalr\@)
  sub t5, \link, t4
  slli t5, t5, 8
  or t3, t3, t5
.Lend\@:
  NEXT
.endm
.macro TEST_FENCE           /* no-op: a */
  OPERANDS
  fence
  fence rw, w
  mv t3, a2
  NEXT
.endm

/* The .def entries, one assembly macro call each. */
#define RR(op, cls) TEST_RR op
#define RRA(op, cls) TEST_RRA op
#define RRB(op, cls) TEST_RRB op
#define RRS(op, cls) TEST_RRS op
#define X0(op, cls) TEST_X0 op
#define RI(op, cls, imm) TEST_RI op, imm
#define RIA(op, cls, imm) TEST_RIA op, imm
#define SH(op, cls, sh) TEST_RI op, sh
#define LD(op, imm) TEST_LD op, imm
#define LDA(op, imm) TEST_LDA op, imm
#define LDX0(op, imm) TEST_LDX0 op, imm
#define ST(op, imm) TEST_ST op, imm
#define BR(op, cls) TEST_BR op
#define BRB(op, cls) TEST_BRB op
#define LUI(imm) TEST_LUI imm
#define AUIPC(imm) TEST_AUIPC imm
#define JAL() TEST_JAL
#define JALB() TEST_JALB
#define JALR(imm, link) TEST_JALR imm, link
#define FENCE() TEST_FENCE

/* ---- start: set up the table pointers, jump to the group ---------------------------------- */
  .section .text.start, "ax"
  .globl _start
_start:
#ifdef WEFT_QEMU
  /* read(0, q_group, ISA_QEMU_IN_BYTES), looping over short reads */
  lui a1, %hi(q_group)
  addi a1, a1, %lo(q_group)
  li a2, ISA_QEMU_IN_BYTES
1:
  beqz a2, 2f
  li a0, 0
  li a7, 63
  ecall
  blez a0, 2f
  add a1, a1, a0
  sub a2, a2, a0
  j 1b
2:
  la s0, q_in
  la s1, q_got
  la s2, q_exp
  la s3, q_data
  la s4, q_scratch
  la t1, q_group
  lw t1, 0(t1)
#else
  csrr t0, 0xCC0                /* thread id */
  slli t1, t0, ISA_IN_SHIFT
  li s0, ISA_IN
  add s0, s0, t1
  slli t1, t0, ISA_RES_SHIFT
  li s1, ISA_GOT
  add s1, s1, t1
  li s2, ISA_EXP
  add s2, s2, t1
  li s3, ISA_DATA
  slli t1, t0, ISA_SCRATCH_SHIFT
  li s4, ISA_SCRATCH
  add s4, s4, t1
  lw t1, 0(a0)                  /* group index from the argument block */
#endif
  li s5, 0
  li s6, -1
  li s7, 0
  la t2, isa_groups
  slli t1, t1, 2
  add t2, t2, t1
  lw t2, 0(t2)
  jr t2

isa_finish:
#ifdef WEFT_QEMU
  /* write(1, q_got, 4 * tests), exit(0) */
  la a1, q_got
  slli a2, s7, 2
1:
  beqz a2, 2f
  li a0, 1
  li a7, 64
  ecall
  blez a0, 2f
  add a1, a1, a0
  sub a2, a2, a0
  j 1b
2:
  li a0, 0
  li a7, 93
  ecall
#else
  csrr t0, 0xCC0
  slli t0, t0, ISA_STATUS_SHIFT
  li t1, ISA_STATUS
  add t1, t1, t0
  sw s5, 0(t1)
  sw s6, 4(t1)
  sw s7, 8(t1)
  li t2, ISA_STATUS_MAGIC
  sw t2, 12(t1)
  mv a0, s5                     /* exit code: number of failed tests */
  li a7, 93
  ecall
#endif

/* ---- the groups (order = isa_groups = the host's group index) ----------------------------- */
  .text
  .globl isa_group_alu, isa_group_imm, isa_group_mul, isa_group_mem, isa_group_ctrl
isa_group_alu:
#include "isa_alu.def"
  j isa_finish
isa_group_imm:
#include "isa_imm.def"
  j isa_finish
isa_group_mul:
#include "isa_mul.def"
  j isa_finish
isa_group_mem:
#include "isa_mem.def"
  j isa_finish
isa_group_ctrl:
#include "isa_ctrl.def"
  j isa_finish

  .section .rodata
  .balign 4
isa_groups:
  .word isa_group_alu, isa_group_imm, isa_group_mul, isa_group_mem, isa_group_ctrl

#ifdef WEFT_QEMU
  .bss
  .balign 16
q_group: .space 4
q_in: .space ISA_MAX_TESTS * 8
q_data: .space ISA_DATA_BYTES
q_scratch: .space ISA_SCRATCH_BYTES
q_got: .space ISA_MAX_TESTS * 4
q_exp: .space ISA_MAX_TESTS * 4
#endif
