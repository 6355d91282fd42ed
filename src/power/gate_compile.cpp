#include "power/gate_compile.h"

#include <algorithm>
#include <cctype>
#include <map>
#include <memory>

#include "core/error.h"

namespace fsgen {

namespace {

// A recursive-descent parser of one liberty function, evaluated for one assignment of its
// variables at a time (a cell has a handful of pins: its table is at most a few hundred
// evaluations).
class FunctionParser {
 public:
  FunctionParser(const std::string& text, const std::vector<std::string>& vars, const std::string& where)
      : text_(text), vars_(vars), where_(where) {}

  bool value(uint32_t assignment) {
    assignment_ = assignment;
    at_ = 0;
    const bool v = disjunction();
    skip_space();
    if (at_ != text_.size()) error("unexpected '" + text_.substr(at_, 1) + "'");
    return v;
  }

 private:
  [[noreturn]] void error(const std::string& what) const {
    fail(where_, "function \"" + text_ + "\": " + what + " at character " + std::to_string(at_ + 1));
  }
  void skip_space() {
    while (at_ < text_.size() && std::isspace(static_cast<unsigned char>(text_[at_]))) ++at_;
  }
  bool accept(char c) {
    skip_space();
    if (at_ < text_.size() && text_[at_] == c) return ++at_, true;
    return false;
  }
  // Whether a factor starts here (an and by juxtaposition: "A B").
  bool factor_follows() {
    skip_space();
    if (at_ >= text_.size()) return false;
    const char c = text_[at_];
    return c == '(' || c == '!' || std::isalnum(static_cast<unsigned char>(c)) || c == '_';
  }
  bool disjunction() {
    bool v = conjunction();
    while (accept('|') || accept('+')) v = conjunction() || v;
    return v;
  }
  bool conjunction() {
    bool v = exclusive();
    for (;;) {
      if (accept('&') || accept('*') || factor_follows())
        v = exclusive() && v;
      else
        return v;
    }
  }
  bool exclusive() {
    bool v = unary();
    while (accept('^')) v = unary() != v;
    return v;
  }
  bool unary() {
    if (accept('!')) return !unary();
    bool v = primary();
    while (accept('\'')) v = !v;
    return v;
  }
  bool primary() {
    if (accept('(')) {
      const bool v = disjunction();
      if (!accept(')')) error("expected ')'");
      return v;
    }
    skip_space();
    const size_t start = at_;
    while (at_ < text_.size() && (std::isalnum(static_cast<unsigned char>(text_[at_])) || text_[at_] == '_' ||
                                  text_[at_] == '[' || text_[at_] == ']' || text_[at_] == '.'))
      ++at_;
    const std::string name = text_.substr(start, at_ - start);
    if (name.empty()) error("expected a pin name, a constant or '('");
    if (name == "0" || name == "1") return name == "1";
    const auto it = std::find(vars_.begin(), vars_.end(), name);
    if (it == vars_.end()) error("'" + name + "' is not a pin of the cell");
    return (assignment_ >> (it - vars_.begin())) & 1u;
  }

  const std::string& text_;
  const std::vector<std::string>& vars_;
  const std::string& where_;
  size_t at_ = 0;
  uint32_t assignment_ = 0;
};

// The cells' kinds as the simulator needs them: each liberty cell's input pins (the
// variables of its tables, a flop's state variables after them) and its tables.
struct CellKind {
  std::vector<std::string> inputs, outputs;
  std::vector<uint32_t> out_tables;
  bool flop = false;
  bool clock_gate = false;  // a flop of its latch, settled among the combinational cells
  int32_t clocked_on = -1, next_state = -1, clear = -1, preset = -1;
  uint8_t both_q = 0, both_qn = 0;
};

class KindCompiler {
 public:
  explicit KindCompiler(const LibertyLibrary& lib) : lib_(lib) {}
  std::vector<fsgen_gates::Table> tables;

  const CellKind& kind(const std::string& type, const std::string& instance) {
    const auto found = kinds_.find(type);
    if (found != kinds_.end()) return found->second;
    return kinds_.emplace(type, compile(lib_.cell(type), instance)).first->second;
  }

