#!/usr/bin/env python3
"""Reference vectors from onnxruntime for Weft's ONNX (QLinear) requantization mode.

Builds small ONNX models in memory, runs them with onnxruntime's CPU execution provider and writes
what onnxruntime computed as plain text. The golden model's tests (sw/golden/tests) and the RTL
requantization test compare against these files, so that the ONNX mode is checked against
onnxruntime itself and not against our own reading of it.

Usage: onnx_vectors.py --out-dir DIR [--seed N]      (needs numpy, onnx, onnxruntime)

Files written into DIR (every line starting with '#' is a comment; fields are separated by one
space; integers are decimal; a float is written as the 8 lowercase hex digits of its IEEE-754
binary32 bit pattern, e.g. 0.01f -> 3c23d70a):

requant_values.txt -- part A: one requantized value per line:
      x scale_hex zp is_signed result
  e.g. "-1234 3c23d70a -3 1 -15". The graph is
      Cast(x: int32 -> float) -> Mul(float32 scale) -> QuantizeLinear(y_scale = 1.0, zero_point)
  with the zero point of type int8 (is_signed = 1) or uint8 (is_signed = 0); `result` is
  onnxruntime's int8 / uint8 output. Cast rounds int32 to float32 to nearest even, Mul is one
  float32 multiply, and QuantizeLinear with y_scale = 1 (an exact division) rounds half to even,
  adds the zero point and saturates to the output type: the same arithmetic as the requantization
  step of MLAS (MlasRequantizeOutput, used by QLinearMatMul / QLinearConv) for one value.
  Values include 0, +-1, INT32_MIN, INT32_MAX, exact .5 ties after scaling, |x| > 2^24 (where the
  int32 -> float32 conversion rounds), tiny, huge, subnormal, zero and negative scales, and a share
  of scales aimed so that the result lands inside the output range (not saturated).

qlinearmatmul.txt -- part B: QLinearMatMul on random small matrices, four lines per case:
      case M K N a_signed w_signed y_signed a_scale_hex a_zp w_scale_hex w_zp y_scale_hex y_zp
      a <M*K values, row-major>
      w <K*N values, row-major>
      y <M*N values, row-major: onnxruntime's output>
  Type pairs as onnxruntime's CPU kernel supports them: (uint8, uint8), (uint8, int8) and
  (int8, int8); the output type is the type of A. Some cases feed every input at run time, others
  give W, the scales and the zero points as initializers (onnxruntime then pre-packs W).

Choice of operand ranges in part B: onnxruntime's x86 u8s8 kernels without AVX-512 VNNI use
vpmaddubsw, which saturates the int16 sum of two adjacent u8*s8 products (onnxruntime documents
this as the "saturation issue" of U8S8 on AVX2 / AVX-512 without VNNI). So that the file holds exact
integer arithmetic on every x86 machine, u8s8 weights are drawn from [-64, 63] (7 bits, as
onnxruntime's reduce_range does) and s8s8 activations from [-127, 127]. The zero points are still
drawn from the whole type range.

The default seed is fixed (1), so the files are reproducible; --seed changes it.
"""

import argparse
import os
import struct
import sys

import numpy as np

from vector_files import write_atomic
import onnx
import onnxruntime as ort
from onnx import TensorProto, helper

INT32_MIN = -(2**31)
INT32_MAX = 2**31 - 1
OPSET = 19  # QuantizeLinear / QLinearMatMul semantics used here are unchanged since opset 13.


def f32_hex(v):
    return struct.pack(">f", float(np.float32(v))).hex()


def f32_from_bits(bits):
    return np.frombuffer(struct.pack("<I", bits & 0xFFFFFFFF), dtype=np.float32)[0]


def session(model, optimize):
    onnx.checker.check_model(model)
    so = ort.SessionOptions()
    so.graph_optimization_level = (
        ort.GraphOptimizationLevel.ORT_ENABLE_ALL
        if optimize
        else ort.GraphOptimizationLevel.ORT_DISABLE_ALL
    )
    so.intra_op_num_threads = 1
    return ort.InferenceSession(
        model.SerializeToString(), so, providers=["CPUExecutionProvider"]
    )


