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
  std::vector<uint8_t> rand_bytes(size_t n) {
    std::vector<uint8_t> v(n);
    for (auto& b : v) b = static_cast<uint8_t>(rng_());
    return v;
  }

  static std::vector<int32_t> values(const std::vector<uint8_t>& b, bool is_signed) {
    std::vector<int32_t> v(b.size());
    for (size_t i = 0; i < b.size(); ++i) v[i] = is_signed ? int8_t(b[i]) : b[i];
    return v;
  }

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
  }
  q.wait(i);
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
