// fsgen: generate fused accelerators, simulate them, cross-check them against RTL.
#include <CLI/CLI.hpp>

#include <algorithm>
#include <chrono>
#include <filesystem>
#include <fstream>
#include <functional>
#include <iomanip>
#include <iostream>
#include <optional>

#include "compiler/matmul.h"
#include "compiler/model_config.h"
#include "core/error.h"
#include "core/folder_lock.h"
#include "core/write_file.h"
#include "generator/graph.h"
#include "generator/spec.h"
#include "generator/verilog_emitter.h"
#include "models/fast_model.h"
#include "models/kernel_regs.h"
#include "models/platform.h"
#include "power/characterize.h"
#include "power/controller_events.h"
#include "power/liberty.h"
#include "power/memory_macro.h"
#include "power/power_model.h"
#include "power/techmap.h"
#include "power/validation.h"
#include "sim/bench.h"
#include "sim/cosim.h"
#include "sim/llama_inference.h"
#include "sim/model_sim.h"
#include "sim/power_report.h"
#include "sim/numerics_report.h"
#include "sim/sparsity_study.h"
#include "flow/verilator.h"

namespace {

using namespace fsgen;

void print_network(const ValueNetwork& n, std::ostream& out) {
  const NetworkParams& p = n.params;
  out << "\n    " << n.tensor << " network " << n.topology << ": c=" << p.c << " g=" << p.g << " m=" << p.m << " i=" << p.i
      << " o=" << p.o << " s=" << p.s << ", " << p.lanes << (p.lanes == 1 ? " lane" : " lanes");
}

void print_sparse_plan(const SparsePlan& sp, std::ostream& out) {
  const ArraySparsity& a = sp.a;
  out << "\n  sparsity:";
  if (a.sparse()) {
    out << " design " << a.name() << "; array a tilings m=" << a.tiling[0].text() << " n=" << a.tiling[1].text()
        << " k=" << a.tiling[2].text();
    if (a.x_sparse) out << ", skips x (" << a.x_condition << ")";
    if (a.w_sparse) out << ", skips w (" << a.w_condition << ")";
    print_network(a.net_x, out);
    print_network(a.net_w, out);
    if (a.holds_compressed())
      out << "\n    lanes hold the k tile of " << a.tiling[2].s << " compressed in " << a.slots() << " MACs (" << a.slot_groups()
          << " group(s) of " << a.slots() / a.slot_groups() << " for " << a.tiling[2].s / a.slot_groups() << " k rows each)";
  }
  if (sp.group.present)
    out << "\n    group network (block TopK, before the value networks): " << sp.group.params.i << " blocks of "
        << sp.group.block << " keys offered, 1 used per cycle, top " << sp.group.topk;
  for (const auto& t : sp.memory.compressed) out << "\n    DMA: " << t << " compressed (all-zero tile rows skipped; row metadata)";
  if (!sp.memory.window_kind.empty())
    out << "\n    DMA: key loop bounded by " << sp.memory.window_kind
        << (sp.memory.window ? " window " + std::to_string(sp.memory.window) : std::string());
}

// The value networks' work in one run: the speed-up over streaming every k step (the
// same design and schedule without skipping: the controller's phases run one after
// another, so only the stream cycles differ), lane occupancy and what was skipped.
void print_sparse_activity(const std::string& array, const SparseActivity& s, uint64_t cycles, std::ostream& out) {
  const std::ios_base::fmtflags flags = out.flags();
  const std::streamsize precision = out.precision();
  const uint64_t dense_total = cycles - s.stream_cycles + s.dense_cycles;
  out << "  " << array << " sparse   " << s.stream_cycles << " stream cycles against " << s.dense_cycles << " without skipping, "
      << s.windows << " windows; whole kernel " << cycles << " vs " << dense_total << " cycles without skipping (speed-up "
      << std::fixed << std::setprecision(2) << double(dense_total) / double(cycles) << "x)\n"
      << "  " << array << " lanes    " << std::setprecision(1)
      << (s.lane_slots ? 100.0 * s.lane_issues / s.lane_slots : 0.0) << " % of lane slots issued (idle lanes: "
      << s.lane_slots - s.lane_issues << " lane-cycles of network imbalance), " << s.skipped_steps
      << " block steps skipped\n";
  out.flags(flags);
  out.precision(precision);
}

// A compressed dot array's lanes: what their MACs held and what a dense array of as many
// MACs per lane would have streamed for the same k tiles.
void print_compressed_lanes(const std::string& array, const SparseActivity& s, std::ostream& out) {
  const std::ios_base::fmtflags flags = out.flags();
  out << "  " << array << " compressed  " << s.stream_cycles << " stream cycles; a dense array of the same MACs per lane "
      << "would stream " << s.dense_cycles << " (" << std::fixed << std::setprecision(2)
      << double(s.dense_cycles) / double(std::max<uint64_t>(s.stream_cycles, 1)) << "x) over " << s.windows
      << " stationary loads\n  " << array << " lanes    " << std::setprecision(1)
      << (s.lane_slots ? 100.0 * s.lane_issues / s.lane_slots : 0.0) << " % of MAC slot-cycles held a non-zero weight, "
      << s.skipped_steps << " MACs on zero weights not spent\n";
  out.flags(flags);
}

// What the value networks of each sparse array and the DMA skipped in a run of `cycles`.
void print_sparsity(const Graph& g, const std::map<std::string, SparseActivity>& sparse, uint64_t cycles, std::ostream& out) {
  for (const auto& [block, sa] : sparse)
    if (block == "array_a" && g.array_a.sparse.holds_compressed())
      print_compressed_lanes(block, sa, out);
    else if (block == "dma")
      out << "  DMA skipped       " << sa.window_bytes << " B of keys and values behind the sliding window, "
          << sa.topk_bytes << " B in key tiles block TopK passed over (" << sa.pool_bytes << " B of pooled keys fetched), "
          << sa.zero_row_bytes << " B of compressed all-zero rows (" << sa.metadata_bytes << " B of row metadata fetched)\n";
    else
      print_sparse_activity(block, sa, cycles, out);
}

void print_graph(const Graph& g, std::ostream& out) {
  const ArrayPlan& p = g.array_a;
  out << "design " << g.spec.name << " (" << g.spec.source << ")\n"
      << "  memory: " << g.memory.beat_bytes << " B/cycle AXI4, latency " << g.memory.latency_cycles << " cycles, clock "
      << g.spec.clock_mhz << " MHz\n"
      << "  array a: " << stationarity_name(p.stationarity) << ", loop order " << iter_name(p.spec.loop_order[0])
      << iter_name(p.spec.loop_order[1]) << iter_name(p.spec.loop_order[2]) << ", tiles m=" << p.spec.tile_m
      << " n=" << p.spec.tile_n << " k=" << p.spec.tile_k << ", " << p.spec.pe_rows() << "x" << p.spec.pe_cols()
      << " PEs\n"
      << "  reuse: A " << movement_name(p.move_a) << ", B " << movement_name(p.move_b) << ", C "
      << movement_name(p.move_c);
  if (p.acc_slots) out << " (accumulator cache: " << p.acc_slots << (p.acc_slots == 1 ? " tile)" : " tiles)");
  out << "\n  kernels: matmul";
  if (g.matmul_on_both) out << " (on arrays a and b: " << g.matmul_tile_n() << "-column tiles)";
  if (g.attention) out << ", attention and FFN (fused: S = Q K^T on a, online softmax, O = P V on b)";
  if (g.attention) {
    const ArrayPlan& b = g.array_b;
    const FusedStageCycles c = fused_stage_cycles(g.array_a, b, g.memory);
    out << "\n  array b: " << stationarity_name(b.stationarity) << (b.spec.systolic ? " systolic" : "") << ", tiles m="
        << b.spec.tile_m << " n=" << b.spec.tile_n << " k=" << b.spec.tile_k << ", " << b.spec.pe_rows() << "x"
        << b.spec.pe_cols() << " PEs"
        << "\n  per key tile (cycles, one stage after another): K load " << c.k_load << ", S on array a " << c.scores
        << ", softmax " << c.softmax << ", V load " << c.v_load << ", O on array b " << c.o_update << " ("
        << c.o_passes << (c.o_passes == 1 ? " pass)" : " passes)");
  }
  if (g.sparse.any()) print_sparse_plan(g.sparse, out);
  out << "\n  blocks:";
  for (const auto& b : g.blocks) out << " " << b.name << "(" << b.kind << ")";
  out << "\n";
}

// Maps the generated design onto a liberty library and reports area and timing; its
// memory macros are black boxes with the macro model's area.
void print_synthesis(const Graph& g, const std::string& dir, const std::string& liberty_file, const MacroOptions& mo,
                     std::ostream& out) {
  const Liberty lib = prepare_liberty(liberty_file, dir);
  const DesignMacros macros = design_macros(g, macro_technology(read_liberty_file(lib.path), mo.node_nm), mo);
  std::vector<std::string> files;
  for (const auto& f : verilog_files(g)) files.push_back((std::filesystem::path(dir) / f).string());
  std::vector<std::string> blackboxes;
  if (!macros.module.empty()) blackboxes.push_back(macros.module);
  const SynthReport s = synth_to_liberty(files, "fsgen_top", {}, lib, dir, blackboxes);
  const double period_ns = 1000.0 / g.spec.clock_mhz;
  const TimingReport t = critical_path(s, "fsgen_top", lib, "clk", period_ns);
  double macro_area = 0;
  for (const auto& m : macros.macros) macro_area += m.area_um2;
  out << "synthesis (yosys onto liberty " << lib.name << "): logic area " << std::fixed << std::setprecision(1)
      << s.area_um2 << " um^2, " << s.cells << " cells; netlist " << s.netlist << "\n";
  for (const auto& m : macros.macros)
    out << "  memory macro " << m.block << " (" << m.bytes << " B, " << m.word_bits << "-bit rows; SRAM macro model, "
        << mo.node_nm << " nm): area " << m.area_um2 << " um^2, read " << std::setprecision(2) << m.read_pj
        << " pJ, write " << m.write_pj << " pJ, leakage " << std::setprecision(4) << m.leakage_mw << " mW\n"
        << std::setprecision(1);
  if (!macros.macros.empty()) out << "  total area " << s.area_um2 + macro_area << " um^2 (logic + macros)\n";
  out << "timing (OpenSTA): critical path " << std::setprecision(3) << t.arrival_ns << " ns + setup " << t.setup_ns
      << " ns: max clock " << std::setprecision(0) << t.max_clock_mhz() << " MHz; at the spec's " << g.spec.clock_mhz
      << " MHz the slack is " << std::setprecision(3) << t.slack_ns << " ns (" << (t.slack_ns >= 0 ? "met" : "VIOLATED")
      << ")" << (macros.macros.empty() ? "" : "; paths into and out of the macros are not timed") << "\n"
      << std::defaultfloat;
}

void add_macro_options(CLI::App* cmd, MacroOptions& mo) {
  cmd->add_option("--macro-threshold", mo.threshold_bytes, "buffers of at least this many bytes are SRAM macros")
      ->capture_default_str();
  cmd->add_option("--macro-node", mo.node_nm, "feature size (nm) of the SRAM macro model's area and energy")
      ->check(CLI::PositiveNumber)->capture_default_str();
}

// The controller's energy per event (fsgen train): its kernel windows and how well each
// training core is predicted with it left out.
void print_event_fit(const PrimitivePowerModel& p, std::ostream& out) {
  out << "  " << std::left << std::setw(18) << "" << std::right << p.event_quality.train_points
      << " kernel windows, energy per event (" << controller_events(p.kind).size() << " events)";
  if (p.event_quality.test_points > 0)
    out << "; each training core left out in turn: run energy MAPE " << std::setprecision(1) << p.event_quality.mape
        << " %, window R " << std::setprecision(3) << p.event_quality.pearson;
  out << "\n";
}

void print_model(const ModelConfig& m, std::ostream& out) {
  out << "model " << m.name << " (" << m.model_type << (m.encoder ? ", encoder" : ", decoder") << "), "
      << std::fixed << std::setprecision(3) << m.parameters() / 1e9 << "B parameters\n" << std::defaultfloat
      << "  layers " << m.layers << ", hidden " << m.hidden << ", heads " << m.heads << " query / " << m.kv_heads
      << " KV (" << (m.heads == m.kv_heads ? "MHA" : "GQA") << "), head_dim " << m.head_dim << ", attention width "
      << m.q_width() << (m.qk_norm ? ", QK-norm" : "") << "\n"
      << "  FFN " << m.ffn << ", " << (m.gated_ffn ? "gated " : "plain ") << m.activation << (m.biases ? ", biases" : "")
      << "; " << (m.layer_norm ? "LayerNorm" : "RMSNorm") << " (eps " << m.norm_eps << ", "
      << (m.post_norm ? "post-norm" : "pre-norm") << ")\n"
      << "  positions: " << (m.rope_theta > 0 ? "RoPE theta " + std::to_string(static_cast<long long>(m.rope_theta)) +
                                                   (m.rope_interleaved ? " (interleaved pairs)" : " (half-split pairs)")
                                             : std::string("learned, absolute"))
      << ", up to " << m.max_positions << (m.sliding_window ? ", sliding window " + std::to_string(m.sliding_window) : "")
      << "; vocab " << m.vocab << (m.tied_embeddings ? " (tied)" : "") << "\n"
      << "  KV cache per token: " << m.kv_cache_elements_per_token() << " elements (INT8: "
      << m.kv_cache_elements_per_token() << " B)\n";
}

// The synthetic operands' options; the distribution's name is resolved after parsing.
struct ValueOptions {
  std::string distribution = "uniform";
  SyntheticValues values;
  std::string zeros_in = "ab";  // matmul: operands that get --zeros and --pattern
  std::string pattern;          // matmul: N:M structured sparsity along k
  SyntheticValues resolved() const {
    SyntheticValues v = values;
    v.distribution = distribution_named(distribution, "--values");
    return v;
  }
};

// --pattern N:M, or none.
StructuredPattern pattern_of(const ValueOptions& o) {
  return o.pattern.empty() ? StructuredPattern{} : pattern_named(o.pattern, "--pattern");
}

MatmulProblem problem_from(unsigned m, unsigned n, unsigned k, unsigned long long seed, const ValueOptions& values) {
  MatmulProblem p;
  p.m = m;
  p.n = n;
  p.k = k;
  p.seed = seed;
  p.values = values.resolved();
  p.zeros_in_a = values.zeros_in.find('a') != std::string::npos;
  p.zeros_in_b = values.zeros_in.find('b') != std::string::npos;
  p.pattern = pattern_of(values);
  return p;
}

void add_value_options(CLI::App* cmd, ValueOptions& o) {
  cmd->add_option("--zeros", o.values.zero_fraction, "fraction of operand values that are zero")
      ->check(CLI::Range(0.0, 1.0))
      ->capture_default_str();
  cmd->add_option("--values", o.distribution, "operand values: uniform over INT8, or normal")
      ->check(CLI::IsMember({"uniform", "normal"}))
      ->capture_default_str();
  cmd->add_option("--sigma", o.values.sigma, "standard deviation of normal values, in INT8 codes")
      ->check(CLI::PositiveNumber)
      ->capture_default_str();
}

void add_problem_options(CLI::App* cmd, unsigned& m, unsigned& n, unsigned& k, unsigned long long& seed, ValueOptions& values) {
  cmd->add_option("--m", m, "rows of A and C")->capture_default_str();
  cmd->add_option("--n", n, "columns of B and C")->capture_default_str();
  cmd->add_option("--k", k, "reduction length")->capture_default_str();
  cmd->add_option("--seed", seed, "random operand seed")->capture_default_str();
  add_value_options(cmd, values);
  cmd->add_option("--zeros-in", values.zeros_in, "matmul: operands that get --zeros and --pattern: a, b or ab")
      ->check(CLI::IsMember({"a", "b", "ab"}))
      ->capture_default_str();
  cmd->add_option("--pattern", values.pattern,
                  "structured sparsity N:M along k (magnitude pruning), e.g. 2:4: matmul's --zeros-in operands, "
                  "attention's keys, the FFN's W1 and W3");
}

struct FfnOptions {
  unsigned ffn = 24;
  bool plain = false;
  std::string activation = "silu";
};

void add_ffn_options(CLI::App* cmd, FfnOptions& o) {
  cmd->add_option("--ffn", o.ffn, "ffn: FFN width (intermediate size)")->capture_default_str();
  cmd->add_flag("--ungated", o.plain, "ffn: plain act(X W1) W2 instead of the gated form");
  cmd->add_option("--activation", o.activation, "ffn: activation")->check(CLI::IsMember({"silu", "gelu"}))->capture_default_str();
}

struct AttentionOptions {
  std::string stage = "prefill";
  unsigned heads = 2, kv_heads = 1, tokens = 16, context = 16;
  bool no_residual = false;
};

void add_attention_options(CLI::App* cmd, AttentionOptions& o) {
  cmd->add_option("--stage", o.stage, "attention stage")->check(CLI::IsMember({"prefill", "decode"}))->capture_default_str();
  cmd->add_option("--heads", o.heads, "attention: query heads")->capture_default_str();
  cmd->add_option("--kv-heads", o.kv_heads, "attention: KV heads (GQA when fewer than query heads)")->capture_default_str();
  cmd->add_option("--tokens", o.tokens, "attention: sequence length (prefill) or new tokens (decode)")->capture_default_str();
  cmd->add_option("--context", o.context, "attention decode: tokens already in the KV cache")->capture_default_str();
  cmd->add_flag("--no-residual", o.no_residual, "attention: no residual add");
}

AttentionProblem attention_from(const AttentionOptions& o, unsigned long long seed, const ValueOptions& values) {
  AttentionProblem p;
  p.stage = o.stage == "decode" ? Stage::kDecode : Stage::kPrefill;
  p.q_heads = o.heads;
  p.kv_heads = o.kv_heads;
  p.tokens = o.tokens;
  p.context = p.stage == Stage::kDecode ? o.context : 0;
  p.residual = !o.no_residual;
  p.seed = seed;
  p.values = values.resolved();
  p.key_pattern = pattern_of(values);
  return p;
}

FfnProblem ffn_from(const FfnOptions& o, unsigned tokens, unsigned long long seed, const ValueOptions& values, bool residual) {
  FfnProblem p;
  p.tokens = tokens;
  p.ffn = o.ffn;
  p.gated = !o.plain;
  p.activation = o.activation;
  p.residual = residual;
  p.seed = seed;
  p.values = values.resolved();
  p.weight_pattern = pattern_of(values);
  return p;
}

struct ChosenKernel {
  Program program;
  std::vector<uint8_t> expected;
  double macs = 0;  // matmul only
};

struct ModelSimArgs {
  std::string model, layers = "all", mode = "fast", activity_csv;
  bool every_launch = false, json = false, tokens_given = false;
  uint64_t window = 0;
};

// Draws a progress bar on stderr once a run has taken more than two seconds.
class ProgressBar {
 public:
  void operator()(double fraction) {
    const double elapsed = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0_).count();
    if (elapsed < 2.0 || (fraction < 1.0 && elapsed - last_ < 0.25)) return;
    last_ = elapsed;
    const int width = 40, filled = int(fraction * width);
    std::cerr << "\r[" << std::string(size_t(filled), '#') << std::string(size_t(width - filled), ' ') << "] "
              << int(fraction * 100) << " %  " << int(elapsed) << " s" << (fraction >= 1.0 ? "\n" : "") << std::flush;
  }

