#include "core/numerics.h"

namespace fsgen::num {

std::vector<int32_t> matmul_accumulators(const std::vector<int8_t>& a, const std::vector<int8_t>& b, uint32_t m,
                                         uint32_t n, uint32_t k) {
  std::vector<int32_t> c(static_cast<size_t>(m) * n);
  for (uint32_t i = 0; i < m; ++i)
    for (uint32_t j = 0; j < n; ++j) {
      int32_t acc = 0;
      for (uint32_t kk = 0; kk < k; ++kk) acc = mac(acc, a[size_t(i) * k + kk], b[size_t(kk) * n + j]);
      c[size_t(i) * n + j] = acc;
    }
  return c;
}

std::vector<int8_t> matmul_reference(const std::vector<int8_t>& a, const std::vector<int8_t>& b, uint32_t m, uint32_t n,
                                     uint32_t k, uint16_t mult, uint8_t shift) {
  const std::vector<int32_t> acc = matmul_accumulators(a, b, m, n, k);
  std::vector<int8_t> c(acc.size());
  for (size_t i = 0; i < acc.size(); ++i) c[i] = requantize(acc[i], mult, shift);
  return c;
}

}  // namespace fsgen::num
