// System tests: libweft + a whole device, parameterized over back ends (ref://, ref:// with
// random engine order, and sim:// — the Verilated weft_top — plain and stressed). Every result is
// compared with weft::golden (sw/golden), never with the driver's own computation.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <filesystem>
#include <random>
#include <string>
#include <vector>

#include "backends.hpp"
#include "weft/golden/quant.hpp"
#include "weft/regs.hpp"
#include "weft/tb/options.hpp"
#include "weft/weft.hpp"

namespace {

using weft::Device;
using weft::Errc;
using weft::ErrorCode;

using weft::tb::system::backend_name;
using weft::tb::system::backends;
using weft::tb::system::small_transfer;

class System : public weft::tb::system::DeviceTest {
 protected:


  // A random output stage for N channels in `mode`, scaled for accumulators of about K terms.
  weft::OutputStage rand_stage(weft::StoreMode mode, int n, int k, bool out_signed) {
    weft::OutputStage o;
    o.mode = mode;
    for (int i = 0; i < n; ++i) o.bias.push_back(rand_int(-5000, 5000));
    const double base = 1.0 / (64.0 * std::sqrt(double(k)) + 1.0);
    for (int i = 0; i < n; ++i) {
      const double real = base * std::uniform_real_distribution<double>(0.25, 4.0)(rng_);
      int32_t mult;
      int shift;
      weft::golden::quantize_multiplier(real, &mult, &shift);
      o.multiplier.push_back(mult);
      o.shift.push_back(shift);
      o.scale.push_back(static_cast<float>(real));
    }
    o.zero_point = out_signed ? rand_int(-20, 20) : rand_int(100, 150);
    o.act_min = out_signed ? -128 : 0;
    o.act_max = out_signed ? 127 : 255;
    if (rand_int(0, 2) == 0) o.act_min = o.zero_point;  // ReLU
    return o;
  }

  // Golden expectation: gemm then postprocess, per column parameters.
  static std::vector<int32_t> expect(int m, int n, int k, const std::vector<uint8_t>& a,
                                     const std::vector<uint8_t>& w, const weft::GemmOptions& opt) {
    const weft::golden::OperandType at{opt.a.is_signed, opt.a.zero_point};
    const weft::golden::OperandType wt{opt.w.is_signed, opt.w.zero_point};
    const auto acc =
        weft::golden::gemm(values(a, opt.a.is_signed), values(w, opt.w.is_signed), m, k, n, at, wt);
    std::vector<weft::golden::ChannelParams> ch(n);
    const auto& o = opt.out;
    for (int i = 0; i < n; ++i) {
      ch[i].bias = o.bias.empty() ? 0 : o.bias[i];
      if (!o.multiplier.empty()) {
        ch[i].multiplier = o.multiplier.size() == 1 ? o.multiplier[0] : o.multiplier[i];
        ch[i].shift = o.shift.size() == 1 ? o.shift[0] : o.shift[i];
      }
      if (!o.scale.empty()) ch[i].scale = o.scale.size() == 1 ? o.scale[0] : o.scale[i];
    }
    weft::golden::OutputParams op;
    op.mode = static_cast<weft::golden::RequantMode>(o.mode);
    op.zero_point = o.zero_point;
    op.act_min = o.act_min;
    op.act_max = o.act_max;
    return weft::golden::postprocess(acc, m, n, ch, op);
  }

