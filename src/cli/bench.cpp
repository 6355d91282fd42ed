// fsgen bench: simulated cycles per second, the SystemC model against Verilator.
#include "sim/bench.h"

#include <iostream>
#include <memory>

#include "cli/command.h"

namespace fsgen::cli {

Command bench_command(CLI::App& app) {
  struct BenchOptions {
    std::vector<unsigned> sizes = {8, 16, 32};
    std::string out_root = "rtl_out";
  };
  auto o = std::make_shared<BenchOptions>();
  auto* cmd = app.add_subcommand("bench", "simulated cycles per second: SystemC model against Verilator");
  cmd->add_option("--sizes", o->sizes, "PE array edge lengths")->capture_default_str();
  cmd->add_option("-o,--out", o->out_root, "RTL output root folder")->capture_default_str();
  return {cmd, [o] {
            print_bench(run_bench(o->sizes, o->out_root), std::cout);
            return 0;
          }};
}

}  // namespace fsgen::cli
