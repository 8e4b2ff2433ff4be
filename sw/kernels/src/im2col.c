/* im2col: int8 NHWC -> [batch*out_h*out_w][kh*kw*channels] with a padding value
 * (struct weft_im2col_args, docs/kernels.md; the layout of weft::golden::im2col).
 * Work item = one output row (b, oy, ox), handed out grid-stride; the thread writes the row's
 * kh*kw*channels bytes, copying `channels` contiguous input bytes per (ky, kx) or filling them
 * with pad_value when the position is outside the input. */
#include "weft_kernel_args.h"
#include "weft_simt.h"

void weft_main(const void* p) {
  const struct weft_im2col_args* args = p;
  const int8_t* in = WEFT_PTR(const int8_t, args->in);
  int8_t* out = WEFT_PTR(int8_t, args->out);
  const int32_t h = (int32_t)args->h, w = (int32_t)args->w;
  const uint32_t ch = args->channels, kh = args->kh, kw = args->kw;
  const uint32_t oh = args->out_h, ow = args->out_w;
  const uint32_t rows = args->batch * oh * ow, cols = kh * kw * ch, step = weft_num_threads();
  const int8_t pad = (int8_t)args->pad_value;
  for (uint32_t row = weft_thread_id(); row < rows; row += step) {
    const uint32_t ox = row % ow, t = row / ow; /* t = b * oh + oy */
    const uint32_t oy = t % oh, b = t / oh;
    const int32_t iy0 = (int32_t)(oy * args->stride_h) - (int32_t)args->pad_top;
    const int32_t ix0 = (int32_t)(ox * args->stride_w) - (int32_t)args->pad_left;
    int8_t* dst = out + row * cols;
    for (uint32_t ky = 0; ky < kh; ++ky) {
      const int32_t iy = iy0 + (int32_t)ky;
      for (uint32_t kx = 0; kx < kw; ++kx) {
        const int32_t ix = ix0 + (int32_t)kx;
        if (iy < 0 || iy >= h || ix < 0 || ix >= w) {
          for (uint32_t c = 0; c < ch; ++c) dst[c] = pad;
        } else {
          const int8_t* src = in + (((int32_t)b * h + iy) * w + ix) * (int32_t)ch;
          for (uint32_t c = 0; c < ch; ++c) dst[c] = src[c];
        }
        dst += ch;
      }
    }
  }
}
