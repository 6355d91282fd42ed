// pe_array_os's cycle model (and pe_array_rescale's: the same module with RESCALE = 1).
#pragma once
#include <memory>

#include "models/pe_array_model.h"
#include "models/rtl_ports.h"

namespace fsgen {

// It records its accumulators' switching (BlockTimeline::state: the state register of
// pe_array_os's and pe_array_rescale's power models, model_accumulators.h).
std::unique_ptr<PeArrayModel> make_os_array_model(const ArrayPlan& plan, ToggleProbe& x, ToggleProbe& w,
                                                  BlockActivity& act, BlockTimeline& timeline);

// The array as its Verilated RTL (model_rtl.cpp), `reference` its cycle model beside it.
std::unique_ptr<PeArrayModel> make_rtl_os_array_model(const ArrayPlan& plan, std::unique_ptr<PeArrayModel> reference,
                                                      RtlPorts& rtl, RtlBlockMonitor& monitor);

}  // namespace fsgen
