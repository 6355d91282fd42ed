// The accumulators of an output-stationary PE grid as its state register (BlockTimeline::state,
// PrimitiveDef::state_register "acc"): the bits each step flips, in the cycle whose closing
// edge each PE's register takes the new sum at. Shared by the dense and the sparse grid models.
#pragma once
#include <cstdint>
#include <vector>

#include "models/run_result.h"

namespace fsgen {

class AccumulatorTrace {
 public:
  // A grid of rows x cols 32-bit accumulators recording into `trace`. A broadcast grid's PEs
  // all take a step's sums in one cycle; a systolic grid's PE (i, j) i + j cycles later (its
  // operands cross j registers along its row and i down its column).
  AccumulatorTrace(uint32_t rows, uint32_t cols, bool systolic, RegisterTrace& trace);
  // Around one step: `acc` (rows x cols, row-major) before it, then after it, `cycle` being
  // the cycle whose closing edge PE (0, 0)'s register takes the new sum at (the gate-level
  // engine counts that edge's switching in it).
  void before_step(const int32_t* acc);
  void after_step(uint64_t cycle, const int32_t* acc);
  // Writes the tile's samples, in cycle order (a systolic PE's come after later steps' of
  // PEs nearer the corner); call at the end of every tile, before the next one's steps.
  void end_tile();

  // The switching of the PEs that take their sums in one cycle.
  struct Change {
    uint32_t toggles = 0;
    int64_t ones_change = 0;
  };

 private:
  uint32_t rows_, cols_;
  bool systolic_;
  RegisterTrace& trace_;
  std::vector<int32_t> before_;
  std::vector<Change> pending_;  // by cycle from first_cycle_
  uint64_t first_cycle_ = 0;
  int64_t ones_ = 0;  // the grid's bits at 1 after the last written sample (0 from reset)
};

}  // namespace fsgen
