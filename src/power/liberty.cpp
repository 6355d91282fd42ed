#include "power/liberty.h"

#include <zlib.h>

#include <algorithm>
#include <cctype>
#include <cmath>
#include <cstdlib>

#include "core/error.h"
#include "core/log.h"
#include "flow/tools.h"

namespace fsgen {

namespace {

// ---- tokens ----
struct Token {
  enum Kind { kWord, kString, kPunct, kEnd } kind;
  std::string text;
  int line;
};

class Lexer {
 public:
  Lexer(const std::string& text, std::string source) : t_(text), source_(std::move(source)) {}

  Token next() {
    skip_space_and_comments();
    if (i_ >= t_.size()) return {Token::kEnd, "end of file", line_};
    const char c = t_[i_];
    if (c == '"') return string_token();
    if (std::string("(){}:;,").find(c) != std::string::npos) {
      ++i_;
      return {Token::kPunct, std::string(1, c), line_};
    }
    const size_t start = i_;
    while (i_ < t_.size() && !std::isspace(static_cast<unsigned char>(t_[i_])) &&
           std::string("(){}:;,\\\"").find(t_[i_]) == std::string::npos)
      ++i_;
    if (i_ == start) fail(where(), std::string("unexpected character '") + c + "'");
    return {Token::kWord, t_.substr(start, i_ - start), line_};
  }
  std::string where() const { return source_ + ":" + std::to_string(line_); }

 private:
  void skip_space_and_comments() {
    while (i_ < t_.size()) {
      const char c = t_[i_];
      if (c == '\n') ++line_, ++i_;
      else if (std::isspace(static_cast<unsigned char>(c)) || (c == '\\' && i_ + 1 < t_.size() && (t_[i_ + 1] == '\n' || t_[i_ + 1] == '\r')))
        ++i_;
      else if (c == '/' && i_ + 1 < t_.size() && t_[i_ + 1] == '*') {
        const size_t end = t_.find("*/", i_ + 2);
        if (end == std::string::npos) fail(where(), "unterminated comment: expected */");
        line_ += static_cast<int>(std::count(t_.begin() + i_, t_.begin() + end, '\n'));
        i_ = end + 2;
      } else if (c == '/' && i_ + 1 < t_.size() && t_[i_ + 1] == '/') {
        while (i_ < t_.size() && t_[i_] != '\n') ++i_;
      } else
        return;
    }
  }
  Token string_token() {
    const int line = line_;
    std::string out;
    for (++i_; i_ < t_.size() && t_[i_] != '"'; ++i_) {
      if (t_[i_] == '\\' && i_ + 1 < t_.size()) {  // a continuation inside a string
        ++i_;
        if (t_[i_] == '\n') ++line_;
        else out += t_[i_];
        continue;
      }
      if (t_[i_] == '\n') ++line_;
      out += t_[i_];
    }
    if (i_ >= t_.size()) fail(source_ + ":" + std::to_string(line), "unterminated string: expected a closing quote");
    ++i_;
    return {Token::kString, out, line};
  }

  const std::string& t_;
  std::string source_;
  size_t i_ = 0;
  int line_ = 1;
};

// ---- group tree ----
class Parser {
 public:
  Parser(const std::string& text, const std::string& source) : lex_(text, source) { advance(); }

  std::unique_ptr<LibertyGroup> parse_file() {
    auto root = std::make_unique<LibertyGroup>();
    root->type = "";
    std::unique_ptr<LibertyGroup> lib = statement_group_or_null(*root);
    if (!lib) fail(lex_.where(), "expected a library group, got '" + tok_.text + "'");
    if (tok_.kind != Token::kEnd) fail(lex_.where(), "expected end of file after the library group, got '" + tok_.text + "'");
    return lib;
  }

 private:
  void advance() { tok_ = lex_.next(); }
  bool is(const char* p) const { return tok_.kind == Token::kPunct && tok_.text == p; }
  void expect(const char* p) {
    if (!is(p)) fail(lex_.where(), std::string("expected '") + p + "', got '" + tok_.text + "'");
    advance();
  }
  std::string value() {
    if (tok_.kind != Token::kWord && tok_.kind != Token::kString)
      fail(lex_.where(), "expected a value, got '" + tok_.text + "'");
    std::string v = tok_.text;
    advance();
    return v;
  }

