#!/usr/bin/env python3
"""Train, export and quantize Weft's example networks (sw/model/networks/).

    nice -n 5 python3 scripts/models/make_networks.py --out sw/model/networks [--seed 1]
        [--weft build/bin/weft] [--only digits_mlp,fashion_cnn,...]

Never run by the tests. Trains three small networks in plain numpy (single-threaded BLAS, so the
result is deterministic for a seed), exports each float model with onnx.helper (opset 13, input
"input" with a symbolic batch "N", output "logits"), quantizes it with onnxruntime's
quantize_static (QDQ, per-channel weights, QInt8 activations x QInt8 symmetric weights, MinMax
calibration on training images), and writes for each quantized model <name>.onnx and
<name>.predictions (onnxruntime's argmax for every test image). fashion_cnn_qop is the fashion CNN
in QOperator format, its final Gemm replaced by the equivalent 7x7 Conv + Flatten so that the file
holds only standard ONNX operators. With --weft, each quantized model is also run through
`weft run ... --device ref:// --check` on a small batch of test images. networks.json records the
figures; README.md in the output directory is written by hand from them.

Data (Debian packages python3-sklearn and dataset-fashion-mnist):
  digits: sklearn's digits.csv.gz, 1797 rows of 64 pixels (0..16) + label; TEST = rows with
          index % 5 == 4 (360), TRAIN = the rest (1437); input float32 pixel / 16, shape [N, 64].
  Fashion-MNIST: IDX files; TRAIN = the 60 000 training images, TEST = t10k (10 000);
          input float32 pixel / 255, shape [N, 1, 28, 28].
"""
import os

os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")  # deterministic sums, modest CPU use
os.environ.setdefault("OMP_NUM_THREADS", "1")
os.environ.setdefault("MKL_NUM_THREADS", "1")

import argparse
import gzip
import json
import subprocess
import sys
import tempfile
import time

import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper
import onnxruntime as ort
from onnxruntime.quantization import (CalibrationDataReader, CalibrationMethod, QuantFormat,
                                      QuantType, quantize_static)

DIGITS_CSV = "/usr/lib/python3/dist-packages/sklearn/datasets/data/digits.csv.gz"
FASHION_DIR = "/usr/share/datasets/fashion-mnist"
OPSET = 13
CALIB_IMAGES = 400
CHECK_BATCH = 8


# ----------------------------------------------------------------------------------------- data
def load_digits():
    with gzip.open(DIGITS_CSV, "rt") as f:
        rows = np.loadtxt(f, delimiter=",", dtype=np.int64)
    x = (rows[:, :64].astype(np.float32) / np.float32(16.0)).astype(np.float32)
    y = rows[:, 64].astype(np.int64)
    test = np.arange(len(rows)) % 5 == 4
    return x[~test], y[~test], x[test], y[test]


def _idx(path):
    with gzip.open(path, "rb") as f:
        data = f.read()
    ndim = data[3]
    dims = [int.from_bytes(data[4 + 4 * i:8 + 4 * i], "big") for i in range(ndim)]
    return np.frombuffer(data, np.uint8, offset=4 + 4 * ndim).reshape(dims)


def load_fashion():
    def part(prefix):
        img = _idx(f"{FASHION_DIR}/{prefix}-images-idx3-ubyte.gz")
        lab = _idx(f"{FASHION_DIR}/{prefix}-labels-idx1-ubyte.gz").astype(np.int64)
        x = (img.astype(np.float32) / np.float32(255.0)).astype(np.float32)[:, None, :, :]
        return x, lab
    xtr, ytr = part("train")
    xte, yte = part("t10k")
    return xtr, ytr, xte, yte


