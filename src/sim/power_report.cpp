#include "sim/power_report.h"

#include <algorithm>
#include <charconv>
#include <chrono>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <iomanip>
#include <sstream>
#include <tuple>

#include "blocks/registry.h"
#include "core/csv.h"
#include "core/error.h"
#include "core/regmap.h"
#include "core/statistics.h"
#include "core/window_series.h"
#include "flow/tools.h"
#include "models/fast_model.h"
#include "models/kernel_regs.h"
#include "models/platform.h"
#include "power/characterize.h"
#include "power/controller_events.h"

namespace fsgen {

namespace {

// Where the SystemC run observes a modelled block: the probes whose toggles give its alpha,
// and the block whose busy spans and operand bytes give its enable and zeros. A PE array is
// observed at its own input ports, the DMA at its own data buses (read data in, write data
// out). A primitive characterised on a neighbour's bus is observed where that bus is
// probed: at the output port that feeds it (an accumulator cache's write data is its
// array's probed output y), or at the ports it drives (a value network's output register
// is its array's probed operand bus); it is then timed by that array's busy (stream) cycles.
struct ActivitySource {
  std::vector<const ToggleProbe*> probes;
  std::string timed_block;
};

// The first probed port downstream of `block`'s outputs, through unprobed blocks (a systolic
// array's skew registers, which only delay the values); `at` is set to the probed block.
const ToggleProbe* downstream_probe(const Graph& g, const RunResult& r, const std::string& block, std::string& at) {
  for (const Edge& e : g.edges) {
    if (e.from_block != block) continue;
    const ToggleProbe* probe = r.find_probe(e.to_block, e.to_port);
    if (probe) {
      at = e.to_block;
      return probe;
    }
    if ((probe = downstream_probe(g, r, e.to_block, at))) return probe;
  }
  return nullptr;
}

// The probed output port that feeds `block`; `at` is set to its block.
const ToggleProbe* upstream_probe(const Graph& g, const RunResult& r, const std::string& block, std::string& at) {
  for (const Edge& e : g.edges)
    if (e.to_block == block)
      if (const ToggleProbe* probe = r.find_probe(e.from_block, e.from_port)) {
        at = e.from_block;
        return probe;
      }
  return nullptr;
}

ActivitySource activity_source(const Graph& g, const RunResult& r, const Block& b) {
  ActivitySource s{{}, b.name};
  const PrimitiveDef& def = primitive_def(b.kind);
  if (def.alpha_at_neighbour) {
    const ToggleProbe* probe = upstream_probe(g, r, b.name, s.timed_block);
    if (!probe) probe = downstream_probe(g, r, b.name, s.timed_block);
    if (probe) s.probes.push_back(probe);
    return s;
  }
  const bool outputs_too = !def.alpha_ports.empty();
  for (const auto& port : b.ports) {
    if (port.name == def.factor_port) continue;  // a feature of its own (BlockSeries::factor_toggles)
    const bool gives_alpha = def.probes.empty() ? !port.output || outputs_too
                                                : std::find(def.probes.begin(), def.probes.end(), port.name) != def.probes.end();
    if (const ToggleProbe* probe = gives_alpha ? r.find_probe(b.name, port.name) : nullptr) s.probes.push_back(probe);
  }
  return s;
}

// Toggles per window of the probes, and their width; each probe's spread over the cycles
// its values take to cross the block (PrimitiveDef::port_transit at h).
std::pair<std::vector<double>, uint64_t> probe_toggles(const PrimitiveDef& def, const std::vector<int>& h,
                                                       const std::vector<const ToggleProbe*>& probes, uint64_t windows,
                                                       uint64_t window) {
  std::vector<double> t = window_series(windows);
  uint64_t bits = 0;
  for (const ToggleProbe* probe : probes) {
    bits += probe->width_bits();
    const uint64_t transit = def.port_transit ? std::max(1u, def.port_transit(h, probe->port())) : 1;
    for (const auto& [cycle, n] : probe->events())
      for (uint64_t c = cycle; c < cycle + transit && c / window < windows; ++c)
        t[c / window] += double(n) / double(transit);
  }
  return {t, bits};
}

// A register of a block per window (BlockTimeline::state or factor): its toggles, the sum
// over the window's cycles of its bits at 1, and its width.
struct RegisterSeries {
  std::vector<double> toggles, ones;
  uint64_t bits = 0;
};

RegisterSeries register_series(const RunResult& r, const Block& b, RegisterTrace BlockTimeline::*which,
                               const std::string& what, const PowerTrace& t) {
  const auto own = r.timelines.find(b.name);
  if (own == r.timelines.end() || (own->second.*which).bits == 0)
    fail("power of " + b.name,
         "its model takes its " + what + "'s switching, which this run did not record (expected a SystemC run)");
  const RegisterTrace& reg = own->second.*which;
  const uint64_t windows = t.windows(), window = t.window, end = t.cycles;
  RegisterSeries s{window_series(windows), window_series(windows), reg.bits};
  for (size_t i = 0; i < reg.samples.size() && reg.samples[i].cycle < end; ++i) {
    const StateSample& at = reg.samples[i];
    s.toggles[at.cycle / window] += at.toggles;
    // Its ones from its cycle to the next sample's (or the trace's end), window by window.
    const uint64_t until = i + 1 < reg.samples.size() ? std::min(end, reg.samples[i + 1].cycle) : end;
    for (uint64_t c = at.cycle; c < until;) {
      const uint64_t stop = std::min(until, (c / window + 1) * window);
      s.ones[c / window] += double(at.ones) * double(stop - c);
      c = stop;
    }
  }
  return s;
}

const std::vector<double>* find_or_null(const std::map<std::string, std::vector<double>>& m, const std::string& key) {
  const auto it = m.find(key);
  return it == m.end() ? nullptr : &it->second;
}

// Window w of a per-window series that may be missing or end early (no activity: 0).
double window_value(const std::vector<double>* series, uint64_t w) {
  return series && w < series->size() ? (*series)[w] : 0.0;
}

// The zero share of the operands a block was presented in window w (bytes and zeros: its
// series, ActivityTimeline::operand_bytes and zero_bytes); a window without operands takes
// the run's share (the registers hold what the block saw last).
double window_zero_share(const std::vector<double>* bytes, const std::vector<double>* zeros, uint64_t w, double run_share) {
  const double b = window_value(bytes, w);
  return b > 0 && zeros ? window_value(zeros, w) / b : run_share;
}

// A memory macro's accesses in a run (words of its width) and the windows' busy cycles of
// the blocks that make them: the reads where the arrays that read it are busy, the writes
// where the block that fills it is.
struct MacroAccesses {
  double reads = 0, writes = 0;
  std::vector<double> reading, writing;
};

// An accumulator cache's rows, read and written as its array computes; an operand buffer's
// words, read as the arrays it feeds compute (buf_a feeds array a, buf_b both) and written as
// the DMA's read beats land.
MacroAccesses macro_accesses(const MemoryMacro& m, const Block& b, const RunResult& r,
                             const ActivityTimeline& timeline) {
  const BlockActivity a = r.activity.count(b.name) ? r.activity.at(b.name) : BlockActivity{};
  auto busy_of = [&](std::initializer_list<const char*> blocks) {
    std::vector<double> sum;
    for (const char* block : blocks)
      if (const std::vector<double>* busy = find_or_null(timeline.busy, block)) {
        sum.resize(std::max(sum.size(), busy->size()));
        for (size_t w = 0; w < busy->size(); ++w) sum[w] += (*busy)[w];
      }
    return sum;
  };
  MacroAccesses acc;
  if (b.kind == "op_buffer") {
    const double word_bytes = m.word_bits / 8.0;
    acc.reads = double(a.read_bytes) / word_bytes, acc.writes = double(a.write_bytes) / word_bytes;
    acc.reading = b.name == "buf_a" ? busy_of({"array_a"}) : busy_of({"array_a", "array_b"});
    acc.writing = busy_of({"dma"});
  } else {
    acc.reads = double(a.reads), acc.writes = double(a.writes);
    acc.reading = busy_of({b.name == "acc_b" ? "array_b" : "array_a"});
    acc.writing = acc.reading;
  }
  return acc;
}

// `energy_pj` over the windows of trace t in proportion to `busy` (evenly without it), in mW.
void add_spread(std::vector<double>& mw, double energy_pj, const std::vector<double>& busy, const PowerTrace& t) {
  double total = 0;
  for (double b : busy) total += b;
  for (uint64_t w = 0; w < t.windows(); ++w) {
    const double len = double(t.window_cycles(w));
    const double share = total > 0 ? window_value(&busy, w) / total : len / double(t.cycles);
    mw[w] += energy_pj * share / len * t.clock_mhz * 1e-3;  // pJ per cycle x cycles per us -> mW
  }
}

// A memory macro's power per window of trace t: leakage, and its accesses' energy where
// they are made.
BlockPower macro_power(const MemoryMacro& m, const MacroAccesses& acc, const PowerTrace& t) {
  BlockPower bp;
  bp.block = m.block, bp.kind = "sram_macro", bp.h = {int(m.bytes), int(m.word_bits)};
  std::ostringstream d;
  d << std::fixed << std::setprecision(2) << "SRAM macro model, " << m.bytes << " B of " << m.word_bits
    << "-bit words: read " << m.read_pj << " pJ, write " << m.write_pj << " pJ; " << std::setprecision(0) << acc.reads
    << " reads, " << acc.writes << " writes";
  bp.model = d.str();
  bp.leakage_mw = m.leakage_mw;
  bp.mw = window_series(t.windows(), bp.leakage_mw);
  add_spread(bp.mw, acc.reads * m.read_pj, acc.reading, t);
  add_spread(bp.mw, acc.writes * m.write_pj, acc.writing, t);
  for (uint64_t w = 0; w < t.windows(); ++w) {
    const double len = double(t.window_cycles(w));
    bp.average_mw += bp.mw[w] * len / double(t.cycles);
    bp.busy += std::min(len, window_value(&acc.reading, w)) / double(t.cycles);
  }
  return bp;
}

// A primitive whose side enable opens a burst (the DMA) is characterised over runs of
// whole commands: a one-cycle window holding a command (side = 1) lies outside every
// characterised point, since a command and its burst take at least four cycles. Its
// energy is therefore priced per command, over the windows from the one it is taken in
// through the busy windows that follow: [begin, end).
struct CommandWindows {
  uint64_t begin, end;
};

std::vector<CommandWindows> command_windows(const std::vector<double>* busy, const std::vector<double>* side,
                                            uint64_t windows) {
  std::vector<CommandWindows> out;
  for (uint64_t w = 0; w < windows;) {
    if (window_value(side, w) == 0) {
      ++w;
      continue;
    }
    uint64_t end = w + 1;
    while (end < windows && window_value(busy, end) > 0 && window_value(side, end) == 0) ++end;
    out.push_back({w, end});
    w = end;
  }
  return out;
}

// The activity over a command's windows (zeros weighted by the beats); a[i] is the
// activity of window first + i.
PrimitiveActivity command_mean(const std::vector<PrimitiveActivity>& a, uint64_t first, CommandWindows c, const PowerTrace& t) {
  PrimitiveActivity mean;
  double cycles = 0, beats = 0;
  for (uint64_t i = c.begin - first; i < c.end - first; ++i) {
    const double len = double(t.window_cycles(first + i));
    cycles += len, beats += a[i].enable * len;
    mean.alpha += a[i].alpha * len, mean.enable += a[i].enable * len, mean.side += a[i].side * len;
    mean.zeros += a[i].zeros * a[i].enable * len;
  }
  mean.alpha /= cycles, mean.enable /= cycles, mean.side /= cycles;
  mean.zeros = beats > 0 ? mean.zeros / beats : a[c.begin - first].zeros;
  return mean;
}

// Dynamic fJ per cycle in each window of a primitive whose side enable opens a burst: each
// command's energy from the trees at its mean activity, spread over its windows by the
// primitive's energy per kind of cycle at each window's own activity (the command's cycle,
// its beats, the waits between); windows outside a command from the trees at their own
// activity. activity[i] is window first + i's; the commands lie within those windows.
std::vector<double> command_priced_fj(const PowerModel& model, const std::string& kind, const std::vector<int>& h,
                                      const std::vector<PrimitiveActivity>& activity, uint64_t first,
                                      const std::vector<CommandWindows>& commands, const PowerTrace& t) {
  std::vector<PrimitiveActivity> priced = activity;
  for (const CommandWindows& c : commands)
    std::fill(priced.begin() + long(c.begin - first), priced.begin() + long(c.end - first),
              command_mean(activity, first, c, t));
  std::vector<double> fj = model.dynamic_fj(kind, h, priced);
  const std::vector<double> shape = model.cycle_energy_fj(kind, h, activity);
  for (const CommandWindows& c : commands) {
    double energy = 0, weight = 0;
    for (uint64_t i = c.begin - first; i < c.end - first; ++i) {
      const double len = double(t.window_cycles(first + i));
      energy += fj[i] * len, weight += shape[i] * len;
    }
    if (weight > 0)
      for (uint64_t i = c.begin - first; i < c.end - first; ++i) fj[i] = energy * shape[i] / weight;
  }
  return fj;
}

// Dynamic fJ per cycle of each window with the energy of its first `lead` cycles moved to
// the window before (BlockTimeline::switching_lead), as if spread evenly over each window;
// the first window keeps its own. In place: window w gives before window w + 1 adds to it.
void lead_energy(std::vector<double>& fj, uint32_t lead, const PowerTrace& t) {
  if (lead == 0) return;
  for (uint64_t w = 1; w < fj.size(); ++w) {
    const double len = double(t.window_cycles(w)), share = std::min(1.0, double(lead) / len);
    fj[w - 1] += fj[w] * share * len / double(t.window_cycles(w - 1));
    fj[w] -= fj[w] * share;
  }
}

// An instance's parameters with the values of its primitive's held hyperparameters
// (PrimitiveDef::held_params) in the kernel the run programs (the softmax unit's MODE).
std::map<std::string, int64_t> instance_parameters(const PrimitiveDef& def, const ArrayInstance& inst,
                                                   const KernelRegs& regs) {
  std::map<std::string, int64_t> params = inst.params;
  if (def.held_params.empty()) return params;
  const std::vector<int64_t> held = def.held_in_kernel(regs.kernel);
  FSGEN_ASSERT(held.size() == def.held_params.size(), "a primitive gives a value to each of its held hyperparameters");
  for (size_t i = 0; i < held.size(); ++i) params[def.held_params[i]] = held[i];
  return params;
}

// The parameters an instance is priced at: a primitive whose macro modules are the design's
// SRAM macros (a controller's operand buffers) without them (PrimitiveDef::macro_param).
std::map<std::string, int64_t> priced_parameters(const PrimitiveDef& def, const ArrayInstance& inst,
                                                 const KernelRegs& regs, const DesignMacros& macros) {
  std::map<std::string, int64_t> params = instance_parameters(def, inst, regs);
  if (def.macro_param.empty()) return params;
  const auto is_macro = [&](const std::string& m) { return macros.holds_module(m); };
  params[def.macro_param] = std::all_of(def.macro_modules.begin(), def.macro_modules.end(), is_macro) ? 1 : 0;
  return params;
}

// Windows are priced in chunks of this many (a chunk is extended to hold its last command
// whole): a per-cycle trace of a long run keeps only its output series whole, not every
// window's features.
constexpr uint64_t kChunkWindows = uint64_t(1) << 16;

// A block's per-window series as the run observed them, and its features in one window.
struct BlockSeries {
  const std::vector<double>* busy = nullptr;
  const std::vector<double>* enabled = nullptr;  // nullptr: its busy cycles (a block timed by its array)
  const std::vector<double>* side = nullptr;
  const std::vector<double>* bytes = nullptr;
  const std::vector<double>* zero_bytes = nullptr;
  std::vector<double> toggles;  // of its probes
  uint64_t bits = 0;            // their width
  RegisterSeries factors;       // of the register behind its factor port (PrimitiveDef::factor_port)
  RegisterSeries state;         // of its state register (PrimitiveDef::state_register)
  double run_zeros = 0;         // the run's zero share, for windows without operands

