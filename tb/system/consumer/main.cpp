// Uses the installed libweft: a 3x5x7 INT32 GEMM on ref://, checked against a direct loop.
#include <cstdio>
#include <vector>
#include <weft/weft.hpp>

int main() {
  weft::Device dev = weft::Device::open("ref://");
  const int m = 3, n = 5, k = 7;
  std::vector<uint8_t> a(m * k), w(k * n);
  for (int i = 0; i < m * k; ++i) a[i] = static_cast<uint8_t>(i * 7 - 20);
  for (int i = 0; i < k * n; ++i) w[i] = static_cast<uint8_t>(i * 5 - 60);
  std::vector<int32_t> c(m * n);
  weft::GemmOptions opt;
  weft::gemm(dev, m, n, k, a, w, c, opt);
  for (int i = 0; i < m; ++i) {
    for (int j = 0; j < n; ++j) {
      int32_t s = 0;
      for (int t = 0; t < k; ++t) s += int8_t(a[i * k + t]) * int8_t(w[t * n + j]);
      if (s != c[i * n + j]) {
        std::printf("mismatch at %d,%d: %d vs %d\n", i, j, c[i * n + j], s);
        return 1;
      }
    }
  }
  std::printf("weft consumer OK: %s\n", dev.caps().to_string().c_str());
  return 0;
}
