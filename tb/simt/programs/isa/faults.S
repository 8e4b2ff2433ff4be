/* Fault cases for the error checks of docs/simt-model.md ("Errors"), one entry point per case
 * (the launch's entry_pc). Every thread of the launch runs the case with its own operand word
 * (FAULT_TABLE + 4 * thread id); the host gives valid operands to all threads but one or two
 * (the victims), so the launch must stop with the case's error code at the global label
 * <case>_at (the faulting instruction), the victim's thread id, and tval = the address or target.
 * Threads whose access is valid exit with code 0.
 *
 *   f_lh, f_lhu, f_lw      load at FAULT_DATA + operand (misaligned or out of range)
 *   f_sh, f_sw, f_sb       store at FAULT_DATA + operand
 *   f_jalr                 jalr to f_jalr_target + operand (bit 0 cleared: +1 is fine, +2 not)
 *   f_branch               bne operand, x0, .+6: taken (misaligned target) when operand != 0
 *   f_jal                  jal .+6, reached only when operand != 0
 *   f_ebreak, f_ecall      ebreak / ecall with a7 = 64, reached only when operand != 0 */
#include "isa_layout.h"

  .option norelax

.macro PROLOGUE
  csrr t0, 0xCC0
  slli t1, t0, 2
  li t2, FAULT_TABLE
  add t2, t2, t1
  lw t2, 0(t2)                  /* this thread's operand */
  li t3, FAULT_DATA
  add t3, t3, t2
.endm
.macro EXIT0
  li a0, 0
  li a7, 93
  ecall
.endm

/* Entry 0 is never used (a launch names its case), but the linker script wants .text.start. */
  .section .text.start, "ax"
  .globl _start
_start:
  EXIT0

  .text
.macro LOADCASE name, op
  .globl f_\name, f_\name\()_at
f_\name:
  PROLOGUE
f_\name\()_at:
  \op t4, 0(t3)
  EXIT0
.endm
.macro STORECASE name, op
  .globl f_\name, f_\name\()_at
f_\name:
  PROLOGUE
f_\name\()_at:
  \op t0, 0(t3)
  EXIT0
.endm
  LOADCASE lh, lh
  LOADCASE lhu, lhu
  LOADCASE lw, lw
  LOADCASE lb, lb
  STORECASE sh, sh
  STORECASE sw, sw
  STORECASE sb, sb

  .globl f_jalr, f_jalr_at, f_jalr_target
f_jalr:
  PROLOGUE
  la t4, f_jalr_target
  add t4, t4, t2
f_jalr_at:
  jalr ra, 0(t4)
  li a0, 0xbad
  li a7, 93
  ecall
f_jalr_target:
  EXIT0

  .globl f_branch, f_branch_at
f_branch:
  PROLOGUE
f_branch_at:
  bne t2, zero, .+6
  EXIT0

  .globl f_jal, f_jal_at
f_jal:
  PROLOGUE
  beqz t2, 1f
f_jal_at:
  jal ra, .+6
1:
  EXIT0

  .globl f_ebreak, f_ebreak_at
f_ebreak:
  PROLOGUE
  beqz t2, 1f
f_ebreak_at:
  ebreak
1:
  EXIT0

  .globl f_ecall, f_ecall_at
f_ecall:
  PROLOGUE
  beqz t2, 1f
  li a7, 64
f_ecall_at:
  ecall
1:
  EXIT0
