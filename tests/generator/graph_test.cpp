#include "generator/graph.h"

#include "test_util.h"

namespace fsgen {
namespace {

Graph graph_of(const std::string& example) { return elaborate(parse_spec_file("examples/" + example + ".yaml")); }

TEST(Graph, OutputStationaryKeepsPartialSumsInThePes) {
  const Graph g = graph_of("os_8x8");
  EXPECT_EQ(g.array_a.stationarity, Stationarity::kOutput);
  EXPECT_EQ(g.array_a.move_a, Movement::kBroadcast);
  EXPECT_EQ(g.array_a.move_b, Movement::kBroadcast);
  EXPECT_EQ(g.array_a.move_c, Movement::kStationary);
  EXPECT_EQ(g.array_a.acc_slots, 0u);
  EXPECT_FALSE(g.has_block("acc_a"));
  EXPECT_EQ(g.block("array_a").kind, "pe_array_os");
  EXPECT_EQ(g.block("array_a").param("rows"), 8);
  EXPECT_EQ(g.memory.beat_bytes, 8u);
}

TEST(Graph, WeightStationaryReducesIntoTheAccumulatorCache) {
  const Graph g = graph_of("ws_8x16");
  EXPECT_EQ(g.array_a.move_b, Movement::kStationary);
  EXPECT_EQ(g.array_a.move_a, Movement::kBroadcast);
  EXPECT_EQ(g.array_a.move_c, Movement::kAccumulated);
  EXPECT_EQ(g.array_a.acc_slots, 8u);  // 4096 B / (8 x 16 x 4 B)
  EXPECT_EQ(g.array_a.stationary_rows, 8u);
  EXPECT_EQ(g.array_a.y_lanes, 16u);
  EXPECT_EQ(g.block("acc_a").param("slots"), 8);
}

TEST(Graph, InputStationaryStreamsColumnsOfB) {
  const Graph g = graph_of("is_16x8");
  EXPECT_EQ(g.array_a.move_a, Movement::kStationary);
  EXPECT_EQ(g.array_a.stream_cycles, 8u);   // tile_n columns
  EXPECT_EQ(g.array_a.stationary_rows, 16u);  // tile_m rows of A
  EXPECT_EQ(g.array_a.spec.pe_rows(), 16u);
  EXPECT_EQ(g.array_a.spec.pe_cols(), 16u);
}

TEST(Graph, ProbesCoverEveryBlockWithPorts) {
  const Graph g = graph_of("ws_8x16");
  std::vector<std::string> names;
  for (const auto& p : g.probes()) names.push_back(p.block + "." + p.port);
  EXPECT_EQ(names, (std::vector<std::string>{"dma.rdata", "dma.wdata", "array_a.x", "array_a.w", "array_a.y",
                                             "requant.in", "requant.out", "array_b.x", "array_b.w", "array_b.y",
                                             "softmax.in", "softmax.out", "normalise.in", "normalise.out"}));
  EXPECT_EQ(g.block("array_a").port("y").width_bits, 16u * 32u);
  // Weight-stationary array b: V rows (head dim 8) into the PEs, P rows (16 keys) streamed.
  EXPECT_EQ(g.block("array_b").port("w").width_bits, 8u * 8u);
  EXPECT_EQ(g.block("array_b").port("x").width_bits, 16u * 8u);
  EXPECT_EQ(g.block("array_b").port("y").width_bits, 8u * 32u);
  EXPECT_TRUE(g.has_block("acc_b"));
}

}  // namespace
}  // namespace fsgen
