// The fast model of the fused core: the controller's schedule (TileSequencer) with
// every phase timed as a whole by the timing rules the cycle model follows
// (tile_cycles(), MemoryTiming), without operand data and without per-cycle toggles.
// A phase takes the cycles the SystemC model's phase takes, so the two agree on the
// cycle count; a test holds them to that over the cross-check matrix.
//
// Activity comes out per block in total (busy cycles, DMA bytes, cache hits and
// misses, as the cycle model counts them) and per window of `window` cycles (busy
// cycles, each phase's spread evenly over its span), for power traces of long runs.
#pragma once
#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "generator/graph.h"
#include "models/kernel_regs.h"
#include "models/run_result.h"

namespace fsgen {

// Busy cycles of each block in consecutive windows of `window` cycles from cycle 0.
struct ActivityTimeline {
  uint64_t window = 0;  // cycles per window; 0: no timeline is kept
  uint64_t expected_windows = 0;  // when known, each block's windows are allocated once
  std::map<std::string, std::vector<double>> busy;
  // PE arrays: cycles with an enable port high: the busy (streaming) cycles and those
  // loading a stationary operand (the power model's enable feature).
  std::map<std::string, std::vector<double>> enabled;
  // PE arrays, from a cycle-model run only (the fast model has no data): the operand bytes
  // presented in each window, and how many were zero.
  std::map<std::string, std::vector<double>> operand_bytes, zero_bytes;
  // The side enables' cycles: the DMA's commands, a dot array's loads, the rescaling
  // array's sc (in the fast model spread over their phase, like the busy cycles).
  std::map<std::string, std::vector<double>> side;

  // `busy_cycles` of `block`, spread evenly over cycles [start, start + span).
  void add(const std::string& block, uint64_t start, uint64_t span, double busy_cycles);
  void add_enabled(const std::string& block, uint64_t start, uint64_t span, double enabled_cycles);
  void add_side(const std::string& block, uint64_t start, uint64_t span, double side_cycles);

  // The same windows from a cycle-model run's spans and operand samples of every PE array
  // (RunResult::timelines).
  static ActivityTimeline from_spans(const RunResult& r, uint64_t window, uint64_t windows);
};

// The zero statistics a design whose tile times depend on its operands is timed by: each
// value of operand A (x: activations, queries) and of operand B (w: weights, keys) zero
// independently with these probabilities. A sparse array's stream then takes its expected
// cycles (blocks/sparse_net/model_stream_statistics.h), a compressed tile row is all zeros with
// the probability that all its bytes are, and block TopK keeps the top of pseudo-random key
// scores (as many tiles as the data would; which ones, and so the K/V cache's hits, differ).
struct OperandZeros {
  double a = 0, b = 0;
};

struct FastRun {
  RunResult result;  // model "fast": cycles and activity; no outputs, no probes
  ActivityTimeline timeline;
};

// Times one kernel launch on the design. window = 0 keeps no timeline. A design whose tile
// times depend on the data (SparsePlan::timing_depends_on_data) needs `zeros`; a UserError
// without them, or when array b skips steps (its operand P is made on chip: no statistic).
FastRun run_fast(const Graph& g, const KernelRegs& regs, uint64_t window = 0,
                 const std::optional<OperandZeros>& zeros = std::nullopt);

}  // namespace fsgen
