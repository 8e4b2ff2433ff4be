/* qemu vs core: integer arithmetic as C compiles it (RV32IM): +, -, *, / and % signed and unsigned
 * over a table of edge values (the M instructions' special cases of ISA Table 7.1 through inline
 * assembly, since C leaves them undefined), 64-bit multiply and libgcc's 64-bit division, shifts,
 * comparisons. Prints one line per operand pair; exits with a checksum byte. */
#include "prog_rt.h"

static const int32_t kVals[] = {0, 1, -1, -7, 0x7fffffff, -0x7fffffff - 1, -0x789abcd};
#define N_VALS (int)(sizeof kVals / sizeof kVals[0])

#define RV_OP(name)                                                        \
  static inline uint32_t rv_##name(uint32_t a, uint32_t b) {               \
    uint32_t r;                                                            \
    __asm__ volatile(#name " %0, %1, %2" : "=r"(r) : "r"(a), "r"(b));      \
    return r;                                                              \
  }
RV_OP(div)
RV_OP(divu)
RV_OP(rem)
RV_OP(remu)
RV_OP(mulh)
RV_OP(mulhsu)
RV_OP(mulhu)

static uint32_t mix(uint32_t h, uint32_t v) { return (h ^ v) * 0x01000193u + (h >> 13); }

int main(void) {
  uint32_t h = 0x811c9dc5u;
  for (int i = 0; i < N_VALS; ++i) {
    for (int j = 0; j < N_VALS; ++j) {
      const int32_t a = kVals[i], b = kVals[j];
      const uint32_t ua = (uint32_t)a, ub = (uint32_t)b;
      const uint32_t r[] = {
          ua + ub, ua - ub, ua * ub,
          rv_mulh(ua, ub), rv_mulhsu(ua, ub), rv_mulhu(ua, ub),
          (uint32_t)(((int64_t)a * b) >> 32), (uint32_t)(((uint64_t)ua * ub) >> 32),
          rv_div(ua, ub), rv_divu(ua, ub), rv_rem(ua, ub), rv_remu(ua, ub),
          (b != 0 && !(a == -0x7fffffff - 1 && b == -1)) ? (uint32_t)(a / b) : 0u,
          (b != 0 && !(a == -0x7fffffff - 1 && b == -1)) ? (uint32_t)(a % b) : 0u,
          ub != 0 ? ua / ub : 0u, ub != 0 ? ua % ub : 0u,
          ua << (ub & 31), ua >> (ub & 31), (uint32_t)(a >> (ub & 31)),
          (uint32_t)(a < b) | (uint32_t)(ua < ub) << 1 | (uint32_t)(a == b) << 2};
      for (unsigned k = 0; k < sizeof r / sizeof r[0]; ++k) h = mix(h, r[k]);
      if ((b == 0 && i < 3) || (a == -0x7fffffff - 1 && b == -1)) { /* Table 7.1 cases */
        for (int k = 8; k < 12; ++k) prog_put_hex(r[k], 8);
        prog_putc('\n');
      }
    }
    if (i % 3 == 2) prog_put_hex_line("h", h);
  }
  /* 64-bit division and remainder (libgcc __divdi3, __udivdi3, __moddi3, __umoddi3). */
  int64_t big = (int64_t)kVals[9] * 1000003 - 77;
  uint64_t ubig = (uint64_t)0xfedcba9876543210ull;
  for (int i = 1; i < 5; ++i) {
    const int64_t d = (int64_t)kVals[i + 2] * 977 + i; /* i + 2 < N_VALS */
    big = big / d + big % d * 31;
    ubig = ubig / (uint64_t)(i * 12345 + 1) + ubig % 1000033u;
    prog_put_hex((uint32_t)((uint64_t)big >> 32), 8);
    prog_put_hex((uint32_t)big, 8);
    prog_putc(' ');
    prog_put_hex((uint32_t)(ubig >> 32), 8);
    prog_put_hex((uint32_t)ubig, 8);
    prog_putc('\n');
    h = mix(h, (uint32_t)big ^ (uint32_t)(ubig >> 7));
  }
  prog_put_hex_line("hash", h);
  return (int)(h & 0x7f) + 1; /* 1..128: never 0 */
}
