#include "sim/numerics_report.h"

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <iomanip>
#include <random>

#include "compiler/checkpoint.h"
#include "compiler/decoder_forward.h"
#include "compiler/quantize.h"
#include "core/attention_numerics.h"
#include "core/statistics.h"

namespace fsgen {

namespace {

// Real-valued attention inputs of several heads sharing one shape.
struct AttentionCase {
  std::string name;
  uint32_t lq, lkv, d, q_heads, kv_heads;
  bool causal;
  std::vector<float> q, k, v;  // [heads][rows][d]
};

struct Quantized {
  std::vector<int8_t> values;
  float scale;
};

Quantized quantize(const std::vector<float>& x) {
  float amax = 0;
  for (float v : x) amax = std::max(amax, std::fabs(v));
  const float scale = int8_scale(amax);
  return {quantize_int8(x.data(), x.size(), scale), scale};
}

std::vector<float> dequantize(const Quantized& q) {
  std::vector<float> x(q.values.size());
  for (size_t i = 0; i < x.size(); ++i) x[i] = q.values[i] * q.scale;
  return x;
}

// FP32 softmax(q k^T / sqrt(d)) v for one head.
void attention_fp32(const float* q, const float* k, const float* v, const AttentionCase& c, float* out) {
  const uint32_t q_pos0 = c.lkv - c.lq;
  std::vector<float> s(c.lkv);
  for (uint32_t i = 0; i < c.lq; ++i) {
    float mx = -INFINITY;
    const uint32_t last = c.causal ? q_pos0 + i : c.lkv - 1;
    for (uint32_t j = 0; j <= last; ++j) {
      float acc = 0;
      for (uint32_t t = 0; t < c.d; ++t) acc += q[i * c.d + t] * k[j * c.d + t];
      s[j] = acc / std::sqrt(float(c.d));
      mx = std::max(mx, s[j]);
    }
    float sum = 0;
    for (uint32_t j = 0; j <= last; ++j) sum += (s[j] = std::exp(s[j] - mx));
    for (uint32_t t = 0; t < c.d; ++t) {
      float acc = 0;
      for (uint32_t j = 0; j <= last; ++j) acc += s[j] * v[j * c.d + t];
      out[i * c.d + t] = acc / sum;
    }
  }
}

ErrorStats compare(const std::vector<float>& got, const std::vector<float>& want) {
  const std::vector<double> g(got.begin(), got.end()), w(want.begin(), want.end());
  double sr = 0, dot = 0, gg = 0, mx = 0;
  for (size_t i = 0; i < g.size(); ++i) {
    sr += w[i] * w[i];
    dot += g[i] * w[i];
    gg += g[i] * g[i];
    mx = std::max(mx, std::fabs(g[i] - w[i]));
  }
  return {nrmse(g, w), mx, dot / std::sqrt(std::max(gg * sr, 1e-30)), got.size()};
}

std::vector<float> run_fp32(const AttentionCase& c, const std::vector<float>& q, const std::vector<float>& k,
                            const std::vector<float>& v) {
  std::vector<float> out(size_t(c.q_heads) * c.lq * c.d);
  const uint32_t group = c.q_heads / c.kv_heads;
  for (uint32_t h = 0; h < c.q_heads; ++h)
    attention_fp32(&q[size_t(h) * c.lq * c.d], &k[size_t(h / group) * c.lkv * c.d], &v[size_t(h / group) * c.lkv * c.d], c,
                   &out[size_t(h) * c.lq * c.d]);
  return out;
}

std::vector<float> run_fixed(const AttentionCase& c, const Quantized& q, const Quantized& k, const Quantized& v) {
  num::AttentionParams p;
  p.lq = c.lq;
  p.lkv = c.lkv;
  p.d = c.d;
  p.tile_kv = 8;
  p.causal = c.causal;
  p.q_pos0 = c.lkv - c.lq;
  num::choose_score_scaling(double(q.scale) * k.scale / std::sqrt(double(c.d)), p.score_mult, p.score_shift);
  std::vector<float> out(size_t(c.q_heads) * c.lq * c.d);
  const uint32_t group = c.q_heads / c.kv_heads;
  auto slice = [&](const Quantized& t, uint32_t head, uint32_t rows) {
    return std::vector<int8_t>(t.values.begin() + size_t(head) * rows * c.d, t.values.begin() + size_t(head + 1) * rows * c.d);
  };
  for (uint32_t h = 0; h < c.q_heads; ++h) {
    const auto o = num::attention_head_reference(slice(q, h, c.lq), slice(k, h / group, c.lkv), slice(v, h / group, c.lkv), {}, p);
    for (size_t i = 0; i < o.size(); ++i) out[size_t(h) * c.lq * c.d + i] = o[i] * v.scale;
  }
  return out;
}

void measure(const AttentionCase& c, std::vector<NumericsRow>& rows) {
  const Quantized q = quantize(c.q), k = quantize(c.k), v = quantize(c.v);
  const std::vector<float> fixed = run_fixed(c, q, k, v);
  rows.push_back({c.name, "FP32 on the same INT8 inputs", compare(fixed, run_fp32(c, dequantize(q), dequantize(k), dequantize(v)))});
  rows.push_back({c.name, "FP32 on the FP32 inputs", compare(fixed, run_fp32(c, c.q, c.k, c.v))});
}

AttentionCase random_case(const std::string& name, uint32_t lq, uint32_t lkv, uint32_t d, uint32_t qh, uint32_t kvh,
                          float q_std, uint64_t seed) {
  AttentionCase c{name, lq, lkv, d, qh, kvh, true, {}, {}, {}};
  std::mt19937_64 rng(seed);
  std::normal_distribution<float> n(0.0f, 1.0f);
  c.q.resize(size_t(qh) * lq * d);
  c.k.resize(size_t(kvh) * lkv * d);
  c.v.resize(size_t(kvh) * lkv * d);
  for (auto& x : c.q) x = q_std * n(rng);
  for (auto& x : c.k) x = n(rng);
  for (auto& x : c.v) x = n(rng);
  return c;
}

// The FP32 decoder, keeping what layer 0's attention sees (q, k, v after RoPE).
class CaptureLayer0 : public Fp32Backend {
 public:
  using Fp32Backend::Fp32Backend;
  std::vector<float> q, k, v;  // [position][heads x head_dim]
  void attention(int layer, const std::vector<float>& qi, uint32_t t, uint32_t pos0, const std::vector<float>& ki,
                 const std::vector<float>& vi, std::vector<float>& o) override {
    if (layer == 0) q = qi, k = ki, v = vi;
    Fp32Backend::attention(layer, qi, t, pos0, ki, vi, o);
  }
};

// [position][heads x hd] -> [head][position][hd]
std::vector<float> head_major(const std::vector<float>& x, uint32_t rows, uint32_t heads, uint32_t hd) {
  std::vector<float> out(x.size());
  for (uint32_t r = 0; r < rows; ++r)
    for (uint32_t h = 0; h < heads; ++h)
      std::copy_n(x.data() + (size_t(r) * heads + h) * hd, hd, out.data() + (size_t(h) * rows + r) * hd);
  return out;
}

// Layer 0 attention inputs of a llama2.c model on a fixed token sequence (one prefill).
AttentionCase llama2c_case(const DecoderCheckpoint& m, uint32_t tokens) {
  const CheckpointConfig& cfg = m.config();
  const uint32_t hd = cfg.head_dim();
  std::vector<int> seq;
  for (uint32_t t = 0; t < tokens; ++t) seq.push_back(t == 0 ? 1 : int((37u * t + 11u) % uint32_t(cfg.vocab_size)));
  CaptureLayer0 capture(m);
  DecoderForward(m, capture, 1).step(seq);
  return {"stories260K layer 0, " + std::to_string(tokens) + " tokens, GQA " + std::to_string(cfg.n_heads) + "/" +
              std::to_string(cfg.n_kv_heads),
          tokens, tokens, hd, uint32_t(cfg.n_heads), uint32_t(cfg.n_kv_heads), true,
          head_major(capture.q, tokens, cfg.n_heads, hd), head_major(capture.k, tokens, cfg.n_kv_heads, hd),
          head_major(capture.v, tokens, cfg.n_kv_heads, hd)};
}

}  // namespace

std::vector<NumericsRow> measure_attention_error(const std::string& model_path, std::string& skipped) {
  std::vector<NumericsRow> rows;
  measure(random_case("random N(0,1), prefill 64x64, d=64, MHA", 64, 64, 64, 2, 2, 1.0f, 1), rows);
  measure(random_case("random N(0,3) q, prefill 64x64, d=64, MHA", 64, 64, 64, 2, 2, 3.0f, 2), rows);
  measure(random_case("random N(0,1), decode 1x256, d=128, GQA 4/2", 1, 256, 128, 4, 2, 1.0f, 3), rows);
  if (!model_path.empty() && std::filesystem::exists(model_path)) {
    const DecoderCheckpoint model(model_path);
    measure(llama2c_case(model, 64), rows);
  } else {
    skipped = "real inputs skipped: " + (model_path.empty() ? std::string("no model given") : model_path + " not found");
  }
  return rows;
}

void print_numerics(const std::vector<NumericsRow>& rows, const std::string& skipped, std::ostream& out) {
  out << "fixed-point online-softmax attention (INT8 in, Q.8 log2 scores, Q0.7 P, Q0.15 rescale, tile_kv 8)\n"
      << "against an FP32 reference (src/core/attention_numerics.h vs float softmax)\n";
  out << "  " << std::left << std::setw(50) << "inputs" << std::setw(32) << "reference" << std::setw(10) << "NRMSE"
      << std::setw(12) << "max |err|" << "cosine\n";
  for (const auto& r : rows)
    out << "  " << std::left << std::setw(50) << r.inputs << std::setw(32) << r.against << std::fixed << std::setprecision(4)
        << std::setw(10) << r.error.nrmse << std::setw(12) << r.error.max_abs << std::setprecision(6) << r.error.cosine
        << "\n";
  if (!skipped.empty()) out << "  (" << skipped << ")\n";
}

}  // namespace fsgen
