// The CI slice of the Verilator cross-check (the full matrix: make validate).
#include "sim/cosim.h"

#include <filesystem>
#include <sstream>

#include "flow/verilator.h"
#include "test_util.h"

namespace fsgen {
namespace {

// Cross-checks one kernel on an example design; min_checks: output, cycles and the
// design's probed ports.
template <typename Problem, typename Cosim>
void expect_pass_on(const Graph& g, const Problem& p, Cosim cosim, size_t min_checks) {
  if (!test::have_tool("verilator")) GTEST_SKIP() << "verilator not installed (scripts/install-deps.sh)";
  const CosimReport rep = cosim(g, p, test::rtl_root(), "");
  std::ostringstream table;
  print_cosim(rep, table);
  EXPECT_TRUE(rep.pass()) << table.str();
  EXPECT_GE(rep.checks.size(), min_checks) << table.str();
}

template <typename Problem, typename Cosim>
void expect_pass(const std::string& example, const Problem& p, Cosim cosim, size_t min_checks) {
  expect_pass_on(elaborate(parse_spec_file("examples/" + example + ".yaml")), p, cosim, min_checks);
}

void expect_cosim_pass(const std::string& example, const MatmulProblem& p) { expect_pass(example, p, cosim_matmul, 7); }

MatmulProblem problem(uint32_t m, uint32_t n, uint32_t k, double zeros, uint64_t seed) {
  MatmulProblem p;
  p.m = m;
  p.n = n;
  p.k = k;
  p.values.zero_fraction = zeros;
  p.seed = seed;
  p.req_mult = 3;
  p.req_shift = 8;
  return p;
}

// os_8x8 runs matmul on both arrays (16-column tiles).
TEST(Cosim, OutputStationaryOnBothArrays) { expect_cosim_pass("os_8x8", problem(16, 48, 32, 0.0, 1)); }
TEST(Cosim, WeightStationaryHalfZeros) { expect_cosim_pass("ws_8x16", problem(24, 32, 16, 0.5, 2)); }
// M not a whole number of tiles: the last m tile's rows past M are neither fetched nor
// stored, and the feeds read them as zeros (A stationary; A skewed into a systolic array).
TEST(Cosim, InputStationaryMostlyZerosPartialRows) { expect_cosim_pass("is_16x8", problem(29, 16, 48, 0.9, 3)); }
TEST(Cosim, SystolicArraysPartialRows) { expect_cosim_pass("systolic_16x8", problem(27, 16, 48, 0.5, 6)); }
TEST(Cosim, ExplicitLoopOrderWithLiveTiles) { expect_cosim_pass("explicit_16x16", problem(32, 32, 32, 0.0, 4)); }
// The activation epilogue: each stored row through the softmax unit (gated: the W1 tile's
// activations held in p_buf, the W3 tile's gate product stored); the unit's ports checked too.
TEST(Cosim, GatedActivationEpilogue) {
  MatmulProblem p = problem(21, 32, 48, 0.3, 7);
  p.epilogue.activation = "silu";
  p.epilogue.gated = true;
  expect_pass("is_16x8", p, cosim_matmul, 14);
}

// --vcd: the RTL run's waveform, written whole (no partial file beside it), the run unchanged.
TEST(Cosim, WritesTheRtlWaveformOnRequest) {
  if (!test::have_tool("verilator")) GTEST_SKIP() << "verilator not installed";
  const Graph g = elaborate(parse_spec_file("examples/os_8x8.yaml"));
  const std::string vcd = test::scratch_dir("cosim_vcd") + "/run.vcd";
  const CosimReport rep = cosim_matmul(g, problem(8, 16, 8, 0.0, 5), test::rtl_root(), vcd);
  EXPECT_TRUE(rep.pass());
  ASSERT_TRUE(std::filesystem::exists(vcd));
  EXPECT_FALSE(std::filesystem::exists(vcd + ".tmp"));
  const std::string text = read_text_file(vcd);
  EXPECT_NE(text.find("$enddefinitions"), std::string::npos);
  EXPECT_NE(text.find("u_array_a"), std::string::npos);
}

TEST(Cosim, ADisagreementIsReported) {
  if (!test::have_tool("verilator")) GTEST_SKIP() << "verilator not installed";
  const Graph g = elaborate(parse_spec_file("examples/os_8x8.yaml"));
  const MatmulProblem p = problem(8, 16, 8, 0.0, 5);
  const Program prog = compile_matmul(g, p);
  RunResult rtl = run_on_verilator(g, prog, test::rtl_root());
  RunResult sc = rtl;  // start identical, then disturb one byte and the cycle count
  sc.outputs["C"][3] ^= 1;
  sc.cycles += 1;
  const CosimReport rep = compare_runs(g, prog, matmul_expected(prog, p), sc, rtl);
  EXPECT_FALSE(rep.pass());
  EXPECT_FALSE(rep.checks[0].pass);
  EXPECT_EQ(rep.checks[0].systemc, "1 of 128 bytes differ");
  EXPECT_FALSE(rep.checks[1].pass);
}

}  // namespace
}  // namespace fsgen

