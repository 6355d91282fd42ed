#include "dse/verify.h"

#include <algorithm>
#include <iomanip>
#include <map>

#include "dse/explore.h"
#include "dse/report.h"
#include "generator/spec.h"

namespace fsgen {

namespace {

// The recorded results the fast model timed shortest, one per stage (prefill, decode).
std::vector<const BenchmarkResult*> shortest_per_stage(const DesignRecord& d) {
  std::map<std::string, const BenchmarkResult*> by_stage;
  for (const BenchmarkResult& r : d.results) {
    const BenchmarkResult*& s = by_stage[benchmark_of_key(r.benchmark).stage];
    if (!s || r.cycles < s->cycles) s = &r;
  }
  std::vector<const BenchmarkResult*> out;
  for (const auto& [stage, r] : by_stage) out.push_back(r);
  return out;
}

CycleCheck check_design(const DesignRecord& d, const BenchmarkResult& r) {
  const SpaceBenchmark b = benchmark_of_key(r.benchmark);
  const Graph g = elaborate(parse_spec_text(d.spec_text, d.name + ".yaml"));
  const ModelSimReport cyc = simulate_benchmark(g, b, SimMode::kCycle);
  CycleCheck c;
  c.design = d.name, c.space = d.space, c.benchmark = r.benchmark;
  c.fast_cycles = r.cycles, c.cycle_model_cycles = cyc.cycles, c.wall_seconds = cyc.wall_seconds;
  return c;
}

}  // namespace

std::vector<CycleCheck> check_best_designs(const std::vector<DesignRecord>& designs, uint32_t count,
                                           const std::function<void(uint64_t, uint64_t)>& progress) {
  const std::vector<DesignFigures> figs = figures_of(designs);
  const std::vector<const DesignFigures*> best = best_designs(figs, count);
  std::vector<CycleCheck> out;
  uint64_t done = 0;
  for (const auto* f : best) {
    for (const BenchmarkResult* r : shortest_per_stage(*f->design)) out.push_back(check_design(*f->design, *r));
    if (progress) progress(++done, best.size());
  }
  return out;
}

void print_cycle_checks(const std::vector<CycleCheck>& checks, std::ostream& out) {
  out << "the best designs in the cycle model (fsgen SystemC platform, synthetic operands at the benchmark's zero "
         "share) against the fast model, each on its shortest benchmark of each stage:\n";
  double worst = 0;
  for (const CycleCheck& c : checks) {
    out << "  " << std::left << std::setw(16) << c.design << std::setw(48) << c.benchmark << std::right << std::setw(14)
        << c.cycle_model_cycles << " cycles, fast " << std::setw(14) << c.fast_cycles << " (" << std::showpos
        << std::fixed << std::setprecision(2) << c.error_percent() << std::noshowpos << " %), " << std::setprecision(1)
        << c.wall_seconds << " s\n"
        << std::defaultfloat;
    worst = std::max(worst, std::abs(c.error_percent()));
  }
  out << "  largest error " << std::fixed << std::setprecision(2) << worst << " % over " << checks.size() << " runs\n"
      << std::defaultfloat;
}

nlohmann::json cycle_checks_json(const std::vector<CycleCheck>& checks) {
  nlohmann::json j = nlohmann::json::array();
  for (const CycleCheck& c : checks)
    j.push_back({{"design", c.design},
                 {"space", c.space},
                 {"benchmark", c.benchmark},
                 {"cycle_model_cycles", c.cycle_model_cycles},
                 {"fast_cycles", c.fast_cycles},
                 {"error_percent", c.error_percent()},
                 {"wall_seconds", c.wall_seconds}});
  return j;
}

}  // namespace fsgen
