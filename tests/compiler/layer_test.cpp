// Lowering model layers onto designs, and whole-model simulation in both timing models.
#include "compiler/layer.h"

#include "sim/model_sim.h"
#include "test_util.h"

namespace fsgen {
namespace {

Graph graph_of(const std::string& text) { return elaborate(parse_spec_text(text, "s.yaml")); }

// A fused core: output-stationary a and b, tiles (m, n, k) = (8, 8, tile_k), 8-byte beats.
std::string fused_spec(uint32_t tile_k) {
  const std::string k = std::to_string(tile_k);
  return "name: f\nclock_mhz: 1000\npe_budget: 4096\n"
         "memory: {bandwidth_gbps: 8, latency_cycles: 5, buffer_limit_bytes: 65536}\n"
         "arrays:\n  a: {loop_order: output_stationary, tiling: {m: 8, n: 8, k: " + k + "}}\n"
         "  b: {loop_order: output_stationary, tiling: {m: 8, n: " + k + ", k: 8}}\n"
         "caches: {k: 1024, v: 1024}\n";
}

// The same with a weight-stationary array b, which does not join matmuls.
std::string weight_stationary_b_spec() {
  return test::replace(
      test::replace(fused_spec(16), "b: {loop_order: output_stationary", "b: {loop_order: weight_stationary"),
      "caches: {", "caches: {acc_b: 1024, ");
}

// The shape of stories260K: a tiny Llama with GQA.
ModelConfig tiny_llama() {
  ModelConfig m;
  m.name = "tiny";
  m.model_type = "llama";
  m.hidden = 64;
  m.heads = 8;
  m.kv_heads = 4;
  m.head_dim = 8;
  m.ffn = 172;
  m.layers = 2;
  m.activation = "silu";
  m.rope_theta = 10000;
  return m;
}

LayerWorkload work(Stage stage, uint32_t tokens, uint32_t context, uint32_t layer = 0) {
  LayerWorkload w;
  w.stage = stage, w.tokens = tokens, w.context = context, w.layer = layer;
  return w;
}

const KernelLaunch& launch(const LayerPlan& p, const std::string& name) {
  for (const auto& k : p.kernels)
    if (k.name == name) return k;
  ADD_FAILURE() << "no launch " << name;
  return p.kernels.front();
}

bool has_host_op(const LayerPlan& p, const std::string& name) {
  for (const auto& h : p.host)
    if (h.name == name) return true;
  return false;
}

TEST(Layer, DecoderLayerBecomesProjectionsFusedAttentionAndMatmulFfn) {
  const Graph g = graph_of(fused_spec(16));
  const ModelConfig m = tiny_llama();
  const LayerPlan p = lower_layer(g, m, work(Stage::kPrefill, 20, 0));
  std::vector<std::string> names;
  for (const auto& k : p.kernels) names.push_back(k.name);
  EXPECT_EQ(names, (std::vector<std::string>{"q_k_v_proj", "attention", "o_proj", "w1_w3", "w2"}));
  // 20 tokens are computed on 24 rows (whole m tiles) but move as 20; q + k + v = 64 + 32 + 32
  // columns pad to 144 on 24-column tiles (matmul on both arrays: 8 columns on a, 16 on b).
  const KernelLaunch& qkv = launch(p, "q_k_v_proj");
  EXPECT_EQ(qkv.macs, 20u * 128 * 64);
  EXPECT_EQ(qkv.padded_macs, 24u * 144 * 64);
  EXPECT_EQ(qkv.matmul.m * qkv.count, 20u);
  // ffn 172: W1/W3 pack 344 columns; W2's 64 columns pad to 72, its reduction over 172 to 176.
  EXPECT_EQ(launch(p, "w1_w3").macs, 20u * 344 * 64);
  EXPECT_EQ(launch(p, "w2").padded_macs, 24u * 72 * 176);
  const KernelLaunch& at = launch(p, "attention");
  EXPECT_TRUE(at.attention.causal);
  EXPECT_FALSE(at.attention.residual);
  EXPECT_EQ(at.attention.q_heads, 8u);
  EXPECT_EQ(at.attention.kv_heads, 4u);
  EXPECT_EQ(at.macs, 2u * (20 * 21 / 2) * 8 * 8);  // causal pairs x head_dim x heads, S and O
  // Least traffic counts the model's tensors once, never the padding: X, W_qkv and QKV; Q, K,
  // V and O of every head.
  EXPECT_EQ(qkv.least_bytes, 20u * 64 + 64u * 128 + 20u * 128);
  EXPECT_EQ(at.least_bytes, 2u * 20 * 8 * 8 + 2u * 20 * 4 * 8);
  EXPECT_EQ(launch(p, "w2").least_bytes, 20u * 172 + 172u * 64 + 20u * 64);
  for (const char* op : {"input norm", "rope on q and k", "residual add", "silu and gate product"})
    EXPECT_TRUE(has_host_op(p, op)) << op;
}

// The attention block alone (the paper's single MHA layers): no FFN kernel, no FFN norm.
TEST(Layer, AttentionBlockAloneStopsAtItsResidual) {
  const Graph g = graph_of(fused_spec(16));
  LayerWorkload w = work(Stage::kPrefill, 20, 0);
  w.attention_only = true;
  const LayerPlan p = lower_layer(g, tiny_llama(), w);
  std::vector<std::string> names;
  for (const auto& k : p.kernels) names.push_back(k.name);
  EXPECT_EQ(names, (std::vector<std::string>{"q_k_v_proj", "attention", "o_proj"}));
  EXPECT_TRUE(has_host_op(p, "residual add"));
  EXPECT_FALSE(has_host_op(p, "pre-FFN norm"));
  EXPECT_FALSE(has_host_op(p, "silu and gate product"));
}

// Array b weight-stationary: a matmul tile is array a's, so W1's matmul applies the
// activation and the gate product in its epilogue (the W1 / W3 tiles in pairs); the host
// keeps none of the FFN. On the output-stationary pair above it stays with the host, saying why.
TEST(Layer, WideFfnRunsItsActivationInW1sEpilogue) {
  const Graph g = graph_of(weight_stationary_b_spec());
  const LayerPlan p = lower_layer(g, tiny_llama(), work(Stage::kPrefill, 20, 0));
  std::vector<std::string> names;
  for (const auto& k : p.kernels) names.push_back(k.name);
  EXPECT_EQ(names, (std::vector<std::string>{"q_k_v_proj", "attention", "o_proj", "w1_w3_act", "w2"}));
  const KernelLaunch& up = launch(p, "w1_w3_act");
  EXPECT_TRUE(up.matmul.epilogue.gated);
  EXPECT_EQ(up.matmul.epilogue.activation, "silu");
  EXPECT_EQ(up.matmul.n, 176u);  // C: the FFN width, 172 padded to 8-column tiles; B twice that
  EXPECT_EQ(up.macs, 20u * 344 * 64);
  EXPECT_EQ(up.padded_macs, 24u * 352 * 64);
  EXPECT_EQ(up.least_bytes, 20u * 64 + 64u * 344 + 20u * 172);  // X, W1 and W3, H
  EXPECT_FALSE(has_host_op(p, "silu and gate product"));
  const LayerPlan dual = lower_layer(graph_of(fused_spec(16)), tiny_llama(), work(Stage::kPrefill, 20, 0));
  EXPECT_TRUE(has_host_op(dual, "silu and gate product"));
  bool said_why = false;
  for (const auto& n : dual.notes)
    said_why |= n.find("on the host (the activation unit takes array a's") != std::string::npos;
  EXPECT_TRUE(said_why);
}

// An encoder's W1 bias precedes the activation: folded into the reduction (k = hidden + 1).
TEST(Layer, EpilogueFoldsTheW1BiasIntoTheReduction) {
  const Graph g = graph_of(weight_stationary_b_spec());
  ModelConfig m = tiny_llama();
  m.encoder = m.biases = true;
  m.gated_ffn = false;
  m.activation = "gelu";
  const LayerPlan p = lower_layer(g, m, work(Stage::kPrefill, 16, 0));
  const KernelLaunch& up = launch(p, "w1_act");
  EXPECT_EQ(up.matmul.k, 80u);  // 65 on 16-deep tiles
  EXPECT_EQ(up.macs, 16u * 172 * 64);
  EXPECT_FALSE(has_host_op(p, "w1 bias"));
  EXPECT_TRUE(has_host_op(p, "w2 bias"));
}

TEST(Layer, FusedFfnWhenHiddenFitsOneReductionTile) {
  const Graph g = graph_of(fused_spec(64));
  const LayerPlan p = lower_layer(g, tiny_llama(), work(Stage::kDecode, 1, 30));
  const KernelLaunch& f = launch(p, "ffn");
  EXPECT_EQ(f.kind, KernelKind::kFfn);
  EXPECT_TRUE(f.ffn.gated);
  EXPECT_EQ(f.ffn.ffn, 172u);
  const KernelLaunch& at = launch(p, "attention");
  EXPECT_EQ(at.attention.stage, Stage::kDecode);
  EXPECT_EQ(at.attention.context, 30u);
  EXPECT_EQ(at.macs, 2u * 31 * 8 * 8);
}

TEST(Layer, EncoderIsBidirectionalWithBiasesAndPostNorm) {
  const Graph g = graph_of(fused_spec(16));
  ModelConfig m = tiny_llama();
  m.model_type = "bert";
  m.encoder = m.biases = m.post_norm = m.layer_norm = true;
  m.kv_heads = m.heads;
  m.gated_ffn = false;
  m.activation = "gelu";
  m.rope_theta = 0;
  const LayerPlan p = lower_layer(g, m, work(Stage::kPrefill, 16, 0));
  EXPECT_FALSE(launch(p, "attention").attention.causal);
  EXPECT_EQ(launch(p, "attention").macs, 2u * 16 * 16 * 8 * 8);
  EXPECT_TRUE(has_host_op(p, "q/k/v biases"));
  EXPECT_TRUE(has_host_op(p, "post-FFN norm"));
  EXPECT_FALSE(has_host_op(p, "rope on q and k"));
  EXPECT_EQ(launch(p, "w1").macs, 16u * 172 * 64);
}

TEST(Layer, MatmulSplitsToFitTheAccumulatorCache) {
  // Weight-stationary, loop order keeps every n tile of a row of tiles live: 4 slots.
  const Graph g = graph_of(
      "name: w\nclock_mhz: 1000\npe_budget: 4096\n"
      "memory: {bandwidth_gbps: 8, latency_cycles: 5, buffer_limit_bytes: 65536}\n"
      "arrays:\n  a: {loop_order: [m, k, n], tiling: {m: 8, n: 8, k: 16}}\n"
      "  b: {loop_order: weight_stationary, tiling: {m: 8, n: 16, k: 8}}\n"
      "caches: {acc_a: 1024, acc_b: 4096}\n");
  ASSERT_EQ(g.array_a.acc_slots, 4u);
  const LayerPlan p = lower_layer(g, tiny_llama(), work(Stage::kPrefill, 8, 0));
  const KernelLaunch& o = launch(p, "o_proj");  // n = 64: 8 tiles, 4 per launch
  EXPECT_EQ(o.count, 2u);
  EXPECT_EQ(o.matmul.n, 32u);
  EXPECT_EQ(o.macs, 8u * 64 * 64);
}

TEST(Layer, UnsupportedLayersAreOneLineErrors) {
  const Graph g = graph_of(fused_spec(16));
  ModelConfig enc = tiny_llama();
  enc.encoder = true;
  EXPECT_NE(
      test::error_of([&] { lower_layer(g, enc, work(Stage::kDecode, 1, 8)); }).find("encoder has no decode stage"),
      std::string::npos);
  ModelConfig win = tiny_llama();
  win.sliding_window = 16;
  EXPECT_NE(test::error_of([&] { lower_layer(g, win, work(Stage::kPrefill, 20, 0)); }).find("sliding window of 16"),
            std::string::npos);
}

// A matmul-only core runs attention as matmuls and the FFN's activation on the host.
TEST(Layer, AMatmulOnlyCoreRunsTheLayerAsMatmuls) {
  const Graph mm_only = graph_of(test::base_spec() + "kernels: [matmul]\n");
  const LayerPlan p = lower_layer(mm_only, tiny_llama(), work(Stage::kPrefill, 8, 0));
  std::vector<std::string> names;
  for (const auto& k : p.kernels) names.push_back(k.name);
  EXPECT_EQ(names,
            (std::vector<std::string>{"q_k_v_proj", "attention_scores", "attention_values", "o_proj", "w1_w3", "w2"}));
  EXPECT_TRUE(has_host_op(p, "score mask and softmax"));
  EXPECT_TRUE(has_host_op(p, "silu and gate product"));
  bool said = false;
  for (const auto& n : p.notes) said |= n.find("the design has no fused attention kernel") != std::string::npos;
  EXPECT_TRUE(said);
}

TEST(Layer, SlidingWindowLimitsTheKeysOfADecodeStep) {
  const Graph g = graph_of(fused_spec(16));
  ModelConfig m = tiny_llama();
  m.sliding_window = 16;
  const LayerPlan p = lower_layer(g, m, work(Stage::kDecode, 1, 40));
  EXPECT_EQ(launch(p, "attention").attention.context, 15u);
  EXPECT_EQ(launch(p, "attention").macs, 2u * 16 * 8 * 8);
}

// head_dim beyond tiling.k: the fused kernel over the head dim's tiles when buffer a holds
// them; otherwise attention as two matmuls per query head, the softmax on the host.
TEST(Layer, WideHeadsRunFusedOverTheirTilesOrAsMatmuls) {
  const Graph g = graph_of(fused_spec(16));  // buffer a: two tile slots
  ModelConfig wide = tiny_llama();
  wide.head_dim = 32;  // two tiles of 16
  const LayerPlan fused = lower_layer(g, wide, work(Stage::kDecode, 1, 20));
  const KernelLaunch& at = launch(fused, "attention");
  EXPECT_EQ(at.attention.head_dim, 32u);
  EXPECT_EQ(at.macs, 2u * 21 * 32 * 8);
  EXPECT_EQ(at.padded_macs, 3u * 8 * 24 * 32 * 8);  // S twice (once per O block), O once; 8 query rows, 24 keys
  wide.head_dim = 48;                               // three tiles: more than buffer a's slots
  const LayerPlan p = lower_layer(g, wide, work(Stage::kDecode, 1, 20));
  const KernelLaunch& s = launch(p, "attention_scores");
  EXPECT_EQ(s.count, 8u);  // one per query head
  EXPECT_EQ(s.matmul.m, 1u);
  EXPECT_EQ(s.matmul.k, 48u);
  EXPECT_EQ(s.macs, 8u * 21 * 48);
  const KernelLaunch& o = launch(p, "attention_values");
  EXPECT_EQ(o.matmul.n % g.matmul_tile_n(), 0u);  // head_dim's columns, whole tiles
  EXPECT_EQ(o.macs, 8u * 21 * 48);
  EXPECT_TRUE(has_host_op(p, "score mask and softmax"));
  bool said = false;
  for (const auto& n : p.notes)
    said |= n.find("3 tiles of the head dim need 3 tile slots of buffer a") != std::string::npos;
  EXPECT_TRUE(said);
  // A causal prefill computes every query-key pair, the masked ones not counted as useful.
  const LayerPlan pre = lower_layer(g, wide, work(Stage::kPrefill, 10, 0));
  EXPECT_EQ(launch(pre, "attention_scores").macs, 8u * (10 * 11 / 2) * 48);
}

// Gemma 2 attends a window on even layers and every key on odd ones.
TEST(Layer, AlternatingWindowsDifferByLayer) {
  const Graph g = graph_of(fused_spec(16));
  ModelConfig m = tiny_llama();
  m.sliding_window = 16;
  m.window_every = 2;
  EXPECT_EQ(launch(lower_layer(g, m, work(Stage::kDecode, 1, 40, 0)), "attention").attention.context, 15u);
  EXPECT_EQ(launch(lower_layer(g, m, work(Stage::kDecode, 1, 40, 1)), "attention").attention.context, 40u);
}

// RoPE's host work covers the rotated share of head_dim only; sandwich norms add two norms.
TEST(Layer, PartialRotaryAndSandwichNormsAreStatedHostWork) {
  const Graph g = graph_of(fused_spec(16));
  ModelConfig m = tiny_llama();
  m.rotary_fraction = 0.5;
  m.sandwich_norm = true;
  const LayerPlan p = lower_layer(g, m, work(Stage::kPrefill, 10, 0));
  uint64_t rope = 0, norms = 0;
  for (const auto& h : p.host) {
    if (h.name == "rope on q and k") rope = h.elements;
    if (h.name.find("norm") != std::string::npos) norms += h.elements;
  }
  EXPECT_EQ(rope, 10u * (64 + 32) / 2);
  EXPECT_EQ(norms, 4u * 10 * 64);  // input, post-attention, pre-FFN, post-FFN
}

TEST(Layer, ExpertRoutingSpreadsEveryTokensTopKChoices) {
  ExpertRouting uniform;
  EXPECT_EQ(uniform.tokens_per_expert(10, 4, 2), (std::vector<uint32_t>{5, 5, 5, 5}));
  EXPECT_EQ(uniform.tokens_per_expert(1, 8, 2), (std::vector<uint32_t>{1, 1, 0, 0, 0, 0, 0, 0}));
  // Skewed: the first expert's share asks for more than every token; it takes all of them
  // and the rest spreads in proportion over the others.
  ExpertRouting zipf;
  zipf.skew = 2;
  const std::vector<uint32_t> n = zipf.tokens_per_expert(100, 4, 2);
  EXPECT_EQ(n[0], 100u);
  EXPECT_EQ(n[0] + n[1] + n[2] + n[3], 200u);
  EXPECT_GT(n[1], n[2]);
  EXPECT_GT(n[2], n[3]);
  ExpertRouting counts;
  counts.shares = {0, 3, 1, 0};
  EXPECT_EQ(counts.tokens_per_expert(8, 4, 1), (std::vector<uint32_t>{0, 6, 2, 0}));
}

// A Mixture-of-Experts layer: the router, then each routed-to expert's FFN over its tokens.
TEST(Layer, ExpertsRunTheirFfnOverTheTokensRoutedToThem) {
  const Graph g = graph_of(weight_stationary_b_spec());
  ModelConfig m = tiny_llama();
  m.moe.experts = 4, m.moe.per_token = 2, m.moe.ffn = 48;
  ASSERT_TRUE(m.moe_layer(0));
  const LayerPlan p = lower_layer(g, m, work(Stage::kPrefill, 10, 0));
  std::vector<std::string> names;
  uint64_t expert_rows = 0;
  for (const auto& k : p.kernels) {
    names.push_back(k.name);
    if (k.name == "expert_w1_w3_act") expert_rows += k.matmul.m;
  }
  EXPECT_EQ(names, (std::vector<std::string>{"q_k_v_proj", "attention", "o_proj", "router", "expert_w1_w3_act",
                                             "expert_w2", "expert_w1_w3_act", "expert_w2", "expert_w1_w3_act",
                                             "expert_w2", "expert_w1_w3_act", "expert_w2"}));
  EXPECT_EQ(expert_rows, 20u);  // 10 tokens x top-2
  EXPECT_EQ(launch(p, "router").matmul.k, 64u);
  EXPECT_EQ(launch(p, "expert_w1_w3_act").macs, 5u * 48 * 2 * 64);
  EXPECT_TRUE(has_host_op(p, "router softmax and top-k"));
  EXPECT_TRUE(has_host_op(p, "expert outputs weighted and summed"));
  // A decode step streams only its top-k experts' weights.
  const LayerPlan d = lower_layer(g, m, work(Stage::kDecode, 1, 12));
  uint32_t experts = 0;
  for (const auto& k : d.kernels) experts += k.name == "expert_w2";
  EXPECT_EQ(experts, 2u);
}

// Both timing models on whole-model runs: the same cycles and activity, and reuse of
// identical launches changes nothing.
TEST(ModelSim, FastAndCycleModesAgreeOnAWholeModel) {
  for (uint32_t tile_k : {16u, 64u}) {  // FFN as matmuls, then the fused FFN kernel
    const Graph g = graph_of(fused_spec(tile_k));
    const ModelConfig m = tiny_llama();
    for (Stage stage : {Stage::kPrefill, Stage::kDecode}) {
      ModelSimOptions o;
      o.stage = stage;
      o.context = 20;
      o.tokens = 2;
      const ModelSimReport fast = simulate_model(g, m, o);
      o.mode = SimMode::kCycle;
      const ModelSimReport cyc = simulate_model(g, m, o);
      o.mode = SimMode::kFast;
      o.every_launch = true;
      const ModelSimReport every = simulate_model(g, m, o);
      EXPECT_EQ(fast.cycles, cyc.cycles) << tile_k;
      EXPECT_EQ(every.cycles, fast.cycles);
      EXPECT_EQ(every.simulated_launches, every.launches);
      EXPECT_LT(fast.simulated_launches, fast.launches);
      for (const char* block : {"array_a", "array_b", "dma"})
        EXPECT_EQ(fast.activity.at(block).busy_cycles, cyc.activity.at(block).busy_cycles) << block;
      EXPECT_EQ(fast.activity.at("dma").operand_bytes, cyc.activity.at("dma").operand_bytes);
      EXPECT_EQ(fast.launches, uint64_t(m.layers) * (stage == Stage::kDecode ? 2 : 1) * fast.kernels.size());
    }
  }
}

TEST(ModelSim, LayerCountAndWindowsAreChecked) {
  const Graph g = graph_of(fused_spec(16));
  ModelSimOptions o;
  o.layers = 3;
  EXPECT_NE(test::error_of([&] { simulate_model(g, tiny_llama(), o); }).find("exceeds the 2 layers"), std::string::npos);
  o.layers = 1;
  o.window = 1000;
  o.mode = SimMode::kCycle;
  EXPECT_NE(test::error_of([&] { simulate_model(g, tiny_llama(), o); }).find("--mode fast"), std::string::npos);
  o.mode = SimMode::kFast;
  const ModelSimReport r = simulate_model(g, tiny_llama(), o);
  double busy = 0;
  for (double w : r.timeline.busy.at("array_a")) busy += w;
  EXPECT_NEAR(busy, double(r.activity.at("array_a").busy_cycles), 1e-3 * busy);
  EXPECT_EQ(r.timeline.busy.at("dma").size(), (r.cycles + 999) / 1000);
}

}  // namespace
}  // namespace fsgen
