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

// Structured sparsity N:M along the reduction dimension: at most N non-zeros in every M
// consecutive values (magnitude pruning keeps the N largest, the earlier on a tie).
struct StructuredPattern {
  uint32_t n = 0, m = 0;
  bool active() const { return m > 0; }
};
StructuredPattern pattern_named(const std::string& text, const std::string& place);  // "2:4"

// Prunes a rows x cols row-major matrix to the pattern, in groups along each row
// (along_rows: consecutive columns) or down each column. rows or cols (the grouped
// extent) must be a multiple of M.
void prune_structured(std::vector<int8_t>& v, uint32_t rows, uint32_t cols, bool along_rows, StructuredPattern p);

// "uniform" or "normal" (UserError naming `place` otherwise).
SyntheticValues::Distribution distribution_named(const std::string& name, const std::string& place);

}  // namespace fsgen
