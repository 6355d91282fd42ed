// Gate-level simulation of a mapped netlist in Verilator with zero-delay cell models
// made from the liberty's cell functions, and per-cycle toggle counts per net bit read
// from its VCD: the golden activity the gate-level power engine turns into power.
#pragma once
#include <cstdint>
#include <string>
#include <vector>

#include "power/gate_power.h"
#include "power/techmap.h"

namespace fsgen {

// Random stimulus for a primitive: after two reset cycles (reset_n low, if the port
// exists) every other input bit flips with probability toggle_rate each cycle; ports
// named in hold_high stay 1 (enables).
struct PrimitiveStimulus {
  uint64_t cycles = 1000;
  double toggle_rate = 0.2;
  uint64_t seed = 1;
  std::string clock = "clk", reset_n = "rst_n";
  std::vector<std::string> hold_high = {"en"};
};

struct GateActivity {
  uint64_t cycles = 0;
  std::vector<uint64_t> toggles;                  // per net bit, whole run
  std::vector<std::vector<int>> toggled_per_cycle;  // per cycle, the net bits that toggled (repeats count)
};

// Builds (in out_dir) and runs the gate-level simulation of `synth`'s netlist.
GateActivity simulate_gates(const SynthReport& synth, const GateNetlist& netlist, const Liberty& lib,
                            const PrimitiveStimulus& stim, const std::string& out_dir);

// Per-cycle power trace (mW) of a simulated run: each cycle's toggles times their energy,
// plus leakage.
std::vector<double> power_trace_mw(const GatePowerModel& model, const GateActivity& activity, double clock_mhz);

}  // namespace fsgen
