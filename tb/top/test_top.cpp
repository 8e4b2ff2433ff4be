// Block tests of weft_top (command processor, DMA, scratchpad, tensor unit, registers) driven the
// way a driver drives the device: registers through AXI4-Lite, descriptors in a ring in host
// memory (HostMemory behind an AxiMem), doorbell. Built once per configuration
// (tb/top/top.cmake): WEFT_ROWS, WEFT_COLS, WEFT_ACC_DEPTH, WEFT_SPAD_LINES, WEFT_SPAD_BANKS.
// Expectations are independent of the RTL: data copies against the bytes the test wrote,
// GEMMs against weft::golden::gemm + postprocess, errors against docs/programming-model.md.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <random>
#include <vector>

#include WEFT_MODEL_HEADER
#include "top_env.hpp"
#include "weft/descriptor.hpp"
#include "weft/golden/quant.hpp"
#include "weft/regs.hpp"
#include "weft/tb/options.hpp"
#include "weft/tb/sram_backdoor.hpp"

namespace {

using Model = WEFT_MODEL;
using Env = weft::tb::TopEnv<Model>;
using weft::ComputeArgs;
using weft::Descriptor;
using weft::ErrorCode;
using weft::Opcode;
using weft::StoreAccArgs;
using weft::StoreMode;
using weft::Transfer2d;
namespace golden = weft::golden;
namespace regs = weft::regs;
namespace sim = weft::sim;
using namespace weft::tb;  // PerfCtr, status bits

constexpr int kRows = WEFT_ROWS;
constexpr int kCols = WEFT_COLS;
constexpr int kAccDepth = WEFT_ACC_DEPTH;
constexpr int kBank = kAccDepth / 2;
constexpr uint32_t kSpadLines = WEFT_SPAD_LINES;
constexpr uint32_t kSpadBanks = WEFT_SPAD_BANKS;
constexpr uint32_t kBankLines = kSpadLines / kSpadBanks;
constexpr unsigned kBB = 16;

// Host memory map of the tests: one read/write window over all of it.
constexpr uint64_t kWinBase = 0x1000'0000;
constexpr uint64_t kWinLimit = 0x1100'0000;
constexpr uint64_t kRing = 0x1000'0000;      // 64 entries
constexpr uint64_t kCpl = 0x1000'2000;       // completion record
constexpr uint64_t kSrc = 0x1010'0000;       // sources (images loaded by LOAD)
constexpr uint64_t kDst = 0x1080'0000;       // destinations (STORE_*)
constexpr unsigned kRingLog2 = 6;

class WEFT_SUITE : public ::testing::Test {
 protected:
  void SetUp() override { make_env({}, {}); }

  void make_env(sim::AxiMemOptions mo, sim::AxilOptions lo) {
    mo.seed = rng();
    lo.seed = rng();
    env = std::make_unique<Env>(mo, lo);
    env->mem.set_default_byte(0xcd);
  }

  // Windows, ring, completion record; queue enabled.
  void setup(uint64_t cpl = kCpl) {
    env->set_window(0, kWinBase, kWinLimit, true, true);
    env->setup_ring(kRing, kRingLog2, cpl);
  }

  int uni(int lo, int hi) { return std::uniform_int_distribution<int>(lo, hi)(rng); }
  bool coin(double p = 0.5) { return std::uniform_real_distribution<double>(0, 1)(rng) < p; }
  std::vector<uint8_t> random_bytes(size_t n) {
    std::vector<uint8_t> v(n);
    for (auto& b : v) b = static_cast<uint8_t>(rng());
    return v;
  }

  // Every device write since the last clear lies inside one of the [lo, hi) ranges given.
  void expect_writes_inside(const std::vector<std::pair<uint64_t, uint64_t>>& ranges) {
    for (const auto& w : env->device_writes) {
      bool ok = false;
      for (const auto& r : ranges) ok = ok || (w.addr >= r.first && w.addr + w.len <= r.second);
      EXPECT_TRUE(ok) << "device wrote " << w.len << " bytes at 0x" << std::hex << w.addr;
    }
  }

  // Queue registers, for failure messages.
  std::string state() {
    char buf[160];
    std::snprintf(buf, sizeof buf, "STATUS=%x COMPLETED=%u HEAD=%u ERR_CODE=%u ERR_INDEX=%u tail=%u",
                  env->rd(regs::kStatus), env->rd(regs::kCompleted), env->rd(regs::kRingHead),
                  env->rd(regs::kErrCode), env->rd(regs::kErrIndex), env->tail);
    return buf;
  }

  weft::CompletionRecord record(uint64_t at = kCpl) {
    weft::CompletionRecord r;
    r.completed = env->mem.load<uint32_t>(at);
    r.error = env->mem.load<uint32_t>(at + 4);
    r.error_index = env->mem.load<uint32_t>(at + 8);
    r.reserved = env->mem.load<uint32_t>(at + 12);
    return r;
  }

  // ---- copies ------------------------------------------------------------------------------
  struct Copy {
    Transfer2d load, store;
    std::vector<uint8_t> data;  // rows x row_bytes
  };

  // A random 2D region loaded to the scratchpad and stored back elsewhere with other strides.
  Copy random_copy(uint64_t src, uint64_t dst, uint32_t spad_base, uint32_t max_lines) {
    Copy c;
    const uint32_t lines = static_cast<uint32_t>(uni(1, 6));
    const uint32_t rows = static_cast<uint32_t>(uni(1, 8));
    const uint32_t sstride = lines + static_cast<uint32_t>(uni(0, 2));
    if ((rows - 1) * sstride + lines > max_lines) return random_copy(src, dst, spad_base, max_lines);
    c.load.host_addr = src;
    c.load.row_bytes = lines * kBB;
    c.load.rows = rows;
    c.load.host_stride = lines * kBB + kBB * static_cast<uint32_t>(uni(0, 3));
    c.load.spad_addr = spad_base;
    c.load.spad_stride = sstride;
    c.store = c.load;
    c.store.host_addr = dst;
    c.store.host_stride = lines * kBB + kBB * static_cast<uint32_t>(uni(0, 2));
    c.data = random_bytes(static_cast<size_t>(rows) * lines * kBB);
    for (uint32_t r = 0; r < rows; ++r)
      env->mem.write(src + r * c.load.host_stride, c.data.data() + r * lines * kBB, lines * kBB);
    return c;
  }
  void expect_copied(const Copy& c) {
    const uint32_t rb = c.store.row_bytes;
    for (uint32_t r = 0; r < c.store.rows; ++r) {
      const auto got = env->mem.read(c.store.host_addr + r * c.store.host_stride, rb);
      ASSERT_TRUE(std::equal(got.begin(), got.end(), c.data.begin() + r * rb)) << "row " << r;
    }
  }
  std::vector<std::pair<uint64_t, uint64_t>> copy_ranges(const Copy& c) {
    std::vector<std::pair<uint64_t, uint64_t>> v;
    for (uint32_t r = 0; r < c.store.rows; ++r) {
      const uint64_t a = c.store.host_addr + r * c.store.host_stride;
      v.push_back({a, a + c.store.row_bytes});
    }
    return v;
  }

  // ---- GEMMs -------------------------------------------------------------------------------
  struct Gemm {
    int m = 1, k = 1, n = 1;
    golden::OperandType at, wt;
    std::vector<int32_t> a, w;
    std::vector<golden::ChannelParams> ch;
    golden::OutputParams out;
    bool pack = false;
    uint32_t acc_addr = 0;
    uint64_t dst = 0;
    uint32_t dst_stride = 0;
    // scratchpad placement
    uint32_t a_line = 0, w_line = 0, p_line = 0;
  };

  golden::OperandType random_type() {
    golden::OperandType t;
    t.is_signed = coin();
    t.zero_point = coin(0.3) ? 0 : (t.is_signed ? uni(-128, 127) : uni(0, 255));
    return t;
  }

  Gemm random_gemm(int max_m, int max_k) {
    Gemm g;
    g.m = coin(0.2) ? uni(1, 3) : uni(1, max_m);
    g.k = coin(0.2) ? uni(1, kRows) : uni(1, max_k);
    g.n = coin(0.6) ? kCols : uni(1, kCols);
    g.at = random_type();
    g.wt = random_type();
    for (int i = 0; i < g.m * g.k; ++i) g.a.push_back(g.at.is_signed ? uni(-128, 127) : uni(0, 255));
    for (int i = 0; i < g.k * g.n; ++i) g.w.push_back(g.wt.is_signed ? uni(-128, 127) : uni(0, 255));
    const int fam = uni(0, 2);  // 0 INT32 out, 1 TFLite, 2 ONNX
    g.ch.resize(kCols);
    for (auto& c : g.ch) {
      c.bias = uni(-(1 << 20), 1 << 20);
      if (fam == 1) {
        c.multiplier = uni(1 << 30, 0x7fffffff);
        c.shift = uni(-20, 2);
      } else if (fam == 2) {
        c.scale = std::ldexp(std::uniform_real_distribution<float>(1.0f, 2.0f)(rng), uni(-18, -4));
      }
    }
    if (fam == 0) {
      g.out.mode = golden::RequantMode::kNone;
      g.pack = false;
    } else {
      g.out.mode = fam == 2 ? golden::RequantMode::kOnnx
                   : coin() ? golden::RequantMode::kTfliteDouble
                            : golden::RequantMode::kTfliteSingle;
      const bool out_signed = coin();
      g.out.zero_point = out_signed ? uni(-128, 127) : uni(0, 255);
      golden::activation_bounds(static_cast<golden::Activation>(uni(0, 2)), out_signed,
                                g.out.zero_point, 0.05f, &g.out.act_min, &g.out.act_max);
      g.pack = coin(0.7);
    }
    g.acc_addr = static_cast<uint32_t>(uni(0, 1) * kBank + uni(0, kBank - g.m));
    return g;
  }

  static int tiles(const Gemm& g) { return (g.k + kRows - 1) / kRows; }
  static uint32_t out_row_bytes(const Gemm& g) { return g.pack ? g.n : 4 * g.n; }

