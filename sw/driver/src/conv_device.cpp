// Device-resident activations, packed convolutions and the implicit-GEMM conv2d: see
// docs/driver.md, "Device-resident tensors and implicit-GEMM convolution". Dependencies between
// the descriptors come from schedule.hpp, as for gemm.
#include <algorithm>
#include <cstring>
#include <string>
#include <vector>

#include "ops_internal.hpp"
#include "schedule.hpp"
#include "weft/ops.hpp"

namespace weft {
namespace {

using detail::Eng;
using detail::Scheduler;
using detail::Span;

constexpr uint64_t kBufAlign = 4096;
constexpr uint32_t kParamBufs = 4;

uint64_t ceil_div(uint64_t a, uint64_t b) { return (a + b - 1) / b; }

[[noreturn]] void bad(const std::string& m) { throw Error(Errc::kBadArgument, m); }
[[noreturn]] void unsupported(const std::string& m) { throw Error(Errc::kUnsupported, m); }

void check_caps(const Capabilities& cap, const char* who) {
  if (cap.rows != cap.cols || cap.bus_bytes < cap.rows || cap.bus_bytes % 16 != 0) {
    unsupported(std::string(who) + ": device-resident tensors need a square array whose rows fit "
                "one bus line (R == C <= bus_bytes); this device has a " +
                std::to_string(cap.rows) + "x" + std::to_string(cap.cols) + " array and " +
                std::to_string(cap.bus_bytes) + "-byte lines: use the host-span gemm / conv2d");
  }
}

void check_operand(const std::string& what, const Operand& o) {
  const int lo = o.is_signed ? -128 : 0, hi = o.is_signed ? 127 : 255;
  if (o.zero_point < lo || o.zero_point > hi) {
    bad(what + " zero point " + std::to_string(o.zero_point) + " is outside the " +
        (o.is_signed ? "int8" : "uint8") + " range");
  }
}

std::string dims(int n, int h, int w, int c) {
  return std::to_string(n) + "x" + std::to_string(h) + "x" + std::to_string(w) + "x" +
         std::to_string(c);
}

// Output size of one spatial dimension (0 when the dilated filter does not fit).
int64_t out_dim(int64_t in, int pad0, int pad1, int k, int dil, int stride) {
  const int64_t ek = int64_t{k - 1} * dil + 1;
  const int64_t padded = in + pad0 + pad1;
  return padded < ek ? 0 : (padded - ek) / stride + 1;
}

void check_shape(const Conv2dShape& s, const char* who) {
  const std::string w(who);
  if (s.groups != 1) {
    unsupported(w + ": groups = " + std::to_string(s.groups) +
                " is not supported (the driver runs group = 1; run a grouped or depthwise "
                "convolution as one convolution per group)");
  }
  if (s.n < 1 || s.h < 1 || s.w < 1 || s.c_in < 1 || s.kh < 1 || s.kw < 1 || s.c_out < 1 ||
      s.stride_h < 1 || s.stride_w < 1 || s.dilation_h < 1 || s.dilation_w < 1 ||
      s.pad_top < 0 || s.pad_left < 0 || s.pad_bottom < 0 || s.pad_right < 0) {
    bad(w + ": sizes, strides and dilations must be >= 1, paddings >= 0");
  }
  if (int64_t{s.kh} * s.kw * s.c_in > (1 << 20)) bad(w + ": kh*kw*c_in is above 2^20");
}

// Where pixel (cb, b, y, x) of an activation lies, as the conv reads or writes it. A "flat" view
// (1x1 stride-1 convolutions without left/right borders) sees each image as one row of h*w
// pixels: its rows are contiguous.
struct View {
  uint64_t base;
  uint64_t cb_pitch, img_pitch, row_pitch;
  int bt, bl;
  uint32_t B;
  uint64_t addr(int cb, int b, int64_t y, int64_t x) const {
    return base + uint64_t(cb) * cb_pitch + uint64_t(b) * img_pitch +
           uint64_t(int64_t(y + bt) * int64_t(row_pitch) + (x + bl) * int64_t(B));
  }
};

View view_of(const DeviceActivation& a) {
  return {a.buf.device_address(), a.block_pitch(), a.image_pitch(), a.row_pitch(),
          a.border.top, a.border.left, a.line_bytes};
}

// One block of output pixels: `nr` rows of `nc` pixels from (y0, x0) of image b (nr > 1 only
// with whole rows).
struct Chunk {
  int b;
  int64_t y0, x0;
  uint32_t nr, nc;
  uint32_t pixels() const { return nr * nc; }
};

}  // namespace

DeviceActivation alloc_activation(Device& dev, int n, int h, int w, int c, Operand type,
                                  Border border) {
  const Capabilities& cap = dev.caps();
  check_caps(cap, "alloc_activation");
  if (n < 1 || h < 1 || w < 1 || c < 1) {
    bad("alloc_activation: n, h, w, c must be >= 1 (got " + dims(n, h, w, c) + ")");
  }
  if (border.top < 0 || border.left < 0 || border.bottom < 0 || border.right < 0) {
    bad("alloc_activation: borders must be >= 0");
  }
  check_operand("alloc_activation: the activation's", type);
  DeviceActivation a;
  a.n = n, a.h = h, a.w = w, a.c = c;
  a.type = type;
  a.border = border;
  a.block = cap.rows;
  a.line_bytes = cap.bus_bytes;
  const uint64_t bytes = uint64_t(a.blocks()) * uint64_t(n) * uint64_t(a.hp()) *
                         uint64_t(a.wp()) * a.line_bytes;
  if (bytes > dev.arena_size()) {
    throw Error(Errc::kOutOfMemory, "alloc_activation: " + dims(n, h, w, c) + " needs " +
                                        std::to_string(bytes) + " bytes, more than the arena");
  }
  a.buf = dev.alloc(bytes, kBufAlign);
  a.buf.fill(static_cast<uint8_t>(type.zero_point));
  return a;
}

uint64_t write_activation(DeviceActivation& a, std::span<const uint8_t> nhwc) {
  if (!a.buf.valid()) bad("write_activation: the activation has no buffer");
  if (nhwc.size() != size_t(a.n) * a.h * a.w * a.c) {
    bad("write_activation: the host tensor has " + std::to_string(nhwc.size()) +
        " bytes, n*h*w*c = " + std::to_string(size_t(a.n) * a.h * a.w * a.c));
  }
  const uint32_t B = a.line_bytes;
  const uint8_t zp = static_cast<uint8_t>(a.type.zero_point);
  std::vector<uint8_t> row(size_t(a.w) * B);
  uint64_t bytes = 0;
  for (int cb = 0; cb < a.blocks(); ++cb) {
    for (int b = 0; b < a.n; ++b) {
      for (int y = 0; y < a.h; ++y) {
        std::fill(row.begin(), row.end(), zp);
        for (int x = 0; x < a.w; ++x) {
          const uint8_t* px = &nhwc[((size_t(b) * a.h + y) * a.w + x) * a.c];
          for (uint32_t r = 0; r < a.block; ++r) {
            const size_t ch = size_t(cb) * a.block + r;
            if (ch < size_t(a.c)) row[size_t(x) * B + r] = px[ch];
          }
        }
        a.buf.write(a.offset(cb, b, y, 0), row.data(), row.size());
        bytes += row.size();
      }
    }
  }
  return bytes;
}

std::vector<uint8_t> read_activation(const DeviceActivation& a, uint64_t* bytes_read) {
  if (!a.buf.valid()) bad("read_activation: the activation has no buffer");
  const uint32_t B = a.line_bytes;
  std::vector<uint8_t> out(size_t(a.n) * a.h * a.w * a.c);
  std::vector<uint8_t> row(size_t(a.w) * B);
  uint64_t bytes = 0;
  for (int cb = 0; cb < a.blocks(); ++cb) {
    for (int b = 0; b < a.n; ++b) {
      for (int y = 0; y < a.h; ++y) {
        a.buf.read(a.offset(cb, b, y, 0), row.data(), row.size());
        bytes += row.size();
        for (int x = 0; x < a.w; ++x) {
          uint8_t* px = &out[((size_t(b) * a.h + y) * a.w + x) * a.c];
          for (uint32_t r = 0; r < a.block; ++r) {
            const size_t ch = size_t(cb) * a.block + r;
            if (ch < size_t(a.c)) px[ch] = row[size_t(x) * B + r];
          }
        }
      }
    }
  }
  if (bytes_read) *bytes_read = bytes;
  return out;
}

PackedConv pack_conv(Device& dev, const Conv2dShape& s, std::span<const uint8_t> filter_ohwi,
                     const Operand& w_in, const OutputStage& out,
                     std::span<const int32_t> w_zero_points) {
  Operand w = w_in;
  const Capabilities& cap = dev.caps();
  check_caps(cap, "pack_conv");
  check_shape(s, "pack_conv");
  if (out.mode == StoreMode::kInt32) {
    unsupported("pack_conv: the device-resident conv2d writes 8-bit activations; for INT32 out "
                "use the host-span conv2d");
  }
  const size_t K = size_t(s.kh) * s.kw * s.c_in;
  if (filter_ohwi.size() != size_t(s.c_out) * K) {
    bad("pack_conv: the filter has " + std::to_string(filter_ohwi.size()) +
        " bytes, c_out*kh*kw*c_in = " + std::to_string(size_t(s.c_out) * K));
  }
  check_operand("pack_conv: W", w);
  // Per-channel weight zero points: the common one the array subtracts, and the residuals.
  std::vector<int32_t> resid;
  if (!w_zero_points.empty()) {
    if (w_zero_points.size() != size_t(s.c_out)) {
      bad("pack_conv: w_zero_points has " + std::to_string(w_zero_points.size()) +
          " values; give c_out = " + std::to_string(s.c_out) + " or none");
    }
    for (int32_t z : w_zero_points) check_operand("pack_conv: a per-channel W", {w.is_signed, z});
    const auto [lo, hi] = std::minmax_element(w_zero_points.begin(), w_zero_points.end());
    w.zero_point = *lo + (*hi - *lo) / 2;  // residuals in [-127, 128]: their negations are int8
    if (*lo != *hi) {
      for (int32_t z : w_zero_points) resid.push_back(z - w.zero_point);
    }
  }
  const detail::Clamp clamp = detail::check_output_stage(out, uint64_t(s.c_out), false,
                                                         "pack_conv");
  PackedConv p;
  p.shape = s;
  p.w = w;
  p.out = out;
  p.out.act_min = clamp.lo;
  p.out.act_max = clamp.hi;
  // The output activation's type: declared, else the one the clamp and zero point fit (bytes
  // 0..127 read the same as int8 and uint8).
  if (out.type != OutputType::kUnspecified) {
    p.out_type = {out.type == OutputType::kInt8, out.zero_point};
  } else if (clamp.lo >= 0 && clamp.hi <= 255 && out.zero_point >= 0 && out.zero_point <= 255) {
    p.out_type = {false, out.zero_point};
  } else if (clamp.lo >= -128 && clamp.hi <= 127 && out.zero_point >= -128 &&
             out.zero_point <= 127) {
    p.out_type = {true, out.zero_point};
  } else {
    bad("pack_conv: the output clamp [" + std::to_string(clamp.lo) + ", " +
        std::to_string(clamp.hi) + "] and zero point " + std::to_string(out.zero_point) +
        " fit neither int8 nor uint8: declare OutputStage::type");
  }
  const uint32_t R = cap.rows, C = cap.cols, B = cap.bus_bytes;
  p.blocks_in = int(ceil_div(uint64_t(s.c_in), R));
  p.k_tiles = s.kh * s.kw * p.blocks_in;
  p.strips = int(ceil_div(uint64_t(s.c_out), C));
  const uint64_t klines = uint64_t(p.k_tiles) * R;
  std::vector<uint8_t> w_pk(uint64_t(p.strips) * klines * B, 0);
  const uint8_t wzp = static_cast<uint8_t>(w.zero_point);
  for (int st = 0; st < p.strips; ++st) {
    for (int t = 0; t < p.k_tiles; ++t) {
      const int cb = t % p.blocks_in, kk = t / p.blocks_in, j = kk % s.kw, i = kk / s.kw;
      for (uint32_t r = 0; r < R; ++r) {
        uint8_t* line = &w_pk[((uint64_t(st) * p.k_tiles + t) * R + r) * B];
        const int ch = cb * int(R) + int(r);
        for (uint32_t col = 0; col < C; ++col) {
          const int o = st * int(C) + int(col);
          line[col] = (o < s.c_out && ch < s.c_in)
                          ? filter_ohwi[((size_t(o) * s.kh + i) * s.kw + j) * s.c_in + ch]
                          : wzp;
        }
      }
    }
  }
  const std::vector<uint8_t> p_pk =
      detail::pack_params(out, uint64_t(s.c_out), uint64_t(p.strips), C, B);
  if (!resid.empty()) {
    p.w_zero_points.assign(w_zero_points.begin(), w_zero_points.end());
    std::vector<uint8_t> z_pk(uint64_t(p.strips) * R * B, 0);
    for (int st = 0; st < p.strips; ++st) {
      for (uint32_t r = 0; r < R; ++r) {
        for (uint32_t col = 0; col < C; ++col) {
          const int o = st * int(C) + int(col);
          z_pk[(uint64_t(st) * R + r) * B + col] =
              o < s.c_out ? static_cast<uint8_t>(int8_t(-resid[o])) : 0;
        }
      }
    }
    p.zp_buf = dev.alloc(z_pk.size(), kBufAlign);
    p.zp_buf.write(0, z_pk.data(), z_pk.size());
    p.host_bytes_written += z_pk.size();
  }
  p.w_buf = dev.alloc(w_pk.size(), kBufAlign);
  p.p_buf = dev.alloc(p_pk.size(), kBufAlign);
  p.w_buf.write(0, w_pk.data(), w_pk.size());
  p.p_buf.write(0, p_pk.data(), p_pk.size());
  p.host_bytes_written += w_pk.size() + p_pk.size();
  return p;
}

DeviceActivation alloc_conv_output(Device& dev, const PackedConv& p, const DeviceActivation& in,
                                   Border border) {
  const Conv2dShape& s = p.shape;
  const int64_t oh = out_dim(in.h, s.pad_top, s.pad_bottom, s.kh, s.dilation_h, s.stride_h);
  const int64_t ow = out_dim(in.w, s.pad_left, s.pad_right, s.kw, s.dilation_w, s.stride_w);
  if (oh < 1 || ow < 1) bad("alloc_conv_output: the filter is larger than the padded input");
  return alloc_activation(dev, in.n, int(oh), int(ow), s.c_out, p.out_type, border);
}

OpStats conv2d(Device& dev, const PackedConv& p, const DeviceActivation& in,
               DeviceActivation& out, const ConvRunOptions& opt) {
  const Capabilities& cap = dev.caps();
  check_caps(cap, "conv2d");
  const Conv2dShape& s = p.shape;
  if (!p.w_buf.valid() || !p.p_buf.valid()) bad("conv2d: the PackedConv was not packed");
  if (!in.buf.valid() || !out.buf.valid()) bad("conv2d: an activation has no buffer");
  const uint32_t R = cap.rows, C = cap.cols, B = cap.bus_bytes;
  if (in.block != R || out.block != R || in.line_bytes != B || out.line_bytes != B) {
    bad("conv2d: the activations were allocated for another array");
  }
  if (in.c != s.c_in) {
    bad("conv2d: the input has " + std::to_string(in.c) + " channels, the filter " +
        std::to_string(s.c_in));
  }
  check_operand("conv2d: the input's", in.type);
  if (in.border.top < s.pad_top || in.border.left < s.pad_left ||
      in.border.bottom < s.pad_bottom || in.border.right < s.pad_right) {
    bad("conv2d: the input's border (top " + std::to_string(in.border.top) + ", left " +
        std::to_string(in.border.left) + ", bottom " + std::to_string(in.border.bottom) +
        ", right " + std::to_string(in.border.right) +
        ") must be at least the padding on each side (" + std::to_string(s.pad_top) + ", " +
        std::to_string(s.pad_left) + ", " + std::to_string(s.pad_bottom) + ", " +
        std::to_string(s.pad_right) + "): allocate it with that Border");
  }
  const int64_t oh = out_dim(in.h, s.pad_top, s.pad_bottom, s.kh, s.dilation_h, s.stride_h);
  const int64_t ow = out_dim(in.w, s.pad_left, s.pad_right, s.kw, s.dilation_w, s.stride_w);
  if (oh < 1 || ow < 1) bad("conv2d: the filter is larger than the padded input");
  if (out.n != in.n || out.h != oh || out.w != ow || out.c != s.c_out) {
    bad("conv2d: the output is " + dims(out.n, out.h, out.w, out.c) + ", the convolution gives " +
        dims(in.n, int(oh), int(ow), s.c_out));
  }
  if (out.type.is_signed != p.out_type.is_signed ||
      out.type.zero_point != p.out_type.zero_point) {
    bad("conv2d: the output activation's type (" +
        std::string(out.type.is_signed ? "int8" : "uint8") + ", zero point " +
        std::to_string(out.type.zero_point) + ") is not the output stage's (" +
        (p.out_type.is_signed ? "int8" : "uint8") + ", zero point " +
        std::to_string(p.out_type.zero_point) + ")");
  }
  if (in.buf.device_address() == out.buf.device_address()) {
    bad("conv2d: input and output are the same buffer");
  }

  // ---- geometry: flat (1x1, stride 1, unpadded, rows contiguous in both) or per output row
  View iv = view_of(in), ov = view_of(out);
  int64_t OH = oh, OW = ow;
  const bool flat = s.kh == 1 && s.kw == 1 && s.stride_h == 1 && s.stride_w == 1 &&
                    s.pad_top == 0 && s.pad_left == 0 && s.pad_bottom == 0 && s.pad_right == 0 &&
                    in.border.left == 0 && in.border.right == 0 && out.border.left == 0 &&
                    out.border.right == 0;
  if (flat) OW = OH * OW, OH = 1;
  const int sh = s.stride_h, sw = s.stride_w, dh = s.dilation_h, dw = s.dilation_w;
  if (uint64_t(sh) * iv.row_pitch > UINT32_MAX) {
    bad("conv2d: stride_h x the input's row pitch is beyond the LOAD's 32-bit host stride");
  }

  // ---- scratchpad regions, as gemm's (docs/driver.md, "Host packing")
  const uint32_t L = cap.spad_lines, half = cap.acc_rows / 2;
  const uint32_t bank = L / std::max<uint32_t>(cap.spad_banks, 1);
  const uint32_t w_region = cap.spad_banks >= 2 ? bank : L / 2;
  const uint32_t a_cap = (L - w_region) / 2;
  const uint32_t p_lo = L - kParamBufs * C;
  // Per-channel weight zero points: a ring of panels (R lines each) below the parameters.
  const bool zpc = p.zp_buf.valid();
  const uint32_t z_lines = zpc ? kParamBufs * R : 0;
  const uint32_t z_lo = p_lo - z_lines;
  const uint32_t w_lo = L - w_region;
  const uint32_t w_cap = ((w_region - kParamBufs * C - z_lines) / 2) / R * R;
  if (w_cap < R || a_cap < uint32_t(sw)) bad("conv2d: scratchpad too small for this array");
  const uint64_t T = uint64_t(p.k_tiles), S = uint64_t(p.strips);
  // k-chunks (tiles per COMPUTE): bounded by a W buffer and by an A buffer holding >= 64 pixels.
  uint64_t kc = std::min<uint64_t>({T, w_cap / R, std::max<uint64_t>(1, a_cap / (64ull * sw))});
  const uint64_t nk = ceil_div(T, kc);
  kc = ceil_div(T, nk);
  const uint64_t P = std::min<uint64_t>(half, a_cap / (kc * sw));  // pixels per chunk
  if (P < 1) bad("conv2d: scratchpad too small for this stride");
  const bool w_res = S * T * R <= 2ull * w_cap;  // all W loaded once
  const bool p_res = S <= kParamBufs;            // all parameters loaded once

  std::vector<Chunk> chunks;
  for (int b = 0; b < in.n; ++b) {
    if (uint64_t(OW) <= P) {
      const uint64_t nr = std::min<uint64_t>(OH, P / OW), n = ceil_div(OH, nr);
      for (uint64_t j = 0; j < n; ++j) {
        const int64_t y0 = int64_t(OH * j / n), y1 = int64_t(OH * (j + 1) / n);
        chunks.push_back({b, y0, 0, uint32_t(y1 - y0), uint32_t(OW)});
      }
    } else {
      const uint64_t n = ceil_div(OW, P);
      for (int64_t y = 0; y < OH; ++y) {
        for (uint64_t j = 0; j < n; ++j) {
          const int64_t x0 = int64_t(OW * j / n), x1 = int64_t(OW * (j + 1) / n);
          chunks.push_back({b, y, x0, 1, uint32_t(x1 - x0)});
        }
      }
    }
  }

  // Steps: chunk-major, strips, k-chunks. Tile q = (chunk, strip) accumulates in bank q % 2.
  // Fine start (one k-chunk, W resident): the first tile is split into pieces of a few k-tiles,
  // each with its own A and W loads, so the array starts after the first piece arrives instead
  // of after the whole first chunk's A and the whole W.
  struct Step {
    size_t chunk;
    uint32_t strip, t0, nt;
    size_t tile;
  };
  std::vector<Step> steps;
  const bool fine = nk == 1 && w_res && chunks.size() * S > 1 && T > 2;
  const uint32_t piece = uint32_t(std::max<uint64_t>(2, ceil_div(T, 16)));
  // With two strips or more, the first two tiles' pieces are interleaved (tile 0 piece 0, tile 1
  // piece 0, tile 0 piece 1, ...): each piece of A then feeds two COMPUTEs, so the start is not
  // bound by the bus while chunk 0's A arrives (as gemm's fine start, docs/driver.md).
  const bool interleave = fine && S >= 2;
  for (size_t c = 0; c < chunks.size(); ++c) {
    for (uint32_t st = 0; st < S; ++st) {
      if (fine && c == 0 && st < (interleave ? 2u : 1u)) {
        if (st == 1) continue;  // interleaved with strip 0
        for (uint32_t t = 0; t < T; t += piece) {
          const uint32_t nt = std::min<uint32_t>(piece, uint32_t(T) - t);
          steps.push_back({c, 0, t, nt, 0});
          if (interleave) steps.push_back({c, 1, t, nt, 1});
        }
        continue;
      }
      for (uint64_t j = 0; j < nk; ++j) {
        const uint32_t t0 = uint32_t(j * kc), nt = uint32_t(std::min<uint64_t>(kc, T - j * kc));
        steps.push_back({c, st, t0, nt, c * S + st});
      }
    }
  }
  const size_t tiles = chunks.size() * S;
  std::vector<size_t> tile_last(tiles, 0), chunk_first(chunks.size() + 1, steps.size());
  for (size_t i = 0; i < steps.size(); ++i) {
    tile_last[steps[i].tile] = i;
    chunk_first[steps[i].chunk] = std::min(chunk_first[steps[i].chunk], i);
  }
  auto tile_lines = [&](const Chunk& ch) { return uint64_t(ch.nr) * ch.nc * sw; };
  auto a_buf_of_chunk = [&](size_t c) { return uint32_t((c % 2) * a_cap); };

  Scheduler sch(cap.inflight);
  uint64_t dma_planned = 0;
  // A: tile t of chunk ch into scratchpad line `spad` (lines of pixel j at spad + j*sw).
  auto emit_a = [&](const Chunk& ch, uint32_t t, uint32_t spad) {
    const int cb = int(t % p.blocks_in), kk = int(t / p.blocks_in);
    const int kx = kk % s.kw, ky = kk / s.kw;
    const int64_t iy = ch.y0 * sh + int64_t(ky) * dh - s.pad_top;
    const int64_t ix = ch.x0 * sw + int64_t(kx) * dw - s.pad_left;
    Transfer2d tr;
    tr.host_addr = iv.addr(cb, ch.b, iy, ix);
    tr.row_bytes = uint32_t((uint64_t(ch.nc - 1) * sw + 1) * B);
    tr.rows = ch.nr;
    tr.host_stride = uint32_t(uint64_t(sh) * iv.row_pitch);
    tr.spad_addr = spad;
    tr.spad_stride = uint32_t(uint64_t(ch.nc) * sw);
    dma_planned += uint64_t(tr.row_bytes) * tr.rows;
    sch.emit(Descriptor::load(tr), Eng::kLoad, {},
             {{0, spad, spad + uint64_t(ch.nr - 1) * tr.spad_stride + tr.row_bytes / B}});
  };
  auto emit_w = [&](uint64_t line0, uint64_t lines, uint32_t spad) {
    Transfer2d tr;
    tr.host_addr = p.w_buf.device_address() + line0 * B;
    tr.row_bytes = uint32_t(lines * B);
    tr.rows = 1;
    tr.spad_addr = spad;
    dma_planned += tr.row_bytes;
    sch.emit(Descriptor::load(tr), Eng::kLoad, {}, {{0, spad, spad + lines}});
  };
  auto emit_params = [&](uint32_t strip0, uint32_t strips, uint32_t spad) {
    Transfer2d tr;
    tr.host_addr = p.p_buf.device_address() + uint64_t(strip0) * C * B;
    tr.row_bytes = strips * C * B;
    tr.rows = 1;
    tr.spad_addr = spad;
    dma_planned += tr.row_bytes;
    sch.emit(Descriptor::load(tr), Eng::kLoad, {}, {{0, spad, spad + uint64_t(strips) * C}});
  };
  auto emit_zp = [&](uint32_t strip0, uint32_t strips, uint32_t spad) {
    Transfer2d tr;
    tr.host_addr = p.zp_buf.device_address() + uint64_t(strip0) * R * B;
    tr.row_bytes = strips * R * B;
    tr.rows = 1;
    tr.spad_addr = spad;
    dma_planned += tr.row_bytes;
    sch.emit(Descriptor::load(tr), Eng::kLoad, {}, {{0, spad, spad + uint64_t(strips) * R}});
  };
  auto z_spad = [&](size_t tile) {
    const uint32_t strip = uint32_t(tile % S);
    return uint32_t(z_lo + (p_res ? strip : tile % kParamBufs) * R);
  };
  auto w_spad = [&](size_t i) {
    const Step& st = steps[i];
    return w_res ? uint32_t(w_lo + (uint64_t(st.strip) * T + st.t0) * R)
                 : uint32_t(w_lo + (i % 2) * w_cap);
  };
  auto a_spad = [&](size_t i) {  // the line of the step's first tile
    const Step& st = steps[i];
    const Chunk& ch = chunks[st.chunk];
    return nk == 1 ? a_buf_of_chunk(st.chunk) + uint32_t(st.t0 * tile_lines(ch))
                   : uint32_t((i % 2) * a_cap);
  };
  auto p_spad = [&](size_t tile) {
    const uint32_t strip = uint32_t(tile % S);
    return uint32_t(p_lo + (p_res ? strip : tile % kParamBufs) * C);
  };
  // Resident A (one k-chunk): which (chunk, tile) loads go with which step's loads. Chunk 0's
  // with the steps of its first strip (pieces under fine start); chunk c+1's spread over the
  // later steps of chunk c (into the other A buffer, while chunk c computes).
  std::vector<std::vector<std::pair<size_t, uint32_t>>> a_at(steps.size());
  if (nk == 1) {
    for (size_t i = 0; i < steps.size(); ++i) {
      if (steps[i].tile != 0) continue;
      for (uint32_t t = steps[i].t0; t < steps[i].t0 + steps[i].nt; ++t) a_at[i].push_back({0, t});
    }
    for (size_t c = 0; c + 1 < chunks.size(); ++c) {
      const size_t hi = chunk_first[c + 1];
      // Never during the bus-heavy start (the first tile's pieces, or the interleaved two).
      size_t lo = (c == 0 ? tile_last[interleave ? 1 : 0] : chunk_first[c]) + 1;
      if (lo > hi) lo = hi;
      const uint64_t slots = hi - lo + 1;
      for (uint64_t t = 0; t < T; ++t) a_at[lo + t * slots / T].push_back({c + 1, uint32_t(t)});
    }
  }
  auto emit_loads = [&](size_t i) {
    const Step& st = steps[i];
    const Chunk& ch = chunks[st.chunk];
    const bool tile_first = i == 0 || steps[i - 1].tile != st.tile;
    if (i == 0) {
      if (p_res) emit_params(0, uint32_t(S), p_lo);
      if (p_res && zpc) emit_zp(0, uint32_t(S), z_lo);
    }
    // W: resident, loaded by the steps of chunk 0 (each its own lines); else per step.
    if (!w_res || st.chunk == 0) {
      emit_w((uint64_t(st.strip) * T + st.t0) * R, uint64_t(st.nt) * R, w_spad(i));
    }
    if (!p_res && tile_first) emit_params(st.strip, 1, p_spad(st.tile));
    if (!p_res && tile_first && zpc) emit_zp(st.strip, 1, z_spad(st.tile));
    if (nk > 1) {
      for (uint32_t t = 0; t < st.nt; ++t) {
        emit_a(ch, st.t0 + t, a_spad(i) + uint32_t(t * tile_lines(ch)));
      }
    }
    for (const auto& [c, t] : a_at[i]) {
      emit_a(chunks[c], t, a_buf_of_chunk(c) + uint32_t(t * tile_lines(chunks[c])));
    }
  };
  const OutputStage& o = p.out;
  auto emit_compute = [&](size_t i) {
    const Step& st = steps[i];
    const Chunk& ch = chunks[st.chunk];
    ComputeArgs c;
    c.a_addr = a_spad(i);
    c.a_row_stride = uint32_t(sw);
    c.a_tile_stride = uint32_t(tile_lines(ch));
    c.w_addr = w_spad(i);
    c.w_row_stride = 1;
    c.w_tile_stride = R;
    c.m = ch.pixels();
    c.k = st.nt * R;
    c.acc_addr = uint32_t(st.tile % 2) * half;
    c.accumulate = st.t0 != 0;
    c.a_signed = in.type.is_signed;
    c.w_signed = p.w.is_signed;
    c.a_zp = static_cast<uint8_t>(in.type.zero_point);
    c.w_zp = static_cast<uint8_t>(p.w.zero_point);
    const uint64_t a_last = c.a_addr + uint64_t(st.nt - 1) * c.a_tile_stride +
                            uint64_t(c.m - 1) * c.a_row_stride;
    sch.emit(Descriptor::compute(c), Eng::kCompute,
             {{0, c.a_addr, a_last + 1}, {0, c.w_addr, c.w_addr + uint64_t(c.k)}},
             {{1, c.acc_addr, c.acc_addr + uint64_t(c.m)}});
    if (zpc) {
      // sum_k (a - za) * (-(zw[n] - zc)): the same A tiles against the panel, every k-tile
      // reading its R lines (w_tile_stride 0), int8 with zero point 0, accumulated.
      c.w_addr = z_spad(st.tile);
      c.w_row_stride = 1;
      c.w_tile_stride = 0;
      c.w_signed = true;
      c.w_zp = 0;
      c.accumulate = true;
      sch.emit(Descriptor::compute(c), Eng::kCompute,
               {{0, c.a_addr, a_last + 1}, {0, c.w_addr, c.w_addr + uint64_t(R)}},
               {{1, c.acc_addr, c.acc_addr + uint64_t(c.m)}});
    }
  };
  // One STORE_ACC per chunk when its output rows are contiguous (no left/right border).
  const bool one_store = flat || (out.border.left == 0 && out.border.right == 0);
  auto emit_store = [&](size_t tile) {
    const Chunk& ch = chunks[tile / S];
    const uint32_t strip = uint32_t(tile % S);
    const uint32_t acc = uint32_t(tile % 2) * half;
    const uint32_t n = uint32_t(std::min<uint64_t>(C, uint64_t(s.c_out) - uint64_t(strip) * C));
    auto store = [&](int64_t y, uint32_t m, uint32_t acc_row) {
      StoreAccArgs sa;
      sa.host_addr = ov.addr(int(strip), ch.b, y, ch.x0);
      sa.host_stride = B;
      sa.m = m;
      sa.acc_addr = acc_row;
      sa.n = n;
      sa.mode = o.mode;
      sa.pack = true;
      sa.load_params = true;
      sa.params_addr = p_spad(tile);
      sa.zp = o.zero_point;
      sa.act_min = o.act_min;
      sa.act_max = o.act_max;
      dma_planned += uint64_t(m) * n;
      sch.emit(Descriptor::store_acc(sa), Eng::kStore,
               {{1, acc_row, acc_row + uint64_t(m)}, {0, sa.params_addr, sa.params_addr + C}}, {});
    };
    if (one_store || ch.nr == 1) {
      store(ch.y0, ch.pixels(), acc);
    } else {
      for (uint32_t r = 0; r < ch.nr; ++r) store(ch.y0 + r, ch.nc, acc + r * ch.nc);
    }
  };
  emit_loads(0);
  size_t stored = 0;
  for (size_t i = 0; i < steps.size(); ++i) {
    if (i + 1 < steps.size()) emit_loads(i + 1);
    emit_compute(i);
    while (stored < tiles && tile_last[stored] < i) emit_store(stored++);
  }
  while (stored < tiles) emit_store(stored++);
  const std::vector<Descriptor>& prog = sch.program();
  if (opt.progress) opt.progress(0.0);

  OpStats st;
  st.perf = detail::run_program(dev, prog, opt.timeout, opt.progress);
  st.descriptors = prog.size();
  st.dma_bytes = st.perf.c.dma_rd_bytes + st.perf.c.dma_wr_bytes;
  st.host_bytes_written = 0;
  st.host_bytes_read = 0;
  st.schedule = "implicit GEMM " + dims(in.n, in.h, in.w, in.c) + " -> " +
                dims(out.n, out.h, out.w, out.c) + ": " + std::to_string(chunks.size()) +
                " pixel chunk(s) of <= " + std::to_string(P) + (flat ? " (flat)" : "") + ", " +
                std::to_string(T) + " k-tile(s) (" + std::to_string(s.kh) + "x" +
                std::to_string(s.kw) + " taps x " + std::to_string(p.blocks_in) +
                " channel block(s)) in " + std::to_string(nk) + " k-chunk(s), " +
                std::to_string(S) + " strip(s), W " + (w_res ? "resident" : "streamed") + ", A " +
                (nk == 1 ? "resident per chunk" : "streamed per step") +
                (zpc ? ", per-channel W zero points (second pass)" : "") +
                (fine ? std::string(interleave ? ", first two tiles interleaved" : ", first tile") +
                            " in pieces of " + std::to_string(piece) + " k-tiles"
                      : "") +
                ", " +
                std::to_string(steps.size()) + " COMPUTEs, " + std::to_string(dma_planned) +
                " operand/result DMA bytes" +
                (sch.wait_flags_used()
                     ? ", " + std::to_string(sch.wait_flags_used()) + " WAIT flags"
                     : std::string());
  return st;
}

}  // namespace weft
