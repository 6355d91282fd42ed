#include "dse/explore.h"

#include <algorithm>
#include <atomic>
#include <cmath>
#include <filesystem>
#include <iomanip>
#include <map>
#include <mutex>
#include <thread>

#include "compiler/model_config.h"
#include "core/error.h"
#include "core/write_file.h"
#include "flow/tools.h"
#include "generator/graph.h"
#include "generator/spec.h"
#include "sim/model_sim.h"
#include "sim/power_report.h"

namespace fsgen {

namespace {

// Why the design breaks a constraint, or "".
std::string constraint_broken(const SpaceConstraints& c, uint32_t pes, double clock_mhz) {
  if (c.max_pes && pes > c.max_pes) return std::to_string(pes) + " PEs exceed max_pes " + std::to_string(c.max_pes);
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

DesignRecord evaluate_point(const DesignSpace& s, const DesignPoint& p, const ExploreOptions& o) {
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
  if (o.power_model) {
    const DesignArea a = design_area(*g, *o.power_model);
    d.area_um2 = a.um2;
    d.area_model = "fsgen primitive area models (" + o.power_model_name + ")";
    if (!a.not_modelled.empty()) {
      d.area_model += ", without";
      for (const auto& b : a.not_modelled) d.area_model += " " + b;
    }
  }
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

namespace {

// A design's score over the benchmarks: the geometric mean of its tokens/s.
double mean_tokens_per_second(const DesignRecord& d) {
  double log_sum = 0;
  for (const auto& r : d.results) log_sum += std::log(std::max(r.tokens_per_second, 1e-30));
  return d.results.empty() ? 0 : std::exp(log_sum / double(d.results.size()));
}

}  // namespace

namespace {

// The size a design is weighed by: its area when every design has one, else its PEs.
bool by_area(const std::vector<const DesignRecord*>& ok) {
  return !ok.empty() && std::all_of(ok.begin(), ok.end(), [](const DesignRecord* d) { return d->area_um2 > 0; });
}

double size_of(const DesignRecord& d, bool area) { return area ? d.area_um2 / 1e6 : double(d.pes); }

std::vector<const DesignRecord*> ok_designs(const std::vector<DesignRecord>& designs) {
  std::vector<const DesignRecord*> ok;
  for (const auto& d : designs)
    if (d.status == "ok") ok.push_back(&d);
  return ok;
}

// The designs no other design beats with at most its size and more tokens/s, smallest first.
std::vector<const DesignRecord*> front_of(std::vector<const DesignRecord*> ok, bool area) {
  std::sort(ok.begin(), ok.end(), [&](const DesignRecord* a, const DesignRecord* b) {
    const double sa = size_of(*a, area), sb = size_of(*b, area);
    return sa != sb ? sa < sb : mean_tokens_per_second(*a) > mean_tokens_per_second(*b);
  });
  std::vector<const DesignRecord*> front;
  double best = 0;
  for (const auto* d : ok)
    if (mean_tokens_per_second(*d) > best) best = mean_tokens_per_second(*d), front.push_back(d);
  return front;
}

}  // namespace

void print_explore_report(const std::vector<DesignRecord>& designs, std::ostream& out) {
  std::map<std::string, uint64_t> by_status;
  for (const auto& d : designs) ++by_status[d.status];
  const std::vector<const DesignRecord*> ok = ok_designs(designs);
  out << "designs recorded: " << designs.size();
  for (const auto& [status, count] : by_status) out << ", " << status << " " << count;
  out << "\ntiming model: fsgen fast model (the controller's schedule, each phase timed whole)\n";
  if (ok.empty()) return;
  const bool area = by_area(ok);
  if (area) out << "area model: " << ok.front()->area_model << "\n";
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
  out << "front of tokens/s (geometric mean over the benchmarks) against " << (area ? "area" : "PEs") << ":\n";
  for (const auto* d : front_of(ok, area)) {
    double busy = 0;
    for (const auto& r : d->results) busy += r.array_a_busy / double(d->results.size());
    out << "  " << std::left << std::setw(24) << d->name << std::right << std::setw(7) << d->pes << " PEs";
    if (area) out << std::setw(10) << std::setprecision(3) << d->area_um2 / 1e6 << " mm2";
    out << std::setw(12) << std::setprecision(1) << mean_tokens_per_second(*d) << " tokens/s, array a busy "
        << 100 * busy << " %\n";
  }
  out << std::defaultfloat;
}

void write_explore_front(const std::vector<DesignRecord>& designs, const std::string& dir) {
  const std::vector<const DesignRecord*> ok = ok_designs(designs);
  if (ok.empty()) fail(dir, "no design ran: no front to draw");
  const bool area = by_area(ok);
  const std::vector<const DesignRecord*> front = front_of(ok, area);
  const std::string csv = dir + "/front.csv", png = dir + "/front.png";
  std::vector<const DesignRecord*> by_size = ok;
  std::stable_sort(by_size.begin(), by_size.end(),
                   [&](const DesignRecord* a, const DesignRecord* b) { return size_of(*a, area) < size_of(*b, area); });
  write_file_atomically(csv, "design-space front", [&](std::ostream& o) {
    o << "design,pes,area_mm2,tokens_per_second,front_tokens_per_second\n";
    for (const auto* d : by_size) {
      const bool on = std::find(front.begin(), front.end(), d) != front.end();
      o << d->name << "," << d->pes << "," << d->area_um2 / 1e6 << "," << mean_tokens_per_second(*d) << ","
        << (on ? std::to_string(mean_tokens_per_second(*d)) : "NaN") << "\n";
    }
  });
  const std::string x = area ? "3" : "2";
  const std::string tmp = png + ".tmp.png";
  const std::string script =
      "set terminal pngcairo size 900,600 noenhanced; set output '" + tmp +
      "'; set datafile separator ',';"
      " set xlabel '" +
      std::string(area ? "area (mm2, fsgen primitive area models)" : "PEs") +
      "';"
      " set ylabel 'tokens/s (geometric mean over the benchmarks, fsgen fast model)'; set logscale y;"
      " set title 'fsgen explore: designs and their front'; set key top left; set datafile missing 'NaN';"
      " plot '" +
      csv + "' every ::1 using " + x + ":4 with points pt 7 ps 0.6 title 'designs', '" + csv + "' every ::1 using " +
      x + ":5 with linespoints pt 7 title 'front'";
  const CommandResult r = run_command("echo " + shell_quote(script) + " | " + shell_quote(require_tool("gnuplot")));
  if (r.status != 0 || !std::filesystem::exists(tmp)) fail("gnuplot", "could not draw " + png + ": " + r.output);
  std::filesystem::rename(tmp, png);
}

}  // namespace fsgen
