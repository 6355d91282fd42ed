// The SRAM macro model: its anchors, the design's macros, their accesses in a run, and a
// macro left a black box by synthesis.
#include "power/memory_macro.h"

#include <algorithm>
#include <cmath>
#include <fstream>

#include "compiler/matmul.h"
#include "flow/tech_library.h"
#include "generator/spec.h"
#include "models/platform.h"
#include "power/power_model.h"
#include "power/techmap.h"
#include "sim/power_report.h"
#include "test_util.h"

namespace fsgen {
namespace {

MacroTechnology at_anchor() { return {45, 0.9, 20}; }

TEST(MemoryMacro, ReproducesItsAnchorsAndScales) {
  // Horowitz 45 nm 0.9 V, 64-bit reads.
  EXPECT_NEAR(sram_macro("m", 8 * 1024, 64, at_anchor()).read_pj, 10, 1e-9);
  EXPECT_NEAR(sram_macro("m", 32 * 1024, 64, at_anchor()).read_pj, 20, 1e-9);
  EXPECT_NEAR(sram_macro("m", 1024 * 1024, 64, at_anchor()).read_pj, 100, 1e-9);
  const MemoryMacro m16k = sram_macro("m", 16 * 1024, 64, at_anchor());
  EXPECT_GT(m16k.read_pj, 10);
  EXPECT_LT(m16k.read_pj, 20);
  EXPECT_NEAR(sram_macro("m", 2 * 1024, 64, at_anchor()).read_pj, 5, 1e-9);  // the first segment's slope, 1/2
  EXPECT_NEAR(sram_macro("m", 8 * 1024, 128, at_anchor()).read_pj, 20, 1e-9);  // twice the bits
  EXPECT_NEAR(sram_macro("m", 8 * 1024, 64, {45, 1.8, 20}).read_pj, 40, 1e-9);  // (V / 0.9)^2
  EXPECT_EQ(m16k.write_pj, m16k.read_pj);
  EXPECT_NEAR(m16k.area_um2, 16 * 1024 * 8 * 600 * 0.045 * 0.045, 1e-6);  // 600 lambda^2 per bit
  EXPECT_NEAR(m16k.leakage_mw, 16 * 1024 * 8 * 20e-6, 1e-12);
}

TEST(MemoryMacro, BitLeakageComesFromTheLibrarysInverter) {
  const LibertyLibrary lib = read_liberty(tech_library().at("fsgen45.lib"), "fsgen45.lib");
  const MacroTechnology t = macro_technology(lib, 45);
  EXPECT_NEAR(t.bit_leakage_nw, 2 * lib.cell("INV_X1").leakage_nw, 1e-12);
  EXPECT_EQ(t.vdd, lib.nom_voltage);
  EXPECT_NE(test::error_of([&] { macro_technology(lib, 0); }).find("--macro-node"), std::string::npos);
}

std::string ws_spec(uint32_t acc_bytes) {
  std::string s = test::replace(test::base_spec(), "output_stationary", "weight_stationary");
  s = test::replace(s, "output_stationary", "weight_stationary");  // array b too
  return s + "caches: {acc_a: " + std::to_string(acc_bytes) + ", acc_b: 2048}\nkernels: [matmul]\n";
}

TEST(MemoryMacro, AccumulatorCachesAboveTheThresholdAreMacrosWithCountedAccesses) {
  const Graph g = elaborate(parse_spec_text(ws_spec(4096), "ws.yaml"));
  const MacroOptions o;  // 1 KiB
  const DesignMacros d = design_macros(g, at_anchor(), o);
  ASSERT_FALSE(d.macros.empty());
  EXPECT_EQ(d.modules, std::vector<std::string>{"fsgen_acc_cache"});  // the operand buffers stay flip-flops
  EXPECT_EQ(d.macros.front().block, "acc_a");
  EXPECT_EQ(d.macros.front().word_bits, 8u * 32u);
  MacroOptions high;
  high.threshold_bytes = 1 << 20;
  EXPECT_TRUE(design_macros(g, at_anchor(), high).macros.empty());

  // Every stream step of the weight-stationary array writes one row of the tile.
  MatmulProblem p;
  p.m = 16, p.n = 16, p.k = 16;
  const RunResult r = run_on_systemc(g, compile_matmul(g, p));
  const BlockActivity& acc = r.activity.at("acc_a");
  EXPECT_EQ(acc.writes, r.activity.at("array_a").busy_cycles);
  EXPECT_GE(acc.reads, 16u);  // at least every output row read once
}

// The controller's operand buffers: flip-flops below the threshold, both SRAM macros of
// beat-wide words at it; every pass reads its tiles' bytes once, every byte loaded is
// written; the controller is then priced without its buffers' flip-flops.
TEST(MemoryMacro, OperandBuffersAtSizeAreMacrosWithTheirAccessesCounted) {
  const Graph g = elaborate(parse_spec_text(test::base_spec() + "kernels: [matmul]\n", "mm.yaml"));
  EXPECT_EQ(g.block("buf_a").param("bytes"), int64_t(g.a_slots) * 8 * 8);
  EXPECT_EQ(g.block("buf_b").param("bytes"), int64_t(g.b_slots) * 8 * 8);
  EXPECT_TRUE(design_macros(g, at_anchor(), MacroOptions{}).macros.empty());  // 1 KiB
  const DesignMacros d = design_macros(g, at_anchor(), MacroOptions{64, 45});
  EXPECT_EQ(d.modules, std::vector<std::string>{"fsgen_ctrl_buffer"});
  ASSERT_TRUE(d.has("buf_a") && d.has("buf_b"));
  EXPECT_EQ(d.macros.front().word_bits, 8u * 8u);  // a beat of the 8-byte bus

  MatmulProblem p;
  p.m = 32, p.n = 32, p.k = 32;
  const Program prog = compile_matmul(g, p);
  const RunResult r = run_on_systemc(g, prog);
  const uint64_t passes = 4 * 4 * 4, tile = 8 * 8;
  const BlockActivity &a = r.activity.at("buf_a"), &b = r.activity.at("buf_b");
  EXPECT_EQ(a.read_bytes, passes * tile);
  EXPECT_EQ(b.read_bytes, passes * tile);
  for (const BlockActivity* buf : {&a, &b}) {
    EXPECT_GE(buf->write_bytes, 32u * 32u);  // every operand byte at least once
    EXPECT_LE(buf->write_bytes, passes * tile);
    EXPECT_EQ(buf->write_bytes % tile, 0u);  // whole tiles
  }

  const PowerModel model = train_power_model(read_dataset("data/power/fsgen45.csv"), 50);
  auto ctrl_of = [](const PowerTrace& t) {
    return *std::find_if(t.blocks.begin(), t.blocks.end(), [](const BlockPower& bp) { return bp.block == "ctrl"; });
  };
  const BlockPower flops = ctrl_of(estimate_power(g, prog, model, 64));
  const BlockPower apart = ctrl_of(estimate_power(g, prog, model, 64, d));
  const PrimitiveDef& ctrl = primitive_def("ctrl");
  const size_t macros = ctrl.param_at("MACROS");
  EXPECT_EQ(flops.h[ctrl.param_at("SA")], int(g.a_slots));
  EXPECT_EQ(apart.h[ctrl.param_at("SA")], int(g.a_slots));  // the slots' tags stay in its netlist
  EXPECT_EQ(flops.h[macros], 0);
  EXPECT_EQ(apart.h[macros], 1);
  EXPECT_NE(apart.model.find("its operand buffers SRAM macros, priced apart"), std::string::npos) << apart.model;
  EXPECT_LT(apart.average_mw, flops.average_mw);
  // The design's area (the explorer's): the macros' by the SRAM model, the controller's without
  // its buffers' flip-flops.
  double macros_um2 = 0;
  for (const MemoryMacro& m : d.macros) macros_um2 += m.area_um2;
  EXPECT_LT(design_area(g, model, d).um2 - macros_um2, design_area(g, model).um2);
}

TEST(MemoryMacro, SynthesisLeavesAMacroABlackBox) {
  if (!test::have_tool("yosys")) GTEST_SKIP() << "yosys not installed";
  const std::string dir = test::scratch_dir("macro_blackbox");
  std::ofstream(dir + "/top.v") << "module store(input clk, input [3:0] a, input [7:0] d, output [7:0] q);\n"
                                   "  reg [7:0] m [0:15]; always @(posedge clk) m[a] <= d; assign q = m[a];\nendmodule\n"
                                   "module top(input clk, input [3:0] a, input [7:0] d, output reg [7:0] q);\n"
                                   "  wire [7:0] r; store u_store(.clk(clk), .a(a), .d(d), .q(r));\n"
                                   "  always @(posedge clk) q <= r + 8'd1;\nendmodule\n";
  const Liberty lib = prepare_liberty("", dir);
  const SynthReport flat = synth_to_liberty({dir + "/top.v"}, "top", {}, lib, dir);
  const SynthReport boxed = synth_to_liberty({dir + "/top.v"}, "top", {}, lib, dir, SynthOptions{{"store"}});
  EXPECT_EQ(boxed.cell_use.at("store"), 1u);  // the instance stays
  EXPECT_LT(boxed.area_um2, flat.area_um2 / 4);  // its 128 bits of storage are not gates
}

}  // namespace
}  // namespace fsgen
