#!/usr/bin/env python3
"""ONNX tests for bfloat16: node tests of the host ops and MatMul / Gemm / Conv models.

Usage: onnx_bf16_nodes.py --out-dir DIR
       (needs numpy, ml_dtypes and onnx >= 1.15: `make setup` installs them)

Debian's ONNX node-test set (libonnx-testdata, ONNX 1.12) has two bfloat16 tests, Cast float ->
bfloat16 and back, on 12 values, and its float -> bfloat16 data truncate (the current
specification's reference rounds to nearest even). These tests are written here, in the layout
of the ONNX backend node tests:

  DIR/<test>/model.onnx                       node tests: Cast float <-> bfloat16, Relu and Add
  DIR/<test>/test_data_set_0/input_<i>.pb     on bfloat16, data movement of bfloat16 codes; the
  DIR/<test>/test_data_set_0/output_<i>.pb    runtime and the golden executor must equal the
  DIR/index.txt                               reference bit for bit ("<test> <what>" per line)

  DIR/ops/<model>/...                         bfloat16 MatMul / Gemm / Conv models as exporters
  DIR/ops/index.txt                           write them (Cast float -> bfloat16, BFLOAT16
                                              initializers, [Relu], Cast back), same layout;
                                              "<model> <expect> <what>" per line

The expected outputs are onnx.reference.ReferenceEvaluator's (the specification's reference
implementation; onnx 1.23). A 2-D MatMul and Gemm go through numpy's dot on ml_dtypes' bfloat16,
whose inner product adds the float32 products in k order from +0 and rounds the sum once to
bfloat16; Gemm then adds C as a second bfloat16 operation (a second rounding). A Conv (im2col
columns in (channel, kernel row, kernel column) order) and a batched MatMul go through numpy's
matmul, which promotes bfloat16 to float32 (BLAS sgemm: its own summation order); Conv adds B in
float32; the result is rounded once. The tensor unit sums each k-tile of the array's rows with a
float32 fma chain, adds the tiles in float32, and adds the bias before its single rounding
(docs/model-runtime.md, "BF16 on the tensor unit"). `expect` says how the runtime relates:

  exact      one k-tile (K <= 16), MatMul without bias: the same float32 sum in the same order,
             so the runtime equals the reference bit for bit
  ulp1       within one bfloat16 ulp of the reference: the float32 sums differ in order only
  gemm_c     Gemm with C, where the reference's second rounding (of A x B, before C) shows up
             where C cancels A x B: within ulp(y) + ulp(y - C) of the reference (in value)
  chain      several layers: the differences of one layer feed the next; the runtime must equal
             the golden executor and the golden executor's float path the reference
  crafted    built to show a difference; test_model_bf16 checks the codes it names

Deterministic: fixed lists and a fixed-seed generator.
"""

import os

# First: onnx_node_case checks that the packages below are there.
from onnx_node_case import NodeCase, out_dir_arg, staged_dir, write_index

import ml_dtypes
import numpy as np
import onnx
from onnx import TensorProto

BF16, F32, I64 = TensorProto.BFLOAT16, TensorProto.FLOAT, TensorProto.INT64
NPBF = ml_dtypes.bfloat16


def bf16(values):
    """bfloat16 codes (uint16) of float values, rounded to nearest even (ml_dtypes)."""
    return np.asarray(values, np.float32).astype(NPBF).view(np.uint16)


class Test(NodeCase):
    """One test model: graph inputs (name, elem, values), initializers, nodes, outputs; `expect`
    says how the runtime relates to the reference (see the module's docstring)."""

    def __init__(self, name, what, opset=19, expect=None):
        super().__init__(name, what, opset, "weft onnx_bf16_nodes.py")
        self.expect = expect

    def write(self, root):
        return super().write(root)[2]


def f32_bits(bits):
    return np.asarray(bits, np.uint32).view(np.float32)


