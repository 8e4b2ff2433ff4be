// FP8 and BF16 tensor modes through whole devices (ref://, ref:// in random order, sim:// plain
// and with back-pressure): random GEMMs in every operand format pair and every output format,
// compared bit for bit with weft::golden (gemm_fp, fp_postprocess, fp_encode:
// sw/golden/.../fp.hpp), and the descriptor fields the device must refuse (PARAM) or the driver
// must refuse (bad argument).
#include <gtest/gtest.h>

#include <bit>
#include <cstdio>
#include <cstring>
#include <random>
#include <string>
#include <vector>

#include "backends.hpp"
#include "weft/golden/fp.hpp"
#include "weft/weft.hpp"

namespace {
using weft::ElemFormat;
using weft::ErrorCode;
namespace g = weft::golden;

const char* fmt_name(ElemFormat f) {
  switch (f) {
    case ElemFormat::kE4m3: return "E4M3";
    case ElemFormat::kE5m2: return "E5M2";
    case ElemFormat::kBf16: return "BF16";
    case ElemFormat::kFp32: return "FP32";
    default: return "INT";
  }
}

bool fp8_special(uint8_t b, ElemFormat f) {
  return f == ElemFormat::kE4m3 ? (b & 0x7f) == 0x7f : (b & 0x7c) == 0x7c;
}

class FpSystem : public weft::tb::system::DeviceTest {
 protected:
  void SetUp() override {
    DeviceTest::SetUp();
    if (!dev_->caps().tensor_fp) GTEST_SKIP() << "this device has no FP8 modes (CAP4.fp = 0)";
  }

  // n FP8 encodings of format f; without specials, NaN and Inf codes are drawn again.
  std::vector<uint8_t> rand_fp8(size_t n, ElemFormat f, bool specials) {
    std::vector<uint8_t> v(n);
    for (auto& b : v) {
      do {
        b = static_cast<uint8_t>(rand_int(0, 255));
      } while (!specials && fp8_special(b, f));
    }
    return v;
  }

  // n BF16 codes: mostly magnitudes within 2^-27..2^27 (sums that round, cancel and stay
  // finite), one in eight anywhere in the range (overflow, subnormals); with specials also
  // +-0, +-Inf and NaNs.
  std::vector<uint32_t> rand_bf16(size_t n, bool specials) {
    std::vector<uint32_t> v(n);
    for (auto& c : v) {
      const uint32_t sign = rand_int(0, 1) ? 0x8000u : 0u;
      const int exp = rand_int(0, 7) == 0 ? rand_int(0, 254) : rand_int(100, 154);
      c = sign | (uint32_t(exp) << 7) | uint32_t(rand_int(0, 127));
      if (specials && rand_int(0, 15) == 0) {
        constexpr uint32_t kSpecial[] = {0x0000, 0x8000, 0x7f80, 0xff80, 0x7fc0, 0xffc1};
        c = kSpecial[rand_int(0, 5)];
      }
    }
    return v;
  }

  // Operand codes of format f, and their bytes as the driver takes them (BF16: little-endian).
  struct Operand {
    std::vector<uint32_t> codes;
    std::vector<uint8_t> bytes;
  };
  Operand rand_operand(size_t n, ElemFormat f, bool specials) {
    Operand o;
    if (f == ElemFormat::kBf16) {
      o.codes = rand_bf16(n, specials);
      for (uint32_t c : o.codes) {
        o.bytes.push_back(uint8_t(c));
        o.bytes.push_back(uint8_t(c >> 8));
      }
    } else {
      o.bytes = rand_fp8(n, f, specials);
      o.codes.assign(o.bytes.begin(), o.bytes.end());
    }
    return o;
  }

