// A core's controller under a kernel (fsgen_ctrl: `ctrl` on a matmul core, `fused_ctrl` on
// a fused one): the events its logic switches at, counted per window of a SystemC run where
// the model already observes them. The controller's own registers are not probed; what it
// does each cycle shows at the blocks it drives and is fed by: the DMA's beats and commands
// (operand-buffer writes, the address arithmetic of each command), the read data it stores,
// the requantiser's rows on their way to the write data, the array's stream cycles and
// operand buses (buffer reads onto registered buses); on a fused core also array b's
// stream and buses (the P row, the V rows), the rows it presents to the softmax unit and
// stores from it, and the normaliser's rows. The controller's activity model
// (power_model.h) prices a window as its idle clock energy plus an energy per event.
#pragma once
#include <cstdint>
#include <string>
#include <vector>

#include "blocks/power_primitive.h"
#include "models/run_result.h"

namespace fsgen {

// The events of a controller kind ("ctrl" or "fused_ctrl"), in feature order: each one's
// name and what it counts per window. A fused controller's events are the matmul
// controller's followed by its own.
struct ControllerEvent {
  const char* name;
  const char* counts;
};
const std::vector<ControllerEvent>& controller_events(const std::string& kind);
std::vector<std::string> controller_event_names(const std::string& kind);  // in that order

// What each event of controller primitive `def`'s kind grows with at hyperparameters h, in
// controller_events order: its own term (PrimitiveDef::event_size_terms), else the
// primitive's first size term.
std::vector<double> controller_event_growth(const PrimitiveDef& def, const std::vector<int>& h);

// Cycles by which the controller's switching precedes its events as the run records them:
// it registers the commands, enables, operand buses and stored rows its neighbours take at
// the next edge, where the SystemC model records them. Measured on a training core's
// per-cycle replay (2x2x8 W1, uniform operands): a least-squares fit of its golden energy on
// the events with every event one cycle early gives window R 0.886, on time 0.332.
constexpr uint64_t kControllerLead = 1;

// Per event of `kind` (controller_events(kind) order), its count in each of `windows` windows
// of `window` cycles of run r, each event kControllerLead cycles before the run records it.
std::vector<std::vector<double>> controller_event_counts(const RunResult& r, const std::string& kind, uint64_t window,
                                                         uint64_t windows);

// The same windows' sum over the events of count x energy_per_event (fJ per event, in
// controller_events(kind) order): a per-cycle trace without a series per event.
std::vector<double> controller_event_energy(const RunResult& r, const std::string& kind, uint64_t window,
                                            uint64_t windows, const std::vector<double>& energy_per_event);

}  // namespace fsgen
