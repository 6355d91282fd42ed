#include "cli/options.h"

#include "compiler/traffic.h"
#include "core/ffn_numerics.h"

namespace fsgen::cli {

namespace {
// --pattern N:M, or none.
StructuredPattern pattern_of(const ValueOptions& o) {
  return o.pattern.empty() ? StructuredPattern{} : pattern_named(o.pattern, "--pattern");
}
}  // namespace

void add_spec_argument(CLI::App* cmd, std::string& spec_path) {
  cmd->add_option("spec", spec_path, "design spec (YAML)")->required();
}

SyntheticValues ValueOptions::resolved() const {
  SyntheticValues v = values;
  v.distribution = distribution_named(distribution, "--values");
  return v;
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

void add_attention_options(CLI::App* cmd, AttentionOptions& o) {
  cmd->add_option("--stage", o.stage, "attention stage")
      ->check(CLI::IsMember({"prefill", "decode"}))
      ->capture_default_str();
  cmd->add_option("--heads", o.heads, "attention: query heads")->capture_default_str();
  cmd->add_option("--kv-heads", o.kv_heads, "attention: KV heads (GQA when fewer than query heads)")
      ->capture_default_str();
  cmd->add_option("--tokens", o.tokens, "attention: sequence length (prefill) or new tokens (decode)")
      ->capture_default_str();
  cmd->add_option("--context", o.context, "attention decode: tokens already in the KV cache")->capture_default_str();
  cmd->add_flag("--no-residual", o.no_residual, "attention: no residual add");
  cmd->add_option("--head-dim", o.head_dim,
                  "attention: head dim, zero-padded to whole tiles of tiling.k (0: one tile); above one tile the "
                  "kernel reduces S over the head dim's tiles and stores O one column block at a time")
      ->capture_default_str();
}

void add_ffn_options(CLI::App* cmd, FfnOptions& o) {
  cmd->add_option("--ffn", o.ffn, "ffn: FFN width (intermediate size)")->capture_default_str();
  cmd->add_flag("--ungated", o.plain, "ffn: plain act(X W1) W2 instead of the gated form");
  cmd->add_option("--activation", o.activation, "ffn: activation")
      ->check(CLI::IsMember(num::activation_names()))
      ->capture_default_str();
}

void add_kernel_choice(CLI::App* cmd, KernelOptions& o, const std::vector<std::string>& kernels) {
  cmd->add_option("--kernel", o.kernel, "kernel to run")->check(CLI::IsMember(kernels))->capture_default_str();
}

namespace {

// none, each activation, and each as gated-<activation>.
std::vector<std::string> epilogue_choices() {
  std::vector<std::string> c{"none"};
  for (const auto& a : num::activation_names()) c.push_back(a);
  for (const auto& a : num::activation_names()) c.push_back("gated-" + a);
  return c;
}

}  // namespace

void add_problem_options(CLI::App* cmd, KernelOptions& o) {
  const std::string given = " (default: 32, rounded up to a multiple of the design's tile)";
  const CLI::Validator positive(
      [](std::string& v) { return v.find_first_not_of("0+") == std::string::npos ? "expected a positive size" : ""; },
      "");
  cmd->add_option("--m", o.m, "rows of A and C" + given)->check(positive);
  cmd->add_option("--n", o.n, "columns of B and C" + given)->check(positive);
  cmd->add_option("--k", o.k, "reduction length" + given)->check(positive);
  cmd->add_option("--epilogue", o.epilogue,
                  "matmul: the activation unit on each stored row (a fused core): act(requant(A B)), or gated: B holds "
                  "W1's n columns then W3's, C = requant(act(u) x requant(g))")
      ->check(CLI::IsMember(epilogue_choices()))
      ->capture_default_str();
  cmd->add_option("--seed", o.seed, "random operand seed")->capture_default_str();
  add_value_options(cmd, o.values);
  cmd->add_option("--zeros-in", o.values.zeros_in, "matmul: operands that get --zeros and --pattern: a, b or ab")
      ->check(CLI::IsMember({"a", "b", "ab"}))
      ->capture_default_str();
  cmd->add_option("--pattern", o.values.pattern,
                  "structured sparsity N:M along k (magnitude pruning), e.g. 2:4: matmul's --zeros-in operands, "
                  "attention's keys, the FFN's W1 and W3");
}

MatmulProblem matmul_problem(const KernelOptions& o, const Graph& g) {
  auto dim = [](unsigned given, uint32_t tile) { return given != 0 ? given : (32 + tile - 1) / tile * tile; };
  MatmulProblem p;
  p.m = dim(o.m, g.array_a.spec.tile_m);
  p.n = dim(o.n, g.matmul_tile_n());
  p.k = dim(o.k, g.array_a.spec.tile_k);
  p.seed = o.seed;
  p.values = o.values.resolved();
  p.zeros_in_a = o.values.zeros_in.find('a') != std::string::npos;
  p.zeros_in_b = o.values.zeros_in.find('b') != std::string::npos;
  p.pattern = pattern_of(o.values);
  if (o.epilogue != "none") {
    const std::string gated = "gated-";
    p.epilogue.gated = o.epilogue.rfind(gated, 0) == 0;
    p.epilogue.activation = p.epilogue.gated ? o.epilogue.substr(gated.size()) : o.epilogue;
  }
  return p;
}

AttentionProblem attention_problem(const KernelOptions& o) {
  const AttentionOptions& a = o.attention;
  AttentionProblem p;
  p.stage = a.stage == "decode" ? Stage::kDecode : Stage::kPrefill;
  p.q_heads = a.heads;
  p.kv_heads = a.kv_heads;
  p.tokens = a.tokens;
  p.head_dim = a.head_dim;
  p.context = p.stage == Stage::kDecode ? a.context : 0;
  p.residual = !a.no_residual;
  p.seed = o.seed;
  p.values = o.values.resolved();
  p.key_pattern = pattern_of(o.values);
  return p;
}

FfnProblem ffn_problem(const KernelOptions& o) {
  FfnProblem p;
  p.tokens = o.attention.tokens;
  p.ffn = o.ffn.ffn;
  p.gated = !o.ffn.plain;
  p.activation = o.ffn.activation;
  p.residual = !o.attention.no_residual;
  p.seed = o.seed;
  p.values = o.values.resolved();
  p.weight_pattern = pattern_of(o.values);
  return p;
}

namespace {

// The share of an operand's values that are zero: drawn zero, or, when `pruned`, among those
// drawn non-zero, pruned by the N:M pattern (M - N of every M values).
double zero_share(const ValueOptions& v, bool gets_zeros, bool pruned) {
  if (!gets_zeros) return 0;
  const double drawn = v.values.zero_fraction;
  const StructuredPattern p = pattern_of(v);
  return p.active() && pruned ? drawn + (1 - drawn) * double(p.m - p.n) / double(p.m) : drawn;
}

}  // namespace

ChosenKernel compile_kernel(const Graph& g, const KernelOptions& o) {
  ChosenKernel c;
  // A matmul's --zeros-in operands get the zeros and the pattern; attention's keys and the
  // FFN's weights (operand B) the pattern, every operand the zeros.
  const bool mm = o.kernel == "matmul";
  const bool a_zeros = !mm || o.values.zeros_in.find('a') != std::string::npos;
  const bool b_zeros = !mm || o.values.zeros_in.find('b') != std::string::npos;
  c.zeros = {zero_share(o.values, a_zeros, mm), zero_share(o.values, b_zeros, true)};
  if (o.kernel == "attention") {
    const AttentionProblem p = attention_problem(o);
    CompiledAttention a = compile_attention(g, p);
    c.program = std::move(a.program);
    c.expected = std::move(a.expected);
    c.least_bytes = least_traffic_bytes(p, g.spec.array_a.tile_k);
  } else if (o.kernel == "ffn") {
    const FfnProblem p = ffn_problem(o);
    CompiledFfn f = compile_ffn(g, p);
    c.program = std::move(f.program);
    c.expected = std::move(f.expected);
    c.least_bytes = least_traffic_bytes(p, g.spec.array_a.tile_k);
  } else {
    const MatmulProblem prob = matmul_problem(o, g);
    c.program = compile_matmul(g, prob);
    c.expected = matmul_expected(c.program, prob);
    c.macs = double(prob.m) * prob.b_columns() * prob.k;
    c.least_bytes = least_traffic_bytes(prob);
  }
  return c;
}

void add_macro_options(CLI::App* cmd, MacroOptions& mo) {
  cmd->add_option("--macro-threshold", mo.threshold_bytes, "buffers of at least this many bytes are SRAM macros")
      ->capture_default_str();
  cmd->add_option("--macro-node", mo.node_nm, "feature size (nm) of the SRAM macro model's area and energy")
      ->check(CLI::PositiveNumber)
      ->capture_default_str();
}

}  // namespace fsgen::cli
