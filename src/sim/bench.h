// Simulation speed benchmark: the same kernel on the same design, in the SystemC model
// and in Verilator, in one run. Like with like: both record every probed port's toggles
// cycle by cycle (what the cross-check compares); Verilator is also run without probes
// (the raw RTL's speed) and shown beside. Where array a can run as RTL inside the platform,
// the mixed-level run (sim/mixed_sim.h: array a Verilated, the rest SystemC) is timed too, and
// so is the platform with the whole core as its Verilated RTL (--rtl core).
#pragma once
#include <ostream>
#include <string>
#include <vector>

namespace fsgen {

struct BenchRow {
  std::string design;
  unsigned pes;
  std::string kernel;
  unsigned long long cycles;
  unsigned long long busy_cycles;  // array a's busy cycles (its PEs streaming operands)
  double systemc_seconds, verilator_seconds, verilator_raw_seconds;
  double mixed_seconds = 0;  // array a as RTL in the platform; 0: not run (array a has no mixed-level model)
  double core_rtl_seconds = 0;  // the whole core as RTL in the platform
  double systemc_cps() const { return cycles / systemc_seconds; }
  double verilator_cps() const { return cycles / verilator_seconds; }
  double verilator_raw_cps() const { return cycles / verilator_raw_seconds; }
  double mixed_cps() const { return mixed_seconds > 0 ? cycles / mixed_seconds : 0; }
  double core_rtl_cps() const { return core_rtl_seconds > 0 ? cycles / core_rtl_seconds : 0; }
  double busy_share() const { return cycles ? double(busy_cycles) / double(cycles) : 0.0; }
};

// sizes: PE array edge lengths (8 -> 8x8 PEs). rtl_root: where designs are generated.
std::vector<BenchRow> run_bench(const std::vector<unsigned>& sizes, const std::string& rtl_root);
void print_bench(const std::vector<BenchRow>& rows, std::ostream& out);

}  // namespace fsgen
