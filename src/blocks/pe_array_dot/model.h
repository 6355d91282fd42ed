// pe_array_dot's cycle model; its output tile lives in the accumulator cache (acc_cache).
#pragma once
#include <memory>

#include "models/pe_array_model.h"
#include "models/rtl_ports.h"

namespace fsgen {

// compressed: the lanes' activity when they hold the non-zero weights only (fsgen_array_dot.v
// with SLOTS < K); null for a dense array.
std::unique_ptr<PeArrayModel> make_dot_array_model(const ArrayPlan& plan, ToggleProbe& x, ToggleProbe& w,
                                                   ToggleProbe& y, BlockActivity& act, BlockActivity& acc_act,
                                                   BlockTimeline& timeline, SparseActivity* compressed);

// The array as its Verilated RTL (model_rtl.cpp), `reference` its cycle model beside it.
std::unique_ptr<PeArrayModel> make_rtl_dot_array_model(const ArrayPlan& plan, std::unique_ptr<PeArrayModel> reference,
                                                       RtlPorts& rtl, RtlBlockMonitor& monitor);

// The output cell a lane's sum lands in at stream step `step`: a weight-stationary array
// writes row `step` of the tile (lane = column), an input-stationary one column `step`.
struct DotOutputCell {
  uint32_t row, col;
};
inline DotOutputCell dot_output_cell(bool weight_stationary, uint32_t step, uint32_t lane) {
  return weight_stationary ? DotOutputCell{step, lane} : DotOutputCell{lane, step};
}

}  // namespace fsgen
