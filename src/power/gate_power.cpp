#include "power/gate_power.h"

#include <algorithm>
#include <cctype>
#include <cmath>
#include <map>

#include <nlohmann/json.hpp>

#include "core/error.h"
#include "core/json_file.h"

namespace fsgen {

namespace {

// A bit of a module's JSON resolved into the netlist: a net bit, or a constant's level.
struct BitRef {
  static constexpr int kUnassigned = -2;
  int bit = kUnassigned;
  bool high = false;
  bool constant() const { return bit == GateNetlist::kConstantBit; }
  bool operator==(const BitRef& o) const { return bit == o.bit && high == o.high; }
};

// The largest bit id a module's JSON uses (Yosys numbers each module's bits from 2).
int max_bit_of(const nlohmann::json& m) {
  int top = 1;
  auto scan = [&](const nlohmann::json& bits) {
    for (const auto& b : bits)
      if (b.is_number_integer()) top = std::max(top, b.get<int>());
  };
  for (const auto& [name, p] : m["ports"].items()) scan(p["bits"]);
  for (const auto& [name, net] : m["netnames"].items()) scan(net["bits"]);
  for (const auto& [name, c] : m["cells"].items())
    for (const auto& [pin, conn] : c["connections"].items()) scan(conn);
  return top;
}

// Reads Yosys' write_json netlist into a GateNetlist, the instances of the file's other
// modules (a netlist synthesised hierarchically: synthesis_slices.h) expanded in place, their
// cells and named nets prefixed with the instance's name. The top's bits keep their ids;
// an instance's inner bits get new ones above them.
class NetlistReader {
 public:
  NetlistReader(const nlohmann::json& j, const std::string& path, const std::vector<std::string>& black_boxes)
      : modules_(j["modules"]), path_(path), black_boxes_(black_boxes) {}

  GateNetlist read(const std::string& top) {
    const auto& m = modules_[top];
    n_.top = top;
    n_.max_bit = max_bit_of(m);
    std::vector<BitRef> identity(size_t(n_.max_bit) + 1);
    for (size_t b = 0; b < identity.size(); ++b) identity[b].bit = int(b);
    read_ports(m);
    add_module(m, identity, "");
    return std::move(n_);
  }

 private:
  void read_ports(const nlohmann::json& m) {
    for (const auto& [name, p] : m["ports"].items()) {
      const bool output = p["direction"] == "output";
      std::vector<int> bits;
      std::vector<bool> high;
      for (const auto& b : p["bits"]) {
        if (!b.is_number_integer() && !output)
          fail(path_, "port " + name + ": constant bit, expected a net (flatten and map first)");
        bits.push_back(b.is_number_integer() ? b.get<int>() : GateNetlist::kConstantBit);
        high.push_back(b.is_string() && b.get<std::string>() == "1");
      }
      if (std::find(high.begin(), high.end(), true) != high.end()) n_.tied_high[name] = high;
      n_.ports[name] = bits;
      if (output) n_.outputs.insert(name);
    }
  }

  // A module's bit (an id into `map`, or a constant) in the netlist; an inner bit seen first
  // gets a new id.
  BitRef resolve(const nlohmann::json& b, std::vector<BitRef>& map) {
    if (!b.is_number_integer()) return {GateNetlist::kConstantBit, b.is_string() && b.get<std::string>() == "1"};
    BitRef& r = map.at(size_t(b.get<int>()));
    if (r.bit == BitRef::kUnassigned) r.bit = ++n_.max_bit;
    return r;
  }

  void add_module(const nlohmann::json& m, std::vector<BitRef>& map, const std::string& prefix) {
    for (const auto& [name, net] : m["netnames"].items()) {
      // An instance's own names: its nets Yosys named ('$...') would cost memory in a netlist
      // of millions of cells and name no signal (each is given to a named one it computes).
      if (!prefix.empty() && name[0] == '$') continue;
      std::vector<int>& bits = n_.netnames[prefix + name];
      for (const auto& b : net["bits"])
        if (const BitRef r = resolve(b, map); !r.constant()) bits.push_back(r.bit);
    }
    for (const auto& [name, c] : m["cells"].items()) {
      const std::string type = c["type"].get<std::string>();
      if (std::find(black_boxes_.begin(), black_boxes_.end(), type) != black_boxes_.end()) continue;
      if (is_netlist_module(type))
        add_instance(prefix + name, modules_[type], c, map);
      else
        add_cell(prefix + name, type, c, map);
    }
  }

  // max_bit_of(m), scanned once a module (a slice's is instantiated C / 16 times).
  int module_max_bit(const nlohmann::json& m) {
    const auto [it, added] = max_bits_.emplace(&m, 0);
    if (added) it->second = max_bit_of(m);
    return it->second;
  }

