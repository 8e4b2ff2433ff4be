/* qavgpool: QuantizeLinear(AveragePool(DequantizeLinear(x))) on a uint8 / int8 NCHW tensor (2-D,
 * any kernel / strides / pads / dilations, count_include_pad; GlobalAveragePool as the whole-plane
 * window), bit for bit the model runtime's host code (struct weft_qavgpool_args, weft_qfloat.h,
 * docs/kernels.md): each tap dequantized to float32, the window summed in double in window order,
 * mean = (float)(sum / (double)count), then QuantizeLinear in float32.
 *
 * The double sum is exact (docs/kernels.md, "qavgpool's exact integer sum"): every dequantized
 * value f = f32(k * scale), 1 <= |k| <= 383, is a multiple of u = 2^(max(E_scale, 1) - 150) (the
 * ulp of the scale; f's own ulp is at least that since |f| >= scale) and below 2^33 u, so any sum
 * of fewer than 2^20 of them is an integer multiple of u below 2^53 u: every partial double sum
 * is representable, every addition exact. The kernel therefore sums int64 multiples of u from a
 * table of the 256 byte values (.bss, filled cooperatively by the launch's threads and published
 * by a barrier), converts the sum to double (exact, __floatdidf) and scales it by u (an exponent
 * add), which is the host's double sum bit for bit; then (__floatunsidf, __divdf3, __truncdfsf2)
 * and QuantizeLinear as the host. If some dequantized value is not finite (a scale above
 * FLT_MAX / 383), the sum is taken in double tap by tap instead (__extendsfdf2, __adddf3), which
 * is the host's computation itself.
 * Work item = one output element, grid-stride, (plane, oy, ox) tracked incrementally as in
 * maxpool2d; the taps inside the input (and, for count_include_pad, inside the padded input) are
 * found once per axis per element, so the inner loop reads only input bytes. */
#include "weft_kernel_args.h"
#include "weft_qfloat.h"
#include "weft_pool.h"
#include "weft_simt.h"

/* DequantizeLinear of every byte value b (as x's type) in units of u: written each launch. */
static int64_t dq_units[256];


/* max(biased exponent, 1) of a finite float: its ulp is 2^(that - 150). */
static inline int32_t exp1(uint32_t bits) {
  const int32_t e = (int32_t)((bits >> 23) & 0xff);
  return e ? e : 1;
}

/* A finite float f, a multiple of 2^(e1 - 150) (e1 = exp1 of the scale), as that integer. */
static int64_t to_units(float f, int32_t e1) {
  const uint32_t b = weft_f32_bits(f), frac = b & 0x7fffffu;
  const uint32_t m = (b & 0x7f800000u) ? frac | 0x800000u : frac;
  if (m == 0) return 0;
  const int64_t v = (int64_t)m << (exp1(b) - e1); /* shift 0..9 for f = f32(k * scale) */
  return b >> 31 ? -v : v;
}

/* One output element (plane, oy, ox). Not inlined: the values live across the soft-float calls
 * are then only this function's, which keeps the deepest stack (crt0 16 + weft_main + this +
 * __divdf3 48 bytes) well inside the tests' 256 bytes per thread. */
static __attribute__((noinline)) uint8_t pool_one(const struct weft_qavgpool_args* a,
                                                  uint32_t plane, uint32_t oy, uint32_t ox,
                                                  int32_t e1, int32_t exact) {
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
  double sum = 0;
  if (ny && nx) {
    const uint8_t* rowp = WEFT_PTR(const uint8_t, a->in) + plane * h * w + (uint32_t)y * w +
                          (uint32_t)x;
    const uint32_t span = nx * dw, row_step = dh * w;
    if (exact) {
      int64_t isum = 0;
      for (uint32_t ky = 0; ky < ny; ++ky, rowp += row_step) {
        for (const uint8_t *q = rowp, *e = q + span; q != e; q += dw) isum += dq_units[*q];
      }
      union {
        double d;
        uint64_t u;
      } v = {(double)isum}; /* exact: |isum| < 2^53 */
      if (isum != 0) v.u += (uint64_t)(int64_t)(e1 - 150) << 52; /* times u, exact */
      sum = v.d;
    } else {
      const float sx = weft_f32_from_bits(a->x_scale);
      const int32_t zx = a->x_zero_point, mx = a->flags & WEFT_Q_A_INT8 ? 0x80 : 0;
      for (uint32_t ky = 0; ky < ny; ++ky, rowp += row_step) {
        for (const uint8_t *q = rowp, *e = q + span; q != e; q += dw) {
          sum += (double)weft_dequantize((int32_t)(*q ^ mx) - mx, zx, sx);
        }
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
  /* The table, when every dequantized value is finite (the same decision in every thread). */
  const float sx = weft_f32_from_bits(a->x_scale);
  const int32_t zx = a->x_zero_point, mx = a->flags & WEFT_Q_A_INT8 ? 0x80 : 0;
  const int32_t kmax = mx ? (zx + 128 > 127 - zx ? zx + 128 : 127 - zx)
                          : (zx > 255 - zx ? zx : 255 - zx);
  const int32_t e1 = exp1(a->x_scale);
  const int32_t exact = (weft_f32_bits((float)kmax * sx) & 0x7f800000u) != 0x7f800000u;
  if (exact) {
    for (uint32_t j = tid; j < 256; j += step) {
      dq_units[j] = to_units(weft_dequantize((int32_t)(j ^ mx) - mx, zx, sx), e1);
    }
    weft_barrier();
  }
  /* step = (step_p * oh + step_y) * ow + step_x */
  const uint32_t step_x = step % ow, step_r = step / ow;
  const uint32_t step_y = step_r % oh, step_p = step_r / oh;
  uint32_t ox = tid % ow, r = tid / ow;
  uint32_t oy = r % oh, plane = r / oh;
  for (uint32_t i = tid; i < total; i += step) {
    out[i] = pool_one(a, plane, oy, ox, e1, exact);
    ox += step_x;
    oy += step_y;
    plane += step_p;
    if (ox >= ow) ox -= ow, oy += 1;
    if (oy >= oh) oy -= oh, plane += 1;
  }
}