def node_tests(rng):
    tests = []
    # Cast float -> bfloat16: ties to even (0x3F808000 -> 0x3F80, 0x3F818000 -> 0x3F82), just
    # off the ties, the largest finite bfloat16 and the overflow to Inf from its midpoint up,
    # float32 subnormals (bfloat16 keeps them) and their ties, signed zeros, Inf, NaNs of both
    # signs and payloads (the reference keeps the sign; NaN compares as NaN).
    specials = [
        0x3F800000, 0x3F808000, 0x3F818000, 0x3F808001, 0x3F817FFF, 0x3F7FFFFF, 0x4B808000,
        0x7F7F0000, 0x7F7F7FFF, 0x7F7F8000, 0x7F7FFFFF, 0x7F800000, 0x7F800001, 0x7FC00000,
        0x7FFFFFFF, 0x00000001, 0x00008000, 0x00018000, 0x00008001, 0x007F8000, 0x007FFFFF,
        0x00800000, 0x00000000, 0x0000FFFF, 0x3EAAAAAB, 0x40490FDB,
    ]
    bits = np.array(specials + [b | 0x80000000 for b in specials], np.uint32)
    t = Test("test_cast_float_to_bfloat16", "Cast float -> bfloat16: ties, overflow, "
             "subnormals, signed zeros, Inf, NaN (52 values)")
    t.input("x", F32, f32_bits(bits))
    t.node("Cast", ["x"], ["y"], to=BF16)
    t.output("y", BF16)
    tests.append(t)
    # Random float32 bit patterns (every exponent, NaN and Inf included) and values near 1.
    bits = rng.integers(0, 2**32, 8192, dtype=np.uint64).astype(np.uint32)
    x = np.concatenate([f32_bits(bits), rng.standard_normal(2048).astype(np.float32)])
    t = Test("test_cast_float_to_bfloat16_random", "Cast float -> bfloat16: 8192 random float32 "
             "bit patterns and 2048 normal values, 2-D")
    t.input("x", F32, x.reshape(80, 128))
    t.node("Cast", ["x"], ["y"], to=BF16)
    t.output("y", BF16)
    tests.append(t)
    # Every bfloat16 code back to float (exact) and through Relu (negatives and -0 to +0, NaN
    # kept: ml_dtypes' maximum gives +0 for -0, as IEEE 754-2019's maximum does).
    codes = np.arange(65536, dtype=np.uint64).astype(np.uint16)
    t = Test("test_cast_bfloat16_to_float", "Cast bfloat16 -> float: every code 0..65535 "
             "(raw_data)")
    t.input("x", BF16, codes.reshape(256, 256))
    t.node("Cast", ["x"], ["y"], to=F32)
    t.output("y", F32)
    tests.append(t)
    t = Test("test_cast_bfloat16_to_float_int32_data", "Cast bfloat16 -> float, opset 13: 300 "
             "codes from int32_data", opset=13)
    t.input("x", BF16, rng.integers(0, 65536, 300).astype(np.uint16), int32_data=True)
    t.node("Cast", ["x"], ["y"], to=F32)
    t.output("y", F32)
    tests.append(t)
    t = Test("test_relu_bfloat16", "Relu on every bfloat16 code")
    t.input("x", BF16, codes)
    t.node("Relu", ["x"], ["y"])
    t.output("y", BF16)
    tests.append(t)
    t = Test("test_cast_bfloat16_to_bfloat16", "Cast to its own type (a copy), NaN and -0 kept")
    t.input("x", BF16, np.uint16([0x3F80, 0x8000, 0xFFC1, 0x7F80, 0x0001]))
    t.node("Cast", ["x"], ["y"], to=BF16)
    t.output("y", BF16)
    tests.append(t)
    # Add: float32 sum of the two values, one rounding; broadcasting; ties (1 + 2^-8) and
    # cancellation.
    a = bf16(rng.standard_normal((3, 4, 8)) * 4)
    a[0, 0, :4] = bf16([1.0, 3.0, 2.0**100, -1.0])
    b = bf16(rng.standard_normal(8))
    b[:4] = bf16([2.0**-8, 2.0**-7 * 1.5, 2.0**100, 1.0])
    t = Test("test_add_bfloat16_bcast", "Add bfloat16 3x4x8 + 8: ties, overflow-free large, "
             "cancellation")
    t.input("a", BF16, a)
    t.input("b", BF16, b, int32_data=True)
    t.node("Add", ["a", "b"], ["y"])
    t.output("y", BF16)
    tests.append(t)
    # Data movement on the codes between two Casts.
    t = Test("test_bfloat16_data_movement", "Cast -> Transpose -> Reshape -> Concat (a bfloat16 "
             "input) -> Pad (constant bfloat16 1.5) -> Flatten -> Unsqueeze -> Squeeze -> "
             "Identity, bfloat16 and float outputs")
    t.input("x", F32, rng.standard_normal((2, 3, 4)).astype(np.float32))
    t.input("c", BF16, bf16(rng.standard_normal((2, 6))))
    t.init("shape", I64, np.int64([4, 6]))
    t.init("pads", I64, np.int64([1, 0, 0, 2]))
    t.init("value", BF16, bf16(np.float32([1.5])).reshape(()))
    t.init("axes", I64, np.int64([0]))
    t.node("Cast", ["x"], ["xb"], to=BF16)
    t.node("Transpose", ["xb"], ["xt"], perm=[2, 0, 1])
    t.node("Reshape", ["xt", "shape"], ["xr"])
    t.node("Concat", ["xr", "c"], ["xc"], axis=0)
    t.node("Pad", ["xc", "pads", "value"], ["xp"])
    t.node("Flatten", ["xp"], ["xf"], axis=1)
    t.node("Unsqueeze", ["xf", "axes"], ["xu"])
    t.node("Squeeze", ["xu", "axes"], ["xs"])
    t.node("Identity", ["xs"], ["y"])
    t.node("Cast", ["y"], ["yf"], to=F32)
    t.output("y", BF16)
    t.output("yf", F32)
    tests.append(t)
    return tests


