#include "compiler/model_config.h"

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <iomanip>
#include <nlohmann/json.hpp>
#include <sstream>
#include <vector>

#include "core/error.h"
#include "core/json_file.h"

namespace fsgen {

namespace fs = std::filesystem;

namespace {

// Size limits of a config's fields: far above any model, low enough that a layer's parameter
// count (widths squared, times layers) stays inside 64 bits.
constexpr uint32_t kMaxWidth = 1u << 20;  // hidden, FFN and attention widths
constexpr uint32_t kMaxHeads = 1u << 16;
constexpr uint32_t kMaxLayers = 1u << 12;
constexpr uint32_t kMaxRows = 1u << 24;  // vocabulary, positions, sliding window

// Located reads of one config.json: every error names the file and the field.
class ConfigReader {
 public:
  ConfigReader(const nlohmann::json& j, std::string path) : j_(j), path_(std::move(path)) {}

  [[noreturn]] void error(const std::string& field, const std::string& what) const {
    fail(path_ + ": field '" + field + "'", what);
  }
  bool has(const std::string& f) const { return j_.contains(f) && !j_[f].is_null(); }
  // A positive integer of at most `limit` (the limits keep every product fsgen forms of the
  // sizes, a layer's parameters or a tensor's elements, inside 64 bits).
  uint32_t count(const std::string& f, uint32_t limit) const {
    if (!has(f)) error(f, "missing: expected a positive integer");
    const auto& v = j_[f];
    const bool ok = v.is_number_unsigned()
                        ? v.get<uint64_t>() >= 1 && v.get<uint64_t>() <= limit
                        : v.is_number_integer() && v.get<int64_t>() >= 1 && v.get<int64_t>() <= limit;
    if (!ok) error(f, "expected a positive integer up to " + std::to_string(limit) + ", got " + v.dump());
    return static_cast<uint32_t>(v.get<uint64_t>());
  }
  uint32_t count_or(const std::string& f, uint32_t limit, uint32_t fallback) const {
    return has(f) ? count(f, limit) : fallback;
  }
  double number(const std::string& f) const {
    if (!has(f) || !j_[f].is_number() || j_[f].get<double>() <= 0) error(f, "expected a positive number");
    return j_[f].get<double>();
  }
  double number_or(const std::string& f, double fallback) const { return has(f) ? number(f) : fallback; }
  const nlohmann::json& at(const std::string& f) const { return j_[f]; }
  std::string text_or(const std::string& f, const std::string& fallback) const { return has(f) ? text(f) : fallback; }
  std::string text(const std::string& f) const {
    if (!has(f) || !j_[f].is_string()) error(f, "missing: expected a string");
    return j_[f].get<std::string>();
  }
  bool flag_or(const std::string& f, bool fallback) const {
    if (!has(f)) return fallback;
    if (!j_[f].is_boolean()) error(f, "expected true or false, got " + j_[f].dump());
    return j_[f].get<bool>();
  }
  // A field that must be absent, null or equal to `allowed` (fsgen does not lower other values).
  void require(const std::string& f, const nlohmann::json& allowed, const std::string& why) const {
    if (has(f) && j_[f] != allowed) error(f, "value " + j_[f].dump() + " is not supported: " + why);
  }

