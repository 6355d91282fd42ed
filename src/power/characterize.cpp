#include "power/characterize.h"

#include <algorithm>
#include <atomic>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <memory>
#include <mutex>
#include <set>
#include <sstream>
#include <thread>
#include <tuple>

#include "blocks/registry.h"
#include "core/csv.h"
#include "core/error.h"
#include "core/folder_lock.h"
#include "core/log.h"
#include "core/regmap.h"
#include "core/write_file.h"
#include "flow/tools.h"
#include "generator/graph.h"
#include "generator/verilog_emitter.h"
#include "power/controller_training.h"
#include "power/gate_power.h"
#include "power/gate_sim.h"
#include "power/techmap.h"

namespace fsgen {

namespace fs = std::filesystem;

namespace {
bool listed(const std::vector<std::string>& v, const std::string& s) { return std::find(v.begin(), v.end(), s) != v.end(); }
}  // namespace

// The power primitives of the block kinds (src/blocks/<kind>/), in the registry's order.
const std::vector<PrimitiveDef>& primitive_catalog() { return registered_primitives(); }

std::string hyperparameter_text(const std::vector<int>& h, char separator) {
  std::string s;
  for (size_t i = 0; i < h.size(); ++i) s += (i ? std::string(1, separator) : "") + std::to_string(h[i]);
  return s;
}

std::vector<int> parse_hyperparameters(const std::string& text, const std::string& place) {
  std::vector<int> h;
  for (const std::string& v : split_fields(text, ';')) h.push_back(parse_int(v, place, "hyperparameters"));
  return h;
}

const PrimitiveDef& primitive_def(const std::string& kind) {
  for (const auto& d : primitive_catalog())
    if (d.kind == kind) return d;
  std::string known;
  for (const auto& d : primitive_catalog()) known += (known.empty() ? "" : ", ") + d.kind;
  fail("primitive '" + kind + "'", "unknown: expected one of " + known);
}

std::vector<int> hyperparameters_of(const PrimitiveDef& def, const std::map<std::string, int64_t>& params) {
  std::vector<int> h;
  const std::map<std::string, int64_t> defaults =
      def.defaults ? def.defaults(params) : std::map<std::string, int64_t>{};
  for (const auto& name : def.params) {
    const auto it = params.find(name);
    const auto unset = defaults.find(name);
    FSGEN_ASSERT(it != params.end() || unset != defaults.end(),
                 "an instance of a primitive sets its hyperparameters but those with defaults");
    h.push_back(int(it != params.end() ? it->second : unset->second));
  }
  return h;
}

std::string variant_difference(const PrimitiveDef& def, const std::map<std::string, int64_t>& params) {
  std::string note;
  auto add = [&](const std::string& text) { note += (note.empty() ? "" : ", ") + text; };
  const std::map<std::string, int64_t> derived = def.derived ? def.derived(hyperparameters_of(def, params))
                                                             : std::map<std::string, int64_t>{};
  for (const auto& [param, value] : def.fixed) {
    const auto it = params.find(param);
    if (it != params.end() && it->second != value && !listed(def.wiring, param))
      add(param + "=" + std::to_string(it->second) + ", characterised " + std::to_string(value));
  }
  for (const auto& [param, value] : params) {
    if (listed(def.wiring, param) || listed(def.params, param) || def.fixed.count(param)) continue;
    const auto follows = derived.find(param);
    if (follows == derived.end()) add(param + "=" + std::to_string(value) + ", not characterised");
    else if (follows->second != value) add(param + "=" + std::to_string(value) + ", characterised " + std::to_string(follows->second));
  }
  return note;
}

std::vector<std::string> macro_modules_at(const PrimitiveDef& def, const std::vector<int>& h) {
  if (def.macro_param.empty()) return {};
  return h[def.param_at(def.macro_param)] ? def.macro_modules : std::vector<std::string>{};
}

std::map<std::string, int64_t> module_parameters(const PrimitiveDef& def, const std::vector<int>& h) {
  std::map<std::string, int64_t> params = def.fixed;
  for (size_t i = 0; i < h.size(); ++i)
    if (!listed(def.held_params, def.params[i]) && def.params[i] != def.macro_param) params[def.params[i]] = h[i];
  if (def.derived)
    for (const auto& [name, value] : def.derived(h)) params[name] = value;
  return params;
}

std::string CharPoint::key() const {
  std::ostringstream o;
  o << kind;
  for (int v : h) o << ";" << v;
  o << "|" << toggle_rate << "|" << zero_fraction << "|" << enable_rate << "|" << seed;
  if (window) o << "|" << window;  // a kernel point (every other point has window 0)
  return o.str();
}

namespace {

constexpr double kClockMhz = 1000;  // the engine's clock for the labels (energy per cycle does not depend on it)
// Format 5; formats 4 (no state column), 3 (nor factor) and 2 (nor window and events) are
// read too, as their rows with the missing columns at 0 (empty events): a primitive with a
// factor port needs format 4 to be trained, one with a state register format 5
// (power_model.cpp).
const char* kColumns =
    "kind,h,toggle_rate,zero_fraction,enable_rate,seed,window,alpha,enable,zeros,side,factor,factor_ones,state,"
    "state_ones,events,dynamic_fj,leakage_mw,area_um2";
const char* kColumnsFormat4 =
    "kind,h,toggle_rate,zero_fraction,enable_rate,seed,window,alpha,enable,zeros,side,factor,events,dynamic_fj,"
    "leakage_mw,area_um2";
const char* kColumnsFormat3 =
    "kind,h,toggle_rate,zero_fraction,enable_rate,seed,window,alpha,enable,zeros,side,events,dynamic_fj,leakage_mw,area_um2";
const char* kColumnsFormat2 = "kind,h,toggle_rate,zero_fraction,enable_rate,seed,alpha,enable,zeros,side,dynamic_fj,leakage_mw,area_um2";

const char* columns_of_format(int format) {
  return format == 2 ? kColumnsFormat2 : format == 3 ? kColumnsFormat3 : format == 4 ? kColumnsFormat4 : kColumns;
}

size_t column_count(const char* columns) { return size_t(std::count(columns, columns + std::strlen(columns), ',')) + 1; }

std::string events_text(const std::vector<double>& events) {
  std::ostringstream o;
  o.precision(9);
  for (size_t i = 0; i < events.size(); ++i) o << (i ? ";" : "") << events[i];
  return o.str();
}

std::vector<double> parse_events(const std::string& text, const std::string& place) {
  std::vector<double> e;
  for (const std::string& v : split_fields(text, ';')) e.push_back(parse_finite(v, place, "events"));
  return e;
}

std::string row_of(const CharPoint& p) {
  CsvLine line;
  line << p.kind << hyperparameter_text(p.h) << p.toggle_rate << p.zero_fraction << p.enable_rate << p.seed << p.window
       << p.alpha << p.enable << p.zeros << p.side << p.factor << p.factor_ones << p.state << p.state_ones
       << events_text(p.events) << p.dynamic_fj << p.leakage_mw << p.area_um2;
  return line.str();
}

CharPoint point_of(const std::string& text, const std::string& where, int format) {
  CsvRow row(text, where);
  const char* columns = columns_of_format(format);
  row.expect_fields(column_count(columns), columns);
  if (format == 2) row.insert(6, "0"), row.insert(11, "");  // no window, no events
  if (format <= 3) row.insert(11, "0");                     // no factor
  if (format <= 4) row.insert(12, "0"), row.insert(13, "0"), row.insert(14, "0");  // no factor ones, no state
  CharPoint p;
  p.kind = row.text(0);
  p.h = parse_hyperparameters(row.text(1), where);
  p.toggle_rate = row.number(2, "toggle_rate");
  p.zero_fraction = row.number(3, "zero_fraction");
  p.enable_rate = row.number(4, "enable_rate");
  p.seed = row.count(5, "seed");
  p.window = row.count(6, "window");
  p.alpha = row.number(7, "alpha");
  p.enable = row.number(8, "enable");
  p.zeros = row.number(9, "zeros");
  p.side = row.number(10, "side");
  p.factor = row.number(11, "factor");
  p.factor_ones = row.number(12, "factor_ones");
  p.state = row.number(13, "state");
  p.state_ones = row.number(14, "state_ones");
  p.events = parse_events(row.text(15), where);
  p.dynamic_fj = row.number(16, "dynamic_fj");
  p.leakage_mw = row.number(17, "leakage_mw");
  p.area_um2 = row.number(18, "area_um2");
  return p;
}

// The drivers' version: a dataset of another is refused (resume it with its own fsgen).
// Version 7 added the rescaling array's (sc and its factors); version 8 loads the softmax
// unit's rows in passes, its state ports showing the last row held; version 9 adds its
// points at toggle rate 0.5 (PrimitiveDef::extra_toggle_rates); the other primitives'
// stimulus is 6's; version 10 adds the structural primitives (PrimitiveDef::structural),
// the others' unchanged; version 11 adds the controller's kernel points (kernel_sizes);
// version 12 the fused controller's, the others' unchanged; version 13 redraws the rescaling
// array's factors in any cycle at a share of their own (and fills its accumulators first),
// the others' unchanged; version 14 fills them with dense operands whatever the zero
// fraction and adds idle points with factor writes, the others' unchanged; version 15 draws
// its factors in reset and measures its points (labels and features) after the fill, the
// others' unchanged; version 16 drives the DMA with bursts in flight; version 17 drives its
// read and write command ports, the others' unchanged; version 18 the same on the DMA whose
// head burst's tag and last beat are registers of their own, the others' unchanged; version
// 19 holds the rescaling array's factors at 0 in its points without factor writes, the
// others' unchanged.
const char* kStimulus =
    "19 (the controller under kernels: four matmuls on training cores of its kernel sizes, its netlist replaying "
    "their RTL's ports, in windows of 16 cycles; the fused controller the same way under five attention and FFN "
    "kernels; the controller and register file: idle, the clock alone, labelled by the engine without simulation; dot "
    "arrays: x with v, w with ld, ld_idx counting columns, one enable at a time, ld a share 0.1, 0.5 or 0.9 of them, "
    "a Latin square over rate, zeros and enable; the DMA (its queue of bursts in flight at OUT = 8, 11-bit tags, the "
    "head burst in registers; a read and a write command port): bursts one at a time answered by an AXI slave; the "
    "softmax unit: passes of score rows of INT8 dot products loaded back to back, its outputs fed back, its state "
    "ports the last row's, gate passes a share of the FFN's, gate turned after a pass's last load, also at toggle "
    "rate 0.5; the rescaling array: sc that share of the enabled cycles, its accumulators filled in the 8 cycles "
    "after reset (operand bits flipping with probability 0.5, no byte zeroed), each row's Q0.15 factor drawn in "
    "reset, then redrawn in any cycle at a share 0, 0.25 or 1 (a second Latin square; idle points also at 0.05, "
    "0.1, 0.25, 0.5 and 1), 1.0 half the time, at share 0 never drawn (held at 0); its points measured on the "
    "cycles after the fill)";

std::map<std::string, std::string> provenance_of(const CharacterizeOptions& o, const Liberty& lib) {
  return {{"format", "fsgen-characterisation " + std::to_string(kDatasetFormat)},
          {"liberty", lib.name + (o.liberty.empty() ? " (built in)" : " (" + o.liberty + ")")},
          {"yosys", tool_version("yosys", "-V")},
          {"verilator", tool_version("verilator", "--version")},
          {"cycles", std::to_string(o.cycles)},
          {"seed", std::to_string(o.seed)},
          {"grid", o.small_grid ? "small" : "full"},
          {"stimulus", kStimulus},
          {"mapping", kAreaMapping}};
}

struct Stimulus {
  double toggle_rate, zero_fraction, enable_rate;
  double side_share;         // the random driver's side enable (PrimitiveStimulus::side_share)
  double factor_share = 0;   // its factor redraws (PrimitiveStimulus::factor_share)
};

std::vector<Stimulus> stimulus_grid(bool small, const PrimitiveDef& def) {
  if (def.structural()) return {{0.0, 0.0, 0.0, 0.0, 0.0}};  // idle, the clock alone
  std::vector<Stimulus> g;
  // Enable rates reach down to the few percent a PE array is busy under a DMA-bound schedule.
  const std::vector<double> rates = small ? std::vector<double>{0.1, 0.4} : std::vector<double>{0.05, 0.2, 0.45};
  const std::vector<double> zeros = small ? std::vector<double>{0.0, 0.7} : std::vector<double>{0.0, 0.5, 0.9};
  const std::vector<double> enables = small ? std::vector<double>{0.5, 1.0} : std::vector<double>{0.02, 0.1, 0.3, 0.6, 1.0};
  // A side enable's share of the enabled cycles: 0.1, 0.5 or 0.9, as a Latin square over
  // the other three (every share meets every rate, zero fraction and enable rate), so the
  // trees can tell it from them. Neither kind of cycle is left out of a point: a dot array
  // that never loads streams against zero weights, one that never streams loads against
  // zero operands, and a design's cycles of either kind do neither.
  const double shares[] = {0.1, 0.5, 0.9};
  // Factor redraws (a primitive with a factor port): a share of all cycles, 0, 0.25 or 1, as
  // a second Latin square orthogonal to the first (every pair of shares meets), since a
  // design writes its factors mostly in cycles its array does not stream.
  const double factor_shares[] = {0.0, 0.25, 1.0};
  const bool factors = !def.factor_port.empty();
  // The toggle rate of index ai at every zero fraction and enable rate.
  auto add_rate = [&](size_t ai, double rate) {
    for (size_t zi = 0; zi < zeros.size(); ++zi)
      for (size_t ei = 0; ei < enables.size(); ++ei)
        g.push_back({rate, zeros[zi], enables[ei], shares[(ai + zi + ei) % 3],
                     factors ? factor_shares[(ai + 2 * (zi + ei)) % 3] : 0.0});
  };
  for (size_t ai = 0; ai < rates.size(); ++ai) add_rate(ai, rates[ai]);
  // Idle points (never enabled: the clock and the held state alone), so that a trace's
  // cycles in which a block is idle, most cycles of a fused design's arrays and softmax
  // unit, are priced by a characterised corner and not by the trees' lowest split. Three
  // seeds of the same run, so that holding every fifth point out cannot leave a size without
  // one. After the grid's points (and before a primitive's extra toggle rates), so that
  // those keep their seeds (o.seed + index).
  if (small) return g;
  for (int i = 0; i < 3; ++i) g.push_back({0.0, 0.0, 0.0, 0.0});
  for (size_t x = 0; x < def.extra_toggle_rates.size(); ++x) add_rate(rates.size() + x, def.extra_toggle_rates[x]);
  // Idle with factor writes (the array holding its accumulators while its controller writes
  // the next pass's factors): the cycles in which a design's rescale multipliers switch
  // alone.
  if (factors)
    for (double f : {0.05, 0.1, 0.25, 0.5, 1.0}) g.push_back({0.0, 0.0, 0.0, 0.0, f});
  return g;
}

// A size's folder is named by its module parameters alone, so that the values of held
// hyperparameters share its synthesis and testbench; their runs' folders by those.
std::string module_size_text(const PrimitiveDef& def, const std::vector<int>& h) {
  std::vector<int> module_h;
  for (size_t i = 0; i < h.size(); ++i)
    if (!listed(def.held_params, def.params[i])) module_h.push_back(h[i]);
  return hyperparameter_text(module_h, 'x');
}

std::string held_text(const PrimitiveDef& def, const std::vector<int>& h) {
  std::string text;
  for (size_t i = 0; i < h.size(); ++i)
    if (listed(def.held_params, def.params[i])) text += def.params[i] + std::to_string(h[i]) + "_";
  return text;
}

// The bits of every flip-flop register named `name` in the netlist (the last part of its
// hierarchical name: "row[0].pe[1].acc" for "acc"); UserError if there is none.
std::vector<int> register_bits(const GateNetlist& n, const std::string& name, const std::string& kind) {
  std::vector<int> bits;
  for (const auto& [net, net_bits] : n.netnames) {
    const size_t dot = net.rfind('.');
    if ((dot == std::string::npos ? net : net.substr(dot + 1)) != name) continue;
    for (int b : net_bits)
      if (b != GateNetlist::kConstantBit) bits.push_back(b);
  }
  if (bits.empty()) fail(n.top, kind + ": no register named '" + name + "' in its netlist (its state register)");
  std::sort(bits.begin(), bits.end());
  bits.erase(std::unique(bits.begin(), bits.end()), bits.end());
  return bits;
}

// Toggles of `bits` per bit and cycle in a run (0 without bits).
double toggle_rate_of(const std::vector<int>& bits, const GateActivity& a) {
  uint64_t toggles = 0;
  for (int b : bits) toggles += a.toggles.at(size_t(b));
  return bits.empty() ? 0 : double(toggles) / (double(bits.size()) * double(a.cycles));
}

// The share of `bits` (flip-flops at 0 when the run starts: its reset clears them) at 1 over
// a run's cycles after the first `skip`, each bit's level followed through its toggles (a
// cycle's level is the one its toggles leave); 0 without bits.
double ones_share_of(const std::vector<int>& bits, const GateActivity& a, uint64_t skip) {
  if (bits.empty() || a.cycles <= skip) return 0;
  std::vector<uint8_t> watched(size_t(a.toggles.size()), 0), level(watched.size(), 0);
  for (int b : bits) watched[size_t(b)] = 1;
  uint64_t ones = 0, sum = 0;
  for (uint64_t c = 0; c < a.cycles; ++c) {
    for (int b : a.toggled_per_cycle[c])
      if (watched[size_t(b)]) ones = level[size_t(b)] ? ones - 1 : ones + 1, level[size_t(b)] ^= 1;
    if (c >= skip) sum += ones;
  }
  return double(sum) / (double(bits.size()) * double(a.cycles - skip));
}

// One primitive at one size: synthesis, the engine, one testbench build, then every
// missing stimulus in parallel.
class SizeRun {
 public:
  SizeRun(const PrimitiveDef& def, const std::vector<int>& h, const Liberty& lib, const CharacterizeOptions& o)
      : def_(def), h_(h), o_(o), dir_((fs::path(o.work_dir) / (def.kind + "_" + module_size_text(def, h))).string()),
        runs_(held_text(def, h)) {
    const std::vector<std::string> files = write_module_sources(dir_, def.module);
    for (size_t i = 0; i < h.size(); ++i)
      if (listed(def.held_params, def.params[i])) stim_.settings.push_back(h[i]);
    const std::vector<std::string> macros = macro_modules_at(def, h);
    synth_ = synth_to_liberty(files, def.module, module_parameters(def, h), lib, dir_, SynthOptions{macros});
    netlist_ = read_netlist_json(synth_.netlist_json, def.module, macros);
    const LibertyLibrary cells = read_liberty_file(lib.path);
    engine_ = std::make_unique<GatePowerModel>(netlist_, cells, GatePowerOptions{kClockMhz, 0.05, 0});
    if (def.structural()) return;  // no testbench: the engine alone labels its idle point
    stim_.cycles = o.cycles;
    stim_.enables = def.enables;
    stim_.held_low = def.held_low;
    stim_.enable_of = def.enable_of;
    stim_.driver = def.driver;
    if (def.driver.empty()) stim_.side_enable = def.side_enable, stim_.factor_port = def.factor_port;
    for (const auto& [port, modulus] : def.counters) stim_.counters[port] = modulus(h);
    binary_ = prepare_gate_simulation(netlist_, cells, stim_, dir_);
    for (const auto& [port, bits] : netlist_.ports)
      for (int b : bits)
        if (b != GateNetlist::kConstantBit && alpha_measured_on(port)) alpha_bits_.push_back(b);
        else if (b != GateNetlist::kConstantBit && port == def.factor_port) factor_bits_.push_back(b);
    if (!def.state_register.empty()) state_bits_ = register_bits(netlist_, def.state_register, def.kind);
  }

