/* Test programs for the SIMT model, built at build time by Debian's riscv64-unknown-elf-gcc with
 * -march=rv32im -mabi=ilp32 -ffreestanding -nostdlib (see simt.cmake).
 *
 * Default build ("checksum"): a single-threaded program exercising RV32IM as compiled C uses it
 * (signed/unsigned division and remainder, 64-bit multiply and libgcc 64-bit division, byte and
 * halfword arrays, a switch jump table read from .rodata, function pointers, recursion on the
 * stack). It exits with byte PART (0..3) of its 32-bit checksum, because a Linux exit status
 * (qemu-riscv32) keeps only 8 bits. Its own _start sets gp and sp (a stack in .bss), so it runs
 * unchanged under qemu-riscv32 and in the model.
 *
 * -DWEFT_SIMT_KERNEL: a SIMT kernel for the Weft launch ABI (sp from the launch, thread id and
 * argument pointer from CSRs, a barrier): Collatz step counts per thread, then each thread returns
 * its neighbour's count. */
#include <stdint.h>

void* memset(void* d, int c, unsigned n) {
  unsigned char* p = d;
  while (n--) *p++ = (unsigned char)c;
  return d;
}
void* memcpy(void* d, const void* s, unsigned n) {
  unsigned char* p = d;
  const unsigned char* q = s;
  while (n--) *p++ = *q++;
  return d;
}

#ifndef WEFT_SIMT_KERNEL

uint8_t weft_stack[8192] __attribute__((aligned(16)));

__asm__(
    ".section .text.start, \"ax\"\n"
    ".globl _start\n"
    "_start:\n"
    ".option push\n"
    ".option norelax\n"
    "  la gp, __global_pointer$\n"
    ".option pop\n"
    "  la sp, weft_stack + 8192\n"
    "  call main\n"
    "  li a7, 93\n"
    "  ecall\n"
    "1: j 1b\n");

static volatile int32_t sink; /* keeps values alive across optimisation */

static const int32_t ints[] = {7, -7, 13, -13, 0x7fffffff, -0x7fffffff - 1, 1, -1, 100000, -3,
                               65536, 12345678, -87654321, 255, -256, 2};
static int8_t bytes[24] = {-128, -1, 0, 1, 127, 42, -42, 99};
static int16_t halves[12] = {-32768, -1, 0, 1, 32767, 1234, -4321};

static uint32_t mix(uint32_t h, uint32_t v) { return (h ^ v) * 0x01000193u + (h >> 7); }

static uint32_t op_add(uint32_t a, uint32_t b) { return a + b; }
static uint32_t op_xor(uint32_t a, uint32_t b) { return a ^ b; }
static uint32_t op_sra(uint32_t a, uint32_t b) { return (uint32_t)((int32_t)a >> (b & 31)); }
static uint32_t (*const ops[])(uint32_t, uint32_t) = {op_add, op_xor, op_sra};

static int fib(int n) { return n < 2 ? n : fib(n - 1) + fib(n - 2); }

static __attribute__((noinline)) uint32_t classify(int x) {
  switch (x) { /* dense: a jump table in .rodata */
    case 0: return 11;
    case 1: return 23;
    case 2: return 37;
    case 3: return 41;
    case 4: return 59;
    case 5: return 61;
    case 6: return 73;
    case 7: return 89;
    default: return 97;
  }
}

