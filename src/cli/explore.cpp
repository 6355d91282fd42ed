// fsgen explore: a design space's points run on its benchmarks into a results database
// (resumable), and the report drawn from a database.
#include "dse/explore.h"

#include <cstdlib>
#include <iostream>
#include <memory>

#include "cli/command.h"
#include "cli/options.h"
#include "core/csv.h"
#include "core/error.h"
#include "core/progress.h"
#include "dse/report.h"
#include "dse/verify.h"
#include "power/power_model.h"
#include "sim/design_report.h"

namespace fsgen::cli {

namespace {

struct ExploreArgs {
  std::vector<std::string> spaces;
  std::string db, report, power_model, out;
  ExploreOptions run;
  SpaceComparisons comparisons;
  uint32_t verify = 0;  // best designs of the first space run again in the cycle model
  bool synth = false;   // and synthesised against the area and timing models
  bool synth_area = false;  // each block mapped for area too
  bool golden = false;      // and their power samples replayed at gate level
  SynthesisRequest synthesis;
  std::string verify_dir;
  bool power_cap_given = false, cycle_cap_given = false, json = false, rank_given = false;
};

void print_report(const ExploreArgs& a, const ResultsDb& db, const PowerModel* model) {
  const std::vector<DesignRecord> designs = db.designs();
  std::vector<CycleCheck> checks;
  std::vector<SynthesisCheck> synthesised;
  std::vector<GoldenCheck> golden;
  if (a.verify) {
    ProgressBar bar("cycle-model checks");
    checks = check_best_designs(designs, a.verify, [&](uint64_t done, uint64_t all) { bar(done, all); });
  }
  if (a.synth) {
    ProgressBar bar("synthesis checks");
    synthesised = synthesise_best_designs(designs, a.verify, *model, a.synthesis, a.verify_dir, a.synth_area,
                                          [&](uint64_t done, uint64_t all) { bar(done, all); });
  }
  if (a.golden) {
    ProgressBar bar("golden power checks");
    golden = golden_best_designs(designs, a.verify, *model, a.synthesis.liberty, a.verify_dir,
                                 [&](uint64_t done, uint64_t all) { bar(done, all); });
  }
  if (a.json) {
    nlohmann::json j = explore_report_json(designs, a.comparisons);
    if (a.verify) j["cycle_checks"] = cycle_checks_json(checks);
    if (a.synth) j["synthesis_checks"] = synthesis_checks_json(synthesised);
    if (a.golden) j["golden_checks"] = golden_checks_json(golden);
    std::cout << j.dump(2) << "\n";
  } else {
    print_explore_report(designs, a.comparisons, std::cout);
    if (a.verify) print_cycle_checks(checks, std::cout);
    if (a.synth) print_synthesis_checks(synthesised, std::cout);
    if (a.golden) print_golden_checks(golden, std::cout);
  }
  if (!a.out.empty()) write_explore_plots(designs, a.out);
}

// The rank and rank count an MPI launcher (mpirun of OpenMPI, or a PMI one: MPICH, Slurm)
// gives each process in its environment, unless --rank / --ranks say otherwise.
void ranks_from_environment(ExploreOptions& o) {
  for (const auto& [rank, size] :
       {std::pair{"OMPI_COMM_WORLD_RANK", "OMPI_COMM_WORLD_SIZE"}, std::pair{"PMI_RANK", "PMI_SIZE"}}) {
    const char* r = std::getenv(rank);
    const char* s = std::getenv(size);
    if (!r || !s) continue;
    o.rank = uint32_t(parse_count(r, rank, "the process's rank"));
    o.ranks = uint32_t(parse_count(s, size, "the number of ranks"));
    return;
  }
}

// One space's points, with a progress bar, and what became of them.
void run_space(const DesignSpace& s, ResultsDb& db, const ExploreOptions& o, bool quiet) {
  ProgressBar bar("designs of " + s.name);
  const bool draws = o.rank == 0;  // one bar per run, not one per rank
  const ExploreCounts n = explore(s, db, o, [&](uint64_t done, uint64_t all) {
    if (draws) bar(done, all);
  });
  if (quiet) return;
  if (o.ranks > 1) std::cout << "rank " << o.rank << " of " << o.ranks << ": ";
  std::cout << "space " << s.name << ": " << n.points << " points (" << s.axes.size() << " axes, "
            << s.benchmarks.size() << " benchmarks); " << n.already << " already recorded, " << n.ok << " run, "
            << n.invalid << " invalid, " << n.excluded << " excluded by a constraint, " << n.failed
            << " failed on a benchmark\n";
}

int run_explore(ExploreArgs a) {
  std::unique_ptr<PowerModel> model;
  if (!a.power_model.empty()) {
    model = std::make_unique<PowerModel>(load_power_model(a.power_model));
    a.run.power_model = model.get();
    a.run.power_model_name = a.power_model;
    a.run.macros = a.synthesis.macros;
    a.run.macro_technology = macro_technology_of(a.synthesis.liberty, a.synthesis.macros.node_nm);
  }
  a.synthesis.jobs = a.run.jobs;
  if (a.synth && (!a.verify || !model))
    fail("--synth",
         "expected --verify N and --power-model (the area and timing models the netlists are checked against)");
  if (a.golden && (!a.verify || !model))
    fail("--golden", "expected --verify N and --power-model (the power models the golden power is checked against)");
  if (!a.report.empty()) {
    if (a.verify_dir.empty()) a.verify_dir = a.report + ".verify";
    print_report(a, ResultsDb(a.report, true), model.get());
    return 0;
  }
  if (a.spaces.empty()) fail("explore", "expected a design space file, or --report DB");
  if (!a.rank_given) ranks_from_environment(a.run);
  if (a.run.ranks == 0 || a.run.rank >= a.run.ranks)
    fail("--rank",
         std::to_string(a.run.rank) + " of " + std::to_string(a.run.ranks) + ": expected a rank below --ranks");
  std::vector<DesignSpace> spaces;
  for (const auto& path : a.spaces) spaces.push_back(read_design_space(path));
  if (!a.power_cap_given) a.comparisons.power_cap_mw = spaces.front().comparisons.power_cap_mw;
  if (!a.cycle_cap_given) a.comparisons.cycle_cap = spaces.front().comparisons.cycle_cap;
  const std::string db_path = a.db.empty() ? spaces.front().name + ".sqlite" : a.db;
  if (a.verify_dir.empty()) a.verify_dir = db_path + ".verify";
  ResultsDb db(db_path);
  for (const auto& s : spaces) run_space(s, db, a.run, a.json);
  if (a.run.ranks == 1) print_report(a, db, model.get());  // ranks: --report once all are done
  return 0;
}

}  // namespace

Command explore_command(CLI::App& app) {
  auto a = std::make_shared<ExploreArgs>();
  auto* cmd = app.add_subcommand("explore",
                                 "run every design of a design space on its benchmarks (fast model) into a results "
                                 "database; a killed run resumes");
  cmd->add_option("spaces", a->spaces,
                  "design spaces (YAML: base, axes, constraints, benchmarks); the first is compared with the "
                  "others (its baselines)");
  cmd->add_option("--db", a->db, "results database (SQLite; default <first space's name>.sqlite)");
  cmd->add_option("--jobs", a->run.jobs, "designs evaluated at once")
      ->check(CLI::Range(1u, 256u))
      ->capture_default_str();
  cmd->add_option("--limit", a->run.limit, "the first N points only (0: all)")->capture_default_str();
  cmd->add_option("--power-model", a->power_model,
                  "a power model from fsgen train: each design's area and power by its primitive models");
  cmd->add_option("--out", a->out,
                  "a folder for the figures: designs.csv, the fronts (front_*.png and .dat), tokens/s per benchmark "
                  "(benchmarks.csv and .png)");
  cmd->add_option("--report", a->report, "print the report of a results database, running nothing");
  cmd->add_flag("--json", a->json, "the report as JSON");
  cmd->add_option("--verify", a->verify,
                  "run the first space's N best designs and each baseline's best again in the cycle model (SystemC) "
                  "on their shortest benchmark of each stage, against the fast model");
  cmd->add_flag("--synth", a->synth,
                "with --verify: also write each verified design out and synthesise every block (Yosys, mapped for "
                "delay at the spec's clock; OpenSTA), against --power-model's area and timing models");
  cmd->add_flag("--synth-area", a->synth_area,
                "--synth: map every block for area as well, as the area models were characterised (a fused "
                "controller's area mapping takes 20 CPU-minutes and more); without it the modelled area is "
                "compared with the delay-mapped netlists'");
  cmd->add_flag("--golden", a->golden,
                "with --verify: also run each verified design's power sample on its Verilated RTL and replay every "
                "block with an activity model at gate level (not the controller or register file), against "
                "--power-model's power models on the same run");
  cmd->add_option("--liberty", a->synthesis.liberty,
                  "--synth, --golden: liberty file (.lib or .lib.gz) of --power-model; default: the built-in fsgen45");
  add_macro_options(cmd, a->synthesis.macros);
  cmd->add_option("--verify-dir", a->verify_dir,
                  "--synth, --golden: folder for the designs' Verilog and netlists (default "
                  "<db>.verify)");
  cmd->add_option("--power-cap", a->comparisons.power_cap_mw,
                  "comparison: the fewest cycles among designs of at most this power, mW (default: the first "
                  "space's comparisons, else 700)")
      ->check(CLI::PositiveNumber);
  cmd->add_option("--cycle-cap", a->comparisons.cycle_cap,
                  "comparison: the least power among designs of at most this many cycles over the benchmarks "
                  "(default: the first space's, else 8e7)")
      ->check(CLI::PositiveNumber);
  cmd->add_option("--rank", a->run.rank,
                  "this process's share of the points: those whose hash % ranks == rank "
                  "(default: the MPI launcher's rank, or 0)");
  cmd->add_option("--ranks", a->run.ranks, "processes sharing the points (default: the MPI launcher's, or 1)");
  return {cmd, [a, cmd] {
            a->rank_given = cmd->count("--rank") + cmd->count("--ranks") > 0;
            a->power_cap_given = cmd->count("--power-cap") > 0;
            a->cycle_cap_given = cmd->count("--cycle-cap") > 0;
            return run_explore(*a);
          }};
}

}  // namespace fsgen::cli
