/* Argument blocks of the Weft SIMT kernel library (docs/kernels.md), shared by the kernels (C,
 * RV32) and the host code that launches them (C or C++, any word size). Every field is a 32-bit
 * integer, so the layout is the same everywhere: buffers are scratchpad byte addresses (uint32_t),
 * not pointers. The host writes the struct little-endian into the scratchpad and passes its
 * address as Launch::arg_ptr (4-byte aligned). Buffers must be naturally aligned for their
 * element type (int32 buffers on 4 bytes). Every kernel splits its work over the launch's threads
 * by thread id and number of threads and works for any launch shape. */
#ifndef WEFT_KERNEL_ARGS_H
#define WEFT_KERNEL_ARGS_H

#include <stdint.h>

#ifdef __cplusplus
#define WEFT_ARGS_SIZE_CHECK(type, words) static_assert(sizeof(type) == 4 * (words), #type)
#else
#define WEFT_ARGS_SIZE_CHECK(type, words) _Static_assert(sizeof(type) == 4 * (words), #type)
#endif

/* vecadd: c[i] = a[i] + b[i], int32, wrapping modulo 2^32. */
struct weft_vecadd_args {
  uint32_t n;
  uint32_t a, b, c; /* int32[n] each */
};
WEFT_ARGS_SIZE_CHECK(struct weft_vecadd_args, 4);

/* saxpy (integer): y[i] = alpha * x[i] + y[i], int32, wrapping modulo 2^32. */
struct weft_saxpy_args {
  uint32_t n;
  int32_t alpha;
  uint32_t x, y; /* int32[n]; y is read and written */
};
WEFT_ARGS_SIZE_CHECK(struct weft_saxpy_args, 4);

/* relu (int8, quantized): out[i] = max(in[i], zero_point). zero_point = 0 is the plain ReLU;
 * in place (in == out) is allowed. */
struct weft_relu_args {
  uint32_t n;
  int32_t zero_point; /* -128..127 */
  uint32_t in, out;   /* int8[n] */
};
WEFT_ARGS_SIZE_CHECK(struct weft_relu_args, 4);

/* requant: int32 -> int8, per channel, the tensor unit's TFLite double-rounding output stage
 * (weft::golden::postprocess with RequantMode::kTfliteDouble):
 *   c = i % channels (in is [n / channels][channels], row-major)
 *   v = in[i] + bias[c] (wraps);  r = MultiplyByQuantizedMultiplier(v, multiplier[c], shift[c])
 *   out[i] = clamp(sat32(r + zero_point), act_min, act_max)
 * shift[c] in [-31, 30] (positive = left); -128 <= act_min <= act_max <= 127. */
struct weft_requant_args {
  uint32_t n, channels;             /* n elements, channels >= 1 */
  uint32_t in, out;                 /* int32[n], int8[n] */
  uint32_t bias, multiplier, shift; /* int32[channels] each */
  int32_t zero_point, act_min, act_max;
};
WEFT_ARGS_SIZE_CHECK(struct weft_requant_args, 10);

/* maxpool: 2x2 window, stride 2, no padding (TFLite MaxPool2D, VALID), int8 NHWC:
 * out[b][oy][ox][c] = max over dy, dx in {0, 1} of in[b][2oy+dy][2ox+dx][c],
 * out is [batch][h/2][w/2][channels] (floor: an odd last row or column is dropped). */
struct weft_maxpool_args {
  uint32_t batch, h, w, channels; /* h, w >= 2 */
  uint32_t in, out;               /* int8 */
};
WEFT_ARGS_SIZE_CHECK(struct weft_maxpool_args, 6);

/* softmax over the last axis of int8 logits [rows][depth] -> uint8 probabilities in Q0.8
 * (scale 1/256, zero point 0), TFLite's quantized softmax (docs/kernels.md, "softmax").
 * input_multiplier / input_left_shift / diff_min come from the input scale and beta exactly as
 * TFLite's SoftmaxPrepare computes them (PreprocessSoftmaxScaling, CalculateInputRadius with
 * 5 integer bits). */
struct weft_softmax_args {
  uint32_t rows, depth;     /* depth 1..511 */
  uint32_t in, out;         /* int8[rows][depth], uint8[rows][depth] */
  int32_t input_multiplier; /* Q0.31, >= 2^30 */
  int32_t input_left_shift; /* 0..30 */
  int32_t diff_min;         /* <= 0: inputs with x - max < diff_min give 0 */
};
WEFT_ARGS_SIZE_CHECK(struct weft_softmax_args, 7);

