#!/usr/bin/env python3
"""ONNX node tests for QuantizeLinear / DequantizeLinear with float8 (FLOAT8E4M3FN, FLOAT8E5M2).

Usage: onnx_fp8_nodes.py --out-dir DIR
       (needs numpy, ml_dtypes and onnx >= 1.15: `make setup` installs them)

Debian's ONNX node-test set (libonnx-testdata, ONNX 1.12) predates float8, so these are written
here, in the same layout as the ONNX backend node tests:

  DIR/<test>/model.onnx                       one node (or a short chain), opset 19 or 21
  DIR/<test>/test_data_set_0/input_<i>.pb     one per graph input, in order
  DIR/<test>/test_data_set_0/output_<i>.pb    the expected output, one per graph output
  DIR/index.txt                               "<test> <what>" per test

Every input, scale and zero point is a graph input (as in ONNX's own node tests), so float8
tensors are read from .pb files both ways ONNX stores them: raw_data (one byte per element) and
int32_data (one code per element); the `what` of each test says which. The expected outputs are
computed by onnx.reference.ReferenceEvaluator (the specification's reference implementation):
QuantizeLinear is x / y_scale in float32 then ml_dtypes' cast (saturate=0) or onnx's
saturate_cast (saturate=1), DequantizeLinear float32(x) * x_scale. Where NaN is the result the
reference keeps the sign (0xFF, 0xFE) and the runtime may give the canonical NaN (0x7F / 0x7E):
the tests compare NaN by NaN-ness.

The script also runs each model through onnxruntime where onnxruntime's Python API can feed and
fetch the types (float8 E4M3FN outputs and float inputs), and prints every element where it differs
from the reference: onnxruntime is not the definition, the printout is for docs/model-runtime.md.

Deterministic: the inputs come from fixed lists and a fixed-seed generator.
"""

import os

# First: onnx_node_case checks that the packages below are there.
from onnx_node_case import NodeCase, out_dir_arg, staged_dir, tensor, write_index

import ml_dtypes
import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper

E4M3, E5M2, F32 = TensorProto.FLOAT8E4M3FN, TensorProto.FLOAT8E5M2, TensorProto.FLOAT
NP8 = {E4M3: ml_dtypes.float8_e4m3fn, E5M2: ml_dtypes.float8_e5m2}
NAME = {E4M3: "e4m3fn", E5M2: "e5m2"}
F32_MAX = float(np.finfo(np.float32).max)
F32_TINY = float(np.finfo(np.float32).smallest_subnormal)

# Values x / y_scale lands on with y_scale = 1 (so that the division is exact and the cast alone
# decides): ties, the largest finite value and past it, subnormal results and their ties, signed
# zeros, NaN and the infinities; the negatives of each are added.
SPECIAL = {
    E4M3: [
        1.0, 1.0625, 1.1875, 1.125, 15.5, 17.0, 0.9375 + 0.03125,  # ties to even in the normals
        # subnormals and their ties
        2.0**-9, 2.0**-10, 3 * 2.0**-10, 2.0**-10 * 1.0001, 7 * 2.0**-9, 7.5 * 2.0**-9,
        2.0**-6, 2.0**-7 * 0.999,
        448.0, 449.0, 463.99, 464.0, 464.01, 479.0, 480.0, 500.0, 1e30, F32_MAX,  # the top, past it
        0.0, 1e-30, F32_TINY, float("inf"), float("nan"),
    ],
    E5M2: [
        1.0, 1.125, 1.375, 1.25, 3.5, 0.875 + 0.0625,  # ties to even in the normals
        2.0**-16, 2.0**-17, 3 * 2.0**-17, 2.0**-17 * 1.0001, 3 * 2.0**-16, 3.5 * 2.0**-16,
        2.0**-14, 2.0**-15 * 0.999,
        57344.0, 57345.0, 61439.0, 61440.0, 61441.0, 65536.0, 1e30, F32_MAX,
        0.0, 1e-30, F32_TINY, float("inf"), float("nan"),
    ],
}


def with_negatives(values):
    v = np.array(values, dtype=np.float32)
    return np.concatenate([v, -v])


