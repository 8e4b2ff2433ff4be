# Stand-in networks for test_cli_eval (`weft eval`), small enough to keep in the repository, so
# that the command's tests run before and without the real networks of sw/model/networks:
#   standin_digits_mlp.onnx    64 -> 32 -> 10 MLP trained here by numpy SGD on the digits train
#                              split, QDQ (u8 activations, s8 weights) by quantize_static
#   standin_digits_b4.onnx     the same with its batch dimension fixed at 4
#   standin_fashion_cnn.onnx   conv 3x3 (8) -> relu -> maxpool 2 -> gemm, RANDOM weights (about 10 %
#                              accuracy): a shape and agreement check, not a classifier
# and *.predictions, onnxruntime's class per test image. Usage: python3 make_standins.py OUT_DIR
import gzip, numpy as np, onnx, onnxruntime as ort, sys
from onnx import helper, TensorProto, numpy_helper
from onnxruntime.quantization import quantize_static, CalibrationDataReader, QuantFormat, QuantType
out = sys.argv[1]
import tempfile; tmp = tempfile.mkdtemp()
rng = np.random.default_rng(0)
# digits
d = np.loadtxt(gzip.open('/usr/lib/python3/dist-packages/sklearn/datasets/data/digits.csv.gz'), delimiter=',')
X = (d[:, :64] / 16).astype(np.float32); y = d[:, 64].astype(int)
idx = np.arange(len(X)); te = idx % 5 == 4; tr = ~te
# train a 64-32-10 MLP with numpy SGD
W1 = rng.normal(0, 0.2, (64, 32)).astype(np.float32); b1 = np.zeros(32, np.float32)
W2 = rng.normal(0, 0.2, (32, 10)).astype(np.float32); b2 = np.zeros(10, np.float32)
Xt, yt = X[tr], y[tr]
for ep in range(200):
    h = np.maximum(Xt @ W1 + b1, 0); z = h @ W2 + b2
    p = np.exp(z - z.max(1, keepdims=True)); p /= p.sum(1, keepdims=True)
    g = p; g[np.arange(len(yt)), yt] -= 1; g /= len(yt)
    gW2 = h.T @ g; gb2 = g.sum(0); gh = g @ W2.T; gh[h <= 0] = 0
    gW1 = Xt.T @ gh; gb1 = gh.sum(0)
    for P, G in ((W1, gW1), (b1, gb1), (W2, gW2), (b2, gb2)): P -= 0.5 * G
nodes = [helper.make_node('Gemm', ['x', 'W1', 'b1'], ['h0']), helper.make_node('Relu', ['h0'], ['h']),
         helper.make_node('Gemm', ['h', 'W2', 'b2'], ['logits'])]
g = helper.make_graph(nodes, 'digits', [helper.make_tensor_value_info('x', TensorProto.FLOAT, ['N', 64])],
                      [helper.make_tensor_value_info('logits', TensorProto.FLOAT, ['N', 10])],
                      [numpy_helper.from_array(a, n) for a, n in ((W1, 'W1'), (b1, 'b1'), (W2, 'W2'), (b2, 'b2'))])
m = helper.make_model(g, opset_imports=[helper.make_opsetid('', 13)]); m.ir_version = 8
onnx.save(m, f'{tmp}/f_digits.onnx')
class R(CalibrationDataReader):
    def __init__(s, data, name): s.it = iter([{name: data[i:i+1]} for i in range(0, min(len(data), 200))])
    def get_next(s): return next(s.it, None)
quantize_static(f'{tmp}/f_digits.onnx', f'{out}/standin_digits_mlp.onnx', R(X[tr], 'x'), quant_format=QuantFormat.QDQ,
                activation_type=QuantType.QUInt8, weight_type=QuantType.QInt8)
s = ort.InferenceSession(f'{out}/standin_digits_mlp.onnx')
pred = s.run(None, {'x': X[te]})[0].argmax(1)
print('digits acc', (pred == y[te]).mean())
np.savetxt(f'{out}/standin_digits_mlp.predictions', pred, fmt='%d', header='onnxruntime predictions, digits test split')
# fashion: random-weight small CNN (conv 1->8 3x3, relu, maxpool 2, flatten, gemm 8*13*13 -> 10)
def idx(p):
    b = gzip.open(p).read(); n = int.from_bytes(b[4:8], 'big')
    return np.frombuffer(b, np.uint8, offset=16 if b[3] == 3 else 8)
Xf = idx('/usr/share/datasets/fashion-mnist/t10k-images-idx3-ubyte.gz').reshape(-1, 1, 28, 28).astype(np.float32) / 255
Wc = rng.normal(0, 0.3, (8, 1, 3, 3)).astype(np.float32); bc = rng.normal(0, 0.1, 8).astype(np.float32)
Wf = rng.normal(0, 0.05, (8 * 13 * 13, 10)).astype(np.float32); bf = np.zeros(10, np.float32)
nodes = [helper.make_node('Conv', ['x', 'Wc', 'bc'], ['c']), helper.make_node('Relu', ['c'], ['r']),
         helper.make_node('MaxPool', ['r'], ['p'], kernel_shape=[2, 2], strides=[2, 2]),
         helper.make_node('Flatten', ['p'], ['f']), helper.make_node('Gemm', ['f', 'Wf', 'bf'], ['logits'])]
g = helper.make_graph(nodes, 'fashion', [helper.make_tensor_value_info('x', TensorProto.FLOAT, ['N', 1, 28, 28])],
                      [helper.make_tensor_value_info('logits', TensorProto.FLOAT, ['N', 10])],
                      [numpy_helper.from_array(a, n) for a, n in ((Wc, 'Wc'), (bc, 'bc'), (Wf, 'Wf'), (bf, 'bf'))])
m = helper.make_model(g, opset_imports=[helper.make_opsetid('', 13)]); m.ir_version = 8
onnx.save(m, f'{tmp}/f_fashion.onnx')
quantize_static(f'{tmp}/f_fashion.onnx', f'{out}/standin_fashion_cnn.onnx', R(Xf, 'x'), quant_format=QuantFormat.QDQ,
                activation_type=QuantType.QUInt8, weight_type=QuantType.QInt8)
s = ort.InferenceSession(f'{out}/standin_fashion_cnn.onnx')
pred = np.concatenate([s.run(None, {'x': Xf[i:i+1000]})[0].argmax(1) for i in range(0, 10000, 1000)])
np.savetxt(f'{out}/standin_fashion_cnn.predictions', pred, fmt='%d', header='onnxruntime predictions, fashion-mnist test split')
# fixed batch 4 version, for the batch-mismatch error
m = onnx.load(f'{out}/standin_digits_mlp.onnx'); m.graph.input[0].type.tensor_type.shape.dim[0].dim_value = 4
onnx.save(m, f'{out}/standin_digits_b4.onnx')
