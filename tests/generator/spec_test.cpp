#include "generator/spec.h"

#include "generator/graph.h"
#include "test_util.h"

namespace fsgen {
namespace {

using test::base_spec;
using test::error_of;
using test::replace;

std::string spec_error(const std::string& text) {
  return error_of([&] { parse_spec_text(text, "s.yaml"); });
}

TEST(Spec, ParsesTheBaseSpec) {
  const DesignSpec s = parse_spec_text(base_spec(), "s.yaml");
  EXPECT_EQ(s.name, "t");
  EXPECT_EQ(s.beat_bytes(), 8u);
  EXPECT_EQ(s.array_a.stationarity(), Stationarity::kOutput);
  EXPECT_EQ(s.array_a.pe_count(), 64u);
  EXPECT_TRUE(s.sparsity.empty());
}

TEST(Spec, EveryExampleParsesAndElaborates) {
  for (const char* e : {"os_8x8", "ws_8x16", "is_16x8", "explicit_16x16"}) {
    const DesignSpec s = parse_spec_file(std::string("examples/") + e + ".yaml");
    EXPECT_EQ(s.name, e);
    EXPECT_NO_THROW(elaborate(s));
  }
}

TEST(Spec, LoopOrderNamesAndPermutations) {
  auto order = [](const std::string& lo) {
    return parse_spec_text(replace(base_spec(), "loop_order: output_stationary\n    tiling: {m: 8, n: 8, k: 8}\n  b",
                                   "loop_order: " + lo + "\n    tiling: {m: 8, n: 8, k: 8}\n  b") +
                               "caches: {acc_a: 1024}\n",
                           "s.yaml")
        .array_a;
  };
  EXPECT_EQ(order("weight_stationary").stationarity(), Stationarity::kWeight);
  EXPECT_EQ(order("is").stationarity(), Stationarity::kInput);
  const ArraySpec explicit_order = order("[k, m, n]");
  EXPECT_EQ(explicit_order.stationarity(), Stationarity::kInput);
  EXPECT_TRUE(explicit_order.m_inside_k());
  EXPECT_TRUE(explicit_order.n_inside_k());
}

TEST(SpecErrors, UnknownKeyNamesFileLineAndField) {
  const std::string e = spec_error(base_spec() + "bogus: 3\n");
  EXPECT_NE(e.find("s.yaml:15:1"), std::string::npos) << e;
  EXPECT_NE(e.find("unknown field 'bogus'"), std::string::npos) << e;
}

TEST(SpecErrors, AKeyGivenTwiceIsRefusedWithBothPlaces) {
  const std::string e = spec_error(replace(base_spec(), "  latency_cycles: 4\n", "  latency_cycles: 4\n  latency_cycles: 9\n"));
  EXPECT_NE(e.find("s.yaml:7:3: field 'memory.latency_cycles'"), std::string::npos) << e;
  EXPECT_NE(e.find("given twice (first at line 6)"), std::string::npos) << e;
}

// memory.operand_tiles: the slots of each matmul operand's buffer, within the buffer limit.
TEST(SpecErrors, OperandTilesBeyondTheBufferLimitAreRefused) {
  const std::string spec = test::replace(test::base_spec(), "buffer_limit_bytes: 16384",
                                         "buffer_limit_bytes: 4096\n  operand_tiles: {a: 16, b: 1}");
  const Graph g = elaborate(parse_spec_text(spec, "s.yaml"));
  EXPECT_EQ(g.a_slots, 16u);
  EXPECT_EQ(g.b_slots, 1u);
  EXPECT_EQ(g.single_buffered_why, "memory.operand_tiles gives B one tile");
  std::string e = test::error_of([&] {
    elaborate(parse_spec_text(test::replace(spec, "{a: 16, b: 1}", "{a: 128, b: 1}"), "s.yaml"));
  });
  EXPECT_NE(e.find("memory.operand_tiles.a"), std::string::npos) << e;
  EXPECT_NE(e.find("128 tiles of A (8192 B) exceed memory.buffer_limit_bytes (4096)"), std::string::npos) << e;
  e = test::error_of([&] { parse_spec_text(test::replace(spec, "{a: 16, b: 1}", "{a: 0}"), "s.yaml"); });
  EXPECT_NE(e.find("memory.operand_tiles.a"), std::string::npos) << e;
}

TEST(SpecErrors, UnknownNestedKey) {
  const std::string e = spec_error(replace(base_spec(), "  latency_cycles: 4\n", "  latency_cycles: 4\n  lat: 3\n"));
  EXPECT_NE(e.find("s.yaml:7:3: field 'memory.lat'"), std::string::npos) << e;
}

TEST(SpecErrors, WrongType) {
  const std::string e = spec_error(replace(base_spec(), "pe_budget: 256", "pe_budget: many"));
  EXPECT_NE(e.find("s.yaml:3:1: field 'pe_budget'"), std::string::npos) << e;
  EXPECT_NE(e.find("expected an integer, got 'many'"), std::string::npos) << e;
}

TEST(SpecErrors, MissingField) {
  const std::string e = spec_error(replace(base_spec(), "clock_mhz: 1000\n", ""));
  EXPECT_NE(e.find("missing required field 'clock_mhz'"), std::string::npos) << e;
}

TEST(SpecErrors, TilingThatDoesNotDivideTheMemoryBeat) {
  const std::string e = spec_error(replace(base_spec(), "tiling: {m: 8, n: 8, k: 8}\n  b", "tiling: {m: 8, n: 8, k: 4}\n  b"));
  EXPECT_NE(e.find("s.yaml:11:"), std::string::npos) << e;
  EXPECT_NE(e.find("field 'arrays.a.tiling.k'"), std::string::npos) << e;
  EXPECT_NE(e.find("expected a multiple of 8"), std::string::npos) << e;
}

TEST(SpecErrors, HeterogeneousTilingMustDivide) {
  const std::string text =
      "name: t\nclock_mhz: 1000\npe_budget: 512\n"
      "memory: {bandwidth_gbps: 8, latency_cycles: 4, buffer_limit_bytes: 16384}\n"
      "arrays:\n  a: {tiling: {m: 16, n: 8, k: 8}}\n  b: {tiling: {m: 24, n: 8, k: 8}}\n";
  const std::string msg = spec_error(text);
  EXPECT_NE(msg.find("s.yaml:7:16: field 'arrays.b.tiling.m'"), std::string::npos) << msg;
  EXPECT_NE(msg.find("does not divide array a's m=16"), std::string::npos) << msg;
}

TEST(SpecErrors, PeCountOverBudget) {
  const std::string e = spec_error(replace(base_spec(), "pe_budget: 256", "pe_budget: 100"));
  EXPECT_NE(e.find("s.yaml:3:1: field 'pe_budget'"), std::string::npos) << e;
  EXPECT_NE(e.find("64 + 64 = 128 PEs, over the budget of 100"), std::string::npos) << e;
}

TEST(SpecErrors, BufferOverTheLimit) {
  const std::string e = spec_error(replace(base_spec(), "buffer_limit_bytes: 16384", "buffer_limit_bytes: 32"));
  EXPECT_NE(e.find("exceeds the per-tensor buffer limit of 32 bytes"), std::string::npos) << e;
  const std::string c = spec_error(base_spec() + "caches: {k: 20480}\n");
  EXPECT_NE(c.find("field 'caches.k'"), std::string::npos) << c;
}

TEST(SpecErrors, LoopOrderNotAPermutation) {
  const std::string e = spec_error(replace(base_spec(), "loop_order: output_stationary\n    tiling: {m: 8, n: 8, k: 8}\n  b",
                                           "loop_order: [m, k, m]\n    tiling: {m: 8, n: 8, k: 8}\n  b"));
  EXPECT_NE(e.find("s.yaml:10:5: field 'arrays.a.loop_order'"), std::string::npos) << e;
  EXPECT_NE(e.find("not a permutation"), std::string::npos) << e;
  const std::string bad = spec_error(replace(base_spec(), "loop_order: output_stationary\n    tiling: {m: 8, n: 8, k: 8}\n  b",
                                             "loop_order: [m, x, k]\n    tiling: {m: 8, n: 8, k: 8}\n  b"));
  EXPECT_NE(bad.find("expected an iterator m, n or k, got 'x'"), std::string::npos) << bad;
}

TEST(SpecErrors, BandwidthMustGiveAPowerOfTwoBeat) {
  const std::string e = spec_error(replace(base_spec(), "bandwidth_gbps: 8", "bandwidth_gbps: 6"));
  EXPECT_NE(e.find("field 'memory.bandwidth_gbps'"), std::string::npos) << e;
  EXPECT_NE(e.find("expected a power of two"), std::string::npos) << e;
}

TEST(SpecErrors, StationaryArraysNeedAnAccumulatorCache) {
  const std::string ws = replace(base_spec(), "loop_order: output_stationary\n    tiling: {m: 8, n: 8, k: 8}\n  b",
                                 "loop_order: weight_stationary\n    tiling: {m: 8, n: 8, k: 8}\n  b");
  const std::string e = spec_error(ws);
  EXPECT_NE(e.find("expected caches.acc_a of at least 256 bytes"), std::string::npos) << e;
  const std::string odd = spec_error(ws + "caches: {acc_a: 300}\n");
  EXPECT_NE(odd.find("expected a non-zero multiple of 256 bytes"), std::string::npos) << odd;
  EXPECT_NO_THROW(parse_spec_text(ws + "caches: {acc_a: 512}\n", "s.yaml"));
}

TEST(SpecErrors, MalformedYaml) {
  const std::string e = spec_error("name: [unclosed\n");
  EXPECT_NE(e.find("s.yaml:"), std::string::npos) << e;
  EXPECT_NE(e.find("malformed YAML"), std::string::npos) << e;
}

TEST(SpecErrors, BadChoiceListsTheChoices) {
  const std::string e = spec_error(base_spec() + "attention: mqa\n");
  EXPECT_NE(e.find("expected one of {mha, gqa}, got 'mqa'"), std::string::npos) << e;
}

TEST(SpecSparsity, MappingsAreParsedWithTheirPlaces) {
  const std::string ok = base_spec() + "sparsity:\n  - {kind: compute_value, tensor: w, condition: \"w==0\"}\n";
  const DesignSpec s = parse_spec_text(ok, "s.yaml");
  ASSERT_EQ(s.sparsity.size(), 1u);
  EXPECT_EQ(s.sparsity[0].kind, "compute_value");
  // Without a value network (S above TT on k) the mapping cannot bind: the error points at it.
  const std::string e = error_of([&] { elaborate(s); });
  EXPECT_NE(e.find("s.yaml:16:5"), std::string::npos) << e;
  EXPECT_NE(e.find("needs a value network"), std::string::npos) << e;
  const std::string bad = spec_error(base_spec() + "sparsity:\n  - {kind: magic, tensor: w, condition: x}\n");
  EXPECT_NE(bad.find("field 'sparsity[0].kind'"), std::string::npos) << bad;
  const std::string tiling = spec_error(base_spec() + "sparsity:\n  - {kind: memory_group, tensor: k, condition: window}\n");
  EXPECT_NE(tiling.find("field 'sparsity[0].window'"), std::string::npos) << tiling;
}

}  // namespace
}  // namespace fsgen

