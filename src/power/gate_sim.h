// Gate-level simulation of a mapped netlist on fsgen's simulator (power/gate_engine.h):
// zero-delay, the liberty's cell functions, per-cycle toggle counts per net bit: the
// golden activity the gate-level power engine turns into power. Verilator with the
// cells' Verilog models is the reference it is checked against (replay_gates_on_verilator).
#pragma once
#include <cstdint>
#include <filesystem>
#include <map>
#include <string>
#include <vector>

#include "blocks/testbench_driver.h"
#include "power/gate_power.h"
#include "power/liberty.h"
#include "power/techmap.h"

namespace fsgen {

// Random stimulus for a primitive. After two reset cycles (reset_n low, if the port
// exists) each enable port is high with probability enable_rate, drawn every cycle; in a
// cycle with any enable high, every bit of every data port (the other inputs) flips with
// probability toggle_rate and then every byte is forced to zero with probability
// zero_fraction; data ports hold their value otherwise. Ports in held_low stay 0.
// With enable_of (data port -> its enable), as a controller drives a dot array: a cycle
// is enabled with probability enable_rate and then exactly one enable, drawn uniformly,
// is high; a data port named there changes only in its enable's cycles. A port in
// counters (port -> modulus) is an index that counts 0, 1, ... modulus - 1, 0, ... in its
// enable's cycles instead of taking random values (a dot array's load column).
// With side_enable (one of the enables, under enable_of): instead of uniformly, it is the
// one high in an enabled cycle with probability side_share (a dot array's loads against its
// streams); its cycles are the side cycles. A side_enable that is not one of the enables
// qualifies them: it is high in an enabled cycle with probability side_share (the
// rescaling array's sc, which rescales its accumulators in that cycle).
// With factor_port (one Q0.15 rescale factor per row, a 32-bit word each): each row's
// factor is drawn in reset, so that a point with writes starts from factors a design's last
// pass left, and in every cycle after reset, enabled or not, redrawn with probability
// factor_share; with factor_share 0 every factor keeps its reset value 0, as a design's
// array b holds until its controller first writes them (an FFN's, a query tile's first key
// tile's): its rescale multipliers then switch with nothing; a draw is 1.0 with probability one half (the row's running
// max unchanged), else uniform in [0, 1), as a controller writes a row's factor in its softmax pass whether or not the
// array streams; and the first kFactorFillCycles cycles after reset are enabled with every data bit flipping with
// probability one half and no byte forced to zero (whatever the toggle rate and zero fraction; their bytes are not
// counted), so that the accumulators hold values, as a design's do between its passes (the rescale multipliers acc x
// alpha switch with a factor only where acc is not zero); neither the reset's nor the fill's cycles are counted as
// enabled or side cycles, since a point is measured after them.
constexpr uint64_t kFactorFillCycles = 8;

// The cycles a characterisation testbench holds the reset port low, from the first (one
// number for the random driver and the kinds' drivers: blocks/testbench_driver.h).
constexpr uint64_t kResetCycles = kTestbenchResetCycles;

struct PrimitiveStimulus {
  uint64_t cycles = 1000;
  double toggle_rate = 0.2;
  double zero_fraction = 0.0;
  double enable_rate = 1.0;
  uint64_t seed = 1;
  std::string clock = "clk", reset_n = "rst_n";
  std::vector<std::string> enables = {"en"};
  std::vector<std::string> held_low;
  std::map<std::string, std::string> enable_of;
  std::map<std::string, uint32_t> counters;
  std::string side_enable;
  double side_share = 0.5;
  std::string factor_port;
  double factor_share = 0;
  // "axi_dma": instead of the above, the DMA's controller and AXI slave (its kind's driver,
  // src/blocks/dma/testbench.cpp); the rates keep their meaning for its data, enable_rate
  // sets how busy it is, and its enabled cycles are its data beats.
  // "softmax_rows": the softmax unit's controller (src/blocks/softmax/testbench.cpp): rows
  // loaded at the enable rate, each score redrawn
  // with probability min(1, 2 x toggle rate) as a dot product of INT8 operands that are
  // zero with the zero fraction; settings {MODE}: 0 attention, 1 FFN with gate passes at
  // side_share; side cycles: the gate passes' loads.
  std::string driver;
  // Values the testbench holds for the whole run (PrimitiveDef::held_params), passed after
  // the stimulus' arguments, so one build serves all of them.
  std::vector<int64_t> settings;
};

struct GateActivity {
  uint64_t cycles = 0;
  std::vector<uint64_t> toggles;                  // per net bit, whole run
  std::vector<std::vector<int>> toggled_per_cycle;  // per cycle, the net bits that toggled (repeats count)
  uint64_t enabled_cycles = 0;                    // cycles with an enable high
  uint64_t side_cycles = 0;                       // cycles with the side enable (the DMA: a command taken)
  uint64_t zero_bytes = 0, data_bytes = 0;        // data port bytes driven in enabled cycles, and the zero ones
};

// Leaves a run's first n cycles out of its activity (toggles, cycles): cycles that set up
// the state its measured cycles start from.
void drop_first_cycles(GateActivity& a, uint64_t n);

// The C++ testbench that drives the netlist's input ports with the stimulus (its kind's
// driver, PrimitiveDef::driver, or random ports) on the gate-level simulator, which reads
// the netlist from `netlist_file` (the simulator's format); it logs each cycle's toggles
// to toggles.bin in its working folder.
std::string gate_testbench_text(const GateNetlist& n, const PrimitiveStimulus& s, const std::string& netlist_file);

// Builds (in out_dir) and runs the gate-level simulation of a netlist.
GateActivity simulate_gates(const GateNetlist& netlist, const LibertyLibrary& lib, const PrimitiveStimulus& stim,
                            const std::string& out_dir);

// The same in two steps, so that one build serves many runs, in parallel: the build
// (reused while the stimulus' port roles are unchanged) and one run in its own folder.
// The stimulus' rates and seed may differ between runs of one build.
std::filesystem::path prepare_gate_simulation(const GateNetlist& netlist, const LibertyLibrary& lib,
                                              const PrimitiveStimulus& stim, const std::string& build_dir);
GateActivity run_gate_simulation(const std::filesystem::path& binary, const GateNetlist& netlist,
                                 const PrimitiveStimulus& stim, const std::string& run_dir);

// The value of input ports cycle by cycle: words[c * words_per_cycle + ...], each port's
// 32-bit words LSB first, ports in `ports` order.
struct PortWaveforms {
  uint64_t cycles = 0;
  std::vector<std::pair<std::string, uint32_t>> ports;  // name, width in bits
  std::vector<uint32_t> words;
  size_t words_per_cycle() const;
  // Where port's first word lies among a cycle's words; kNoPort when it is not a port.
  size_t word_of(const std::string& port) const;
  static constexpr size_t kNoPort = ~size_t(0);
};

// The ports' values in cycles 0..cycles-1 of a VCD whose cycle c spans times 2c and 2c + 1
// (a cycle's inputs are the values after time 2c), read from the scope whose path ends
// with `scope` (e.g. {"fsgen_top", "u_array_a"}). A port the VCD lacks holds 0.
PortWaveforms read_vcd_waveforms(const std::string& vcd, const std::vector<std::string>& scope,
                                 const std::vector<std::pair<std::string, uint32_t>>& ports, uint64_t cycles);

// Gate-level simulation of a netlist driven by recorded waveforms of its input ports
// (the clock is driven here), after two cycles of reset that are not counted (reset_n low,
// if the netlist has that port; every net's first counted value is a toggle from 0, as in
// a VCD). `outputs`: the output ports' values cycle by cycle, as the cycle's inputs set them
// before its rising edge (as a waveform of the RTL shows them).
GateActivity replay_gates(const GateNetlist& netlist, const LibertyLibrary& lib, const PortWaveforms& waves,
                          const std::string& clock, const std::string& reset_n, PortWaveforms* outputs = nullptr);

// The same replay on Verilator with the cells' Verilog models (Yosys' from the liberty),
// built in build_dir, its toggles read from its VCD: the reference for replay_gates.
GateActivity replay_gates_on_verilator(const SynthReport& synth, const GateNetlist& netlist, const Liberty& lib,
                                       const PortWaveforms& waves, const std::string& clock, const std::string& reset_n,
                                       const std::string& build_dir);

// Per-cycle power trace (mW) of a simulated run: each cycle's toggles times their energy,
// plus leakage.
std::vector<double> power_trace_mw(const GatePowerModel& model, const GateActivity& activity, double clock_mhz);

}  // namespace fsgen