 private:
  int32_t add(const std::string& function, const std::vector<std::string>& vars, const std::string& where) {
    if (function.empty()) return -1;
    tables.push_back(liberty_function_table(function, vars, where));
    return int32_t(tables.size() - 1);
  }

  CellKind compile(const LibertyCell& cell, const std::string& instance) {
    const std::string where = "liberty cell " + cell.name + " (netlist cell " + instance + ")";
    if (cell.clock_gate) return compile_clock_gate(cell, *cell.clock_gate, where);
    if (cell.sequential && !cell.flop)
      fail(where, "a latch or state-table cell: the gate-level simulator models combinational cells and flip-flops");
    CellKind k;
    for (const auto& [name, pin] : cell.pins) (pin.output ? k.outputs : k.inputs).push_back(name);
    std::vector<std::string> vars = k.inputs;
    if (cell.flop) {
      const LibertyFlop& f = *cell.flop;
      vars.push_back(f.state);
      vars.push_back(f.state_n);
      k.flop = true;
      k.clocked_on = add(f.clocked_on, vars, where + " clocked_on");
      k.next_state = add(f.next_state, vars, where + " next_state");
      k.clear = add(f.clear, vars, where + " clear");
      k.preset = add(f.preset, vars, where + " preset");
      k.both_q = f.both_state == 'H';
      k.both_qn = f.both_state_n == 'H';
    }
    if (vars.size() > 16) fail(where, std::to_string(vars.size()) + " pins: the simulator's tables take at most 16");
    for (const auto& out : k.outputs) {
      const std::string& function = cell.pins.at(out).function;
      if (function.empty()) fail(where, "output pin " + out + " has no function");
      k.out_tables.push_back(uint32_t(add(function, vars, where + " pin " + out)));
    }
    return k;
  }

  // An integrated clock gate as the simulator's flop of its latch: the latch is open while
  // the clock is low and the simulator settles a cycle's inputs with the clock low, so the
  // state a falling clock takes is the enable the rising edge finds. Its output is a
  // function of its clock pin, which may come through buffers: it settles in the
  // combinational cells' order.
  CellKind compile_clock_gate(const LibertyCell& cell, const LibertyClockGate& g, const std::string& where) {
    CellKind k;
    for (const auto& [name, pin] : cell.pins)
      if (!pin.output) k.inputs.push_back(name);
    k.outputs = {g.out};
    std::vector<std::string> vars = k.inputs;
    vars.push_back("fsgen_latched");
    vars.push_back("fsgen_latched_n");
    const bool test_before = !g.test.empty() && !g.test_after_latch, test_after = !g.test.empty() && g.test_after_latch;
    k.flop = k.clock_gate = true;
    k.clocked_on = add("!" + g.clock, vars, where + " clock gate's latch");
    k.next_state =
        add(test_before ? "(" + g.enable + " | " + g.test + ")" : g.enable, vars, where + " clock gate's latch");
    const std::string open = test_after ? "(fsgen_latched | " + g.test + ")" : "fsgen_latched";
    k.out_tables.push_back(uint32_t(add(g.clock + " & " + open, vars, where + " pin " + g.out)));
    return k;
  }