 private:
  std::chrono::steady_clock::time_point t0_ = std::chrono::steady_clock::now();
  double last_ = 0;
};

int simulate_model_command(const Graph& g, const AttentionOptions& attn, const ModelSimArgs& a, const SyntheticValues& values,
                           uint64_t seed) {
  const ModelConfig m = model_config_by_name(a.model);
  ModelSimOptions o;
  o.stage = attn.stage == "decode" ? Stage::kDecode : Stage::kPrefill;
  o.context = attn.context;
  o.tokens = a.tokens_given ? attn.tokens : 1;
  if (a.layers != "all") {
    try {
      size_t used = 0;
      o.layers = static_cast<uint32_t>(std::stoul(a.layers, &used));
      if (used != a.layers.size() || o.layers == 0) throw std::invalid_argument("");
    } catch (const std::exception&) {
      fail("--layers", "expected a positive count or 'all', got '" + a.layers + "'");
    }
  }
  o.mode = a.mode == "cycle" ? SimMode::kCycle : SimMode::kFast;
  o.values = values;
  o.seed = seed;
  o.every_launch = a.every_launch;
  o.window = a.window ? a.window : (a.activity_csv.empty() ? 0 : 4096);
  ProgressBar bar;
  const ModelSimReport r = simulate_model(g, m, o, std::ref(bar));
  if (!a.activity_csv.empty()) write_file_atomically(a.activity_csv, "activity trace", [&](std::ostream& o) { write_activity_csv(r, o); });
  if (a.json)
    write_model_sim_json(r, std::cout);
  else
    print_model_sim(r, std::cout);
  return 0;
}

