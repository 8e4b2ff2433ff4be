// weft/ops.hpp: high-level operations tiled onto the device by the driver.
//
// gemm: C[M][N] = A[M][K] x W[K][N] with 8-bit operands (int8 or uint8, each with a zero point),
// INT32 accumulation, then per output channel (column) bias and requantization to 8 bits with an
// activation clamp, or INT32 out (acc + bias). conv2d (host spans): NHWC input, OHWI filter,
// stride, dilation and padding, by im2col on the host and gemm. Results are bit-exact to
// weft::golden (sw/golden/include/weft/golden/quant.hpp). The tiling and descriptor schedule are
// described in docs/driver.md.
//
// Device-resident tensors (end of this header): DeviceActivation (a channel-blocked activation
// in an arena Buffer, with a zero-point border), PackedConv (weights and per-channel parameters
// packed once into arena Buffers) and conv2d(Device&, const PackedConv&, in, out): an implicit
// GEMM whose A operand the DMA fetches straight from the input activation, and whose output is
// the next layer's input, without host transfers (docs/driver.md, "Device-resident tensors and
// implicit-GEMM convolution").
#pragma once

#include <cstdint>
#include <functional>
#include <span>
#include <string>
#include <vector>

#include "weft/device.hpp"

namespace weft {

// How an operand is read: int8 or uint8, minus its zero point (in the operand's range), or, on a
// device with Capabilities::tensor_fp, an OCP FP8 encoding (format kE4m3 / kE5m2, one byte per
// element) or a bfloat16 (kBf16: two bytes per element, little-endian, so A holds 2*M*K bytes);
// is_signed and zero_point are then unused (zero_point must be 0). A and W are both integer,
// both FP8 (the two FP8 formats may mix) or both BF16 (docs/tensor-unit.md).
struct Operand {
  bool is_signed = true;
  int32_t zero_point = 0;
  ElemFormat format = ElemFormat::kInt;
};

// The declared type of an 8-bit output. kUnspecified: the clamp [act_min, act_max] alone says
// which bytes are written (as before). kInt8 / kUint8: the zero point must lie in the type's
// range and an ONNX scale must be finite and >= 0 (otherwise Error(kBadArgument)); the clamp is
// [act_min, act_max] intersected with the type's range, and act_min / act_max left at their
// defaults (-128, 127) mean no activation: the whole type (so a uint8 output needs no act_max).
enum class OutputType : uint8_t { kUnspecified = 0, kInt8 = 1, kUint8 = 2 };

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
  OutputType type = OutputType::kUnspecified;  // 8-bit modes: see OutputType
  // FP operands: the accumulators hold FP32 sums and `format` says what is stored: kFp32 (a
  // float per element), kBf16 (uint16_t), kE4m3 / kE5m2 (one byte). Per column:
  //   y = relu?(fl32(fl32(acc * scale) + fp_bias)), then rounded to nearest even into `format`
  //   (FP8 saturating to +-max as ONNX Cast saturate=1). scale: N values, 1, or none (1.0);
  //   fp_bias: N values or none (0.0). mode, bias, zero_point and the clamp are unused.
  ElemFormat format = ElemFormat::kInt;
  std::vector<float> fp_bias;
  bool relu = false;
};

// The ONNX QLinearConv / QLinearMatMul output scale as onnxruntime computes it, in float32:
// (x_scale * w_scale) / y_scale, each operation rounded to float32 in that order (the value
// OutputStage::scale takes in StoreMode::kOnnx, per channel with per-channel w_scale).
WEFT_API float onnx_output_scale(float x_scale, float w_scale, float y_scale);

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
  // Bytes the host moved into / out of device memory (the arena) during the operation: packed
  // operands and parameters written, results read back. 0 and 0 for a device-resident conv2d.
  uint64_t host_bytes_written = 0, host_bytes_read = 0;
  // Bytes the device's DMA moved (reads + writes, PERF_DMA_RD_BYTES + PERF_DMA_WR_BYTES: the
  // operands, results, descriptor fetches and completion records).
  uint64_t dma_bytes = 0;
};

