/* Weft SIMT kernel runtime (docs/kernels.md): thread ids, barrier and exit for C kernels.
 *
 * A kernel is a C file defining `void weft_main(const void* args)` (exit code 0 when it
 * returns) or, instead, `int weft_main_code(const void* args)` (its return value is the thread's
 * exit code). The runtime's crt0 (sw/kernels/runtime/crt0.S) calls it with the launch's argument
 * pointer and exits the thread when it returns. Every thread of the launch runs it; threads tell
 * themselves apart with the CSR reads below (docs/simt-model.md, "CSRs"). The exit code is also
 * stored in the top word of the thread's stack, where weft::Simt::exit_codes() reads it.
 *
 * CSR reads are written as `.insn` (CSRRS rd, csr, x0 = `csrr rd, csr`), so this header works with
 * -march=rv32im as well as rv32im_zicsr (binutils 2.40 assembles the csrr mnemonic only with
 * Zicsr). The I-immediate is the CSR number as a signed 12-bit value: 0xCC0 - 4096 = -832. The
 * reads are not volatile: their values are constant for the whole launch, so the compiler may
 * combine or hoist them. */
#ifndef WEFT_SIMT_H
#define WEFT_SIMT_H

#include <stdint.h>

#define WEFT_CSR_THREAD_ID 0xCC0        /* warp_id * threads_per_warp + lane_id */
#define WEFT_CSR_WARP_ID 0xCC1          /* 0 .. num_warps-1 */
#define WEFT_CSR_LANE_ID 0xCC2          /* 0 .. threads_per_warp-1 */
#define WEFT_CSR_BLOCK_ID 0xCC3         /* Launch::block_id */
#define WEFT_CSR_NUM_THREADS 0xCC4      /* num_warps * threads_per_warp */
#define WEFT_CSR_ARG_PTR 0xCC5          /* Launch::arg_ptr */
#define WEFT_CSR_NUM_WARPS 0xCC6        /* Launch::num_warps */
#define WEFT_CSR_THREADS_PER_WARP 0xCC7 /* Launch::threads_per_warp */
#define WEFT_CSR_BARRIER 0x8C0          /* any write is a barrier */
#define WEFT_SYSCALL_EXIT 93            /* ecall with a7 = 93: exit with code a0 */

/* csrr rd, num (CSRRS rd, num, x0; opcode SYSTEM 0x73, funct3 2). */
#define WEFT_CSR_READ(num)                                                         \
  __extension__({                                                                  \
    uint32_t weft_v_;                                                              \
    __asm__(".insn i 0x73, 2, %0, x0, %1" : "=r"(weft_v_) : "i"((int)(num)-4096)); \
    weft_v_;                                                                       \
  })

static inline uint32_t weft_thread_id(void) { return WEFT_CSR_READ(WEFT_CSR_THREAD_ID); }
static inline uint32_t weft_warp_id(void) { return WEFT_CSR_READ(WEFT_CSR_WARP_ID); }
static inline uint32_t weft_lane_id(void) { return WEFT_CSR_READ(WEFT_CSR_LANE_ID); }
static inline uint32_t weft_block_id(void) { return WEFT_CSR_READ(WEFT_CSR_BLOCK_ID); }
static inline uint32_t weft_num_threads(void) { return WEFT_CSR_READ(WEFT_CSR_NUM_THREADS); }
static inline uint32_t weft_num_warps(void) { return WEFT_CSR_READ(WEFT_CSR_NUM_WARPS); }
static inline uint32_t weft_threads_per_warp(void) {
  return WEFT_CSR_READ(WEFT_CSR_THREADS_PER_WARP);
}
static inline const void* weft_arg_ptr(void) {
  return (const void*)(uintptr_t)WEFT_CSR_READ(WEFT_CSR_ARG_PTR);
}

/* Barrier across every live thread of the launch: csrw 0x8C0, zero (CSRRW x0, 0x8C0, x0,
 * funct3 1). The memory clobber keeps loads and stores on their side of it. */
static inline void weft_barrier(void) {
  __asm__ volatile(".insn i 0x73, 1, x0, x0, %0" ::"i"(WEFT_CSR_BARRIER - 4096) : "memory");
}

/* Ends this thread with an exit code (ecall, a7 = 93, code in a0). Other threads go on; a
 * barrier no longer waits for this one. Like crt0, it first stores the code in the thread's
 * exit-code slot [tp - 4] (tp = the thread's stack top, set by crt0). */
static inline __attribute__((noreturn)) void weft_exit(uint32_t code) {
  register uint32_t a0 __asm__("a0") = code;
  register uint32_t a7 __asm__("a7") = WEFT_SYSCALL_EXIT;
  __asm__ volatile("sw a0, -4(tp)\n\tecall" ::"r"(a0), "r"(a7) : "memory");
  __builtin_unreachable();
}

/* A scratchpad address (as stored in argument structs) as a pointer. */
#define WEFT_PTR(type, addr) ((type*)(uintptr_t)(addr))

/* The kernel entry point, called by crt0: each kernel defines exactly one of the two (the link
 * fails otherwise). */
void weft_main(const void* args);     /* exit code 0 */
int weft_main_code(const void* args); /* exit code = the return value */

#endif /* WEFT_SIMT_H */