  // Writes the GEMM's scratchpad images to host memory at `src` and returns the descriptors
  // that load them (A, W, params), the COMPUTE and the STORE_ACC, with their dependencies.
  // The A image is kt rows (one per k-tile) of m lines; W kt*Rows lines; params Cols lines.
  std::vector<Descriptor> gemm_descs(Gemm& g, uint64_t src) {
    const int kt = tiles(g);
    std::vector<uint8_t> aimg(static_cast<size_t>(kt) * g.m * kBB), wimg(static_cast<size_t>(kt) * kRows * kBB),
        pimg(static_cast<size_t>(kCols) * kBB, 0);
    for (auto& b : aimg) b = static_cast<uint8_t>(rng());
    for (auto& b : wimg) b = static_cast<uint8_t>(rng());
    for (int t = 0; t < kt; ++t) {
      for (int j = 0; j < g.m; ++j) {
        for (int r = 0; r < kRows && t * kRows + r < g.k; ++r)
          aimg[(static_cast<size_t>(t) * g.m + j) * kBB + r] = static_cast<uint8_t>(g.a[j * g.k + t * kRows + r]);
      }
      for (int r = 0; r < kRows && t * kRows + r < g.k; ++r) {
        for (int c = 0; c < g.n; ++c)
          wimg[(static_cast<size_t>(t) * kRows + r) * kBB + c] = static_cast<uint8_t>(g.w[(t * kRows + r) * g.n + c]);
      }
    }
    const bool onnx = g.out.mode == golden::RequantMode::kOnnx;
    for (int c = 0; c < kCols; ++c) {
      weft::ColumnParams p;
      p.bias = g.ch[c].bias;
      if (onnx) {
        std::memcpy(&p.mult, &g.ch[c].scale, 4);
      } else {
        p.mult = static_cast<uint32_t>(g.ch[c].multiplier);
      }
      p.shift = g.ch[c].shift & 0x3f;
      std::memcpy(&pimg[c * kBB], &p, kBB);
    }
    // A: one host row per k-tile with a gap between rows (2D load).
    const uint32_t arow = static_cast<uint32_t>(g.m) * kBB;
    const uint32_t astride = arow + 2 * kBB;
    const uint64_t asrc = src, wsrc = src + 0x10000, psrc = src + 0x20000;
    for (int t = 0; t < kt; ++t) env->mem.write(asrc + t * astride, aimg.data() + t * arow, arow);
    env->mem.write(wsrc, wimg);
    env->mem.write(psrc, pimg);

    std::vector<Descriptor> d;
    Transfer2d la{asrc, arow, static_cast<uint32_t>(kt), astride, g.a_line, static_cast<uint32_t>(g.m)};
    d.push_back(Descriptor::load(la));
    Transfer2d lw{wsrc, static_cast<uint32_t>(wimg.size()), 1, 0, g.w_line, 0};
    d.push_back(Descriptor::load(lw));
    Transfer2d lp{psrc, static_cast<uint32_t>(pimg.size()), 1, 0, g.p_line, 0};
    d.push_back(Descriptor::load(lp));
    ComputeArgs ca;
    ca.a_addr = g.a_line;
    ca.a_row_stride = 1;
    ca.a_tile_stride = static_cast<uint32_t>(g.m);
    ca.w_addr = g.w_line;
    ca.w_row_stride = 1;
    ca.w_tile_stride = kRows;
    ca.m = static_cast<uint32_t>(g.m);
    ca.k = static_cast<uint32_t>(g.k);
    ca.acc_addr = g.acc_addr;
    ca.a_signed = g.at.is_signed;
    ca.w_signed = g.wt.is_signed;
    ca.a_zp = static_cast<uint8_t>(g.at.zero_point);
    ca.w_zp = static_cast<uint8_t>(g.wt.zero_point);
    d.push_back(Descriptor::compute(ca).with_dep(0, 2).with_dep(1, 3));  // A and W loads
    d.push_back(store_of(g, true).with_dep(0, 1).with_dep(1, 2));         // COMPUTE, params
    return d;
  }

  void expect_gemm(const Gemm& g) {
    const auto acc = golden::gemm(g.a, g.w, g.m, g.k, g.n, g.at, g.wt);
    std::vector<golden::ChannelParams> ch(g.ch.begin(), g.ch.begin() + g.n);
    const auto want = golden::postprocess(acc, g.m, g.n, ch, g.out);
    for (int j = 0; j < g.m; ++j) {
      for (int c = 0; c < g.n; ++c) {
        const uint64_t at = g.dst + static_cast<uint64_t>(j) * g.dst_stride;
        const int32_t got = g.pack ? env->mem.read8(at + c) : static_cast<int32_t>(env->mem.load<uint32_t>(at + 4 * c));
        const int32_t exp = g.pack ? (want[j * g.n + c] & 0xff) : want[j * g.n + c];
        ASSERT_EQ(got, exp) << "m=" << g.m << " k=" << g.k << " n=" << g.n << " mode="
                            << int(g.out.mode) << " pack=" << g.pack << " row " << j << " col " << c
                            << " (acc " << acc[j * g.n + c] << ")";
      }
      // Nothing after the row's bytes (up to the stride) was written.
      const uint64_t end = g.dst + static_cast<uint64_t>(j) * g.dst_stride + out_row_bytes(g);
      for (uint64_t b = end; b < g.dst + static_cast<uint64_t>(j + 1) * g.dst_stride; ++b)
        ASSERT_EQ(env->mem.read8(b), 0xcd) << "byte after row " << j;
    }
  }

  // Runs `count` random GEMMs one after the other (each: 3 loads, COMPUTE, STORE_ACC; the next
  // GEMM's loads wait for this GEMM's STORE_ACC, as they reuse the scratchpad).
  void run_random_gemms(int count, int max_m, int max_k) {
    for (int i = 0; i < count; ++i) {
      Gemm g = random_gemm(max_m, max_k);
      g.a_line = 0;
      g.w_line = kBankLines;
      g.p_line = 2 * kBankLines + static_cast<uint32_t>(uni(0, 8));
      g.dst = kDst + 0x10000 * static_cast<uint64_t>(i % 8);
      g.dst_stride = ((out_row_bytes(g) + kBB - 1) / kBB) * kBB + kBB * static_cast<uint32_t>(uni(0, 1));
      env->mem.fill(g.dst, static_cast<uint64_t>(g.m) * g.dst_stride, 0xcd);
      auto ds = gemm_descs(g, kSrc + 0x40000 * static_cast<uint64_t>(i % 4));
      if (i > 0) ds[0].with_flags(weft::kFlagWaitStore);  // scratchpad reuse after the last GEMM
      for (auto& d : ds) env->put(d);
      env->doorbell();
      ASSERT_TRUE(env->wait_completed(env->tail, 2'000'000)) << "GEMM " << i << " did not complete: " << state();
      ASSERT_EQ(env->rd(regs::kErrCode), 0u);
      expect_gemm(g);
      if (HasFatalFailure()) return;
    }
  }

  // ---- errors ------------------------------------------------------------------------------
  // Two good descriptors, then `bad` (index 2), then a STORE_SPAD to a canary region; expects the
  // error `code` at index 2, nothing from index 2 on executed, the completion record and the
  // error interrupt; then a queue reset and a good copy that runs from index 0.
  void check_error(const Descriptor& bad, ErrorCode code, bool keep_seq = false,
                   const std::function<void()>& before_reset = {}) {
    setup();
    env->wr(regs::kIrqEnable, kIrqError | kIrqDone);
    Copy c = random_copy(kSrc, kDst, 0, kBankLines);
    env->submit(Descriptor::load(c.load));
    env->submit(Descriptor::store_spad(c.store).with_dep(0, 1));
    ASSERT_TRUE(env->wait_completed(2));
    expect_copied(c);
    env->wr(regs::kIrqStatus, kIrqDone | kIrqError);
    env->device_writes.clear();
    Transfer2d canary{kSrc, 64, 1, 0, 0, 0};
    canary.host_addr = kDst + 0x40000;
    env->put(bad, keep_seq);
    env->put(Descriptor::store_spad(canary).with_dep(0, 1));
    env->doorbell();
    ASSERT_TRUE(env->wait_error()) << "no error reported: " << state();
    ASSERT_TRUE(env->wait_idle()) << "device not idle after the error: " << state();
    EXPECT_EQ(env->rd(regs::kErrCode), static_cast<uint32_t>(code)) << weft::error_name(code);
    EXPECT_EQ(env->rd(regs::kErrIndex), 2u);
    EXPECT_EQ(env->rd(regs::kCompleted), 2u);
    EXPECT_EQ(env->rd(regs::kIrqStatus) & kIrqError, kIrqError);
    EXPECT_TRUE(env->h.dut().irq_o);
    const auto rec = record();
    EXPECT_EQ(rec.completed, 2u);
    EXPECT_EQ(rec.error, static_cast<uint32_t>(code));
    EXPECT_EQ(rec.error_index, 2u);
    EXPECT_EQ(rec.reserved, 0u);
    // Only the completion record was written; the canary store never ran.
    expect_writes_inside({{kCpl, kCpl + 16}});
    for (uint64_t b = 0; b < 64; ++b) EXPECT_EQ(env->mem.read8(canary.host_addr + b), 0xcd);
    if (before_reset) before_reset();
    // Queue reset: record {0,0,0,0}, then index 0 runs again.
    env->wr(regs::kIrqStatus, kIrqDone | kIrqError);
    ASSERT_TRUE(env->queue_reset());
    EXPECT_EQ(env->rd(regs::kStatus) & (kStatusError | kStatusResetBusy), 0u);
    EXPECT_EQ(env->rd(regs::kErrCode), 0u);
    EXPECT_EQ(env->rd(regs::kCompleted), 0u);
    EXPECT_EQ(env->rd(regs::kRingHead), 0u);
    EXPECT_EQ(record().completed, 0u);
    EXPECT_EQ(record().error, 0u);
    Copy c2 = random_copy(kSrc + 0x8000, kDst + 0x8000, 8, kBankLines - 8);
    env->submit(Descriptor::load(c2.load));
    env->submit(Descriptor::store_spad(c2.store).with_flags(weft::kFlagWaitLoad | weft::kFlagIrq));
    ASSERT_TRUE(env->wait_completed(2));
    expect_copied(c2);
    EXPECT_TRUE(env->wait([&] { return record().completed == 2; }, 1000));  // the record follows
    EXPECT_EQ(env->rd(regs::kErrCode), 0u);
    EXPECT_TRUE(env->wait([&] { return env->h.dut().irq_o != 0; }, 1000));
  }

  // ---- post-processing parameters (PARAM) -------------------------------------------------
  // A GEMM whose column parameters are legal in every mode: the multiplier's bits are a float32
  // scale in [2^-12, 2^-5) -- read as an int32, a positive TFLite multiplier of about 0.46 * 2^31
  // -- and the shifts lie in [-12, 0]. Output mode `mode`, `n` columns; scratchpad lines A in
  // bank 0, W in bank 1, parameters in bank 2; destination kDst.
  Gemm param_gemm(golden::RequantMode mode, int n) {
    Gemm g;
    g.m = uni(1, std::min(kBank, 12));
    g.k = uni(1, 2 * kRows);
    g.n = n;
    g.at = random_type();
    g.wt = random_type();
    for (int i = 0; i < g.m * g.k; ++i) g.a.push_back(g.at.is_signed ? uni(-128, 127) : uni(0, 255));
    for (int i = 0; i < g.k * g.n; ++i) g.w.push_back(g.wt.is_signed ? uni(-128, 127) : uni(0, 255));
    g.ch.resize(kCols);
    for (auto& c : g.ch) {
      c.bias = uni(-5000, 5000);
      c.scale = std::ldexp(std::uniform_real_distribution<float>(1.0f, 2.0f)(rng), uni(-12, -6));
      std::memcpy(&c.multiplier, &c.scale, 4);
      c.shift = uni(-12, 0);
    }
    g.out.mode = mode;
    const bool out_signed = coin();
    g.out.zero_point = out_signed ? uni(-128, 127) : uni(0, 255);
    g.out.act_min = out_signed ? -128 : 0;
    g.out.act_max = out_signed ? 127 : 255;
    g.pack = mode != golden::RequantMode::kNone && coin();
    g.acc_addr = static_cast<uint32_t>(uni(0, 1) * kBank + uni(0, kBank - g.m));
    g.a_line = 0;
    g.w_line = kBankLines;
    g.p_line = 2 * kBankLines + static_cast<uint32_t>(uni(0, 8));
    g.dst = kDst;
    g.dst_stride = ((out_row_bytes(g) + kBB - 1) / kBB) * kBB + kBB * static_cast<uint32_t>(uni(0, 1));
    return g;
  }