# ------------------------------------------------------------------------------- numpy layers
def im2col(x, k, pad):
    """x [N,C,H,W] -> [N*OH*OW, C*k*k] (stride 1), columns ordered (c, kh, kw) like OIHW."""
    n, c, h, w = x.shape
    xp = np.pad(x, ((0, 0), (0, 0), (pad, pad), (pad, pad)))
    win = np.lib.stride_tricks.sliding_window_view(xp, (k, k), axis=(2, 3))  # N,C,OH,OW,k,k
    oh, ow = win.shape[2], win.shape[3]
    return np.ascontiguousarray(win.transpose(0, 2, 3, 1, 4, 5)).reshape(n * oh * ow, c * k * k), oh, ow


def col2im(dcols, xshape, k, pad, oh, ow):
    n, c, h, w = xshape
    d = dcols.reshape(n, oh, ow, c, k, k).transpose(0, 3, 4, 5, 1, 2)  # N,C,k,k,OH,OW
    dxp = np.zeros((n, c, h + 2 * pad, w + 2 * pad), np.float32)
    for i in range(k):
        for j in range(k):
            dxp[:, :, i:i + oh, j:j + ow] += d[:, :, i, j]
    return dxp[:, :, pad:pad + h, pad:pad + w]


class Conv:
    def __init__(self, rng, cin, cout, k, pad):
        self.k, self.pad = k, pad
        fan_in = cin * k * k
        self.W = (rng.standard_normal((cout, cin, k, k)) * np.sqrt(2.0 / fan_in)).astype(np.float32)
        self.b = np.zeros(cout, np.float32)

    def params(self):
        return [self.W, self.b]

    def fwd(self, x):
        cols, oh, ow = im2col(x, self.k, self.pad)
        self.cache = (cols, x.shape, oh, ow)
        y = cols @ self.W.reshape(len(self.W), -1).T + self.b
        return y.reshape(x.shape[0], oh, ow, -1).transpose(0, 3, 1, 2)

    def bwd(self, dy):
        cols, xshape, oh, ow = self.cache
        dyc = dy.transpose(0, 2, 3, 1).reshape(-1, dy.shape[1])
        self.grads = [(dyc.T @ cols).reshape(self.W.shape), dyc.sum(0)]
        return col2im(dyc @ self.W.reshape(len(self.W), -1), xshape, self.k, self.pad, oh, ow)


class Dense:
    def __init__(self, rng, cin, cout, relu_gain=True):
        g = 2.0 if relu_gain else 1.0
        self.W = (rng.standard_normal((cout, cin)) * np.sqrt(g / cin)).astype(np.float32)  # [out,in]
        self.b = np.zeros(cout, np.float32)

    def params(self):
        return [self.W, self.b]

    def fwd(self, x):
        self.x = x
        return x @ self.W.T + self.b

    def bwd(self, dy):
        self.grads = [dy.T @ self.x, dy.sum(0)]
        return dy @ self.W


class Relu:
    def fwd(self, x):
        self.m = x > 0
        return x * self.m

    def bwd(self, dy):
        return dy * self.m


