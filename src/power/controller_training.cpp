#include "power/controller_training.h"

#include <algorithm>
#include <filesystem>
#include <sstream>

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

// Named by its tiles and slots (a training core's other hyperparameters are its kind's
// plain ones).
std::string core_name(const std::string& kind, const std::vector<int>& h) {
  const size_t slots = primitive_def(kind).param_at("SB") + 1;
  return kind + "_training_" + hyperparameter_text(std::vector<int>(h.begin(), h.begin() + slots), 'x');
}

// The operand draws of the training kernels: uniform INT8, half zeros, narrow normal values
// (sigma 6), 90 % zeros.
struct TrainingValues {
  SyntheticValues uniform, half_zero, narrow, mostly_zero;
  TrainingValues() {
    half_zero.zero_fraction = 0.5;
    narrow.distribution = SyntheticValues::Distribution::kNormal, narrow.sigma = 6;
    mostly_zero.zero_fraction = 0.9;
  }
};

TrainingKernel matmul_kernel(uint32_t m, uint32_t n, uint32_t k, SyntheticValues values, uint64_t seed) {
  TrainingKernel t;
  t.kernel = "matmul", t.values = values, t.seed = seed;
  t.matmul.m = m, t.matmul.n = n, t.matmul.k = k;
  return t;
}

TrainingKernel attention_kernel(Stage stage, uint32_t q_heads, uint32_t kv_heads, uint32_t tokens, uint32_t context,
                                SyntheticValues values, uint64_t seed) {
  TrainingKernel t;
  t.kernel = "attention", t.values = values, t.seed = seed;
  AttentionProblem& a = t.attention;
  a.stage = stage, a.q_heads = q_heads, a.kv_heads = kv_heads, a.tokens = tokens, a.context = context;
  return t;
}

TrainingKernel ffn_kernel(uint32_t tokens, uint32_t width, bool gated, const char* activation, SyntheticValues values,
                          uint64_t seed) {
  TrainingKernel t;
  t.kernel = "ffn", t.values = values, t.seed = seed;
  t.ffn.tokens = tokens, t.ffn.ffn = width, t.ffn.gated = gated, t.ffn.activation = activation;
  return t;
}

// A fused controller's kernels: prefill over several key tiles (MHA with uniform operands,
// GQA with half zeros), decode from a KV cache (narrow values), the gated SiLU FFN and the
// plain GELU one (90 % zeros), on a core of TM query rows, TN keys and TK head dimensions.
std::vector<TrainingKernel> fused_training_kernels(const std::vector<int>& h) {
  const uint32_t tm = uint32_t(h[0]), tn = uint32_t(h[1]), tk = uint32_t(h[2]);
  const TrainingValues v;
  return {attention_kernel(Stage::kPrefill, 1, 1, 4 * tn, 0, v.uniform, 201),
          attention_kernel(Stage::kPrefill, 2, 1, 3 * tn, 0, v.half_zero, 202),
          attention_kernel(Stage::kDecode, 2, 2, 1, 5 * tn, v.narrow, 203),
          ffn_kernel(2 * tm, 2 * tk, true, "silu", v.uniform, 204),
          ffn_kernel(2 * tm, 2 * tk, false, "gelu", v.mostly_zero, 205)};
}

// A kernel's problem with its operands drawn by `values` from `seed`.
template <typename Problem>
Problem drawn(Problem p, const SyntheticValues& values, uint64_t seed) {
  p.values = values, p.seed = seed;
  return p;
}

}  // namespace

Program TrainingKernel::compile(const Graph& g) const {
  if (kernel == "attention") return compile_attention(g, drawn(attention, values, seed)).program;
  if (kernel == "ffn") return compile_ffn(g, drawn(ffn, values, seed)).program;
  FSGEN_ASSERT(kernel == "matmul", "a training kernel is a matmul, attention or FFN");
  return compile_matmul(g, drawn(matmul, values, seed));
}

std::string core_spec_around_controller(const std::string& name, int tm, int tn, int tk, int w, int st, int sa, int sb,
                                        bool fused) {
  const char* order = st == 0 ? "output_stationary" : "weight_stationary";
  std::ostringstream s;
  s << "name: " << name << "\n"
    << "clock_mhz: " << kTrainingClockMhz << "\n"
    << "pe_budget: " << std::max(256, tm * (tn + tk)) << "\n"
    << "memory: {bandwidth_gbps: " << w * kTrainingClockMhz / 1000 << ", latency_cycles: 4, buffer_limit_bytes: 16384, "
    << "operand_tiles: {a: " << sa << ", b: " << sb << "}}\n"
    << "arrays:\n"
    << "  a: {loop_order: " << order << ", tiling: {m: " << tm << ", n: " << tn << ", k: " << tk << "}}\n"
    << "  b: {loop_order: " << order << ", tiling: {m: " << tm << ", n: " << tk << ", k: " << tn << "}}\n"
    << "caches: {acc_a: 4096, acc_b: 4096}\n"
    << "kernels: " << (fused ? "[matmul, attention]" : "[matmul]") << "\n";
  return s.str();
}

