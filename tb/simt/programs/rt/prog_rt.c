/* Runtime of the single-thread test programs: output and tiny libc (see prog_rt.h). */
#include "prog_rt.h"

#ifdef WEFT_QEMU
void prog_write(const void* p, uint32_t n) {
  const char* c = (const char*)p;
  while (n > 0) {
    register uint32_t a0 __asm__("a0") = 1;
    register const char* a1 __asm__("a1") = c;
    register uint32_t a2 __asm__("a2") = n;
    register uint32_t a7 __asm__("a7") = 64; /* write */
    __asm__ volatile("ecall" : "+r"(a0) : "r"(a1), "r"(a2), "r"(a7) : "memory");
    if ((int32_t)a0 <= 0) return;
    c += a0;
    n -= a0;
  }
}
#else
/* csrr rd, num (CSRRS rd, num, x0), read with .insn as in sw/kernels/include/weft_simt.h. */
#define PROG_CSR_READ(num)                                                          \
  __extension__({                                                                   \
    uint32_t v_;                                                                    \
    __asm__ volatile(".insn i 0x73, 2, %0, x0, %1" : "=r"(v_) : "i"((int)(num)-4096)); \
    v_;                                                                             \
  })
void prog_write(const void* p, uint32_t n) {
  const struct prog_args* a = (const struct prog_args*)(uintptr_t)PROG_CSR_READ(0xCC5);
  const uint32_t tid = PROG_CSR_READ(0xCC0);
  uint8_t* buf = (uint8_t*)(uintptr_t)(a->out_base + tid * a->out_stride);
  const uint32_t cap = a->out_stride - 4;
  uint32_t len = *(uint32_t*)buf;
  const uint8_t* s = (const uint8_t*)p;
  for (uint32_t i = 0; i < n; ++i, ++len) {
    if (len < cap) buf[4 + len] = s[i];
  }
  *(uint32_t*)buf = len;
}
#endif

void prog_putc(char c) { prog_write(&c, 1); }

unsigned strlen(const char* s) {
  unsigned n = 0;
  while (s[n]) ++n;
  return n;
}

void prog_puts(const char* s) { prog_write(s, strlen(s)); }

void prog_put_udec(uint32_t v) {
  char b[10];
  int n = 0;
  do {
    b[9 - n++] = (char)('0' + v % 10);
    v /= 10;
  } while (v);
  prog_write(b + 10 - n, (uint32_t)n);
}

void prog_put_dec(int32_t v) {
  if (v < 0) {
    prog_putc('-');
    prog_put_udec(0u - (uint32_t)v);
  } else {
    prog_put_udec((uint32_t)v);
  }
}

void prog_put_hex(uint32_t v, int digits) {
  char b[8];
  for (int i = 0; i < digits; ++i) b[digits - 1 - i] = "0123456789abcdef"[(v >> (4 * i)) & 15];
  prog_write(b, (uint32_t)digits);
}

void prog_put_hex_line(const char* label, uint32_t v) {
  prog_puts(label);
  prog_putc('=');
  prog_put_hex(v, 8);
  prog_putc('\n');
}

void* memset(void* d, int c, unsigned n) {
  unsigned char* p = (unsigned char*)d;
  while (n--) *p++ = (unsigned char)c;
  return d;
}

void* memcpy(void* d, const void* s, unsigned n) {
  unsigned char* p = (unsigned char*)d;
  const unsigned char* q = (const unsigned char*)s;
  while (n--) *p++ = *q++;
  return d;
}