  // The STORE_ACC of `g` (its mode, pack, destination), with or without load_params.
  static Descriptor store_of(const Gemm& g, bool load_params) {
    StoreAccArgs sa;
    sa.host_addr = g.dst;
    sa.host_stride = g.dst_stride;
    sa.m = static_cast<uint32_t>(g.m);
    sa.acc_addr = g.acc_addr;
    sa.n = static_cast<uint32_t>(g.n);
    sa.mode = static_cast<StoreMode>(g.out.mode);
    sa.pack = g.pack;
    sa.load_params = load_params;
    sa.params_addr = g.p_line;
    sa.zp = g.out.zero_point;
    sa.act_min = g.out.act_min;
    sa.act_max = g.out.act_max;
    return Descriptor::store_acc(sa);
  }

  // Every byte of g's destination rows (m strides from g.dst) still holds the fill 0xcd.
  void expect_untouched(const Gemm& g) {
    const auto got = env->mem.read(g.dst, static_cast<uint64_t>(g.m) * g.dst_stride);
    EXPECT_EQ(std::count(got.begin(), got.end(), uint8_t{0xcd}), static_cast<long>(got.size()))
        << "the destination of the failing STORE_ACC was written";
  }

  // The queue stopped with PARAM at `index` for column `col`: registers, record, interrupt.
  void expect_param_error(uint32_t index, int col) {
    ASSERT_TRUE(env->wait_error()) << "no error reported: " << state();
    ASSERT_TRUE(env->wait_idle()) << "device not idle after the error: " << state();
    EXPECT_EQ(env->rd(regs::kErrCode), static_cast<uint32_t>(ErrorCode::kParam)) << state();
    EXPECT_EQ(env->rd(regs::kErrIndex), index);
    EXPECT_EQ(env->rd(regs::kErrAddrLo), static_cast<uint32_t>(col));
    EXPECT_EQ(env->rd(regs::kErrAddrHi), 0u);
    EXPECT_EQ(env->rd(regs::kCompleted), index);
    EXPECT_EQ(env->rd(regs::kIrqStatus) & kIrqError, kIrqError);
    EXPECT_TRUE(env->h.dut().irq_o);
    const auto rec = record();
    EXPECT_EQ(rec.completed, index);
    EXPECT_EQ(rec.error, static_cast<uint32_t>(ErrorCode::kParam));
    EXPECT_EQ(rec.error_index, index);
  }

