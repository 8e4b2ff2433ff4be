/* transpose_nd: ONNX Transpose of a byte tensor of rank <= 6 (struct weft_transpose_nd_args,
 * docs/kernels.md). Grid-stride over output elements j (consecutive threads write consecutive
 * bytes). Each thread keeps the output coordinates of its j and the matching input offset, and
 * advances both by the step T as a mixed-radix addition: T is split once into output-coordinate
 * digits, so there is no division per element, only `rank` add / compare / carry steps. */
#include "weft_kernel_args.h"
#include "weft_simt.h"

#define R WEFT_TRANSPOSE_ND_MAX_RANK

void weft_main(const void* p) {
  const struct weft_transpose_nd_args* a = p;
  const uint8_t* in = WEFT_PTR(const uint8_t, a->in);
  uint8_t* out = WEFT_PTR(uint8_t, a->out);
  const uint32_t rank = a->rank;
  uint32_t istride[R]; /* row-major strides of the input */
  uint32_t odim[R];    /* output dims */
  uint32_t ostr[R];    /* input stride of output axis k */
  uint32_t wrap[R];    /* odim[k] * ostr[k]: what a carry out of axis k takes back */
  uint32_t coord[R], sdig[R];
  uint32_t n = 1;
  for (uint32_t k = rank; k-- > 0;) istride[k] = n, n *= a->dims[k];
  for (uint32_t k = 0; k < rank; ++k) {
    odim[k] = a->dims[a->perm[k]];
    ostr[k] = istride[a->perm[k]];
    wrap[k] = odim[k] * ostr[k];
  }
  const uint32_t step = weft_num_threads(), tid = weft_thread_id();
  if (tid >= n) return;
  /* digits of tid (the start) and of the step, innermost axis last; axis 0 takes the rest */
  uint32_t off = 0, t = tid, s = step;
  for (uint32_t k = rank; k-- > 1;) {
    coord[k] = t % odim[k], t /= odim[k];
    sdig[k] = s % odim[k], s /= odim[k];
    off += coord[k] * ostr[k];
  }
  if (rank) coord[0] = t, sdig[0] = s, off += t * ostr[0];
  for (uint32_t j = tid; j < n; j += step) {
    out[j] = in[off];
    uint32_t carry = 0;
    for (uint32_t k = rank; k-- > 1;) {
      const uint32_t d = sdig[k] + carry;
      uint32_t c = coord[k] + d;
      off += d * ostr[k];
      carry = c >= odim[k];
      if (carry) c -= odim[k], off -= wrap[k];
      coord[k] = c;
    }
    if (rank) off += (sdig[0] + carry) * ostr[0];
  }
}
