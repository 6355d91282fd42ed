#include "blocks/sparse_net/model_stream_statistics.h"

#include <algorithm>
#include <cmath>
#include <map>
#include <mutex>
#include <random>
#include <tuple>
#include <vector>

#include "core/error.h"

namespace fsgen {

namespace {

constexpr uint32_t kSampledWindows = 16384;  // standard error of the mean well under 1 % of a window

// A lane of `values` operand values, each zero with probability `zeros`: its steps' non-zero
// bits over a window of `steps`, drawn from `rng`.
uint64_t lane_bits(std::mt19937_64& rng, uint32_t steps, double nonzero) {
  std::bernoulli_distribution draw(nonzero);
  uint64_t bits = 0;
  for (uint32_t t = 0; t < steps; ++t)
    if (draw(rng)) bits |= uint64_t{1} << t;
  return bits;
}

// The expected window of `lm` row lanes and `ln` column lanes over `steps` steps, each lane
// non-zero at a step with its probability.
SparseStreamEstimate sample_windows(uint32_t steps, uint32_t lm, uint32_t ln, double x_nonzero, double w_nonzero) {
  std::mt19937_64 rng(0x5eed5eedull);
  std::vector<uint64_t> x(lm), w(ln);
  double cycles = 0, skipped = 0;
  for (uint32_t n = 0; n < kSampledWindows; ++n) {
    for (auto& b : x) b = lane_bits(rng, steps, x_nonzero);
    for (auto& b : w) b = lane_bits(rng, steps, w_nonzero);
    int busiest = 0;
    for (uint64_t xb : x)
      for (uint64_t wb : w) {
        const int need = __builtin_popcountll(xb & wb);
        busiest = std::max(busiest, need);
        skipped += steps - need;
      }
    cycles += std::max(busiest, 1);
  }
  SparseStreamEstimate e;
  e.window_cycles = cycles / kSampledWindows;
  e.skipped_steps = skipped / kSampledWindows;
  return e;
}

}  // namespace

SparseStreamEstimate estimate_sparse_stream(const ArrayPlan& p, double x_zeros, double w_zeros) {
  const ArraySparsity& s = p.sparse;
  FSGEN_ASSERT(s.skips_steps(), "only a sparse output-stationary array skips steps");
  FSGEN_ASSERT(x_zeros >= 0 && x_zeros <= 1 && w_zeros >= 0 && w_zeros <= 1, "zero fractions checked by the caller");
  const uint32_t steps = s.window(), lm = s.lanes_m(), ln = s.lanes_n();
  const uint32_t rows_per_lane = p.spec.tile_m / lm, cols_per_lane = p.spec.tile_n / ln;
  // A lane is non-zero at a step unless every one of its values is zero (an operand without a
  // zero test always is).
  const double x_nonzero = s.x_sparse ? 1 - std::pow(x_zeros, rows_per_lane) : 1.0;
  const double w_nonzero = s.w_sparse ? 1 - std::pow(w_zeros, cols_per_lane) : 1.0;
  // Sampled once per shape and statistics: a model run times each launch with it.
  static std::mutex lock;
  static std::map<std::tuple<uint32_t, uint32_t, uint32_t, double, double>, SparseStreamEstimate> sampled;
  SparseStreamEstimate e;
  {
    std::lock_guard<std::mutex> hold(lock);
    const auto key = std::make_tuple(steps, lm, ln, x_nonzero, w_nonzero);
    auto it = sampled.find(key);
    if (it == sampled.end()) it = sampled.emplace(key, sample_windows(steps, lm, ln, x_nonzero, w_nonzero)).first;
    e = it->second;
  }
  e.windows = p.spec.tile_k / steps;
  e.drain = p.spec.systolic ? p.spec.tile_m + p.spec.tile_n - 2 : 0;
  return e;
}

}  // namespace fsgen
