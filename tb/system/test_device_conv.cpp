// Device-resident tensors and the implicit-GEMM conv2d (weft::DeviceActivation, pack_conv,
// conv2d(Device&, const PackedConv&, ...)) on every back end: bit-exact against weft::golden
// (golden::conv2d, or golden::onnx::conv_integer for dilations, then golden::postprocess), chains
// of layers without host transfers, weights reused across runs, the host and DMA bytes, and the
// refused arguments. Label system; the seed is printed (WEFT_SEED reruns a test).
#include <gtest/gtest.h>

#include <cmath>
#include <cstdio>
#include <random>
#include <string>
#include <vector>

#include "backends.hpp"
#include "weft/golden/onnx_ops.hpp"
#include "weft/golden/quant.hpp"
#include "weft/weft.hpp"

namespace {

using weft::Errc;
using weft::tb::system::backend_name;
using weft::tb::system::backends;

namespace g = weft::golden;

class DeviceConv : public weft::tb::system::DeviceTest {
 public:  // the static helpers serve DeviceConvTiling too

  // A random output stage (TFLite double or ONNX) for N channels and about K accumulator terms,
  // with a declared output type.
  weft::OutputStage rand_stage(weft::StoreMode mode, int n, int k, bool out_signed) {
    weft::OutputStage o;
    o.mode = mode;
    o.type = out_signed ? weft::OutputType::kInt8 : weft::OutputType::kUint8;
    for (int i = 0; i < n; ++i) o.bias.push_back(rand_int(-3000, 3000));
    const double base = 1.0 / (48.0 * std::sqrt(double(k)) + 1.0);
    for (int i = 0; i < n; ++i) {
      const double real = base * std::uniform_real_distribution<double>(0.25, 4.0)(rng_);
      int32_t mult;
      int shift;
      g::quantize_multiplier(real, &mult, &shift);
      o.multiplier.push_back(mult);
      o.shift.push_back(shift);
      o.scale.push_back(static_cast<float>(real));
    }
    o.zero_point = out_signed ? rand_int(-20, 20) : rand_int(100, 150);
    o.act_min = -1000, o.act_max = 1000;  // the declared type narrows these
    if (rand_int(0, 2) == 0) o.act_min = o.zero_point;  // ReLU
    return o;
  }

