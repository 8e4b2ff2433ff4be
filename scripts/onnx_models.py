#!/usr/bin/env python3
"""A corpus of small quantized ONNX models with onnxruntime's outputs, for the model runtime's tests.

Usage: onnx_models.py --out-dir DIR [--seed N] [--count N] [--u8s8 N]
       (needs numpy, onnx, onnxruntime: `make setup` installs them)

For every case: a random small float model (one of the families below, random shapes with channel
and feature counts that are often not multiples of 16, random weights and biases) is quantized with
onnxruntime.quantization.quantize_static (MinMax calibration on a few random inputs; QDQ format
mostly, some QOperator), then run by onnxruntime (CPUExecutionProvider, one thread, default graph
optimizations, so it fuses the QDQ groups into its integer kernels) on one random input. Each case
is written in the layout of the ONNX project's node tests, so the same C++ harness reads both:

  DIR/<case>/model.onnx                   the quantized model, with two graph outputs:
                                            0: the float output (the last DequantizeLinear's)
                                            1: the integer tensor that DequantizeLinear reads
                                               (uint8 / int8; named <output>_quantized here when
                                               the quantizer gave it no name of its own)
  DIR/<case>/test_data_set_0/input_0.pb   the float input (TensorProto)
  DIR/<case>/test_data_set_0/output_0.pb  onnxruntime's float output
  DIR/<case>/test_data_set_0/output_1.pb  onnxruntime's integer output (what must match bit for
                                          bit; output 0 is DequantizeLinear of it)
  DIR/<case>/meta.json                    how the case was made and what onnxruntime ran (below)
  DIR/index.json                          every case with its meta data, the counts and the host
  DIR/index.txt                           "<name> <ort_exact 0|1> <format> <family> <float_rounding 0|1> <float_accum 0|1>"

onnxruntime runs the quantized model as quantize_static wrote it (one output), and output 1 is read
back from its float output: the integer tensor whose DequantizeLinear equals it bit for bit (checked;
distinct integers give distinct floats). Running the copy with the extra output instead would
change what onnxruntime fuses (an int8 QDQ Softmax then stays a float Softmax).

Type configurations. "ort_exact" cases (onnxruntime's integer kernels compute the exact ONNX
integer result for them on every x86 host): activations x weights QUInt8 x QUInt8, QInt8 x QInt8
(weights symmetric, so never -128) and QUInt8 x QInt8 with reduce_range=True (7-bit weights), each
with per_channel False and True. A separate, smaller set uses QUInt8 x QInt8 with
reduce_range=False: on x86 CPUs without AVX512-VNNI / AVX-VNNI, onnxruntime's u8 x s8 kernels add
two adjacent u8*s8 products in saturating int16 (vpmaddubsw), so its outputs may differ from the
ONNX specification; those cases say "ort_exact": false and why, and index.json records whether the
generating host had VNNI (then its kernels are exact and no saturation happened).

meta.json: seed (of the case: rerun with it to rebuild the case alone), family, format (QDQ |
QOperator), activation_type, weight_type, per_channel, reduce_range, ops (float model), ops_quantized
(the file), ops_ort (onnxruntime's optimized graph: what actually ran), float_rounding_ops (ops whose
onnxruntime kernels compute in float and may round a rare tie differently from the ONNX float32
definition: QLinearAdd, QLinearAveragePool, QLinearGlobalAveragePool, QLinearSoftmax, ...),
ort_exact, why, input/output shapes, and for the u8s8 cases "saturation": the rule to emulate.

Deterministic for a seed (the seed is printed); the default seed is 1.
"""

import argparse
import json
import os
import shutil
import sys
import tempfile
import time

try:
    import numpy as np
    import onnx
    import onnxruntime as ort
    from onnx import TensorProto, helper, numpy_helper
    from onnxruntime.quantization import (
        CalibrationDataReader,
        QuantFormat,
        QuantType,
        quantize_static,
    )
except ImportError as e:  # the build calls this script: say how to get the packages
    sys.stderr.write(
        f"onnx_models.py: missing Python package ({e}); run `make setup` "
        "(scripts/setup.sh installs numpy, onnx and onnxruntime)\n"
    )
    sys.exit(1)

OPSET = 13  # per-channel QDQ needs >= 13; Softmax is the single-axis form of 13.

