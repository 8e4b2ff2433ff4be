// Golden FP modes (weft/golden/fp.hpp) against independent expectations only:
//   - ml_dtypes (FP8 / BF16 decode and casts), numpy float32 (FP8 products, the output stage),
//     onnxruntime's Cast with saturate=1 (FP8 encode) and two independent implementations of the
//     GEMM rule (exact rationals; Python integers), all through vector files that
//     scripts/fp_vectors.py writes at build time
//     into ${WEFT_VECTOR_DIR}/fp/ (formats documented at the top of the script; the seed of its
//     random inputs is in each file's header and printed here);
//   - hand-worked cases whose expected bits are derived in the comments;
//   - a nearest-code search on random float32 inputs (seeded by WEFT_SEED, printed).
// A missing or malformed vector file is a failure, not a skip; only the onnxruntime columns are
// skipped when the script could not run onnxruntime (its header then says why).
#include <gtest/gtest.h>

#include <algorithm>
#include <bit>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <fstream>
#include <limits>
#include <random>
#include <sstream>
#include <stdexcept>
#include <string>
#include <vector>

#if defined(__SSE__)
#include <xmmintrin.h>
#endif

#include "weft/golden/fp.hpp"
#include "weft/tb/options.hpp"

namespace g = weft::golden;
using g::FpFormat;

namespace {

constexpr const char* kHowToMake =
    "(built by the CMake target golden_fp_vectors, or: python3 scripts/fp_vectors.py "
    "--out-dir <WEFT_VECTOR_DIR>/fp)";

float f32(uint32_t bits) { return std::bit_cast<float>(bits); }

uint32_t parse_hex(const std::string& s) {
  size_t used = 0;
  const unsigned long v = std::stoul(s, &used, 16);
  if (used != s.size() || v > 0xFFFFFFFFul) throw std::runtime_error("bad hex field '" + s + "'");
  return static_cast<uint32_t>(v);
}

// A vector file: its comment lines and, for every other line, its line number and fields.
struct VectorFile {
  std::string path;
  std::string seed = "?";
  std::vector<std::string> comments;
  struct Row {
    int line_no;
    std::vector<std::string> f;
  };
  std::vector<Row> rows;
  bool comment_contains(const std::string& s) const {
    return std::any_of(comments.begin(), comments.end(),
                       [&](const std::string& c) { return c.find(s) != std::string::npos; });
  }
};

// Reads ${WEFT_VECTOR_DIR}/fp/<name>; false (with the reason in *error) when it cannot be opened.
bool load(const char* name, VectorFile* out, std::string* error) {
  out->path = weft::tb::vector_dir() + "/fp/" + name;
  std::ifstream in(out->path);
  if (!in.good()) {
    *error = "cannot open " + out->path + " " + kHowToMake;
    return false;
  }
  std::string line;
  int line_no = 0;
  while (std::getline(in, line)) {
    ++line_no;
    if (line.empty()) continue;
    if (line[0] == '#') {
      if (line.rfind("# seed ", 0) == 0) out->seed = line.substr(7);
      out->comments.push_back(line);
      continue;
    }
    std::istringstream ss(line);
    VectorFile::Row r{line_no, {}};
    std::string t;
    while (ss >> t) r.f.push_back(t);
    out->rows.push_back(std::move(r));
  }
  std::printf("[fp vectors] %s (script seed %s, %zu lines)\n", out->path.c_str(), out->seed.c_str(),
              out->rows.size());
  return true;
}

#define LOAD_OR_FAIL(name, file)                               \
  VectorFile file;                                             \
  {                                                            \
    std::string load_error;                                    \
    ASSERT_TRUE(load(name, &file, &load_error)) << load_error; \
  }

// Same float32 result: identical bits, where every NaN counts as the same NaN (so NaN is compared
// by NaN-ness and zeros by their sign bit).
bool same_f32(float got, float want) { return g::fp32_bits(got) == g::fp32_bits(want); }

std::string f32_str(float x) {
  char buf[64];
  std::snprintf(buf, sizeof buf, "%08x (%.9g)", std::bit_cast<uint32_t>(x), static_cast<double>(x));
  return buf;
}

FpFormat format_named(const std::string& s) {
  if (s == "e4m3") return FpFormat::kE4M3;
  if (s == "e5m2") return FpFormat::kE5M2;
  if (s == "bf16") return FpFormat::kBf16;
  throw std::runtime_error("unknown format '" + s + "'");
}

bool is_nan_code(uint32_t code, FpFormat f) {
  switch (f) {
    case FpFormat::kE4M3:
      return (code & 0x7F) == 0x7F;
    case FpFormat::kE5M2:
      return (code & 0x7F) > 0x7C;
    case FpFormat::kBf16:
      return (code & 0x7FFF) > 0x7F80;
    case FpFormat::kFp32:
      return (code & 0x7FFFFFFF) > 0x7F800000;
  }
  return false;
}

uint32_t canonical_nan(FpFormat f) {
  switch (f) {
    case FpFormat::kE4M3:
      return 0x7F;
    case FpFormat::kE5M2:
      return 0x7E;
    case FpFormat::kBf16:
      return 0x7FC0;
    case FpFormat::kFp32:
      return 0x7FC00000;
  }
  return 0;
}

// fp_encode(x) against a reference encoding `want`: equal, except that a reference NaN (whatever
// its sign or payload: libraries differ there) asks for our canonical NaN, and only for NaN x.
bool encode_matches(float x, FpFormat f, uint32_t want, uint32_t* got) {
  *got = g::fp_encode(x, f);
  if (is_nan_code(want, f)) return std::isnan(x) && *got == canonical_nan(f);
  return *got == want;
}

// Collects mismatches, reporting the first few in full and the count at the end.
struct Mismatches {
  size_t count = 0;
  void add(const std::string& what) {
    if (++count <= 20) ADD_FAILURE() << what;
  }
};

}  // namespace

// ------------------------------------------------------------------------------------------------
// Environment and hand-worked cases
// ------------------------------------------------------------------------------------------------

TEST(GoldenFp, SubnormalsAreHonouredAtRunTime) {
  // The golden model's results depend on gradual underflow; a binary linked with -ffast-math
  // (crtfastmath.o) or a library that sets FTZ / DAZ would silently change them.
#if defined(__SSE__)
  const unsigned csr = _mm_getcsr();
  EXPECT_EQ(csr & 0x8000u, 0u) << "MXCSR.FTZ is set";
  EXPECT_EQ(csr & 0x0040u, 0u) << "MXCSR.DAZ is set";
  EXPECT_EQ(csr & 0x6000u, 0u) << "MXCSR rounding mode is not round-to-nearest";
#endif
  volatile float tiny = std::numeric_limits<float>::denorm_min();  // 2^-149
  volatile float two = 2.0f;
  EXPECT_EQ(g::fp32_bits(tiny * two), 0x00000002u);                  // FTZ would give 0
  EXPECT_EQ(g::fp32_bits(tiny + 0.0f), 0x00000001u);                 // DAZ would give 0
  EXPECT_EQ(g::fp32_bits(std::fma(tiny, 0.5f, tiny)), 0x00000002u);  // 1.5 ulp ties to even 2
}

