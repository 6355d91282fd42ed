// Trust in the estimators on the front (fsgen explore --verify N): the best designs of a
// results database run again in the cycle model (the SystemC platform, synthetic operands
// drawn at the benchmark's zero share) on the benchmarks the fast model timed shortest (one
// per stage), and the two models' cycles compared.
#pragma once
#include <cstdint>
#include <functional>
#include <nlohmann/json.hpp>
#include <ostream>
#include <string>
#include <vector>

#include "dse/results_db.h"
#include "dse/space.h"

namespace fsgen {

struct CycleCheck {
  std::string design, space, benchmark;
  uint64_t fast_cycles = 0, cycle_model_cycles = 0;
  double wall_seconds = 0;  // of the cycle-model run
  double error_percent() const {
    return cycle_model_cycles ? 100.0 * (double(fast_cycles) - double(cycle_model_cycles)) / double(cycle_model_cycles)
                              : 0;
  }
};

// The first space's `count` best designs and each other space's best (report.h's order),
// each on its shortest benchmark of each stage; progress(done designs, all) after each design.
std::vector<CycleCheck> check_best_designs(const std::vector<DesignRecord>& designs, uint32_t count,
                                           const std::function<void(uint64_t, uint64_t)>& progress = {});
void print_cycle_checks(const std::vector<CycleCheck>& checks, std::ostream& out);
nlohmann::json cycle_checks_json(const std::vector<CycleCheck>& checks);

}  // namespace fsgen
