// A Llama-family decoder's weights for a functional run (fsgen infer), read from
//  - a llama2.c legacy checkpoint (.bin): a 7 x int32 header, then fp32 tensors in a fixed
//    order (layout in FACTS.md section 2); every tensor's extent is checked against the
//    header before use;
//  - a Hugging Face checkpoint: a folder (or its config.json) with model.safetensors or a
//    sharded model.safetensors.index.json beside it; llama and mistral decoders without
//    biases, RoPE scaling or QK-norm. Its q_proj and k_proj rows, stored for RoPE's
//    half-split pairs, are put back in the interleaved order the forward pass rotates.
// Either way the weights are held FP32 in the llama2.c order, all of them finite.
#pragma once
#include <cstdint>
#include <string>
#include <vector>

#include "compiler/synthetic.h"

namespace fsgen {

struct CheckpointConfig {
  int32_t dim, hidden_dim, n_layers, n_heads, n_kv_heads, vocab_size, seq_len;
  bool shared_classifier;
  float norm_eps = 1e-5f;  // RMSNorm epsilon (llama2.c: 1e-5)
  float rope_theta = 10000.0f;
  int32_t head_dim() const { return dim / n_heads; }
  int32_t kv_dim() const { return head_dim() * n_kv_heads; }
};

class DecoderCheckpoint {
 public:
  // A .bin file is read as llama2.c, anything else as a Hugging Face checkpoint.
  explicit DecoderCheckpoint(const std::string& path);
  const CheckpointConfig& config() const { return cfg_; }
  // Tensors of one layer, row-major [out x in] (HF Linear layout).
  const float* token_embedding() const { return at(off_.tok_emb); }
  const float* rms_att(int layer) const { return at(off_.rms_att + size_t(layer) * cfg_.dim); }
  const float* wq(int layer) const { return at(off_.wq + size_t(layer) * cfg_.dim * cfg_.dim); }
  const float* wk(int layer) const { return at(off_.wk + size_t(layer) * cfg_.kv_dim() * cfg_.dim); }
  const float* wv(int layer) const { return at(off_.wv + size_t(layer) * cfg_.kv_dim() * cfg_.dim); }
  const float* wo(int layer) const { return at(off_.wo + size_t(layer) * cfg_.dim * cfg_.dim); }
  const float* rms_ffn(int layer) const { return at(off_.rms_ffn + size_t(layer) * cfg_.dim); }
  const float* w1(int layer) const { return at(off_.w1 + size_t(layer) * cfg_.hidden_dim * cfg_.dim); }
  const float* w2(int layer) const { return at(off_.w2 + size_t(layer) * cfg_.dim * cfg_.hidden_dim); }
  const float* w3(int layer) const { return at(off_.w3 + size_t(layer) * cfg_.hidden_dim * cfg_.dim); }
  const float* rms_final() const { return at(off_.rms_final); }
  // The output classifier [vocab x dim]: the token embedding when shared.
  const float* classifier() const { return cfg_.shared_classifier ? token_embedding() : at(off_.end); }

  // Magnitude-prunes every layer's linear weights (wq, wk, wv, wo, w1, w2, w3) to the N:M
  // pattern along their input dimension: the reduction k of the kernels that run them.
  void prune_linear_weights(StructuredPattern p);

 private:
  struct Offsets {
    size_t tok_emb, rms_att, wq, wk, wv, wo, rms_ffn, w1, w2, w3, rms_final, freq_real, freq_imag, end;
  };
  const float* at(size_t offset) const { return data_.data() + offset; }
  void read_llama2c(const std::string& path);
  void read_hugging_face(const std::string& path);  // compiler/checkpoint_hf.cpp
  void lay_out();                                   // the offsets of every tensor from cfg_
  void check_finite(const std::string& path) const;
  CheckpointConfig cfg_{};
  Offsets off_{};
  std::vector<float> data_;
};

}  // namespace fsgen
