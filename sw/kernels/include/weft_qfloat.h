/* QDQ float arithmetic for the SIMT kernels (qadd, qavgpool; docs/kernels.md, "Quantized float
 * operators"): ONNX DequantizeLinear / QuantizeLinear in IEEE float32 exactly as the model
 * runtime's host code computes them (sw/model/src/host_ops.cpp `dequantize`, `quantize_value`).
 * The core has no FPU: every float / double operation here is a plain C operation that GCC turns
 * into a call to libgcc's soft-float (__mulsf3, __divsf3, __floatsisf, ...; IEEE round to nearest
 * even, the default mode of the host's SSE), so the results are the host's bit for bit. The
 * kernels are built without -ffast-math and with -ffp-contract=off (sw/kernels/CMakeLists.txt);
 * rv32im has no FMA anyway, and FLT_EVAL_METHOD is 0 (no excess precision). */
#ifndef WEFT_QFLOAT_H
#define WEFT_QFLOAT_H

#include <stdint.h>

/* A float32 from its bit pattern (arguments carry floats as uint32) and back. */
static inline float weft_f32_from_bits(uint32_t u) {
  union {
    uint32_t u;
    float f;
  } v = {u};
  return v.f;
}
static inline uint32_t weft_f32_bits(float f) {
  union {
    float f;
    uint32_t u;
  } v = {f};
  return v.u;
}

/* DequantizeLinear of one value: f32((float)(v - zero_point) * scale). The int -> float
 * conversion is exact (|v - zero_point| <= 383 < 2^24); the product rounds once. */
static inline float weft_dequantize(int32_t v, int32_t zero_point, float scale) {
  return (float)(v - zero_point) * scale;
}

/* Round half to even of a float32 with |q| < 2^23 (bits given, NaN / large excluded by the
 * caller), by integer operations on its fields: with the biased exponent e (< 150), the value's
 * integer part is m >> (150 - e) of the 24-bit significand m, the bits shifted out are the exact
 * fraction. Returns the rounded magnitude. */
static inline uint32_t weft_round_magnitude(uint32_t mag) {
  const uint32_t e = mag >> 23;
  if (e < 126) return 0; /* |q| < 0.5 (zero and subnormals included) */
  const uint32_t m = (mag & 0x7fffffu) | 0x800000u, sh = 150 - e; /* sh in 1..24 */
  const uint32_t u = m >> sh, rem = m & ((1u << sh) - 1), half = 1u << (sh - 1);
  return u + ((rem > half) | ((rem == half) & u)); /* above half, or a tie to an odd u */
}

/* QuantizeLinear of one value, as host_ops.cpp quantize_value: q = f32(x / scale),
 * r = round half to even (nearbyint), y = clamp(r + zero_point, lo, hi). |q| >= 2^23 and
 * infinities saturate (r + zero_point is outside any byte range then); NaN gives 0 (the host's
 * int32 conversion of NaN on x86 gives INT32_MIN, whose low byte is 0). zero_point in [lo, hi]. */
static inline int32_t weft_quantize(float x, float scale, int32_t zero_point, int32_t lo,
                                    int32_t hi) {
  const float q = x / scale;
  const uint32_t b = weft_f32_bits(q), mag = b & 0x7fffffffu;
  if (mag > 0x7f800000u) return 0;            /* NaN */
  if (mag >= 0x4b000000u) return b >> 31 ? lo : hi; /* |q| >= 2^23, inf */
  const int32_t u = (int32_t)weft_round_magnitude(mag);
  int32_t v = (b >> 31 ? -u : u) + zero_point;
  v = v < lo ? lo : v;
  return v > hi ? hi : v;
}

#endif /* WEFT_QFLOAT_H */