  CharPoint run(const Stimulus& s, size_t index) const {
    if (def_.structural()) return idle_clock_point(s, o_.seed + index);
    PrimitiveStimulus stim = stim_;
    stim.toggle_rate = s.toggle_rate;
    stim.zero_fraction = s.zero_fraction;
    stim.enable_rate = s.enable_rate;
    stim.side_share = s.side_share;
    stim.factor_share = s.factor_share;
    stim.seed = o_.seed + index;
    GateActivity a = run_gate_simulation(binary_, netlist_, stim,
                                         (fs::path(dir_) / (runs_ + "run" + std::to_string(index))).string());
    CharPoint p = unlabelled(s, stim.seed);
    p.state_ones = ones_share_of(state_bits_, a, set_up_cycles());
    p.factor_ones = ones_share_of(factor_bits_, a, set_up_cycles());
    drop_first_cycles(a, set_up_cycles());
    p.alpha = toggle_rate_of(alpha_bits_, a);
    p.enable = double(a.enabled_cycles) / double(a.cycles);
    p.zeros = a.data_bytes ? double(a.zero_bytes) / double(a.data_bytes) : 0;
    p.side = double(a.side_cycles) / double(a.cycles);
    p.factor = toggle_rate_of(factor_bits_, a);
    p.state = toggle_rate_of(state_bits_, a);
    const PowerBreakdown pw = engine_->power(a.toggles, a.cycles);
    p.dynamic_fj = (pw.internal_mw + pw.switching_mw) / kClockMhz * 1e6;
    p.leakage_mw = pw.leakage_mw;
    p.area_um2 = synth_.area_um2;
    return p;
  }

