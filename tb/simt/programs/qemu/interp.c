/* qemu vs core: a bytecode stack machine whose dispatch is a dense switch (compiled to a jump
 * table in .rodata), plus a table of function pointers (indirect calls). The bytecode computes
 * primes, a Fibonacci series and a factorial modulo a prime; the result stack is printed.
 * Exits with the top of the stack modulo 251. */
#include "prog_rt.h"

enum { PUSH, DUP, SWAP, DROP, ADD, SUB, MUL, DIVMOD, JZ, JMP, OVER, PRINT, CALL, LT, HALT, ROT };

static int32_t f_sq(int32_t x) { return x * x; }
static int32_t f_neg(int32_t x) { return -x; }
static int32_t f_inc(int32_t x) { return x + 1; }
static int32_t f_popcount(int32_t x) {
  int32_t n = 0;
  for (uint32_t u = (uint32_t)x; u; u &= u - 1) ++n;
  return n;
}
static int32_t (*const kFuncs[])(int32_t) = {f_sq, f_neg, f_inc, f_popcount};

static int32_t run(const int32_t* code, int32_t* stack) {
  int sp = 0, pc = 0;
  for (int steps = 0; steps < 100000; ++steps) {
    const int32_t op = code[pc++];
    switch (op) {
      case PUSH: stack[sp++] = code[pc++]; break;
      case DUP: stack[sp] = stack[sp - 1]; ++sp; break;
      case SWAP: { const int32_t t = stack[sp - 1]; stack[sp - 1] = stack[sp - 2]; stack[sp - 2] = t; break; }
      case DROP: --sp; break;
      case ADD: --sp; stack[sp - 1] += stack[sp]; break;
      case SUB: --sp; stack[sp - 1] -= stack[sp]; break;
      case MUL: --sp; stack[sp - 1] *= stack[sp]; break;
      case DIVMOD: { const int32_t b = stack[sp - 1], a = stack[sp - 2]; stack[sp - 2] = a / b; stack[sp - 1] = a % b; break; }
      case JZ: { const int32_t t = code[pc++]; if (stack[--sp] == 0) pc = t; break; }
      case JMP: pc = code[pc]; break;
      case OVER: stack[sp] = stack[sp - 2]; ++sp; break;
      case PRINT: prog_put_dec(stack[--sp]); prog_putc(' '); break;
      case CALL: stack[sp - 1] = kFuncs[code[pc++]](stack[sp - 1]); break;
      case LT: --sp; stack[sp - 1] = stack[sp - 1] < stack[sp]; break;
      case ROT: { const int32_t t = stack[sp - 3]; stack[sp - 3] = stack[sp - 2]; stack[sp - 2] = stack[sp - 1]; stack[sp - 1] = t; break; }
      case HALT: return sp;
      default: prog_puts("bad op\n"); return -1;
    }
  }
  return -2;
}

int main(void) {
  /* Fibonacci: stack a b n; prints 12 numbers (indices in the comments are jump targets). */
  const int32_t fib[] = {
      PUSH, 0, PUSH, 1, PUSH, 12, /* 0: a b n */
      DUP, JZ, 22,                /* 6: while n != 0 */
      ROT, ROT,                   /* 9: n a b */
      OVER, PRINT,                /* 11: print a */
      SWAP, OVER, ADD,            /* 13: n b a+b */
      ROT, PUSH, 1, SUB,          /* 16: b a+b n-1 */
      JMP, 6,                     /* 20 */
      DROP, DROP, HALT};          /* 22: a */
  /* Trial division: prints the primes below 30, then popcount and square of 1234. */
  const int32_t primes[] = {
      PUSH, 2,                    /* 0: n */
      DUP, PUSH, 30, LT, JZ, 40,  /* 2: while n < 30 */
      PUSH, 2,                    /* 8: n d */
      OVER, OVER, DUP, MUL, LT,   /* 10: n d (n < d*d) */
      JZ, 22,                     /* 15: n >= d*d: try d */
      DROP, DUP, PRINT, JMP, 35,  /* 17: prime: print n */
      OVER, OVER, DIVMOD, SWAP,   /* 22: n d r q */
      DROP, JZ, 34,               /* 26: n d; r == 0: composite */
      PUSH, 1, ADD, JMP, 10,      /* 29: d + 1 */
      DROP,                       /* 34: n */
      PUSH, 1, ADD, JMP, 2,       /* 35: n + 1 */
      DROP, PUSH, 1234, DUP,      /* 40 */
      CALL, 3, PRINT, DUP, CALL, 0, PRINT, CALL, 1, CALL, 2, HALT};
  int32_t stack[32];
  prog_puts("fib: ");
  const int32_t r1 = run(fib, stack);
  prog_putc('\n');
  prog_puts("primes: ");
  const int32_t r2 = run(primes, stack);
  prog_putc('\n');
  prog_puts("depth ");
  prog_put_dec(r1);
  prog_putc(' ');
  prog_put_dec(r2);
  prog_puts(" top ");
  prog_put_dec(stack[r2 > 0 ? r2 - 1 : 0]);
  prog_putc('\n');
  /* factorial of 1..15 modulo 1000003 through the function-pointer table */
  int32_t f = 1;
  for (int32_t i = 1; i <= 15; ++i) {
    f = (int32_t)(((int64_t)f * kFuncs[2](i - 1)) % 1000003);
    prog_put_dec(f);
    prog_putc(i == 15 ? '\n' : ',');
  }
  return (int)((uint32_t)(stack[r2 > 0 ? r2 - 1 : 0] + f) % 251u);
}
