// fsgen cosim: one kernel on the SystemC platform and on the Verilated RTL, compared.
#include "sim/cosim.h"

#include <iostream>
#include <memory>

#include "cli/command.h"
#include "cli/options.h"
#include "generator/spec.h"

namespace fsgen::cli {

namespace {
struct CosimOptions {
  std::string spec_path, out_root = "rtl_out", vcd;
  KernelOptions kernel;
};

int run_cosim(const CosimOptions& o) {
  const Graph g = elaborate(parse_spec_file(o.spec_path));
  const KernelOptions& k = o.kernel;
  const CosimReport rep = k.kernel == "attention" ? cosim_attention(g, attention_problem(k), o.out_root, o.vcd)
                          : k.kernel == "ffn"     ? cosim_ffn(g, ffn_problem(k), o.out_root, o.vcd)
                                                  : cosim_matmul(g, matmul_problem(k, g), o.out_root, o.vcd);
  print_cosim(rep, std::cout);
  if (!o.vcd.empty()) std::cout << "wrote " << o.vcd << " (the RTL run's waveform)\n";
  return rep.pass() ? 0 : 1;
}
}  // namespace

Command cosim_command(CLI::App& app) {
  auto o = std::make_shared<CosimOptions>();
  auto* cmd = app.add_subcommand("cosim", "run a kernel on SystemC and on the Verilated RTL and compare them");
  add_spec_argument(cmd, o->spec_path);
  add_kernel_choice(cmd, o->kernel, {"matmul", "attention", "ffn"});
  cmd->add_option("-o,--out", o->out_root, "RTL output root folder")->capture_default_str();
  cmd->add_option("--vcd", o->vcd,
                  "also write the RTL run's waveform (every signal, from the kernel's cycle 0) as a VCD");
  add_problem_options(cmd, o->kernel);
  add_attention_options(cmd, o->kernel.attention);
  add_ffn_options(cmd, o->kernel.ffn);
  return {cmd, [o] { return run_cosim(*o); }};
}

}  // namespace fsgen::cli
