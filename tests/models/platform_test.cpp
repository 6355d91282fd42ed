#include "models/platform.h"

#include <fstream>
#include <set>

#include "compiler/attention.h"
#include "compiler/ffn.h"
#include "compiler/matmul.h"
#include "test_util.h"

namespace fsgen {
namespace {

Graph graph_of(const std::string& text) { return elaborate(parse_spec_text(text, "s.yaml")); }

TEST(Platform, OneTileTakesTheDocumentedCycles) {
  const Graph g = graph_of(test::base_spec() + "kernels: [matmul]\n");  // OS 8x8x8, 8 B beats, latency 4
  MatmulProblem p;
  p.m = p.n = p.k = 8;
  const Program prog = compile_matmul(g, p);
  const RunResult r = run_on_systemc(g, prog);
  // TILE until the tile's bursts are in: the loader's L_LOOK 1, A's 8 one-beat rows and B^T's
  // 8 taken one per cycle (8 bursts in flight), the last row's beat 5 cycles after its
  // command, counted in the cycle after (1 + 8 + 8 + 5 + 1 = 23); then stream 8 + tail 1 +
  // store 8 rows x (READ, CONV, ISSUE, AW, 1 beat, WDATA) + the last response's latency 4 +
  // NEXT 1 + DONE 1
  const uint64_t tile = 1 + 8 + 8 + 5 + 1;
  EXPECT_EQ(r.cycles, tile + 9 + (8 * 6 + 4) + 1 + 1);
  EXPECT_EQ(r.outputs.at("C"), matmul_expected(prog, p));
  EXPECT_EQ(r.model, "systemc");
}

// Two k tiles: double-buffered, the loader issues the second tile's A and B right after the
// first's, into the other slots, while the first tile waits for its data and runs its pass;
// single-buffered (two tiles of each do not fit the buffer limit) it waits for the first
// tile's pass to end, as the slots are the pass's.
TEST(Platform, DoubleBufferingLoadsTheNextTileDuringThePass) {
  const Graph db = graph_of(test::base_spec() + "kernels: [matmul]\n");
  ASSERT_TRUE(db.double_buffered()) << db.single_buffered_why;
  const Graph sb = graph_of(test::replace(test::base_spec(), "buffer_limit_bytes: 16384", "buffer_limit_bytes: 100") +
                            "kernels: [matmul]\n");
  ASSERT_FALSE(sb.double_buffered());
  EXPECT_NE(sb.single_buffered_why.find("exceed memory.buffer_limit_bytes"), std::string::npos) << sb.single_buffered_why;
  MatmulProblem p;
  p.m = p.n = 8;
  p.k = 16;
  const Program prog = compile_matmul(db, p);
  const RunResult r = run_on_systemc(db, prog);
  const uint64_t store = 8 * 6 + 4, done = 1;
  // The loader: tile 0 (L_LOOK, 8 + 8 rows, L_PUSH), tile 1 (L_LOOK, 8 + 8 rows: the last
  // taken in cycle 34, its beat in 39); tile 1's TILE ends in cycle 40, then the pass (9),
  // the store, NEXT.
  EXPECT_EQ(r.cycles, (1u + 8 + 8 + 1) + (1 + 8 + 8) + 5 + 1 + 9 + store + 1 + done);
  EXPECT_EQ(r.outputs.at("C"), matmul_expected(prog, p));
  const RunResult r1 = run_on_systemc(sb, compile_matmul(sb, p));
  // Tile 0's TILE (23), pass (9), NEXT; the loader takes the slots back after the pass:
  // tile 1's rows from cycle 32 (8 + 8, the last beat 5 cycles after), TILE until 53.
  const uint64_t first = 1 + 8 + 8 + 5 + 1 + 9;
  EXPECT_EQ(r1.cycles, first + (8 + 8 + 5 + 1) + 9 + store + 1 + done);
  EXPECT_EQ(r1.outputs.at("C"), r.outputs.at("C"));
}

// A fused core with output-stationary arrays runs matmul on both: one tile is 8 + 8
// columns, array b computing the second 8 from the same column of A each step.
TEST(Platform, MatmulOnBothArraysTakesOneWideTile) {
  const Graph g = graph_of(test::base_spec());
  ASSERT_TRUE(g.matmul_on_both);
  EXPECT_EQ(g.matmul_alone_why, "");
  EXPECT_EQ(g.matmul_tile_n(), 16u);
  MatmulProblem p;
  p.m = p.k = 8;
  p.n = 16;
  const Program prog = compile_matmul(g, p);
  const RunResult r = run_on_systemc(g, prog);
  // TILE until the bursts are in: L_LOOK 1 + A's 8 one-beat rows + B^T's 16, each taken in
  // its cycle (a burst leaves the 8 in flight as the next row comes), the last beat 5 cycles
  // after the last command, counted in the cycle after; stream 8 + tail 1 + store 8 rows x
  // (2 beats + 5) + 4 + NEXT 1 + DONE 1
  EXPECT_EQ(r.cycles, (1u + 8 + 16 + 5 + 1) + 9 + (8 * 7 + 4) + 1 + 1);
  EXPECT_EQ(r.outputs.at("C"), matmul_expected(prog, p));
  EXPECT_EQ(r.activity.at("array_b").busy_cycles, 8u);
  // The same matmul on array a alone takes two tiles and loads A twice.
  const Graph single = graph_of(test::base_spec() + "kernels: [matmul]\n");
  const RunResult r1 = run_on_systemc(single, compile_matmul(single, p));
  EXPECT_EQ(r1.outputs.at("C"), r.outputs.at("C"));
  EXPECT_GT(r1.cycles, r.cycles);
}

// A systolic array computes the same tile m + n - 2 cycles later (skewed feeds).
TEST(Platform, SystolicTileTakesTheSkewCycles) {
  const std::string sys = test::replace(test::base_spec(), "loop_order: output_stationary\n    tiling: {m: 8, n: 8, k: 8}\n  b",
                                        "loop_order: output_stationary\n    movement: systolic\n    tiling: {m: 8, n: 8, k: 8}\n  b") +
                          "kernels: [matmul]\n";
  const Graph g = graph_of(sys);
  EXPECT_EQ(g.array_a.move_a, Movement::kSystolic);
  MatmulProblem p;
  p.m = p.n = p.k = 8;
  const Program prog = compile_matmul(g, p);
  const RunResult r = run_on_systemc(g, prog);
  EXPECT_EQ(r.cycles, (1u + 8 + 8 + 5 + 1) + 9 + (8 * 6 + 4) + 1 + 1 + 14);
  EXPECT_EQ(r.outputs.at("C"), matmul_expected(prog, p));
}

TEST(Platform, ReuseSkipsReloadingTheStationaryOperand) {
  // Weight-stationary (n, k, m): B is loaded once per (k, n) tile and reused across m.
  const std::string ws = test::replace(test::base_spec(), "loop_order: output_stationary\n    tiling: {m: 8, n: 8, k: 8}\n  b",
                                       "loop_order: weight_stationary\n    tiling: {m: 8, n: 8, k: 8}\n  b") +
                         "caches: {acc_a: 1024}\n";
  const Graph g = graph_of(ws);
  MatmulProblem p;
  p.m = 32;
  p.n = p.k = 8;
  const Program prog = compile_matmul(g, p);
  const RunResult r = run_on_systemc(g, prog);
  EXPECT_EQ(r.outputs.at("C"), matmul_expected(prog, p));
  // DMA traffic: A 4 tiles x 64 B, B loaded once (64 B, not 4 x 64 B), C 32 x 8 B written.
  EXPECT_EQ(r.activity.at("dma").operand_bytes, 256u + 64u + 256u);
}

TEST(Platform, EveryStationarityMatchesTheReference) {
  for (const char* e : {"os_8x8", "ws_8x16", "is_16x8", "explicit_16x16"}) {
    const Graph g = elaborate(parse_spec_file(std::string("examples/") + e + ".yaml"));
    MatmulProblem p;
    p.m = 32;
    p.n = 32;
    p.k = 48;
    p.values.zero_fraction = 0.3;
    p.seed = 11;
    const Program prog = compile_matmul(g, p);
    const RunResult r = run_on_systemc(g, prog);
    EXPECT_EQ(r.outputs.at("C"), matmul_expected(prog, p)) << e;
    const ToggleProbe* x = r.find_probe("array_a", "x");
    ASSERT_NE(x, nullptr) << e;
    EXPECT_GT(x->toggles(), 0u) << e;
  }
}

TEST(Compiler, RejectsProblemsThatDoNotFitTheDesign) {
  const Graph g = elaborate(parse_spec_file("examples/ws_8x16.yaml"));
  MatmulProblem p;
  p.k = 12;
  EXPECT_NE(test::error_of([&] { compile_matmul(g, p); }).find("matmul k: dimension 12 is not a positive multiple of the tile"),
            std::string::npos);
  p.m = 128;  // 16 live output tiles along m, the cache holds 8
  p.n = 16;
  p.k = 16;
  const std::string e = test::error_of([&] { compile_matmul(g, p); });
  EXPECT_NE(e.find("keeps 16 output tiles live but the accumulator cache of design 'ws_8x16' holds 8"), std::string::npos) << e;
}

// The activation epilogue: gated (W1 / W3 tile pairs, the W1 tile's activations held while
// the W3 tile computes) and plain, on input- and weight-stationary arrays.
TEST(PlatformMatmul, ActivationEpilogueMatchesTheReference) {
  for (const auto& [design, epilogue] : std::vector<std::pair<std::string, std::string>>{
           {"is_16x8", "gated-silu"}, {"is_16x8", "gelu"}, {"ws_8x16", "silu"}}) {
    const Graph g = elaborate(parse_spec_file("examples/" + design + ".yaml"));
    MatmulProblem p;
    p.m = 21;  // a partial m tile
    p.n = 32;
    p.k = 48;
    p.seed = 5;
    p.epilogue.gated = epilogue.rfind("gated-", 0) == 0;
    p.epilogue.activation = p.epilogue.gated ? epilogue.substr(6) : epilogue;
    const Program prog = compile_matmul(g, p);
    const RunResult r = run_on_systemc(g, prog);
    const std::vector<uint8_t> want = matmul_expected(prog, p);
    ASSERT_EQ(want.size(), size_t(p.m) * p.n);
    EXPECT_EQ(r.outputs.at("C"), want) << design << " " << epilogue;
    EXPECT_GT(std::set<uint8_t>(want.begin(), want.end()).size(), 20u) << "the outputs spread over many codes";
    EXPECT_GT(r.activity.at("softmax").busy_cycles, 0u) << "the activation unit ran";
  }
}

TEST(CompilerMatmul, EpilogueNeedsTheActivationUnitAndTilePairs) {
  MatmulProblem p;
  p.epilogue.activation = "silu";
  const Graph os = elaborate(parse_spec_file("examples/os_8x8.yaml"));  // matmul on both arrays
  EXPECT_NE(test::error_of([&] { compile_matmul(os, p); }).find("this design's matmul tile spans both arrays"),
            std::string::npos);
  const Graph matmul_only = graph_of(test::base_spec() + "kernels: [matmul]\n");
  EXPECT_NE(
      test::error_of([&] { compile_matmul(matmul_only, p); }).find("the activation unit is part of the fused datapath"),
      std::string::npos);
  p.epilogue.gated = true;
  const Graph kn_m = elaborate(parse_spec_file("examples/explicit_16x16.yaml"));  // loop order [k, n, m]
  EXPECT_NE(test::error_of([&] { compile_matmul(kn_m, p); }).find("expected a loop order with m outside n"),
            std::string::npos);
  p.epilogue.activation = "tanh";
  EXPECT_NE(test::error_of([&] {
              compile_matmul(kn_m, p);
            }).find("activation 'tanh': expected silu, gelu, gelu_tanh or relu"),
            std::string::npos);
}

TEST(Program, RoundTripsThroughJson) {
  const Graph g = elaborate(parse_spec_file("examples/os_8x8.yaml"));
  MatmulProblem p;
  const Program prog = compile_matmul(g, p);
  const std::string file = test::scratch_dir("program") + "/p.json";
  save_program(prog, file);
  const Program back = load_program(file);
  EXPECT_EQ(back.design, prog.design);
  ASSERT_EQ(back.writes.size(), prog.writes.size());
  EXPECT_EQ(back.writes.back().offset, prog.writes.back().offset);
  EXPECT_EQ(back.inputs.at(1).bytes, prog.inputs.at(1).bytes);
  EXPECT_EQ(back.memory_bytes(), prog.memory_bytes());
}

}  // namespace
}  // namespace fsgen

