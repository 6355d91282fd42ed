#include "compiler/model_config.h"

#include <cmath>
#include <fstream>

#include "test_util.h"

namespace fsgen {
namespace {

std::string write_config(const std::string& json) {
  const std::string path = test::scratch_dir("model_config") + "/config.json";
  std::ofstream(path) << json;
  return path;
}

std::string config_error(const std::string& json) {
  const std::string path = write_config(json);
  return test::error_of([&] { read_model_config(path); });
}

const std::string kLlamaFields = R"("hidden_size": 64, "num_attention_heads": 8, "num_key_value_heads": 4,
  "intermediate_size": 172, "num_hidden_layers": 5, "vocab_size": 512, "max_position_embeddings": 512,
  "hidden_act": "silu", "rms_norm_eps": 1e-5)";
const std::string kLlama = R"({"model_type": "llama", )" + kLlamaFields;

// The shipped workloads against their published structure (docs: ../shared/docs/FACTS.md
// section 1): hidden, heads, head_dim, FFN, layers and the KV cache per token.
TEST(ModelConfig, ShippedWorkloadsHaveTheirPublishedStructure) {
  struct Row {
    const char* name;
    uint32_t hidden, heads, kv, head_dim, ffn, layers;
    uint64_t kv_per_token;
  };
  for (const Row& r :
       {Row{"Llama-2-7b", 4096, 32, 32, 128, 11008, 32, 262144},
        Row{"TinyLlama-1.1B", 2048, 32, 4, 64, 5632, 22, 11264},
        Row{"Mistral-7B-v0.1", 4096, 32, 8, 128, 14336, 32, 65536},
        Row{"Qwen3-0.6B", 1024, 16, 8, 128, 3072, 28, 57344}, Row{"Qwen3-1.7B", 2048, 16, 8, 128, 6144, 28, 57344},
        Row{"SmolLM2-135M", 576, 9, 3, 64, 1536, 30, 11520}, Row{"bert-large-uncased", 1024, 16, 16, 64, 4096, 24, 0},
        Row{"Llama-3.1-8B", 4096, 32, 8, 128, 14336, 32, 65536}, Row{"gemma-7b", 3072, 16, 16, 256, 24576, 28, 229376},
        Row{"gemma-2-9b", 3584, 16, 8, 256, 14336, 42, 172032},
        Row{"Phi-3-medium-4k-instruct", 5120, 40, 10, 128, 17920, 40, 102400},
        Row{"gpt2", 768, 12, 12, 64, 3072, 12, 18432}, Row{"Mixtral-8x7B-v0.1", 4096, 32, 8, 128, 14336, 32, 65536},
        Row{"Qwen3-30B-A3B", 2048, 32, 4, 128, 6144, 48, 49152}}) {
    const ModelConfig m = model_config_by_name(r.name);
    EXPECT_EQ(m.name, r.name);
    EXPECT_EQ(m.hidden, r.hidden) << r.name;
    EXPECT_EQ(m.heads, r.heads) << r.name;
    EXPECT_EQ(m.kv_heads, r.kv) << r.name;
    EXPECT_EQ(m.head_dim, r.head_dim) << r.name;
    EXPECT_EQ(m.ffn, r.ffn) << r.name;
    EXPECT_EQ(m.layers, r.layers) << r.name;
    EXPECT_EQ(m.kv_cache_elements_per_token(), r.kv_per_token) << r.name;
  }
  const ModelConfig qwen = model_config_by_name("Qwen3-0.6B");
  EXPECT_TRUE(qwen.qk_norm);
  EXPECT_EQ(qwen.q_width(), 2048u);  // attention width != hidden size
  EXPECT_DOUBLE_EQ(qwen.rope_theta, 1e6);
  EXPECT_EQ(model_config_by_name("Mistral-7B-v0.1").sliding_window, 4096u);
  const ModelConfig bert = model_config_by_name("bert-large-uncased");
  EXPECT_TRUE(bert.encoder && bert.post_norm && bert.layer_norm && bert.biases);
  EXPECT_FALSE(bert.gated_ffn);
  EXPECT_EQ(bert.activation, "gelu");
  EXPECT_DOUBLE_EQ(bert.rope_theta, 0.0);
  EXPECT_TRUE(model_config_by_name("SmolLM2-135M").tied_embeddings);
  // Parameter counts against the published sizes.
  for (const auto& [name, params] : std::vector<std::pair<const char*, double>>{{"Llama-2-7b", 6.74e9},
                                                                                {"TinyLlama-1.1B", 1.10e9},
                                                                                {"Mistral-7B-v0.1", 7.24e9},
                                                                                {"Qwen3-0.6B", 0.60e9},
                                                                                {"Qwen3-1.7B", 1.72e9},
                                                                                {"SmolLM2-135M", 0.135e9},
                                                                                {"bert-large-uncased", 0.335e9},
                                                                                {"Llama-3.1-8B", 8.03e9},
                                                                                {"gemma-7b", 8.54e9},
                                                                                {"gemma-2-9b", 9.24e9},
                                                                                {"Phi-3-medium-4k-instruct", 13.96e9},
                                                                                {"gpt2", 124.44e6},
                                                                                {"Mixtral-8x7B-v0.1", 46.70e9},
                                                                                {"Qwen3-30B-A3B", 30.53e9}})
    EXPECT_NEAR(double(model_config_by_name(name).parameters()), params, 0.01 * params) << name;
  // Active parameters of the experts' models, with the embedding row a token reads
  // (published: Mixtral 12.9B, Qwen3-30B-A3B 3.3B).
  for (const auto& [name, active] :
       std::vector<std::pair<const char*, double>>{{"Mixtral-8x7B-v0.1", 12.9e9}, {"Qwen3-30B-A3B", 3.3e9}}) {
    const ModelConfig m = model_config_by_name(name);
    EXPECT_NEAR(double(m.active_parameters() + uint64_t(m.vocab) * m.hidden), active, 0.02 * active) << name;
  }
}

// What each new family brings: its activation, norms, windows, soft-caps, positions, experts.
TEST(ModelConfig, FamiliesBeyondLlamaReadTheirFields) {
  const ModelConfig llama3 = model_config_by_name("Llama-3.1-8B");
  EXPECT_EQ(llama3.rope_scaling, "llama3");
  EXPECT_DOUBLE_EQ(llama3.rope_theta, 500000.0);
  const ModelConfig gemma = model_config_by_name("gemma-7b");
  EXPECT_EQ(gemma.activation, "gelu_tanh");  // Transformers' Gemma GELU, whatever hidden_act says
  EXPECT_TRUE(gemma.tied_embeddings);
  EXPECT_NEAR(gemma.embedding_scale, std::sqrt(3072.0), 1e-9);
  const ModelConfig gemma2 = model_config_by_name("gemma-2-9b");
  EXPECT_TRUE(gemma2.sandwich_norm);
  EXPECT_DOUBLE_EQ(gemma2.attn_softcap, 50.0);
  EXPECT_DOUBLE_EQ(gemma2.final_softcap, 30.0);
  EXPECT_TRUE(gemma2.windowed_layer(0));
  EXPECT_FALSE(gemma2.windowed_layer(1));
  EXPECT_EQ(model_config_by_name("Phi-3-medium-4k-instruct").sliding_window, 2047u);
  const ModelConfig gpt2 = model_config_by_name("gpt2");
  EXPECT_TRUE(gpt2.layer_norm && gpt2.biases && !gpt2.gated_ffn && !gpt2.post_norm && !gpt2.encoder);
  EXPECT_DOUBLE_EQ(gpt2.rope_theta, 0.0);  // learned positions
  EXPECT_EQ(gpt2.activation, "gelu_tanh");
  const ModelConfig opt = model_config_by_name("opt-125m");
  EXPECT_TRUE(opt.layer_norm && opt.biases && !opt.gated_ffn && !opt.post_norm && opt.tied_embeddings);
  EXPECT_EQ(opt.activation, "relu");
  const ModelConfig mixtral = model_config_by_name("Mixtral-8x7B-v0.1");
  EXPECT_EQ(mixtral.moe.experts, 8u);
  EXPECT_EQ(mixtral.moe.per_token, 2u);
  EXPECT_EQ(mixtral.moe.ffn, 14336u);
  EXPECT_EQ(mixtral.sliding_window, 0u);
  const ModelConfig qwen_moe = model_config_by_name("Qwen3-30B-A3B");
  EXPECT_EQ(qwen_moe.moe.experts, 128u);
  EXPECT_EQ(qwen_moe.moe.per_token, 8u);
  EXPECT_EQ(qwen_moe.moe.ffn, 768u);
  EXPECT_TRUE(qwen_moe.moe.normalise_top_k && qwen_moe.qk_norm && qwen_moe.moe_layer(0));
  // Qwen3-MoE's layer rules: every decoder_sparse_step-th layer, those in mlp_only_layers dense.
  const std::string path =
      write_config("{" + kLlamaFields + R"(, "model_type": "qwen3_moe", "num_experts": 4, "num_experts_per_tok": 2,
      "moe_intermediate_size": 32, "decoder_sparse_step": 2, "mlp_only_layers": [3]})");
  const ModelConfig stepped = read_model_config(path);
  EXPECT_FALSE(stepped.moe_layer(0));
  EXPECT_TRUE(stepped.moe_layer(1));
  EXPECT_FALSE(stepped.moe_layer(3));
  // Partial rotary embeddings and every RoPE scaling type.
  EXPECT_DOUBLE_EQ(
      read_model_config(write_config(std::string(kLlama) + R"(, "partial_rotary_factor": 0.5})")).rotary_fraction, 0.5);
  for (const char* type : {"linear", "dynamic", "yarn", "llama3"})
    EXPECT_EQ(read_model_config(write_config(std::string(kLlama) + R"(, "rope_scaling": {"rope_type": ")" + type +
                                             R"(", "factor": 4.0}})"))
                  .rope_scaling,
              type);
  EXPECT_EQ(
      read_model_config(write_config(std::string(kLlama) +
                                     R"(, "rope_scaling": {"type": "su", "short_factor": [1], "long_factor": [2]}})"))
          .rope_scaling,
      "longrope");
}

