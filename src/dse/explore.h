// fsgen explore: every point of a design space elaborated, checked against the space's
// constraints and run on its benchmarks in the fast model, the results in a database
// (results_db.h) that a killed run resumes; the report is drawn from that database (report.h).
#pragma once
#include <cstdint>
#include <functional>
#include <ostream>
#include <string>

#include "dse/results_db.h"
#include "dse/space.h"
#include "generator/graph.h"
#include "power/memory_macro.h"
#include "sim/model_sim.h"

namespace fsgen {

class PowerModel;

struct ExploreOptions {
  const PowerModel* power_model = nullptr;  // area and power models (nullptr: neither estimated)
  std::string power_model_name;             // its file, named in the records
  // Buffers from macros.threshold_bytes up are SRAM macros, priced by the macro model in
  // the power model's technology (its liberty's voltage and leakage).
  MacroOptions macros;
  MacroTechnology macro_technology;
  uint32_t jobs = 1;                        // designs evaluated at once (threads)
  uint64_t limit = 0;                       // the first `limit` points only (0: all)
  uint32_t rank = 0, ranks = 1;             // this process's share: the points whose hash % ranks == rank
};

struct ExploreCounts {
  uint64_t points = 0, already = 0, ok = 0, invalid = 0, excluded = 0, failed = 0;
};

// A benchmark run on a design: its model's layers in the fast model (the point's figures) or
// the cycle model (their check, verify.h), operands drawn at the benchmark's zero share.
ModelSimReport simulate_benchmark(const Graph& g, const SpaceBenchmark& b, SimMode mode = SimMode::kFast);

// One point: elaborated, checked, run on every benchmark (never throws a UserError: a point
// that cannot run is recorded with its reason).
DesignRecord evaluate_point(const DesignSpace& s, const DesignPoint& p, const ExploreOptions& o = {});

// Runs the points not yet in `db`; progress(done, to do) after each.
ExploreCounts explore(const DesignSpace& s, ResultsDb& db, const ExploreOptions& o,
                      const std::function<void(uint64_t, uint64_t)>& progress = {});

}  // namespace fsgen
