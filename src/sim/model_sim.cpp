#include "sim/model_sim.h"

#include <algorithm>
#include <chrono>
#include <iomanip>
#include <map>
#include <nlohmann/json.hpp>
#include <sys/resource.h>

#include "compiler/traffic.h"
#include "core/error.h"
#include "models/kernel_regs.h"
#include "models/platform.h"

namespace fsgen {

namespace {

// What determines a launch's timing: its kind and shape (operand values do not).
std::string launch_key(const KernelLaunch& l) {
  switch (l.kind) {
    case KernelKind::kMatmul: {
      const MatmulProblem& p = l.matmul;
      return "mm " + std::to_string(p.m) + " " + std::to_string(p.n) + " " + std::to_string(p.k) + " " +
             p.epilogue.activation + (p.epilogue.gated ? " gated" : "");
    }
    case KernelKind::kAttention: {
      const AttentionProblem& p = l.attention;
      return "attn " + std::to_string(int(p.stage)) + " " + std::to_string(p.q_heads) + " " +
             std::to_string(p.kv_heads) + " " + std::to_string(p.tokens) + " " + std::to_string(p.context) + " " +
             std::to_string(p.causal) + " " + std::to_string(p.residual) + " " + std::to_string(p.head_dim);
    }
    case KernelKind::kFfn: {
      const FfnProblem& p = l.ffn;
      return "ffn " + std::to_string(p.tokens) + " " + std::to_string(p.ffn) + " " + std::to_string(p.gated) + " " +
             std::to_string(p.residual);
    }
  }
  return "";
}

struct TimedLaunch {
  uint64_t cycles = 0;
  std::map<std::string, BlockActivity> activity;
  ActivityTimeline timeline;
};

Program compile_launch(const Graph& g, KernelLaunch l, const ModelSimOptions& o) {
  const Materialise what = o.mode == SimMode::kFast ? Materialise::kLayoutOnly : Materialise::kOperands;
  l.matmul.seed = l.attention.seed = l.ffn.seed = o.seed;
  l.matmul.values = l.attention.values = l.ffn.values = o.values;
  switch (l.kind) {
    case KernelKind::kMatmul: return compile_matmul(g, l.matmul, what);
    case KernelKind::kAttention: return compile_attention(g, l.attention, what).program;
    case KernelKind::kFfn: return compile_ffn(g, l.ffn, what).program;
  }
  return {};
}

TimedLaunch time_launch(const Graph& g, const KernelLaunch& l, const ModelSimOptions& o) {
  const Program prog = compile_launch(g, l, o);
  if (o.mode == SimMode::kFast) {
    // The synthetic operands' statistics: every operand's values zero at the same share.
    const OperandZeros zeros{o.values.zero_fraction, o.values.zero_fraction};
    FastRun r = run_fast(g, registers_at_start(prog), o.window, zeros);
    return {r.result.cycles, std::move(r.result.activity), std::move(r.timeline)};
  }
  SimOptions so;
  so.keep_events = false;
  RunResult r = run_on_systemc(g, prog, so);
  return {r.cycles, std::move(r.activity), {}};
}

// Appends a launch's window timeline at cycle `offset` of the run's (each window's busy
// cycles spread evenly over that window).
void append_timeline(ActivityTimeline& run, const ActivityTimeline& launch, uint64_t offset) {
  for (const auto& [block, windows] : launch.busy)
    for (size_t i = 0; i < windows.size(); ++i)
      run.add(block, offset + i * launch.window, launch.window, windows[i]);
}

KernelTotals& totals_for(ModelSimReport& r, const std::string& name) {
  for (auto& k : r.kernels)
    if (k.name == name) return k;
  r.kernels.push_back({});
  r.kernels.back().name = name;
  return r.kernels.back();
}

void add_host(ModelSimReport& r, const HostOp& op) {
  for (auto& h : r.host)
    if (h.name == op.name) {
      h.elements += op.elements;
      h.bytes += op.bytes;
      return;
    }
  r.host.push_back(op);
}

// ru_maxrss is in KiB on Linux; for RUSAGE_CHILDREN it is the largest waited-for child.
double peak_rss_mib() {
  rusage self{}, children{};
  getrusage(RUSAGE_SELF, &self);
  getrusage(RUSAGE_CHILDREN, &children);
  return double(std::max(self.ru_maxrss, children.ru_maxrss)) / 1024.0;
}

std::vector<LayerWorkload> steps_of(const ModelSimOptions& o) {
  auto step = [](Stage stage, uint32_t tokens, uint32_t context) {
    LayerWorkload w;
    w.stage = stage, w.tokens = tokens, w.context = context;
    return w;
  };
  if (o.stage == Stage::kPrefill) return {step(Stage::kPrefill, o.context, 0)};
  std::vector<LayerWorkload> steps;
  for (uint32_t s = 0; s < o.tokens; ++s) steps.push_back(step(Stage::kDecode, 1, o.context + s));
  return steps;
}

class ModelRun {
 public:
  ModelRun(const Graph& g, const ModelConfig& m, const ModelSimOptions& o, const std::function<void(double)>& progress)
      : g_(g), m_(m), o_(o), progress_(progress) {}