  std::mt19937_64 rng{weft::tb::test_seed()};
  std::unique_ptr<Env> env;
};

// ---------------------------------------------------------------------------------------------

TEST_F(WEFT_SUITE, ReportsItsConfigurationInCapRegisters) {
  EXPECT_EQ(env->rd(regs::kId), 0x54464557u);
  const uint32_t cap0 = env->rd(regs::kCap0);
  EXPECT_EQ(cap0 & 0xff, static_cast<uint32_t>(kRows));
  EXPECT_EQ((cap0 >> 8) & 0xff, static_cast<uint32_t>(kCols));
  EXPECT_EQ((cap0 >> 16) & 0xff, kBB);
  EXPECT_EQ(cap0 >> 24, 4u);
  const uint32_t cap1 = env->rd(regs::kCap1);
  EXPECT_EQ(cap1 & 0xffffff, kSpadLines);
  EXPECT_EQ(cap1 >> 24, kSpadBanks);
  const uint32_t cap2 = env->rd(regs::kCap2);
  EXPECT_EQ(cap2 & 0xffff, static_cast<uint32_t>(kAccDepth));
  EXPECT_EQ((cap2 >> 16) & 0xff, 16u);
  EXPECT_EQ(cap2 >> 24, 16u);
  EXPECT_EQ(env->rd(regs::kStatus) & kStatusIdle, kStatusIdle);
}

TEST_F(WEFT_SUITE, LoadThenStoreSpadRoundTripIsByteExact) {
  setup();
  env->device_writes.clear();
  std::vector<std::pair<uint64_t, uint64_t>> allowed{{kCpl, kCpl + 16}};
  std::vector<Copy> copies;
  for (int i = 0; i < 24; ++i) {
    const uint32_t bank = static_cast<uint32_t>(i % kSpadBanks);
    Copy c = random_copy(kSrc + 0x1000 * static_cast<uint64_t>(i), kDst + 0x1000 * static_cast<uint64_t>(i),
                         bank * kBankLines + static_cast<uint32_t>(uni(0, 16)), kBankLines - 16);
    env->put(Descriptor::load(c.load));
    env->put(Descriptor::store_spad(c.store).with_dep(0, 1));
    for (auto& r : copy_ranges(c)) allowed.push_back(r);
    copies.push_back(std::move(c));
    if (i % 4 == 3) {
      env->doorbell();
      ASSERT_TRUE(env->wait_completed(env->tail));
    }
  }
  for (const auto& c : copies) expect_copied(c);
  expect_writes_inside(allowed);
  EXPECT_EQ(env->rd(regs::kRingHead), env->tail);
  EXPECT_TRUE(env->wait([&] { return record().completed == env->tail; }, 1000));
}

TEST_F(WEFT_SUITE, SmallGemmsMatchGolden) {
  setup();
  run_random_gemms(kRows <= 4 ? 200 : 40, kBank, 3 * kRows);
}

TEST_F(WEFT_SUITE, StoreWaitsForTheLoadItDependsOn) {
  setup();
  // The scratchpad lines first hold pattern 1; a slow LOAD brings pattern 2; the STORE_SPAD
  // that depends on it (dep0, WAIT_LOAD, or a FENCE between them) must store pattern 2.
  for (int variant = 0; variant < 3; ++variant) {
    Copy first = random_copy(kSrc, kDst + 0x20000, 0, kBankLines);
    env->submit(Descriptor::load(first.load));
    ASSERT_TRUE(env->wait_completed(env->tail));
    Copy second = first;
    second.data = random_bytes(first.data.size());
    second.load.host_addr = kSrc + 0x8000;
    second.store.host_addr = kDst + 0x10000 * static_cast<uint64_t>(variant);
    for (uint32_t r = 0; r < second.load.rows; ++r)
      env->mem.write(second.load.host_addr + r * second.load.host_stride,
                     second.data.data() + r * second.load.row_bytes, second.load.row_bytes);
    env->axi.options().read_latency = 300;
    env->put(Descriptor::load(second.load));
    if (variant == 0) env->put(Descriptor::store_spad(second.store).with_dep(1, 1));
    if (variant == 1) env->put(Descriptor::store_spad(second.store).with_flags(weft::kFlagWaitLoad));
    if (variant == 2) {
      env->put(Descriptor::fence());
      env->put(Descriptor::store_spad(second.store));
    }
    env->doorbell();
    ASSERT_TRUE(env->wait_completed(env->tail)) << "variant " << variant;
    env->axi.options().read_latency = 1;
    expect_copied(second);
  }
}

TEST_F(WEFT_SUITE, IndependentEnginesOverlapAndRetireInOrder) {
  setup();
  // A slow LOAD, then an independent STORE_SPAD of other lines: the store's data reaches host
  // memory while the load is still running, but COMPLETED stays 0 until the load completes.
  Copy a = random_copy(kSrc, kDst, kBankLines, kBankLines);
  env->submit(Descriptor::load(a.load));
  ASSERT_TRUE(env->wait_completed(1));
  Copy slow = random_copy(kSrc + 0x8000, kDst + 0x8000, 0, kBankLines);
  env->axi.options().read_latency = 2000;  // descriptor fetch and the LOAD: ~4000 cycles
  env->put(Descriptor::load(slow.load));
  env->put(Descriptor::store_spad(a.store));
  env->doorbell();
  ASSERT_TRUE(env->wait([&] {
    const auto got = env->mem.read(a.store.host_addr + (a.store.rows - 1) * a.store.host_stride, a.store.row_bytes);
    return std::equal(got.begin(), got.end(), a.data.end() - a.store.row_bytes);
  }, 3800)) << "the independent store did not run during the load";
  EXPECT_EQ(env->rd(regs::kCompleted), 1u);
  EXPECT_EQ(env->h.dut().irq_o, 0);
  ASSERT_TRUE(env->wait_completed(3));
  expect_copied(a);
}

TEST_F(WEFT_SUITE, CompletionRecordAndInterrupt) {
  setup();
  env->wr(regs::kIrqEnable, kIrqDone);
  for (int i = 0; i < 5; ++i) env->put(Descriptor::nop());
  env->put(Descriptor::nop().with_flags(weft::kFlagIrq));
  env->doorbell();
  ASSERT_TRUE(env->wait([&] { return env->h.dut().irq_o != 0; }, 5000));
  // The record is in memory when the interrupt rises.
  auto rec = record();
  EXPECT_EQ(rec.completed, 6u);
  EXPECT_EQ(rec.error, 0u);
  EXPECT_EQ(rec.error_index, 0u);
  EXPECT_EQ(env->rd(regs::kIrqStatus), kIrqDone);
  EXPECT_EQ(env->rd(regs::kCompleted), 6u);
  env->wr(regs::kIrqStatus, kIrqDone);
  EXPECT_EQ(env->rd(regs::kIrqStatus), 0u);
  EXPECT_EQ(env->h.dut().irq_o, 0);
  // Without the flag no interrupt; the record still follows COMPLETED.
  env->submit(Descriptor::nop());
  ASSERT_TRUE(env->wait([&] { return record().completed == 7; }, 5000));
  env->steps(50);
  EXPECT_EQ(env->rd(regs::kIrqStatus), 0u);
  // A disabled interrupt sets the status bit but not irq_o.
  env->wr(regs::kIrqEnable, 0);
  env->submit(Descriptor::nop().with_flags(weft::kFlagIrq));
  ASSERT_TRUE(env->wait([&] { return (env->rd(regs::kIrqStatus) & kIrqDone) != 0; }, 5000, 8));
  EXPECT_EQ(env->h.dut().irq_o, 0);
  EXPECT_EQ(record().completed, 8u);
}

TEST_F(WEFT_SUITE, ErrorOpcode) { check_error(Descriptor::raw(0x77), ErrorCode::kOpcode); }

TEST_F(WEFT_SUITE, ErrorSize) {
  check_error(Descriptor::load({kSrc, 16, 0, 16, 0, 1}), ErrorCode::kSize);
}

TEST_F(WEFT_SUITE, ErrorSizeOfCompute) {
  ComputeArgs ca;
  ca.m = kBank + 1;
  ca.k = 4;
  check_error(Descriptor::compute(ca), ErrorCode::kSize);
}

TEST_F(WEFT_SUITE, ErrorWindow) {
  // A store whose last row ends 16 bytes beyond the window.
  Transfer2d t{kWinLimit - 4 * 32 + 16, 32, 4, 32, 0, 2};
  check_error(Descriptor::store_spad(t), ErrorCode::kWindow);
  EXPECT_EQ(env->rd(regs::kErrCode), 0u);  // after the reset
}

TEST_F(WEFT_SUITE, ErrorWindowReadPermission) {
  // Window 1 is write-only: a LOAD from it fails, before any byte moves.
  env->set_window(1, 0x2000'0000, 0x2001'0000, false, true);
  check_error(Descriptor::load({0x2000'0000, 16, 1, 16, 0, 1}), ErrorCode::kWindow);
}

TEST_F(WEFT_SUITE, ErrorSpadRange) {
  // Two lines per row, the last row's second line is spad_lines.
  check_error(Descriptor::load({kSrc, 32, 3, 32, kSpadLines - 5, 2}), ErrorCode::kSpadRange);
}

TEST_F(WEFT_SUITE, ErrorSpadRangeOfComputeWeights) {
  ComputeArgs ca;
  ca.m = 2;
  ca.k = 2 * kRows;  // two tiles
  ca.a_addr = 0;
  ca.a_row_stride = 1;
  ca.a_tile_stride = 2;
  ca.w_addr = kSpadLines - 2 * kRows;
  ca.w_row_stride = 1;
  ca.w_tile_stride = kRows + 1;  // the second tile's last row is line spad_lines
  check_error(Descriptor::compute(ca), ErrorCode::kSpadRange);
}

TEST_F(WEFT_SUITE, ErrorAccRange) {
  ComputeArgs ca;
  ca.m = 2;
  ca.k = 1;
  ca.acc_addr = kBank - 1;  // rows kBank-1 and kBank: across the bank end
  check_error(Descriptor::compute(ca), ErrorCode::kAccRange);
}

TEST_F(WEFT_SUITE, ErrorAlign) {
  check_error(Descriptor::load({kSrc + 8, 16, 1, 16, 0, 1}), ErrorCode::kAlign);
}

TEST_F(WEFT_SUITE, ErrorSeq) {
  check_error(Descriptor::nop().with_seq(7), ErrorCode::kSeq, true);
}

TEST_F(WEFT_SUITE, ErrorSlverrOnLoad) {
  // The LOAD's source answers SLVERR; the STORE_SPAD after it depends on it and never runs.
  env->axi.options().errors.push_back({kSrc + 0x30000, kSrc + 0x30010, sim::AxiResp::kSlvErr, true, false});
  Transfer2d t{kSrc + 0x30000 - 32, 64, 1, 64, 0, 1};
  check_error(Descriptor::load(t), ErrorCode::kSlverr, false, [&] {
    // ERR_ADDR: the failing burst or beat, inside the request up to the error range's end.
    const uint32_t ea = env->rd(regs::kErrAddrLo);
    EXPECT_GE(ea, static_cast<uint32_t>(kSrc + 0x30000 - 32));
    EXPECT_LT(ea, static_cast<uint32_t>(kSrc + 0x30010));
    env->axi.options().errors.clear();
  });
}

TEST_F(WEFT_SUITE, ErrorDecerrOnStore) {
  // Injected DECERR on the store's destination: reported for the STORE_SPAD.
  env->axi.options().errors.push_back({kDst + 0x50000, kDst + 0x50040, sim::AxiResp::kDecErr, false, true});
  setup();
  env->wr(regs::kIrqEnable, kIrqError);
  env->device_writes.clear();
  Transfer2d t{kDst + 0x50000, 64, 2, 64, 0, 4};
  env->submit(Descriptor::nop());
  env->submit(Descriptor::store_spad(t));
  ASSERT_TRUE(env->wait_error());
  ASSERT_TRUE(env->wait_idle());
  EXPECT_EQ(env->rd(regs::kErrCode), static_cast<uint32_t>(ErrorCode::kDecerr));
  EXPECT_EQ(env->rd(regs::kErrIndex), 1u);
  EXPECT_EQ(env->rd(regs::kCompleted), 1u);
  EXPECT_EQ(record().error, static_cast<uint32_t>(ErrorCode::kDecerr));
  EXPECT_TRUE(env->h.dut().irq_o);
  expect_writes_inside({{kCpl, kCpl + 16}, {kDst + 0x50040, kDst + 0x50080}});
  env->axi.options().errors.clear();
  ASSERT_TRUE(env->queue_reset());
  env->submit(Descriptor::store_spad(t));
  ASSERT_TRUE(env->wait_completed(1));
  EXPECT_EQ(env->rd(regs::kErrCode), 0u);
}

TEST_F(WEFT_SUITE, ErrorRing) {
  env->set_window(0, kWinBase, kWinLimit, true, true);
  env->setup_ring(kRing + 32, kRingLog2, kCpl);  // base not 64-byte aligned
  env->device_writes.clear();
  env->submit(Descriptor::nop());
  ASSERT_TRUE(env->wait_error());
  EXPECT_EQ(env->rd(regs::kErrCode), static_cast<uint32_t>(ErrorCode::kRing));
  EXPECT_EQ(env->rd(regs::kErrIndex), 0u);
  EXPECT_EQ(env->rd(regs::kRingHead), 0u);
  expect_writes_inside({{kCpl, kCpl + 16}});
  // Ring size 0 (log2 = 0) is also refused.
  env->setup_ring(kRing, 0, kCpl);
  ASSERT_TRUE(env->queue_reset());
  env->submit(Descriptor::nop());
  ASSERT_TRUE(env->wait_error());
  EXPECT_EQ(env->rd(regs::kErrCode), static_cast<uint32_t>(ErrorCode::kRing));
  env->setup_ring(kRing, kRingLog2, kCpl);
  ASSERT_TRUE(env->queue_reset());
  env->submit(Descriptor::nop());
  ASSERT_TRUE(env->wait_completed(1));
  EXPECT_EQ(env->rd(regs::kErrCode), 0u);
}

TEST_F(WEFT_SUITE, ErrorWindowOnDescriptorFetch) {
  // The ring lies outside every window: the fetch fails with WINDOW for descriptor 0.
  env->set_window(0, kWinBase + 0x10000, kWinLimit, true, true);
  env->setup_ring(kRing, kRingLog2, kCpl);
  env->submit(Descriptor::nop());
  ASSERT_TRUE(env->wait_error());
  EXPECT_EQ(env->rd(regs::kErrCode), static_cast<uint32_t>(ErrorCode::kWindow));
  EXPECT_EQ(env->rd(regs::kErrIndex), 0u);
  EXPECT_EQ(env->rd(regs::kErrAddrLo), static_cast<uint32_t>(kRing));
}

TEST_F(WEFT_SUITE, PerfCountersMatchTheWork) {
  setup(0);  // no completion writes: the write byte count is the stores' alone
  env->wr(regs::kCtrl, kCtrlEnable | kCtrlPerfClear);
  Gemm g = random_gemm(kBank, 3 * kRows);
  g.a_line = 0;
  g.w_line = kBankLines;
  g.p_line = 2 * kBankLines;
  g.dst = kDst;
  g.dst_stride = 64;
  auto ds = gemm_descs(g, kSrc);
  for (auto& d : ds) env->put(d);
  env->doorbell();
  ASSERT_TRUE(env->wait_completed(5));
  ASSERT_TRUE(env->wait_idle());
  expect_gemm(g);
  const uint64_t kt = static_cast<uint64_t>(tiles(g));
  EXPECT_EQ(env->perf(kPerfMacs), static_cast<uint64_t>(g.m) * kt * kRows * kCols);
  EXPECT_EQ(env->perf(kPerfDescRetired), 5u);
  uint64_t loaded = 0;
  for (int i = 0; i < 3; ++i) {
    const auto x = ds[i].operands<Transfer2d>();
    loaded += uint64_t{x.row_bytes} * x.rows;
  }
  EXPECT_EQ(env->perf(kPerfDmaRdBytes), 5 * 64 + loaded);  // descriptors + LOADs
  EXPECT_EQ(env->perf(kPerfDmaWrBytes), static_cast<uint64_t>(g.m) * out_row_bytes(g));
  const uint64_t cycles = env->perf(kPerfCycles);
  for (int c : {kPerfLoadBusy, kPerfComputeBusy, kPerfStoreBusy, kPerfTuWaitW, kPerfTuWaitA})
    EXPECT_LT(env->perf(c), cycles) << "counter " << c;
  EXPECT_GE(env->perf(kPerfComputeBusy), g.m * kt);
  EXPECT_GT(env->perf(kPerfLoadBusy), 0u);
  EXPECT_GT(env->perf(kPerfStoreBusy), 0u);
  // The counters run on; perf_clear sets them to zero, LO/HI read as one value.
  const uint64_t c1 = env->perf(kPerfCycles);
  EXPECT_GT(c1, cycles);
  env->wr(regs::kCtrl, kCtrlEnable | kCtrlPerfClear);
  EXPECT_EQ(env->perf(kPerfMacs), 0u);
  EXPECT_LT(env->perf(kPerfCycles), 100u);
}

TEST_F(WEFT_SUITE, GemmsAndCopiesUnderBusStress) {
  sim::AxiMemOptions mo;
  mo.read_latency = static_cast<unsigned>(uni(1, 40));
  mo.write_latency = static_cast<unsigned>(uni(1, 40));
  mo.ar_stall = mo.aw_stall = mo.w_stall = 0.3;
  mo.r_gap = mo.b_gap = 0.3;
  make_env(mo, sim::AxilOptions::stressed(0.3, 1));
  setup();
  weft::tb::verbose_printf("read latency %u, write latency %u\n", mo.read_latency,
                           mo.write_latency);
  run_random_gemms(kRows <= 4 ? 60 : 15, kBank, 3 * kRows);
  std::vector<Copy> copies;
  for (int i = 0; i < 8; ++i) {
    Copy c = random_copy(kSrc + 0x1000 * static_cast<uint64_t>(i), kDst + 0x100000 + 0x1000 * static_cast<uint64_t>(i),
                         static_cast<uint32_t>(i % kSpadBanks) * kBankLines, kBankLines);
    // Copy i reuses copy i - kSpadBanks's scratchpad lines: its LOAD waits for that copy's
    // STORE_SPAD (2 * kSpadBanks - 1 descriptors back), or it may overwrite lines not yet stored.
    Descriptor load = Descriptor::load(c.load);
    if (i >= static_cast<int>(kSpadBanks))
      load.with_dep(0, static_cast<uint8_t>(2 * kSpadBanks - 1));
    env->put(load);
    env->put(Descriptor::store_spad(c.store).with_dep(0, 1));
    copies.push_back(std::move(c));
  }
  env->doorbell();
  ASSERT_TRUE(env->wait_completed(env->tail, 1'000'000));
  for (const auto& c : copies) expect_copied(c);
  EXPECT_TRUE(env->axi.violations().empty()) << env->axi.violations().front();
}

TEST_F(WEFT_SUITE, LongGemmKeepsTheArrayBusy) {
  // C (M x P*Cols) = A (M x K) * W (K x P*Cols), A resident in the scratchpad, the weight panels
  // double-buffered: per panel p, LOAD W_p into buffer p%2 (after COMPUTE p-2 read it), COMPUTE
  // p into accumulator bank p%2 (after STORE_ACC p-2 drained it), STORE_ACC p. The next panel's
  // weights load and its first tile enters the tensor unit while this panel computes.
  const int m = std::min(128, kBank);
  const int kt = std::min(32, static_cast<int>(kBankLines) / m);
  const int k = kt * kRows;
  const int panels = 8;
  setup(0);
  golden::OperandType at{true, 0}, wt{true, 0};
  std::vector<int32_t> a(static_cast<size_t>(m) * k);
  for (auto& v : a) v = uni(-128, 127);
  // A image: k-tile t of row j at line t*m + j (bank 0).
  std::vector<uint8_t> aimg(static_cast<size_t>(kt) * m * kBB, 0);
  for (int t = 0; t < kt; ++t)
    for (int j = 0; j < m; ++j)
      for (int r = 0; r < kRows; ++r)
        aimg[(static_cast<size_t>(t) * m + j) * kBB + r] = static_cast<uint8_t>(a[j * k + t * kRows + r]);
  env->mem.write(kSrc, aimg);
  std::vector<uint8_t> pimg(static_cast<size_t>(kCols) * kBB, 0);
  std::vector<golden::ChannelParams> ch(kCols);
  for (int c = 0; c < kCols; ++c) {
    ch[c].bias = uni(-1000, 1000);
    std::memcpy(&pimg[c * kBB], &ch[c].bias, 4);
  }
  env->mem.write(kSrc + 0xf0000, pimg);
  env->submit(Descriptor::load({kSrc, static_cast<uint32_t>(aimg.size()), 1, 0, 0, 0}));
  env->submit(Descriptor::load({kSrc + 0xf0000, static_cast<uint32_t>(pimg.size()), 1, 0, 3 * kBankLines, 0}));
  ASSERT_TRUE(env->wait_completed(2, 1'000'000));

  std::vector<std::vector<int32_t>> w(panels);
  const uint32_t wlines = static_cast<uint32_t>(kt * kRows);
  std::vector<uint32_t> idx_comp(panels), idx_store(panels);
  env->wr(regs::kCtrl, kCtrlEnable | kCtrlPerfClear);
  for (int p = 0; p < panels; ++p) {
    w[p].resize(static_cast<size_t>(k) * kCols);
    std::vector<uint8_t> wimg(static_cast<size_t>(wlines) * kBB, 0);
    for (int kk = 0; kk < k; ++kk)
      for (int c = 0; c < kCols; ++c) {
        w[p][kk * kCols + c] = uni(-128, 127);
        wimg[static_cast<size_t>(kk) * kBB + c] = static_cast<uint8_t>(w[p][kk * kCols + c]);
      }
    const uint64_t wsrc = kSrc + 0x100000 + 0x20000 * static_cast<uint64_t>(p);
    env->mem.write(wsrc, wimg);
    const uint32_t wbuf = 2 * kBankLines + static_cast<uint32_t>(p % 2) * wlines;
    Descriptor lw = Descriptor::load({wsrc, static_cast<uint32_t>(wimg.size()), 1, 0, wbuf, 0});
    if (p >= 2) lw.with_dep(0, static_cast<uint8_t>(env->tail - idx_comp[p - 2]));
    env->put(lw);
    ComputeArgs ca;
    ca.a_addr = 0;
    ca.a_row_stride = 1;
    ca.a_tile_stride = static_cast<uint32_t>(m);
    ca.w_addr = wbuf;
    ca.w_row_stride = 1;
    ca.w_tile_stride = kRows;
    ca.m = static_cast<uint32_t>(m);
    ca.k = static_cast<uint32_t>(k);
    ca.acc_addr = static_cast<uint32_t>((p % 2) * kBank);
    Descriptor cd = Descriptor::compute(ca).with_flags(weft::kFlagWaitLoad);
    if (p >= 2) cd.with_dep(0, static_cast<uint8_t>(env->tail - idx_store[p - 2]));
    idx_comp[p] = env->tail;
    env->put(cd);
    StoreAccArgs sa;
    sa.host_addr = kDst + 0x10000 * static_cast<uint64_t>(p);
    sa.host_stride = 4 * kCols;
    sa.m = static_cast<uint32_t>(m);
    sa.acc_addr = ca.acc_addr;
    sa.n = kCols;
    sa.mode = StoreMode::kInt32;
    sa.load_params = (p == 0);
    sa.params_addr = 3 * kBankLines;
    idx_store[p] = env->tail;
    env->put(Descriptor::store_acc(sa).with_dep(0, 1));
    env->doorbell();
  }
  ASSERT_TRUE(env->wait_completed(env->tail, 5'000'000));
  ASSERT_EQ(env->rd(regs::kErrCode), 0u);
  const uint64_t rows_in = env->perf(kPerfMacs) / (kRows * kCols);
  const uint64_t busy = env->perf(kPerfComputeBusy);
  const uint64_t cycles = env->perf(kPerfCycles);
  EXPECT_EQ(rows_in, static_cast<uint64_t>(panels) * kt * m);
  const double util = static_cast<double>(rows_in) / static_cast<double>(busy);
  weft::tb::verbose_printf(
      "[%dx%d] M=%d K=%d N=%d: %llu array rows in %llu compute-busy cycles (%.2f %%), "
      "%llu cycles in all (%.2f %%, first weight load and last store included); "
      "TU waits W %llu, A %llu\n",
      kRows, kCols, m, k, panels * kCols, static_cast<unsigned long long>(rows_in),
      static_cast<unsigned long long>(busy), 100.0 * util, static_cast<unsigned long long>(cycles),
      100.0 * static_cast<double>(rows_in) / static_cast<double>(cycles),
      static_cast<unsigned long long>(env->perf(kPerfTuWaitW)),
      static_cast<unsigned long long>(env->perf(kPerfTuWaitA)));
  RecordProperty("array_utilization_pct", static_cast<int>(1000 * util) / 10);
  EXPECT_GE(util, 0.97);
  for (int p = 0; p < panels; ++p) {
    const auto acc = golden::gemm(a, w[p], m, k, kCols, at, wt);
    golden::OutputParams out;
    out.mode = golden::RequantMode::kNone;
    const auto want = golden::postprocess(acc, m, kCols, ch, out);
    for (int j = 0; j < m; ++j)
      for (int c = 0; c < kCols; ++c)
        ASSERT_EQ(static_cast<int32_t>(env->mem.load<uint32_t>(kDst + 0x10000 * static_cast<uint64_t>(p) + j * 4 * kCols + 4 * c)),
                  want[j * kCols + c]) << "panel " << p << " row " << j << " col " << c;
  }
}

TEST_F(WEFT_SUITE, RingWrapsAround) {
  env->set_window(0, kWinBase, kWinLimit, true, true);
  env->setup_ring(kRing, 2, kCpl);  // four entries
  std::vector<Copy> copies;
  for (int b = 0; b < 12; ++b) {
    // Batches of three descriptors (never more than the ring size outstanding).
    Copy c = random_copy(kSrc + 0x1000 * static_cast<uint64_t>(b), kDst + 0x1000 * static_cast<uint64_t>(b),
                         static_cast<uint32_t>(b % kSpadBanks) * kBankLines, kBankLines);
    env->put(Descriptor::load(c.load));
    env->put(Descriptor::nop());
    env->put(Descriptor::store_spad(c.store).with_dep(0, 2));
    env->doorbell();
    ASSERT_TRUE(env->wait_completed(env->tail)) << "batch " << b;
    copies.push_back(std::move(c));
  }
  for (const auto& c : copies) expect_copied(c);
  EXPECT_EQ(env->rd(regs::kRingHead), 36u);
}

TEST_F(WEFT_SUITE, QueueResetWhileRunningStopsTheQueue) {
  setup();
  env->axi.options().read_latency = 100;
  for (int i = 0; i < 12; ++i) {
    Copy c = random_copy(kSrc + 0x1000 * static_cast<uint64_t>(i), kDst + 0x1000 * static_cast<uint64_t>(i), 0, kBankLines);
    env->put(Descriptor::load(c.load));
    env->put(Descriptor::store_spad(c.store).with_dep(0, 1));
  }
  env->doorbell();
  ASSERT_TRUE(env->wait([&] { return env->rd(regs::kCompleted) >= 2; }, 100000, 8));
  const uint32_t tail = env->tail;
  ASSERT_TRUE(env->queue_reset());
  EXPECT_EQ(env->rd(regs::kCompleted), 0u);
  EXPECT_EQ(env->rd(regs::kRingHead), 0u);
  EXPECT_EQ(env->rd(regs::kStatus), kStatusIdle);
  // Nothing more runs: the old doorbell count is gone.
  env->device_writes.clear();
  env->steps(3000);
  expect_writes_inside({});
  EXPECT_LT(tail, 100u);
  env->axi.options().read_latency = 1;
  Copy c = random_copy(kSrc + 0x80000, kDst + 0x80000, kBankLines, kBankLines);
  env->submit(Descriptor::load(c.load));
  env->submit(Descriptor::store_spad(c.store).with_dep(0, 1));
  ASSERT_TRUE(env->wait_completed(2));
  expect_copied(c);
}

TEST_F(WEFT_SUITE, ErrorSlverrOnDescriptorFetchIsPrecise) {
  // Entry 2 of a four-descriptor fetch answers SLVERR: descriptors 0 and 1 complete, the error
  // is reported for descriptor 2.
  env->axi.options().errors.push_back({kRing + 2 * 64 + 16, kRing + 2 * 64 + 32, sim::AxiResp::kSlvErr, true, false});
  setup();
  Copy c = random_copy(kSrc, kDst, 0, kBankLines);
  env->put(Descriptor::load(c.load));
  env->put(Descriptor::store_spad(c.store).with_dep(0, 1));
  env->put(Descriptor::nop());
  env->put(Descriptor::nop());
  env->doorbell();
  ASSERT_TRUE(env->wait_error());
  ASSERT_TRUE(env->wait_idle());
  EXPECT_EQ(env->rd(regs::kErrCode), static_cast<uint32_t>(ErrorCode::kSlverr));
  EXPECT_EQ(env->rd(regs::kErrIndex), 2u);
  EXPECT_EQ(env->rd(regs::kCompleted), 2u);
  EXPECT_EQ(env->rd(regs::kRingHead), 2u);
  expect_copied(c);
  EXPECT_EQ(record().error_index, 2u);
}

TEST_F(WEFT_SUITE, AnEarlierDescriptorsErrorReplacesALaterOne) {
  // A slow LOAD that will answer SLVERR (index 1), then an unknown opcode (index 2): decoding
  // finds OPCODE first, but the error of the queue is the earliest in ring order.
  setup();
  env->submit(Descriptor::nop());
  ASSERT_TRUE(env->wait_completed(1));
  env->axi.options().errors.push_back({kSrc, kSrc + 16, sim::AxiResp::kSlvErr, true, false});
  env->put(Descriptor::load({kSrc, 64, 1, 64, 0, 1}));
  env->put(Descriptor::raw(0x42));
  env->doorbell();
  env->axi.options().read_latency = 400;  // the fetch is already on its way, the LOAD is not
  ASSERT_TRUE(env->wait([&] { return env->rd(regs::kErrCode) == uint32_t(ErrorCode::kOpcode); }, 20000, 4));
  EXPECT_EQ(env->rd(regs::kErrIndex), 2u);
  ASSERT_TRUE(env->wait([&] { return env->rd(regs::kErrCode) == uint32_t(ErrorCode::kSlverr); }, 20000, 8));
  ASSERT_TRUE(env->wait_idle());
  EXPECT_EQ(env->rd(regs::kErrIndex), 1u);
  EXPECT_EQ(env->rd(regs::kCompleted), 1u);
  const auto rec = record();
  EXPECT_EQ(rec.completed, 1u);
  EXPECT_EQ(rec.error, static_cast<uint32_t>(ErrorCode::kSlverr));
  EXPECT_EQ(rec.error_index, 1u);
}

TEST_F(WEFT_SUITE, ErrorSlverrOnStoreAccLeavesTheTensorUnitClean) {
  setup();
  env->wr(regs::kIrqEnable, kIrqError);
  Gemm g = random_gemm(kBank, 2 * kRows);
  g.m = std::max(g.m, 2);  // row 1 fails
  g.a.resize(static_cast<size_t>(g.m) * g.k);
  for (auto& v : g.a) v = g.at.is_signed ? uni(-128, 127) : uni(0, 255);
  g.acc_addr = std::min<uint32_t>(g.acc_addr, static_cast<uint32_t>(kBank - g.m) + (g.acc_addr >= kBank ? kBank : 0));
  g.a_line = 0;
  g.w_line = kBankLines;
  g.p_line = 2 * kBankLines;
  g.dst = kDst;
  g.dst_stride = 64;
  env->axi.options().errors.push_back({kDst + 64, kDst + 80, sim::AxiResp::kSlvErr, false, true});  // row 1
  env->device_writes.clear();
  auto ds = gemm_descs(g, kSrc);
  for (auto& d : ds) env->put(d);
  env->doorbell();
  ASSERT_TRUE(env->wait_error()) << state();
  ASSERT_TRUE(env->wait_idle()) << state();
  EXPECT_EQ(env->rd(regs::kErrCode), static_cast<uint32_t>(ErrorCode::kSlverr));
  EXPECT_EQ(env->rd(regs::kErrIndex), 4u);
  EXPECT_EQ(env->rd(regs::kCompleted), 4u);
  EXPECT_TRUE(env->h.dut().irq_o);
  expect_writes_inside({{kCpl, kCpl + 16}, {kDst, kDst + static_cast<uint64_t>(g.m) * 64}});
  env->axi.options().errors.clear();
  ASSERT_TRUE(env->queue_reset());
  // The same GEMM again, from index 0: every row comes out right.
  env->mem.fill(kDst, static_cast<uint64_t>(g.m) * 64, 0xcd);
  for (auto& d : ds) env->put(d);
  env->doorbell();
  ASSERT_TRUE(env->wait_completed(5));
  expect_gemm(g);
}

// PARAM (docs/programming-model.md, "Errors"): a STORE_ACC in a TFLite mode whose columns c < n
// include a shift of -32 or 31 (the 6-bit field's values outside [-31, 30]) stops the queue with
// PARAM, ERR_ADDR = that column, before any row is stored; the parameters stay loaded. Every
// out-of-range value, both TFLite modes, with load_params or with parameters loaded earlier by an
// ONNX STORE_ACC (ONNX ignores the shift: no error there), the bad column at c = 0, at c = n-1,
// and at c >= n (not used: no error, results as golden). Expected values come from the case
// itself and weft::golden, never from the device.
TEST_F(WEFT_SUITE, ErrorParamTfliteShiftOutsideItsRange) {
  using golden::RequantMode;
  int errors = 0;
  for (int bad_shift : {-32, 31}) {
    for (RequantMode mode : {RequantMode::kTfliteDouble, RequantMode::kTfliteSingle}) {
      for (bool load : {true, false}) {
        for (int where = 0; where < 3; ++where) {  // bad column: c = 0, c = n - 1, c >= n
          const int n = where == 2 ? uni(1, kCols - 1) : uni(2, kCols);
          const int col = where == 0 ? 0 : where == 1 ? n - 1 : uni(n, kCols - 1);
          SCOPED_TRACE("shift " + std::to_string(bad_shift) + ", mode " + std::to_string(int(mode)) +
                       (load ? ", load_params" : ", parameters of an earlier ONNX STORE_ACC") +
                       ", n " + std::to_string(n) + ", bad column " + std::to_string(col));
          make_env({}, {});
          setup();
          env->wr(regs::kIrqEnable, kIrqError);
          Gemm g = param_gemm(mode, n);
          g.ch[static_cast<size_t>(col)].shift = bad_shift;
          // Descriptors 0..4: LOAD A, W, parameters, COMPUTE, STORE_ACC with load_params: in
          // the TFLite mode, or (without `load`) in ONNX to another destination, followed by
          // 5: the TFLite STORE_ACC without load_params. Then a canary that depends on it.
          Gemm onnx = g;
          onnx.out.mode = RequantMode::kOnnx;
          onnx.dst = kDst + 0x10000;
          std::vector<Descriptor> ds = gemm_descs(load ? g : onnx, kSrc);
          if (!load) ds.push_back(store_of(g, false).with_dep(0, 2));  // the COMPUTE
          const uint32_t bad_index = static_cast<uint32_t>(ds.size() - 1);
          Transfer2d canary{kDst + 0x40000, 64, 1, 0, 0, 0};
          ds.push_back(Descriptor::store_spad(canary).with_dep(0, 1));
          env->device_writes.clear();
          for (auto& d : ds) env->put(d);
          env->doorbell();
          if (where == 2) {
            ASSERT_TRUE(env->wait_completed(env->tail)) << state();
            EXPECT_EQ(env->rd(regs::kErrCode), 0u);
            expect_gemm(g);
            if (!load) expect_gemm(onnx);
            continue;
          }
          ++errors;
          expect_param_error(bad_index, col);
          if (HasFatalFailure()) return;
          // Nothing stored by the failing descriptor or after it (the ONNX store before it ran).
          if (!load) expect_gemm(onnx);
          expect_untouched(g);
          std::vector<std::pair<uint64_t, uint64_t>> allowed{{kCpl, kCpl + 16}};
          if (!load) allowed.push_back({onnx.dst, onnx.dst + static_cast<uint64_t>(onnx.m) * onnx.dst_stride});
          expect_writes_inside(allowed);
          for (uint64_t b = 0; b < 64; ++b) EXPECT_EQ(env->mem.read8(canary.host_addr + b), 0xcd);
          // Queue reset: the parameters stay loaded, so the TFLite STORE_ACC without
          // load_params fails again, now as descriptor 0.
          ASSERT_TRUE(env->queue_reset());
          EXPECT_EQ(env->rd(regs::kErrCode), 0u);
          env->submit(store_of(g, false));
          expect_param_error(0, col);
          expect_untouched(g);
          // Legal parameters loaded again: the same GEMM (its accumulator rows are kept).
          ASSERT_TRUE(env->queue_reset());
          g.ch[static_cast<size_t>(col)].shift = uni(-12, 0);
          const std::vector<Descriptor> fix = gemm_descs(g, kSrc + 0x100000);
          env->put(fix[2]);  // LOAD of the parameter lines
          env->put(store_of(g, true).with_dep(0, 1));
          env->doorbell();
          ASSERT_TRUE(env->wait_completed(2)) << state();
          EXPECT_EQ(env->rd(regs::kErrCode), 0u);
          expect_gemm(g);
          if (HasFatalFailure()) return;
        }
      }
    }
  }
  EXPECT_EQ(errors, 16);
}

// Bounds that are not multiples of the bus width (docs/programming-model.md, "DMA windows"):
// every bus beat of a transfer must lie inside the window, strobed or not. STORE_ACC rows of
// `pack ? n : 4n` bytes end in a partial beat; with window 0 ending d bytes past a beat boundary
// `edge`, a last row that starts at `edge` has every byte below the limit (row bytes <= d) but its
// beat [edge, edge + 16) is not: WINDOW (at decode: precise, ERR_ADDR = host_addr). A last row one
// beat lower fits. A monitor checks every AR/AW burst the device offers against the limit.
TEST_F(WEFT_SUITE, ErrorWindowWhenALastBeatCrossesALimitNotAMultipleOfTheBusWidth) {
  using golden::RequantMode;
  constexpr uint64_t kEdge = kDst + 0x10000;
  for (int round = 0; round < 8; ++round) {
    make_env({}, {});
    // Partial rows: pack with n <= min(cols, 15), or INT32 with 4n <= 12.
    const bool pack = round % 2 == 0;
    const int n = pack ? uni(1, std::min(kCols, 15)) : uni(1, std::min(kCols, 3));
    Gemm g = param_gemm(pack ? RequantMode::kTfliteDouble : RequantMode::kNone, n);
    g.pack = pack;
    g.dst_stride = kBB * static_cast<uint32_t>(uni(1, 2));
    const uint32_t rb = out_row_bytes(g);
    const uint64_t limit = kEdge + static_cast<uint64_t>(uni(static_cast<int>(rb), kBB - 1));
    SCOPED_TRACE("row bytes " + std::to_string(rb) + ", m " + std::to_string(g.m) +
                 ", window limit = edge + " + std::to_string(limit - kEdge));
    uint64_t crossing = 0;
    env->tick_hook = [&] {
      auto& d = env->h.dut();
      if (d.m_axi_awvalid && d.m_axi_awaddr + (uint64_t{d.m_axi_awlen} + 1) * kBB > limit) ++crossing;
      if (d.m_axi_arvalid && d.m_axi_araddr + (uint64_t{d.m_axi_arlen} + 1) * kBB > limit) ++crossing;
    };
    env->set_window(0, kWinBase, limit, true, true);
    env->setup_ring(kRing, kRingLog2, kCpl);
    env->wr(regs::kIrqEnable, kIrqError);
    // The last row ends in the beat below the edge: runs.
    g.dst = kEdge - kBB - static_cast<uint64_t>(g.m - 1) * g.dst_stride;
    for (auto& d : gemm_descs(g, kSrc)) env->put(d);
    env->doorbell();
    ASSERT_TRUE(env->wait_completed(5)) << state();
    ASSERT_EQ(env->rd(regs::kErrCode), 0u);
    expect_gemm(g);
    // The last row starts at the edge: every byte is below the limit, its beat is not.
    Gemm at_edge = g;
    at_edge.dst = kEdge - static_cast<uint64_t>(g.m - 1) * g.dst_stride;
    env->device_writes.clear();
    env->put(store_of(at_edge, false));
    const Transfer2d canary{kDst, 64, 1, 0, 0, 0};  // inside the window; depends on the store
    env->put(Descriptor::store_spad(canary).with_dep(0, 1));
    env->doorbell();
    ASSERT_TRUE(env->wait_error()) << state();
    ASSERT_TRUE(env->wait_idle()) << state();
    EXPECT_EQ(env->rd(regs::kErrCode), static_cast<uint32_t>(ErrorCode::kWindow));
    EXPECT_EQ(env->rd(regs::kErrIndex), 5u);
    EXPECT_EQ(env->rd64(regs::kErrAddrLo), at_edge.dst);
    EXPECT_EQ(env->rd(regs::kCompleted), 5u);
    EXPECT_TRUE(env->h.dut().irq_o);
    EXPECT_EQ(record().error, static_cast<uint32_t>(ErrorCode::kWindow));
    EXPECT_EQ(record().error_index, 5u);
    expect_writes_inside({{kCpl, kCpl + 16}});
    for (uint64_t b = 0; b < 64; ++b) EXPECT_EQ(env->mem.read8(canary.host_addr + b), 0xcd);
    // Queue reset: the store that fits runs again from index 0.
    ASSERT_TRUE(env->queue_reset());
    env->mem.fill(g.dst, static_cast<uint64_t>(g.m) * g.dst_stride, 0xcd);
    env->submit(store_of(g, false));
    ASSERT_TRUE(env->wait_completed(1)) << state();
    EXPECT_EQ(env->rd(regs::kErrCode), 0u);
    expect_gemm(g);
    EXPECT_EQ(crossing, 0u) << "the device offered a burst with a beat past the window limit";
    env->tick_hook = nullptr;
    if (HasFatalFailure()) return;
  }
}

TEST_F(WEFT_SUITE, ScratchpadBackdoorReachesTheDeviceScratchpad) {
  // Lines written through the DPI back door of bank 1 (scope top.weft_top.u_spad.g_bank[1].u_sram)
  // come out of a STORE_SPAD of scratchpad lines kBankLines + 5 ..
  setup();
  weft::tb::SramBackdoor bank1(env->h.ctx(), "top.weft_top.u_spad.g_bank[1].u_sram");
  ASSERT_EQ(bank1.depth(), kBankLines);
  const auto data = random_bytes(4 * kBB);
  for (uint32_t l = 0; l < 4; ++l) {
    std::vector<uint32_t> w(4);
    std::memcpy(w.data(), data.data() + l * kBB, kBB);
    bank1.write(5 + l, w);
  }
  env->submit(Descriptor::store_spad({kDst, 4 * kBB, 1, 0, kBankLines + 5, 0}));
  ASSERT_TRUE(env->wait_completed(1));
  EXPECT_EQ(env->mem.read(kDst, data.size()), data);
}

// ---------------------------------------------------------------------------------------------
// Random programs: LOAD, STORE_SPAD, COMPUTE, STORE_ACC, NOP, FENCE on a small scratchpad area and
// both accumulator banks, so that descriptors conflict often. Each descriptor gets dependencies
// (dep0/dep1, or WAIT_* flags, or a FENCE) on every earlier descriptor of another engine it
// conflicts with (scratchpad lines or accumulator rows, read/write); same-engine descriptors are
// ordered by the engine. The device must then produce exactly what executing the program one
// descriptor at a time produces: RefDevice below, written from docs/programming-model.md.

struct RefDevice {
  std::vector<std::array<uint8_t, kBB>> spad = std::vector<std::array<uint8_t, kBB>>(kSpadLines);
  std::vector<std::vector<int32_t>> acc =
      std::vector<std::vector<int32_t>>(kAccDepth, std::vector<int32_t>(kCols, 0));
  std::vector<uint32_t> pc = std::vector<uint32_t>(3 * kCols, 0);  // bias, mult, shift per column

  static int32_t operand(uint8_t b, bool is_signed) { return is_signed ? static_cast<int8_t>(b) : b; }

  void exec(const Descriptor& d, sim::HostMemory& host) {
    switch (d.opcode()) {
      case Opcode::kLoad:
      case Opcode::kStoreSpad: {
        const auto x = d.operands<Transfer2d>();
        const uint32_t lines = x.row_bytes / kBB;
        for (uint32_t r = 0; r < x.rows; ++r)
          for (uint32_t c = 0; c < lines; ++c) {
            auto& line = spad[x.spad_addr + r * x.spad_stride + c];
            const uint64_t a = x.host_addr + uint64_t{r} * x.host_stride + c * kBB;
            if (d.opcode() == Opcode::kLoad) host.read(a, line.data(), kBB);
            else host.write(a, line.data(), kBB);
          }
        break;
      }
      case Opcode::kCompute: {
        const auto x = d.operands<ComputeArgs>();
        const bool as = x.a_signed, ws = x.w_signed;
        const int32_t za = operand(x.a_zp, as);
        const int32_t zw = operand(x.w_zp, ws);
        const uint32_t kt = (x.k + kRows - 1) / kRows;
        for (uint32_t t = 0; t < kt; ++t) {
          const uint32_t rt = std::min<uint32_t>(kRows, x.k - t * kRows);
          for (uint32_t j = 0; j < x.m; ++j) {
            const auto& aline = spad[x.a_addr + t * x.a_tile_stride + j * x.a_row_stride];
            auto& row = acc[x.acc_addr + j];
            for (int c = 0; c < kCols; ++c) {
              uint32_t sum = (t == 0 && !x.accumulate) ? 0u : static_cast<uint32_t>(row[c]);
              for (uint32_t r = 0; r < rt; ++r) {
                const auto& wline = spad[x.w_addr + t * x.w_tile_stride + r * x.w_row_stride];
                sum += static_cast<uint32_t>((operand(aline[r], as) - za) * (operand(wline[c], ws) - zw));
              }
              row[c] = static_cast<int32_t>(sum);
            }
          }
        }
        break;
      }
      case Opcode::kStoreAcc: {
        const auto x = d.operands<StoreAccArgs>();
        if (x.load_params) {
          for (int c = 0; c < kCols; ++c)
            for (int i = 0; i < 3; ++i) std::memcpy(&pc[3 * c + i], spad[x.params_addr + c].data() + 4 * i, 4);
        }
        golden::OutputParams out;
        out.mode = static_cast<golden::RequantMode>(x.mode);
        out.zero_point = x.zp;
        out.act_min = x.act_min;
        out.act_max = x.act_max;
        for (uint32_t j = 0; j < x.m; ++j)
          for (uint32_t c = 0; c < x.n; ++c) {
            golden::ChannelParams ch;
            ch.bias = static_cast<int32_t>(pc[3 * c]);
            ch.multiplier = static_cast<int32_t>(pc[3 * c + 1]);
            std::memcpy(&ch.scale, &pc[3 * c + 1], 4);
            ch.shift = static_cast<int32_t>(weft::tb::sext(pc[3 * c + 2], 6));
            const int32_t v = golden::postprocess(acc[x.acc_addr + j][c], ch, out);
            const uint64_t a = x.host_addr + uint64_t{j} * x.host_stride;
            if (x.pack) host.store<uint8_t>(a + c, static_cast<uint8_t>(v));
            else host.store<uint32_t>(a + 4 * c, static_cast<uint32_t>(v));
          }
        break;
      }
      default:
        break;
    }
  }
};

class WEFT_RANDOM_SUITE : public WEFT_SUITE {
 protected:
  struct Use {
    int engine = -1;  // 0 load, 1 compute, 2 store, -1 none
    std::vector<uint32_t> spad_rd, spad_wr, acc_rd, acc_wr;
  };

  static bool meet(const std::vector<uint32_t>& a, const std::vector<uint32_t>& b) {
    for (uint32_t x : a)
      if (std::find(b.begin(), b.end(), x) != b.end()) return true;
    return false;
  }
  static bool conflict(const Use& e, const Use& l) {
    return meet(e.spad_wr, l.spad_rd) || meet(e.spad_wr, l.spad_wr) || meet(e.spad_rd, l.spad_wr) ||
           meet(e.acc_wr, l.acc_rd) || meet(e.acc_wr, l.acc_wr) || meet(e.acc_rd, l.acc_wr);
  }

  // Random working area: lines [0, kArea) of banks 0 and 1; parameter sets (TFLite, ONNX) in
  // bank 3, loaded once by the prologue and never written again.
  static constexpr uint32_t kArea = 48;
  uint32_t area_line() { return (coin() ? 0 : kBankLines) + static_cast<uint32_t>(uni(0, kArea - 1)); }

  void run_program(int length, bool serial = false) {
    setup();
    RefDevice ref;
    sim::HostMemory want;
    want.set_default_byte(0xcd);
    // Sources: random bytes; parameter sets.
    const uint64_t src = kSrc, psrc = kSrc + 0x80000;
    const auto bytes = random_bytes(0x8000);
    env->mem.write(src, bytes);
    want.write(src, bytes);
    std::vector<uint8_t> pimg(2 * kCols * kBB, 0);
    for (int c = 0; c < kCols; ++c) {
      const int32_t bias = uni(-5000, 5000);
      const uint32_t mult = static_cast<uint32_t>(uni(1 << 30, 0x7fffffff));
      const uint32_t shift = static_cast<uint32_t>(uni(-20, 2)) & 0x3f;
      const float scale = std::ldexp(std::uniform_real_distribution<float>(1.0f, 2.0f)(rng), uni(-16, -6));
      std::memcpy(&pimg[c * kBB], &bias, 4);
      std::memcpy(&pimg[c * kBB + 4], &mult, 4);
      std::memcpy(&pimg[c * kBB + 8], &shift, 4);
      std::memcpy(&pimg[(kCols + c) * kBB], &bias, 4);
      std::memcpy(&pimg[(kCols + c) * kBB + 4], &scale, 4);
    }
    env->mem.write(psrc, pimg);
    want.write(psrc, pimg);
    const uint32_t pline = 3 * kBankLines;

    std::vector<Descriptor> prog;
    std::vector<Use> uses;
    std::vector<uint64_t> owner;  // per descriptor: end of its destination (stores)
    uint64_t dst = kDst;
    // Prologue: fill the area and the parameter lines, zero-based accumulator contents.
    for (uint32_t base : {0u, kBankLines}) prog.push_back(Descriptor::load({src, kArea * kBB, 1, 0, base, 0}));
    prog.push_back(Descriptor::load({psrc, static_cast<uint32_t>(pimg.size()), 1, 0, pline, 0}));
    prog.push_back(Descriptor::fence());
    for (int b = 0; b < 2; ++b) {
      ComputeArgs ca;
      ca.a_addr = 0; ca.a_row_stride = 0; ca.a_tile_stride = 0;
      ca.w_addr = kBankLines; ca.w_row_stride = 1; ca.w_tile_stride = 0;
      ca.m = kBank; ca.k = 1; ca.acc_addr = static_cast<uint32_t>(b * kBank);
      prog.push_back(Descriptor::compute(ca));
    }
    prog.push_back(Descriptor::fence());
    int pset = -1;  // parameter set in the tensor unit: 0 TFLite, 1 ONNX
    for (size_t i = 0; i < prog.size(); ++i) {
      uses.push_back({});
      owner.push_back(0);
    }

    while (static_cast<int>(prog.size()) < length) {
      Use u;
      Descriptor d;
      const int kind = uni(0, 9);
      if (kind <= 2) {  // LOAD
        const uint32_t lines = static_cast<uint32_t>(uni(1, 3)), rows = static_cast<uint32_t>(uni(1, 3));
        const uint32_t base = area_line() % (kArea - (rows * 4)) + (coin() ? 0 : kBankLines);
        Transfer2d t{src + kBB * static_cast<uint64_t>(uni(0, 0x700)), lines * kBB, rows,
                     kBB * static_cast<uint32_t>(uni(3, 6)), base, 4};
        d = Descriptor::load(t);
        u.engine = 0;
        for (uint32_t r = 0; r < rows; ++r)
          for (uint32_t c = 0; c < lines; ++c) u.spad_wr.push_back(base + r * 4 + c);
      } else if (kind <= 4) {  // STORE_SPAD
        const uint32_t lines = static_cast<uint32_t>(uni(1, 3)), rows = static_cast<uint32_t>(uni(1, 3));
        const uint32_t base = area_line() % (kArea - (rows * 4)) + (coin() ? 0 : kBankLines);
        Transfer2d t{dst, lines * kBB, rows, lines * kBB + kBB, base, 4};
        dst += 0x400;
        d = Descriptor::store_spad(t);
        u.engine = 2;
        for (uint32_t r = 0; r < rows; ++r)
          for (uint32_t c = 0; c < lines; ++c) u.spad_rd.push_back(base + r * 4 + c);
      } else if (kind <= 7) {  // COMPUTE
        ComputeArgs ca;
        const uint32_t m = static_cast<uint32_t>(uni(1, std::min(kBank, 20)));
        const uint32_t k = static_cast<uint32_t>(uni(1, 2 * kRows));
        const uint32_t kt = (k + kRows - 1) / kRows;
        ca.m = m;
        ca.k = k;
        ca.a_row_stride = static_cast<uint32_t>(uni(0, 1));
        ca.a_tile_stride = static_cast<uint32_t>(uni(0, 2));
        ca.w_row_stride = 1;
        ca.w_tile_stride = static_cast<uint32_t>(uni(0, kRows));
        const uint32_t aspan = (kt - 1) * ca.a_tile_stride + (m - 1) * ca.a_row_stride + 1;
        const uint32_t wspan = (kt - 1) * ca.w_tile_stride + kRows;
        if (aspan > kArea || wspan > kArea) continue;
        const bool abank = coin();
        ca.a_addr = (abank ? kBankLines : 0) + static_cast<uint32_t>(uni(0, static_cast<int>(kArea - aspan)));
        ca.w_addr = (coin(0.8) != abank ? kBankLines : 0) + static_cast<uint32_t>(uni(0, static_cast<int>(kArea - wspan)));
        ca.acc_addr = static_cast<uint32_t>(uni(0, 1) * kBank + uni(0, kBank - static_cast<int>(m)));
        ca.accumulate = coin();
        ca.a_signed = coin();
        ca.w_signed = coin();
        ca.a_zp = static_cast<uint8_t>(coin(0.5) ? 0 : uni(0, 255));
        ca.w_zp = static_cast<uint8_t>(coin(0.5) ? 0 : uni(0, 255));
        if (ca.a_signed) ca.a_zp = static_cast<uint8_t>(static_cast<int8_t>(ca.a_zp));
        d = Descriptor::compute(ca);
        u.engine = 1;
        for (uint32_t t = 0; t < kt; ++t) {
          for (uint32_t j = 0; j < m; ++j) u.spad_rd.push_back(ca.a_addr + t * ca.a_tile_stride + j * ca.a_row_stride);
          for (uint32_t r = 0; r < std::min<uint32_t>(kRows, k - t * kRows); ++r)
            u.spad_rd.push_back(ca.w_addr + t * ca.w_tile_stride + r);
        }
        for (uint32_t j = 0; j < m; ++j) u.acc_wr.push_back(ca.acc_addr + j);
      } else if (kind == 8) {  // STORE_ACC
        StoreAccArgs sa;
        sa.m = static_cast<uint32_t>(uni(1, std::min(kBank, 20)));
        sa.acc_addr = static_cast<uint32_t>(uni(0, 1) * kBank + uni(0, kBank - static_cast<int>(sa.m)));
        sa.n = static_cast<uint32_t>(uni(1, kCols));
        sa.load_params = pset < 0 || coin(0.3);
        const int set = sa.load_params ? uni(0, 1) : pset;
        sa.params_addr = pline + static_cast<uint32_t>(set * kCols);
        const int mode = set == 1 ? (coin() ? 2 : 3) : (coin(0.3) ? 3 : uni(0, 1));
        sa.mode = static_cast<StoreMode>(mode);
        sa.pack = mode != 3 && coin(0.6);
        sa.zp = mode == 3 ? 0 : uni(-20, 20);
        sa.act_min = mode == 3 ? INT32_MIN : -128;
        sa.act_max = mode == 3 ? INT32_MAX : 127;
        sa.host_addr = dst;
        sa.host_stride = 4 * kCols + kBB;
        dst += 0x1000;
        pset = set;
        d = Descriptor::store_acc(sa);
        u.engine = 2;
        for (uint32_t j = 0; j < sa.m; ++j) u.acc_rd.push_back(sa.acc_addr + j);
        if (sa.load_params)
          for (int c = 0; c < kCols; ++c) u.spad_rd.push_back(sa.params_addr + static_cast<uint32_t>(c));
      } else {  // NOP or FENCE
        d = coin() ? Descriptor::nop() : Descriptor::fence();
      }
      if (coin(0.1)) d.with_flags(weft::kFlagIrq);
      // Dependencies on conflicting descriptors of the other engines (back to the last FENCE).
      const uint32_t idx = static_cast<uint32_t>(prog.size());
      std::vector<uint32_t> need;
      for (uint32_t j = idx; j-- > 0;) {
        if (prog[j].opcode() == Opcode::kFence) break;
        if (uses[j].engine >= 0 && uses[j].engine != u.engine && u.engine >= 0 && conflict(uses[j], u))
          need.push_back(j);
      }
      if (serial) {
        d.with_flags(weft::kFlagWaitLoad | weft::kFlagWaitCompute | weft::kFlagWaitStore);
      } else if (need.size() <= 2 && coin(0.8)) {
        for (size_t s2 = 0; s2 < need.size(); ++s2) d.with_dep(static_cast<int>(s2), static_cast<uint8_t>(idx - need[s2]));
      } else {
        for (uint32_t j : need) d.with_flags(static_cast<uint8_t>(weft::kFlagWaitLoad << uses[j].engine));
      }
      prog.push_back(d);
      uses.push_back(u);
      owner.push_back(d.opcode() == Opcode::kStoreSpad || d.opcode() == Opcode::kStoreAcc ? dst : 0);
    }
    // Run: the whole program (the ring holds 64 entries), and the reference one at a time.
    ASSERT_LE(prog.size(), 64u);
    for (const auto& d : prog) env->put(d);
    env->doorbell();
    for (const auto& d : prog) ref.exec(d, want);
    ASSERT_TRUE(env->wait_completed(env->tail, 2'000'000)) << state();
    ASSERT_EQ(env->rd(regs::kErrCode), 0u) << state();
    for (uint64_t a = kDst; a < dst; a += 0x400) {
      const auto got = env->mem.read(a, 0x400), exp = want.read(a, 0x400);
      for (size_t b = 0; b < got.size(); ++b) {
        if (got[b] == exp[b]) continue;
        std::string who;
        for (size_t j = 0; j < prog.size(); ++j) {
          if (owner[j] > a + b && (j == 0 || who.empty())) {
            who = "descriptor " + std::to_string(j) + ":";
            for (int x = 0; x < 13; ++x) who += " " + std::to_string(prog[j].w[x]);
            break;
          }
        }
        for (size_t j = 0; j < prog.size(); ++j) {
          std::printf("%2zu:", j);
          for (int x = 0; x < 13; ++x) std::printf(" %x", prog[j].w[x]);
          std::printf("\n");
        }
        if (weft::tb::verbose()) {  // the memory around the mismatch
          for (size_t x = 0; x < 0x200; x += 4)
            std::printf("%04zx: %08x %08x\n", x, env->mem.load<uint32_t>(a + x), want.load<uint32_t>(a + x));
        }
        FAIL() << "host byte 0x" << std::hex << a + b << ": got " << int(got[b]) << " want "
               << int(exp[b]) << std::dec << " (" << who << ")";
      }
    }
  }
};

TEST_F(WEFT_RANDOM_SUITE, RandomProgramsMatchTheSequentialReference) {
  for (int i = 0; i < (kRows <= 4 ? 150 : 40) && !HasFatalFailure(); ++i) {
    make_env({}, {});
    run_program(60);
  }
}

TEST_F(WEFT_RANDOM_SUITE, RandomProgramsRunOneAtATime) {
  for (int i = 0; i < (kRows <= 4 ? 30 : 10) && !HasFatalFailure(); ++i) {
    make_env({}, {});
    run_program(60, true);
  }
}

TEST_F(WEFT_RANDOM_SUITE, RandomProgramsUnderBusStress) {
  for (int i = 0; i < (kRows <= 4 ? 80 : 20) && !HasFatalFailure(); ++i) {
    sim::AxiMemOptions mo;
    mo.read_latency = static_cast<unsigned>(uni(1, 60));
    mo.write_latency = static_cast<unsigned>(uni(1, 60));
    mo.ar_stall = mo.aw_stall = mo.w_stall = mo.r_gap = mo.b_gap = 0.4;
    make_env(mo, sim::AxilOptions::stressed(0.3, 1));
    run_program(60);
  }
}

}  // namespace
