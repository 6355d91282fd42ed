#include "compiler/checkpoint.h"

#include <cmath>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <utility>

#include "core/error.h"

namespace fsgen {

DecoderCheckpoint::DecoderCheckpoint(const std::string& path) {
  const bool llama2c = path.size() >= 4 && path.compare(path.size() - 4, 4, ".bin") == 0;
  if (llama2c)
    read_llama2c(path);
  else
    read_hugging_face(path);
}

void DecoderCheckpoint::lay_out() {
  const size_t d = cfg_.dim, hd = cfg_.hidden_dim, L = cfg_.n_layers, kv = cfg_.kv_dim();
  size_t o = 0;
  auto take = [&](size_t n) {
    const size_t at = o;
    o += n;
    return at;
  };
  off_.tok_emb = take(size_t(cfg_.vocab_size) * d);
  off_.rms_att = take(L * d);
  off_.wq = take(L * d * d);
  off_.wk = take(L * kv * d);
  off_.wv = take(L * kv * d);
  off_.wo = take(L * d * d);
  off_.rms_ffn = take(L * d);
  off_.w1 = take(L * hd * d);
  off_.w2 = take(L * d * hd);
  off_.w3 = take(L * hd * d);
  off_.rms_final = take(d);
  off_.freq_real = take(size_t(cfg_.seq_len) * cfg_.head_dim() / 2);
  off_.freq_imag = take(size_t(cfg_.seq_len) * cfg_.head_dim() / 2);
  off_.end = o;
}

void DecoderCheckpoint::read_llama2c(const std::string& path) {
  std::ifstream in(path, std::ios::binary | std::ios::ate);
  if (!in) fail(path, "cannot open llama2.c checkpoint");
  const auto bytes = static_cast<uint64_t>(in.tellg());
  in.seekg(0);
  int32_t h[7];
  if (bytes < sizeof h || !in.read(reinterpret_cast<char*>(h), sizeof h))
    fail(path, "truncated: expected a 28-byte header of 7 int32 values");
  // Each field positive and at most its limit (vocab_size negative: a separate classifier):
  // limits far above any llama2.c model that keep every tensor's size inside 64 bits.
  const char* names[7] = {"dim", "hidden_dim", "n_layers", "n_heads", "n_kv_heads", "vocab_size", "seq_len"};
  const int64_t limits[7] = {1 << 16, 1 << 18, 1 << 10, 1 << 16, 1 << 16, 1 << 24, 1 << 24};
  for (int i = 0; i < 7; ++i) {
    const int64_t v = i == 5 ? std::abs(int64_t{h[i]}) : int64_t{h[i]};
    if (v < 1 || v > limits[i])
      fail(path, std::string("header field ") + names[i] + " = " + std::to_string(h[i]) + ": expected " +
                     (i == 5 ? "a non-zero value of magnitude" : "1") + " up to " + std::to_string(limits[i]));
  }
  cfg_.dim = h[0], cfg_.hidden_dim = h[1], cfg_.n_layers = h[2], cfg_.n_heads = h[3], cfg_.n_kv_heads = h[4];
  cfg_.vocab_size = int32_t(std::abs(int64_t{h[5]})), cfg_.seq_len = h[6], cfg_.shared_classifier = h[5] > 0;
  if (cfg_.dim % cfg_.n_heads || cfg_.n_heads % cfg_.n_kv_heads)
    fail(path, "header: dim must divide into n_heads, and n_heads into n_kv_heads");
  lay_out();
  const size_t d = cfg_.dim, o = off_.end;
  const uint64_t need = sizeof h + uint64_t(o) * 4 + (cfg_.shared_classifier ? 0 : uint64_t(cfg_.vocab_size) * d * 4);
  if (bytes < need)
    fail(path,
         "truncated: the header implies " + std::to_string(need) + " bytes, the file has " + std::to_string(bytes));
  const size_t floats = o + (cfg_.shared_classifier ? 0 : size_t(cfg_.vocab_size) * d);
  data_.resize(floats);
  if (!in.read(reinterpret_cast<char*>(data_.data()), std::streamsize(floats * 4))) fail(path, "read error");
  check_finite(path);
}

// Every weight a finite number (a NaN would make every comparison against the reference agree).
void DecoderCheckpoint::check_finite(const std::string& path) const {
  const std::pair<const char*, size_t> starts[] = {{"token_embedding", off_.tok_emb},
                                                   {"rms_att", off_.rms_att},
                                                   {"wq", off_.wq},
                                                   {"wk", off_.wk},
                                                   {"wv", off_.wv},
                                                   {"wo", off_.wo},
                                                   {"rms_ffn", off_.rms_ffn},
                                                   {"w1", off_.w1},
                                                   {"w2", off_.w2},
                                                   {"w3", off_.w3},
                                                   {"rms_final", off_.rms_final},
                                                   {"freq_cis_real", off_.freq_real},
                                                   {"freq_cis_imag", off_.freq_imag},
                                                   {"wcls", off_.end}};
  for (size_t i = 0; i < data_.size(); ++i) {
    if (std::isfinite(data_[i])) continue;
    const char* tensor = starts[0].first;
    for (const auto& [name, start] : starts)
      if (i >= start) tensor = name;
    fail(path, std::string("tensor ") + tensor + ": value " + std::to_string(data_[i]) + " at float " +
                   std::to_string(i) + ": expected finite weights");
  }
}

void DecoderCheckpoint::prune_linear_weights(StructuredPattern p) {
  const uint32_t d = uint32_t(cfg_.dim), hd = uint32_t(cfg_.hidden_dim), kv = uint32_t(cfg_.kv_dim());
  struct Matrix {
    const char* name;
    size_t offset;
    uint32_t out, in;
  };
  for (int l = 0; l < cfg_.n_layers; ++l)
    for (const Matrix& m : {Matrix{"wq", off_.wq, d, d}, Matrix{"wk", off_.wk, kv, d}, Matrix{"wv", off_.wv, kv, d},
                            Matrix{"wo", off_.wo, d, d}, Matrix{"w1", off_.w1, hd, d}, Matrix{"w2", off_.w2, d, hd},
                            Matrix{"w3", off_.w3, hd, d}}) {
      if (m.in % p.m != 0)
        fail(std::string("--prune ") + std::to_string(p.n) + ":" + std::to_string(p.m),
             std::string("the input dimension ") + std::to_string(m.in) + " of " + m.name + " is not a multiple of M");
      prune_structured(data_.data() + m.offset + size_t(l) * m.out * m.in, m.out, m.in, true, p);
    }
}

}  // namespace fsgen
