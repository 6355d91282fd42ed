// Synthetic INT8 operands, for kernels and models whose real tensors are not at hand.
#pragma once
#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

namespace fsgen {

// How values are drawn: a share `zero_fraction` of exact zeros; the rest uniform over
// [-128, 127], or normal with standard deviation `sigma` codes, rounded and clamped.
struct SyntheticValues {
  enum class Distribution { kUniform, kNormal };
  Distribution distribution = Distribution::kUniform;
  double sigma = 32.0;
  double zero_fraction = 0.0;
};

std::vector<int8_t> random_int8(size_t count, uint64_t seed, const SyntheticValues& values);

// "uniform" or "normal" (UserError naming `place` otherwise).
SyntheticValues::Distribution distribution_named(const std::string& name, const std::string& place);

}  // namespace fsgen
