#include "compiler/synthetic.h"

#include <algorithm>
#include <cmath>
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

SyntheticValues::Distribution distribution_named(const std::string& name, const std::string& place) {
  if (name == "uniform") return SyntheticValues::Distribution::kUniform;
  if (name == "normal") return SyntheticValues::Distribution::kNormal;
  fail(place, "expected uniform or normal, got '" + name + "'");
}

}  // namespace fsgen
