#include "power/fanout_buffers.h"

#include <algorithm>
#include <fstream>
#include <limits>
#include <sstream>
#include <vector>

#include "core/error.h"
#include "core/write_file.h"

namespace fsgen {

namespace {

// A pin of a cell instance on a line of its own: `.PIN(expr),`.
struct PinLine {
  size_t line;
  std::string pin, expr;
};

struct Instance {
  std::string type;
  size_t module;  // index of the module it belongs to
  std::vector<PinLine> pins;
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

// The parts of the netlist the pass reads: modules, instances and their pins, by line.
struct ParsedNetlist {
  std::vector<std::string> lines;
  std::vector<Module> modules;
  std::vector<Instance> instances;
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
    if (in_instance && parse_pin(line, pin, expr)) {
      n.instances.back().pins.push_back({at, pin, expr});
    } else if (parse_instance(line, type)) {
      n.instances.push_back({type, n.modules.size() - 1, {}});
      in_instance = true;
    } else {
      in_instance = false;
    }
  }
  return n;
}

// A balanced tree over `loads` (each at most `max_fanout` per driver), its root on `net`;
// the pins it moves get their new net in `lines`.
void build_tree(const std::string& net, std::vector<Load> loads, size_t max_fanout, const std::vector<PinLine>& pin_of,
                ParsedNetlist& n, Module& module, uint64_t& next_name) {
  auto connect = [&](const Load& load, const std::string& driver) {
    if (load.buffer) {
      module.buffers[load.index].input = driver;
      return;
    }
    const PinLine& p = pin_of[load.index];
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
      const std::string out = "_fanout" + std::to_string(next_name++) + "_";
      module.buffers.push_back({"", out});
      for (size_t i = first; i < first + count; ++i) connect(loads[i], out);
      next.push_back({true, module.buffers.size() - 1});
      first += count;
    }
    loads = std::move(next);
  }
  for (const Load& load : loads)
    if (load.buffer) connect(load, net);
}

// A liberty function without its quotes, spaces and parentheses: "(A)" is "A".
std::string bare_function(std::string s) {
  s.erase(std::remove_if(s.begin(), s.end(), [](char c) { return c == '"' || c == ' ' || c == '(' || c == ')'; }),
          s.end());
  return s;
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
  for (const auto& [name, cell] : lib.cells) {
    if (cell.sequential || cell.pins.size() != 2) continue;
    const LibertyPin *in = nullptr, *out = nullptr;
    for (const auto& [pin_name, pin] : cell.pins) (pin.output ? out : in) = &pin;
    if (!in || !out || bare_function(out->function) != in->name || out->transitions.empty()) continue;
    // In a tree the buffer drives typical pins at the leaves and its own inputs above them.
    const double ns = out->transition_ns(0.05, load_ff) + out->transition_ns(0.05, max_fanout * in->capacitance_ff);
    if (ns < best_ns || (ns == best_ns && best && cell.area_um2 < best->area_um2)) {
      best = &cell;
      best_ns = ns;
    }
  }
  if (!best)
    fail("liberty " + lib.name, "no buffer cell (one input, one output with the input's function) for fan-out trees");
  return *best;
}

FanoutBuffers buffer_register_fanout(const std::string& in_v, const std::string& out_v, const LibertyLibrary& lib,
                                     size_t max_fanout) {
  if (max_fanout < 2) fail("fan-out buffering", "expected a maximum fan-out of at least 2");
  ParsedNetlist n = parse_netlist(in_v);
  const LibertyCell& buf = fanout_buffer_cell(lib, max_fanout);
  std::string buf_in, buf_out;
  for (const auto& [pin_name, pin] : buf.pins) (pin.output ? buf_out : buf_in) = pin_name;

  // Each net's driver (a sequential cell's output) and its loads (liberty cells' inputs).
  std::map<std::string, size_t> register_module;     // net -> module of its flip-flop
  std::map<std::string, std::vector<size_t>> loads;  // net -> indices into `pins`
  std::vector<PinLine> pins;
  for (const Instance& inst : n.instances) {
    const auto cell = lib.cells.find(inst.type);
    if (cell == lib.cells.end()) continue;  // a black box
    for (const PinLine& p : inst.pins) {
      const auto pin = cell->second.pins.find(p.pin);
      if (pin == cell->second.pins.end()) continue;
      if (pin->second.output) {
        if (cell->second.sequential) register_module[p.expr] = inst.module;
      } else {
        loads[p.expr].push_back(pins.size());
        pins.push_back(p);
      }
    }
  }
  FanoutBuffers result;
  result.buffer_cell = buf.name;
  uint64_t next_name = 0;
  for (const auto& [net, module] : register_module) {
    const auto l = loads.find(net);
    if (l == loads.end() || l->second.size() <= max_fanout) continue;
    std::vector<Load> tree_loads;
    for (size_t i : l->second) tree_loads.push_back({false, i});
    const size_t before = n.modules[module].buffers.size();
    build_tree(net, tree_loads, max_fanout, pins, n, n.modules[module], next_name);
    result.nets += 1;
    result.buffers += n.modules[module].buffers.size() - before;
  }
  result.area_um2 = double(result.buffers) * buf.area_um2;

  std::ostringstream out;
  std::vector<const Module*> header_of(n.lines.size(), nullptr), end_of(n.lines.size(), nullptr);
  for (const Module& m : n.modules) {
    header_of[m.header_end] = &m;
    end_of[m.end] = &m;
  }
  for (size_t i = 0; i < n.lines.size(); ++i) {
    if (end_of[i])
      for (size_t b = 0; b < end_of[i]->buffers.size(); ++b)
        out << "  " << buf.name << " " << end_of[i]->buffers[b].output << "buf (\n    ." << buf_in << "("
            << end_of[i]->buffers[b].input << "),\n    ." << buf_out << "(" << end_of[i]->buffers[b].output
            << ")\n  );\n";
    out << n.lines[i] << "\n";
    if (header_of[i])
      for (const Buffer& b : header_of[i]->buffers) out << "  wire " << b.output << ";\n";
  }
  write_text_file(out_v, out.str());
  return result;
}

}  // namespace fsgen