def random_floats(rng, n):
    """Float32 values over the float8 formats' whole range and beyond: random signs, exponents
    2^-20 .. 2^18 and mantissas, so that every binade, the subnormals and the overflow are hit."""
    mant = rng.uniform(1.0, 2.0, n)
    exp = rng.integers(-20, 19, n)
    sign = rng.choice([-1.0, 1.0], n)
    return (sign * mant * np.exp2(exp)).astype(np.float32)


class Test(NodeCase):
    """One node test: graph inputs (name, elem, values), nodes, outputs (name, elem)."""

    def __init__(self, name, what, opset=19):
        super().__init__(name, what, opset, "weft onnx_fp8_nodes.py")

    def write(self, root, ort_notes):
        m, feeds, outs = super().write(root)
        ort_notes.extend(compare_with_ort(self, m, feeds, outs))
        return sum(np.asarray(y).size for y in outs)


def compare_with_ort(test, m, feeds, outs):
    """Elements where onnxruntime differs from the reference, as text lines. onnxruntime's Python
    API takes no float8 arrays, so the inputs become initializers and every float8 output is
    decoded by one more DequantizeLinear (scale 1, exact: signed zeros and NaN survive) into a
    float output; values compare with NaN equal to NaN."""
    try:
        import onnxruntime as ort
    except ImportError:
        return []
    g = onnx.GraphProto()
    g.CopyFrom(m.graph)
    del g.input[:]
    del g.initializer[:]
    for n, e, v in test.inputs:
        g.initializer.append(tensor(n, v, e))
    g.initializer.extend(test.inits)
    g.initializer.append(numpy_helper.from_array(np.float32(1.0), "weft_one"))
    del g.output[:]
    for n, e in test.outputs:
        if e in NP8:
            g.node.append(helper.make_node("DequantizeLinear", [n, "weft_one"], [n + "_weft_f"]))
            n = n + "_weft_f"
        g.output.append(helper.make_tensor_value_info(n, F32, None))
    mo = helper.make_model(g, opset_imports=m.opset_import, producer_name="weft onnx_fp8_nodes.py")
    mo.ir_version = m.ir_version
    try:
        opts = ort.SessionOptions()
        opts.graph_optimization_level = ort.GraphOptimizationLevel.ORT_DISABLE_ALL
        sess = ort.InferenceSession(mo.SerializeToString(), opts,
                                    providers=["CPUExecutionProvider"])
        got = sess.run(None, {})
    except Exception as e:
        return [f"{test.name}: onnxruntime fails ({str(e).splitlines()[0][:120]})"]
    notes = []
    for (name, elem), want, have in zip(test.outputs, outs, got):
        w = np.asarray(want).astype(np.float32).ravel()
        h = np.asarray(have, np.float32).ravel()
        same = (w.view(np.uint32) == h.view(np.uint32)) | (np.isnan(w) & np.isnan(h))
        bad = np.flatnonzero(~same)
        x = dict((n, v) for n, _, v in test.inputs).get("x")
        for i in bad[:6]:
            xi = f", x {np.asarray(x).ravel()[i]!r}" if x is not None and x.size == w.size else ""
            notes.append(f"{test.name}: {name}[{i}] onnxruntime {h[i]!r}, reference {w[i]!r}{xi}")
        if len(bad) > 6:
            notes.append(f"{test.name}: {name}: {len(bad)} of {w.size} elements differ")
    return notes