TEST(GoldenFp, BytesAndFormatChecks) {
  EXPECT_EQ(g::fp_bytes(FpFormat::kE4M3), 1);
  EXPECT_EQ(g::fp_bytes(FpFormat::kE5M2), 1);
  EXPECT_EQ(g::fp_bytes(FpFormat::kBf16), 2);
  EXPECT_EQ(g::fp_bytes(FpFormat::kFp32), 4);
  for (int bad : {0, 5, 255}) {
    const auto f = static_cast<FpFormat>(bad);
    EXPECT_THROW(g::fp_bytes(f), std::invalid_argument) << bad;
    EXPECT_THROW(g::fp_decode(0, f), std::invalid_argument) << bad;
    EXPECT_THROW(g::fp_encode(1.0f, f), std::invalid_argument) << bad;
  }
  EXPECT_EQ(g::fp32_bits(f32(0xFFC00001u)), 0x7FC00000u);
  EXPECT_EQ(g::fp32_bits(f32(0x7F800001u)), 0x7FC00000u);  // signalling NaN
  EXPECT_EQ(g::fp32_bits(-0.0f), 0x80000000u);
  EXPECT_EQ(g::fp32_bits(-std::numeric_limits<float>::infinity()), 0xFF800000u);
}

TEST(GoldenFp, DecodeHandWorked) {
  // E4M3 S.EEEE.MMM bias 7: 0x7E = 0.1111.110 = 1.75 * 2^8 = 448; 0x01 = 1/8 * 2^-6 = 2^-9.
  EXPECT_EQ(g::fp_decode(0x38, FpFormat::kE4M3), 1.0f);
  EXPECT_EQ(g::fp_decode(0x7E, FpFormat::kE4M3), 448.0f);
  EXPECT_EQ(g::fp_decode(0x01, FpFormat::kE4M3), 0x1p-9f);
  EXPECT_EQ(g::fp32_bits(g::fp_decode(0x80, FpFormat::kE4M3)), 0x80000000u);
  EXPECT_EQ(g::fp32_bits(g::fp_decode(0xFF, FpFormat::kE4M3)), 0x7FC00000u);
  EXPECT_EQ(g::fp_decode(0x138, FpFormat::kE4M3), 1.0f) << "only the low 8 bits count";
  // E5M2 S.EEEEE.MM bias 15: 0x7B = 1.75 * 2^15 = 57344; 0x7C Inf; 0x03 = 3/4 * 2^-14.
  EXPECT_EQ(g::fp_decode(0x3C, FpFormat::kE5M2), 1.0f);
  EXPECT_EQ(g::fp_decode(0x7B, FpFormat::kE5M2), 57344.0f);
  EXPECT_EQ(g::fp_decode(0x03, FpFormat::kE5M2), 0x3p-16f);
  EXPECT_EQ(g::fp_decode(0xFC, FpFormat::kE5M2), -std::numeric_limits<float>::infinity());
  EXPECT_EQ(g::fp32_bits(g::fp_decode(0xFD, FpFormat::kE5M2)), 0x7FC00000u);
  // BF16: the top half of a float32, subnormals included; NaN payloads are not kept.
  EXPECT_EQ(g::fp32_bits(g::fp_decode(0x0001, FpFormat::kBf16)), 0x00010000u);
  EXPECT_EQ(g::fp32_bits(g::fp_decode(0xFF7F, FpFormat::kBf16)), 0xFF7F0000u);
  EXPECT_EQ(g::fp32_bits(g::fp_decode(0xFF81, FpFormat::kBf16)), 0x7FC00000u);
  EXPECT_EQ(g::fp32_bits(g::fp_decode(0x00000001u, FpFormat::kFp32)), 0x00000001u);
}

TEST(GoldenFp, EncodeHandWorked) {
  const float inf = std::numeric_limits<float>::infinity();
  const float nan = std::numeric_limits<float>::quiet_NaN();
  struct Case {
    float x;
    FpFormat f;
    uint32_t want;
    const char* why;
  };
  const Case cases[] = {
      {1.0f, FpFormat::kE4M3, 0x38, "exact"},
      {448.0f, FpFormat::kE4M3, 0x7E, "max"},
      {464.0f, FpFormat::kE4M3, 0x7E, "tie between 448 (mantissa 110, even) and 480"},
      {480.0f, FpFormat::kE4M3, 0x7E, "0x7F would be 480 but is NaN: saturates"},
      {1e9f, FpFormat::kE4M3, 0x7E, "saturates"},
      {inf, FpFormat::kE4M3, 0x7E, "+Inf saturates"},
      {-inf, FpFormat::kE4M3, 0xFE, "-Inf saturates"},
      {nan, FpFormat::kE4M3, 0x7F, "canonical NaN"},
      {-nan, FpFormat::kE4M3, 0x7F, "canonical NaN, sign dropped"},
      {0x1p-9f, FpFormat::kE4M3, 0x01, "smallest subnormal"},
      {0x1p-10f, FpFormat::kE4M3, 0x00, "tie between 0 and 2^-9: even 0"},
      {-0x1p-10f, FpFormat::kE4M3, 0x80, "rounds to -0"},
      {0x3p-11f, FpFormat::kE4M3, 0x01, "1.5 * 2^-10: above the tie"},
      {0xFp-10f, FpFormat::kE4M3, 0x08, "7.5 * 2^-9: tie, carries into the normal 2^-6"},
      {1.0625f, FpFormat::kE4M3, 0x38, "tie 1.0 / 1.125: even 1.0"},
      {1.1875f, FpFormat::kE4M3, 0x3A, "tie 1.125 / 1.25: even 1.25"},
      {1.0f, FpFormat::kE5M2, 0x3C, "exact"},
      {57344.0f, FpFormat::kE5M2, 0x7B, "max"},
      {61440.0f, FpFormat::kE5M2, 0x7B, "tie max / Inf: IEEE would give Inf, saturates"},
      {inf, FpFormat::kE5M2, 0x7B, "+Inf saturates"},
      {-inf, FpFormat::kE5M2, 0xFB, "-Inf saturates"},
      {-nan, FpFormat::kE5M2, 0x7E, "canonical NaN"},
      {0x1p-16f, FpFormat::kE5M2, 0x01, "smallest subnormal"},
      {0x1p-17f, FpFormat::kE5M2, 0x00, "tie between 0 and 2^-16"},
      {1.125f, FpFormat::kE5M2, 0x3C, "tie 1.0 / 1.25"},
      {1.375f, FpFormat::kE5M2, 0x3E, "tie 1.25 / 1.5"},
      {f32(0x3F808000u), FpFormat::kBf16, 0x3F80, "tie, even"},
      {f32(0x3F818000u), FpFormat::kBf16, 0x3F82, "tie, even"},
      {f32(0x3F808001u), FpFormat::kBf16, 0x3F81, "above the tie"},
      {f32(0x7F7F7FFFu), FpFormat::kBf16, 0x7F7F, "just below max + half ulp"},
      {f32(0x7F7F8000u), FpFormat::kBf16, 0x7F80, "max + half ulp: tie to Inf (even)"},
      {-inf, FpFormat::kBf16, 0xFF80, "-Inf"},
      {f32(0xFFC00001u), FpFormat::kBf16, 0x7FC0, "canonical NaN"},
      {f32(0x00008000u), FpFormat::kBf16, 0x0000, "float32 subnormal tie to 0"},
      {f32(0x00018000u), FpFormat::kBf16, 0x0002, "float32 subnormal tie to even"},
      {f32(0x807F8000u), FpFormat::kBf16, 0x8080, "subnormal carries into the smallest normal"},
      {-0.0f, FpFormat::kBf16, 0x8000, "-0"},
      {1.0f, FpFormat::kFp32, 0x3F800000u, "identity"},
      {f32(0x80000001u), FpFormat::kFp32, 0x80000001u, "identity on subnormals"},
      {f32(0xFFC00001u), FpFormat::kFp32, 0x7FC00000u, "canonical NaN"},
  };
  for (const Case& c : cases) {
    EXPECT_EQ(g::fp_encode(c.x, c.f), c.want)
        << f32_str(c.x) << " format " << static_cast<int>(c.f) << ": " << c.why;
  }
}

