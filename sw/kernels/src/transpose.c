/* transpose: out[c][r] = in[r][c], int8 (struct weft_transpose_args, docs/kernels.md).
 * Grid-stride over output elements j = c * rows + r (consecutive threads write consecutive bytes
 * of an output row). The coordinates (c, r) of j are tracked incrementally: the step T is split
 * once into T / rows output rows and T % rows elements, so no division per element. */
#include "weft_kernel_args.h"
#include "weft_simt.h"

void weft_main(const void* p) {
  const struct weft_transpose_args* args = p;
  const int8_t* in = WEFT_PTR(const int8_t, args->in);
  int8_t* out = WEFT_PTR(int8_t, args->out);
  const uint32_t rows = args->rows, cols = args->cols;
  const uint32_t n = rows * cols, step = weft_num_threads(), tid = weft_thread_id();
  const uint32_t step_c = step / rows, step_r = step % rows;
  uint32_t c = tid / rows, r = tid % rows;
  for (uint32_t j = tid; j < n; j += step) {
    out[j] = in[r * cols + c];
    r += step_r;
    c += step_c;
    if (r >= rows) r -= rows, c += 1;
  }
}
