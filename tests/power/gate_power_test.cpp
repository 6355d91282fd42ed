#include "power/gate_power.h"

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <map>
#include <sstream>

#include "compiler/attention.h"
#include "compiler/matmul.h"
#include "core/regmap.h"
#include "generator/rtl_library.h"
#include "generator/verilog_emitter.h"
#include "models/platform.h"
#include "power/gate_sim.h"
#include "power/golden.h"
#include "power/power_model.h"
#include "power/techmap.h"
#include "sim/power_report.h"
#include "test_util.h"

namespace fsgen {
namespace {

struct Mapped {
  Liberty lib;
  SynthReport synth;
};

// A size x size output-stationary PE array mapped onto the built-in library, in a folder of
// the calling test's own (tests may run in parallel).
Mapped mapped_pe_array(int size = 4) {
  const std::string test_name = ::testing::UnitTest::GetInstance()->current_test_info()->name();
  const std::string dir = test::scratch_dir("gate_power_" + test_name + "_" + std::to_string(size));
  const std::string src = dir + "/fsgen_array_os.v";
  std::ofstream(src) << rtl_library().at("fsgen_array_os.v");
  std::ofstream(dir + "/fsgen_rescale.vh") << rtl_library().at("fsgen_rescale.vh");  // its include
  Mapped m{prepare_liberty("", dir), {}};
  m.synth = synth_to_liberty({src}, "fsgen_array_os", {{"R", size}, {"C", size}}, m.lib, dir);
  return m;
}

TEST(GatePower, NetlistLoadsAndLeakageComeFromTheLiberty) {
  if (!test::have_tool("yosys")) GTEST_SKIP() << "yosys not installed";
  const Mapped m = mapped_pe_array();
  const GateNetlist n = read_netlist_json(m.synth.netlist_json, "fsgen_array_os");
  EXPECT_EQ(n.cells.size(), m.synth.cells);
  const LibertyLibrary lib = read_liberty_file(m.lib.path);
  const GatePowerModel model(n, lib, {1000, 0.05, 0});
  // The clock net drives every flip-flop's CK pin (0.95 fF each) plus the wire load.
  const int clk = n.ports.at("clk").at(0);
  EXPECT_NEAR(model.load_ff(clk), 16 * 32 * 0.95 + lib.wire_load.cap_ff(16 * 32), 1e-6);
  double leak_nw = 0;
  for (const auto& c : n.cells) leak_nw += lib.cell(c.type).leakage_nw;
  const PowerBreakdown idle = model.power(std::vector<uint64_t>(n.max_bit + 1, 0), 100);
  EXPECT_NEAR(idle.leakage_mw, leak_nw * 1e-6, 1e-9);
  EXPECT_EQ(idle.switching_mw + idle.internal_mw, 0.0);
}

// A hierarchical netlist read flat: each instance's cells and names under its name, its port
// bits the instance's connections (a constant one tying the pins it reaches), its inner nets
// new bits; a port connected with the wrong width is a one-line error.
TEST(GatePower, AHierarchicalNetlistIsReadFlat) {
  const std::string dir = test::scratch_dir("gate_power_hierarchy");
  const std::string inverter = R"("inv": {"ports": {"a": {"direction": "input", "bits": [2]},
        "y": {"direction": "output", "bits": [3]}},
      "cells": {"g1": {"type": "INV_X1", "port_directions": {"A": "input", "ZN": "output"},
                       "connections": {"A": [2], "ZN": [4]}},
                "g2": {"type": "INV_X1", "port_directions": {"A": "input", "ZN": "output"},
                       "connections": {"A": [4], "ZN": [3]}}},
      "netnames": {"mid": {"bits": [4]}, "$abc$7": {"bits": [4]}, "a": {"bits": [2]}, "y": {"bits": [3]}}})";
  auto top_with = [&](const std::string& b_input) {
    return R"({"modules": {)" + inverter + R"(, "top": {"ports": {"in": {"direction": "input", "bits": [2]},
        "out": {"direction": "output", "bits": [3, 4]}},
      "cells": {"a": {"type": "inv", "connections": {"a": [2], "y": [3]}},
                "b": {"type": "inv", "connections": {"a": )" +
           b_input + R"(, "y": [4]}}},
      "netnames": {"in": {"bits": [2]}, "out": {"bits": [3, 4]}}}}})";
  };
  std::ofstream(dir + "/h.json") << top_with(R"(["1"])");
  const GateNetlist n = read_netlist_json(dir + "/h.json", "top");
  ASSERT_EQ(n.cells.size(), 4u);
  std::map<std::string, const GateNetlist::Cell*> cells;
  for (const auto& c : n.cells) cells[c.name] = &c;
  ASSERT_TRUE(cells.count("a.g1") && cells.count("a.g2") && cells.count("b.g1") && cells.count("b.g2"));
  EXPECT_EQ(cells["a.g1"]->pins.at("A"), 2);  // the top's port bit
  EXPECT_EQ(cells["a.g2"]->pins.at("ZN"), 3);
  EXPECT_EQ(cells["b.g2"]->pins.at("ZN"), 4);
  EXPECT_TRUE(cells["b.g1"]->tied.at("A"));  // tied high through the instance's port
  EXPECT_EQ(cells["b.g1"]->pins.count("A"), 0u);
  const int a_mid = cells["a.g1"]->pins.at("ZN"), b_mid = cells["b.g1"]->pins.at("ZN");
  EXPECT_GT(a_mid, 4);
  EXPECT_GT(b_mid, 4);
  EXPECT_NE(a_mid, b_mid);
  EXPECT_EQ(cells["a.g2"]->pins.at("A"), a_mid);
  EXPECT_EQ(n.max_bit, std::max(a_mid, b_mid));
  EXPECT_EQ(n.netnames.at("a.mid"), std::vector<int>{a_mid});
  EXPECT_EQ(n.netnames.at("b.a"), std::vector<int>{});  // a constant is no net
  EXPECT_EQ(n.netnames.count("a.$abc$7"), 0u);          // Yosys' own names inside an instance
  EXPECT_EQ(n.ports.at("out"), (std::vector<int>{3, 4}));

  std::ofstream(dir + "/bad.json") << top_with("[2, 3]");
  const std::string e = test::error_of([&] { read_netlist_json(dir + "/bad.json", "top"); });
  EXPECT_NE(e.find("bad.json: instance b port a: 2 bits connected, 1 expected"), std::string::npos) << e;
}