def quantize_tests(rng):
    tests = []
    for elem in (E4M3, E5M2):
        t8 = NAME[elem]
        for sat in (1, 0):
            suffix = "" if sat else "_saturate_false"
            # Per tensor, y_scale 1: the specials land on the format exactly as listed.
            x = with_negatives(SPECIAL[elem])
            t = Test(f"test_quantizelinear_{t8}{suffix}",
                     f"per tensor, scale 1, ties / overflow / NaN / Inf / subnormals / signed "
                     f"zeros, "
                     f"saturate={sat}, zero point int32_data")
            t.input("x", F32, x)
            t.input("y_scale", F32, np.float32(1.0))
            t.input("y_zero_point", elem, np.uint8(0), int32_data=True)
            t.node("QuantizeLinear", ["x", "y_scale", "y_zero_point"], ["y"], saturate=sat)
            t.output("y", elem)
            tests.append(t)
            # Per tensor, an inexact scale: x / y_scale rounds in float32 first.
            x = np.concatenate([random_floats(rng, 500), with_negatives(SPECIAL[elem])])
            t = Test(f"test_quantizelinear_{t8}_scale{suffix}",
                     f"per tensor, scale 0.3 (x / y_scale rounds in float32), 560 values, "
                     f"saturate={sat}, zero point raw_data")
            t.input("x", F32, x)
            t.input("y_scale", F32, np.float32(0.3))
            t.input("y_zero_point", elem, np.uint8(0))
            t.node("QuantizeLinear", ["x", "y_scale", "y_zero_point"], ["y"], saturate=sat)
            t.output("y", elem)
            tests.append(t)
            # Per axis (axis 1 of 2 x 4 x 40, and -1 of 40 x 4).
            x = random_floats(rng, 320).reshape(2, 4, 40)
            x[0, :, :4] = np.float32([np.inf, -np.inf, np.nan, -0.0])
            t = Test(f"test_quantizelinear_{t8}_axis{suffix}",
                     f"per axis 1 (4 scales), saturate={sat}")
            t.input("x", F32, x)
            t.input("y_scale", F32, np.float32([1.0, 0.125, 7.5, 1e-3]))
            t.input("y_zero_point", elem, np.zeros(4, np.uint8))
            t.node("QuantizeLinear", ["x", "y_scale", "y_zero_point"], ["y"], axis=1, saturate=sat)
            t.output("y", elem)
            tests.append(t)
        x = random_floats(rng, 160).reshape(40, 4)
        t = Test(f"test_quantizelinear_{t8}_axis_last", "per axis -1 (4 scales), saturate=1")
        t.input("x", F32, x)
        t.input("y_scale", F32, np.float32([2.0, 0.5, 3e3, 3e-3]))
        t.input("y_zero_point", elem, np.zeros(4, np.uint8))
        t.node("QuantizeLinear", ["x", "y_scale", "y_zero_point"], ["y"], axis=-1)
        t.output("y", elem)
        tests.append(t)
        # Opset 21: the type from output_dtype, no zero point.
        t = Test(f"test_quantizelinear_{t8}_output_dtype", "opset 21, output_dtype, no zero point, "
                 "saturate=0", opset=21)
        t.input("x", F32, with_negatives(SPECIAL[elem]))
        t.input("y_scale", F32, np.float32(0.5))
        t.node("QuantizeLinear", ["x", "y_scale"], ["y"], output_dtype=elem, saturate=0)
        t.output("y", elem)
        tests.append(t)
        # A nonzero zero point: the reference (and onnxruntime) ignore it for float8.
        t = Test(f"test_quantizelinear_{t8}_nonzero_zero_point",
                 "zero point 1.0: not added (the reference and onnxruntime ignore it)")
        t.input("x", F32, np.float32([0.0, 1.0, -2.5, 3.0, 100.0, -0.0]))
        t.input("y_scale", F32, np.float32(1.0))
        t.input("y_zero_point", elem, np.uint8(0x38 if elem == E4M3 else 0x3C))
        t.node("QuantizeLinear", ["x", "y_scale", "y_zero_point"], ["y"])
        t.output("y", elem)
        tests.append(t)
    return tests


