#include "blocks/pe_array_os/model_accumulators.h"

#include <algorithm>

#include "core/error.h"

namespace fsgen {

AccumulatorTrace::AccumulatorTrace(uint32_t rows, uint32_t cols, bool systolic, RegisterTrace& trace)
    : rows_(rows), cols_(cols), systolic_(systolic), trace_(trace), before_(size_t(rows) * cols) {
  trace_.bits = rows * cols * 32;
}

void AccumulatorTrace::before_step(const int32_t* acc) { std::copy(acc, acc + before_.size(), before_.begin()); }

namespace {

// Compiled twice, for processors with a popcount instruction and for those without: the
// traces cost the array model a few times its sums with the generic bit count.
#define FSGEN_POPCOUNT_CLONES __attribute__((target_clones("popcnt", "default")))

// Into `into`: the bits that differ between `was` and `now` (n words) and the change in bits at 1.
FSGEN_POPCOUNT_CLONES void count_changes(const uint32_t* was, const uint32_t* now, size_t n,
                                         AccumulatorTrace::Change& into) {
  uint32_t flips = 0;
  int64_t ones = 0;
  for (size_t k = 0; k < n; ++k) {
    flips += uint32_t(__builtin_popcount(was[k] ^ now[k]));
    ones += int64_t(__builtin_popcount(now[k])) - int64_t(__builtin_popcount(was[k]));
  }
  into.toggles += flips, into.ones_change += ones;
}

// The same of a rows x cols grid, PE (i, j)'s into diagonal[i + j].
FSGEN_POPCOUNT_CLONES void count_changes_by_diagonal(const uint32_t* was, const uint32_t* now, uint32_t rows,
                                                     uint32_t cols, AccumulatorTrace::Change* diagonal) {
  for (uint32_t i = 0; i < rows; ++i)
    for (uint32_t j = 0; j < cols; ++j) {
      const size_t pe = size_t(i) * cols + j;
      diagonal[i + j].toggles += uint32_t(__builtin_popcount(was[pe] ^ now[pe]));
      diagonal[i + j].ones_change += int64_t(__builtin_popcount(now[pe])) - int64_t(__builtin_popcount(was[pe]));
    }
}

#undef FSGEN_POPCOUNT_CLONES

}  // namespace

void AccumulatorTrace::after_step(uint64_t cycle, const int32_t* acc) {
  if (pending_.empty()) first_cycle_ = cycle;
  FSGEN_ASSERT(cycle >= first_cycle_, "a tile's steps in cycle order");
  const size_t base = size_t(cycle - first_cycle_);
  pending_.resize(std::max(pending_.size(), base + (systolic_ ? rows_ + cols_ - 1 : 1)));
  const auto* was = reinterpret_cast<const uint32_t*>(before_.data());
  const auto* now = reinterpret_cast<const uint32_t*>(acc);
  if (systolic_)
    count_changes_by_diagonal(was, now, rows_, cols_, &pending_[base]);
  else
    count_changes(was, now, before_.size(), pending_[base]);
}

void AccumulatorTrace::end_tile() {
  for (size_t c = 0; c < pending_.size(); ++c) {
    if (pending_[c].toggles == 0) continue;
    ones_ += pending_[c].ones_change;
    trace_.add(first_cycle_ + c, pending_[c].toggles, uint32_t(ones_));
  }
  pending_.clear();
}

}  // namespace fsgen