TEST(GatePower, VectorlessAgreesWithOpenSta) {
  if (!test::have_tool("yosys") || !test::have_tool("sta")) GTEST_SKIP() << "yosys or sta not installed";
  const Mapped m = mapped_pe_array();
  const GateNetlist n = read_netlist_json(m.synth.netlist_json, "fsgen_array_os");
  const LibertyLibrary lib = read_liberty_file(m.lib.path);
  const double period_ns = 2.0, activity = 0.2;
  const GatePowerModel model(n, lib, {1000 / period_ns, 0.05, 0});
  const PowerBreakdown ours = model.power(uniform_toggles(n, "clk", activity, 1000), 1000);
  const StaPower sta = sta_vectorless_power(m.synth, "fsgen_array_os", m.lib, "clk", period_ns, activity);
  std::cout << "engine: internal " << ours.internal_mw << " switching " << ours.switching_mw << " leakage "
            << ours.leakage_mw << " mW; sta: internal " << sta.internal_mw << " switching " << sta.switching_mw
            << " leakage " << sta.leakage_mw << " mW\n";
  // Leakage and switching follow the same definitions: within 0.1 % and 2 %. The Debian
  // OpenSTA sums rise and fall internal energy per transition (2x); beyond that its
  // combinational internal power is about 1.5x the engine's, which counts one arc event
  // per output transition as the liberty defines it (docs/POWER.md): within 30 %.
  EXPECT_NEAR(ours.leakage_mw, sta.leakage_mw, 0.001 * sta.leakage_mw);
  EXPECT_NEAR(ours.switching_mw, sta.switching_mw, 0.02 * sta.switching_mw);
  EXPECT_NEAR(2 * ours.internal_mw, sta.internal_mw, 0.30 * sta.internal_mw);
}

