// Simulation speed benchmark: the same matmul on the same design, in the SystemC
// model (per-cycle activity recording on) and in Verilator, in one run.
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
  double systemc_seconds, verilator_seconds;
  double systemc_cps() const { return cycles / systemc_seconds; }
  double verilator_cps() const { return cycles / verilator_seconds; }
};

// sizes: PE array edge lengths (8 -> 8x8 PEs). rtl_root: where designs are generated.
std::vector<BenchRow> run_bench(const std::vector<unsigned>& sizes, const std::string& rtl_root);
void print_bench(const std::vector<BenchRow>& rows, std::ostream& out);

}  // namespace fsgen
