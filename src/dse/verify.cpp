#include "dse/verify.h"

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cmath>
#include <filesystem>
#include <iomanip>
#include <map>
#include <mutex>
#include <thread>

#include "core/error.h"
#include "core/folder_lock.h"
#include "dse/explore.h"
#include "dse/report.h"
#include "flow/verilator.h"
#include "generator/spec.h"
#include "generator/verilog_emitter.h"
#include "sim/activity_power.h"
#include "sim/power_report.h"
#include "sim/power_run.h"

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

namespace {

double sum_of(const std::vector<BlockCheck>& blocks, double BlockCheck::*figure) {
  double sum = 0;
  for (const BlockCheck& b : blocks) sum += b.*figure;
  return sum;
}

// The clock of the slowest of the blocks the timing model times, by `delay`.
double slowest_mhz(const std::vector<BlockCheck>& blocks, double BlockCheck::*delay) {
  double worst = 0;
  for (const BlockCheck& b : blocks)
    if (b.model_ns > 0) worst = std::max(worst, b.*delay);
  return worst > 0 ? 1000.0 / worst : 0;
}

}  // namespace

double SynthesisCheck::model_um2() const { return sum_of(blocks, &BlockCheck::model_um2); }
double SynthesisCheck::synth_um2() const { return sum_of(blocks, &BlockCheck::synth_um2); }
double SynthesisCheck::delay_mapped_um2() const { return sum_of(blocks, &BlockCheck::delay_mapped_um2); }
double SynthesisCheck::model_mhz() const { return slowest_mhz(blocks, &BlockCheck::model_ns); }
double SynthesisCheck::synth_mhz() const { return slowest_mhz(blocks, &BlockCheck::synth_ns); }

namespace {

// Each checked block mapped again for area (`jobs` at a time), as the primitive area models'
// characterisation maps: a netlist mapped for delay carries buffer trees and upsized gates
// on top. Sets their synth_um2.
void map_for_area(const Graph& g, const std::string& dir, const DesignSynthesis& synthesis, unsigned jobs,
                  std::vector<BlockCheck>& blocks) {
  std::vector<std::string> files;
  for (const auto& f : verilog_files(g)) files.push_back((std::filesystem::path(dir) / f).string());
  std::atomic<size_t> next{0};
  std::mutex lock;
  std::string error;
  auto worker = [&] {
    for (size_t i; (i = next++) < blocks.size();) {
      const auto b = std::find_if(synthesis.blocks.begin(), synthesis.blocks.end(),
                                  [&](const BlockSynthesis& s) { return s.block == blocks[i].block; });
      const std::string area_dir = (std::filesystem::path(dir) / "synth" / b->block / "area").string();
      try {
        std::filesystem::create_directories(area_dir);
        SynthOptions options;
        options.blackboxes = synthesis.macro_modules;
        blocks[i].synth_um2 =
            synth_to_liberty(files, b->instance.module, b->instance.params, synthesis.lib, area_dir, options).area_um2;
      } catch (const std::exception& e) {
        std::lock_guard<std::mutex> hold(lock);
        error = e.what();
      }
    }
  };
  std::vector<std::thread> pool;
  for (unsigned j = 0; j < std::max(1u, jobs); ++j) pool.emplace_back(worker);
  for (auto& t : pool) t.join();
  if (!error.empty()) throw UserError(error);
}

SynthesisCheck synthesise_design_check(const DesignRecord& d, const PowerModel& model, const SynthesisRequest& request,
                                       const std::string& work_dir, bool area_mapping) {
  const auto t0 = std::chrono::steady_clock::now();
  const Graph g = elaborate(parse_spec_text(d.spec_text, d.name + ".yaml"));
  const std::string dir = update_design_folder(g, (std::filesystem::path(work_dir) / d.space).string());
  const DesignSynthesis synthesis = synthesise_design(g, dir, request);
  SynthesisCheck c;
  c.design = d.name, c.space = d.space, c.liberty = synthesis.lib.name;
  std::vector<std::string> not_modelled;
  // Priced as synthesised: the macros' blocks apart, a controller without their flip-flops.
  const std::vector<BlockEstimate> estimates =
      block_estimates(g, model, &not_modelled, DesignMacros{synthesis.macros, synthesis.macro_modules});
  for (const BlockSynthesis& b : synthesis.blocks) {
    const auto e =
        std::find_if(estimates.begin(), estimates.end(), [&](const BlockEstimate& x) { return x.block == b.block; });
    if (!b.error.empty())
      c.unchecked.push_back(b.block + " (synthesis failed)");
    else if (e == estimates.end())
      c.unchecked.push_back(b.block + " (no primitive model)");
    else
      c.blocks.push_back({b.block, e->kind, e->area_um2, 0, b.netlist.synth.area_um2, e->delay_ns,
                          b.netlist.timing.arrival_ns + b.netlist.timing.setup_ns, e->beyond,
                          b.netlist.timing.startpoint + " -> " + b.netlist.timing.endpoint});
  }
  c.area_mapped = area_mapping;
  if (area_mapping) map_for_area(g, dir, synthesis, request.jobs, c.blocks);
  for (const MemoryMacro& m : synthesis.macros) c.unchecked.push_back(m.block + " (memory macro)");
  c.wall_seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  return c;
}

double error_percent(double model, double truth) { return truth > 0 ? 100.0 * (model - truth) / truth : 0; }

}  // namespace

