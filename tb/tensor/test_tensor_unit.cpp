// Block tests of weft_tensor_unit against the golden model (sw/golden). Built once per
// configuration (tb/tensor/tensor_unit.cmake): WEFT_MODEL, WEFT_ROWS, WEFT_COLS, WEFT_ACC_DEPTH
// and the suite name WEFT_SUITE (e.g. TensorUnit16x16) come from the build.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdio>
#include <random>
#include <vector>

#include WEFT_MODEL_HEADER
#include "tu_driver.hpp"
#include "weft/golden/quant.hpp"
#include "weft/tb/options.hpp"

namespace {

using Model = WEFT_MODEL;
using weft::tb::Harness;
using weft::tb::TuCmd;
using weft::tb::TuDriver;
using weft::tb::TuStress;
namespace golden = weft::golden;

constexpr int kRows = WEFT_ROWS;
constexpr int kCols = WEFT_COLS;
constexpr int kAccDepth = WEFT_ACC_DEPTH;
constexpr int kBank = kAccDepth / 2;

enum class Family { kNone, kTflite, kOnnx };

struct Problem {
  int m = 1, k = 1, n = 1;
  golden::OperandType at, wt;
  std::vector<int32_t> a, w;
  golden::OutputParams out;
  bool pack = false;
  uint32_t addr = 0;
};

class WEFT_SUITE : public ::testing::Test {
 protected:
  void SetUp() override {
    auto& d = h.dut();
    d.cmd_valid_i = 0;
    d.w_valid_i = 0;
    d.a_valid_i = 0;
    d.pc_we_i = 0;
    d.o_ready_i = 0;
    h.reset();
  }

  std::mt19937_64& rng() { return rng_; }
  int uni(int lo, int hi) { return std::uniform_int_distribution<int>(lo, hi)(rng_); }
  bool coin(double p = 0.5) { return std::uniform_real_distribution<double>(0, 1)(rng_) < p; }

  golden::OperandType random_type() {
    golden::OperandType t;
    t.is_signed = coin();
    t.zero_point = coin(0.3) ? 0 : (t.is_signed ? uni(-128, 127) : uni(0, 255));
    return t;
  }
  int32_t random_value(const golden::OperandType& t) {
    return t.is_signed ? uni(-128, 127) : uni(0, 255);
  }

  std::vector<golden::ChannelParams> random_channels(Family f) {
    std::vector<golden::ChannelParams> ch(kCols);
    for (auto& c : ch) {
      c.bias = coin(0.1) ? static_cast<int32_t>(rng_()) : uni(-(1 << 20), 1 << 20);
      if (f == Family::kTflite) {
        c.multiplier = coin(0.9) ? uni(1 << 30, 0x7fffffff) : static_cast<int32_t>(rng_());
        c.shift = coin(0.8) ? uni(-20, 2) : uni(-31, 30);
      } else if (f == Family::kOnnx) {
        const float mag = std::ldexp(std::uniform_real_distribution<float>(1.0f, 2.0f)(rng_),
                                     coin(0.9) ? uni(-22, -2) : uni(-140, 20));
        c.scale = coin(0.1) ? -mag : mag;
      }
    }
    return ch;
  }

  golden::OutputParams random_output(Family f, bool* pack) {
    golden::OutputParams o;
    *pack = false;
    if (f == Family::kNone) {
      o.mode = golden::RequantMode::kNone;
      return o;
    }
    o.mode = f == Family::kOnnx ? golden::RequantMode::kOnnx
             : coin()           ? golden::RequantMode::kTfliteDouble
                                : golden::RequantMode::kTfliteSingle;
    const bool out_signed = coin();
    o.zero_point = out_signed ? uni(-128, 127) : uni(0, 255);
    const auto act = static_cast<golden::Activation>(uni(0, 2));
    golden::activation_bounds(act, out_signed, o.zero_point, 0.05f, &o.act_min, &o.act_max);
    *pack = coin(0.7);
    return o;
  }

