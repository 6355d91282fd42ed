#include "power/fanout_buffers.h"

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <regex>

#include "flow/tech_library.h"
#include "power/techmap.h"
#include "test_util.h"

namespace fsgen {
namespace {

namespace fs = std::filesystem;

const LibertyLibrary& fsgen45() {
  static const LibertyLibrary lib = read_liberty(tech_library().at("fsgen45.lib"), "fsgen45.lib");
  return lib;
}

// A netlist as Yosys writes it: flip-flop r drives `loads` inverters and an output port;
// flip-flop s drives two.
std::string register_netlist(int loads) {
  std::ostringstream v;
  v << "module top(clk, d, y, q);\n  input clk;\n  wire clk;\n  input d;\n  wire d;\n  output [" << loads - 1
    << ":0] y;\n  wire [" << loads - 1 << ":0] y;\n  output q;\n  wire q;\n  wire \\r.q ;\n  wire s;\n  wire t;\n";
  v << "  DFF_X1 \\r\\DFF_X1  (\n    .CK(clk),\n    .D(d),\n    .Q(\\r.q )\n  );\n";
  v << "  DFF_X1 _s_ (\n    .CK(clk),\n    .D(d),\n    .Q(s)\n  );\n";
  for (int i = 0; i < loads; ++i) v << "  INV_X1 _i" << i << "_ (\n    .A(\\r.q ),\n    .ZN(y[" << i << "])\n  );\n";
  v << "  AND2_X1 _a_ (\n    .A1(s),\n    .A2(s),\n    .ZN(t)\n  );\n";
  v << "  assign q = \\r.q ;\nendmodule\n";
  return v.str();
}

// How many cell pins each net reaches in a netlist.
std::map<std::string, int> pins_per_net(const std::string& text) {
  std::map<std::string, int> n;
  static const std::regex pin(R"(\n\s+\.(?:A|A1|A2)\(([^)]*)\))");
  for (auto it = std::sregex_iterator(text.begin(), text.end(), pin); it != std::sregex_iterator(); ++it)
    n[(*it)[1]] += 1;
  return n;
}

// fsgen45's stronger buffer; sky130's functions are written "(A)", its buffers have power pins.
TEST(FanoutBuffers, TheLibrarysBufferIsChosen) {
  EXPECT_EQ(fanout_buffer_cell(fsgen45(), 8).name, "BUF_X2");
  const std::string sky = "../shared/pdk/sky130hd_tt.lib.gz";
  if (!fs::exists(sky)) GTEST_SKIP() << sky << " not present";
  EXPECT_EQ(fanout_buffer_cell(read_liberty_file(sky), 8).name, "sky130_fd_sc_hd__buf_6");
}

// 20 loads on one flip-flop: three buffers of at most 8 (7, 7, 6), the flip-flop driving
// the three; the lightly loaded flip-flop and the assign are left as they are.
TEST(FanoutBuffers, AFlipFlopsFanOutBecomesATree) {
  const std::string dir = test::scratch_dir("fanout_tree");
  std::ofstream(dir + "/in.v") << register_netlist(20);
  const FanoutBuffers b = rebuild_fanout_trees(dir + "/in.v", dir + "/out.v", fsgen45(), 8);
  EXPECT_EQ(b.buffer_cell, "BUF_X2");
  EXPECT_EQ(b.nets, 1u);
  EXPECT_EQ(b.buffers, 3u);
  EXPECT_NEAR(b.area_um2, 3 * fsgen45().cell("BUF_X2").area_um2, 1e-9);
  const std::string out = test::read_file(dir + "/out.v");
  const std::map<std::string, int> pins = pins_per_net(out);
  EXPECT_EQ(pins.at("\\r.q "), 3);
  EXPECT_EQ(pins.at("s"), 2);
  int buffered = 0;
  for (const auto& [net, n] : pins)
    if (net.rfind("_fanout", 0) == 0) {
      EXPECT_LE(n, 8) << net;
      buffered += n;
    }
  EXPECT_EQ(buffered, 20);
  EXPECT_NE(out.find("assign q = \\r.q ;"), std::string::npos);
  // Rebuilt again: its own trees taken out and built the same, under names of their own.
  const FanoutBuffers again = rebuild_fanout_trees(dir + "/out.v", dir + "/again.v", fsgen45(), 8);
  EXPECT_EQ(again.removed.at("BUF_X2"), 3u);
  EXPECT_EQ(again.buffers, 3u);
  EXPECT_NE(test::read_file(dir + "/again.v").find("wire __fanout0_;"), std::string::npos);
  // Two levels: 100 loads -> 13 buffers -> 2 buffers -> the flip-flop.
  std::ofstream(dir + "/wide.v") << register_netlist(100);
  EXPECT_EQ(rebuild_fanout_trees(dir + "/wide.v", dir + "/wide_out.v", fsgen45(), 8).buffers, 15u);
}

// The synthesis' buffer chain (r -> b0 -> b1 -> b2, loads hanging off each) is taken out and
// its 20 loads and the port's buffer rebuilt as one tree; the buffer that drives a port stays.
TEST(FanoutBuffers, ABufferChainBecomesATree) {
  const std::string dir = test::scratch_dir("fanout_chain");
  std::string v = register_netlist(20);
  for (int i = 0; i < 20; ++i) {
    const std::string from = "_i" + std::to_string(i) + "_ (\n    .A(\\r.q )";
    const std::string to = "_i" + std::to_string(i) + "_ (\n    .A(c" + std::to_string(i / 7) + ")";
    v = test::replace(v, from, to);
  }
  v = test::replace(v, "  wire t;\n", "  wire t;\n  wire c0;\n  wire c1;\n  wire c2;\n");
  v = test::replace(v, "endmodule\n",
                    "  BUF_X1 _b0_ (\n    .A(\\r.q ),\n    .Z(c0)\n  );\n"
                    "  BUF_X1 _b1_ (\n    .A(c0),\n    .Z(c1)\n  );\n"
                    "  BUF_X1 _b2_ (\n    .A(c1),\n    .Z(c2)\n  );\n"
                    "  BUF_X1 _bp_ (\n    .A(c2),\n    .Z(q)\n  );\nendmodule\n");
  v = test::replace(v, "  assign q = \\r.q ;\n", "");
  std::ofstream(dir + "/in.v") << v;
  const FanoutBuffers b = rebuild_fanout_trees(dir + "/in.v", dir + "/out.v", fsgen45(), 8);
  EXPECT_EQ(b.removed.at("BUF_X1"), 3u);
  EXPECT_NEAR(b.removed_area_um2, 3 * fsgen45().cell("BUF_X1").area_um2, 1e-9);
  EXPECT_EQ(b.buffers, 3u);
  const std::string out = test::read_file(dir + "/out.v");
  EXPECT_EQ(out.find("_b0_"), std::string::npos);
  EXPECT_NE(out.find("_bp_"), std::string::npos);  // it drives the port q
  const std::map<std::string, int> pins = pins_per_net(out);
  EXPECT_EQ(pins.at("\\r.q "), 3);  // the tree's buffers; the port's buffer is one of their 21 loads
  EXPECT_EQ(pins.count("c0") + pins.count("c1") + pins.count("c2"), 0u);
}

// A register that reaches 64 gates: ABC leaves it on the flip-flop, the delay-mapped
// netlist timed by OpenSTA has it in a tree, and the path is shorter for it.
TEST(FanoutBuffers, ADelayMappedNetlistIsTimedWithItsTrees) {
  if (!test::have_tool("yosys") || !test::have_tool("sta")) GTEST_SKIP() << "yosys or sta not installed";
  const std::string dir = test::scratch_dir("fanout_synth");
  std::ofstream(dir + "/wide.v") << "module wide(input clk, input a, input [63:0] b, output reg [63:0] y);\n"
                                    "  reg r;\n  always @(posedge clk) begin r <= a; y <= {64{r}} & b; end\n"
                                    "endmodule\n";
  const Liberty lib = prepare_liberty("", dir);
  SynthOptions options;
  options.delay_target_ns = 1.0;
  const SynthReport s = synth_to_liberty({dir + "/wide.v"}, "wide", {}, lib, dir, options);
  EXPECT_GT(s.fanout_buffers, 0u);
  EXPECT_EQ(fs::path(s.netlist).filename(), "wide_fsgen45.buffered.v");
  SynthReport bare = s;
  bare.netlist = (fs::path(dir) / "wide_fsgen45.v").string();
  const TimingReport buffered = critical_path(s, "wide", lib, "clk", 1.0);
  const TimingReport unbuffered = critical_path(bare, "wide", lib, "clk", 1.0);
  EXPECT_LT(buffered.arrival_ns, unbuffered.arrival_ns * 0.8) << unbuffered.arrival_ns << " ns unbuffered";
}

TEST(FanoutBuffers, ALibraryWithoutABufferIsAnError) {
  LibertyLibrary lib = fsgen45();
  for (const char* c : {"BUF_X1", "BUF_X2"}) lib.cells.erase(c);
  EXPECT_NE(test::error_of([&] { fanout_buffer_cell(lib, 8); }).find("no buffer cell"), std::string::npos);
}

}  // namespace
}  // namespace fsgen
