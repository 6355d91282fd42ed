// fsgen explore: a design space's points run on its benchmarks into a results database
// (resumable), and the report drawn from a database.
#include "dse/explore.h"

#include <cstdlib>
#include <iostream>
#include <memory>

#include "cli/command.h"
#include "core/csv.h"
#include "core/error.h"
#include "core/progress.h"
#include "power/power_model.h"

namespace fsgen::cli {

namespace {

struct ExploreArgs {
  std::string space, db, report, power_model, out;
  ExploreOptions run;
  bool rank_given = false;
};

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

int run_explore(ExploreArgs a) {
  if (!a.report.empty()) {
    const ResultsDb db(a.report);
    print_explore_report(db.designs(), std::cout);
    if (!a.out.empty()) write_explore_front(db.designs(), a.out);
    return 0;
  }
  if (a.space.empty()) fail("explore", "expected a design space file, or --report DB");
  if (!a.rank_given) ranks_from_environment(a.run);
  if (a.run.ranks == 0 || a.run.rank >= a.run.ranks)
    fail("--rank",
         std::to_string(a.run.rank) + " of " + std::to_string(a.run.ranks) + ": expected a rank below --ranks");
  const DesignSpace s = read_design_space(a.space);
  std::unique_ptr<PowerModel> model;
  if (!a.power_model.empty()) {
    model = std::make_unique<PowerModel>(load_power_model(a.power_model));
    a.run.power_model = model.get();
    a.run.power_model_name = a.power_model;
  }
  ResultsDb db(a.db.empty() ? s.name + ".sqlite" : a.db);
  ProgressBar bar("designs");
  const bool draws = a.run.rank == 0;  // one bar per run, not one per rank
  const ExploreCounts n = explore(s, db, a.run, [&](uint64_t done, uint64_t all) {
    if (draws) bar(done, all);
  });
  if (a.run.ranks > 1) std::cout << "rank " << a.run.rank << " of " << a.run.ranks << ": ";
  std::cout << "space " << s.name << ": " << n.points << " points (" << s.axes.size() << " axes, "
            << s.benchmarks.size() << " benchmarks); " << n.already << " already recorded, " << n.ok << " run, "
            << n.invalid << " invalid, " << n.excluded << " excluded by a constraint, " << n.failed
            << " failed on a benchmark\n";
  if (a.run.ranks == 1) {  // ranks: --report once all are done
    print_explore_report(db.designs(), std::cout);
    if (!a.out.empty()) write_explore_front(db.designs(), a.out);
  }
  return 0;
}

}  // namespace

Command explore_command(CLI::App& app) {
  auto a = std::make_shared<ExploreArgs>();
  auto* cmd = app.add_subcommand("explore",
                                 "run every design of a design space on its benchmarks (fast model) into a results "
                                 "database; a killed run resumes");
  cmd->add_option("space", a->space, "design space (YAML: base, axes, constraints, benchmarks)");
  cmd->add_option("--db", a->db, "results database (SQLite; default <space name>.sqlite)");
  cmd->add_option("--jobs", a->run.jobs, "designs evaluated at once")
      ->check(CLI::Range(1u, 256u))
      ->capture_default_str();
  cmd->add_option("--limit", a->run.limit, "the first N points only (0: all)")->capture_default_str();
  cmd->add_option("--power-model", a->power_model,
                  "a power model from fsgen train: each design's area by its primitive area models");
  cmd->add_option("--out", a->out, "a folder for the front as front.csv and front.png");
  cmd->add_option("--report", a->report, "print the report of a results database, running nothing");
  cmd->add_option("--rank", a->run.rank,
                  "this process's share of the points: those whose hash % ranks == rank "
                  "(default: the MPI launcher's rank, or 0)");
  cmd->add_option("--ranks", a->run.ranks, "processes sharing the points (default: the MPI launcher's, or 1)");
  return {cmd, [a, cmd] {
            a->rank_given = cmd->count("--rank") + cmd->count("--ranks") > 0;
            return run_explore(*a);
          }};
}

}  // namespace fsgen::cli
