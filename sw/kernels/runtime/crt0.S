/* Weft SIMT kernel start-up (docs/kernels.md). Every thread of a launch starts here (entry_pc =
 * e_entry = 0) with the registers the launch gives: sp = its own stack top, a0 = argument
 * pointer, a1 = thread id, everything else 0 (docs/simt-model.md, "Launch ABI"). gp is not used
 * (no __global_pointer$, so the linker never relaxes accesses to gp-relative). .data and .bss
 * need no code: the loader writes the data segment (docs/kernels.md, "Memory image").
 *
 * Exit-code slot: the top word of the thread's stack, [stack top - 4], holds the thread's exit
 * code after it exits, for the host to read (weft::Simt::exit_codes()). tp keeps the stack top
 * (GCC never allocates tp), so weft_exit() anywhere in the kernel can store its code there too;
 * the kernel's own stack starts 16 bytes lower (psABI alignment kept).
 *
 *   void weft_main(const void* args)      exit code 0 when it returns
 *   int weft_main_code(const void* args)  (instead) exit code = its return value
 *   exit(code)                            store code to [tp - 4], ecall with a7 = 93, a0 = code */
  .section .text.start, "ax"
  .globl _start
  .type _start, @function
  .weak weft_main
  .weak weft_main_code
  /* Marks an image built with this start-up, so that the linker script's check that the kernel
   * defines weft_main or weft_main_code applies to kernels and not to programs with their own. */
  .globl __weft_kernel_crt0
  .set __weft_kernel_crt0, 1
_start:
  mv tp, sp
  addi sp, sp, -16
  lui t0, %hi(weft_main_code)
  addi t0, t0, %lo(weft_main_code)
  beqz t0, 1f            /* undefined weak symbol: 0 (the linker script requires one of the two) */
  jalr t0                /* a0 = weft_main_code(a0) */
  j 2f
1:
  call weft_main
  li a0, 0
2:
  sw a0, -4(tp)
  li a7, 93
  ecall
  .size _start, . - _start