  Problem random_problem(Family f, int max_k, uint32_t bank) {
    Problem p;
    p.m = coin(0.2) ? uni(1, 4) : uni(1, std::min(kBank, 3 * (kRows + kCols)));
    p.k = coin(0.2) ? uni(1, kRows) : uni(1, max_k);
    p.n = coin(0.7) ? kCols : uni(1, kCols);
    p.at = random_type();
    p.wt = random_type();
    p.a.resize(static_cast<size_t>(p.m) * p.k);
    p.w.resize(static_cast<size_t>(p.k) * p.n);
    for (auto& v : p.a) v = random_value(p.at);
    for (auto& v : p.w) v = random_value(p.wt);
    p.out = random_output(f, &p.pack);
    p.addr = bank * kBank + static_cast<uint32_t>(uni(0, kBank - 1));  // rows may wrap in the bank
    return p;
  }

  // Queues the problems, runs to completion and checks every output value. Returns the number
  // of weight tiles (GEMM tiles through the array) that were checked.
  int run_and_check(const std::vector<Problem>& ps, const std::vector<golden::ChannelParams>& ch,
                    Family f) {
    drv.set_channels(ch, f == Family::kOnnx);
    int tiles = 0;
    for (const auto& p : ps) {
      drv.queue_gemm(p.a, p.w, p.m, p.k, p.n, p.at, p.wt, p.addr, p.out, p.pack);
      tiles += (p.k + kRows - 1) / kRows;
    }
    drv.run(50'000'000);
    size_t row = 0;
    int pi = 0;
    for (const auto& p : ps) {
      const auto acc = golden::gemm(p.a, p.w, p.m, p.k, p.n, p.at, p.wt);
      std::vector<golden::ChannelParams> chn(ch.begin(), ch.begin() + p.n);
      const auto want = golden::postprocess(acc, p.m, p.n, chn, p.out);
      for (int i = 0; i < p.m; ++i, ++row) {
        if (row >= drv.outputs().size()) {
          ADD_FAILURE() << "missing output row " << row;
          return tiles;
        }
        const auto got = TuDriver<Model>::decode(drv.outputs()[row], p.n, p.pack);
        for (int c = 0; c < p.n; ++c) {
          const int32_t e = p.pack ? (want[i * p.n + c] & 0xff) : want[i * p.n + c];
          if (got[c] != e) {
            ADD_FAILURE() << "problem " << pi << " (m=" << p.m << " k=" << p.k << " n=" << p.n
                          << " mode=" << int(p.out.mode) << " pack=" << p.pack << ") row " << i
                          << " col " << c << ": got " << got[c] << " want " << e
                          << " (acc " << acc[i * p.n + c] << ")";
            return tiles;
          }
        }
      }
      ++pi;
    }
    EXPECT_EQ(row, drv.outputs().size()) << "unexpected extra output rows";
    drv.outputs().clear();
    return tiles;
  }

  int random_batches(int target_tiles, const TuStress& stress) {
    drv.set_stress(stress);
    int tiles = 0, batch = 0;
    while (tiles < target_tiles) {
      const Family f = static_cast<Family>(batch++ % 3);
      const auto ch = random_channels(f);
      std::vector<Problem> ps;
      for (int i = 0; i < 12; ++i) ps.push_back(random_problem(f, 4 * kRows, i % 2));
      tiles += run_and_check(ps, ch, f);
      if (HasFailure()) break;
    }
    return tiles;
  }