namespace fsgen {
namespace {

TEST(SpecKernels, AttentionDefaultsOnWhenTheDataflowSupportsIt) {
  EXPECT_TRUE(parse_spec_file("examples/os_8x8.yaml").attention_kernel);
  EXPECT_TRUE(parse_spec_file("examples/ws_8x16.yaml").attention_kernel);
  const std::string matmul_only = test::base_spec() + "kernels: [matmul]\n";
  EXPECT_FALSE(parse_spec_text(matmul_only, "s.yaml").attention_kernel);
  // Any stationarity of either array fuses when the tiles line up.
  const std::string ws_is =
      test::replace(test::replace(test::base_spec(), "loop_order: output_stationary\n    tiling: {m: 8, n: 8, k: 8}\n  b",
                                  "loop_order: weight_stationary\n    tiling: {m: 8, n: 8, k: 8}\n  b"),
                    "b:\n    loop_order: output_stationary", "b:\n    loop_order: input_stationary") +
      "caches: {acc_a: 256, acc_b: 256}\n";
  EXPECT_TRUE(parse_spec_text(ws_is, "s.yaml").attention_kernel);
}

TEST(SpecMovement, SystolicOnlyForOutputStationaryArrays) {
  const std::string ws = test::replace(test::base_spec(), "loop_order: output_stationary\n    tiling: {m: 8, n: 8, k: 8}\n  b",
                                       "loop_order: weight_stationary\n    movement: systolic\n    tiling: {m: 8, n: 8, k: 8}\n  b") +
                         "caches: {acc_a: 256}\n";
  std::string e = test::error_of([&] { parse_spec_text(ws, "s.yaml"); });
  EXPECT_NE(e.find("field 'arrays.a.movement': systolic movement is built for output-stationary arrays"),
            std::string::npos) << e;
  e = test::error_of([] { parse_spec_text(test::replace(test::base_spec(), "loop_order: output_stationary\n    tiling",
                                                        "loop_order: output_stationary\n    movement: ring\n    tiling"),
                                          "s.yaml"); });
  EXPECT_NE(e.find("field 'arrays.a.movement'"), std::string::npos) << e;
}

// arrays.b.tiling: auto sizes a dot array b by bandwidth: the fewest PEs whose O update
// per key tile is no slower than the V tile's load. With 8 bursts in flight (the default)
// the V tile's 16 rows of 2 beats come back to back after the latency: 5 cycles to the
// first beat, 32 beats, the DRAIN cycle = 39; one burst at a time takes 8 cycles a row.
TEST(SpecSizing, AutoTilingSizesArrayBByBandwidth) {
  const std::string spec =
      "name: t\nclock_mhz: 1000\npe_budget: 1024\n"
      "memory: {bandwidth_gbps: 8, latency_cycles: 5, buffer_limit_bytes: 16384}\n"
      "arrays:\n  a: {loop_order: output_stationary, tiling: {m: 16, n: 16, k: 16}}\n"
      "  b: {loop_order: weight_stationary, tiling: auto}\ncaches: {acc_b: 1024}\n";
  const Graph g = elaborate(parse_spec_text(spec, "s.yaml"));
  EXPECT_EQ(g.array_b.spec.tile_m, 16u);
  EXPECT_EQ(g.array_b.spec.tile_n, 16u);
  EXPECT_EQ(g.array_b.spec.tile_k, 16u);
  const FusedStageCycles c = fused_stage_cycles(g.array_a, g.array_b, g.memory);
  EXPECT_EQ(c.v_load, 39u);
  EXPECT_EQ(c.o_passes, 1u);
  EXPECT_EQ(c.o_update, 16u + 16 + 2);  // load 16 V rows, stream 16 P rows, 2 pipeline cycles
  EXPECT_LE(c.o_update, c.v_load);
  // One burst at a time: a slower load, a smaller array b.
  const Graph one = elaborate(parse_spec_text(test::replace(spec, "buffer_limit_bytes: 16384}", "buffer_limit_bytes: 16384, outstanding: 1}"), "s.yaml"));
  const FusedStageCycles c1 = fused_stage_cycles(one.array_a, one.array_b, one.memory);
  EXPECT_EQ(c1.v_load, 16u * 8 + 1);
  EXPECT_EQ(one.array_b.spec.tile_n, 8u);
  EXPECT_EQ(one.array_b.spec.tile_k, 8u);
  EXPECT_EQ(c1.o_passes, 4u);
  EXPECT_EQ(c1.o_update, 4u * (8 + 16 + 2));  // load 8 V rows, stream 16 P rows, 2 pipeline cycles
  EXPECT_LE(c1.o_update, c1.v_load);
  // An output-stationary array b holds all of O: auto gives the aligned tiles.
  const Graph os = elaborate(parse_spec_text(test::replace(spec, "weight_stationary, tiling: auto", "output_stationary, tiling: auto"), "s.yaml"));
  EXPECT_EQ(os.array_b.spec.tile_k, 16u);
  const std::string e = test::error_of([&] { parse_spec_text(test::replace(spec, "tiling: auto", "tiling: big"), "s.yaml"); });
  EXPECT_NE(e.find("field 'arrays.b.tiling': expected a map {m, n, k} or auto"), std::string::npos) << e;
}

TEST(SpecCaches, KvTileCachesHoldWholeTilesOfTheFusedKernels) {
  EXPECT_NO_THROW(parse_spec_text(test::base_spec() + "caches: {k: 256, v: 64}\n", "s.yaml"));
  std::string e = test::error_of([] { parse_spec_text(test::base_spec() + "caches: {k: 100}\n", "s.yaml"); });
  EXPECT_NE(e.find("s.yaml:15:10: field 'caches.k': cache of 100 bytes: expected a multiple of 64 bytes"),
            std::string::npos) << e;
  e = test::error_of(
      [] { parse_spec_text(test::base_spec() + "kernels: [matmul]\ncaches: {v: 64}\n", "s.yaml"); });
  EXPECT_NE(e.find("field 'caches.v': a v tile cache serves the fused kernels: expected attention in `kernels`"),
            std::string::npos) << e;
}

TEST(SpecKernels, UnsupportedOrUnknownKernelsAreErrors) {
  const std::string misaligned =
      test::replace(test::base_spec(), "loop_order: output_stationary\n    tiling: {m: 8, n: 8, k: 8}\n",
                    "loop_order: output_stationary\n    tiling: {m: 8, n: 16, k: 8}\n") +
      "kernels: [matmul, attention]\n";
  std::string e = test::error_of([&] { parse_spec_text(misaligned, "s.yaml"); });
  EXPECT_NE(e.find("s.yaml:15:1: field 'kernels': attention kernel: an output-stationary array b holds the whole O tile"),
            std::string::npos) << e;
  // Array b's head-dim tile (16) does not divide array a's (8).
  const std::string wide_b = test::replace(test::base_spec(), "b:\n    loop_order: output_stationary\n    tiling: {m: 8, n: 8, k: 8}",
                                           "b:\n    loop_order: weight_stationary\n    tiling: {m: 8, n: 16, k: 8}") +
                             "kernels: [matmul, attention]\ncaches: {acc_b: 4096}\n";
  e = test::error_of([&] { parse_spec_text(wide_b, "s.yaml"); });
  EXPECT_NE(e.find("attention kernel: needs arrays.b.tiling {m, n, k} dividing arrays.a.tiling"), std::string::npos) << e;
  e = test::error_of([&] { parse_spec_text(test::base_spec() + "kernels: [matmul, ffn2]\n", "s.yaml"); });
  EXPECT_NE(e.find("field 'kernels[1]': expected matmul or attention, got 'ffn2'"), std::string::npos) << e;
  e = test::error_of([&] { parse_spec_text(test::base_spec() + "kernels: [attention]\n", "s.yaml"); });
  EXPECT_NE(e.find("expected matmul in the list"), std::string::npos) << e;
}

}  // namespace
}  // namespace fsgen