TEST(GoldenFp, EveryCodeRoundTrips) {
  // decode then encode gives the code back, except NaN codes (canonical NaN) and E5M2's
  // infinities (saturated to max, as ONNX saturate=1 does).
  size_t checked = 0;
  for (FpFormat f : {FpFormat::kE4M3, FpFormat::kE5M2, FpFormat::kBf16}) {
    const uint32_t n = f == FpFormat::kBf16 ? 65536u : 256u;
    for (uint32_t c = 0; c < n; ++c) {
      uint32_t want = c;
      if (is_nan_code(c, f)) want = canonical_nan(f);
      if (f == FpFormat::kE5M2 && (c & 0x7F) == 0x7C) want = c - 1;  // +-Inf -> +-57344
      ASSERT_EQ(g::fp_encode(g::fp_decode(c, f), f), want)
          << "format " << static_cast<int>(f) << " code " << std::hex << c;
      ++checked;
    }
  }
  std::printf("[fp] %zu codes round-tripped\n", checked);
}

TEST(GoldenFp, Fp32DecodeAndEncodeAreTheIdentity) {
  // FP32 goes through the same generic code as the narrow formats; on float32 itself it must
  // change nothing but NaNs (to the canonical one).
  auto rng = weft::tb::make_rng();
  size_t checked = 0;
  for (int i = 0; i < 200000; ++i) {
    uint32_t bits = static_cast<uint32_t>(rng());
    if (i % 2) bits &= 0x807FFFFFu;  // half of them float32 subnormals (and zeros)
    const uint32_t want = (bits & 0x7FFFFFFFu) > 0x7F800000u ? 0x7FC00000u : bits;
    ASSERT_EQ(std::bit_cast<uint32_t>(g::fp_decode(bits, FpFormat::kFp32)), want)
        << std::hex << bits;
    ASSERT_EQ(g::fp_encode(f32(bits), FpFormat::kFp32), want) << std::hex << bits;
    ++checked;
  }
  std::printf("[fp] FP32: %zu random patterns decoded and encoded unchanged\n", checked);
}

// ------------------------------------------------------------------------------------------------
// ml_dtypes, numpy and onnxruntime vectors
// ------------------------------------------------------------------------------------------------

TEST(GoldenFp, DecodeFp8MatchesMlDtypes) {
  LOAD_OR_FAIL("fp8_decode.txt", file);
  size_t checked[2] = {0, 0};
  Mismatches bad;
  for (const auto& r : file.rows) {
    ASSERT_EQ(r.f.size(), 3u) << file.path << ":" << r.line_no;
    const FpFormat f = format_named(r.f[0]);
    const uint32_t code = parse_hex(r.f[1]);
    const float want = f32(parse_hex(r.f[2]));
    const float got = g::fp_decode(code, f);
    ++checked[f == FpFormat::kE4M3 ? 0 : 1];
    // NaN: ml_dtypes' NaN is any NaN; ours must also be the canonical one (the API says so).
    const bool ok =
        same_f32(got, want) && (!std::isnan(want) || std::bit_cast<uint32_t>(got) == 0x7FC00000u);
    if (!ok) {
      bad.add(file.path + ":" + std::to_string(r.line_no) + ": " + r.f[0] + " code " + r.f[1] +
              ": ml_dtypes " + f32_str(want) + ", golden " + f32_str(got));
    }
  }
  std::printf("[fp] decode: %zu E4M3 and %zu E5M2 codes against ml_dtypes, %zu mismatches\n",
              checked[0], checked[1], bad.count);
  EXPECT_EQ(checked[0], 256u);
  EXPECT_EQ(checked[1], 256u);
  EXPECT_EQ(bad.count, 0u);
}

TEST(GoldenFp, Bf16EveryCodeMatchesMlDtypes) {
  // Per code c: the decoded value, and the encodings of the float32 patterns (c << 16) | 0000,
  // 7fff, 8000, 8001 (c's value, below / at / above the midpoint to the next code).
  LOAD_OR_FAIL("bf16.txt", file);
  const uint32_t lows[4] = {0x0000, 0x7FFF, 0x8000, 0x8001};
  size_t decoded = 0, encoded = 0;
  Mismatches bad;
  std::vector<bool> seen(65536, false);
  for (const auto& r : file.rows) {
    ASSERT_EQ(r.f.size(), 6u) << file.path << ":" << r.line_no;
    const uint32_t c = parse_hex(r.f[0]);
    ASSERT_LT(c, 65536u) << file.path << ":" << r.line_no;
    seen[c] = true;
    const std::string where = file.path + ":" + std::to_string(r.line_no) + ": code " + r.f[0];
    const float want = f32(parse_hex(r.f[1]));
    const float got = g::fp_decode(c, FpFormat::kBf16);
    ++decoded;
    if (!same_f32(got, want) || (std::isnan(want) && std::bit_cast<uint32_t>(got) != 0x7FC00000u)) {
      bad.add(where + ": decode: ml_dtypes " + f32_str(want) + ", golden " + f32_str(got));
    }
    for (int i = 0; i < 4; ++i) {
      const float x = f32((c << 16) | lows[i]);
      uint32_t enc = 0;
      ++encoded;
      if (!encode_matches(x, FpFormat::kBf16, parse_hex(r.f[2 + i]), &enc)) {
        char buf[96];
        std::snprintf(buf, sizeof buf, ": encode %08x: ml_dtypes %s, golden %04x",
                      (c << 16) | lows[i], r.f[2 + i].c_str(), enc);
        bad.add(where + buf);
      }
    }
  }
  std::printf(
      "[fp] BF16: %zu codes decoded and %zu float32 -> BF16 encodings (exact values, "
      "midpoints and their neighbours) against ml_dtypes, %zu mismatches\n",
      decoded, encoded, bad.count);
  EXPECT_EQ(std::count(seen.begin(), seen.end(), true), 65536);
  EXPECT_EQ(bad.count, 0u);
}

