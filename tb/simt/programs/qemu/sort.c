/* qemu vs core: sorting and searching on stack arrays (data-dependent branches, recursion,
 * signed and unsigned byte / halfword loads and stores): a xorshift generator fills arrays of
 * int32, int16 and int8; quicksort (recursive), insertion sort, binary search; prints the sorted
 * values. Exits with the number of keys found. */
#include "prog_rt.h"

static uint32_t xorshift(uint32_t* s) {
  uint32_t x = *s;
  x ^= x << 13;
  x ^= x >> 17;
  x ^= x << 5;
  return *s = x;
}

static void quicksort(int32_t* a, int lo, int hi) {
  if (lo >= hi) return;
  const int32_t pivot = a[(lo + hi) / 2];
  int i = lo, j = hi;
  while (i <= j) {
    while (a[i] < pivot) ++i;
    while (a[j] > pivot) --j;
    if (i <= j) {
      const int32_t t = a[i];
      a[i] = a[j];
      a[j] = t;
      ++i;
      --j;
    }
  }
  quicksort(a, lo, j);
  quicksort(a, i, hi);
}

static void isort16(int16_t* a, int n) {
  for (int i = 1; i < n; ++i) {
    const int16_t v = a[i];
    int j = i - 1;
    while (j >= 0 && a[j] > v) {
      a[j + 1] = a[j];
      --j;
    }
    a[j + 1] = v;
  }
}

static void isort8u(uint8_t* a, int n) {
  for (int i = 1; i < n; ++i) {
    const uint8_t v = a[i];
    int j = i - 1;
    while (j >= 0 && a[j] > v) {
      a[j + 1] = a[j];
      --j;
    }
    a[j + 1] = v;
  }
}

static int bsearch32(const int32_t* a, int n, int32_t key) {
  int lo = 0, hi = n - 1;
  while (lo <= hi) {
    const int mid = lo + (hi - lo) / 2;
    if (a[mid] == key) return mid;
    if (a[mid] < key) lo = mid + 1;
    else hi = mid - 1;
  }
  return -1;
}

int main(void) {
  uint32_t seed = 0x2545f491u;
  int32_t w[32];
  int16_t h[32];
  int8_t b[24];
  uint8_t ub[24];
  for (int i = 0; i < 32; ++i) w[i] = (int32_t)xorshift(&seed) >> (i % 7 * 4);
  for (int i = 0; i < 32; ++i) h[i] = (int16_t)xorshift(&seed);
  for (int i = 0; i < 24; ++i) b[i] = (int8_t)xorshift(&seed), ub[i] = (uint8_t)b[i];
  quicksort(w, 0, 31);
  isort16(h, 32);
  isort8u(ub, 24);
  for (int i = 0; i < 32; i += 2) {
    prog_put_dec(w[i]);
    prog_putc(i % 16 == 14 ? '\n' : ' ');
  }
  for (int i = 0; i < 32; i += 2) {
    prog_put_dec(h[i]);
    prog_putc(i % 16 == 14 ? '\n' : ',');
  }
  int32_t sum8 = 0;
  for (int i = 0; i < 24; ++i) sum8 += b[i] * (i + 1) - ub[i];
  for (int i = 0; i < 24; i += 3) prog_put_hex(ub[i], 2);
  prog_putc('\n');
  prog_put_dec(sum8);
  prog_putc('\n');
  int found = 0;
  for (int i = 0; i < 32; i += 2) {
    found += bsearch32(w, 32, w[i]) >= 0;                  /* present */
    found += bsearch32(w, 32, w[i] ^ 0x40000000) >= 0;     /* almost surely absent */
  }
  prog_puts("found ");
  prog_put_dec(found);
  prog_putc('\n');
  return found;
}