std::vector<SynthesisCheck> synthesise_best_designs(const std::vector<DesignRecord>& designs, uint32_t count,
                                                    const PowerModel& model, const SynthesisRequest& request,
                                                    const std::string& work_dir, bool area_mapping,
                                                    const std::function<void(uint64_t, uint64_t)>& progress) {
  std::filesystem::create_directories(work_dir);
  model.require_liberty(prepare_liberty(request.liberty, work_dir).name);  // before hours of synthesis
  if (area_mapping) model.require_area_mapping();
  const std::vector<DesignFigures> figs = figures_of(designs);
  const std::vector<const DesignFigures*> best = best_designs(figs, count);
  // Designs side by side, each block after block: a design's controller is most of its
  // synthesis, so `jobs` designs keep `jobs` cores busy where its blocks would wait for it.
  SynthesisRequest one_at_a_time = request;
  one_at_a_time.jobs = 1;
  std::vector<SynthesisCheck> out(best.size());
  std::atomic<size_t> next{0};
  std::mutex lock;
  uint64_t done = 0;
  std::string error;
  auto worker = [&] {
    for (size_t i; (i = next++) < best.size();) {
      try {
        out[i] = synthesise_design_check(*best[i]->design, model, one_at_a_time, work_dir, area_mapping);
      } catch (const std::exception& e) {
        std::lock_guard<std::mutex> hold(lock);
        error = best[i]->design->name + ": " + e.what();
      }
      std::lock_guard<std::mutex> hold(lock);
      if (progress) progress(++done, best.size());
    }
  };
  std::vector<std::thread> pool;
  for (unsigned j = 0; j < std::max(1u, request.jobs); ++j) pool.emplace_back(worker);
  for (auto& t : pool) t.join();
  if (!error.empty()) throw UserError(error);
  return out;
}

void print_synthesis_checks(const std::vector<SynthesisCheck>& checks, std::ostream& out) {
  if (checks.empty()) return;
  out << "the best designs synthesised (Yosys onto " << checks.front().liberty
      << ", each block mapped for delay at the spec's clock; OpenSTA from each block's ports) against the primitive "
         "area and timing models:\n";
  double worst_area = 0, worst_clock = 0;
  for (const SynthesisCheck& c : checks) {
    const double area_error = error_percent(c.model_um2(), c.area_truth_um2());
    const double clock_error = error_percent(c.model_mhz(), c.synth_mhz());
    out << "  " << std::left << std::setw(16) << c.design << std::right << std::fixed << std::setprecision(3)
        << " area " << c.model_um2() / 1e6 << " mm2 (" << (c.area_mapped ? "mapped for area " : "mapped for delay ")
        << c.area_truth_um2() / 1e6 << ", " << std::showpos << std::setprecision(1) << area_error << std::noshowpos
        << " %" << (c.area_mapped ? "; for delay " : "") << std::setprecision(3);
    if (c.area_mapped) out << c.delay_mapped_um2() / 1e6;
    out << "), max clock " << std::setprecision(0) << c.model_mhz()
        << " MHz (synthesised " << c.synth_mhz() << ", " << std::showpos << std::setprecision(1) << clock_error
        << std::noshowpos << " %), " << std::setprecision(0) << c.wall_seconds << " s\n";
    for (const BlockCheck& b : c.blocks)
      out << "    " << std::left << std::setw(10) << b.block << std::setw(18) << b.kind << std::right
          << std::setprecision(0) << std::setw(10) << b.model_um2 << " um2 vs " << std::setw(10)
          << (c.area_mapped ? b.synth_um2 : b.delay_mapped_um2) << std::setprecision(3) << "   "
          << (b.model_ns > 0 ? b.model_ns : 0.0) << " ns vs " << b.synth_ns << " ns"
          << (b.beyond > 1 ? " (extrapolated)" : "") << "  " << b.path << "\n";
    if (!c.unchecked.empty()) {
      out << "    not compared:";
      for (const auto& u : c.unchecked) out << " " << u;
      out << "\n";
    }
    worst_area = std::max(worst_area, std::abs(area_error));
    worst_clock = std::max(worst_clock, std::abs(clock_error));
  }
  out << "  largest error: area " << std::setprecision(1) << worst_area << " %, max clock " << worst_clock << " % over "
      << checks.size() << " designs\n"
      << std::defaultfloat;
}

