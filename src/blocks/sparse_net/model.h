// The SystemC-side model of a sparse output-stationary array and its value networks
// (docs/SPARSITY.md): a tile streams window by window, each window as many cycles as
// its busiest block of PEs needs, and the run's SparseActivity counts what was skipped.
#pragma once
#include <memory>

#include "models/pe_array_model.h"

namespace fsgen {

std::unique_ptr<PeArrayModel> make_sparse_os_array_model(const ArrayPlan& plan, ToggleProbe& x, ToggleProbe& w,
                                                         BlockActivity& act, BlockTimeline& timeline,
                                                         SparseActivity& stats);

}  // namespace fsgen