// Gate-level simulation: a random-input run of the mapped array gives per-cycle toggles
// per net; the trace averages to the engine's power of the same toggle totals, the clock
// toggles twice a cycle, and a quieter stimulus draws less power.
TEST(GatePower, GateLevelSimulationGivesAPerCycleTrace) {
  if (!test::have_tool("yosys") || !test::have_tool("verilator")) GTEST_SKIP() << "yosys or verilator not installed";
  const Mapped m = mapped_pe_array(2);
  const GateNetlist n = read_netlist_json(m.synth.netlist_json, "fsgen_array_os");
  const LibertyLibrary lib = read_liberty_file(m.lib.path);
  const GatePowerModel model(n, lib, {500, 0.05, 0});
  const std::string sim_dir = test::scratch_dir("gate_sim");
  PrimitiveStimulus busy;
  busy.cycles = 400;
  busy.toggle_rate = 0.3;
  const GateActivity a = simulate_gates(n, lib, busy, sim_dir);
  EXPECT_EQ(a.toggles.at(n.ports.at("clk").at(0)), 2 * busy.cycles - 1);  // it starts low
  const std::vector<double> trace = power_trace_mw(model, a, 500);
  ASSERT_EQ(trace.size(), busy.cycles);
  double mean = 0;
  for (double p : trace) mean += p / double(trace.size());
  EXPECT_NEAR(mean, model.power(a.toggles, busy.cycles).total_mw(), 1e-6 * mean);
  EXPECT_GT(*std::max_element(trace.begin() + 4, trace.end()), *std::min_element(trace.begin() + 4, trace.end()));
  // A run less its first cycles is the trace's rest: its energy, and the clock's toggles.
  GateActivity rest = a;
  drop_first_cycles(rest, 10);
  ASSERT_EQ(rest.cycles, busy.cycles - 10);
  EXPECT_EQ(rest.toggles.at(n.ports.at("clk").at(0)), 2 * rest.cycles);
  double rest_mean = 0;
  for (size_t c = 10; c < trace.size(); ++c) rest_mean += trace[c] / double(rest.cycles);
  EXPECT_NEAR(model.power(rest.toggles, rest.cycles).total_mw(), rest_mean, 1e-6 * rest_mean);
  PrimitiveStimulus quiet = busy;
  quiet.toggle_rate = 0.05;
  const GateActivity q = simulate_gates(n, lib, quiet, sim_dir);
  EXPECT_LT(model.power(q.toggles, quiet.cycles).total_mw(), 0.7 * mean);
  std::cout << "gate-level: " << mean << " mW at toggle rate 0.3, " << model.power(q.toggles, quiet.cycles).total_mw()
            << " mW at 0.05\n";
}

