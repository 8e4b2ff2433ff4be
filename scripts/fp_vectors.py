#!/usr/bin/env python3
"""Reference vectors from ml_dtypes, numpy and onnxruntime for Weft's floating-point modes.

The golden model's FP functions (sw/golden/include/weft/golden/fp.hpp: fp_decode, fp_encode,
gemm_fp, fp_postprocess) are compared with these files by sw/golden/tests/test_fp.cpp, so that the
formats and roundings are checked against other people's implementations (ml_dtypes, the format
library of JAX; onnxruntime's Cast) and the GEMM accumulation rule against two independent
implementations written here (exact rationals; Python integers), not against our own reading of
them.

Usage: fp_vectors.py --out-dir DIR [--seed N]      (needs numpy, ml_dtypes; onnx and onnxruntime
                                                     for the onnxruntime columns, optional)

Files written into DIR. Every line starting with '#' is a comment; fields are separated by one
space; an encoding is lowercase hex of its width (E4M3 / E5M2: 2 digits, BF16: 4), a float32 the
8 lowercase hex digits of its IEEE-754 binary32 bit pattern (1.0f -> 3f800000).

fp8_decode.txt -- every FP8 code's value, as ml_dtypes decodes it (float8_e4m3fn, float8_e5m2):
      fmt code value            e.g. "e4m3 38 3f800000"   (fmt: e4m3 | e5m2)
  NaN codes give a NaN of ml_dtypes' choosing (compare NaN-ness, not bits).

bf16.txt -- every BF16 code c (0000..ffff), one line each:
      c value e0 e1 e2 e3
  value: ml_dtypes' float32 value of c. e0..e3: ml_dtypes' bfloat16 encodings of the float32 bit
  patterns (c << 16) | 0000, 7fff, 8000, 8001: c's exact value, just below the midpoint between c
  and the next code away from zero, that midpoint (a tie), and just above it. The inputs are given
  by that rule instead of being written out, which keeps the file at 2 MB.

fp8_products.txt -- every FP8 product, 256 x 256 per pair of formats:
      pair a p0 p1 ... p255       (pair: e4m3xe4m3 | e5m2xe5m2 | e4m3xe5m2)
  pj = float32(decode(a) * decode(j)), a numpy float32 product of the ml_dtypes values, written as
  the TOP 16 BITS of its float32 pattern (4 hex digits; the low 16 bits are zero): an FP8 x FP8
  product has at most 8 significant bits and lies in float32's normal range, so it is exact and
  is itself a bfloat16 value. The script asserts both (exactness against float64, zero low bits,
  NaN products included); the half-width keeps the file under 1 MB.

encode.txt -- float32 -> FP8 / BF16 on a set of inputs:
      x e4m3 e4m3_ort e5m2 e5m2_ort bf16
  e4m3 / e5m2: ml_dtypes' cast of x clipped to [-max, max] (448 / 57344), i.e. round to nearest
  even with ONNX Cast saturate=1 overflow (ml_dtypes itself returns NaN / Inf where ONNX
  saturates; NaN passes np.clip unchanged and stays NaN). *_ort: onnxruntime's Cast(to=FLOAT8E4M3FN
  / FLOAT8E5M2, saturate=1), opset 19, CPU provider; "--" when onnxruntime is not available (the
  header says why). bf16: ml_dtypes' plain cast (IEEE: overflow to Inf). The script asserts that
  ml_dtypes-with-clip and onnxruntime agree on every input except the sign / payload of NaN
  outputs (see check_ort_agrees). Inputs: every FP8 code's exact value, every midpoint between
  adjacent codes and the float32 neighbours of both, values beyond max (including max + half an
  ulp, a tie), +-Inf, NaNs (quiet, signalling, negative, payloads), +-0, float32 subnormals, and
  random float32 bit patterns (uniform, and with the exponent in and around the FP8 range).

gemm.txt -- the tensor unit's FP GEMM rule (fp.hpp gemm_fp) on random matrices, per case:
      case name af wf M K N tile_rows accumulate
      a <M*K encodings of af, row-major>
      w <K*N encodings of wf, row-major>
      c <M*N float32, the accumulator input; only when accumulate is 1>
      y <M*N float32: the rule's result>
  (af, wf: e4m3 | e5m2, either mix: the tensor unit multiplies FP8 only). The rule, per output:
  the K dimension in tiles of tile_rows; a tile's products a * w (exact) are summed exactly and
  rounded once to float32 (nearest, ties to even); an exactly zero sum is +0; the tile is NaN if
  a product is NaN (NaN operand, Inf * 0) or it holds both +Inf and -Inf products, else +-Inf if
  it holds Inf products. Then c = s(tile 0), or c_in + s(tile 0) when accumulating, and
  c = c + s(tile t) for each later tile (float32 adds, numpy). The tile sum is computed twice and
  the script asserts both agree on every tile: tile_sum_exact (NaN / Inf from the float32
  products, fractions.Fraction sum, round_f32() below) and tile_sum_int (NaN / Inf from the
  operands, each product * 2^32 as a Python integer from the operands' integer ratios, the
  integer sum rounded by int_to_f32() below, which builds the float32 bit pattern itself).
  Besides random codes, every format pair has a case whose tile sums often fall on a midpoint
  between float32 values (operands +-m * 2^e with e in {-6, 0, 6}: products 2^24 apart) and one
  of products that cancel in adjacent pairs. The header counts the tile sums that were rounded,
  the ties among them, and the outputs where the old rule (an fma chain per tile) differs; the
  script asserts that ties occur and that the old rule would fail these vectors.

gemm_bf16.txt -- the BF16 x BF16 rule, in gemm.txt's layout (af = wf = bf16): a tile's sum is
  s = +0, then s = fma(a, w, s) for each row in order, each step the exact a * w + s rounded once
  to float32 (fractions.Fraction and round_f32; IEEE NaN / Inf / signed-zero cases); tiles are
  added as in gemm.txt. Random codes with exponents near 1, over the whole range (subnormal
  results, overflow), with specials, and tie-prone values.

postprocess.txt -- the FP output stage (fp.hpp fp_postprocess) in numpy float32:
      acc scale bias relu y      y = float32(float32(acc * scale) + bias); relu: y = +0.0 when y's
  sign bit is set and y is not NaN. Includes cancellation where a fused multiply-add would differ,
  signed zeros, NaN, Inf, overflow and subnormal results.

The default seed is fixed (1), so the files are reproducible; --seed changes it and is written into
every file's header.
"""