  // Runs one GEMM on the device and compares every element with the golden model.
  void check_gemm(int m, int n, int k, weft::StoreMode mode, bool a_signed, bool w_signed) {
    SCOPED_TRACE("M=" + std::to_string(m) + " N=" + std::to_string(n) + " K=" + std::to_string(k) +
                 " mode=" + std::to_string(int(mode)));
    weft::GemmOptions opt;
    opt.a = {a_signed, a_signed ? rand_int(-10, 10) : rand_int(0, 255)};
    opt.w = {w_signed, w_signed ? rand_int(-10, 10) : rand_int(0, 255)};
    const bool out_signed = rand_int(0, 1);
    opt.out = rand_stage(mode, n, k, out_signed);
    if (mode == weft::StoreMode::kInt32 && rand_int(0, 1)) opt.out.bias.clear();
    const auto a = rand_bytes(size_t(m) * k), w = rand_bytes(size_t(k) * n);
    const auto want = expect(m, n, k, a, w, opt);
    size_t bad = 0;
    weft::OpStats st;
    if (mode == weft::StoreMode::kInt32) {
      std::vector<int32_t> out(size_t(m) * n);
      st = weft::gemm(*dev_, m, n, k, a, w, out, opt);
      for (size_t i = 0; i < out.size(); ++i) {
        if (out[i] != want[i] && bad++ < 5) {
          ADD_FAILURE() << "C[" << i / n << "][" << i % n << "] = " << out[i] << ", golden "
                        << want[i];
        }
      }
    } else {
      std::vector<uint8_t> out(size_t(m) * n);
      st = weft::gemm(*dev_, m, n, k, a, w, out, opt);
      for (size_t i = 0; i < out.size(); ++i) {
        if (out[i] != static_cast<uint8_t>(want[i]) && bad++ < 5) {
          ADD_FAILURE() << "C[" << i / n << "][" << i % n << "] = " << int(out[i]) << ", golden "
                        << want[i];
        }
      }
    }
    EXPECT_EQ(bad, 0u) << st.schedule;
    EXPECT_EQ(st.perf.c.desc_retired, st.descriptors);
    // Every output tile streams its rows once per k-tile: M * strips * k-tiles rows of R*C MACs.
    const auto& c = dev_->caps();
    EXPECT_EQ(st.perf.c.macs, uint64_t(m) * ((n + c.cols - 1) / c.cols) *
                                  ((k + c.rows - 1) / c.rows) * c.rows * c.cols);
  }
};

TEST_P(System, CapabilitiesDescribeTheDefaultDevice) {
  if (GetParam().uart) GTEST_SKIP() << "weft_board is 8x8: UartBoard.CapabilitiesAreTheBoards";
  const auto& c = dev_->caps();
  EXPECT_EQ(c.rows, 16u);
  EXPECT_EQ(c.cols, 16u);
  EXPECT_EQ(c.bus_bytes, 16u);
  EXPECT_EQ(c.acc_rows, 512u);
  EXPECT_EQ(c.spad_lines, 16384u);
  EXPECT_EQ(c.spad_banks, 4u);
  EXPECT_EQ(c.inflight, 16u);
  EXPECT_EQ(c.windows, 4u);
  EXPECT_EQ(c.version_major, 1u);
  EXPECT_EQ(c.simt_warps, 4u);
  EXPECT_EQ(c.simt_threads, 8u);
  EXPECT_EQ(c.simt_dmem_bytes, 256u * 1024);
  EXPECT_EQ(c.simt_imem_bytes, 16u * 1024);
}

// LOAD and STORE_SPAD reach the SIMT data memory at lines 0x100000.. (both ways, up to its last
// line) and the instruction memory at 0x200000.. (LOAD only), next to the scratchpad's lines.
TEST_P(System, SimtMemoriesAreReachedThroughTheirLineRegions) {
  const auto& c = dev_->caps();
  ASSERT_TRUE(c.has_simt());
  auto& q = dev_->queue();
  const uint32_t dlines = c.simt_dmem_bytes / c.bus_bytes, ilines = c.simt_imem_bytes / c.bus_bytes;
  const size_t bytes = 4 * c.bus_bytes;
  const auto d0 = rand_bytes(bytes), d1 = rand_bytes(bytes), s0 = rand_bytes(bytes);
  weft::Buffer src = dev_->alloc(3 * bytes), dst = dev_->alloc(3 * bytes);
  src.write(0, d0.data(), bytes);
  src.write(bytes, d1.data(), bytes);
  src.write(2 * bytes, s0.data(), bytes);
  dst.fill(0);
  auto t = [&](weft::Buffer& b, size_t off, uint32_t line) {
    weft::Transfer2d x;
    x.host_addr = b.device_address() + off;
    x.row_bytes = static_cast<uint32_t>(bytes);
    x.rows = 1;
    x.spad_addr = line;
    return x;
  };
  // The first and the last four lines of the data memory, four scratchpad lines, the last four
  // lines of the instruction memory; then everything back except the instruction memory.
  const uint64_t l0 = q.submit(weft::Descriptor::load(t(src, 0, weft::kSimtDmemLine)));
  const uint64_t l1 =
      q.submit(weft::Descriptor::load(t(src, bytes, weft::kSimtDmemLine + dlines - 4)));
  const uint64_t l2 = q.submit(weft::Descriptor::load(t(src, 2 * bytes, 100)));
  q.submit(weft::Descriptor::load(t(src, 0, weft::kSimtImemLine + ilines - 4)));
  q.submit(weft::Descriptor::store_spad(t(dst, 0, weft::kSimtDmemLine)), {l0});
  q.submit(weft::Descriptor::store_spad(t(dst, bytes, weft::kSimtDmemLine + dlines - 4)), {l1});
  const uint64_t last = q.submit(weft::Descriptor::store_spad(t(dst, 2 * bytes, 100)), {l2});
  q.wait(last);
  EXPECT_EQ(dst.read<uint8_t>(bytes, 0), d0);
  EXPECT_EQ(dst.read<uint8_t>(bytes, bytes), d1);
  EXPECT_EQ(dst.read<uint8_t>(bytes, 2 * bytes), s0);
}

TEST_P(System, UnmappedCsrIsABadArgument) {
  try {
    dev_->read_reg(0x7fc);
    ADD_FAILURE() << "read of an unmapped CSR succeeded";
  } catch (const weft::Error& e) {
    EXPECT_EQ(e.code(), Errc::kBadArgument) << e.what();
    EXPECT_NE(std::string(e.what()).find("SLVERR"), std::string::npos) << e.what();
  }
  EXPECT_EQ(dev_->read_reg(weft::regs::kId), weft::regs::id::kMagicReset);
}

TEST_P(System, GemmRandomShapesMatchGolden) {
  const int iters = small_host() ? 2 : sim() ? 8 : 12;
  const int max_dim = small_host() ? 32 : 200;
  for (int i = 0; i < iters; ++i) {
    const auto mode = static_cast<weft::StoreMode>(rand_int(0, 3));
    check_gemm(rand_int(1, max_dim), rand_int(1, max_dim), rand_int(1, max_dim), mode,
               rand_int(0, 1), rand_int(0, 1));
  }
}

TEST_P(System, GemmEdgeShapesMatchGolden) {
  const int shapes[][3] = {{1, 1, 1},   {1, 17, 1},   {17, 1, 33}, {300, 3, 5},
                           {2, 40, 70}, {16, 16, 16}, {33, 31, 47}};
  for (const auto& s : shapes) {
    if (small_host() && (s[0] == 300 || s[0] == 16 || s[1] == 17 || s[0] == 33)) continue;
    check_gemm(s[0], s[1], s[2], weft::StoreMode::kInt32, true, true);
  }
  check_gemm(5, small_host() ? 60 : 300, 9, weft::StoreMode::kTfliteDouble, true, true);
}

TEST_P(System, GemmLongKMatchesGolden) {
  // K >= 2048: several k-chunks (accumulate across COMPUTEs) and long accumulations.
  if (small_host()) {
    GTEST_SKIP() << "K >= 2048 stages A and W padded to 16-byte rows: > 64 KiB of host memory";
  }
  check_gemm(40, 40, 2048 + rand_int(0, 100), weft::StoreMode::kInt32, true, true);
  check_gemm(70, 20, 5000, weft::StoreMode::kTfliteSingle, false, true);
}

TEST_P(System, GemmLargeTiledMatchesGolden) {
  // Several m-chunks (A double-buffered) and strips, split first and last output tiles.
  if (small_host()) {  // 64 KiB of host memory: m-chunks of the board's 128 accumulator rows
    check_gemm(140, 12, 20, weft::StoreMode::kTfliteDouble, true, true);
    return;
  }
  check_gemm(700, 90, 300, weft::StoreMode::kTfliteDouble, true, true);
  check_gemm(260, 64, 1100, weft::StoreMode::kOnnx, false, false);
}

TEST_P(System, RequantModesAndInt32OutMatchGolden) {
  const int m = small_host() ? 12 : 50, n = small_host() ? 10 : 40, k = small_host() ? 30 : 100;
  for (int mode = 0; mode < 4; ++mode) {
    for (int s = 0; s < 2; ++s) {
      if (small_host() && s != mode % 2) continue;  // slow link: one signedness per mode
      check_gemm(m, n, k, static_cast<weft::StoreMode>(mode), s == 0, s == 1);
    }
  }
}

TEST_P(System, Conv2dStridesAndPaddingsMatchGolden) {
  struct Case {
    weft::Conv2dShape s;
  };
  std::vector<weft::Conv2dShape> shapes;
  {
    weft::Conv2dShape s;
    s.n = 1, s.h = 8, s.w = 7, s.c_in = 3, s.kh = 3, s.kw = 3, s.c_out = 5;
    s.pad_top = s.pad_left = s.pad_bottom = s.pad_right = 1;
    shapes.push_back(s);
    s.stride_h = 2, s.stride_w = 2;
    shapes.push_back(s);
    s.stride_h = 1, s.stride_w = 3, s.pad_top = 0, s.pad_left = 2, s.pad_bottom = 2,
    s.pad_right = 0;
    shapes.push_back(s);
    s = {};
    s.n = 2, s.h = 5, s.w = 5, s.c_in = 17, s.kh = 1, s.kw = 1, s.c_out = 19;
    shapes.push_back(s);
    s = {};
    s.n = 1, s.h = 6, s.w = 9, s.c_in = 4, s.kh = 2, s.kw = 4, s.c_out = 18, s.stride_h = 2;
    s.pad_right = 3;
    shapes.push_back(s);
  }
  if (small_host()) shapes = {shapes[1], shapes[4]};  // slow link (uart://)
  for (const auto& s : shapes) {
    SCOPED_TRACE("conv " + std::to_string(s.h) + "x" + std::to_string(s.w) + "x" +
                 std::to_string(s.c_in) + " k" + std::to_string(s.kh) + "x" + std::to_string(s.kw) +
                 " stride " + std::to_string(s.stride_h) + "," + std::to_string(s.stride_w));
    weft::GemmOptions opt;
    opt.a = {false, rand_int(0, 255)};
    opt.w = {true, 0};
    const int k = s.kh * s.kw * s.c_in;
    opt.out = rand_stage(weft::StoreMode::kTfliteDouble, s.c_out, k, false);
    const auto in = rand_bytes(size_t(s.n) * s.h * s.w * s.c_in);
    const auto f = rand_bytes(size_t(s.c_out) * k);
    std::vector<uint8_t> out(size_t(s.n) * s.out_h() * s.out_w() * s.c_out);
    weft::conv2d(*dev_, s, in, f, out, opt);
    // Golden: conv2d (im2col semantics with the input zero point as padding), then postprocess.
    weft::golden::Conv2dShape g;
    g.n = s.n, g.h = s.h, g.w = s.w, g.c_in = s.c_in, g.kh = s.kh, g.kw = s.kw, g.c_out = s.c_out,
    g.stride_h = s.stride_h, g.stride_w = s.stride_w, g.pad_top = s.pad_top,
    g.pad_left = s.pad_left, g.pad_bottom = s.pad_bottom, g.pad_right = s.pad_right;
    const auto acc = weft::golden::conv2d(values(in, false), values(f, true), g,
                                          {false, opt.a.zero_point}, {true, 0});
    std::vector<weft::golden::ChannelParams> ch(s.c_out);
    for (int i = 0; i < s.c_out; ++i) {
      ch[i].bias = opt.out.bias[i];
      ch[i].multiplier = opt.out.multiplier[i];
      ch[i].shift = opt.out.shift[i];
    }
    weft::golden::OutputParams op{weft::golden::RequantMode::kTfliteDouble, opt.out.zero_point,
                                  opt.out.act_min, opt.out.act_max};
    const auto want = weft::golden::postprocess(acc, int(acc.size()) / s.c_out, s.c_out, ch, op);
    size_t bad = 0;
    for (size_t i = 0; i < out.size(); ++i) {
      if (out[i] != uint8_t(want[i]) && bad++ < 5) {
        ADD_FAILURE() << "out[" << i << "] = " << int(out[i]) << ", golden " << want[i];
      }
    }
    EXPECT_EQ(bad, 0u);
  }
}

// Round trips through the scratchpad: LOAD then STORE_SPAD, many more than the ring holds and
// more than are in flight, each pair checked byte for byte.
TEST_P(System, ManyCommandsInFlightWrapTheRing) {
  auto& q = dev_->queue();
  const int pairs = small_host() ? 30 : 400;  // ring of 256 (uart://: 16) entries: wraps
  const size_t bytes = 64;
  weft::Buffer src = dev_->alloc(bytes * pairs), dst = dev_->alloc(bytes * pairs);
  const auto data = rand_bytes(bytes * pairs);
  src.write(0, data.data(), data.size());
  dst.fill(0);
  std::vector<weft::Descriptor> prog;
  for (int i = 0; i < pairs; ++i) {
    weft::Transfer2d t;
    t.host_addr = src.device_address() + bytes * i;
    t.row_bytes = 32;
    t.rows = 2;
    t.host_stride = 32;
    t.spad_addr = static_cast<uint32_t>((i % 64) * 4);
    t.spad_stride = 2;
    prog.push_back(weft::Descriptor::load(t));
    t.host_addr = dst.device_address() + bytes * i;
    // The store waits for its load (1 back); the load waits for the store that last read its
    // lines (64 pairs = 128 descriptors back: always met).
    prog.push_back(weft::Descriptor::store_spad(t).with_dep(0, 1));
    if (i % 7 == 3) prog.push_back(weft::Descriptor::nop());
    if (i % 13 == 5) prog.push_back(weft::Descriptor::fence().with_flags(weft::kFlagIrq));
  }
  const uint64_t last = q.submit(prog);
  q.wait(last);
  EXPECT_EQ(q.completed(), last + 1);
  EXPECT_EQ(dst.read<uint8_t>(data.size()), data);
  EXPECT_FALSE(q.error().has_value());
}

// ------------------------------------------------------------------------------------ errors
class SystemErrors : public System {
 protected:
  // Submits `bad` after a good LOAD, expects the named error at its index, checks that nothing
  // was written outside the window, resets, and runs a good command.
  // `addr_lo`/`addr_hi`: where ERR_ADDR must lie (checked when addr_hi > 0).
  void expect_error(weft::Descriptor bad, ErrorCode code, const char* what, uint64_t addr_lo = 0,
                    uint64_t addr_hi = 0) {
    SCOPED_TRACE(what);
    auto& q = dev_->queue();
    dev_->take_device_writes();
    weft::Buffer buf = dev_->alloc(256);
    buf.fill(0x5a);
    weft::Transfer2d t;
    t.host_addr = buf.device_address();
    t.row_bytes = 16;
    t.rows = 1;
    t.spad_addr = 8;
    q.submit(weft::Descriptor::load(t));
    const uint64_t bad_index = q.submit(bad);
    try {
      q.wait(bad_index);
      ADD_FAILURE() << "no error reported";
    } catch (const weft::Error& e) {
      EXPECT_EQ(e.code(), weft::to_errc(code)) << e.what();
      EXPECT_EQ(e.index(), bad_index) << e.what();
      EXPECT_NE(std::string(e.what()).find(weft::error_name(code)), std::string::npos);
      if (addr_hi) {
        EXPECT_GE(e.address(), addr_lo) << e.what();
        EXPECT_LT(e.address(), addr_hi) << e.what();
      }
    }
    const auto err = q.error();
    ASSERT_TRUE(err.has_value());
    EXPECT_EQ(err->code, code);
    EXPECT_EQ(err->index, bad_index);
    // Submitting to a stopped queue is refused with a hint.
    EXPECT_THROW(q.submit(weft::Descriptor::nop()), weft::Error);
    for (const auto& [addr, len] : dev_->take_device_writes()) {
      EXPECT_TRUE(addr >= dev_->arena_base() &&
                  addr + len <= dev_->arena_base() + dev_->arena_size())
          << "device wrote " << len << " bytes at 0x" << std::hex << addr << " outside the window";
    }
    dev_->clear_bus_errors();
    q.reset();
    EXPECT_FALSE(q.error().has_value());
    // The queue works again: a round trip through the scratchpad from index 0.
    weft::Buffer out = dev_->alloc(16);
    out.fill(0);
    const uint64_t i0 = q.submit(weft::Descriptor::load(t));
    EXPECT_EQ(i0, 0u);
    t.host_addr = out.device_address();
    const uint64_t i1 = q.submit(weft::Descriptor::store_spad(t), {i0});  // after the load
    q.wait(i1);
    EXPECT_EQ(out.read<uint8_t>(16), std::vector<uint8_t>(16, 0x5a));
  }