/* transpose: out[c][r] = in[r][c], int8, in is [rows][cols]. */
struct weft_transpose_args {
  uint32_t rows, cols;
  uint32_t in, out; /* int8[rows * cols] */
};
WEFT_ARGS_SIZE_CHECK(struct weft_transpose_args, 4);

/* im2col: int8 NHWC input -> [batch*out_h*out_w][kh*kw*channels] (row (b, oy, ox), column
 * (ky, kx, c)), as weft::golden::im2col: input row iy = oy*stride_h - pad_top + ky, column
 * ix = ox*stride_w - pad_left + kx; positions outside the input take pad_value. out_h / out_w are
 * given by the host: (h + pad_top + pad_bottom - kh) / stride_h + 1, likewise for w. */
struct weft_im2col_args {
  uint32_t batch, h, w, channels;
  uint32_t kh, kw, stride_h, stride_w;
  uint32_t pad_top, pad_left;
  uint32_t out_h, out_w;
  int32_t pad_value; /* -128..127 */
  uint32_t in, out;  /* int8 */
};
WEFT_ARGS_SIZE_CHECK(struct weft_im2col_args, 15);

/* lut: out[i] = table[in[i] % 16] + launches (int32), with `table` an initialised writable
 * global (.data) and `launches` a zero-initialised one (.bss): the number of earlier launches
 * since the image was loaded (or its data reloaded). After every thread has read them (a
 * barrier), thread 0 adds 1000 to table[launches % 16] and increments launches, so the next
 * launch sees the change. The table's initial values: WEFT_LUT_TABLE in src/lut.c. */
struct weft_lut_args {
  uint32_t n;
  uint32_t in;  /* uint32[n] */
  uint32_t out; /* int32[n] */
};
WEFT_ARGS_SIZE_CHECK(struct weft_lut_args, 3);

/* exit_codes (a test kernel, int weft_main_code): thread t exits with code t * mul + add; threads
 * with t % 3 == 0 by weft_exit() from a nested call, t % 3 == 1 by returning, t % 3 == 2 by
 * returning after a barrier. */
struct weft_exit_codes_args {
  uint32_t mul, add;
};
WEFT_ARGS_SIZE_CHECK(struct weft_exit_codes_args, 2);
/* maxpool2d: ONNX MaxPool on a uint8 or int8 NCHW tensor (2-D, any kernel_shape, strides, pads,
 * dilations; ceil_mode through out_h / out_w):
 *   out[n][c][oy][ox] = max over ky < kh, kx < kw of in[n][c][iy][ix],
 *     iy = oy*stride_h - pad_top + ky*dilation_h,  ix = ox*stride_w - pad_left + kx*dilation_w,
 *   taken only over positions inside the input (0 <= iy < h, 0 <= ix < w): padded positions are
 *   ignored, never compared. A window with no position inside the input gives the type's lowest
 *   value (0 or -128), as onnxruntime does. out is [batch][channels][out_h][out_w]; out_h / out_w
 *   come from the host (floor or ceil mode; the bottom / right pads enter only through them).
 *   is_signed: 0 = uint8, 1 = int8. kh, kw, stride_*, dilation_* >= 1. */
struct weft_maxpool2d_args {
  uint32_t batch, channels, h, w; /* input N, C, H, W */
  uint32_t kh, kw;
  uint32_t stride_h, stride_w;
  uint32_t pad_top, pad_left;
  uint32_t dilation_h, dilation_w;
  uint32_t out_h, out_w;
  uint32_t is_signed;
  uint32_t in, out; /* bytes: [batch][channels][h][w], [batch][channels][out_h][out_w] */
};
WEFT_ARGS_SIZE_CHECK(struct weft_maxpool2d_args, 17);

/* clamp8: out[i] = min(max(in[i], lo), hi) on bytes (ONNX Clip / integer Relu), uint8
 * (is_signed 0; lo, hi in 0..255) or int8 (is_signed 1; lo, hi in -128..127). lo > hi gives hi
 * everywhere (min after max, as ONNX). In place (in == out) is allowed. */
struct weft_clamp8_args {
  uint32_t n;
  uint32_t is_signed;
  int32_t lo, hi;
  uint32_t in, out; /* bytes [n] */
};
WEFT_ARGS_SIZE_CHECK(struct weft_clamp8_args, 6);

