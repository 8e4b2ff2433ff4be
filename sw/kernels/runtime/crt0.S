/* Weft SIMT kernel start-up (docs/kernels.md). Every thread of a launch starts here (entry_pc =
 * e_entry = 0) with the registers the launch gives: sp = its own stack top, a0 = argument
 * pointer, a1 = thread id, everything else 0 (docs/simt-model.md, "Launch ABI"). Nothing else is
 * set up: there is no .data or .bss to initialise (the linker script rejects them) and gp is not
 * used (no __global_pointer$, so the linker never relaxes accesses to gp-relative).
 *
 *   weft_main(a0 = argument pointer)   the kernel's C entry point
 *   exit(0)                            ecall with a7 = 93, a0 = 0; weft_exit() exits earlier */
  .section .text.start, "ax"
  .globl _start
  .type _start, @function
_start:
  call weft_main
  li a0, 0
  li a7, 93
  ecall
  .size _start, . - _start
