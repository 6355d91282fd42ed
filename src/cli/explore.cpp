// fsgen explore: a design space's points run on its benchmarks into a results database
// (resumable), and the report drawn from a database.
#include "dse/explore.h"

#include <iostream>
#include <memory>

#include "cli/command.h"
#include "core/error.h"
#include "core/progress.h"

namespace fsgen::cli {

namespace {

struct ExploreArgs {
  std::string space, db, report;
  ExploreOptions run;
};

int run_explore(const ExploreArgs& a) {
  if (!a.report.empty()) {
    const ResultsDb db(a.report);
    print_explore_report(db.designs(), std::cout);
    return 0;
  }
  if (a.space.empty()) fail("explore", "expected a design space file, or --report DB");
  const DesignSpace s = read_design_space(a.space);
  ResultsDb db(a.db.empty() ? s.name + ".sqlite" : a.db);
  ProgressBar bar;
  const ExploreCounts n = explore(s, db, a.run, [&bar](uint64_t done, uint64_t all) { bar(double(done) / double(all)); });
  std::cout << "space " << s.name << ": " << n.points << " points (" << s.axes.size() << " axes, "
            << s.benchmarks.size() << " benchmarks); " << n.already << " already recorded, " << n.ok << " run, "
            << n.invalid << " invalid, " << n.excluded << " excluded by a constraint, " << n.failed
            << " failed on a benchmark\n";
  print_explore_report(db.designs(), std::cout);
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
  cmd->add_option("--jobs", a->run.jobs, "designs evaluated at once")->check(CLI::Range(1u, 256u))->capture_default_str();
  cmd->add_option("--limit", a->run.limit, "the first N points only (0: all)")->capture_default_str();
  cmd->add_option("--report", a->report, "print the report of a results database, running nothing");
  return {cmd, [a] { return run_explore(*a); }};
}

}  // namespace fsgen::cli
