/* clamp8: out[i] = min(max(in[i], lo), hi) on uint8 or int8 bytes (struct weft_clamp8_args,
 * docs/kernels.md). Grid-stride over bytes. A byte u is read unsigned and sign-extended for int8
 * as (u ^ 0x80) - 0x80 (bias 0 for uint8), so both types share one branch-free loop. */
#include "weft_kernel_args.h"
#include "weft_simt.h"

void weft_main(const void* p) {
  const struct weft_clamp8_args* a = p;
  const uint8_t* in = WEFT_PTR(const uint8_t, a->in);
  uint8_t* out = WEFT_PTR(uint8_t, a->out);
  const int32_t lo = a->lo, hi = a->hi, bias = a->is_signed ? 0x80 : 0;
  const uint32_t n = a->n, step = weft_num_threads();
  for (uint32_t i = weft_thread_id(); i < n; i += step) {
    int32_t v = (int32_t)(in[i] ^ (uint32_t)bias) - bias;
    v = v < lo ? lo : v;
    v = v > hi ? hi : v;
    out[i] = (uint8_t)v;
  }
}
