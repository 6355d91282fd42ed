// pe_array_os's cycle model (and pe_array_rescale's: the same module with RESCALE = 1).
#pragma once
#include <memory>

#include "models/pe_array_model.h"

namespace fsgen {

std::unique_ptr<PeArrayModel> make_os_array_model(const ArrayPlan& plan, ToggleProbe& x, ToggleProbe& w,
                                                  BlockActivity& act, BlockTimeline& timeline);

}  // namespace fsgen