TEST(ModelConfig, UnsupportedValuesAreOneLineErrors) {
  EXPECT_NO_THROW(read_model_config(write_config(std::string(kLlama) + "}")));
  std::string e = config_error(std::string(kLlama) + R"(, "rope_scaling": {"type": "mrope", "factor": 2.0}})");
  EXPECT_NE(e.find("config.json: field 'rope_scaling': rope_type 'mrope' is not supported"), std::string::npos) << e;
  e = config_error(std::string(kLlama) + R"(, "rope_scaling": {"rope_type": "linear"}})");
  EXPECT_NE(e.find("field 'rope_scaling': rope_type linear expects a positive factor"), std::string::npos) << e;
  EXPECT_NE(config_error(std::string(kLlama) + R"(, "attention_bias": true})").find("field 'attention_bias'"),
            std::string::npos);
  e = config_error(test::replace(std::string(kLlama) + "}", "\"silu\"", "\"tanh\""));
  EXPECT_NE(e.find("field 'hidden_act': 'tanh' is not supported: expected silu, gelu"), std::string::npos) << e;
  e = config_error(test::replace(std::string(kLlama) + "}", "\"llama\"", "\"falcon\""));
  EXPECT_NE(e.find("field 'model_type': 'falcon' is not supported"), std::string::npos) << e;
  e = config_error(test::replace(std::string(kLlama) + "}", "\"llama\"", "\"mixtral\""));
  EXPECT_NE(e.find("field 'num_local_experts': missing"), std::string::npos) << e;
  e = config_error(test::replace(std::string(kLlama) + "}", "\"llama\"", "\"qwen3_moe\"") + "");
  EXPECT_NE(e.find("field 'num_experts': missing"), std::string::npos) << e;
  e = config_error(test::replace(std::string(kLlama) + "}", "\"num_key_value_heads\": 4", "\"num_key_value_heads\": 3"));
  EXPECT_NE(e.find("field 'num_key_value_heads': 3 does not divide num_attention_heads 8"), std::string::npos) << e;
  e = config_error(test::replace(std::string(kLlama) + "}", "\"hidden_size\": 64", "\"hidden_size\": -64"));
  EXPECT_NE(e.find("field 'hidden_size': expected a positive integer up to 1048576, got -64"), std::string::npos) << e;
  e = config_error(std::string(kLlama));  // truncated
  EXPECT_NE(e.find("config.json: malformed model config JSON"), std::string::npos) << e;
  e = test::error_of([] { model_config_by_name("GPT-5"); });
  EXPECT_NE(e.find("GPT-5: no such model: expected a config.json path or one of Llama-2-7b, Llama-3.1-8B"),
            std::string::npos)
      << e;
}

