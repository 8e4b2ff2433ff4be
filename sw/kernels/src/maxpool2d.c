/* maxpool2d: ONNX MaxPool, uint8 or int8 NCHW, general kernel / strides / pads / dilations
 * (struct weft_maxpool2d_args, docs/kernels.md).
 * Work item = one output element, grid-stride (lanes of a warp write neighbouring bytes of an
 * output row). Its coordinates (plane = n * C + c, oy, ox) are tracked incrementally: the step T
 * is split once into plane / row / column steps, so there is no division per element.
 * Signedness: bytes are loaded unsigned and XORed with 0x80 for int8, which maps int8 order onto
 * unsigned order; the maximum is taken unsigned and XORed back. The running maximum starts at 0
 * (the type's lowest value after the mapping), and positions outside the input are skipped with
 * one unsigned compare (a negative coordinate is a large unsigned one), so padding never wins. */
#include "weft_kernel_args.h"
#include "weft_simt.h"

void weft_main(const void* p) {
  const struct weft_maxpool2d_args* a = p;
  const uint8_t* in = WEFT_PTR(const uint8_t, a->in);
  uint8_t* out = WEFT_PTR(uint8_t, a->out);
  const uint32_t h = a->h, w = a->w, kh = a->kh, kw = a->kw;
  const uint32_t sh = a->stride_h, sw = a->stride_w, dh = a->dilation_h, dw = a->dilation_w;
  const uint32_t pt = a->pad_top, pl = a->pad_left;
  const uint32_t oh = a->out_h, ow = a->out_w, hw = h * w;
  const uint32_t bias = a->is_signed ? 0x80u : 0u;
  const uint32_t total = a->batch * a->channels * oh * ow;
  if (total == 0) return;
  const uint32_t step = weft_num_threads(), tid = weft_thread_id();
  /* step = (step_p * oh + step_y) * ow + step_x */
  const uint32_t step_x = step % ow, step_r = step / ow;
  const uint32_t step_y = step_r % oh, step_p = step_r / oh;
  uint32_t ox = tid % ow, r = tid / ow;
  uint32_t oy = r % oh, plane = r / oh;
  for (uint32_t i = tid; i < total; i += step) {
    const uint8_t* src = in + plane * hw;
    const int32_t x0 = (int32_t)(ox * sw) - (int32_t)pl;
    int32_t y = (int32_t)(oy * sh) - (int32_t)pt;
    uint32_t m = 0;
    for (uint32_t ky = 0; ky < kh; ++ky, y += (int32_t)dh) {
      if ((uint32_t)y >= h) continue; /* above or below the input */
      const uint8_t* row = src + (uint32_t)y * w;
      int32_t x = x0;
      for (uint32_t kx = 0; kx < kw; ++kx, x += (int32_t)dw) {
        if ((uint32_t)x < w) {
          const uint32_t v = row[x] ^ bias;
          m = v > m ? v : m;
        }
      }
    }
    out[i] = (uint8_t)(m ^ bias);
    ox += step_x;
    oy += step_y;
    plane += step_p;
    if (ox >= ow) ox -= ow, oy += 1;
    if (oy >= oh) oy -= oh, plane += 1;
  }
}