import argparse
import math
import os
import sys
from fractions import Fraction

import ml_dtypes
import numpy as np

from vector_files import write_atomic

OPSET = 19  # Cast's saturate attribute and the float8 types were introduced in opset 19.

FP8 = {
    # name: (ml_dtypes type, largest finite value, its magnitude code)
    "e4m3": (ml_dtypes.float8_e4m3fn, 448.0, 0x7E),
    "e5m2": (ml_dtypes.float8_e5m2, 57344.0, 0x7B),
}
ENC_DTYPE = {"e4m3": ml_dtypes.float8_e4m3fn, "e5m2": ml_dtypes.float8_e5m2,
             "bf16": ml_dtypes.bfloat16}
ENC_WIDTH = {"e4m3": 2, "e5m2": 2, "bf16": 4}  # hex digits
ENC_UINT = {"e4m3": np.uint8, "e5m2": np.uint8, "bf16": np.uint16}


def f32_bits(v):
    return int(np.asarray(v, dtype=np.float32).view(np.uint32))


def f32_hex(v):
    return f"{f32_bits(v):08x}"


def f32_from_bits(bits):
    return np.array([bits & 0xFFFFFFFF], dtype=np.uint32).view(np.float32)[0]


def decode_all(fmt):
    """float32 values of every code of an 8-bit format (index = code), as ml_dtypes has them."""
    codes = np.arange(256, dtype=np.uint8)
    return codes.view(ENC_DTYPE[fmt]).astype(np.float32)


# ------------------------------------------------------------------------------------------------
# Exact arithmetic: float32 rounding of a rational or an integer, and the GEMM rule
# ------------------------------------------------------------------------------------------------


def round_f32(q):
    """The float32 nearest to the rational q (ties to even), with subnormals and overflow to Inf.
    q must be nonzero (the sign of a zero result depends on how it arose: the caller decides)."""
    neg = q < 0
    q = -q if neg else q
    num, den = q.numerator, q.denominator
    # e = floor(log2 q): start from the bit lengths and correct by one if needed.
    e = num.bit_length() - den.bit_length()
    if (num << max(0, -e)) < (den << max(0, e)):
        e -= 1
    e = max(e, -126)  # below 2^-126 the quantum stays 2^-149 (subnormals)
    qe = e - 23  # the last place of a 24-bit significand with leading bit 2^e
    # n = q / 2^qe rounded to nearest, ties to even.
    scaled_num = num << max(0, -qe)
    scaled_den = den << max(0, qe)
    n, r = divmod(scaled_num, scaled_den)
    if 2 * r > scaled_den or (2 * r == scaled_den and n % 2 == 1):
        n += 1
    if n * Fraction(2) ** qe >= Fraction(2) ** 128:
        v = np.float32(np.inf)
    else:
        v = np.float32(math.ldexp(n, qe))  # n * 2^qe is a float32, exact in double too
    return -v if neg else v


def self_test_round_f32(rng):
    """round_f32 against numpy's float64 -> float32 conversion (correctly rounded) on doubles
    that sit on and around float32 midpoints, normal, subnormal and near overflow: if it rounded
    wrongly the GEMM references built on it would be wrong with it."""
    bits = np.concatenate([
        rng.integers(0, 0x7F800000, 3000, dtype=np.uint32),  # any finite magnitude
        rng.integers(0, 0x01000000, 1000, dtype=np.uint32),  # subnormal and smallest normals
        rng.integers(0x7F000000, 0x7F800000, 500, dtype=np.uint32),  # near overflow
    ]).astype(np.uint32)
    x = bits.view(np.float32).astype(np.float64)
    up = np.nextafter(bits.view(np.float32), np.float32(np.inf)).astype(np.float64)
    for lo, hi in zip(x, up):
        mid = (lo + hi) / 2  # exact in double
        for d in (lo, mid, np.nextafter(mid, -np.inf), np.nextafter(mid, np.inf)):
            if d == 0:
                continue
            for v in (d, -d):
                got, want = round_f32(Fraction(float(v))), np.float32(v)
                assert f32_bits(got) == f32_bits(want), f"round_f32({v!r}): {got!r} != {want!r}"


def int_to_f32(v, scale_exp, stats=None):
    """The float32 nearest to v * 2^scale_exp (v a Python int, ties to even), built as a bit
    pattern from integer operations only (no Fraction, no float arithmetic), so that it is an
    independent route from round_f32. v == 0 gives +0. The result must lie in float32's normal
    range, which the callers here guarantee (it is asserted). stats, when given, counts the
    roundings ('rounded': something was dropped, 'ties': exactly half an ulp was dropped)."""
    if v == 0:
        return np.float32(0.0)
    sign = 1 if v < 0 else 0
    mag = -v if sign else v
    shift = max(0, mag.bit_length() - 24)  # bits below a 24-bit significand
    n = mag >> shift
    rem = mag - (n << shift)
    if shift:
        half = 1 << (shift - 1)
        if stats is not None:
            stats["rounded"] += rem != 0
            stats["ties"] += rem == half
        if rem > half or (rem == half and n & 1):
            n += 1
    lead = n.bit_length() - 1  # 23, or 24 after a carry out of the significand, or less if small
    exp = lead + shift + scale_exp  # unbiased exponent of n's leading bit
    assert -126 <= exp <= 127, f"int_to_f32: {v} * 2^{scale_exp} is outside the normal range"
    frac = ((n << (23 - lead)) if lead <= 23 else (n >> (lead - 23))) & 0x7FFFFF
    # A carry (lead 24) leaves n = 2^24 exactly, whose fraction is 0: nothing is lost by >>.
    return f32_from_bits((sign << 31) | ((exp + 127) << 23) | frac)


