#include "dse/explore.h"

#include <algorithm>
#include <atomic>
#include <cmath>
#include <iomanip>
#include <map>
#include <mutex>
#include <thread>

#include "compiler/model_config.h"
#include "core/error.h"
#include "generator/graph.h"
#include "generator/spec.h"
#include "sim/model_sim.h"

namespace fsgen {

namespace {

// Why the design breaks a constraint, or "".
std::string constraint_broken(const SpaceConstraints& c, uint32_t pes, double clock_mhz) {
  if (c.max_pes && pes > c.max_pes)
    return std::to_string(pes) + " PEs exceed max_pes " + std::to_string(c.max_pes);
  const double tops = 2.0 * pes * clock_mhz * 1e6 / 1e12;
  if (c.max_tops > 0 && tops > c.max_tops)
    return std::to_string(tops).substr(0, 6) + " TOPS exceed max_tops " + std::to_string(c.max_tops).substr(0, 6);
  return "";
}

BenchmarkResult run_benchmark(const Graph& g, const SpaceBenchmark& b) {
  const ModelConfig m = model_config_by_name(b.model);
  ModelSimOptions o;
  o.stage = b.stage == "decode" ? Stage::kDecode : Stage::kPrefill;
  o.context = b.context;
  o.layers = b.layers == 0 ? 0 : std::min(b.layers, m.layers);
  o.mode = SimMode::kFast;
  const ModelSimReport r = simulate_model(g, m, o);
  BenchmarkResult out;
  out.benchmark = b.key();
  out.timing_model = "fsgen fast model";
  out.cycles = r.cycles;
  out.tokens_per_second = r.tokens_processed() / r.seconds_at_clock();
  out.dma_bytes = dma_bytes(r);
  out.least_bytes = least_bytes(r);
  out.roofline_cycles = run_roofline(r).bound();
  const uint64_t busy = r.activity.count("array_a") ? r.activity.at("array_a").busy_cycles : 0;
  out.array_a_busy = r.cycles ? double(busy) / double(r.cycles) : 0;
  return out;
}

}  // namespace

DesignRecord evaluate_point(const DesignSpace& s, const DesignPoint& p) {
  DesignRecord d;
  d.hash = p.hash, d.name = p.name, d.spec_text = p.spec_text, d.status = "ok";
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
  d.reason = constraint_broken(s.constraints, d.pes, d.clock_mhz);
  if (!d.reason.empty()) {
    d.status = "excluded";
    return d;
  }
  for (const SpaceBenchmark& b : s.benchmarks) {
    try {
      d.results.push_back(run_benchmark(*g, b));
    } catch (const UserError& e) {
      d.status = "failed", d.reason = b.key() + ": " + e.what();
      d.results.clear();
      return d;
    }
  }
  return d;
}

ExploreCounts explore(const DesignSpace& s, ResultsDb& db, const ExploreOptions& o,
                      const std::function<void(uint64_t, uint64_t)>& progress) {
  ExploreCounts n;
  const uint64_t all = o.limit ? std::min(o.limit, s.points()) : s.points();
  const std::set<std::string> done = db.recorded_designs();
  std::vector<DesignPoint> todo;
  for (uint64_t i = 0; i < all; ++i) {
    DesignPoint p = design_point(s, i);
    // A rank's share by the design's hash: neighbours in the grid (which tend to fail or run
    // alike) spread over the ranks.
    if (std::stoull(p.hash, nullptr, 16) % o.ranks != o.rank) continue;
    ++n.points;
    if (done.count(p.hash)) ++n.already;
    else todo.push_back(std::move(p));
  }
  std::atomic<size_t> next{0};
  std::mutex lock;  // the database and the counts
  std::exception_ptr error;
  auto worker = [&] {
    for (size_t i; (i = next++) < todo.size();) {
      try {
        const DesignRecord d = evaluate_point(s, todo[i]);
        std::lock_guard<std::mutex> hold(lock);
        db.record(d);
        ++(d.status == "ok" ? n.ok : d.status == "invalid" ? n.invalid : d.status == "excluded" ? n.excluded : n.failed);
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

namespace {

// A design's score over the benchmarks: the geometric mean of its tokens/s.
double mean_tokens_per_second(const DesignRecord& d) {
  double log_sum = 0;
  for (const auto& r : d.results) log_sum += std::log(std::max(r.tokens_per_second, 1e-30));
  return d.results.empty() ? 0 : std::exp(log_sum / double(d.results.size()));
}

}  // namespace

void print_explore_report(const std::vector<DesignRecord>& designs, std::ostream& out) {
  std::map<std::string, uint64_t> by_status;
  std::vector<const DesignRecord*> ok;
  for (const auto& d : designs) {
    ++by_status[d.status];
    if (d.status == "ok") ok.push_back(&d);
  }
  out << "designs recorded: " << designs.size();
  for (const auto& [status, count] : by_status) out << ", " << status << " " << count;
  out << "\ntiming model: fsgen fast model (the controller's schedule, each phase timed whole)\n";
  if (ok.empty()) return;
  // The best design per benchmark.
  std::map<std::string, std::pair<double, const DesignRecord*>> best;
  for (const auto* d : ok)
    for (const auto& r : d->results) {
      auto& b = best[r.benchmark];
      if (r.tokens_per_second > b.first) b = {r.tokens_per_second, d};
    }
  out << "best per benchmark (tokens/s at the design's clock):\n";
  for (const auto& [bench, b] : best)
    out << "  " << std::left << std::setw(40) << bench << std::right << std::setw(12) << std::fixed
        << std::setprecision(1) << b.first << "  " << b.second->name << " (" << b.second->pes << " PEs)\n";
  // The front: no other design has at most its PEs and more tokens/s (geometric mean).
  std::sort(ok.begin(), ok.end(), [](const DesignRecord* a, const DesignRecord* b) {
    return a->pes != b->pes ? a->pes < b->pes : mean_tokens_per_second(*a) > mean_tokens_per_second(*b);
  });
  out << "front of tokens/s (geometric mean over the benchmarks) against PEs:\n";
  double best_so_far = 0;
  for (const auto* d : ok) {
    const double t = mean_tokens_per_second(*d);
    if (t <= best_so_far) continue;
    best_so_far = t;
    double busy = 0;
    for (const auto& r : d->results) busy += r.array_a_busy / double(d->results.size());
    out << "  " << std::left << std::setw(24) << d->name << std::right << std::setw(7) << d->pes << " PEs"
        << std::setw(12) << std::setprecision(1) << t << " tokens/s, array a busy " << std::setprecision(1)
        << 100 * busy << " %\n";
  }
  out << std::defaultfloat;
}

}  // namespace fsgen
