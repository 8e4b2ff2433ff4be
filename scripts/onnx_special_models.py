#!/usr/bin/env python3
"""Hand-built QOperator models for model-runtime features the random corpus does not reach.

Usage: onnx_special_models.py --out-dir DIR [--seed N]
       (needs numpy, onnx, onnxruntime: `make setup` installs them)

Each case is a small graph built directly with onnx.helper (opset 13 unless a feature needs more;
integer graph inputs of type uint8 / int8), run by onnxruntime (CPUExecutionProvider, one thread)
on random inputs, and written in the layout of the test model corpus (scripts/onnx_models.py):

  DIR/<case>/model.onnx
  DIR/<case>/test_data_set_0/input_<i>.pb    one per graph input, in order
  DIR/<case>/test_data_set_0/output_<i>.pb   onnxruntime's output, one per graph output
  DIR/index.txt                              "<name> <expect> <what>" per case

expect is `exact` (the runtime must match onnxruntime bit for bit) or `refused` (the runtime must
refuse the model with BAD_MODEL "unsupported: ..."). Operands are uint8 x uint8 or int8 x int8
(int8 weights symmetric, never -128), so onnxruntime's integer kernels are exact on any x86.

Where onnxruntime refuses a form the ONNX specification allows (per-channel weight zero points that
differ between channels in QLinearConv, a per-row a_zero_point in MatMulInteger, ...), the expected
output comes from an equivalent graph onnxruntime does run: the operator split per output channel /
per row with scalar zero points, then Concat. The case's `what` says so ("ort via split"). Integer
results (MatMulInteger, ConvInteger) are also checked against numpy's exact integer arithmetic.

Deterministic: the seed (default 1) is printed, and the same seed gives the same files.
"""

import argparse
import os
import shutil
import sys

try:
    import numpy as np
    import onnx
    import onnxruntime as ort
    from onnx import TensorProto, helper, numpy_helper
except ImportError as e:  # the build calls this script: say how to get the packages
    sys.stderr.write(
        f"onnx_special_models.py: missing Python package ({e}); run `make setup` "
        "(scripts/setup.sh installs numpy, onnx and onnxruntime)\n"
    )
    sys.exit(1)

OPSET = 13
U8, I8, I32, F32 = TensorProto.UINT8, TensorProto.INT8, TensorProto.INT32, TensorProto.FLOAT
NP = {U8: np.uint8, I8: np.int8, I32: np.int32, F32: np.float32}


class G:
    """A graph under construction: initializers, nodes, integer graph inputs."""

    def __init__(self, rng):
        self.rng = rng
        self.inits, self.nodes, self.inputs, self.feeds = [], [], [], []
        self.n = 0

    def const(self, name, arr):
        self.inits.append(numpy_helper.from_array(np.asarray(arr), name))
        return name

    def input(self, name, elem, shape):
        self.inputs.append(helper.make_tensor_value_info(name, elem, list(shape)))
        self.feeds.append((name, rand_int(self.rng, elem, shape)))
        return name

    def node(self, op, inputs, outputs, domain="", **attrs):
        self.n += 1
        self.nodes.append(helper.make_node(op, inputs, outputs, name=f"{op}_{self.n}", domain=domain, **attrs))
        return outputs[0]

    def model(self, outputs, opset=OPSET, extra_opsets=()):
        g = helper.make_graph(self.nodes, "special", self.inputs, outputs, initializer=self.inits)
        ops = [helper.make_opsetid("", opset)] + [helper.make_opsetid(d, v) for d, v in extra_opsets]
        m = helper.make_model(g, opset_imports=ops, producer_name="weft onnx_special_models.py")
        m.ir_version = 8
        return m


def rand_int(rng, elem, shape, lo=None, hi=None):
    if elem == U8:
        lo, hi = (0, 255) if lo is None else (lo, hi)
    elif elem == I8:
        lo, hi = (-128, 127) if lo is None else (lo, hi)
    return rng.integers(lo, hi + 1, size=shape).astype(NP[elem])


def weights(rng, elem, shape):
    # int8 weights symmetric (never -128), as onnxruntime's quantizer writes them.
    return rand_int(rng, elem, shape, *((0, 255) if elem == U8 else (-127, 127)))


def zp(rng, elem, n=None):
    shape = () if n is None else (n,)
    return rand_int(rng, elem, shape, *((100, 150) if elem == U8 else (-20, 20)))


def scale(rng, n=None, lo=0.001, hi=0.02):
    shape = () if n is None else (n,)
    return rng.uniform(lo, hi, size=shape).astype(np.float32)


