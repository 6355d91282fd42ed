#include "compiler/decoder_forward.h"

#include <algorithm>
#include <cmath>

#include "core/error.h"

namespace fsgen {

const char* linear_name(Linear l) {
  switch (l) {
    case Linear::kQkv: return "q_k_v_proj";
    case Linear::kO: return "o_proj";
    case Linear::kW13: return "w1_w3";
    case Linear::kW2: return "w2";
  }
  return "?";
}

PackedWeight packed_weight(const DecoderCheckpoint& m, int layer, Linear which) {
  const CheckpointConfig& c = m.config();
  const uint32_t d = c.dim, kv = c.kv_dim(), h = c.hidden_dim;
  PackedWeight p;
  p.in = which == Linear::kW2 ? h : d;
  auto append = [&](const char* name, const float* w, uint32_t rows) {
    p.w.insert(p.w.end(), w, w + size_t(rows) * p.in);
    p.parts.push_back({name, rows});
    p.out += rows;
  };
  switch (which) {
    case Linear::kQkv:
      append("q", m.wq(layer), d);
      append("k", m.wk(layer), kv);
      append("v", m.wv(layer), kv);
      break;
    case Linear::kO: append("o", m.wo(layer), d); break;
    case Linear::kW13:
      append("w1", m.w1(layer), h);
      append("w3", m.w3(layer), h);
      break;
    case Linear::kW2: append("w2", m.w2(layer), d); break;
  }
  return p;
}

namespace {

void rmsnorm(const std::vector<float>& x, const float* w, uint32_t t, uint32_t dim, float eps,
             std::vector<float>& out) {
  out.resize(x.size());
  for (uint32_t r = 0; r < t; ++r) {
    const float* xr = x.data() + size_t(r) * dim;
    double ss = 0;
    for (uint32_t i = 0; i < dim; ++i) ss += double(xr[i]) * xr[i];
    const float inv = 1.0f / std::sqrt(float(ss / dim) + eps);
    for (uint32_t i = 0; i < dim; ++i) out[size_t(r) * dim + i] = xr[i] * inv * w[i];
  }
}

// RoPE on interleaved pairs (2i, 2i + 1) of every head of a [width] row at position pos.
void rope(float* row, uint32_t width, uint32_t head_dim, uint32_t pos, float theta) {
  for (uint32_t i = 0; i < width; i += 2) {
    const float freq = 1.0f / std::pow(theta, float(i % head_dim) / float(head_dim));
    const float a = float(pos) * freq, c = std::cos(a), s = std::sin(a);
    const float y0 = row[i], y1 = row[i + 1];
    row[i] = y0 * c - y1 * s;
    row[i + 1] = y0 * s + y1 * c;
  }
}

}  // namespace

DecoderForward::DecoderForward(const DecoderCheckpoint& m, DecoderBackend& backend, uint32_t layers)
    : m_(m), backend_(backend), layers_(layers ? layers : uint32_t(m.config().n_layers)) {
  if (layers_ > uint32_t(m.config().n_layers))
    fail("layers", std::to_string(layers_) + " exceeds the model's " + std::to_string(m.config().n_layers));
  k_cache_.resize(layers_);
  v_cache_.resize(layers_);
  layer_out_.resize(layers_);
}

std::vector<float> DecoderForward::step(const std::vector<int>& tokens) {
  const CheckpointConfig& c = m_.config();
  const uint32_t t = uint32_t(tokens.size()), dim = c.dim;
  if (pos_ + t > uint32_t(c.seq_len)) fail("decoder", "positions beyond the model's " + std::to_string(c.seq_len));
  std::vector<float> x(size_t(t) * dim);
  for (uint32_t r = 0; r < t; ++r) {
    if (tokens[r] < 0 || tokens[r] >= c.vocab_size) fail("decoder", "token " + std::to_string(tokens[r]) + " outside the vocabulary");
    std::copy_n(m_.token_embedding() + size_t(tokens[r]) * dim, dim, x.data() + size_t(r) * dim);
  }
  for (uint32_t l = 0; l < layers_; ++l) {
    layer(int(l), x, t);
    layer_out_[l] = x;
  }
  std::vector<float> xn, logits(size_t(t) * c.vocab_size);
  rmsnorm(x, m_.rms_final(), t, dim, c.norm_eps, xn);
  for (uint32_t r = 0; r < t; ++r)
    for (int32_t v = 0; v < c.vocab_size; ++v) {
      const float* w = m_.classifier() + size_t(v) * dim;
      float acc = 0;
      for (uint32_t i = 0; i < dim; ++i) acc += w[i] * xn[size_t(r) * dim + i];
      logits[size_t(r) * c.vocab_size + v] = acc;
    }
  pos_ += t;
  return logits;
}

void DecoderForward::layer(int l, std::vector<float>& x, uint32_t t) {
  const CheckpointConfig& c = m_.config();
  const uint32_t dim = c.dim, kv = c.kv_dim(), hd = c.head_dim();
  std::vector<float> xn, qkv, q(size_t(t) * dim), o, a;
  rmsnorm(x, m_.rms_att(l), t, dim, c.norm_eps, xn);
  backend_.linear(l, Linear::kQkv, xn, t, qkv);
  for (uint32_t r = 0; r < t; ++r) {
    float* row = qkv.data() + size_t(r) * (dim + 2 * kv);
    rope(row, dim, hd, pos_ + r, c.rope_theta);       // q
    rope(row + dim, kv, hd, pos_ + r, c.rope_theta);  // k
    std::copy_n(row, dim, q.data() + size_t(r) * dim);
    k_cache_[l].insert(k_cache_[l].end(), row + dim, row + dim + kv);
    v_cache_[l].insert(v_cache_[l].end(), row + dim + kv, row + dim + 2 * kv);
  }
  backend_.attention(l, q, t, pos_, k_cache_[l], v_cache_[l], o);
  backend_.linear(l, Linear::kO, o, t, a);
  for (size_t i = 0; i < x.size(); ++i) x[i] += a[i];
  rmsnorm(x, m_.rms_ffn(l), t, dim, c.norm_eps, xn);
  std::vector<float> ug, h(size_t(t) * c.hidden_dim), y;
  backend_.linear(l, Linear::kW13, xn, t, ug);
  for (uint32_t r = 0; r < t; ++r)
    for (int32_t i = 0; i < c.hidden_dim; ++i) {
      const float u = ug[size_t(r) * 2 * c.hidden_dim + i], g = ug[size_t(r) * 2 * c.hidden_dim + c.hidden_dim + i];
      h[size_t(r) * c.hidden_dim + i] = u / (1.0f + std::exp(-u)) * g;
    }
  backend_.linear(l, Linear::kW2, h, t, y);
  for (size_t i = 0; i < x.size(); ++i) x[i] += y[i];
}

Fp32Backend::Fp32Backend(const DecoderCheckpoint& m) : m_(m) {
  const int layers = m.config().n_layers;
  weights_.resize(size_t(layers));
  cal_.ranges.resize(size_t(layers));
  cal_.channels.resize(size_t(layers));
  for (int l = 0; l < layers; ++l)
    for (Linear w : {Linear::kQkv, Linear::kO, Linear::kW13, Linear::kW2}) weights_[size_t(l)][w] = packed_weight(m, l, w);
}

void Fp32Backend::record(int layer, const std::string& point, const float* v, size_t n) {
  float& r = cal_.ranges[size_t(layer)][point];
  for (size_t i = 0; i < n; ++i) r = std::max(r, std::fabs(v[i]));
}

void Fp32Backend::linear(int layer, Linear which, const std::vector<float>& x, uint32_t t, std::vector<float>& y) {
  const PackedWeight& w = weights_[size_t(layer)].at(which);
  y.assign(size_t(t) * w.out, 0.0f);
  for (uint32_t r = 0; r < t; ++r)
    for (uint32_t o = 0; o < w.out; ++o) {
      float acc = 0;
      for (uint32_t i = 0; i < w.in; ++i) acc += w.w[size_t(o) * w.in + i] * x[size_t(r) * w.in + i];
      y[size_t(r) * w.out + o] = acc;
    }
  const std::string name = linear_name(which);
  record(layer, name + ".in", x.data(), x.size());
  std::vector<float>& ch = cal_.channels[size_t(layer)][which];
  ch.resize(w.in, 0.0f);
  for (uint32_t r = 0; r < t; ++r)
    for (uint32_t i = 0; i < w.in; ++i) ch[i] = std::max(ch[i], std::fabs(x[size_t(r) * w.in + i]));
  uint32_t col = 0;
  for (const auto& part : w.parts) {
    for (uint32_t r = 0; r < t; ++r) record(layer, name + ".out." + part.name, y.data() + size_t(r) * w.out + col, part.rows);
    col += part.rows;
  }
}

void Fp32Backend::attention(int layer, const std::vector<float>& q, uint32_t t, uint32_t pos0, const std::vector<float>& k,
                            const std::vector<float>& v, std::vector<float>& o) {
  const CheckpointConfig& c = m_.config();
  const uint32_t hd = c.head_dim(), kv = c.kv_dim(), heads = c.n_heads, group = heads / c.n_kv_heads;
  record(layer, "q", q.data(), q.size());
  record(layer, "k", k.data(), k.size());
  record(layer, "v", v.data(), v.size());
  o.assign(size_t(t) * heads * hd, 0.0f);
  std::vector<float> p;
  for (uint32_t r = 0; r < t; ++r)
    for (uint32_t h = 0; h < heads; ++h) {
      const float* qh = q.data() + size_t(r) * heads * hd + h * hd;
      const uint32_t keys = pos0 + r + 1, kh = h / group;
      p.assign(keys, 0.0f);
      float mx = -INFINITY;
      for (uint32_t j = 0; j < keys; ++j) {
        float s = 0;
        for (uint32_t i = 0; i < hd; ++i) s += qh[i] * k[size_t(j) * kv + kh * hd + i];
        p[j] = s / std::sqrt(float(hd));
        mx = std::max(mx, p[j]);
      }
      float sum = 0;
      for (auto& e : p) sum += (e = std::exp(e - mx));
      float* oh = o.data() + size_t(r) * heads * hd + h * hd;
      for (uint32_t j = 0; j < keys; ++j)
        for (uint32_t i = 0; i < hd; ++i) oh[i] += p[j] / sum * v[size_t(j) * kv + kh * hd + i];
    }
}

int argmax_token(const std::vector<float>& logits, uint32_t vocab, uint32_t row) {
  const float* r = logits.data() + size_t(row) * vocab;
  return int(std::max_element(r, r + vocab) - r);
}

double cosine_similarity(const std::vector<float>& a, const std::vector<float>& b) {
  double ab = 0, aa = 0, bb = 0;
  for (size_t i = 0; i < a.size() && i < b.size(); ++i) ab += double(a[i]) * b[i], aa += double(a[i]) * a[i], bb += double(b[i]) * b[i];
  return aa > 0 && bb > 0 ? ab / std::sqrt(aa * bb) : 0.0;
}

}  // namespace fsgen