int run(int argc, char** argv) {
  CLI::App app{"fsgen: fused and sparse LLM accelerator generator, simulator and cross-checker"};
  app.require_subcommand(1);
  std::string spec_path, out_root = "rtl_out", kernel = "matmul";
  AttentionOptions attn;
  FfnOptions ffn;
  unsigned m = 32, n = 32, k = 32;
  unsigned long long seed = 1;
  ValueOptions value_opts;

  auto* check = app.add_subcommand("check", "validate a design spec and print its elaborated graph");
  check->add_option("spec", spec_path, "design spec (YAML)")->required();

  auto* gen = app.add_subcommand("generate", "write a design's Verilog into <out>/<design>/");
  gen->add_option("spec", spec_path, "design spec (YAML)")->required();
  gen->add_option("-o,--out", out_root, "output root folder")->capture_default_str();
  bool lint = false, synth = false;
  std::string liberty;
  gen->add_flag("--lint", lint, "also run verilator --lint-only -Wall");
  gen->add_flag("--synth", synth,
                "also map the design onto a liberty library (yosys) and time it (OpenSTA): area, cells, max clock");
  gen->add_option("--liberty", liberty, "liberty file (.lib or .lib.gz) for --synth; default: the built-in fsgen45");
  MacroOptions macro_opts;
  add_macro_options(gen, macro_opts);

  auto* sim = app.add_subcommand("simulate", "run a kernel on the design's SystemC/TLM-2.0 platform");
  sim->add_option("spec", spec_path, "design spec (YAML)")->required();
  sim->add_option("--kernel", kernel, "kernel to run")->check(CLI::IsMember({"matmul", "attention", "ffn"}))->capture_default_str();
  add_problem_options(sim, m, n, k, seed, value_opts);
  add_attention_options(sim, attn);
  add_ffn_options(sim, ffn);

  ModelSimArgs msim;
  sim->add_option("--model", msim.model, "simulate a model's layers: a name under workloads/ or a config.json");
  sim->add_option("--layers", msim.layers, "--model: layers to run, a count or 'all'")->capture_default_str();
  sim->add_option("--mode", msim.mode, "--model: fast (phases timed whole) or cycle (SystemC platform)")
      ->check(CLI::IsMember({"fast", "cycle"}))
      ->capture_default_str();
  sim->add_flag("--every-launch", msim.every_launch, "--model: simulate every launch, also those identical to earlier ones");
  sim->add_option("--window", msim.window, "--model --mode fast: activity window in cycles for --activity-out");
  sim->add_option("--activity-out", msim.activity_csv, "--model: write per-window block activity (CSV)");
  sim->add_flag("--json", msim.json, "--model: print the report as JSON");

  auto* comp = app.add_subcommand("compile", "compile a matmul for a design into a Program (JSON)");
  std::string program_out = "program.json";
  comp->add_option("spec", spec_path, "design spec (YAML)")->required();
  comp->add_option("--kernel", kernel, "kernel to compile")->check(CLI::IsMember({"matmul"}))->capture_default_str();
  comp->add_option("-o,--out", program_out, "program file to write")->capture_default_str();
  add_problem_options(comp, m, n, k, seed, value_opts);

  auto* cos = app.add_subcommand("cosim", "run a kernel on SystemC and on the Verilated RTL and compare them");
  cos->add_option("spec", spec_path, "design spec (YAML)")->required();
  cos->add_option("--kernel", kernel, "kernel to run")->check(CLI::IsMember({"matmul", "attention", "ffn"}))->capture_default_str();
  cos->add_option("-o,--out", out_root, "RTL output root folder")->capture_default_str();
  std::string cosim_vcd;
  cos->add_option("--vcd", cosim_vcd, "also write the RTL run's waveform (every signal, from the kernel's cycle 0) as a VCD");
  add_problem_options(cos, m, n, k, seed, value_opts);
  add_attention_options(cos, attn);
  add_ffn_options(cos, ffn);

  auto* bench = app.add_subcommand("bench", "simulated cycles per second: SystemC model against Verilator");
  std::vector<unsigned> sizes = {8, 16, 32};
  bench->add_option("--sizes", sizes, "PE array edge lengths")->capture_default_str();
  bench->add_option("-o,--out", out_root, "RTL output root folder")->capture_default_str();

  auto* study = app.add_subcommand("sparsity-study",
                                   "8x8 array over the sparse network combinations: cycles, speed-up, lanes, area, max clock");
  SparsityStudyOptions study_opts;
  std::string study_markdown;
  study->add_option("--batch", study_opts.batch, "rows of A (tokens)")->check(CLI::Range(8u, 4096u))->capture_default_str();
  study->add_option("--n", study_opts.n, "columns of B (multiple of 8)")->capture_default_str();
  study->add_option("--k", study_opts.k, "reduction length (multiple of 16)")->capture_default_str();
  study->add_option("--zeros", study_opts.zeros, "random zeros in both operands")->check(CLI::Range(0.0, 1.0))->capture_default_str();
  study->add_option("--seed", study_opts.seed, "operand seed")->capture_default_str();
  study->add_flag("--synth", study_opts.synth, "also synthesise each design (Yosys area, OpenSTA max clock)");
  study->add_option("--liberty", study_opts.liberty, "liberty for --synth; default: the built-in fsgen45");
  study->add_option("-o,--out", study_opts.work_dir, "folder for the designs' RTL and netlists")->capture_default_str();
  study->add_option("--markdown", study_markdown, "also write the table to this file");

  auto* numerics = app.add_subcommand("numerics", "error of the fixed-point attention pipeline against FP32");
  std::string model_path = "../shared/models/stories260K.bin";
  numerics->add_option("--model", model_path, "llama2.c checkpoint for real attention inputs")->capture_default_str();

  auto* model_cmd = app.add_subcommand("model", "print a model's layer structure (workloads/<name> or a config.json)");
  std::string model_name;
  model_cmd->add_option("model", model_name, "name under workloads/ or path of a Hugging Face config.json")->required();

  auto* infer = app.add_subcommand("infer",
                                   "run a llama2.c checkpoint through the design's SystemC platform (INT8) against FP32");
  InferenceOptions inf;
  std::string checkpoint = "../shared/models/stories260K.bin";
  bool rtl_replay = false;
  infer->add_option("spec", spec_path, "design spec (YAML)")->required();
  infer->add_option("--checkpoint", checkpoint, "llama2.c .bin checkpoint")->capture_default_str();
  infer->add_option("--prompt", inf.prompt, "tokens of the prefill step")->capture_default_str();
  infer->add_option("--generate", inf.generate, "decode steps after the prefill")->capture_default_str();
  infer->add_option("--layers", inf.layers, "layers to run (0: all)")->capture_default_str();
  infer->add_flag("--rtl", rtl_replay, "also replay layer 0 of the prefill on the Verilated RTL");
  infer->add_option("-o,--out", out_root, "RTL output root folder (--rtl)")->capture_default_str();
  std::string prune;
  infer->add_option("--prune", prune, "magnitude-prune the linear weights N:M along k (a sparse workload), e.g. 2:4");

  auto* charz = app.add_subcommand("characterize",
                                   "gate-level power of the graph's primitives over sizes and activities, into a dataset");
  CharacterizeOptions copt;
  std::string dataset = "power_dataset.csv";
  charz->add_option("-o,--out", dataset, "dataset file (CSV); an existing one is resumed")->capture_default_str();
  charz->add_option("--liberty", copt.liberty, "liberty file (.lib or .lib.gz); default: the built-in fsgen45");
  charz->add_option("--kinds", copt.kinds, "primitives to characterise (default: all)");
  charz->add_option("--cycles", copt.cycles, "cycles per stimulus")->capture_default_str();
  charz->add_option("--seed", copt.seed, "first stimulus seed")->capture_default_str();
  charz->add_option("--jobs", copt.jobs, "gate-level simulations in parallel")->capture_default_str();
  charz->add_option("--work", copt.work_dir, "folder for netlists and builds (default: <out>.work)");
  charz->add_option("--max-elements", copt.max_elements, "only sizes with at most this many processing elements (0: all)")
      ->capture_default_str();
  charz->add_option("--sizes", copt.sizes, "only these catalog sizes, the hyperparameters joined by x (2x4; default: all)");
  charz->add_flag("--small", copt.small_grid, "the two smallest sizes and 8 stimuli per primitive");
  bool no_kernel_runs = false;
  charz->add_flag("--no-kernel-runs", no_kernel_runs,
                  "the controllers' sizes alone (their clock, leakage and area), not their training cores' kernel runs");
  bool recount_events = false;
  charz->add_flag("--recount-events", recount_events,
                  "instead of characterising: count the events of the dataset's controller kernel points again from "
                  "their training kernels' SystemC runs (labels kept), after a change of the events' definitions");

  auto* train = app.add_subcommand("train", "train the XGBoost power model of every primitive in a dataset");
  std::string model_out = "power_model.json";
  int rounds = 200;
  train->add_option("dataset", dataset, "characterisation dataset (CSV) from fsgen characterize")->required();
  train->add_option("-o,--out", model_out, "power model file (JSON)")->capture_default_str();
  train->add_option("--rounds", rounds, "boosting rounds")->check(CLI::PositiveNumber)->capture_default_str();

  auto* pow = app.add_subcommand("power", "a kernel's power from the trained primitive models: by block, and a trace");
  std::string power_model = "power_model.json", csv_out, vcd_out, png_out;
  uint64_t window = 256;
  pow->add_option("spec", spec_path, "design spec (YAML)")->required();
  pow->add_option("--kernel", kernel, "kernel to run")->check(CLI::IsMember({"matmul", "attention", "ffn"}))->capture_default_str();
  add_problem_options(pow, m, n, k, seed, value_opts);
  add_attention_options(pow, attn);
  add_ffn_options(pow, ffn);
  pow->add_option("--power-model", power_model, "power model (JSON) from fsgen train")->capture_default_str();
  pow->add_option("--window", window, "trace window in cycles")->check(CLI::PositiveNumber)->capture_default_str();
  pow->add_option("--csv", csv_out, "write the trace as CSV (mW per block per window)");
  pow->add_option("--vcd", vcd_out, "write the trace as a VCD of real-valued signals (GTKWave)");
  pow->add_option("--png", png_out, "draw the trace as a PNG (gnuplot)");
  bool golden = false;
  pow->add_flag("--golden", golden, "also compute the arrays' gate-level golden power on the same run (slow)");
  bool whole_core = false;
  pow->add_flag("--whole-core", whole_core,
                "--golden: replay the whole core: also the structural primitives (a matmul core's controller and "
                "register file) and the blocks without a model (the controller's synthesis and build take minutes)");
  pow->add_option("--liberty", liberty, "the power model's liberty (memory macros, --golden); default: the built-in fsgen45");
  add_macro_options(pow, macro_opts);
  pow->add_option("-o,--out", out_root, "output root folder: the liberty copy, and the RTL and gate-level builds of --golden")
      ->capture_default_str();
  std::string record_path, record_name, golden_csv, golden_signals;
  pow->add_option("--golden-csv", golden_csv, "--golden: write the predicted and golden traces per block and window (CSV)");
  pow->add_option("--golden-signals", golden_signals,
                  "--golden: write each replayed block's dynamic energy by RTL signal, a register or port with the "
                  "logic behind it (CSV)");
  pow->add_option("--record", record_path, "--golden: append the blocks' validation records to this CSV");
  pow->add_option("--record-name", record_name, "--record: the design's name in the records (default: the spec's)");

  auto* pval = app.add_subcommand("power-validate",
                                  "score the power model and the baselines on validation records against golden");
  std::string png_validate, markdown_out;
  pval->add_option("records", record_path, "validation records (CSV) from fsgen power --golden --record")->required();
  pval->add_option("--dataset", dataset, "the characterisation dataset the baselines are calibrated on")->required();
  pval->add_option("--png", png_validate, "draw predicted against golden per design as a PNG (gnuplot)");
  pval->add_option("--markdown", markdown_out, "also write the tables to this Markdown file");

  CLI11_PARSE(app, argc, argv);

  if (train->parsed()) {
    const auto t0 = std::chrono::steady_clock::now();
    const PowerModel pm = train_power_model(read_dataset(dataset), rounds);
    save_power_model(pm, model_out);
    const double s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    std::cout << "power model (XGBoost, one regressor per primitive) from " << dataset << ", trained in " << std::fixed
              << std::setprecision(2) << s << " s:\n";
    for (const auto& [kind, p] : pm.primitives) {
      std::cout << "  " << std::left << std::setw(18) << kind << std::right << p.quality.train_points;
      const bool structural = primitive_def(kind).structural();
      if (structural)
        std::cout << (p.quality.train_points == 1 ? " size, structural (its clock energy, leakage and area)"
                                                   : " sizes, structural (clock energy, leakage and area fitted over them)");
      else std::cout << " points, " << p.quality.test_points << " held out";
      if (!structural || p.quality.test_points > 0)
        std::cout << (structural ? "; each size left out in turn: idle energy" : ": dynamic energy") << " MAPE "
                  << std::setprecision(1) << p.quality.mape << " %, R " << std::setprecision(3) << p.quality.pearson;
      std::cout << "\n";
      if (!p.event_fj.b.empty()) print_event_fit(p, std::cout);
    }
    std::cout << "wrote " << model_out << "\n" << std::defaultfloat;
    return 0;
  }

  if (pval->parsed()) {
    const ValidationSummary v = summarise_validation(read_validation_records(record_path), read_dataset(dataset));
    std::cout << "power validation of " << record_path << " (golden: gate-level replay of the RTL's stimulus; "
              << "baselines calibrated on " << dataset << ")\n\n";
    print_validation(v, std::cout);
    if (!markdown_out.empty()) write_file_atomically(markdown_out, "validation report", [&](std::ostream& o) { print_validation(v, o); });
    if (!png_validate.empty()) plot_validation_png(v, png_validate), std::cout << "wrote " << png_validate << "\n";
    return 0;
  }

  if (charz->parsed() && recount_events) {
    const RecountSummary sum = recount_kernel_events(dataset);
    std::cout << "wrote " << dataset << ": the events of " << sum.points << " kernel points of " << sum.runs
              << " training kernel runs counted again (labels kept)\n";
    return 0;
  }
  if (charz->parsed()) {
    if (copt.work_dir.empty()) copt.work_dir = dataset + ".work";
    copt.kernel_runs = !no_kernel_runs;
    const auto t0 = std::chrono::steady_clock::now();
    const CharacterizeSummary sum = characterize(copt, dataset, [&](uint64_t done, uint64_t total) {
      const double s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
      std::cerr << "\rcharacterise: " << done << " of " << total << " stimuli, " << int(s) << " s" << std::flush;
    });
    std::cerr << "\n";
    std::cout << "wrote " << dataset << ": " << sum.added << " points added, " << sum.skipped << " stimuli already there\n";
    return 0;
  }
  const SyntheticValues values = value_opts.resolved();

  if (infer->parsed()) {
    const Graph g = elaborate(parse_spec_file(spec_path));
    const Llama2cModel model(checkpoint);
    if (rtl_replay) inf.rtl_root = out_root;
    if (!prune.empty()) inf.prune = pattern_named(prune, "--prune");
    InferenceReport r = run_inference(g, model, inf);
    r.model = std::filesystem::path(checkpoint).filename().string();
    print_inference(r, std::cout);
    print_sparsity(g, r.sparse, r.cycles, std::cout);
    bool rtl_ok = true;
    for (const auto& rep : r.rtl) rtl_ok = rtl_ok && rep.pass();
    return r.mismatches == 0 && rtl_ok ? 0 : 1;
  }

  if (model_cmd->parsed()) {
    print_model(model_config_by_name(model_name), std::cout);
    return 0;
  }

  if (check->parsed()) {
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
  if (gen->parsed()) {
    const Graph g = elaborate(parse_spec_file(spec_path));
    const std::string dir = write_design(g, (std::filesystem::path(out_root) / g.spec.name).string());
    print_graph(g, std::cout);
    std::cout << "wrote " << dir << "/\n";
    int status = 0;
    if (lint) {
      const CommandResult r = lint_verilog(dir);
      std::cout << "verilator --lint-only -Wall: " << (r.status == 0 ? "clean" : "FAILED") << "\n";
      if (r.status) std::cout << r.output, status = 1;
    }
    if (synth) print_synthesis(g, dir, liberty, macro_opts, std::cout);
    return status;
  }
  if (sim->parsed() && !msim.model.empty()) {
    msim.tokens_given = sim->count("--tokens") > 0;
    return simulate_model_command(elaborate(parse_spec_file(spec_path)), attn, msim, values, seed);
  }
  auto compile_chosen = [&](const Graph& g) {
    ChosenKernel c;
    if (kernel == "attention") {
      CompiledAttention a = compile_attention(g, attention_from(attn, seed, value_opts));
      c.program = std::move(a.program);
      c.expected = std::move(a.expected);
    } else if (kernel == "ffn") {
      CompiledFfn f = compile_ffn(g, ffn_from(ffn, attn.tokens, seed, value_opts, !attn.no_residual));
      c.program = std::move(f.program);
      c.expected = std::move(f.expected);
    } else {
      const MatmulProblem prob = problem_from(m, n, k, seed, value_opts);
      c.program = compile_matmul(g, prob);
      c.expected = matmul_expected(c.program, prob);
      c.macs = double(m) * n * k;
    }
    return c;
  };
  if (pow->parsed()) {
    if (!golden && !record_path.empty()) fail("--record", "records need the golden power: add --golden");
    if (!golden && !golden_csv.empty()) fail("--golden-csv", "the golden trace needs the golden power: add --golden");
    if (!golden && !golden_signals.empty()) fail("--golden-signals", "the energy by signal needs the golden power: add --golden");
    if (!golden && whole_core) fail("--whole-core", "replaying the whole core needs --golden");
    const Graph g = elaborate(parse_spec_file(spec_path));
    const PowerModel pm = load_power_model(power_model);
    const Program prog = compile_chosen(g).program;
    const std::string lib_name = liberty.empty() ? "fsgen45" : std::filesystem::path(liberty).stem().string();
    const std::string work = (std::filesystem::path(out_root) / "golden_power" / lib_name).string();
    std::filesystem::create_directories(work);
    std::optional<FolderLock> replaying;  // the golden replays' builds and stimulus files are this run's
    if (golden) replaying.emplace(work, "fsgen power --golden run");
    const Liberty lib = prepare_liberty(liberty, work);
    pm.require_liberty(lib.name);
    const DesignMacros macros = design_macros(g, macro_technology(read_liberty_file(lib.path), macro_opts.node_nm), macro_opts);
    const PowerTrace t = estimate_power(g, prog, pm, window, macros);
    print_power(t, std::cout);
    if (golden) {
      // Without --whole-core, the blocks of the primitives with activity models: the
      // structural ones (a matmul core's controller, the register file) have a core's
      // largest gate-level builds. Memory macros have no logic to replay. A block without a
      // model is replayed for its golden power alone: a primitive the model lacks (the
      // softmax unit), and with --whole-core the blocks no primitive covers.
      auto replayed_without_whole_core = [](const std::string& kind) {
        const auto& c = primitive_catalog();
        return std::any_of(c.begin(), c.end(), [&](const PrimitiveDef& d) { return d.kind == kind && !d.structural(); });
      };
      std::vector<std::string> replayed;
      for (const auto& b : t.blocks)
        if (b.kind != "sram_macro" && (whole_core || replayed_without_whole_core(b.kind))) replayed.push_back(b.block);
      for (const auto& b : t.not_modelled)
        if (block_instance(g, b) && (whole_core || replayed_without_whole_core(g.block(b).kind))) replayed.push_back(b);
      const auto golden_power = golden_block_power(g, prog, replayed, liberty, out_root, work);
      const auto comparison = compare_to_golden(t, golden_power, pm);
      const TraceAgreement together = design_trace_agreement(t, golden_power);
      print_golden_comparison(comparison, together, std::cout);
      print_golden_unmodelled(t, golden_power, std::cout);
      if (!golden_csv.empty())
        write_file_atomically(golden_csv, "golden power trace", [&](std::ostream& o) { write_golden_trace_csv(t, golden_power, o); });
      if (!golden_signals.empty())
        write_file_atomically(golden_signals, "golden energy by signal",
                              [&](std::ostream& o) { write_golden_signals_csv(golden_power, o); });
      if (!record_path.empty())
        append_validation_records(record_path,
                                  validation_records(record_name.empty() ? g.spec.name : record_name, t, comparison, together,
                                                     golden_power));
    }
    if (!csv_out.empty() || !png_out.empty()) {
      const std::string csv = csv_out.empty() ? png_out + ".csv" : csv_out;
      write_file_atomically(csv, "power trace", [&](std::ostream& o) { write_power_csv(t, o); });
      if (!png_out.empty()) plot_power_png(t, csv, png_out);
      if (csv_out.empty()) std::filesystem::remove(csv);
    }
    if (!vcd_out.empty()) write_file_atomically(vcd_out, "power waveform", [&](std::ostream& o) { write_power_vcd(t, o); });
    return 0;
  }
  if (sim->parsed()) {
    const Graph g = elaborate(parse_spec_file(spec_path));
    const ChosenKernel chosen = compile_chosen(g);
    const Program& prog = chosen.program;
    const std::vector<uint8_t>& expected = chosen.expected;
    const double macs = chosen.macs;
    RunResult r = run_on_systemc(g, prog);
    const bool ok = r.outputs.at(prog.outputs.front().name) == expected;
    std::cout << "model: fsgen SystemC/TLM-2.0 platform, design " << g.spec.name << ", " << prog.kernel << "\n"
              << "  cycles            " << r.cycles << "  (" << std::fixed << std::setprecision(3)
              << r.cycles / g.spec.clock_mhz << " us at " << g.spec.clock_mhz << " MHz)\n"
              << std::setprecision(1);
    if (macs > 0) {
      const uint32_t pes = g.array_a.spec.pe_count() + (g.matmul_on_both ? g.array_b_matmul.spec.pe_count() : 0);
      std::cout << "  PE utilisation    " << 100.0 * macs / (double(r.cycles) * pes) << " %  (" << macs << " MACs on "
                << pes << (g.matmul_on_both ? " PEs of arrays a and b)\n" : " PEs of array a)\n");
    }
    for (const char* block : {"array_a", "array_b", "softmax"}) {
      if (!r.activity.count(block)) continue;
      const BlockActivity& act = r.activity.at(block);
      std::cout << "  " << std::left << std::setw(18) << (std::string(block) + " busy") << 100.0 * act.busy_cycles / r.cycles
                << " % of cycles";
      if (act.operand_bytes) std::cout << ", operand zeros " << 100.0 * act.zero_bytes / act.operand_bytes << " %";
      std::cout << "\n";
    }
    for (const char* cache : {"k_cache", "v_cache"}) {
      if (!r.activity.count(cache)) continue;
      const BlockActivity& act = r.activity.at(cache);
      std::cout << "  " << std::left << std::setw(18) << (std::string(cache) + " hits") << act.hits << " of "
                << act.hits + act.misses << " tile reads, " << act.operand_bytes << " B not fetched\n";
    }
    print_sparsity(g, r.sparse, r.cycles, std::cout);
    std::cout << "  DMA busy          " << 100.0 * r.activity["dma"].busy_cycles / r.cycles << " % of cycles, "
              << r.activity["dma"].operand_bytes << " B moved\n";
    if (g.sparse.timing_depends_on_data()) {
      std::cout << "  fast model        not for value-sparse designs (tile times depend on the data)\n";
    } else {
      const FastRun fast = run_fast(g, registers_at_start(prog));
      std::cout << "  fast model        " << fast.result.cycles << " cycles, " << std::showpos << std::setprecision(3)
                << 100.0 * (double(fast.result.cycles) - double(r.cycles)) / double(r.cycles) << std::noshowpos
                << " % from the cycle model" << std::setprecision(1) << "\n";
    }
    std::cout << "  output vs reference: " << (ok ? "bit-exact" : "MISMATCH") << "\n"
              << "  toggles per probed port:\n";
    for (const auto& p : r.probes)
      std::cout << "    " << std::left << std::setw(18) << (p.block() + "." + p.port()) << p.toggles() << "\n";
    std::cout << "  simulated " << std::setprecision(2) << std::scientific << r.cycles / r.wall_seconds
              << " cycles/s\n";
    return ok ? 0 : 1;
  }
  if (comp->parsed()) {
    const Graph g = elaborate(parse_spec_file(spec_path));
    const Program prog = compile_matmul(g, problem_from(m, n, k, seed, value_opts));
    save_program(prog, program_out);
    std::cout << "wrote " << program_out << ": " << prog.kernel << " for design " << g.spec.name << ", "
              << prog.writes.size() << " register writes, " << prog.inputs.size() << " input regions\n";
    return 0;
  }
  if (cos->parsed()) {
    const Graph g = elaborate(parse_spec_file(spec_path));
    const CosimReport rep =
        kernel == "attention" ? cosim_attention(g, attention_from(attn, seed, value_opts), out_root, cosim_vcd)
        : kernel == "ffn" ? cosim_ffn(g, ffn_from(ffn, attn.tokens, seed, value_opts, !attn.no_residual), out_root, cosim_vcd)
                          : cosim_matmul(g, problem_from(m, n, k, seed, value_opts), out_root, cosim_vcd);
    print_cosim(rep, std::cout);
    if (!cosim_vcd.empty()) std::cout << "wrote " << cosim_vcd << " (the RTL run's waveform)\n";
    return rep.pass() ? 0 : 1;
  }
  if (numerics->parsed()) {
    std::string skipped;
    const auto rows = measure_attention_error(model_path, skipped);
    print_numerics(rows, skipped, std::cout);
    return 0;
  }
  if (bench->parsed()) {
    print_bench(run_bench(sizes, out_root, std::cerr), std::cout);
    return 0;
  }
  if (study->parsed()) {
    if (study_opts.batch % 8 || study_opts.n % 8 || study_opts.k % 16)
      fail("sparsity-study", "expected --batch and --n multiples of 8 and --k a multiple of 16 (the 8x8x16 tile)");
    const SparsityStudy s = run_sparsity_study(study_opts, [](const std::string& m) { std::cerr << "  " << m << "\n"; });
    print_sparsity_study(s, std::cout);
    if (!study_markdown.empty())
      write_file_atomically(study_markdown, "sparsity study", [&](std::ostream& o) { print_sparsity_study(s, o); });
    return 0;
  }
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  try {
    return run(argc, argv);
  } catch (const fsgen::UserError& e) {
    std::cerr << "fsgen: error: " << e.what() << "\n";
    return 1;
  }
}
