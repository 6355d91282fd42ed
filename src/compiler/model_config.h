// A model's layer structure, read from a Hugging Face config.json (workloads/ holds the
// configs of the models fsgen ships with; a user's own config.json works the same way).
//
// Families (docs/MODELS.md has the table of model types and fields): bert; the Llama-style
// decoders llama, mistral, qwen3, phi3, gemma, gemma2; gpt2 and opt; and the Mixture-of-Experts
// decoders mixtral and qwen3_moe. The fields that change what a layer computes are checked:
// a value fsgen does not lower is a UserError naming the file, the field and what is
// supported. Fields that change only host numerics (RoPE scaling, embedding scaling) are
// accepted and their host work stated; fields that do not change the computation (dropouts,
// token ids, dtypes) are ignored.
#pragma once
#include <cstdint>
#include <ostream>
#include <string>
#include <vector>

namespace fsgen {

// A Mixture-of-Experts FFN (Mixtral, Qwen3-MoE): a router picks `per_token` of `experts`
// gated FFNs of width `ffn` for each token; the layers in `dense_layers`, and those off the
// `every`-th step, keep the dense FFN (ModelConfig::ffn).
struct MoeConfig {
  uint32_t experts = 0;                // 0: no experts (a dense model)
  uint32_t per_token = 0;              // top-k
  uint32_t ffn = 0;                    // each expert's FFN width
  bool normalise_top_k = false;        // the k routing weights renormalised to sum to one (host)
  uint32_t every = 1;                  // decoder_sparse_step: layer l is MoE when (l + 1) % every == 0
  std::vector<uint32_t> dense_layers;  // mlp_only_layers
};

struct ModelConfig {
  std::string name;        // the config's folder name (or file stem)
  std::string model_type;  // bert, llama, mistral, qwen3, phi3, gemma, gemma2, gpt2, opt, mixtral, qwen3_moe
  uint32_t hidden = 0, heads = 0, kv_heads = 0, head_dim = 0, ffn = 0, layers = 0;
  uint32_t vocab = 0, max_positions = 0;
  bool encoder = false;          // BERT: bidirectional attention, no KV cache
  bool layer_norm = false;       // LayerNorm (BERT) instead of RMSNorm
  bool post_norm = false;        // x = LN(x + f(x)) (BERT) instead of x = x + f(norm(x))
  bool biases = false;           // every linear has a bias (BERT)
  bool gated_ffn = true;         // w2(act(w1 x) * w3 x); else w2(act(w1 x + b1)) + b2
  std::string activation;        // silu, gelu (erf) or gelu_tanh (num::activation_names())
  double norm_eps = 0;
  bool qk_norm = false;          // RMSNorm over head_dim on q and k before RoPE (Qwen3)
  bool sandwich_norm = false;    // also a norm after attention and after the FFN (Gemma 2)
  double rope_theta = 0;         // 0: learned absolute positions (BERT, GPT-2)
  bool rope_interleaved = false; // pairs (2i, 2i+1) (Meta); false: (i, i + d/2) (HF)
  std::string rope_scaling;      // "" or its rope_type (linear, dynamic, yarn, longrope, llama3): the host's tables
  double rotary_fraction = 1;    // the share of head_dim rotated (partial_rotary_factor)
  uint32_t sliding_window = 0;   // 0: full causal attention; else query i sees keys (i - w, i]
  uint32_t window_every = 1;     // the window on every layer (1), or on even layers only (2: Gemma 2)
  double embedding_scale = 1;    // token embeddings times this (Gemma: sqrt(hidden)), host work
  double attn_softcap = 0;       // scores through cap * tanh(s / cap) before the softmax (Gemma 2)
  double final_softcap = 0;      // the same on the LM head's logits (host)
  bool tied_embeddings = false;
  MoeConfig moe;

  uint32_t q_width() const { return heads * head_dim; }    // attention width (Qwen3: != hidden)
  uint32_t kv_width() const { return kv_heads * head_dim; }
  uint64_t kv_cache_elements_per_token() const { return encoder ? 0 : uint64_t(layers) * 2 * kv_width(); }
  bool moe_layer(uint32_t layer) const;       // layer's FFN is the experts'
  bool windowed_layer(uint32_t layer) const;  // layer attends a sliding window
  // Weights in all: embeddings (and an untied LM head), every layer's projections, FFN (every
  // expert's and the router), norms and biases (BERT also: token types, the pooler; BERT and
  // GPT-2: learned positions).
  uint64_t parameters() const;
  // The weights one token reads: parameters() with only the top-k experts of each MoE layer,
  // and without the embedding table (one row is read).
  uint64_t active_parameters() const;
};

ModelConfig read_model_config(const std::string& path);
// A name under workloads/ ("Qwen3-0.6B") or a path to a config.json.
ModelConfig model_config_by_name(const std::string& name_or_path);

// The model's layer structure in a few lines (fsgen model).
void print_model_config(const ModelConfig& m, std::ostream& out);

}  // namespace fsgen