// What gemm needs of the device's arena for M x N x K on a device with these capabilities: the
// packed A, W, per-column parameters and output (docs/driver.md, "Host packing"), in bytes, and
// about how many descriptors it submits. bf16_operands: A and W are BF16 (two bytes per element,
// rows of two scratchpad lines).
struct GemmFootprint {
  uint64_t a = 0, w = 0, params = 0, out = 0;
  uint64_t descriptors = 0;  // estimate (exact up to the split first and last tiles)
  uint64_t total() const { return a + w + params + out; }
};
WEFT_API GemmFootprint gemm_footprint(const Capabilities& cap, uint64_t m, uint64_t n, uint64_t k,
                                      bool int32_out, bool bf16_operands = false);

// The size checks gemm and conv2d make before they allocate anything (host or device memory):
// Error(kBadArgument) for sizes outside the driver's and the device's limits (M, N, K >= 1,
// K <= 2^20, M * bus_bytes < 2^32), Error(kOutOfMemory) when the arena cannot hold the buffers
// now or the descriptor program would not fit in this host's memory. The out-of-memory message
// says how much is needed and free, the largest M and K that fit with the other sizes kept, and
// the mem=<bytes> device option that would hold it. Tools call these before they make operands.
WEFT_API void gemm_check_size(Device& dev, int64_t m, int64_t n, int64_t k, StoreMode mode);
struct Conv2dShape;
WEFT_API void conv2d_check_size(Device& dev, const Conv2dShape& s, StoreMode mode);

// A: M x K row-major, W: K x N row-major, bytes (two's complement for int8; BF16: two per
// element).
// 8-bit out (mode != kInt32): `out` holds M*N bytes.
WEFT_API OpStats gemm(Device& dev, int m, int n, int k, std::span<const uint8_t> a,
                      std::span<const uint8_t> w, std::span<uint8_t> out, const GemmOptions& opt);
// INT32 out (mode must be kInt32): `out` holds M*N values.
WEFT_API OpStats gemm(Device& dev, int m, int n, int k, std::span<const uint8_t> a,
                      std::span<const uint8_t> w, std::span<int32_t> out, const GemmOptions& opt);
// FP8 or BF16 operands with out.format kFp32: `out` holds M*N floats; kBf16: M*N BF16 encodings.
// (FP8 out, kE4m3 / kE5m2, takes the uint8_t overload: M*N bytes.)
WEFT_API OpStats gemm(Device& dev, int m, int n, int k, std::span<const uint8_t> a,
                      std::span<const uint8_t> w, std::span<float> out, const GemmOptions& opt);
WEFT_API OpStats gemm(Device& dev, int m, int n, int k, std::span<const uint8_t> a,
                      std::span<const uint8_t> w, std::span<uint16_t> out, const GemmOptions& opt);

struct Conv2dShape {
  int n = 1, h = 1, w = 1, c_in = 1;  // input NHWC
  int kh = 1, kw = 1, c_out = 1;      // filter OHWI [c_out][kh][kw][c_in]
  int stride_h = 1, stride_w = 1;
  int pad_top = 0, pad_left = 0, pad_bottom = 0, pad_right = 0;
  int dilation_h = 1, dilation_w = 1;  // tap (i, j) reads input (y*stride + i*dilation - pad)
  int groups = 1;                      // only 1 (depthwise / grouped: Errc::kUnsupported)
  int out_h() const { return (h + pad_top + pad_bottom - (kh - 1) * dilation_h - 1) / stride_h + 1; }
  int out_w() const { return (w + pad_left + pad_right - (kw - 1) * dilation_w - 1) / stride_w + 1; }
};

// What im2col on the host would move to the device for this convolution: its A matrix,
// n*out_h*out_w rows of kh*kw*c_in bytes.
WEFT_API uint64_t im2col_bytes(const Conv2dShape& s);