// The energy by RTL signal: each register or port with the logic computing it; the parts sum
// to the run's dynamic energy, the clock net carries the flip-flops' clock pins, and in a PE
// array every gate computes some register or output, so no logic is left over.
TEST(GatePower, EnergyBySignalGivesEachRegisterItsLogic) {
  if (!test::have_tool("yosys") || !test::have_tool("verilator")) GTEST_SKIP() << "yosys or verilator not installed";
  const Mapped m = mapped_pe_array(2);
  const GateNetlist n = read_netlist_json(m.synth.netlist_json, "fsgen_array_os");
  const GatePowerModel model(n, read_liberty_file(m.lib.path), {500, 0.05, 0});
  PrimitiveStimulus stim;
  stim.cycles = 200;
  const GateActivity a = simulate_gates(n, read_liberty_file(m.lib.path), stim, test::scratch_dir("gate_sim_signals"));
  const std::vector<SignalEnergy> signals = energy_by_signal(n, model, a.toggled_per_cycle);
  const PowerBreakdown p = model.power(a.toggles, stim.cycles);
  const double dynamic_fj = (p.internal_mw + p.switching_mw) * 1e-3 * (double(stim.cycles) / 500e6) * 1e15;
  double sum = 0;
  for (const SignalEnergy& s : signals) sum += s.fj;
  EXPECT_NEAR(sum, dynamic_fj, 1e-6 * dynamic_fj);
  ASSERT_EQ(signals.back().name, "(other logic)");
  EXPECT_LT(signals.back().fj, 0.01 * dynamic_fj);
  for (size_t i = 1; i + 1 < signals.size(); ++i) EXPECT_GE(signals[i - 1].fj, signals[i].fj);
  const int clk = n.ports.at("clk").at(0);
  const auto clock = std::find_if(signals.begin(), signals.end(), [](const SignalEnergy& s) { return s.name == "clk"; });
  ASSERT_NE(clock, signals.end());
  EXPECT_EQ(clock->toggles, a.toggles[size_t(clk)]);
  EXPECT_NEAR(clock->fj, double(a.toggles[size_t(clk)]) * model.energy_per_toggle_fj(clk), 1e-9 * clock->fj);
  // The accumulators (the output port acc_rows) with their multipliers and adders spend the most.
  EXPECT_EQ(signals.front().name, "acc_rows");
  for (size_t i = 0; i + 1 < signals.size(); ++i) EXPECT_GT(signals[i].bits, 0u) << signals[i].name;
  // The variation: the shares sum to 1; the clock's energy is nearly the same in every cycle
  // and adds next to nothing to it; the accumulators, with random operands, most.
  double shares = 0;
  for (const SignalEnergy& s : signals) {
    shares += s.variation_share;
    EXPECT_GE(s.sd_fj, 0.0) << s.name;
  }
  EXPECT_NEAR(shares, 1.0, 1e-6);
  std::cout << "clock: " << clock->fj / double(stim.cycles) << " fJ per cycle, sd " << clock->sd_fj << ", share "
            << clock->variation_share << "; acc_rows: sd " << signals.front().sd_fj << ", share "
            << signals.front().variation_share << "\n";
  EXPECT_LT(clock->sd_fj, 0.1 * clock->fj / double(stim.cycles));
  EXPECT_LT(std::fabs(clock->variation_share), 0.05);
  const auto most = std::max_element(signals.begin(), signals.end(), [](const SignalEnergy& x, const SignalEnergy& y) {
    return x.variation_share < y.variation_share;
  });
  EXPECT_EQ(most->name, "acc_rows");
}

}  // namespace
}  // namespace fsgen

