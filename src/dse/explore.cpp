#include "dse/explore.h"

#include <algorithm>
#include <atomic>
#include <cmath>
#include <filesystem>
#include <iomanip>
#include <map>
#include <mutex>
#include <sstream>
#include <thread>

#include "compiler/model_config.h"
#include "core/error.h"
#include "core/write_file.h"
#include "flow/tools.h"
#include "generator/graph.h"
#include "generator/spec.h"
#include "sim/activity_power.h"
#include "sim/model_sim.h"
#include "sim/power_report.h"

namespace fsgen {

namespace {

// Why the design breaks a constraint, or "".
std::string over(double value, double cap, const std::string& unit, const std::string& field) {
  if (cap <= 0 || value <= cap) return "";
  std::ostringstream o;
  o << value << " " << unit << " exceed" << (unit == "PEs" ? "" : "s") << " " << field << " " << cap;
  return o.str();
}

// Why the design breaks a constraint known before it runs, or "".
std::string constraint_broken(const SpaceConstraints& c, const Graph& g, uint32_t pes, double area_um2) {
  const double clock = g.spec.clock_mhz, tops = 2.0 * pes * clock * 1e6 / 1e12;
  for (const std::string& why : {over(pes, c.max_pes, "PEs", "max_pes"), over(tops, c.max_tops, "TOPS", "max_tops"),
                                 over(g.spec.memory.bandwidth_gbps, c.max_bandwidth_gbps, "GB/s", "max_bandwidth_gbps"),
                                 over(clock, c.max_clock_mhz, "MHz", "max_clock_mhz"),
                                 over(area_um2 / 1e6, c.max_area_mm2, "mm2", "max_area_mm2")})
    if (!why.empty()) return why;
  return "";
}

BenchmarkResult result_of(const Graph& g, const SpaceBenchmark& b, const ModelSimReport& r) {
  BenchmarkResult out;
  out.benchmark = b.key();
  out.timing_model = "fsgen fast model";
  if (g.sparse.timing_depends_on_data()) {
    std::ostringstream z;
    z << 100 * b.zeros;
    out.timing_model += " (sparse timing from zero statistics: " + z.str() + " % of values zero)";
  }
  out.cycles = r.cycles;
  out.tokens_per_second = r.tokens_processed() / r.seconds_at_clock();
  out.dma_bytes = dma_bytes(r);
  out.least_bytes = least_bytes(r);
  out.roofline_cycles = run_roofline(r).bound();
  const uint64_t busy = r.activity.count("array_a") ? r.activity.at("array_a").busy_cycles : 0;
  out.array_a_busy = r.cycles ? double(busy) / double(r.cycles) : 0;
  return out;
}

// "ctrl 252.6; array_a 129.1; ...", largest first.
std::string power_by_block_text(std::vector<std::pair<std::string, double>> blocks) {
  std::stable_sort(blocks.begin(), blocks.end(), [](const auto& a, const auto& b) { return a.second > b.second; });
  std::ostringstream out;
  out << std::fixed << std::setprecision(1);
  for (size_t i = 0; i < blocks.size(); ++i) out << (i ? "; " : "") << blocks[i].first << " " << blocks[i].second;
  return out.str();
}

// The design's power models, one per zero share of the benchmarks (each calibrated once).
class DesignPower {
 public:
  DesignPower(const Graph& g, const ExploreOptions& o, const DesignMacros& macros) : g_(g), o_(o), macros_(macros) {}
  const ActivityPowerModel& at(double zeros) {
    auto it = by_zeros_.find(zeros);
    if (it != by_zeros_.end()) return it->second;
    try {
      return by_zeros_.emplace(zeros, calibrate_activity_power(g_, *o_.power_model, zeros, macros_)).first->second;
    } catch (const UserError& e) {
      fail("power sample", e.what());
    }
  }
  std::string model_name(const ActivityPowerModel& m) const {
    return "fsgen activity-scaled primitive models (" + o_.power_model_name +
           "): idle and per-busy-cycle energy of each block from a cycle-model sample (" + m.sample + ")";
  }
  // The sample on which the fast model was furthest from the cycle model.
  void record(DesignRecord& d) const {
    for (const auto& [zeros, m] : by_zeros_)
      if (d.power_sample.empty() || std::abs(m.sample_cycle_error_percent()) > std::abs(d.sample_cycle_error)) {
        std::ostringstream z;
        z << 100 * zeros;
        d.power_sample = m.sample + " at " + z.str() + " % zeros";
        d.sample_cycle_error = m.sample_cycle_error_percent();
      }
  }

