// Weft golden model: the floating-point element formats and the FP GEMM of the tensor unit.
//
// Formats: OCP 8-bit Floating Point Specification (OFP8) rev 1.0 for E4M3 (its E4M3FN variant:
// no infinities, one NaN magnitude) and E5M2 (IEEE-like); bfloat16 as the top 16 bits of an IEEE
// binary32. Conversions from float32 round to nearest, ties to even; FP8 overflow saturates as
// ONNX Cast (opset 19) with saturate=1 does. The FP GEMM is the tensor unit's accumulation rule
// (FP8 operands; an exact sum rounded once per tile of the array's rows, float32 adds across
// tiles).
//
// The conversions are written on the integer bit patterns so that they depend on no library
// cast (whose rounding and saturation rules differ between libraries) and so that the RTL can
// follow the same steps.
#include "weft/golden/fp.hpp"

#include <bit>
#include <cfloat>
#include <cmath>
#include <cstdint>
#include <limits>
#include <string>

#include "check.hpp"

namespace weft::golden {

using detail::fail;

// float arithmetic must be IEEE binary32 evaluated in binary32 (no x87 excess precision): the
// rules below count the roundings.
static_assert(std::numeric_limits<float>::is_iec559, "float must be IEEE binary32");
static_assert(FLT_EVAL_METHOD == 0, "float expressions must be evaluated in float");

namespace {

constexpr uint32_t kFp32CanonicalNan = 0x7FC00000u;

// One format's layout. Every format here has a sign bit on top, then the exponent, then
// man_bits of mantissa; exponent field 0 holds zero and the subnormals.
struct Layout {
  int width;            // bits per element
  int man_bits;         // stored mantissa bits
  int bias;             // exponent bias; the smallest normal exponent is 1 - bias
  uint32_t max_finite;  // magnitude encoding (sign bit clear) of the largest finite value
  bool has_inf;         // max_finite + 1 is Inf (E5M2, BF16, FP32); for E4M3FN it is NaN
  bool saturate;        // overflow gives +-max_finite (FP8, ONNX saturate=1), else +-Inf
  uint32_t nan;         // canonical NaN encoding
};

constexpr Layout kE4M3{8, 3, 7, 0x7Eu, false, true, 0x7Fu};
constexpr Layout kE5M2{8, 2, 15, 0x7Bu, true, true, 0x7Eu};
constexpr Layout kBf16{16, 7, 127, 0x7F7Fu, true, false, 0x7FC0u};
constexpr Layout kFp32{32, 23, 127, 0x7F7FFFFFu, true, false, kFp32CanonicalNan};

const Layout& layout_of(const char* where, FpFormat f) {
  switch (f) {
    case FpFormat::kE4M3:
      return kE4M3;
    case FpFormat::kE5M2:
      return kE5M2;
    case FpFormat::kBf16:
      return kBf16;
    case FpFormat::kFp32:
      return kFp32;
  }
  fail(where, "unknown FpFormat " + std::to_string(static_cast<int>(f)));
}

uint32_t low_mask(int bits) { return bits >= 32 ? 0xFFFFFFFFu : (uint32_t{1} << bits) - 1u; }

float float_from_bits(uint32_t u) { return std::bit_cast<float>(u); }

// sig * 2^e as a float32 (sign applied by the caller). Exact for every value of the formats here:
// sig < 2^24, and the result lies between float32's smallest subnormal and its largest finite.
uint32_t fp32_magnitude_bits(uint32_t sig, int e) {
  if (sig == 0) return 0;
  const int lead = std::bit_width(sig) - 1;  // sig's leading bit is worth 2^(e + lead)
  const int biased = e + lead + 127;
  if (biased >= 1) {
    // Normal: drop the implicit leading one and left-align the rest into the 23-bit field.
    const uint32_t frac = (sig << (23 - lead)) & 0x7FFFFFu;
    return (static_cast<uint32_t>(biased) << 23) | frac;
  }
  // Subnormal: the value is a multiple of 2^-149, i.e. sig << (e + 149) in the mantissa field
  // (only BF16 and FP32 subnormals land here, and for them e + 149 >= 0).
  return sig << (e + 149);
}

// A tile's sum is held as an integer number of 2^-32 (see gemm_fp): the exact fixed-point sum
// the array forms. GCC / Clang extension; -Wpedantic is not used on this library.
using Fixed = __int128;
using UFixed = unsigned __int128;

// An FP8 value (finite) as the integer x * 2^16. Exact: every E4M3 / E5M2 value is a multiple of
// 2^-16 (E5M2's smallest subnormal; E4M3's is 2^-9) and below 2^16 in magnitude (max 57344), so
// x * 2^16 is a power-of-two scaling without rounding and an integer below 2^32 that the
// conversion to int64 keeps exactly.
int64_t fp8_fixed16(float x) { return static_cast<int64_t>(x * 0x1p16f); }

// sum * 2^-32 rounded to float32, to nearest, ties to even; 0 gives +0. Done on the integer
// (round to 24 significant bits, then scale) rather than by (float)__int128, so that the result
// depends on no runtime library conversion. Precondition: |sum| < 2^127 (gemm_fp: < 2^95).
float round_fixed32(Fixed sum) {
  if (sum == 0) return 0.0f;
  const bool neg = sum < 0;
  const UFixed mag = neg ? UFixed(0) - static_cast<UFixed>(sum) : static_cast<UFixed>(sum);
  const uint64_t hi = static_cast<uint64_t>(mag >> 64), lo = static_cast<uint64_t>(mag);
  const int width = hi != 0 ? 64 + std::bit_width(hi) : std::bit_width(lo);
  const int shift = width > 24 ? width - 24 : 0;  // bits below a 24-bit significand
  uint32_t n = static_cast<uint32_t>(mag >> shift);
  if (shift > 0) {
    const UFixed rem = mag & ((UFixed(1) << shift) - 1);
    const UFixed half = UFixed(1) << (shift - 1);
    if (rem > half || (rem == half && (n & 1u))) ++n;  // may carry to 2^24: still exact below
  }
  // n <= 2^24 is exact in float32, and n * 2^(shift - 32) is a power-of-two scaling of it into
  // [2^-32, 2^95]: float32's normal range, so ldexp neither rounds nor underflows / overflows.
  const float v = std::ldexp(static_cast<float>(n), shift - 32);
  return neg ? -v : v;
}

}  // namespace

int fp_bytes(FpFormat f) { return layout_of("fp_bytes", f).width / 8; }

float fp_decode(uint32_t bits, FpFormat f) {
  const Layout& l = layout_of("fp_decode", f);
  const uint32_t sign = (bits >> (l.width - 1)) & 1u;
  const uint32_t mag = bits & low_mask(l.width - 1);
  if (mag > l.max_finite) {
    if (l.has_inf && mag == l.max_finite + 1) {
      return sign ? -std::numeric_limits<float>::infinity()
                  : std::numeric_limits<float>::infinity();
    }
    return float_from_bits(kFp32CanonicalNan);
  }
  const uint32_t exp_field = mag >> l.man_bits;
  const uint32_t man = mag & low_mask(l.man_bits);
  // value = sig * 2^e: subnormals have no implicit one and the exponent of exp_field 1.
  const uint32_t sig = exp_field == 0 ? man : (man | (uint32_t{1} << l.man_bits));
  const int e = (exp_field == 0 ? 1 : static_cast<int>(exp_field)) - l.bias - l.man_bits;
  return float_from_bits((sign << 31) | fp32_magnitude_bits(sig, e));
}

uint32_t fp_encode(float x, FpFormat f) {
  const Layout& l = layout_of("fp_encode", f);
  const uint32_t u = std::bit_cast<uint32_t>(x);
  const uint32_t sign_out = (u >> 31) << (l.width - 1);
  const uint32_t mag32 = u & 0x7FFFFFFFu;
  if (mag32 > 0x7F800000u) return l.nan;  // any NaN, either sign, any payload
  const uint32_t overflow = l.saturate ? l.max_finite : l.max_finite + 1;  // +-max or +-Inf
  if (mag32 == 0x7F800000u) return sign_out | overflow;
  if (mag32 == 0) return sign_out;  // signed zero

  // The input's exact value sig * 2^e (float32 subnormals have exponent field 0 and no
  // implicit one).
  const uint32_t exp32 = mag32 >> 23;
  const uint32_t sig = exp32 == 0 ? (mag32 & 0x7FFFFFu) : ((mag32 & 0x7FFFFFu) | 0x800000u);
  const int e = static_cast<int>(exp32 == 0 ? 1 : exp32) - 127 - 23;

  // The result's exponent is the input's (its leading bit's), but not below the smallest normal
  // exponent: below that the format is subnormal with the fixed quantum 2^(emin - man_bits).
  const int emin = 1 - l.bias;
  const int lead = e + std::bit_width(sig) - 1;
  const int te = lead > emin ? lead : emin;
  const int shift = (te - l.man_bits) - e;  // bits of sig below the result's last place; >= 0

  // n = sig / 2^shift rounded to nearest, ties to even (an integer of at most man_bits + 2 bits).
  // In 64 bits: shift often exceeds 31 (up to 140, the smallest float32 subnormal into E4M3).
  const uint64_t sig64 = sig;
  uint64_t n = 0;
  if (shift <= 0) {
    n = sig64 << -shift;    // exact (not reached for the formats here)
  } else if (shift < 40) {  // sig < 2^24: from 25 bits of shift on n is 0 and sig < half
    n = sig64 >> shift;
    const uint64_t rem = sig64 - (n << shift);
    const uint64_t half = uint64_t{1} << (shift - 1);
    if (rem > half || (rem == half && (n & 1u))) ++n;
  }

  // Exponent field and mantissa in one: for te > emin, n holds the implicit one at bit man_bits,
  // so ((te - emin) << man_bits) + n is exp_field (te - emin + 1) and the fraction; for te == emin
  // it is n itself, subnormal when n < 2^man_bits. A rounding carry (n == 2^(man_bits+1), or a
  // subnormal reaching 2^man_bits) moves into the exponent field by the addition.
  uint64_t enc = (static_cast<uint64_t>(te - emin) << l.man_bits) + n;
  if (enc > l.max_finite) enc = overflow;  // E4M3: 0x7F (480) is NaN, not a value: saturates
  return sign_out | static_cast<uint32_t>(enc);
}

uint32_t fp32_bits(float x) {
  const uint32_t u = std::bit_cast<uint32_t>(x);
  return (u & 0x7FFFFFFFu) > 0x7F800000u ? kFp32CanonicalNan : u;
}

std::vector<float> gemm_fp(std::span<const uint32_t> a_bits, std::span<const uint32_t> w_bits,
                           int m, int k, int n, FpFormat af, FpFormat wf, int tile_rows,
                           bool accumulate, std::span<const float> c_in) {
  const char* where = "gemm_fp";
  const std::size_t mm = detail::positive_dim(where, "m", m);
  const std::size_t kk = detail::positive_dim(where, "k", k);
  const std::size_t nn = detail::positive_dim(where, "n", n);
  const std::size_t tile = detail::positive_dim(where, "tile_rows", tile_rows);
  // The array multiplies FP8 x FP8 (either mix) or BF16 x BF16; FP32 operands have no datapath.
  auto check_operand = [&](const char* name, FpFormat f) {
    if (f == FpFormat::kE4M3 || f == FpFormat::kE5M2 || f == FpFormat::kBf16) return;
    if (f == FpFormat::kFp32) {
      fail(where, std::string(name) + ": FP32 operands are not in the tensor unit " +
                      "(the array multiplies E4M3 / E5M2 or BF16)");
    }
    fail(where, std::string(name) + ": unknown FpFormat " + std::to_string(static_cast<int>(f)));
  };
  check_operand("af", af);
  check_operand("wf", wf);
  const bool bf16 = af == FpFormat::kBf16;
  if (bf16 != (wf == FpFormat::kBf16)) {
    fail(where, "BF16 operands multiply BF16 only (af and wf both kBf16, or both FP8)");
  }
  detail::expect_size(where, "a_bits", a_bits.size(), detail::checked_mul(where, mm, kk));
  detail::expect_size(where, "w_bits", w_bits.size(), detail::checked_mul(where, kk, nn));
  const std::size_t mn = detail::checked_mul(where, mm, nn);
  if (accumulate) detail::expect_size(where, "c_in", c_in.size(), mn);

  // Each operand decoded (its class: NaN / Inf / finite) and, when finite, as x * 2^16.
  std::vector<float> a(a_bits.size()), w(w_bits.size());
  std::vector<int64_t> a16(a.size()), w16(w.size());
  for (std::size_t i = 0; i < a.size(); ++i) {
    a[i] = fp_decode(a_bits[i], af);
    if (!bf16 && std::isfinite(a[i])) a16[i] = fp8_fixed16(a[i]);
  }
  for (std::size_t i = 0; i < w.size(); ++i) {
    w[i] = fp_decode(w_bits[i], wf);
    if (!bf16 && std::isfinite(w[i])) w16[i] = fp8_fixed16(w[i]);
  }

  // Why the tile sum is exact in a Fixed: a finite product is a16 * w16 * 2^-32 with
  // |a16 * w16| <= (57344 * 2^16)^2 = 49 * 2^58 < 2^64, and tile_rows < 2^31 of them sum to
  // below 2^95, far inside __int128 (2^127). A nonzero sum is at least 1 (2^-32 in value) and
  // below 2^95 (2^63 in value), so round_fixed32 never meets float32's subnormals or overflow.
  const float nan = std::numeric_limits<float>::quiet_NaN();
  const float inf = std::numeric_limits<float>::infinity();
  // One FP8 tile: the column's products summed exactly, NaN / Inf tracked beside the sum.
  auto fp8_tile_sum = [&](std::size_t i, std::size_t j, std::size_t k0, std::size_t k1) -> float {
    bool any_nan = false, pos_inf = false, neg_inf = false;
    Fixed sum = 0;
    for (std::size_t q = k0; q < k1; ++q) {
      const float x = a[i * kk + q], y = w[q * nn + j];
      if (std::isnan(x) || std::isnan(y)) {
        any_nan = true;
      } else if (std::isinf(x) || std::isinf(y)) {
        if (x == 0.0f || y == 0.0f) {
          any_nan = true;  // Inf x 0
        } else if (std::signbit(x) != std::signbit(y)) {
          neg_inf = true;
        } else {
          pos_inf = true;
        }
      } else {
        sum += Fixed{a16[i * kk + q]} * w16[q * nn + j];
      }
    }
    if (any_nan || (pos_inf && neg_inf)) return nan;
    if (pos_inf || neg_inf) return pos_inf ? inf : -inf;
    return round_fixed32(sum);  // the one rounding at the array edge; exact zero is +0
  };
  std::vector<float> c(mn);
  for (std::size_t i = 0; i < mm; ++i) {
    for (std::size_t j = 0; j < nn; ++j) {
      float acc = 0.0f;
      for (std::size_t k0 = 0; k0 < kk; k0 += tile) {
        const std::size_t k1 = k0 + tile < kk ? k0 + tile : kk;
        float s;
        if (bf16) {
          // One tile: a fused multiply-add per row, in row order from +0; std::fmaf rounds the
          // exact a * w + s once to float32 (IEEE: NaN, Inf - Inf and Inf x 0 give NaN).
          s = 0.0f;
          for (std::size_t q = k0; q < k1; ++q) s = std::fmaf(a[i * kk + q], w[q * nn + j], s);
        } else {
          s = fp8_tile_sum(i, j, k0, k1);
        }
        // The accumulator adds each tile's sum as it leaves the array (float32 add, RNE).
        if (k0 == 0) {
          acc = accumulate ? c_in[i * nn + j] + s : s;
        } else {
          acc = acc + s;
        }
      }
      c[i * nn + j] = acc;
    }
  }
  return c;
}

float fp_postprocess(float acc, float scale, float bias, bool relu) {
  // Two roundings: the volatile product keeps a*b+c from being fused even without
  // -ffp-contract=off.
  volatile float scaled = acc * scale;
  float y = scaled + bias;
  if (relu && std::signbit(y) && !std::isnan(y)) y = 0.0f;
  return y;
}

}  // namespace weft::golden
