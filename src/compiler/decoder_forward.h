// The forward pass of a Llama-family decoder (a llama2.c checkpoint), written once for
// every way fsgen runs it. The linear layers and the attention go to a backend: FP32 on
// the host (the reference, Fp32Backend) or INT8 kernels on a design's simulated core
// (sim/core_backend.h). RMSNorm, RoPE (interleaved pairs), the SiLU gate, the residual
// adds and the classifier run in FP32 on the host in both.
#pragma once
#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "compiler/checkpoint.h"

namespace fsgen {

// A layer's weight matrices, packed the way the core runs them: Q, K and V rows in one
// matrix, W1 and W3 rows in another (rows: outputs, HF Linear layout [out x in]).
enum class Linear { kQkv, kO, kW13, kW2 };
const char* linear_name(Linear l);

struct PackedWeight {
  uint32_t out = 0, in = 0;
  std::vector<float> w;  // [out x in]
  struct Part {
    std::string name;  // q, k, v; w1, w3; or the whole matrix's name
    uint32_t rows;
  };
  std::vector<Part> parts;  // the matrices packed, in row order
};
PackedWeight packed_weight(const DecoderCheckpoint& m, int layer, Linear which);

class DecoderBackend {
 public:
  virtual ~DecoderBackend() = default;
  // y [t x out] = x [t x in] W^T for the layer's packed weight.
  virtual void linear(int layer, Linear which, const std::vector<float>& x, uint32_t t, std::vector<float>& y) = 0;
  // o [t x heads*head_dim]: causal attention of t queries at positions pos0.. over the
  // layer's keys and values at positions 0..pos0+t-1; q [t x heads*head_dim] and
  // k, v [position x kv_heads*head_dim], RoPE applied.
  virtual void attention(int layer, const std::vector<float>& q, uint32_t t, uint32_t pos0, const std::vector<float>& k,
                         const std::vector<float>& v, std::vector<float>& o) = 0;
};

class DecoderForward {
 public:
  // layers: how many of the model's layers to run (0: all).
  DecoderForward(const DecoderCheckpoint& m, DecoderBackend& backend, uint32_t layers = 0);
  // Runs `tokens` at the next positions; returns their logits [t x vocab].
  std::vector<float> step(const std::vector<int>& tokens);
  // The residual stream [t x dim] after `layer` in the last step.
  const std::vector<float>& layer_output(int layer) const { return layer_out_.at(size_t(layer)); }
  uint32_t layers() const { return layers_; }
  uint32_t position() const { return pos_; }

 private:
  void layer(int l, std::vector<float>& x, uint32_t t);
  const DecoderCheckpoint& m_;
  DecoderBackend& backend_;
  uint32_t layers_, pos_ = 0;
  std::vector<std::vector<float>> k_cache_, v_cache_;  // per layer [position x kv_dim]
  std::vector<std::vector<float>> layer_out_;
};

// The largest magnitudes the FP32 model shows, per layer, at every point the INT8 path
// quantises: "<linear>.in", "<linear>.out.<part>" for every packed part, and "q", "k",
// "v" (after RoPE) for the attention; and per input channel of every linear.
struct Calibration {
  std::vector<std::map<std::string, float>> ranges;
  std::vector<std::map<Linear, std::vector<float>>> channels;
};

// The FP32 reference backend; it records a Calibration of what it sees.
class Fp32Backend : public DecoderBackend {
 public:
  explicit Fp32Backend(const DecoderCheckpoint& m);
  void linear(int layer, Linear which, const std::vector<float>& x, uint32_t t, std::vector<float>& y) override;
  void attention(int layer, const std::vector<float>& q, uint32_t t, uint32_t pos0, const std::vector<float>& k,
                 const std::vector<float>& v, std::vector<float>& o) override;
  const Calibration& calibration() const { return cal_; }

 private:
  void record(int layer, const std::string& point, const float* v, size_t n);
  const DecoderCheckpoint& m_;
  std::vector<std::map<Linear, PackedWeight>> weights_;
  Calibration cal_;
};

// Greedy (argmax) token of row r of logits [t x vocab].
int argmax_token(const std::vector<float>& logits, uint32_t vocab, uint32_t row);
double cosine_similarity(const std::vector<float>& a, const std::vector<float>& b);

}  // namespace fsgen