  const LibertyLibrary& lib_;
  std::map<std::string, CellKind> kinds_;
};

fsgen_gates::Cell instance_of(const GateNetlist::Cell& c, const CellKind& k) {
  fsgen_gates::Cell out;
  for (const auto& pin : k.inputs) {
    const auto bit = c.pins.find(pin);
    const auto tied = c.tied.find(pin);
    out.in.push_back(bit != c.pins.end()                    ? bit->second
                     : tied != c.tied.end() && tied->second ? fsgen_gates::kOne
                                                            : fsgen_gates::kZero);
  }
  for (size_t i = 0; i < k.outputs.size(); ++i) {
    const auto bit = c.pins.find(k.outputs[i]);
    out.out.push_back(bit == c.pins.end() ? fsgen_gates::kUnconnected : bit->second);
    out.out_table.push_back(k.out_tables[i]);
  }
  out.flop = k.flop;
  out.clocked_on = k.clocked_on, out.next_state = k.next_state, out.clear = k.clear, out.preset = k.preset;
  out.both_q = k.both_q, out.both_qn = k.both_qn;
  return out;
}

// The combinational cells in an order that settles them in one pass: each after the cells
// that drive its inputs (Kahn's algorithm).
std::vector<size_t> evaluation_order(const std::vector<fsgen_gates::Cell>& comb, uint32_t bits,
                                     const std::vector<std::string>& names) {
  std::vector<int64_t> driver(bits, -1);
  for (size_t i = 0; i < comb.size(); ++i)
    for (int32_t b : comb[i].out)
      if (b >= 0) driver[size_t(b)] = int64_t(i);
  std::vector<size_t> waiting(comb.size(), 0);
  std::vector<std::vector<size_t>> readers(comb.size());
  for (size_t i = 0; i < comb.size(); ++i)
    for (int32_t b : comb[i].in)
      if (b >= 0 && driver[size_t(b)] >= 0) {
        ++waiting[i];
        readers[size_t(driver[size_t(b)])].push_back(i);
      }
  std::vector<size_t> order;
  for (size_t i = 0; i < comb.size(); ++i)
    if (waiting[i] == 0) order.push_back(i);
  for (size_t at = 0; at < order.size(); ++at)
    for (size_t r : readers[order[at]])
      if (--waiting[r] == 0) order.push_back(r);
  if (order.size() != comb.size()) {
    const size_t stuck =
        size_t(std::find_if(waiting.begin(), waiting.end(), [](size_t w) { return w > 0; }) - waiting.begin());
    fail("netlist cell " + names[stuck],
         "on or after a loop of combinational cells: the gate-level simulator needs none");
  }
  return order;
}

}  // namespace

fsgen_gates::Table liberty_function_table(const std::string& function, const std::vector<std::string>& vars,
                                          const std::string& where) {
  FSGEN_ASSERT(vars.size() <= 16, "a liberty function of at most 16 variables");
  fsgen_gates::Table t;
  t.vars = uint32_t(vars.size());
  t.words.assign(((size_t(1) << vars.size()) + 63) / 64, 0);
  FunctionParser parser(function, vars, where);
  for (uint32_t x = 0; x < (uint32_t(1) << vars.size()); ++x)
    if (parser.value(x)) t.words[x >> 6] |= uint64_t(1) << (x & 63);
  return t;
}

fsgen_gates::Netlist compile_gate_netlist(const GateNetlist& netlist, const LibertyLibrary& lib) {
  fsgen_gates::Netlist out;
  out.bits = uint32_t(netlist.max_bit + 1);
  for (const auto& [name, bits] : netlist.ports) {
    fsgen_gates::Port p;
    p.name = name;
    p.output = netlist.outputs.count(name) > 0;
    const auto high = netlist.tied_high.find(name);
    for (size_t i = 0; i < bits.size(); ++i)
      p.bits.push_back(bits[i] != GateNetlist::kConstantBit                 ? bits[i]
                       : high != netlist.tied_high.end() && high->second[i] ? fsgen_gates::kOne
                                                                            : fsgen_gates::kZero);
    out.ports.push_back(std::move(p));
  }
  KindCompiler kinds(lib);
  std::vector<fsgen_gates::Cell> comb;
  std::vector<std::string> comb_names;
  for (const auto& c : netlist.cells) {
    const CellKind& kind = kinds.kind(c.type, c.name);
    fsgen_gates::Cell cell = instance_of(c, kind);
    if (cell.flop && !kind.clock_gate) {
      out.cells.push_back(std::move(cell));
    } else {
      comb.push_back(std::move(cell));
      comb_names.push_back(c.name);
    }
  }
  for (size_t i : evaluation_order(comb, out.bits, comb_names)) out.cells.push_back(std::move(comb[i]));
  out.tables = std::move(kinds.tables);
  return out;
}

}  // namespace fsgen
