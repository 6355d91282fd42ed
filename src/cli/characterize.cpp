// fsgen characterize: gate-level power of the graph's primitives over sizes and activities.
#include "power/characterize.h"

#include <iostream>
#include <memory>

#include "cli/command.h"
#include "core/progress.h"
#include "power/timing_model.h"

namespace fsgen::cli {

namespace {
struct CharacterizeArgs {
  CharacterizeOptions options;
  std::string dataset = "power_dataset.csv";
  bool no_kernel_runs = false, recount_events = false, timing = false;
  double period_ns = 1.0;
};

int run_characterize(CharacterizeArgs a) {
  if (a.recount_events) {
    const RecountSummary sum = recount_kernel_events(a.dataset);
    std::cout << "wrote " << a.dataset << ": the events of " << sum.points << " kernel points of " << sum.runs
              << " training kernel runs counted again (labels kept)\n";
    return 0;
  }
  CharacterizeOptions& o = a.options;
  if (o.work_dir.empty()) o.work_dir = a.dataset + ".work";
  if (a.timing) {
    ProgressBar bar("characterise (timing)");
    const uint64_t added =
        characterize_timing(o, a.period_ns, a.dataset, [&bar](uint64_t done, uint64_t total) { bar(done, total); });
    std::cout << "wrote " << a.dataset << ": " << added << " sizes mapped for delay at " << a.period_ns
              << " ns and timed\n";
    return 0;
  }
  o.kernel_runs = !a.no_kernel_runs;
  ProgressBar bar("characterise (stimuli)");
  const CharacterizeSummary sum =
      characterize(o, a.dataset, [&bar](uint64_t done, uint64_t total) { bar(done, total); });
  std::cout << "wrote " << a.dataset << ": " << sum.added << " points added, " << sum.skipped
            << " stimuli already there\n";
  return 0;
}
}  // namespace

Command characterize_command(CLI::App& app) {
  auto a = std::make_shared<CharacterizeArgs>();
  CharacterizeOptions& o = a->options;
  auto* cmd = app.add_subcommand(
      "characterize", "gate-level power of the graph's primitives over sizes and activities, into a dataset");
  cmd->add_option("-o,--out", a->dataset, "dataset file (CSV); an existing one is resumed")->capture_default_str();
  cmd->add_option("--liberty", o.liberty, "liberty file (.lib or .lib.gz); default: the built-in fsgen45");
  cmd->add_option("--kinds", o.kinds, "primitives to characterise (default: all)");
  cmd->add_option("--cycles", o.cycles, "cycles per stimulus")->capture_default_str();
  cmd->add_option("--seed", o.seed, "first stimulus seed")->capture_default_str();
  cmd->add_option("--jobs", o.jobs, "gate-level simulations in parallel")->capture_default_str();
  cmd->add_option("--work", o.work_dir, "folder for netlists and builds (default: <out>.work)");
  cmd->add_option("--max-elements", o.max_elements, "only sizes with at most this many processing elements (0: all)")
      ->capture_default_str();
  cmd->add_option("--sizes", o.sizes, "only these catalog sizes, the hyperparameters joined by x (2x4; default: all)");
  cmd->add_flag("--small", o.small_grid, "the two smallest sizes and 8 stimuli per primitive");
  cmd->add_flag("--no-kernel-runs", a->no_kernel_runs,
                "the controllers' sizes alone (their clock, leakage and area), not their training cores' kernel runs");
  cmd->add_flag("--timing", a->timing,
                "instead of power: map each size for delay and time it with OpenSTA, one row per primitive and size "
                "(the max-clock model's dataset; --kinds, --sizes, --max-elements, --small, --jobs apply)");
  cmd->add_option("--period-ns", a->period_ns, "--timing: the clock period each size is mapped for and timed at")
      ->capture_default_str();
  cmd->add_flag("--recount-events", a->recount_events,
                "instead of characterising: count the events of the dataset's controller kernel points again from "
                "their training kernels' SystemC runs (labels kept), after a change of the events' definitions");
  return {cmd, [a] { return run_characterize(*a); }};
}

}  // namespace fsgen::cli
