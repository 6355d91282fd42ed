#include "sim/bench.h"

#include <iomanip>

#include "compiler/matmul.h"
#include "generator/graph.h"
#include "generator/spec.h"
#include "models/platform.h"
#include "sim/cosim.h"

namespace fsgen {

namespace {

// An output-stationary design with a size x size PE array, 8 B/cycle memory.
std::string bench_spec(unsigned size) {
  return "name: bench_os_" + std::to_string(size) + "x" + std::to_string(size) +
         "\nclock_mhz: 1000\npe_budget: 4096\nmemory: {bandwidth_gbps: 8, latency_cycles: 20, buffer_limit_bytes: 65536}\n"
         "arrays:\n  a: {loop_order: output_stationary, tiling: {m: " + std::to_string(size) + ", n: " + std::to_string(size) +
         ", k: " + std::to_string(size) + "}}\n  b: {loop_order: output_stationary, tiling: {m: 8, n: 8, k: 8}}\n";
}

}  // namespace

std::vector<BenchRow> run_bench(const std::vector<unsigned>& sizes, const std::string& rtl_root, std::ostream& log) {
  std::vector<BenchRow> rows;
  for (unsigned size : sizes) {
    const DesignSpec spec = parse_spec_text(bench_spec(size), "bench:" + std::to_string(size));
    const Graph g = elaborate(spec);
    MatmulProblem prob;
    prob.m = prob.n = prob.k = size * 16;
    prob.seed = 7;
    const Program prog = compile_matmul(g, prob);
    log << "bench " << spec.name << ": " << prog.kernel << " (building the Verilator model if needed)\n";
    const RunResult rtl = run_on_verilator(g, prog, rtl_root, false);
    const RunResult sc = run_on_systemc(g, prog, SimOptions{true});
    if (sc.cycles != rtl.cycles || sc.outputs != rtl.outputs)
      log << "  warning: SystemC and Verilator disagree on this run (cycles " << sc.cycles << " vs " << rtl.cycles << ")\n";
    rows.push_back({spec.name, size * size, prog.kernel, sc.cycles, sc.wall_seconds, rtl.wall_seconds});
  }
  return rows;
}

void print_bench(const std::vector<BenchRow>& rows, std::ostream& out) {
  out << std::left << std::setw(18) << "design" << std::setw(7) << "PEs" << std::setw(28) << "kernel" << std::setw(12)
      << "cycles" << std::setw(16) << "SystemC cyc/s" << std::setw(17) << "Verilator cyc/s" << "SystemC/Verilator\n";
  for (const auto& r : rows)
    out << std::left << std::setw(18) << r.design << std::setw(7) << r.pes << std::setw(28) << r.kernel << std::setw(12)
        << r.cycles << std::setw(16) << std::scientific << std::setprecision(3) << r.systemc_cps() << std::setw(17)
        << r.verilator_cps() << std::fixed << std::setprecision(2) << r.systemc_cps() / r.verilator_cps() << "x\n"
        << std::defaultfloat;
  out << "SystemC: fsgen platform, per-cycle toggle recording on. Verilator: generated RTL, -O2, no probes.\n";
}

}  // namespace fsgen