  // The cycles a point's label and features leave out: a primitive with a factor port's
  // reset, in which its factors are drawn, and fill (PrimitiveStimulus::factor_port) set up
  // the state a design's earlier passes leave (factors written, accumulators holding
  // values), which the point's cycles start from; the testbench does not count their
  // enables either. The others' points are their whole runs.
  uint64_t set_up_cycles() const { return def_.factor_port.empty() ? 0 : kResetCycles + kFactorFillCycles; }

  // The structural primitive's point: the clock net toggling twice a cycle, every other
  // net still (an idle block after reset, whose inputs hold).
  CharPoint idle_clock_point(const Stimulus& s, uint64_t seed) const {
    CharPoint p = unlabelled(s, seed);
    if (!netlist_.ports.count(stim_.clock)) fail(def_.module, "has no clock port '" + stim_.clock + "'");
    const PowerBreakdown pw = engine_->power(uniform_toggles(netlist_, stim_.clock, 0.0, o_.cycles), o_.cycles);
    p.dynamic_fj = (pw.internal_mw + pw.switching_mw) / kClockMhz * 1e6;
    p.leakage_mw = pw.leakage_mw;
    p.area_um2 = synth_.area_um2;
    return p;
  }

  CharPoint unlabelled(const Stimulus& s, uint64_t seed) const {
    CharPoint p;
    p.kind = def_.kind;
    p.h = h_;
    p.toggle_rate = s.toggle_rate;
    p.zero_fraction = s.zero_fraction;
    p.enable_rate = s.enable_rate;
    p.seed = seed;
    return p;
  }