std::string training_core_spec(const std::string& kind, const std::vector<int>& h) {
  const bool fused = kind == "fused_ctrl";
  FSGEN_ASSERT(fused || kind == "ctrl", "a training core is built around a controller");
  const PrimitiveDef& def = primitive_def(kind);
  FSGEN_ASSERT(h.size() == def.params.size(), "a controller's hyperparameters are its kind's");
  const int sa = h[def.param_at("SA")], sb = h[def.param_at("SB")];
  return core_spec_around_controller(core_name(kind, h), h[0], h[1], h[2], h[3], h[4], sa, sb, fused);
}

std::vector<TrainingKernel> training_kernels(const std::string& kind, const std::vector<int>& h) {
  if (kind == "fused_ctrl") return fused_training_kernels(h);
  const uint32_t m = std::max(8, 2 * h[0]), n = std::max(8, 2 * h[1]), k = std::max(16, 2 * h[2]);
  const TrainingValues v;
  return {matmul_kernel(m, n, k, v.uniform, 101), matmul_kernel(m, n, k, v.half_zero, 102),
          matmul_kernel(m, n, k, v.narrow, 103), matmul_kernel(2 * m, n, k, v.mostly_zero, 104)};
}

uint64_t training_window(const std::string& kind) { return kind == "fused_ctrl" ? 1 : 16; }

namespace {

// A training kernel's run on the SystemC model of its core.
struct TrainingRun {
  Graph g;
  TrainingKernel k;
  Program prog;
  RunResult r;
};

TrainingRun training_run(const PrimitiveDef& def, const std::vector<int>& h, size_t kernel) {
  const std::string name = core_name(def.kind, h);
  TrainingRun t{elaborate(parse_spec_text(training_core_spec(def.kind, h), name)), training_kernels(def.kind, h).at(kernel),
                {}, {}};
  FSGEN_ASSERT(hyperparameters_of(def, ctrl_instance(t.g).params) == h, "a training core's controller has its size");
  t.prog = t.k.compile(t.g);
  t.r = run_on_systemc(t.g, t.prog);
  return t;
}

// Per point of the run (kTrainingSettleCycles on): its window's first cycle and each event's
// count per cycle in it.
std::vector<std::pair<uint64_t, std::vector<double>>> point_event_rates(const std::string& kind, const RunResult& r) {
  const uint64_t window = training_window(kind), windows = (r.cycles + window - 1) / window;
  FSGEN_ASSERT(kTrainingSettleCycles % window == 0, "the settling cycles are whole training windows");
  const std::vector<std::vector<double>> counts = controller_event_counts(r, kind, window, windows);
  std::vector<std::pair<uint64_t, std::vector<double>>> rates;
  for (uint64_t w = kTrainingSettleCycles / window; w < windows; ++w) {
    const uint64_t first = w * window, len = std::min(window, r.cycles - first);
    std::vector<double> per_cycle;
    for (const auto& c : counts) per_cycle.push_back(c[w] / double(len));
    rates.emplace_back(first, per_cycle);
  }
  return rates;
}

}  // namespace

std::vector<CharPoint> kernel_points(const PrimitiveDef& def, const std::vector<int>& h, size_t kernel,
                                     const std::string& liberty_file, const std::string& work_dir) {
  const TrainingRun t = training_run(def, h, kernel);
  const GoldenBlockPower golden =
      golden_block_power(t.g, t.prog, {"ctrl"}, liberty_file, (fs::path(work_dir) / "cores").string(), work_dir).front();
  const std::string where = "training core " + core_name(def.kind, h) + ", kernel " + std::to_string(kernel);
  if (golden.mw.size() != t.r.cycles)
    fail(where, "the RTL ran " + std::to_string(golden.mw.size()) + " cycles, the SystemC model " + std::to_string(t.r.cycles));
  if (golden.output_mismatch_cycles)
    fail(where, "the controller's netlist differs from its RTL in " + std::to_string(golden.output_mismatch_cycles) + " cycles");
  std::vector<CharPoint> points;
  for (const auto& [first, rates] : point_event_rates(def.kind, t.r)) {
    const uint64_t len = std::min(training_window(def.kind), t.r.cycles - first);
    CharPoint p;
    p.kind = def.kind, p.h = h, p.zero_fraction = t.k.values.zero_fraction, p.seed = t.k.seed, p.window = first;
    p.events = rates;
    double mw = 0;
    for (uint64_t c = first; c < first + len; ++c) mw += (golden.mw[c] - golden.leakage_mw) / double(len);
    p.dynamic_fj = mw / (kTrainingClockMhz * 1e-6);  // mW at the core's clock -> fJ per cycle
    p.leakage_mw = golden.leakage_mw, p.area_um2 = golden.area_um2;
    points.push_back(p);
  }
  return points;
}

std::map<uint64_t, std::vector<double>> kernel_event_rates(const PrimitiveDef& def, const std::vector<int>& h,
                                                           size_t kernel) {
  const TrainingRun t = training_run(def, h, kernel);
  std::map<uint64_t, std::vector<double>> by_window;
  for (auto& [first, rates] : point_event_rates(def.kind, t.r)) by_window[first] = std::move(rates);
  return by_window;
}

}  // namespace fsgen