TEST(GoldenFp, EveryFp8ProductMatchesNumpy) {
  // Each FP8 x FP8 product is exact in float32 (at most 8 significant bits, normal range), so the
  // float32 product of the decoded operands is the product the array's multipliers must form.
  LOAD_OR_FAIL("fp8_products.txt", file);
  size_t checked = 0, nan_products = 0;
  Mismatches bad;
  std::vector<std::string> pairs_seen;
  for (const auto& r : file.rows) {
    ASSERT_EQ(r.f.size(), 258u) << file.path << ":" << r.line_no;
    const std::string& pair = r.f[0];
    const size_t x = pair.find('x');
    ASSERT_NE(x, std::string::npos) << file.path << ":" << r.line_no;
    const FpFormat fa = format_named(pair.substr(0, x));
    const FpFormat fw = format_named(pair.substr(x + 1));
    if (std::find(pairs_seen.begin(), pairs_seen.end(), pair) == pairs_seen.end()) {
      pairs_seen.push_back(pair);
    }
    const uint32_t a = parse_hex(r.f[1]);
    const float av = g::fp_decode(a, fa);
    for (uint32_t j = 0; j < 256; ++j) {
      const float want = f32(parse_hex(r.f[2 + j]) << 16);  // the file holds the top 16 bits
      const float got = av * g::fp_decode(j, fw);
      ++checked;
      nan_products += std::isnan(want);
      if (!same_f32(got, want)) {
        char buf[64];
        std::snprintf(buf, sizeof buf, ": %s %02x x %02x: ", pair.c_str(), a, j);
        bad.add(file.path + ":" + std::to_string(r.line_no) + buf + "numpy " + f32_str(want) +
                ", golden " + f32_str(got));
      }
    }
  }
  std::printf(
      "[fp] FP8 products: %zu (%zu pairs of formats x 256 x 256, %zu NaN) against numpy, "
      "%zu mismatches\n",
      checked, pairs_seen.size(), nan_products, bad.count);
  EXPECT_EQ(checked, 3u * 256u * 256u);
  EXPECT_EQ(pairs_seen.size(), 3u);
  EXPECT_EQ(bad.count, 0u);
}

namespace {

// encode.txt columns: x e4m3 e4m3_ort e5m2 e5m2_ort bf16.
struct EncodeColumn {
  const char* name;
  FpFormat f;
  int field;
};

void check_encode_columns(const VectorFile& file, std::initializer_list<EncodeColumn> cols,
                          const char* reference) {
  Mismatches bad;
  size_t checked = 0, nan_inputs = 0;
  for (const auto& r : file.rows) {
    ASSERT_EQ(r.f.size(), 6u) << file.path << ":" << r.line_no;
    const float x = f32(parse_hex(r.f[0]));
    nan_inputs += std::isnan(x);
    for (const EncodeColumn& c : cols) {
      uint32_t got = 0;
      ++checked;
      if (!encode_matches(x, c.f, parse_hex(r.f[c.field]), &got)) {
        char buf[64];
        std::snprintf(buf, sizeof buf, ", golden %0*x", c.f == FpFormat::kBf16 ? 4 : 2, got);
        bad.add(file.path + ":" + std::to_string(r.line_no) + ": " + c.name + "(" + f32_str(x) +
                "): " + reference + " " + r.f[c.field] + buf);
      }
    }
  }
  std::printf("[fp] encode: %zu inputs (%zu NaN), %zu encodings against %s, %zu mismatches\n",
              file.rows.size(), nan_inputs, checked, reference, bad.count);
  EXPECT_GE(file.rows.size(), 20000u) << file.path << " holds too few inputs";
  EXPECT_EQ(bad.count, 0u);
}

}  // namespace

TEST(GoldenFp, EncodeMatchesMlDtypes) {
  LOAD_OR_FAIL("encode.txt", file);
  check_encode_columns(
      file,
      {{"e4m3", FpFormat::kE4M3, 1}, {"e5m2", FpFormat::kE5M2, 3}, {"bf16", FpFormat::kBf16, 5}},
      "ml_dtypes (FP8: clipped to +-max first)");
}

TEST(GoldenFp, EncodeFp8MatchesOnnxruntime) {
  LOAD_OR_FAIL("encode.txt", file);
  if (file.comment_contains("# onnxruntime: unavailable")) {
    for (const auto& c : file.comments) {
      if (c.find("# onnxruntime") == 0) GTEST_SKIP() << c;
    }
  }
  ASSERT_FALSE(file.rows.empty());
  ASSERT_NE(file.rows[0].f[2], "--") << file.path << ": no onnxruntime column";
  check_encode_columns(file, {{"e4m3", FpFormat::kE4M3, 2}, {"e5m2", FpFormat::kE5M2, 4}},
                       "onnxruntime Cast(saturate=1)");
}