// Output NHWC [n][out_h][out_w][c_out]. Padding takes the input zero point (opt.a); the filter
// is opt.w. im2col on the host, then gemm with M = n*out_h*out_w, K = kh*kw*c_in, N = c_out.
WEFT_API OpStats conv2d(Device& dev, const Conv2dShape& s, std::span<const uint8_t> input,
                        std::span<const uint8_t> filter, std::span<uint8_t> out,
                        const GemmOptions& opt);
WEFT_API OpStats conv2d(Device& dev, const Conv2dShape& s, std::span<const uint8_t> input,
                        std::span<const uint8_t> filter, std::span<int32_t> out,
                        const GemmOptions& opt);
// FP8 or BF16 input and filter (opt.a / opt.w formats; BF16: two bytes per element; padding is
// +0): FP32 out (opt.out.format kFp32) or BF16 out (kBf16); FP8 out takes the uint8_t overload.
WEFT_API OpStats conv2d(Device& dev, const Conv2dShape& s, std::span<const uint8_t> input,
                        std::span<const uint8_t> filter, std::span<float> out,
                        const GemmOptions& opt);
WEFT_API OpStats conv2d(Device& dev, const Conv2dShape& s, std::span<const uint8_t> input,
                        std::span<const uint8_t> filter, std::span<uint16_t> out,
                        const GemmOptions& opt);

// ---- Device-resident tensors and implicit-GEMM convolution (docs/driver.md)

// Zero-point pixels kept around an activation in its buffer (per image), so that a convolution
// reading it with padding p needs a border >= p on each side: padded taps then read the zero
// point and contribute exactly 0.
struct Border {
  int top = 0, left = 0, bottom = 0, right = 0;
};

// An 8-bit activation [n][h][w][c] in device memory, channel-blocked: channel block cb holds
// channels [cb*R, cb*R + R) (R = the array's rows = its columns = one k-tile), one bus_bytes line
// per pixel, laid out [cb][n][h + border.top + border.bottom][w + border.left + border.right].
// Pixel (b, y, x) of block cb (y, x in the image; negative or past the edge inside the border) is
// at byte
//   ((cb*n + b)*hp + y + border.top)*wp*line_bytes + (x + border.left)*line_bytes
// Channels past c in the last block and the border hold the zero point (set when the buffer is
// allocated; writers leave them alone). This is what the gemm's STORE_ACC writes per strip and
// what its COMPUTE reads as the A k-tile, so a layer's output is the next layer's input as is.
struct DeviceActivation {
  Buffer buf;
  int n = 0, h = 0, w = 0, c = 0;
  Operand type;  // int8 / uint8 and zero point
  Border border;
  uint32_t block = 0;       // channels per line (the array's rows R)
  uint32_t line_bytes = 0;  // bus_bytes
  int blocks() const { return block ? int((c + block - 1) / block) : 0; }
  int hp() const { return h + border.top + border.bottom; }
  int wp() const { return w + border.left + border.right; }
  uint64_t row_pitch() const { return uint64_t(wp()) * line_bytes; }
  uint64_t image_pitch() const { return uint64_t(hp()) * row_pitch(); }
  uint64_t block_pitch() const { return uint64_t(n) * image_pitch(); }
  uint64_t bytes() const { return uint64_t(blocks()) * block_pitch(); }
  // Byte offset of pixel (b, y, x) of block cb in buf.
  uint64_t offset(int cb, int b, int y, int x) const {
    return uint64_t(cb) * block_pitch() + uint64_t(b) * image_pitch() +
           uint64_t(y + border.top) * row_pitch() + uint64_t(x + border.left) * line_bytes;
  }
};

// Allocates an activation and fills it (border, padding channels, interior) with the zero point:
// the one host write of the buffer (its size is not counted as a transfer of any op).
// Error(kUnsupported) when the array is not square (R != C) or a line is narrower than R.
WEFT_API DeviceActivation alloc_activation(Device& dev, int n, int h, int w, int c, Operand type,
                                           Border border = {});
