// Weft golden model: the tensor unit's floating-point modes (FP8 E4M3FN / E5M2 operands, FP32
// accumulation; BF16 and FP32 as conversion and output formats). Bit-exact definitions of the
// element formats, the conversions between them and float32, the FP GEMM with its tile-by-tile
// accumulation rule, and the FP output stage.
//
// Every function works on exact float32 values and rounds to nearest, ties to even, with
// subnormals honoured: it relies on the default floating-point environment (no FTZ / DAZ, round
// to nearest), which is what every Weft binary runs with. The library is built with
// -ffp-contract=off so that no a*b+c the rules below round twice is fused into one FMA.
#pragma once

#include <cstdint>
#include <span>
#include <vector>

namespace weft::golden {

// 0 is reserved for the integer mode in descriptors; these are the floating-point element formats.
enum class FpFormat : uint8_t { kE4M3 = 1, kE5M2 = 2, kBf16 = 3, kFp32 = 4 };

// Bytes per element: 1, 1, 2, 4. Throws std::invalid_argument for a value outside the enum.
int fp_bytes(FpFormat f);

// Exact value of an encoding (the low fp_bytes(f) * 8 bits of `bits`; higher bits are ignored).
//   E4M3: OCP E4M3FN: bias 7, no infinities, S.1111.111 is NaN, max 448.
//   E5M2: bias 15, IEEE-like: S.11111.00 is Inf, S.11111.xx (xx != 0) NaN, max 57344.
//   BF16: the top half of an FP32.   FP32: IEEE binary32.
// Subnormals are decoded exactly (every value of the three narrow formats is a float32). Every
// NaN decodes to the canonical quiet NaN (bits 0x7FC00000), whatever its sign and payload.
float fp_decode(uint32_t bits, FpFormat f);

// Round to nearest, ties to even, from float32 (exact value) to the format, implemented with
// integer bit manipulation (no library cast). Subnormal results are rounded correctly (no flush
// to zero) and signed zeros are kept.
//   E4M3 / E5M2 saturate as ONNX Cast with saturate=1: +-Inf and finite values whose rounded
//     magnitude exceeds the max become +-max (0x7E / 0xFE for E4M3, 0x7B / 0xFB for E5M2).
//   BF16 / FP32: overflow rounds to +-Inf as IEEE does.
//   NaN -> the canonical NaN (sign 0): FP32 0x7FC00000, BF16 0x7FC0, E4M3 0x7F, E5M2 0x7E.
// Throws std::invalid_argument for a format outside the enum.
uint32_t fp_encode(float x, FpFormat f);

// The canonical bits of a float32 result: x's bits, except every NaN becomes 0x7FC00000.
uint32_t fp32_bits(float x);

// The tensor unit's FP accumulation rule (the one definition every test and model uses): the
// array sums the products of one k-tile exactly (a wide fixed-point sum) and rounds once at its
// edge; the accumulator adds the tiles in float32.
//   Operands: FP8, E4M3 and E5M2 in either mix, or BF16 x BF16 (no FP32 multipliers).
//   The K dimension is cut into tiles of `tile_rows` (the array's row count): tile t covers
//   k in [t*tile_rows, min(K, (t+1)*tile_rows)).
//   FP8 tile sum s_t for output (m, n), over the tile's products p = a[m][k] * w[k][n] (exact):
//     NaN if a product is NaN (a NaN operand, or Inf x 0) or the tile has both a +Inf and a -Inf
//     product; else +Inf / -Inf if it has Inf products (then all of one sign); else the exact
//     sum of the products rounded once to float32, to nearest, ties to even; an exactly zero sum
//     (all-zero products of whatever signs included) is +0.
//   BF16 tile sum s_t: s = +0, then s = fma(a[m][k], w[k][n], s) for each k of the tile in
//     increasing k, each step one float32 rounding (RNE) of the exact a * w + s, IEEE specials
//     (subnormals kept, NaN for a NaN operand, Inf x 0 or Inf - Inf, overflow to Inf).
//   Across tiles: c = s_0 if !accumulate, else c = c_in + s_0 (float32 add, RNE); then
//   c = c + s_t for t = 1, 2, ... (float32 add, RNE), in increasing t.
// a_bits: M x K row-major encodings in format af; w_bits: K x N in wf (each element's low bits,
// as fp_decode reads them); c_in: M x N (read, and its size checked, only when accumulate).
// Returns M x N float32 values. Throws std::invalid_argument on bad sizes, m / k / n or
// tile_rows < 1, FP32 operands, BF16 mixed with FP8, or a value outside the enum.
std::vector<float> gemm_fp(std::span<const uint32_t> a_bits, std::span<const uint32_t> w_bits,
                           int m, int k, int n, FpFormat af, FpFormat wf, int tile_rows,
                           bool accumulate = false, std::span<const float> c_in = {});

// Output stage of STORE_ACC in the FP output formats: y = fl32(fl32(acc * scale) + bias) (two
// float32 operations, each RNE, no FMA), then if relu and y's sign bit is set and y is not NaN,
// y = +0.0f (so relu maps -0 to +0 and lets NaN through).
float fp_postprocess(float acc, float scale, float bias, bool relu);

}  // namespace weft::golden