TEST(GoldenFp, EncodeMatchesNearestCodeSearch) {
  // An independent rounding rule on random inputs: the two codes bracketing |x| (by value, from
  // the sorted table of decoded codes), the nearer one, or at a tie the one with the even code.
  // FP8 saturates beyond max; BF16 treats Inf (value 2^128, even code 0x7F80) as the next code.
  auto rng = weft::tb::make_rng();
  size_t checked = 0;
  for (FpFormat f : {FpFormat::kE4M3, FpFormat::kE5M2, FpFormat::kBf16}) {
    const bool bf16 = f == FpFormat::kBf16;
    const uint32_t max_code = f == FpFormat::kE4M3 ? 0x7E : f == FpFormat::kE5M2 ? 0x7B : 0x7F7F;
    std::vector<double> value(max_code + 2);  // positive codes in increasing value
    for (uint32_t c = 0; c <= max_code; ++c) value[c] = g::fp_decode(c, f);
    value[max_code + 1] = std::ldexp(1.0, 128);  // BF16's Inf as a rounding target
    const uint32_t sign_bit = bf16 ? 0x8000u : 0x80u;
    const int max_exp = f == FpFormat::kE4M3 ? 9 : f == FpFormat::kE5M2 ? 16 : 127;
    const int min_exp = f == FpFormat::kE4M3 ? -11 : f == FpFormat::kE5M2 ? -18 : -149;
    for (int i = 0; i < 100000; ++i) {
      uint32_t bits;
      if (i % 4 == 0) {
        bits = static_cast<uint32_t>(rng());  // anywhere
      } else {                                // exponent in and around the format's range
        const int e = std::uniform_int_distribution<int>(min_exp, max_exp + 1)(rng);
        const int biased = std::max(0, e + 127);
        bits = (static_cast<uint32_t>(rng() & 1) << 31) | (static_cast<uint32_t>(biased) << 23) |
               static_cast<uint32_t>(rng() & 0x7FFFFF);
      }
      const float x = f32(bits);
      if (std::isnan(x)) continue;
      const double ax = std::fabs(static_cast<double>(x));
      uint32_t code;
      if (ax >= value[max_code] && !bf16) {
        code = max_code;  // saturate (Inf included)
      } else if (std::isinf(x)) {
        code = max_code + 1;
      } else {
        // lo = the largest code with value <= |x|; hi = lo + 1.
        const auto it = std::upper_bound(value.begin(), value.end(), ax);
        const uint32_t lo = static_cast<uint32_t>(it - value.begin()) - 1;
        if (value[lo] == ax) {
          code = lo;
        } else {
          // 2|x| against lo + hi: both sides exact in double (few significant bits).
          const double twice = 2.0 * ax, sum = value[lo] + value[lo + 1];
          code = twice < sum ? lo : twice > sum ? lo + 1 : ((lo & 1) ? lo + 1 : lo);
        }
      }
      const uint32_t want = (std::signbit(x) ? sign_bit : 0u) | code;
      const uint32_t got = g::fp_encode(x, f);
      ++checked;
      ASSERT_EQ(got, want) << "format " << static_cast<int>(f) << " x=" << f32_str(x);
    }
  }
  std::printf("[fp] encode: %zu random float32 values against a nearest-code search\n", checked);
}

// ------------------------------------------------------------------------------------------------
// GEMM
// ------------------------------------------------------------------------------------------------

namespace {

// E5M2 encodings (S.EEEEE.MM, bias 15) of the hand-worked GEMM cases below.
constexpr uint32_t kE5One = 0x3C;       // 1.0: exponent field 15
constexpr uint32_t kE5MinusOne = 0xBC;  // -1.0
constexpr uint32_t kE5Two = 0x40;       // 2.0: exponent field 16
constexpr uint32_t kE5P12 = 0x6C;       // 2^12: exponent field 27
constexpr uint32_t kE5MinusP12 = 0xEC;  // -2^12
constexpr uint32_t kE5M12 = 0x0C;       // 2^-12: exponent field 3
constexpr uint32_t kE5P15 = 0x78;       // 2^15: exponent field 30
constexpr uint32_t kE5MinusP15 = 0xF8;  // -2^15
constexpr uint32_t kE5M16 = 0x01;       // 2^-16: the smallest subnormal (1/4 * 2^-14)
constexpr uint32_t kE5Max = 0x7B;       // 57344 = 1.75 * 2^15 = 7 * 2^13
constexpr uint32_t kE5MinusMax = 0xFB;  // -57344
constexpr uint32_t kE5Zero = 0x00, kE5MinusZero = 0x80;
constexpr uint32_t kE5Inf = 0x7C, kE5MinusInf = 0xFC, kE5Nan = 0x7E;

// gemm_fp on one E5M2 row and column (M = N = 1, K = a.size()), returning the canonical bits.
uint32_t dot5(const std::vector<uint32_t>& a, const std::vector<uint32_t>& w, int tile_rows,
              bool accumulate = false, std::vector<float> c_in = {}) {
  const int k = static_cast<int>(a.size());
  return g::fp32_bits(
      g::gemm_fp(a, w, 1, k, 1, FpFormat::kE5M2, FpFormat::kE5M2, tile_rows, accumulate, c_in)[0]);
}

}  // namespace

TEST(GoldenFp, GemmTileSumIsRoundedOnce) {
  // a = w = [1, 2^-12, 2^-12]: products 1, 2^-24, 2^-24; 2^-24 is half an ulp of 1 (ulp 2^-23).
  const std::vector<uint32_t> x3 = {kE5One, kE5M12, kE5M12};
  // One tile: the exact sum 1 + 2^-23 is a float32 (0x3F800001) and is kept.
  EXPECT_EQ(dot5(x3, x3, 3), 0x3F800001u);
  EXPECT_EQ(dot5(x3, x3, 16), 0x3F800001u);
  // Tiles of 1: 1 + 2^-24 is a tie between 1 (even) and 1 + 2^-23: 1, twice.
  EXPECT_EQ(dot5(x3, x3, 1), 0x3F800000u);
  // Tiles of 2: {1, 2^-24} sums exactly to the same tie and rounds once to 1; then {2^-24}
  // leaves the array as 2^-24 and 1 + 2^-24 ties to 1 again.
  EXPECT_EQ(dot5(x3, x3, 2), 0x3F800000u);
  // Order within a tile does not matter. (With a rounding per product it would: 1 first loses
  // both 2^-24, as above in tiles of 1; 1 last finds them already summed to 2^-23.)
  const std::vector<uint32_t> r3 = {kE5M12, kE5M12, kE5One};
  EXPECT_EQ(dot5(r3, r3, 3), 0x3F800001u);

  // a = w = [1, 2^-12, 2^-12, 2^-12]: products 1 and three 2^-24.
  const std::vector<uint32_t> x4 = {kE5One, kE5M12, kE5M12, kE5M12};
  // One tile: 1 + 3 * 2^-24 = 1 + 1.5 ulp, a tie between 0x3F800001 (odd) and 0x3F800002: even.
  EXPECT_EQ(dot5(x4, x4, 4), 0x3F800002u);
  // Tiles of 3: 1 + 2^-23 (exact), then + 2^-24 in float32: the same tie, 0x3F800002.
  EXPECT_EQ(dot5(x4, x4, 3), 0x3F800002u);
  // Tiles of 2: {1, 2^-24} -> 1 (tie, even); {2^-24, 2^-24} -> 2^-23; 1 + 2^-23 = 0x3F800001.
  EXPECT_EQ(dot5(x4, x4, 2), 0x3F800001u);
  EXPECT_EQ(dot5(x4, x4, 1), 0x3F800000u);
}

