// Lowering of one fused attention layer (all heads of one sequence) onto a design
// with the attention kernel: Q, K, V, residual and O placed in off-chip memory,
// the attention registers programmed. Prefill runs every query row against the
// keys so far (causal); decode runs the new rows against the KV cache, whose K and
// V rows of earlier tokens are read, not regenerated.
#pragma once
#include <cstdint>
#include <string>
#include <vector>

#include "compiler/program.h"
#include "compiler/synthetic.h"
#include "core/attention_numerics.h"
#include "generator/graph.h"

namespace fsgen {

enum class Stage { kPrefill, kDecode };

struct AttentionProblem {
  Stage stage = Stage::kPrefill;
  uint32_t q_heads = 2;
  uint32_t kv_heads = 2;     // q_heads / kv_heads query heads share a KV head (GQA); equal = MHA
  uint32_t tokens = 16;      // prefill: sequence length; decode: new tokens (usually 1)
  uint32_t context = 0;      // decode: tokens already in the KV cache before the new ones
  uint32_t kv_capacity = 0;  // rows per head reserved in the KV cache (0: exactly the keys used)
  bool residual = true;
  bool causal = true;        // false: every query sees every key (encoders)
  // The head dim, zero-padded to whole tiles of tiling.k (0: one tile). Above one tile the
  // kernel reduces S = Q K^T over the head dim's tiles and produces O one column block of
  // tiling.k at a time, re-running the key loop for each (tiles_k = the tiles).
  uint32_t head_dim = 0;
  double score_scale = 0;    // real factor from S = Q K^T to the logits; 0: synthetic codes of x / 64
  uint64_t seed = 1;
  SyntheticValues values;  // how the synthetic operands are drawn
  StructuredPattern key_pattern;  // synthetic keys pruned N:M along the head dim
};

struct CompiledAttention {
  Program program;
  std::vector<uint8_t> expected;  // reference O, [head][row][head_dim] (empty for a layout-only program)
  num::AttentionParams params;    // per-head shape and score scaling
};

// Synthetic operands (seed, zero fraction), or only the layout.
CompiledAttention compile_attention(const Graph& g, const AttentionProblem& p,
                                     Materialise what = Materialise::kOperands);

// Given operands, INT8 codes with head_dim zero-padded to whole tiles of tiling.k (d): Q and
// the residual X [q_head][row][d], K and V [kv_head][kv_capacity][d].
struct AttentionOperands {
  std::vector<int8_t> q, k, v, x;
};
CompiledAttention compile_attention(const Graph& g, const AttentionProblem& p, const AttentionOperands& ops);

// Why the design cannot run attention over `head_tiles` tiles of the head dim, or "": the query
// tile's head tiles (and a residual's) must fit buffer a's tile slots, and block TopK ranks
// key tiles by one tile of the head dim.
std::string head_tiles_unsupported_why(const Graph& g, uint32_t head_tiles, bool residual);

}  // namespace fsgen