  // ---- one-tile GEMMs through raw descriptors (the driver's gemm() refuses the parameters the
  // PARAM tests need): A (m x rows) in scratchpad lines 0.., W (rows x cols) from the first line
  // of bank 1, the parameter lines (one per column of the array) from the first line of bank 2,
  // accumulator rows 0..m-1. Expectations from weft::golden.
  struct RawGemm {
    int m = 1, n = 1;
    std::vector<int32_t> a, w;                    // m x rows, rows x cols: signed int8 values
    std::vector<weft::golden::ChannelParams> ch;  // one per column of the array
    weft::golden::OutputParams out;
    weft::Buffer src, params;
  };

  uint32_t bank_lines() const { return dev_->caps().spad_lines / dev_->caps().spad_banks; }

  // Column parameters legal in every mode: the multiplier's bits are a float32 scale in
  // [2^-12, 2^-5), read as an int32 a positive TFLite multiplier (about 0.46 * 2^31); shifts in
  // [-12, 0].
  RawGemm raw_gemm(int m, int n) {
    const auto& c = dev_->caps();
    RawGemm g;
    g.m = m;
    g.n = n;
    for (int i = 0; i < m * int(c.rows); ++i) g.a.push_back(rand_int(-128, 127));
    for (int i = 0; i < int(c.rows * c.cols); ++i) g.w.push_back(rand_int(-128, 127));
    g.ch.resize(c.cols);
    for (auto& p : g.ch) {
      p.bias = rand_int(-5000, 5000);
      p.scale =
          std::ldexp(std::uniform_real_distribution<float>(1.0f, 2.0f)(rng_), rand_int(-12, -6));
      std::memcpy(&p.multiplier, &p.scale, 4);
      p.shift = rand_int(-12, 0);
    }
    const bool out_signed = rand_int(0, 1);
    g.out.zero_point = out_signed ? rand_int(-20, 20) : rand_int(100, 150);
    g.out.act_min = out_signed ? -128 : 0;
    g.out.act_max = out_signed ? 127 : 255;
    const uint32_t bb = c.bus_bytes;
    std::vector<uint8_t> img(size_t(m + c.rows) * bb, 0);
    for (int j = 0; j < m; ++j)
      for (uint32_t r = 0; r < c.rows; ++r) img[j * bb + r] = uint8_t(g.a[j * c.rows + r]);
    for (uint32_t r = 0; r < c.rows; ++r)
      for (uint32_t col = 0; col < c.cols; ++col)
        img[(m + r) * bb + col] = uint8_t(g.w[r * c.cols + col]);
    g.src = dev_->alloc(img.size());
    g.src.write(0, img.data(), img.size());
    g.params = dev_->alloc(size_t(c.cols) * bb);
    write_params(g);
    return g;
  }

  // The parameter lines of g.ch: {bias, multiplier (= the scale's bits), shift & 0x3f, 0}.
  void write_params(RawGemm& g) {
    const uint32_t bb = dev_->caps().bus_bytes;
    std::vector<uint8_t> img(g.ch.size() * bb, 0);
    for (size_t c = 0; c < g.ch.size(); ++c) {
      weft::ColumnParams p;
      p.bias = g.ch[c].bias;
      std::memcpy(&p.mult, &g.ch[c].multiplier, 4);
      p.shift = g.ch[c].shift & 0x3f;
      std::memcpy(&img[c * bb], &p, sizeof p);
    }
    g.params.write(0, img.data(), img.size());
  }