TEST(GoldenFp, GemmTileSumIsExact) {
  // Products 2^24, 1, -2^24 in one tile: the exact sum is 1. An fma chain would round
  // 2^24 + 1 (a tie) to 2^24 and give 2^24 - 2^24 = +0.
  const std::vector<uint32_t> a = {kE5P12, kE5One, kE5MinusP12};
  const std::vector<uint32_t> w = {kE5P12, kE5One, kE5P12};
  EXPECT_EQ(dot5(a, w, 3), 0x3F800000u);
  // Tiles of 2: {2^24, 1} rounds once to 2^24 (tie, even), then 2^24 + (-2^24) = +0. Tiles of 1:
  // the same roundings in float32 adds.
  EXPECT_EQ(dot5(a, w, 2), 0x00000000u);
  EXPECT_EQ(dot5(a, w, 1), 0x00000000u);

  // The whole FP8 range in one sum: 2^30 + 2^-32 - 2^30 = 2^-32 (exponent 95: 0x2F800000), the
  // smallest E5M2 product next to the largest powers of two: 62 bits apart.
  const std::vector<uint32_t> wide_a = {kE5P15, kE5M16, kE5MinusP15};
  const std::vector<uint32_t> wide_w = {kE5P15, kE5M16, kE5P15};
  EXPECT_EQ(dot5(wide_a, wide_w, 3), 0x2F800000u);

  // Bits far below the rounding point still count (sticky): 2^24 + 1 is a tie and gives 2^24
  // (0x4B800000), 2^24 + 1 + 2^-32 is above it and gives 2^24 + 2 (0x4B800001).
  EXPECT_EQ(dot5({kE5P12, kE5One}, {kE5P12, kE5One}, 2), 0x4B800000u);
  EXPECT_EQ(dot5({kE5P12, kE5One, kE5M16}, {kE5P12, kE5One, kE5M16}, 3), 0x4B800001u);
  // 2^24 + 3: a tie between 2^24 + 2 (mantissa 1, odd) and 2^24 + 4 (mantissa 2): 0x4B800002.
  EXPECT_EQ(dot5({kE5P12, kE5One, kE5One}, {kE5P12, kE5One, kE5Two}, 3), 0x4B800002u);

  // The largest products: 57344^2 = 49 * 2^26, which as a multiple of 2^-32 (49 * 2^58) is already
  // beyond int64. Sixteen of them: 49 * 2^30, exact; with one sign flipped in w: its negative.
  const std::vector<uint32_t> max16(16, kE5Max), minus_max16(16, kE5MinusMax);
  EXPECT_EQ(dot5(max16, max16, 16), g::fp32_bits(49.0f * 0x1p30f));
  EXPECT_EQ(dot5(max16, minus_max16, 16), g::fp32_bits(-49.0f * 0x1p30f));
  // ... and the smallest product next to the largest is far below its half ulp: 49 * 2^26.
  EXPECT_EQ(dot5({kE5Max, kE5M16}, {kE5Max, kE5M16}, 2), g::fp32_bits(49.0f * 0x1p26f));
}

TEST(GoldenFp, GemmTileSumZeroIsPositive) {
  // Zero products of whatever signs, or products that cancel, give an exact zero sum: +0.
  EXPECT_EQ(dot5({kE5MinusZero, kE5MinusZero}, {kE5One, kE5One}, 2), 0x00000000u);
  EXPECT_EQ(dot5({kE5Zero, kE5One}, {kE5MinusOne, kE5Zero}, 2), 0x00000000u);  // -0 and +0
  EXPECT_EQ(dot5({kE5MinusZero}, {kE5One}, 1), 0x00000000u);
  EXPECT_EQ(dot5({kE5One, kE5One}, {kE5One, kE5MinusOne}, 2), 0x00000000u);         // 1 - 1
  EXPECT_EQ(dot5({kE5MinusZero, kE5MinusZero}, {kE5One, kE5One}, 1), 0x00000000u);  // +0 + +0
  // c_in = -0 plus a tile of -0 products: -0 + +0 = +0 (the tile's sum is +0, not -0).
  EXPECT_EQ(dot5({kE5MinusZero}, {kE5One}, 1, true, {-0.0f}), 0x00000000u);
  // c_in = -1 plus a tile summing to exactly 1: +0 in round to nearest.
  EXPECT_EQ(dot5({kE5One}, {kE5One}, 1, true, {-1.0f}), 0x00000000u);
}

TEST(GoldenFp, GemmAccumulateAddsTheInputFirst) {
  // E5M2 a = w = [2^-12, 2^-12] (0x0C): two products of 2^-24; c_in = 1.0.
  const std::vector<uint32_t> a = {0x0C, 0x0C};
  const std::vector<float> one = {1.0f};
  auto run = [&](int tile_rows, bool acc, std::span<const float> c_in) {
    return g::fp32_bits(
        g::gemm_fp(a, a, 1, 2, 1, FpFormat::kE5M2, FpFormat::kE5M2, tile_rows, acc, c_in)[0]);
  };
  // Tiles of 1: (1 + 2^-24) -> 1, (1 + 2^-24) -> 1. Adding c_in last would give 1 + 2^-23.
  EXPECT_EQ(run(1, true, one), 0x3F800000u);
  // One tile: 2^-23 exactly, then 1 + 2^-23.
  EXPECT_EQ(run(2, true, one), 0x3F800001u);
  // Without accumulate c_in is not read (nor its size checked): 2^-23 = 0x34000000.
  EXPECT_EQ(run(2, false, one), 0x34000000u);
  EXPECT_EQ(run(2, false, {}), 0x34000000u);
  EXPECT_THROW(run(2, true, {}), std::invalid_argument);

  // Signed zeros: an exactly zero tile sum is +0 (even of -0 products), and -0 + +0 = +0.
  const std::vector<uint32_t> neg_zero = {0x80}, one_e4m3 = {0x38};
  const std::vector<float> minus_zero = {-0.0f}, minus_one = {-1.0f};
  EXPECT_EQ(
      g::fp32_bits(g::gemm_fp(neg_zero, one_e4m3, 1, 1, 1, FpFormat::kE4M3, FpFormat::kE4M3, 4)[0]),
      0x00000000u);
  EXPECT_EQ(g::fp32_bits(g::gemm_fp(neg_zero, one_e4m3, 1, 1, 1, FpFormat::kE4M3, FpFormat::kE4M3,
                                    4, true, minus_zero)[0]),
            0x00000000u);
  EXPECT_EQ(g::fp32_bits(g::gemm_fp(one_e4m3, one_e4m3, 1, 1, 1, FpFormat::kE4M3, FpFormat::kE4M3,
                                    4, true, minus_one)[0]),
            0x00000000u);  // -1 + 1 = +0 in round to nearest
}

