// The checkpoint readers: llama2.c's real model, truncated or malformed files refused, and
// the same model as a Hugging Face safetensors checkpoint.
#include "compiler/checkpoint.h"

#include <cmath>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <vector>

#include "test_util.h"

namespace fsgen {
namespace {

const char* kStories = "../shared/models/stories260K.bin";

TEST(Checkpoint, ReadsTheRealModel) {
  if (!std::filesystem::exists(kStories)) GTEST_SKIP() << kStories << " not present";
  const DecoderCheckpoint m(kStories);
  EXPECT_EQ(m.config().dim, 64);
  EXPECT_EQ(m.config().n_heads, 8);
  EXPECT_EQ(m.config().n_kv_heads, 4);
  EXPECT_EQ(m.config().head_dim(), 8);
  EXPECT_TRUE(m.config().shared_classifier);
}

TEST(Checkpoint, TruncatedAndMalformedFilesAreOneLineErrors) {
  const std::string dir = test::scratch_dir("llama2c");
  auto write = [&](const std::vector<int32_t>& header, size_t floats) {
    std::ofstream f(dir + "/m.bin", std::ios::binary);
    f.write(reinterpret_cast<const char*>(header.data()), std::streamsize(header.size() * 4));
    std::vector<float> z(floats, 0.0f);
    f.write(reinterpret_cast<const char*>(z.data()), std::streamsize(floats * 4));
  };
  write({64, 172}, 0);
  EXPECT_NE(test::error_of([&] { DecoderCheckpoint m(dir + "/m.bin"); }).find("truncated: expected a 28-byte header"),
            std::string::npos);
  write({64, 172, 5, 8, 4, 512, 512}, 1000);
  EXPECT_NE(test::error_of([&] { DecoderCheckpoint m(dir + "/m.bin"); }).find("truncated: the header implies"),
            std::string::npos);
  write({64, 172, 5, 7, 4, 512, 512}, 0);
  EXPECT_NE(test::error_of([&] { DecoderCheckpoint m(dir + "/m.bin"); }).find("dim must divide"), std::string::npos);
  // Negative sizes (offsets would wrap), INT_MIN's magnitude, sizes whose products overflow.
  write({64, 172, 5, 8, 4, 512, -512}, 0);
  EXPECT_NE(test::error_of([&] {
              DecoderCheckpoint m(dir + "/m.bin");
            }).find("header field seq_len = -512: expected 1 up to"),
            std::string::npos);
  write({-64, 172, 5, 8, 4, 512, 512}, 0);
  EXPECT_NE(test::error_of([&] { DecoderCheckpoint m(dir + "/m.bin"); }).find("header field dim = -64"),
            std::string::npos);
  write({64, 172, 5, 8, 4, INT32_MIN, 512}, 0);
  EXPECT_NE(test::error_of([&] { DecoderCheckpoint m(dir + "/m.bin"); }).find("header field vocab_size = -2147483648"),
            std::string::npos);
  write({1 << 24, 1 << 24, 1 << 24, 8, 4, 512, 512}, 0);
  EXPECT_NE(test::error_of([&] { DecoderCheckpoint m(dir + "/m.bin"); }).find("header field dim = 16777216"),
            std::string::npos);
  // A NaN weight is named by its tensor.
  const int32_t d = 8, hd = 16, layers = 1, heads = 2, kvh = 2, vocab = 4, seq = 4;
  const size_t floats = size_t(vocab) * d + layers * (2 * d + 4 * d * d + 3 * hd * d) + d + seq * (d / heads);
  write({d, hd, layers, heads, kvh, vocab, seq}, floats);
  EXPECT_NO_THROW(DecoderCheckpoint m(dir + "/m.bin"));
  {
    std::fstream f(dir + "/m.bin", std::ios::binary | std::ios::in | std::ios::out);
    const float nan = std::nanf("");
    f.seekp(28 + 4 * (vocab * d + layers * d + 3));  // wq's fourth value
    f.write(reinterpret_cast<const char*>(&nan), 4);
  }
  EXPECT_NE(test::error_of([&] { DecoderCheckpoint m(dir + "/m.bin"); }).find("tensor wq: value nan at float"),
            std::string::npos);
}

// Writes `m` as a Hugging Face Llama checkpoint (F32 safetensors, HF tensor names, q_proj and
// k_proj rows in the half-split order) and its config.json into `dir`.
void write_as_hugging_face(const DecoderCheckpoint& m, const std::string& dir) {
  const CheckpointConfig& c = m.config();
  const uint64_t d = c.dim, hd = c.hidden_dim, kv = c.kv_dim(), vocab = c.vocab_size;
  std::vector<std::pair<std::string, std::vector<float>>> tensors;
  nlohmann::json header = nlohmann::json::object();
  uint64_t at = 0;
  auto add = [&](const std::string& name, const float* v, std::vector<uint64_t> shape) {
    uint64_t n = 1;
    for (uint64_t s : shape) n *= s;
    tensors.emplace_back(name, std::vector<float>(v, v + n));
    header[name] = {{"dtype", "F32"}, {"shape", shape}, {"data_offsets", {at, at + 4 * n}}};
    at += 4 * n;
  };
  // Interleaved rows (2i + p) to HF's half-split order (p * head_dim / 2 + i), per head.
  auto half_split = [&](const float* w, uint64_t heads) {
    const uint64_t h2 = c.head_dim() / 2;
    std::vector<float> out(heads * c.head_dim() * d);
    for (uint64_t h = 0; h < heads; ++h)
      for (uint64_t i = 0; i < h2; ++i)
        for (uint64_t p = 0; p < 2; ++p)
          std::memcpy(&out[(h * c.head_dim() + p * h2 + i) * d], w + (h * c.head_dim() + 2 * i + p) * d, 4 * d);
    return out;
  };
  add("model.embed_tokens.weight", m.token_embedding(), {vocab, d});
  for (int l = 0; l < c.n_layers; ++l) {
    const std::string p = "model.layers." + std::to_string(l) + ".";
    add(p + "input_layernorm.weight", m.rms_att(l), {d});
    add(p + "self_attn.q_proj.weight", half_split(m.wq(l), c.n_heads).data(), {d, d});
    add(p + "self_attn.k_proj.weight", half_split(m.wk(l), c.n_kv_heads).data(), {kv, d});
    add(p + "self_attn.v_proj.weight", m.wv(l), {kv, d});
    add(p + "self_attn.o_proj.weight", m.wo(l), {d, d});
    add(p + "post_attention_layernorm.weight", m.rms_ffn(l), {d});
    add(p + "mlp.gate_proj.weight", m.w1(l), {hd, d});
    add(p + "mlp.down_proj.weight", m.w2(l), {d, hd});
    add(p + "mlp.up_proj.weight", m.w3(l), {hd, d});
  }
  add("model.norm.weight", m.rms_final(), {d});
  const std::string h = header.dump();
  std::ofstream f(dir + "/model.safetensors", std::ios::binary);
  const uint64_t n = h.size();
  f.write(reinterpret_cast<const char*>(&n), 8);
  f << h;
  for (const auto& [name, v] : tensors) f.write(reinterpret_cast<const char*>(v.data()), std::streamsize(4 * v.size()));
  std::ofstream(dir + "/config.json") << nlohmann::json{
      {"model_type", "llama"},
      {"hidden_size", d},
      {"intermediate_size", hd},
      {"num_hidden_layers", c.n_layers},
      {"num_attention_heads", c.n_heads},
      {"num_key_value_heads", c.n_kv_heads},
      {"vocab_size", vocab},
      {"max_position_embeddings", c.seq_len},
      {"hidden_act", "silu"},
      {"rms_norm_eps", 1e-5},
      {"rope_theta", 10000.0},
      {"tie_word_embeddings", true}}.dump(2);
}

// stories260K converted to a Hugging Face checkpoint reads back to the same weights, in the
// forward pass's interleaved RoPE order.
TEST(Checkpoint, AHuggingFaceCheckpointReadsAsTheSameModel) {
  if (!std::filesystem::exists(kStories)) GTEST_SKIP() << kStories << " not present";
  const DecoderCheckpoint bin(kStories);
  const std::string dir = test::scratch_dir("hf_stories");
  write_as_hugging_face(bin, dir);
  const DecoderCheckpoint hf(dir);
  const CheckpointConfig& a = bin.config();
  const CheckpointConfig& b = hf.config();
  EXPECT_EQ(b.dim, a.dim);
  EXPECT_EQ(b.n_kv_heads, a.n_kv_heads);
  EXPECT_TRUE(b.shared_classifier);
  auto same = [](const float* x, const float* y, size_t n) { return std::memcmp(x, y, 4 * n) == 0; };
  const size_t d = a.dim, hd = a.hidden_dim, kv = a.kv_dim();
  EXPECT_TRUE(same(hf.token_embedding(), bin.token_embedding(), size_t(a.vocab_size) * d));
  for (int l = 0; l < a.n_layers; ++l) {
    EXPECT_TRUE(same(hf.wq(l), bin.wq(l), d * d)) << l;
    EXPECT_TRUE(same(hf.wk(l), bin.wk(l), kv * d)) << l;
    EXPECT_TRUE(same(hf.wv(l), bin.wv(l), kv * d)) << l;
    EXPECT_TRUE(same(hf.w2(l), bin.w2(l), d * hd)) << l;
    EXPECT_TRUE(same(hf.w3(l), bin.w3(l), hd * d)) << l;
    EXPECT_TRUE(same(hf.rms_ffn(l), bin.rms_ffn(l), d)) << l;
  }
  EXPECT_TRUE(same(hf.classifier(), bin.classifier(), size_t(a.vocab_size) * d));
  // A folder without its weights file is named.
  std::filesystem::remove(dir + "/model.safetensors");
  EXPECT_NE(test::error_of([&] { DecoderCheckpoint m(dir); }).find("no model.safetensors"), std::string::npos);
}

}  // namespace
}  // namespace fsgen
