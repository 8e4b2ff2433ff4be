/* SIMT divergence kernel (docs/simt-tests.md): every thread runs dv_thread() of
 * divergence_funcs.h on its own 4 input words (nested if/else, per-thread loop trip counts, early
 * returns and an early exit, a jump-table switch, recursion on the per-thread stack) and exits with
 * its result. Built with sw/kernels' runtime (crt0.S, weft_kernel.ld, weft_simt.h).
 *
 * Arguments (at arg_ptr): {in, out}: thread t reads in + 16 t, writes out + 64 t. */
#include "weft_simt.h"

#define DV_EARLY_EXIT(code) weft_exit(code)
#include "divergence_funcs.h"

struct dv_args {
  uint32_t in;
  uint32_t out;
};

void weft_main(const void* p) {
  const struct dv_args* a = (const struct dv_args*)p;
  const uint32_t tid = weft_thread_id();
  const uint32_t* in = WEFT_PTR(const uint32_t, a->in) + DV_IN_WORDS * tid;
  uint32_t* out = WEFT_PTR(uint32_t, a->out) + DV_OUT_WORDS * tid;
  weft_exit(dv_thread(in, out));
}
