/* requant: int32 -> int8 per channel with TFLite double rounding (struct weft_requant_args,
 * docs/kernels.md): v = in + bias[c] (wraps), r = MultiplyByQuantizedMultiplier(v, multiplier[c],
 * shift[c]), out = clamp(sat32(r + zero_point), act_min, act_max); the same output stage as the
 * tensor unit (weft::golden::postprocess, RequantMode::kTfliteDouble).
 *
 * Grid-stride loop over elements. The channel c = i % channels is tracked incrementally: the
 * step T (number of threads) is split once into whole rows and a channel step T % channels <
 * channels, so each iteration adds it and wraps with one compare instead of a division. */
#include "weft_fixedpoint.h"
#include "weft_kernel_args.h"
#include "weft_simt.h"

void weft_main(const void* p) {
  const struct weft_requant_args* args = p;
  const int32_t* in = WEFT_PTR(const int32_t, args->in);
  int8_t* out = WEFT_PTR(int8_t, args->out);
  const int32_t* bias = WEFT_PTR(const int32_t, args->bias);
  const int32_t* multiplier = WEFT_PTR(const int32_t, args->multiplier);
  const int32_t* shift = WEFT_PTR(const int32_t, args->shift);
  const int32_t zp = args->zero_point, lo = args->act_min, hi = args->act_max;
  const uint32_t n = args->n, channels = args->channels, step = weft_num_threads();
  const uint32_t tid = weft_thread_id();
  const uint32_t c_step = step % channels;
  uint32_t c = tid % channels;
  for (uint32_t i = tid; i < n; i += step) {
    const int32_t v = (int32_t)((uint32_t)in[i] + (uint32_t)bias[c]);
    const int32_t r = weft_multiply_by_quantized_multiplier(v, multiplier[c], shift[c]);
    int32_t s;
    if (__builtin_add_overflow(r, zp, &s)) s = zp > 0 ? WEFT_INT32_MAX : WEFT_INT32_MIN;
    out[i] = (int8_t)(s < lo ? lo : s > hi ? hi : s);
    c += c_step;
    if (c >= channels) c -= channels;
  }
}
