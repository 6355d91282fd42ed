// The report of a design-space exploration, drawn from its database alone (fsgen explore
// --report redraws it without running anything): the designs by space and status; per
// design its figures over the benchmark set; a Table 1-style table of the best designs of
// each space; the paper's two comparisons of the first space against each other space (a
// baseline); the Pareto fronts and the tokens/s per benchmark as CSV and PNG.
//
// A design's figures over the benchmark set: tokens/s the geometric mean of its benchmarks',
// cycles their sum, power the average over running them one after another (energy over
// time), utilisation array a's busy share over the same time, FoM = tokens/s / W / mm2.
#pragma once
#include <nlohmann/json.hpp>
#include <ostream>
#include <string>
#include <vector>

#include "dse/results_db.h"
#include "dse/space.h"

namespace fsgen {

struct DesignFigures {
  const DesignRecord* design = nullptr;
  double tokens_per_second = 0;  // geometric mean over the benchmarks
  double cycles = 0;             // summed over the benchmarks
  double power_mw = 0;           // 0: no power estimated
  double area_mm2 = 0;           // 0: no area estimated
  double utilisation = 0;        // array a busy, share of the cycles
  double tokens_per_joule() const { return power_mw > 0 ? tokens_per_second / (power_mw * 1e-3) : 0; }
  double fom() const { return area_mm2 > 0 ? tokens_per_joule() / area_mm2 : 0; }
};

// The figures of every design that ran, in the database's order.
std::vector<DesignFigures> figures_of(const std::vector<DesignRecord>& designs);
// The first space's `first_count` best designs and each other space's best: by FoM when every
// design of the space has one, else by tokens/s.
std::vector<const DesignFigures*> best_designs(const std::vector<DesignFigures>& figs, size_t first_count);

void print_explore_report(const std::vector<DesignRecord>& designs, const SpaceComparisons& c, std::ostream& out);
nlohmann::json explore_report_json(const std::vector<DesignRecord>& designs, const SpaceComparisons& c);
// In dir: fronts.csv and front_{cycles_power,tokens_area,efficiency_area}.png, table.csv and
// benchmarks.csv / benchmarks.png (tokens/s per benchmark of the table's designs).
void write_explore_plots(const std::vector<DesignRecord>& designs, const std::string& dir);

}  // namespace fsgen
