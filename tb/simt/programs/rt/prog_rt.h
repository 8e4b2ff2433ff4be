/* Runtime of the single-thread test programs (tb/simt/programs/qemu, docs/simt-tests.md): the same
 * C source runs under qemu-riscv32 (Linux user mode) and on the Weft SIMT core; the build picks the
 * output path at compile time.
 *
 *   -DWEFT_QEMU   prog_write() is the Linux write(1, ...) syscall (ecall, a7 = 64)
 *   (default)     prog_write() appends to this thread's output buffer in the scratchpad:
 *                 out_base + thread_id * out_stride holds {uint32 length, bytes...}; bytes beyond
 *                 out_stride - 4 are counted but dropped (the host then reports an overflow).
 *                 The buffer address comes from the argument block (CSR 0xCC5 = arg_ptr).
 *
 * Both: main's return value is the exit code (crt0: ecall with a7 = 93). No writable globals
 * (every thread of a launch runs the program; the core's linker script rejects .data/.bss). */
#ifndef WEFT_PROG_RT_H
#define WEFT_PROG_RT_H

#include <stdint.h>

struct prog_args {     /* at arg_ptr (core build) */
  uint32_t out_base;   /* thread t's buffer: out_base + t * out_stride */
  uint32_t out_stride; /* bytes per thread, including the 4-byte length */
};

void prog_write(const void* p, uint32_t n);
void prog_putc(char c);
void prog_puts(const char* s);                 /* no newline added */
void prog_put_dec(int32_t v);                  /* signed decimal */
void prog_put_udec(uint32_t v);                /* unsigned decimal */
void prog_put_hex(uint32_t v, int digits);     /* lower-case, zero padded to digits (1..8) */
void prog_put_hex_line(const char* label, uint32_t v); /* "label=xxxxxxxx\n" */

void* memset(void* d, int c, unsigned n);
void* memcpy(void* d, const void* s, unsigned n);
unsigned strlen(const char* s);

#endif