  weft::Descriptor load_params_of(const RawGemm& g) {
    const uint32_t bb = dev_->caps().bus_bytes;
    return weft::Descriptor::load(
        {g.params.device_address(), uint32_t(g.ch.size() * bb), 1, 0, 2 * bank_lines(), 0});
  }

  // LOAD A, LOAD W, LOAD parameters, COMPUTE (after the A and W loads).
  std::vector<weft::Descriptor> stage(const RawGemm& g) {
    const auto& c = dev_->caps();
    const uint32_t bb = c.bus_bytes;
    std::vector<weft::Descriptor> d;
    d.push_back(weft::Descriptor::load({g.src.device_address(), uint32_t(g.m) * bb, 1, 0, 0, 0}));
    d.push_back(weft::Descriptor::load(
        {g.src.device_address() + uint64_t(g.m) * bb, c.rows * bb, 1, 0, bank_lines(), 0}));
    d.push_back(load_params_of(g));
    weft::ComputeArgs ca;
    ca.a_addr = 0;
    ca.a_row_stride = 1;
    ca.w_addr = bank_lines();
    ca.w_row_stride = 1;
    ca.m = uint32_t(g.m);
    ca.k = c.rows;
    ca.acc_addr = 0;
    d.push_back(weft::Descriptor::compute(ca).with_dep(0, 2).with_dep(1, 3));
    return d;
  }

  static uint32_t row_bytes(const RawGemm& g, bool pack) { return pack ? g.n : 4 * g.n; }
  uint32_t stride_of(const RawGemm& g, bool pack) const {
    const uint32_t bb = dev_->caps().bus_bytes;
    return (row_bytes(g, pack) + bb - 1) / bb * bb;
  }

  weft::Descriptor store_of(const RawGemm& g, weft::StoreMode mode, bool pack, bool load,
                            uint64_t dst) {
    weft::StoreAccArgs s;
    s.host_addr = dst;
    s.host_stride = stride_of(g, pack);
    s.m = uint32_t(g.m);
    s.acc_addr = 0;
    s.n = uint32_t(g.n);
    s.mode = mode;
    s.pack = pack;
    s.load_params = load;
    s.params_addr = 2 * bank_lines();
    s.zp = g.out.zero_point;
    s.act_min = g.out.act_min;
    s.act_max = g.out.act_max;
    return weft::Descriptor::store_acc(s);
  }

  // The m rows at `dst` (stride_of apart) equal golden gemm + postprocess of the first n columns.
  void expect_rows(const RawGemm& g, weft::StoreMode mode, bool pack, const weft::Buffer& dst,
                   size_t off = 0) {
    const auto& c = dev_->caps();
    std::vector<int32_t> wn;
    for (uint32_t r = 0; r < c.rows; ++r)
      for (int col = 0; col < g.n; ++col) wn.push_back(g.w[r * c.cols + col]);
    const auto acc = weft::golden::gemm(g.a, wn, g.m, int(c.rows), g.n, {true, 0}, {true, 0});
    weft::golden::OutputParams o = g.out;
    o.mode = static_cast<weft::golden::RequantMode>(mode);
    const std::vector<weft::golden::ChannelParams> ch(g.ch.begin(), g.ch.begin() + g.n);
    const auto want = weft::golden::postprocess(acc, g.m, g.n, ch, o);
    const uint32_t stride = stride_of(g, pack);
    for (int j = 0; j < g.m; ++j) {
      for (int col = 0; col < g.n; ++col) {
        const size_t at = off + size_t(j) * stride;
        const int32_t got = pack ? int32_t(dst.read<uint8_t>(1, at + col)[0])
                                 : dst.read<int32_t>(1, at + 4 * size_t(col))[0];
        const int32_t exp = pack ? (want[j * g.n + col] & 0xff) : want[j * g.n + col];
        ASSERT_EQ(got, exp) << "row " << j << " column " << col;
      }
    }
  }

  // The queue stopped on `code` at `index` with ERR_ADDR `addr`: the exception of wait() and
  // Queue::error().
  void expect_stopped(uint64_t index, ErrorCode code, uint64_t addr) {
    auto& q = dev_->queue();
    try {
      q.wait(index);
      ADD_FAILURE() << "no error reported";
    } catch (const weft::Error& e) {
      EXPECT_EQ(e.code(), weft::to_errc(code)) << e.what();
      EXPECT_EQ(e.name(), weft::error_name(code));
      EXPECT_EQ(e.index(), index) << e.what();
      EXPECT_EQ(e.address(), addr) << e.what();
    }
    const auto err = q.error();
    ASSERT_TRUE(err.has_value());
    EXPECT_EQ(err->code, code);
    EXPECT_EQ(err->index, index);
    EXPECT_EQ(err->address, addr);
  }