nlohmann::json synthesis_checks_json(const std::vector<SynthesisCheck>& checks) {
  nlohmann::json j = nlohmann::json::array();
  for (const SynthesisCheck& c : checks) {
    nlohmann::json e = {{"design", c.design},
                        {"space", c.space},
                        {"liberty", c.liberty},
                        {"model_area_um2", c.model_um2()},
                        {"synth_area_um2", c.synth_um2()},
                        {"delay_mapped_area_um2", c.delay_mapped_um2()},
                        {"area_mapped", c.area_mapped},
                        {"area_error_percent", error_percent(c.model_um2(), c.area_truth_um2())},
                        {"model_max_clock_mhz", c.model_mhz()},
                        {"synth_max_clock_mhz", c.synth_mhz()},
                        {"clock_error_percent", error_percent(c.model_mhz(), c.synth_mhz())},
                        {"unchecked", c.unchecked},
                        {"wall_seconds", c.wall_seconds}};
    for (const BlockCheck& b : c.blocks)
      e["blocks"].push_back({{"block", b.block},
                             {"kind", b.kind},
                             {"model_um2", b.model_um2},
                             {"synth_um2", b.synth_um2},
                             {"delay_mapped_um2", b.delay_mapped_um2},
                             {"model_ns", b.model_ns},
                             {"synth_ns", b.synth_ns},
                             {"beyond", b.beyond},
                             {"path", b.path}});
    j.push_back(e);
  }
  return j;
}

namespace {

// The golden traces' window: a power sample runs a few thousand cycles.
constexpr uint64_t kGoldenWindow = 32;

// The blocks a golden check leaves out: those with logic but no replay (run_golden replays
// the blocks with activity models), and memory macros.
std::vector<std::string> not_replayed(const PowerTrace& t, const std::vector<GoldenBlockPower>& golden) {
  std::vector<std::string> out;
  auto replayed = [&](const std::string& b) {
    return std::any_of(golden.begin(), golden.end(), [&](const GoldenBlockPower& x) { return x.block == b; });
  };
  for (const BlockPower& b : t.blocks)
    if (!replayed(b.block)) out.push_back(b.block + (b.kind == "sram_macro" ? " (memory macro)" : " (" + b.kind + ")"));
  for (const std::string& b : t.not_modelled)
    if (!replayed(b)) out.push_back(b + " (no model)");
  return out;
}

std::vector<GoldenCheck> golden_design_checks(const DesignRecord& d, const PowerModel& model,
                                              const std::string& liberty, const std::string& work_dir) {
  const Graph g = elaborate(parse_spec_text(d.spec_text, d.name + ".yaml"));
  const double zeros = benchmark_of_key(shortest_per_stage(d).front()->benchmark).zeros;
  const std::string rtl_root = (std::filesystem::path(work_dir) / d.space).string();
  std::vector<GoldenCheck> out;
  for (const Program& p : sample_programs(g, zeros)) {
    const auto t0 = std::chrono::steady_clock::now();
    const PowerTrace t = estimate_power(g, p, model, kGoldenWindow);
    const GoldenRun run = run_golden(g, p, model, t, liberty, rtl_root, golden_work_folder(work_dir, liberty), false);
    GoldenCheck c;
    c.design = d.name, c.space = d.space, c.kernel = p.kernel, c.zeros = zeros, c.cycles = t.cycles;
    c.blocks = run.comparison;
    c.together = run.together;
    c.not_replayed = not_replayed(t, run.golden);
    for (const GoldenBlockPower& b : run.golden) c.replay_mismatch_cycles += b.output_mismatch_cycles;
    c.wall_seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    out.push_back(c);
  }
  return out;
}

}  // namespace

