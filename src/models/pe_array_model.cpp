#include "models/pe_array_model.h"

#include "blocks/pe_array_dot/model.h"
#include "blocks/pe_array_os/model.h"
#include "blocks/sparse_net/model.h"
#include "core/error.h"

namespace fsgen {

std::unique_ptr<PeArrayModel> make_pe_array_model(const ArrayPlan& plan, RunResult& result, const std::string& block) {
  ToggleProbe* x = result.find_probe(block, "x");
  ToggleProbe* w = result.find_probe(block, "w");
  FSGEN_ASSERT(x && w, "array probes missing from the graph");
  BlockActivity& act = result.activity[block];
  BlockTimeline& timeline = result.timelines[block];
  if (plan.sparse.skips_steps()) return make_sparse_os_array_model(plan, *x, *w, act, timeline, result.sparse[block]);
  if (plan.stationarity == Stationarity::kOutput) return make_os_array_model(plan, *x, *w, act, timeline);
  ToggleProbe* y = result.find_probe(block, "y");
  FSGEN_ASSERT(y, "dot array y probe missing from the graph");
  // array_a writes into acc_a, array_b into acc_b.
  BlockActivity& acc = result.activity["acc_" + block.substr(block.rfind('_') + 1)];
  SparseActivity* compressed = plan.sparse.holds_compressed() ? &result.sparse[block] : nullptr;
  return make_dot_array_model(plan, *x, *w, *y, act, acc, timeline, compressed);
}

std::unique_ptr<PeArrayModel> make_rtl_pe_array_model(const ArrayPlan& plan, RunResult& result,
                                                      const std::string& block, RtlPorts& rtl,
                                                      RtlBlockMonitor& monitor) {
  if (plan.sparse.skips_steps())
    fail("--rtl " + block,
         "an array behind value networks that skip steps has no mixed-level model (only dense and "
         "compressed-lane arrays do); run it whole with fsgen cosim");
  auto reference = make_pe_array_model(plan, result, block);
  if (plan.stationarity == Stationarity::kOutput)
    return make_rtl_os_array_model(plan, std::move(reference), rtl, monitor);
  return make_rtl_dot_array_model(plan, std::move(reference), rtl, monitor);
}

}  // namespace fsgen
