// fsgen's gate-level simulator (power/gate_engine.h, power/gate_compile.h): liberty
// functions as truth tables, and a mapped PE array replayed on it and on Verilator with the
// cells' Verilog models: the same toggles, net bit by net bit and cycle by cycle.
#include <algorithm>
#include <filesystem>
#include <fstream>
#include <random>

#include "core/error.h"
#include "generator/rtl_library.h"
#include "power/gate_compile.h"
#include "power/gate_sim.h"
#include "power/techmap.h"
#include "test_util.h"

namespace fsgen {
namespace {

namespace fs = std::filesystem;

std::vector<int> table_bits(const std::string& function, const std::vector<std::string>& vars) {
  const fsgen_gates::Table t = liberty_function_table(function, vars, "test");
  std::vector<int> out;
  for (uint32_t x = 0; x < (1u << vars.size()); ++x) out.push_back(t.at(x));
  return out;
}

TEST(GateEngine, LibertyFunctionsFollowTheirPrecedence) {
  // Index bit i is variable i: A is the lowest bit.
  EXPECT_EQ(table_bits("!(A&B)", {"A", "B"}), (std::vector<int>{1, 1, 1, 0}));
  EXPECT_EQ(table_bits("A B", {"A", "B"}), (std::vector<int>{0, 0, 0, 1}));
  EXPECT_EQ(table_bits("(A^B)'", {"A", "B"}), (std::vector<int>{1, 0, 0, 1}));
  // And before or, xor before and: A + B*C, A & B ^ C.
  EXPECT_EQ(table_bits("A+B*C", {"A", "B", "C"}), (std::vector<int>{0, 1, 0, 1, 0, 1, 1, 1}));
  EXPECT_EQ(table_bits("A&B^C", {"A", "B", "C"}), (std::vector<int>{0, 0, 0, 1, 0, 1, 0, 0}));
  EXPECT_EQ(table_bits("(D&DE) | (IQ&!DE)", {"D", "DE", "IQ"}), (std::vector<int>{0, 0, 0, 1, 1, 1, 0, 1}));
  EXPECT_EQ(table_bits("1", {"A"}), (std::vector<int>{1, 1}));
}

TEST(GateEngine, AMalformedFunctionNamesTheCellAndTheCharacter) {
  const auto message = [](const std::string& f) {
    try {
      liberty_function_table(f, {"A", "B"}, "liberty cell X");
    } catch (const UserError& e) {
      return std::string(e.what());
    }
    return std::string("no error");
  };
  EXPECT_EQ(message("(A&B"), "liberty cell X: function \"(A&B\": expected ')' at character 5");
  EXPECT_EQ(message("A&C"), "liberty cell X: function \"A&C\": 'C' is not a pin of the cell at character 4");
  EXPECT_EQ(message("A&"), "liberty cell X: function \"A&\": expected a pin name, a constant or '(' at character 3");
}

TEST(GateEngine, ALatchIsRefusedByName) {
  GateNetlist n;
  n.top = "t";
  n.cells.push_back({"u_latch", "LATCH_X1", {{"D", 0}, {"G", 1}, {"Q", 2}}, {}, {}});
  n.max_bit = 2;
  LibertyLibrary lib;
  LibertyCell latch;
  latch.name = "LATCH_X1";
  latch.sequential = true;
  lib.cells["LATCH_X1"] = latch;
  try {
    compile_gate_netlist(n, lib);
    FAIL() << "a latch compiled";
  } catch (const UserError& e) {
    EXPECT_NE(std::string(e.what()).find("liberty cell LATCH_X1 (netlist cell u_latch): a latch"), std::string::npos)
        << e.what();
  }
}

// Random input waveforms for every input port but the clock, reset released.
PortWaveforms random_waves(const GateNetlist& n, uint64_t cycles) {
  PortWaveforms w;
  w.cycles = cycles;
  for (const auto& [port, bits] : n.ports)
    if (!n.outputs.count(port) && port != "clk") w.ports.push_back({port, uint32_t(bits.size())});
  std::mt19937 rng(7);
  std::bernoulli_distribution busy(0.6);
  for (uint64_t c = 0; c < cycles; ++c) {
    const bool active = busy(rng);
    for (const auto& [port, width] : w.ports)
      for (uint32_t word = 0; word < (width + 31) / 32; ++word) {
        const uint32_t bits = std::min<uint32_t>(32, width - 32 * word);
        const uint32_t mask = bits == 32 ? ~0u : (1u << bits) - 1;
        const uint32_t v = port == "rst_n" ? 1u : active ? uint32_t(rng()) : 0u;
        w.words.push_back(v & mask);
      }
  }
  return w;
}

void expect_same_toggles_as_verilator(const std::string& liberty_file) {
  const std::string dir =
      test::scratch_dir("gate_engine_" + fs::path(liberty_file.empty() ? "fsgen45" : liberty_file).stem().string());
  std::ofstream(dir + "/fsgen_array_os.v") << rtl_library().at("fsgen_array_os.v");
  std::ofstream(dir + "/fsgen_rescale.vh") << rtl_library().at("fsgen_rescale.vh");
  const Liberty lib = prepare_liberty(liberty_file, dir);
  const SynthReport synth =
      synth_to_liberty({dir + "/fsgen_array_os.v"}, "fsgen_array_os", {{"R", 2}, {"C", 2}}, lib, dir);
  const GateNetlist n = read_netlist_json(synth.netlist_json, "fsgen_array_os");
  const PortWaveforms waves = random_waves(n, 150);
  PortWaveforms outputs;
  const GateActivity ours = replay_gates(n, read_liberty_file(lib.path), waves, "clk", "rst_n", &outputs);
  const GateActivity ref = replay_gates_on_verilator(synth, n, lib, waves, "clk", "rst_n", dir);
  ASSERT_EQ(ours.cycles, ref.cycles);
  uint64_t total = 0;
  for (uint64_t c = 0; c < ours.cycles; ++c) {
    std::vector<int> a = ours.toggled_per_cycle[c], b = ref.toggled_per_cycle[c];
    std::sort(a.begin(), a.end());
    std::sort(b.begin(), b.end());
    ASSERT_EQ(a, b) << "cycle " << c;
    total += a.size();
  }
  EXPECT_EQ(ours.toggles, ref.toggles);
  EXPECT_GT(total, 100 * ours.cycles);  // the array switches: the comparison is not of idle nets
  // The outputs are the array's accumulators, which the random operands leave non-zero.
  EXPECT_NE(std::count(outputs.words.begin(), outputs.words.end(), 0u), long(outputs.words.size()));
}

TEST(GateEngine, ReplaysAPeArrayAsVerilatorDoesOnTheBuiltInLibrary) {
  if (!test::have_tool("yosys") || !test::have_tool("verilator")) GTEST_SKIP() << "yosys or verilator not installed";
  expect_same_toggles_as_verilator("");
}

TEST(GateEngine, ReplaysAPeArrayAsVerilatorDoesOnSky130) {
  const std::string sky = "../shared/pdk/sky130hd_tt.lib.gz";
  if (!fs::exists(sky)) GTEST_SKIP() << sky << " not present";
  if (!test::have_tool("yosys") || !test::have_tool("verilator")) GTEST_SKIP() << "yosys or verilator not installed";
  expect_same_toggles_as_verilator(fs::absolute(sky).string());
}

}  // namespace
}  // namespace fsgen
