// Weft golden model: 8-bit operands and the integer GEMM of the tensor unit.
//
// Rule (gemmlowp "low-precision matrix multiplication", doc/low-precision.md: offsets handled by
// subtracting the zero points, "the zero point is exactly representable"):
//   C[m][n] = sum_k (A[m][k] - za) * (W[k][n] - zw)
// Every product fits in int32 (|(a - za) * (w - zw)| <= 255 * 255), and the sum is accumulated
// modulo 2^32, exactly what a hardware INT32 accumulator does when it overflows: two's complement
// wrap-around. The wrap is done in uint32_t so that the C++ code has no signed-overflow UB.
#include <cstddef>
#include <string>
#include <vector>

#include "check.hpp"
#include "weft/golden/quant.hpp"

namespace weft::golden {

using detail::fail;

void check_operand(int32_t v, const OperandType& t) {
  const int32_t lo = t.is_signed ? -128 : 0;
  const int32_t hi = t.is_signed ? 127 : 255;
  const char* kind = t.is_signed ? "int8" : "uint8";
  if (t.zero_point < lo || t.zero_point > hi) {
    fail("check_operand", std::string("zero point ") + std::to_string(t.zero_point) +
                              " is outside the " + kind + " range");
  }
  if (v < lo || v > hi) {
    fail("check_operand",
         std::string("value ") + std::to_string(v) + " is outside the " + kind + " range");
  }
}

std::vector<int32_t> gemm(std::span<const int32_t> a, std::span<const int32_t> w, int m, int k,
                          int n, const OperandType& at, const OperandType& wt) {
  const char* where = "gemm";
  const std::size_t um = detail::positive_dim(where, "m", m);
  const std::size_t uk = detail::positive_dim(where, "k", k);
  const std::size_t un = detail::positive_dim(where, "n", n);
  detail::expect_size(where, "A (m*k)", a.size(), detail::checked_mul(where, um, uk));
  detail::expect_size(where, "W (k*n)", w.size(), detail::checked_mul(where, uk, un));
  const std::size_t c_size = detail::checked_mul(where, um, un);
  for (int32_t v : a) check_operand(v, at);
  for (int32_t v : w) check_operand(v, wt);

  std::vector<int32_t> c(c_size);
  for (std::size_t i = 0; i < um; ++i) {
    for (std::size_t j = 0; j < un; ++j) {
      uint32_t acc = 0;  // modulo-2^32 accumulator
      for (std::size_t p = 0; p < uk; ++p) {
        const int32_t da = a[i * uk + p] - at.zero_point;  // in [-255, 255]
        const int32_t dw = w[p * un + j] - wt.zero_point;  // in [-255, 255]
        acc += static_cast<uint32_t>(da * dw);             // |da * dw| <= 65025: no overflow
      }
      c[i * un + j] = static_cast<int32_t>(acc);  // modular conversion (C++20)
    }
  }
  return c;
}

}  // namespace weft::golden