// Sizes that would overflow the arithmetic on them (a layer's parameters, a tensor's elements)
// are refused at the field, not wrapped.
TEST(ModelConfig, SizesBeyondTheirLimitsAreRefusedAtTheField) {
  std::string e = config_error(
      test::replace(std::string(kLlama) + "}", "\"intermediate_size\": 172", "\"intermediate_size\": 2147483648"));
  EXPECT_NE(e.find("field 'intermediate_size': expected a positive integer up to 1048576, got 2147483648"),
            std::string::npos)
      << e;
  e = config_error(test::replace(std::string(kLlama) + "}", "\"num_hidden_layers\": 5",
                                 "\"num_hidden_layers\": 18446744073709551615"));
  EXPECT_NE(e.find("field 'num_hidden_layers': expected a positive integer up to 4096"), std::string::npos) << e;
  e = config_error(std::string(kLlama) + R"(, "head_dim": 262144})");
  EXPECT_NE(e.find("field 'head_dim': the attention width heads x head_dim = 2097152"), std::string::npos) << e;
  e = config_error(test::replace(std::string(kLlama) + "}", "\"hidden_size\": 64", "\"hidden_size\": 64.5"));
  EXPECT_NE(e.find("field 'hidden_size': expected a positive integer up to 1048576, got 64.5"), std::string::npos) << e;
  e = test::error_of([] { model_config_by_name(std::string(5000, 'x')); });
  EXPECT_NE(e.find("... (5000 characters): no such model"), std::string::npos) << e.substr(0, 200);
  EXPECT_LT(e.size(), 400u);
}

}  // namespace
}  // namespace fsgen