  // One GEMM on the device against the golden rule; returns the elements compared.
  size_t check(int m, int n, int k, ElemFormat af, ElemFormat wf, ElemFormat of, bool specials) {
    SCOPED_TRACE(std::string("M=") + std::to_string(m) + " N=" + std::to_string(n) +
                 " K=" + std::to_string(k) + " " + fmt_name(af) + " x " + fmt_name(wf) + " -> " +
                 fmt_name(of));
    const Operand ao = rand_operand(size_t(m) * k, af, specials);
    const Operand wo = rand_operand(size_t(k) * n, wf, specials);
    const std::vector<uint8_t>& a = ao.bytes;
    const std::vector<uint8_t>& w = wo.bytes;
    weft::GemmOptions opt;
    opt.a.format = af;
    opt.w.format = wf;
    opt.out.format = of;
    opt.out.relu = rand_int(0, 1) == 1;
    std::uniform_real_distribution<float> scale_d(0.25f, 4.0f), bias_d(-100.0f, 100.0f);
    const int scales = rand_int(0, 2);  // none, one, per column
    for (int i = 0; i < (scales == 2 ? n : scales); ++i) opt.out.scale.push_back(scale_d(rng_));
    if (rand_int(0, 1)) {
      for (int i = 0; i < n; ++i) opt.out.fp_bias.push_back(bias_d(rng_));
    }

    const auto acc = g::gemm_fp(ao.codes, wo.codes, m, k, n, static_cast<g::FpFormat>(af),
                                static_cast<g::FpFormat>(wf), int(dev_->caps().rows));
    std::vector<uint32_t> want(acc.size());
    for (size_t i = 0; i < acc.size(); ++i) {
      const int col = int(i % n);
      const float s = opt.out.scale.empty()        ? 1.0f
                      : opt.out.scale.size() == 1 ? opt.out.scale[0]
                                                  : opt.out.scale[col];
      const float b = opt.out.fp_bias.empty() ? 0.0f : opt.out.fp_bias[col];
      const float y = g::fp_postprocess(acc[i], s, b, opt.out.relu);
      want[i] = of == ElemFormat::kFp32 ? g::fp32_bits(y)
                                        : g::fp_encode(y, static_cast<g::FpFormat>(of));
    }

    std::vector<uint32_t> got(want.size());
    weft::OpStats st;
    if (of == ElemFormat::kFp32) {
      std::vector<float> out(want.size());
      st = weft::gemm(*dev_, m, n, k, a, w, out, opt);
      for (size_t i = 0; i < out.size(); ++i) got[i] = std::bit_cast<uint32_t>(out[i]);
    } else if (of == ElemFormat::kBf16) {
      std::vector<uint16_t> out(want.size());
      st = weft::gemm(*dev_, m, n, k, a, w, out, opt);
      got.assign(out.begin(), out.end());
    } else {
      std::vector<uint8_t> out(want.size());
      st = weft::gemm(*dev_, m, n, k, a, w, out, opt);
      got.assign(out.begin(), out.end());
    }
    size_t bad = 0;
    for (size_t i = 0; i < got.size(); ++i) {
      if (got[i] != want[i] && bad++ < 5) {
        ADD_FAILURE() << "C[" << i / n << "][" << i % n << "] = 0x" << std::hex << got[i]
                      << ", golden 0x" << want[i] << " (FP32 sum " << acc[i] << ")";
      }
    }
    EXPECT_EQ(bad, 0u) << st.schedule;
    return got.size();
  }

