/* saxpy (integer): y[i] = alpha * x[i] + y[i] over int32, wrapping (struct weft_saxpy_args,
 * docs/kernels.md). Grid-stride loop over i. */
#include "weft_kernel_args.h"
#include "weft_simt.h"

void weft_main(const void* p) {
  const struct weft_saxpy_args* args = p;
  const uint32_t* x = WEFT_PTR(const uint32_t, args->x);
  uint32_t* y = WEFT_PTR(uint32_t, args->y);
  const uint32_t alpha = (uint32_t)args->alpha;
  const uint32_t n = args->n, step = weft_num_threads();
  for (uint32_t i = weft_thread_id(); i < n; i += step) y[i] = alpha * x[i] + y[i];
}