TEST(GoldenFp, GemmPropagatesNanAndInf) {
  const uint32_t kNan = 0x7FC00000u, kInf = 0x7F800000u, kMinusInf = 0xFF800000u;
  const float inf = std::numeric_limits<float>::infinity();
  EXPECT_EQ(dot5({kE5Inf}, {kE5Zero}, 4), kNan) << "Inf * 0";
  EXPECT_EQ(dot5({kE5Zero, kE5One}, {kE5MinusInf, kE5One}, 2), kNan) << "0 * -Inf in a tile";
  EXPECT_EQ(dot5({kE5Nan, kE5One}, {kE5One, kE5One}, 2), kNan) << "NaN operand";
  EXPECT_EQ(dot5({kE5Nan, kE5Inf}, {kE5One, kE5One}, 1), kNan) << "NaN tile, then +Inf";
  // +Inf and -Inf products in one tile: NaN. In different tiles: +Inf + -Inf in float32, NaN.
  const std::vector<uint32_t> inf_minf = {kE5Inf, kE5MinusInf}, ones = {kE5One, kE5One};
  EXPECT_EQ(dot5(inf_minf, ones, 2), kNan) << "+Inf and -Inf in a tile";
  EXPECT_EQ(dot5(inf_minf, ones, 1), kNan) << "+Inf and -Inf in different tiles";
  // An Inf product's sign is the product's, not the operand's: -Inf * -1 and +Inf * 1 agree.
  EXPECT_EQ(dot5({kE5MinusInf, kE5Inf}, {kE5MinusOne, kE5One}, 2), kInf);
  // Inf products of one sign win over any finite products, however large.
  EXPECT_EQ(dot5({kE5Inf, kE5Max}, {kE5One, kE5MinusMax}, 2), kInf);
  EXPECT_EQ(dot5({kE5Inf, kE5Inf, kE5One}, {kE5One, kE5Two, kE5One}, 3), kInf) << "two +Inf";
  EXPECT_EQ(dot5({kE5Inf, kE5One}, ones, 1), kInf);
  EXPECT_EQ(dot5({kE5MinusInf, kE5One}, ones, 2), kMinusInf);
  // The accumulator input takes part in the float32 adds: Inf + -Inf and NaN + x are NaN.
  EXPECT_EQ(dot5({kE5MinusInf}, {kE5One}, 4, true, {inf}), kNan) << "c_in Inf + tile -Inf";
  EXPECT_EQ(dot5({kE5One}, {kE5One}, 4, true, {std::nanf("")}), kNan) << "NaN c_in";
  EXPECT_EQ(dot5({kE5One}, {kE5One}, 4, true, {-inf}), kMinusInf);
  // E4M3 NaN (0x7F) in one operand poisons its output only (here times an E5M2 column).
  const std::vector<uint32_t> a = {0x7F, 0x38};  // M=2, K=1: rows NaN and 1.0
  const std::vector<uint32_t> w = {kE5One};
  const auto y = g::gemm_fp(a, w, 2, 1, 1, FpFormat::kE4M3, FpFormat::kE5M2, 4);
  EXPECT_EQ(g::fp32_bits(y[0]), kNan);
  EXPECT_EQ(y[1], 1.0f);
}

TEST(GoldenFp, GemmRejectsBadArguments) {
  const std::vector<uint32_t> four(4, 0x38), two(2, 0x38);
  const auto e4 = FpFormat::kE4M3, e5 = FpFormat::kE5M2, bf = FpFormat::kBf16;
  EXPECT_NO_THROW(g::gemm_fp(four, four, 2, 2, 2, e4, e5, 2));  // FP8 formats may mix
  EXPECT_NO_THROW(g::gemm_fp(four, four, 2, 2, 2, e5, e4, 2));
  EXPECT_THROW(g::gemm_fp(two, four, 2, 2, 2, e4, e4, 2), std::invalid_argument);
  EXPECT_THROW(g::gemm_fp(four, two, 2, 2, 2, e4, e4, 2), std::invalid_argument);
  EXPECT_THROW(g::gemm_fp(four, four, 2, 2, 2, e4, e4, 0), std::invalid_argument);
  EXPECT_THROW(g::gemm_fp(four, four, 2, 2, 2, e4, e4, -1), std::invalid_argument);
  EXPECT_THROW(g::gemm_fp({}, {}, 0, 2, 2, e4, e4, 2), std::invalid_argument);
  EXPECT_THROW(g::gemm_fp(four, four, 2, 2, 2, bf, e4, 2), std::invalid_argument);
  EXPECT_THROW(g::gemm_fp(four, four, 2, 2, 2, e5, bf, 2), std::invalid_argument);
  EXPECT_THROW(g::gemm_fp(four, four, 2, 2, 2, FpFormat::kFp32, FpFormat::kFp32, 2),
               std::invalid_argument);
  EXPECT_THROW(g::gemm_fp(four, four, 2, 2, 2, e4, FpFormat::kFp32, 2), std::invalid_argument);
  // BF16 multiplies BF16 only, and the message says so rather than calling the format unknown.
  try {
    g::gemm_fp(four, four, 2, 2, 2, bf, e4, 2);
    ADD_FAILURE() << "BF16 x E4M3 accepted";
  } catch (const std::invalid_argument& e) {
    EXPECT_NE(std::string(e.what()).find("BF16 operands multiply BF16 only"), std::string::npos)
        << e.what();
  }
  EXPECT_NO_THROW(g::gemm_fp(four, four, 2, 2, 2, bf, bf, 2));
  EXPECT_THROW(g::gemm_fp(four, four, 2, 2, 2, static_cast<FpFormat>(0), e4, 2),
               std::invalid_argument);
  EXPECT_THROW(g::gemm_fp(four, four, 2, 2, 2, e4, static_cast<FpFormat>(9), 2),
               std::invalid_argument);
  const std::vector<float> c3(3, 0.0f), c4(4, 0.0f);
  EXPECT_THROW(g::gemm_fp(four, four, 2, 2, 2, e4, e4, 2, true, c3), std::invalid_argument);
  EXPECT_NO_THROW(g::gemm_fp(four, four, 2, 2, 2, e4, e4, 2, true, c4));
}

