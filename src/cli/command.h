// The subcommands of the fsgen binary. Each registers its options on the application and
// returns how to run it once the command line is parsed: parse options, call the library,
// return the exit status. Printers, progress and logging live in the library.
#pragma once
#include <CLI/CLI.hpp>
#include <functional>

namespace fsgen::cli {

struct Command {
  CLI::App* app;             // the subcommand, to ask whether it was chosen
  std::function<int()> run;  // its exit status
};

Command check_command(CLI::App& app);
Command generate_command(CLI::App& app);
Command simulate_command(CLI::App& app);
Command compile_command(CLI::App& app);
Command cosim_command(CLI::App& app);
Command bench_command(CLI::App& app);
Command sparsity_study_command(CLI::App& app);
Command numerics_command(CLI::App& app);
Command model_command(CLI::App& app);
Command infer_command(CLI::App& app);
Command characterize_command(CLI::App& app);
Command train_command(CLI::App& app);
Command power_command(CLI::App& app);
Command power_validate_command(CLI::App& app);
Command explore_command(CLI::App& app);

}  // namespace fsgen::cli
