// fsgen explore: every point of a design space elaborated, checked against the space's
// constraints and run on its benchmarks in the fast model, the results in a database
// (results_db.h) that a killed run resumes; and the report drawn from that database.
#pragma once
#include <cstdint>
#include <functional>
#include <ostream>
#include <string>

#include "dse/results_db.h"
#include "dse/space.h"

namespace fsgen {

class PowerModel;

struct ExploreOptions {
  const PowerModel* power_model = nullptr;  // the primitive area models (nullptr: no area)
  std::string power_model_name;             // its file, named in the records
  uint32_t jobs = 1;                        // designs evaluated at once (threads)
  uint64_t limit = 0;                       // the first `limit` points only (0: all)
  uint32_t rank = 0, ranks = 1;             // this process's share: the points whose hash % ranks == rank
};

struct ExploreCounts {
  uint64_t points = 0, already = 0, ok = 0, invalid = 0, excluded = 0, failed = 0;
};

// One point: elaborated, checked, run on every benchmark (never throws a UserError: a point
// that cannot run is recorded with its reason).
DesignRecord evaluate_point(const DesignSpace& s, const DesignPoint& p, const ExploreOptions& o = {});

// Runs the points not yet in `db`; progress(done, to do) after each.
ExploreCounts explore(const DesignSpace& s, ResultsDb& db, const ExploreOptions& o,
                      const std::function<void(uint64_t, uint64_t)>& progress = {});

// The designs recorded, the best per benchmark, and the front of tokens/s (the geometric mean
// over the benchmarks) against area (when every design has one) or PEs.
void print_explore_report(const std::vector<DesignRecord>& designs, std::ostream& out);
// The same front as dir/front.csv (every design that ran, smallest first; the front's designs
// have their tokens/s in front_tokens_per_second, the others NaN) and dir/front.png (gnuplot).
void write_explore_front(const std::vector<DesignRecord>& designs, const std::string& dir);

}  // namespace fsgen