def vi(name, elem):
    return helper.make_tensor_value_info(name, elem, None)


def qlinear_conv(g, x, elem, cin, cout, k, bias=True, w_elem=None, per_channel=False, pc_zp=False,
                 y_scale=None, tag="", **attrs):
    """A QLinearConv with constant weights; returns (output name, its scale, its zero point)."""
    rng = g.rng
    w_elem = w_elem or elem
    kh, kw = (k, k) if isinstance(k, int) else k
    group = attrs.get("group", 1)
    w = g.const(f"w{tag}", weights(rng, w_elem, (cout, cin // group, kh, kw)))
    ws = g.const(f"w_scale{tag}", scale(rng, cout if per_channel else None, 0.002, 0.01))
    wz = g.const(f"w_zp{tag}", zp(rng, w_elem, cout) if pc_zp else (np.full((cout,), zp(rng, w_elem), NP[w_elem]) if per_channel else (zp(rng, w_elem) if w_elem == U8 else np.array(0, np.int8))))
    ys_val = y_scale if y_scale is not None else np.float32(rng.uniform(0.05, 0.3))
    ys = g.const(f"y_scale{tag}", np.float32(ys_val))
    yz_val = zp(rng, elem)
    yz = g.const(f"y_zp{tag}", yz_val)
    ins = [x[0], x[1], x[2], w, ws, wz, ys, yz]
    if bias:
        ins.append(g.const(f"bias{tag}", rng.integers(-3000, 3000, size=(cout,)).astype(np.int32)))
    y = g.node("QLinearConv", ins, [f"y{tag}"], **attrs)
    return (y, ys, yz)


def x_input(g, elem, shape, name="x"):
    xn = g.input(name, elem, shape)
    xs = g.const(f"{name}_scale", scale(g.rng, None, 0.01, 0.05))
    xz = g.const(f"{name}_zp", zp(g.rng, elem))
    return (xn, xs, xz)


# ---- the cases: each returns (model, expect, what[, reference model for onnxruntime]) ----

def conv_case(elem, shape, cout, k, note, expect="exact", **attrs):
    def build(rng):
        g = G(rng)
        x = x_input(g, elem, shape)
        y = qlinear_conv(g, x, elem, shape[1], cout, k, **attrs)
        return g, g.model([vi(y[0], elem)]), expect, note
    return build


def conv_chain(rng):
    g = G(rng)
    x = x_input(g, U8, (1, 17, 13, 11))
    y1 = qlinear_conv(g, x, U8, 17, 19, 3, tag="1", pads=[1, 1, 1, 1])
    y2 = qlinear_conv(g, y1, U8, 19, 33, 1, tag="2")
    y3 = qlinear_conv(g, y2, U8, 33, 5, 3, tag="3", strides=[2, 2])
    return g, g.model([vi(y3[0], U8)]), "exact", "chain QLinearConv 3x3 p1 -> 1x1 -> 3x3 s2, u8, 17->19->33->5 ch"


def qlinear_matmul(g, a, elem, k, n, tag="", per_column=False):
    rng = g.rng
    b = g.const(f"b{tag}", weights(rng, elem, (k, n)))
    bs = g.const(f"b_scale{tag}", scale(rng, n if per_column else None, 0.002, 0.01))
    bz = g.const(f"b_zp{tag}", zp(rng, elem, n) if per_column else zp(rng, elem))
    ys = g.const(f"y_scale{tag}", np.float32(rng.uniform(0.05, 0.3)))
    yz = g.const(f"y_zp{tag}", zp(rng, elem))
    y = g.node("QLinearMatMul", [a[0], a[1], a[2], b, bs, bz, ys, yz], [f"y{tag}"])
    return (y, ys, yz)


def matmul_chain(rng):
    g = G(rng)
    a = x_input(g, I8, (7, 33), "a")
    y1 = qlinear_matmul(g, a, I8, 33, 19, "1")
    y2 = qlinear_matmul(g, y1, I8, 19, 17, "2")
    y3 = qlinear_matmul(g, y2, I8, 17, 5, "3")
    return g, g.model([vi(y3[0], I8)]), "exact", "chain QLinearMatMul x3, s8, 7x33 -> 19 -> 17 -> 5"


def conv_per_channel_zp(rng):
    g = G(rng)
    x = x_input(g, U8, (1, 5, 9, 10))
    cout = 19
    y = qlinear_conv(g, x, U8, 5, cout, 3, per_channel=True, pc_zp=True, pads=[1, 1, 1, 1])
    m = g.model([vi(y[0], U8)])
    # onnxruntime's QLinearConv wants one filter zero point: the reference runs one QLinearConv per
    # output channel with that channel's scale and zero point, and concatenates the channels.
    inits = {t.name: numpy_helper.to_array(t) for t in g.inits}
    r = G(rng)
    r.inputs = g.inputs
    for nm in ["x_scale", "x_zp", "y_scale", "y_zp"]:
        r.const(nm, inits[nm])
    parts = []
    for c in range(cout):
        r.const(f"w{c}", inits["w"][c:c + 1])
        r.const(f"ws{c}", inits["w_scale"][c])
        r.const(f"wz{c}", inits["w_zp"][c])
        r.const(f"b{c}", inits["bias"][c:c + 1])
        parts.append(r.node("QLinearConv", ["x", "x_scale", "x_zp", f"w{c}", f"ws{c}", f"wz{c}", "y_scale", "y_zp", f"b{c}"], [f"y{c}"], pads=[1, 1, 1, 1]))
    r.node("Concat", parts, [y[0]], axis=1)
    ref = r.model([vi(y[0], U8)])
    return g, m, "exact", "QLinearConv u8 3x3 p1, per-channel w_scale and w_zero_point (different per channel), int32 bias, 5->19 ch", ref


def matmul_per_column(rng):
    g = G(rng)
    a = x_input(g, U8, (13, 21), "a")
    y = qlinear_matmul(g, a, U8, 21, 11, per_column=True)
    m = g.model([vi(y[0], U8)])
    inits = {t.name: numpy_helper.to_array(t) for t in g.inits}
    r = G(rng)
    r.inputs = g.inputs
    for nm in ["a_scale", "a_zp", "y_scale", "y_zp"]:
        r.const(nm, inits[nm])
    parts = []
    for c in range(11):
        r.const(f"b{c}", inits["b"][:, c:c + 1])
        r.const(f"bs{c}", inits["b_scale"][c])
        r.const(f"bz{c}", inits["b_zp"][c])
        parts.append(r.node("QLinearMatMul", ["a", "a_scale", "a_zp", f"b{c}", f"bs{c}", f"bz{c}", "y_scale", "y_zp"], [f"y{c}"]))
    r.node("Concat", parts, [y[0]], axis=1)
    ref = r.model([vi(y[0], U8)])
    return g, m, "exact", "QLinearMatMul u8 13x21 x 21x11, per-column b_scale and b_zero_point (constant b)", ref


def matmul_integer(rng):
    g = G(rng)
    M, K, N = 9, 23, 14
    a = g.input("a", U8, (M, K))
    az = g.const("a_zp", zp(rng, U8, M))
    b = g.const("b", weights(rng, U8, (K, N)))
    bz = g.const("b_zp", zp(rng, U8, N))
    y = g.node("MatMulInteger", [a, b, az, bz], ["y"])
    m = g.model([vi(y, I32)])
    inits = {t.name: numpy_helper.to_array(t) for t in g.inits}
    # Reference: one MatMulInteger per row of a (scalar a_zero_point), rows concatenated.
    r = G(rng)
    r.inputs = g.inputs
    r.const("b", inits["b"])
    r.const("b_zp", inits["b_zp"])
    r.const("split", np.ones(M, np.int64))
    rows = [f"a{i}" for i in range(M)]
    r.node("Split", ["a", "split"], rows, axis=0)
    parts = []
    for i in range(M):
        r.const(f"az{i}", inits["a_zp"][i])
        parts.append(r.node("MatMulInteger", [f"a{i}", "b", f"az{i}", "b_zp"], [f"y{i}"]))
    r.node("Concat", parts, ["y"], axis=0)
    ref = r.model([vi("y", I32)])

    def exact(feeds):
        av = feeds[0][1].astype(np.int64) - inits["a_zp"].astype(np.int64)[:, None]
        bv = inits["b"].astype(np.int64) - inits["b_zp"].astype(np.int64)[None, :]
        return [(av @ bv).astype(np.int32)]
    return g, m, "exact", f"MatMulInteger u8 {M}x{K} x {K}x{N}, per-row a_zero_point and per-column b_zero_point", ref, exact


def conv_integer(rng):
    g = G(rng)
    x = g.input("x", U8, (2, 6, 11, 9))
    xz = g.const("x_zp", zp(rng, U8))
    w = g.const("w", weights(rng, U8, (17, 6, 3, 3)))
    wz = g.const("w_zp", zp(rng, U8))
    y = g.node("ConvInteger", [x, w, xz, wz], ["y"], pads=[1, 0, 1, 0])
    m = g.model([vi(y, I32)])
    inits = {t.name: numpy_helper.to_array(t) for t in g.inits}

    def exact(feeds):
        xv = feeds[0][1].astype(np.int64) - int(inits["x_zp"])
        xv = np.pad(xv, ((0, 0), (0, 0), (1, 1), (0, 0)))  # padded positions contribute 0
        wv = inits["w"].astype(np.int64) - int(inits["w_zp"])
        n, c, h, wd = xv.shape
        oh, ow = h - 2, wd - 2
        out = np.zeros((n, 17, oh, ow), np.int64)
        for i in range(3):
            for j in range(3):
                out += np.einsum("nchw,mc->nmhw", xv[:, :, i:i + oh, j:j + ow], wv[:, :, i, j])
        return [out.astype(np.int32)]
    return g, m, "exact", "ConvInteger u8 x u8 3x3 pads (1,0,1,0), scalar x_zero_point and w_zero_point, 2x6x11x9 -> 17 ch", None, exact


def maxpool_case(elem, shape, note, **attrs):
    def build(rng):
        g = G(rng)
        x = g.input("x", elem, shape)
        y = g.node("MaxPool", [x], ["y"], **attrs)
        return g, g.model([vi(y, elem)]), "exact", note
    return build


def batched_matmul(rng):
    g = G(rng)
    a = x_input(g, U8, (2, 5, 17), "a")
    y = qlinear_matmul(g, a, U8, 17, 9)
    return g, g.model([vi(y[0], U8)]), "exact", "QLinearMatMul u8 batched a 2x5x17, constant 2-D b 17x9"


def qlinear_add(rng):
    g = G(rng)
    a = x_input(g, U8, (1, 5, 7, 7), "a")
    b = x_input(g, U8, (1, 5, 7, 7), "b")
    cs = g.const("c_scale", np.float32(0.05))
    cz = g.const("c_zp", np.uint8(128))
    y = g.node("QLinearAdd", [a[0], a[1], a[2], b[0], b[1], b[2], cs, cz], ["y"], domain="com.microsoft")
    return g, g.model([vi(y, U8)], extra_opsets=[("com.microsoft", 1)]), "refused", "com.microsoft QLinearAdd (contrib domain)"


CASES = [
    ("conv_dilation2", conv_case(U8, (1, 5, 13, 11), 7, 3, "QLinearConv u8 3x3 dilations 2 pads 2, 5->7 ch", expect="exact", dilations=[2, 2], pads=[2, 2, 2, 2])),
    ("conv_dilation12_stride21", conv_case(I8, (2, 6, 12, 13), 9, 3, "QLinearConv s8 3x3 dilations (1,2) strides (2,1) pads 1, 6->9 ch", expect="exact", dilations=[1, 2], strides=[2, 1], pads=[1, 1, 1, 1])),
    ("conv_same_upper_s2", conv_case(U8, (1, 7, 13, 10), 11, 3, "QLinearConv u8 3x3 auto_pad SAME_UPPER stride 2, 7->11 ch", auto_pad="SAME_UPPER", strides=[2, 2])),
    ("conv_same_lower", conv_case(I8, (1, 9, 9, 12), 17, (2, 3), "QLinearConv s8 2x3 auto_pad SAME_LOWER stride 1, 9->17 ch", auto_pad="SAME_LOWER")),
    ("conv_same_lower_s2", conv_case(U8, (2, 3, 10, 11), 5, 4, "QLinearConv u8 4x4 auto_pad SAME_LOWER stride 2, 3->5 ch", auto_pad="SAME_LOWER", strides=[2, 2])),
    ("chain_conv3", conv_chain),
    ("chain_matmul3", matmul_chain),
    ("conv_per_channel_zp", conv_per_channel_zp),
    ("matmul_per_column", matmul_per_column),
    ("matmulinteger_row_col_zp", matmul_integer),
    ("convinteger_u8", conv_integer),
    ("maxpool_s8_3x3_s2_ceil", maxpool_case(I8, (1, 5, 11, 10), "MaxPool s8 3x3 stride 2 pads 1 ceil_mode 1", kernel_shape=[3, 3], strides=[2, 2], pads=[1, 1, 1, 1], ceil_mode=1)),
    ("maxpool_u8_3x3_s2_ceil", maxpool_case(U8, (2, 3, 9, 12), "MaxPool u8 3x3 stride 2 pads 1 ceil_mode 1", kernel_shape=[3, 3], strides=[2, 2], pads=[1, 1, 1, 1], ceil_mode=1)),
    ("maxpool_s8_2x2_s2", maxpool_case(I8, (1, 17, 10, 14), "MaxPool s8 2x2 stride 2", kernel_shape=[2, 2], strides=[2, 2])),
    ("maxpool_u8_2x2_s2", maxpool_case(U8, (2, 5, 7, 9), "MaxPool u8 2x2 stride 2 (odd sizes)", kernel_shape=[2, 2], strides=[2, 2])),
    ("matmul_batched_3d", batched_matmul),
    ("refused_conv_group2", conv_case(U8, (1, 6, 9, 9), 8, 3, "QLinearConv group 2 (unsupported: group != 1)", expect="refused", group=2, pads=[1, 1, 1, 1])),
    ("refused_qlinearadd_ms", qlinear_add),
]


def run_ort(model):
    so = ort.SessionOptions()
    so.intra_op_num_threads = 1
    so.inter_op_num_threads = 1
    so.log_severity_level = 4  # a refused form is reported by the script, not logged
    sess = ort.InferenceSession(model.SerializeToString(), so, providers=["CPUExecutionProvider"])
    return sess


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--out-dir", required=True)
    ap.add_argument("--seed", type=int, default=1)
    args = ap.parse_args()
    print(f"onnx_special_models.py: seed {args.seed} (onnx {onnx.__version__}, onnxruntime {ort.__version__})")
    out = args.out_dir
    if os.path.isdir(out):
        shutil.rmtree(out)
    os.makedirs(out)
    lines = []
    for idx, (name, build) in enumerate(CASES):
        rng = np.random.default_rng([args.seed, idx])
        r = build(rng)
        g, model, expect, what = r[:4]
        ref = r[4] if len(r) > 4 else None
        exact_fn = r[5] if len(r) > 5 else None
        feeds = g.feeds
        outputs, how = None, "ort"
        try:
            sess = run_ort(model)
            outputs = sess.run(None, dict(feeds))
        except Exception as e:  # onnxruntime refuses this form: run the equivalent reference graph
            msg = str(e).strip().splitlines()[0][:160]
            if ref is None:
                if expect != "refused":
                    sys.exit(f"onnx_special_models.py: onnxruntime fails on {name}: {msg}")
                how = "no ort outputs"
                print(f"  {name}: onnxruntime does not run it ({msg}); written without outputs")
            else:
                print(f"  {name}: onnxruntime refuses the direct form ({msg}); reference via split graph")
                outputs = run_ort(ref).run(None, dict(feeds))
                how = "ort via split"
        if ref is not None and how == "ort":  # onnxruntime ran the direct form: the split must agree
            for got, want in zip(outputs, run_ort(ref).run(None, dict(feeds))):
                if not np.array_equal(got, want):
                    sys.exit(f"onnx_special_models.py: {name}: onnxruntime's direct and split forms differ")
            how += ", = split graph"
        if exact_fn is not None and outputs is not None:
            for got, want in zip(outputs, exact_fn(feeds)):
                if got.dtype != want.dtype or got.shape != want.shape or not np.array_equal(got, want):
                    sys.exit(f"onnx_special_models.py: {name}: onnxruntime differs from exact integer arithmetic")
            how += ", = numpy exact"
        if outputs is not None:  # the declared output shapes: onnxruntime's
            for o, arr in zip(model.graph.output, outputs):
                o.CopyFrom(helper.make_tensor_value_info(o.name, o.type.tensor_type.elem_type, list(arr.shape)))
        onnx.checker.check_model(model)
        d = os.path.join(out, name)
        ds = os.path.join(d, "test_data_set_0")
        os.makedirs(ds)
        onnx.save(model, os.path.join(d, "model.onnx"))
        for i, (nm, arr) in enumerate(feeds):
            with open(os.path.join(ds, f"input_{i}.pb"), "wb") as f:
                f.write(numpy_helper.from_array(arr, nm).SerializeToString())
        if outputs is not None:
            for i, (o, arr) in enumerate(zip(model.graph.output, outputs)):
                with open(os.path.join(ds, f"output_{i}.pb"), "wb") as f:
                    f.write(numpy_helper.from_array(arr, o.name).SerializeToString())
        lines.append(f"{name} {expect} {what} [{how}]")
        print(f"  {name}: {expect} ({how}) {[tuple(o.shape) for o in outputs] if outputs is not None else ''}")
    with open(os.path.join(out, "index.txt"), "w") as f:
        f.write("# <name> <expect: exact | refused> <what>  (scripts/onnx_special_models.py)\n")
        f.write("\n".join(lines) + "\n")
    print(f"onnx_special_models.py: {len(lines)} cases -> {out}")


if __name__ == "__main__":
    main()