  double enabled_cycles(uint64_t w) const {
    return enabled && w < enabled->size() ? (*enabled)[w] : window_value(busy, w);
  }
  PrimitiveActivity at(uint64_t w, double len) const {
    return {bits ? toggles[w] / (double(bits) * len) : 0.0,
            enabled_cycles(w) / len,
            window_zero_share(bytes, zero_bytes, w, run_zeros),
            window_value(side, w) / len,
            share(factors.toggles, factors.bits, w, len),
            share(state.toggles, state.bits, w, len),
            share(state.ones, state.bits, w, len),
            share(factors.ones, factors.bits, w, len)};
  }
  static double share(const std::vector<double>& series, uint64_t bits, uint64_t w, double len) {
    return bits ? series[w] / (double(bits) * len) : 0.0;
  }
};

// A primitive instance's power before its windows are priced: its hyperparameters, leakage
// and how it differs from what was characterised.
BlockPower instance_power(const PrimitiveDef& def, const Block& b, const std::map<std::string, int64_t>& params,
                          const PowerModel& model, const PowerTrace& t) {
  BlockPower bp;
  bp.block = b.name, bp.kind = b.kind, bp.h = hyperparameters_of(def, params), bp.mw = window_series(t.windows());
  bp.leakage_mw = model.leakage_mw(b.kind, bp.h);
  const std::string variant = variant_difference(def, params), beyond = model.extrapolation(b.kind, bp.h);
  bp.variant_note = variant + (!variant.empty() && !beyond.empty() ? ", " : "") + beyond;
  return bp;
}

// A block's windows from dynamic fJ per cycle (bp.mw on entry) to mW with its leakage, and
// its average over the trace.
void to_power(BlockPower& bp, const PowerTrace& t) {
  for (uint64_t w = 0; w < t.windows(); ++w) {
    bp.mw[w] = bp.mw[w] * t.clock_mhz * 1e-6 + bp.leakage_mw;  // fJ per cycle x cycles per us -> mW
    bp.average_mw += bp.mw[w] * double(t.window_cycles(w)) / double(t.cycles);
  }
}

// The blocks a controller's netlist holds besides its own logic, for its model's name.
std::string controller_contents(const std::string& kind) { return block_kind(kind).power_note; }

// A block of a structural primitive (a controller, the register file): its
// idle energy (the clocking of its flip-flops) and leakage in every window, and, where the
// model has the controller's event energies, what its logic switches at the window's
// events (controller_events.h); otherwise that switching is not modelled, and the model's
// name says so.
BlockPower structural_power(const RunResult& r, const Block& b,
                            const std::map<std::string, int64_t>& params, const PowerModel& model, const PowerTrace& t) {
  const PrimitiveDef& def = primitive_def(b.kind);
  BlockPower bp = instance_power(def, b, params, model, t);
  const PrimitivePowerModel& m = model.primitive(b.kind);
  const size_t sizes = m.characterised_sizes.size();
  const StructuralEnergy energy = model.structural_energy(b.kind, bp.h);
  const bool events = !energy.per_event_fj.empty();
  const bool buffers_apart = !macro_modules_at(def, bp.h).empty();  // SRAM macros
  std::string named;  // a controller has dozens of hyperparameters: each with its name
  for (size_t i = 0; i < bp.h.size(); ++i) named += " " + def.params[i] + "=" + std::to_string(bp.h[i]);
  bp.model = "structural primitive " + b.kind + named + controller_contents(b.kind) +
             (buffers_apart ? " (its operand buffers SRAM macros, priced apart)" : "") +
             (m.measured.count(bp.h) ? ": clock and leakage of its own synthesis (a characterised size)"
                                     : ": clock and leakage fitted over " + std::to_string(sizes) +
                                           " synthesised size" + (sizes == 1 ? "" : "s")) +
             (events ? ", its switching per event fitted over " + std::to_string(m.event_quality.train_points) +
                           " kernel windows of training cores"
                     : ", the kernel's switching of its logic not modelled");
  std::vector<double>& fj = bp.mw;  // dynamic fJ per cycle until to_power
  if (events) {
    fj = controller_event_energy(r, b.kind, t.window, t.windows(), energy.per_event_fj);
    for (uint64_t w = 0; w < t.windows(); ++w) fj[w] = std::max(0.0, energy.idle_fj + fj[w] / double(t.window_cycles(w)));
  } else {
    std::fill(fj.begin(), fj.end(), std::max(0.0, energy.idle_fj));
  }
  to_power(bp, t);
  return bp;
}

// A block of a characterised primitive, per window of trace t: its activity from the run
// (where activity_source observes it), the primitive's model for the dynamic energy.
BlockPower primitive_power(const Graph& g, const RunResult& r, const ActivityTimeline& timeline, const Block& b,
                           const std::map<std::string, int64_t>& params, const PowerModel& model, const PowerTrace& t) {
  const PrimitiveDef& def = primitive_def(b.kind);
  if (def.structural()) return structural_power(r, b, params, model, t);
  const uint64_t windows = t.windows();
  BlockPower bp = instance_power(def, b, params, model, t);
  bp.model = "XGBoost primitive " + b.kind + " " + hyperparameter_text(bp.h, 'x');
  const ActivitySource source = activity_source(g, r, b);
  const BlockActivity act = r.activity.count(source.timed_block) ? r.activity.at(source.timed_block) : BlockActivity{};
  bp.zeros = act.operand_bytes ? double(act.zero_bytes) / double(act.operand_bytes) : 0.0;
  BlockSeries series;
  series.busy = find_or_null(timeline.busy, source.timed_block);
  // A block timed by its array acts in the array's stream cycles, not its loads.
  series.enabled = source.timed_block == b.name ? find_or_null(timeline.enabled, b.name) : nullptr;
  series.side = def.side_enable.empty() ? nullptr : find_or_null(timeline.side, b.name);
  series.bytes = find_or_null(timeline.operand_bytes, source.timed_block);
  series.zero_bytes = find_or_null(timeline.zero_bytes, source.timed_block);
  std::tie(series.toggles, series.bits) = probe_toggles(def, bp.h, source.probes, windows, t.window);
  if (!def.factor_port.empty())
    series.factors = register_series(r, b, &BlockTimeline::factor, def.factor_port + " port", t);
  if (!def.state_register.empty())
    series.state = register_series(r, b, &BlockTimeline::state, def.state_register + " register", t);
  series.run_zeros = bp.zeros;
  const bool by_command = series.side && def.side_opens_burst;
  const std::vector<CommandWindows> commands =
      by_command ? command_windows(series.busy, series.side, windows) : std::vector<CommandWindows>{};
  std::vector<double>& fj = bp.mw;  // dynamic fJ per cycle until to_power
  size_t next_command = 0;
  std::vector<PrimitiveActivity> activity;
  for (uint64_t first = 0; first < windows;) {
    uint64_t end = std::min(windows, first + kChunkWindows);
    const size_t first_command = next_command;
    for (; next_command < commands.size() && commands[next_command].begin < end; ++next_command)
      end = std::max(end, commands[next_command].end);
    activity.resize(end - first);
    for (uint64_t w = first; w < end; ++w) {
      const double len = double(t.window_cycles(w));
      activity[w - first] = series.at(w, len);
      bp.alpha += activity[w - first].alpha * len / double(t.cycles);
      bp.factor += activity[w - first].factor * len / double(t.cycles);
      bp.state += activity[w - first].state * len / double(t.cycles);
      bp.busy += window_value(series.busy, w) / double(t.cycles);
      bp.enable += series.enabled_cycles(w) / double(t.cycles);
    }
    const std::vector<double> chunk =
        by_command ? command_priced_fj(model, b.kind, bp.h, activity, first,
                                       {commands.begin() + long(first_command), commands.begin() + long(next_command)}, t)
                   : model.dynamic_fj(b.kind, bp.h, activity);
    std::copy(chunk.begin(), chunk.end(), fj.begin() + long(first));
    first = end;
  }
  const auto own_timeline = r.timelines.find(source.timed_block);
  if (own_timeline != r.timelines.end()) lead_energy(fj, own_timeline->second.switching_lead, t);
  to_power(bp, t);
  return bp;
}

}  // namespace

double PowerTrace::total_average_mw() const {
  double s = 0;
  for (const auto& b : blocks) s += b.average_mw;
  return s;
}

std::vector<BlockEstimate> block_estimates(const Graph& g, const PowerModel& model,
                                           std::vector<std::string>* not_modelled, const DesignMacros& macros) {
  std::vector<BlockEstimate> out;
  KernelRegs regs{};
  regs.kernel = g.attention ? 1 : 0;  // held hyperparameters (the softmax unit's MODE) as attention sets them
  for (const auto& b : g.blocks) {
    if (const MemoryMacro* macro = macros.find(b.name)) {
      out.push_back({b.name, "sram_macro", macro->area_um2, 0, 0});
      continue;
    }
    const std::optional<ArrayInstance> inst = block_instance(g, b.name);
    if (!inst || !model.primitives.count(b.kind)) {
      if (not_modelled && !priced_with_controller(g, b.name)) not_modelled->push_back(b.name);
      continue;
    }
    const PrimitiveDef& def = primitive_def(b.kind);
    const std::vector<int> h = hyperparameters_of(def, priced_parameters(def, *inst, regs, macros));
    BlockEstimate e;
    e.block = b.name, e.kind = b.kind;
    e.area_um2 = model.area_um2(b.kind, h);
    if (const KindTiming* timing = model.timing.find(b.kind)) {
      e.delay_ns = timing->delay_ns(def, h);
      e.beyond = timing->beyond(def, h);
    }
    out.push_back(e);
  }
  return out;
}

std::vector<PricedInstance> priced_instances(const Graph& g, const DesignMacros& macros) {
  std::vector<reg::Kernel> kernels = {reg::Kernel::kMatmul};
  if (g.attention) kernels = {reg::Kernel::kAttention, reg::Kernel::kFfn, reg::Kernel::kMatmul};
  std::vector<PricedInstance> out;
  for (const auto& b : g.blocks) {
    const std::optional<ArrayInstance> inst = block_instance(g, b.name);
    if (macros.find(b.name) || !inst) continue;
    const PrimitiveDef& def = primitive_def(b.kind);
    for (reg::Kernel k : kernels) {
      KernelRegs regs{};
      regs.kernel = uint32_t(k);
      const std::map<std::string, int64_t> params = priced_parameters(def, *inst, regs, macros);
      PricedInstance p{b.name, b.kind, hyperparameters_of(def, params), variant_difference(def, params)};
      const auto same = [&](const PricedInstance& q) { return q.block == p.block && q.h == p.h; };
      if (std::none_of(out.begin(), out.end(), same)) out.push_back(p);
    }
  }
  return out;
}

DesignArea design_area(const Graph& g, const PowerModel& model, const DesignMacros& macros) {
  DesignArea a;
  for (const BlockEstimate& e : block_estimates(g, model, &a.not_modelled, macros)) a.um2 += e.area_um2;
  return a;
}

DesignClock design_clock(const Graph& g, const PowerModel& model, const DesignMacros& macros) {
  DesignClock c;
  for (const BlockEstimate& e : block_estimates(g, model, &c.not_modelled, macros)) {
    if (e.kind == "sram_macro") continue;  // a compiler's macro brings its own timing
    if (e.delay_ns <= 0) {
      c.not_modelled.push_back(e.block);
      continue;
    }
    if (e.beyond > 1) {
      std::ostringstream x;
      x << e.block << " (" << std::setprecision(2) << e.beyond << "x)";
      c.extrapolated.push_back(x.str());
    }
    if (e.delay_ns > c.limiting_delay_ns) c.limiting_delay_ns = e.delay_ns, c.limiting_block = e.block;
  }
  if (c.limiting_delay_ns > 0) c.mhz = 1000.0 / c.limiting_delay_ns;
  return c;
}

PowerTrace estimate_power(const Graph& g, const Program& p, const PowerModel& model, uint64_t window,
                          const DesignMacros& macros) {
  if (window == 0) fail("--window", "expected at least one cycle");
  return estimate_run_power(g, p.kernel, registers_at_start(p), run_on_systemc(g, p), model, window, macros);
}

PowerTrace estimate_run_power(const Graph& g, const std::string& kernel, const KernelRegs& regs, const RunResult& r,
                              const PowerModel& model, uint64_t window, const DesignMacros& macros) {
  FSGEN_ASSERT(window > 0, "windows of at least one cycle");
  PowerTrace t;
  t.design = g.spec.name;
  t.kernel = kernel;
  t.clock_mhz = g.spec.clock_mhz;
  t.window = window;
  t.simulate_seconds = r.wall_seconds;
  const auto t0 = std::chrono::steady_clock::now();
  t.cycles = r.cycles;
  // Every PE array's busy and enabled cycles as the cycle model ran them (a data-dependent
  // design's tile times included), in the windows of its probes.
  const ActivityTimeline timeline = ActivityTimeline::from_spans(r, window, t.windows());
  for (const auto& b : g.blocks) {
    if (const MemoryMacro* macro = macros.find(b.name)) {
      t.blocks.push_back(macro_power(*macro, macro_accesses(*macro, b, r, timeline), t));
      continue;
    }
    const std::optional<ArrayInstance> inst = block_instance(g, b.name);
    if (inst && model.primitives.count(b.kind)) {
      const PrimitiveDef& def = primitive_def(b.kind);
      t.blocks.push_back(primitive_power(g, r, timeline, b, priced_parameters(def, *inst, regs, macros), model, t));
    } else {
      t.not_modelled.push_back(b.name);
    }
  }
  // A modelled controller's netlist holds the requantiser (and a fused core's normaliser).
  if (std::any_of(t.blocks.begin(), t.blocks.end(), [](const BlockPower& b) { return b.block == "ctrl"; }))
    t.not_modelled.erase(std::remove_if(t.not_modelled.begin(), t.not_modelled.end(),
                                        [&g](const std::string& b) { return priced_with_controller(g, b); }),
                         t.not_modelled.end());
  t.estimate_seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  return t;
}

namespace {

constexpr size_t kSettleWindows = 1;  // windows left out of a trace comparison (agreement)

// A per-cycle golden trace averaged over the trace's windows.
std::vector<double> golden_windows(const PowerTrace& t, const std::vector<double>& per_cycle) {
  std::vector<double> w(t.windows(), 0.0);
  for (size_t cyc = 0; cyc < per_cycle.size(); ++cyc)
    if (cyc / t.window < w.size())
      w[cyc / t.window] += per_cycle[cyc] / double(t.window_cycles(cyc / t.window));
  return w;
}

// From the second window on (kSettleWindows): the gate-level engine counts each net's first
// value in the VCD as a toggle from 0 (10-30 times a busy cycle's energy in the golden trace's
// first cycle), which is no switching of the kernel and which no model predicts; at one-cycle
// windows it alone would dominate R. (The characterisation's labels carry the same count,
// spread over their runs' cycles, so averages keep it on both sides.)
TraceAgreement agreement(const std::vector<double>& predicted, const std::vector<double>& golden, double golden_average) {
  TraceAgreement a;
  a.golden_mw = golden_average;
  FSGEN_ASSERT(predicted.size() == golden.size(), "a trace is compared with a golden one of as many windows");
  const size_t skip = golden.size() > kSettleWindows ? kSettleWindows : 0;
  const std::vector<double> p(predicted.begin() + long(skip), predicted.begin() + long(golden.size()));
  const std::vector<double> g(golden.begin() + long(skip), golden.end());
  a.r = pearson_r(p, g);
  a.nrmse = golden_average > 0 ? rms_difference(p, g) / golden_average : 0;
  return a;
}

const BlockPower* find_block(const PowerTrace& t, const std::string& name) {
  for (const auto& b : t.blocks)
    if (b.block == name) return &b;
  return nullptr;
}

}  // namespace

std::vector<GoldenComparison> compare_to_golden(const PowerTrace& t, const std::vector<GoldenBlockPower>& golden,
                                                const PowerModel& model) {
  std::vector<GoldenComparison> out;
  for (const auto& gb : golden) {
    const BlockPower* b = find_block(t, gb.block);
    if (!b) continue;
    const TraceAgreement a = agreement(b->mw, golden_windows(t, gb.mw), gb.average_mw);
    GoldenComparison c;
    c.block = b->block;
    c.predicted_mw = b->average_mw;
    c.golden_mw = gb.average_mw;
    c.error_percent = gb.average_mw > 0 ? 100.0 * (b->average_mw - gb.average_mw) / gb.average_mw : 0;
    c.window_r = a.r;
    c.window_nrmse = a.nrmse;
    c.golden_area_um2 = gb.area_um2;
    c.golden_leakage_mw = gb.leakage_mw;
    c.predicted_area_um2 = model.area_um2(b->kind, b->h);
    c.replay_mismatch_cycles = gb.output_mismatch_cycles;
    out.push_back(c);
  }
  return out;
}

TraceAgreement design_trace_agreement(const PowerTrace& t, const std::vector<GoldenBlockPower>& golden) {
  const size_t windows = t.windows();
  std::vector<double> predicted(windows, 0.0), golden_cycles(t.cycles, 0.0);
  double predicted_mw = 0, golden_mw = 0;
  for (const auto& gb : golden) {
    const BlockPower* b = find_block(t, gb.block);
    if (!b) continue;
    for (size_t w = 0; w < windows && w < b->mw.size(); ++w) predicted[w] += b->mw[w];
    for (size_t c = 0; c < golden_cycles.size() && c < gb.mw.size(); ++c) golden_cycles[c] += gb.mw[c];
    predicted_mw += b->average_mw, golden_mw += gb.average_mw;
  }
  TraceAgreement a = agreement(predicted, golden_windows(t, golden_cycles), golden_mw);
  a.predicted_mw = predicted_mw;
  return a;
}

std::vector<ValidationRecord> validation_records(const std::string& design, const PowerTrace& t,
                                                 const std::vector<GoldenComparison>& c, const TraceAgreement& total,
                                                 const std::vector<GoldenBlockPower>& golden) {
  double unmodelled_mw = std::nan("");
  if (std::any_of(golden.begin(), golden.end(), [](const GoldenBlockPower& gb) { return gb.block == "ctrl"; })) {
    unmodelled_mw = 0;
    for (const auto& gb : golden)
      if (!find_block(t, gb.block)) unmodelled_mw += gb.average_mw;
  }
  std::vector<ValidationRecord> out;
  for (const auto& g : c)
    for (const auto& b : t.blocks) {
      if (b.block != g.block) continue;
      ValidationRecord r;
      r.design = design, r.block = b.block, r.kind = b.kind, r.h = b.h, r.variant = b.variant_note;
      r.cycles = t.cycles, r.window = t.window, r.clock_mhz = t.clock_mhz;
      r.alpha = b.alpha, r.busy = b.busy, r.enable = b.enable, r.zeros = b.zeros;
      r.predicted_mw = g.predicted_mw, r.golden_mw = g.golden_mw;
      r.predicted_leakage_mw = b.leakage_mw, r.golden_leakage_mw = g.golden_leakage_mw;
      r.predicted_area_um2 = g.predicted_area_um2, r.golden_area_um2 = g.golden_area_um2;
      r.trace_r = g.window_r, r.trace_nrmse = g.window_nrmse;
      r.design_trace_r = total.r, r.design_trace_nrmse = total.nrmse;
      r.design_unmodelled_golden_mw = unmodelled_mw;
      out.push_back(r);
    }
  return out;
}

namespace {
// The replay's self-check (GoldenBlockPower::output_mismatch_cycles) as the reports state it.
std::string replay_outputs_note(uint64_t mismatch_cycles) {
  return mismatch_cycles ? "DIFFER in " + std::to_string(mismatch_cycles) + " cycles" : "equal the RTL's";
}

// A trace's text (CSV, VCD) for a stream: a per-cycle trace has millions of rows, and
// formatting through the stream costs several times the estimate itself. Numbers print as
// the stream's default would (%g, 6 significant digits), through std::to_chars, into a
// buffer handed to the stream a megabyte at a time.
class TraceText {
 public:
  explicit TraceText(std::ostream& out) : out_(out) { buf_.reserve(kFlushBytes + 256); }
  ~TraceText() { flush(); }
  TraceText(const TraceText&) = delete;
  TraceText& operator=(const TraceText&) = delete;

