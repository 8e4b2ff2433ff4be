// Block tests of the tensor unit's FP arithmetic (weft_fp_pkg through weft_pe, and the FP output
// stage fp_output) against the golden model (sw/golden, weft/golden/fp.hpp), bit for bit.
// The top is tb/tensor/tb_fp_unit.sv: it decodes raw FP8 bytes with fp_operand as the tensor unit
// does, so a test here covers decode, exact product, exact sum and the edge rounding together.
//   1. Every FP8 product pair (256 x 256) of E4M3 x E4M3, E5M2 x E5M2, E4M3 x E5M2, E5M2 x E4M3,
//      each added to a random partial sum: the PE's fixed-point sum must be exact, and rounded at
//      the array edge it must equal fp32_bits(fmaf(a, w, ps)) / golden gemm_fp (one tile).
//   1b. BF16 x BF16 hops: random BF16 operands (three exponent ranges, specials) and FP32 partial
//      sums: the PE's FP32 sum must equal fp32_bits(fmaf(a, w, ps)), the golden BF16 step.
//   2. fp_output for FP32 / BF16 / E4M3 / E5M2 with ReLU off and on, on random (acc, scale, bias)
//      triples: == fp32_bits / fp_encode of golden fp_postprocess.
// Both print their counts (and coverage of the interesting cases) even when they pass: the
// figures are the point of an exhaustive test.
#include <gtest/gtest.h>

#include <algorithm>
#include <bit>
#include <cfloat>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <random>
#include <string>
#include <vector>

#include "Vvl_fp_unit.h"
#include "weft/golden/fp.hpp"
#include "weft/tb/bits.hpp"
#include "weft/tb/harness.hpp"
#include "weft/tb/options.hpp"

namespace {

namespace g = weft::golden;
using g::FpFormat;
using weft::tb::Harness;
using Rng = std::mt19937_64;

uint32_t bits_of(float f) { return std::bit_cast<uint32_t>(f); }
float float_of(uint32_t b) { return std::bit_cast<float>(b); }

// weft_pkg::Fmt* codes, the same numbers as golden::FpFormat.
uint8_t fmt_code(FpFormat f) { return static_cast<uint8_t>(f); }

const char* fmt_name(FpFormat f) {
  switch (f) {
    case FpFormat::kE4M3:
      return "E4M3";
    case FpFormat::kE5M2:
      return "E5M2";
    case FpFormat::kBf16:
      return "BF16";
    case FpFormat::kFp32:
      return "FP32";
  }
  return "?";
}

int uniform(Rng& rng, int lo, int hi) { return std::uniform_int_distribution<int>(lo, hi)(rng); }
bool one_in(Rng& rng, int n) { return rng() % static_cast<uint64_t>(n) == 0; }

// A float32 of random sign and (unbiased) exponent e, its mantissa cut to a random length: short
// mantissas make exact products and round-to-nearest ties likely, which full-length random
// mantissas almost never give. An exponent below the normal range gives a random subnormal,
// one above it the largest binade.
uint32_t random_f32_bits(Rng& rng, int e) {
  const uint32_t sign = (rng() & 1) ? 0x80000000u : 0u;
  uint32_t mant = static_cast<uint32_t>(rng()) & 0x7fffffu;
  const int tz = uniform(rng, 0, 23);
  mant &= ~((1u << tz) - 1u);
  const int biased = e + 127;
  if (biased < 1) return sign | (static_cast<uint32_t>(rng()) & 0x7fffffu);
  return sign | (static_cast<uint32_t>(std::min(biased, 254)) << 23) | mant;
}

// The operands that IEEE treats specially, and the edges of float32's range.
uint32_t special_f32_bits(Rng& rng) {
  const uint32_t sign = (rng() & 1) ? 0x80000000u : 0u;
  switch (rng() % 8) {
    case 0:  // NaN with a random payload and sign: every NaN must come out canonical
      return sign | 0x7f800000u | ((static_cast<uint32_t>(rng()) & 0x7fffffu) | 1u);
    case 1:
      return sign | 0x7f800000u;  // Inf
    case 2:
    case 3:
      return sign;  // +-0 (twice as likely: signed-zero rules have several cases)
    case 4:
      return sign | (static_cast<uint32_t>(rng()) & 0x7fffffu);  // subnormal
    case 5:
      return sign | 0x7f7fffffu;  // FLT_MAX
    case 6:
      return sign | 0x00800000u;  // FLT_MIN
    default:
      return sign | 1u;  // smallest subnormal
  }
}

// True when the exact value x (a double holding it exactly) lies exactly halfway between two
// neighbours of a format with `mant` mantissa bits and smallest normal exponent `emin`: the
// round-to-nearest-even tie. Ignores the format's top (saturation / overflow decide there too).
bool is_tie(double x, int mant, int emin) {
  if (x == 0 || !std::isfinite(x)) return false;
  const int e = std::max(std::ilogb(x), emin);
  const double t = std::ldexp(std::fabs(x), mant - e);  // |x| in units of the format's quantum
  return t - std::floor(t) == 0.5;
}

// ---------------------------------------------------------------------------------------------
// 1. Every FP8 product pair through the PE.
//
// The PE's partial sum is the array's exact fixed-point form (weft_fp_pkg: FpPsW bits =
// {nan, pos_inf, neg_inf, sum[71:0]}, sum in units of 2^-32), rounded to FP32 once where the
// column leaves the array (edge_o). Here it is modelled as Fixed; the test builds ps_i from it
// and predicts ps_o's raw bits (the sum must be exact), while edge_o is compared with the golden
// model: for a partial sum that is itself a float32 on the fixed-point grid, the tile rule's
// "exact sum rounded once" is fp32_bits(fmaf(a, w, ps)); for one that is the exact sum of
// earlier products, it is golden::gemm_fp over those products and this one, as one tile.

constexpr int kFixLsb = -32;  // weft_fp_pkg::FixLsb
constexpr int kFixW = 72;     // weft_fp_pkg::FixW

struct Fixed {
  __int128 sum = 0;  // value = sum * 2^kFixLsb; |sum| < 2^70 for anything drawn here
  bool nan = false, pos_inf = false, neg_inf = false;

