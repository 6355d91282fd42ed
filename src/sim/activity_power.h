// A design's average power over a run the fast model timed (no toggles, no operand values:
// a whole model layer): each modelled block's dynamic energy split into what it draws every
// cycle (its clock and idle logic: the trained primitive model at zero activity) and what it
// draws per cycle it is busy, the latter calibrated on a sample of the design run in the
// cycle model and priced by the trained primitive models (estimate_power) on that sample's
// toggles. The long run's busy cycles of each block then give its power, plus its leakage.
//
// A block is priced by the busy cycles of its own activity (a PE array, the DMA, the softmax
// unit), of the PE array it feeds or is fed by (value networks, accumulator caches), or, for
// a controller or register file, of the arrays and the DMA together (its events are theirs).
#pragma once
#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "compiler/program.h"
#include "generator/graph.h"
#include "models/fast_model.h"
#include "models/run_result.h"
#include "power/memory_macro.h"
#include "power/power_model.h"

namespace fsgen {

struct BlockEnergy {
  std::string block;
  std::vector<std::string> busy_blocks;  // whose busy cycles price it
  double leakage_mw = 0;
  double idle_fj = 0;  // dynamic energy per cycle, fJ
  double busy_fj = 0;  // dynamic energy per busy cycle above idle_fj, fJ
};

struct ActivityPowerModel {
  std::string sample;  // the sample's kernels, for the record
  std::vector<BlockEnergy> blocks;
  std::vector<std::string> not_modelled;  // blocks without a trained primitive
  uint64_t sample_cycles = 0;             // the sample's kernels in the cycle model
  uint64_t sample_fast_cycles = 0;        // and in the fast model (from the zero statistics when sparse)
  double sample_mw = 0;                   // the sample's average power, as estimate_power priced it

  // Each block's average power over a run of `cycles` with the blocks' busy cycles in
  // `activity`, in the model's block order, and their sum.
  std::vector<std::pair<std::string, double>> block_power_mw(const std::map<std::string, BlockActivity>& activity,
                                                             uint64_t cycles, double clock_mhz) const;
  double power_mw(const std::map<std::string, BlockActivity>& activity, uint64_t cycles, double clock_mhz) const;
  // The fast model's error on the sample against the cycle model: (fast - cycle) / cycle, %.
  double sample_cycle_error_percent() const {
    return sample_cycles ? 100.0 * (double(sample_fast_cycles) - double(sample_cycles)) / double(sample_cycles) : 0;
  }
};

// The sample: a matmul of two output tiles (one, when the accumulator cache holds one) over
// four k tiles and, on a fused core, a prefill
// attention head over two key tiles, every operand's values zero at the share `zeros`.
// Buffers among `macros` are priced by the SRAM macro model.
ActivityPowerModel calibrate_activity_power(const Graph& g, const PowerModel& model, double zeros,
                                            const DesignMacros& macros = {});
// The sample's programs (what a model layer runs: a projection matmul, attention).
std::vector<Program> sample_programs(const Graph& g, double zeros);

}  // namespace fsgen
