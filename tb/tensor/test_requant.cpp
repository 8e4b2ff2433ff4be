// Block tests of weft_requant (one lane of the tensor unit's post-processing): every output is
// compared with weft::golden::postprocess() (sw/golden), and the ONNX mode also directly with
// onnxruntime's own outputs (scripts/onnx_vectors.py writes them at build time).
//
// Values are driven one per cycle, back to back or with random idle cycles in between; each result
// must appear exactly kLatency cycles after its input and nothing may appear in between.
#include <gtest/gtest.h>

#include <bit>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <deque>
#include <fstream>
#include <map>
#include <random>
#include <sstream>
#include <string>
#include <vector>

#include "Vvl_requant.h"
#include "weft/golden/quant.hpp"
#include "weft/tb/harness.hpp"
#include "weft/tb/options.hpp"

namespace {

namespace g = weft::golden;
using weft::tb::Harness;
using Mode = g::RequantMode;
using Rng = std::mt19937_64;

// weft_requant's Latency (= weft_pkg::RequantLatency): in_valid_i in cycle t -> out_valid_o in
// cycle t + kLatency.
constexpr uint64_t kLatency = 5;
constexpr int kRandomPerMode = 100000;

constexpr int32_t kMin = INT32_MIN;
constexpr int32_t kMax = INT32_MAX;

uint32_t bits_of(float f) { return std::bit_cast<uint32_t>(f); }
float float_of(uint32_t b) { return std::bit_cast<float>(b); }

// One input of the lane, in the golden model's terms.
struct Input {
  int32_t acc = 0;
  int32_t bias = 0;
  uint32_t mult = 0;  // TFLite modes: int32 multiplier; ONNX: float32 scale bits
  int shift = 0;      // TFLite modes: [-31, 30]
  Mode mode = Mode::kTfliteDouble;
  int32_t zp = 0;
  int32_t act_min = kMin;
  int32_t act_max = kMax;
};

const char* mode_name(Mode m) {
  switch (m) {
    case Mode::kTfliteDouble:
      return "tflite-double";
    case Mode::kTfliteSingle:
      return "tflite-single";
    case Mode::kOnnx:
      return "onnx";
    case Mode::kNone:
      return "none";
  }
  return "?";
}

std::string describe(const Input& in) {
  char buf[256];
  if (in.mode == Mode::kOnnx) {
    std::snprintf(buf, sizeof buf, "mode=%s acc=%d bias=%d scale=0x%08x (%.9g) zp=%d act=[%d, %d]",
                  mode_name(in.mode), in.acc, in.bias, in.mult, float_of(in.mult), in.zp,
                  in.act_min, in.act_max);
  } else {
    std::snprintf(buf, sizeof buf, "mode=%s acc=%d bias=%d mult=%d shift=%d zp=%d act=[%d, %d]",
                  mode_name(in.mode), in.acc, in.bias, static_cast<int32_t>(in.mult), in.shift,
                  in.zp, in.act_min, in.act_max);
  }
  return buf;
}

int32_t golden_of(const Input& in) {
  g::ChannelParams ch;
  ch.bias = in.bias;
  ch.multiplier = static_cast<int32_t>(in.mult);
  ch.shift = in.shift;
  ch.scale = float_of(in.mult);
  g::OutputParams o;
  o.mode = in.mode;
  o.zero_point = in.zp;
  o.act_min = in.act_min;
  o.act_max = in.act_max;
  return g::postprocess(in.acc, ch, o);
}

// Drives weft_requant and checks every output against the expected value and cycle.
class Bench {
 public:
  explicit Bench(uint64_t junk_seed) : junk_(junk_seed) { h_.reset(); }

  ~Bench() {
    if (mismatches_ > kReported) {
      ADD_FAILURE() << mismatches_ << " mismatches in total (first " << kReported << " shown)";
    }
  }

  // One value in the next cycle, expected to give `expected` kLatency cycles later.
  void send(const Input& in, int32_t expected) {
    drive(in, true);
    pending_.push_back({h_.cycle() + kLatency, expected, in});
    step();
  }
  void send(const Input& in) { send(in, golden_of(in)); }

  // One idle cycle, with random values on every data input (they must be ignored).
  void bubble() {
    Input junk;
    junk.acc = static_cast<int32_t>(junk_());
    junk.bias = static_cast<int32_t>(junk_());
    junk.mult = static_cast<uint32_t>(junk_());
    junk.shift = static_cast<int>(junk_() % 64) - 32;
    junk.mode = static_cast<Mode>(junk_() % 4);
    junk.zp = static_cast<int32_t>(junk_());
    junk.act_min = static_cast<int32_t>(junk_());
    junk.act_max = static_cast<int32_t>(junk_());
    drive(junk, false);
    step();
  }

  // Sends every value, back to back, or with an idle cycle before a value with probability
  // bubble_prob.
  void send_all(const std::vector<Input>& v, double bubble_prob = 0.0) {
    std::bernoulli_distribution b(bubble_prob);
    for (const Input& in : v) {
      while (bubble_prob > 0.0 && b(junk_)) bubble();
      send(in);
    }
  }

