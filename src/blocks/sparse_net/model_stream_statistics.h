// A sparse output-stationary array's stream from the zero statistics of its operands, not
// their values: the window scheduler of fsgen_ctrl_window.v (sparse_net/model.cpp) issues,
// per window of S_k steps, as many cycles as the busiest (row lane, column lane) block has
// steps where both its x rows and its w columns hold a non-zero, and at least one. With each
// operand value zero independently (x with probability x_zeros, w with w_zeros), a row lane
// of R rows is non-zero at a step with probability 1 - x_zeros^R; the expected window is
// estimated over sampled windows (a fixed seed: the same design and statistics give the same
// figure on every run).
#pragma once
#include <cstdint>

#include "generator/graph.h"

namespace fsgen {

struct SparseStreamEstimate {
  double window_cycles = 0;                                                 // expected cycles per window (1 .. S_k)
  double skipped_steps = 0;                                                 // expected block steps skipped per window
  uint32_t windows = 0;                                                     // windows per tile: tile_k / S_k
  uint32_t drain = 0;                                                       // systolic drain after the last window
  double stream_cycles() const { return windows * window_cycles + drain; }  // per tile
};

// p must be a sparse output-stationary array (ArraySparsity::skips_steps()); zero
// fractions in [0, 1].
SparseStreamEstimate estimate_sparse_stream(const ArrayPlan& p, double x_zeros, double w_zeros);

}  // namespace fsgen
