// A liberty (.lib) reader of fsgen's own: the parts the power and area flows use.
//
// parse_liberty() reads the whole group tree (any liberty), then library() extracts
// cells with area, leakage, pins (direction, capacitance, function) and internal power
// tables, converted to fsgen's units: um^2, fF, fJ, nW, ns. State-dependent tables
// (`when`) are averaged over their states with equal weight; a cell's leakage is its
// cell_leakage_power, or the mean of its state-dependent leakage_power groups.
#pragma once
#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace fsgen {

// One group of the liberty syntax: `type (args) { attributes; children }`.
struct LibertyGroup {
  std::string type;
  std::vector<std::string> args;
  std::map<std::string, std::string> simple;                      // name : value ;
  std::map<std::string, std::vector<std::string>> complex;        // name (v, v, ...) ; the last if repeated
  std::vector<std::pair<std::string, std::vector<std::string>>> complex_all;  // every one, in order
  std::vector<std::unique_ptr<LibertyGroup>> children;
  int line = 0;
  std::vector<const LibertyGroup*> find(const std::string& child_type) const;
};

// A lookup table over (input transition, output load), in ns and fF whatever the
// variable order of its template; one-dimensional tables ignore the missing variable.
struct LookupTable {
  std::vector<double> slew_ns, load_ff;  // breakpoints (one of them may be empty)
  std::vector<double> values;            // row-major over slew, then load
  double at(double slew_ns, double load_ff) const;  // bilinear, clamped to the breakpoints
  bool empty() const { return values.empty(); }
};

// Internal energy of one arc (or of an input pin on its own), fJ per transition. Cells
// with state-dependent (`when`) groups have one entry per state.
struct InternalPower {
  std::string related_pin;  // empty for an input pin's own energy
  LookupTable rise, fall;
};

struct LibertyPin {
  std::string name;
  bool output = false;
  double capacitance_ff = 0;
  std::string function;
  std::vector<InternalPower> power;
  std::vector<LookupTable> transitions;  // output pins: rise and fall transition tables of every arc, ns
  std::vector<LookupTable> delays;       // output pins: cell_rise and cell_fall tables of every arc, ns
  // Mean output transition over the arcs, ns (0 without timing).
  double transition_ns(double slew_ns, double load_ff) const;
  // Mean delay over the arcs, ns (0 without timing).
  double delay_ns(double slew_ns, double load_ff) const;
  // Mean over the entries for `related` (their states) of the rise or fall energy, fJ.
  double energy_fj(const std::string& related, bool rise, double slew_ns, double load_ff) const;
};

// A flip-flop's ff group: the two state variables it names (IQ, IQN) and its functions of
// the cell's pins (next_state also of the state variables); clear and preset empty when
// the flop has none. clear_and_preset: the state variables' values ('L', 'H') while both
// are active.
struct LibertyFlop {
  std::string state, state_n;
  std::string clocked_on, next_state, clear, preset;
  char both_state = 'L', both_state_n = 'L';
};

// An integrated clock-gating cell (clock_gating_integrated_cell "latch_posedge" and its
// "_precontrol" and "_postcontrol" forms): its output is the clock AND the enable latched
// while the clock is low; a test pin is ORed with the enable before the latch (precontrol)
// or after it (postcontrol). Its pins by their clock_gate_*_pin attributes; test empty
// without one.
struct LibertyClockGate {
  std::string clock, enable, test, out;
  bool test_after_latch = false;
};

struct LibertyCell {
  std::string name;
  double area_um2 = 0;
  double leakage_nw = 0;
  bool sequential = false;
  std::optional<LibertyFlop> flop;  // an ff group (a latch or statetable cell has none)
  std::optional<LibertyClockGate> clock_gate;
  std::map<std::string, LibertyPin> pins;
};

// The library's default wire-load model: wire capacitance from a net's fanout.
struct WireLoad {
  double cap_per_length = 0;                       // capacitance per unit length, fF
  std::vector<std::pair<int, double>> fanout_length;  // (fanout, length), ascending
  double slope = 0;                                // length per fanout beyond the table
  double cap_ff(size_t fanout) const;              // 0 without a model
};

struct LibertyLibrary {
  std::string name;
  double nom_voltage = 0;
  WireLoad wire_load;  // default_wire_load, if the library names one
  std::map<std::string, LibertyCell> cells;
  const LibertyCell& cell(const std::string& name) const;  // UserError if absent
  // The smallest integrated clock-gating cell, nullptr if the library has none.
  const LibertyCell* clock_gate_cell() const;
};

// Parses liberty text; `source` names it in errors ("file:line: ...").
std::unique_ptr<LibertyGroup> parse_liberty(const std::string& text, const std::string& source);
LibertyLibrary read_liberty(const std::string& text, const std::string& source);
LibertyLibrary read_liberty_file(const std::string& path);  // .lib or .lib.gz
// The text of a .lib file, or of a .lib.gz file decompressed (UserError if it is not gzip).
std::string read_liberty_text(const std::string& path);

}  // namespace fsgen