namespace fsgen {
namespace {

TEST(PlatformAttention, MatchesTheReferenceAcrossShapesAndDataflows) {
  for (const char* example : {"os_8x8", "ws_8x16", "is_16x8"}) {
    const Graph g = elaborate(parse_spec_file(std::string("examples/") + example + ".yaml"));
    ASSERT_TRUE(g.attention) << example;
    struct Shape {
      Stage stage;
      uint32_t heads, kv_heads, tokens, context;
      bool residual;
    };
    for (const Shape s : {Shape{Stage::kPrefill, 2, 2, 8, 0, true}, Shape{Stage::kPrefill, 3, 1, 21, 0, false},
                          Shape{Stage::kDecode, 2, 1, 1, 30, true}, Shape{Stage::kDecode, 4, 2, 2, 9, false}}) {
      AttentionProblem p;
      p.stage = s.stage;
      p.q_heads = s.heads;
      p.kv_heads = s.kv_heads;
      p.tokens = s.tokens;
      p.context = s.context;
      p.residual = s.residual;
      const CompiledAttention c = compile_attention(g, p);
      const RunResult r = run_on_systemc(g, c.program);
      EXPECT_EQ(r.outputs.at("O"), c.expected) << example << " " << c.program.kernel;
    }
  }
}

// K/V tile caches change when tiles are fetched, never what is computed: the same
// outputs in fewer cycles, with the GQA group's later heads hitting.
TEST(PlatformAttention, KvCachesSkipLoadsAndKeepOutputs) {
  const std::string base = std::string(test::base_spec()) + "attention: gqa\n";
  const Graph plain = elaborate(parse_spec_text(base, "plain.yaml"));
  const Graph cached = elaborate(parse_spec_text(base + "caches: {k: 512, v: 256}\n", "cached.yaml"));
  AttentionProblem p;
  p.q_heads = 4;
  p.kv_heads = 1;
  p.tokens = 48;  // six key tiles: K fits the cache, V only in part
  const CompiledAttention c = compile_attention(plain, p);
  const RunResult r0 = run_on_systemc(plain, c.program);
  const RunResult r1 = run_on_systemc(cached, c.program);
  EXPECT_EQ(r0.outputs.at("O"), c.expected);
  EXPECT_EQ(r1.outputs.at("O"), c.expected);
  EXPECT_LT(r1.cycles, r0.cycles);
  EXPECT_EQ(r0.activity.count("k_cache"), 0u);
  // Causal prefill reads key tile t for query tiles t..5 of each head: 21 reads per head.
  const BlockActivity& k = r1.activity.at("k_cache");
  EXPECT_EQ(k.hits + k.misses, 4u * 21u);
  EXPECT_EQ(k.misses, 6u);  // the first head loads each tile once
  const BlockActivity& v = r1.activity.at("v_cache");
  EXPECT_EQ(v.hits + v.misses, 4u * 21u);
  EXPECT_EQ(v.misses, 4u * 3u + 4u);  // tiles 4 and 5 (3 reads per head) never fit; 0..3 load once
}

TEST(PlatformAttention, CausalSkipMakesDecodeCheaperPerTokenThanPrefill) {
  const Graph g = elaborate(parse_spec_file("examples/os_8x8.yaml"));
  AttentionProblem prefill;
  prefill.tokens = 32;
  AttentionProblem decode;
  decode.stage = Stage::kDecode;
  decode.tokens = 1;
  decode.context = 31;
  const uint64_t prefill_cycles = run_on_systemc(g, compile_attention(g, prefill).program).cycles;
  const uint64_t decode_cycles = run_on_systemc(g, compile_attention(g, decode).program).cycles;
  EXPECT_LT(decode_cycles, prefill_cycles);
}

TEST(CompilerAttention, RejectsWhatTheDesignCannotRun) {
  const Graph matmul_only = elaborate(parse_spec_text(test::base_spec() + "kernels: [matmul]\n", "m.yaml"));
  AttentionProblem p;
  std::string e = test::error_of([&] { compile_attention(matmul_only, p); });
  EXPECT_NE(e.find("built without the attention kernel: add attention to its kernels list"), std::string::npos) << e;
  const Graph os = elaborate(parse_spec_file("examples/os_8x8.yaml"));
  p.q_heads = 3;
  p.kv_heads = 2;
  e = test::error_of([&] { compile_attention(os, p); });
  EXPECT_NE(e.find("must be a positive multiple of KV heads 2"), std::string::npos) << e;
}

}  // namespace
}  // namespace fsgen