  // Submits `bad` and expects PARAM at its index, then resets the queue.
  void expect_param(const weft::Descriptor& bad, const char* what) {
    SCOPED_TRACE(what);
    auto& q = dev_->queue();
    const uint64_t index = q.submit(bad);
    try {
      q.wait(index);
      ADD_FAILURE() << "no error reported";
    } catch (const weft::Error& e) {
      EXPECT_EQ(e.code(), weft::to_errc(ErrorCode::kParam)) << e.what();
      EXPECT_EQ(e.index(), index) << e.what();
    }
    q.reset();
  }
};

constexpr ElemFormat kFp8[] = {ElemFormat::kE4m3, ElemFormat::kE5m2};
constexpr ElemFormat kOut[] = {ElemFormat::kFp32, ElemFormat::kBf16, ElemFormat::kE4m3,
                               ElemFormat::kE5m2};

TEST_P(FpSystem, Fp8GemmsMatchGoldenInEveryFormatPairAndOutput) {
  const int rows = int(dev_->caps().rows), cols = int(dev_->caps().cols);
  for (ElemFormat af : kFp8) {
    for (ElemFormat wf : kFp8) {
      size_t compared = 0;
      for (ElemFormat of : kOut) {
        // Shapes around the array's edges: a short last k-tile, a partial column strip.
        const int m = sim() ? rand_int(1, 24) : rand_int(1, 80);
        const int n = rand_int(1, cols + cols / 2);
        const int k = rand_int(1, (sim() ? 2 : 5) * rows + 3);
        compared += check(m, n, k, af, wf, of, false);
      }
      std::printf("[ FP8 GEMM ] %s x %s: %zu elements bit-exact to golden\n", fmt_name(af),
                  fmt_name(wf), compared);
    }
  }
}

TEST_P(FpSystem, Bf16GemmsMatchGoldenInEveryOutput) {
  // BF16 rows are two scratchpad lines each: the compute engine joins them, the driver packs
  // them, and the decoder checks the second line's range.
  const int rows = int(dev_->caps().rows), cols = int(dev_->caps().cols);
  size_t compared = 0;
  for (ElemFormat of : kOut) {
    const int m = sim() ? rand_int(1, 24) : rand_int(1, 80);
    const int n = rand_int(1, cols + cols / 2);
    const int k = rand_int(1, (sim() ? 2 : 5) * rows + 3);
    compared += check(m, n, k, ElemFormat::kBf16, ElemFormat::kBf16, of, false);
  }
  std::printf("[ BF16 GEMM ] BF16 x BF16: %zu elements bit-exact to golden\n", compared);
}

TEST_P(FpSystem, Conv2dInFp8AndBf16MatchesGolden) {
  // conv2d = im2col + gemm: the expectation gathers each output pixel's taps in the filter's
  // (kh, kw, c_in) order (the K order of the API), +0 where the window leaves the padded input,
  // and applies the golden GEMM rule to them.
  for (const ElemFormat f : {ElemFormat::kE4m3, ElemFormat::kBf16}) {
    weft::Conv2dShape s;
    s.n = rand_int(1, 2);
    s.h = rand_int(3, 7);
    s.w = rand_int(3, 7);
    s.c_in = rand_int(1, 20);
    s.kh = s.kw = 3;
    s.c_out = rand_int(1, 20);
    s.stride_h = s.stride_w = rand_int(1, 2);
    s.pad_top = s.pad_left = s.pad_bottom = s.pad_right = 1;
    SCOPED_TRACE(std::string(fmt_name(f)) + " conv2d " + std::to_string(s.n) + "x" +
                 std::to_string(s.h) + "x" + std::to_string(s.w) + "x" +
                 std::to_string(s.c_in) + " * " + std::to_string(s.c_out) + "x3x3");
    const Operand in = rand_operand(size_t(s.n) * s.h * s.w * s.c_in, f, false);
    const Operand flt = rand_operand(size_t(s.c_out) * 9 * s.c_in, f, false);
    const int oh = s.out_h(), ow = s.out_w(), K = 9 * s.c_in, M = s.n * oh * ow;
    std::vector<uint32_t> cols(size_t(M) * K, 0), w(size_t(K) * s.c_out);
    for (int b = 0; b < s.n; ++b) {
      for (int y = 0; y < oh; ++y) {
        for (int x = 0; x < ow; ++x) {
          const size_t row = (size_t(b) * oh + y) * ow + x;
          for (int i = 0; i < 3; ++i) {
            for (int j = 0; j < 3; ++j) {
              const int iy = y * s.stride_h - 1 + i, ix = x * s.stride_w - 1 + j;
              if (iy < 0 || iy >= s.h || ix < 0 || ix >= s.w) continue;
              for (int c = 0; c < s.c_in; ++c) {
                cols[row * K + (i * 3 + j) * s.c_in + c] =
                    in.codes[((size_t(b) * s.h + iy) * s.w + ix) * s.c_in + c];
              }
            }
          }
        }
      }
    }
    for (int o = 0; o < s.c_out; ++o) {
      for (int k = 0; k < K; ++k) w[size_t(k) * s.c_out + o] = flt.codes[size_t(o) * K + k];
    }
    const auto gf = static_cast<g::FpFormat>(f);
    const auto acc = g::gemm_fp(cols, w, M, K, s.c_out, gf, gf, int(dev_->caps().rows));
    weft::GemmOptions opt;
    opt.a.format = opt.w.format = f;
    opt.out.format = ElemFormat::kFp32;
    std::vector<float> out(acc.size());
    const weft::OpStats st = weft::conv2d(*dev_, s, in.bytes, flt.bytes, out, opt);
    size_t bad = 0;
    for (size_t i = 0; i < out.size(); ++i) {
      if (g::fp32_bits(out[i]) != g::fp32_bits(acc[i]) && bad++ < 5) {
        ADD_FAILURE() << "out[" << i << "] = " << out[i] << ", golden " << acc[i];
      }
    }
    EXPECT_EQ(bad, 0u) << st.schedule;
  }
}

TEST_P(FpSystem, LongKAccumulatesAcrossTilesInFp32) {
  // Several COMPUTEs add into one accumulator row (FP32 adds between k-tiles).
  const int rows = int(dev_->caps().rows);
  check(3, 5, 7 * rows + 5, ElemFormat::kE4m3, ElemFormat::kE5m2, ElemFormat::kFp32, false);
  check(3, 5, 7 * rows + 5, ElemFormat::kBf16, ElemFormat::kBf16, ElemFormat::kFp32, false);
}

TEST_P(FpSystem, NanAndInfinityPropagateAsGoldenSays) {
  for (ElemFormat f : kFp8) check(6, 9, 11, f, f, ElemFormat::kFp32, true);
  check(4, 7, 5, ElemFormat::kE5m2, ElemFormat::kE5m2, ElemFormat::kE5m2, true);
  check(6, 9, 21, ElemFormat::kBf16, ElemFormat::kBf16, ElemFormat::kFp32, true);
  check(4, 7, 5, ElemFormat::kBf16, ElemFormat::kBf16, ElemFormat::kBf16, true);
}

TEST_P(FpSystem, FormatFieldsOutsideTheRulesAreParamErrors) {
  weft::Buffer b = dev_->alloc(4096);
  weft::ComputeArgs c;
  c.m = 1;
  c.k = 4;
  c.a_fmt = ElemFormat::kE4m3;  // W integer
  expect_param(weft::Descriptor::compute(c), "COMPUTE E4M3 x INT");
  c.a_fmt = ElemFormat::kInt;
  c.w_fmt = ElemFormat::kE5m2;
  expect_param(weft::Descriptor::compute(c), "COMPUTE INT x E5M2");
  c.a_fmt = ElemFormat::kBf16;
  c.w_fmt = ElemFormat::kE4m3;
  expect_param(weft::Descriptor::compute(c), "COMPUTE BF16 x E4M3");
  c.a_fmt = ElemFormat::kE5m2;
  c.w_fmt = ElemFormat::kBf16;
  expect_param(weft::Descriptor::compute(c), "COMPUTE E5M2 x BF16");
  c.a_fmt = c.w_fmt = ElemFormat::kFp32;
  expect_param(weft::Descriptor::compute(c), "COMPUTE FP32 operands");
  weft::StoreAccArgs s;
  s.host_addr = b.device_address();
  s.host_stride = 64;
  s.m = 1;
  s.n = 1;
  s.out_fmt = static_cast<ElemFormat>(5);
  expect_param(weft::Descriptor::store_acc(s), "STORE_ACC out_fmt 5");
  s.out_fmt = ElemFormat::kFp32;
  s.pack = true;
  expect_param(weft::Descriptor::store_acc(s), "STORE_ACC FP32 packed");
  // The queue works after the resets: a legal FP8 GEMM.
  check(2, 3, 4, ElemFormat::kE4m3, ElemFormat::kE4m3, ElemFormat::kE4m3, false);
}

TEST_P(FpSystem, Bf16RowsSecondLineIsRangeChecked) {
  // A BF16 row at the scratchpad's last line would read its second line past the end:
  // SPAD_RANGE, for A and for W; the same row one line lower is legal.
  const uint32_t last = dev_->caps().spad_lines - 1;
  auto& q = dev_->queue();
  for (const bool a_side : {true, false}) {
    weft::ComputeArgs c;
    c.m = 1;
    c.k = 1;
    c.a_fmt = c.w_fmt = ElemFormat::kBf16;
    (a_side ? c.a_addr : c.w_addr) = last;
    SCOPED_TRACE(a_side ? "A" : "W");
    const uint64_t index = q.submit(weft::Descriptor::compute(c));
    try {
      q.wait(index);
      ADD_FAILURE() << "no error reported";
    } catch (const weft::Error& e) {
      EXPECT_EQ(e.code(), weft::to_errc(ErrorCode::kSpadRange)) << e.what();
      EXPECT_EQ(e.index(), index) << e.what();
    }
    q.reset();
    (a_side ? c.a_addr : c.w_addr) = last - 1;
    q.wait(q.submit(weft::Descriptor::compute(c)));
  }
  check(2, 3, 4, ElemFormat::kBf16, ElemFormat::kBf16, ElemFormat::kBf16, false);
}

TEST_P(FpSystem, DriverRefusesMixedAndMismatchedFormats) {
  const std::vector<uint8_t> a(4, 0x38), w(4, 0x38);
  std::vector<float> f(4);
  std::vector<uint8_t> u(4);
  weft::GemmOptions opt;
  opt.a.format = ElemFormat::kE4m3;  // W integer
  opt.out.format = ElemFormat::kFp32;
  EXPECT_THROW(weft::gemm(*dev_, 2, 2, 2, a, w, f, opt), weft::Error);
  opt.w.format = ElemFormat::kE4m3;
  opt.out.format = ElemFormat::kInt;  // integer output stage on FP32 sums
  EXPECT_THROW(weft::gemm(*dev_, 2, 2, 2, a, w, u, opt), weft::Error);
  opt.out.format = ElemFormat::kFp32;  // a byte span for FP32 out
  EXPECT_THROW(weft::gemm(*dev_, 2, 2, 2, a, w, u, opt), weft::Error);
  opt.w.format = ElemFormat::kBf16;  // BF16 pairs with BF16 only
  EXPECT_THROW(weft::gemm(*dev_, 2, 2, 2, a, w, f, opt), weft::Error);
  opt.w.format = ElemFormat::kE4m3;
  opt.a.zero_point = 3;  // FP8 takes no zero point
  EXPECT_THROW(weft::gemm(*dev_, 2, 2, 2, a, w, f, opt), weft::Error);
  opt.a.zero_point = 0;
  opt.out.fp_bias = {1.0f};  // neither N values nor none
  EXPECT_THROW(weft::gemm(*dev_, 2, 2, 2, a, w, f, opt), weft::Error);
  opt.out.fp_bias.clear();
  EXPECT_NO_THROW(weft::gemm(*dev_, 2, 2, 2, a, w, f, opt));
  // 0x38 is 1.0 in E4M3: each element is 1 * 1 + 1 * 1.
  EXPECT_EQ(f, std::vector<float>(4, 2.0f));
}

INSTANTIATE_TEST_SUITE_P(Backends, FpSystem,
                         ::testing::ValuesIn(weft::tb::system::backends()),
                         weft::tb::system::backend_name);

}  // namespace
