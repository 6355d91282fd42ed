// Small statistics shared by the reports: Pearson correlation and rounding up to a multiple.
#pragma once
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <vector>

namespace fsgen {

// Pearson R of the first min(a.size(), b.size()) pairs; 0 when either side is constant.
inline double pearson_r(const std::vector<double>& a, const std::vector<double>& b) {
  const size_t n = std::min(a.size(), b.size());
  if (n < 2) return 0;
  double ma = 0, mb = 0;
  for (size_t i = 0; i < n; ++i) ma += a[i] / double(n), mb += b[i] / double(n);
  double sab = 0, saa = 0, sbb = 0;
  for (size_t i = 0; i < n; ++i)
    sab += (a[i] - ma) * (b[i] - mb), saa += (a[i] - ma) * (a[i] - ma), sbb += (b[i] - mb) * (b[i] - mb);
  return saa > 0 && sbb > 0 ? sab / std::sqrt(saa * sbb) : 0;
}

inline uint64_t round_up(uint64_t v, uint64_t to) { return (v + to - 1) / to * to; }

}  // namespace fsgen