std::vector<GoldenCheck> golden_best_designs(const std::vector<DesignRecord>& designs, uint32_t count,
                                             const PowerModel& model, const std::string& liberty,
                                             const std::string& work_dir,
                                             const std::function<void(uint64_t, uint64_t)>& progress) {
  const std::string work = golden_work_folder(work_dir, liberty);
  std::filesystem::create_directories(work);
  model.require_liberty(prepare_liberty(liberty, work).name);
  const FolderLock replaying(work, "fsgen explore --golden run");
  const std::vector<DesignFigures> figs = figures_of(designs);
  const std::vector<const DesignFigures*> best = best_designs(figs, count);
  std::vector<GoldenCheck> out;
  uint64_t done = 0;
  for (const auto* f : best) {
    for (GoldenCheck& c : golden_design_checks(*f->design, model, liberty, work_dir)) out.push_back(std::move(c));
    if (progress) progress(++done, best.size());
  }
  return out;
}

void print_golden_checks(const std::vector<GoldenCheck>& checks, std::ostream& out) {
  if (checks.empty()) return;
  out << "the best designs' power samples replayed at gate level (each block with an activity model: its netlist "
         "under the Verilated RTL's stimulus) against the primitive power models on the same run, window "
      << kGoldenWindow << " cycles:\n";
  double worst = 0, worst_r = 1;
  for (const GoldenCheck& c : checks) {
    const double error = error_percent(c.together.predicted_mw, c.together.golden_mw);
    out << "  " << std::left << std::setw(16) << c.design << std::setw(10) << c.kernel << std::right << std::setw(8)
        << c.cycles << " cycles at " << std::defaultfloat << 100 * c.zeros << " % zeros: " << std::fixed
        << std::setprecision(2) << c.together.predicted_mw << " mW vs golden " << c.together.golden_mw << " mW ("
        << std::showpos << std::setprecision(1) << error << std::noshowpos << " %), trace R " << std::setprecision(3)
        << c.together.r << std::setprecision(0) << ", " << c.wall_seconds << " s"
        << (c.replay_mismatch_cycles
                ? ", replays differ from the RTL in " + std::to_string(c.replay_mismatch_cycles) + " block cycles"
                : "")
        << "\n";
    for (const GoldenComparison& b : c.blocks)
      out << "    " << std::left << std::setw(10) << b.block << std::right << std::setprecision(3) << std::setw(10)
          << b.predicted_mw << " mW vs " << std::setw(10) << b.golden_mw << " mW (" << std::showpos
          << std::setprecision(1) << b.error_percent << std::noshowpos << " %), trace R " << std::setprecision(3)
          << b.window_r << "\n";
    if (!c.not_replayed.empty()) {
      out << "    not replayed:";
      for (const auto& b : c.not_replayed) out << " " << b;
      out << "\n";
    }
    worst = std::max(worst, std::abs(error));
    worst_r = std::min(worst_r, c.together.r);
  }
  out << "  largest error " << std::setprecision(1) << worst << " %, lowest trace R " << std::setprecision(3) << worst_r
      << " over " << checks.size() << " runs\n"
      << std::defaultfloat;
}

nlohmann::json golden_checks_json(const std::vector<GoldenCheck>& checks) {
  nlohmann::json j = nlohmann::json::array();
  for (const GoldenCheck& c : checks) {
    nlohmann::json e = {{"design", c.design},
                        {"space", c.space},
                        {"kernel", c.kernel},
                        {"zeros", c.zeros},
                        {"cycles", c.cycles},
                        {"predicted_mw", c.together.predicted_mw},
                        {"golden_mw", c.together.golden_mw},
                        {"error_percent", error_percent(c.together.predicted_mw, c.together.golden_mw)},
                        {"trace_r", c.together.r},
                        {"trace_nrmse", c.together.nrmse},
                        {"not_replayed", c.not_replayed},
                        {"replay_mismatch_cycles", c.replay_mismatch_cycles},
                        {"wall_seconds", c.wall_seconds}};
    for (const GoldenComparison& b : c.blocks)
      e["blocks"].push_back({{"block", b.block},
                             {"predicted_mw", b.predicted_mw},
                             {"golden_mw", b.golden_mw},
                             {"error_percent", b.error_percent},
                             {"trace_r", b.window_r},
                             {"trace_nrmse", b.window_nrmse}});
    j.push_back(e);
  }
  return j;
}

}  // namespace fsgen