  // A module of the netlist's own, not a liberty cell (read_liberty -lib's black boxes).
  bool is_netlist_module(const std::string& type) const {
    if (!modules_.contains(type)) return false;
    const nlohmann::json& m = modules_[type];
    return !(m.contains("attributes") && m["attributes"].contains("blackbox"));
  }

  void add_instance(const std::string& name, const nlohmann::json& sub, const nlohmann::json& c,
                    std::vector<BitRef>& map) {
    std::vector<BitRef> inner(size_t(module_max_bit(sub)) + 1);
    for (const auto& [port, p] : sub["ports"].items()) {
      const nlohmann::json& conn = c["connections"].contains(port) ? c["connections"][port] : nlohmann::json::array();
      if (conn.size() != p["bits"].size())
        fail(path_, "instance " + name + " port " + port + ": " + std::to_string(conn.size()) + " bits connected, " +
                        std::to_string(p["bits"].size()) + " expected");
      for (size_t i = 0; i < conn.size(); ++i) {
        const nlohmann::json& local = p["bits"][i];
        if (!local.is_number_integer())
          fail(path_, "instance " + name + " port " + port + ": a bit tied inside its module (expected a net)");
        const BitRef outer = resolve(conn[i], map);
        BitRef& r = inner.at(size_t(local.get<int>()));
        if (r.bit != BitRef::kUnassigned && !(r == outer))
          fail(path_, "instance " + name + " port " + port + ": two port bits are one net inside its module");
        r = outer;
      }
    }
    add_module(sub, inner, name + ".");
  }

  void add_cell(const std::string& name, const std::string& type, const nlohmann::json& c, std::vector<BitRef>& map) {
    GateNetlist::Cell cell;
    cell.name = name;
    cell.type = type;
    for (const auto& [pin, conn] : c["connections"].items()) {
      if (conn.size() != 1) fail(path_, "cell " + name + " pin " + pin + ": expected one bit (a mapped netlist)");
      const BitRef r = resolve(conn[0], map);
      if (r.constant())
        cell.tied[pin] = r.high;
      else
        cell.pins[pin] = r.bit;
      if (c.contains("port_directions") && c["port_directions"].contains(pin))
        cell.is_output[pin] = c["port_directions"][pin] == "output";
    }
    n_.cells.push_back(std::move(cell));
  }