  // Idle cycles until every sent value came out (and a few more: nothing else may come out).
  void drain() {
    for (uint64_t i = 0; i < kLatency + 3; ++i) bubble();
    EXPECT_TRUE(pending_.empty()) << pending_.size() << " values never came out";
  }

  size_t checked() const { return checked_; }
  size_t matched() const { return matched_; }
  size_t mismatches() const { return mismatches_; }
  Harness<Vvl_requant>& harness() { return h_; }

 private:
  static constexpr size_t kReported = 10;

  struct Pending {
    uint64_t due;
    int32_t expected;
    Input in;
  };

  void drive(const Input& in, bool valid) {
    auto& d = h_.dut();
    d.in_valid_i = valid;
    d.in_acc_i = static_cast<uint32_t>(in.acc);
    d.in_bias_i = static_cast<uint32_t>(in.bias);
    d.in_mult_i = in.mult;
    d.in_shift_i = static_cast<uint8_t>(in.shift & 0x3f);
    d.in_mode_i = static_cast<uint8_t>(in.mode);
    d.in_zp_i = static_cast<uint32_t>(in.zp);
    d.in_act_min_i = static_cast<uint32_t>(in.act_min);
    d.in_act_max_i = static_cast<uint32_t>(in.act_max);
  }

  void step() {
    h_.tick();
    const uint64_t now = h_.cycle();
    const auto& d = h_.dut();
    const bool due = !pending_.empty() && pending_.front().due == now;
    if (!pending_.empty() && pending_.front().due < now) {
      fail("cycle " + std::to_string(now) + ": the output of " + describe(pending_.front().in) +
           " did not appear at cycle " + std::to_string(pending_.front().due));
      pending_.pop_front();
    }
    if (static_cast<bool>(d.out_valid_o) != due) {
      fail("cycle " + std::to_string(now) + ": out_valid_o = " + std::to_string(d.out_valid_o) +
           ", expected " + std::to_string(due));
    }
    if (due) {
      const Pending p = pending_.front();
      pending_.pop_front();
      ++checked_;
      const int32_t got = static_cast<int32_t>(d.out_data_o);
      if (got == p.expected) {
        ++matched_;
      } else {
        fail(describe(p.in) + ": got " + std::to_string(got) + ", expected " +
             std::to_string(p.expected));
      }
    }
  }

  void fail(const std::string& what) {
    if (++mismatches_ <= kReported) ADD_FAILURE() << what;
  }

