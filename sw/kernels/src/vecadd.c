/* vecadd: c[i] = a[i] + b[i] over int32, wrapping (struct weft_vecadd_args, docs/kernels.md).
 * Grid-stride loop: thread t handles i = t, t + T, t + 2T, ... (T = number of threads), so the
 * lanes of a warp touch consecutive words in each step. */
#include "weft_kernel_args.h"
#include "weft_simt.h"

void weft_main(const void* p) {
  const struct weft_vecadd_args* args = p;
  const uint32_t* a = WEFT_PTR(const uint32_t, args->a);
  const uint32_t* b = WEFT_PTR(const uint32_t, args->b);
  uint32_t* c = WEFT_PTR(uint32_t, args->c);
  const uint32_t n = args->n, step = weft_num_threads();
  for (uint32_t i = weft_thread_id(); i < n; i += step) c[i] = a[i] + b[i];
}
