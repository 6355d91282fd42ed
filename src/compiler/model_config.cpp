#include "compiler/model_config.h"

#include <nlohmann/json.hpp>

#include <algorithm>
#include <filesystem>
#include <iomanip>
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

void read_bert(const ConfigReader& r, ModelConfig& m) {
  m.encoder = m.layer_norm = m.post_norm = m.biases = true;
  m.gated_ffn = false;
  m.activation = r.text("hidden_act");
  if (m.activation != "gelu") r.error("hidden_act", "expected gelu (erf) for a BERT encoder, got " + m.activation);
  m.norm_eps = r.number("layer_norm_eps");
  r.require("position_embedding_type", "absolute", "fsgen lowers learned absolute positions");
  m.head_dim = m.hidden / m.heads;
}

void read_decoder(const ConfigReader& r, ModelConfig& m) {
  m.activation = r.text("hidden_act");
  if (m.activation != "silu") r.error("hidden_act", "expected silu (gated SwiGLU FFN), got " + m.activation);
  m.norm_eps = r.number("rms_norm_eps");
  m.rope_theta = r.number_or("rope_theta", 10000.0);
  m.rope_interleaved = r.flag_or("rope_interleaved", false);
  m.tied_embeddings = r.flag_or("tie_word_embeddings", false);
  r.require("rope_scaling", nullptr, "RoPE scaling is not lowered (plain RoPE only)");
  r.require("attention_bias", false, "decoder attention without biases only");
  r.require("mlp_bias", false, "decoder FFN without biases only");
  m.head_dim = r.count_or("head_dim", kMaxWidth, m.hidden / m.heads);
  if (m.model_type == "mistral") m.sliding_window = r.count_or("sliding_window", kMaxRows, 0);
  if (m.model_type == "qwen3") {
    m.qk_norm = true;
    r.require("use_sliding_window", false, "Qwen's per-layer sliding windows are not lowered");
  }
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
  m.hidden = r.count("hidden_size", kMaxWidth);
  m.heads = r.count("num_attention_heads", kMaxHeads);
  m.kv_heads = r.count_or("num_key_value_heads", kMaxHeads, m.heads);
  m.ffn = r.count("intermediate_size", kMaxWidth);
  m.layers = r.count("num_hidden_layers", kMaxLayers);
  m.vocab = r.count("vocab_size", kMaxRows);
  m.max_positions = r.count("max_position_embeddings", kMaxRows);
  if (m.model_type == "bert") read_bert(r, m);
  else if (m.model_type == "llama" || m.model_type == "mistral" || m.model_type == "qwen3") read_decoder(r, m);
  else r.error("model_type", "'" + m.model_type + "' is not supported: expected bert, llama, mistral or qwen3");
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

uint64_t ModelConfig::parameters() const {
  const uint64_t h = hidden, q = q_width(), kv = kv_width(), f = ffn;
  uint64_t layer = h * q + 2 * h * kv + q * h + (gated_ffn ? 3 : 2) * h * f;
  layer += (layer_norm ? 4 : 2) * h;                   // norm weights (LayerNorm: and biases)
  if (qk_norm) layer += 2 * head_dim;
  if (biases) layer += q + 2 * kv + h + f + h;         // q, k, v, o, w1, w2 biases
  uint64_t total = uint64_t(vocab) * h * (tied_embeddings || encoder ? 1 : 2) + uint64_t(layers) * layer;
  total += (layer_norm ? 2 : 1) * h;                   // the final norm (BERT: the embedding LayerNorm)
  if (encoder) total += uint64_t(max_positions) * h + 2 * h + h * h + h;  // positions, token types, pooler
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

void print_model_config(const ModelConfig& m, std::ostream& out) {
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

}  // namespace fsgen
