/* Divergent control flow for the SIMT core tests (docs/simt-tests.md), shared by the RISC-V kernel
 * (divergence.c, gcc -O2 / -O0) and the host test, which compiles the same functions with g++ to
 * compute each thread's expected results. Only uint32_t arithmetic without undefined behaviour, so
 * C on RV32 and C++ on the host agree bit for bit.
 *
 * dv_thread(in, out) is one thread's work: 4 input words, DV_OUT_WORDS output words, returns the
 * exit code. DV_EARLY_EXIT(code) ends the thread early: weft_exit() in the kernel (the thread
 * leaves at a different pc than the others), `return code` on the host. */
#ifndef WEFT_DIVERGENCE_FUNCS_H
#define WEFT_DIVERGENCE_FUNCS_H

#include <stdint.h>

#define DV_IN_WORDS 4
#define DV_OUT_WORDS 16

#ifndef DV_NOINLINE
#define DV_NOINLINE __attribute__((noinline))
#endif

/* Nested if / else, three levels, on bits and signs of x. */
static inline uint32_t dv_nested(uint32_t x) {
  uint32_t r;
  if (x & 1u) {
    if (x & 2u) {
      if ((x >> 31) != 0u) r = x * 3u + 1u;
      else r = x ^ 0x5555u;
    } else {
      r = x >> 3;
      if (r & 4u) r += 100u;
    }
  } else {
    if ((x & 0xF0u) > 0x80u) r = x - 77u;
    else if ((x & 0xF0u) == 0x40u) r = ~x;
    else r = x + (x << 5);
  }
  return r;
}

/* Loops with per-thread trip counts: a for loop with continue and break, nested while / do-while. */
static inline uint32_t dv_loops(uint32_t x) {
  uint32_t n = x % 23u, acc = x;
  for (uint32_t i = 0; i < n; ++i) {
    acc = acc * 1664525u + 1013904223u;
    if ((acc >> 28) == 3u) continue;
    acc ^= acc >> 7;
    if ((acc & 0xFFu) == 0x42u) break;
  }
  uint32_t m = (x >> 8) % 9u, k = 0;
  while (m-- > 0u) {
    uint32_t j = (x >> (m + 1u)) & 7u;
    do {
      k += j ^ m;
    } while (j-- > 0u);
  }
  return acc + k;
}

/* Early returns from inside a loop and before it. */
static DV_NOINLINE uint32_t dv_early(uint32_t x, uint32_t y) {
  if (x == 0u) return 1u;
  if ((x & 0xFu) == 0x7u) return y;
  for (uint32_t i = 0; i < 32u; ++i) {
    if (((x >> i) & (y >> i) & 1u) != 0u) return i * 10u + (x & 3u);
    if (i > (y & 31u)) return 999u - i;
  }
  return 12345u;
}

/* A dense switch (gcc makes it a jump table in .rodata: the test checks the ELF). */
static DV_NOINLINE uint32_t dv_switch(uint32_t op, uint32_t v) {
  switch (op) {
    case 0: return v + 17u;
    case 1: return v * 5u;
    case 2: return v ^ 0xA5A5A5A5u;
    case 3: return v >> 3;
    case 4: return (v << 2) | 1u;
    case 5: return ~v;
    case 6: return v - 1000u;
    case 7: return (v & 0xFFFFu) * 3u;
    case 8: return v / 7u;
    case 9: return v % 13u;
    case 10: return (v >> 16) | (v << 16);
    case 11: return v + (v >> 1);
    default: return 0xDEADu + op;
  }
}

/* Recursion on the per-thread stack. */
static DV_NOINLINE uint32_t dv_fib(uint32_t n) { return n < 2u ? n : dv_fib(n - 1u) + dv_fib(n - 2u); }

static DV_NOINLINE uint32_t dv_rec_sum(const uint32_t* a, uint32_t n) {
  if (n == 0u) return 0u;
  if (n == 1u) return a[0];
  const uint32_t h = n / 2u;
  return dv_rec_sum(a, h) * 3u + dv_rec_sum(a + h, n - h);
}

static DV_NOINLINE void dv_qsort(uint32_t* a, int32_t lo, int32_t hi) {
  if (lo >= hi) return;
  const uint32_t pivot = a[(lo + hi) / 2];
  int32_t i = lo, j = hi;
  while (i <= j) {
    while (a[i] < pivot) ++i;
    while (a[j] > pivot) --j;
    if (i <= j) {
      const uint32_t t = a[i];
      a[i] = a[j];
      a[j] = t;
      ++i;
      --j;
    }
  }
  dv_qsort(a, lo, j);
  dv_qsort(a, i, hi);
}

static inline uint32_t dv_thread(const uint32_t* in, uint32_t* out) {
  const uint32_t x = in[0], y = in[1], z = in[2], w = in[3];
  out[0] = dv_nested(x);
  out[1] = dv_nested(y);
  out[2] = dv_loops(x);
  out[3] = dv_loops(z);
  if (w % 5u == 0u) DV_EARLY_EXIT(0x1000u + (w & 0xFFu)); /* some threads leave here */
  out[4] = dv_early(x, y);
  out[5] = dv_early(z, w);
  uint32_t v = y;
  for (uint32_t k = 0; k < 8u; ++k) v = dv_switch(((x >> (4u * k)) & 0xFu) % 14u, v);
  out[6] = v;
  out[7] = dv_fib(z % 12u);
  uint32_t arr[12];
  uint32_t s = x ^ w;
  for (uint32_t i = 0; i < 12u; ++i) {
    s = s * 1103515245u + 12345u;
    arr[i] = s >> 8;
  }
  const uint32_t len = 2u + (y % 11u); /* per-thread array length */
  dv_qsort(arr, 0, (int32_t)len - 1);
  out[8] = arr[0];
  out[9] = arr[len - 1u];
  out[10] = dv_rec_sum(arr, len);
  uint32_t h = 0;
  for (uint32_t i = 0; i < 11u; ++i) h = (h ^ out[i]) * 0x01000193u;
  out[11] = h;
  if ((h & 3u) == 0u) return h >> 2; /* an early return of dv_thread */
  return h & 0xFFFFu;
}

#endif
