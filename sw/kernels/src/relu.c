/* relu (int8, quantized): out[i] = max(in[i], zero_point) (struct weft_relu_args,
 * docs/kernels.md). Grid-stride loop over bytes. */
#include "weft_kernel_args.h"
#include "weft_simt.h"

void weft_main(const void* p) {
  const struct weft_relu_args* args = p;
  const int8_t* in = WEFT_PTR(const int8_t, args->in);
  int8_t* out = WEFT_PTR(int8_t, args->out);
  const int32_t zp = args->zero_point;
  const uint32_t n = args->n, step = weft_num_threads();
  for (uint32_t i = weft_thread_id(); i < n; i += step) {
    const int32_t v = in[i];
    out[i] = (int8_t)(v < zp ? zp : v);
  }
}
