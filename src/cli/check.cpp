// fsgen check: validate a design spec and print its elaborated graph.
#include <iostream>
#include <memory>

#include "cli/command.h"
#include "cli/options.h"
#include "core/error.h"
#include "generator/spec.h"
#include "sim/design_report.h"

namespace fsgen::cli {

namespace {
int run_check(const std::string& spec_path) {
  const DesignSpec spec = parse_spec_file(spec_path);
  const SparsePlan sparse = plan_sparsity(spec);
  try {
    print_graph(elaborate(spec), std::cout);
  } catch (const UserError&) {
    // A plan whose hardware is not built yet is still shown before the reason.
    if (sparse.any()) {
      std::cout << "design " << spec.name << " (" << spec.source << "): not buildable yet";
      print_sparse_plan(sparse, std::cout);
      std::cout << "\n";
    }
    throw;
  }
  return 0;
}
}  // namespace

Command check_command(CLI::App& app) {
  auto spec_path = std::make_shared<std::string>();
  auto* cmd = app.add_subcommand("check", "validate a design spec and print its elaborated graph");
  add_spec_argument(cmd, *spec_path);
  return {cmd, [spec_path] { return run_check(*spec_path); }};
}

}  // namespace fsgen::cli