namespace fsgen {
namespace {

// Cycle c of a kernel VCD spans times 2c (the cycle's inputs) and 2c + 1 (after the edge).
TEST(GateSim, VcdWaveformsAreTheInputsOfEachCycle) {
  const std::string dir = test::scratch_dir("vcd_waves");
  std::ofstream(dir + "/k.vcd") << "$timescale 1ps $end\n$scope module TOP $end\n$scope module fsgen_top $end\n"
                                   "$scope module u_array_a $end\n$var wire 1 ! en $end\n$var wire 40 # x [39:0] $end\n"
                                   "$var wire 1 ! clr $end\n"  // wired to en's signal: one code, two ports
                                   "$upscope $end\n$var wire 1 $ en $end\n$upscope $end\n$upscope $end\n$enddefinitions $end\n"
                                   "#0\n0!\nb0 #\n1$\n#1\n1!\nb101 #\n#2\n#3\n0!\n#5\nb1" + std::string(39, '0') + " #\n";
  const PortWaveforms w =
      read_vcd_waveforms(dir + "/k.vcd", {"fsgen_top", "u_array_a"}, {{"en", 1}, {"x", 40}, {"sc", 1}, {"clr", 1}}, 4);
  ASSERT_EQ(w.words_per_cycle(), 5u);  // en, x (two words), sc (absent: 0), clr
  const std::vector<uint32_t> want = {0, 0, 0, 0, 0,     // cycle 0: values at time 0
                                      1, 5, 0, 0, 1,     // cycle 1: set at time 1 (the edge ending cycle 0)
                                      0, 5, 0, 0, 0,     // cycle 2
                                      0, 0, 0x80, 0, 0}; // cycle 3: bit 39 set at time 5
  EXPECT_EQ(w.words, want);
  // A signal wider than its port would write past it; a file without the instance has nothing to replay.
  std::string e = test::error_of([&] {
    read_vcd_waveforms(dir + "/k.vcd", {"fsgen_top", "u_array_a"}, {{"en", 1}, {"x", 32}}, 4);
  });
  EXPECT_NE(e.find("k.vcd: signal x is 40 bits wide: expected the port's 32"), std::string::npos) << e;
  std::ofstream(dir + "/empty.vcd") << "";
  e = test::error_of([&] { read_vcd_waveforms(dir + "/empty.vcd", {"fsgen_top", "u_array_a"}, {{"en", 1}}, 4); });
  EXPECT_NE(e.find("empty.vcd: no signal in a scope ending with fsgen_top.u_array_a"), std::string::npos) << e;
  // Found by the fuzzer (make fuzz): a width or a time that is not a number.
  std::ofstream(dir + "/bad.vcd") << "$scope module u_array_a $end\n$var wire e1 ! en $end\n";
  e = test::error_of([&] { read_vcd_waveforms(dir + "/bad.vcd", {"u_array_a"}, {{"en", 1}}, 4); });
  EXPECT_NE(e.find("bad.vcd:2: $var width: expected a non-negative integer, got 'e1'"), std::string::npos) << e;
  std::ofstream(dir + "/bad.vcd") << "$scope module u_array_a $end\n$var wire 1 ! en $end\n$enddefinitions $end\n#x\n";
  e = test::error_of([&] { read_vcd_waveforms(dir + "/bad.vcd", {"u_array_a"}, {{"en", 1}}, 4); });
  EXPECT_NE(e.find("bad.vcd:4: time: expected a non-negative integer, got 'x'"), std::string::npos) << e;
}

// A matmul-only core's array a under the RTL's stimulus of a real kernel.
TEST(GoldenPower, ReplaysTheRtlStimulusIntoTheArrayNetlist) {
  if (!test::have_tool("yosys") || !test::have_tool("verilator")) GTEST_SKIP() << "yosys or verilator not installed";
  const std::string dir = test::scratch_dir("golden");
  const Graph g = elaborate(parse_spec_text(test::tiny_matmul_core_spec(), "tiny.yaml"));
  MatmulProblem p;
  p.m = 4;
  p.n = 8;
  p.k = 16;
  const Program prog = compile_matmul(g, p);
  const std::vector<GoldenBlockPower> golden = golden_block_power(g, prog, {"array_a"}, "", dir + "/rtl", dir + "/work");
  ASSERT_EQ(golden.size(), 1u);
  const GoldenBlockPower& a = golden.front();
  EXPECT_EQ(a.module, "fsgen_array_os");
  EXPECT_EQ(a.params.at("R"), 2);
  EXPECT_EQ(a.mw.size(), run_on_systemc(g, prog).cycles);
  EXPECT_GT(a.average_mw, a.leakage_mw);
  EXPECT_GT(*std::max_element(a.mw.begin(), a.mw.end()), 2 * *std::min_element(a.mw.begin(), a.mw.end()));
  EXPECT_EQ(a.output_mismatch_cycles, 0u);  // the netlist under the replayed stimulus computes what the RTL did
  std::cout << "golden array a: " << a.average_mw << " mW over " << a.mw.size() << " cycles; replayed outputs differ in "
            << a.output_mismatch_cycles << " cycles\n";
}

// The register file's configuration registers sit behind clock gates (fsgen_clock_gate),
// mapped to each library's integrated clock-gating cell and simulated as its latch: AXI4-Lite
// writes and a read replayed into the netlist land where the RTL puts them, and a register's
// gated clock pulses only in the cycle that writes it.
TEST(GateSim, ClockGatedRegistersTakeTheirWritesOnly) {
  if (!test::have_tool("yosys")) GTEST_SKIP() << "yosys not installed";
  const std::string sky = "../shared/pdk/sky130hd_tt.lib.gz";
  for (const std::string& liberty : {std::string(), sky}) {
    if (!liberty.empty() && !std::filesystem::exists(sky)) continue;
    const std::string dir = test::scratch_dir(std::string("gated_csr_") + (liberty.empty() ? "fsgen45" : "sky130"));
    const Liberty lib = prepare_liberty(liberty, dir);
    const SynthReport synth = synth_to_liberty(write_module_sources(dir, "fsgen_csr"), "fsgen_csr", {}, lib, dir);
    const GateNetlist n = read_netlist_json(synth.netlist_json, "fsgen_csr");
    PortWaveforms w;
    w.ports = {{"rst_n", 1},    {"s_awaddr", 8}, {"s_awvalid", 1}, {"s_wdata", 32}, {"s_wvalid", 1},
               {"s_bready", 1}, {"s_araddr", 8}, {"s_arvalid", 1}, {"s_rready", 1}};
    w.cycles = 10;
    w.words.assign(w.cycles * w.words_per_cycle(), 0);
    auto set = [&](uint64_t cycle, size_t port, uint32_t value) {
      w.words[cycle * w.words_per_cycle() + port] = value;
    };
    for (uint64_t c = 0; c < w.cycles; ++c) set(c, 0, 1), set(c, 5, 1), set(c, 8, 1);
    set(1, 1, reg::kAddrA), set(1, 2, 1), set(1, 3, 0xdeadbeef), set(1, 4, 1);  // addr_a, cycle 1
    set(3, 1, reg::kTilesM), set(3, 2, 1), set(3, 3, 0x12345), set(3, 4, 1);    // tiles_m keeps 16 bits, cycle 3
    set(6, 6, reg::kAddrA), set(6, 7, 1);                                       // read addr_a, cycle 6
    PortWaveforms out;
    const GateActivity a = replay_gates(n, read_liberty_file(lib.path), w, "clk", "rst_n", &out);
    auto output = [&](uint64_t cycle, const std::string& port) {
      const size_t at = out.word_of(port);
      if (at != PortWaveforms::kNoPort) return out.words[cycle * out.words_per_cycle() + at];
      ADD_FAILURE() << "no output " << port;
      return 0u;
    };
    for (uint64_t c = 0; c < w.cycles; ++c) {
      EXPECT_EQ(output(c, "addr_a"), c >= 2 ? 0xdeadbeefu : 0u) << lib.name << " cycle " << c;
      EXPECT_EQ(output(c, "tiles_m"), c >= 4 ? 0x2345u : 0u) << lib.name << " cycle " << c;
    }
    EXPECT_EQ(output(7, "s_rdata"), 0xdeadbeefu) << lib.name;
    EXPECT_EQ(output(7, "s_rvalid"), 1u) << lib.name;
    // Each gated clock rose and fell once: in its register's write, the read's.
    for (const char* gclk : {"gclk_addr_a", "gclk_tiles_m", "gclk_read"}) {
      ASSERT_TRUE(n.netnames.count(gclk)) << gclk;
      EXPECT_EQ(a.toggles.at(n.netnames.at(gclk).at(0)), 2u) << lib.name << " " << gclk;
    }
    EXPECT_EQ(a.toggles.at(n.netnames.at("gclk_kernel").at(0)), 0u) << lib.name;
  }
}

// A value-sparse core: its array a and both value networks, each replayed from the RTL, and
// its register file, whose replay is programmed first as the host programmed the RTL
// (with_programming): every replay's outputs equal the RTL's from the kernel's first cycle.
TEST(GoldenPower, ReplaysTheValueNetworks) {
  if (!test::have_tool("yosys") || !test::have_tool("verilator")) GTEST_SKIP() << "yosys or verilator not installed";
  const std::string dir = test::scratch_dir("golden_sparse");
  std::string spec = test::tiny_matmul_core_spec();
  spec.replace(spec.find("k: 8}}"), 6, "k: 8}, sparse_tiling: {n: \"2:4:4:4\", k: \"1:1:4:4\"}}");
  spec += "sparsity:\n  - {kind: compute_value, tensor: w, condition: \"w==0\"}\n";
  const Graph g = elaborate(parse_spec_text(spec, "tiny_sparse.yaml"));
  MatmulProblem p;
  p.m = 4;
  p.n = 8;
  p.k = 16;
  p.values.zero_fraction = 0.5;
  const Program prog = compile_matmul(g, p);
  const std::vector<GoldenBlockPower> golden =
      golden_block_power(g, prog, {"array_a", "net_x", "net_w", "csr"}, "", dir + "/rtl", dir + "/work");
  ASSERT_EQ(golden.size(), 4u);
  EXPECT_EQ(golden[0].block, "array_a");
  EXPECT_EQ(golden[0].params.at("LN"), 2);
  for (size_t i : {1, 2}) {
    EXPECT_EQ(golden[i].module, "fsgen_sparse_net");
    EXPECT_EQ(golden[i].params.at("SK"), 4);
    EXPECT_GT(golden[i].average_mw, golden[i].leakage_mw) << golden[i].block;
  }
  EXPECT_EQ(golden[1].block, "net_x");
  EXPECT_EQ(golden[1].params.at("LANES"), 2);
  EXPECT_EQ(golden[2].params.at("ROWS"), 4);
  EXPECT_EQ(golden[3].module, "fsgen_csr");
  EXPECT_EQ(golden[3].mw.size(), golden[0].mw.size());  // the programming's cycles left out
  for (const auto& b : golden) EXPECT_EQ(b.output_mismatch_cycles, 0u) << b.block;
}

// A weight-stationary core whose accumulator cache (two 2 x 4 tiles: 64 bytes) is
// flip-flops: replayed from the RTL like the arrays.
TEST(GoldenPower, ReplaysTheAccumulatorCache) {
  if (!test::have_tool("yosys") || !test::have_tool("verilator")) GTEST_SKIP() << "yosys or verilator not installed";
  const std::string dir = test::scratch_dir("golden_acc");
  const Graph g = elaborate(parse_spec_text(test::tiny_ws_core_spec(), "tiny_ws.yaml"));
  MatmulProblem p;
  p.m = 4;
  p.n = 8;
  p.k = 16;
  const Program prog = compile_matmul(g, p);
  const std::vector<GoldenBlockPower> golden = golden_block_power(g, prog, {"acc_a"}, "", dir + "/rtl", dir + "/work");
  ASSERT_EQ(golden.size(), 1u);
  EXPECT_EQ(golden[0].module, "fsgen_acc_cache");
  EXPECT_EQ(golden[0].params.at("SLOTS"), 2);
  EXPECT_EQ(golden[0].params.at("TN"), 4);
  EXPECT_GT(golden[0].average_mw, golden[0].leakage_mw);
  EXPECT_EQ(golden[0].output_mismatch_cycles, 0u);
  EXPECT_NE(test::error_of([&] { golden_block_power(g, prog, {"requant"}, "", dir + "/rtl", dir + "/work"); })
                .find("block 'requant': no RTL instance the power flow replays"),
            std::string::npos);
}

// The DMA's netlist under the kernel's AXI traffic: every output (addresses, burst
// lengths, handshakes, write data) equals the RTL instance's, cycle by cycle.
TEST(GoldenPower, ReplaysTheDma) {
  if (!test::have_tool("yosys") || !test::have_tool("verilator")) GTEST_SKIP() << "yosys or verilator not installed";
  const std::string dir = test::scratch_dir("golden_dma");
  const Graph g = elaborate(parse_spec_text(test::tiny_matmul_core_spec(), "tiny.yaml"));
  MatmulProblem p;
  p.m = 8;
  p.n = 8;
  p.k = 16;
  const std::vector<GoldenBlockPower> golden = golden_block_power(g, compile_matmul(g, p), {"dma"}, "", dir + "/rtl", dir + "/work");
  ASSERT_EQ(golden.size(), 1u);
  EXPECT_EQ(golden[0].module, "fsgen_dma");
  EXPECT_EQ(golden[0].params.at("W"), int64_t(g.memory.beat_bytes));
  EXPECT_GT(golden[0].average_mw, golden[0].leakage_mw);
  EXPECT_EQ(golden[0].output_mismatch_cycles, 0u);
  // Its energy by signal adds up to its dynamic power, and is written one row per signal.
  double fj = 0;
  for (const SignalEnergy& s : golden[0].signals) fj += s.fj;
  const double dynamic_mw = fj / double(golden[0].mw.size()) * g.spec.clock_mhz * 1e-6;
  EXPECT_NEAR(dynamic_mw, golden[0].average_mw - golden[0].leakage_mw, 1e-6 * golden[0].average_mw);
  std::ostringstream csv;
  write_golden_signals_csv(golden, csv);
  EXPECT_EQ(csv.str().rfind("block,signal,bits,toggles,energy_fj,fj_per_cycle,share_of_dynamic,sd_fj_per_cycle,"
                            "share_of_variation\n",
                            0),
            0u);
  EXPECT_NE(csv.str().find("\ndma,clk,1,"), std::string::npos) << csv.str();
}

// The softmax unit sits beside the controller (u_softmax, fed by its ports): its netlist
// replays the fused attention's score rows with the same outputs as the RTL. Its
// estimate from the shipped dataset follows the golden trace cycle by cycle: the unit's
// datapath switches in its load cycles (BlockTimeline::switching_lead), a cycle before its
// row probe changes; without the lead the trace R was about 0.5.
TEST(GoldenPower, ReplaysTheSoftmaxUnit) {
  if (!test::have_tool("yosys") || !test::have_tool("verilator")) GTEST_SKIP() << "yosys or verilator not installed";
  const std::string dir = test::scratch_dir("golden_softmax");
  // Score rows of one key (TN = 1): the smallest unit, and the size the softmax unit's
  // characterisation test synthesises, so that the two share the synthesis (Yosys' longest
  // run among the tests). Causal masking is then by whole key tiles; masked lanes within a
  // tile are driven by the unit's characterisation at TN = 2.
  std::string spec = test::tiny_attention_core_spec();
  spec = test::replace(spec, "tiling: {m: 2, n: 2, k: 8}", "tiling: {m: 2, n: 1, k: 8}");
  spec = test::replace(spec, "tiling: {m: 2, n: 8, k: 2}", "tiling: {m: 2, n: 8, k: 1}");
  spec = test::replace(spec, "bandwidth_gbps: 1", "bandwidth_gbps: 0.5");  // 1-byte beats: rows of one key
  const Graph g = elaborate(parse_spec_text(spec, "tiny.yaml"));
  AttentionProblem p;
  p.tokens = 5;
  const std::vector<GoldenBlockPower> golden =
      golden_block_power(g, compile_attention(g, p).program, {"softmax"}, "", dir + "/rtl", dir + "/work");
  ASSERT_EQ(golden.size(), 1u);
  EXPECT_EQ(golden[0].module, "fsgen_softmax");
  EXPECT_EQ(golden[0].params.at("TN"), 1);
  EXPECT_GT(golden[0].average_mw, golden[0].leakage_mw);
  EXPECT_EQ(golden[0].output_mismatch_cycles, 0u);

  const PowerModel model = train_power_model(read_dataset("data/power/fsgen45.csv"), 100);
  const PowerTrace t = estimate_power(g, compile_attention(g, p).program, model, 1);
  const std::vector<GoldenComparison> c = compare_to_golden(t, golden, model);
  ASSERT_EQ(c.size(), 1u);
  EXPECT_GT(c[0].window_r, 0.8);
  EXPECT_NEAR(c[0].error_percent, 0.0, 20.0);
}

}  // namespace
}  // namespace fsgen
