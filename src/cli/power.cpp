// fsgen power: a kernel's power from the trained primitive models, by block and as a trace.
#include <iostream>
#include <memory>

#include "cli/command.h"
#include "cli/options.h"
#include "core/error.h"
#include "generator/spec.h"
#include "sim/power_run.h"

namespace fsgen::cli {

namespace {
struct PowerArgs {
  std::string spec_path, power_model = "power_model.json";
  KernelOptions kernel;
  PowerRunOptions run;
};

int run_power_command(const PowerArgs& a) {
  const PowerRunOptions& o = a.run;
  if (!o.golden && !o.record_path.empty()) fail("--record", "records need the golden power: add --golden");
  if (!o.golden && !o.golden_csv.empty()) fail("--golden-csv", "the golden trace needs the golden power: add --golden");
  if (!o.golden && !o.golden_signals.empty())
    fail("--golden-signals", "the energy by signal needs the golden power: add --golden");
  if (!o.golden && !o.whole_core) fail("--modelled-only", "replaying the modelled blocks alone needs --golden");
  const Graph g = elaborate(parse_spec_file(a.spec_path));
  const PowerModel pm = load_power_model(a.power_model);
  run_power(g, compile_kernel(g, a.kernel).program, pm, o, std::cout);
  return 0;
}
}  // namespace

Command power_command(CLI::App& app) {
  auto a = std::make_shared<PowerArgs>();
  PowerRunOptions& o = a->run;
  auto* cmd = app.add_subcommand("power", "a kernel's power from the trained primitive models: by block, and a trace");
  add_spec_argument(cmd, a->spec_path);
  add_kernel_choice(cmd, a->kernel, {"matmul", "attention", "ffn"});
  add_problem_options(cmd, a->kernel);
  add_attention_options(cmd, a->kernel.attention);
  add_ffn_options(cmd, a->kernel.ffn);
  cmd->add_option("--power-model", a->power_model, "power model (JSON) from fsgen train")->capture_default_str();
  cmd->add_option("--window", o.window, "trace window in cycles")->check(CLI::PositiveNumber)->capture_default_str();
  cmd->add_option("--csv", o.csv, "write the trace as CSV (mW per block per window)");
  cmd->add_option("--vcd", o.vcd, "write the trace as a VCD of real-valued signals (GTKWave)");
  cmd->add_option("--png", o.png, "draw the trace as a PNG (gnuplot)");
  cmd->add_flag("--golden", o.golden,
                "also replay the whole core's RTL stimulus into its gate-level netlists on the same run: golden power "
                "of every block (slow: a controller's synthesis takes minutes)");
  cmd->add_flag("--modelled-only{false}", o.whole_core,
                "--golden: replay only the blocks with activity models (PE arrays, value networks, accumulator caches, "
                "the DMA, the softmax unit), not the controller and register file");
  cmd->add_option("--liberty", o.liberty,
                  "the power model's liberty (memory macros, --golden); default: the built-in fsgen45");
  add_macro_options(cmd, o.macros);
  cmd->add_option("-o,--out", o.out_root, "output root folder: the liberty copy, and the RTL and netlists of --golden")
      ->capture_default_str();
  cmd->add_option("--golden-csv", o.golden_csv,
                  "--golden: write the predicted and golden traces per block and window (CSV)");
  cmd->add_option("--golden-signals", o.golden_signals,
                  "--golden: write each replayed block's dynamic energy by RTL signal, a register or port with the "
                  "logic behind it (CSV)");
  cmd->add_option("--record", o.record_path, "--golden: append the blocks' validation records to this CSV");
  cmd->add_option("--record-name", o.record_name, "--record: the design's name in the records (default: the spec's)");
  return {cmd, [a] { return run_power_command(*a); }};
}

}  // namespace fsgen::cli
