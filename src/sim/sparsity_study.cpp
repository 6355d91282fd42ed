#include "sim/sparsity_study.h"

#include <algorithm>
#include <filesystem>
#include <iomanip>

#include "compiler/matmul.h"
#include "core/error.h"
#include "core/log.h"
#include "generator/graph.h"
#include "generator/verilog_emitter.h"
#include "models/platform.h"
#include "power/techmap.h"

namespace fsgen {

namespace {

// One point of the study: which operands skip, the sub-tiles T of m and n that set the
// lanes and groups (window S_k of a 16-step k tile), and whether operands move systolically.
struct StudyPoint {
  std::string skips;  // "", "x", "w", "xw"
  uint32_t t_m, t_n, s_k;
  bool systolic = false;
};

// Dense, then both operands over the lane/group choices, then each operand alone; then
// the systolic array (row 3 of the paper's table) dense and over a few of the same choices.
const StudyPoint kPoints[] = {
    {"", 8, 8, 1},         {"xw", 8, 8, 4},       {"xw", 8, 4, 4},       {"xw", 4, 4, 4},
    {"xw", 8, 1, 4},       {"xw", 4, 1, 4},       {"xw", 1, 1, 4},       {"xw", 8, 1, 8},
    {"w", 8, 8, 4},        {"w", 8, 1, 4},        {"x", 1, 8, 4},        {"", 8, 8, 1, true},
    {"xw", 8, 8, 4, true}, {"xw", 8, 1, 4, true}, {"xw", 1, 1, 4, true}, {"w", 8, 1, 4, true},
};

std::string study_spec(const StudyPoint& p, uint32_t index, const SparsityStudyOptions& study) {
  std::ostringstream o;
  o << "name: study_" << index << "\nclock_mhz: 1000\npe_budget: 256\n"
    << "memory: {bandwidth_gbps: " << study.bytes_per_cycle << ", latency_cycles: " << study.latency
    << ", buffer_limit_bytes: 65536,\n         operand_tiles: {a: " << study.a_tiles() << ", b: " << study.b_tiles()
    << "}}\n"
    << "arrays:\n  a:\n    loop_order: output_stationary\n    movement: " << (p.systolic ? "systolic" : "broadcast")
    << "\n    tiling: {m: 8, n: 8, k: 16}\n";
  if (!p.skips.empty())
    o << "    sparse_tiling: {m: \"" << p.t_m << ":8:8:8\", n: \"" << p.t_n << ":8:8:8\", k: \"1:1:" << p.s_k << ":"
      << p.s_k << "\"}\n";
  o << "  b:\n    loop_order: output_stationary\n    tiling: {m: 8, n: 8, k: 8}\nkernels: [matmul]\n";
  if (!p.skips.empty()) o << "sparsity:\n";
  for (char t : p.skips)
    o << "  - {kind: compute_value, tensor: " << t << ", condition: \"" << t << "==0\"}\n";
  return o.str();
}

RunResult run_matmul(const Graph& g, const SparsityStudyOptions& o, bool structured) {
  MatmulProblem p;
  p.m = o.batch;
  p.n = o.n;
  p.k = o.k;
  p.seed = o.seed;
  p.values.zero_fraction = structured ? 0.0 : o.zeros;
  if (structured) p.pattern = {2, 4};
  const Program prog = compile_matmul(g, p);
  RunResult r = run_on_systemc(g, prog);
  if (r.outputs.at("C") != matmul_expected(prog, p))
    fail("sparsity study", "design " + g.spec.name + " computed a wrong matmul (a bug: please report it)");
  return r;
}

// The sparse datapath, module by module: the PE array with its lane buses, the two value
// networks and a systolic array's skew registers (the controller's window scheduler is
// not included), each mapped for delay at the spec's clock (buffered fan-out, as
// `fsgen generate --synth`). Area adds up; max clocks are per module (inputs constrained to
// the clock), the array's and the slower network's.
void synthesise(const Graph& g, const SparsityStudyOptions& o, SparsityStudyRow& row, std::string& lib_name) {
  const std::string dir = write_design(g, (std::filesystem::path(o.work_dir) / g.spec.name).string());
  const Liberty lib = prepare_liberty(o.liberty, o.work_dir);
  lib_name = lib.name;
  std::vector<ArrayInstance> parts = {array_instance(g.array_a, false)};
  if (g.array_a.sparse.skips_steps()) {
    parts.push_back(value_network_instance(g.array_a, true));
    parts.push_back(value_network_instance(g.array_a, false));
    if (g.array_a.spec.systolic) {
      parts.push_back(skew_instance(g.array_a, true));
      parts.push_back(skew_instance(g.array_a, false));
    }
  }
  row.synthesised = true;
  for (size_t i = 0; i < parts.size(); ++i) {
    const ArrayInstance& part = parts[i];
    const std::string part_dir = (std::filesystem::path(dir) / ("synth_" + std::to_string(i) + "_" + part.module)).string();
    std::filesystem::create_directories(part_dir);
    const TimedNetlist timed = synth_and_time({(std::filesystem::path(dir) / (part.module + ".v")).string()},
                                              part.module, part.params, lib, part_dir, 1000.0 / g.spec.clock_mhz);
    const SynthReport& s = timed.synth;
    const TimingReport& t = timed.timing;
    row.area_um2 += s.area_um2;
    row.cells += s.cells;
    if (i == 0) row.array_mhz = t.max_clock_mhz();
    else if (part.module == "fsgen_sparse_net")
      row.network_mhz = row.network_mhz > 0 ? std::min(row.network_mhz, t.max_clock_mhz()) : t.max_clock_mhz();
  }
}

}  // namespace

SparsityStudy run_sparsity_study(const SparsityStudyOptions& o) {
  SparsityStudy study;
  study.options = o;
  uint32_t index = 0;
  for (const StudyPoint& p : kPoints) {
    const Graph g = elaborate(parse_spec_text(study_spec(p, index, o), "sparsity-study"));
    SparsityStudyRow row;
    const ArraySparsity& s = g.array_a.sparse;
    row.design = p.skips.empty() ? (p.systolic ? "dense systolic" : "dense") : s.name();
    row.skips = p.skips.empty() ? "-" : p.skips == "xw" ? "x, w" : p.skips;
    row.tilings = s.tiling[0].text() + " " + s.tiling[1].text() + " " + s.tiling[2].text();
    row.net_x = s.net_x.topology;
    row.net_w = s.net_w.topology;
    logger().info("  {} ({}): SystemC runs", row.design, row.skips);
    const RunResult r = run_matmul(g, o, false);
    row.cycles = r.cycles;
    row.cycles_24 = run_matmul(g, o, true).cycles;
    if (r.sparse.count("array_a")) {
      const SparseActivity& sa = r.sparse.at("array_a");
      row.stream_cycles = sa.stream_cycles;
      row.dense_stream = sa.dense_cycles;
      row.lane_occupancy = sa.lane_slots ? double(sa.lane_issues) / double(sa.lane_slots) : 0.0;
    } else {
      row.stream_cycles = row.dense_stream = r.activity.at("array_a").busy_cycles;
      row.lane_occupancy = 1.0;
    }
    if (o.synth) {
      logger().info("  {}: Yosys and OpenSTA", row.design);
      synthesise(g, o, row, study.liberty_name);
    }
    study.rows.push_back(row);
    ++index;
  }
  return study;
}

void print_sparsity_study(const SparsityStudy& s, std::ostream& out) {
  const SparsityStudyOptions& o = s.options;
  const SparsityStudyRow& dense = s.rows.front();
  out << "Sparse networks of an 8x8 output-stationary array (fsgen SystemC platform"
      << (o.synth ? "; area: Yosys onto " + s.liberty_name +
                        ", max clock: OpenSTA, both of the PE array and its value "
                        "networks (not the controller's scheduler)"
                  : "")
      << ")\n"
      << "matmul " << o.batch << " x " << o.n << " x " << o.k << ", " << o.bytes_per_cycle
      << " B/cycle memory (latency " << o.latency << "); random: " << o.zeros * 100
      << " % zeros in both operands (seed " << o.seed << "); 2:4: both operands pruned to 2:4 along k\n\n"
      << "Speed-ups are against the dense design on the same data; the array stream is the cycles the PE array\n"
      << "streamed against the k steps it covered. A's row panel and all of B stay on chip; loads overlap the "
         "passes.\n\n"
      << "| design | skips | tilings m n k | x net | w net | cycles random | speed-up | "
         "array stream | stream speed-up | lanes busy | cycles 2:4 | speed-up 2:4 |"
      << (o.synth ? " area um^2 | cells | array max MHz | network max MHz |" : "") << "\n"
      << "|---|---|---|---|---|---|---|---|---|---|---|---|" << (o.synth ? "---|---|---|---|" : "") << "\n";
  for (const auto& r : s.rows) {
    out << "| " << r.design << " | " << r.skips << " | " << r.tilings << " | " << r.net_x << " | " << r.net_w << " | "
        << r.cycles << " | " << std::fixed << std::setprecision(2) << double(dense.cycles) / double(r.cycles) << "x | "
        << r.stream_cycles << " / " << r.dense_stream << " | " << double(r.dense_stream) / double(r.stream_cycles) << "x | "
        << std::setprecision(0) << 100.0 * r.lane_occupancy
        << " % | " << r.cycles_24 << " | " << std::setprecision(2) << double(dense.cycles_24) / double(r.cycles_24) << "x |";
    if (o.synth)
      out << " " << std::setprecision(0) << r.area_um2 << " | " << r.cells << " | " << r.array_mhz << " | "
          << (r.network_mhz > 0 ? std::to_string(int(r.network_mhz + 0.5)) : std::string("-")) << " |";
    out << "\n" << std::defaultfloat;
  }
}

}  // namespace fsgen