def op_tests(rng):
    """BF16 MatMul / Gemm / Conv models, as exporters write them."""
    tests = []

    def weights(shape, fan_in):
        return bf16(rng.standard_normal(shape) / np.sqrt(fan_in))

    def act(shape):
        return rng.standard_normal(shape).astype(np.float32)

    # MatMul, one k-tile: the runtime must equal the reference.
    t = Test("matmul_k8_exact", "MatMul 6x8 x 8x24 (N > 16), bfloat16 input (int32_data) and "
             "output, one k-tile", expect="exact")
    t.input("x", BF16, bf16(act((6, 8))), int32_data=True)
    t.init("w", BF16, weights((8, 24), 8))
    t.node("MatMul", ["x", "w"], ["y"])
    t.output("y", BF16)
    tests.append(t)
    t = Test("matmul_k16_relu_exact", "Cast -> MatMul 5x16 x 16x20 -> Relu -> Cast: K = 16, one "
             "k-tile, Relu folded", expect="exact")
    t.input("x", F32, act((5, 16)))
    t.init("w", BF16, weights((16, 20), 16))
    t.node("Cast", ["x"], ["xb"], to=BF16)
    t.node("MatMul", ["xb", "w"], ["mm"])
    t.node("Relu", ["mm"], ["r"])
    t.node("Cast", ["r"], ["y"], to=F32)
    t.output("y", F32)
    tests.append(t)
    # A PyTorch-style MLP: Linear (Gemm transB with bias) -> ReLU -> Linear.
    t = Test("mlp_gemm_relu_gemm", "Cast -> Gemm transB 8x64 x (48x64)^T + C[48] -> Relu -> "
             "Gemm 8x48 x 48x10 + C[1x10] -> Cast: K 64 and 48 (4 and 3 k-tiles), two "
             "tensor-unit steps", expect="chain")
    t.input("x", F32, act((8, 64)))
    t.init("w1", BF16, weights((48, 64), 64))
    t.init("b1", BF16, bf16(rng.uniform(-0.5, 0.5, 48)))
    t.init("w2", BF16, weights((48, 10), 48))
    t.init("b2", BF16, bf16(rng.uniform(-0.5, 0.5, (1, 10))))
    t.node("Cast", ["x"], ["xb"], to=BF16)
    t.node("Gemm", ["xb", "w1", "b1"], ["h"], transB=1)
    t.node("Relu", ["h"], ["hr"])
    t.node("Gemm", ["hr", "w2", "b2"], ["o"])
    t.node("Cast", ["o"], ["y"], to=F32)
    t.output("y", F32)
    tests.append(t)
    t = Test("matmul_k300_n40", "MatMul 32x300 x 300x40, bfloat16 input and output: 19 k-tiles, "
             "N > 16", expect="ulp1")
    t.input("x", BF16, bf16(act((32, 300))))
    t.init("w", BF16, weights((300, 40), 300))
    t.node("MatMul", ["x", "w"], ["y"])
    t.output("y", BF16)
    tests.append(t)
    t = Test("matmul_3d_add_bias", "Cast -> MatMul 2x5x33 x 33x20 -> Add bias[20] (host, "
             "bfloat16) -> Cast: a Linear on a 3-D input", expect="ulp1")
    t.input("x", F32, act((2, 5, 33)))
    t.init("w", BF16, weights((33, 20), 33))
    t.init("b", BF16, bf16(rng.uniform(-0.5, 0.5, 20)))
    t.node("Cast", ["x"], ["xb"], to=BF16)
    t.node("MatMul", ["xb", "w"], ["mm"])
    t.node("Add", ["mm", "b"], ["o"])
    t.node("Cast", ["o"], ["y"], to=F32)
    t.output("y", F32)
    tests.append(t)
    t = Test("gemm_scalar_bias", "Gemm 4x24 x 24x18 + one C value, bfloat16 in and out",
             expect="gemm_c")
    t.input("x", BF16, bf16(act((4, 24))))
    t.init("w", BF16, weights((24, 18), 24))
    t.init("c", BF16, bf16(np.float32([0.375])))
    t.node("Gemm", ["x", "w", "c"], ["y"])
    t.output("y", BF16)
    tests.append(t)
    t = Test("conv_pads_strides_bias_relu", "Cast -> Conv 2x3x9x8, 5x3x3x3, pads 1, strides 1x2, "
             "B[5] -> Relu -> Cast: K = 27; opset 22 (Conv takes bfloat16 from 22)",
             opset=22, expect="ulp1")
    t.input("x", F32, act((2, 3, 9, 8)))
    t.init("w", BF16, weights((5, 3, 3, 3), 27))
    t.init("b", BF16, bf16(rng.uniform(-0.5, 0.5, 5)))
    t.node("Cast", ["x"], ["xb"], to=BF16)
    t.node("Conv", ["xb", "w", "b"], ["c"], pads=[1, 1, 1, 1], strides=[1, 2])
    t.node("Relu", ["c"], ["r"])
    t.node("Cast", ["r"], ["y"], to=F32)
    t.output("y", F32)
    tests.append(t)
    t = Test("conv_k180_dilation", "Conv 1x20x7x7, 17x20x3x3, pads (1,0,2,1), dilations (2,1), "
             "no bias, bfloat16 in and out: K = 180 (12 k-tiles), N = 17; opset 22", opset=22,
             expect="ulp1")
    t.input("x", BF16, bf16(act((1, 20, 7, 7))))
    t.init("w", BF16, weights((17, 20, 3, 3), 180))
    t.node("Conv", ["x", "w"], ["y"], pads=[1, 0, 2, 1], dilations=[2, 1])
    t.output("y", BF16)
    tests.append(t)
    # Where the k-tiles change the float32 sum: row 0 holds the products 2^24 and 2^16 in the
    # first k-tile and sixteen 1s in the second. The exact sum 2^24 + 2^16 + 16 lies above the
    # bfloat16 tie 2^24 + 2^16, so it rounds up to 2^24 + 2^17 (0x4B81), which the tensor unit
    # gets (tile sums 2^24 + 2^16 and 16, added exactly); a float32 running sum in k order loses
    # every 1 (2^24 + 2^16 + 1 is a float32 tie that goes back down), lands on the bfloat16 tie
    # and rounds to the even 2^24 (0x4B80): the reference. Row 1 has the 1s first: both keep
    # them.
    ones, zeros = [1.0] * 16, [0.0] * 14
    rows = [[2.0**12, 2.0**8] + zeros + ones, ones + [2.0**12, 2.0**8] + zeros]
    t = Test("matmul_tile_order", "MatMul 2x32 x 32x2: products 2^24 and 2^16 in the first "
             "k-tile, sixteen 1s in the second (row 0) or first (row 1)", expect="crafted")
    t.input("x", BF16, bf16(rows))
    t.init("w", BF16, bf16(np.float32(rows).T.copy()))
    t.node("MatMul", ["x", "w"], ["y"])
    t.output("y", BF16)
    tests.append(t)
    # Where the reference's second rounding matters: x . w = 1 + 2^-8, a bfloat16 tie that the
    # reference rounds to 1 before adding C = -1 (giving 0); the tensor unit adds C to the float32
    # sum and rounds once: 2^-8 (0x3B80). Column 1: 1 + 2^-6 (exact in bfloat16), minus 1: both
    # 2^-6.
    t = Test("gemm_bias_double_rounding", "Gemm 1x2 x 2x2 + C: x . w = 1 + 2^-8 (a bfloat16 "
             "tie) and 1 + 2^-6, C = -1", expect="crafted")
    t.input("x", BF16, bf16([[1.0, 1.0]]))
    t.init("w", BF16, bf16([[1.0, 1.0], [2.0**-8, 2.0**-6]]))
    t.init("c", BF16, bf16([-1.0, -1.0]))
    t.node("Gemm", ["x", "w", "c"], ["y"])
    t.output("y", BF16)
    tests.append(t)
    return tests


