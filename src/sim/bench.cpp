#include "sim/bench.h"

#include <iomanip>

#include "compiler/attention.h"
#include "compiler/matmul.h"
#include "core/log.h"
#include "flow/verilator.h"
#include "generator/graph.h"
#include "generator/spec.h"
#include "models/platform.h"
#include "sim/mixed_sim.h"

namespace fsgen {

namespace {

// A design with size x size x size tiles on both arrays, 8 B/cycle memory. Matmul rows
// use a matmul-only output-stationary core (the smallest RTL, Verilator's best case);
// attention rows add the fused datapath, on arrays of the given dataflow.
struct BenchDesign {
  std::string tag;         // name suffix
  std::string array;       // the arrays' YAML fields besides the tiling
  std::string extra;       // further top-level fields
  bool attention;
  std::string skips;       // sparse matmul cores: the skipped tensors ("" = dense)
  bool column_lanes;       // ... every column its own lane (else 2 x 2 lane blocks)
  bool compressed = false; // a weight-stationary core holding 2:4 weights in half the MACs
  bool weights_24 = false; // the matmul's weights pruned to 2:4 (zeros in B only)
  std::string memory = "";    // the memory's YAML (default: 8 B/cycle, latency 20, 64 KiB per tensor)
  std::string tiling_a = "";  // array a's tiling (default: size x size x size)
};

// The matmul core whose array is busy most cycles, at each size s: 128-deep tiles, s bytes
// per cycle (the s bytes of B an s x s output-stationary array takes per cycle once A's
// row panel is held), A's row panel (8 tiles) and all of B (1024 x 64) on chip, so each
// operand is read once. Its matmul, (8 s^2) x 64 x 1024, is 524,288 compute cycles at
// every size.
BenchDesign busy_matmul_core(unsigned size) {
  const std::string s = std::to_string(size);
  BenchDesign d{"os", "loop_order: output_stationary", "", false, "", false};
  d.memory = "{bandwidth_gbps: " + s + ", latency_cycles: 20, buffer_limit_bytes: 65536, operand_tiles: {a: 8, b: " +
             std::to_string(8 * 64 / size) + "}}";
  d.tiling_a = "tiling: {m: " + s + ", n: " + s + ", k: 128}";
  return d;
}

std::string bench_spec(unsigned size, const BenchDesign& d) {
  const std::string t = std::to_string(size);
  const std::string tiling = "tiling: {m: " + t + ", n: " + t + ", k: " + t + "}";
  const std::string memory =
      d.memory.empty() ? "{bandwidth_gbps: 8, latency_cycles: 20, buffer_limit_bytes: 65536}" : d.memory;
  std::string sparse_a, sparsity;
  if (d.compressed) {
    sparse_a = ", sparse_tiling: {n: \"1:" + t + ":" + t + ":" + t + "\", k: \"2:" + std::to_string(size / 2) + ":" + t +
               ":" + t + "\"}";
    sparsity = "sparsity:\n  - {kind: compute_value, tensor: w, condition: \"2:4\"}\n";
  } else if (!d.skips.empty()) {
    const std::string half = std::to_string(size / 2);
    const std::string tn = d.column_lanes ? "1" : half;
    sparse_a = ", sparse_tiling: {m: \"" + half + ":" + t + ":" + t + ":" + t + "\", n: \"" + tn + ":" + t + ":" + t + ":" + t +
               "\", k: \"1:1:4:4\"}";
    sparsity = "sparsity:\n";
    for (char c : d.skips)
      sparsity += std::string("  - {kind: compute_value, tensor: ") + c + ", condition: \"" + c + "==0\"}\n";
  }
  const std::string tiling_a = d.tiling_a.empty() ? tiling : d.tiling_a;
  return "name: bench_" + d.tag + "_" + t + "x" + t + "\nclock_mhz: 1000\npe_budget: 4096\nmemory: " + memory +
         "\narrays:\n  a: {" + d.array + ", " + tiling_a + sparse_a + "}\n  b: {" + d.array + ", " + tiling + "}\n" +
         d.extra + "kernels: " + (d.attention ? "[matmul, attention]" : "[matmul]") + "\n" + sparsity;
}

// Sparse matmul cores: zero weights skipped per column (x network 1b), both operands
// skipped in 2 x 2 lane blocks on a broadcast (2e networks) and on a systolic array (3e),
// on the same matmul with half its values zero; and 2:4 weights held in half the MACs of
// a weight-stationary array (1d / 1e), on the matmul's weights pruned to 2:4, beside the
// dense weight-stationary core on the same data.
const BenchDesign kSparseCores[] = {
    {"ws", "loop_order: weight_stationary", "caches: {acc_a: 65536, acc_b: 65536}\n", false, "", false, false, true},
    {"sp_w", "loop_order: output_stationary", "", false, "w", true},
    {"sp_xw", "loop_order: output_stationary", "", false, "xw", false},
    {"sp_sys", "loop_order: output_stationary, movement: systolic", "", false, "xw", false},
    {"sp_ws", "loop_order: weight_stationary", "caches: {acc_a: 65536, acc_b: 65536}\n", false, "w", false, true, true},
};
const BenchDesign kAttentionCores[] = {
    {"attn", "loop_order: output_stationary", "", true, "", false},
    {"attn_ws", "loop_order: weight_stationary", "caches: {acc_a: 65536, acc_b: 65536}\n", true, "", false},
    {"attn_is", "loop_order: input_stationary", "caches: {acc_a: 65536, acc_b: 65536}\n", true, "", false},
    {"attn_sys", "loop_order: output_stationary, movement: systolic", "", true, "", false},
};

BenchRow measure(const Graph& g, const Program& prog, const std::string& rtl_root) {
  logger().info("bench {}: {} (building the Verilator model if needed)", g.spec.name, prog.kernel);
  const RunResult raw = run_on_verilator(g, prog, rtl_root, false);
  const RunResult rtl = run_on_verilator(g, prog, rtl_root, true);
  const RunResult sc = run_on_systemc(g, prog, SimOptions{});
  if (sc.cycles != rtl.cycles || sc.outputs != rtl.outputs || raw.cycles != rtl.cycles)
    logger().warn("  SystemC and Verilator disagree on this run (cycles {} vs {})", sc.cycles, rtl.cycles);
  for (const ToggleProbe& p : sc.probes) {
    const ToggleProbe* q = rtl.find_probe(p.block(), p.port());
    if (!q || q->toggles() != p.toggles())
      logger().warn("  SystemC and Verilator count different toggles on {}.{}", p.block(), p.port());
  }
  const auto busy = sc.activity.find("array_a");
  BenchRow row{g.spec.name,
               g.array_a.spec.pe_count(),
               prog.kernel,
               sc.cycles,
               busy == sc.activity.end() ? 0 : busy->second.busy_cycles,
               sc.wall_seconds,
               rtl.wall_seconds,
               raw.wall_seconds};
  if (why_not_rtl(g, "array_a").empty()) {
    const SimOptions mixed_options = build_rtl_options(g, {{"array_a", ""}}, rtl_root);
    const RunResult mixed = run_on_systemc(g, prog, mixed_options);
    if (mixed.cycles != sc.cycles || mixed.outputs != sc.outputs || mixed.rtl_blocks.at(0).first_mismatch != "")
      logger().warn("  the mixed-level run disagrees with SystemC on this run");
    row.mixed_seconds = mixed.wall_seconds;
  }
  const RunResult core = run_on_systemc(g, prog, build_rtl_options(g, {{kWholeCore, ""}}, rtl_root));
  if (core.cycles != sc.cycles || core.outputs != sc.outputs)
    logger().warn("  the platform with the core as RTL disagrees with SystemC on this run");
  row.core_rtl_seconds = core.wall_seconds;
  return row;
}

}  // namespace

std::vector<BenchRow> run_bench(const std::vector<unsigned>& sizes, const std::string& rtl_root) {
  std::vector<BenchRow> rows;
  for (unsigned size : sizes) {
    const Graph g =
        elaborate(parse_spec_text(bench_spec(size, busy_matmul_core(size)), "bench:" + std::to_string(size)));
    MatmulProblem prob;
    prob.m = 8 * size * size;
    prob.n = 64;
    prob.k = 1024;
    prob.seed = 7;
    rows.push_back(measure(g, compile_matmul(g, prob), rtl_root));
  }
  for (const BenchDesign& d : kSparseCores)
    for (unsigned size : sizes) {
      if (size > 16) continue;  // the sparse scheduler's window logic grows with the array; 8x8 and 16x16 here
      const Graph g = elaborate(parse_spec_text(bench_spec(size, d), "bench:" + d.tag + std::to_string(size)));
      MatmulProblem prob;
      prob.m = prob.n = prob.k = size * 16;
      prob.seed = 7;
      prob.values.zero_fraction = 0.5;
      if (d.weights_24) prob.zeros_in_a = false, prob.pattern = {2, 4};
      rows.push_back(measure(g, compile_matmul(g, prob), rtl_root));
    }
  for (const BenchDesign& d : kAttentionCores)
    for (unsigned size : sizes) {
      if (size > 16) continue;  // the fused datapath at 32 x 32 takes long to Verilate; matmul covers that size
      if (d.tag != "attn" && size != 16) continue;  // other dataflows at one size
      const Graph g = elaborate(parse_spec_text(bench_spec(size, d), "bench:" + d.tag + std::to_string(size)));
      AttentionProblem prob;
      prob.q_heads = 4;
      prob.kv_heads = 2;
      prob.tokens = 256;
      rows.push_back(measure(g, compile_attention(g, prob).program, rtl_root));
    }
  return rows;
}

void print_bench(const std::vector<BenchRow>& rows, std::ostream& out) {
  out << std::left << std::setw(22) << "design" << std::setw(6) << "PEs" << std::setw(48) << "kernel" << std::setw(10)
      << "cycles" << std::setw(7) << "busy" << std::setw(15) << "SystemC cyc/s" << std::setw(17) << "Verilator cyc/s"
      << std::setw(10) << "ratio" << std::setw(17) << "Verilator raw" << std::setw(11) << "ratio raw"
      << std::setw(13) << "mixed cyc/s"
      << "core RTL cyc/s\n";
  for (const auto& r : rows) {
    const char* waits = r.busy_share() < 0.7 ? "  (busy < 70 %: the ratio includes wait cycles the model skips)" : "";
    out << std::left << std::setw(22) << r.design << std::setw(6) << r.pes << std::setw(48) << r.kernel << std::setw(10)
        << r.cycles << std::fixed << std::setprecision(1) << std::setw(7) << 100.0 * r.busy_share() << std::scientific
        << std::setprecision(3) << std::setw(15) << r.systemc_cps() << std::setw(17) << r.verilator_cps() << std::fixed
        << std::setprecision(2) << std::setw(10) << r.systemc_cps() / r.verilator_cps() << std::scientific
        << std::setprecision(3) << std::setw(17) << r.verilator_raw_cps() << std::fixed << std::setprecision(2)
        << std::setw(11) << r.systemc_cps() / r.verilator_raw_cps() << std::scientific << std::setprecision(3);
    if (r.mixed_seconds > 0)
      out << std::setw(13) << r.mixed_cps();
    else
      out << std::setw(13) << "-";
    out << r.core_rtl_cps() << waits << "\n" << std::defaultfloat;
  }
  out << "busy: array a's busy cycles (%). SystemC: fsgen platform; Verilator: generated RTL, -O2; both record every "
         "probed port's toggles per cycle (ratio = SystemC / Verilator). Verilator raw: the same RTL without probes "
         "(ratio raw = SystemC / Verilator raw). mixed: the SystemC platform with array a as its Verilated RTL "
         "(fsgen simulate --rtl array_a; '-': array a has no mixed-level model). core RTL: the SystemC platform with the "
         "whole core as its Verilated RTL, every probe sampled (fsgen simulate --rtl core).\n";
}

}  // namespace fsgen