  Harness<Vvl_requant> h_;
  Rng junk_;
  std::deque<Pending> pending_;
  size_t checked_ = 0;
  size_t matched_ = 0;
  size_t mismatches_ = 0;
};

// Runs a list of values through the lane twice: back to back, then with random idle cycles.
void run_directed(const std::vector<Input>& v, const char* what) {
  auto rng = weft::tb::make_rng();
  Bench b(rng());
  b.send_all(v);
  b.send_all(v, 0.3);
  b.drain();
  weft::tb::verbose_printf("[requant] %s: %zu values checked, %zu mismatches\n", what, b.checked(),
                           b.mismatches());
  EXPECT_EQ(b.mismatches(), 0u);
  EXPECT_EQ(b.checked(), 2 * v.size());
}

// ---------------------------------------------------------------------------------------------
// Random stimulus
// ---------------------------------------------------------------------------------------------

int32_t any32(Rng& r) { return static_cast<int32_t>(static_cast<uint32_t>(r())); }
int32_t uniform(Rng& r, int64_t lo, int64_t hi) {
  return static_cast<int32_t>(std::uniform_int_distribution<int64_t>(lo, hi)(r));
}
template <class T>
T pick(Rng& r, const std::vector<T>& v) {
  return v[r() % v.size()];
}

const std::vector<int32_t> kEdges = {0,
                                     1,
                                     -1,
                                     2,
                                     -2,
                                     kMin,
                                     kMax,
                                     kMin + 1,
                                     kMax - 1,
                                     1 << 30,
                                     -(1 << 30),
                                     1 << 24,
                                     (1 << 24) + 1,
                                     -(1 << 24) - 1,
                                     (1 << 24) + 3,
                                     (1 << 23) + 1,
                                     65535};

// Accumulator-like values from several families.
int32_t random_value(Rng& r) {
  switch (r() % 8) {
    case 0:
    case 1:
      return any32(r);
    case 2:
      return uniform(r, -(1 << 20), 1 << 20);
    case 3:
      return uniform(r, -1000, 1000);
    case 4:
      return pick(r, kEdges);
    case 5: {  // +-2^k plus a small offset
      const int64_t p = int64_t{1} << (r() % 31);
      const int64_t v = ((r() & 1) ? p : -p) + uniform(r, -2, 2);
      return static_cast<int32_t>(v);
    }
    case 6:
      return uniform(r, -(1 << 26), 1 << 26);
    default:
      return uniform(r, -(1 << 14), 1 << 14);
  }
}

int32_t random_bias(Rng& r) {
  switch (r() % 4) {
    case 0:
      return 0;
    case 1:
      return any32(r);
    default:
      return uniform(r, -(1 << 16), 1 << 16);
  }
}

// Output zero point and clamp bounds: often the whole INT32 range (so the requantized value is
// seen unclamped), often an 8-bit output type, sometimes anything.
void random_output(Rng& r, Input* in) {
  switch (r() % 10) {
    case 0:
    case 1:
    case 2:
      in->zp = 0;
      in->act_min = kMin;
      in->act_max = kMax;
      return;
    case 3:
    case 4:
      in->zp = uniform(r, -(1 << 20), 1 << 20);
      in->act_min = kMin;
      in->act_max = kMax;
      return;
    case 5:
    case 6: {
      const bool is_signed = r() & 1;
      in->zp = is_signed ? uniform(r, -128, 127) : uniform(r, 0, 255);
      in->act_min = is_signed ? -128 : 0;
      in->act_max = is_signed ? 127 : 255;
      if (r() % 3 == 0) in->act_min = in->zp;  // ReLU
      return;
    }
    default: {
      in->zp = (r() & 1) ? any32(r) : uniform(r, -300, 300);
      int32_t a = (r() & 1) ? any32(r) : uniform(r, -300, 300);
      int32_t b = (r() & 1) ? any32(r) : uniform(r, -300, 300);
      if (r() % 8 == 0) b = a;  // a single allowed value
      in->act_min = std::min(a, b);
      in->act_max = std::max(a, b);
      return;
    }
  }
}

int random_shift(Rng& r) {
  switch (r() % 10) {
    case 0:
      return pick(r, std::vector<int>{-31, 30, -1, 0, 1});
    case 1:
    case 2:
    case 3:
      return uniform(r, -12, 2);  // what QuantizeMultiplier gives for usual scales
    default:
      return uniform(r, -31, 30);
  }
}

uint32_t random_multiplier(Rng& r) {
  switch (r() % 10) {
    case 0:
      return static_cast<uint32_t>(any32(r));
    case 1:
      return static_cast<uint32_t>(-uniform(r, 1 << 30, kMax));  // negative
    case 2:
      return static_cast<uint32_t>(
          pick(r, std::vector<int32_t>{0, 1, -1, kMin, kMax, 1 << 30, -(1 << 30), 3 << 28}));
    case 3:
      return static_cast<uint32_t>(uniform(r, 0, 1 << 16));
    default:
      return static_cast<uint32_t>(uniform(r, 1 << 30, kMax));  // QuantizeMultiplier range
  }
}

// float32 scale bits: the usual requantization range, any finite value, subnormals, values a
// few ulps from powers of two (double-rounding cases for large x), odd / 2^k (exact ties), and
// special values. About a quarter negative.
uint32_t random_scale(Rng& r) {
  uint32_t b = 0;
  switch (r() % 12) {
    case 0:
    case 1:
    case 2:
    case 3: {  // 2^[-40, 8) with a random mantissa
      const uint32_t e = static_cast<uint32_t>(uniform(r, 127 - 40, 127 + 7));
      b = (e << 23) | static_cast<uint32_t>(r() & 0x7fffff);
      break;
    }
    case 4:
      b = (static_cast<uint32_t>(uniform(r, 0, 254)) << 23) | (r() & 0x7fffff);
      break;
    case 5:
      b = static_cast<uint32_t>(uniform(r, 1, 0x7fffff));
      break;  // subnormal
    case 6:
    case 7: {  // 2^j * (1 +- a few ulps)
      const uint32_t e = static_cast<uint32_t>(uniform(r, 127 - 8, 127 + 2));
      const int32_t ulps = uniform(r, -8, 8);
      b = static_cast<uint32_t>(static_cast<int32_t>(e << 23) + ulps);
      break;
    }
    case 8:
    case 9: {  // odd / 2^k
      const int k = uniform(r, 1, 24);
      const int odd = 2 * uniform(r, 0, 7) + 1;
      b = bits_of(static_cast<float>(odd) / static_cast<float>(int64_t{1} << k));
      break;
    }
    default:
      b = pick(r,
               std::vector<uint32_t>{0x00000000, 0x3f800000, 0x3f000000, 0x3e800000, 0x00800000,
                                     0x00000001, 0x7f7fffff, 0x30000000, 0x4f000000, 0x2f800000});
      break;
  }
  if (r() % 4 == 0) b |= 0x80000000u;
  return b;
}

Input random_input(Rng& r, Mode mode) {
  Input in;
  in.mode = mode;
  in.acc = random_value(r);
  in.bias = random_bias(r);
  random_output(r, &in);
  switch (mode) {
    case Mode::kTfliteDouble:
    case Mode::kTfliteSingle:
      in.mult = random_multiplier(r);
      in.shift = random_shift(r);
      break;
    case Mode::kOnnx:
      in.mult = random_scale(r);
      in.shift = uniform(r, -32, 31);  // ignored in this mode
      break;
    case Mode::kNone:  // multiplier, shift and output parameters are ignored
      in.mult = static_cast<uint32_t>(r());
      in.shift = uniform(r, -32, 31);
      break;
  }
  return in;
}

void run_random(Mode mode) {
  auto rng = weft::tb::make_rng();
  Bench b(rng());
  std::vector<Input> v;
  v.reserve(kRandomPerMode);
  for (int i = 0; i < kRandomPerMode; ++i) v.push_back(random_input(rng, mode));
  b.send_all(v, 0.05);
  b.drain();
  weft::tb::verbose_printf("[requant] random %s: %zu values checked, %zu mismatches\n",
                           mode_name(mode), b.checked(), b.mismatches());
  EXPECT_EQ(b.checked(), v.size());
  EXPECT_EQ(b.mismatches(), 0u);
}

// ---------------------------------------------------------------------------------------------
// Helpers for the directed cases
// ---------------------------------------------------------------------------------------------

Input tflite(Mode mode, int32_t x, int32_t mult, int shift) {
  Input in;
  in.mode = mode;
  in.acc = x;
  in.mult = static_cast<uint32_t>(mult);
  in.shift = shift;
  return in;
}

Input onnx(int32_t x, uint32_t scale_bits) {
  Input in;
  in.mode = Mode::kOnnx;
  in.acc = x;
  in.mult = scale_bits;
  return in;
}

bool fits32(int64_t v) { return v >= kMin && v <= kMax; }

// Also the same value reached through a wrapping bias, and with an 8-bit output stage.
void add_variants(std::vector<Input>* v, const Input& in, Rng& r) {
  v->push_back(in);
  Input w = in;
  w.bias = any32(r);
  w.acc = static_cast<int32_t>(static_cast<uint32_t>(in.acc) - static_cast<uint32_t>(w.bias));
  v->push_back(w);
  Input c = in;
  c.zp = uniform(r, -128, 127);
  c.act_min = -128;
  c.act_max = 127;
  v->push_back(c);
}

// ---------------------------------------------------------------------------------------------
// Tests
// ---------------------------------------------------------------------------------------------

TEST(Requant, LatencyIsFixedAndResetEmptiesThePipeline) {
  auto rng = weft::tb::make_rng();
  Bench b(rng());
  // Single values separated by gaps of every length, then back to back (checked by the bench:
  // each output exactly kLatency cycles after its input, out_valid_o low in every other cycle).
  for (int gap = 0; gap < 8; ++gap) {
    for (int i = 0; i < gap; ++i) b.bubble();
    b.send(random_input(rng, static_cast<Mode>(gap % 4)));
  }
  b.drain();
  EXPECT_EQ(b.mismatches(), 0u);

  // Reset in the middle of a burst: nothing comes out afterwards.
  auto& h = b.harness();
  auto& d = h.dut();
  d.in_valid_i = 1;
  d.in_mode_i = static_cast<uint8_t>(Mode::kNone);
  for (uint64_t i = 0; i < kLatency - 1; ++i) h.tick();
  d.in_valid_i = 0;
  h.reset(1);
  for (uint64_t i = 0; i < 2 * kLatency; ++i) {
    h.tick();
    EXPECT_EQ(d.out_valid_o, 0) << "output after reset, cycle " << h.cycle();
  }
}

TEST(Requant, RandomTfliteDouble) { run_random(Mode::kTfliteDouble); }
TEST(Requant, RandomTfliteSingle) { run_random(Mode::kTfliteSingle); }
TEST(Requant, RandomOnnx) { run_random(Mode::kOnnx); }
TEST(Requant, RandomNone) { run_random(Mode::kNone); }

TEST(Requant, RandomModesInterleavedWithBubbles) {
  auto rng = weft::tb::make_rng();
  Bench b(rng());
  std::vector<Input> v;
  for (int i = 0; i < kRandomPerMode; ++i)
    v.push_back(random_input(rng, static_cast<Mode>(rng() % 4)));
  b.send_all(v, 0.3);
  b.drain();
  weft::tb::verbose_printf(
      "[requant] random, all modes interleaved: %zu values checked, %zu mismatches\n", b.checked(),
      b.mismatches());
  EXPECT_EQ(b.checked(), v.size());
  EXPECT_EQ(b.mismatches(), 0u);
}

TEST(Requant, BiasAdditionWrapsAround) {
  auto rng = weft::tb::make_rng();
  const std::vector<std::pair<int32_t, int32_t>> pairs = {
      {kMax, 1}, {kMin, -1}, {kMax, kMax}, {kMin, kMin}, {kMax, kMin}, {-1, kMin},
      {1, kMax}, {kMin, 0},  {kMax, 0},    {0, kMin},    {0, kMax},    {kMax - 5, 100}};
  std::vector<Input> v;
  for (const auto& [acc, bias] : pairs) {
    for (const Mode m : {Mode::kTfliteDouble, Mode::kTfliteSingle, Mode::kOnnx, Mode::kNone}) {
      Input in = m == Mode::kOnnx ? onnx(acc, bits_of(1.0f)) : tflite(m, acc, 1 << 30, 1);
      in.bias = bias;
      v.push_back(in);
      in.mult = m == Mode::kOnnx ? bits_of(0.001f) : static_cast<uint32_t>(kMax);
      in.shift = -10;
      v.push_back(in);
      random_output(rng, &in);
      v.push_back(in);
    }
  }
  run_directed(v, "bias wrap-around");
}

TEST(Requant, TfliteDoubleSrdhmSaturation) {
  // x << left == INT32_MIN and mult == INT32_MIN: SRDHM saturates to INT32_MAX, then the right
  // shift rounds it.
  auto rng = weft::tb::make_rng();
  std::vector<Input> v;
  for (int shift = -31; shift <= 30; ++shift) {
    const int left = std::max(shift, 0);
    // Both x = 2^(31-left) and x = -2^(31-left) become INT32_MIN after the wrapping left shift.
    for (const int64_t x : {-(int64_t{1} << (31 - left)), int64_t{1} << (31 - left)}) {
      if (!fits32(x) && x != (int64_t{1} << 31)) continue;
      const int32_t x32 = static_cast<int32_t>(static_cast<uint32_t>(x));
      add_variants(&v, tflite(Mode::kTfliteDouble, x32, kMin, shift), rng);
      add_variants(&v, tflite(Mode::kTfliteDouble, x32, kMin + 1, shift), rng);  // just not
      add_variants(&v, tflite(Mode::kTfliteSingle, x32, kMin, shift), rng);
    }
  }
  // Single rounding: products far outside INT32 after the shift saturate.
  for (int shift = 0; shift <= 30; ++shift) {
    for (const int32_t x : {kMax, kMin, 1 << 20, -(1 << 20)}) {
      for (const int32_t m : {kMax, kMin, 1 << 30}) {
        add_variants(&v, tflite(Mode::kTfliteSingle, x, m, shift), rng);
        add_variants(&v, tflite(Mode::kTfliteDouble, x, m, shift), rng);
      }
    }
  }
  for (const Input& in : v) {
    if (in.mode == Mode::kTfliteDouble && in.shift == 0 && static_cast<int32_t>(in.mult) == kMin &&
        in.acc == kMin && in.bias == 0 && in.act_max == kMax) {
      ASSERT_EQ(golden_of(in), kMax);  // the saturating case is really in the list
    }
  }
  run_directed(v, "SRDHM / single-rounding saturation");
}

TEST(Requant, TfliteDoubleEveryRoundingTie) {
  // For every shift, both signs: exact ties of SRDHM (p = odd * 2^30), exact ties of
  // RoundingDivideByPOT (SRDHM result = odd * 2^(right-1)), SRDHM rounding up into a
  // RoundingDivideByPOT tie, and their neighbours. Each kind is counted from the golden
  // intermediate values, so the list provably holds them.
  auto rng = weft::tb::make_rng();
  std::vector<Input> v;
  std::map<std::pair<int, int>, int> srdhm_ties, pot_ties;  // (shift, sign) -> count
  const std::vector<int64_t> odds = {1, 3, 5, 7, 101, 12345};
  for (int shift = -31; shift <= 30; ++shift) {
    const int left = std::max(shift, 0);
    const int right = std::max(-shift, 0);
    for (const int64_t odd : odds) {
      for (const int s : {1, -1}) {
        // SRDHM tie: (x << left) * m = s * odd * 2^30 with m = 2^(30 - left).
        const int32_t m = static_cast<int32_t>(int64_t{1} << (30 - left));
        if ((odd << left) <= (int64_t{1} << 30)) {
          for (const int64_t d : {0, 1, -1}) {
            const int64_t x = s * odd + d;
            if (fits32(x))
              add_variants(&v, tflite(Mode::kTfliteDouble, static_cast<int32_t>(x), m, shift), rng);
          }
        }
        if (right == 0) continue;
        // RoundingDivideByPOT tie: m = INT32_MIN makes SRDHM(x, m) = -x exactly.
        const int64_t tie = s * odd * (int64_t{1} << (right - 1));
        for (const int64_t d : {0, 1, -1}) {
          if (fits32(-(tie + d)) && -(tie + d) != kMin) {
            add_variants(&v,
                         tflite(Mode::kTfliteDouble, static_cast<int32_t>(-(tie + d)), kMin, shift),
                         rng);
          }
        }
        // SRDHM rounds x / 2 = tie - 1/2 up to the tie (m = 2^30 halves x).
        for (const int64_t x : {2 * tie - 1, 2 * tie + 1}) {
          if (fits32(x))
            add_variants(&v, tflite(Mode::kTfliteDouble, static_cast<int32_t>(x), 1 << 30, shift),
                         rng);
        }
      }
    }
  }
  for (const Input& in : v) {
    if (in.bias != 0 || in.act_max != kMax) continue;
    const int left = std::max(in.shift, 0);
    const int right = std::max(-in.shift, 0);
    const int32_t xs = static_cast<int32_t>(static_cast<uint32_t>(in.acc) << left);
    const int64_t p = int64_t{xs} * static_cast<int32_t>(in.mult);
    if ((p & ((int64_t{1} << 31) - 1)) == (int64_t{1} << 30))
      srdhm_ties[{in.shift, p < 0 ? -1 : 1}]++;
    const int32_t a = g::saturating_rounding_doubling_high_mul(xs, static_cast<int32_t>(in.mult));
    if (right > 0 && (a & ((int64_t{1} << right) - 1)) == (int64_t{1} << (right - 1))) {
      pot_ties[{in.shift, a < 0 ? -1 : 1}]++;
    }
  }
  for (int shift = -31; shift <= 30; ++shift) {
    for (const int s : {1, -1}) {
      EXPECT_GT((srdhm_ties[{shift, s}]), 0) << "no SRDHM tie for shift " << shift << " sign " << s;
      if (shift < 0)
        EXPECT_GT((pot_ties[{shift, s}]), 0) << "no RDBPOT tie, shift " << shift << " sign " << s;
    }
  }
  run_directed(v, "TFLite double rounding ties");
}

TEST(Requant, TfliteSingleEveryRoundingTie) {
  // For every total shift t = 31 - shift in [1, 62], both signs: x * m = +-odd * 2^(t-1) exactly,
  // and x * m one multiplier step either side.
  auto rng = weft::tb::make_rng();
  std::vector<Input> v;
  std::map<std::pair<int, int>, int> ties;
  for (int shift = -31; shift <= 30; ++shift) {
    const int e = 30 - shift;  // t - 1
    for (const int64_t odd : {1, 3, 5, 7, 255}) {
      for (const int s : {1, -1}) {
        int64_t x = 0, m = 0;
        if (e <= 30) {
          x = s * odd;
          m = int64_t{1} << e;
        } else if (e <= 60) {
          x = s * odd * (int64_t{1} << (e - 30));
          m = int64_t{1} << 30;
        } else {  // e == 61: INT32_MIN * -+2^30
          if (odd != 1) continue;
          x = kMin;
          m = -s * (int64_t{1} << 30);
        }
        if (!fits32(x)) continue;
        for (const int64_t dm : {0, 1, -1}) {
          if (!fits32(m + dm)) continue;
          add_variants(&v,
                       tflite(Mode::kTfliteSingle, static_cast<int32_t>(x),
                              static_cast<int32_t>(m + dm), shift),
                       rng);
        }
      }
    }
  }
  for (const Input& in : v) {
    if (in.bias != 0 || in.act_max != kMax) continue;
    const int t = 31 - in.shift;
    const int64_t p = int64_t{in.acc} * static_cast<int32_t>(in.mult);
    if ((p & ((int64_t{1} << t) - 1)) == (int64_t{1} << (t - 1)))
      ties[{in.shift, p < 0 ? -1 : 1}]++;
  }
  for (int shift = -31; shift <= 30; ++shift) {
    for (const int s : {1, -1})
      EXPECT_GT((ties[{shift, s}]), 0) << "no tie for shift " << shift << " sign " << s;
  }
  run_directed(v, "TFLite single rounding ties");
}

TEST(Requant, TfliteShiftLimits) {
  auto rng = weft::tb::make_rng();
  std::vector<Input> v;
  for (const Mode m : {Mode::kTfliteDouble, Mode::kTfliteSingle}) {
    for (const int shift : {-31, 30}) {
      for (const int32_t x : kEdges) {
        for (const int32_t mult : {kMax, kMin, 1 << 30, -(1 << 30), 1, -1, 0}) {
          add_variants(&v, tflite(m, x, mult, shift), rng);
        }
      }
      for (int i = 0; i < 2000; ++i) {
        Input in = random_input(rng, m);
        in.shift = shift;
        v.push_back(in);
      }
    }
  }
  run_directed(v, "TFLite shift -31 and 30");
}

TEST(Requant, OnnxTiesAfterScaling) {
  // float32(x) * scale exactly a half-integer: round half to even decides. Also halves that
  // only the float32 rounding of the product creates: x = 2^22 + 2n with scale 1 + 2^-23 gives
  // x + 0.5 + tiny, rounded to x + 0.5 (float32 spacing 0.5 there), then to the even x, not x + 1.
  auto rng = weft::tb::make_rng();
  std::vector<Input> v;
  int exact_ties = 0, float_ties = 0;
  for (int k = 1; k <= 24; ++k) {
    for (const int odd_scale : {1, 3, 5, 7, 9, 11}) {
      const float scale = static_cast<float>(odd_scale) / static_cast<float>(int64_t{1} << k);
      for (const int64_t n :
           {int64_t{0}, int64_t{1}, int64_t{2}, int64_t{3}, int64_t{10}, int64_t{77}}) {
        const int64_t x = (2 * n + 1) << (k - 1);
        if (x >= (int64_t{1} << 24)) continue;
        for (const int s : {1, -1}) {
          add_variants(&v, onnx(static_cast<int32_t>(s * x), bits_of(scale)), rng);
          add_variants(&v, onnx(static_cast<int32_t>(s * x), bits_of(-scale)), rng);
        }
      }
    }
  }
  for (const int32_t x : {1, -1, 3, -3, 5, -5, 7, -7})
    add_variants(&v, onnx(x, bits_of(0.5f)), rng);
  for (int n = 0; n < 64; ++n) {
    const int32_t x = (1 << 22) + 2 * n * 997;
    add_variants(&v, onnx(x, 0x3f800001), rng);
    add_variants(&v, onnx(-x, 0x3f800001), rng);
    add_variants(&v, onnx(x + 1, 0x3f800001), rng);
  }
  for (const Input& in : v) {
    if (in.bias != 0 || in.act_max != kMax) continue;
    const double exact =
        static_cast<double>(static_cast<float>(in.acc)) * static_cast<double>(float_of(in.mult));
    const float rounded = static_cast<float>(in.acc) * float_of(in.mult);
    if (exact - std::floor(exact) == 0.5) ++exact_ties;
    if (rounded - std::floor(rounded) == 0.5f && exact - std::floor(exact) != 0.5) ++float_ties;
  }
  weft::tb::verbose_printf(
      "[requant] ONNX ties: %d exact half-integers, %d made by float32 rounding\n", exact_ties,
      float_ties);
  EXPECT_GT(exact_ties, 1000);
  EXPECT_GT(float_ties, 100);
  run_directed(v, "ONNX ties");
}

TEST(Requant, OnnxLargeValuesRoundWhenConvertedToFloat) {
  // |x| > 2^24: float32(x) rounds to nearest even before the multiply.
  auto rng = weft::tb::make_rng();
  std::vector<Input> v;
  const std::vector<uint32_t> scales = {bits_of(1.0f),        bits_of(-1.0f), bits_of(0.5f),
                                        0x3f800001,           0x3f7fffff,     bits_of(0.75f),
                                        bits_of(1.0f / 3.0f), bits_of(2.0f),  bits_of(1e-3f)};
  for (const uint32_t s : scales) {
    for (const int32_t x : {(1 << 24) + 1, (1 << 24) + 3, -(1 << 24) - 1, -(1 << 24) - 3,
                            (1 << 25) + 2, (1 << 25) + 6, kMax, kMin, kMin + 1, kMax - 64,
                            kMax - 63, kMax - 127, 2147483520, -2147483520, (1 << 30) + 64}) {
      add_variants(&v, onnx(x, s), rng);
    }
    for (int i = 0; i < 500; ++i) {
      const int32_t mag = uniform(rng, (1 << 24) + 1, kMax);
      add_variants(&v, onnx((rng() & 1) ? mag : -mag, s), rng);
    }
  }
  run_directed(v, "ONNX |x| > 2^24");
}

TEST(Requant, OnnxTinyZeroNegativeSubnormalAndHugeScales) {
  auto rng = weft::tb::make_rng();
  std::vector<Input> v;
  const std::vector<uint32_t> scales = {
      0x00000000, 0x80000000,                                      // +-0
      0x00000001, 0x80000001, 0x00000100,                          // subnormal
      0x007fffff, 0x807fffff, 0x00400000, 0x00800000, 0x80800000,  // smallest normal
      0x2f800000, 0x30000000,                          // 2^-32, 2^-31: x = INT32_MIN gives -0.5, -1
      0x30000001, 0x2fffffff, 0x3f800000, 0xbf800000,  // +-1
      0x4f000000, 0xcf000000,                          // +-2^31
      0x7f7fffff, 0xff7fffff,                          // +-FLT_MAX
      0x5f000000, 0x3effffff};
  for (const uint32_t s : scales) {
    for (const int32_t x : kEdges) add_variants(&v, onnx(x, s), rng);
    for (int i = 0; i < 100; ++i) add_variants(&v, onnx(random_value(rng), s), rng);
  }
  run_directed(v, "ONNX special scales");
}

TEST(Requant, ZeroPointAndClampBounds) {
  auto rng = weft::tb::make_rng();
  std::vector<Input> v;
  const std::vector<int32_t> bounds = {kMin, kMin + 1, -129, -128, -1,       0,
                                       1,    127,      128,  255,  kMax - 1, kMax};
  const std::vector<int32_t> zps = {kMin, -128, -1, 0, 1, 127, 255, kMax};
  for (const Mode m : {Mode::kTfliteDouble, Mode::kTfliteSingle, Mode::kOnnx}) {
    for (const int32_t zp : zps) {
      for (size_t i = 0; i < bounds.size(); ++i) {
        for (size_t j = i; j < bounds.size(); ++j) {
          for (const int32_t x : {kMin, -300, -1, 0, 1, 300, kMax}) {
            // Multiplier 1.0 (or nearly): the requantized value is about x.
            Input in = m == Mode::kOnnx ? onnx(x, bits_of(1.0f)) : tflite(m, x, kMax, 0);
            in.zp = zp;
            in.act_min = bounds[i];
            in.act_max = bounds[j];
            v.push_back(in);
          }
        }
      }
    }
  }
  // RqInt32 ignores all three.
  for (int i = 0; i < 200; ++i) {
    Input in = random_input(rng, Mode::kNone);
    in.act_min = uniform(rng, -10, 0);
    in.act_max = uniform(rng, 0, 10);
    v.push_back(in);
  }
  run_directed(v, "zero point and clamp");
}

TEST(Requant, OnnxNonFiniteScaleSaturatesAsDocumented) {
  // Outside the golden model's contract (it rejects non-finite scales); docs/requant.md: the
  // exponent field 255 reads as 2^128, so x != 0 saturates by sign(x) xor sign(scale) and x = 0
  // gives 0, then zero point and clamp as usual.
  auto rng = weft::tb::make_rng();
  Bench b(rng());
  int n = 0;
  for (const uint32_t s : {0x7f800000u, 0xff800000u, 0x7fc00000u, 0xffc00001u, 0x7f800001u}) {
    for (const int32_t x : kEdges) {
      Input in = onnx(x, s);
      random_output(rng, &in);
      const bool neg = (x < 0) != ((s >> 31) != 0);
      const int64_t r = x == 0 ? 0 : (neg ? kMin : kMax);
      const int64_t y = std::clamp<int64_t>(r + in.zp, in.act_min, in.act_max);
      b.send(in, static_cast<int32_t>(y));
      ++n;
    }
  }
  b.drain();
  EXPECT_EQ(b.checked(), static_cast<size_t>(n));
  EXPECT_EQ(b.mismatches(), 0u);
}

TEST(Requant, AssertsOnTfliteShiftOutsideContract) {
  // The simulation-only check looks at the sampled inputs at the next edge.
  for (const Mode m : {Mode::kTfliteDouble, Mode::kTfliteSingle}) {
    for (const int shift : {-32, 31}) {
      Harness<Vvl_requant> h;
      h.reset();
      auto& d = h.dut();
      d.in_valid_i = 1;
      d.in_mode_i = static_cast<uint8_t>(m);
      d.in_shift_i = static_cast<uint8_t>(shift & 0x3f);
      h.tick();
      d.in_valid_i = 0;
      EXPECT_THROW(h.tick(), std::runtime_error) << mode_name(m) << " shift " << shift;
    }
  }
  // The same codes are legal (ignored) in the ONNX and RqInt32 modes and when not valid; the
  // limits -31 and 30 are legal in the TFLite modes.
  Harness<Vvl_requant> h;
  h.reset();
  auto& d = h.dut();
  for (const int shift : {-32, 31}) {
    for (const Mode m : {Mode::kOnnx, Mode::kNone}) {
      d.in_valid_i = 1;
      d.in_mode_i = static_cast<uint8_t>(m);
      d.in_shift_i = static_cast<uint8_t>(shift & 0x3f);
      EXPECT_NO_THROW(h.tick());
    }
    d.in_valid_i = 0;
    d.in_mode_i = static_cast<uint8_t>(Mode::kTfliteDouble);
    EXPECT_NO_THROW(h.tick());
  }
  for (const int shift : {-31, 30}) {
    for (const Mode m : {Mode::kTfliteDouble, Mode::kTfliteSingle}) {
      d.in_valid_i = 1;
      d.in_mode_i = static_cast<uint8_t>(m);
      d.in_shift_i = static_cast<uint8_t>(shift & 0x3f);
      EXPECT_NO_THROW(h.tick());
    }
  }
  d.in_valid_i = 0;
  EXPECT_NO_THROW(h.ticks(2));
}

TEST(Requant, OnnxMatchesOnnxruntimeVectors) {
  // ${WEFT_VECTOR_DIR}/onnx/requant_values.txt: "x scale_hex zp is_signed result", the result
  // computed by onnxruntime (Cast -> Mul -> QuantizeLinear to int8 / uint8). Checked against
  // onnxruntime's value directly; a missing or malformed file is a failure.
  const std::string path = weft::tb::vector_dir() + "/onnx/requant_values.txt";
  std::ifstream f(path);
  ASSERT_TRUE(f.good()) << "cannot open " << path
                        << " (built by the CMake target golden_onnx_vectors: "
                           "python3 scripts/onnx_vectors.py --out-dir <WEFT_VECTOR_DIR>/onnx)";
  auto rng = weft::tb::make_rng();
  std::vector<Input> v;
  std::vector<int32_t> want;
  std::string line;
  int line_no = 0;
  while (std::getline(f, line)) {
    ++line_no;
    if (line.empty() || line[0] == '#') continue;
    std::istringstream ss(line);
    long long x = 0, zp = 0, is_signed = 0, result = 0;
    std::string scale_hex;
    ASSERT_TRUE(static_cast<bool>(ss >> x >> scale_hex >> zp >> is_signed >> result))
        << path << ":" << line_no << ": malformed line '" << line << "'";
    ASSERT_TRUE(fits32(x) && scale_hex.size() == 8 && (is_signed == 0 || is_signed == 1))
        << path << ":" << line_no << ": bad field in '" << line << "'";
    Input in =
        onnx(static_cast<int32_t>(x), static_cast<uint32_t>(std::stoul(scale_hex, nullptr, 16)));
    if (rng() & 1) {  // the same x through a wrapping bias
      in.bias = any32(rng);
      in.acc = static_cast<int32_t>(static_cast<uint32_t>(x) - static_cast<uint32_t>(in.bias));
    }
    in.zp = static_cast<int32_t>(zp);
    in.act_min = is_signed ? -128 : 0;
    in.act_max = is_signed ? 127 : 255;
    v.push_back(in);
    want.push_back(static_cast<int32_t>(result));
  }
  ASSERT_GT(v.size(), 1000u) << path << " holds only " << v.size() << " values";
  Bench b(rng());
  std::bernoulli_distribution bubble(0.1);
  for (size_t i = 0; i < v.size(); ++i) {
    if (bubble(rng)) b.bubble();
    b.send(v[i], want[i]);
  }
  b.drain();
  weft::tb::verbose_printf("[requant] onnxruntime vectors (%s): %zu of %zu values matched\n",
                           path.c_str(), b.matched(), v.size());
  EXPECT_EQ(b.checked(), v.size());
  EXPECT_EQ(b.mismatches(), 0u);
}

}  // namespace