EXACT_CONFIGS = [  # (activation, weight, reduce_range)
    ("QUInt8", "QUInt8", False),
    ("QInt8", "QInt8", False),
    ("QUInt8", "QInt8", True),
]
U8S8_CONFIG = ("QUInt8", "QInt8", False)

# onnxruntime's contrib kernels (after its QDQ fusion) that compute in float internally and may
# round a rare tie differently from the ONNX float32 definition of the DQ -> op -> Q group.
FLOAT_ROUNDING_OPS = {
    "QLinearAdd", "QLinearMul", "QLinearAveragePool", "QLinearGlobalAveragePool",
    "QLinearSoftmax", "QLinearSigmoid", "QLinearLeakyRelu", "QLinearConcat",
}
# Float operators with a sum that onnxruntime left unfused (DQ -> op -> Q runs in float32): the
# ONNX specification does not fix the order of a float sum, so a requantized value next to a
# rounding boundary may differ by 1 from another correct implementation.
FLOAT_ACCUM_OPS = {
    "Conv", "MatMul", "Gemm", "AveragePool", "GlobalAveragePool", "Softmax", "FusedConv",
    "FusedGemm", "FusedMatMul", "ReduceMean",
}

SAT_RULE = (
    "x86 without AVX512-VNNI/AVX-VNNI: MLAS QGEMM U8S8 (AVX2 / AVX-512BW kernels) multiplies the raw "
    "uint8 activations (zero point not subtracted) by the raw int8 weights with vpmaddubsw: each "
    "pair of adjacent k (k = 2i, 2i+1 of the packed K dimension, zero-padded to a multiple of 4) "
    "gives a[2i]*w[2i] + a[2i+1]*w[2i+1] saturated to int16 [-32768, 32767]; the int16 pairs are "
    "then added in int32 (vpmaddwd with ones) and the zero points are corrected exactly with row and "
    "column sums. Saturation needs |a*w + a'*w'| > 32767, i.e. weights beyond 7 bits. QLinearConv "
    "(NCHW input) runs as NHWC im2col with K ordered (kh, kw, c_in) per group; MatMul/Gemm K is the "
    "inner dimension. With VNNI (vpdpbusd) the int32 sums are exact. (Our reading of MLAS; not "
    "yet checked against a host without VNNI.)"
)


def cpu_flags():
    try:
        with open("/proc/cpuinfo") as f:
            for line in f:
                if line.startswith("flags"):
                    return set(line.split(":", 1)[1].split())
    except OSError:
        pass
    return set()


# ---------------------------------------------------------------------------------------------
# Float model families. Each returns (nodes, initializers, input shape, output name).