def dequantize_tests():
    tests = []
    codes = np.arange(256, dtype=np.uint8)
    for elem in (E4M3, E5M2):
        t8 = NAME[elem]
        t = Test(f"test_dequantizelinear_{t8}", "every code 0..255, scale 1.7 (products round), "
                 "zero point 0 (int32_data), x raw_data")
        t.input("x", elem, codes)
        t.input("x_scale", F32, np.float32(1.7))
        t.input("x_zero_point", elem, np.uint8(0), int32_data=True)
        t.node("DequantizeLinear", ["x", "x_scale", "x_zero_point"], ["y"])
        t.output("y", F32)
        tests.append(t)
        t = Test(f"test_dequantizelinear_{t8}_no_zero_point",
                 "every code, scale 0.5, no zero point, x int32_data")
        t.input("x", elem, codes, int32_data=True)
        t.input("x_scale", F32, np.float32(0.5))
        t.node("DequantizeLinear", ["x", "x_scale"], ["y"])
        t.output("y", F32)
        tests.append(t)
        # Per axis 0 of 4 x 256: every code under each scale; 3e36 overflows float32 to Inf,
        # 1e-39 gives float32 subnormals and underflow, -0.5 flips signs.
        t = Test(f"test_dequantizelinear_{t8}_axis", "every code under 4 scales (axis 0): "
                 "float32 overflow, subnormals, a negative scale")
        t.input("x", elem, np.tile(codes, (4, 1)))
        t.input("x_scale", F32, np.float32([1.0, 3e36, 1e-39, -0.5]))
        t.input("x_zero_point", elem, np.zeros(4, np.uint8))
        t.node("DequantizeLinear", ["x", "x_scale", "x_zero_point"], ["y"], axis=0)
        t.output("y", F32)
        tests.append(t)
    return tests


def chain_tests(rng):
    tests = []
    codes = np.arange(256, dtype=np.uint8)
    for elem in (E4M3, E5M2):
        t8 = NAME[elem]
        # DQ -> Q with the same scale: every code back (NaN as NaN, -0 as -0).
        t = Test(f"test_dq_q_{t8}_roundtrip", "every code through DequantizeLinear -> "
                 "QuantizeLinear, both scale 0.75")
        t.input("x", elem, codes)
        t.input("s", F32, np.float32(0.75))
        t.input("z", elem, np.uint8(0))
        t.node("DequantizeLinear", ["x", "s", "z"], ["xf"])
        t.node("QuantizeLinear", ["xf", "s", "z"], ["y"])
        t.output("y", elem)
        tests.append(t)
        # DQ -> Q into the other format with another scale, saturate 0 and 1 (two outputs).
        other = E5M2 if elem == E4M3 else E4M3
        t = Test(f"test_dq_q_{t8}_to_{NAME[other]}", f"every code, DequantizeLinear (scale 3) -> "
                 f"QuantizeLinear to {NAME[other]} (scale 0.25), saturate 1 and 0")
        t.input("x", elem, codes)
        t.input("s", F32, np.float32(3.0))
        t.input("s2", F32, np.float32(0.25))
        t.input("z2", other, np.uint8(0))
        t.node("DequantizeLinear", ["x", "s"], ["xf"])
        t.node("QuantizeLinear", ["xf", "s2", "z2"], ["y_sat"])
        t.node("QuantizeLinear", ["xf", "s2", "z2"], ["y"], saturate=0)
        t.output("y_sat", other)
        t.output("y", other)
        tests.append(t)
        # Q -> data movement on the codes -> DQ: float in, float8 and float out.
        t = Test(f"test_q_transpose_dq_{t8}", "QuantizeLinear -> Transpose -> Reshape -> "
                 "DequantizeLinear; outputs the float8 and the float tensor; opset 21 (Transpose "
                 "takes float8 from 21)", opset=21)
        x = random_floats(rng, 24).reshape(2, 3, 4)
        t.input("x", F32, x)
        t.input("s", F32, np.float32(0.0625))
        t.input("z", elem, np.uint8(0))
        t.input("shape", TensorProto.INT64, np.int64([4, 6]))
        t.node("QuantizeLinear", ["x", "s", "z"], ["q"])
        t.node("Transpose", ["q"], ["qt"], perm=[2, 0, 1])
        t.node("Reshape", ["qt", "shape"], ["qr"])
        t.node("DequantizeLinear", ["qr", "s", "z"], ["y"])
        t.output("qr", elem)
        t.output("y", F32)
        tests.append(t)
    return tests


