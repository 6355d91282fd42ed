// A model's layer structure, read from a Hugging Face config.json (workloads/ holds the
// configs of the models fsgen ships with; a user's own config.json works the same way).
//
// The fields that change what a layer computes are checked: a value fsgen does not
// lower (another activation, RoPE scaling, biases on a decoder, Qwen's per-layer sliding
// windows, ...) is a UserError naming the file, the field and what is supported. Fields
// that do not change the computation (dropouts, token ids, dtypes) are ignored.
#pragma once
#include <cstdint>
#include <ostream>
#include <string>

namespace fsgen {

struct ModelConfig {
  std::string name;        // the config's folder name (or file stem)
  std::string model_type;  // bert, llama, mistral, qwen3
  uint32_t hidden = 0, heads = 0, kv_heads = 0, head_dim = 0, ffn = 0, layers = 0;
  uint32_t vocab = 0, max_positions = 0;
  bool encoder = false;          // BERT: bidirectional attention, no KV cache
  bool layer_norm = false;       // LayerNorm (BERT) instead of RMSNorm
  bool post_norm = false;        // x = LN(x + f(x)) (BERT) instead of x = x + f(norm(x))
  bool biases = false;           // every linear has a bias (BERT)
  bool gated_ffn = true;         // w2(act(w1 x) * w3 x); else w2(act(w1 x + b1)) + b2
  std::string activation;        // silu or gelu
  double norm_eps = 0;
  bool qk_norm = false;          // RMSNorm over head_dim on q and k before RoPE (Qwen3)
  double rope_theta = 0;         // 0: learned absolute positions (BERT)
  bool rope_interleaved = false; // pairs (2i, 2i+1) (Meta); false: (i, i + d/2) (HF)
  uint32_t sliding_window = 0;   // 0: full causal attention; else query i sees keys (i - w, i]
  bool tied_embeddings = false;

  uint32_t q_width() const { return heads * head_dim; }    // attention width (Qwen3: != hidden)
  uint32_t kv_width() const { return kv_heads * head_dim; }
  uint64_t kv_cache_elements_per_token() const { return encoder ? 0 : uint64_t(layers) * 2 * kv_width(); }
  // Weights in all: embeddings (and an untied LM head), every layer's projections, FFN,
  // norms and biases (BERT also: learned positions, token types, the pooler).
  uint64_t parameters() const;
};

ModelConfig read_model_config(const std::string& path);
// A name under workloads/ ("Qwen3-0.6B") or a path to a config.json.
ModelConfig model_config_by_name(const std::string& name_or_path);

// The model's layer structure in a few lines (fsgen model).
void print_model_config(const ModelConfig& m, std::ostream& out);

}  // namespace fsgen
