// Option groups shared by several subcommands: the kernel and its problem (matmul,
// attention, FFN), the synthetic operands, the SRAM macro model. Each group is a struct
// with its defaults and a function that declares its options on a subcommand.
#pragma once
#include <CLI/CLI.hpp>
#include <string>
#include <vector>

#include "compiler/attention.h"
#include "compiler/ffn.h"
#include "compiler/matmul.h"
#include "compiler/program.h"
#include "compiler/synthetic.h"
#include "generator/graph.h"
#include "models/fast_model.h"
#include "power/memory_macro.h"

namespace fsgen::cli {

// The design spec, the positional argument of every command that reads one.
void add_spec_argument(CLI::App* cmd, std::string& spec_path);

// The synthetic operands; the distribution's name is resolved after parsing.
struct ValueOptions {
  std::string distribution = "uniform";
  SyntheticValues values;
  std::string zeros_in = "ab";  // matmul: operands that get --zeros and --pattern
  std::string pattern;          // matmul: N:M structured sparsity along k
  SyntheticValues resolved() const;
};
void add_value_options(CLI::App* cmd, ValueOptions& o);

struct AttentionOptions {
  std::string stage = "prefill";
  unsigned heads = 2, kv_heads = 1, tokens = 16, context = 16;
  unsigned head_dim = 0;  // 0: one tile of tiling.k
  bool no_residual = false;
};
void add_attention_options(CLI::App* cmd, AttentionOptions& o);

struct FfnOptions {
  unsigned ffn = 24;
  bool plain = false;
  std::string activation = "silu";
};
void add_ffn_options(CLI::App* cmd, FfnOptions& o);

// One kernel and its problem: which kernel, the matmul's shape, the seed, the operands, and
// the attention and FFN options.
struct KernelOptions {
  std::string kernel = "matmul";
  unsigned m = 0, n = 0, k = 0;   // 0: not given (matmul_problem picks the design's default)
  std::string epilogue = "none";  // matmul: none, silu, gelu, gated-silu, gated-gelu
  unsigned long long seed = 1;
  ValueOptions values;
  AttentionOptions attention;
  FfnOptions ffn;
};
// --kernel with the given choices.
void add_kernel_choice(CLI::App* cmd, KernelOptions& o, const std::vector<std::string>& kernels);
// The matmul's shape, the seed and the operands' options.
void add_problem_options(CLI::App* cmd, KernelOptions& o);

// The matmul of --m, --n, --k on design g; one not given is 32 rounded up to a multiple of
// g's tile in that dimension (llm_16x16's k tile is 128).
MatmulProblem matmul_problem(const KernelOptions& o, const Graph& g);
AttentionProblem attention_problem(const KernelOptions& o);
FfnProblem ffn_problem(const KernelOptions& o);

// The chosen kernel compiled for a design, with its reference output.
struct ChosenKernel {
  Program program;
  std::vector<uint8_t> expected;
  double macs = 0;          // matmul only
  uint64_t least_bytes = 0;  // least off-chip traffic (compiler/traffic.h)
  OperandZeros zeros;        // the operands' zero shares as drawn (the fast model's statistics)
};
ChosenKernel compile_kernel(const Graph& g, const KernelOptions& o);

void add_macro_options(CLI::App* cmd, MacroOptions& mo);

}  // namespace fsgen::cli
