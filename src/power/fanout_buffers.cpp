#include "power/fanout_buffers.h"

#include <algorithm>
#include <cctype>
#include <fstream>
#include <limits>
#include <set>
#include <sstream>
#include <vector>

#include "core/error.h"
#include "core/write_file.h"
#include "power/gate_compile.h"

namespace fsgen {

namespace {

// A pin of a cell instance on a line of its own: `.PIN(expr),`.
struct PinLine {
  size_t line;
  std::string pin, expr;
};

struct Instance {
  std::string type;
  size_t module;               // index of the module it belongs to
  size_t first = 0, last = 0;  // its lines, header to `);`
  std::vector<PinLine> pins;
  std::string other;  // the text of lines that are not one pin each (a black box's concatenations)
};

// What a tree's driver feeds: an original pin (its line) or the input of a new buffer.
struct Load {
  bool buffer;
  size_t index;  // into the loads' pins, or into the module's buffers
};

struct Buffer {
  std::string input, output;
};

struct Module {
  size_t header_end = 0;  // the line closing `module name(...);`
  size_t end = 0;         // its `endmodule`
  std::vector<Buffer> buffers;
};

// The parts of the netlist the pass reads: modules, instances and their pins, by line; the
// names the ports declare and the text of the assigns (nets these name keep their drivers).
struct ParsedNetlist {
  std::vector<std::string> lines;
  std::vector<Module> modules;
  std::vector<Instance> instances;
  std::set<std::string> ports;
  std::string assigns;
};

// `.PIN(expr),` or `.PIN(expr)` after the indentation: the pin and its expression.
bool parse_pin(const std::string& line, std::string& pin, std::string& expr) {
  const size_t dot = line.find_first_not_of(' ');
  if (dot == std::string::npos || line[dot] != '.') return false;
  const size_t open = line.find('(', dot);
  size_t close = line.size();
  if (close > 0 && line[close - 1] == ',') --close;
  if (open == std::string::npos || close == 0 || line[close - 1] != ')' || close - 1 < open) return false;
  pin = line.substr(dot + 1, open - dot - 1);
  expr = line.substr(open + 1, close - 2 - open);
  return true;
}

// `TYPE NAME (` after the indentation (NAME may be an escaped identifier): the cell type.
bool parse_instance(const std::string& line, std::string& type) {
  const size_t start = line.find_first_not_of(' ');
  if (start == std::string::npos || start == 0 || line.back() != '(' || line[start] == '.') return false;
  const size_t space = line.find(' ', start);
  if (space == std::string::npos || space + 1 >= line.size() - 1) return false;
  type = line.substr(start, space - start);
  return type != "module";
}

ParsedNetlist parse_netlist(const std::string& path) {
  std::ifstream in(path);
  if (!in) fail(path, "cannot read the mapped netlist");
  ParsedNetlist n;
  std::string pin, expr, type;
  bool in_header = false, in_instance = false;
  for (std::string line; std::getline(in, line);) {
    const size_t at = n.lines.size();
    n.lines.push_back(line);
    if (line.rfind("module ", 0) == 0) {
      n.modules.push_back({});
      in_header = true;
    }
    if (in_header && line.size() >= 2 && line.compare(line.size() - 2, 2, ");") == 0) {
      n.modules.back().header_end = at;
      in_header = false;
      continue;
    }
    if (line == "endmodule" && !n.modules.empty()) n.modules.back().end = at;
    if (in_header || n.modules.empty()) continue;
    if (in_instance) {
      Instance& inst = n.instances.back();
      if (line == "  );") {
        inst.last = at;
        in_instance = false;
      } else if (parse_pin(line, pin, expr)) {
        inst.pins.push_back({at, pin, expr});
      } else {
        inst.other += line + "\n";
      }
    } else if (parse_instance(line, type)) {
      n.instances.push_back({type, n.modules.size() - 1, at, at, {}, {}});
      in_instance = true;
    } else if (line.rfind("  input ", 0) == 0 || line.rfind("  output ", 0) == 0) {
      const size_t end = line.find_last_not_of("; ");
      const size_t start = line.find_last_of(' ', end);
      n.ports.insert(line.substr(start + 1, end - start));
    } else if (line.rfind("  assign ", 0) == 0) {
      n.assigns += line + "\n";
    }
  }
  return n;
}

// A balanced tree over `loads` (each at most `max_fanout` per driver), its root on `net`;
// every pin gets its driver's net in `lines` (a pin on the root that named another net too).
void build_tree(const std::string& net, std::vector<Load> loads, size_t max_fanout, const std::vector<PinLine>& pin_of,
                ParsedNetlist& n, Module& module, const std::string& prefix, uint64_t& next_name) {
  auto connect = [&](const Load& load, const std::string& driver) {
    if (load.buffer) {
      module.buffers[load.index].input = driver;
      return;
    }
    const PinLine& p = pin_of[load.index];
    if (p.expr == driver) return;
    std::string& line = n.lines[p.line];
    const size_t at = line.find("(" + p.expr + ")");
    line.replace(at + 1, p.expr.size(), driver);
  };
  while (loads.size() > max_fanout) {
    const size_t groups = (loads.size() + max_fanout - 1) / max_fanout;
    std::vector<Load> next;
    size_t first = 0;
    for (size_t g = 0; g < groups; ++g) {
      const size_t count = loads.size() / groups + (g < loads.size() % groups ? 1 : 0);
      const std::string out = prefix + std::to_string(next_name++) + "_";
      module.buffers.push_back({"", out});
      for (size_t i = first; i < first + count; ++i) connect(loads[i], out);
      next.push_back({true, module.buffers.size() - 1});
      first += count;
    }
    loads = std::move(next);
  }
  for (const Load& load : loads) connect(load, net);
}

// A buffer cell's input and output pins.
struct BufferPins {
  const LibertyPin* in;
  const LibertyPin* out;
};

// The library's buffers: the cells whose one output's function (read as the gate-level
// simulator reads it) is their one input, by name.
std::map<std::string, BufferPins> library_buffers(const LibertyLibrary& lib) {
  std::map<std::string, BufferPins> buffers;
  for (const auto& [name, cell] : lib.cells) {
    if (cell.sequential || cell.pins.size() != 2) continue;
    BufferPins b{nullptr, nullptr};
    for (const auto& [pin_name, pin] : cell.pins) (pin.output ? b.out : b.in) = &pin;
    if (!b.in || !b.out || b.out->function.empty()) continue;
    try {
      const fsgen_gates::Table t = liberty_function_table(b.out->function, {b.in->name}, name);
      if (!t.at(0) && t.at(1)) buffers[name] = b;
    } catch (const UserError&) {
      // A function of names other than its input (a tie or isolation cell): not a buffer.
    }
  }
  return buffers;
}

// A net whose driver the pass may not move: a port's bit, a net an assign or a black box
// names, a constant.
bool is_pinned(const std::string& net, const ParsedNetlist& n, const std::set<std::string>& black_box_nets) {
  if (net.empty() || std::isdigit(static_cast<unsigned char>(net[0]))) return true;
  if (n.ports.count(net.substr(0, net.find('['))) || black_box_nets.count(net)) return true;
  return n.assigns.find(net) != std::string::npos;
}

// The nets the black boxes' pins name (their expressions' words).
std::set<std::string> black_box_nets(const ParsedNetlist& n, const LibertyLibrary& lib) {
  std::set<std::string> nets;
  for (const Instance& inst : n.instances) {
    if (lib.cells.count(inst.type)) continue;
    std::string text = inst.other;
    for (const PinLine& p : inst.pins) text += " " + p.expr + " ";
    std::istringstream words(text);
    for (std::string w; words >> w;) {
      w.erase(std::remove_if(w.begin(), w.end(), [](char c) { return c == '{' || c == '}' || c == ','; }), w.end());
      if (!w.empty()) nets.insert(w);
    }
  }
  return nets;
}

}  // namespace

const LibertyCell& fanout_buffer_cell(const LibertyLibrary& lib, size_t max_fanout) {
  std::vector<double> caps;
  for (const auto& [name, cell] : lib.cells)
    for (const auto& [pin_name, pin] : cell.pins)
      if (!pin.output && pin.capacitance_ff > 0) caps.push_back(pin.capacitance_ff);
  std::sort(caps.begin(), caps.end());
  const double load_ff = double(max_fanout) * (caps.empty() ? 0.0 : caps[caps.size() / 2]);
  const LibertyCell* best = nullptr;
  double best_ns = std::numeric_limits<double>::infinity();
  for (const auto& [name, pins] : library_buffers(lib)) {
    const LibertyCell& cell = lib.cells.at(name);
    if (pins.out->delays.empty()) continue;
    // In a tree the buffer drives typical pins at the leaves and its own inputs above them.
    const double ns =
        pins.out->delay_ns(0.05, load_ff) + pins.out->delay_ns(0.05, max_fanout * pins.in->capacitance_ff);
    if (ns < best_ns || (ns == best_ns && best && cell.area_um2 < best->area_um2)) {
      best = &cell;
      best_ns = ns;
    }
  }
  if (!best)
    fail("liberty " + lib.name, "no buffer cell (one input, one output with the input's function) for fan-out trees");
  return *best;
}

namespace {

// The synthesis' buffers whose output only cell pins read: their instances' lines dropped,
// each removed output mapped to its input in `source_of` (FanoutBuffers::removed counted).
std::vector<bool> remove_synthesis_buffers(const ParsedNetlist& n, const LibertyLibrary& lib,
                                           std::map<std::string, std::string>& source_of,
                                           std::vector<bool>& dropped_line, FanoutBuffers& result) {
  const std::set<std::string> boxed = black_box_nets(n, lib);
  const std::map<std::string, BufferPins> buffers = library_buffers(lib);
  std::vector<bool> removed(n.instances.size(), false);
  for (size_t i = 0; i < n.instances.size(); ++i) {
    const Instance& inst = n.instances[i];
    const auto buf = buffers.find(inst.type);
    if (buf == buffers.end() || inst.pins.size() != 2) continue;
    const std::string &in = buf->second.in->name, &out = buf->second.out->name;
    const PinLine& a = inst.pins[0].pin == in ? inst.pins[0] : inst.pins[1];
    const PinLine& z = inst.pins[0].pin == in ? inst.pins[1] : inst.pins[0];
    if (a.pin != in || z.pin != out || is_pinned(z.expr, n, boxed)) continue;
    source_of[z.expr] = a.expr;
    removed[i] = true;
    for (size_t l = inst.first; l <= inst.last; ++l) dropped_line[l] = true;
    result.removed[inst.type] += 1;
    result.removed_area_um2 += lib.cells.at(inst.type).area_um2;
  }
  return removed;
}

// A prefix for the trees' nets that no name of the netlist contains (one given its trees
// before has nets of the first).
std::string fresh_prefix(const ParsedNetlist& n) {
  std::string prefix = "_fanout";
  while (std::any_of(n.lines.begin(), n.lines.end(),
                     [&](const std::string& line) { return line.find(prefix) != std::string::npos; }))
    prefix = "_" + prefix;
  return prefix;
}

// The netlist's lines without the dropped ones, each module's new wires after its header and
// its tree buffers before its end.
std::string buffered_text(const ParsedNetlist& n, const std::vector<bool>& dropped_line, const LibertyCell& buf) {
  std::string buf_in, buf_out;
  for (const auto& [pin_name, pin] : buf.pins) (pin.output ? buf_out : buf_in) = pin_name;
  std::vector<const Module*> header_of(n.lines.size(), nullptr), end_of(n.lines.size(), nullptr);
  for (const Module& m : n.modules) {
    header_of[m.header_end] = &m;
    end_of[m.end] = &m;
  }
  std::ostringstream out;
  for (size_t i = 0; i < n.lines.size(); ++i) {
    if (end_of[i])
      for (const Buffer& b : end_of[i]->buffers)
        out << "  " << buf.name << " " << b.output << "buf (\n    ." << buf_in << "(" << b.input << "),\n    ."
            << buf_out << "(" << b.output << ")\n  );\n";
    if (!dropped_line[i]) out << n.lines[i] << "\n";
    if (header_of[i])
      for (const Buffer& b : header_of[i]->buffers) out << "  wire " << b.output << ";\n";
  }
  return out.str();
}

}  // namespace

FanoutBuffers rebuild_fanout_trees(const std::string& in_v, const std::string& out_v, const LibertyLibrary& lib,
                                   size_t max_fanout) {
  if (max_fanout < 2) fail("fan-out buffering", "expected a maximum fan-out of at least 2");
  ParsedNetlist n = parse_netlist(in_v);
  const LibertyCell& buf = fanout_buffer_cell(lib, max_fanout);
  FanoutBuffers result;
  result.buffer_cell = buf.name;
  std::map<std::string, std::string> source_of;  // a removed buffer's output -> its input
  std::vector<bool> dropped_line(n.lines.size(), false);
  const std::vector<bool> removed = remove_synthesis_buffers(n, lib, source_of, dropped_line, result);
  auto root_of = [&](std::string net) {  // through a chain, its first net
    for (auto it = source_of.find(net); it != source_of.end(); it = source_of.find(net)) net = it->second;
    return net;
  };

  // Every net's loads (liberty cells' inputs) by the net that now drives them.
  std::map<std::string, std::pair<size_t, std::vector<size_t>>> loads;  // net -> (module, indices into `pins`)
  std::vector<PinLine> pins;
  for (size_t i = 0; i < n.instances.size(); ++i) {
    const auto cell = lib.cells.find(n.instances[i].type);
    if (removed[i] || cell == lib.cells.end()) continue;
    for (const PinLine& p : n.instances[i].pins) {
      const auto pin = cell->second.pins.find(p.pin);
      if (pin == cell->second.pins.end() || pin->second.output) continue;
      auto& l = loads[root_of(p.expr)];
      l.first = n.instances[i].module;
      l.second.push_back(pins.size());
      pins.push_back(p);
    }
  }
  const std::string prefix = fresh_prefix(n);
  uint64_t next_name = 0;
  for (const auto& [net, l] : loads) {
    std::vector<Load> tree_loads;
    for (size_t i : l.second) tree_loads.push_back({false, i});
    const bool constant = std::isdigit(static_cast<unsigned char>(net[0]));  // rewired, never treed
    Module& module = n.modules[l.first];
    const size_t before = module.buffers.size();
    build_tree(net, tree_loads, constant ? tree_loads.size() : max_fanout, pins, n, module, prefix, next_name);
    if (module.buffers.size() > before) result.nets += 1;
    result.buffers += module.buffers.size() - before;
  }
  result.area_um2 = double(result.buffers) * buf.area_um2;
  write_text_file(out_v, buffered_text(n, dropped_line, buf));
  return result;
}

}  // namespace fsgen
