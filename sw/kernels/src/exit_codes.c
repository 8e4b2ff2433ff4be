/* exit_codes: a test kernel for per-thread exit codes (struct weft_exit_codes_args,
 * docs/kernels.md). Thread t exits with t * mul + add: t % 3 == 0 through weft_exit() from a
 * nested (not inlined) call, t % 3 == 1 by returning from weft_main_code, t % 3 == 2 by returning
 * after a barrier (which does not wait for the threads that have exited). */
#include "weft_kernel_args.h"
#include "weft_simt.h"

static __attribute__((noinline)) void leave_early(uint32_t code) {
  if (code != 0xFFFFFFFFu) weft_exit(code);
}

int weft_main_code(const void* p) {
  const struct weft_exit_codes_args* args = p;
  const uint32_t t = weft_thread_id(), code = t * args->mul + args->add;
  if (t % 3 == 0) leave_early(code);
  if (t % 3 == 1) return (int)code;
  weft_barrier();
  return (int)code;
}