def self_test_int_to_f32(rng):
    """int_to_f32 against round_f32 on random integers of up to 96 bits (a tile's sum), with
    runs of zeros and ones below the 24th bit to produce ties and near-ties."""
    for _ in range(20000):
        width = int(rng.integers(1, 97))
        v = int.from_bytes(rng.bytes(12), "little") & ((1 << width) - 1) | (1 << (width - 1))
        if width > 25 and rng.random() < 0.5:  # exactly a midpoint, or one away from it
            low = width - 24
            v = (v >> low << low) | (1 << (low - 1))
            v += int(rng.integers(-1, 2))
        v = -v if rng.random() < 0.5 else v
        for scale in (-32, 0):
            got, want = int_to_f32(v, scale), round_f32(Fraction(v) * Fraction(2) ** scale)
            assert f32_bits(got) == f32_bits(want), f"int_to_f32({v}, {scale}): {got} != {want}"


def fixed16(x):
    """An FP8 value x as the integer x * 2^16: every E4M3 / E5M2 value is a multiple of 2^-16
    (E5M2's smallest subnormal; E4M3's is 2^-9) and below 2^16 in magnitude."""
    num, den = float(x).as_integer_ratio()
    assert (1 << 16) % den == 0 and abs(num) * (1 << 16) // den < 2**32, f"not an FP8 value: {x}"
    return num * ((1 << 16) // den)


def tile_sum_exact(av, wv):
    """One tile's sum by the rule: specials from the float32 products (exact for FP8 x FP8; NaN
    for a NaN operand or Inf * 0), else the exact rational sum rounded once by round_f32."""
    with np.errstate(all="ignore"):
        p = [np.float32(a) * np.float32(b) for a, b in zip(av, wv)]
    if any(np.isnan(x) for x in p):
        return np.float32(np.nan)
    pos_inf, neg_inf = any(x == np.inf for x in p), any(x == -np.inf for x in p)
    if pos_inf and neg_inf:
        return np.float32(np.nan)
    if pos_inf or neg_inf:
        return np.float32(np.inf if pos_inf else -np.inf)
    total = sum((Fraction(float(a)) * Fraction(float(b)) for a, b in zip(av, wv)), Fraction(0))
    return np.float32(0.0) if total == 0 else round_f32(total)  # exact zero: +0, any signs


def tile_sum_int(av, wv, stats=None):
    """The same rule by another route: specials decided from the operands, the products as the
    integers a * w * 2^32 (fixed16 of each operand), their integer sum rounded by int_to_f32."""
    nan = pos_inf = neg_inf = False
    total = 0
    for a, b in zip(av, wv):
        a, b = float(a), float(b)
        if math.isnan(a) or math.isnan(b):
            nan = True
        elif math.isinf(a) or math.isinf(b):
            if a == 0 or b == 0:
                nan = True  # Inf * 0
            elif math.copysign(1, a) * math.copysign(1, b) < 0:
                neg_inf = True
            else:
                pos_inf = True
        else:
            total += fixed16(a) * fixed16(b)
    if nan or (pos_inf and neg_inf):
        return np.float32(np.nan)
    if pos_inf or neg_inf:
        return np.float32(np.inf if pos_inf else -np.inf)
    return int_to_f32(total, -32, stats)


def tile_sum_fma_chain(av, wv):
    """The rule this one replaced (s = fma(a, w, s) from +0, one rounding per product; the FP8
    product is exact, so the numpy float32 add is the fma). Only used to show that the vectors
    tell the two rules apart."""
    s = np.float32(0.0)
    with np.errstate(all="ignore"):
        for a, b in zip(av, wv):
            s = np.float32(s + np.float32(np.float32(a) * np.float32(b)))
    return s


def gemm_rule(a, w, tile_rows, accumulate, c_in, tile_sum):
    """The tensor unit's FP accumulation rule (fp.hpp gemm_fp) around a tile-sum function."""
    m, k = a.shape
    n = w.shape[1]
    y = np.empty((m, n), dtype=np.float32)
    with np.errstate(all="ignore"):
        for i in range(m):
            for j in range(n):
                c = None
                for k0 in range(0, k, tile_rows):
                    k1 = min(k, k0 + tile_rows)
                    s = tile_sum(a[i, k0:k1], w[k0:k1, j])
                    if k0 == 0:
                        c = np.float32(c_in[i, j] + s) if accumulate else s
                    else:
                        c = np.float32(c + s)
                y[i, j] = c
    return y


# ------------------------------------------------------------------------------------------------
# onnxruntime Cast to float8 (saturate=1)
# ------------------------------------------------------------------------------------------------


class OrtCast:
    """Cast(float32 -> float8e4m3fn / float8e5m2, saturate=1) run by onnxruntime's CPU provider.
    onnxruntime's Python API has no numpy type for float8e5m2 (run() raises "No corresponding Numpy
    type"), so the output is bound through io_binding to a uint8 buffer declared as the float8 type,
    which returns the raw encodings for both formats.

    Only saturate=1 (the tensor unit's rule) is run. For the record, onnxruntime 1.32's saturate=0
    path departs from the ONNX spec (and from ml_dtypes and onnx.reference, which follow it): E4M3
    |x| in [480, 496) gives +-448 instead of NaN, and E5M2 |x| in [61440, 65536) gives NaN (0x7f)
    instead of +-Inf. Its saturate=1 path agrees with ml_dtypes-with-clip bit for bit apart from
    NaN signs and payloads (asserted in check_ort_agrees)."""

    def __init__(self):
        import onnx  # noqa: F401 (imported here: optional)
        import onnxruntime as ort
        from onnx import TensorProto, helper

        self.ort = ort
        self.version = ort.__version__
        self.types = {"e4m3": TensorProto.FLOAT8E4M3FN, "e5m2": TensorProto.FLOAT8E5M2}
        self.sessions = {}
        for fmt, to in self.types.items():
            node = helper.make_node("Cast", ["x"], ["y"], to=to, saturate=1)
            graph = helper.make_graph(
                [node], "weft_fp_vectors",
                [helper.make_tensor_value_info("x", TensorProto.FLOAT, ["n"])],
                [helper.make_tensor_value_info("y", to, ["n"])])
            model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", OPSET)])
            model.ir_version = 9
            onnx.checker.check_model(model)
            so = ort.SessionOptions()
            so.graph_optimization_level = ort.GraphOptimizationLevel.ORT_DISABLE_ALL
            so.intra_op_num_threads = 1
            self.sessions[fmt] = ort.InferenceSession(
                model.SerializeToString(), so, providers=["CPUExecutionProvider"])

    def __call__(self, x32, fmt):
        sess = self.sessions[fmt]
        x32 = np.ascontiguousarray(x32, dtype=np.float32)
        out = np.zeros(x32.shape, dtype=np.uint8)
        ov = self.ort.OrtValue.ortvalue_from_numpy_with_onnx_type(
            out, onnx_element_type=self.types[fmt])
        binding = sess.io_binding()
        binding.bind_cpu_input("x", x32)
        binding.bind_ortvalue_output("y", ov)
        sess.run_with_iobinding(binding)
        return out.copy()


def make_ort():
    try:
        return OrtCast(), None
    except Exception as exc:  # missing module, no float8 support, ... : skip only the ORT columns
        return None, f"{type(exc).__name__}: {exc}".splitlines()[0]


# ------------------------------------------------------------------------------------------------
# Encode inputs and references
# ------------------------------------------------------------------------------------------------


def next_up_down(x32):
    x32 = np.asarray(x32, dtype=np.float32)
    return (np.nextafter(x32, np.float32(np.inf)), np.nextafter(x32, np.float32(-np.inf)))


def fp8_interesting(fmt):
    """Codes' exact values, midpoints between adjacent codes, max + half an ulp, all with their
    float32 neighbours, both signs."""
    _, vmax, max_code = FP8[fmt]
    v = decode_all(fmt)[: max_code + 1].astype(np.float64)  # 0 .. max, increasing
    mids = (v[:-1] + v[1:]) / 2  # exact in float32: at most one bit more than an FP8 value
    beyond = v[-1] + (v[-1] - v[-2]) / 2  # the tie between max and the next (absent) step
    base = np.concatenate([v, mids, [beyond]]).astype(np.float32)
    assert np.all(base.astype(np.float64) == np.concatenate([v, mids, [beyond]]))
    up, down = next_up_down(base)
    pos = np.concatenate([base, up, down])
    # Beyond max: a little, a lot, float32's largest.
    big = np.array([vmax * 1.0001, vmax * 1.1, vmax * 2, vmax * 1000, 1e10, 1e30,
                    np.finfo(np.float32).max], dtype=np.float32)
    pos = np.concatenate([pos, big])
    return np.concatenate([pos, -pos]).view(np.uint32)


def encode_inputs(rng):
    parts = [fp8_interesting("e4m3"), fp8_interesting("e5m2")]
    specials = [0x00000000, 0x80000000, 0x7F800000, 0xFF800000,  # zeros, infinities
                0x7FC00000, 0xFFC00000, 0x7F800001, 0xFF800001, 0x7FBFFFFF, 0xFFFFFFFF,  # NaNs
                0x7FC12345, 0x00000001, 0x80000001, 0x007FFFFF, 0x807FFFFF, 0x00400000,
                0x00800000, 0x80800000, 0x7F7FFFFF, 0xFF7FFFFF]  # subnormals, normal edges
    parts.append(np.array(specials, dtype=np.uint32))
    # Float32 subnormals: far below every FP8 value; BF16 keeps their top bits.
    sub = rng.integers(1, 0x800000, 256, dtype=np.uint32)
    sub |= rng.integers(0, 2, 256, dtype=np.uint32) << np.uint32(31)
    parts.append(sub)
    # Uniform random bit patterns: mostly far outside the FP8 range (saturation, underflow).
    parts.append(rng.integers(0, 2**32, 8192, dtype=np.uint64).astype(np.uint32))
    # Random patterns with the exponent in and around the FP8 ranges (2^-26 .. 2^19): rounding.
    n = 12288
    exp = rng.integers(127 - 26, 127 + 20, n, dtype=np.uint32)
    man = rng.integers(0, 1 << 23, n, dtype=np.uint32)
    sign = rng.integers(0, 2, n, dtype=np.uint32)
    parts.append((sign << np.uint32(31)) | (exp << np.uint32(23)) | man)
    return np.unique(np.concatenate(parts).astype(np.uint32))


def ref_encode(x32, fmt):
    """ml_dtypes reference: FP8 with ONNX saturate=1 (clip first), BF16 plain IEEE."""
    with np.errstate(all="ignore"):
        if fmt in FP8:
            vmax = np.float32(FP8[fmt][1])
            x32 = np.clip(x32, -vmax, vmax)  # NaN stays NaN, +-Inf -> +-max
        return x32.astype(ENC_DTYPE[fmt]).view(ENC_UINT[fmt])


def is_nan_code(code, fmt):
    mag = int(code) & 0x7F
    return mag == 0x7F if fmt == "e4m3" else mag > 0x7C


def check_ort_agrees(x_bits, ref, ort_out, fmt):
    """ml_dtypes-with-clip vs onnxruntime: identical except that a NaN input may give NaN
    encodings differing in sign or payload (onnxruntime keeps the input's sign, and its E5M2 NaN
    is 0x7f where ml_dtypes writes 0x7e). Returns the count of such NaN differences; any other
    difference is an error."""
    x32 = x_bits.view(np.float32)
    nan_in = np.isnan(x32)
    bad = []
    nan_diff = 0
    for i in np.nonzero(ref != ort_out)[0]:
        if nan_in[i] and is_nan_code(ref[i], fmt) and is_nan_code(ort_out[i], fmt):
            nan_diff += 1
        else:
            bad.append(f"x={x_bits[i]:08x} ml_dtypes={ref[i]:02x} onnxruntime={ort_out[i]:02x}")
    if bad:
        raise SystemExit(f"fp_vectors: ml_dtypes (clipped) and onnxruntime disagree on {fmt} for "
                         f"{len(bad)} inputs:\n  " + "\n  ".join(bad[:40]))
    return nan_diff


def encode_file(rng, ort_cast, ort_reason):
    x_bits = encode_inputs(rng)
    x32 = x_bits.view(np.float32)
    cols = {f: ref_encode(x32, f) for f in ("e4m3", "e5m2", "bf16")}
    ort_cols = {}
    notes = []
    if ort_cast is not None:
        for f in FP8:
            ort_cols[f] = ort_cast(x32, f)
            nd = check_ort_agrees(x_bits, cols[f], ort_cols[f], f)
            notes.append(f"# {f}: onnxruntime == ml_dtypes-with-clip on every non-NaN input; "
                         f"{nd} NaN inputs give NaN codes differing in sign/payload")
    lines = []
    for i, xb in enumerate(x_bits):
        row = [f"{int(xb):08x}"]
        for f in FP8:
            row.append(f"{int(cols[f][i]):02x}")
            row.append(f"{int(ort_cols[f][i]):02x}" if f in ort_cols else "--")
        row.append(f"{int(cols['bf16'][i]):04x}")
        lines.append(" ".join(row))
    if ort_cast is not None:
        ort_line = (f"# onnxruntime {ort_cast.version}: Cast(float -> FLOAT8E4M3FN / FLOAT8E5M2, "
                    f"saturate=1), opset {OPSET}, CPUExecutionProvider")
    else:
        ort_line = f"# onnxruntime: unavailable ({ort_reason}); the *_ort columns are '--'"
    header = [
        "# Generated by scripts/fp_vectors.py (float32 -> FP8 / BF16) -- do not edit.",
        f"# ml_dtypes {ml_dtypes.__version__}: FP8 = cast(clip(x, -max, max)), BF16 = cast(x)",
        ort_line,
        *notes,
        "# x e4m3 e4m3_ort e5m2 e5m2_ort bf16",
        f"# count {len(lines)}",
    ]
    return header, lines


# ------------------------------------------------------------------------------------------------
# Decode, BF16, products
# ------------------------------------------------------------------------------------------------


def fp8_decode_file():
    lines = []
    for f in FP8:
        for c, v in enumerate(decode_all(f)):
            lines.append(f"{f} {c:02x} {f32_hex(v)}")
    header = ["# Generated by scripts/fp_vectors.py (FP8 decode) -- do not edit.",
              f"# ml_dtypes {ml_dtypes.__version__}: float8_e4m3fn, float8_e5m2 -> float32",
              "# fmt code value"]
    return header, lines


def bf16_file():
    codes = np.arange(65536, dtype=np.uint32)
    values = codes.astype(np.uint16).view(ml_dtypes.bfloat16).astype(np.float32)
    lows = [0x0000, 0x7FFF, 0x8000, 0x8001]
    enc = [ref_encode(((codes << np.uint32(16)) | np.uint32(lo)).view(np.float32), "bf16")
           for lo in lows]
    vbits = values.view(np.uint32)
    lines = [f"{c:04x} {int(vbits[c]):08x} " + " ".join(f"{int(e[c]):04x}" for e in enc)
             for c in range(65536)]
    header = ["# Generated by scripts/fp_vectors.py (BF16) -- do not edit.",
              f"# ml_dtypes {ml_dtypes.__version__}: bfloat16 <-> float32",
              "# c value e0 e1 e2 e3   (e_i: encoding of the float32 (c << 16) | 0000, 7fff, "
              "8000, 8001)"]
    return header, lines


def products_file():
    lines = []
    count = 0
    for fa, fw in (("e4m3", "e4m3"), ("e5m2", "e5m2"), ("e4m3", "e5m2")):
        va, vw = decode_all(fa), decode_all(fw)
        with np.errstate(all="ignore"):
            p = va[:, None] * vw[None, :]  # float32 x float32 -> float32
            exact = va.astype(np.float64)[:, None] * vw.astype(np.float64)[None, :]
        finite = np.isfinite(exact)
        assert np.all(p[finite].astype(np.float64) == exact[finite]), "inexact FP8 product"
        assert np.all(np.isnan(p) == np.isnan(exact))
        bits = p.view(np.uint32)
        assert np.all((bits & 0xFFFF) == 0), "an FP8 product with nonzero low 16 bits"
        for a in range(256):
            lines.append(f"{fa}x{fw} {a:02x} " + " ".join(f"{int(b) >> 16:04x}" for b in bits[a]))
            count += 256
    header = ["# Generated by scripts/fp_vectors.py (FP8 products) -- do not edit.",
              f"# numpy {np.__version__} float32 products of ml_dtypes {ml_dtypes.__version__} "
              "values (exact)",
              "# pair a p0 .. p255   (pj = decode(a) * decode(j): top 16 bits of the float32; "
              "the low 16 are 0)",
              f"# count {count}"]
    return header, lines


# ------------------------------------------------------------------------------------------------
# GEMM
# ------------------------------------------------------------------------------------------------


def finite_codes(fmt):
    v = decode_all(fmt)
    return np.nonzero(np.isfinite(v))[0].astype(np.uint32)


def random_fp8(rng, fmt, shape, specials):
    """Random codes: every finite code equally likely (values from the smallest subnormal to max);
    with specials also 10% signed zeros and 3% non-finite codes (NaN, and +-Inf for E5M2), few
    enough that most outputs still see none of them."""
    codes = rng.choice(finite_codes(fmt), shape).astype(np.uint32)
    if specials:
        nonfinite = np.nonzero(~np.isfinite(decode_all(fmt)))[0]
        r = rng.random(shape)
        codes[r < 0.10] = rng.choice([0x00, 0x80], int((r < 0.10).sum()))
        codes[r > 0.97] = rng.choice(nonfinite, int((r > 0.97).sum()))
    return codes


def tie_prone_fp8(rng, fmt, shape):
    """Codes of +-m * 2^e, e in {-6, 0, 6}, m = 1 (mostly) or another representable mantissa:
    products lie near 2^12, 2^6, 1, 2^-6, 2^-12, so a tile's exact sum often spans more than 24
    bits and, with the small ones powers of two, often ends exactly half an ulp past a float32
    (2^12 + 2^-12 is such a tie)."""
    mant = rng.choice([1.0, 1.0, 1.0, 1.25, 1.5, 1.75], shape)
    e = rng.choice([-6, 0, 6], shape)
    sign = rng.choice([-1.0, 1.0], shape)
    v = (sign * mant * np.exp2(e)).astype(np.float32)
    codes = v.astype(ENC_DTYPE[fmt]).view(np.uint8).astype(np.uint32)
    assert np.all(decode_codes(codes, fmt) == v), "tie_prone_fp8: a value is not representable"
    return codes


def cancelling_fp8(rng, fa, fw, m, k, n):
    """a and w whose products cancel in adjacent pairs (a[:, 2q+1] = -a[:, 2q], w[2q+1, :] =
    w[2q, :]), with a quarter of a's codes then replaced at random: large products cancel
    exactly within a tile and what is left is small, which a rounding per product would lose."""
    a = random_fp8(rng, fa, (m, k), False)
    w = random_fp8(rng, fw, (k, n), False)
    pairs = k // 2
    a[:, 1:2 * pairs:2] = a[:, 0:2 * pairs:2] ^ 0x80  # the sign bit
    w[1:2 * pairs:2, :] = w[0:2 * pairs:2, :]
    redo = rng.random((m, k)) < 0.25
    a[redo] = random_fp8(rng, fa, (int(redo.sum()),), False)
    return a, w


def decode_codes(codes, fmt):
    return codes.astype(ENC_UINT[fmt]).view(ENC_DTYPE[fmt]).astype(np.float32)


def same_f32_array(x, y):
    return (x.view(np.uint32) == y.view(np.uint32)) | (np.isnan(x) & np.isnan(y))


def gemm_file(rng):
    lines = []
    n_cases = n_out = n_nonfinite = n_old_differs = 0
    stats = {"rounded": 0, "ties": 0}
    tiles = [4, 8, 16, 3]
    combos = [("e4m3", "e4m3"), ("e5m2", "e5m2"), ("e4m3", "e5m2"), ("e5m2", "e4m3")]
    for fa, fw in combos:
        for case in range(8):
            m, n = (int(v) for v in rng.integers(1, 9, 2))
            k = int(rng.integers(1, 41))
            if case in (0, 6, 7):
                k = int(rng.integers(17, 41))  # several tiles for every tile_rows
            tile_rows = tiles[case % 4]
            accumulate = case % 2 == 1
            if case == 6:
                a, w = tie_prone_fp8(rng, fa, (m, k)), tie_prone_fp8(rng, fw, (k, n))
            elif case == 7:
                a, w = cancelling_fp8(rng, fa, fw, m, k, n)
            else:
                specials = case == 5
                a = random_fp8(rng, fa, (m, k), specials)
                w = random_fp8(rng, fw, (k, n), specials)
            av, wv = decode_codes(a, fa), decode_codes(w, fw)
            if accumulate:
                # Accumulators of the same order as the sums, a few signed zeros.
                with np.errstate(all="ignore"):
                    mag = float(np.nanmax(np.abs(av.astype(np.float64)), initial=1.0)
                                * np.nanmax(np.abs(wv.astype(np.float64)), initial=1.0))
                mag = min(mag, 1e30) if math.isfinite(mag) else 1.0
                c_in = (rng.standard_normal((m, n)) * mag).astype(np.float32)
                c_in[rng.random((m, n)) < 0.15] = np.float32(-0.0)
            else:
                c_in = np.zeros((m, n), dtype=np.float32)
            y = gemm_rule(av, wv, tile_rows, accumulate, c_in, tile_sum_exact)
            y_int = gemm_rule(av, wv, tile_rows, accumulate, c_in,
                              lambda x, v: tile_sum_int(x, v, stats))
            assert np.all(same_f32_array(y, y_int)), \
                f"the exact and integer references disagree ({fa}x{fw} case {case})"
            # Every tile sum too, not only the outputs (a later add could hide a difference).
            for i in range(m):
                for j in range(n):
                    for k0 in range(0, k, tile_rows):
                        ta, tw = av[i, k0:k0 + tile_rows], wv[k0:k0 + tile_rows, j]
                        s1, s2 = tile_sum_exact(ta, tw), tile_sum_int(ta, tw)
                        assert same_f32_array(np.array([s1]), np.array([s2]))[0], \
                            f"tile sums disagree ({fa}x{fw} case {case}): {s1} {s2}"
            y_old = gemm_rule(av, wv, tile_rows, accumulate, c_in, tile_sum_fma_chain)
            n_old_differs += int(np.sum(~same_f32_array(y, y_old)))
            n_nonfinite += int(np.sum(~np.isfinite(y)))
            wd = ENC_WIDTH
            lines.append(f"case {fa}x{fw}_{case} {fa} {fw} {m} {k} {n} {tile_rows} "
                         f"{int(accumulate)}")
            lines.append("a " + " ".join(f"{int(v):0{wd[fa]}x}" for v in a.ravel()))
            lines.append("w " + " ".join(f"{int(v):0{wd[fw]}x}" for v in w.ravel()))
            if accumulate:
                lines.append("c " + " ".join(f"{int(v):08x}" for v in c_in.view(np.uint32).ravel()))
            lines.append("y " + " ".join(f"{int(v):08x}" for v in y.view(np.uint32).ravel()))
            n_cases += 1
            n_out += m * n
    # The vectors must exercise what the rule is about: ties at the single rounding, and results
    # that the per-tile fma chain gets wrong.
    assert stats["ties"] >= 20, f"too few ties in the GEMM vectors: {stats}"
    assert n_old_differs >= 20, f"the old fma-chain rule differs on only {n_old_differs} outputs"
    header = ["# Generated by scripts/fp_vectors.py (FP GEMM rule) -- do not edit.",
              f"# {n_cases} cases, {n_out} outputs ({n_nonfinite} not finite); tile sums exact "
              "then rounded once (Fraction and integer references agree)",
              f"# {stats['rounded']} tile sums rounded, {stats['ties']} of them ties; "
              f"{n_old_differs} outputs differ under the old per-tile fma chain",
              "# case name af wf M K N tile_rows accumulate / a ... / w ... / [c ...] / y ..."]
    return header, lines


def fma_f32_exact(a, b, s):
    """float32(a * b + s) rounded once (ties to even) from the exact rational value, with IEEE's
    special cases: NaN for a NaN, Inf * 0 or Inf - Inf; an exactly zero result is -0 only when
    a * b and s are both -0 (round to nearest). a, b: float32 values; s: float32."""
    a, b, s = float(a), float(b), float(s)
    if math.isnan(a) or math.isnan(b) or math.isnan(s):
        return np.float32(np.nan)
    if (math.isinf(a) and b == 0) or (math.isinf(b) and a == 0):
        return np.float32(np.nan)
    p_inf = math.isinf(a) or math.isinf(b)
    p_sign = math.copysign(1, a) * math.copysign(1, b)
    if p_inf or math.isinf(s):
        signs = ([p_sign] if p_inf else []) + ([math.copysign(1, s)] if math.isinf(s) else [])
        if len(set(signs)) == 2:
            return np.float32(np.nan)
        return np.float32(math.copysign(math.inf, signs[0]))
    total = Fraction(a) * Fraction(b) + Fraction(s)
    if total == 0:
        both_neg = (a * b == 0 and p_sign < 0) and (s == 0 and math.copysign(1, s) < 0)
        return np.float32(-0.0 if both_neg else 0.0)
    return round_f32(total)


def tile_sum_bf16(av, wv):
    """A BF16 tile by the rule: s = +0, then s = fma(a, w, s) row by row (one float32 rounding
    of the exact a * w + s per row)."""
    s = np.float32(0.0)
    for a, b in zip(av, wv):
        s = fma_f32_exact(a, b, s)
    return s


def random_bf16(rng, shape, kind):
    """BF16 codes. kind "wide": any finite code, every exponent equally likely (subnormals,
    products that overflow or underflow float32); "tiny": values below 2^-52, BF16 subnormals
    included (float32 subnormal and underflowing sums); "near": exponents within 2^-8..2^8
    (sums that round and cancel); "specials": "near" with signed zeros, Inf and NaN sprinkled
    in; "tie": +-(1 + small) * 2^e with e in {-12, 0, 12}, so that sums land half an ulp off a
    float32."""
    if kind == "tie":
        mant = rng.choice([1.0, 1.0, 1.0, 1.5, 1.25, 1.0078125], shape)
        v = (rng.choice([-1.0, 1.0], shape) * mant * np.exp2(rng.choice([-12, 0, 12], shape)))
        codes = v.astype(np.float32).astype(ml_dtypes.bfloat16).view(np.uint16)
        assert np.all(decode_codes(codes, "bf16") == v.astype(np.float32)), "tie: not BF16"
        return codes.astype(np.uint32)
    sign = rng.integers(0, 2, shape).astype(np.uint32) << 15
    frac = rng.integers(0, 128, shape).astype(np.uint32)
    lo, hi = {"wide": (0, 255), "tiny": (0, 75)}.get(kind, (119, 136))
    exp = rng.integers(lo, hi, shape).astype(np.uint32)
    codes = sign | (exp << 7) | frac
    if kind == "specials":
        r = rng.random(shape)
        codes[r < 0.08] = rng.choice([0x0000, 0x8000], int((r < 0.08).sum()))
        codes[r > 0.97] = rng.choice([0x7F80, 0xFF80, 0x7FC0, 0xFFC1], int((r > 0.97).sum()))
    return codes


def bf16_gemm_file(rng):
    """gemm_bf16.txt: the BF16 x BF16 rule on random matrices (same layout as gemm.txt)."""
    lines = []
    n_cases = n_out = n_nonfinite = n_subnormal = n_exact_differs = 0
    kinds = ["near", "tiny", "wide", "specials", "tie", "near", "wide", "tiny"]
    tiles = [4, 8, 16, 3]
    for case in range(24):
        kind = kinds[case % len(kinds)]
        m, n = (int(v) for v in rng.integers(1, 7, 2))
        k = int(rng.integers(1, 41))
        tile_rows = tiles[case % 4]
        accumulate = case % 3 == 1
        a, w = random_bf16(rng, (m, k), kind), random_bf16(rng, (k, n), kind)
        av, wv = decode_codes(a, "bf16"), decode_codes(w, "bf16")
        if accumulate:
            c_in = (rng.standard_normal((m, n)) * 4.0).astype(np.float32)
            c_in[rng.random((m, n)) < 0.15] = np.float32(-0.0)
        else:
            c_in = np.zeros((m, n), dtype=np.float32)
        y = gemm_rule(av, wv, tile_rows, accumulate, c_in, tile_sum_bf16)
        # The rule is not the FP8 one: an exact tile sum rounded once differs on some outputs.
        y_exact = gemm_rule(av, wv, tile_rows, accumulate, c_in, tile_sum_exact)
        n_exact_differs += int(np.sum(~same_f32_array(y, y_exact)))
        n_nonfinite += int(np.sum(~np.isfinite(y)))
        fin = y[np.isfinite(y)]
        n_subnormal += int(np.sum((fin != 0) & (np.abs(fin) < np.float32(2.0**-126))))
        lines.append(f"case bf16_{case}_{kind} bf16 bf16 {m} {k} {n} {tile_rows} "
                     f"{int(accumulate)}")
        lines.append("a " + " ".join(f"{int(v):04x}" for v in a.ravel()))
        lines.append("w " + " ".join(f"{int(v):04x}" for v in w.ravel()))
        if accumulate:
            lines.append("c " + " ".join(f"{int(v):08x}" for v in c_in.view(np.uint32).ravel()))
        lines.append("y " + " ".join(f"{int(v):08x}" for v in y.view(np.uint32).ravel()))
        n_cases += 1
        n_out += m * n
    assert n_exact_differs >= 10, f"BF16 vectors do not tell the rules apart ({n_exact_differs})"
    assert n_nonfinite > 0 and n_subnormal > 0, "BF16 vectors miss Inf / NaN or subnormal outputs"
    header = ["# Generated by scripts/fp_vectors.py (BF16 GEMM rule) -- do not edit.",
              f"# {n_cases} cases, {n_out} outputs ({n_nonfinite} not finite, {n_subnormal} "
              f"subnormal); {n_exact_differs} outputs differ from an exact tile sum",
              "# case name af wf M K N tile_rows accumulate / a ... / w ... / [c ...] / y ..."]
    return header, lines


# ------------------------------------------------------------------------------------------------
# Output stage
# ------------------------------------------------------------------------------------------------


def postprocess_ref(acc, scale, bias, relu):
    with np.errstate(all="ignore"):
        y = np.float32(np.float32(np.float32(acc) * np.float32(scale)) + np.float32(bias))
    if relu and np.signbit(y) and not np.isnan(y):
        y = np.float32(0.0)
    return y


def rand_f32(rng, lo, hi):
    return np.float32(rng.choice([-1.0, 1.0]) * 2.0 ** rng.uniform(lo, hi))


def postprocess_file(rng):
    f = np.float32
    nan, inf = f(np.nan), f(np.inf)
    fixed = [
        (f(-0.0), f(1.0), f(-0.0)), (f(-0.0), f(1.0), f(0.0)), (f(0.0), f(-1.0), f(-0.0)),
        (f(1.0), f(-2.0), f(0.0)), (f(3.0), f(0.5), f(-1.5)),
        # 1+2^-12 squared: exact 1 + 2^-11 + 2^-24, rounds (tie, even) to 1 + 2^-11; minus that
        # is +0, where one fused multiply-add would give 2^-24.
        (f(1 + 2**-12), f(1 + 2**-12), f(-(1 + 2**-11))),
        (nan, f(1.0), f(0.0)), (f(1.0), nan, f(0.0)), (f(1.0), f(1.0), nan),
        (inf, f(0.0), f(0.0)), (inf, f(1.0), -inf), (-inf, f(1.0), f(5.0)),
        (f(3e38), f(2.0), f(0.0)), (f(-3e38), f(2.0), f(0.0)), (f(3e38), f(1.0), f(3e38)),
        (f(2**-130), f(0.75), f(0.0)), (f(2**-140), f(-0.3), f(2**-149)),
        (f(1e-30), f(1e-20), f(0.0)), (f(-1e-30), f(1e-20), f(0.0)),
    ]
    triples = []
    for t in fixed:
        triples += [t]
    while len(triples) < 400:
        kind = int(rng.integers(0, 5))
        acc = rand_f32(rng, -20, 24)
        scale = rand_f32(rng, -16, 2)
        if kind == 0:  # generic
            bias = rand_f32(rng, -10, 10)
        elif kind == 1:  # exact cancellation of the rounded product (fma would leave its error)
            bias = -f(acc * scale)
        elif kind == 2:  # near-cancellation
            bias = -f(acc * scale) * f(1 + rng.uniform(-1e-6, 1e-6))
        elif kind == 3:  # zero bias of either sign
            bias = f(rng.choice([0.0, -0.0]))
        else:  # subnormal range
            acc = rand_f32(rng, -140, -120)
            scale = rand_f32(rng, -8, 2)
            bias = rand_f32(rng, -149, -126)
        triples.append((acc, scale, bias))
    lines = []
    for i, (acc, scale, bias) in enumerate(triples):
        for relu in ((0, 1) if i < len(fixed) else (int(rng.integers(0, 2)),)):
            y = postprocess_ref(acc, scale, bias, relu)
            lines.append(f"{f32_hex(acc)} {f32_hex(scale)} {f32_hex(bias)} {relu} {f32_hex(y)}")
    header = ["# Generated by scripts/fp_vectors.py (FP output stage) -- do not edit.",
              f"# numpy {np.__version__} float32: y = (acc * scale) + bias, two roundings; relu",
              "# acc scale bias relu y",
              f"# count {len(lines)}"]
    return header, lines


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--out-dir", required=True)
    ap.add_argument("--seed", type=int, default=1)
    args = ap.parse_args()
    os.makedirs(args.out_dir, exist_ok=True)
    rng = np.random.default_rng(args.seed)
    ort_cast, ort_reason = make_ort()
    self_test_round_f32(np.random.default_rng(args.seed + 1000))
    self_test_int_to_f32(np.random.default_rng(args.seed + 2000))

    files = [
        ("fp8_decode.txt", fp8_decode_file()),
        ("bf16.txt", bf16_file()),
        ("fp8_products.txt", products_file()),
        ("encode.txt", encode_file(rng, ort_cast, ort_reason)),
        ("gemm.txt", gemm_file(rng)),
        ("gemm_bf16.txt", bf16_gemm_file(rng)),
        ("postprocess.txt", postprocess_file(rng)),
    ]
    total = 0
    for name, (header, lines) in files:
        header.insert(1, f"# seed {args.seed}")
        path = os.path.join(args.out_dir, name)
        write_atomic(path, header, lines)
        total += os.path.getsize(path)
    ort_note = f"onnxruntime {ort_cast.version}" if ort_cast else f"no onnxruntime ({ort_reason})"
    print(f"fp_vectors: {len(files)} files, {total / 1e6:.1f} MB (ml_dtypes "
          f"{ml_dtypes.__version__}, {ort_note}, seed {args.seed}) -> {args.out_dir}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