 private:
  const nlohmann::json& j_;
  std::string path_;
};

// An activation by its Transformers name, as fsgen names it (num::activation_names()).
std::string activation_of(const ConfigReader& r, const std::string& field, const std::string& hf) {
  if (hf == "silu" || hf == "swish") return "silu";
  if (hf == "gelu") return "gelu";
  if (hf == "gelu_new" || hf == "gelu_pytorch_tanh" || hf == "gelu_fast") return "gelu_tanh";
  if (hf == "relu") return "relu";
  r.error(field, "'" + hf + "' is not supported: expected silu, gelu, gelu_new, gelu_pytorch_tanh, gelu_fast or relu");
}

// rope_scaling: every type Transformers defines changes only the host's RoPE tables.
void read_rope_scaling(const ConfigReader& r, ModelConfig& m) {
  if (!r.has("rope_scaling")) return;
  const nlohmann::json& s = r.at("rope_scaling");
  if (!s.is_object()) r.error("rope_scaling", "expected an object with rope_type, got " + s.dump());
  const char* key = s.contains("rope_type") ? "rope_type" : "type";
  if (!s.contains(key) || !s[key].is_string()) r.error("rope_scaling", "expected a rope_type string");
  std::string type = s[key].get<std::string>();
  if (type == "su") type = "longrope";  // its earlier name
  static const std::vector<std::string> types{"default", "linear", "dynamic", "yarn", "longrope", "llama3"};
  if (std::find(types.begin(), types.end(), type) == types.end())
    r.error("rope_scaling", "rope_type '" + type +
                                "' is not supported: expected default, linear, dynamic, yarn, "
                                "longrope or llama3");
  const bool needs_factor = type != "default" && type != "longrope";
  if (needs_factor && !(s.contains("factor") && s["factor"].is_number() && s["factor"].get<double>() > 0))
    r.error("rope_scaling", "rope_type " + type + " expects a positive factor");
  m.rope_scaling = type == "default" ? "" : type;
}

void read_partial_rotary(const ConfigReader& r, ModelConfig& m) {
  if (r.has("partial_rotary_factor")) {
    m.rotary_fraction = r.number("partial_rotary_factor");
    if (m.rotary_fraction > 1) r.error("partial_rotary_factor", "expected a share of head_dim up to 1");
  } else if (r.has("rotary_dim")) {
    const uint32_t d = r.count("rotary_dim", m.head_dim);
    m.rotary_fraction = double(d) / m.head_dim;
  }
}

void read_bert(const ConfigReader& r, ModelConfig& m) {
  m.encoder = m.layer_norm = m.post_norm = m.biases = true;
  m.gated_ffn = false;
  m.activation = r.text("hidden_act");
  if (m.activation != "gelu") r.error("hidden_act", "expected gelu (erf) for a BERT encoder, got " + m.activation);
  m.norm_eps = r.number("layer_norm_eps");
  r.require("position_embedding_type", "absolute", "fsgen lowers learned absolute positions");
  m.head_dim = m.hidden / m.heads;
}

// GPT-2: pre-norm LayerNorm, biases everywhere, learned positions, a plain FFN, its own field names.
void read_gpt2(const ConfigReader& r, ModelConfig& m) {
  m.hidden = r.count("n_embd", kMaxWidth);
  m.heads = r.count("n_head", kMaxHeads);
  m.kv_heads = m.heads;
  m.ffn = r.count_or("n_inner", kMaxWidth, 4 * m.hidden);
  m.layers = r.count("n_layer", kMaxLayers);
  m.vocab = r.count("vocab_size", kMaxRows);
  m.max_positions = r.count("n_positions", kMaxRows);
  m.layer_norm = m.biases = m.tied_embeddings = true;
  m.gated_ffn = false;
  m.activation = activation_of(r, "activation_function", r.text("activation_function"));
  m.norm_eps = r.number("layer_norm_epsilon");
  r.require("add_cross_attention", false, "a decoder without cross-attention only");
  m.head_dim = m.hidden / m.heads;
}

// OPT: GPT-2's structure under the Transformers names, ReLU, pre-norm (post-norm with
// do_layer_norm_before false), learned positions.
void read_opt(const ConfigReader& r, ModelConfig& m) {
  m.hidden = r.count("hidden_size", kMaxWidth);
  m.heads = r.count("num_attention_heads", kMaxHeads);
  m.kv_heads = m.heads;
  m.ffn = r.count("ffn_dim", kMaxWidth);
  m.layers = r.count("num_hidden_layers", kMaxLayers);
  m.vocab = r.count("vocab_size", kMaxRows);
  m.max_positions = r.count("max_position_embeddings", kMaxRows);
  m.layer_norm = m.tied_embeddings = true;
  m.biases = r.flag_or("enable_bias", true);
  m.post_norm = !r.flag_or("do_layer_norm_before", true);
  m.gated_ffn = false;
  m.activation = activation_of(r, "activation_function", r.text("activation_function"));
  m.norm_eps = 1e-5;  // Transformers' OPT LayerNorm
  if (r.count_or("word_embed_proj_dim", kMaxWidth, m.hidden) != m.hidden)
    r.error("word_embed_proj_dim",
            "an embedding width other than hidden_size (its project_in / project_out) is not lowered");
  r.require("layer_norm_elementwise_affine", true, "LayerNorm with its weight and bias only");
  m.head_dim = m.hidden / m.heads;
}

void read_mixture_of_experts(const ConfigReader& r, ModelConfig& m) {
  MoeConfig& e = m.moe;
  if (m.model_type == "mixtral") {
    e.experts = r.count("num_local_experts", kMaxHeads);
    e.ffn = m.ffn;
    e.normalise_top_k = true;  // Mixtral's softmax runs over the top-k logits
  } else {
    e.experts = r.count("num_experts", kMaxHeads);
    e.ffn = r.count("moe_intermediate_size", kMaxWidth);
    e.normalise_top_k = r.flag_or("norm_topk_prob", false);
    e.every = r.count_or("decoder_sparse_step", kMaxLayers, 1);
    if (r.has("mlp_only_layers")) {
      const nlohmann::json& l = r.at("mlp_only_layers");
      if (!l.is_array()) r.error("mlp_only_layers", "expected a list of layer indices");
      for (const auto& v : l) {
        if (!v.is_number_unsigned() || v.get<uint64_t>() >= m.layers)
          r.error("mlp_only_layers", "expected layer indices below " + std::to_string(m.layers) + ", got " + v.dump());
        e.dense_layers.push_back(v.get<uint32_t>());
      }
    }
    r.require("shared_expert_intermediate_size", 0, "experts without a shared expert only");
  }
  e.per_token = r.count("num_experts_per_tok", e.experts);
}

// The Llama-style decoders: RMSNorm, RoPE, a gated FFN (or experts), and their families' extras.
void read_decoder(const ConfigReader& r, ModelConfig& m) {
  const bool gemma = m.model_type == "gemma" || m.model_type == "gemma2";
  // Transformers runs Gemma's GELU as the tanh approximation whatever hidden_act says.
  if (gemma)
    m.activation = activation_of(r, "hidden_activation", r.text_or("hidden_activation", "gelu_pytorch_tanh"));
  else
    m.activation = activation_of(r, "hidden_act", r.text("hidden_act"));
  m.norm_eps = r.number("rms_norm_eps");
  m.rope_theta = r.number_or("rope_theta", 10000.0);
  m.rope_interleaved = r.flag_or("rope_interleaved", false);
  m.tied_embeddings = r.flag_or("tie_word_embeddings", gemma);
  read_rope_scaling(r, m);
  r.require("attention_bias", false, "decoder attention without biases only");
  r.require("mlp_bias", false, "decoder FFN without biases only");
  m.head_dim = r.count_or("head_dim", kMaxWidth, m.hidden / m.heads);
  read_partial_rotary(r, m);
  if (gemma) m.embedding_scale = std::sqrt(double(m.hidden));
  if (m.model_type == "mistral" || m.model_type == "phi3" || m.model_type == "mixtral" || m.model_type == "gemma2")
    m.sliding_window = r.count_or("sliding_window", kMaxRows, 0);
  if (m.model_type == "gemma2") {
    m.sandwich_norm = true;
    m.window_every = 2;  // even layers local, odd layers global
    m.attn_softcap = r.number_or("attn_logit_softcapping", 0);
    m.final_softcap = r.number_or("final_logit_softcapping", 0);
  }
  if (m.model_type == "qwen3" || m.model_type == "qwen3_moe") {
    m.qk_norm = true;
    r.require("use_sliding_window", false, "Qwen's per-layer sliding windows are not lowered");
  }
  if (m.model_type == "mixtral" || m.model_type == "qwen3_moe") read_mixture_of_experts(r, m);
}

// The sizes every family but GPT-2 names the Transformers way.
void read_sizes(const ConfigReader& r, ModelConfig& m) {
  m.hidden = r.count("hidden_size", kMaxWidth);
  m.heads = r.count("num_attention_heads", kMaxHeads);
  m.kv_heads = r.count_or("num_key_value_heads", kMaxHeads, m.heads);
  m.ffn = r.count("intermediate_size", kMaxWidth);
  m.layers = r.count("num_hidden_layers", kMaxLayers);
  m.vocab = r.count("vocab_size", kMaxRows);
  m.max_positions = r.count("max_position_embeddings", kMaxRows);
}

const std::vector<std::string>& decoder_types() {
  static const std::vector<std::string> t{"llama", "mistral", "qwen3",   "phi3",
                                          "gemma", "gemma2",  "mixtral", "qwen3_moe"};
  return t;
}

}  // namespace

ModelConfig read_model_config(const std::string& path) {
  const nlohmann::json j = read_json_file(path, "model config", "expected a Hugging Face config.json");
  if (!j.is_object()) fail(path, "expected a JSON object");
  const ConfigReader r(j, path);
  ModelConfig m;
  const fs::path p(path);
  m.name = p.filename() == "config.json" ? p.parent_path().filename().string() : p.stem().string();
  m.model_type = r.text("model_type");
  const auto& decoders = decoder_types();
  if (m.model_type == "gpt2") {
    read_gpt2(r, m);
  } else if (m.model_type == "opt") {
    read_opt(r, m);
  } else if (m.model_type == "bert") {
    read_sizes(r, m);
    read_bert(r, m);
  } else if (std::find(decoders.begin(), decoders.end(), m.model_type) != decoders.end()) {
    read_sizes(r, m);
    read_decoder(r, m);
  } else {
    r.error("model_type", "'" + m.model_type +
                              "' is not supported: expected bert, gpt2, opt, llama, mistral, qwen3, phi3, gemma, "
                              "gemma2, mixtral or qwen3_moe");
  }
  if (m.heads % m.kv_heads != 0)
    r.error("num_key_value_heads", std::to_string(m.kv_heads) + " does not divide num_attention_heads " + std::to_string(m.heads));
  if (!r.has("head_dim") && m.hidden % m.heads != 0)
    r.error("num_attention_heads", std::to_string(m.heads) + " does not divide hidden_size " + std::to_string(m.hidden) +
                                       " and there is no head_dim");
  if (uint64_t(m.heads) * m.head_dim > kMaxWidth)
    r.error(r.has("head_dim") ? "head_dim" : "num_attention_heads",
            "the attention width heads x head_dim = " + std::to_string(uint64_t(m.heads) * m.head_dim) + " exceeds " +
                std::to_string(kMaxWidth));
  return m;
}

bool ModelConfig::moe_layer(uint32_t layer) const {
  if (moe.experts == 0 || (layer + 1) % moe.every != 0) return false;
  return std::find(moe.dense_layers.begin(), moe.dense_layers.end(), layer) == moe.dense_layers.end();
}

bool ModelConfig::windowed_layer(uint32_t layer) const { return sliding_window && layer % window_every == 0; }

namespace {

// One layer's weights, with `experts` of its experts (an MoE layer) or its dense FFN.
uint64_t layer_parameters(const ModelConfig& m, bool moe, uint32_t experts) {
  const uint64_t h = m.hidden, q = m.q_width(), kv = m.kv_width(), f = m.ffn;
  const uint64_t mats = m.gated_ffn ? 3 : 2;
  uint64_t layer = h * q + 2 * h * kv + q * h;
  layer += moe ? experts * mats * h * m.moe.ffn + h * m.moe.experts : mats * h * f;  // experts and router
  const uint64_t norms = (m.sandwich_norm ? 4 : 2) * (m.layer_norm ? 2 : 1);         // LayerNorm: weight and bias
  layer += norms * h;
  if (m.qk_norm) layer += 2 * m.head_dim;
  if (m.biases) layer += q + 2 * kv + h + f + h;  // q, k, v, o, w1, w2 biases
  return layer;
}

// Everything outside the layers but the embedding table and LM head: the final norm, learned
// positions, BERT's token types and pooler.
uint64_t outer_parameters(const ModelConfig& m) {
  const uint64_t h = m.hidden;
  uint64_t total = (m.layer_norm ? 2 : 1) * h;  // the final norm (BERT: the embedding LayerNorm)
  if (m.rope_theta == 0) total += uint64_t(m.max_positions) * h;
  if (m.encoder) total += 2 * h + h * h + h;  // token types, pooler
  return total;
}

}  // namespace

uint64_t ModelConfig::parameters() const {
  uint64_t total = uint64_t(vocab) * hidden * (tied_embeddings || encoder ? 1 : 2) + outer_parameters(*this);
  for (uint32_t l = 0; l < layers; ++l) total += layer_parameters(*this, moe_layer(l), moe.experts);
  return total;
}

uint64_t ModelConfig::active_parameters() const {
  uint64_t total = uint64_t(vocab) * hidden + outer_parameters(*this);  // the LM head
  for (uint32_t l = 0; l < layers; ++l) total += layer_parameters(*this, moe_layer(l), moe.per_token);
  return total;
}

ModelConfig model_config_by_name(const std::string& name_or_path) {
  std::error_code ec;  // a name the file system cannot hold (too long, ...) is no file
  if (fs::is_regular_file(name_or_path, ec)) return read_model_config(name_or_path);
  const fs::path shipped = fs::path(FSGEN_SOURCE_DIR) / "workloads" / name_or_path / "config.json";
  if (fs::is_regular_file(shipped, ec)) return read_model_config(shipped.string());
  std::vector<std::string> names;
  for (const auto& e : fs::directory_iterator(fs::path(FSGEN_SOURCE_DIR) / "workloads"))
    if (e.is_directory()) names.push_back(e.path().filename().string());
  std::sort(names.begin(), names.end());
  std::string known;
  for (const auto& n : names) known += (known.empty() ? "" : ", ") + n;
  const std::string shown = name_or_path.size() > 80 ? name_or_path.substr(0, 60) + "... (" +
                                                           std::to_string(name_or_path.size()) + " characters)"
                                                     : name_or_path;
  fail(shown, "no such model: expected a config.json path or one of " + known);
}

namespace {

std::string positions_text(const ModelConfig& m) {
  if (m.rope_theta == 0) return "learned, absolute";
  std::string t = "RoPE theta " + std::to_string(static_cast<long long>(m.rope_theta)) +
                  (m.rope_interleaved ? " (interleaved pairs)" : " (half-split pairs)");
  if (m.rotary_fraction < 1) t += " on " + std::to_string(int(std::lround(m.rotary_fraction * 100))) + " % of head_dim";
  if (!m.rope_scaling.empty()) t += ", " + m.rope_scaling + " scaling (host tables)";
  return t;
}

std::string window_text(const ModelConfig& m) {
  if (!m.sliding_window) return "";
  return ", sliding window " + std::to_string(m.sliding_window) + (m.window_every == 2 ? " on even layers" : "");
}

std::string ffn_text(const ModelConfig& m) {
  std::ostringstream o;
  if (m.moe.experts) {
    o << m.moe.experts << " experts of FFN " << m.moe.ffn << ", top-" << m.moe.per_token
      << (m.moe.normalise_top_k ? " (weights renormalised)" : "");
    if (m.moe.every > 1 || !m.moe.dense_layers.empty()) o << " (other layers: dense FFN " << m.ffn << ")";
  } else {
    o << "FFN " << m.ffn;
  }
  o << ", " << (m.gated_ffn ? "gated " : "plain ") << m.activation << (m.biases ? ", biases" : "");
  return o.str();
}

}  // namespace

void print_model_config(const ModelConfig& m, std::ostream& out) {
  out << "model " << m.name << " (" << m.model_type << (m.encoder ? ", encoder" : ", decoder") << "), " << std::fixed
      << std::setprecision(3) << m.parameters() / 1e9 << "B parameters";
  if (m.moe.experts) out << ", " << m.active_parameters() / 1e9 << "B active per token";
  out << "\n"
      << std::defaultfloat << "  layers " << m.layers << ", hidden " << m.hidden << ", heads " << m.heads << " query / "
      << m.kv_heads << " KV ("
      << (m.heads == m.kv_heads ? "MHA"
          : m.kv_heads == 1     ? "MQA"
                                : "GQA")
      << "), head_dim " << m.head_dim << ", attention width " << m.q_width() << (m.qk_norm ? ", QK-norm" : "")
      << (m.attn_softcap > 0 ? ", score soft-cap " + std::to_string(int(m.attn_softcap)) : "") << "\n"
      << "  " << ffn_text(m) << "; " << (m.layer_norm ? "LayerNorm" : "RMSNorm") << " (eps " << m.norm_eps << ", "
      << (m.post_norm       ? "post-norm"
          : m.sandwich_norm ? "pre- and post-norm"
                            : "pre-norm")
      << ")\n"
      << "  positions: " << positions_text(m) << ", up to " << m.max_positions << window_text(m) << "; vocab "
      << m.vocab << (m.tied_embeddings ? " (tied)" : "")
      << (m.embedding_scale != 1 ? ", embeddings scaled by " + std::to_string(m.embedding_scale).substr(0, 6) : "")
      << (m.final_softcap > 0 ? ", logit soft-cap " + std::to_string(int(m.final_softcap)) : "") << "\n"
      << "  KV cache per token: " << m.kv_cache_elements_per_token()
      << " elements (INT8: " << m.kv_cache_elements_per_token() << " B)\n";
}

}  // namespace fsgen