// Writes an NHWC [n][h][w][c] host tensor into the interior; returns the bytes written to the
// device (whole lines: n*h*w*blocks*line_bytes).
WEFT_API uint64_t write_activation(DeviceActivation& a, std::span<const uint8_t> nhwc);
// Reads the interior back as NHWC [n][h][w][c]; `bytes_read` (optional) gets the bytes read.
WEFT_API std::vector<uint8_t> read_activation(const DeviceActivation& a,
                                              uint64_t* bytes_read = nullptr);

// A convolution's weights and per-output-channel parameters, packed once into arena buffers.
// W: per strip s of C output channels, K = kh*kw*blocks_in*R lines, line (s, k) with
// k = ((i*kw + j)*blocks_in + cb)*R + r holds filter[s*C + col][i][j][cb*R + r] (the weight zero
// point past c_out and c_in); params: one line per output channel.
//
// Per-output-channel weight zero points zw[n] (ONNX QLinearConv w_zero_point / QLinearMatMul
// b_zero_point per column) are exact: the array subtracts one zero point per COMPUTE, so W is
// read with the common zero point zc = min + floor((max - min)/2) of the zw[n], and a second
// COMPUTE over the same A tiles adds sum_k (a - za) * (-(zw[n] - zc)) from a panel of R lines
// each holding -(zw[n] - zc) as int8 (always in range): acc = sum_k (a - za)(w - zw[n]) modulo
// 2^32. It costs a second pass of the array (no extra DMA of A) only when the zw[n] differ.
struct PackedConv {
  Conv2dShape shape;  // n is the batch it was packed for; any batch may run
  Operand w;          // W's type; zero_point: the common zero point zc the array subtracts
  OutputStage out;
  Operand out_type;  // the output activation's type (from out.type or the clamp, zero point)
  Buffer w_buf, p_buf;
  Buffer zp_buf;  // per-channel zero points: per strip R lines of -(zw[n] - zc); else invalid
  std::vector<int32_t> w_zero_points;  // zw[n] (c_out values) when per channel, else empty
  int blocks_in = 0, k_tiles = 0, strips = 0;
  uint64_t host_bytes_written = 0;  // what packing wrote
};

// Packs `filter_ohwi` ([c_out][kh][kw][c_in] bytes) for convolutions of shape `s` (the input's
// h, w and n may differ at run time; c_in, kernel, strides, paddings, dilations are fixed).
// 8-bit output modes only (kInt32 out: Error(kUnsupported)). Validates like gemm.
// `w_zero_points`: c_out per-channel weight zero points (each in W's type), or empty: all
// w.zero_point.
WEFT_API PackedConv pack_conv(Device& dev, const Conv2dShape& s,
                              std::span<const uint8_t> filter_ohwi, const Operand& w,
                              const OutputStage& out,
                              std::span<const int32_t> w_zero_points = {});

struct ConvRunOptions {
  Timeout timeout;
  std::function<void(double)> progress;  // as GemmOptions::progress
};

// The output activation `in` gives with `p`: [in.n][out_h][out_w][c_out] of p.out_type, with the
// border `border` (the padding of the layer that will read it).
WEFT_API DeviceActivation alloc_conv_output(Device& dev, const PackedConv& p,
                                            const DeviceActivation& in, Border border = {});

// out = conv(in, p) entirely on the device: implicit GEMM (the DMA fetches each tap's input lines
// from `in` with a 2-D strided LOAD; the array accumulates over taps and channel blocks), results
// requantized and stored into the interior of `out`. Needs in.c == c_in, in.border >= the
// paddings on each side, `in.type` the A operand, out of shape [in.n][out_h][out_w][c_out] and
// type p.out_type. No host transfer (host_bytes_* = 0).
WEFT_API OpStats conv2d(Device& dev, const PackedConv& p, const DeviceActivation& in,
                        DeviceActivation& out, const ConvRunOptions& opt = {});

}  // namespace weft