  // No device write since the last take_device_writes() touched [lo, hi).
  void expect_no_write_in(uint64_t lo, uint64_t hi) {
    for (const auto& [addr, len] : dev_->take_device_writes()) {
      EXPECT_TRUE(addr + len <= lo || addr >= hi)
          << "device wrote " << len << " bytes at 0x" << std::hex << addr;
    }
  }
};

TEST_P(SystemErrors, UnknownOpcodeIsReportedAndResetRecovers) {
  expect_error(weft::Descriptor::raw(0x7f), ErrorCode::kOpcode, "opcode 0x7f");
}

TEST_P(SystemErrors, ZeroAndOversizeDimensionsAreSizeErrors) {
  weft::Buffer b = dev_->alloc(4096);
  weft::Transfer2d t = small_transfer(b);
  t.rows = 0;
  expect_error(weft::Descriptor::load(t), ErrorCode::kSize, "LOAD rows=0");
  weft::ComputeArgs c;
  c.m = 1;
  c.k = 0;
  expect_error(weft::Descriptor::compute(c), ErrorCode::kSize, "COMPUTE k=0");
  c.k = 16;
  c.m = dev_->caps().acc_rows / 2 + 1;
  expect_error(weft::Descriptor::compute(c), ErrorCode::kSize, "COMPUTE m > acc_rows/2");
  weft::StoreAccArgs s;
  s.host_addr = b.device_address();
  s.host_stride = 64;
  s.m = 1;
  s.n = dev_->caps().cols + 1;
  expect_error(weft::Descriptor::store_acc(s), ErrorCode::kSize, "STORE_ACC n > cols");
}

TEST_P(SystemErrors, AddressOutsideTheWindowIsAWindowError) {
  weft::Buffer b = dev_->alloc(4096);
  weft::Transfer2d t = small_transfer(b);
  // Below the arena (read), and a store that would run past its end (write).
  t.host_addr = dev_->arena_base() - 4096;
  expect_error(weft::Descriptor::load(t), ErrorCode::kWindow, "LOAD below the arena", t.host_addr,
               t.host_addr + 1);
  t.host_addr = dev_->arena_base() + dev_->arena_size() - 32;
  expect_error(weft::Descriptor::store_spad(t), ErrorCode::kWindow, "STORE_SPAD past the end");
  weft::StoreAccArgs s;
  s.host_addr = dev_->arena_base() + dev_->arena_size() + 4096;
  s.host_stride = 64;
  s.m = 2;
  s.n = 4;
  expect_error(weft::Descriptor::store_acc(s), ErrorCode::kWindow, "STORE_ACC outside");
}

TEST_P(SystemErrors, MisalignedAndOutOfRangeOperandsAreNamed) {
  weft::Buffer b = dev_->alloc(4096);
  weft::Transfer2d t = small_transfer(b);
  t.host_addr += 8;
  expect_error(weft::Descriptor::load(t), ErrorCode::kAlign, "LOAD host_addr + 8");
  t = small_transfer(b);
  t.spad_addr = dev_->caps().spad_lines - 1;
  expect_error(weft::Descriptor::load(t), ErrorCode::kSpadRange, "LOAD past the scratchpad");
  weft::ComputeArgs c;
  c.m = 16;
  c.k = 16;
  c.acc_addr = dev_->caps().acc_rows / 2 - 8;
  expect_error(weft::Descriptor::compute(c), ErrorCode::kAccRange, "COMPUTE across the bank");
}

TEST_P(SystemErrors, LinesOutsideTheThreeRegionsAreSpadRangeErrors) {
  const auto& c = dev_->caps();
  ASSERT_TRUE(c.has_simt());
  const uint32_t dlines = c.simt_dmem_bytes / c.bus_bytes, ilines = c.simt_imem_bytes / c.bus_bytes;
  weft::Buffer b = dev_->alloc(4096);
  weft::Transfer2d t = small_transfer(b);  // lines spad_addr .. spad_addr + 3
  const auto both = [&](uint32_t line, const char* what) {
    t.spad_addr = line;
    expect_error(weft::Descriptor::load(t), ErrorCode::kSpadRange, what);
    expect_error(weft::Descriptor::store_spad(t), ErrorCode::kSpadRange, what);
  };
  both(c.spad_lines, "first line past the scratchpad");
  both(weft::kSimtDmemLine - 2, "crossing into the data memory");
  both(weft::kSimtDmemLine + dlines - 2, "crossing the end of the data memory");
  both(weft::kSimtDmemLine + dlines, "past the data memory");
  both(weft::kSimtImemLine - 1, "crossing into the instruction memory");
  both(weft::kSimtImemLine + ilines - 2, "crossing the end of the instruction memory");
  both(weft::kSimtImemLine + ilines, "past the instruction memory");
  both(0xfffffffeu, "at the end of the line space");
  // Rows in different regions: row 0 in the scratchpad, row 1 in the data memory.
  t.spad_addr = c.spad_lines - 2;
  t.spad_stride = weft::kSimtDmemLine - t.spad_addr;
  expect_error(weft::Descriptor::load(t), ErrorCode::kSpadRange, "rows in two regions");
  // The instruction memory is write-only.
  t = small_transfer(b);
  t.spad_addr = weft::kSimtImemLine;
  expect_error(weft::Descriptor::store_spad(t), ErrorCode::kSpadRange,
               "STORE_SPAD from the instruction memory");
}

TEST_P(SystemErrors, SimtLaunchShapeBeyondCap3IsASizeError) {
  const auto& c = dev_->caps();
  ASSERT_TRUE(c.has_simt());
  weft::SimtLaunch l;
  l.stack_top = c.simt_dmem_bytes;
  l.stack_size = 256;
  const auto shape = [&](uint32_t warps, uint32_t threads, const char* what) {
    l.num_warps = warps;
    l.threads_per_warp = threads;
    expect_error(weft::Descriptor::simt_launch(l), ErrorCode::kSize, what);
  };
  shape(c.simt_warps + 1, 1, "num_warps = CAP3.warps + 1");
  shape(1, c.simt_threads + 1, "threads_per_warp = CAP3.threads + 1");
  shape(0, 1, "num_warps = 0");
  shape(1, 0, "threads_per_warp = 0");
  shape(255, 255, "255 x 255");
}

TEST_P(SystemErrors, InjectedSlverrIsReportedWithItsIndex) {
  if (GetParam().uart) GTEST_SKIP() << "a board's memory cannot inject bus errors";
  weft::Buffer b = dev_->alloc(4096);
  weft::Transfer2d t = small_transfer(b);
  dev_->inject_bus_error(b.device_address() + 16, b.device_address() + 32, false, 2);
  expect_error(weft::Descriptor::load(t), ErrorCode::kSlverr, "LOAD from an SLVERR range",
               b.device_address(), b.device_address() + 64);
  if (pcie()) {
    GTEST_SKIP() << "pcie-sim://: device writes are posted MWr, a failed write never reaches "
                    "the device (the read half above ran)";
  }
  dev_->inject_bus_error(b.device_address(), b.device_address() + 4096, true, 3);
  expect_error(weft::Descriptor::store_spad(t), ErrorCode::kDecerr, "STORE_SPAD to DECERR",
               b.device_address(), b.device_address() + 64);
}

// PARAM: a TFLite shift of -32 or 31 (the 6-bit field holds them; TFLite allows [-31, 30]) in a
// column c < n of a STORE_ACC in a TFLite mode. Every out-of-range value, both TFLite modes, with
// load_params or with parameters loaded earlier under ONNX (which ignores the shift: no error
// there), the bad column at c = 0, at c = n - 1 and at c >= n (unused: no error). Same verdicts
// on ref:// and on the RTL; nothing stored; the parameters stay loaded over a queue reset; a good
// run afterwards.
TEST_P(SystemErrors, TfliteShiftOutsideItsRangeIsAParamError) {
  using weft::StoreMode;
  auto& q = dev_->queue();
  const uint32_t cols = dev_->caps().cols;
  struct Case {
    int shift;
    StoreMode mode;
    bool load;
    int where;  // bad column: 0 at c = 0, 1 at c = n - 1, 2 at c >= n
  };
  std::vector<Case> cases;
  for (int shift : {-32, 31})
    for (StoreMode mode : {StoreMode::kTfliteDouble, StoreMode::kTfliteSingle})
      for (bool load : {true, false})
        for (int where = 0; where < 3; ++where) cases.push_back({shift, mode, load, where});
  if (small_host()) {  // slow link (uart://): four of them
    std::shuffle(cases.begin(), cases.end(), rng_);
    cases.resize(4);
  }
  for (const Case& k : cases) {
    const int n = k.where == 2 ? rand_int(1, int(cols) - 1) : rand_int(2, int(cols));
    const int col = k.where == 0 ? 0 : k.where == 1 ? n - 1 : rand_int(n, int(cols) - 1);
    SCOPED_TRACE("shift " + std::to_string(k.shift) + ", mode " + std::to_string(int(k.mode)) +
                 (k.load ? ", load_params" : ", parameters of an earlier ONNX STORE_ACC") + ", n " +
                 std::to_string(n) + ", bad column " + std::to_string(col));
    q.reset();
    RawGemm g = raw_gemm(rand_int(1, 8), n);
    g.ch[size_t(col)].shift = k.shift;
    write_params(g);
    const bool pack = rand_int(0, 1);
    const uint32_t bytes = uint32_t(g.m) * stride_of(g, pack);
    weft::Buffer dst = dev_->alloc(bytes),
                 onnx_dst = dev_->alloc(uint32_t(g.m) * stride_of(g, pack));
    dst.fill(0xcd);
    onnx_dst.fill(0xcd);
    std::vector<weft::Descriptor> prog = stage(g);
    if (!k.load) {
      prog.push_back(store_of(g, StoreMode::kOnnx, pack, true, onnx_dst.device_address())
                         .with_dep(0, 1)
                         .with_dep(1, 2));
      prog.push_back(store_of(g, k.mode, pack, false, dst.device_address()).with_dep(0, 2));
    } else {
      prog.push_back(
          store_of(g, k.mode, pack, true, dst.device_address()).with_dep(0, 1).with_dep(1, 2));
    }
    dev_->take_device_writes();
    const uint64_t last = q.submit(prog);
    if (k.where == 2) {
      q.wait(last);
      expect_rows(g, k.mode, pack, dst);
      if (!k.load) expect_rows(g, StoreMode::kOnnx, pack, onnx_dst);
      continue;
    }
    expect_stopped(last, ErrorCode::kParam, uint64_t(col));
    if (HasFatalFailure()) return;
    if (!k.load) expect_rows(g, StoreMode::kOnnx, pack, onnx_dst);
    EXPECT_EQ(dst.read<uint8_t>(bytes), std::vector<uint8_t>(bytes, 0xcd));
    expect_no_write_in(dst.device_address(), dst.device_address() + bytes);
    // The parameters stay loaded: without load_params the same store fails again, as index 0.
    q.reset();
    q.submit(store_of(g, k.mode, pack, false, dst.device_address()));
    expect_stopped(0, ErrorCode::kParam, uint64_t(col));
    EXPECT_EQ(dst.read<uint8_t>(bytes), std::vector<uint8_t>(bytes, 0xcd));
    // Legal parameters loaded again: the GEMM comes out (its accumulator rows were kept).
    q.reset();
    g.ch[size_t(col)].shift = rand_int(-12, 0);
    write_params(g);
    const uint64_t lp = q.submit(load_params_of(g));
    q.wait(q.submit(store_of(g, k.mode, pack, true, dst.device_address()), {lp}));
    expect_rows(g, k.mode, pack, dst);
    if (HasFatalFailure()) return;
  }
}

// A window limit that is not a multiple of the bus width: every bus beat of a transfer must lie
// inside the window, strobed or not (docs/programming-model.md, "DMA windows"). STORE_ACC rows of
// `pack ? n : 4n` bytes end in a partial beat: with window 0 ending d bytes past a beat boundary
// `edge`, a last row starting at `edge` has every byte below the limit (row bytes <= d) but not
// its beat: WINDOW, ERR_ADDR = host_addr. One beat lower it runs. Same on ref:// and the RTL.
TEST_P(SystemErrors, WindowLimitNotAMultipleOfTheBusWidthHoldsWholeBeats) {
  using weft::StoreMode;
  namespace regs = weft::regs;
  auto& q = dev_->queue();
  const auto& c = dev_->caps();
  const uint32_t bb = c.bus_bytes;
  for (int round = 0; round < 4; ++round) {
    const bool pack = round % 2 == 0;
    const int n =
        pack ? rand_int(1, int(std::min(c.cols, bb - 1))) : rand_int(1, int((bb - 1) / 4));
    RawGemm g = raw_gemm(rand_int(1, 6), n);
    const StoreMode mode = pack ? StoreMode::kTfliteSingle : StoreMode::kInt32;
    const uint32_t rb = row_bytes(g, pack), stride = stride_of(g, pack);
    // The destination is the last buffer: window 0 (the arena) is cut short inside it.
    weft::Buffer dst = dev_->alloc(8192, 4096);
    dst.fill(0xcd);
    const uint64_t edge = dst.device_address() + 4096;
    const uint64_t limit = edge + uint64_t(rand_int(int(rb), int(bb) - 1));
    SCOPED_TRACE("row bytes " + std::to_string(rb) + ", m " + std::to_string(g.m) +
                 ", limit = edge + " + std::to_string(limit - edge));
    q.wait(q.submit(stage(g)));
    dev_->write_reg(regs::kWinLimitLo[0], uint32_t(limit));
    dev_->write_reg(regs::kWinLimitHi[0], uint32_t(limit >> 32));
    // The last row ends in the beat below the edge: runs (and loads the parameters).
    const uint64_t fits = edge - bb - uint64_t(g.m - 1) * stride;
    q.wait(q.submit(store_of(g, mode, pack, true, fits)));
    expect_rows(g, mode, pack, dst, size_t(fits - dst.device_address()));
    if (HasFatalFailure()) return;
    // The last row starts at the edge: every byte below the limit, but not its beat.
    const uint64_t at_edge = edge - uint64_t(g.m - 1) * stride;
    const auto before = dst.read<uint8_t>(8192);
    dev_->take_device_writes();
    const uint64_t i = q.submit(store_of(g, mode, pack, false, at_edge));
    expect_stopped(i, ErrorCode::kWindow, at_edge);
    if (HasFatalFailure()) return;
    EXPECT_EQ(dst.read<uint8_t>(8192), before);
    expect_no_write_in(dst.device_address(), dst.device_address() + 8192);
    // The arena's limit again: the same store runs.
    const uint64_t end = dev_->arena_base() + dev_->arena_size();
    dev_->write_reg(regs::kWinLimitLo[0], uint32_t(end));
    dev_->write_reg(regs::kWinLimitHi[0], uint32_t(end >> 32));
    q.reset();
    q.wait(q.submit(store_of(g, mode, pack, false, at_edge)));
    expect_rows(g, mode, pack, dst, size_t(at_edge - dst.device_address()));
    if (HasFatalFailure()) return;
  }
}

// Parameters outside the contract that the RTL computes rather than refuses (docs/requant.md):
// an ONNX scale of +-Inf or NaN saturates x = acc + bias by sign(x) xor the scale's sign (x = 0
// gives 0), and act_min > act_max clamps v = r + zp as `v < act_min ? act_min : v > act_max ?
// act_max : v`. No error, and ref:// computes what the device does (the golden model rejects
// both, so ref:// used to stop with SIMULATION here). Expected values from those rules, with the
// golden model for the in-contract steps.
TEST_P(SystemErrors, OutOfContractScalesAndClampBoundsFollowTheRtlRules) {
  using weft::StoreMode;
  namespace golden = weft::golden;
  auto& q = dev_->queue();
  const int n = int(dev_->caps().cols), k = int(dev_->caps().rows);
  RawGemm g = raw_gemm(rand_int(2, 8), n);
  const auto acc = golden::gemm(g.a, g.w, g.m, k, n, {true, 0}, {true, 0});
  // Columns 0..3: +Inf, -Inf, NaN, negative NaN as the scale; column 0 of row 0 gets x = 0.
  const uint32_t special[4] = {0x7f800000u, 0xff800000u, 0x7fc00001u, 0xffc12345u};
  for (int col = 0; col < 4; ++col) std::memcpy(&g.ch[size_t(col)].multiplier, &special[col], 4);
  g.ch[0].bias = int32_t(0u - uint32_t(acc[0]));
  write_params(g);
  q.wait(q.submit(stage(g)));
  const auto x_of = [&](int j, int col) {
    return int32_t(uint32_t(acc[size_t(j) * n + col]) + uint32_t(g.ch[size_t(col)].bias));
  };
  const auto clamp = [](int64_t v, int32_t lo, int32_t hi) {
    return v < lo ? lo : v > hi ? hi : int32_t(v);
  };
  const size_t stride = stride_of(g, false);
  weft::Buffer dst = dev_->alloc(size_t(g.m) * stride);
  // ONNX, INT32 out over the whole int32 range: saturated values plus the zero point.
  g.out.zero_point = rand_int(-20, 20);
  g.out.act_min = INT32_MIN;
  g.out.act_max = INT32_MAX;
  q.wait(q.submit(store_of(g, StoreMode::kOnnx, false, true, dst.device_address())));
  for (int j = 0; j < g.m; ++j) {
    for (int col = 0; col < n; ++col) {
      const int32_t x = x_of(j, col);
      int32_t r;
      if (col < 4) {
        r = x == 0 ? 0 : (x < 0) != (special[col] >> 31 != 0) ? INT32_MIN : INT32_MAX;
      } else {
        r = golden::onnx_scale_round(x, g.ch[size_t(col)].scale);
      }
      const int32_t want = clamp(int64_t{r} + g.out.zero_point, INT32_MIN, INT32_MAX);
      ASSERT_EQ(dst.read<int32_t>(1, size_t(j) * stride + size_t(col) * 4)[0], want)
          << "ONNX row " << j << " column " << col << " x " << x;
    }
  }
  // TFLite double with act_min > act_max (the same parameters: the scale bits are multipliers).
  g.out.act_min = 40;
  g.out.act_max = -40;
  q.wait(q.submit(store_of(g, StoreMode::kTfliteDouble, false, false, dst.device_address())));
  for (int j = 0; j < g.m; ++j) {
    for (int col = 0; col < n; ++col) {
      const auto& p = g.ch[size_t(col)];
      const int32_t r =
          golden::multiply_by_quantized_multiplier_double(x_of(j, col), p.multiplier, p.shift);
      const int64_t v = int64_t{r} + g.out.zero_point;
      const int32_t want = v < 40 ? 40 : v > -40 ? -40 : int32_t(v);
      ASSERT_EQ(dst.read<int32_t>(1, size_t(j) * stride + size_t(col) * 4)[0], want)
          << "TFLite row " << j << " column " << col;
    }
  }
}

TEST_P(SystemErrors, WrongSeqAndBadRingAreNamed) {
  auto& q = dev_->queue();
  const uint64_t ring = dev_->read_reg(weft::regs::kRingBaseLo) |
                        (uint64_t{dev_->read_reg(weft::regs::kRingBaseHi)} << 32);
  // A descriptor written behind the queue's back with seq 5 at index 0: SEQ.
  q.reset();
  weft::Descriptor d = weft::Descriptor::nop().with_seq(5);
  dev_->host_write(ring, d.w.data(), 64);
  dev_->write_reg(weft::regs::kRingTail, 1);
  dev_->run(3000);
  auto err = q.error();
  ASSERT_TRUE(err.has_value());
  EXPECT_EQ(err->code, ErrorCode::kSeq) << err->to_string();
  EXPECT_EQ(err->index, 0u);
  q.reset();
  q.wait(q.submit(weft::Descriptor::nop()));
  // RING_SIZE.log2 = 0 is out of range: RING for the next descriptor.
  const uint32_t log2 = dev_->read_reg(weft::regs::kRingSize);
  q.reset();
  dev_->write_reg(weft::regs::kRingSize, 0);
  const uint64_t i = q.submit(weft::Descriptor::nop());
  try {
    q.wait(i);
    ADD_FAILURE() << "no RING error";
  } catch (const weft::Error& e) {
    EXPECT_EQ(e.code(), Errc::kRing) << e.what();
    EXPECT_EQ(e.index(), i);
  }
  dev_->write_reg(weft::regs::kRingSize, log2);
  q.reset();
  q.wait(q.submit(weft::Descriptor::nop()));
}

TEST_P(SystemErrors, WaitTimesOutInsteadOfHanging) {
  auto& q = dev_->queue();
  // A FENCE after a long compute, waited with a tiny budget.
  weft::ComputeArgs c;
  c.m = 200;
  c.k = 16 * 30;
  c.w_tile_stride = 16;
  c.a_tile_stride = 200;
  c.a_row_stride = 1;
  c.w_row_stride = 1;
  c.w_addr = 8000;
  if (small_host()) {
    // The board (8x8, 256 accumulator rows, 2048 scratchpad lines) computes faster than one
    // round trip of the slow link: a long compute (100 k-tiles over overlapping A lines).
    c.m = 100;
    c.k = 8 * 100;
    c.w_tile_stride = 8;
    c.a_tile_stride = 10;
    c.w_addr = 1200;
  }
  const uint64_t i = q.submit(weft::Descriptor::compute(c));
  try {
    q.wait(i, {.cycles = 50});
    ADD_FAILURE() << "no timeout";
  } catch (const weft::Error& e) {
    EXPECT_EQ(e.code(), Errc::kTimeout) << e.what();
    // The message says which limit fired and after how long.
    EXPECT_NE(std::string(e.what()).find("cycle limit fired"), std::string::npos) << e.what();
    EXPECT_NE(std::string(e.what()).find("of 50 device cycles"), std::string::npos) << e.what();
  }
  const uint64_t j = q.submit(weft::Descriptor::compute(c));
  try {
    q.wait(j, {.seconds = 1e-9});  // spent before the first check (ref:// computes at once)
    ADD_FAILURE() << "no timeout";
  } catch (const weft::Error& e) {
    EXPECT_EQ(e.code(), Errc::kTimeout) << e.what();
    EXPECT_NE(std::string(e.what()).find("wall-clock limit fired"), std::string::npos) << e.what();
  }
  q.wait(j);
}

// A bus error of an earlier descriptor that arrives after a later descriptor's decode error
// replaces it (docs/cmd.md: ERR_INDEX is the first descriptor that did not complete). A wait on
// either must report what the device settles on -- the bus error at the earlier index -- not
// the first record it happened to see.
TEST_P(SystemErrors, WaitReportsTheErrorTheDeviceSettlesOn) {
  if (GetParam().uart) GTEST_SKIP() << "a board's memory cannot inject bus errors";
  auto& q = dev_->queue();
  // A long LOAD whose last rows answer SLVERR, then an unknown opcode, submitted together: the
  // decoder stops on the opcode long before the LOAD reaches its failing rows.
  const uint32_t rows = sim() ? 64 : 256;
  weft::Buffer b = dev_->alloc(size_t{rows} * 64);
  weft::Transfer2d t;
  t.host_addr = b.device_address();
  t.row_bytes = 64;
  t.rows = rows;
  t.host_stride = 64;
  t.spad_addr = 0;
  t.spad_stride = 4;
  const uint64_t last_row = b.device_address() + uint64_t{rows - 1} * 64;
  dev_->inject_bus_error(last_row, last_row + 64, false, 2);
  const std::vector<weft::Descriptor> batch = {weft::Descriptor::load(t), weft::Descriptor::raw(0x7f)};
  const uint64_t bad_op = q.submit(batch);
  const uint64_t load = bad_op - 1;
  for (const uint64_t waited : {bad_op, load}) {
    SCOPED_TRACE("wait(" + std::to_string(waited) + ")");
    try {
      q.wait(waited);
      ADD_FAILURE() << "no error reported";
    } catch (const weft::Error& e) {
      EXPECT_EQ(e.code(), Errc::kSlverr) << e.what();
      EXPECT_EQ(e.index(), load) << e.what();
      EXPECT_GE(e.address(), last_row) << e.what();
      EXPECT_LT(e.address(), last_row + 64) << e.what();
    }
  }
  const auto err = q.error();
  ASSERT_TRUE(err.has_value());
  EXPECT_EQ(err->code, ErrorCode::kSlverr);
  EXPECT_EQ(err->index, load);
  EXPECT_EQ(q.completed(), load);
  dev_->clear_bus_errors();
  q.reset();
  q.wait(q.submit(weft::Descriptor::load(t)));
}

// A device error whose completion record never reaches the host (CPL_ADDR pointed at memory the
// windows do not open, so the record write itself fails) is still reported as that error by a
// wait, not as a timeout.
TEST_P(SystemErrors, WaitReportsAnErrorWhoseRecordNeverLands) {
  auto& q = dev_->queue();
  const uint32_t cpl_lo = dev_->read_reg(weft::regs::kCplAddrLo);
  const uint32_t cpl_hi = dev_->read_reg(weft::regs::kCplAddrHi);
  q.reset();
  const uint64_t outside = dev_->arena_base() + dev_->arena_size() + 4096;
  dev_->write_reg(weft::regs::kCplAddrLo, static_cast<uint32_t>(outside));
  dev_->write_reg(weft::regs::kCplAddrHi, static_cast<uint32_t>(outside >> 32));
  const uint64_t i = q.submit(weft::Descriptor::raw(0x7f));
  try {
    q.wait(i, {.seconds = 60});
    ADD_FAILURE() << "no error reported";
  } catch (const weft::Error& e) {
    EXPECT_TRUE(e.is_device_error()) << e.what();
    EXPECT_NE(e.code(), Errc::kTimeout) << e.what();
  }
  dev_->write_reg(weft::regs::kCplAddrLo, cpl_lo);
  dev_->write_reg(weft::regs::kCplAddrHi, cpl_hi);
  q.reset();
  q.wait(q.submit(weft::Descriptor::nop()));
  EXPECT_FALSE(q.error().has_value());
}

// ------------------------------------------------------------------------------------ back ends
INSTANTIATE_TEST_SUITE_P(Backends, System, ::testing::ValuesIn(backends()), backend_name);
INSTANTIATE_TEST_SUITE_P(Backends, SystemErrors, ::testing::ValuesIn(backends()), backend_name);

// ------------------------------------------------------------------------------------ tiling
// The tiler on other device configurations (ref:// with random engine order, so a missing
// dependency shows): non-square and large arrays, small accumulators and scratchpads, one bank,
// and the schedule knobs off.
TEST(Tiling, GemmOnOtherConfigurationsMatchesGolden) {
  auto rng = weft::tb::make_rng();
  auto rnd = [&](int lo, int hi) { return std::uniform_int_distribution<int>(lo, hi)(rng); };
  const char* configs[] = {
      "array=4x8",         "array=8x3",         "array=32x32", "acc=64",
      "spad=2048&banks=2", "spad=4096&banks=1", "inflight=4",  "array=2x2&acc=16&spad=256&banks=2"};
  for (const char* cfg : configs) {
    for (int knobs = 0; knobs < 2; ++knobs) {
      const std::string uri =
          std::string("ref://?sched=random&seed=") + std::to_string(rnd(1, 1 << 30)) + "&" + cfg;
      SCOPED_TRACE(uri);
      Device dev = Device::open(uri);
      const int m = rnd(1, 150), n = rnd(1, 90), k = rnd(1, 400);
      SCOPED_TRACE("M=" + std::to_string(m) + " N=" + std::to_string(n) +
                   " K=" + std::to_string(k));
      std::vector<uint8_t> a(size_t(m) * k), w(size_t(k) * n);
      for (auto& b : a) b = static_cast<uint8_t>(rng());
      for (auto& b : w) b = static_cast<uint8_t>(rng());
      weft::GemmOptions opt;
      opt.a = {true, rnd(-5, 5)};
      opt.w = {false, rnd(0, 255)};
      opt.fine_start = knobs == 0;
      opt.short_tail = knobs == 0;
      for (int i = 0; i < n; ++i) opt.out.bias.push_back(rnd(-100, 100));
      std::vector<int32_t> c(size_t(m) * n);
      const auto st = weft::gemm(dev, m, n, k, a, w, c, opt);
      std::vector<int32_t> av(a.size()), wv(w.size());
      for (size_t i = 0; i < a.size(); ++i) av[i] = int8_t(a[i]);
      for (size_t i = 0; i < w.size(); ++i) wv[i] = w[i];
      auto want =
          weft::golden::gemm(av, wv, m, k, n, {true, opt.a.zero_point}, {false, opt.w.zero_point});
      for (size_t i = 0; i < want.size(); ++i) {
        want[i] = static_cast<int32_t>(static_cast<uint32_t>(want[i]) +
                                       static_cast<uint32_t>(opt.out.bias[i % n]));
      }
      EXPECT_EQ(c, want) << st.schedule;
    }
  }
}

#ifdef WEFT_HAVE_SIM
// Every built sim:// configuration (one plugin each) opens and computes a GEMM, all of them alive
// in one process at the same time (each plugin keeps its Verilator symbols to itself).
TEST(SimPlugins, EveryConfigurationWorksInOneProcess) {
  auto rng = weft::tb::make_rng();
  std::vector<std::unique_ptr<Device>> devs;
  std::string arrays = WEFT_SIM_ARRAYS;
  for (size_t pos = 0; pos <= arrays.size();) {
    const size_t end = std::min(arrays.find(',', pos), arrays.size());
    devs.push_back(
        std::make_unique<Device>(Device::open("sim://?array=" + arrays.substr(pos, end - pos))));
    pos = end + 1;
  }
  for (auto& d : devs) {
    const int m = 37, n = 21, k = 45;
    std::vector<uint8_t> a(m * k), w(k * n);
    for (auto& b : a) b = static_cast<uint8_t>(rng());
    for (auto& b : w) b = static_cast<uint8_t>(rng());
    std::vector<int32_t> c(m * n);
    weft::gemm(*d, m, n, k, a, w, c, {});
    std::vector<int32_t> av(a.begin(), a.end()), wv(w.begin(), w.end());
    for (auto& v : av) v = int8_t(v);
    for (auto& v : wv) v = int8_t(v);
    EXPECT_EQ(c, weft::golden::gemm(av, wv, m, k, n, {true, 0}, {true, 0})) << d->description();
  }
}

// Several devices of one configuration in one process, opened and closed in every order: they
// share one plugin, hence one Verilator runtime and its per-thread "current context". Each must
// keep computing correctly after another one is gone (run under AddressSanitizer in CI: see
// test_system_asan).
TEST(SimPlugins, DevicesOfOneConfigurationOpenAndCloseInAnyOrder) {
  auto rng = weft::tb::make_rng();
  const auto gemm_ok = [&](Device& d) {
    const int m = 19, n = 23, k = 40;
    std::vector<uint8_t> a(m * k), w(k * n);
    for (auto& b : a) b = static_cast<uint8_t>(rng());
    for (auto& b : w) b = static_cast<uint8_t>(rng());
    std::vector<int32_t> c(m * n);
    weft::gemm(d, m, n, k, a, w, c, {});
    std::vector<int32_t> av(a.begin(), a.end()), wv(w.begin(), w.end());
    for (auto& v : av) v = int8_t(v);
    for (auto& v : wv) v = int8_t(v);
    EXPECT_EQ(c, weft::golden::gemm(av, wv, m, k, n, {true, 0}, {true, 0})) << d.description();
  };
  const auto open = [] { return std::make_unique<Device>(Device::open("sim://?array=16x16")); };
  // Close the first opened, then the last opened, with use in between and after.
  for (const bool first_goes_first : {true, false}) {
    SCOPED_TRACE(first_goes_first ? "first closed first" : "last closed first");
    auto a = open();
    auto b = open();
    gemm_ok(*a);
    gemm_ok(*b);
    (first_goes_first ? a : b).reset();
    gemm_ok(first_goes_first ? *b : *a);
    auto c = open();  // reopen while one is alive
    gemm_ok(*c);
    gemm_ok(first_goes_first ? *b : *a);
    c.reset();
    gemm_ok(first_goes_first ? *b : *a);
  }
  // Moved-from and reassigned handles.
  Device d = Device::open("sim://?array=16x16");
  d = Device::open("sim://?array=16x16");
  gemm_ok(d);
}
#endif

// ------------------------------------------------------------------------------------ URIs
TEST(DeviceOpen, BadUrisNameTheProblem) {
  auto expect = [](const char* uri, Errc code, const char* needle) {
    try {
      Device::open(uri);
      ADD_FAILURE() << uri << " opened";
    } catch (const weft::Error& e) {
      EXPECT_EQ(e.code(), code) << e.what();
      EXPECT_NE(std::string(e.what()).find(needle), std::string::npos) << e.what();
    }
  };
  expect("nonsense", Errc::kBadUri, "ref://");
  expect("pcie://", Errc::kBadUri, "unknown scheme");
  expect("ref://?colour=blue", Errc::kBadUri, "colour");
  expect("ref://?array=16", Errc::kBadUri, "ROWSxCOLS");
  expect("ref://?ring=100", Errc::kBadUri, "power of two");
  expect("sim://?array=7x9", Errc::kBadUri, "available");
  // The arena is window 0: its size must be a multiple of 4096, like its base.
  expect("ref://?mem=1000000", Errc::kBadUri, "multiple of 4096");
  expect("ref://?membase=0x100000800", Errc::kBadUri, "multiple of 4096");
}

// A sim:// or pcie-sim:// array that was not built: the message says which configurations exist
// and how to build the missing one (the CMake cache variable, with this array in it) and where
// an install puts the plugins.
TEST(DeviceOpen, MissingSimulatorBuildSaysHowToBuildIt) {
  for (const auto& [uri, var] : {std::pair{"sim://?array=5x7", "WEFT_SIM_CONFIGS"},
                                 std::pair{"pcie-sim://?array=5x7", "WEFT_PCIE_CONFIGS"}}) {
    try {
      Device::open(uri);
      ADD_FAILURE() << uri << " opened";
    } catch (const weft::Error& e) {
      const std::string m = e.what();
      EXPECT_EQ(e.code(), Errc::kBadUri) << m;
      EXPECT_NE(m.find("no simulator build for array=5x7"), std::string::npos) << m;
      EXPECT_NE(m.find("available: "), std::string::npos) << m;
      EXPECT_NE(m.find(std::string("cmake -B build -D") + var + "=\"16x16:512;5x7:512\""),
                std::string::npos)
          << m;
      EXPECT_NE(m.find("<prefix>/lib/weft"), std::string::npos) << m;
      EXPECT_NE(m.find("WEFT_PLUGIN_DIR"), std::string::npos) << m;
    }
  }
}

TEST(DeviceOpen, OutOfMemoryIsNamed) {
  Device d = Device::open("ref://?mem=1048576");
  try {
    d.alloc(2 << 20);
    ADD_FAILURE() << "allocated";
  } catch (const weft::Error& e) {
    EXPECT_EQ(e.code(), Errc::kOutOfMemory) << e.what();
    EXPECT_NE(std::string(e.what()).find("mem="), std::string::npos) << e.what();
  }
}

TEST(DeviceOpen, BuffersAreReusedAfterFree) {
  Device d = Device::open("ref://?mem=1048576");
  for (int i = 0; i < 20; ++i) {
    weft::Buffer b = d.alloc(512 << 10);
    EXPECT_GE(b.device_address(), d.arena_base());
  }
}

}  // namespace
