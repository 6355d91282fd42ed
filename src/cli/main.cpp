// fsgen: generate fused accelerators, simulate them, cross-check them against RTL.
// The subcommands live one to a file (cli/command.h); this file parses the command line,
// sets up the log and turns every failure into a one-line message and a non-zero exit.
#include <CLI/CLI.hpp>
#include <iostream>
#include <new>
#include <stdexcept>
#include <vector>

#include "cli/command.h"
#include "core/error.h"
#include "core/log.h"

namespace {

using namespace fsgen;
using namespace fsgen::cli;

struct LogOptions {
  bool verbose = false, quiet = false;
  std::string file;
};

int run(int argc, char** argv) {
  CLI::App app{"fsgen: fused and sparse LLM accelerator generator, simulator and cross-checker"};
  app.require_subcommand(1);
  app.fallthrough();  // the log options are accepted after the subcommand too
  LogOptions log;
  auto* verbose = app.add_flag("-v,--verbose", log.verbose, "also print debug messages");
  app.add_flag("-q,--quiet", log.quiet, "only warnings and errors on stderr, no progress bars")->excludes(verbose);
  app.add_option("--log-file", log.file, "also write every message, with its time and level, to this file");
  const std::vector<Command> commands = {
      check_command(app), generate_command(app),       simulate_command(app),       compile_command(app),
      cosim_command(app), bench_command(app),          sparsity_study_command(app), numerics_command(app),
      model_command(app), infer_command(app),          characterize_command(app),   train_command(app),
      power_command(app), power_validate_command(app), explore_command(app)};
  CLI11_PARSE(app, argc, argv);
  configure_logging(log.quiet ? Verbosity::kQuiet : log.verbose ? Verbosity::kVerbose : Verbosity::kNormal, log.file);
  for (const Command& c : commands)
    if (c.app->parsed()) return c.run();
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  try {
    return run(argc, argv);
  } catch (const fsgen::UserError& e) {
    std::cerr << "fsgen: error: " << e.what() << "\n";
  } catch (const std::bad_alloc&) {
    std::cerr << "fsgen: error: out of memory\n";
  } catch (const std::logic_error& e) {
    // A broken precondition (an index out of range, a number no reader checked): fsgen's bug.
    std::cerr << "fsgen: internal error (a bug in fsgen): " << e.what() << "\n";
  } catch (const std::exception& e) {
    // A library's exception that no reader turned into a UserError: its message is the cause.
    std::cerr << "fsgen: error: " << e.what() << "\n";
  } catch (...) {
    std::cerr << "fsgen: internal error (a bug in fsgen): an unknown exception\n";
  }
  return 1;
}