namespace fsgen {
namespace {

void expect_attention_pass(const std::string& example, const AttentionProblem& p) {
  expect_pass(example, p, cosim_attention, 12);  // output, cycles, ten probed ports
}

TEST(CosimAttention, PrefillGqaWithResidual) {
  AttentionProblem p;
  p.q_heads = 4;
  p.kv_heads = 2;
  p.tokens = 13;  // a partial query tile and a partial key tile
  expect_attention_pass("os_8x8", p);
}

TEST(CosimAttention, DecodeReadsTheKvCache) {
  AttentionProblem p;
  p.stage = Stage::kDecode;
  p.q_heads = 4;
  p.kv_heads = 1;
  p.tokens = 1;
  p.context = 40;
  p.kv_capacity = 64;  // the cache holds more rows than this step uses
  p.residual = false;
  p.values.zero_fraction = 0.5;
  expect_attention_pass("attn_d16", p);
}

// Dot arrays: array a holds the key tile (weight-stationary) or the query tile
// (input-stationary); array b writes O through its rescaling accumulator cache.
TEST(CosimAttention, WeightStationaryArrays) {
  AttentionProblem p;
  p.q_heads = 2;
  p.kv_heads = 1;
  p.tokens = 19;
  expect_pass("ws_8x16", p, cosim_attention, 14);  // output, cycles, twelve probed ports
}

TEST(CosimAttention, SystolicArraysWithKvCaches) {
  AttentionProblem p;
  p.q_heads = 4;
  p.kv_heads = 2;
  p.tokens = 37;
  p.values.zero_fraction = 0.5;
  expect_attention_pass("systolic_16x8", p);
}

// A head dim of three tiles of tiling.k: S summed over them, O stored one column block at a
// time (buffer a holding Q's three tiles and the residual's).
TEST(CosimAttention, HeadDimOfSeveralTiles) {
  std::string spec = test::read_file("examples/os_8x8.yaml");
  spec = test::replace(test::replace(spec, "name: os_8x8", "name: os_8x8_wide_heads"), "memory:\n",
                       "memory:\n  operand_tiles: {a: 4}\n");
  AttentionProblem p;
  p.q_heads = 2;
  p.kv_heads = 1;
  p.tokens = 13;
  p.head_dim = 20;  // three tiles of 8, zero-padded to 24
  expect_pass_on(elaborate(parse_spec_text(spec, "os_8x8_wide_heads.yaml")), p, cosim_attention, 12);
}

TEST(CosimAttention, InputStationaryArraysDecode) {
  AttentionProblem p;
  p.stage = Stage::kDecode;
  p.q_heads = 2;
  p.kv_heads = 2;
  p.tokens = 2;
  p.context = 23;
  p.values.zero_fraction = 0.5;
  expect_pass("is_16x8", p, cosim_attention, 14);
}

}  // namespace
}  // namespace fsgen

namespace fsgen {
namespace {

TEST(CosimFfn, GatedSiluAndPlainGelu) {
  FfnProblem gated;
  gated.tokens = 11;
  gated.ffn = 20;  // partial token and FFN tiles
  FfnProblem plain;
  plain.tokens = 8;
  plain.ffn = 16;
  plain.gated = false;
  plain.activation = "gelu";
  plain.residual = false;
  plain.values.zero_fraction = 0.5;
  for (const FfnProblem& p : {gated, plain}) expect_pass("os_8x8", p, cosim_ffn, 12);
  expect_pass("ws_8x16", gated, cosim_ffn, 14);
}

}  // namespace
}  // namespace fsgen
