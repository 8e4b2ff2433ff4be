// weft/ops.hpp: high-level operations tiled onto the device by the driver.
//
// gemm: C[M][N] = A[M][K] x W[K][N] with 8-bit operands (int8 or uint8, each with a zero point),
// INT32 accumulation, then per output channel (column) bias and requantization to 8 bits with an
// activation clamp, or INT32 out (acc + bias). conv2d: NHWC input, OHWI filter, stride and
// padding, by im2col on the host and gemm. Results are bit-exact to weft::golden
// (sw/golden/include/weft/golden/quant.hpp). The tiling and descriptor schedule are described in
// docs/driver.md.
#pragma once

#include <cstdint>
#include <functional>
#include <span>
#include <string>
#include <vector>

#include "weft/device.hpp"

namespace weft {

// How an 8-bit operand is read: int8 or uint8, minus its zero point (in the operand's range).
struct Operand {
  bool is_signed = true;
  int32_t zero_point = 0;
};

// The output stage, per output channel (column n).
struct OutputStage {
  // kTfliteDouble / kTfliteSingle / kOnnx: requantize to 8 bits; kInt32: INT32 out = acc + bias.
  StoreMode mode = StoreMode::kInt32;
  std::vector<int32_t> bias;        // N values, or empty (all 0)
  std::vector<int32_t> multiplier;  // TFLite modes: N values or 1 (per tensor)
  std::vector<int32_t> shift;       // TFLite modes: as many as multiplier, in [-31, 30]
  std::vector<float> scale;         // ONNX mode: N values or 1, finite
  int32_t zero_point = 0;           // output zero point (8-bit modes)
  // Clamp in the output integer domain: fold the activation (ReLU: act_min = zero_point) and the
  // output type's range (int8 -128..127, uint8 0..255) in. Ignored in kInt32 mode.
  int32_t act_min = -128, act_max = 127;
};

struct GemmOptions {
  Operand a, w;
  OutputStage out;
  Timeout timeout;  // for the whole operation
  // Called with 0 as soon as the sizes are checked (before the host packing, so a tool can show
  // that work started), then now and then with the fraction of descriptors completed (0..1).
  std::function<void(double)> progress;
  // Schedule knobs (benchmarks compare them): split the first output tile's loads and compute
  // by k-tile so the array starts early; split the last output tile so the final store is short.
  bool fine_start = true;
  bool short_tail = true;
};

struct OpStats {
  PerfReport perf;           // counters over the operation (cleared at its start)
  uint64_t descriptors = 0;  // submitted
  std::string schedule;      // tiling summary, one line
};

// What gemm needs of the device's arena for M x N x K on a device with these capabilities: the
// packed A, W, per-column parameters and output (docs/driver.md, "Host packing"), in bytes, and
// about how many descriptors it submits.
struct GemmFootprint {
  uint64_t a = 0, w = 0, params = 0, out = 0;
  uint64_t descriptors = 0;  // estimate (exact up to the split first and last tiles)
  uint64_t total() const { return a + w + params + out; }
};
WEFT_API GemmFootprint gemm_footprint(const Capabilities& cap, uint64_t m, uint64_t n, uint64_t k,
                                      bool int32_out);

// The size checks gemm and conv2d make before they allocate anything (host or device memory):
// Error(kBadArgument) for sizes outside the driver's and the device's limits (M, N, K >= 1,
// K <= 2^20, M * bus_bytes < 2^32), Error(kOutOfMemory) when the arena cannot hold the buffers
// now or the descriptor program would not fit in this host's memory. The out-of-memory message
// says how much is needed and free, the largest M and K that fit with the other sizes kept, and
// the mem=<bytes> device option that would hold it. Tools call these before they make operands.
WEFT_API void gemm_check_size(Device& dev, int64_t m, int64_t n, int64_t k, StoreMode mode);
struct Conv2dShape;
WEFT_API void conv2d_check_size(Device& dev, const Conv2dShape& s, StoreMode mode);

// A: M x K row-major, W: K x N row-major, bytes (two's complement for int8).
// 8-bit out (mode != kInt32): `out` holds M*N bytes.
WEFT_API OpStats gemm(Device& dev, int m, int n, int k, std::span<const uint8_t> a,
                      std::span<const uint8_t> w, std::span<uint8_t> out, const GemmOptions& opt);
// INT32 out (mode must be kInt32): `out` holds M*N values.
WEFT_API OpStats gemm(Device& dev, int m, int n, int k, std::span<const uint8_t> a,
                      std::span<const uint8_t> w, std::span<int32_t> out, const GemmOptions& opt);

struct Conv2dShape {
  int n = 1, h = 1, w = 1, c_in = 1;  // input NHWC
  int kh = 1, kw = 1, c_out = 1;      // filter OHWI [c_out][kh][kw][c_in]
  int stride_h = 1, stride_w = 1;
  int pad_top = 0, pad_left = 0, pad_bottom = 0, pad_right = 0;
  int out_h() const { return (h + pad_top + pad_bottom - kh) / stride_h + 1; }
  int out_w() const { return (w + pad_left + pad_right - kw) / stride_w + 1; }
};

// Output NHWC [n][out_h][out_w][c_out]. Padding takes the input zero point (opt.a); the filter
// is opt.w. im2col on the host, then gemm with M = n*out_h*out_w, K = kh*kw*c_in, N = c_out.
WEFT_API OpStats conv2d(Device& dev, const Conv2dShape& s, std::span<const uint8_t> input,
                        std::span<const uint8_t> filter, std::span<uint8_t> out,
                        const GemmOptions& opt);
WEFT_API OpStats conv2d(Device& dev, const Conv2dShape& s, std::span<const uint8_t> input,
                        std::span<const uint8_t> filter, std::span<int32_t> out,
                        const GemmOptions& opt);

}  // namespace weft