  ModelSimReport run() {
    init_report();
    const auto t0 = std::chrono::steady_clock::now();
    const std::vector<LayerWorkload> steps = steps_of(o_);
    std::vector<LayerPlan> plans;  // per step, per layer
    uint64_t total = 0;
    for (LayerWorkload w : steps)
      for (w.layer = 0; w.layer < r_.layers; ++w.layer) {
        w.routing = o_.routing;
        w.attention_only = o_.attention_only;
        plans.push_back(lower_layer(g_, m_, w));
        for (const auto& l : plans.back().kernels) total += l.count;
        for (const auto& n : plans.back().notes)
          if (std::find(r_.notes.begin(), r_.notes.end(), n) == r_.notes.end()) r_.notes.push_back(n);
      }
    uint64_t done = 0;
    for (const auto& plan : plans) {
      for (const auto& op : plan.host) add_host(r_, op);
      for (const auto& l : plan.kernels) {
        run_launch(l);
        done += l.count;
        if (progress_) progress_(double(done) / double(total));
      }
    }
    r_.wall_seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    r_.peak_rss_mib = peak_rss_mib();
    return std::move(r_);
  }

 private:
  void init_report() {
    r_.model = m_.name;
    r_.design = g_.spec.name;
    r_.mode = o_.mode == SimMode::kFast ? "fast" : "cycle";
    r_.stage = o_.stage == Stage::kPrefill ? "prefill" : "decode";
    r_.attention_only = o_.attention_only;
    r_.context = o_.context;
    r_.tokens = o_.stage == Stage::kPrefill ? o_.context : o_.tokens;
    r_.model_layers = m_.layers;
    if (o_.layers > m_.layers)
      fail("--layers", std::to_string(o_.layers) + " exceeds the " + std::to_string(m_.layers) + " layers of " + m_.name);
    if (o_.stage == Stage::kDecode && o_.tokens == 0) fail("--tokens", "expected at least one token to decode");
    if (o_.window && o_.mode != SimMode::kFast) fail("--window", "activity windows come from the fast model: use --mode fast");
    r_.layers = o_.layers ? o_.layers : m_.layers;
    r_.clock_mhz = g_.spec.clock_mhz;
    r_.pes_a = g_.array_a.spec.pe_count();
    r_.pes_b = g_.attention ? g_.array_b.spec.pe_count() : 0;
    r_.bytes_per_cycle = g_.memory.beat_bytes;
    r_.timeline.window = o_.window;
  }

  void run_launch(const KernelLaunch& l) {
    const std::string key = launch_key(l);
    auto it = memo_.find(key);
    for (uint32_t i = 0; i < l.count; ++i) {
      if (it == memo_.end() || o_.every_launch) {
        it = memo_.insert_or_assign(key, time_launch(g_, l, o_)).first;
        ++r_.simulated_launches;
        r_.simulated_cycles += it->second.cycles;
      }
      account(l, it->second);
    }
  }