def main():
    out_dir = out_dir_arg(__doc__)
    np.seterr(over="ignore", invalid="ignore")  # Cast of NaN / overflow on purpose
    rng = np.random.default_rng(16)
    tests, ops = node_tests(rng), op_tests(rng)
    with staged_dir(out_dir, "ops") as tmp:
        elements = sum(np.asarray(y).size for t in tests for y in t.write(tmp))
        op_elements = sum(np.asarray(y).size for t in ops
                          for y in t.write(os.path.join(tmp, "ops")))
        write_index(os.path.join(tmp, "index.txt"),
                    "<test> <what>: bfloat16 node tests, expected outputs from onnx's "
                    f"ReferenceEvaluator (onnx {onnx.__version__}, ml_dtypes "
                    f"{ml_dtypes.__version__})", [f"{t.name} {t.what}" for t in tests])
        write_index(os.path.join(tmp, "ops", "index.txt"),
                    "<model> <expect> <what>: bfloat16 MatMul / Gemm / Conv models, expected "
                    "outputs from onnx's ReferenceEvaluator",
                    [f"{t.name} {t.expect} {t.what}" for t in ops])
    print(f"onnx_bf16_nodes.py: {len(tests)} node tests ({elements} output elements), "
          f"{len(ops)} MatMul / Gemm / Conv models ({op_elements} output elements) -> "
          f"{out_dir}")


if __name__ == "__main__":
    main()
