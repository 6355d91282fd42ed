// fsgen sparsity-study: an 8x8 array over the sparse network combinations.
#include "sim/sparsity_study.h"

#include <iostream>
#include <memory>
#include <string>

#include "cli/command.h"
#include "core/error.h"
#include "core/write_file.h"

namespace fsgen::cli {

namespace {
struct StudyOptions {
  SparsityStudyOptions study;
  std::string markdown;
};

int run_study(const StudyOptions& o) {
  const SparsityStudyOptions& so = o.study;
  if (so.batch % 8 || so.n % 8 || so.k % 16)
    fail("sparsity-study", "expected --batch and --n multiples of 8 and --k a multiple of 16 (the 8x8x16 tile)");
  if (so.b_tiles() > 256)  // the spec's largest operand_tiles
    fail("sparsity-study", "--n " + std::to_string(so.n) + " x --k " + std::to_string(so.k) +
                               ": expected at most 32768 (all of B in the controller's 256 operand slots)");
  const SparsityStudy s = run_sparsity_study(so);
  print_sparsity_study(s, std::cout);
  if (!o.markdown.empty())
    write_file_atomically(o.markdown, "sparsity study", [&](std::ostream& file) { print_sparsity_study(s, file); });
  return 0;
}
}  // namespace

Command sparsity_study_command(CLI::App& app) {
  auto o = std::make_shared<StudyOptions>();
  SparsityStudyOptions& s = o->study;
  auto* cmd = app.add_subcommand(
      "sparsity-study", "8x8 array over the sparse network combinations: cycles, speed-up, lanes, area, max clock");
  cmd->add_option("--batch", s.batch, "rows of A (tokens)")->check(CLI::Range(8u, 4096u))->capture_default_str();
  cmd->add_option("--n", s.n, "columns of B (multiple of 8)")->capture_default_str();
  cmd->add_option("--k", s.k, "reduction length (multiple of 16)")->capture_default_str();
  cmd->add_option("--zeros", s.zeros, "random zeros in both operands")
      ->check(CLI::Range(0.0, 1.0))
      ->capture_default_str();
  cmd->add_option("--seed", s.seed, "operand seed")->capture_default_str();
  cmd->add_flag("--synth", s.synth, "also synthesise each design (Yosys area, OpenSTA max clock)");
  cmd->add_option("--liberty", s.liberty, "liberty for --synth; default: the built-in fsgen45");
  cmd->add_option("-o,--out", s.work_dir, "folder for the designs' RTL and netlists")->capture_default_str();
  cmd->add_option("--markdown", o->markdown, "also write the table to this file");
  return {cmd, [o] { return run_study(*o); }};
}

}  // namespace fsgen::cli
