/* lut: out[i] = table[in[i] % 16] + launches (struct weft_lut_args, docs/kernels.md). An example
 * of writable globals: `table` is initialised data (.data), `launches` zero-initialised (.bss).
 * Both live in the data memory after the code, are shared by every thread of a launch and keep
 * their values across launches until the image is loaded again (or Simt::reload_data()). Threads
 * only read them before the barrier; thread 0 alone writes them after it (no race). */
#include "weft_kernel_args.h"
#include "weft_simt.h"

static int32_t table[16] = {3, -1, 4, 1, -5, 9, 2, -6, 5, 3, -5, 8, 9, -7, 9, 3000000};
static uint32_t launches; /* earlier launches since the image was loaded */

void weft_main(const void* p) {
  const struct weft_lut_args* args = p;
  const uint32_t* in = WEFT_PTR(const uint32_t, args->in);
  int32_t* out = WEFT_PTR(int32_t, args->out);
  const uint32_t n = args->n, step = weft_num_threads(), t = weft_thread_id();
  const uint32_t seen = launches;
  for (uint32_t i = t; i < n; i += step) out[i] = table[in[i] % 16] + (int32_t)seen;
  weft_barrier(); /* every thread has read table and launches */
  if (t == 0) {
    table[seen % 16] += 1000;
    launches = seen + 1;
  }
}
