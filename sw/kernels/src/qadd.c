/* qadd: QuantizeLinear(DequantizeLinear(a) + DequantizeLinear(b)) with numpy broadcasting up to
 * rank 4, uint8 / int8 operands and output, in IEEE float32 through libgcc's soft-float, bit for
 * bit the model runtime's host DequantizeLinear -> Add -> QuantizeLinear (struct weft_qadd_args,
 * weft_qfloat.h, docs/kernels.md).
 * Work item = one output element, grid-stride. Its output coordinates are tracked incrementally:
 * the first index and the step T are split once into base-dims digits (divisions), then each
 * element adds the step's digits with carries (no division per element) and recomputes the two
 * operand offsets from the coordinates and strides (0 on broadcast axes).
 * DequantizeLinear depends only on the byte: the threads first fill a table of the 512 values
 * (a's and b's 256 bytes, in .bss), each entry exactly the float the per-element formula would
 * give, and meet at a barrier; per element there are then one __addsf3, one __divsf3 and the
 * integer rounding left. */
#include "weft_kernel_args.h"
#include "weft_qfloat.h"
#include "weft_simt.h"

/* dq[b] = DQ(a byte b), dq[256 + b] = DQ(b byte b), written each launch. */
static float dq[512];

/* Q(da + db) of one element. Not inlined: the soft-float calls then happen in a small frame, not
 * in weft_main's (which holds the coordinates and strides). */
static __attribute__((noinline)) uint8_t qadd_one(const struct weft_qadd_args* a, float da,
                                                  float db) {
  const float s = da + db;
  const int32_t y_s8 = (a->flags & WEFT_Q_Y_INT8) != 0;
  return (uint8_t)weft_quantize(s, weft_f32_from_bits(a->y_scale), a->y_zero_point,
                                y_s8 ? -128 : 0, y_s8 ? 127 : 255);
}

void weft_main(const void* p) {
  const struct weft_qadd_args* a = p;
  const uint8_t* pa = WEFT_PTR(const uint8_t, a->a);
  const uint8_t* pb = WEFT_PTR(const uint8_t, a->b);
  uint8_t* py = WEFT_PTR(uint8_t, a->y);
  const uint32_t d0 = a->dims[0], d1 = a->dims[1], d2 = a->dims[2], d3 = a->dims[3];
  const uint32_t total = d0 * d1 * d2 * d3;
  if (total == 0) return;
  const uint32_t as0 = a->a_strides[0], as1 = a->a_strides[1], as2 = a->a_strides[2],
                 as3 = a->a_strides[3];
  const uint32_t bs0 = a->b_strides[0], bs1 = a->b_strides[1], bs2 = a->b_strides[2],
                 bs3 = a->b_strides[3];
  const uint32_t step = weft_num_threads(), tid = weft_thread_id();
  /* One scale for a, b and y, a normal float with room for 512 x it: the float32 arithmetic
   * gives exactly k = (a - za) + (b - zb), so y = clamp(k + zy) in integers. |a - za|, |b - zb|
   * <= 255; each product k_i * s is rounded once (relative error <= 2^-24), their sum once, the
   * quotient by s once: q = k + e with |e| <= 510 * 4 * 2^-24 < 2^-13, so round-half-even(q) = k.
   * (Models quantized with equal Add scales, e.g. sw/model/networks/fashion_residual, take this
   * path: about 10 cycles per element instead of about 200.) */
  const uint32_t exponent = (a->y_scale >> 23) & 0xffu;
  if (a->a_scale == a->y_scale && a->b_scale == a->y_scale && (a->y_scale >> 31) == 0 &&
      exponent >= 1u && exponent <= 244u) {
    const int32_t ma = (a->flags & WEFT_Q_A_INT8) ? 0x80 : 0, mb = (a->flags & WEFT_Q_B_INT8) ? 0x80 : 0;
    const int32_t y_s8 = (a->flags & WEFT_Q_Y_INT8) != 0;
    const int32_t lo = y_s8 ? -128 : 0, hi = y_s8 ? 127 : 255;
    const int32_t offset = a->y_zero_point - a->a_zero_point - a->b_zero_point;
    if (d0 == 1 && d1 == 1 && d2 == 1 && as3 == 1 && bs3 == 1) {  /* same-shape operands */
      for (uint32_t i = tid; i < total; i += step) {
        int32_t v = (((int32_t)pa[i] ^ ma) - ma) + (((int32_t)pb[i] ^ mb) - mb) + offset;
        v = v < lo ? lo : v;
        v = v > hi ? hi : v;
        py[i] = (uint8_t)v;
      }
      return;
    }
    for (uint32_t i = tid; i < total; i += step) {
      uint32_t r = i, ia = 0, ib = 0;
      const uint32_t c3 = r % d3;
      r /= d3;
      const uint32_t c2 = r % d2;
      r /= d2;
      const uint32_t c1 = r % d1, c0 = r / d1;
      ia = c0 * as0 + c1 * as1 + c2 * as2 + c3 * as3;
      ib = c0 * bs0 + c1 * bs1 + c2 * bs2 + c3 * bs3;
      int32_t v = (((int32_t)pa[ia] ^ ma) - ma) + (((int32_t)pb[ib] ^ mb) - mb) + offset;
      v = v < lo ? lo : v;
      v = v > hi ? hi : v;
      py[i] = (uint8_t)v;
    }
    return;
  }
  for (uint32_t j = tid; j < 512; j += step) {
    const int32_t is_b = j >= 256;
    /* the byte as its type: (v ^ m) - m sign-extends for m = 0x80 (int8), m = 0 for uint8 */
    const int32_t m = (a->flags & (is_b ? WEFT_Q_B_INT8 : WEFT_Q_A_INT8)) ? 0x80 : 0;
    const int32_t v = (int32_t)((j & 255) ^ (uint32_t)m) - m;
    dq[j] = is_b ? weft_dequantize(v, a->b_zero_point, weft_f32_from_bits(a->b_scale))
                 : weft_dequantize(v, a->a_zero_point, weft_f32_from_bits(a->a_scale));
  }
  weft_barrier();
  /* step = ((s0 * d1 + s1) * d2 + s2) * d3 + s3 (s0 unbounded: the loop ends by i < total) */
  uint32_t r = step;
  const uint32_t s3 = r % d3;
  r /= d3;
  const uint32_t s2 = r % d2;
  r /= d2;
  const uint32_t s1 = r % d1, s0 = r / d1;
  r = tid;
  uint32_t c3 = r % d3;
  r /= d3;
  uint32_t c2 = r % d2;
  r /= d2;
  uint32_t c1 = r % d1, c0 = r / d1;
  for (uint32_t i = tid; i < total; i += step) {
    const uint32_t ia = c0 * as0 + c1 * as1 + c2 * as2 + c3 * as3;
    const uint32_t ib = c0 * bs0 + c1 * bs1 + c2 * bs2 + c3 * bs3;
    py[i] = qadd_one(a, dq[pa[ia]], dq[256 + pb[ib]]);
    /* next coordinates: add the step's digits with carries */
    uint32_t carry;
    c3 += s3;
    carry = c3 >= d3;
    c3 -= carry ? d3 : 0;
    c2 += s2 + carry;
    carry = c2 >= d2;
    c2 -= carry ? d2 : 0;
    c1 += s1 + carry;
    carry = c1 >= d1;
    c1 -= carry ? d1 : 0;
    c0 += s0 + carry;
  }
}
