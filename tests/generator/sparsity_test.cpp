// Sparse tilings, Algorithm 1 and the network topologies (src/generator/sparsity.h),
// the sparse array's SystemC model, and the Verilator cross-check of its RTL.
#include "generator/sparsity.h"

#include <filesystem>
#include <sstream>

#include "compiler/attention.h"
#include "compiler/matmul.h"
#include "core/attention_numerics.h"
#include "core/compression.h"
#include "generator/graph.h"
#include "models/platform.h"
#include "sim/cosim.h"
#include "flow/tools.h"
#include "test_util.h"

namespace fsgen {
namespace {

struct SparseDesign {
  std::string loop_order = "output_stationary";
  std::string movement = "broadcast";
  uint32_t m = 8, n = 8, k = 16;
  std::string tilings;   // body of sparse_tiling, e.g. {n: "1:8:8:8", k: "1:1:4:4"}
  std::string mappings;  // YAML list items, one per line
  std::string kernels = "[matmul]";
  uint32_t acc_tiles = 1;  // m x n INT32 tiles of the accumulator cache (dot arrays)
  uint32_t outstanding = 8;  // memory.outstanding
  uint32_t operand_tiles = 0;  // memory.operand_tiles of A and of B (0: the default)
};

std::string spec_text(const SparseDesign& d) {
  std::ostringstream o;
  o << "clock_mhz: 1000\npe_budget: 1024\n"
    << "memory: {bandwidth_gbps: 8, latency_cycles: 4, buffer_limit_bytes: 65536, outstanding: " << d.outstanding
    << (d.operand_tiles ? ", operand_tiles: {a: " + std::to_string(d.operand_tiles) + ", b: " +
                              std::to_string(d.operand_tiles) + "}"
                        : std::string())
    << "}\n"
    << "arrays:\n  a:\n    loop_order: " << d.loop_order << "\n    movement: " << d.movement
    << "\n    tiling: {m: " << d.m << ", n: " << d.n << ", k: " << d.k << "}\n";
  if (!d.tilings.empty()) o << "    sparse_tiling: " << d.tilings << "\n";
  o << "  b:\n    loop_order: output_stationary\n    tiling: {m: 8, n: 8, k: 8}\n"
    << "caches: {acc_a: " << d.m * d.n * 4 * d.acc_tiles << "}\n"
    << "kernels: " << d.kernels << "\n";
  if (!d.mappings.empty()) o << "sparsity:\n" << d.mappings;
  // A name of its own per design: cross-checks running side by side keep their RTL apart.
  char name[32];
  std::snprintf(name, sizeof name, "sparse_%016zx", std::hash<std::string>{}(o.str()));
  return "name: " + std::string(name) + "\n" + o.str();
}

SparsePlan plan_of(const SparseDesign& d) { return plan_sparsity(parse_spec_text(spec_text(d), "sparse.yaml")); }

const std::string kSkipW = "  - {kind: compute_value, tensor: w, condition: \"w==0\"}\n";
const std::string kSkipX = "  - {kind: compute_value, tensor: x, condition: \"x==0\"}\n";

SparseDesign os_w(const std::string& tilings, const std::string& movement = "broadcast") {
  SparseDesign d;
  d.movement = movement;
  d.tilings = tilings;
  d.mappings = kSkipW;
  return d;
}

// Weight-stationary array of 8 lanes holding a k tile of 16 in 8 MACs each (TT_k = 8),
// skipping both operands; T_k = 4 of TT_k = 8 gives copies (c = 2).
SparseDesign ws_both(const std::string& n_tiling) {
  SparseDesign d;
  d.loop_order = "weight_stationary";
  d.k = 16;
  d.tilings = "{n: \"" + n_tiling + "\", k: \"4:8:16:16\"}";
  d.mappings = kSkipX + kSkipW;
  return d;
}

// The compressed weight-stationary array that is built: only w sparse, an N:M condition.
SparseDesign ws_w(const std::string& k_tiling, const std::string& condition) {
  SparseDesign d = ws_both("1:8:8:8");
  d.tilings = "{n: \"1:8:8:8\", k: \"" + k_tiling + "\"}";
  d.mappings = "  - {kind: compute_value, tensor: w, condition: \"" + condition + "\"}\n";
  d.acc_tiles = 4;
  return d;
}

TEST(Sparsity, EveryTopologyOfThePaperIsReachable) {
  SparseDesign dense_ws;
  dense_ws.loop_order = "weight_stationary";
  SparseDesign systolic;
  systolic.movement = "systolic";
  const std::vector<std::pair<std::string, std::string>> reached = {
      {"1a", plan_of(dense_ws).a.net_w.topology},  // stationary loads, one PE row each
      {"1b", plan_of(os_w("{n: \"1:8:8:8\", k: \"1:1:4:4\"}")).a.net_x.topology},
      {"1c", plan_of(os_w("{m: \"4:8:8:8\", n: \"1:8:8:8\", k: \"1:1:4:4\"}")).a.net_x.topology},
      {"1d", plan_of(ws_both("1:8:8:8")).a.net_x.topology},
      {"1e", plan_of(ws_both("1:8:8:8")).a.net_w.topology},
      {"2a", plan_of(SparseDesign{}).a.net_x.topology},
      {"2b", plan_of(os_w("{k: \"1:1:4:4\"}")).a.net_x.topology},
      {"2c", plan_of(os_w("{m: \"4:8:8:8\", k: \"1:1:4:4\"}")).a.net_x.topology},
      {"2e", plan_of(os_w("{n: \"2:8:8:8\", k: \"1:1:4:4\"}")).a.net_x.topology},
      {"3a", plan_of(systolic).a.net_x.topology},
      {"3b", plan_of(os_w("{k: \"1:1:4:4\"}", "systolic")).a.net_x.topology},
      {"3c", plan_of(os_w("{m: \"4:8:8:8\", k: \"1:1:4:4\"}", "systolic")).a.net_x.topology},
      {"3d", plan_of(os_w("{n: \"1:8:8:8\", k: \"1:1:4:4\"}", "systolic")).a.net_x.topology},
      {"3e", plan_of(os_w("{m: \"4:8:8:8\", n: \"1:8:8:8\", k: \"1:1:4:4\"}", "systolic")).a.net_x.topology}};
  std::vector<std::string> cells;
  for (const auto& [want, got] : reached) {
    EXPECT_EQ(got, want);
    cells.push_back(got);
  }
  EXPECT_EQ(cells, all_topologies());
}

TEST(Sparsity, AlgorithmOneDerivesNetworkParameters) {
  // Columns in lanes of 2 under w==0: x values go to 4 lanes, each multicast to 2 PEs;
  // the w network is grouped like the lanes.
  const ArraySparsity s = plan_of(os_w("{n: \"2:8:8:8\", k: \"1:1:4:4\"}")).a;
  const NetworkParams& x = s.net_x.params;
  EXPECT_EQ(x.lanes, 4u);
  EXPECT_EQ(x.m, 2u);
  EXPECT_EQ(x.i, 4u);
  EXPECT_EQ(x.o, 1u);
  EXPECT_EQ(x.c, 1u);
  EXPECT_EQ(s.net_w.params.g, 4u);
  EXPECT_EQ(s.net_w.params.m, 8u);
  EXPECT_EQ(s.lanes_n(), 4u);
  EXPECT_EQ(s.lanes_m(), 1u);
  EXPECT_EQ(s.name(), "4G_2e2c");
}

TEST(Sparsity, DesignNameFollowsThePaper) {
  SparseDesign d = os_w("{m: \"4:8:8:8\", k: \"1:1:4:4\"}");
  EXPECT_EQ(plan_of(d).a.name(), "2G_2c2b");
  d.mappings = kSkipX + kSkipW;
  d.tilings = "{m: \"1:8:8:8\", n: \"1:8:8:8\", k: \"1:1:2:2\"}";
  EXPECT_EQ(plan_of(d).a.name(), "8G_1c1c");
}

TEST(Sparsity, TilingStringsAreChecked) {
  EXPECT_EQ(parse_sparse_tiling("2:8:16:32", "here").text(), "2:8:16:32");
  EXPECT_NE(test::error_of([] { parse_sparse_tiling("2:8:16", "here"); }).find("T:TT:S:SS"), std::string::npos);
  EXPECT_NE(test::error_of([] { parse_sparse_tiling("0:8:8:8", "here"); }).find("positive"), std::string::npos);
  // `_` levels take the array's extent, whatever its tiling: the same string on two arrays.
  EXPECT_NE(test::error_of([] { parse_sparse_tiling("2:8:8:_", "here"); }).find("T:TT:S:SS"), std::string::npos);
  for (uint32_t n : {8u, 16u}) {
    SparseDesign d = os_w("{n: \"_:_:_:64\", k: \"1:1:4:4\"}");
    d.n = n;
    EXPECT_EQ(plan_of(d).a.tiling[1].text(),
              std::to_string(n) + ":" + std::to_string(n) + ":" + std::to_string(n) + ":64");
  }
}

TEST(Sparsity, InvalidCombinationsSayWhy) {
  auto error = [](const SparseDesign& d) { return test::error_of([&] { plan_of(d); }); };
  SparseDesign d = ws_both("1:8:8:8");
  d.mappings = kSkipX;  // x is then broadcast to all 8 lanes while copied twice
  EXPECT_NE(error(d).find("copy c=2 and multicast m=8 both above one"), std::string::npos) << error(d);
  d = os_w("{n: \"1:8:12:12\", k: \"1:1:4:4\"}");
  EXPECT_NE(error(d).find("S not a multiple of TT"), std::string::npos) << error(d);
  d = ws_w("4:8:8:8", "2:4");
  EXPECT_NE(error(d).find("on a dot array S is the k tile each lane holds: expected S = 16"), std::string::npos) << error(d);
  d = ws_w("6:6:16:16", "2:4");
  EXPECT_NE(error(d).find("TT (MACs per lane) must divide the k tile 16"), std::string::npos) << error(d);
  d = os_w("{n: \"1:4:4:4\", k: \"1:1:4:4\"}");
  EXPECT_NE(error(d).find("TT must be the array's extent along n per cycle, 8 PEs"), std::string::npos) << error(d);
  d = os_w("{n: \"3:8:8:8\", k: \"1:1:4:4\"}");
  EXPECT_NE(error(d).find("T must divide TT"), std::string::npos) << error(d);
  d = os_w("");
  EXPECT_NE(error(d).find("needs a value network"), std::string::npos) << error(d);
  d = os_w("{k: \"1:1:4:4\"}");
  d.mappings = "";
  EXPECT_NE(error(d).find("no compute_value mapping binds to array a"), std::string::npos) << error(d);
  d = os_w("{k: \"1:1:4:4\"}");
  d.mappings = "  - {kind: compute_value, tensor: q, condition: \"q==0\"}\n";
  EXPECT_NE(error(d).find("attention kernel, which this design does not build"), std::string::npos) << error(d);
  d.mappings = "  - {kind: compute_value, tensor: w, condition: \"x==0\"}\n";
  EXPECT_NE(error(d).find("expected w==0 or an N:M pattern"), std::string::npos) << error(d);
  d.mappings = "  - {kind: compute_value, tensor: w, condition: \"2:8\"}\n";
  EXPECT_NE(error(d).find("must be a multiple of M=8"), std::string::npos) << error(d);
  d.mappings = kSkipW + kSkipW;
  EXPECT_NE(error(d).find("second compute_value mapping"), std::string::npos) << error(d);
  d = os_w("{k: \"1:1:128:128\"}");
  d.k = 128;
  EXPECT_NE(error(d).find("at most 64"), std::string::npos) << error(d);
  d = os_w("{k: \"1:1:3:3\"}");
  EXPECT_NE(error(d).find("must divide the k tile 16"), std::string::npos) << error(d);
}

Graph graph_of(const SparseDesign& d) { return elaborate(parse_spec_text(spec_text(d), "sparse.yaml")); }

TEST(Sparsity, UnbuiltHardwareIsRefusedByName) {
  auto error = [](const SparseDesign& d) { return test::error_of([&] { graph_of(d); }); };
  const std::string e = error(ws_both("1:8:8:8"));
  EXPECT_NE(e.find("sparse design 8G_1d1e"), std::string::npos) << e;
  EXPECT_NE(e.find("skipping zero x (the streamed operand) on a dot array is elaborated but not yet built"),
            std::string::npos) << e;
  SparseDesign topk;
  topk.kernels = "[matmul, attention]";
  topk.k = 8;  // array b is 8 x 8 x 8
  topk.mappings = "  - {kind: compute_group, tensor: k, condition: topk, block: 4, topk: 1}\n";
  EXPECT_NE(error(topk).find("block TopK with blocks of 4 keys (built: one key tile, block = 8) is elaborated but not"),
            std::string::npos)
      << error(topk);
}

// Block TopK: the candidates are the key tiles before the query tile's own (all without
// the causal mask), from a sliding window's first; the best scores win, the earlier on a tie.
TEST(BlockTopK, CandidatesAndSelection) {
  num::KeyTileChoice c = num::key_tile_candidates(true, 0, 40, 8, 64);
  EXPECT_EQ(c.first, 0u);
  EXPECT_EQ(c.own, 5u);
  c = num::key_tile_candidates(true, 20, 40, 8, 64);  // sees keys 21..40: tiles 2..5
  EXPECT_EQ(c.first, 2u);
  EXPECT_EQ(c.own, 5u);
  c = num::key_tile_candidates(false, 0, 40, 8, 60);  // bidirectional: every tile is a candidate
  EXPECT_EQ(c.own, 8u);
  EXPECT_EQ(num::top_key_tiles({5, -3, 9, 5}, 2, 2), (std::vector<uint32_t>{2, 4}));
  EXPECT_EQ(num::top_key_tiles({5, -3, 9, 5}, 2, 3), (std::vector<uint32_t>{2, 4, 5}));
  EXPECT_EQ(num::top_key_tiles({1, 1}, 0, 1), (std::vector<uint32_t>{0}));
  EXPECT_EQ(num::top_key_tiles({1}, 0, 4), (std::vector<uint32_t>{0}));
  const std::vector<int8_t> k = {2, -4, 3, -5, -128, 127};  // 3 keys of 2 dims
  EXPECT_EQ(num::pooled_key(k, 0, 3, 2), (std::vector<int8_t>{-41, 39}));  // -123 / 3, 118 / 3 rounded
  const std::vector<int8_t> q = {1, 2, 3, 4};
  const int8_t pool[2] = {10, -1};
  EXPECT_EQ(num::key_tile_score(q, 0, 2, pool, 2), (1 + 3) * 10 - (2 + 4));
}

// The loop visits the kept tiles and the own one: fewer K and V bytes, fewer cycles, and
// the reference with the same choice.
TEST(BlockTopK, SkipsTheKeyTilesItDoesNotKeep) {
  const Graph g = elaborate(parse_spec_file("examples/topk_attn_8x8.yaml"));
  EXPECT_TRUE(g.sparse.timing_depends_on_data());
  AttentionProblem p;
  p.q_heads = 4;
  p.kv_heads = 2;
  p.tokens = 64;
  const CompiledAttention c = compile_attention(g, p);
  const RunResult r = run_on_systemc(g, c.program);
  EXPECT_EQ(r.outputs.at("O"), c.expected);
  const SparseActivity& dma = r.sparse.at("dma");
  EXPECT_GT(dma.topk_bytes, 0u);
  EXPECT_EQ(dma.pool_bytes, 4u * (0 + 1 + 2 + 3 + 4 + 5 + 6 + 7) * 16);  // heads x candidates x head dim
  std::string text = read_text_file("examples/topk_attn_8x8.yaml");
  text = text.substr(0, text.find("sparsity:"));
  const Graph dense = elaborate(parse_spec_text(text, "dense.yaml"));
  const CompiledAttention cd = compile_attention(dense, p);
  EXPECT_LT(r.cycles, run_on_systemc(dense, cd.program).cycles);
  EXPECT_NE(c.expected, cd.expected);  // the tiles passed over change the result
  p.tokens = 72;  // nine key tiles: more than the network ranks
  EXPECT_NE(test::error_of([&] { compile_attention(g, p); }).find("ranks 8 key tiles per head"), std::string::npos);
}


// A compressed lane keeps T_k of every S_k / c weights: the w condition must promise no more.
TEST(Sparsity, CompressedLanesNeedAFittingPattern) {
  auto error = [](const SparseDesign& d) { return test::error_of([&] { graph_of(d); }); };
  EXPECT_NE(error(ws_w("2:8:16:16", "w==0")).find("hold 2 of every 4 k rows of w; expected an N:M pattern"),
            std::string::npos) << error(ws_w("2:8:16:16", "w==0"));
  EXPECT_NE(error(ws_w("2:8:16:16", "3:4")).find("at most 2 non-zeros in 4"), std::string::npos);
  EXPECT_NE(error(ws_w("8:8:16:16", "2:3")).find("S_k=16 must be a multiple of M=3"), std::string::npos)
      << error(ws_w("8:8:16:16", "2:3"));
  EXPECT_EQ(graph_of(ws_w("8:8:16:16", "1:2")).sparse.a.name(), "8G_1b1c");
}

MatmulProblem sparse_problem(double zeros, bool in_a, bool in_b, uint64_t seed) {
  MatmulProblem p;
  p.m = 16;
  p.n = 16;
  p.k = 32;
  p.values.zero_fraction = zeros;
  p.zeros_in_a = in_a;
  p.zeros_in_b = in_b;
  p.seed = seed;
  p.req_mult = 3;
  p.req_shift = 8;
  return p;
}

// 2:4 weights with every column its own lane: each window of 4 k steps takes 2 cycles.
TEST(Sparsity, StructuredWeightsHalveTheStream) {
  const Graph g = graph_of(os_w("{n: \"1:8:8:8\", k: \"1:1:4:4\"}"));
  MatmulProblem p = sparse_problem(0.0, false, true, 3);
  p.pattern = {2, 4};
  const Program prog = compile_matmul(g, p);
  const RunResult r = run_on_systemc(g, prog);
  EXPECT_EQ(r.outputs.at("C"), matmul_expected(prog, p));
  const SparseActivity& s = r.sparse.at("array_a");
  EXPECT_EQ(s.dense_cycles, 2u * 2 * 32);  // 2 x 2 output tiles, 32 k steps each
  EXPECT_EQ(s.stream_cycles, s.dense_cycles / 2);
  EXPECT_EQ(s.lane_issues, s.lane_slots);  // perfectly balanced lanes
}

// One lane for all columns (2b): a step is skipped only when a whole row of w is zero,
// so random zeros barely help while per-column lanes (1b) do.
TEST(Sparsity, MulticastLanesSkipLessThanUnicast) {
  const MatmulProblem p = sparse_problem(0.5, false, true, 5);
  auto stream = [&](const std::string& tilings) {
    const Graph g = graph_of(os_w(tilings));
    const Program prog = compile_matmul(g, p);
    const RunResult r = run_on_systemc(g, prog);
    EXPECT_EQ(r.outputs.at("C"), matmul_expected(prog, p));
    return r.sparse.at("array_a").stream_cycles;
  };
  const uint64_t multicast = stream("{k: \"1:1:4:4\"}");
  const uint64_t unicast = stream("{n: \"1:8:8:8\", k: \"1:1:4:4\"}");
  EXPECT_LT(unicast, multicast);
  EXPECT_LE(multicast, 2u * 2 * 32);
}

// 2:4 weights in lanes of 8 MACs for a k tile of 16: the cycles of the dense array with
// 16 MACs per lane, half its PEs, every slot holding a non-zero weight.
TEST(Sparsity, CompressedLanesHoldTheKTileInHalfTheMacs) {
  const Graph g = graph_of(ws_w("2:8:16:16", "2:4"));
  SparseDesign dense_ws = ws_w("2:8:16:16", "2:4");
  dense_ws.tilings = dense_ws.mappings = "";
  const Graph dense = graph_of(dense_ws);
  EXPECT_EQ(g.sparse.a.name(), "8G_1d1e");
  EXPECT_EQ(g.array_a.spec.pe_count() * 2, dense.array_a.spec.pe_count());
  EXPECT_FALSE(g.sparse.timing_depends_on_data());
  MatmulProblem p = sparse_problem(0.0, false, true, 23);
  p.pattern = {2, 4};
  const Program prog = compile_matmul(g, p);
  const RunResult r = run_on_systemc(g, prog), rd = run_on_systemc(dense, compile_matmul(dense, p));
  EXPECT_EQ(r.outputs.at("C"), matmul_expected(prog, p));
  EXPECT_EQ(r.cycles, rd.cycles);
  const SparseActivity& s = r.sparse.at("array_a");
  EXPECT_EQ(s.dense_cycles, 2 * s.stream_cycles);
  EXPECT_EQ(s.lane_issues, s.lane_slots);
  p.pattern = {};  // dense weights do not fit
  EXPECT_NE(test::error_of([&] { compile_matmul(g, p); }).find("the lanes of design"), std::string::npos);
}

// A systolic array takes the same picks through skew registers: the same windows and
// sums, and every tile's stream m + n - 2 cycles longer (the drain).
TEST(Sparsity, SystolicStreamIsTheBroadcastStreamPlusItsDrain) {
  const std::string tilings = "{m: \"4:8:8:8\", n: \"1:8:8:8\", k: \"1:1:4:4\"}";
  // One tile of each operand: every phase one after another, so the drain adds to the kernel
  // (with two, the next tile's loads run beside the pass and hide part of it).
  SparseDesign broadcast = os_w(tilings), systolic = os_w(tilings, "systolic");
  broadcast.mappings = systolic.mappings = kSkipX + kSkipW;
  broadcast.operand_tiles = systolic.operand_tiles = 1;
  const MatmulProblem p = sparse_problem(0.5, true, true, 17);
  const Graph gb = graph_of(broadcast), gs = graph_of(systolic);
  EXPECT_EQ(gs.sparse.a.name(), "8G_3e3e");
  const Program pb = compile_matmul(gb, p), ps = compile_matmul(gs, p);
  const RunResult rb = run_on_systemc(gb, pb), rs = run_on_systemc(gs, ps);
  EXPECT_EQ(rs.outputs.at("C"), matmul_expected(ps, p));
  const SparseActivity &sb = rb.sparse.at("array_a"), &ss = rs.sparse.at("array_a");
  const uint64_t tiles = 2 * 2 * 2, drain = 8 + 8 - 2;  // 2 x 2 output tiles, 2 k tiles each
  EXPECT_EQ(ss.windows, sb.windows);
  EXPECT_EQ(ss.lane_issues, sb.lane_issues);
  EXPECT_EQ(ss.stream_cycles, sb.stream_cycles + tiles * drain);
  EXPECT_EQ(ss.dense_cycles, sb.dense_cycles + tiles * drain);
  EXPECT_EQ(rs.cycles, rb.cycles + tiles * drain);
}

void expect_cross_check(const SparseDesign& d, const MatmulProblem& p) {
  if (!test::have_tool("verilator")) GTEST_SKIP() << "verilator not installed (scripts/install-deps.sh)";
  const Graph g = graph_of(d);
  const CosimReport rep = cosim_matmul(g, p, test::rtl_root());
  std::ostringstream table;
  print_cosim(rep, table);
  EXPECT_TRUE(rep.pass()) << table.str();
  EXPECT_GE(rep.checks.size(), 6u) << table.str();
}

// The CI slice of the sparse cross-check (the full matrix: make validate).
TEST(SparsityCosim, UnicastWeightSkipping) {
  expect_cross_check(os_w("{n: \"1:8:8:8\", k: \"1:1:4:4\"}"), sparse_problem(0.5, false, true, 7));
}

TEST(SparsityCosim, BothOperandsInGroupedLanes) {
  SparseDesign d = os_w("{m: \"4:8:8:8\", n: \"2:8:8:8\", k: \"1:1:8:8\"}");
  d.mappings = kSkipX + kSkipW;
  expect_cross_check(d, sparse_problem(0.9, true, true, 11));
}

// Systolic networks (row 3 of the paper's table): x 3e, w 3e, skew registers in front of the grid.
TEST(SparsityCosim, SystolicMixedNetworks) {
  SparseDesign d = os_w("{m: \"4:8:8:8\", n: \"2:8:8:8\", k: \"1:1:8:8\"}", "systolic");
  d.mappings = kSkipX + kSkipW;
  EXPECT_EQ(plan_of(d).a.name(), "4G_3e3e");
  expect_cross_check(d, sparse_problem(0.5, true, true, 19));
}

// Compressed weight-stationary lanes (x network 1d, w network 1e) on 2:4 weights, and in
// the fused kernels on 2:4 keys (their lanes hold key tiles).
TEST(SparsityCosim, CompressedWeightStationaryLanes) {
  MatmulProblem p = sparse_problem(0.5, false, true, 29);
  p.pattern = {2, 4};
  expect_cross_check(ws_w("2:8:16:16", "2:4"), p);
  const Graph g = elaborate(parse_spec_file("examples/sparse_ws_nm.yaml"));
  AttentionProblem a;
  a.q_heads = 4;
  a.kv_heads = 2;
  a.tokens = 21;  // a partial last key tile: its lanes beyond the keys hold stale rows
  a.key_pattern = {2, 4};
  const CosimReport rep = cosim_attention(g, a, test::rtl_root());
  std::ostringstream table;
  print_cosim(rep, table);
  EXPECT_TRUE(rep.pass()) << table.str();
  a.key_pattern = {};
  EXPECT_NE(test::error_of([&] { compile_attention(g, a); }).find("attention K of KV head 0: lane 0"), std::string::npos);
}

AttentionProblem windowed_prefill(uint32_t tokens) {
  AttentionProblem p;
  p.q_heads = 2;
  p.kv_heads = 1;
  p.tokens = tokens;
  p.seed = 3;
  return p;
}

// The section 7.5 arrays: S = Q K^T on an 8x8 array a skipping zero queries and keys.
TEST(SparsityCosim, AttentionScoresSkipZeroQueriesAndKeys) {
  if (!test::have_tool("verilator")) GTEST_SKIP() << "verilator not installed (scripts/install-deps.sh)";
  const Graph g = elaborate(parse_spec_file("examples/sparse_attn_8x8.yaml"));
  EXPECT_FALSE(g.matmul_on_both);  // the sparse array a runs matmuls alone, and fsgen check says why
  EXPECT_NE(g.matmul_alone_why.find("sparse array a"), std::string::npos) << g.matmul_alone_why;
  AttentionProblem p = windowed_prefill(24);
  p.values.zero_fraction = 0.5;
  const CosimReport rep = cosim_attention(g, p, test::rtl_root());
  std::ostringstream table;
  print_cosim(rep, table);
  EXPECT_TRUE(rep.pass()) << table.str();
}

// Memory-value sparsity: tile rows of a compressed operand that are all zeros are not fetched.
TEST(Compression, RowMetadataMarksNonZeroRowsTileByTile) {
  // 4 x 4 matrix, 2 x 2 tiles: rows 1 and 2 zero in the left tiles, row 3 zero on the right.
  const std::vector<int8_t> m = {1, 0, 5, 6,  //
                                 0, 0, 7, 0,  //
                                 0, 0, 8, 8,  //
                                 0, 3, 0, 0};
  EXPECT_EQ(metadata_record_bytes(2, 4), 4u);
  EXPECT_EQ(metadata_record_bytes(17, 2), 4u);
  const std::vector<int8_t> meta = row_metadata(m, 4, 4, 2, 2, 1);
  EXPECT_EQ(meta, (std::vector<int8_t>{0b01, 0b11, 0b10, 0b01}));
}

SparseDesign compressed(const std::string& tensors) {
  SparseDesign d;
  for (char t : tensors)
    d.mappings += std::string("  - {kind: memory_value, tensor: ") + t + ", condition: \"" + t + "==0\"}\n";
  return d;
}

// A compressed operand's rows follow its metadata record: its buffer has one slot, and
// asking for more is an error at the field; the other operand keeps two.
TEST(Compression, ACompressedOperandHasOneBufferSlot) {
  const Graph g = graph_of(compressed("w"));
  EXPECT_EQ(g.b_slots, 1u);
  EXPECT_EQ(g.a_slots, 2u);
  EXPECT_NE(g.single_buffered_why.find("metadata record"), std::string::npos) << g.single_buffered_why;
  const std::string text = test::replace(spec_text(compressed("w")), "outstanding: 8}",
                                         "outstanding: 8, operand_tiles: {b: 2}}");
  const std::string e = test::error_of([&] { elaborate(parse_spec_text(text, "sparse.yaml")); });
  EXPECT_NE(e.find("memory.operand_tiles.b"), std::string::npos) << e;
  EXPECT_NE(e.find("a compressed B's rows follow its metadata record, loaded before them: expected 1"),
            std::string::npos) << e;
}

TEST(Compression, ZeroRowsAreNotFetched) {
  const Graph g = graph_of(compressed("w"));
  MatmulProblem p = sparse_problem(0.0, false, true, 9);
  std::vector<int8_t> a(size_t(p.m) * p.k, 3), b(size_t(p.k) * p.n, 0);
  for (uint32_t r = 0; r < p.k; r += 4)  // one B row in four is non-zero
    for (uint32_t c = 0; c < p.n; ++c) b[size_t(r) * p.n + c] = int8_t(c + 1);
  const Program prog = compile_matmul(g, p, a, b);
  const RunResult r = run_on_systemc(g, prog);
  EXPECT_EQ(r.outputs.at("C"), matmul_expected(prog, p));
  const SparseActivity& s = r.sparse.at("dma");
  // 2 x 2 output tiles over 2 k tiles of 16 rows x 8 columns; B is reloaded for every tile.
  EXPECT_EQ(s.zero_row_bytes, 2u * 2 * 2 * 12 * 8);
  EXPECT_GT(s.metadata_bytes, 0u);
  const Graph dense = graph_of(SparseDesign{});
  const RunResult rd = run_on_systemc(dense, compile_matmul(dense, p, a, b));
  EXPECT_LT(r.activity.at("dma").operand_bytes, rd.activity.at("dma").operand_bytes);
  // Time: with one burst in flight every row is a round trip, and the rows not fetched save
  // more than the metadata record's. With bursts in flight the rows' beats stream and the
  // record's round trip, ahead of them, costs about what the 12 one-beat rows save.
  SparseDesign one_burst = compressed("w");
  one_burst.outstanding = 1;
  SparseDesign dense_one_burst;
  dense_one_burst.outstanding = 1;
  const Graph g1 = graph_of(one_burst), d1 = graph_of(dense_one_burst);
  EXPECT_LT(run_on_systemc(g1, compile_matmul(g1, p, a, b)).cycles,
            run_on_systemc(d1, compile_matmul(d1, p, a, b)).cycles);
}

TEST(SparsityCosim, CompressedOperandsSkipZeroRows) {
  MatmulProblem p = sparse_problem(0.9, true, true, 13);
  expect_cross_check(compressed("xw"), p);
}

// Memory-group sparsity: a sliding window of W keys (Mistral).
TEST(SlidingWindow, KeyLoopStartsAtTheFirstQuerysWindow) {
  EXPECT_EQ(num::first_key_tile(true, 24, 23, 8), 0u);   // sees keys 0..23
  EXPECT_EQ(num::first_key_tile(true, 24, 24, 8), 0u);   // sees 1..24
  EXPECT_EQ(num::first_key_tile(true, 24, 40, 8), 16u);  // sees 17..40
  EXPECT_EQ(num::first_key_tile(false, 24, 40, 8), 0u);  // the window needs the causal mask
  EXPECT_TRUE(num::key_visible(17, 64, true, 24, 40));
  EXPECT_FALSE(num::key_visible(16, 64, true, 24, 40));
  EXPECT_FALSE(num::key_visible(41, 64, true, 24, 40));
}


TEST(SlidingWindow, SkipsKeyTilesOutsideTheWindow) {
  const Graph g = elaborate(parse_spec_file("examples/sliding_attn.yaml"));
  EXPECT_EQ(g.sliding_window(), 24u);
  const CompiledAttention c = compile_attention(g, windowed_prefill(64));
  EXPECT_EQ(c.params.window, 24u);
  const RunResult windowed = run_on_systemc(g, c.program);
  EXPECT_EQ(windowed.outputs.at(c.program.outputs.front().name), c.expected);
  // The same core without the window attends every earlier key: more key tiles.
  std::string text = read_text_file("examples/sliding_attn.yaml");
  text = text.substr(0, text.find("sparsity:"));
  const Graph full = elaborate(parse_spec_text(text, "full.yaml"));
  const CompiledAttention cf = compile_attention(full, windowed_prefill(64));
  const RunResult r = run_on_systemc(full, cf.program);
  EXPECT_LT(windowed.cycles, r.cycles);
  EXPECT_LT(windowed.activity.at("dma").operand_bytes, r.activity.at("dma").operand_bytes);
  EXPECT_NE(c.expected, cf.expected);  // the window changes the result
}

TEST(SlidingWindowCosim, PrefillMatchesTheRtl) {
  if (!test::have_tool("verilator")) GTEST_SKIP() << "verilator not installed (scripts/install-deps.sh)";
  const Graph g = elaborate(parse_spec_file("examples/sliding_attn.yaml"));
  const CosimReport rep = cosim_attention(g, windowed_prefill(45), test::rtl_root());
  std::ostringstream table;
  print_cosim(rep, table);
  EXPECT_TRUE(rep.pass()) << table.str();
}

TEST(BlockTopKCosim, PrefillAndDecodeMatchTheRtl) {
  if (!test::have_tool("verilator")) GTEST_SKIP() << "verilator not installed (scripts/install-deps.sh)";
  const Graph g = elaborate(parse_spec_file("examples/topk_attn_8x8.yaml"));
  AttentionProblem p;
  p.q_heads = 4;
  p.kv_heads = 2;
  p.tokens = 45;
  for (const Stage stage : {Stage::kPrefill, Stage::kDecode}) {
    p.stage = stage;
    if (stage == Stage::kDecode) p.tokens = 1, p.context = 50;
    const CosimReport rep = cosim_attention(g, p, test::rtl_root());
    std::ostringstream table;
    print_cosim(rep, table);
    EXPECT_TRUE(rep.pass()) << table.str();
  }
}

}  // namespace
}  // namespace fsgen