class MaxPool2:
    def fwd(self, x):
        n, c, h, w = x.shape
        xr = x.reshape(n, c, h // 2, 2, w // 2, 2)
        y = xr.max(axis=(3, 5))
        m = xr == y[:, :, :, None, :, None]
        # one winner per window (the first), so a tie does not double the gradient
        flat = m.transpose(0, 1, 2, 4, 3, 5).reshape(n, c, h // 2, w // 2, 4)
        first = np.zeros_like(flat)
        np.put_along_axis(first, flat.argmax(-1)[..., None], True, axis=-1)
        self.mask = first.reshape(n, c, h // 2, w // 2, 2, 2).transpose(0, 1, 2, 4, 3, 5)
        self.shape = x.shape
        return y

    def bwd(self, dy):
        d = self.mask * dy[:, :, :, None, :, None]
        return d.reshape(self.shape).astype(np.float32)


class Flatten:
    def fwd(self, x):
        self.shape = x.shape
        return x.reshape(x.shape[0], -1)

    def bwd(self, dy):
        return dy.reshape(self.shape)


class Seq:
    def __init__(self, *layers):
        self.layers = layers

    def params(self):
        return [p for l in self.layers if hasattr(l, "params") for p in l.params()]

    def grads(self):
        return [g for l in self.layers if hasattr(l, "params") for g in l.grads]

    def fwd(self, x):
        for l in self.layers:
            x = l.fwd(x)
        return x

    def bwd(self, dy):
        for l in reversed(self.layers):
            dy = l.bwd(dy)
        return dy


class Residual:
    """conv1 relu pool -> p; conv2 relu conv3 -> r; relu(p + r); pool; flatten; fc."""

    def __init__(self, rng):
        self.c1, self.r1, self.p1 = Conv(rng, 1, 16, 3, 1), Relu(), MaxPool2()
        self.c2, self.r2 = Conv(rng, 16, 16, 3, 1), Relu()
        self.c3 = Conv(rng, 16, 16, 3, 1)
        self.c3.W *= np.float32(0.5)  # start the residual branch small
        self.r3, self.p2, self.fl = Relu(), MaxPool2(), Flatten()
        self.fc = Dense(rng, 16 * 7 * 7, 10, relu_gain=False)
        self.mods = [self.c1, self.c2, self.c3, self.fc]

    def params(self):
        return [p for m in self.mods for p in m.params()]

    def grads(self):
        return [g for m in self.mods for g in m.grads]

    def fwd(self, x):
        p = self.p1.fwd(self.r1.fwd(self.c1.fwd(x)))
        r = self.c3.fwd(self.r2.fwd(self.c2.fwd(p)))
        y = self.r3.fwd(p + r)
        return self.fc.fwd(self.fl.fwd(self.p2.fwd(y)))

    def bwd(self, dy):
        d = self.r3.bwd(self.p2.bwd(self.fl.bwd(self.fc.bwd(dy))))
        dp = d + self.c2.bwd(self.r2.bwd(self.c3.bwd(d)))
        self.c1.bwd(self.r1.bwd(self.p1.bwd(dp)))


def softmax_ce(logits, y):
    z = logits - logits.max(1, keepdims=True)
    e = np.exp(z)
    p = e / e.sum(1, keepdims=True)
    loss = -np.log(p[np.arange(len(y)), y] + 1e-12).mean()
    d = p.copy()
    d[np.arange(len(y)), y] -= 1
    return loss, (d / len(y)).astype(np.float32)


class Adam:
    def __init__(self, params, lr, b1=0.9, b2=0.999, eps=1e-8):
        self.p, self.lr, self.b1, self.b2, self.eps = params, lr, b1, b2, eps
        self.m = [np.zeros_like(p) for p in params]
        self.v = [np.zeros_like(p) for p in params]
        self.t = 0

    def step(self, grads):
        self.t += 1
        c1, c2 = 1 - self.b1 ** self.t, 1 - self.b2 ** self.t
        for p, g, m, v in zip(self.p, grads, self.m, self.v):
            m *= self.b1
            m += (1 - self.b1) * g
            v *= self.b2
            v += (1 - self.b2) * g * g
            p -= (self.lr * (m / c1) / (np.sqrt(v / c2) + self.eps)).astype(np.float32)


def train(net, xtr, ytr, epochs, batch, lr, rng, name, lr_decay=1.0):
    opt = Adam(net.params(), lr)
    for ep in range(epochs):
        order = rng.permutation(len(xtr))
        tot, nb, t0 = 0.0, 0, time.time()
        for i in range(0, len(order), batch):
            idx = order[i:i + batch]
            loss, d = softmax_ce(net.fwd(xtr[idx]), ytr[idx])
            net.bwd(d)
            opt.step(net.grads())
            tot += loss
            nb += 1
        opt.lr *= lr_decay
        print(f"  {name}: epoch {ep + 1}/{epochs} loss {tot / nb:.4f} ({time.time() - t0:.0f} s)",
              flush=True)


def predict_numpy(net, x, batch=500):
    return np.concatenate([net.fwd(x[i:i + batch]).argmax(1) for i in range(0, len(x), batch)])


# -------------------------------------------------------------------------------------- export
def init(name, a):
    return numpy_helper.from_array(np.ascontiguousarray(a, dtype=np.float32), name)


def make_model(name, nodes, inits, in_shape):
    g = helper.make_graph(
        nodes, name,
        [helper.make_tensor_value_info("input", TensorProto.FLOAT, ["N"] + list(in_shape))],
        [helper.make_tensor_value_info("logits", TensorProto.FLOAT, None)],
        initializer=inits)
    m = helper.make_model(g, opset_imports=[helper.make_opsetid("", OPSET)],
                          producer_name="weft scripts/models/make_networks.py")
    m.ir_version = 8
    m = onnx.shape_inference.infer_shapes(m)
    onnx.checker.check_model(m, full_check=True)
    return m


def conv_node(inp, out, prefix, conv, pad=None):
    p = conv.pad if pad is None else pad
    return helper.make_node("Conv", [inp, prefix + ".W", prefix + ".b"], [out], name=prefix,
                            kernel_shape=[conv.k, conv.k], pads=[p, p, p, p])


def conv_inits(prefix, conv):
    return [init(prefix + ".W", conv.W), init(prefix + ".b", conv.b)]


def gemm(inp, out, prefix):
    return helper.make_node("Gemm", [inp, prefix + ".W", prefix + ".b"], [out], name=prefix, transB=1)


def pool(inp, out, name):
    return helper.make_node("MaxPool", [inp], [out], name=name, kernel_shape=[2, 2], strides=[2, 2])


def relu(inp, out, name):
    return helper.make_node("Relu", [inp], [out], name=name)


def export_mlp(net):
    d1, _, d2, _, d3 = net.layers
    nodes = [gemm("input", "h1", "fc1"), relu("h1", "a1", "relu1"),
             gemm("a1", "h2", "fc2"), relu("h2", "a2", "relu2"),
             gemm("a2", "logits", "fc3")]
    inits = [init(f"fc{i}.{k}", a) for i, d in enumerate((d1, d2, d3), 1)
             for k, a in (("W", d.W), ("b", d.b))]
    return make_model("digits_mlp", nodes, inits, [64])


def export_cnn(net, qop_form=False):
    c1, _, _, c2, _, _, _, fc = net.layers
    nodes = [conv_node("input", "c1", "conv1", c1), relu("c1", "r1", "relu1"), pool("r1", "p1", "pool1"),
             conv_node("p1", "c2", "conv2", c2), relu("c2", "r2", "relu2"), pool("r2", "p2", "pool2")]
    inits = conv_inits("conv1", c1) + conv_inits("conv2", c2)
    if not qop_form:
        nodes += [helper.make_node("Flatten", ["p2"], ["flat"], name="flatten", axis=1),
                  gemm("flat", "logits", "fc")]
        inits += [init("fc.W", fc.W), init("fc.b", fc.b)]
        return make_model("fashion_cnn", nodes, inits, [1, 28, 28])
    # the Gemm over the flattened [32,7,7] (C, H, W order) is a 7x7 Conv 32 -> 10, no padding
    nodes += [helper.make_node("Conv", ["p2", "fc.W", "fc.b"], ["fcconv"], name="fc",
                               kernel_shape=[7, 7]),
              helper.make_node("Flatten", ["fcconv"], ["logits"], name="flatten", axis=1)]
    inits += [init("fc.W", fc.W.reshape(10, 32, 7, 7)), init("fc.b", fc.b)]
    return make_model("fashion_cnn_qop", nodes, inits, [1, 28, 28])


def export_residual(net):
    nodes = [conv_node("input", "c1", "conv1", net.c1), relu("c1", "r1", "relu1"),
             pool("r1", "p1", "pool1"),
             conv_node("p1", "c2", "conv2", net.c2), relu("c2", "r2", "relu2"),
             conv_node("r2", "c3", "conv3", net.c3),
             helper.make_node("Add", ["p1", "c3"], ["sum"], name="add"), relu("sum", "r3", "relu3"),
             pool("r3", "p2", "pool2"),
             helper.make_node("Flatten", ["p2"], ["flat"], name="flatten", axis=1),
             gemm("flat", "logits", "fc")]
    inits = (conv_inits("conv1", net.c1) + conv_inits("conv2", net.c2) + conv_inits("conv3", net.c3)
             + [init("fc.W", net.fc.W), init("fc.b", net.fc.b)])
    return make_model("fashion_residual", nodes, inits, [1, 28, 28])


# ---------------------------------------------------------------------------------- quantizing
class Reader(CalibrationDataReader):
    def __init__(self, x, batch=50):
        self.batches = [{"input": x[i:i + batch]} for i in range(0, len(x), batch)]
        self.i = 0

    def get_next(self):
        if self.i >= len(self.batches):
            return None
        self.i += 1
        return self.batches[self.i - 1]


def quantize(float_model, calib, path, fmt, tmp):
    fpath = os.path.join(tmp, os.path.basename(path) + ".float.onnx")
    onnx.save(float_model, fpath)
    quantize_static(fpath, path, Reader(calib),
                    quant_format=fmt, per_channel=True, reduce_range=False,
                    activation_type=QuantType.QInt8, weight_type=QuantType.QInt8,
                    calibrate_method=CalibrationMethod.MinMax,
                    extra_options={"WeightSymmetric": True, "ActivationSymmetric": False})
    return fpath


def share_add_scales(path):
    """Gives each QDQ Add's two inputs and its output one scale, the largest of the three (zero
    points kept, so every range only grows and the Relu folded into the output's zero point
    stays). onnxruntime runs a QDQ Add as its QLinearAdd kernel, which on x86 computes
    (zc - (ra*za + rb*zb)) + a*ra + b*rb in float32 with ra = sa/sc, rb = sb/sc: not the
    specification's ((a-za)*sa + (b-zb)*sb)/sc, and a different rounding of it (Weft follows
    the specification; one of 10 000 Fashion-MNIST predictions differed). With sa = sb = sc
    both are the exact integer a - za + b - zb + zc, so onnxruntime's predictions can be compared
    one to one."""
    m = onnx.load(path)
    nodes = list(m.graph.node)
    producer = {o: n for n in nodes for o in n.output}
    inits = {t.name: t for t in m.graph.initializer}
    changed = []
    for add in (n for n in nodes if n.op_type == "Add"):
        dqs = [producer[i] for i in add.input]
        assert all(d.op_type == "DequantizeLinear" for d in dqs), "a QDQ Add"
        qs = [n for n in nodes if add.output[0] in n.input]
        assert len(qs) == 1 and qs[0].op_type == "QuantizeLinear", "a QDQ Add"
        names = {d.input[1] for d in dqs} | {qs[0].input[1]}
        # The QuantizeLinear nodes making the Add's inputs must use the same scale initializers.
        for d in dqs:
            q_in = producer.get(d.input[0])
            if q_in is not None and q_in.op_type == "QuantizeLinear":
                names.add(q_in.input[1])
        scale = max(float(numpy_helper.to_array(inits[n])) for n in names)
        for n in names:
            inits[n].CopyFrom(numpy_helper.from_array(np.array(scale, dtype=np.float32), n))
        changed.append((add.name, sorted(names), scale))
    # A Conv / Gemm reading a tensor whose scale changed: its int32 bias is requantized to the new
    # x_scale * w_scale (the runtime and onnxruntime add it to the accumulator as is).
    all_names = {n for _, ns, _ in changed for n in ns}
    for n in nodes:
        if n.op_type not in ("Conv", "Gemm") or len(n.input) < 3:
            continue
        dqx, dqw, dqb = (producer[i] for i in n.input[:3])
        if dqx.input[1] not in all_names:
            continue
        x_scale = np.float32(numpy_helper.to_array(inits[dqx.input[1]]))
        w_scale = numpy_helper.to_array(inits[dqw.input[1]]).astype(np.float32)
        old_q = numpy_helper.to_array(inits[dqb.input[0]]).astype(np.float64)
        old_s = numpy_helper.to_array(inits[dqb.input[1]]).astype(np.float64)
        new_s = (x_scale * w_scale).astype(np.float32)
        new_q = np.clip(np.rint(old_q * old_s / new_s.astype(np.float64)), -2**31, 2**31 - 1).astype(np.int32)
        inits[dqb.input[0]].CopyFrom(numpy_helper.from_array(new_q, dqb.input[0]))
        inits[dqb.input[1]].CopyFrom(numpy_helper.from_array(new_s.reshape(old_s.shape), dqb.input[1]))
        changed.append((n.name, "bias requantized", None))
    onnx.save(m, path)
    return changed


def session(path):
    so = ort.SessionOptions()
    so.intra_op_num_threads = 1
    so.inter_op_num_threads = 1
    return ort.InferenceSession(path, so, providers=["CPUExecutionProvider"])


def ort_predict(path, x, batch=500):
    s = session(path)
    return np.concatenate([s.run(["logits"], {"input": x[i:i + batch]})[0].reshape(
        min(batch, len(x) - i), -1).argmax(1) for i in range(0, len(x), batch)])


def op_summary(path):
    m = onnx.load(path)
    ops = sorted({(n.domain or "ai.onnx") + ":" + n.op_type if n.domain not in ("", "ai.onnx")
                  else n.op_type for n in m.graph.node})
    foreign = sorted({n.domain for n in m.graph.node if n.domain not in ("", "ai.onnx")})
    return ops, foreign


def weft_check(weft, path, x, tmp):
    npy = os.path.join(tmp, os.path.basename(path) + ".input.npy")
    np.save(npy, x)
    cmd = [weft, "run", path, "--input", npy, "--device", "ref://", "--check"]
    r = subprocess.run(cmd, capture_output=True, text=True)
    out = (r.stdout + r.stderr).strip()
    print(f"  weft run {os.path.basename(path)} [{len(x)} images]: exit {r.returncode}")
    if r.returncode != 0:
        print("    " + out.replace("\n", "\n    "))
    return {"exit": r.returncode, "batch": int(len(x)),
            "check_line": [l for l in out.splitlines() if l.startswith("check")]}


# ---------------------------------------------------------------------------------------- main
def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--out", required=True)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--weft", default=None, help="weft binary for the `weft run --check` step")
    ap.add_argument("--fashion-train", type=int, default=60000,
                    help="training images used for the fashion networks (first of a seeded shuffle)")
    ap.add_argument("--epochs", type=int, default=3, help="epochs of the fashion networks")
    ap.add_argument("--only", default="", help="comma-separated subset of the networks")
    args = ap.parse_args()
    os.makedirs(args.out, exist_ok=True)
    only = set(filter(None, args.only.split(",")))
    want = lambda n: not only or n in only
    t_start = time.time()
    jpath = os.path.join(args.out, "networks.json")
    info = json.load(open(jpath)) if (only and os.path.exists(jpath)) else {}
    info.update({
        "seed": args.seed, "opset": OPSET,
        "generator": "scripts/models/make_networks.py",
        "quantization": {
            "tool": f"onnxruntime.quantization.quantize_static (onnxruntime {ort.__version__})",
            "activation_type": "QInt8 (asymmetric)", "weight_type": "QInt8 (symmetric)",
            "per_channel": True, "reduce_range": False, "calibration": "MinMax",
            "calibration_images": CALIB_IMAGES},
        "onnx": onnx.__version__, "numpy": np.__version__})
    nets = info.setdefault("networks", {})
    tmp = tempfile.mkdtemp(prefix="weft_nets_")

    def finish(name, dataset, qpath, fmodel_path, xte, yte, float_np_acc, extra, xcheck):
        pred = ort_predict(qpath, xte)
        fpred = ort_predict(fmodel_path, xte)
        with open(os.path.join(args.out, name + ".predictions"), "w") as f:
            f.write(f"# {name}: onnxruntime {ort.__version__} argmax of the quantized model's logits, "
                    f"{dataset}, {len(xte)} images in order\n")
            f.write("\n".join(str(int(p)) for p in pred) + "\n")
        ops, foreign = op_summary(qpath)
        rec = {"dataset": dataset, "test_images": int(len(xte)),
               "float_accuracy": round(float((fpred == yte).mean()), 4),
               "float_accuracy_numpy": round(float(float_np_acc), 4),
               "quantized_accuracy": round(float((pred == yte).mean()), 4),
               "quantized_vs_float_agreement": round(float((pred == fpred).mean()), 4),
               "model_bytes": os.path.getsize(qpath), "float_model_bytes": os.path.getsize(fmodel_path),
               "ops": ops, "non_standard_domains": foreign}
        rec.update(extra)
        if args.weft:
            rec["weft_ref_check"] = weft_check(args.weft, qpath, xcheck, tmp)
        nets[name] = rec
        print(f"  {name}: float {rec['float_accuracy']:.4f} quantized {rec['quantized_accuracy']:.4f} "
              f"({len(xte)} test images), {rec['model_bytes']} bytes, ops {ops}", flush=True)

    # ---- digits_mlp
    if want("digits_mlp"):
        t0 = time.time()
        rng = np.random.default_rng(args.seed)
        xtr, ytr, xte, yte = load_digits()
        net = Seq(Dense(rng, 64, 64), Relu(), Dense(rng, 64, 32), Relu(),
                  Dense(rng, 32, 10, relu_gain=False))
        ep = 60
        train(net, xtr, ytr, ep, 32, 2e-3, rng, "digits_mlp", lr_decay=0.97)
        acc = (predict_numpy(net, xte) == yte).mean()
        q = os.path.join(args.out, "digits_mlp.onnx")
        fp = quantize(export_mlp(net), xtr[rng.permutation(len(xtr))[:CALIB_IMAGES]], q,
                      QuantFormat.QDQ, tmp)
        finish("digits_mlp", "sklearn digits, TEST = rows with index % 5 == 4", q, fp, xte, yte, acc,
               {"format": "QDQ", "architecture": "Gemm 64->64, Relu, Gemm 64->32, Relu, Gemm 32->10",
                "input": "float32 [N,64] = pixel / 16", "train_images": int(len(xtr)), "epochs": ep,
                "optimizer": "Adam lr 2e-3 (x0.97 per epoch), batch 32",
                "seconds": round(time.time() - t0, 1)}, xte[:CHECK_BATCH])

    fashion = None
    if want("fashion_cnn") or want("fashion_cnn_qop") or want("fashion_residual"):
        fashion = load_fashion()
        xtr_all, ytr_all, xte, yte = fashion
        srng = np.random.default_rng(args.seed + 1000)
        sub = srng.permutation(len(xtr_all))[:args.fashion_train]
        xtr, ytr = xtr_all[sub], ytr_all[sub]
        calib = xtr_all[srng.permutation(len(xtr_all))[:CALIB_IMAGES]]
        dataset = "Fashion-MNIST t10k (test split)"

    # ---- fashion_cnn (+ fashion_cnn_qop from the same trained weights)
    if want("fashion_cnn") or want("fashion_cnn_qop"):
        t0 = time.time()
        rng = np.random.default_rng(args.seed + 1)
        net = Seq(Conv(rng, 1, 16, 3, 1), Relu(), MaxPool2(), Conv(rng, 16, 32, 3, 1), Relu(),
                  MaxPool2(), Flatten(), Dense(rng, 32 * 7 * 7, 10, relu_gain=False))
        train(net, xtr, ytr, args.epochs, 64, 1e-3, rng, "fashion_cnn", lr_decay=0.5)
        acc = (predict_numpy(net, xte) == yte).mean()
        secs = round(time.time() - t0, 1)
        common = {"input": "float32 [N,1,28,28] = pixel / 255", "train_images": int(len(xtr)),
                  "epochs": args.epochs, "optimizer": "Adam lr 1e-3 (x0.5 per epoch), batch 64",
                  "training_seconds": secs}
        if want("fashion_cnn"):
            q = os.path.join(args.out, "fashion_cnn.onnx")
            fp = quantize(export_cnn(net), calib, q, QuantFormat.QDQ, tmp)
            finish("fashion_cnn", dataset, q, fp, xte, yte, acc, dict(common, format="QDQ",
                   architecture="Conv3x3 1->16 pad1, Relu, MaxPool2x2, Conv3x3 16->32 pad1, Relu, "
                                "MaxPool2x2, Flatten, Gemm 1568->10"), xte[:CHECK_BATCH])
        if want("fashion_cnn_qop"):
            q = os.path.join(args.out, "fashion_cnn_qop.onnx")
            fp = quantize(export_cnn(net, qop_form=True), calib, q, QuantFormat.QOperator, tmp)
            finish("fashion_cnn_qop", dataset, q, fp, xte, yte, acc, dict(common, format="QOperator",
                   architecture="fashion_cnn's weights; the Gemm 1568->10 as Conv7x7 32->10 "
                                "([N,10,1,1]) + Flatten"), xte[:CHECK_BATCH])
            _, foreign = op_summary(q)
            assert not foreign, f"fashion_cnn_qop has non-standard ops: {foreign}"

    # ---- fashion_residual
    if want("fashion_residual"):
        t0 = time.time()
        rng = np.random.default_rng(args.seed + 2)
        net = Residual(rng)
        train(net, xtr, ytr, args.epochs, 64, 1e-3, rng, "fashion_residual", lr_decay=0.5)
        acc = (predict_numpy(net, xte) == yte).mean()
        q = os.path.join(args.out, "fashion_residual.onnx")
        fp = quantize(export_residual(net), calib, q, QuantFormat.QDQ, tmp)
        shared = share_add_scales(q)
        print(f"fashion_residual: one scale for each Add's inputs and output: {shared}")
        finish("fashion_residual", dataset, q, fp, xte, yte, acc,
               {"format": "QDQ", "input": "float32 [N,1,28,28] = pixel / 255",
                "architecture": "Conv3x3 1->16 pad1, Relu, MaxPool2x2 (p), Conv3x3 16->16 pad1, Relu, "
                                "Conv3x3 16->16 pad1, Add(p, .), Relu, MaxPool2x2, Flatten, Gemm 784->10",
                "train_images": int(len(xtr)), "epochs": args.epochs,
                "optimizer": "Adam lr 1e-3 (x0.5 per epoch), batch 64",
                "add_scales": "the Add's inputs and output share one scale (share_add_scales)",
                "training_seconds": round(time.time() - t0, 1)}, xte[:CHECK_BATCH])

    info["command"] = "nice -n 5 python3 " + " ".join(sys.argv)
    info["total_seconds"] = round(time.time() - t_start, 1)
    with open(jpath, "w") as f:
        json.dump(info, f, indent=2, sort_keys=True)
        f.write("\n")
    print(f"done in {info['total_seconds']} s -> {args.out}")


if __name__ == "__main__":
    main()
