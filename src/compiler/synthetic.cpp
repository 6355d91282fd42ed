#include "compiler/synthetic.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <random>

#include "core/error.h"

namespace fsgen {

std::vector<int8_t> random_int8(size_t count, uint64_t seed, const SyntheticValues& values) {
  std::mt19937_64 rng(seed);
  std::uniform_int_distribution<int> uniform(-128, 127);
  std::normal_distribution<double> normal(0.0, values.sigma);
  std::uniform_real_distribution<double> coin(0.0, 1.0);
  const bool is_normal = values.distribution == SyntheticValues::Distribution::kNormal;
  std::vector<int8_t> v(count);
  for (auto& x : v) {
    if (coin(rng) < values.zero_fraction) {
      x = 0;
    } else if (is_normal) {
      x = static_cast<int8_t>(std::clamp(std::lround(normal(rng)), -128L, 127L));
    } else {
      x = static_cast<int8_t>(uniform(rng));
    }
  }
  return v;
}

StructuredPattern pattern_named(const std::string& text, const std::string& place) {
  unsigned n = 0, m = 0;
  char tail = 0;
  if (std::sscanf(text.c_str(), "%u:%u%c", &n, &m, &tail) != 2 || n == 0 || n >= m || m > 64)
    fail(place, "expected a structured pattern N:M with 0 < N < M <= 64 (for example 2:4), got '" + text + "'");
  return {n, m};
}

template <typename T>
void prune_structured(T* v, uint32_t rows, uint32_t cols, bool along_rows, StructuredPattern p) {
  const uint32_t lines = along_rows ? rows : cols, extent = along_rows ? cols : rows;
  if (extent % p.m != 0)
    fail("structured pattern " + std::to_string(p.n) + ":" + std::to_string(p.m),
         "the reduction length " + std::to_string(extent) + " is not a multiple of M");
  std::vector<size_t> group(p.m);
  for (uint32_t l = 0; l < lines; ++l)
    for (uint32_t g0 = 0; g0 < extent; g0 += p.m) {
      for (uint32_t e = 0; e < p.m; ++e)
        group[e] = along_rows ? size_t(l) * cols + g0 + e : size_t(g0 + e) * cols + l;
      std::stable_sort(group.begin(), group.end(),
                       [&](size_t x, size_t y) { return std::abs(double(v[x])) > std::abs(double(v[y])); });
      for (uint32_t e = p.n; e < p.m; ++e) v[group[e]] = 0;
    }
}
template void prune_structured<int8_t>(int8_t*, uint32_t, uint32_t, bool, StructuredPattern);
template void prune_structured<float>(float*, uint32_t, uint32_t, bool, StructuredPattern);

SyntheticValues::Distribution distribution_named(const std::string& name, const std::string& place) {
  if (name == "uniform") return SyntheticValues::Distribution::kUniform;
  if (name == "normal") return SyntheticValues::Distribution::kNormal;
  fail(place, "expected uniform or normal, got '" + name + "'");
}

}  // namespace fsgen