  // Parses one statement into `parent`; returns the group if the statement was a group.
  // Groups nest at most kMaxDepth deep (a liberty file has five or six levels), so that a
  // hostile file cannot exhaust the stack.
  static constexpr int kMaxDepth = 64;
  std::unique_ptr<LibertyGroup> statement_group_or_null(LibertyGroup& parent, int depth = 0) {
    if (depth > kMaxDepth) fail(lex_.where(), "groups nested deeper than " + std::to_string(kMaxDepth));
    if (tok_.kind != Token::kWord) fail(lex_.where(), "expected an attribute or group name, got '" + tok_.text + "'");
    const std::string name = tok_.text;
    const int line = tok_.line;
    advance();
    if (is(":")) {
      advance();
      std::string v = value();
      while (tok_.kind == Token::kWord || tok_.kind == Token::kString) v += " " + value();  // e.g. 1.0 + 2
      if (is(";")) advance();
      parent.simple[name] = v;
      return nullptr;
    }
    expect("(");
    std::vector<std::string> args;
    while (!is(")")) {
      args.push_back(value());
      if (is(",")) advance();
      else if (!is(")")) fail(lex_.where(), "expected ',' or ')', got '" + tok_.text + "'");
    }
    advance();
    if (!is("{")) {
      if (is(";")) advance();
      parent.complex[name] = args;
      parent.complex_all.emplace_back(name, args);
      return nullptr;
    }
    advance();
    auto g = std::make_unique<LibertyGroup>();
    g->type = name;
    g->args = args;
    g->line = line;
    while (!is("}")) {
      if (tok_.kind == Token::kEnd) fail(lex_.where(), "unexpected end of file: expected '}' closing " + name);
      auto child = statement_group_or_null(*g, depth + 1);
      if (child) g->children.push_back(std::move(child));
    }
    advance();
    if (is(";")) advance();
    return g;
  }

