// fsgen characterize: gate-level power of the graph's primitives over sizes and activities.
#include "power/characterize.h"

#include <algorithm>
#include <iostream>
#include <map>
#include <memory>

#include "cli/command.h"
#include "core/progress.h"
#include "generator/graph.h"
#include "generator/spec.h"
#include "power/memory_macro.h"
#include "power/timing_model.h"
#include "sim/power_report.h"

namespace fsgen::cli {

namespace {
struct CharacterizeArgs {
  CharacterizeOptions options;
  std::vector<std::string> designs;  // --design: their blocks' sizes in place of the catalog's
  std::string dataset = "power_dataset.csv";
  bool no_kernel_runs = false, recount_events = false, timing = false;
  double period_ns = 1.0;
};

// Each design's blocks as the power flow prices them (priced_instances), by kind; a block
// whose module is a variant of its primitive is named and left out (its own module is not
// the primitive's: characterising the primitive's would not price it).
std::map<std::string, std::vector<std::vector<int>>> design_sizes(const std::vector<std::string>& designs) {
  std::map<std::string, std::vector<std::vector<int>>> sizes;
  for (const auto& file : designs) {
    const Graph g = elaborate(parse_spec_file(file));
    // Which buffers are macros follows their bytes alone (MacroOptions' threshold, as
    // fsgen power takes it), not the technology that prices them.
    const DesignMacros macros = design_macros(g, MacroTechnology{}, MacroOptions{});
    for (const PricedInstance& p : priced_instances(g, macros)) {
      if (!p.variant.empty()) {
        std::cout << file << ": block " << p.block << " left out, a variant of " << p.kind << " (" << p.variant
                  << ")\n";
        continue;
      }
      std::vector<std::vector<int>>& of_kind = sizes[p.kind];
      if (std::find(of_kind.begin(), of_kind.end(), p.h) == of_kind.end()) of_kind.push_back(p.h);
    }
  }
  return sizes;
}

int run_characterize(CharacterizeArgs a) {
  if (a.recount_events) {
    const RecountSummary sum = recount_kernel_events(a.dataset);
    std::cout << "wrote " << a.dataset << ": the events of " << sum.points << " kernel points of " << sum.runs
              << " training kernel runs counted again (labels kept)\n";
    return 0;
  }
  CharacterizeOptions& o = a.options;
  if (o.work_dir.empty()) o.work_dir = a.dataset + ".work";
  if (!a.designs.empty()) {
    o.design_sizes = design_sizes(a.designs);
    for (const PrimitiveDef* d : selected_primitives(o))
      for (const auto& h : sizes_to_run(*d, o))
        std::cout << "size " << d->kind << " " << (h.empty() ? "(its one size)" : hyperparameter_text(h, 'x')) << "\n";
    std::cout << std::flush;  // before hours of synthesis
  }
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
  cmd->add_option("--design", a->designs,
                  "design specs (YAML) whose blocks' sizes to characterise, in place of the catalog's (--kinds "
                  "narrows them)")
      ->check(CLI::ExistingFile);
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