  const nlohmann::json& modules_;
  const std::string& path_;
  const std::vector<std::string>& black_boxes_;
  std::map<const nlohmann::json*, int> max_bits_;
  GateNetlist n_;
};

}  // namespace

GateNetlist read_netlist_json(const std::string& path, const std::string& top,
                              const std::vector<std::string>& black_boxes) {
  const nlohmann::json j = read_json_file(path, "netlist");
  if (!j.contains("modules") || !j["modules"].contains(top)) fail(path, "no module '" + top + "' in the netlist");
  return NetlistReader(j, path, black_boxes).read(top);
}

GatePowerModel::GatePowerModel(const GateNetlist& netlist, const LibertyLibrary& lib, GatePowerOptions options)
    : opt_(options) {
  if (opt_.voltage <= 0) opt_.voltage = lib.nom_voltage;
  const size_t nbits = static_cast<size_t>(netlist.max_bit) + 1;
  load_ff_.assign(nbits, 0);
  per_toggle_fj_.assign(nbits, 0);
  std::vector<size_t> fanout(nbits, 0);
  // Loads: the input pins each net drives.
  for (const auto& c : netlist.cells) {
    const LibertyCell& lc = lib.cell(c.type);
    for (const auto& [pin, bit] : c.pins) {
      auto p = lc.pins.find(pin);
      if (p == lc.pins.end()) fail("netlist cell " + c.name, "pin " + pin + " is not a pin of " + c.type);
      if (!p->second.output) {
        load_ff_[bit] += p->second.capacitance_ff;
        ++fanout[bit];
      }
    }
  }
  for (size_t b = 0; b < nbits; ++b)
    load_ff_[b] += lib.wire_load.cap_ff(fanout[b]);
  // Per toggle: 1/2 C V^2 of the net, plus its driver's internal energy; input pins with
  // their own energy (clock pins) add to the net that drives them.
  const double half_v2 = 0.5 * opt_.voltage * opt_.voltage;
  switching_fj_.assign(nbits, 0);
  // A net's switching energy is its driver's: nets driven from outside the netlist (its
  // input ports) belong to the block that drives them.
  std::vector<bool> driven(nbits, false);
  for (const auto& c : netlist.cells)
    for (const auto& [pin, bit] : c.pins)
      if (lib.cell(c.type).pins.at(pin).output) driven[bit] = true;
  for (size_t b = 0; b < nbits; ++b) switching_fj_[b] = driven[b] ? half_v2 * load_ff_[b] : 0.0;
  per_toggle_fj_ = switching_fj_;
  // Slews: a driven net's is its driver's output transition at its load (from an input
  // transition of opt_.slew_ns, one stage of propagation); other nets have opt_.slew_ns.
  std::vector<double> slew(nbits, opt_.slew_ns);
  for (const auto& c : netlist.cells) {
    const LibertyCell& lc = lib.cell(c.type);
    for (const auto& [pin, bit] : c.pins) {
      const LibertyPin& p = lc.pins.at(pin);
      if (p.output && !p.transitions.empty()) slew[bit] = p.transition_ns(opt_.slew_ns, load_ff_[bit]);
    }
  }
  for (const auto& c : netlist.cells) {
    const LibertyCell& lc = lib.cell(c.type);
    leakage_mw_ += lc.leakage_nw * 1e-6;
    for (const auto& [pin, bit] : c.pins) {
      const LibertyPin& p = lc.pins.at(pin);
      if (p.power.empty()) continue;
      // Per transition of this pin's net: the mean over its arcs of the mean rise/fall
      // energy, each looked up at the slew of the arc's related input.
      double e = 0;
      for (const InternalPower& arc : p.power) {
        auto rel = c.pins.find(arc.related_pin);
        const double in_slew = arc.related_pin.empty() ? slew[bit] : rel != c.pins.end() ? slew[rel->second] : opt_.slew_ns;
        e += 0.5 * (arc.rise.at(in_slew, load_ff_[bit]) + arc.fall.at(in_slew, load_ff_[bit]));
      }
      per_toggle_fj_[bit] += e / double(p.power.size());
    }
  }
}

PowerBreakdown GatePowerModel::power(const std::vector<uint64_t>& toggles, uint64_t cycles) const {
  FSGEN_ASSERT(cycles > 0, "power over zero cycles");
  PowerBreakdown p;
  double internal_fj = 0, switching_fj = 0;
  for (size_t b = 0; b < toggles.size() && b < per_toggle_fj_.size(); ++b) {
    switching_fj += double(toggles[b]) * switching_fj_[b];
    internal_fj += double(toggles[b]) * (per_toggle_fj_[b] - switching_fj_[b]);
  }
  const double seconds = double(cycles) / (opt_.clock_mhz * 1e6);
  p.switching_mw = switching_fj * 1e-15 / seconds * 1e3;
  p.internal_mw = internal_fj * 1e-15 / seconds * 1e3;
  p.leakage_mw = leakage_mw();
  return p;
}

namespace {

// The signal a named net belongs to; "" for the nets Yosys left unnamed ("_123_").
std::string signal_of(const std::string& net) {
  const bool enumerated = net.size() > 2 && net.front() == '_' && net.back() == '_' &&
                          std::all_of(net.begin() + 1, net.end() - 1, [](char c) { return std::isdigit(uint8_t(c)); });
  if (enumerated) return "";
  if (const size_t f = net.find("$func$"); f != std::string::npos) return net.substr(0, f) + "()";
  const size_t open = net.rfind('[');
  const bool word = open != std::string::npos && net.back() == ']' && open + 2 < net.size() &&
                    std::all_of(net.begin() + long(open) + 1, net.end() - 1, [](char c) { return std::isdigit(uint8_t(c)); });
  return word ? net.substr(0, open) : net;
}

// Each net bit's signal (an index into signals, -1 for none yet): the bits of every named
// net, a bit with several names going to a port's, else to the least nested name.
struct SignalBits {
  std::vector<SignalEnergy> signals;
  std::vector<int> owner;
  std::vector<bool> own;  // a bit of the signal itself, not of the logic computing it
};
SignalBits named_bits(const GateNetlist& netlist) {
  SignalBits out;
  out.owner.assign(size_t(netlist.max_bit) + 1, -1);
  out.own.assign(out.owner.size(), false);
  std::vector<const std::pair<const std::string, std::vector<int>>*> nets;
  for (const auto& named : netlist.netnames) nets.push_back(&named);
  auto rank = [&](const std::string& net) {
    return std::make_pair(!netlist.ports.count(net), std::count(net.begin(), net.end(), '.'));
  };
  std::stable_sort(nets.begin(), nets.end(), [&](auto* a, auto* b) { return rank(a->first) < rank(b->first); });
  std::map<std::string, int> index;
  for (const auto* named : nets) {
    const std::string name = signal_of(named->first);
    if (name.empty()) continue;
    const auto [it, added] = index.emplace(name, int(out.signals.size()));
    if (added) out.signals.push_back({name});
    for (int b : named->second)
      if (out.owner[size_t(b)] < 0)
        out.owner[size_t(b)] = it->second, out.own[size_t(b)] = true, ++out.signals[size_t(it->second)].bits;
  }
  return out;
}

// Gives each unnamed net bit to the nearest named one it computes: breadth first back from
// the named bits through the cells driving them, a layer at a time.
void give_logic_to_signals(const GateNetlist& netlist, std::vector<int>& owner) {
  std::vector<int> driver(owner.size(), -1), frontier;
  for (size_t c = 0; c < netlist.cells.size(); ++c)
    for (const auto& [pin, bit] : netlist.cells[c].pins)
      if (const auto o = netlist.cells[c].is_output.find(pin); o != netlist.cells[c].is_output.end() && o->second)
        driver[size_t(bit)] = int(c);
  for (size_t b = 0; b < owner.size(); ++b)
    if (owner[b] >= 0) frontier.push_back(int(b));
  while (!frontier.empty()) {
    std::vector<int> next;
    for (int b : frontier) {
      if (driver[size_t(b)] < 0) continue;
      for (const auto& [pin, in] : netlist.cells[size_t(driver[size_t(b)])].pins)
        if (owner[size_t(in)] < 0) owner[size_t(in)] = owner[size_t(b)], next.push_back(in);
    }
    frontier.swap(next);
  }
}

// Each signal's transitions and energy over the run, its standard deviation per cycle and
// its covariance with the netlist's energy per cycle (as the variation share); bits no
// signal owns go to `other`.
void add_up_signal_energy(const std::vector<std::vector<int>>& toggled_per_cycle, const GatePowerModel& engine,
                          SignalBits& named, SignalEnergy& other) {
  const std::vector<int>& owner = named.owner;
  std::vector<SignalEnergy>& signals = named.signals;
  const size_t n = signals.size() + 1;  // the last: other
  auto at = [&](size_t i) -> SignalEnergy& { return i + 1 < n ? signals[i] : other; };
  std::vector<double> in_cycle(n, 0), squares(n, 0), with_total(n, 0);
  double total_sum = 0, total_squares = 0;
  for (const std::vector<int>& bits : toggled_per_cycle) {
    std::fill(in_cycle.begin(), in_cycle.end(), 0.0);
    double total = 0;
    for (int b : bits) {
      FSGEN_ASSERT(b >= 0 && size_t(b) < owner.size(), "a toggled bit of the netlist");
      const size_t i = owner[size_t(b)] < 0 ? n - 1 : size_t(owner[size_t(b)]);
      const double fj = engine.energy_per_toggle_fj(b);
      in_cycle[i] += fj, total += fj;
      if (named.own[size_t(b)]) ++at(i).toggles;
    }
    for (size_t i = 0; i < n; ++i) {
      at(i).fj += in_cycle[i];
      squares[i] += in_cycle[i] * in_cycle[i];
      with_total[i] += in_cycle[i] * total;
    }
    total_sum += total, total_squares += total * total;
  }
  const double cycles = double(std::max<size_t>(1, toggled_per_cycle.size()));
  const double total_mean = total_sum / cycles, total_variance = total_squares / cycles - total_mean * total_mean;
  for (size_t i = 0; i < n; ++i) {
    SignalEnergy& s = at(i);
    const double mean = s.fj / cycles;
    s.sd_fj = std::sqrt(std::max(0.0, squares[i] / cycles - mean * mean));
    // Relative to the mean energy's square: below it, the variance is rounding.
    if (total_variance > 1e-12 * total_mean * total_mean)
      s.variation_share = (with_total[i] / cycles - mean * total_mean) / total_variance;
  }
}

}  // namespace

std::vector<SignalEnergy> energy_by_signal(const GateNetlist& netlist, const GatePowerModel& engine,
                                           const std::vector<std::vector<int>>& toggled_per_cycle) {
  SignalBits named = named_bits(netlist);
  give_logic_to_signals(netlist, named.owner);
  SignalEnergy other{"(other logic)"};
  add_up_signal_energy(toggled_per_cycle, engine, named, other);
  std::vector<SignalEnergy>& signals = named.signals;
  signals.erase(std::remove_if(signals.begin(), signals.end(), [](const SignalEnergy& s) { return s.bits == 0; }),
                signals.end());  // names whose bits all went to another name
  std::sort(signals.begin(), signals.end(), [](const SignalEnergy& a, const SignalEnergy& b) { return a.fj > b.fj; });
  signals.push_back(other);
  return signals;
}

std::vector<uint64_t> uniform_toggles(const GateNetlist& netlist, const std::string& clock, double activity,
                                      uint64_t cycles) {
  std::vector<uint64_t> t(static_cast<size_t>(netlist.max_bit) + 1, static_cast<uint64_t>(activity * double(cycles)));
  auto it = netlist.ports.find(clock);
  if (it != netlist.ports.end())
    for (int b : it->second) t[b] = 2 * cycles;
  return t;
}

}  // namespace fsgen