class Builder:
    def __init__(self, rng):
        self.rng = rng
        self.nodes = []
        self.inits = []
        self.n = 0

    def name(self, base):
        self.n += 1
        return f"{base}_{self.n}"

    def const(self, base, arr):
        nm = self.name(base)
        self.inits.append(numpy_helper.from_array(np.asarray(arr, dtype=np.float32), nm))
        return nm

    def const_i64(self, base, arr):
        nm = self.name(base)
        self.inits.append(numpy_helper.from_array(np.asarray(arr, dtype=np.int64), nm))
        return nm

    def node(self, op, inputs, **attrs):
        out = self.name(op.lower())
        self.nodes.append(helper.make_node(op, inputs, [out], name=self.name(op), **attrs))
        return out

    def weight(self, shape, fan_in):
        return self.rng.normal(0.0, 1.0 / np.sqrt(max(fan_in, 1)), size=shape)

    def conv(self, x, cin, cout, k, stride=1, pad=None, bias=True):
        r = self.rng
        if pad is None:
            pad = int(r.integers(0, k // 2 + 1))
        w = self.const("W", self.weight((cout, cin, k, k), cin * k * k))
        ins = [x, w]
        if bias:
            ins.append(self.const("B", r.normal(0.0, 0.2, size=cout)))
        y = self.node("Conv", ins, kernel_shape=[k, k], strides=[stride, stride],
                      pads=[pad, pad, pad, pad])
        out = (None if k > 0 else None)
        return y, pad

    def relu(self, x):
        return self.node("Relu", [x])


def pick(rng, seq):
    return seq[int(rng.integers(0, len(seq)))]


CH = [1, 2, 3, 4, 5, 8, 16, 17, 24, 33]
FEAT = [3, 5, 7, 16, 17, 31, 33, 48, 64]


def conv_out(h, k, s, p):
    return (h + 2 * p - k) // s + 1


def fam_conv_relu(b, r):
    n, cin, cout = pick(r, [1, 2]), pick(r, CH), pick(r, CH)
    h, w = int(r.integers(5, 21)), int(r.integers(5, 21))
    k = pick(r, [1, 3, 3, 5])
    y, _ = b.conv("x", cin, cout, k)
    if r.random() < 0.7:
        y = b.relu(y)
    return (n, cin, h, w), y


def fam_conv_maxpool(b, r):
    n, cin, cout = pick(r, [1, 2]), pick(r, CH), pick(r, CH)
    h, w = int(r.integers(6, 21)), int(r.integers(6, 21))
    y, _ = b.conv("x", cin, cout, 3, pad=1)
    if r.random() < 0.5:
        y = b.relu(y)
    k = pick(r, [2, 3])
    y = b.node("MaxPool", [y], kernel_shape=[k, k], strides=[2, 2])
    return (n, cin, h, w), y


def fam_conv_avgpool(b, r):
    n, cin, cout = pick(r, [1, 2]), pick(r, CH), pick(r, CH)
    h, w = int(r.integers(6, 21)), int(r.integers(6, 21))
    y, _ = b.conv("x", cin, cout, 3, pad=1)
    y = b.relu(y)
    k = pick(r, [2, 3])
    y = b.node("AveragePool", [y], kernel_shape=[k, k], strides=[2, 2])
    return (n, cin, h, w), y


def fam_conv_gap_gemm(b, r):
    n, cin, cout = pick(r, [1, 2]), pick(r, CH), pick(r, CH)
    h, w = int(r.integers(5, 21)), int(r.integers(5, 21))
    y, _ = b.conv("x", cin, cout, 3, pad=1)
    y = b.relu(y)
    y = b.node("GlobalAveragePool", [y])
    y = b.node("Flatten", [y], axis=1)
    nout = pick(r, FEAT)
    wt = b.const("G", b.weight((nout, cout), cout))
    bias = b.const("GB", r.normal(0.0, 0.2, size=nout))
    y = b.node("Gemm", [y, wt, bias], transB=1)
    return (n, cin, h, w), y


def fam_matmul_2d(b, r):
    m, k = int(r.integers(1, 40)), pick(r, FEAT)
    y, cur = "x", k
    for i in range(int(r.integers(1, 4))):
        nxt = pick(r, FEAT)
        y = b.node("MatMul", [y, b.const("M", b.weight((cur, nxt), cur))])
        if r.random() < 0.5:
            y = b.node("Add", [y, b.const("MB", r.normal(0.0, 0.2, size=nxt))])
        if r.random() < 0.5:
            y = b.relu(y)
        cur = nxt
    return (m, k), y


def fam_matmul_3d(b, r):
    bb, m, k = pick(r, [1, 2, 3]), int(r.integers(1, 20)), pick(r, FEAT)
    y, cur = "x", k
    for i in range(int(r.integers(1, 3))):
        nxt = pick(r, FEAT)
        y = b.node("MatMul", [y, b.const("M", b.weight((cur, nxt), cur))])
        if r.random() < 0.5:
            y = b.relu(y)
        cur = nxt
    return (bb, m, k), y


def fam_gemm_relu_gemm(b, r):
    m, k, h, o = pick(r, [1, 2, 3, 7, 16]), pick(r, FEAT), pick(r, FEAT), pick(r, FEAT)
    y = b.node("Gemm", ["x", b.const("G", b.weight((h, k), k)),
                        b.const("GB", r.normal(0.0, 0.2, size=h))], transB=1)
    y = b.relu(y)
    y = b.node("Gemm", [y, b.const("G", b.weight((o, h), h)),
                        b.const("GB", r.normal(0.0, 0.2, size=o))], transB=1)
    return (m, k), y


def fam_residual(b, r):
    n, c = pick(r, [1, 2]), pick(r, CH)
    h, w = int(r.integers(5, 21)), int(r.integers(5, 21))
    y1, _ = b.conv("x", c, c, 3, pad=1)
    y1 = b.relu(y1)
    y2, _ = b.conv(y1, c, c, 3, pad=1)
    skip = "x" if r.random() < 0.5 else y1
    y = b.node("Add", [y2, skip])
    if r.random() < 0.5:
        y = b.relu(y)
    return (n, c, h, w), y


def fam_conv_stride2(b, r):
    n, cin, cout = pick(r, [1, 2]), pick(r, CH), pick(r, CH)
    h, w = int(r.integers(5, 21)), int(r.integers(5, 21))
    k = pick(r, [1, 3, 5])
    pad = int(r.integers(1, k // 2 + 2)) if k > 1 else int(r.integers(0, 2))
    y, _ = b.conv("x", cin, cout, k, stride=2, pad=min(pad, k - 1) if k > 1 else pad)
    if r.random() < 0.6:
        y = b.relu(y)
    return (n, cin, h, w), y


def fam_concat_convs(b, r):
    n, cin = pick(r, [1, 2]), pick(r, CH)
    c1, c2 = pick(r, CH), pick(r, CH)
    h, w = int(r.integers(5, 21)), int(r.integers(5, 21))
    y1, _ = b.conv("x", cin, c1, 3, pad=1)
    y2, _ = b.conv("x", cin, c2, 1, pad=0)
    y = b.node("Concat", [b.relu(y1), y2], axis=1)
    return (n, cin, h, w), y


def fam_reshape_transpose(b, r):
    if r.random() < 0.5:  # Conv -> Reshape [N, C, HW] -> Transpose [N, HW, C] -> MatMul
        n, cin, cout = pick(r, [1, 2]), pick(r, CH), pick(r, CH)
        h, w = int(r.integers(5, 13)), int(r.integers(5, 13))
        y, _ = b.conv("x", cin, cout, 3, pad=1)
        y = b.node("Reshape", [y, b.const_i64("shape", [n, cout, h * w])])
        y = b.node("Transpose", [y], perm=[0, 2, 1])
        o = pick(r, FEAT)
        y = b.node("MatMul", [y, b.const("M", b.weight((cout, o), cout))])
        return (n, cin, h, w), y
    # MatMul [M, K] -> [M, N=a*c] -> Reshape [M, a, c] -> Transpose [M, c, a] -> MatMul
    m, k = int(r.integers(1, 20)), pick(r, FEAT)
    a, c = pick(r, [2, 3, 4, 5]), pick(r, [3, 4, 7, 8])
    y = b.node("MatMul", ["x", b.const("M", b.weight((k, a * c), k))])
    y = b.node("Reshape", [y, b.const_i64("shape", [m, a, c])])
    y = b.node("Transpose", [y], perm=[0, 2, 1])
    o = pick(r, FEAT)
    y = b.node("MatMul", [y, b.const("M", b.weight((a, o), a))])
    return (m, k), y


def fam_softmax(b, r):
    if r.random() < 0.5:
        m, k, o = pick(r, [1, 2, 5]), pick(r, FEAT), pick(r, FEAT)
        y = b.node("Gemm", ["x", b.const("G", b.weight((o, k), k) * 3.0),
                            b.const("GB", r.normal(0.0, 0.5, size=o))], transB=1)
        shape = (m, k)
    else:
        bb, m, k, o = pick(r, [1, 2]), int(r.integers(1, 10)), pick(r, FEAT), pick(r, FEAT)
        y = b.node("MatMul", ["x", b.const("M", b.weight((k, o), k) * 3.0)])
        shape = (bb, m, k)
    y = b.node("Softmax", [y], axis=-1)
    return shape, y


FAMILIES = [
    ("conv_relu", fam_conv_relu),
    ("conv_maxpool", fam_conv_maxpool),
    ("conv_avgpool", fam_conv_avgpool),
    ("conv_gap_gemm", fam_conv_gap_gemm),
    ("matmul_2d", fam_matmul_2d),
    ("matmul_3d", fam_matmul_3d),
    ("gemm_relu_gemm", fam_gemm_relu_gemm),
    ("residual_add", fam_residual),
    ("conv_stride2", fam_conv_stride2),
    ("concat_convs", fam_concat_convs),
    ("reshape_transpose", fam_reshape_transpose),
    ("softmax", fam_softmax),
]


def float_model(family_fn, rng):
    b = Builder(rng)
    shape, out = family_fn(b, rng)
    # The last node's output is the graph output "y".
    b.nodes[-1].output[0] = "y"
    graph = helper.make_graph(
        b.nodes, "weft_corpus",
        [helper.make_tensor_value_info("x", TensorProto.FLOAT, list(shape))],
        [helper.make_tensor_value_info("y", TensorProto.FLOAT, None)],
        b.inits)
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", OPSET)])
    model.ir_version = 8
    model = onnx.shape_inference.infer_shapes(model)
    onnx.checker.check_model(model)
    return model, shape


# ---------------------------------------------------------------------------------------------


class Reader(CalibrationDataReader):
    def __init__(self, inputs):
        self.it = iter([{"x": a} for a in inputs])

    def get_next(self):
        return next(self.it, None)


def random_input(rng, shape, offset):
    return (rng.normal(0.0, 1.0, size=shape) + offset).astype(np.float32)


def session(model_bytes, optimized_path=None):
    so = ort.SessionOptions()
    so.intra_op_num_threads = 1
    so.inter_op_num_threads = 1
    so.log_severity_level = 3
    if optimized_path:
        so.optimized_model_filepath = optimized_path
    return ort.InferenceSession(model_bytes, so, providers=["CPUExecutionProvider"])


def add_integer_output(qmodel):
    """A copy of qmodel whose second graph output is the integer tensor the last
    DequantizeLinear reads; None when the float output is not produced by a DequantizeLinear."""
    m = onnx.ModelProto()
    m.CopyFrom(qmodel)
    g = m.graph
    out = g.output[0].name
    prod = [n for n in g.node if out in n.output]
    if len(prod) != 1 or prod[0].op_type != "DequantizeLinear":
        return None, None
    qname = prod[0].input[0]
    elem = None
    for vi in list(g.value_info) + list(g.input):
        if vi.name == qname:
            elem = vi.type.tensor_type.elem_type
    if elem is None:  # the producer is a QuantizeLinear: the zero point gives the type
        zp = prod[0].input[2] if len(prod[0].input) > 2 else ""
        for t in g.initializer:
            if t.name == zp:
                elem = t.data_type
    if elem is None:
        return None, None
    g.output.append(helper.make_tensor_value_info(qname, elem, None))
    return m, qname


def invert_final_dq(qmodel, y):
    """The integer tensor q with DequantizeLinear(q) == y bit for bit, for the per-tensor final
    DequantizeLinear of qmodel. Read back from the float output rather than from an extra graph
    output of the run: with its input as a graph output, onnxruntime may fuse less (an int8 QDQ
    Softmax then stays a float Softmax instead of QLinearSoftmax)."""
    g = qmodel.graph
    dq = [n for n in g.node if g.output[0].name in n.output][0]
    inits = {t.name: numpy_helper.to_array(t) for t in g.initializer}
    scale = np.asarray(inits[dq.input[1]], dtype=np.float32)
    zp = np.asarray(inits[dq.input[2]]) if len(dq.input) > 2 and dq.input[2] else np.uint8(0)
    if scale.size != 1 or zp.size != 1 or not scale.reshape(-1)[0] > 0:
        raise RuntimeError("final DequantizeLinear is not per tensor with a positive scale")
    s, z = scale.reshape(-1)[0], int(zp.reshape(-1)[0])
    info = np.iinfo(zp.dtype)
    q = np.clip(np.rint(y.astype(np.float64) / float(s)) + z, info.min, info.max).astype(zp.dtype)
    back = (q.astype(np.int32) - z).astype(np.float32) * s
    if y.dtype != np.float32 or not np.array_equal(back.view(np.uint32), y.view(np.uint32)):
        raise RuntimeError("onnxruntime's float output is not DequantizeLinear of an integer tensor")
    return q


def make_case(idx, case_seed, family, fam_fn, fmt, act, wt, per_channel, rr, exact, tmp):
    rng = np.random.default_rng(case_seed)
    fmodel, shape = float_model(fam_fn, rng)
    offset = float(rng.choice([0.0, 0.0, 0.5, -0.3]))
    calib = [random_input(rng, shape, offset) for _ in range(4)]
    x = random_input(rng, shape, offset)
    qpath = os.path.join(tmp, "q.onnx")
    quantize_static(
        fmodel, qpath, Reader(calib),
        quant_format=QuantFormat.QDQ if fmt == "QDQ" else QuantFormat.QOperator,
        per_channel=per_channel, reduce_range=rr,
        activation_type=getattr(QuantType, act), weight_type=getattr(QuantType, wt),
        extra_options={"WeightSymmetric": wt == "QInt8"})
    qmodel = onnx.load(qpath)
    opt_path = os.path.join(tmp, "opt.onnx")
    y = session(qmodel.SerializeToString(), opt_path).run(None, {"x": x})[0]
    aug, qname = add_integer_output(qmodel)
    if aug is None:
        raise RuntimeError("final output is not a DequantizeLinear")
    yq = invert_final_dq(qmodel, y)
    ort_ops = [n.op_type for n in onnx.load(opt_path).graph.node]
    ops = [n.op_type for n in fmodel.graph.node]
    qops = [n.op_type for n in aug.graph.node]
    fr = sorted({o for o in ort_ops if o in FLOAT_ROUNDING_OPS})
    fa = sorted({o for o in ort_ops if o in FLOAT_ACCUM_OPS})
    if exact:
        why = ("onnxruntime's integer kernels compute the exact ONNX integer results for "
               f"{act} x {wt}" + (" with 7-bit weights (reduce_range)" if rr else "") +
               " on every x86 host")
        if fr:
            why += ("; " + ", ".join(fr) +
                    " compute in float inside onnxruntime and may round a rare tie differently")
        if fa:
            why += ("; onnxruntime left " + ", ".join(fa) + " unfused (float32 sums in its own "
                    "order), so a value next to a rounding boundary may differ by 1")
    else:
        why = ("QUInt8 activations x QInt8 weights with full-range (8-bit) weights: on x86 without "
               "AVX512-VNNI / AVX-VNNI onnxruntime's u8s8 kernels add adjacent u8*s8 products in "
               "saturating int16 (vpmaddubsw), so its outputs may differ from the ONNX "
               "specification; see 'saturation' and index.json host.vnni")
    meta = {
        "seed": case_seed, "index": idx, "family": family, "format": fmt,
        "activation_type": act, "weight_type": wt, "per_channel": per_channel,
        "reduce_range": rr, "ops": ops, "ops_quantized": qops, "ops_ort": ort_ops,
        "float_rounding_ops": fr, "float_accum_ops": fa, "ort_exact": exact, "why": why,
        "input_shape": list(shape), "output_shape": list(y.shape),
        "integer_output": qname, "integer_output_type": str(yq.dtype),
    }
    if not exact:
        meta["saturation"] = {"rule": SAT_RULE, "int16_min": -32768, "int16_max": 32767}
    return aug, x, y, yq, meta


def case_name(idx, family, fmt, act, wt, pc, rr, exact):
    t = {"QUInt8": "u8", "QInt8": "s8"}
    s = f"{idx:03d}_{family}_{fmt.lower()}_{t[act]}{t[wt]}"
    s += "_pc" if pc else ""
    s += "_rr" if rr else ""
    s += "" if exact else "_sat"
    return s


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--out-dir", required=True)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--count", type=int, default=300, help="ort_exact cases (default 300)")
    ap.add_argument("--u8s8", type=int, default=None,
                    help="full-range u8 x s8 cases (default count * 2 / 15, i.e. 40)")
    args = ap.parse_args()
    n_u8s8 = args.u8s8 if args.u8s8 is not None else (args.count * 2) // 15
    t0 = time.time()
    print(f"onnx_models.py: seed {args.seed}, {args.count} exact + {n_u8s8} u8s8 cases -> "
          f"{args.out_dir}", flush=True)
    ort.set_default_logger_severity(3)
    import logging
    logging.getLogger().setLevel(logging.ERROR)

    out = args.out_dir
    os.makedirs(out, exist_ok=True)
    if os.path.exists(os.path.join(out, "index.json")):
        os.remove(os.path.join(out, "index.json"))
    for d in os.listdir(out):  # the previous corpus
        p = os.path.join(out, d)
        if os.path.isdir(p) and os.path.exists(os.path.join(p, "meta.json")):
            shutil.rmtree(p)

    master = np.random.default_rng(args.seed)
    plan = []
    # Case i is of family i % 12 (below) and, over every 72 cases, of each family x type
    # configuration x per_channel combination once.
    nfam = len(FAMILIES)
    for i in range(args.count):
        act, wt, rr = EXACT_CONFIGS[(i // nfam) % 3]
        pc = (i // nfam // 3) % 2 == 1
        fmt = "QOperator" if master.random() < 0.2 else "QDQ"
        plan.append((True, act, wt, rr, pc, fmt))
    for i in range(n_u8s8):
        act, wt, rr = U8S8_CONFIG
        fmt = "QOperator" if master.random() < 0.2 else "QDQ"
        plan.append((False, act, wt, rr, (i // nfam) % 2 == 1, fmt))

    flags = cpu_flags()
    vnni = bool(flags & {"avx512_vnni", "avx_vnni"})
    cases, skipped = [], 0
    with tempfile.TemporaryDirectory() as tmp:
        for idx, (exact, act, wt, rr, pc, fmt) in enumerate(plan):
            family, fam_fn = FAMILIES[idx % len(FAMILIES)]
            for attempt in range(4):  # a rare shape onnxruntime refuses: draw another
                case_seed = int(master.integers(0, 2**31 - 1))
                try:
                    model, x, y, yq, meta = make_case(idx, case_seed, family, fam_fn, fmt, act, wt,
                                                      pc, rr, exact, tmp)
                    break
                except Exception as e:  # noqa: BLE001 -- reported, then another draw
                    skipped += 1
                    print(f"  case {idx} {family} seed {case_seed}: {type(e).__name__}: "
                          f"{str(e).splitlines()[0][:160]}; drawing again", flush=True)
            else:
                sys.exit(f"onnx_models.py: case {idx} ({family}) failed 4 times")
            name = case_name(idx, family, fmt, act, wt, pc, rr, exact)
            d = os.path.join(out, name)
            os.makedirs(os.path.join(d, "test_data_set_0"))
            onnx.save(model, os.path.join(d, "model.onnx"))
            ds = os.path.join(d, "test_data_set_0")
            for fn, arr, nm in (("input_0.pb", x, "x"), ("output_0.pb", y, "y"),
                                ("output_1.pb", yq, meta["integer_output"])):
                with open(os.path.join(ds, fn), "wb") as f:
                    f.write(numpy_helper.from_array(arr, nm).SerializeToString())
            meta["name"] = name
            with open(os.path.join(d, "meta.json"), "w") as f:
                json.dump(meta, f, indent=1, sort_keys=True)
            cases.append(meta)

    index = {
        "generator": "scripts/onnx_models.py",
        "seed": args.seed,
        "onnx": onnx.__version__,
        "onnxruntime": ort.__version__,
        "opset": OPSET,
        "host": {"vnni": vnni, "vnni_flags": sorted(flags & {"avx512_vnni", "avx_vnni"})},
        "count_exact": sum(1 for c in cases if c["ort_exact"]),
        "count_u8s8": sum(1 for c in cases if not c["ort_exact"]),
        "redrawn": skipped,
        "cases": [{k: c[k] for k in ("name", "family", "format", "activation_type",
                                     "weight_type", "per_channel", "reduce_range", "ort_exact",
                                     "float_rounding_ops",
                                     "float_accum_ops")} for c in cases],
    }
    # index.txt: the same list for readers without JSON (the C++ tests): one case a line,
    # "<name> <ort_exact 0|1> <format> <family> <float_rounding 0|1> <float_accum 0|1>" (whether
    # onnxruntime ran some op with float rounding / float accumulation); written before index.json.
    with open(os.path.join(out, "index.txt"), "w") as f:
        f.write("# name ort_exact format family float_rounding float_accum (scripts/onnx_models.py, "
                "seed %d)\n" % args.seed)
        for c in cases:
            f.write(f"{c['name']} {int(c['ort_exact'])} {c['format']} {c['family']} "
                    f"{int(bool(c['float_rounding_ops']))} {int(bool(c['float_accum_ops']))}\n")
    with open(os.path.join(out, "index.json"), "w") as f:
        json.dump(index, f, indent=1, sort_keys=True)
    dt = time.time() - t0
    print(f"onnx_models.py: seed {args.seed}: {index['count_exact']} exact + "
          f"{index['count_u8s8']} u8s8 cases ({skipped} redrawn), host VNNI {vnni}, "
          f"{dt:.1f} s", flush=True)


if __name__ == "__main__":
    main()