 private:
  // The ports whose bits alpha counts, as the SystemC model probes the block.
  bool alpha_measured_on(const std::string& port) const {
    if (!def_.alpha_ports.empty()) return listed(def_.alpha_ports, port);
    return port != stim_.clock && port != stim_.reset_n && !netlist_.outputs.count(port) && !listed(def_.enables, port) &&
           !listed(def_.held_low, port) && !def_.counters.count(port) && port != def_.side_enable && port != def_.factor_port;
  }
  const PrimitiveDef& def_;
  std::vector<int> h_;
  const CharacterizeOptions& o_;
  std::string dir_;
  std::string runs_;  // the run folders' prefix: the held hyperparameters' values
  SynthReport synth_;
  GateNetlist netlist_;
  std::unique_ptr<GatePowerModel> engine_;
  PrimitiveStimulus stim_;
  fs::path binary_;
  std::vector<int> alpha_bits_, factor_bits_, state_bits_;
};

// Opens the dataset for appending: an existing one's provenance is checked and its keys
// collected; a new one gets its header.
std::ofstream open_dataset(const std::string& path, const std::map<std::string, std::string>& prov,
                           std::set<std::string>& done) {
  if (fs::exists(path)) drop_torn_last_line(path);
  if (fs::exists(path) && fs::file_size(path) > 0) {  // else a new dataset (a cut left no whole line)
    const Dataset d = read_dataset(path);
    if (area_mapping_of(d.provenance) != kAreaMapping)
      fail(path, "its netlists were mapped with " + area_mapping_of(d.provenance) + ", this fsgen maps with " +
                     kAreaMapping + ": write a new dataset");
    for (const auto& [k, v] : prov)
      if (d.provenance.count(k) && d.provenance.at(k) != v && k != "yosys" && k != "verilator")
        fail(path, "provenance '" + k + "' is '" + d.provenance.at(k) + "', this run's is '" + v +
                       "': resume with the same settings or write a new dataset");
    for (const auto& p : d.points) done.insert(p.key());
  }
  return append_to_csv_dataset(path, prov, kColumns, "characterisation dataset");
}

}  // namespace

Dataset read_dataset(const std::string& path) {
  const CsvDataset csv = read_csv_dataset(path, "characterisation dataset");
  Dataset d;
  d.provenance = csv.provenance;
  d.format = csv.header == kColumnsFormat2   ? 2
             : csv.header == kColumnsFormat3 ? 3
             : csv.header == kColumnsFormat4 ? 4
                                             : kDatasetFormat;
  if (csv.header != columns_of_format(d.format))
    fail(csv.header_where, "expected the column header " + std::string(kColumns));
  for (const CsvDataset::Row& row : csv.rows) d.points.push_back(point_of(row.text, row.where, d.format));
  return d;
}

namespace {

// A training kernel on the training core of a size (PrimitiveDef::kernel_sizes): its points
// are appended together, and a run whose first point is in the dataset is done.
struct KernelRun {
  std::vector<int> h;
  size_t kernel;
  std::string first_key(const PrimitiveDef& d) const {
    CharPoint p;
    p.kind = d.kind, p.h = h, p.window = kTrainingSettleCycles;
    const TrainingKernel k = training_kernels(d.kind, h).at(kernel);
    p.zero_fraction = k.values.zero_fraction, p.seed = k.seed;
    return p.key();
  }
};

// The kernel runs of this characterisation: every training kernel of the kernel sizes it
// covers (sizes_to_run); none with --small or --no-kernel-runs (a training core's synthesis takes
// minutes, an hour on a large liberty).
std::vector<KernelRun> kernel_runs(const PrimitiveDef& d, const CharacterizeOptions& o) {
  std::vector<KernelRun> out;
  if (o.small_grid || !o.kernel_runs) return out;
  const std::vector<std::vector<int>> sizes = sizes_to_run(d, o);
  for (const auto& h : d.kernel_sizes)
    if (std::find(sizes.begin(), sizes.end(), h) != sizes.end())
      for (size_t k = 0; k < training_kernels(d.kind, h).size(); ++k) out.push_back({h, k});
  return out;
}

}  // namespace

std::vector<std::vector<int>> sizes_to_run(const PrimitiveDef& d, const CharacterizeOptions& o) {
  static const std::vector<std::vector<int>> none;
  const auto designed = o.design_sizes.find(d.kind);
  const std::vector<std::vector<int>>& candidates = o.design_sizes.empty()             ? d.sizes
                                                    : designed != o.design_sizes.end() ? designed->second
                                                                                       : none;
  std::vector<std::vector<int>> out;
  for (const auto& h : candidates)
    if ((o.max_elements == 0 || d.elements(h) <= double(o.max_elements)) &&
        (o.sizes.empty() || listed(o.sizes, hyperparameter_text(h, 'x'))))
      out.push_back(h);
  if (o.small_grid && out.size() > 2) out.resize(2);
  return out;
}

namespace {

// Every size named by --sizes is one of a selected primitive's catalog sizes.
void check_sizes(const std::vector<const PrimitiveDef*>& defs, const std::vector<std::string>& sizes) {
  std::vector<std::string> known;
  for (const auto* d : defs)
    for (const auto& h : d->sizes)
      if (!listed(known, hyperparameter_text(h, 'x'))) known.push_back(hyperparameter_text(h, 'x'));
  for (const auto& want : sizes)
    if (!listed(known, want)) {
      std::string names;
      for (const auto& k : known) names += (names.empty() ? "" : ", ") + k;
      fail("--sizes " + want, "expected a catalog size of the primitives characterised (" + names + ")");
    }
}

}  // namespace

std::vector<const PrimitiveDef*> selected_primitives(const CharacterizeOptions& o) {
  std::vector<const PrimitiveDef*> defs;
  if (o.kinds.empty())
    for (const auto& d : primitive_catalog()) defs.push_back(&d);
  else
    for (const auto& k : o.kinds) defs.push_back(&primitive_def(k));
  if (o.design_sizes.empty()) {
    check_sizes(defs, o.sizes);
    return defs;
  }
  if (!o.sizes.empty()) fail("--sizes", "expected no --sizes with --design: the design's blocks give the sizes");
  std::vector<const PrimitiveDef*> designed;
  for (const auto* d : defs)
    if (o.design_sizes.count(d->kind)) designed.push_back(d);
  return designed;
}

CharacterizeSummary characterize(const CharacterizeOptions& o, const std::string& path,
                                 const std::function<void(uint64_t, uint64_t)>& progress) {
  if (o.jobs == 0) fail("--jobs", "expected at least 1");
  const std::vector<const PrimitiveDef*> defs = selected_primitives(o);
  fs::create_directories(o.work_dir);
  const FolderLock building(o.work_dir, "fsgen characterize run");  // its sizes' builds and runs are this run's
  const Liberty lib = prepare_liberty(o.liberty, o.work_dir);
  std::set<std::string> done;
  std::ofstream out = open_dataset(path, provenance_of(o, lib), done);

  uint64_t total = 0, finished = 0;
  for (const auto* d : defs)
    total += sizes_to_run(*d, o).size() * stimulus_grid(o.small_grid, *d).size() + kernel_runs(*d, o).size();
  CharacterizeSummary sum;
  std::mutex lock;
  for (const auto* d : defs) {
    const std::vector<Stimulus> grid = stimulus_grid(o.small_grid, *d);
    for (const std::vector<int>& h : sizes_to_run(*d, o)) {
      std::vector<size_t> todo;
      for (size_t i = 0; i < grid.size(); ++i) {
        CharPoint probe;
        probe.kind = d->kind;
        probe.h = h;
        probe.toggle_rate = grid[i].toggle_rate;
        probe.zero_fraction = grid[i].zero_fraction;
        probe.enable_rate = grid[i].enable_rate;
        probe.seed = o.seed + i;
        if (done.count(probe.key())) ++sum.skipped, ++finished;
        else todo.push_back(i);
      }
      if (todo.empty()) continue;
      const SizeRun size(*d, h, lib, o);
      std::atomic<size_t> next{0};
      std::vector<std::string> errors;
      auto worker = [&] {
        for (size_t t; (t = next++) < todo.size();) {
          try {
            const CharPoint p = size.run(grid[todo[t]], todo[t]);
            std::lock_guard<std::mutex> g(lock);
            out << row_of(p) << "\n" << std::flush;
            ++sum.added;
            if (progress) progress(++finished, total);
          } catch (const std::exception& e) {
            std::lock_guard<std::mutex> g(lock);
            errors.push_back(e.what());
          }
        }
      };
      std::vector<std::thread> pool;
      for (unsigned j = 0; j < o.jobs; ++j) pool.emplace_back(worker);
      for (auto& t : pool) t.join();
      if (!errors.empty()) throw UserError(errors.front());
    }
    for (const KernelRun& run : kernel_runs(*d, o)) {
      if (done.count(run.first_key(*d))) {
        ++sum.skipped, ++finished;
        continue;
      }
      // The run's points in one write: a kill leaves them all or a torn line, never a first
      // point (the run's done mark) without the rest.
      std::string rows;
      for (const CharPoint& p : kernel_points(*d, run.h, run.kernel, o.liberty, o.work_dir)) {
        rows += row_of(p) + "\n";
        ++sum.added;
      }
      out << rows << std::flush;
      if (progress) progress(++finished, total);
    }
  }
  return sum;
}

namespace {

// The training kernel of kind at h whose operands were drawn from `seed` (a kernel point's).
size_t kernel_of_seed(const std::string& kind, const std::vector<int>& h, uint64_t seed, const std::string& where) {
  const std::vector<TrainingKernel> kernels = training_kernels(kind, h);
  std::string seeds;
  for (size_t k = 0; k < kernels.size(); ++k) {
    if (kernels[k].seed == seed) return k;
    seeds += (seeds.empty() ? "" : ", ") + std::to_string(kernels[k].seed);
  }
  fail(where, kind + " kernel point of seed " + std::to_string(seed) + ": expected the seed of one of the training kernels at " +
                  hyperparameter_text(h, 'x') + " (" + seeds + ")");
}

}  // namespace

RecountSummary recount_kernel_events(const std::string& path) {
  std::vector<std::string> lines;
  {
    std::ifstream in(path);
    if (!in) fail(path, "cannot open the characterisation dataset");
    for (std::string line; std::getline(in, line);) lines.push_back(line);
  }
  // The kernel points' lines by run (kind, size, seed), each parsed once.
  std::map<std::tuple<std::string, std::vector<int>, uint64_t>, std::vector<std::pair<size_t, CharPoint>>> runs;
  bool header_seen = false;
  for (size_t i = 0; i < lines.size(); ++i) {
    if (lines[i].empty() || lines[i].rfind("# ", 0) == 0) continue;
    if (!header_seen) {
      if (lines[i] != kColumns)
        fail(path + ":" + std::to_string(i + 1), "expected a dataset of format " + std::to_string(kDatasetFormat) +
                                                     " (the column header " + kColumns + ") to recount its events in");
      header_seen = true;
      continue;
    }
    CharPoint p = point_of(lines[i], path + ":" + std::to_string(i + 1), kDatasetFormat);
    if (!p.events.empty()) runs[{p.kind, p.h, p.seed}].emplace_back(i, std::move(p));
  }
  if (!header_seen) fail(path, "no column header: not a characterisation dataset");
  RecountSummary sum;
  for (auto& [run, points] : runs) {
    const auto& [kind, h, seed] = run;
    const std::string where = path + ":" + std::to_string(points.front().first + 1);
    const PrimitiveDef& def = primitive_def(kind);
    const std::map<uint64_t, std::vector<double>> rates =
        kernel_event_rates(def, h, kernel_of_seed(kind, h, seed, where));
    for (auto& [line, p] : points) {
      const auto at = rates.find(p.window);
      if (at == rates.end())
        fail(path + ":" + std::to_string(line + 1),
             kind + " kernel point at cycle " + std::to_string(p.window) + " of seed " + std::to_string(seed) +
                 ": expected one of the training run's " + std::to_string(rates.size()) +
                 " points (the dataset's core or kernel differs from this fsgen's)");
      p.events = at->second;
      lines[line] = row_of(p);
      ++sum.points;
    }
    ++sum.runs;
  }
  write_file_atomically(path, "characterisation dataset", [&](std::ostream& o) {
    for (const auto& l : lines) o << l << "\n";
  });
  return sum;
}

}  // namespace fsgen
