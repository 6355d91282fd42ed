#include "generator/verilog_emitter.h"

#include <filesystem>
#include <fstream>
#include <tuple>

#include "flow/verilator.h"
#include "test_util.h"

namespace fsgen {
namespace {

namespace fs = std::filesystem;

// The smallest design of each PE array kind: 4-byte beats, 4x4 tiles; matmul only
// unless `kernels` says otherwise.
Graph tiny(const std::string& order, const std::string& kernels = "[matmul]",
           const std::string& b_order = "output_stationary", const std::string& kv_caches = "") {
  const std::string text = "name: tiny_" + order.substr(0, order.find(',')) +
                           "\nclock_mhz: 500\npe_budget: 64\n"
                           "memory: {bandwidth_gbps: 2, latency_cycles: 3, buffer_limit_bytes: 4096}\n"
                           "arrays:\n  a: {loop_order: " + order + ", tiling: {m: 4, n: 4, k: 4}}\n"
                           "  b: {loop_order: " + b_order + ", tiling: {m: 4, n: 4, k: 4}}\n"
                           "caches: {acc_a: 128, acc_b: 128" + kv_caches + "}\nkernels: " + kernels + "\n";
  return elaborate(parse_spec_text(text, "tiny.yaml"));
}

TEST(Emitter, WritesEveryFileAtomically) {
  const std::string root = test::scratch_dir("emit");
  const Graph g = tiny("weight_stationary");
  const std::string dir = write_design(g, root + "/d");
  for (const auto& f : verilog_files(g)) EXPECT_TRUE(fs::exists(fs::path(dir) / f)) << f;
  for (const char* f : {"fsgen_regs.vh", "probes.h", "graph.json"}) EXPECT_TRUE(fs::exists(fs::path(dir) / f)) << f;
  EXPECT_FALSE(fs::exists(root + "/d.tmp"));
  const std::string top = emit_top(g);
  EXPECT_NE(top.find("fsgen_array_dot #(.K(4), .LOAD_COL(1), .P(4))"), std::string::npos);
  EXPECT_NE(top.find("fsgen_acc_cache"), std::string::npos);
}

// The power flow replays the controller with the parameters the top instantiates it with,
// a fused core's as well. The register file's module is in the library a lone synthesis
// reads.
TEST(Emitter, TheControllerIsReplayedAsTheTopInstantiatesIt) {
  const Graph g = tiny("weight_stationary");
  const std::optional<ArrayInstance> ctrl = block_instance(g, "ctrl");
  ASSERT_TRUE(ctrl);
  EXPECT_EQ(ctrl->module, "fsgen_ctrl");
  EXPECT_EQ(ctrl->params.at("ST"), 1);
  EXPECT_EQ(ctrl->params.at("W"), 4);  // beat bytes
  std::string list;
  for (const auto& [name, value] : ctrl->params) list += (list.empty() ? "." : ", .") + name + "(" + std::to_string(value) + ")";
  EXPECT_NE(emit_top(g).find("fsgen_ctrl #(" + list + ") u_ctrl ("), std::string::npos) << list;
  // A fused core's controller too, with the fused kernels built; the softmax unit is an
  // instance of its own beside it.
  const Graph fused = tiny("output_stationary", "[matmul, attention]");
  EXPECT_EQ(block_instance(fused, "ctrl")->params.at("ATTN"), 1);
  EXPECT_NE(emit_top(fused).find(") u_softmax ("), std::string::npos);
  EXPECT_EQ(emit_top(g).find("u_softmax"), std::string::npos);
  EXPECT_EQ(block_instance(g, "csr")->module, "fsgen_csr");
  EXPECT_EQ(module_sources().at("fsgen_csr.v"), emit_design(g).at("fsgen_csr.v"));
}

// Multipliers of two operands that synthesis keeps in a controller built at `ctrl`'s
// parameters (constant factors of the tiny tiling, powers of two, become shifts).
size_t controller_multipliers(const ArrayInstance& ctrl, const std::string& dir) {
  const std::vector<std::string> files = write_module_sources(dir, ctrl.module);
  std::string script = "read_verilog -I" + fs::path(files.front()).parent_path().string();
  for (const std::string& file : files) script += " " + file;
  script += "; chparam";
  for (const auto& [name, value] : ctrl.params) script += " -set " + name + " " + std::to_string(value);
  script += " " + ctrl.module + "; hierarchy -top " + ctrl.module + "; proc; opt -fast; select -count t:$mul";
  const CommandResult r = run_command("yosys -p " + shell_quote(script) + " 2>&1");
  EXPECT_EQ(r.status, 0) << r.output;
  const size_t at = r.output.rfind(" objects.");
  if (at == std::string::npos) return 0;
  const size_t line = r.output.rfind('\n', at) + 1;
  return std::stoul(r.output.substr(line, at - line));
}

// A matmul core's controller holds the requantiser's two byte multipliers per output column
// and no other: its addresses advance by increments (a tile size times a stride is a shift at
// the tiny tiling), and the fused kernels' and the compressed operands' arithmetic is absent:
// those states are never entered in such a core.
TEST(Emitter, AMatmulCoresControllerHoldsOnlyItsOwnArithmetic) {
  if (!test::have_tool("yosys")) GTEST_SKIP() << "yosys not installed (scripts/install-deps.sh)";
  const std::optional<ArrayInstance> ctrl = block_instance(tiny("output_stationary"), "ctrl");
  ASSERT_TRUE(ctrl);
  const int64_t columns = ctrl->params.at("DUAL") ? ctrl->params.at("TN") + ctrl->params.at("TK") : ctrl->params.at("TN");
  EXPECT_EQ(controller_multipliers(*ctrl, test::scratch_dir("ctrl_mul")), size_t(2 * columns));
}

TEST(Emitter, ADesignFolderIsCurrentOnlyWhileEveryFileMatches) {
  const Graph g = tiny("output_stationary");
  const std::string dir = write_design(g, test::scratch_dir("current") + "/d");
  EXPECT_TRUE(design_is_current(g, dir));
  std::ofstream(dir + "/fsgen_ctrl.v", std::ios::app) << "// edited\n";  // a library module, not the top
  EXPECT_FALSE(design_is_current(g, dir));
  EXPECT_FALSE(design_is_current(tiny("weight_stationary"), dir));
}

TEST(Emitter, RegisterHeaderMatchesTheRegisterMap) {
  const std::string h = emit_regs_header();
  EXPECT_NE(h.find("`define FSGEN_REG_CTRL 8'h00"), std::string::npos);
  EXPECT_NE(h.find("`define FSGEN_REG_CYCLES 8'h38"), std::string::npos);
}

TEST(Emitter, EveryArrayKindIsLintCleanUnderVerilatorWall) {
  if (!test::have_tool("verilator")) GTEST_SKIP() << "verilator not installed (scripts/install-deps.sh)";
  const std::string root = test::scratch_dir("lint");
  for (const char* order : {"output_stationary", "weight_stationary", "input_stationary"}) {
    const std::string dir = write_design(tiny(order), root + "/" + order);
    const CommandResult r = lint_verilog(dir);
    EXPECT_EQ(r.status, 0) << order << ":\n" << r.output;
  }
  // The fused core with each stationarity in array a and in array b, with and without
  // K/V tile caches.
  for (const auto& [a, b, caches] : std::vector<std::tuple<std::string, std::string, std::string>>{
           {"output_stationary", "output_stationary", ""},
           {"weight_stationary", "input_stationary", ", k: 32, v: 16"},
           {"input_stationary", "weight_stationary", ""},
           {"output_stationary", "output_stationary", ", k: 16"},
           {"output_stationary, movement: systolic", "output_stationary, movement: systolic", ""}}) {
    const std::string name = a.substr(0, 2) + "_" + b.substr(0, 2) + (caches.empty() ? "" : "_kv") +
                             (a.find("systolic") != std::string::npos ? "_sys" : "");
    const std::string dir = write_design(tiny(a, "[matmul, attention]", b, caches), root + "/attention_" + name);
    const CommandResult r = lint_verilog(dir);
    EXPECT_EQ(r.status, 0) << "attention " << a << " / " << b << ":\n" << r.output;
  }
}

// Value networks (matmul-only and fused cores), sliding windows and compressed operands.
TEST(Emitter, SparseDesignsAreLintClean) {
  if (!test::have_tool("verilator")) GTEST_SKIP() << "verilator not installed (scripts/install-deps.sh)";
  const std::string root = test::scratch_dir("lint_sparse");
  for (const char* example : {"sparse_os_8x8", "sparse_attn_8x8", "sparse_systolic_8x8", "sparse_ws_nm", "topk_attn_8x8", "sliding_attn"}) {
    const std::string dir = write_design(elaborate(parse_spec_file(std::string("examples/") + example + ".yaml")),
                                         root + "/" + example);
    const CommandResult r = lint_verilog(dir);
    EXPECT_EQ(r.status, 0) << example << ":\n" << r.output;
  }
  const std::string compressed = read_text_file("examples/sparse_os_8x8.yaml") +
                                 "  - {kind: memory_value, tensor: x, condition: \"x==0\"}\n"
                                 "  - {kind: memory_value, tensor: w, condition: \"w==0\"}\n";
  const std::string dir = write_design(elaborate(parse_spec_text(compressed, "compressed.yaml")), root + "/compressed");
  const CommandResult r = lint_verilog(dir);
  EXPECT_EQ(r.status, 0) << "compressed:\n" << r.output;
}

TEST(Emitter, YosysSynthesisesTheSmallestDesigns) {
  if (!test::have_tool("yosys")) GTEST_SKIP() << "yosys not installed (scripts/install-deps.sh)";
  const std::string root = test::scratch_dir("synth");
  for (const char* order : {"output_stationary", "input_stationary"}) {
    const std::string dir = write_design(tiny(order), root + "/" + order);
    const CommandResult r = synth_yosys(dir);
    EXPECT_EQ(r.status, 0) << order << ":\n" << r.output;
    EXPECT_NE(r.output.find("Number of cells"), std::string::npos) << r.output;
  }
}

// Coarse: the fused core's full mapping (its activation table's 256-way selects) took over
// 4 minutes under load; its blocks are mapped fully by the golden-power and --synth tests.
TEST(Emitter, YosysSynthesisesTheFusedAttentionCore) {
  if (!test::have_tool("yosys")) GTEST_SKIP() << "yosys not installed (scripts/install-deps.sh)";
  const std::string dir = write_design(tiny("output_stationary", "[matmul, attention]"), test::scratch_dir("synth_attn") + "/d");
  const CommandResult r = synth_yosys(dir, SynthDepth::kCoarse);
  EXPECT_EQ(r.status, 0) << r.output;
  EXPECT_NE(r.output.find("Number of cells"), std::string::npos) << r.output;
}

}  // namespace
}  // namespace fsgen
