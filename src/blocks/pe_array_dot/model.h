// pe_array_dot's cycle model; its output tile lives in the accumulator cache (acc_cache).
#pragma once
#include <memory>

#include "models/pe_array_model.h"

namespace fsgen {

// compressed: the lanes' activity when they hold the non-zero weights only (fsgen_array_dot.v
// with SLOTS < K); null for a dense array.
std::unique_ptr<PeArrayModel> make_dot_array_model(const ArrayPlan& plan, ToggleProbe& x, ToggleProbe& w,
                                                   ToggleProbe& y, BlockActivity& act, BlockActivity& acc_act,
                                                   BlockTimeline& timeline, SparseActivity* compressed);

}  // namespace fsgen
