"""One ONNX test model with its inputs and the onnx reference evaluator's outputs, written in the
layout of ONNX node tests (model.onnx, test_data_set_0/input_<i>.pb, output_<i>.pb); shared by
the generators of the runtime's float8 and bfloat16 tests (onnx_fp8_nodes.py,
onnx_bf16_nodes.py).

Element types held as codes (float8 one byte, bfloat16 two) are written by hand as the codes they
are, as raw_data (little-endian) or int32_data (one code per element); other types go through
numpy_helper."""

import argparse
import contextlib
import os
import shutil
import sys

# The build runs the generators that import this module: a missing package or an onnx without
# the float8 / bfloat16 reference (before 1.15) is said once here, naming the generator.
_SCRIPT = os.path.basename(sys.argv[0]) or "onnx_node_case.py"
try:
    import ml_dtypes
    import numpy as np
    import onnx
    from onnx import TensorProto, helper, numpy_helper
    from onnx.reference import ReferenceEvaluator
except ImportError as _e:
    sys.stderr.write(f"{_SCRIPT}: missing Python package ({_e}); run `make setup` "
                     "(scripts/setup.sh installs numpy, ml_dtypes and onnx)\n")
    sys.exit(1)
if tuple(int(p) for p in onnx.__version__.split(".")[:2]) < (1, 15):
    sys.stderr.write(f"{_SCRIPT}: onnx {onnx.__version__} has no float8 / bfloat16 reference; "
                     "run `make setup`\n")
    sys.exit(1)

# Code types: ONNX element type -> (ml_dtypes type the reference evaluator takes, code dtype).
CODE_TYPES = {
    TensorProto.FLOAT8E4M3FN: (ml_dtypes.float8_e4m3fn, np.uint8),
    TensorProto.FLOAT8E5M2: (ml_dtypes.float8_e5m2, np.uint8),
    TensorProto.BFLOAT16: (ml_dtypes.bfloat16, np.uint16),
}


def tensor(name, arr, elem, int32_data=False):
    """A TensorProto of `arr`: values of a numpy type, or codes of a code type."""
    arr = np.asarray(arr)
    if elem not in CODE_TYPES:
        return numpy_helper.from_array(arr.astype(helper.tensor_dtype_to_np_dtype(elem)), name)
    t = TensorProto()
    t.name = name
    t.data_type = elem
    t.dims.extend(arr.shape)
    codes = arr.astype(CODE_TYPES[elem][1]).reshape(-1)
    if int32_data:
        t.int32_data.extend(int(c) for c in codes)
    else:
        t.raw_data = codes.astype(codes.dtype.newbyteorder("<")).tobytes()
    return t


def to_ref(arr, elem):
    """The reference evaluator's view of an input: the ml_dtypes type for codes, else as typed."""
    if elem in CODE_TYPES:
        ml_type, code = CODE_TYPES[elem]
        return np.asarray(arr, code).view(ml_type)
    return np.asarray(arr, helper.tensor_dtype_to_np_dtype(elem))


def to_codes(y, elem):
    """A reference output as the file holds it: codes for a code type (checked), else as is."""
    y = np.asarray(y)
    if elem in CODE_TYPES:
        ml_type, code = CODE_TYPES[elem]
        assert y.dtype == ml_type, f"output of type {elem} is {y.dtype}"
        return y.view(code)
    return y


class NodeCase:
    """One test model: graph inputs (name, elem, values), initializers, nodes, outputs (name,
    elem). `producer` names the generator in the model."""

    def __init__(self, name, what, opset, producer):
        self.name, self.what, self.opset, self.producer = name, what, opset, producer
        self.inputs, self.nodes, self.outputs, self.inits = [], [], [], []
        self.int32_data = set()

    def init(self, name, elem, values):
        """An initializer (weights, scales, zero points, bias)."""
        self.inits.append(tensor(name, np.asarray(values), elem))
        return name

    def input(self, name, elem, values, int32_data=False):
        self.inputs.append((name, elem, np.asarray(values)))
        if int32_data:
            self.int32_data.add(name)
        return name

    def node(self, op, inputs, outputs, **attrs):
        name = f"{op}_{len(self.nodes)}"
        self.nodes.append(helper.make_node(op, inputs, outputs, name=name, **attrs))
        return outputs[0]

    def output(self, name, elem):
        self.outputs.append((name, elem))

    def model(self, out_shapes=None):
        """The model; the outputs' shapes (which the checker wants) once they are known."""
        ins = [helper.make_tensor_value_info(n, e, list(v.shape)) for n, e, v in self.inputs]
        shapes = out_shapes or [None] * len(self.outputs)
        outs = [helper.make_tensor_value_info(n, e, s) for (n, e), s in zip(self.outputs, shapes)]
        g = helper.make_graph(self.nodes, self.name, ins, outs, initializer=self.inits)
        m = helper.make_model(g, opset_imports=[helper.make_opsetid("", self.opset)],
                              producer_name=self.producer)
        m.ir_version = 9 if self.opset < 21 else 10
        if out_shapes:
            onnx.checker.check_model(m, full_check=True)
        return m

    def write(self, root):
        """Runs the reference evaluator and writes the test under root/name; returns the checked
        model, the reference's feeds and its outputs."""
        feeds = {n: to_ref(v, e) for n, e, v in self.inputs}
        outs = ReferenceEvaluator(self.model()).run(None, feeds)
        m = self.model([list(np.asarray(y).shape) for y in outs])
        d = os.path.join(root, self.name)
        os.makedirs(os.path.join(d, "test_data_set_0"))
        with open(os.path.join(d, "model.onnx"), "wb") as f:
            f.write(m.SerializeToString())
        for i, (n, e, v) in enumerate(self.inputs):
            with open(os.path.join(d, "test_data_set_0", f"input_{i}.pb"), "wb") as f:
                f.write(tensor(n, v, e, n in self.int32_data).SerializeToString())
        for i, ((n, e), y) in enumerate(zip(self.outputs, outs)):
            with open(os.path.join(d, "test_data_set_0", f"output_{i}.pb"), "wb") as f:
                f.write(tensor(n, to_codes(y, e), e).SerializeToString())
        return m, feeds, outs


# ------------------------------------------------------------------ the generators' output
def out_dir_arg(doc):
    """The generator's --out-dir (its usage line is the first line of `doc`)."""
    ap = argparse.ArgumentParser(description=doc.splitlines()[0])
    ap.add_argument("--out-dir", required=True)
    return ap.parse_args().out_dir


@contextlib.contextmanager
def staged_dir(out_dir, subdir):
    """A fresh `out_dir`.tmp (with `subdir`) to write into; it replaces `out_dir` when the block
    ends without an error, so a failed run never leaves half a test set behind."""
    tmp = out_dir + ".tmp"
    shutil.rmtree(tmp, ignore_errors=True)
    os.makedirs(os.path.join(tmp, subdir))
    yield tmp
    shutil.rmtree(out_dir, ignore_errors=True)
    os.rename(tmp, out_dir)


def write_index(path, header, lines):
    """An index.txt: a '# ' header line, then one line per test."""
    with open(path, "w") as f:
        f.write(f"# {header}\n")
        f.write("".join(line + "\n" for line in lines))
