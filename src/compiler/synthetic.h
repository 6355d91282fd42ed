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

// Magnitude pruning of a rows x cols row-major matrix to the pattern: in every group of M
// along each row (along_rows: consecutive columns) or down each column, all but the N
// largest magnitudes become 0. rows or cols (the grouped extent) must be a multiple of M.
// For INT8 operands and FP32 weights (int8_t, float).
template <typename T>
void prune_structured(T* v, uint32_t rows, uint32_t cols, bool along_rows, StructuredPattern p);

// "uniform" or "normal" (UserError naming `place` otherwise).
SyntheticValues::Distribution distribution_named(const std::string& name, const std::string& place);

}  // namespace fsgen