  // ps += p, for an exact product p of two FP8 values, with the IEEE cases as flags.
  void add(float p) {
    if (std::isnan(p)) {
      nan = true;
    } else if (std::isinf(p)) {
      (p > 0 ? pos_inf : neg_inf) = true;
    } else {
      // |p| < 2^32 and a multiple of 2^-32, so p * 2^32 is an integer below 2^64: exact.
      sum += static_cast<__int128>(std::ldexp(static_cast<double>(p), -kFixLsb));
    }
  }
};

template <class Port>
void set_fixed(Port& port, const Fixed& f) {
  const auto u = static_cast<unsigned __int128>(f.sum);  // two's complement, cut to 72 bits
  weft::tb::set_bits(port, 0, 64, static_cast<uint64_t>(u));
  weft::tb::set_bits(port, 64, kFixW - 64, static_cast<uint64_t>(u >> 64));
  weft::tb::set_bits(port, kFixW, 1, f.neg_inf);
  weft::tb::set_bits(port, kFixW + 1, 1, f.pos_inf);
  weft::tb::set_bits(port, kFixW + 2, 1, f.nan);
}

template <class Port>
bool port_equals(const Port& port, const Fixed& f) {
  const auto u = static_cast<unsigned __int128>(f.sum);
  return weft::tb::get_bits(port, 0, 64) == static_cast<uint64_t>(u) &&
         weft::tb::get_bits(port, 64, kFixW - 64) ==
             (static_cast<uint64_t>(u >> 64) & ((1u << (kFixW - 64)) - 1)) &&
         weft::tb::get_bits(port, kFixW, 3) ==
             ((uint64_t{f.nan} << 2) | (uint64_t{f.pos_inf} << 1) | uint64_t{f.neg_inf});
}

// A tie of the edge rounding: the exact sum needs more than float32's 24 bits and what lies
// below them is exactly half an ulp (every fixed-point sum is far above float32's subnormals).
bool fixed_is_tie(const Fixed& f) {
  if (f.nan || f.pos_inf || f.neg_inf || f.sum == 0) return false;
  const unsigned __int128 m = f.sum < 0 ? -static_cast<unsigned __int128>(f.sum) : f.sum;
  int len = 0;
  while (len < 128 && (m >> len) != 0) ++len;
  if (len <= 24) return false;
  const int cut = len - 24;
  const unsigned __int128 below = m & ((static_cast<unsigned __int128>(1) << cut) - 1);
  return below == (static_cast<unsigned __int128>(1) << (cut - 1));
}

struct FmtPair {
  FpFormat a;
  FpFormat w;
};

// One partial sum for the PE: the Fixed to drive, and how the golden result is obtained.
struct PartialSum {
  Fixed fixed;
  float ps = 0.0f;                          // as a float32 (when history is empty)
  std::vector<uint32_t> hist_a, hist_w;     // earlier products of the tile (gemm_fp golden)
};

// A float32 of exponent about e, cut to the fixed-point grid (multiples of 2^-32): the PE's
// partial sum can only hold those. Its exponent lies within 28 binades of the product's, so the
// product lands anywhere from the top of ps's mantissa to below its rounding point (carries,
// cancellation, ties).
float grid_f32(Rng& rng, int e) {
  e = std::clamp(e, kFixLsb, 37);  // 37: ps + a * w stays far inside the 72-bit sum
  uint32_t bits = random_f32_bits(rng, e) & ~0x7f800000u;
  bits |= static_cast<uint32_t>(e + 127) << 23;
  const int drop = kFixLsb - (e - 23);  // mantissa bits worth less than 2^-32
  if (drop > 0) bits &= ~((1u << drop) - 1u);
  return float_of(bits);
}

// Mostly a float32 near the product's size (sometimes the exact negated product: a zero sum,
// +0 by the tile rule; or one grid step off it: massive cancellation), now and then NaN / +-Inf
// / 0, and a quarter of the time the exact sum of 1 to 7 earlier random products of the same
// formats, whose NaN / Inf products raise the flags.
PartialSum draw_ps(Rng& rng, const FmtPair& fp, float product) {
  PartialSum s;
  const bool finite_product = std::isfinite(product) && product != 0.0f;
  const int r = static_cast<int>(rng() % 64);
  if (r < 16) {
    const int n = uniform(rng, 1, 7);
    for (int i = 0; i < n; ++i) {
      s.hist_a.push_back(static_cast<uint32_t>(rng() & 0xff));
      s.hist_w.push_back(static_cast<uint32_t>(rng() & 0xff));
      s.fixed.add(g::fp_decode(s.hist_a.back(), fp.a) * g::fp_decode(s.hist_w.back(), fp.w));
    }
    return s;
  }
  if (r == 16) {
    s.ps = NAN;
  } else if (r == 17) {
    s.ps = (rng() & 1) ? INFINITY : -INFINITY;
  } else if (r == 18) {
    s.ps = 0.0f;  // the fixed-point sum has no -0: an exactly zero sum is +0
  } else if (r < 21 && finite_product) {
    s.ps = -product;
  } else if (r < 22 && finite_product) {
    // One ulp of the product, or one grid step when that is finer: exact, and on the grid.
    const float step = std::ldexp(1.0f, std::max(kFixLsb, std::ilogb(product) - 23));
    s.ps = -product + ((rng() & 1) ? step : -step);
  } else {
    s.ps = grid_f32(rng, finite_product ? std::ilogb(product) + uniform(rng, -28, 28)
                                        : uniform(rng, kFixLsb, 37));
  }
  s.fixed.add(s.ps);  // a grid float32 (or NaN / Inf) adds exactly like a product
  return s;
}

TEST(FpUnit, EveryFp8ProductThroughThePe) {
  Harness<Vvl_fp_unit> h;
  Rng rng = weft::tb::make_rng();
  auto& d = h.dut();
  d.w_we_i = 0;
  d.a_valid_i = 0;
  d.out_fmt_i = fmt_code(FpFormat::kFp32);
  h.reset();

  constexpr FmtPair kPairs[] = {{FpFormat::kE4M3, FpFormat::kE4M3},
                                {FpFormat::kE5M2, FpFormat::kE5M2},
                                {FpFormat::kE4M3, FpFormat::kE5M2},
                                {FpFormat::kE5M2, FpFormat::kE4M3}};
  for (const FmtPair& p : kPairs) {
    d.a_fmt_i = fmt_code(p.a);
    d.w_fmt_i = fmt_code(p.w);
    // Weight 0 goes into buffer 0 ahead of the stream; every later weight is written into the
    // other buffer during its predecessor's first activation, so the stream never stops: one
    // product per cycle, and each write proves it does not disturb the buffer in use.
    d.a_valid_i = 0;
    d.w_we_i = 1;
    d.w_buf_i = 0;
    d.w_bits_i = 0;
    h.tick();
    uint64_t products = 0, mismatches = 0, ties = 0, flagged = 0, wide = 0;
    std::vector<std::string> examples;
    for (uint32_t w = 0; w < 256; ++w) {
      const uint32_t buf = w & 1;
      const float wf = g::fp_decode(w, p.w);
      for (uint32_t a = 0; a < 256; ++a) {
        const float af = g::fp_decode(a, p.a);
        const float prod = af * wf;  // exact: FP8 x FP8 needs 8 significant bits, 2^-32..2^32
        const PartialSum ps = draw_ps(rng, p, prod);
        d.a_valid_i = 1;
        d.a_buf_i = buf;
        d.a_bits_i = a;
        set_fixed(d.ps_i, ps.fixed);
        const bool load_next = (a == 0) && (w < 255);
        d.w_we_i = load_next;
        d.w_buf_i = buf ^ 1u;
        d.w_bits_i = (w + 1) & 0xff;
        h.tick();

        Fixed want_raw = ps.fixed;
        want_raw.add(prod);
        float want_f;
        if (ps.hist_a.empty()) {
          want_f = std::fmaf(af, wf, ps.ps);
        } else {
          std::vector<uint32_t> ka = ps.hist_a, kw = ps.hist_w;
          ka.push_back(a);
          kw.push_back(w);
          const int k = static_cast<int>(ka.size());
          want_f = g::gemm_fp(ka, kw, 1, k, 1, p.a, p.w, k)[0];
          ++wide;
        }
        const uint32_t want = g::fp32_bits(want_f);
        const uint32_t got = d.edge_o;
        const bool raw_ok = port_equals(d.ps_o, want_raw);
        ++products;
        flagged += ps.fixed.nan || ps.fixed.pos_inf || ps.fixed.neg_inf;
        ties += fixed_is_tie(want_raw);
        if (got != want || !raw_ok) {
          ++mismatches;
          if (examples.size() < 3) {
            char s[320];
            std::snprintf(s, sizeof s,
                          "a=0x%02x (%.9g) w=0x%02x (%.9g) ps=%.17g (fixed 0x%02llx%016llx, "
                          "%zu products)%s: RTL 0x%08x (%.9g), golden 0x%08x (%.9g)%s",
                          a, af, w, wf, static_cast<double>(ps.fixed.sum) * 0x1p-32,
                          static_cast<unsigned long long>(
                              static_cast<unsigned __int128>(ps.fixed.sum) >> 64 & 0xff),
                          static_cast<unsigned long long>(ps.fixed.sum), ps.hist_a.size(),
                          ps.fixed.nan                           ? " NaN"
                          : ps.fixed.pos_inf || ps.fixed.neg_inf ? " Inf"
                                                                 : "",
                          got, float_of(got), want, want_f, raw_ok ? "" : ", raw sum differs");
            examples.push_back(s);
          }
        }
      }
    }
    d.a_valid_i = 0;
    d.w_we_i = 0;
    std::printf("[ FP8 RTL ] %s x %s: %llu products, %llu mismatches (%llu RNE ties at the "
                "edge, %llu NaN/Inf partial sums, %llu multi-product tiles)\n",
                fmt_name(p.a), fmt_name(p.w), static_cast<unsigned long long>(products),
                static_cast<unsigned long long>(mismatches), static_cast<unsigned long long>(ties),
                static_cast<unsigned long long>(flagged), static_cast<unsigned long long>(wide));
    for (const std::string& m : examples) std::printf("            %s\n", m.c_str());
    EXPECT_EQ(mismatches, 0u) << fmt_name(p.a) << " x " << fmt_name(p.w);
  }
  std::fflush(stdout);
}

// ---------------------------------------------------------------------------------------------
// 1b. BF16 through the PE: one fused multiply-add per hop, fp_ps_o = fl32(fp_ps_i + a * w).
//
// A random BF16 code with the exponent field in [lo, hi] (0: subnormal), a random sign and
// fraction; now and then +-0, +-Inf or a NaN.
uint32_t random_bf16(Rng& rng, int lo, int hi) {
  if (one_in(rng, 24)) {
    constexpr uint32_t kSpecial[] = {0x0000, 0x8000, 0x7f80, 0xff80, 0x7fc0, 0xffa5};
    return kSpecial[rng() % 6];
  }
  const uint32_t sign = (rng() & 1) ? 0x8000u : 0u;
  return sign | (static_cast<uint32_t>(uniform(rng, lo, hi)) << 7) |
         static_cast<uint32_t>(rng() & 0x7f);
}

TEST(FpUnit, Bf16FusedMultiplyAddThroughThePe) {
  Harness<Vvl_fp_unit> h;
  Rng rng = weft::tb::make_rng();
  auto& d = h.dut();
  d.w_we_i = 0;
  d.a_valid_i = 0;
  d.out_fmt_i = fmt_code(FpFormat::kFp32);
  d.a_fmt_i = fmt_code(FpFormat::kBf16);
  d.w_fmt_i = fmt_code(FpFormat::kBf16);
  h.reset();
  // Exponent ranges: near 1 (ordinary sums), anywhere (overflow of the product, subnormal
  // operands), tiny (products below float32's normal range: subnormal and underflowing sums).
  struct Range {
    const char* name;
    int lo, hi;
  };
  constexpr Range kRanges[] = {{"near 1", 112, 142}, {"any", 0, 254}, {"tiny", 0, 70}};
  constexpr int kPerRange = 100000;
  uint64_t hops = 0, mismatches = 0, nonfinite = 0, subnormal = 0, ties = 0, cancel = 0;
  std::vector<std::string> examples;
  uint32_t w_cur = 0x3f80;
  d.w_we_i = 1;
  d.w_buf_i = 0;
  d.w_bits_i = w_cur;
  h.tick();
  uint32_t buf = 0;
  for (const Range& r : kRanges) {
    for (int i = 0; i < kPerRange; ++i) {
      const uint32_t a = random_bf16(rng, r.lo, r.hi);
      const float af = g::fp_decode(a, FpFormat::kBf16), wf = g::fp_decode(w_cur, FpFormat::kBf16);
      const double prod = static_cast<double>(af) * wf;  // exact: 16 significant bits
      // The partial sum: near the product (carries, cancellation, ties), its exact negation, or
      // any float32 / special value.
      uint32_t ps_bits;
      const int pick = static_cast<int>(rng() % 16);
      if (pick == 0) {
        ps_bits = special_f32_bits(rng);
      } else if (pick == 1 && std::isfinite(prod) && prod != 0 && std::fabs(prod) < FLT_MAX &&
                 std::fabs(prod) >= FLT_MIN) {
        ps_bits = bits_of(static_cast<float>(-prod));  // exact: an exact zero sum
      } else if (std::isfinite(prod) && prod != 0 && pick < 13) {
        const int e = std::clamp(std::ilogb(prod) + uniform(rng, -30, 30), -150, 127);
        ps_bits = random_f32_bits(rng, e);
      } else {
        ps_bits = static_cast<uint32_t>(rng());
      }
      const float ps = float_of(ps_bits);
      d.a_valid_i = 1;
      d.a_buf_i = buf;
      d.a_bits_i = a;
      weft::tb::set_bits(d.ps_i, 0, 32, ps_bits);
      weft::tb::set_bits(d.ps_i, 32, 32, rng());  // above the FP32 value: ignored
      // Every 7th hop loads the next weight into the other buffer (it takes effect below).
      const bool load = (i % 7) == 0;
      const uint32_t w_next = random_bf16(rng, r.lo, r.hi);
      d.w_we_i = load;
      d.w_buf_i = buf ^ 1u;
      d.w_bits_i = w_next;
      h.tick();
      const float want_f = std::fmaf(af, wf, ps);
      const uint32_t want = g::fp32_bits(want_f);
      const uint32_t got = static_cast<uint32_t>(weft::tb::get_bits(d.ps_o, 0, 32));
      ++hops;
      nonfinite += !std::isfinite(want_f);
      subnormal += want_f != 0 && std::fabs(want_f) < FLT_MIN;
      if (std::isfinite(prod) && std::isfinite(ps)) {
        // The double sum and its error (two-sum): when the error is 0 the double is the exact
        // a * w + ps, and the tie test is exact.
        const double sum = prod + static_cast<double>(ps);
        const double back = sum - prod;
        const double err = (prod - (sum - back)) + (static_cast<double>(ps) - back);
        ties += err == 0 && is_tie(sum, 23, -126);
        cancel += ps != 0 && prod != 0 && std::fabs(want_f) < std::fabs(ps) * 0x1p-8;
      }
      if (got != want || d.edge_o != got) {
        ++mismatches;
        if (examples.size() < 3) {
          char m[200];
          std::snprintf(m, sizeof m, "a=0x%04x w=0x%04x ps=0x%08x: RTL 0x%08x, golden 0x%08x", a,
                        w_cur, ps_bits, got, want);
          examples.push_back(m);
        }
      }
      if (load) {
        w_cur = w_next;
        buf ^= 1u;
      }
    }
  }
  d.a_valid_i = 0;
  d.w_we_i = 0;
  std::printf(
      "[ BF16 RTL ] %llu PE hops (3 exponent ranges), %llu mismatches against "
      "fmaf (%llu not finite, %llu subnormal results, %llu ties, %llu cancellations)\n",
      static_cast<unsigned long long>(hops), static_cast<unsigned long long>(mismatches),
      static_cast<unsigned long long>(nonfinite), static_cast<unsigned long long>(subnormal),
      static_cast<unsigned long long>(ties), static_cast<unsigned long long>(cancel));
  for (const std::string& m : examples) std::printf("            %s\n", m.c_str());
  std::fflush(stdout);
  EXPECT_EQ(mismatches, 0u);
  EXPECT_GT(subnormal, 0u);
  EXPECT_GT(ties, 0u);
}

// ---------------------------------------------------------------------------------------------
// 2. The FP output stage (STORE_ACC): y = fl32(fl32(acc * scale) + bias), ReLU, then the format.

struct Triple {
  uint32_t acc, scale, bias;
};

// The largest finite value of a narrow format and half its top ulp: max + half_ulp is the
// midpoint just beyond the range (a tie that saturation, not rounding, must settle).
struct Narrow {
  FpFormat f;
  uint32_t max_code;
};
constexpr Narrow kNarrow[] = {
    {FpFormat::kE4M3, 0x7e}, {FpFormat::kE5M2, 0x7b}, {FpFormat::kBf16, 0x7f7f}};

// A value exactly halfway between two neighbours of a narrow format (or just past its largest
// finite value), scaled by a power of two that acc * scale undoes exactly: the output rounding
// then meets a tie with nothing before it to disturb it.
Triple draw_midpoint(Rng& rng) {
  const Narrow& n = kNarrow[rng() % 3];
  const uint32_t c = static_cast<uint32_t>(rng() % (n.max_code + 1));
  const double lo = g::fp_decode(c, n.f);
  const double hi = (c < n.max_code) ? static_cast<double>(g::fp_decode(c + 1, n.f))
                                     : 2 * lo - g::fp_decode(c - 1, n.f);
  double mid = (lo + hi) / 2;
  if (rng() & 1) mid = -mid;
  // k keeps acc and scale normal floats (so both are exact) at either end of float's range.
  int k_lo = -20, k_hi = 20;
  if (std::fabs(mid) > 0x1p100) k_hi = 0;
  if (mid != 0 && std::fabs(mid) < 0x1p-100) k_lo = 0;
  const int k = uniform(rng, k_lo, k_hi);
  const float acc = static_cast<float>(std::ldexp(mid, k));  // exact unless it leaves float range
  const float scale = std::ldexp(1.0f, -k);
  return {bits_of(acc), bits_of(scale), (rng() & 1) ? 0x80000000u : 0u};
}

// A random triple aimed at a target magnitude of y: mostly the FP8 range (down to below E4M3's
// and E5M2's smallest subnormals, up past their saturation points), also float32's subnormal and
// overflow ranges. bias is +-0, of y's size (cancellation and ties in the add), the exact negated
// product (a zero sum), or anything; each operand is replaced by a special value now and then.
Triple draw_triple(Rng& rng) {
  if (one_in(rng, 20)) return draw_midpoint(rng);
  int ey;
  const int r = static_cast<int>(rng() % 10);
  if (r < 5) {
    ey = uniform(rng, -22, 18);
  } else if (r < 7) {
    ey = uniform(rng, -155, -120);
  } else if (r < 9) {
    ey = uniform(rng, 100, 130);
  } else {
    ey = uniform(rng, -160, 135);
  }
  const int es = std::clamp(ey - uniform(rng, -40, 40), -126, 127);
  const int ea = std::clamp(ey - es, -126, 127);
  Triple t{random_f32_bits(rng, ea), random_f32_bits(rng, es), 0};
  const int rb = static_cast<int>(rng() % 20);
  if (rb < 7) {
    t.bias = (rng() & 1) ? 0x80000000u : 0u;
  } else if (rb < 15) {
    t.bias = random_f32_bits(rng, ey + uniform(rng, -26, 26));
  } else if (rb < 17) {
    volatile float p = float_of(t.acc) * float_of(t.scale);  // volatile: no FMA contraction
    t.bias = bits_of(-p);
  } else {
    t.bias = (rng() & 1) ? special_f32_bits(rng) : static_cast<uint32_t>(rng());
  }
  if (one_in(rng, 16)) t.acc = special_f32_bits(rng);
  if (one_in(rng, 16)) t.scale = special_f32_bits(rng);
  if (one_in(rng, 16)) t.bias = special_f32_bits(rng);
  return t;
}

TEST(FpUnit, OutputStageMatchesGolden) {
  Harness<Vvl_fp_unit> h;
  Rng rng = weft::tb::make_rng();
  auto& d = h.dut();
  d.w_we_i = 0;
  d.a_valid_i = 0;
  h.reset();

  constexpr int kTriples = 200000;
  constexpr FpFormat kFmts[] = {FpFormat::kFp32, FpFormat::kBf16, FpFormat::kE4M3,
                                FpFormat::kE5M2};
  // Per (format, relu): outputs checked and mismatches, with the first three mismatches.
  uint64_t checked[4][2] = {}, mismatches[4][2] = {};
  std::vector<std::string> examples[4][2];
  // Coverage of the cases the draw aims at (counted on the golden side, relu off).
  uint64_t nan_in = 0, inf_in = 0, zero_y = 0, sub_y = 0, inf_y = 0, nan_y = 0;
  uint64_t tie_mul = 0, tie_add = 0, tie_out[4] = {}, sat[4] = {};

  for (int i = 0; i < kTriples; ++i) {
    const Triple t = draw_triple(rng);
    const float acc = float_of(t.acc), scale = float_of(t.scale), bias = float_of(t.bias);
    d.out_acc_i = t.acc;
    d.out_scale_i = t.scale;
    d.out_bias_i = t.bias;

    // Coverage, from the golden definition's two roundings.
    const float y0 = g::fp_postprocess(acc, scale, bias, false);
    nan_in += std::isnan(acc) || std::isnan(scale) || std::isnan(bias);
    inf_in += std::isinf(acc) || std::isinf(scale) || std::isinf(bias);
    zero_y += y0 == 0.0f;
    sub_y += std::fpclassify(y0) == FP_SUBNORMAL;
    inf_y += std::isinf(y0);
    nan_y += std::isnan(y0);
    volatile float p = acc * scale;
    if (std::isfinite(p)) tie_mul += is_tie(static_cast<double>(acc) * scale, 23, -126);
    if (std::isfinite(p) && std::isfinite(bias) && p != 0 && bias != 0 &&
        std::abs(std::ilogb(p) - std::ilogb(bias)) < 29) {
      tie_add += is_tie(static_cast<double>(p) + bias, 23, -126);
    }
    tie_out[1] += is_tie(y0, 7, -126);
    tie_out[2] += is_tie(y0, 3, -6);
    tie_out[3] += is_tie(y0, 2, -14);
    sat[2] += std::isfinite(y0) && std::fabs(y0) > 448.0f;
    sat[3] += std::isfinite(y0) && std::fabs(y0) > 57344.0f;
    sat[1] += std::isfinite(y0) && g::fp_encode(y0, FpFormat::kBf16) % 0x8000 == 0x7f80;

    for (int fi = 0; fi < 4; ++fi) {
      for (int relu = 0; relu < 2; ++relu) {
        const FpFormat f = kFmts[fi];
        d.out_fmt_i = fmt_code(f);
        d.out_relu_i = relu;
        h.eval();
        const float y = g::fp_postprocess(acc, scale, bias, relu != 0);
        const uint32_t want = (f == FpFormat::kFp32) ? g::fp32_bits(y) : g::fp_encode(y, f);
        const uint32_t got = d.out_y_o;
        ++checked[fi][relu];
        if (got != want) {
          ++mismatches[fi][relu];
          if (examples[fi][relu].size() < 3) {
            char s[320];
            std::snprintf(s, sizeof s,
                          "acc=0x%08x (%.9g) scale=0x%08x (%.9g) bias=0x%08x (%.9g) "
                          "y=%.9g: RTL 0x%08x, golden 0x%08x",
                          t.acc, acc, t.scale, scale, t.bias, bias, y, got, want);
            examples[fi][relu].push_back(s);
          }
        }
      }
    }
  }

  for (int fi = 0; fi < 4; ++fi) {
    for (int relu = 0; relu < 2; ++relu) {
      std::printf("[ FP OUT  ] %s relu=%d: %llu outputs, %llu mismatches\n", fmt_name(kFmts[fi]),
                  relu, static_cast<unsigned long long>(checked[fi][relu]),
                  static_cast<unsigned long long>(mismatches[fi][relu]));
      for (const std::string& s : examples[fi][relu]) std::printf("            %s\n", s.c_str());
      EXPECT_EQ(mismatches[fi][relu], 0u) << fmt_name(kFmts[fi]) << " relu=" << relu;
    }
  }
  auto u = [](uint64_t v) { return static_cast<unsigned long long>(v); };
  std::printf("[ FP OUT  ] coverage of %d triples: NaN in %llu, Inf in %llu; y zero %llu, "
              "subnormal %llu, Inf %llu, NaN %llu\n",
              kTriples, u(nan_in), u(inf_in), u(zero_y), u(sub_y), u(inf_y), u(nan_y));
  std::printf("[ FP OUT  ] ties: acc*scale %llu, +bias %llu, to BF16 %llu, E4M3 %llu, "
              "E5M2 %llu; beyond max: BF16 (to Inf) %llu, E4M3 %llu, E5M2 %llu\n",
              u(tie_mul), u(tie_add), u(tie_out[1]), u(tie_out[2]), u(tie_out[3]), u(sat[1]),
              u(sat[2]), u(sat[3]));
  std::fflush(stdout);
}

}  // namespace
