/* maxpool2d: ONNX MaxPool, uint8 or int8 NCHW, general kernel / strides / pads / dilations
 * (struct weft_maxpool2d_args, docs/kernels.md).
 * Work item = one output element, grid-stride (lanes of a warp write neighbouring bytes of an
 * output row). Its coordinates (plane = n * C + c, oy, ox) are tracked incrementally: the step T
 * is split once into plane / row / column steps, so there is no division per element.
 * Per element the window's taps inside the input are found once per axis (taps_inside: short
 * loops that only run at the borders), so the inner loop reads only input bytes: padding is
 * never compared, and a window with no tap inside gives the type's lowest value. The int8 and
 * uint8 loops are separate copies (lb / signed compare, lbu / unsigned compare); the choice is
 * the same for every lane. */
#include "weft_kernel_args.h"
#include "weft_pool.h"
#include "weft_simt.h"


static inline __attribute__((always_inline)) void pool(const struct weft_maxpool2d_args* a,
                                                       const int is_signed) {
  const uint8_t* in = WEFT_PTR(const uint8_t, a->in);
  uint8_t* out = WEFT_PTR(uint8_t, a->out);
  const uint32_t h = a->h, w = a->w, kh = a->kh, kw = a->kw;
  const uint32_t sh = a->stride_h, sw = a->stride_w, dw = a->dilation_w;
  const uint32_t row_step = a->dilation_h * w;
  const uint32_t pt = a->pad_top, pl = a->pad_left;
  const uint32_t oh = a->out_h, ow = a->out_w, hw = h * w;
  const uint32_t total = a->batch * a->channels * oh * ow;
  if (total == 0) return;
  const uint32_t step = weft_num_threads(), tid = weft_thread_id();
  /* step = (step_p * oh + step_y) * ow + step_x */
  const uint32_t step_x = step % ow, step_r = step / ow;
  const uint32_t step_y = step_r % oh, step_p = step_r / oh;
  uint32_t ox = tid % ow, r = tid / ow;
  uint32_t oy = r % oh, plane = r / oh;
  for (uint32_t i = tid; i < total; i += step) {
    int32_t y, x;
    const uint32_t ny = taps_inside((int32_t)(oy * sh) - (int32_t)pt, kh, a->dilation_h, h, &y);
    const uint32_t nx = taps_inside((int32_t)(ox * sw) - (int32_t)pl, kw, dw, w, &x);
    const uint8_t* rowp = in + plane * hw + (uint32_t)y * w + (uint32_t)x;
    const uint32_t span = nx * dw;
    if (is_signed) {
      int32_t m = -128;
      for (uint32_t ky = 0; ky < ny; ++ky, rowp += row_step) {
        for (const int8_t *q = (const int8_t*)rowp, *e = q + span; q != e; q += dw) {
          const int32_t v = *q;
          m = v > m ? v : m;
        }
      }
      out[i] = (uint8_t)m;
    } else {
      uint32_t m = 0;
      for (uint32_t ky = 0; ky < ny; ++ky, rowp += row_step) {
        for (const uint8_t *q = rowp, *e = q + span; q != e; q += dw) {
          const uint32_t v = *q;
          m = v > m ? v : m;
        }
      }
      out[i] = (uint8_t)m;
    }
    ox += step_x;
    oy += step_y;
    plane += step_p;
    if (ox >= ow) ox -= ow, oy += 1;
    if (oy >= oh) oy -= oh, plane += 1;
  }
}

/* The common 2x2 / stride 2 pool with every window inside the input (no padding, dilation 1,
 * 2*out <= in): no window arithmetic, four loads and three maxima per output element. */
static inline __attribute__((always_inline)) void pool2x2(const struct weft_maxpool2d_args* a,
                                                          const int is_signed) {
  const uint8_t* in = WEFT_PTR(const uint8_t, a->in);
  uint8_t* out = WEFT_PTR(uint8_t, a->out);
  const uint32_t w = a->w, oh = a->out_h, ow = a->out_w, hw = a->h * w;
  const uint32_t total = a->batch * a->channels * oh * ow;
  if (total == 0) return;
  const uint32_t step = weft_num_threads(), tid = weft_thread_id();
  const uint32_t step_x = step % ow, step_r = step / ow;
  const uint32_t step_y = step_r % oh, step_p = step_r / oh;
  uint32_t ox = tid % ow, r = tid / ow;
  uint32_t oy = r % oh, plane = r / oh;
  for (uint32_t i = tid; i < total; i += step) {
    const uint8_t* q = in + plane * hw + 2 * oy * w + 2 * ox;
    if (is_signed) {
      const int32_t m0 = (int8_t)q[0] > (int8_t)q[1] ? (int8_t)q[0] : (int8_t)q[1];
      const int32_t m1 = (int8_t)q[w] > (int8_t)q[w + 1] ? (int8_t)q[w] : (int8_t)q[w + 1];
      out[i] = (uint8_t)(m0 > m1 ? m0 : m1);
    } else {
      const uint32_t m0 = q[0] > q[1] ? q[0] : q[1];
      const uint32_t m1 = q[w] > q[w + 1] ? q[w] : q[w + 1];
      out[i] = (uint8_t)(m0 > m1 ? m0 : m1);
    }
    ox += step_x;
    oy += step_y;
    plane += step_p;
    if (ox >= ow) ox -= ow, oy += 1;
    if (oy >= oh) oy -= oh, plane += 1;
  }
}

void weft_main(const void* p) {
  const struct weft_maxpool2d_args* a = p;
  const int simple = a->kh == 2 && a->kw == 2 && a->stride_h == 2 && a->stride_w == 2 &&
                     a->pad_top == 0 && a->pad_left == 0 && a->dilation_h == 1 &&
                     a->dilation_w == 1 && 2 * a->out_h <= a->h && 2 * a->out_w <= a->w;
  if (simple) {
    if (a->is_signed) pool2x2(a, 1);
    else pool2x2(a, 0);
  } else if (a->is_signed) {
    pool(a, 1);
  } else {
    pool(a, 0);
  }
}
