// Vectorised cycle models of the two PE array kinds (fsgen_array_os.v and
// fsgen_array_dot.v). run_tile() executes one tile's array phases in a loop,
// reports every probed register update with its cycle, and returns the number of
// cycles the phases take, so the controller advances time once per tile.
#pragma once
#include <cstdint>
#include <memory>
#include <vector>

#include "generator/graph.h"
#include "models/run_result.h"

namespace fsgen {

class PeArrayModel {
 public:
  virtual ~PeArrayModel() = default;
  // cycle0: the first cycle of the phase after the loads. acc_tile: the output tile
  // (tile_m x tile_n INT32) in the accumulator cache for dot arrays, unused by
  // output-stationary arrays which accumulate in their PEs.
  virtual uint64_t run_tile(uint64_t cycle0, const uint8_t* buf_a, const uint8_t* buf_b, bool reload_stationary,
                            bool first_k, int32_t* acc_tile) = 0;
  // Row r of the finished output tile (tile_n INT32 values).
  virtual void read_row(uint32_t r, const int32_t* acc_tile, int32_t* out) const = 0;
};

std::unique_ptr<PeArrayModel> make_pe_array_model(const ArrayPlan& plan, RunResult& result,
                                                  const std::string& block);

}  // namespace fsgen
