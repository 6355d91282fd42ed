// fsgen generate: write a design's Verilog, optionally lint it and synthesise it.
#include <filesystem>
#include <iostream>
#include <memory>

#include "cli/command.h"
#include "cli/options.h"
#include "flow/verilator.h"
#include "generator/spec.h"
#include "generator/verilog_emitter.h"
#include "sim/design_report.h"

namespace fsgen::cli {

namespace {
struct GenerateOptions {
  std::string spec_path, out_root = "rtl_out";
  bool lint = false, synth = false;
  SynthesisRequest synthesis;
};

int run_generate(const GenerateOptions& o) {
  const Graph g = elaborate(parse_spec_file(o.spec_path));
  if (o.synth) check_synthesis_request(g, o.synthesis);
  const std::string dir = update_design_folder(g, o.out_root);
  print_graph(g, std::cout);
  std::cout << "wrote " << dir << "/\n";
  int status = 0;
  if (o.lint) {
    const CommandResult r = lint_verilog(dir);
    std::cout << "verilator --lint-only -Wall: " << (r.status == 0 ? "clean" : "FAILED") << "\n";
    if (r.status) std::cout << r.output, status = 1;
  }
  if (o.synth && !print_synthesis(g, dir, o.synthesis, std::cout)) status = 1;
  return status;
}
}  // namespace

Command generate_command(CLI::App& app) {
  auto o = std::make_shared<GenerateOptions>();
  auto* cmd = app.add_subcommand("generate", "write a design's Verilog into <out>/<design>/");
  add_spec_argument(cmd, o->spec_path);
  cmd->add_option("-o,--out", o->out_root, "output root folder")->capture_default_str();
  cmd->add_flag("--lint", o->lint, "also run verilator --lint-only -Wall");
  cmd->add_flag("--synth", o->synth,
                "also map each block onto a liberty library (yosys) and time it (OpenSTA): area, cells, critical path, "
                "max clock");
  cmd->add_option("--liberty", o->synthesis.liberty,
                  "liberty file (.lib or .lib.gz) for --synth; default: the built-in fsgen45");
  cmd->add_option("--jobs", o->synthesis.jobs, "blocks synthesised in parallel for --synth")
      ->capture_default_str()
      ->check(CLI::PositiveNumber);
  cmd->add_option("--blocks", o->synthesis.blocks,
                  "--synth: only these blocks, comma-separated (as fsgen check names them)")
      ->delimiter(',');
  add_macro_options(cmd, o->synthesis.macros);
  return {cmd, [o] { return run_generate(*o); }};
}

}  // namespace fsgen::cli