  Harness<Model> h;
  std::mt19937_64 rng_{weft::tb::test_seed()};
  TuDriver<Model> drv{h, kRows, kCols, kAccDepth, weft::tb::test_seed() ^ 0x5eed};
};

TEST_F(WEFT_SUITE, RandomGemmTilesMatchGolden) {
  const int tiles = random_batches(5000, TuStress{});
  weft::tb::verbose_printf("[%dx%d] %d GEMM tiles checked bit-exact\n", kRows, kCols, tiles);
  RecordProperty("tiles", tiles);
}

TEST_F(WEFT_SUITE, RandomGemmUnderBackPressureAndGaps) {
  const int tiles = random_batches(1000, TuStress{0.3, 0.3, 0.3, 0.5});
  weft::tb::verbose_printf("[%dx%d] %d GEMM tiles checked under stress\n", kRows, kCols, tiles);
}

TEST_F(WEFT_SUITE, ExtremeOperandValues) {
  // Every combination of extreme values and zero points, both operand kinds.
  const int vals_s[] = {-128, 127, 0, -1};
  const int vals_u[] = {0, 255, 128};
  std::vector<Problem> ps;
  for (int as = 0; as < 2; ++as) {
    for (int ws = 0; ws < 2; ++ws) {
      for (int zsel = 0; zsel < 3; ++zsel) {
        Problem p;
        p.m = 3;
        p.k = 2 * kRows + 1;
        p.n = kCols;
        p.at.is_signed = as;
        p.wt.is_signed = ws;
        const int zs[3] = {0, as ? -128 : 255, as ? 127 : 0};
        const int zw[3] = {0, ws ? 127 : 0, ws ? -128 : 255};
        p.at.zero_point = zs[zsel];
        p.wt.zero_point = zw[zsel];
        p.a.resize(p.m * p.k);
        p.w.resize(p.k * p.n);
        for (size_t i = 0; i < p.a.size(); ++i) p.a[i] = as ? vals_s[i % 4] : vals_u[i % 3];
        for (size_t i = 0; i < p.w.size(); ++i) p.w[i] = ws ? vals_s[(i / 3) % 4] : vals_u[(i / 2) % 3];
        p.out.mode = golden::RequantMode::kNone;
        p.addr = (ps.size() % 2) * kBank;
        ps.push_back(p);
      }
    }
  }
  run_and_check(ps, std::vector<golden::ChannelParams>(kCols), Family::kNone);
}

TEST_F(WEFT_SUITE, LongKAccumulatesToTheInt32LimitAndWraps) {
  // uint8 0 with zero point 255 on both sides: every product is (-255)*(-255) = 65025.
  // K = 32768 gives 2,130,739,200 (just below INT32_MAX); K + 512 wraps, as INT32 accumulators do.
  for (int k : {32768, 32768 + 512}) {
    Problem p;
    p.m = 1;
    p.k = k;
    p.n = kCols;
    p.at = {false, 255};
    p.wt = {false, 255};
    p.a.assign(p.k, 0);
    p.w.assign(static_cast<size_t>(p.k) * p.n, 0);
    p.out.mode = golden::RequantMode::kNone;
    p.addr = 0;
    run_and_check({p}, std::vector<golden::ChannelParams>(kCols), Family::kNone);
    const auto acc = golden::gemm(p.a, p.w, 1, p.k, p.n, p.at, p.wt);
    weft::tb::verbose_printf("K=%d accumulator %d\n", k, acc[0]);
  }
}

TEST_F(WEFT_SUITE, RequantizationTiesAndSaturation) {
  // K = 1 and a weight of exactly 1 (after its zero point) put a chosen value a' into the
  // accumulator; per-column biases then place acc + bias exactly on rounding ties and on the
  // saturation limits of every mode.
  for (const Family f : {Family::kTflite, Family::kOnnx}) {
    for (const auto mode : {golden::RequantMode::kTfliteDouble, golden::RequantMode::kTfliteSingle,
                            golden::RequantMode::kOnnx}) {
      if ((f == Family::kOnnx) != (mode == golden::RequantMode::kOnnx)) continue;
      std::vector<golden::ChannelParams> ch(kCols);
      for (int c = 0; c < kCols; ++c) {
        // Halving (multiplier 2^30, shift 0, or scale 0.5) makes every odd value a tie; a
        // quarter makes values = 2 mod 4 ties; a huge multiplier saturates.
        const int kind = c % 4;
        ch[c].bias = (c % 2) ? -(1 << 24) - 1 : (1 << 24) + 1;
        if (kind == 3) ch[c].bias = (c % 8 == 3) ? INT32_MAX - 300 : INT32_MIN + 300;
        ch[c].multiplier = kind == 1 ? (1 << 30) : kind == 2 ? 0x7fffffff : (1 << 30);
        ch[c].shift = kind == 1 ? -1 : kind == 2 ? 30 : 0;
        ch[c].scale = kind == 0 ? 0.5f : kind == 1 ? 0.25f : kind == 2 ? 3.0e9f : 0.5f;
      }
      Problem p;
      p.k = 1;
      p.n = kCols;
      p.m = std::min(kBank, 2 * 255 + 1);
      p.at = {true, 0};
      p.wt = {false, 0};
      p.a.resize(p.m);
      // a' runs over -255..255 through int8 values with zero points: use int8 with zp so that
      // a - zp spans the range in two halves.
      p.at = {false, 0};
      for (int i = 0; i < p.m; ++i) p.a[i] = i % 256;
      p.w.assign(p.n, 1);
      p.out.mode = mode;
      p.out.zero_point = 0;
      p.out.act_min = INT32_MIN;
      p.out.act_max = INT32_MAX;
      p.addr = 0;
      Problem q = p;
      q.at = {false, 255};  // a' = a - 255: the negative half
      q.addr = kBank;
      run_and_check({p, q}, ch, f);
    }
  }
}

TEST_F(WEFT_SUITE, BackToBackTilesHaveNoBubbles) {
  // Tiles of M >= Rows + Cols + 2 rows stream with no idle cycle between them: the next tile's
  // weights load into the other buffer while the current tile computes. Each problem
  // accumulates 4 K-tiles into one bank and is then drained while the next problem computes
  // into the other bank.
  const int m = kRows + kCols + 4;
  const int problems = 6;
  const int tiles = problems * 4;
  std::vector<Problem> ps;
  for (int t = 0; t < problems; ++t) {
    Problem p;
    p.m = m;
    p.k = 4 * kRows;
    p.n = kCols;
    p.at = random_type();
    p.wt = random_type();
    p.a.resize(p.m * p.k);
    p.w.resize(p.k * p.n);
    for (auto& v : p.a) v = random_value(p.at);
    for (auto& v : p.w) v = random_value(p.wt);
    p.out.mode = golden::RequantMode::kNone;
    p.addr = (t % 2) * kBank;
    ps.push_back(p);
  }
  drv.reset_counters();
  run_and_check(ps, std::vector<golden::ChannelParams>(kCols), Family::kNone);
  EXPECT_EQ(drv.array_rows(), static_cast<uint64_t>(tiles * m));
  EXPECT_EQ(drv.array_span(), drv.array_rows()) << "bubbles between back-to-back tiles";
  EXPECT_GT(drv.overlap_cycles(), 0u) << "draining one bank never overlapped computing the other";
}

TEST_F(WEFT_SUITE, WeightReuseKeepsTheTile) {
  // Two COMPUTEs on one weight tile (the second with wreuse), different rows of A.
  std::vector<int32_t> w(kRows * kCols), a(2 * 5 * kRows);
  golden::OperandType t{true, 3};
  for (auto& v : w) v = random_value(t);
  for (auto& v : a) v = random_value(t);
  for (int r = 0; r < kRows; ++r) drv.push_weight({std::vector<int32_t>(w.begin() + r * kCols, w.begin() + (r + 1) * kCols), r == kRows - 1, true, 3});
  for (int half = 0; half < 2; ++half) {
    TuCmd c;
    c.rows = 5;
    c.addr = half * 5;
    c.wreuse = half == 1;
    c.a_signed = true;
    c.a_zp = 3;
    drv.push_cmd(c);
    for (int i = 0; i < 5; ++i) drv.push_act(std::vector<int32_t>(a.begin() + (half * 5 + i) * kRows, a.begin() + (half * 5 + i + 1) * kRows));
  }
  TuCmd d;
  d.drain = true;
  d.rows = 10;
  d.addr = 0;
  drv.push_cmd(d);
  drv.run();
  const auto want = golden::gemm(a, w, 10, kRows, kCols, t, t);
  ASSERT_EQ(drv.outputs().size(), 10u);
  for (int i = 0; i < 10; ++i) {
    for (int c = 0; c < kCols; ++c) {
      EXPECT_EQ(static_cast<int32_t>(drv.outputs()[i][c]), want[i * kCols + c]) << i << "," << c;
    }
  }
}

TEST_F(WEFT_SUITE, ZeroRowCommandsDoNothing) {
  TuCmd c;
  c.rows = 0;
  drv.push_cmd(c);
  c.drain = true;
  drv.push_cmd(c);
  drv.run(1000);
  EXPECT_TRUE(drv.outputs().empty());
  EXPECT_EQ(drv.array_rows(), 0u);
}

}  // namespace
