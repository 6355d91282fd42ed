// Mixed-level co-simulation: PE arrays and the softmax unit as their Verilated RTL inside the
// SystemC platform, one test per kind, and the whole core; a user's module with a bug named by
// cycle and port; bad --rtl input.
#include "sim/mixed_sim.h"

#include <filesystem>
#include <fstream>
#include <sstream>

#include "compiler/attention.h"
#include "compiler/matmul.h"
#include "flow/tools.h"
#include "test_util.h"

namespace fsgen {
namespace {

Graph example(const std::string& name) { return elaborate(parse_spec_file("examples/" + name + ".yaml")); }

MatmulProblem problem(uint32_t m, uint32_t n, uint32_t k, double zeros, uint64_t seed) {
  MatmulProblem p;
  p.m = m, p.n = n, p.k = k, p.seed = seed;
  p.values.zero_fraction = zeros;
  p.req_mult = 3;
  p.req_shift = 8;
  return p;
}

CosimReport mixed_matmul(const Graph& g, const MatmulProblem& p, const std::vector<RtlChoice>& rtl) {
  const Program prog = compile_matmul(g, p);
  return run_mixed(g, prog, matmul_expected(prog, p), rtl, test::rtl_root());
}

// Prefill attention of `tokens` tokens, two query heads sharing one KV head.
CosimReport mixed_attention(const Graph& g, uint32_t tokens, const std::vector<RtlChoice>& rtl) {
  AttentionProblem a;
  a.q_heads = 2;
  a.kv_heads = 1;
  a.tokens = tokens;
  const CompiledAttention c = compile_attention(g, a);
  return run_mixed(g, c.program, c.expected, rtl, test::rtl_root());
}

std::string table(const CosimReport& rep) {
  std::ostringstream s;
  print_cosim(rep, s);
  return s.str();
}

// A passing mixed run that checked the RTL ports `ports` of `block` against the model's probes.
void expect_rtl_pass(const CosimReport& rep, const std::string& block, const std::vector<std::string>& ports) {
  EXPECT_TRUE(rep.pass()) << table(rep);
  for (const auto& port : ports) {
    bool checked = false;
    for (const auto& c : rep.checks) checked |= c.what.rfind("RTL port toggles " + block + "." + port, 0) == 0;
    EXPECT_TRUE(checked) << block << "." << port << " not checked\n" << table(rep);
  }
  bool outputs = false;
  for (const auto& c : rep.checks) outputs |= c.what == "RTL " + block + " outputs, every cycle" && c.pass;
  EXPECT_TRUE(outputs) << table(rep);
}

#define REQUIRE_VERILATOR() \
  if (!test::have_tool("verilator")) GTEST_SKIP() << "verilator not installed (scripts/install-deps.sh)"

// Broadcast output-stationary arrays; os_8x8's matmul tiles span both (array b's RESCALE = 1
// module in matmul mode).
TEST(MixedSim, OutputStationaryArraysInMatmul) {
  REQUIRE_VERILATOR();
  const CosimReport rep =
      mixed_matmul(example("os_8x8"), problem(16, 48, 32, 0.3, 1), {{"array_a", ""}, {"array_b", ""}});
  expect_rtl_pass(rep, "array_a", {"x", "w"});
  expect_rtl_pass(rep, "array_b", {"x", "w"});
}

// The fused attention kernel: scores on array a, O = alpha O + P V on array b, whose rescale
// factors change from one key tile to the next.
TEST(MixedSim, AttentionArraysWithRescale) {
  REQUIRE_VERILATOR();
  const CosimReport rep = mixed_attention(example("os_8x8"), 24, {{"array_a", ""}, {"array_b", ""}});
  expect_rtl_pass(rep, "array_b", {"x", "w", "alpha"});
}

// Dot arrays: weight-stationary (rows of B loaded into lane columns) and input-stationary,
// their registered sums y checked every cycle.
TEST(MixedSim, WeightAndInputStationaryDotArrays) {
  REQUIRE_VERILATOR();
  expect_rtl_pass(mixed_matmul(example("ws_8x16"), problem(24, 32, 16, 0.5, 2), {{"array_a", ""}}), "array_a",
                  {"x", "w", "y"});
  expect_rtl_pass(mixed_matmul(example("is_16x8"), problem(29, 16, 48, 0.5, 3), {{"array_a", ""}}), "array_a",
                  {"x", "w", "y"});
}

// Systolic arrays: the feeds skewed lane by lane, clr travelling with the operands.
TEST(MixedSim, SystolicArray) {
  REQUIRE_VERILATOR();
  expect_rtl_pass(mixed_matmul(example("systolic_16x8"), problem(27, 16, 48, 0.5, 6), {{"array_a", ""}}), "array_a",
                  {"x", "w"});
}

// Compressed lanes (2:4 weights packed into half the MACs).
TEST(MixedSim, CompressedLanes) {
  REQUIRE_VERILATOR();
  MatmulProblem p = problem(16, 32, 32, 0.5, 29);
  p.zeros_in_a = false;
  p.pattern = {2, 4};
  expect_rtl_pass(mixed_matmul(example("sparse_ws_nm"), p, {{"array_a", ""}}), "array_a", {"x", "w", "y"});
}

// The generated dot array with lane 1's sum off by one whenever x's first byte is odd: the
// mismatch names the port, the lane and the first cycle it shows in (the requantised output
// may hide an off-by-one; the block's check does not).
TEST(MixedSim, AUsersModuleWithABugIsNamedByCycleAndPort) {
  REQUIRE_VERILATOR();
  const Graph g = example("ws_8x16");
  std::string verilog = read_text_file(FSGEN_SOURCE_DIR "/src/blocks/pe_array_dot/fsgen_array_dot.v");
  const std::string good = "else if (v) y[p*32 +: 32] <= sum;";
  ASSERT_NE(verilog.find(good), std::string::npos);
  verilog.replace(verilog.find(good), good.size(),
                  "else if (v) y[p*32 +: 32] <= sum + ((p == 1 && x[0]) ? 32'd1 : 32'd0);");
  const std::string module = "module fsgen_array_dot";
  verilog.replace(verilog.find(module), module.size(), "module my_dot_array");
  const std::string file = test::scratch_dir("mixed_user_block") + "/my_dot_array.v";
  std::ofstream(file) << verilog;
  const CosimReport rep = mixed_matmul(g, problem(32, 32, 32, 0.0, 9), {{"array_a", file}});
  EXPECT_FALSE(rep.pass());
  bool named = false;
  for (const auto& c : rep.checks)
    if (c.what == "RTL array_a outputs, every cycle") {
      EXPECT_FALSE(c.pass);
      EXPECT_NE(c.verilator.find("first differs: cycle "), std::string::npos) << c.verilator;
      EXPECT_NE(c.verilator.find("port y (lane 1"), std::string::npos) << c.verilator;
      named = true;
    }
  EXPECT_TRUE(named) << table(rep);
}

TEST(MixedSim, BadChoicesAreOneLineErrors) {
  const Graph g = example("os_8x8");
  EXPECT_EQ(parse_rtl_choices("array_a,array_b=my.v", g)[1].verilog, "my.v");
  EXPECT_EQ(parse_rtl_choices("arrays", g).size(), 2u);
  EXPECT_EQ(parse_rtl_choices("softmax,arrays", g).size(), 3u);
  EXPECT_NE(test::error_of([&] { parse_rtl_choices("array_a,,array_b", g); }).find("--rtl: expected block[=file.v]"),
            std::string::npos);
  EXPECT_NE(test::error_of([&] { parse_rtl_choices("array_a,array_a", g); }).find("named twice"), std::string::npos);
  EXPECT_EQ(test::error_of([&] { parse_rtl_choices("core,array_a", g); }),
            "--rtl core,array_a: core is the whole core as RTL: name it alone");
  EXPECT_NE(test::error_of([&] { parse_rtl_choices("core=top.v", g); }).find("--rtl core=top.v: the whole core is built"),
            std::string::npos);
  EXPECT_NE(test::error_of([] { parse_rtl_choices("arrays", example("sparse_os_8x8")); })
                .find("--rtl arrays: design sparse_os_8x8 has no array that can run as RTL"),
            std::string::npos);
  EXPECT_NE(test::error_of([&] {
              build_rtl_options(g, {{"array_c", ""}}, test::rtl_root());
            }).find("--rtl array_c: design os_8x8 has no such block"),
            std::string::npos);
  const std::string csr = test::error_of([&] { build_rtl_options(g, {{"csr", ""}}, test::rtl_root()); });
  EXPECT_NE(csr.find("--rtl csr: a csr has no mixed-level model yet; blocks of os_8x8 that can run as RTL: dma, "
                     "array_a, array_b, softmax, core"),
            std::string::npos)
      << csr;
  EXPECT_NE(test::error_of([&] {
              build_rtl_options(g, {{"array_a", "/no/such.v"}}, test::rtl_root());
            }).find("/no/such.v: no such Verilog file"),
            std::string::npos);
  const std::string sparse = test::error_of([] {
    build_rtl_options(example("sparse_os_8x8"), {{"array_a", ""}}, test::rtl_root());
  });
  EXPECT_NE(sparse.find("value networks that skip steps"), std::string::npos) << sparse;
}

// The softmax unit: attention rows with a causal sliding window (its running max, sum and
// rescale factor checked row by row), and the activation unit of a gated matmul epilogue.
TEST(MixedSim, SoftmaxAndActivationUnit) {
  REQUIRE_VERILATOR();
  expect_rtl_pass(mixed_attention(example("sliding_attn"), 40, {{"softmax", ""}}), "softmax", {"in", "out"});
  MatmulProblem p = problem(21, 32, 48, 0.3, 7);
  p.epilogue.activation = "silu";
  p.epilogue.gated = true;
  expect_rtl_pass(mixed_matmul(example("is_16x8"), p, {{"softmax", ""}, {"array_a", ""}}), "softmax", {"in", "out"});
}

// The DMA as RTL: two instances of fsgen_dma (its read channel taking the loads, its write
// channel the stores), each AXI4 master on the platform's TLM memory through the pin-to-TLM
// bridge; with a skipping sparse array a at model level, and beside RTL arrays in attention.
TEST(MixedSim, DmaChannelsOnTheTlmMemory) {
  REQUIRE_VERILATOR();
  const CosimReport rep = mixed_matmul(example("sparse_os_8x8"), problem(24, 32, 48, 0.5, 12), {{"dma", ""}});
  expect_rtl_pass(rep, "dma (read channel)", {"rdata"});
  expect_rtl_pass(rep, "dma (write channel)", {"wdata"});
  EXPECT_TRUE(mixed_attention(example("os_8x8"), 24, {{"dma", ""}, {"array_b", ""}}).pass());
}

// The whole core as RTL (fsgen_top inside the platform: its AXI4 master on the TLM memory, its
// register file behind the host's TLM accesses), here with value networks that skip steps, which
// no block-level model covers: outputs, cycles and every probed register of the core equal the
// all-model run's.
TEST(MixedSim, WholeCoreWithSkippingValueNetworks) {
  REQUIRE_VERILATOR();
  const CosimReport rep = mixed_matmul(example("sparse_os_8x8"), problem(24, 32, 48, 0.5, 11), {{"core", ""}});
  EXPECT_TRUE(rep.pass()) << table(rep);
  EXPECT_EQ(rep.other, "mixed (core RTL)");
  size_t probes = 0;
  for (const auto& c : rep.checks) probes += c.what.rfind("toggles ", 0) == 0 && c.systemc != "0";
  EXPECT_GE(probes, 6u) << table(rep);  // dma, the value networks' and the arrays' operands, the requantiser
}

// A module whose ports do not fit the block: the port, its width and the expected one.
TEST(MixedSim, AModuleOfTheWrongWidthIsRefused) {
  REQUIRE_VERILATOR();
  const std::string file = test::scratch_dir("mixed_narrow_block") + "/narrow.v";
  std::ofstream(file) << "module narrow(input wire clk, input wire rst_n, input wire en, input wire clr,\n"
                         "  input wire sc, input wire [255:0] alpha, input wire [31:0] x, input wire [63:0] w,\n"
                         "  input wire [7:0] rd_row, output wire [255:0] rd_data);\n"
                         "  assign rd_data = {8{x}};\nendmodule\n";
  const Graph g = example("os_8x8");
  const std::string e = test::error_of([&] { mixed_matmul(g, problem(8, 16, 8, 0.0, 1), {{"array_a", file}}); });
  EXPECT_NE(e.find("narrow.v: port x is 32 bits; expected 64 (tile_m INT8 operands)"), std::string::npos) << e;
}

}  // namespace
}  // namespace fsgen
