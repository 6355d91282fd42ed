#include "dse/verify.h"

#include <algorithm>
#include <iomanip>
#include <map>
#include <sstream>

#include "compiler/model_config.h"
#include "core/error.h"
#include "dse/report.h"
#include "generator/graph.h"
#include "generator/spec.h"
#include "sim/model_sim.h"

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
  const ModelConfig m = model_config_by_name(b.model);
  ModelSimOptions o;
  o.stage = b.stage == "decode" ? Stage::kDecode : Stage::kPrefill;
  o.context = b.context;
  o.layers = b.layers == 0 ? 0 : std::min(b.layers, m.layers);
  o.attention_only = b.attention_only;
  o.values.zero_fraction = b.zeros;
  o.mode = SimMode::kCycle;
  const ModelSimReport cyc = simulate_model(g, m, o);
  CycleCheck c;
  c.design = d.name, c.space = d.space, c.benchmark = r.benchmark;
  c.fast_cycles = r.cycles, c.cycle_model_cycles = cyc.cycles, c.wall_seconds = cyc.wall_seconds;
  return c;
}

}  // namespace

SpaceBenchmark benchmark_of_key(const std::string& key) {
  // model/stage/context/layers[/attention][/zeros=Z]; the model (a path, maybe) may hold '/'.
  std::vector<std::string> parts;
  std::stringstream in(key);
  for (std::string p; std::getline(in, p, '/');) parts.push_back(p);
  SpaceBenchmark b;
  auto bad = [&] { fail("benchmark '" + key + "'", "expected model/stage/context/layers[/attention][/zeros=Z]"); };
  if (parts.size() < 4) bad();
  if (parts.back().rfind("zeros=", 0) == 0) {
    b.zeros = std::stod(parts.back().substr(6));
    parts.pop_back();
  }
  if (parts.back() == "attention") {
    b.attention_only = true;
    parts.pop_back();
  }
  if (parts.size() < 4) bad();
  b.layers = parts.back() == "all" ? 0 : uint32_t(std::stoul(parts.back()));
  parts.pop_back();
  b.context = uint32_t(std::stoul(parts.back()));
  parts.pop_back();
  b.stage = parts.back();
  parts.pop_back();
  b.model = parts.front();
  for (size_t i = 1; i < parts.size(); ++i) b.model += "/" + parts[i];
  if (b.key() != key) bad();
  return b;
}

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