  Lexer lex_;
  Token tok_{};
};

// ---- units and tables ----
double number(const std::string& s, const std::string& where) {
  char* end = nullptr;
  const double v = std::strtod(s.c_str(), &end);
  if (end == s.c_str() || *end != '\0' || !std::isfinite(v)) fail(where, "expected a finite number, got '" + s + "'");
  return v;
}

// A physical quantity that cannot be negative (area, capacitance, leakage).
double non_negative(const std::string& s, const std::string& where, const std::string& name) {
  const double v = number(s, where);
  if (v < 0) fail(where, name + ": expected a non-negative number, got '" + s + "'");
  return v;
}

std::vector<double> numbers(const std::string& list, const std::string& where) {
  std::vector<double> out;
  size_t i = 0;
  while (i < list.size()) {
    while (i < list.size() && (list[i] == ',' || std::isspace(static_cast<unsigned char>(list[i])))) ++i;
    if (i >= list.size()) break;
    size_t j = i;
    while (j < list.size() && list[j] != ',' && !std::isspace(static_cast<unsigned char>(list[j]))) ++j;
    out.push_back(number(list.substr(i, j - i), where));
    i = j;
  }
  return out;
}

// A scale from "1nW", "1pf", "1ns"-style unit strings to fsgen's unit for that quantity.
double unit_scale(const std::string& unit, const std::map<std::string, double>& suffixes, const std::string& where) {
  std::string u;
  for (char c : unit)
    if (!std::isspace(static_cast<unsigned char>(c)) && c != '"') u += static_cast<char>(std::tolower(c));
  for (const auto& [suffix, scale] : suffixes)
    if (u.size() > suffix.size() && u.compare(u.size() - suffix.size(), suffix.size(), suffix) == 0)
      return number(u.substr(0, u.size() - suffix.size()), where) * scale;
  fail(where, "unknown unit '" + unit + "'");
}

struct Template {
  std::vector<double> index_1, index_2;
  bool load_first = false;  // variable_1 is the output load
};

struct Units {
  double cap_ff = 1, time_ns = 1, leak_nw = 1, energy_fj = 1;
  std::map<std::string, Template> templates;
};

// `value_scale` converts the table's values (energy or time units) to fsgen's.
LookupTable read_table(const LibertyGroup& g, const Units& u, const std::string& where, double value_scale) {
  Template t;
  if (!g.args.empty() && u.templates.count(g.args[0])) t = u.templates.at(g.args[0]);
  auto list = [&](const char* key, std::vector<double>& into) {
    auto it = g.complex.find(key);
    if (it != g.complex.end()) {
      into.clear();
      for (const auto& v : it->second) for (double x : numbers(v, where)) into.push_back(x);
    }
  };
  list("index_1", t.index_1);
  list("index_2", t.index_2);
  std::vector<double> values;
  list("values", values);
  LookupTable tab;
  const auto& slew = t.load_first ? t.index_2 : t.index_1;
  const auto& load = t.load_first ? t.index_1 : t.index_2;
  for (double s : slew) tab.slew_ns.push_back(s * u.time_ns);
  for (double l : load) tab.load_ff.push_back(l * u.cap_ff);
  const size_t n1 = std::max<size_t>(1, t.index_1.size()), n2 = std::max<size_t>(1, t.index_2.size());
  if (values.size() != n1 * n2 && !(values.size() == 1 && t.index_1.empty()))
    fail(where, "table of " + std::to_string(values.size()) + " values: expected " + std::to_string(n1 * n2));
  tab.values.resize(values.size());
  for (size_t i = 0; i < n1; ++i)
    for (size_t j = 0; j < n2 && i * n2 + j < values.size(); ++j) {
      const size_t si = t.load_first ? j : i, li = t.load_first ? i : j;
      tab.values[si * std::max<size_t>(1, load.size()) + li] = values[i * n2 + j] * value_scale;
    }
  return tab;
}

Template read_template(const LibertyGroup& g, const std::string& where) {
  Template t;
  auto var = [&](const char* k) { return g.simple.count(k) ? g.simple.at(k) : std::string(); };
  t.load_first = var("variable_1").find("capacitance") != std::string::npos;
  for (const char* k : {"index_1", "index_2"}) {
    auto it = g.complex.find(k);
    if (it == g.complex.end()) continue;
    auto& into = std::string(k) == "index_1" ? t.index_1 : t.index_2;
    for (const auto& v : it->second) for (double x : numbers(v, where)) into.push_back(x);
  }
  return t;
}

LibertyPin read_pin(const LibertyGroup& g, const Units& u, const std::string& source) {
  LibertyPin p;
  p.name = g.args.empty() ? "" : g.args[0];
  const std::string where = source + ":" + std::to_string(g.line);
  if (g.simple.count("direction")) p.output = g.simple.at("direction") == "output";
  if (g.simple.count("capacitance"))
    p.capacitance_ff = non_negative(g.simple.at("capacitance"), where, "pin capacitance") * u.cap_ff;
  if (g.simple.count("function")) p.function = g.simple.at("function");
  for (const LibertyGroup* ip : g.find("internal_power")) {
    InternalPower e;
    if (ip->simple.count("related_pin")) e.related_pin = ip->simple.at("related_pin");
    auto table = [&](const LibertyGroup* t) { return read_table(*t, u, source + ":" + std::to_string(t->line), u.energy_fj); };
    for (const LibertyGroup* t : ip->find("rise_power")) e.rise = table(t);
    for (const LibertyGroup* t : ip->find("fall_power")) e.fall = table(t);
    for (const LibertyGroup* t : ip->find("power")) e.rise = e.fall = table(t);
    p.power.push_back(std::move(e));
  }
  for (const LibertyGroup* tg : g.find("timing")) {
    for (const char* kind : {"rise_transition", "fall_transition"})
      for (const LibertyGroup* t : tg->find(kind))
        p.transitions.push_back(read_table(*t, u, source + ":" + std::to_string(t->line), u.time_ns));
    for (const char* kind : {"cell_rise", "cell_fall"})
      for (const LibertyGroup* t : tg->find(kind))
        p.delays.push_back(read_table(*t, u, source + ":" + std::to_string(t->line), u.time_ns));
  }
  return p;
}

LibertyFlop read_flop(const LibertyGroup& g, const std::string& where) {
  if (g.args.size() != 2) fail(where, "ff group: expected two state variables, as ff (IQ, IQN)");
  LibertyFlop f;
  f.state = g.args[0];
  f.state_n = g.args[1];
  auto attr = [&](const char* name) { return g.simple.count(name) ? g.simple.at(name) : std::string(); };
  f.clocked_on = attr("clocked_on");
  f.next_state = attr("next_state");
  if (f.clocked_on.empty() || f.next_state.empty()) fail(where, "ff group: expected clocked_on and next_state");
  f.clear = attr("clear");
  f.preset = attr("preset");
  auto level = [&](const char* name) {
    const std::string v = attr(name);
    return v.empty() ? 'L' : v[0];
  };
  f.both_state = level("clear_preset_var1");
  f.both_state_n = level("clear_preset_var2");
  return f;
}

// The clock gate a cell's clock_gating_integrated_cell attribute and its pins' roles
// describe; nullopt for a style fsgen does not model (a negative-edge or latch-free gate).
std::optional<LibertyClockGate> read_clock_gate(const LibertyGroup& g, const std::string& where) {
  const auto style = g.simple.find("clock_gating_integrated_cell");
  if (style == g.simple.end()) return std::nullopt;
  const std::string& s = style->second;
  if (s != "latch_posedge" && s != "latch_posedge_precontrol" && s != "latch_posedge_postcontrol") return std::nullopt;
  LibertyClockGate gate;
  gate.test_after_latch = s == "latch_posedge_postcontrol";
  for (const LibertyGroup* pg : g.find("pin")) {
    auto role = [&](const char* attr) {
      const auto it = pg->simple.find(attr);
      return it != pg->simple.end() && it->second == "true";
    };
    const std::string name = pg->args.empty() ? "" : pg->args[0];
    if (role("clock_gate_clock_pin")) gate.clock = name;
    if (role("clock_gate_enable_pin")) gate.enable = name;
    if (role("clock_gate_test_pin")) gate.test = name;
    if (role("clock_gate_out_pin")) gate.out = name;
  }
  if (gate.clock.empty() || gate.enable.empty() || gate.out.empty())
    fail(where, "clock_gating_integrated_cell \"" + s +
                    "\": expected pins with clock_gate_clock_pin, clock_gate_enable_pin and clock_gate_out_pin");
  return gate;
}

LibertyCell read_cell(const LibertyGroup& g, const Units& u, const std::string& source) {
  LibertyCell c;
  c.name = g.args.empty() ? "" : g.args[0];
  const std::string where = source + ":" + std::to_string(g.line);
  if (g.simple.count("area")) c.area_um2 = non_negative(g.simple.at("area"), where, "area");
  c.sequential = !g.find("ff").empty() || !g.find("latch").empty() || !g.find("statetable").empty();
  if (const auto ffs = g.find("ff"); ffs.size() == 1) c.flop = read_flop(*ffs[0], where);
  c.clock_gate = read_clock_gate(g, where);
  if (g.simple.count("cell_leakage_power")) {
    c.leakage_nw = non_negative(g.simple.at("cell_leakage_power"), where, "cell_leakage_power") * u.leak_nw;
  } else {
    const auto states = g.find("leakage_power");
    double sum = 0;
    for (const LibertyGroup* s : states)
      if (s->simple.count("value")) sum += non_negative(s->simple.at("value"), where, "leakage_power value");
    if (!states.empty()) c.leakage_nw = sum / states.size() * u.leak_nw;
  }
  for (const LibertyGroup* pg : g.find("pin")) {
    LibertyPin p = read_pin(*pg, u, source);
    c.pins[p.name] = std::move(p);
  }
  return c;
}

// Output pins with a function (not a constant) and no internal_power tables switch at the
// cost of their load alone: said once per library, naming a few.
void warn_of_outputs_without_internal_power(const LibertyLibrary& lib, const std::string& source) {
  std::vector<std::string> bare;
  for (const auto& [name, cell] : lib.cells)
    for (const auto& [pin, p] : cell.pins)
      if (p.output && !p.function.empty() && p.function != "1" && p.function != "0" && p.power.empty())
        bare.push_back(name + "/" + pin);  // a tie cell's constant output never switches
  if (bare.empty()) return;
  std::string shown;
  for (size_t i = 0; i < bare.size() && i < 3; ++i) shown += (i ? ", " : "") + bare[i];
  logger().warn(
      "{}: {} output pins have no internal_power tables ({}{}): their switching counts only the load they "
      "drive",
      source, bare.size(), shown, bare.size() > 3 ? ", ..." : "");
}

}  // namespace

std::vector<const LibertyGroup*> LibertyGroup::find(const std::string& child_type) const {
  std::vector<const LibertyGroup*> out;
  for (const auto& c : children)
    if (c->type == child_type) out.push_back(c.get());
  return out;
}

double LookupTable::at(double slew, double load) const {
  if (values.empty()) return 0;
  auto locate = [](const std::vector<double>& idx, double x, size_t& i, double& f) {
    i = 0;
    f = 0;
    if (idx.size() < 2) return;
    x = std::clamp(x, idx.front(), idx.back());
    while (i + 2 < idx.size() && x > idx[i + 1]) ++i;
    f = (x - idx[i]) / (idx[i + 1] - idx[i]);
  };
  size_t i, j;
  double fi, fj;
  locate(slew_ns, slew, i, fi);
  locate(load_ff, load, j, fj);
  const size_t cols = std::max<size_t>(1, load_ff.size());
  auto v = [&](size_t a, size_t b) {
    a = std::min(a, std::max<size_t>(1, slew_ns.size()) - 1);
    b = std::min(b, cols - 1);
    return values[std::min(values.size() - 1, a * cols + b)];
  };
  const double lo = v(i, j) * (1 - fj) + v(i, j + 1) * fj;
  const double hi = v(i + 1, j) * (1 - fj) + v(i + 1, j + 1) * fj;
  return lo * (1 - fi) + hi * fi;
}

namespace {

// The mean of tables at (slew, load); 0 without any.
double mean_at(const std::vector<LookupTable>& tables, double slew_ns, double load_ff) {
  if (tables.empty()) return 0;
  double sum = 0;
  for (const LookupTable& t : tables) sum += t.at(slew_ns, load_ff);
  return sum / double(tables.size());
}

}  // namespace

double LibertyPin::transition_ns(double slew_ns, double load_ff) const {
  return mean_at(transitions, slew_ns, load_ff);
}

double LibertyPin::delay_ns(double slew_ns, double load_ff) const { return mean_at(delays, slew_ns, load_ff); }

double LibertyPin::energy_fj(const std::string& related, bool rise, double slew_ns, double load_ff) const {
  double sum = 0;
  int n = 0;
  for (const InternalPower& e : power)
    if (e.related_pin == related) {
      sum += (rise ? e.rise : e.fall).at(slew_ns, load_ff);
      ++n;
    }
  return n ? sum / n : 0;
}

double WireLoad::cap_ff(size_t fanout) const {
  if (fanout == 0 || fanout_length.empty()) return 0;
  double length = 0;
  const auto& last = fanout_length.back();
  if (static_cast<int>(fanout) > last.first) {
    length = last.second + slope * double(static_cast<int>(fanout) - last.first);
  } else {
    for (const auto& [f, l] : fanout_length)
      if (static_cast<int>(fanout) <= f) {
        length = l;
        break;
      }
  }
  return cap_per_length * length;
}

const LibertyCell& LibertyLibrary::cell(const std::string& n) const {
  auto it = cells.find(n);
  if (it == cells.end()) fail("liberty " + name, "no cell '" + n + "'");
  return it->second;
}

const LibertyCell* LibertyLibrary::clock_gate_cell() const {
  const LibertyCell* smallest = nullptr;
  for (const auto& [n, c] : cells)
    if (c.clock_gate && (!smallest || c.area_um2 < smallest->area_um2)) smallest = &c;
  return smallest;
}

std::unique_ptr<LibertyGroup> parse_liberty(const std::string& text, const std::string& source) {
  return Parser(text, source).parse_file();
}

LibertyLibrary read_liberty(const std::string& text, const std::string& source) {
  const auto root = parse_liberty(text, source);
  if (root->type != "library") fail(source + ":" + std::to_string(root->line), "expected a library group, got '" + root->type + "'");
  const std::string where = source + ":" + std::to_string(root->line);
  Units u;
  auto attr = [&](const char* k) { return root->simple.count(k) ? root->simple.at(k) : std::string(); };
  if (root->complex.count("capacitive_load_unit")) {
    const auto& a = root->complex.at("capacitive_load_unit");
    if (a.size() != 2) fail(where, "capacitive_load_unit: expected (value, unit)");
    u.cap_ff = number(a[0], where) * unit_scale("1" + a[1], {{"ff", 1.0}, {"pf", 1e3}}, where);
  }
  if (!attr("time_unit").empty()) u.time_ns = unit_scale(attr("time_unit"), {{"ps", 1e-3}, {"ns", 1.0}}, where);
  if (!attr("leakage_power_unit").empty())
    u.leak_nw = unit_scale(attr("leakage_power_unit"), {{"pw", 1e-3}, {"nw", 1.0}, {"uw", 1e3}, {"mw", 1e6}}, where);
  const double volt = attr("voltage_unit").empty() ? 1.0 : unit_scale(attr("voltage_unit"), {{"mv", 1e-3}, {"v", 1.0}}, where);
  u.energy_fj = u.cap_ff * volt * volt;  // internal energy unit: capacitive_load_unit x voltage_unit^2
  for (const char* kind : {"lu_table_template", "power_lut_template"})
    for (const LibertyGroup* t : root->find(kind))
      if (!t->args.empty()) u.templates[t->args[0]] = read_template(*t, source + ":" + std::to_string(t->line));
  LibertyLibrary lib;
  lib.name = root->args.empty() ? "" : root->args[0];
  if (!attr("nom_voltage").empty()) lib.nom_voltage = number(attr("nom_voltage"), where);
  const std::string default_wl = attr("default_wire_load");
  for (const LibertyGroup* wl : root->find("wire_load")) {
    if (wl->args.empty() || wl->args[0] != default_wl) continue;
    const std::string w = source + ":" + std::to_string(wl->line);
    if (wl->simple.count("capacitance")) lib.wire_load.cap_per_length = number(wl->simple.at("capacitance"), w) * u.cap_ff;
    if (wl->simple.count("slope")) lib.wire_load.slope = number(wl->simple.at("slope"), w);
    for (const auto& [name, args] : wl->complex_all)
      if (name == "fanout_length" && args.size() == 2)
        lib.wire_load.fanout_length.emplace_back(static_cast<int>(number(args[0], w)), number(args[1], w));
    std::sort(lib.wire_load.fanout_length.begin(), lib.wire_load.fanout_length.end());
  }
  for (const LibertyGroup* c : root->find("cell")) {
    LibertyCell cell = read_cell(*c, u, source);
    lib.cells[cell.name] = std::move(cell);
  }
  if (lib.cells.empty()) fail(where, "library " + lib.name + " has no cells");
  warn_of_outputs_without_internal_power(lib, source);
  return lib;
}

std::string read_liberty_text(const std::string& path) {
  gzFile f = gzopen(path.c_str(), "rb");  // zlib reads a plain file as it is
  if (!f) fail(path, "cannot open liberty file");
  std::string text;
  char buf[1 << 16];
  int n;
  while ((n = gzread(f, buf, sizeof buf)) > 0) text.append(buf, static_cast<size_t>(n));
  const bool plain = gzdirect(f);
  gzclose(f);
  const bool gz_name = path.size() > 3 && path.compare(path.size() - 3, 3, ".gz") == 0;
  if (n < 0 || (gz_name && plain)) fail(path, "not gzip data: expected a gzip-compressed liberty file");
  return text;
}

LibertyLibrary read_liberty_file(const std::string& path) { return read_liberty(read_liberty_text(path), path); }

}  // namespace fsgen
