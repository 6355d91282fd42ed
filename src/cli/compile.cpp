// fsgen compile: a matmul for a design as a Program (JSON).
#include <iostream>
#include <memory>

#include "cli/command.h"
#include "cli/options.h"
#include "generator/spec.h"

namespace fsgen::cli {

namespace {
struct CompileOptions {
  std::string spec_path, program_out = "program.json";
  KernelOptions kernel;
};

int run_compile(const CompileOptions& o) {
  const Graph g = elaborate(parse_spec_file(o.spec_path));
  const Program prog = compile_matmul(g, matmul_problem(o.kernel, g));
  save_program(prog, o.program_out);
  std::cout << "wrote " << o.program_out << ": " << prog.kernel << " for design " << g.spec.name << ", "
            << prog.writes.size() << " register writes, " << prog.inputs.size() << " input regions\n";
  return 0;
}
}  // namespace

Command compile_command(CLI::App& app) {
  auto o = std::make_shared<CompileOptions>();
  auto* cmd = app.add_subcommand("compile", "compile a matmul for a design into a Program (JSON)");
  add_spec_argument(cmd, o->spec_path);
  cmd->add_option("--kernel", o->kernel.kernel, "kernel to compile")
      ->check(CLI::IsMember({"matmul"}))
      ->capture_default_str();
  cmd->add_option("-o,--out", o->program_out, "program file to write")->capture_default_str();
  add_problem_options(cmd, o->kernel);
  return {cmd, [o] { return run_compile(*o); }};
}

}  // namespace fsgen::cli