int main(void) {
  uint32_t h = 2166136261u;
  const int n = sizeof ints / sizeof ints[0];
  for (int i = 0; i < n; ++i) {
    for (int j = 0; j < n; ++j) {
      const int32_t a = ints[i], b = ints[j];
      h = mix(h, (uint32_t)(a * b));
      h = mix(h, (uint32_t)(((int64_t)a * b) >> 32));
      h = mix(h, (uint32_t)(((uint64_t)(uint32_t)a * (uint32_t)b) >> 32));
      if (b != 0 && !(a == -0x7fffffff - 1 && b == -1)) {
        h = mix(h, (uint32_t)(a / b));
        h = mix(h, (uint32_t)(a % b));
      }
      if (b != 0) {
        h = mix(h, (uint32_t)a / (uint32_t)b);
        h = mix(h, (uint32_t)a % (uint32_t)b);
      }
      h = mix(h, (uint32_t)(a < b) + 2 * ((uint32_t)a < (uint32_t)b));
      h = mix(h, ops[(i + j) % 3]((uint32_t)a, (uint32_t)b));
    }
  }
  /* 64-bit division goes through libgcc (__udivdi3 / __divdi3). */
  int64_t big = (int64_t)ints[11] * 1000003;
  h = mix(h, (uint32_t)(big / 977));
  h = mix(h, (uint32_t)((uint64_t)big % 1000033u));
  /* Byte and halfword arrays: sign/zero extension, stores of narrow types. */
  for (int i = 8; i < 24; ++i) bytes[i] = (int8_t)(bytes[i - 8] * 3 + i);
  for (int i = 7; i < 12; ++i) halves[i] = (int16_t)(halves[i - 7] * 5 - i);
  for (int i = 0; i < 24; ++i) h = mix(h, (uint32_t)(int32_t)bytes[i] + ((uint8_t)bytes[i] << 8));
  for (int i = 0; i < 12; ++i) {
    h = mix(h, (uint32_t)(int32_t)halves[i] ^ ((uint32_t)(uint16_t)halves[i] << 16));
  }
  /* Bubble sort of the bytes (data-dependent branches). */
  for (int i = 0; i < 24; ++i) {
    for (int j = 0; j + 1 < 24 - i; ++j) {
      if (bytes[j] > bytes[j + 1]) {
        const int8_t t = bytes[j];
        bytes[j] = bytes[j + 1];
        bytes[j + 1] = t;
      }
    }
  }
  for (int i = 0; i < 24; ++i) h = mix(h, (uint32_t)bytes[i]);
  for (int i = -2; i < 11; ++i) h = mix(h, classify(i));
  h = mix(h, (uint32_t)fib(15));
  sink = (int32_t)h;
  return (int)((h >> (8 * PART)) & 0xff);
}

#else /* WEFT_SIMT_KERNEL */

/* Weft CSRs, read with .insn so that plain -march=rv32im assembles them (csrr needs _zicsr). The
 * immediate is the CSR number as a signed 12-bit value: 0xCC0 - 4096 = -832. */
#define WEFT_CSR_READ(num)                                                            \
  ({                                                                                  \
    uint32_t v_;                                                                      \
    __asm__(".insn i 0x73, 2, %0, x0, %1" : "=r"(v_) : "i"((int)(num)-4096)); \
    v_;                                                                               \
  })
#define WEFT_BARRIER() __asm__ volatile(".insn i 0x73, 1, x0, x0, %0" ::"i"(0x8C0 - 4096) : "memory")

__asm__(
    ".section .text.start, \"ax\"\n"
    ".globl _start\n"
    "_start:\n"
    ".option push\n"
    ".option norelax\n"
    "  la gp, __global_pointer$\n"
    ".option pop\n"
    "  call main\n"
    "  li a7, 93\n"
    "  ecall\n");

struct Args {
  uint32_t first;  /* thread t starts from first + t */
  uint32_t* steps; /* steps[t] */
};

int main(void) {
  const uint32_t tid = WEFT_CSR_READ(0xCC0);
  const uint32_t nthreads = WEFT_CSR_READ(0xCC4);
  const struct Args* args = (const struct Args*)WEFT_CSR_READ(0xCC5);
  uint32_t n = args->first + tid, steps = 0;
  while (n != 1) {
    n = (n & 1) ? 3 * n + 1 : n / 2;
    ++steps;
  }
  args->steps[tid] = steps;
  WEFT_BARRIER();
  return (int)args->steps[(tid + 1) % nthreads];
}

#endif
