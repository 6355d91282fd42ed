// A Hugging Face Llama-family checkpoint (config.json and safetensors) into DecoderCheckpoint.
#include <algorithm>
#include <filesystem>

#include "compiler/checkpoint.h"
#include "compiler/model_config.h"
#include "compiler/safetensors.h"
#include "core/error.h"

namespace fsgen {

namespace fs = std::filesystem;

namespace {

struct HfFiles {
  std::string config, weights;  // config.json; model.safetensors or its shards' index
};

HfFiles hf_files(const std::string& path) {
  std::error_code ec;
  const bool folder = fs::is_directory(path, ec);
  if (!folder && fs::path(path).filename() != "config.json")
    fail(path, "expected a llama2.c .bin file or a Hugging Face checkpoint (its folder or its config.json)");
  const fs::path dir = folder ? fs::path(path) : fs::path(path).parent_path();
  HfFiles f{(dir / "config.json").string(), ""};
  if (!fs::is_regular_file(f.config, ec)) fail(path, "no config.json: expected a Hugging Face checkpoint's folder");
  for (const char* w : {"model.safetensors", "model.safetensors.index.json"})
    if (fs::is_regular_file(dir / w, ec)) {
      f.weights = (dir / w).string();
      break;
    }
  if (f.weights.empty()) fail(dir.string(), "no model.safetensors or model.safetensors.index.json beside config.json");
  return f;
}

// The forward pass rotates interleaved pairs (2i, 2i + 1); Hugging Face stores q_proj and
// k_proj for half-split pairs (i, i + head_dim / 2): its row p * head_dim / 2 + i of a head
// is row 2i + p of the interleaved order.
void interleave_rope_rows(float* w, uint32_t heads, uint32_t head_dim, uint32_t in) {
  std::vector<float> head(size_t(head_dim) * in);
  for (uint32_t h = 0; h < heads; ++h) {
    float* rows = w + size_t(h) * head_dim * in;
    for (uint32_t i = 0; i < head_dim / 2; ++i)
      for (uint32_t p = 0; p < 2; ++p)
        std::copy_n(rows + size_t(p * head_dim / 2 + i) * in, in, head.data() + size_t(2 * i + p) * in);
    std::copy(head.begin(), head.end(), rows);
  }
}

// What the forward pass computes: a Llama decoder without biases, scaled RoPE or QK-norm.
CheckpointConfig checkpoint_config(const ModelConfig& m, const std::string& where) {
  if (m.model_type != "llama" && m.model_type != "mistral")
    fail(where, "model_type " + m.model_type + ": fsgen infer runs llama and mistral checkpoints");
  if (!m.rope_scaling.empty() || m.rotary_fraction < 1)
    fail(where, "RoPE scaling or partial rotary embeddings: fsgen infer's forward pass rotates plain RoPE");
  if (m.activation != "silu") fail(where, "activation " + m.activation + ": fsgen infer runs SwiGLU decoders");
  if (m.q_width() != m.hidden) fail(where, "head_dim x heads must equal hidden_size for fsgen infer");
  CheckpointConfig c;
  c.dim = int32_t(m.hidden), c.hidden_dim = int32_t(m.ffn), c.n_layers = int32_t(m.layers);
  c.n_heads = int32_t(m.heads), c.n_kv_heads = int32_t(m.kv_heads), c.vocab_size = int32_t(m.vocab);
  c.seq_len = int32_t(std::min<uint32_t>(m.max_positions, m.sliding_window ? m.sliding_window : m.max_positions));
  c.shared_classifier = m.tied_embeddings;
  c.norm_eps = float(m.norm_eps);
  c.rope_theta = float(m.rope_theta);
  return c;
}

}  // namespace

void DecoderCheckpoint::read_hugging_face(const std::string& path) {
  const HfFiles files = hf_files(path);
  const ModelConfig m = read_model_config(files.config);
  cfg_ = checkpoint_config(m, files.config);
  lay_out();
  const uint64_t d = cfg_.dim, hd = cfg_.hidden_dim, kv = cfg_.kv_dim(), vocab = cfg_.vocab_size;
  data_.assign(off_.end + (cfg_.shared_classifier ? 0 : vocab * d), 0.0f);
  const SafetensorsModel st(files.weights);
  auto load = [&](const std::string& name, size_t offset, const std::vector<uint64_t>& shape) {
    const std::vector<float> v = st.read_f32(name, shape);
    std::copy(v.begin(), v.end(), data_.begin() + long(offset));
  };
  load("model.embed_tokens.weight", off_.tok_emb, {vocab, d});
  for (uint64_t l = 0; l < uint64_t(cfg_.n_layers); ++l) {
    const std::string p = "model.layers." + std::to_string(l) + ".";
    load(p + "input_layernorm.weight", off_.rms_att + l * d, {d});
    load(p + "self_attn.q_proj.weight", off_.wq + l * d * d, {d, d});
    load(p + "self_attn.k_proj.weight", off_.wk + l * kv * d, {kv, d});
    load(p + "self_attn.v_proj.weight", off_.wv + l * kv * d, {kv, d});
    load(p + "self_attn.o_proj.weight", off_.wo + l * d * d, {d, d});
    if (!m.rope_interleaved) {
      interleave_rope_rows(data_.data() + off_.wq + l * d * d, cfg_.n_heads, cfg_.head_dim(), cfg_.dim);
      interleave_rope_rows(data_.data() + off_.wk + l * kv * d, cfg_.n_kv_heads, cfg_.head_dim(), cfg_.dim);
    }
    load(p + "post_attention_layernorm.weight", off_.rms_ffn + l * d, {d});
    load(p + "mlp.gate_proj.weight", off_.w1 + l * hd * d, {hd, d});
    load(p + "mlp.down_proj.weight", off_.w2 + l * d * hd, {d, hd});
    load(p + "mlp.up_proj.weight", off_.w3 + l * hd * d, {hd, d});
  }
  load("model.norm.weight", off_.rms_final, {d});
  if (!cfg_.shared_classifier) load("lm_head.weight", off_.end, {vocab, d});
  check_finite(files.weights);
}

}  // namespace fsgen