/* transpose_nd: ONNX Transpose of a byte tensor of rank 0..6 (row-major):
 * out has dims odim[k] = dims[perm[k]] and out[o_0]...[o_{rank-1}] = in[i_0]...[i_{rank-1}] with
 * i_{perm[k]} = o_k. perm is a permutation of 0..rank-1; dims[k] >= 1; entries at rank and above
 * are ignored. */
#define WEFT_TRANSPOSE_ND_MAX_RANK 6
struct weft_transpose_nd_args {
  uint32_t rank;
  uint32_t dims[WEFT_TRANSPOSE_ND_MAX_RANK]; /* input dims */
  uint32_t perm[WEFT_TRANSPOSE_ND_MAX_RANK]; /* output axis k = input axis perm[k] */
  uint32_t in, out;                          /* bytes */
};
WEFT_ARGS_SIZE_CHECK(struct weft_transpose_nd_args, 15);

/* Flags of the QDQ kernels (qadd, qavgpool): the byte type of each quantized tensor. */
#define WEFT_Q_A_INT8 1u /* qadd: a is int8 (else uint8); qavgpool: x is int8 */
#define WEFT_Q_B_INT8 2u /* qadd: b is int8 */
#define WEFT_Q_Y_INT8 4u /* y is int8 (else uint8) */

/* qadd: QuantizeLinear(DequantizeLinear(a) + DequantizeLinear(b)) elementwise, in IEEE float32
 * exactly as the model runtime's host code (docs/kernels.md, "Quantized float operators"):
 *   da = f32((float)(a - a_zero_point) * a_scale), db likewise,
 *   q = f32(f32(da + db) / y_scale), y = clamp(round_half_even(q) + y_zero_point, type range)
 * with numpy broadcasting up to rank 4: dims[4] are the output's dims (outermost first; a lower
 * rank is padded with leading 1s), a_strides / b_strides the operands' element strides per output
 * axis (0 on a broadcast axis). Scales are float32 bit patterns (> 0, finite); zero points in
 * their type's range; flags WEFT_Q_A_INT8 | WEFT_Q_B_INT8 | WEFT_Q_Y_INT8. */
struct weft_qadd_args {
  uint32_t dims[4];
  uint32_t a_strides[4], b_strides[4];
  uint32_t a_scale, b_scale, y_scale; /* float32 bits */
  int32_t a_zero_point, b_zero_point, y_zero_point;
  uint32_t flags;
  uint32_t a, b, y; /* bytes */
};
WEFT_ARGS_SIZE_CHECK(struct weft_qadd_args, 22);

/* qavgpool: QuantizeLinear(AveragePool(DequantizeLinear(x))) on a uint8 / int8 NCHW tensor, 2-D,
 * exactly as the host's AveragePool / GlobalAveragePool (docs/kernels.md): per output element
 * the window's taps inside the input (iy = oy*stride_h - pad_top + ky*dilation_h, likewise ix),
 * each dequantized to float32 as in qadd, summed in double in window order (ky, then kx),
 * mean = (float)(sum / (double)count), then QuantizeLinear with y_scale / y_zero_point.
 * count = the taps inside the input, or with count_include_pad the taps inside the padded input
 * [-pad_top, h + pad_bottom) x [-pad_left, w + pad_right); a window with count 0 gives mean 0.
 * out_h / out_w come from the host (floor / ceil mode); pad_bottom / pad_right only enter the
 * count. GlobalAveragePool: kh = h, kw = w, strides 1, pads 0, out 1 x 1.
 * flags WEFT_Q_A_INT8 (x) | WEFT_Q_Y_INT8. Scales float32 bits (> 0, finite). */
struct weft_qavgpool_args {
  uint32_t batch, channels, h, w; /* input N, C, H, W */
  uint32_t kh, kw;
  uint32_t stride_h, stride_w;
  uint32_t pad_top, pad_left, pad_bottom, pad_right;
  uint32_t dilation_h, dilation_w;
  uint32_t out_h, out_w;
  uint32_t count_include_pad;
  uint32_t x_scale, y_scale; /* float32 bits */
  int32_t x_zero_point, y_zero_point;
  uint32_t flags;
  uint32_t in, out; /* bytes: [batch][channels][h][w], [batch][channels][out_h][out_w] */
};
WEFT_ARGS_SIZE_CHECK(struct weft_qavgpool_args, 24);

#undef WEFT_ARGS_SIZE_CHECK

#endif /* WEFT_KERNEL_ARGS_H */