def make_model(nodes, inputs, outputs, initializers=()):
    graph = helper.make_graph(nodes, "weft_onnx_vectors", inputs, outputs, list(initializers))
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", OPSET)])
    model.ir_version = 9
    return model


# ------------------------------------------------------------------------------------------------
# Part A: Cast -> Mul -> QuantizeLinear
# ------------------------------------------------------------------------------------------------


def requant_session(is_signed):
    qtype = TensorProto.INT8 if is_signed else TensorProto.UINT8
    one = helper.make_tensor("one", TensorProto.FLOAT, [], [1.0])
    nodes = [
        helper.make_node("Cast", ["x"], ["xf"], to=TensorProto.FLOAT),
        helper.make_node("Mul", ["xf", "scale"], ["scaled"]),
        helper.make_node("QuantizeLinear", ["scaled", "one", "zp"], ["y"]),
    ]
    inputs = [
        helper.make_tensor_value_info("x", TensorProto.INT32, ["n"]),
        helper.make_tensor_value_info("scale", TensorProto.FLOAT, ["n"]),
        helper.make_tensor_value_info("zp", qtype, []),
    ]
    outputs = [helper.make_tensor_value_info("y", qtype, ["n"])]
    # No graph optimization: the three nodes run as written.
    return session(make_model(nodes, inputs, outputs, [one]), optimize=False)


def random_x(rng, n):
    """int32 values from several families (returned as int64 to keep the arithmetic exact)."""
    kind = rng.integers(0, 6, n)
    x = np.empty(n, dtype=np.int64)
    for i in range(n):
        k = kind[i]
        if k == 0:  # anywhere in int32
            x[i] = rng.integers(INT32_MIN, INT32_MAX, endpoint=True)
        elif k == 1:  # small
            x[i] = rng.integers(-1000, 1000, endpoint=True)
        elif k == 2:  # typical accumulator magnitudes
            x[i] = rng.integers(-(2**20), 2**20, endpoint=True)
        elif k == 3:  # above 2^24: int32 -> float32 rounds
            mag = rng.integers(2**24 + 1, INT32_MAX, endpoint=True)
            x[i] = mag if rng.integers(0, 2) else -mag
        elif k == 4:  # edges
            x[i] = rng.choice(
                [0, 1, -1, 2, -2, INT32_MIN, INT32_MAX, INT32_MIN + 1, INT32_MAX - 1,
                 2**24, 2**24 + 1, 2**24 + 3, -(2**24) - 1, 2**25 + 1, 2**25 + 3,
                 -(2**25) - 3, 2**30, -(2**30), 2**31 - 64, 2**31 - 65]
            )
        else:  # near the int8 / uint8 output range at scale ~1
            x[i] = rng.integers(-400, 400, endpoint=True)
    return x


def random_scale(rng, n):
    kind = rng.integers(0, 7, n)
    s = np.empty(n, dtype=np.float32)
    for i in range(n):
        k = kind[i]
        sign = -1.0 if rng.integers(0, 8) == 0 else 1.0  # ~1/8 negative
        if k in (0, 1, 2):  # log-uniform over the usual requantization range
            s[i] = sign * np.float32(2.0 ** rng.uniform(-32.0, 2.0))
        elif k == 3:  # powers of two: many exact products
            s[i] = sign * np.float32(2.0 ** int(rng.integers(-31, 3)))
        elif k == 4:  # subnormal
            s[i] = sign * f32_from_bits(int(rng.integers(1, 0x800000)))
        elif k == 5:  # huge
            s[i] = sign * np.float32(10.0 ** rng.uniform(20.0, 38.5))
        else:  # zero, tiny normals, 1
            s[i] = sign * rng.choice(
                np.array([0.0, 1.0, 1.1754944e-38, 1e-30, 1e-10, 0.5, 0.25], dtype=np.float32)
            )
    return s


