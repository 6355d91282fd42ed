#include "power/controller_training.h"

#include <algorithm>
#include <filesystem>
#include <sstream>

#include "compiler/matmul.h"
#include "core/error.h"
#include "generator/graph.h"
#include "generator/spec.h"
#include "models/platform.h"
#include "power/controller_events.h"
#include "power/golden.h"

namespace fsgen {

namespace fs = std::filesystem;

namespace {

constexpr double kTrainingClockMhz = 500;

std::string core_name(const std::vector<int>& h) { return "ctrl_training_" + hyperparameter_text(h, 'x'); }

}  // namespace

std::string core_spec_around_controller(const std::string& name, int tm, int tn, int tk, int w, int st, bool fused) {
  const char* order = st == 0 ? "output_stationary" : "weight_stationary";
  std::ostringstream s;
  s << "name: " << name << "\n"
    << "clock_mhz: " << kTrainingClockMhz << "\n"
    << "pe_budget: 256\n"
    << "memory: {bandwidth_gbps: " << w * kTrainingClockMhz / 1000 << ", latency_cycles: 4, buffer_limit_bytes: 16384}\n"
    << "arrays:\n"
    << "  a: {loop_order: " << order << ", tiling: {m: " << tm << ", n: " << tn << ", k: " << tk << "}}\n"
    << "  b: {loop_order: " << order << ", tiling: {m: " << tm << ", n: " << tk << ", k: " << tn << "}}\n"
    << "caches: {acc_a: 4096, acc_b: 4096}\n"
    << "kernels: " << (fused ? "[matmul, attention]" : "[matmul]") << "\n";
  return s.str();
}

std::string training_core_spec(const std::vector<int>& h) {
  FSGEN_ASSERT(h.size() == 6, "a controller's hyperparameters are TM, TN, TK, W, ST, M_LIVE");
  return core_spec_around_controller(core_name(h), h[0], h[1], h[2], h[3], h[4], false);
}

std::vector<TrainingKernel> training_kernels(const std::vector<int>& h) {
  const uint32_t m = std::max(8, 2 * h[0]), n = std::max(8, 2 * h[1]), k = std::max(16, 2 * h[2]);
  SyntheticValues uniform, half_zero, narrow, mostly_zero;
  half_zero.zero_fraction = 0.5;
  narrow.distribution = SyntheticValues::Distribution::kNormal, narrow.sigma = 6;
  mostly_zero.zero_fraction = 0.9;
  return {{m, n, k, uniform, 101}, {m, n, k, half_zero, 102}, {m, n, k, narrow, 103}, {2 * m, n, k, mostly_zero, 104}};
}

std::vector<CharPoint> kernel_points(const PrimitiveDef& def, const std::vector<int>& h, size_t kernel,
                                     const std::string& liberty_file, const std::string& work_dir) {
  const Graph g = elaborate(parse_spec_text(training_core_spec(h), core_name(h)));
  FSGEN_ASSERT(hyperparameters_of(def, ctrl_instance(g).params) == h, "a training core's controller has its size");
  const TrainingKernel k = training_kernels(h).at(kernel);
  MatmulProblem prob;
  prob.m = k.m, prob.n = k.n, prob.k = k.k, prob.seed = k.seed, prob.values = k.values;
  const Program prog = compile_matmul(g, prob);
  const RunResult r = run_on_systemc(g, prog);
  const GoldenBlockPower golden =
      golden_block_power(g, prog, {"ctrl"}, liberty_file, (fs::path(work_dir) / "cores").string(), work_dir).front();
  const std::string where = "training core " + core_name(h) + ", kernel " + std::to_string(kernel);
  if (golden.mw.size() != r.cycles)
    fail(where, "the RTL ran " + std::to_string(golden.mw.size()) + " cycles, the SystemC model " + std::to_string(r.cycles));
  if (golden.output_mismatch_cycles)
    fail(where, "the controller's netlist differs from its RTL in " + std::to_string(golden.output_mismatch_cycles) + " cycles");
  const uint64_t windows = (r.cycles + kTrainingWindow - 1) / kTrainingWindow;
  const std::vector<std::vector<double>> counts = controller_event_counts(r, kTrainingWindow, windows);
  std::vector<CharPoint> points;
  for (uint64_t w = 1; w < windows; ++w) {
    const uint64_t first = w * kTrainingWindow, len = std::min(kTrainingWindow, r.cycles - first);
    CharPoint p;
    p.kind = def.kind, p.h = h, p.zero_fraction = k.values.zero_fraction, p.seed = k.seed, p.window = first;
    for (const auto& c : counts) p.events.push_back(c[w] / double(len));
    double mw = 0;
    for (uint64_t c = first; c < first + len; ++c) mw += (golden.mw[c] - golden.leakage_mw) / double(len);
    p.dynamic_fj = mw / (kTrainingClockMhz * 1e-6);  // mW at the core's clock -> fJ per cycle
    p.leakage_mw = golden.leakage_mw, p.area_um2 = golden.area_um2;
    points.push_back(p);
  }
  return points;
}

}  // namespace fsgen