 private:
  const Graph& g_;
  const ExploreOptions& o_;
  const DesignMacros& macros_;
  std::map<double, ActivityPowerModel> by_zeros_;
};

}  // namespace

ModelSimReport simulate_benchmark(const Graph& g, const SpaceBenchmark& b, SimMode mode) {
  const ModelConfig m = model_config_by_name(b.model);
  ModelSimOptions o;
  o.stage = b.stage == "decode" ? Stage::kDecode : Stage::kPrefill;
  o.context = b.context;
  o.layers = b.layers == 0 ? 0 : std::min(b.layers, m.layers);
  o.mode = mode;
  o.values.zero_fraction = b.zeros;
  o.attention_only = b.attention_only;
  return simulate_model(g, m, o);
}

// The timing model's max clock (when the primitive models have one), and what it rests on.
void record_max_clock(const Graph& g, const ExploreOptions& o, const DesignMacros& macros, DesignRecord& d) {
  if (o.power_model->timing.empty()) return;
  const DesignClock c = design_clock(g, *o.power_model, macros);
  d.max_clock_mhz = c.mhz;
  std::ostringstream m;
  m << "fsgen timing model (" << o.power_model_name << "): set by " << c.limiting_block << " (" << std::setprecision(3)
    << c.limiting_delay_ns << " ns)";
  if (!c.extrapolated.empty()) {
    m << "; beyond the characterised sizes:";
    for (const auto& b : c.extrapolated) m << " " << b;
  }
  if (!c.not_modelled.empty()) {
    m << "; without";
    for (const auto& b : c.not_modelled) m << " " << b;
  }
  d.clock_model = m.str();
}

DesignRecord evaluate_point(const DesignSpace& s, const DesignPoint& p, const ExploreOptions& o) {
  DesignRecord d;
  d.hash = p.hash, d.space = s.name, d.name = p.name, d.spec_text = p.spec_text, d.status = "ok";
  auto elaborated = [&]() -> std::unique_ptr<Graph> {
    try {
      return std::make_unique<Graph>(elaborate(parse_spec_text(p.spec_text, p.name + ".yaml")));
    } catch (const UserError& e) {
      d.status = "invalid", d.reason = e.what();
      return nullptr;
    }
  };
  const std::unique_ptr<Graph> g = elaborated();
  if (!g) return d;
  d.pes = g->array_a.spec.pe_count() + (g->attention ? g->array_b.spec.pe_count() : 0);
  d.clock_mhz = g->spec.clock_mhz;
  const DesignMacros macros = design_macros(*g, o.macro_technology, o.macros);  // priced only with a power model
  if (o.power_model) {
    const DesignArea a = design_area(*g, *o.power_model, macros);
    d.area_um2 = a.um2;
    d.area_model = "fsgen primitive area models (" + o.power_model_name + ")" +
                   (macros.macros.empty() ? "" : " and the SRAM macro model");
    if (!a.not_modelled.empty()) {
      d.area_model += ", without";
      for (const auto& b : a.not_modelled) d.area_model += " " + b;
    }
    record_max_clock(*g, o, macros, d);
  }
  d.reason = constraint_broken(s.constraints, *g, d.pes, d.area_um2);
  if (!d.reason.empty()) {
    d.status = "excluded";
    return d;
  }
  DesignPower power(*g, o, macros);
  for (const SpaceBenchmark& b : s.benchmarks) {
    try {
      const ModelSimReport r = simulate_benchmark(*g, b);
      BenchmarkResult res = result_of(*g, b, r);
      if (o.power_model) {
        const ActivityPowerModel& m = power.at(b.zeros);
        res.power_mw = m.power_mw(r.activity, r.cycles, r.clock_mhz);
        res.power_by_block = power_by_block_text(m.block_power_mw(r.activity, r.cycles, r.clock_mhz));
        res.power_model = power.model_name(m);
      }
      d.results.push_back(res);
    } catch (const UserError& e) {
      d.status = "failed", d.reason = b.key() + ": " + e.what();
      d.results.clear();
      return d;
    }
  }
  power.record(d);
  for (const BenchmarkResult& r : d.results)
    if (const std::string why = over(r.power_mw, s.constraints.max_power_mw, "mW", "max_power_mw"); !why.empty()) {
      d.status = "excluded", d.reason = r.benchmark + ": " + why;
      d.results.clear();
      break;
    }
  return d;
}

ExploreCounts explore(const DesignSpace& s, ResultsDb& db, const ExploreOptions& o,
                      const std::function<void(uint64_t, uint64_t)>& progress) {
  if ((s.constraints.max_area_mm2 > 0 || s.constraints.max_power_mw > 0) && !o.power_model)
    fail(s.file, "constraints max_area_mm2 and max_power_mw need the area and power models: expected --power-model");
  ExploreCounts n;
  const uint64_t all = o.limit ? std::min(o.limit, s.points()) : s.points();
  const std::set<std::string> done = db.recorded_designs(s.name);
  std::vector<DesignPoint> todo;
  for (uint64_t i = 0; i < all; ++i) {
    DesignPoint p = design_point(s, i);
    // A rank's share by the design's hash: neighbours in the grid (which tend to fail or run
    // alike) spread over the ranks.
    if (std::stoull(p.hash, nullptr, 16) % o.ranks != o.rank) continue;
    ++n.points;
    if (done.count(p.hash))
      ++n.already;
    else
      todo.push_back(std::move(p));
  }
  std::atomic<size_t> next{0};
  std::mutex lock;  // the database and the counts
  std::exception_ptr error;
  auto worker = [&] {
    for (size_t i; (i = next++) < todo.size();) {
      try {
        const DesignRecord d = evaluate_point(s, todo[i], o);
        std::lock_guard<std::mutex> hold(lock);
        db.record(d);
        ++(d.status == "ok"         ? n.ok
           : d.status == "invalid"  ? n.invalid
           : d.status == "excluded" ? n.excluded
                                    : n.failed);
        if (progress) progress(n.ok + n.invalid + n.excluded + n.failed, todo.size());
      } catch (...) {
        std::lock_guard<std::mutex> hold(lock);
        if (!error) error = std::current_exception();
        next = todo.size();
      }
    }
  };
  std::vector<std::thread> threads;
  for (uint32_t j = 1; j < std::max(o.jobs, 1u); ++j) threads.emplace_back(worker);
  worker();
  for (auto& t : threads) t.join();
  if (error) std::rethrow_exception(error);
  return n;
}

}  // namespace fsgen
