// fsgen simulate: one kernel, or a model's layers, on the design's SystemC/TLM-2.0 platform
// (or, for models, its fast model).
#include <fstream>
#include <functional>
#include <iostream>
#include <memory>

#include "cli/command.h"
#include "cli/options.h"
#include "compiler/model_config.h"
#include "core/csv.h"
#include "core/error.h"
#include "core/progress.h"
#include "core/write_file.h"
#include "generator/spec.h"
#include "models/platform.h"
#include "sim/kernel_report.h"
#include "sim/mixed_sim.h"
#include "sim/model_sim.h"

namespace fsgen::cli {

namespace {
struct ModelSimArgs {
  std::string model, layers = "all", mode = "fast", activity_csv, routing = "uniform";
  bool every_launch = false, json = false, attention_only = false;
  uint64_t window = 0;
};

struct SimulateOptions {
  std::string spec_path, rtl, rtl_root = "rtl_out";
  KernelOptions kernel;
  ModelSimArgs model;
  bool tokens_given = false;
};

// --layers: a positive count, or 0 for all.
uint32_t layer_count(const std::string& text) {
  if (text == "all") return 0;
  try {
    size_t used = 0;
    const unsigned long n = std::stoul(text, &used);
    if (used == text.size() && n > 0 && n <= UINT32_MAX) return static_cast<uint32_t>(n);
  } catch (const std::exception&) {
  }
  fail("--layers", "expected a positive count or 'all', got '" + text + "'");
}

// --routing: uniform, zipf:S, or a file of each expert's token count (or share).
ExpertRouting routing_of(const std::string& text, const ModelConfig& m) {
  ExpertRouting r;
  r.name = text;
  if (text == "uniform") return r;
  const std::string zipf = "zipf:";
  if (text.rfind(zipf, 0) == 0) {
    r.skew = parse_finite(text.substr(zipf.size()), "--routing", "the Zipf exponent");
    if (r.skew < 0) fail("--routing", "expected a Zipf exponent of at least 0, got " + text.substr(zipf.size()));
    r.name = "Zipf, exponent " + text.substr(zipf.size());
    return r;
  }
  std::ifstream in(text);
  if (!in) fail("--routing", "expected uniform, zipf:<exponent> or a file of expert token counts, got '" + text + "'");
  std::string word;
  double sum = 0;
  for (size_t i = 1; in >> word; ++i) {
    const std::string where = text + ": count " + std::to_string(i);
    r.shares.push_back(parse_finite(word, where, "an expert's token count"));
    if (r.shares.back() < 0) fail(where, "expected a count of at least 0, got " + word);
    sum += r.shares.back();
  }
  if (r.shares.size() != m.moe.experts || sum <= 0)
    fail(text, "expected " + std::to_string(m.moe.experts) + " expert token counts, not all zero, got " +
                   std::to_string(r.shares.size()));
  r.name = "counts from " + text;
  return r;
}

int run_model(const Graph& g, const SimulateOptions& so) {
  const ModelSimArgs& a = so.model;
  const AttentionOptions& attn = so.kernel.attention;
  const ModelConfig m = model_config_by_name(a.model);
  ModelSimOptions o;
  o.stage = attn.stage == "decode" ? Stage::kDecode : Stage::kPrefill;
  o.context = attn.context;
  o.tokens = so.tokens_given ? attn.tokens : 1;
  o.layers = layer_count(a.layers);
  o.mode = a.mode == "cycle" ? SimMode::kCycle : SimMode::kFast;
  o.values = so.kernel.values.resolved();
  o.seed = so.kernel.seed;
  o.every_launch = a.every_launch;
  o.attention_only = a.attention_only;
  o.window = a.window ? a.window : (a.activity_csv.empty() ? 0 : 4096);
  if (a.routing != "uniform" && !m.moe.experts) fail("--routing", m.name + " has no experts to route to");
  o.routing = routing_of(a.routing, m);
  ProgressBar bar;
  const ModelSimReport r = simulate_model(g, m, o, [&bar](double fraction) { bar(fraction); });
  if (!a.activity_csv.empty())
    write_file_atomically(a.activity_csv, "activity trace", [&](std::ostream& file) { write_activity_csv(r, file); });
  if (a.json)
    write_model_sim_json(r, std::cout);
  else
    print_model_sim(r, std::cout);
  return 0;
}

int run_simulate(const SimulateOptions& o) {
  const Graph g = elaborate(parse_spec_file(o.spec_path));
  if (!o.model.model.empty()) return run_model(g, o);
  if (!o.rtl.empty() && !o.model.model.empty()) fail("--rtl", "runs one kernel, not a model's layers (--model)");
  const std::vector<RtlChoice> rtl = o.rtl.empty() ? std::vector<RtlChoice>{} : parse_rtl_choices(o.rtl, g);
  const ChosenKernel chosen = compile_kernel(g, o.kernel);
  if (!rtl.empty()) {
    const CosimReport rep = run_mixed(g, chosen.program, chosen.expected, rtl, o.rtl_root);
    print_cosim(rep, std::cout);
    return rep.pass() ? 0 : 1;
  }
  const RunResult r = run_on_systemc(g, chosen.program);
  return print_kernel_run(g, chosen.program, r, chosen.expected, chosen.macs, chosen.least_bytes, chosen.zeros,
                          std::cout)
             ? 0
             : 1;
}
}  // namespace

Command simulate_command(CLI::App& app) {
  auto o = std::make_shared<SimulateOptions>();
  auto* cmd = app.add_subcommand("simulate", "run a kernel on the design's SystemC/TLM-2.0 platform");
  add_spec_argument(cmd, o->spec_path);
  add_kernel_choice(cmd, o->kernel, {"matmul", "attention", "ffn"});
  add_problem_options(cmd, o->kernel);
  add_attention_options(cmd, o->kernel.attention);
  add_ffn_options(cmd, o->kernel.ffn);
  cmd->add_option("--rtl", o->rtl,
                  "mixed-level run: these blocks as their Verilated RTL inside the platform, block[=file.v] "
                  "separated by commas (file.v: your own module with the block's ports; blocks: the arrays, softmax, "
                  "dma), or 'arrays' (every array that can), or 'core' alone (the whole core), checked against the "
                  "all-model run");
  cmd->add_option("-o,--out", o->rtl_root, "--rtl: RTL output root folder (the blocks build under it)")
      ->capture_default_str();
  ModelSimArgs& m = o->model;
  cmd->add_option("--model", m.model, "simulate a model's layers: a name under workloads/ or a config.json");
  cmd->add_option("--layers", m.layers, "--model: layers to run, a count or 'all'")->capture_default_str();
  cmd->add_option("--mode", m.mode, "--model: fast (phases timed whole) or cycle (SystemC platform)")
      ->check(CLI::IsMember({"fast", "cycle"}))
      ->capture_default_str();
  cmd->add_flag("--attention-only", m.attention_only,
                "--model: each layer's attention block alone (norm, Q/K/V, attention, O, residual), without its FFN");
  cmd->add_flag("--every-launch", m.every_launch,
                "--model: simulate every launch, also those identical to earlier ones");
  cmd->add_option("--window", m.window, "--model --mode fast: activity window in cycles for --activity-out");
  cmd->add_option("--activity-out", m.activity_csv, "--model: write per-window block activity (CSV)");
  cmd->add_flag("--json", m.json, "--model: print the report as JSON");
  cmd->add_option("--routing", m.routing,
                  "--model with experts: how a step's tokens spread over the experts: uniform, zipf:<exponent> "
                  "(expert i's share as 1 / (i + 1)^exponent) or a file of each expert's token count")
      ->capture_default_str();
  return {cmd, [o, cmd] {
            o->tokens_given = cmd->count("--tokens") > 0;
            return run_simulate(*o);
          }};
}

}  // namespace fsgen::cli
