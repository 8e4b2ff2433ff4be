/* Start-up of the single-thread test programs (prog_rt.h), the same for qemu-riscv32 and the
 * Weft core: sp is already set (by qemu's loader, or by the launch), gp is not used (the programs
 * are built with -msmall-data-limit=0 and without linker relaxation or at address 0), so: call
 * main, exit with its return value (ecall, a7 = 93: Linux exit, and Weft's thread exit). */
  .section .text.start, "ax"
  .globl _start
  .type _start, @function
_start:
  call main
  li a7, 93
  ecall
1:
  j 1b
  .size _start, . - _start