  // Golden NHWC output bytes of the convolution (input and filter as bytes of their types).
  static std::vector<uint8_t> golden_conv(const weft::Conv2dShape& s,
                                          const std::vector<uint8_t>& in, weft::Operand it,
                                          const std::vector<uint8_t>& f, weft::Operand wt,
                                          const weft::OutputStage& o,
                                          const std::vector<int32_t>& w_zps = {}) {
    std::vector<int32_t> acc;
    const int oh = s.out_h(), ow = s.out_w();
    if (s.dilation_h == 1 && s.dilation_w == 1 && w_zps.empty()) {
      g::Conv2dShape gs;
      gs.n = s.n, gs.h = s.h, gs.w = s.w, gs.c_in = s.c_in, gs.kh = s.kh, gs.kw = s.kw,
      gs.c_out = s.c_out, gs.stride_h = s.stride_h, gs.stride_w = s.stride_w,
      gs.pad_top = s.pad_top, gs.pad_left = s.pad_left, gs.pad_bottom = s.pad_bottom,
      gs.pad_right = s.pad_right;
      acc = g::conv2d(values(in, it.is_signed), values(f, wt.is_signed), gs,
                      {it.is_signed, it.zero_point}, {wt.is_signed, wt.zero_point});
    } else {
      // ONNX ConvInteger (NCHW, MCHW) supports dilations: transpose in and out.
      g::onnx::IntTensor x{{s.n, s.c_in, s.h, s.w}, {}}, w{{s.c_out, s.c_in, s.kh, s.kw}, {}};
      const auto iv = values(in, it.is_signed), fv = values(f, wt.is_signed);
      x.data.resize(iv.size());
      for (int b = 0; b < s.n; ++b)
        for (int y = 0; y < s.h; ++y)
          for (int xx = 0; xx < s.w; ++xx)
            for (int c = 0; c < s.c_in; ++c)
              x.data[((size_t(b) * s.c_in + c) * s.h + y) * s.w + xx] =
                  iv[((size_t(b) * s.h + y) * s.w + xx) * s.c_in + c];
      w.data.resize(fv.size());
      for (int m = 0; m < s.c_out; ++m)
        for (int i = 0; i < s.kh; ++i)
          for (int j = 0; j < s.kw; ++j)
            for (int c = 0; c < s.c_in; ++c)
              w.data[((size_t(m) * s.c_in + c) * s.kh + i) * s.kw + j] =
                  fv[((size_t(m) * s.kh + i) * s.kw + j) * s.c_in + c];
      g::onnx::Conv2dGeometry geo;
      geo.stride_h = s.stride_h, geo.stride_w = s.stride_w, geo.dilation_h = s.dilation_h,
      geo.dilation_w = s.dilation_w, geo.pad_top = s.pad_top, geo.pad_left = s.pad_left,
      geo.pad_bottom = s.pad_bottom, geo.pad_right = s.pad_right;
      // conv_integer takes signed zero points as values; the operands as their values.
      const auto r = g::onnx::conv_integer(
          x, w, it.zero_point, w_zps.empty() ? std::vector<int32_t>{wt.zero_point} : w_zps, geo);
      acc.resize(r.data.size());
      for (int b = 0; b < s.n; ++b)
        for (int m = 0; m < s.c_out; ++m)
          for (int y = 0; y < oh; ++y)
            for (int xx = 0; xx < ow; ++xx)
              acc[((size_t(b) * oh + y) * ow + xx) * s.c_out + m] =
                  r.data[((size_t(b) * s.c_out + m) * oh + y) * ow + xx];
    }
    std::vector<g::ChannelParams> ch(s.c_out);
    for (int i = 0; i < s.c_out; ++i) {
      ch[i].bias = o.bias.empty() ? 0 : o.bias[i];
      ch[i].multiplier = o.multiplier[i];
      ch[i].shift = o.shift[i];
      ch[i].scale = o.scale[i];
    }
    const bool sgn = o.type == weft::OutputType::kInt8;
    g::OutputParams op{static_cast<g::RequantMode>(o.mode), o.zero_point,
                       std::max(o.act_min, sgn ? -128 : 0), std::min(o.act_max, sgn ? 127 : 255)};
    const auto v = g::postprocess(acc, int(acc.size() / s.c_out), s.c_out, ch, op);
    std::vector<uint8_t> out(v.size());
    for (size_t i = 0; i < v.size(); ++i) out[i] = static_cast<uint8_t>(v[i]);
    return out;
  }

  static void expect_equal(const std::vector<uint8_t>& got, const std::vector<uint8_t>& want) {
    ASSERT_EQ(got.size(), want.size());
    size_t bad = 0;
    for (size_t i = 0; i < got.size(); ++i) {
      if (got[i] != want[i] && bad++ < 5) {
        ADD_FAILURE() << "out[" << i << "] = " << int(got[i]) << ", golden " << int(want[i]);
      }
    }
    EXPECT_EQ(bad, 0u);
  }

