// fsgen infer: a llama2.c or Hugging Face checkpoint through the design's SystemC platform against FP32.
#include <filesystem>
#include <iostream>
#include <memory>

#include "cli/command.h"
#include "cli/options.h"
#include "compiler/checkpoint.h"
#include "generator/spec.h"
#include "sim/kernel_report.h"
#include "sim/llama_inference.h"

namespace fsgen::cli {

namespace {
struct InferOptions {
  std::string spec_path, checkpoint = "../shared/models/stories260K.bin", out_root = "rtl_out", prune;
  bool rtl_replay = false;
  InferenceOptions inference;
};

int run_infer(InferOptions o) {
  const Graph g = elaborate(parse_spec_file(o.spec_path));
  const DecoderCheckpoint model(o.checkpoint);
  if (o.rtl_replay) o.inference.rtl_root = o.out_root;
  if (!o.prune.empty()) o.inference.prune = pattern_named(o.prune, "--prune");
  InferenceReport r = run_inference(g, model, o.inference);
  const std::filesystem::path p = std::filesystem::path(o.checkpoint).lexically_normal();
  const std::filesystem::path named = p.filename().empty() || p.filename() == "config.json" ? p.parent_path() : p;
  r.model = named.filename().string();
  print_inference(r, std::cout);
  print_sparsity(g, r.sparse, r.cycles, std::cout);
  bool rtl_ok = true;
  for (const auto& rep : r.rtl) rtl_ok = rtl_ok && rep.pass();
  return r.mismatches == 0 && rtl_ok ? 0 : 1;
}
}  // namespace

Command infer_command(CLI::App& app) {
  auto o = std::make_shared<InferOptions>();
  InferenceOptions& inf = o->inference;
  auto* cmd = app.add_subcommand(
      "infer",
      "run a llama2.c or Hugging Face (safetensors) checkpoint through the design's SystemC platform (INT8) "
      "against FP32");
  add_spec_argument(cmd, o->spec_path);
  cmd->add_option("--checkpoint", o->checkpoint,
                  "a llama2.c .bin file, or a Hugging Face checkpoint: its folder (config.json, model.safetensors) or "
                  "config.json")
      ->capture_default_str();
  cmd->add_option("--prompt", inf.prompt, "tokens of the prefill step")->capture_default_str();
  cmd->add_option("--generate", inf.generate, "decode steps after the prefill")->capture_default_str();
  cmd->add_option("--layers", inf.layers, "layers to run (0: all)")->capture_default_str();
  cmd->add_flag("--rtl", o->rtl_replay, "also replay layer 0 of the prefill on the Verilated RTL");
  cmd->add_option("-o,--out", o->out_root, "RTL output root folder (--rtl)")->capture_default_str();
  cmd->add_option("--prune", o->prune, "magnitude-prune the linear weights N:M along k (a sparse workload), e.g. 2:4");
  return {cmd, [o] { return run_infer(*o); }};
}

}  // namespace fsgen::cli