def fp8_codes(rng, shape, elem, sigma):
    """Random float8 codes: normal values of deviation sigma, cast with saturation."""
    v = (rng.standard_normal(shape) * sigma).astype(np.float32)
    return numpy_helper.saturate_cast(v, NP8[elem]).view(np.uint8)


def group_tests(rng):
    """DequantizeLinear(x8) and DequantizeLinear(w8 initializer) -> MatMul / Gemm / Conv [-> Relu]
    -> QuantizeLinear to float8: the group the runtime runs as one FP8 tensor-unit op. The
    reference's float path is the expectation, which the tensor unit's rule approaches within an
    FP8 ulp (test_model_fp8 counts the differences)."""
    tests = []

    def group(name, what, x_shape, x_elem, w_codes, w_elem, w_scale, w_axis, y_elem, op, attrs,
              bias=None, relu=False, opset=19, x_sigma=1.0, y_scale=0.01):
        t = Test(name, what, opset)
        t.input("x", x_elem, fp8_codes(rng, x_shape, x_elem, x_sigma))
        t.init("x_scale", F32, np.float32(0.5))
        t.init("w", w_elem, w_codes)
        t.init("w_scale", F32, np.float32(w_scale))
        t.init("y_scale", F32, np.float32(y_scale))
        t.node("DequantizeLinear", ["x", "x_scale"], ["xf"])
        dq_attrs = {"axis": w_axis} if np.asarray(w_scale).size > 1 else {}
        t.node("DequantizeLinear", ["w", "w_scale"], ["wf"], **dq_attrs)
        ins = ["xf", "wf"]
        if bias is not None:
            t.init("b", F32, np.float32(bias))
            ins.append("b")
        last = t.node(op, ins, ["mm"], **attrs)
        if relu:
            last = t.node("Relu", [last], ["act"])
        if opset >= 21:
            t.node("QuantizeLinear", [last, "y_scale"], ["y"], output_dtype=y_elem)
        else:
            t.init("y_zp", y_elem, np.uint8(0))
            t.node("QuantizeLinear", [last, "y_scale", "y_zp"], ["y"])
        t.output("y", y_elem)
        tests.append(t)

    group("matmul_e4m3_relu_per_column", "MatMul 8x40 x 40x24, E4M3, per-column w_scale, Relu",
          (8, 40), E4M3, fp8_codes(rng, (40, 24), E4M3, 0.5), E4M3,
          rng.uniform(0.05, 0.2, 24), 1, E4M3, "MatMul", {}, relu=True)
    group("matmul_e4m3_large", "MatMul 64x200 x 200x64, E4M3, per-column w_scale: K = 200, "
          "thirteen k-tiles, 4096 results", (64, 200), E4M3, fp8_codes(rng, (200, 64), E4M3, 0.5),
          E4M3, rng.uniform(0.05, 0.2, 64), 1, E4M3, "MatMul", {})
    group("matmul_e5m2_e4m3_batched", "MatMul 2x5x33 (E5M2) x 33x10 (E4M3), per tensor, E5M2 out",
          (2, 5, 33), E5M2, fp8_codes(rng, (33, 10), E4M3, 0.5), E4M3, 0.1, 1, E5M2, "MatMul", {})
    group("matmul_e4m3_saturating", "MatMul 4x64 x 64x16, E4M3, y_scale 0.0002: many results "
          "saturate to +-448", (4, 64), E4M3, fp8_codes(rng, (64, 16), E4M3, 0.5), E4M3, 0.1, 1,
          E4M3, "MatMul", {}, y_scale=0.0002)
    group("gemm_transb_bias", "Gemm transB 6x50 x (12x50)^T, per-row w_scale, float bias, E4M3",
          (6, 50), E4M3, fp8_codes(rng, (12, 50), E4M3, 0.5), E4M3, rng.uniform(0.05, 0.2, 12), 0,
          E4M3, "Gemm", {"transB": 1}, bias=rng.uniform(-2, 2, 12), y_scale=0.05)
    group("conv_e4m3_bias_relu", "Conv 2x3x9x8, 5x3x3x3, pads 1, strides 1x2, per-channel "
          "w_scale, float bias, Relu, E4M3", (2, 3, 9, 8), E4M3,
          fp8_codes(rng, (5, 3, 3, 3), E4M3, 0.5), E4M3, rng.uniform(0.05, 0.2, 5), 0, E4M3, "Conv",
          {"pads": [1, 1, 1, 1], "strides": [1, 2]}, bias=rng.uniform(-1, 1, 5), relu=True)
    group("conv_e5m2_long_k", "Conv 1x20x6x6 (E5M2), 4x20x3x3 (E5M2): K = 180, twelve k-tiles; "
          "opset 21, output_dtype E4M3", (1, 20, 6, 6), E5M2,
          fp8_codes(rng, (4, 20, 3, 3), E5M2, 0.5), E5M2, 0.1, 0, E4M3, "Conv", {}, opset=21,
          y_scale=0.02)
    # One k-tile holding the products 2^24, 2^20 and fourteen 1s (E5M2 operands): the tile's exact
    # sum, rounded once, is 2^24 + 2^20 + 14; a float32 running sum in row 0's order loses every
    # 1 (2^24 + 2^20 + 1 is a tie that rounds back down), in row 1's order (the 1s first) it keeps
    # them. Scaled by 2^-24 that is 1.0625 + 14 * 2^-24 (E4M3 1.125) or exactly 1.0625, the tie
    # between 1.0 and 1.125 that goes to the even 1.0: the tensor unit's rule and a float path
    # differ by an ulp here.
    ones = [0x3C] * 14
    t = Test("matmul_e5m2_tile_exact", "2x16 x 16x2, E5M2: products 2^24, 2^20 and fourteen 1s in "
             "one k-tile (row 0 / column 0 large first, row 1 / column 1 the 1s first), y_scale "
             "2^24, E4M3 out")
    t.input("x", E5M2, np.uint8([[0x6C, 0x64] + ones, ones + [0x6C, 0x64]]))
    t.init("one", F32, np.float32(1.0))
    t.init("w", E5M2, np.uint8([[0x6C, 0x64] + ones, ones + [0x6C, 0x64]]).T.copy())
    t.init("y_scale", F32, np.float32(2.0**24))
    t.init("y_zp", E4M3, np.uint8(0))
    t.node("DequantizeLinear", ["x", "one"], ["xf"])
    t.node("DequantizeLinear", ["w", "one"], ["wf"])
    t.node("MatMul", ["xf", "wf"], ["mm"])
    t.node("QuantizeLinear", ["mm", "y_scale", "y_zp"], ["y"])
    t.output("y", E4M3)
    tests.append(t)
    return tests