  static weft::Border border_of(const weft::Conv2dShape& s) {
    return {s.pad_top, s.pad_left, s.pad_bottom, s.pad_right};
  }
};

std::string describe(const weft::Conv2dShape& s) {
  return std::to_string(s.n) + "x" + std::to_string(s.h) + "x" + std::to_string(s.w) + "x" +
         std::to_string(s.c_in) + " k" + std::to_string(s.kh) + "x" + std::to_string(s.kw) +
         " -> " + std::to_string(s.c_out) + " stride " + std::to_string(s.stride_h) + "," +
         std::to_string(s.stride_w) + " pad " + std::to_string(s.pad_top) + "," +
         std::to_string(s.pad_left) + "," + std::to_string(s.pad_bottom) + "," +
         std::to_string(s.pad_right) + " dil " + std::to_string(s.dilation_h) + "," +
         std::to_string(s.dilation_w);
}

weft::Conv2dShape shape(int n, int h, int w, int c_in, int k, int c_out, int stride, int pad) {
  weft::Conv2dShape s;
  s.n = n, s.h = h, s.w = w, s.c_in = c_in, s.kh = s.kw = k, s.c_out = c_out;
  s.stride_h = s.stride_w = stride;
  s.pad_top = s.pad_left = s.pad_bottom = s.pad_right = pad;
  return s;
}

// Several shapes, each packed once and run twice (two inputs: the weights stay on the device),
// against the golden model.
TEST_P(DeviceConv, ShapesBitExactWithWeightsReused) {
  std::vector<weft::Conv2dShape> shapes = {
      shape(1, 8, 8, 17, 3, 20, 1, 1),   // 3x3 stride 1 pad 1, c_in 17, c_out 20
      shape(1, 9, 9, 3, 3, 16, 2, 1),    // stride 2, c_in 3
      shape(2, 5, 6, 40, 1, 24, 1, 0),   // 1x1 (flat), batch 2, c_in 40
  };
  {
    weft::Conv2dShape s = shape(1, 7, 6, 16, 3, 8, 1, 0);  // asymmetric padding and strides
    s.kw = 2, s.stride_w = 2, s.pad_top = 0, s.pad_left = 1, s.pad_bottom = 2, s.pad_right = 1;
    shapes.push_back(s);
    s = shape(1, 8, 8, 5, 3, 7, 1, 2);  // dilation 2
    s.dilation_h = s.dilation_w = 2;
    shapes.push_back(s);
    // Two k-chunks (A streamed per COMPUTE), W streamed, five strips (parameters per tile).
    shapes.push_back(shape(1, 4, 5, 176, 3, 69, 1, 1));
    s = shape(1, 20, 19, 16, 3, 33, 1, 1);  // more rows than one chunk, three strips
    if (!sim()) shapes.push_back(s);
  }
  int idx = 0;
  for (const auto& s : shapes) {
    SCOPED_TRACE(describe(s));
    const bool in_signed = (idx & 1) != 0;
    const weft::StoreMode mode = idx++ % 2 ? weft::StoreMode::kOnnx : weft::StoreMode::kTfliteDouble;
    const weft::Operand it{in_signed, in_signed ? rand_int(-20, 20) : rand_int(0, 255)};
    const weft::Operand wt{true, rand_int(-3, 3)};
    const int k = s.kh * s.kw * s.c_in;
    const auto stage = rand_stage(mode, s.c_out, k, rand_int(0, 1) != 0);
    const auto f = rand_bytes(size_t(s.c_out) * k);
    const weft::PackedConv pc = weft::pack_conv(*dev_, s, f, wt, stage);
    EXPECT_EQ(pc.k_tiles, s.kh * s.kw * ((s.c_in + 15) / 16));
    for (int run = 0; run < 2; ++run) {
      SCOPED_TRACE("run " + std::to_string(run));
      const auto in = rand_bytes(size_t(s.n) * s.h * s.w * s.c_in);
      weft::DeviceActivation x = weft::alloc_activation(*dev_, s.n, s.h, s.w, s.c_in, it,
                                                        border_of(s));
      weft::write_activation(x, in);
      weft::DeviceActivation y = weft::alloc_conv_output(*dev_, pc, x, {1, 1, 1, 1});
      ASSERT_EQ(y.h, s.out_h());
      ASSERT_EQ(y.w, s.out_w());
      const weft::OpStats st = weft::conv2d(*dev_, pc, x, y);
      weft::tb::verbose_printf("%s: %llu cycles, %llu descriptors, %s\n", describe(s).c_str(),
                               (unsigned long long)st.perf.c.cycles,
                               (unsigned long long)st.descriptors, st.schedule.c_str());
      EXPECT_EQ(st.host_bytes_written, 0u);
      EXPECT_EQ(st.host_bytes_read, 0u);
      EXPECT_GT(st.dma_bytes, 0u);
      expect_equal(weft::read_activation(y), golden_conv(s, in, it, f, wt, stage));
      // The border stays the zero point (the next layer's padding).
      const auto corner = y.buf.read<uint8_t>(y.line_bytes);
      for (uint8_t b : corner) EXPECT_EQ(b, uint8_t(y.type.zero_point));
    }
  }
}

// Two layers: the second reads the first's DeviceActivation (its border is the second's
// padding, its padding channels the zero point) with no host transfer in between.
TEST_P(DeviceConv, ChainStaysOnTheDevice) {
  const weft::Conv2dShape s1 = shape(2, 6, 7, 3, 3, 20, 1, 1);
  weft::Conv2dShape s2 = shape(2, 6, 7, 20, 3, 12, 1, 1);
  const weft::Operand it{false, rand_int(0, 255)}, wt{true, 0};
  const auto st1 = rand_stage(weft::StoreMode::kOnnx, s1.c_out, 27, false);
  auto st2 = rand_stage(weft::StoreMode::kTfliteDouble, s2.c_out, 180, true);
  const auto f1 = rand_bytes(size_t(s1.c_out) * 27), f2 = rand_bytes(size_t(s2.c_out) * 180);
  const auto pc1 = weft::pack_conv(*dev_, s1, f1, wt, st1);
  const auto pc2 = weft::pack_conv(*dev_, s2, f2, wt, st2);
  const auto in = rand_bytes(size_t(s1.n) * s1.h * s1.w * s1.c_in);
  auto x = weft::alloc_activation(*dev_, s1.n, s1.h, s1.w, s1.c_in, it, {1, 1, 1, 1});
  weft::write_activation(x, in);
  auto y1 = weft::alloc_conv_output(*dev_, pc1, x, {1, 1, 1, 1});  // the second layer's padding
  auto y2 = weft::alloc_conv_output(*dev_, pc2, y1);
  const auto a = weft::conv2d(*dev_, pc1, x, y1);
  const auto b = weft::conv2d(*dev_, pc2, y1, y2);
  EXPECT_EQ(a.host_bytes_written + a.host_bytes_read, 0u);
  EXPECT_EQ(b.host_bytes_written, 0u);
  EXPECT_EQ(b.host_bytes_read, 0u);
  const auto want1 = golden_conv(s1, in, it, f1, wt, st1);
  const auto want2 = golden_conv(s2, want1, y1.type, f2, wt, st2);
  expect_equal(weft::read_activation(y1), want1);
  expect_equal(weft::read_activation(y2), want2);
}

// Host bytes of a 3x3 conv through device-resident tensors (input written, output read) against
// what host im2col would move; the old host-span conv2d on the same shape for the cycles.
TEST_P(DeviceConv, HostBytesFarBelowIm2col) {
  const weft::Conv2dShape s = shape(1, 12, 12, 16, 3, 16, 1, 1);
  const weft::Operand it{false, 128}, wt{true, 0};
  auto stage = rand_stage(weft::StoreMode::kTfliteDouble, s.c_out, 144, false);
  const auto f = rand_bytes(size_t(s.c_out) * 144);
  const auto in = rand_bytes(size_t(s.h) * s.w * s.c_in);
  const auto pc = weft::pack_conv(*dev_, s, f, wt, stage);
  auto x = weft::alloc_activation(*dev_, 1, s.h, s.w, s.c_in, it, {1, 1, 1, 1});
  const uint64_t written = weft::write_activation(x, in);
  auto y = weft::alloc_conv_output(*dev_, pc, x);
  const auto st = weft::conv2d(*dev_, pc, x, y);
  uint64_t read = 0;
  const auto got = weft::read_activation(y, &read);
  expect_equal(got, golden_conv(s, in, it, f, wt, stage));
  const uint64_t host = written + st.host_bytes_written + read + st.host_bytes_read;
  const uint64_t io = in.size() + got.size();  // c_in = c_out = 16: one line per pixel
  EXPECT_EQ(host, io);
  EXPECT_EQ(weft::im2col_bytes(s), uint64_t(s.out_h()) * s.out_w() * 144);
  EXPECT_LE(host * 4, weft::im2col_bytes(s));
  // The same convolution through the host-span conv2d (im2col on the host).
  weft::GemmOptions opt;
  opt.a = it, opt.w = wt, opt.out = stage;
  std::vector<uint8_t> old(got.size());
  const auto so = weft::conv2d(*dev_, s, in, f, old, opt);
  expect_equal(old, got);
  EXPECT_GE(so.host_bytes_written, weft::im2col_bytes(s));
  std::printf("[bytes] 3x3 conv %s: device-resident host bytes %llu (in %llu + out %llu), "
              "im2col bytes %llu; implicit GEMM %llu cycles, %llu DMA bytes; host-span conv2d "
              "%llu cycles, host wrote %llu read %llu, %llu DMA bytes; packing wrote %llu\n",
              describe(s).c_str(), (unsigned long long)host, (unsigned long long)written,
              (unsigned long long)read, (unsigned long long)weft::im2col_bytes(s),
              (unsigned long long)st.perf.c.cycles, (unsigned long long)st.dma_bytes,
              (unsigned long long)so.perf.c.cycles, (unsigned long long)so.host_bytes_written,
              (unsigned long long)so.host_bytes_read, (unsigned long long)so.dma_bytes,
              (unsigned long long)pc.host_bytes_written);
}

TEST_P(DeviceConv, RefusedArguments) {
  weft::Conv2dShape s = shape(1, 6, 6, 8, 3, 8, 1, 1);
  const std::vector<uint8_t> f(8 * 9 * 8, 1);
  weft::OutputStage o;
  o.mode = weft::StoreMode::kOnnx;
  o.scale = {0.01f};
  o.type = weft::OutputType::kUint8;
  o.zero_point = 3;
  const auto pc = weft::pack_conv(*dev_, s, f, {true, 0}, o);
  EXPECT_EQ(pc.out.act_min, 0);
  EXPECT_EQ(pc.out.act_max, 255);
  EXPECT_FALSE(pc.out_type.is_signed);
  auto expect_code = [](Errc want, auto&& fn, const char* phrase) {
    try {
      fn();
      ADD_FAILURE() << "no error, expected " << weft::errc_name(want);
    } catch (const weft::Error& e) {
      EXPECT_EQ(e.code(), want) << e.what();
      EXPECT_NE(std::string(e.what()).find(phrase), std::string::npos) << e.what();
    }
  };
  // The input's border must cover the padding.
  auto x = weft::alloc_activation(*dev_, 1, 6, 6, 8, {true, 0}, {1, 1, 0, 1});
  auto y = weft::alloc_conv_output(*dev_, pc, x);
  expect_code(Errc::kBadArgument, [&] { weft::conv2d(*dev_, pc, x, y); }, "border");
  // Wrong output type / shape.
  auto x2 = weft::alloc_activation(*dev_, 1, 6, 6, 8, {true, 0}, {1, 1, 1, 1});
  auto y_bad = weft::alloc_activation(*dev_, 1, 6, 6, 8, {true, 3});
  expect_code(Errc::kBadArgument, [&] { weft::conv2d(*dev_, pc, x2, y_bad); }, "type");
  auto y_small = weft::alloc_activation(*dev_, 1, 5, 6, 8, {false, 3});
  expect_code(Errc::kBadArgument, [&] { weft::conv2d(*dev_, pc, x2, y_small); }, "output is");
  // Depthwise / grouped.
  weft::Conv2dShape gs = s;
  gs.groups = 8;
  expect_code(Errc::kUnsupported, [&] { weft::pack_conv(*dev_, gs, f, {true, 0}, o); },
              "depthwise");
  // Declared output type: zero point in range, ONNX scales finite and >= 0.
  weft::OutputStage bad_zp = o;
  bad_zp.zero_point = 300;
  expect_code(Errc::kBadArgument, [&] { weft::pack_conv(*dev_, s, f, {true, 0}, bad_zp); },
              "zero point");
  bad_zp.type = weft::OutputType::kInt8;
  bad_zp.zero_point = -129;
  expect_code(Errc::kBadArgument, [&] { weft::pack_conv(*dev_, s, f, {true, 0}, bad_zp); },
              "int8 range");
  weft::OutputStage neg = o;
  neg.scale = {-0.5f};
  expect_code(Errc::kBadArgument, [&] { weft::pack_conv(*dev_, s, f, {true, 0}, neg); },
              "negative");
  neg.scale = {NAN};
  expect_code(Errc::kBadArgument, [&] { weft::pack_conv(*dev_, s, f, {true, 0}, neg); }, "finite");
  // INT32 out stays with the host-span conv2d.
  weft::OutputStage i32;
  expect_code(Errc::kUnsupported, [&] { weft::pack_conv(*dev_, s, f, {true, 0}, i32); }, "INT32");
  // Host-span gemm with a declared type and a bad zero point.
  weft::GemmOptions go;
  go.out = o;
  go.out.zero_point = -1;
  std::vector<uint8_t> a(4), w(4), c(4);
  expect_code(Errc::kBadArgument, [&] { weft::gemm(*dev_, 2, 2, 2, a, w, c, go); }, "uint8 range");
}

// Per-output-channel weight zero points (QLinearConv w_zero_point, QLinearMatMul b_zero_point
// per column), exact through the second COMPUTE pass, against golden ConvInteger: int8 and uint8
// weights with zero points at the ends of their ranges, a 3x3 conv and a 1x1 (MatMul) one.
TEST_P(DeviceConv, PerChannelWeightZeroPointsAreExact) {
  struct Case {
    weft::Conv2dShape s;
    bool w_signed;
  };
  const std::vector<Case> cases = {{shape(1, 6, 7, 17, 3, 20, 1, 1), true},
                                   {shape(2, 4, 5, 24, 1, 18, 1, 0), false}};
  for (const auto& [s, w_signed] : cases) {
    SCOPED_TRACE(describe(s) + (w_signed ? " int8 W" : " uint8 W"));
    const weft::Operand it{false, rand_int(0, 255)}, wt{w_signed, 0};
    std::vector<int32_t> zps(s.c_out);
    for (auto& z : zps) z = w_signed ? rand_int(-128, 127) : rand_int(0, 255);
    zps[0] = w_signed ? -128 : 0;  // the whole range: residuals reach -127 and 128
    zps[1] = w_signed ? 127 : 255;
    const int k = s.kh * s.kw * s.c_in;
    const auto stage = rand_stage(weft::StoreMode::kOnnx, s.c_out, k * 4, true);
    const auto f = rand_bytes(size_t(s.c_out) * k);
    const auto pc = weft::pack_conv(*dev_, s, f, wt, stage, zps);
    ASSERT_TRUE(pc.zp_buf.valid());
    const auto in = rand_bytes(size_t(s.n) * s.h * s.w * s.c_in);
    auto x = weft::alloc_activation(*dev_, s.n, s.h, s.w, s.c_in, it, border_of(s));
    weft::write_activation(x, in);
    auto y = weft::alloc_conv_output(*dev_, pc, x);
    weft::conv2d(*dev_, pc, x, y);
    expect_equal(weft::read_activation(y), golden_conv(s, in, it, f, wt, stage, zps));
  }
  // Equal per-channel zero points need no second pass.
  const weft::Conv2dShape s = shape(1, 3, 3, 4, 1, 4, 1, 0);
  const std::vector<int32_t> same(4, 7);
  const auto pc = weft::pack_conv(*dev_, s, std::vector<uint8_t>(16, 1), {true, 0},
                                  rand_stage(weft::StoreMode::kOnnx, 4, 4, true), same);
  EXPECT_FALSE(pc.zp_buf.valid());
  EXPECT_EQ(pc.w.zero_point, 7);
}

// The schedule's paths on other device configurations (ref:// with random engine order, so a
// missing dependency shows): several k-chunks, W streamed per COMPUTE, more than four strips
// (parameters per tile), rows longer than a chunk (row pieces), flat 1x1 convolutions, strides
// with dilations, per-channel weight zero points; arrays that are not square or whose rows do
// not fit a line are refused with kUnsupported.
TEST(DeviceConvTiling, OtherConfigurationsAndSchedulePaths) {
  auto rng = weft::tb::make_rng();
  auto rnd = [&](int lo, int hi) { return std::uniform_int_distribution<int>(lo, hi)(rng); };
  auto bytes = [&](size_t n) {
    std::vector<uint8_t> v(n);
    for (auto& b : v) b = static_cast<uint8_t>(rng());
    return v;
  };
  const char* configs[] = {"",         "array=8x8",         "acc=64",     "spad=2048&banks=2",
                           "spad=4096&banks=1", "inflight=4", "array=2x2&acc=16&spad=256&banks=2",
                           "array=4x8", "array=32x32"};
  for (const char* cfg : configs) {
    const std::string uri =
        std::string("ref://?sched=random&seed=") + std::to_string(rnd(1, 1 << 30)) + "&" + cfg;
    SCOPED_TRACE(uri);
    weft::Device dev = weft::Device::open(uri);
    const int R = int(dev.caps().rows), C = int(dev.caps().cols);
    if (R != C || dev.caps().bus_bytes < dev.caps().rows) {
      try {
        weft::alloc_activation(dev, 1, 2, 2, 3, {});
        ADD_FAILURE() << "no error on a " << R << "x" << C << " array";
      } catch (const weft::Error& e) {
        EXPECT_EQ(e.code(), Errc::kUnsupported) << e.what();
        EXPECT_NE(std::string(e.what()).find("host-span"), std::string::npos) << e.what();
      }
      continue;
    }
    std::vector<weft::Conv2dShape> shapes;
    shapes.push_back(shape(1, 5, 6, 11 * R, 3, 3 * C + 5, 1, 1));  // several k-chunks, W streamed
    shapes.push_back(shape(1, 20, 31, R + 3, 1, 5 * C + 1, 1, 0));  // flat, row pieces, 6 strips
    weft::Conv2dShape s = shape(2, 9, 40, 2 * R, 3, C, 2, 2);       // stride 2, dilation 2
    s.dilation_h = s.dilation_w = 2;
    shapes.push_back(s);
    shapes.push_back(shape(1, 2, 300, R, 3, C / 2 + 1, 1, 1));  // rows longer than a chunk
    for (size_t i = 0; i < shapes.size(); ++i) {
      const auto& sh = shapes[i];
      SCOPED_TRACE(describe(sh));
      const weft::Operand it{true, rnd(-10, 10)}, wt{false, rnd(0, 255)};
      const int k = sh.kh * sh.kw * sh.c_in;
      weft::OutputStage o;
      o.mode = weft::StoreMode::kTfliteSingle;
      o.type = weft::OutputType::kInt8;
      o.zero_point = rnd(-5, 5);
      for (int c = 0; c < sh.c_out; ++c) {
        int32_t mult;
        int shift;
        g::quantize_multiplier(1.0 / (40.0 * std::sqrt(double(k)) * rnd(1, 4)), &mult, &shift);
        o.bias.push_back(rnd(-2000, 2000));
        o.multiplier.push_back(mult);
        o.shift.push_back(shift);
        o.scale.push_back(0);
      }
      std::vector<int32_t> zps;
      if (i % 2 == 1) {
        for (int c = 0; c < sh.c_out; ++c) zps.push_back(rnd(0, 255));
      }
      const auto f = bytes(size_t(sh.c_out) * k);
      const auto pc = weft::pack_conv(dev, sh, f, wt, o, zps);
      const auto in = bytes(size_t(sh.n) * sh.h * sh.w * sh.c_in);
      auto x = weft::alloc_activation(dev, sh.n, sh.h, sh.w, sh.c_in, it,
                                      DeviceConv::border_of(sh));
      weft::write_activation(x, in);
      auto y = weft::alloc_conv_output(dev, pc, x, {0, i % 2 ? 0 : 2, 1, 0});
      const auto st = weft::conv2d(dev, pc, x, y);
      SCOPED_TRACE(st.schedule);
      weft::tb::verbose_printf("%s %s: %s\n", uri.c_str(), describe(sh).c_str(),
                               st.schedule.c_str());
      DeviceConv::expect_equal(weft::read_activation(y),
                               DeviceConv::golden_conv(sh, in, it, f, wt, o, zps));
    }
  }
}

// A 3-channel network input: im2col on the host (golden::im2col), written as an activation of
// kh*kw*c_in channels, and a 1x1 conv with the same OHWI filter bytes ([c_out][1][1][kh*kw*c_in]
// is the same memory) gives the 3x3 convolution's output, whose border serves the next layer.
TEST_P(DeviceConv, FirstLayerThroughHostIm2colAnd1x1) {
  const weft::Conv2dShape s = shape(1, 9, 8, 3, 3, 24, 1, 1);
  const weft::Operand it{false, rand_int(0, 255)}, wt{true, rand_int(-4, 4)};
  const auto stage = rand_stage(weft::StoreMode::kOnnx, s.c_out, 27, false);
  const auto in = rand_bytes(size_t(s.h) * s.w * s.c_in), f = rand_bytes(size_t(s.c_out) * 27);
  g::Conv2dShape gs;
  gs.h = s.h, gs.w = s.w, gs.c_in = s.c_in, gs.kh = s.kh, gs.kw = s.kw, gs.c_out = s.c_out,
  gs.pad_top = gs.pad_left = gs.pad_bottom = gs.pad_right = 1;
  std::vector<int32_t> raw(in.begin(), in.end());  // bytes as values: im2col only moves them
  const auto cols = g::im2col(raw, gs, it.zero_point);
  const std::vector<uint8_t> colb(cols.begin(), cols.end());
  const weft::Conv2dShape s1 = shape(1, s.out_h(), s.out_w(), 27, 1, s.c_out, 1, 0);
  const auto pc = weft::pack_conv(*dev_, s1, f, wt, stage);
  auto x = weft::alloc_activation(*dev_, 1, s1.h, s1.w, 27, it);
  const uint64_t written = weft::write_activation(x, colb);
  EXPECT_EQ(written, uint64_t(s1.h) * s1.w * 2 * 16);  // two 16-channel blocks per pixel
  auto y = weft::alloc_conv_output(*dev_, pc, x, {1, 1, 1, 1});
  weft::conv2d(*dev_, pc, x, y);
  expect_equal(weft::read_activation(y), golden_conv(s, in, it, f, wt, stage));
}

TEST(OnnxOutputScale, MatchesOnnxruntimeOrder) {
  for (float xs : {0.02f, 0.0078125f, 1.3f, 3e-5f}) {
    for (float ws : {0.003f, 0.5f, 7.1e-3f}) {
      for (float ys : {0.1f, 0.0234f, 2.5f}) {
        EXPECT_EQ(weft::onnx_output_scale(xs, ws, ys), g::onnx_output_scale(xs, ws, ys));
        const float xw = xs * ws;
        EXPECT_EQ(weft::onnx_output_scale(xs, ws, ys), xw / ys);
      }
    }
  }
}

INSTANTIATE_TEST_SUITE_P(Backends, DeviceConv, ::testing::ValuesIn(backends()), backend_name);

}  // namespace
