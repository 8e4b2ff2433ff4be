/* qavgpool: QuantizeLinear(AveragePool(DequantizeLinear(x))) on a uint8 / int8 NCHW tensor (2-D,
 * any kernel / strides / pads / dilations, count_include_pad; GlobalAveragePool as the whole-plane
 * window), bit for bit the model runtime's host code (struct weft_qavgpool_args, weft_qfloat.h,
 * docs/kernels.md): each tap dequantized to float32, the window summed in double (libgcc
 * soft-double: __extendsfdf2, __adddf3) in window order, mean = (float)(sum / (double)count)
 * (__floatunsidf, __divdf3, __truncdfsf2), then QuantizeLinear in float32.
 * Work item = one output element, grid-stride, (plane, oy, ox) tracked incrementally as in
 * maxpool2d; the taps inside the input (and, for count_include_pad, inside the padded input) are
 * found once per axis per element, so the inner loop reads only input bytes. */
#include "weft_kernel_args.h"
#include "weft_qfloat.h"
#include "weft_simt.h"

/* Taps k in [0, taps) at coordinate start + k * step: the first tap inside [0, size) is
 * returned in *first, the return value is how many consecutive taps from it are inside. */
static inline uint32_t taps_inside(int32_t start, uint32_t taps, uint32_t step, uint32_t size,
                                   int32_t* first) {
  uint32_t lo = 0, hi = taps;
  int32_t s = start, e = start + (int32_t)((taps - 1) * step);
  while (lo < hi && s < 0) s += (int32_t)step, ++lo;
  while (hi > lo && e >= (int32_t)size) e -= (int32_t)step, --hi;
  *first = s;
  return hi - lo;
}

/* One output element (plane, oy, ox). Not inlined: the values live across the soft-float calls
 * are then only this function's, which keeps the deepest stack (crt0 16 + weft_main + this +
 * __divdf3 48 bytes) well inside the tests' 256 bytes per thread. */
static __attribute__((noinline)) uint8_t pool_one(const struct weft_qavgpool_args* a,
                                                  uint32_t plane, uint32_t oy, uint32_t ox) {
  const uint32_t h = a->h, w = a->w, kh = a->kh, kw = a->kw;
  const uint32_t dh = a->dilation_h, dw = a->dilation_w;
  const uint32_t pt = a->pad_top, pl = a->pad_left;
  const int32_t y0 = (int32_t)(oy * a->stride_h) - (int32_t)pt;
  const int32_t x0 = (int32_t)(ox * a->stride_w) - (int32_t)pl;
  int32_t y, x;
  const uint32_t ny = taps_inside(y0, kh, dh, h, &y);
  const uint32_t nx = taps_inside(x0, kw, dw, w, &x);
  uint32_t count = ny * nx;
  if (a->count_include_pad) {
    int32_t unused;
    count = taps_inside(y0 + (int32_t)pt, kh, dh, h + pt + a->pad_bottom, &unused) *
            taps_inside(x0 + (int32_t)pl, kw, dw, w + pl + a->pad_right, &unused);
  }
  const float sx = weft_f32_from_bits(a->x_scale);
  const int32_t zx = a->x_zero_point, mx = a->flags & WEFT_Q_A_INT8 ? 0x80 : 0;
  double sum = 0;
  if (ny && nx) {
    const uint8_t* rowp = WEFT_PTR(const uint8_t, a->in) + plane * h * w + (uint32_t)y * w +
                          (uint32_t)x;
    const uint32_t span = nx * dw, row_step = dh * w;
    for (uint32_t ky = 0; ky < ny; ++ky, rowp += row_step) {
      for (const uint8_t *q = rowp, *e = q + span; q != e; q += dw) {
        sum += (double)weft_dequantize((int32_t)(*q ^ mx) - mx, zx, sx);
      }
    }
  }
  const float mean = count ? (float)(sum / (double)count) : 0.0f;
  const int32_t y_s8 = (a->flags & WEFT_Q_Y_INT8) != 0;
  return (uint8_t)weft_quantize(mean, weft_f32_from_bits(a->y_scale), a->y_zero_point,
                                y_s8 ? -128 : 0, y_s8 ? 127 : 255);
}

void weft_main(const void* p) {
  const struct weft_qavgpool_args* a = p;
  uint8_t* out = WEFT_PTR(uint8_t, a->out);
  const uint32_t oh = a->out_h, ow = a->out_w;
  const uint32_t total = a->batch * a->channels * oh * ow;
  if (total == 0) return;
  const uint32_t step = weft_num_threads(), tid = weft_thread_id();
  /* step = (step_p * oh + step_y) * ow + step_x */
  const uint32_t step_x = step % ow, step_r = step / ow;
  const uint32_t step_y = step_r % oh, step_p = step_r / oh;
  uint32_t ox = tid % ow, r = tid / ow;
  uint32_t oy = r % oh, plane = r / oh;
  for (uint32_t i = tid; i < total; i += step) {
    out[i] = pool_one(a, plane, oy, ox);
    ox += step_x;
    oy += step_y;
    plane += step_p;
    if (ox >= ow) ox -= ow, oy += 1;
    if (oy >= oh) oy -= oh, plane += 1;
  }
}