  TraceText& operator<<(double v) { return put(v, std::chars_format::general, 6); }
  TraceText& operator<<(uint64_t v) { return put(v); }
  TraceText& operator<<(const std::string& s) { return append(s.data(), s.size()); }
  TraceText& operator<<(const char* s) { return append(s, std::char_traits<char>::length(s)); }
  TraceText& operator<<(char c) { return append(&c, 1); }

  void flush() {
    out_.write(buf_.data(), std::streamsize(buf_.size()));
    buf_.clear();
  }

 private:
  static constexpr size_t kFlushBytes = size_t(1) << 20;

  template <typename T, typename... Format>
  TraceText& put(T v, Format... format) {
    char digits[64];
    const auto [end, ec] = std::to_chars(digits, digits + sizeof digits, v, format...);
    FSGEN_ASSERT(ec == std::errc(), "a number fits 64 characters");
    return append(digits, size_t(end - digits));
  }
  TraceText& append(const char* s, size_t n) {
    buf_.append(s, n);
    if (buf_.size() >= kFlushBytes) flush();
    return *this;
  }

  std::ostream& out_;
  std::string buf_;
};
}  // namespace

void print_golden_comparison(const std::vector<GoldenComparison>& c, const TraceAgreement& design, std::ostream& out) {
  out << "  against gate-level golden power (the RTL's stimulus replayed into each block's netlist):\n"
      << std::fixed;
  for (const auto& g : c)
    out << "    " << std::left << std::setw(10) << g.block << std::right << " predicted " << std::setprecision(3)
        << g.predicted_mw << " mW, golden " << g.golden_mw << " mW: " << std::showpos << std::setprecision(1)
        << g.error_percent << std::noshowpos << " %; per-window R " << std::setprecision(3) << g.window_r
        << ", NRMSE " << g.window_nrmse
        << "; area " << std::setprecision(0) << g.predicted_area_um2 << " um^2 predicted, " << g.golden_area_um2
        << " by Yosys; replay outputs " << replay_outputs_note(g.replay_mismatch_cycles) << "\n";
  out << "    " << std::left << std::setw(10) << "together" << std::right << " predicted " << std::setprecision(3)
      << design.predicted_mw << " mW, golden " << design.golden_mw << " mW: " << std::showpos << std::setprecision(1)
      << (design.golden_mw > 0 ? 100.0 * (design.predicted_mw - design.golden_mw) / design.golden_mw : 0.0)
      << std::noshowpos << " %; per-window R " << std::setprecision(3) << design.r << ", NRMSE " << design.nrmse << "\n"
      << std::defaultfloat;
}

void print_golden_unmodelled(const PowerTrace& t, const std::vector<GoldenBlockPower>& golden, std::ostream& out) {
  out << std::fixed;
  double all_mw = 0, unmodelled_mw = 0, all_area = 0, unmodelled_area = 0;
  for (const auto& gb : golden) {
    all_mw += gb.average_mw, all_area += gb.area_um2;
    if (find_block(t, gb.block)) continue;
    unmodelled_mw += gb.average_mw, unmodelled_area += gb.area_um2;
    out << "    " << std::left << std::setw(10) << gb.block << std::right << " not modelled, golden " << std::setprecision(3)
        << gb.average_mw << " mW (leakage " << gb.leakage_mw << " mW; area " << std::setprecision(0) << gb.area_um2
        << " um^2 by Yosys"
        << "; replay outputs " << replay_outputs_note(gb.output_mismatch_cycles) << ")\n";
  }
  if (unmodelled_mw > 0)
    out << "    " << std::left << std::setw(10) << "replayed" << std::right << " golden " << std::setprecision(3) << all_mw
        << " mW over every replayed block, " << std::setprecision(1) << 100.0 * unmodelled_mw / all_mw
        << " % of it (and " << 100.0 * unmodelled_area / all_area << " % of their area) in blocks without a model\n";
  out << std::defaultfloat;
}

void print_power(const PowerTrace& t, std::ostream& out) {
  out << "power of " << t.kernel << " on design " << t.design << " (" << t.cycles << " cycles at " << t.clock_mhz
      << " MHz)\n  models: fsgen hierarchical XGBoost primitive models, structural models of the controller and "
         "register file, and the SRAM macro model; activity from the "
         "SystemC model's toggles, accesses and busy spans in windows of " << t.window << " cycles\n" << std::fixed << std::setprecision(3);
  for (const auto& b : t.blocks) {
    out << "  " << std::left << std::setw(10) << b.block << std::right << std::setw(10) << b.average_mw << " mW  ("
        << b.model << "; leakage " << b.leakage_mw << " mW";
    if (b.kind != "sram_macro" && !primitive_def(b.kind).structural()) {
      out << "; alpha " << b.alpha << ", busy " << b.busy << ", enabled " << b.enable << ", zeros " << b.zeros;
      if (!primitive_def(b.kind).factor_port.empty()) out << ", factor toggles " << b.factor;
      if (!primitive_def(b.kind).state_register.empty())
        out << ", " << primitive_def(b.kind).state_register << " toggles " << b.state;
    }
    out << ")\n";
    if (!b.variant_note.empty()) out << "             extrapolated (not characterised): " << b.variant_note << "\n";
  }
  out << "  total     " << std::setw(10) << t.total_average_mw() << " mW over the modelled blocks\n";
  if (!t.not_modelled.empty()) {
    out << "  not modelled yet (no characterised primitive or variant covers them):";
    for (const auto& n : t.not_modelled) out << " " << n;
    out << "\n";
  }
  out << "  wall: SystemC run " << std::setprecision(3) << t.simulate_seconds << " s, power estimate "
      << t.estimate_seconds << " s\n" << std::defaultfloat;
}

void write_power_csv(const PowerTrace& t, std::ostream& stream) {
  TraceText out(stream);
  out << "cycle";
  for (const auto& b : t.blocks) out << "," << b.block << "_mw";
  out << ",total_mw\n";
  const size_t windows = t.blocks.empty() ? 0 : t.blocks.front().mw.size();
  for (size_t w = 0; w < windows; ++w) {
    out << w * t.window;
    double total = 0;
    for (const auto& b : t.blocks) out << "," << b.mw[w], total += b.mw[w];
    out << "," << total << "\n";
  }
}

void write_golden_trace_csv(const PowerTrace& t, const std::vector<GoldenBlockPower>& golden, std::ostream& stream) {
  TraceText out(stream);
  std::vector<std::pair<const BlockPower*, std::vector<double>>> compared;
  for (const auto& gb : golden)
    if (const BlockPower* b = find_block(t, gb.block)) compared.emplace_back(b, golden_windows(t, gb.mw));
  out << "cycle";
  for (const auto& [b, g] : compared) out << "," << b->block << "_predicted_mw," << b->block << "_golden_mw";
  out << ",together_predicted_mw,together_golden_mw\n";
  for (size_t w = 0; w < t.windows(); ++w) {
    out << w * t.window;
    double predicted = 0, gold = 0;
    for (const auto& [b, g] : compared) {
      out << "," << b->mw[w] << "," << g[w];
      predicted += b->mw[w], gold += g[w];
    }
    out << "," << predicted << "," << gold << "\n";
  }
}

void write_golden_signals_csv(const std::vector<GoldenBlockPower>& golden, std::ostream& out) {
  out << "block,signal,bits,toggles,energy_fj,fj_per_cycle,share_of_dynamic,sd_fj_per_cycle,share_of_variation\n";
  for (const auto& gb : golden) {
    double dynamic_fj = 0;
    for (const SignalEnergy& s : gb.signals) dynamic_fj += s.fj;
    const double cycles = double(std::max<size_t>(1, gb.mw.size()));
    for (const SignalEnergy& s : gb.signals)
      out << gb.block << "," << csv_safe(s.name) << "," << s.bits << "," << s.toggles << "," << s.fj << ","
          << s.fj / cycles << "," << (dynamic_fj > 0 ? s.fj / dynamic_fj : 0.0) << "," << s.sd_fj << ","
          << s.variation_share << "\n";
  }
}

void write_power_vcd(const PowerTrace& t, std::ostream& stream) {
  TraceText out(stream);
  const double ns_per_cycle = 1000.0 / t.clock_mhz;
  out << "$comment fsgen power trace of " << t.kernel << " on " << t.design << ", mW per block $end\n"
      << "$timescale 1ps $end\n$scope module power $end\n";
  for (size_t i = 0; i < t.blocks.size(); ++i) out << "$var real 64 p" << i << " " << t.blocks[i].block << "_mw $end\n";
  out << "$var real 64 total total_mw $end\n$upscope $end\n$enddefinitions $end\n";
  const size_t windows = t.blocks.empty() ? 0 : t.blocks.front().mw.size();
  for (size_t w = 0; w < windows; ++w) {
    out << "#" << static_cast<uint64_t>(double(w * t.window) * ns_per_cycle * 1000.0) << "\n";
    double total = 0;
    for (size_t i = 0; i < t.blocks.size(); ++i) out << "r" << t.blocks[i].mw[w] << " p" << i << "\n", total += t.blocks[i].mw[w];
    out << "r" << total << " total\n";
  }
  out << "#" << static_cast<uint64_t>(double(t.cycles) * ns_per_cycle * 1000.0) << "\n";
}

void plot_power_png(const PowerTrace& t, const std::string& csv_path, const std::string& png_path) {
  const std::string tmp = png_path + ".tmp.png";
  // noenhanced: block and design names (csr_mW, ws_8x16) are text, not subscripts.
  std::string script = "set terminal pngcairo size 1000,500 noenhanced; set output '" + tmp +
                       "'; set datafile separator ',';"
                       " set key autotitle columnhead outside; set xlabel 'cycle'; set ylabel 'power (mW)';"
                       " set title 'fsgen power trace: " +
                       t.kernel + " on " + t.design + "'; plot ";
  for (size_t i = 0; i <= t.blocks.size(); ++i)
    script += (i ? ", " : "") + std::string("'") + csv_path + "' using 1:" + std::to_string(i + 2) + " with steps" +
              (i == t.blocks.size() ? " lw 2 lc 'black'" : "");  // the total
  const CommandResult r = run_command("echo " + shell_quote(script) + " | " + shell_quote(require_tool("gnuplot")));
  if (r.status != 0 || !std::filesystem::exists(tmp)) fail("gnuplot", "could not draw " + png_path + ": " + r.output);
  std::filesystem::rename(tmp, png_path);
}

}  // namespace fsgen