  void account(const KernelLaunch& l, const TimedLaunch& t) {
    if (o_.window) append_timeline(r_.timeline, t.timeline, r_.cycles);
    r_.cycles += t.cycles;
    ++r_.launches;
    KernelTotals& k = totals_for(r_, l.name);
    ++k.launches;
    k.cycles += t.cycles;
    k.macs += l.macs / l.count;
    k.padded_macs += l.padded_macs / l.count;
    k.least_bytes += l.least_bytes / l.count;
    auto busy = [&](const char* block) { return t.activity.count(block) ? t.activity.at(block).busy_cycles : 0; };
    k.busy_a += busy("array_a");
    k.busy_b += busy("array_b");
    if (t.activity.count("dma")) k.dma_bytes += t.activity.at("dma").operand_bytes;
    for (const auto& [block, a] : t.activity) {
      BlockActivity& s = r_.activity[block];
      s.busy_cycles += a.busy_cycles;
      s.operand_bytes += a.operand_bytes;
      s.zero_bytes += a.zero_bytes;
      s.hits += a.hits;
      s.misses += a.misses;
      s.reads += a.reads;
      s.writes += a.writes;
      s.read_bytes += a.read_bytes;
      s.write_bytes += a.write_bytes;
    }
  }

  const Graph& g_;
  const ModelConfig& m_;
  const ModelSimOptions& o_;
  const std::function<void(double)>& progress_;
  ModelSimReport r_;
  std::map<std::string, TimedLaunch> memo_;
};

std::string grouped(uint64_t v) {
  std::string s = std::to_string(v);
  for (int i = int(s.size()) - 3; i > 0; i -= 3) s.insert(size_t(i), ",");
  return s;
}

double share(uint64_t part, uint64_t whole) { return whole ? 100.0 * double(part) / double(whole) : 0.0; }

uint64_t host_bytes(const ModelSimReport& r) {
  uint64_t b = 0;
  for (const auto& h : r.host) b += h.bytes;
  return b;
}

double ratio(uint64_t a, uint64_t b) { return b ? double(a) / double(b) : 0.0; }

Roofline kernel_roofline(const ModelSimReport& r, const KernelTotals& k) {
  return roofline(k.macs, uint64_t(r.pes_a) + r.pes_b, k.least_bytes, r.bytes_per_cycle);
}

// The run's kernels summed: the model's MACs, the MACs with padding, the least traffic.
KernelTotals run_totals(const ModelSimReport& r) {
  KernelTotals all;
  for (const auto& k : r.kernels) all.macs += k.macs, all.padded_macs += k.padded_macs, all.least_bytes += k.least_bytes;
  return all;
}

}  // namespace

uint64_t dma_bytes(const ModelSimReport& r) { return r.activity.count("dma") ? r.activity.at("dma").operand_bytes : 0; }

uint64_t least_bytes(const ModelSimReport& r) { return run_totals(r).least_bytes; }

Roofline run_roofline(const ModelSimReport& r) { return kernel_roofline(r, run_totals(r)); }

ModelSimReport simulate_model(const Graph& g, const ModelConfig& m, const ModelSimOptions& o,
                              const std::function<void(double)>& progress) {
  return ModelRun(g, m, o, progress).run();
}

void print_model_sim(const ModelSimReport& r, std::ostream& out) {
  const uint64_t busy_a = r.activity.count("array_a") ? r.activity.at("array_a").busy_cycles : 0;
  const uint64_t busy_b = r.activity.count("array_b") ? r.activity.at("array_b").busy_cycles : 0;
  const KernelTotals all = run_totals(r);
  const uint64_t macs = all.macs, padded = all.padded_macs, least = all.least_bytes;
  const Roofline roof = kernel_roofline(r, all);
  out << "model " << r.model << " on design " << r.design << ": " << r.stage << ", "
      << (r.stage == "prefill" ? std::to_string(r.context) + " prompt tokens"
                               : std::to_string(r.tokens) + " token(s) after a context of " + std::to_string(r.context))
      << ", " << r.layers << " of " << r.model_layers << " layers"
      << (r.attention_only ? " (attention blocks alone)" : "") << "\n"
      << "timing model: "
      << (r.mode == "fast"
              ? "fsgen fast model (the controller's schedule, each phase timed whole; the SystemC model's cycles)"
              : "fsgen SystemC/TLM-2.0 cycle model (synthetic INT8 operands)")
      << "\n"
      << std::fixed << std::setprecision(1) << "  accelerator cycles  " << grouped(r.cycles) << "  ("
      << std::setprecision(6) << r.seconds_at_clock() << " s at " << std::setprecision(0) << r.clock_mhz << " MHz)\n"
      << "  tokens per second   " << std::setprecision(1) << r.tokens_processed() / r.seconds_at_clock()
      << " at the design clock (accelerator work only; host work below)\n"
      << "  array a busy        " << share(busy_a, r.cycles) << " % of cycles (" << r.pes_a << " PEs)";
  if (r.pes_b) out << "; array b busy " << share(busy_b, r.cycles) << " % (" << r.pes_b << " PEs)";
  out << "\n  MACs                " << grouped(macs) << " of the model, " << grouped(padded)
      << " performed with padding; PE utilisation " << std::setprecision(2)
      << share(padded, r.cycles * uint64_t(r.pes_a + r.pes_b)) << " % of peak\n"
      << "  off-chip traffic    " << grouped(dma_bytes(r)) << " B by the DMA, " << ratio(dma_bytes(r), least)
      << " x the least (" << grouped(least) << " B: every operand read once, every result written once); host work "
      << "reads and writes " << grouped(host_bytes(r)) << " B more\n"
      << "  roofline            " << grouped(roof.bound()) << " cycles, " << roof.bound_by() << "-bound (compute "
      << grouped(roof.compute_cycles) << " at " << r.pes_a + r.pes_b << " PEs, memory " << grouped(roof.memory_cycles)
      << " at " << r.bytes_per_cycle << " B/cycle); this run takes " << ratio(r.cycles, roof.bound())
      << " x the bound\n";
  for (const char* cache : {"k_cache", "v_cache"})
    if (r.activity.count(cache) && r.activity.at(cache).hits + r.activity.at(cache).misses)
      out << "  " << cache << " hits        " << r.activity.at(cache).hits << " of "
          << r.activity.at(cache).hits + r.activity.at(cache).misses << " tile reads\n";
  out << "  per kernel:\n    " << std::left << std::setw(12) << "kernel" << std::right << std::setw(10) << "launches"
      << std::setw(18) << "cycles" << std::setw(8) << "share" << std::setw(18) << "DMA bytes" << std::setw(10)
      << "x least" << std::setw(10) << "a busy" << std::setw(10) << "b busy" << std::setw(10) << "useful"
      << std::setw(12) << "x roofline" << "\n";
  for (const auto& k : r.kernels)
    out << "    " << std::left << std::setw(12) << k.name << std::right << std::setw(10) << k.launches << std::setw(18)
        << grouped(k.cycles) << std::setw(7) << std::setprecision(1) << share(k.cycles, r.cycles) << "%"
        << std::setw(18) << grouped(k.dma_bytes) << std::setw(10) << ratio(k.dma_bytes, k.least_bytes)
        << std::setw(9) << share(k.busy_a, k.cycles) << "%" << std::setw(9) << share(k.busy_b, k.cycles) << "%"
        << std::setw(9) << share(k.macs, k.padded_macs) << "%" << std::setw(12)
        << ratio(k.cycles, kernel_roofline(r, k).bound()) << "\n";
  out << "  host work (not on the accelerator, not in the cycles above; INT8 read and written once):\n";
  for (const auto& h : r.host)
    out << "    " << std::left << std::setw(34) << h.name << std::right << std::setw(16) << grouped(h.elements)
        << " elements" << std::setw(18) << grouped(h.bytes) << " B\n";
  if (!r.notes.empty()) out << "  placement:\n";
  for (const auto& n : r.notes) out << "    " << n << "\n";
  out << "  simulated " << r.simulated_launches << " of " << r.launches << " launches"
      << (r.simulated_launches < r.launches ? " (each other one repeats an earlier launch's shape, so its cycles)" : "")
      << ": " << grouped(r.simulated_cycles) << " cycles in "
      << std::setprecision(3) << r.wall_seconds << " s wall, " << std::scientific << std::setprecision(2)
      << (r.wall_seconds > 0 ? r.simulated_cycles / r.wall_seconds : 0.0) << " simulated cycles/s; peak memory "
      << std::fixed << std::setprecision(0) << r.peak_rss_mib << " MiB\n" << std::defaultfloat;
}

void write_model_sim_json(const ModelSimReport& r, std::ostream& out) {
  nlohmann::ordered_json j;
  j["model"] = r.model;
  j["design"] = r.design;
  j["timing_model"] = r.mode == "fast" ? "fsgen fast model" : "fsgen SystemC cycle model";
  j["stage"] = r.stage;
  j["attention_only"] = r.attention_only;
  j["context"] = r.context;
  j["tokens"] = r.tokens_processed();
  j["layers"] = r.layers;
  j["clock_mhz"] = r.clock_mhz;
  j["cycles"] = r.cycles;
  j["seconds_at_clock"] = r.seconds_at_clock();
  j["tokens_per_second"] = r.tokens_processed() / r.seconds_at_clock();
  j["dma_bytes"] = dma_bytes(r);
  const KernelTotals all = run_totals(r);
  const Roofline roof = kernel_roofline(r, all);
  j["least_bytes"] = all.least_bytes;
  j["roofline"] = {{"compute_cycles", roof.compute_cycles}, {"memory_cycles", roof.memory_cycles},
                   {"bound_cycles", roof.bound()}, {"bound_by", roof.bound_by()}};
  j["host_bytes"] = host_bytes(r);
  for (const auto& [block, a] : r.activity)
    j["activity"][block] = {{"busy_cycles", a.busy_cycles}, {"operand_bytes", a.operand_bytes}, {"hits", a.hits}, {"misses", a.misses}};
  for (const auto& k : r.kernels)
    j["kernels"].push_back({{"name", k.name}, {"launches", k.launches}, {"cycles", k.cycles}, {"dma_bytes", k.dma_bytes},
                            {"least_bytes", k.least_bytes}, {"roofline_cycles", kernel_roofline(r, k).bound()},
                            {"macs", k.macs}, {"padded_macs", k.padded_macs}, {"array_a_busy_cycles", k.busy_a},
                            {"array_b_busy_cycles", k.busy_b}});
  for (const auto& h : r.host) j["host"].push_back({{"name", h.name}, {"elements", h.elements}, {"bytes", h.bytes}});
  j["placement"] = r.notes;
  j["simulated_launches"] = r.simulated_launches;
  j["launches"] = r.launches;
  j["simulated_cycles"] = r.simulated_cycles;
  j["wall_seconds"] = r.wall_seconds;
  j["peak_rss_mib"] = r.peak_rss_mib;
  out << j.dump(1) << "\n";
}

void write_activity_csv(const ModelSimReport& r, std::ostream& out) {
  const ActivityTimeline& t = r.timeline;
  size_t windows = 0;
  for (const auto& [block, w] : t.busy) windows = std::max(windows, w.size());
  out << "cycle";
  for (const auto& [block, w] : t.busy) out << "," << block << "_busy";
  out << "\n";
  for (size_t i = 0; i < windows; ++i) {
    const uint64_t start = i * t.window, len = std::min<uint64_t>(t.window, r.cycles - start);
    out << start;
    for (const auto& [block, w] : t.busy) out << "," << (i < w.size() && len ? w[i] / double(len) : 0.0);
    out << "\n";
  }
}

}  // namespace fsgen