namespace fsgen {
namespace {

TEST(FfnNumerics, ActivationTables) {
  const auto silu = num::make_activation_table("silu", 1.0 / 32, 1.0 / 32);
  EXPECT_EQ(silu[0], 0);
  EXPECT_EQ(silu[64], 56);                          // silu(2) = 1.7616 = 56.37 / 32
  EXPECT_EQ(silu[static_cast<uint8_t>(-128)], -2);  // silu(-4) = -0.0719 = -2.30 / 32
  const auto gelu = num::make_activation_table("gelu", 1.0 / 32, 1.0 / 32);
  EXPECT_EQ(gelu[32], 27);                          // gelu(1) = 0.8413 = 26.92 / 32
  const auto gelu_tanh = num::make_activation_table("gelu_tanh", 1.0 / 32, 1.0 / 32);
  EXPECT_EQ(gelu_tanh[32], 27);                        // 0.5 (1 + tanh(0.7979 x 1.0447)) = 0.8412
  EXPECT_EQ(gelu_tanh[static_cast<uint8_t>(-96)], 0);  // gelu_tanh(-3) = -0.0036: rounds to 0
  const auto relu = num::make_activation_table("relu", 1.0 / 32, 1.0 / 32);
  EXPECT_EQ(relu[64], 64);
  EXPECT_EQ(relu[static_cast<uint8_t>(-64)], 0);
  EXPECT_NE(
      test::error_of([] { num::make_activation_table("relu6", 1, 1); }).find("expected silu, gelu, gelu_tanh or relu"),
      std::string::npos);
}

TEST(PlatformFfn, MatchesTheReference) {
  const Graph g = elaborate(parse_spec_file("examples/os_8x8.yaml"));
  for (bool gated : {true, false}) {
    FfnProblem p;
    p.tokens = 9;
    p.ffn = 40;
    p.gated = gated;
    p.activation = gated ? "silu" : "gelu";
    const CompiledFfn c = compile_ffn(g, p);
    const RunResult r = run_on_systemc(g, c.program);
    EXPECT_EQ(r.outputs.at("Y"), c.expected) << c.program.kernel;
  }
  const Graph matmul_only = elaborate(parse_spec_text(test::base_spec() + "kernels: [matmul]\n", "m.yaml"));
  EXPECT_NE(test::error_of([&] { compile_ffn(matmul_only, FfnProblem{}); }).find("the FFN kernel runs on cores with the attention kernel"),
            std::string::npos);
}

}  // namespace
}  // namespace fsgen