def tie_cases(rng, n):
    """x, scale with float32(x) * scale exactly a half-integer (so only round-half-even decides)."""
    xs = np.empty(n, dtype=np.int64)
    ss = np.empty(n, dtype=np.float32)
    for i in range(n):
        k = int(rng.integers(1, 21))
        odd_scale = int(rng.choice([1, 1, 3, 5, 7, 9, 11]))  # scale = odd / 2^k
        # x = odd * 2^(k-1): product = odd * odd_scale / 2, a half-integer; |x| < 2^24 so exact.
        max_m = max(1, (2**23 >> (k - 1)) // 2 - 1)
        m = int(rng.integers(0, min(max_m, 400) + 1))
        x = (2 * m + 1) << (k - 1)
        if rng.integers(0, 2):
            x = -x
        s = np.float32(odd_scale / 2.0**k)
        if rng.integers(0, 4) == 0:
            s = -s
        xs[i], ss[i] = x, s
    return xs, ss


def part_a(rng):
    lines = []
    for is_signed in (True, False):
        sess = requant_session(is_signed)
        qmin, qmax = (-128, 127) if is_signed else (0, 255)
        np_qtype = np.int8 if is_signed else np.uint8
        edge_zps = [qmin, qmax, 0, (qmin + qmax + 1) // 2, -1 if is_signed else 1]
        for batch in range(64):
            zp = edge_zps[batch] if batch < len(edge_zps) else int(rng.integers(qmin, qmax + 1))
            n = 256
            x = random_x(rng, n)
            s = random_scale(rng, n)
            tx, ts = tie_cases(rng, 48)
            x[:48], s[:48] = tx, ts
            # 96 values aimed at the output range: scale = t / x, t a little wider than the range.
            for j in range(160, 256):
                if x[j] != 0:
                    t = rng.uniform(qmin - zp - 8.0, qmax - zp + 8.0)
                    s[j] = np.float32(t / float(x[j]))
            if batch == 0:  # every edge x with a few fixed scales
                edges = [0, 1, -1, INT32_MIN, INT32_MAX, 2**24 + 1, -(2**24) - 1]
                for j, (ev, es) in enumerate(
                    (e, sc) for e in edges for sc in (1.0, 0.5, -0.5, 1e-9, 3e38, 0.0)
                ):
                    x[48 + j], s[48 + j] = ev, np.float32(es)
            feeds = {"x": x.astype(np.int32), "scale": s, "zp": np.array(zp, np_qtype)}
            y = sess.run(None, feeds)[0]
            for xi, si, yi in zip(x, s, y):
                lines.append(f"{int(xi)} {f32_hex(si)} {zp} {int(is_signed)} {int(yi)}")
    header = [
        "# Generated by scripts/onnx_vectors.py (part A) -- do not edit.",
        f"# onnxruntime {ort.__version__}: Cast(int32->float) -> Mul(scale) -> "
        "QuantizeLinear(y_scale=1, zero_point)",
        "# x scale_hex zp is_signed result   (scale_hex: IEEE-754 binary32 bits)",
        f"# count {len(lines)}",
    ]
    return header, lines


# ------------------------------------------------------------------------------------------------
# Part B: QLinearMatMul
# ------------------------------------------------------------------------------------------------


def qtype_of(signed):
    return (TensorProto.INT8, np.int8) if signed else (TensorProto.UINT8, np.uint8)


def qlinearmatmul_model(a_signed, w_signed, const=None):
    """All inputs at run time, or (const given) W, scales and zero points as initializers."""
    at, _ = qtype_of(a_signed)
    wt, w_np = qtype_of(w_signed)
    names = ["a", "a_scale", "a_zp", "w", "w_scale", "w_zp", "y_scale", "y_zp"]
    types = [at, TensorProto.FLOAT, at, wt, TensorProto.FLOAT, wt, TensorProto.FLOAT, at]
    shapes = [["m", "k"], [], [], ["k", "n"], [], [], [], []]
    node = helper.make_node("QLinearMatMul", names, ["y"])
    outputs = [helper.make_tensor_value_info("y", at, ["m", "n"])]
    if const is None:
        inputs = [helper.make_tensor_value_info(nm, t, s) for nm, t, s in zip(names, types, shapes)]
        return make_model([node], inputs, outputs)
    inputs = [helper.make_tensor_value_info("a", at, ["m", "k"])]
    inits = []
    for nm, t in zip(names[1:], types[1:]):
        v = const[nm]
        inits.append(helper.make_tensor(nm, t, list(np.shape(v)), np.ravel(v).tolist()))
    return make_model([node], inputs, outputs, inits)


def part_b(rng):
    lines = []
    combos = [(False, False), (False, True), (True, True)]
    dyn_sessions = {c: session(qlinearmatmul_model(*c), optimize=False) for c in combos}
    n_cases = 0
    values = 0
    for case in range(360):
        a_signed, w_signed = combos[case % 3]
        _, a_np = qtype_of(a_signed)
        _, w_np = qtype_of(w_signed)
        m, k, n = (int(v) for v in rng.integers(1, [9, 33, 9], endpoint=True))
        a_lo, a_hi = (-127, 127) if a_signed else (0, 255)
        w_lo, w_hi = ((-64, 63) if not a_signed else (-128, 127)) if w_signed else (0, 255)
        a = rng.integers(a_lo, a_hi, (m, k), endpoint=True).astype(a_np)
        w = rng.integers(w_lo, w_hi, (k, n), endpoint=True).astype(w_np)
        za = int(rng.integers(-128, 128) if a_signed else rng.integers(0, 256))
        zw = int(rng.integers(-128, 128) if w_signed else rng.integers(0, 256))
        zy = int(rng.integers(-128, 128) if a_signed else rng.integers(0, 256))
        a_scale = np.float32(2.0 ** rng.uniform(-12, 0))
        w_scale = np.float32(2.0 ** rng.uniform(-12, 0))
        # Pick y_scale from the accumulators' magnitude (only to choose a parameter; the reference
        # is onnxruntime's output) so that outputs cover the type range and a few saturate.
        acc = (a.astype(np.int64) - za) @ (w.astype(np.int64) - zw)
        peak = max(1, int(np.max(np.abs(acc))))
        y_scale = np.float32(
            float(a_scale) * float(w_scale) * peak / 127.0 * 2.0 ** rng.uniform(-1.5, 0.5)
        )
        feeds_const = {
            "a_scale": np.array(a_scale, np.float32),
            "a_zp": np.array(za, a_np),
            "w": w,
            "w_scale": np.array(w_scale, np.float32),
            "w_zp": np.array(zw, w_np),
            "y_scale": np.array(y_scale, np.float32),
            "y_zp": np.array(zy, a_np),
        }
        if case % 2 == 0:
            y = dyn_sessions[(a_signed, w_signed)].run(None, {"a": a, **feeds_const})[0]
        else:
            sess = session(qlinearmatmul_model(a_signed, w_signed, feeds_const), optimize=True)
            y = sess.run(None, {"a": a})[0]
        lines.append(
            f"case {m} {k} {n} {int(a_signed)} {int(w_signed)} {int(a_signed)} "
            f"{f32_hex(a_scale)} {za} {f32_hex(w_scale)} {zw} {f32_hex(y_scale)} {zy}"
        )
        lines.append("a " + " ".join(str(int(v)) for v in a.ravel()))
        lines.append("w " + " ".join(str(int(v)) for v in w.ravel()))
        lines.append("y " + " ".join(str(int(v)) for v in y.ravel()))
        n_cases += 1
        values += m * n
    header = [
        "# Generated by scripts/onnx_vectors.py (part B) -- do not edit.",
        f"# onnxruntime {ort.__version__}: QLinearMatMul, {n_cases} cases, {values} output values",
        "# case M K N a_signed w_signed y_signed a_scale_hex a_zp w_scale_hex w_zp "
        "y_scale_hex y_zp",
        "# a <M*K>   w <K*N>   y <M*N>   (row-major; y is onnxruntime's output)",
    ]
    return header, lines


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--out-dir", required=True)
    ap.add_argument("--seed", type=int, default=1)
    args = ap.parse_args()
    os.makedirs(args.out_dir, exist_ok=True)
    rng = np.random.default_rng(args.seed)

    header, lines = part_a(rng)
    header.insert(1, f"# seed {args.seed}")
    write_atomic(os.path.join(args.out_dir, "requant_values.txt"), header, lines)
    n_a = len(lines)

    header, lines = part_b(rng)
    header.insert(1, f"# seed {args.seed}")
    write_atomic(os.path.join(args.out_dir, "qlinearmatmul.txt"), header, lines)
    print(f"onnx_vectors: {n_a} requant values, {len(lines) // 4} QLinearMatMul cases "
          f"(onnxruntime {ort.__version__}, seed {args.seed}) -> {args.out_dir}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
