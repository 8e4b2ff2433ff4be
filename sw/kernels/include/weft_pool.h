/* weft_pool.h: window arithmetic shared by the pooling kernels (maxpool2d, qavgpool). */
#ifndef WEFT_POOL_H
#define WEFT_POOL_H

#include <stdint.h>

/* Taps k in [0, taps) at coordinate start + k * step: the first tap inside [0, size) is
 * returned in *first, the return value is how many consecutive taps from it are inside. */
static inline uint32_t taps_inside(int32_t start, uint32_t taps, uint32_t step, uint32_t size,
                                   int32_t* first) {
  uint32_t lo = 0, hi = taps;
  int32_t s = start, e = start + (int32_t)((taps - 1) * step);
  while (lo < hi && s < 0) s += (int32_t)step, ++lo;
  while (hi > lo && e >= (int32_t)size) e -= (int32_t)step, --hi;
  *first = s;
  return hi - lo;
}

#endif /* WEFT_POOL_H */