namespace {

struct GemmFileTotals {
  size_t cases = 0, outputs = 0, nonfinite = 0, mismatches = 0;
  std::vector<std::string> combos;
};

// Runs every case of a gemm.txt-style file through gemm_fp and compares the outputs bit for bit
// (NaN as NaN).
GemmFileTotals check_gemm_file(const VectorFile& file) {
  GemmFileTotals t;
  for (const auto& c : file.comments) {
    if (c.find(" ties") != std::string::npos) std::printf("[fp vectors]%s\n", c.c_str() + 1);
  }
  Mismatches bad;
  const auto& rows = file.rows;
  auto values = [&](size_t i, const char* tag, size_t count) {
    if (i >= rows.size() || rows[i].f.empty() || rows[i].f[0] != tag ||
        rows[i].f.size() != count + 1) {
      throw std::runtime_error(file.path + ": expected a '" + tag + "' line of " +
                               std::to_string(count) + " values near line " +
                               std::to_string(i < rows.size() ? rows[i].line_no : -1));
    }
    std::vector<uint32_t> v;
    for (size_t j = 1; j < rows[i].f.size(); ++j) v.push_back(parse_hex(rows[i].f[j]));
    return v;
  };
  for (size_t i = 0; i < rows.size();) {
    const auto& h = rows[i].f;
    if (h.size() != 9 || h[0] != "case") {
      throw std::runtime_error(file.path + ":" + std::to_string(rows[i].line_no) + ": not a case");
    }
    const FpFormat af = format_named(h[2]), wf = format_named(h[3]);
    const int m = std::stoi(h[4]), k = std::stoi(h[5]), n = std::stoi(h[6]);
    const int tile_rows = std::stoi(h[7]);
    const bool acc = h[8] == "1";
    const size_t mk = static_cast<size_t>(m) * k, kn = static_cast<size_t>(k) * n;
    const size_t mn = static_cast<size_t>(m) * n;
    const auto a = values(i + 1, "a", mk);
    const auto w = values(i + 2, "w", kn);
    size_t next = i + 3;
    std::vector<float> c_in;
    if (acc) {
      for (uint32_t b : values(next++, "c", mn)) c_in.push_back(f32(b));
    }
    const auto y = values(next++, "y", mn);
    const auto got = g::gemm_fp(a, w, m, k, n, af, wf, tile_rows, acc, c_in);
    const std::string combo = h[2] + "x" + h[3];
    if (std::find(t.combos.begin(), t.combos.end(), combo) == t.combos.end()) {
      t.combos.push_back(combo);
    }
    for (size_t j = 0; j < mn; ++j) {
      ++t.outputs;
      t.nonfinite += !std::isfinite(f32(y[j]));
      if (!same_f32(got[j], f32(y[j]))) {
        bad.add(file.path + ": case " + h[1] + " output " + std::to_string(j) + " (row " +
                std::to_string(j / n) + ", col " + std::to_string(j % n) + "): reference " +
                f32_str(f32(y[j])) + ", golden " + f32_str(got[j]));
      }
    }
    ++t.cases;
    i = next;
  }
  t.mismatches = bad.count;
  return t;
}

}  // namespace

TEST(GoldenFp, GemmMatchesExactReferences) {
  // The script's two references (exact rationals; Python integers) agree on every tile sum; the
  // file's header counts the ties at the one rounding and the outputs where the old per-tile fma
  // chain differs, which the script requires to be present.
  LOAD_OR_FAIL("gemm.txt", file);
  for (const auto& c : file.comments) {
    if (c.find(" ties") != std::string::npos) std::printf("[fp vectors]%s\n", c.c_str() + 1);
  }
  const GemmFileTotals t = check_gemm_file(file);
  std::printf(
      "[fp] GEMM: %zu cases (%zu FP8 format pairs), %zu outputs (%zu not finite) against the "
      "exact references, %zu mismatches\n",
      t.cases, t.combos.size(), t.outputs, t.nonfinite, t.mismatches);
  EXPECT_EQ(t.combos.size(), 4u);
  EXPECT_GE(t.cases, 32u);
  EXPECT_GT(t.nonfinite, 0u);
  EXPECT_EQ(t.mismatches, 0u);
}

TEST(GoldenFp, GemmBf16MatchesExactFmaChain) {
  // BF16 x BF16: a fused multiply-add per row (the script's exact-rational fma), std::fmaf here.
  LOAD_OR_FAIL("gemm_bf16.txt", file);
  for (const auto& c : file.comments) {
    if (c.find(" differ") != std::string::npos) std::printf("[fp vectors]%s\n", c.c_str() + 1);
  }
  const GemmFileTotals t = check_gemm_file(file);
  std::printf(
      "[fp] BF16 GEMM: %zu cases, %zu outputs (%zu not finite) against the exact fma chain, "
      "%zu mismatches\n",
      t.cases, t.outputs, t.nonfinite, t.mismatches);
  EXPECT_EQ(t.combos, std::vector<std::string>{"bf16xbf16"});
  EXPECT_GE(t.cases, 20u);
  EXPECT_GT(t.nonfinite, 0u);
  EXPECT_EQ(t.mismatches, 0u);
}

// ------------------------------------------------------------------------------------------------
// Output stage
// ------------------------------------------------------------------------------------------------

TEST(GoldenFp, PostprocessHandWorked) {
  // (1 + 2^-12)^2 = 1 + 2^-11 + 2^-24 rounds (tie, even) to 1 + 2^-11; adding -(1 + 2^-11) gives
  // +0. One fused multiply-add would keep 2^-24 (0x33800000).
  const float a = 1.0f + 0x1p-12f;
  EXPECT_EQ(g::fp32_bits(g::fp_postprocess(a, a, -(1.0f + 0x1p-11f), false)), 0x00000000u);
  EXPECT_EQ(g::fp32_bits(g::fp_postprocess(-0.0f, 1.0f, -0.0f, false)), 0x80000000u);
  EXPECT_EQ(g::fp32_bits(g::fp_postprocess(-0.0f, 1.0f, -0.0f, true)), 0x00000000u);
  EXPECT_EQ(g::fp32_bits(g::fp_postprocess(-3.0f, 2.0f, 1.0f, true)), 0x00000000u);
  EXPECT_EQ(g::fp_postprocess(-3.0f, 2.0f, 1.0f, false), -5.0f);
  EXPECT_EQ(g::fp_postprocess(3.0f, 2.0f, 1.0f, true), 7.0f);
  const float inf = std::numeric_limits<float>::infinity();
  EXPECT_TRUE(std::isnan(g::fp_postprocess(inf, 0.0f, 0.0f, true))) << "relu lets NaN through";
  EXPECT_EQ(g::fp32_bits(g::fp_postprocess(-inf, 1.0f, 0.0f, true)), 0x00000000u);
  EXPECT_EQ(g::fp_postprocess(3e38f, 2.0f, 0.0f, false), inf);
}

TEST(GoldenFp, PostprocessMatchesNumpy) {
  LOAD_OR_FAIL("postprocess.txt", file);
  size_t checked = 0, relu = 0, neg_zero = 0;
  Mismatches bad;
  for (const auto& r : file.rows) {
    ASSERT_EQ(r.f.size(), 5u) << file.path << ":" << r.line_no;
    const float acc = f32(parse_hex(r.f[0])), scale = f32(parse_hex(r.f[1]));
    const float bias = f32(parse_hex(r.f[2])), want = f32(parse_hex(r.f[4]));
    const bool do_relu = r.f[3] == "1";
    const float got = g::fp_postprocess(acc, scale, bias, do_relu);
    ++checked;
    relu += do_relu;
    neg_zero += std::bit_cast<uint32_t>(want) == 0x80000000u;
    if (!same_f32(got, want)) {
      bad.add(file.path + ":" + std::to_string(r.line_no) + ": acc " + f32_str(acc) + " scale " +
              f32_str(scale) + " bias " + f32_str(bias) + (do_relu ? " relu" : "") + ": numpy " +
              f32_str(want) + ", golden " + f32_str(got));
    }
  }
  std::printf(
      "[fp] output stage: %zu values (%zu with relu, %zu results -0) against numpy, "
      "%zu mismatches\n",
      checked, relu, neg_zero, bad.count);
  EXPECT_GE(checked, 300u);
  EXPECT_EQ(bad.count, 0u);
}