def main():
    out_dir = out_dir_arg(__doc__)
    np.seterr(over="ignore")  # the reference overflows to Inf on purpose (past the float8 max)
    rng = np.random.default_rng(19)
    tests = quantize_tests(rng) + dequantize_tests() + chain_tests(rng)
    groups = group_tests(rng)
    notes = []
    with staged_dir(out_dir, "groups") as tmp:
        elements = sum(t.write(tmp, notes) for t in tests)
        for t in groups:
            t.write(os.path.join(tmp, "groups"), notes)
        write_index(os.path.join(tmp, "groups", "index.txt"),
                    "<group> <what>: FP8 QDQ groups, expected outputs from onnx's "
                    "ReferenceEvaluator", [f"{t.name} {t.what}" for t in groups])
        write_index(os.path.join(tmp, "index.txt"),
                    "<test> <what>: float8 node tests, expected outputs from onnx's "
                    f"ReferenceEvaluator (onnx {onnx.__version__}, ml_dtypes "
                    f"{ml_dtypes.__version__})", [f"{t.name} {t.what}" for t in tests])
        with open(os.path.join(tmp, "onnxruntime.txt"), "w") as f:
            f.write("".join(n + "\n" for n in notes))
    print(f"onnx_fp8_nodes.py: {len(tests)} node tests ({elements} output elements), "
          f"{len(groups)} QDQ groups -> {out_dir}")
    for n in notes:
        print("  onnxruntime:", n)


if __name__ == "__main__":
    main()
