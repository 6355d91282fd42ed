#include "compiler/model_config.h"

#include <fstream>

#include "test_util.h"

namespace fsgen {
namespace {

// The shipped workloads against their published structure (docs: ../shared/docs/FACTS.md
// section 1): hidden, heads, head_dim, FFN, layers and the KV cache per token.
TEST(ModelConfig, ShippedWorkloadsHaveTheirPublishedStructure) {
  struct Row {
    const char* name;
    uint32_t hidden, heads, kv, head_dim, ffn, layers;
    uint64_t kv_per_token;
  };
  for (const Row& r : {Row{"Llama-2-7b", 4096, 32, 32, 128, 11008, 32, 262144},
                       Row{"TinyLlama-1.1B", 2048, 32, 4, 64, 5632, 22, 11264},
                       Row{"Mistral-7B-v0.1", 4096, 32, 8, 128, 14336, 32, 65536},
                       Row{"Qwen3-0.6B", 1024, 16, 8, 128, 3072, 28, 57344},
                       Row{"Qwen3-1.7B", 2048, 16, 8, 128, 6144, 28, 57344},
                       Row{"SmolLM2-135M", 576, 9, 3, 64, 1536, 30, 11520},
                       Row{"bert-large-uncased", 1024, 16, 16, 64, 4096, 24, 0}}) {
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
  for (const auto& [name, params] : std::vector<std::pair<const char*, double>>{
           {"Llama-2-7b", 6.74e9}, {"TinyLlama-1.1B", 1.10e9}, {"Mistral-7B-v0.1", 7.24e9}, {"Qwen3-0.6B", 0.60e9},
           {"Qwen3-1.7B", 1.72e9}, {"SmolLM2-135M", 0.135e9}, {"bert-large-uncased", 0.335e9}})
    EXPECT_NEAR(double(model_config_by_name(name).parameters()), params, 0.01 * params) << name;
}

std::string write_config(const std::string& json) {
  const std::string path = test::scratch_dir("model_config") + "/config.json";
  std::ofstream(path) << json;
  return path;
}

std::string config_error(const std::string& json) {
  const std::string path = write_config(json);
  return test::error_of([&] { read_model_config(path); });
}

const char* kLlama = R"({"model_type": "llama", "hidden_size": 64, "num_attention_heads": 8, "num_key_value_heads": 4,
  "intermediate_size": 172, "num_hidden_layers": 5, "vocab_size": 512, "max_position_embeddings": 512,
  "hidden_act": "silu", "rms_norm_eps": 1e-5)";

TEST(ModelConfig, UnsupportedValuesAreOneLineErrors) {
  EXPECT_NO_THROW(read_model_config(write_config(std::string(kLlama) + "}")));
  EXPECT_NE(config_error(std::string(kLlama) + R"(, "rope_scaling": {"type": "linear", "factor": 2.0}})")
                .find("config.json: field 'rope_scaling': value {\"factor\":2.0,\"type\":\"linear\"} is not supported"),
            std::string::npos);
  EXPECT_NE(config_error(std::string(kLlama) + R"(, "attention_bias": true})").find("field 'attention_bias'"),
            std::string::npos);
  std::string e = config_error(test::replace(std::string(kLlama) + "}", "\"silu\"", "\"relu\""));
  EXPECT_NE(e.find("field 'hidden_act': expected silu (gated SwiGLU FFN), got relu"), std::string::npos) << e;
  e = config_error(test::replace(std::string(kLlama) + "}", "\"llama\"", "\"gpt2\""));
  EXPECT_NE(e.find("field 'model_type': 'gpt2' is not supported"), std::string::npos) << e;
  e = config_error(test::replace(std::string(kLlama) + "}", "\"num_key_value_heads\": 4", "\"num_key_value_heads\": 3"));
  EXPECT_NE(e.find("field 'num_key_value_heads': 3 does not divide num_attention_heads 8"), std::string::npos) << e;
  e = config_error(test::replace(std::string(kLlama) + "}", "\"hidden_size\": 64", "\"hidden_size\": -64"));
  EXPECT_NE(e.find("field 'hidden_size': expected a positive integer up to 1048576, got -64"), std::string::npos) << e;
  e = config_error(std::string(kLlama));  // truncated
  EXPECT_NE(e.find("config.json: malformed model config JSON"), std::string::npos) << e;
  e = test::error_of([] { model_config_by_name("GPT-5"); });
  EXPECT_NE(e.find("GPT-5: no such model: expected a config.json path or one of Llama-2-7b, Mistral-7B-v0.1"),
            std::string::npos) << e;
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
