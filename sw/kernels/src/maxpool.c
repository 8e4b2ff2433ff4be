/* maxpool: 2x2 window, stride 2, int8 NHWC (struct weft_maxpool_args, docs/kernels.md).
 * Work item = one output pixel (b, oy, ox), handed out grid-stride; the thread then runs over all
 * channels of that pixel (contiguous bytes in NHWC), so the two divisions that locate the pixel
 * are paid once per pixel, not per byte. */
#include "weft_kernel_args.h"
#include "weft_simt.h"

static inline int32_t max2(int32_t a, int32_t b) { return a > b ? a : b; }

void weft_main(const void* p) {
  const struct weft_maxpool_args* args = p;
  const int8_t* in = WEFT_PTR(const int8_t, args->in);
  int8_t* out = WEFT_PTR(int8_t, args->out);
  const uint32_t w = args->w, ch = args->channels;
  const uint32_t oh = args->h / 2, ow = w / 2;
  const uint32_t pixels = args->batch * oh * ow, step = weft_num_threads();
  const uint32_t row = w * ch; /* bytes per input row */
  for (uint32_t pix = weft_thread_id(); pix < pixels; pix += step) {
    const uint32_t ox = pix % ow, t = pix / ow; /* t = b * oh + oy */
    const uint32_t oy = t % oh, b = t / oh;
    const int8_t* src = in + ((b * args->h + 2 * oy) * w + 2 * ox) * ch;
    int8_t* dst = out + pix * ch;
    for (uint32_t c = 0; c < ch; ++c) {
      const int32_t m = max2(max2(src[c], src[c + ch]), max2(src[c + row], src[c + row + ch]));
      dst[c] = (int8_t)m;
    }
  }
}
