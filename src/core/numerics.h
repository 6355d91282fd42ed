// fsgen's integer numerics, defined once (docs/NUMERICS.md gives every step).
// The C++ reference, the SystemC model and the generated RTL all follow these
// functions bit for bit.
#pragma once
#include <cstddef>
#include <cstdint>
#include <vector>

namespace fsgen::num {

// INT32 accumulation wraps modulo 2^32, as the RTL adders do.
inline int32_t wrap_add(int32_t a, int32_t b) {
  return static_cast<int32_t>(static_cast<uint32_t>(a) + static_cast<uint32_t>(b));
}

inline int32_t mac(int32_t acc, int8_t a, int8_t b) {
  return wrap_add(acc, static_cast<int32_t>(a) * static_cast<int32_t>(b));
}

// Requantise an INT32 accumulator to INT8:
//   p = acc * mult                     (exact, 48 bits; mult is unsigned 16 bit)
//   r = (p + 2^(shift-1)) >> shift      (arithmetic shift; no rounding term when shift = 0)
//   y = clamp(r, -128, 127)
inline int8_t requantize(int32_t acc, uint16_t mult, uint8_t shift) {
  int64_t p = static_cast<int64_t>(acc) * static_cast<int64_t>(mult);
  if (shift > 0) p += int64_t{1} << (shift - 1);
  int64_t r = p >> shift;  // arithmetic shift on signed values (C++20 guarantees; GCC/Clang do in C++17)
  if (r > 127) return 127;
  if (r < -128) return -128;
  return static_cast<int8_t>(r);
}

// The INT32 accumulators of an INT8 matmul: C[m][n] = sum_k A[m][k] * B[k][n] (row-major).
std::vector<int32_t> matmul_accumulators(const std::vector<int8_t>& a, const std::vector<int8_t>& b, uint32_t m,
                                         uint32_t n, uint32_t k);

// Reference INT8 matmul: C[m][n] = requantize(sum_k A[m][k] * B[k][n]).
// A is M x K, B is K x N, C is M x N, all row-major.
std::vector<int8_t> matmul_reference(const std::vector<int8_t>& a, const std::vector<int8_t>& b,
                                     uint32_t m, uint32_t n, uint32_t k, uint16_t mult,
                                     uint8_t shift);

}  // namespace fsgen::num
