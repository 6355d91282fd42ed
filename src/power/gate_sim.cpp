#include "power/gate_sim.h"

#include <algorithm>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <functional>
#include <map>
#include <sstream>

#include "blocks/registry.h"
#include "core/csv.h"
#include "core/error.h"
#include "core/write_file.h"
#include "flow/tools.h"
#include "power/gate_compile.h"
#include "power/liberty.h"
#include "power/testbench_sources.h"

namespace fsgen {

namespace fs = std::filesystem;

namespace {

// A run of `cycles` cycles of the netlist in which no net bit has toggled yet.
GateActivity quiet_activity(const GateNetlist& n, uint64_t cycles) {
  GateActivity a;
  a.cycles = cycles;
  a.toggles.assign(static_cast<size_t>(n.max_bit) + 1, 0);
  a.toggled_per_cycle.assign(cycles, {});
  return a;
}

// One transition of net bit `bit` in cycle c.
void count_toggle(GateActivity& a, uint64_t c, int bit) {
  ++a.toggles[size_t(bit)];
  a.toggled_per_cycle[c].push_back(bit);
}

std::string cell_models_path(const Liberty& lib, const std::string& dir) {
  return (fs::path(dir) / ("cells_" + lib.name + ".v")).string();
}

// Zero-delay Verilog models of the liberty's cells (Yosys: read_liberty + write_verilog).
std::string write_cell_models(const Liberty& lib, const std::string& dir) {
  const std::string out = cell_models_path(lib, dir);
  const CommandResult r = run_command(shell_quote(require_tool("yosys")) + " -q -p " +
                                      shell_quote("read_liberty -ignore_miss_func " + lib.path + "; write_verilog -noattr " + out));
  if (r.status != 0) fail("yosys (cell models of " + lib.name + ")", r.output);
  return out;
}


bool listed(const std::vector<std::string>& names, const std::string& n) {
  return std::find(names.begin(), names.end(), n) != names.end();
}

// Each 32-bit word of `port` (one Q0.15 factor per row) drawn in the first reset cycle
// (unless factor_share is 0: every factor stays 0) and then, every cycle after reset,
// redrawn with probability factor_share: 1.0 (32768) with probability one half, else uniform
// in [0, 1) (PrimitiveStimulus::factor_port).
std::string redraw_factors(const std::string& port, size_t width) {
  std::ostringstream o;
  const size_t words = (width + 31) / 32;
  o << "    for (int w = 0; w < " << words << "; ++w)\n"
    << "      if ((c == 0 && factor_share > 0) || (c >= " << kResetCycles << " && factor_draw(rng))) {\n"
    << "        const uint32_t f = keep_factor(rng) ? 32768u : factor_of(rng);\n";
  if (width > 64) o << "        top->" << port << "[w] = f;\n";
  else
    o << "        top->" << port << " = (uint64_t(top->" << port << ") & ~(uint64_t(0xFFFFFFFFu) << (32 * w))) | uint64_t(f) << (32 * w);\n";
  o << "      }\n";
  return o.str();
}

// One cycle of random stimulus (PrimitiveStimulus' comment).
std::string random_ports(const GateNetlist& n, const PrimitiveStimulus& s) {
  std::ostringstream o;
  o << "    bool any = false;\n";
  if (!s.factor_port.empty())
    o << "    const bool filling = c >= " << kResetCycles << " && c < " << kResetCycles
      << " + fill;  // dense operands, whatever the rate and zero fraction\n";
  const auto side = std::find(s.enables.begin(), s.enables.end(), s.side_enable);
  const bool qualifier = !s.side_enable.empty() && side == s.enables.end();
  FSGEN_ASSERT(s.side_enable.empty() || qualifier || (s.enables.size() == 2 && !s.enable_of.empty()),
               "a random driver's side enable is one of two enables driven one at a time, or qualifies the enable");
  if (!s.side_enable.empty() && !qualifier)  // the side enable with its share, else the other
    o << "    const bool on = c >= " << kResetCycles << " && enable(rng);\n"
      << "    const bool side_on = on && side_draw(rng);\n"
      << "    const int which = !on ? -1 : side_on ? " << (side - s.enables.begin()) << " : "
      << (side == s.enables.begin() ? 1 : 0) << ";\n    side += side_on;\n";
  else if (!s.enable_of.empty())  // one enable at a time, drawn uniformly in an enabled cycle
    o << "    const int which = c >= " << kResetCycles << " && enable(rng) ? int(std::uniform_int_distribution<int>(0, "
      << s.enables.size() - 1 << ")(rng)) : -1;\n";
  for (const auto& [port, bits] : n.ports) {
    const auto e = std::find(s.enables.begin(), s.enables.end(), port);
    if (port == s.reset_n) o << "    top->" << port << " = c >= " << kResetCycles << ";\n";
    else if (e != s.enables.end() && !s.enable_of.empty())
      o << "    top->" << port << " = which == " << (e - s.enables.begin()) << ";\n    any = any || top->" << port << ";\n";
    else if (e != s.enables.end())
      o << "    top->" << port << " = c >= " << kResetCycles << " && (" << (s.factor_port.empty() ? "" : "filling || ")
        << "enable(rng));\n    any = any || top->" << port << ";\n";
    else if (listed(s.held_low, port) && bits.size() > 64)
      o << "    for (int w = 0; w < " << (bits.size() + 31) / 32 << "; ++w) top->" << port << "[w] = 0;\n";
    else if (listed(s.held_low, port)) o << "    top->" << port << " = 0;\n";
  }
  // The fill's cycles set up the state the measured ones start from (characterize.cpp,
  // SizeRun::set_up_cycles): not counted.
  const std::string counted = s.factor_port.empty() ? "" : " && !filling";
  o << "    enabled += any" << counted << ";\n";
  if (qualifier)
    o << "    top->" << s.side_enable << " = any && side_draw(rng);\n    side += top->" << s.side_enable << counted << ";\n";
  o << "    if (any) {\n";
  for (const auto& [port, bits] : n.ports)
    if (port != s.clock && port != s.reset_n && !n.outputs.count(port) && !listed(s.enables, port) && !listed(s.held_low, port) &&
        port != s.side_enable && port != s.factor_port) {
      const auto tied = s.enable_of.find(port);
      const auto counter = s.counters.find(port);
      const std::string when = tied == s.enable_of.end() ? "" : "    if (top->" + tied->second + ")\n";
      if (counter != s.counters.end())
        o << when << "      top->" << port << " = (top->" << port << " + 1) % " << counter->second << ";\n";
      else if (s.factor_port.empty()) o << when << drive_data_port(port, bits.size());
      else o << when << drive_data_port(port, bits.size(), "(filling ? fill_flip(rng) : flip(rng))", "filling");
    }
  o << "    }\n";
  if (!s.factor_port.empty()) o << redraw_factors(s.factor_port, n.ports.at(s.factor_port).size());
  return o.str();
}

}  // namespace

namespace {

// The C++ type of a port as Verilator declares it (CData, SData, IData, QData, VlWide), so
// that a driver's `top->port` statements read the same on the gate-level simulator.
std::string port_type(size_t bits) {
  return bits <= 8    ? "uint8_t"
         : bits <= 16 ? "uint16_t"
         : bits <= 32 ? "uint32_t"
         : bits <= 64 ? "uint64_t"
                      : "uint32_t";
}

// The testbench's `top`: the netlist's ports as members and eval(), which writes the inputs
// into the gate-level simulator, evaluates and reads the outputs back.
std::string top_class(const GateNetlist& n) {
  std::ostringstream o, in, out;
  o << "struct Top {\n  fsgen_gates::Simulator fsgen_sim;\n";
  size_t k = 0;
  for (const auto& [port, bits] : n.ports) {
    o << "  " << port_type(bits.size()) << " " << port;
    if (bits.size() > 64) o << "[" << (bits.size() + 31) / 32 << "]";
    o << " = {};\n";
    (n.outputs.count(port) ? out : in) << "    fsgen_sim." << (n.outputs.count(port) ? "read_port" : "write_port")
                                       << "(fsgen_port[" << k << "], &" << port << ", sizeof " << port << ");\n";
    ++k;
  }
  o << "  int fsgen_port[" << std::max<size_t>(k, 1) << "] = {};\n"
    << "  explicit Top(const fsgen_gates::Netlist& n) : fsgen_sim(n) {\n";
  k = 0;
  for (const auto& [port, bits] : n.ports) o << "    fsgen_port[" << k++ << "] = fsgen_sim.port(\"" << port << "\");\n";
  o << "  }\n  void eval() {\n" << in.str() << "    fsgen_sim.eval();\n" << out.str() << "  }\n};\n";
  return o.str();
}

// The testbench's preamble: the simulator, the netlist read from `netlist_file`, and the
// per-cycle toggle log (toggles.bin: per cycle a count, then that many net bits, uint32).
std::string testbench_head(const GateNetlist& n, const std::string& netlist_file) {
  return "#include <cstdint>\n#include <cstdio>\n#include <cstdlib>\n#include <fstream>\n#include <random>\n"
         "#include \"gate_engine.h\"\n" +
         top_class(n) +
         "struct ToggleLog {\n  std::FILE* f = std::fopen(\"toggles.bin\", \"wb\");\n  std::vector<uint32_t> cycle;\n"
         "  void end_cycle() {\n    const uint32_t k = uint32_t(cycle.size());\n    std::fwrite(&k, 4, 1, f);\n"
         "    std::fwrite(cycle.data(), 4, k, f);\n    cycle.clear();\n  }\n  ~ToggleLog() { std::fclose(f); }\n};\n"
         "Top* load_top() {\n  std::ifstream in(\"" +
         netlist_file + "\");\n  return new Top(fsgen_gates::Netlist::read(in));\n}\n";
}

}  // namespace

std::string gate_testbench_text(const GateNetlist& n, const PrimitiveStimulus& s, const std::string& netlist_file) {
  const TestbenchDriver* driver = s.driver.empty() ? nullptr : &testbench_driver(s.driver);
  TestbenchPorts ports;
  for (const auto& [port, bits] : n.ports) ports[port] = bits.size();
  std::ostringstream o;
  o << "// Generated by fsgen: stimulus for the gate-level simulation of " << n.top << ".\n"
    << testbench_head(n, netlist_file)
    << "// Arguments: cycles, toggle rate, seed, zero fraction, enable rate, side share, factor share (one build\n"
    << "// serves every stimulus), then the held settings.\n"
    << (driver ? driver->helpers : "") << "int main(int argc, char** argv) {\n  if (argc < 8) return 2;\n"
    << "  const uint64_t cycles = std::strtoull(argv[1], nullptr, 10);\n"
    << "  const double rate = std::strtod(argv[2], nullptr);\n"
    << "  const uint64_t seed = std::strtoull(argv[3], nullptr, 10);\n"
    << "  const double zeros = std::strtod(argv[4], nullptr);\n"
    << "  const double enable_rate = std::strtod(argv[5], nullptr);\n"
    << "  const double side_share = std::strtod(argv[6], nullptr);\n"
    << "  const double factor_share = std::strtod(argv[7], nullptr);\n"
    << "  Top* top = load_top();\n  ToggleLog log;\n  if (!log.f) return 4;\n"
    << "  std::mt19937_64 rng(seed);\n"
    << "  std::bernoulli_distribution flip(rate), zero(zeros), enable(enable_rate), side_draw(side_share);\n"
    << "  uint64_t enabled = 0, side = 0, zero_bytes = 0, data_bytes = 0;\n";
  if (!s.factor_port.empty())
    o << "  std::bernoulli_distribution keep_factor(0.5), factor_draw(factor_share), fill_flip(0.5);\n"
      << "  std::uniform_int_distribution<uint32_t> factor_of(0, 32767);\n  constexpr uint64_t fill = " << kFactorFillCycles
      << ";\n";
  if (driver)
    o << driver->declarations(ports) << "  for (uint64_t c = 0; c < cycles; ++c) {\n" << driver->cycle(ports);
  else
    o << "  for (uint64_t c = 0; c < cycles; ++c) {\n" << random_ports(n, s);
  o << "    top->" << s.clock << " = 0;\n    top->eval();\n    top->fsgen_sim.sample(log.cycle);\n";
  if (driver && driver->settled) o << driver->settled();
  o << "    top->" << s.clock
    << " = 1;\n    top->eval();\n    top->fsgen_sim.sample(log.cycle);\n    log.end_cycle();\n  }\n"
    << "  delete top;\n"
    << "  std::printf(\"enabled %llu side %llu zero_bytes %llu data_bytes %llu\\n\", (unsigned long long)enabled,\n"
    << "              (unsigned long long)side, (unsigned long long)zero_bytes, (unsigned long long)data_bytes);\n"
    << "  return 0;\n}\n";
  return o.str();
}

namespace {

// A testbench that drives the input ports from stimulus.bin (uint64 cycles, then per
// cycle every port's 32-bit words in the order given) and toggles the clock. Before them,
// two cycles with the reset port low (if the netlist has it) and not traced: the RTL was
// reset before the recorded cycles, and a synthesised FSM's state encoding (Yosys
// recodes them) need not start where the simulator's zeroed flip-flops are.
std::string replay_testbench(const GateNetlist& n, const PortWaveforms& w, const std::string& clock,
                             const std::string& reset_n) {
  std::ostringstream o;
  o << "// Generated by fsgen: recorded stimulus replayed into the gate-level netlist of " << n.top << ".\n"
    << "#include <cstdint>\n#include <cstdio>\n#include <vector>\n#include \"V" << n.top << ".h\"\n"
    << "#include \"verilated.h\"\n#include \"verilated_vcd_c.h\"\n"
    << "int main() {\n  FILE* f = std::fopen(\"stimulus.bin\", \"rb\");\n  if (!f) return 2;\n"
    << "  uint64_t cycles = 0;\n  if (std::fread(&cycles, 8, 1, f) != 1) return 2;\n"
    << "  std::vector<uint32_t> v(" << w.words_per_cycle() << ");\n"
    << "  Verilated::traceEverOn(true);\n"
    << "  auto* top = new V" << n.top << ";\n  VerilatedVcdC vcd;\n  top->trace(&vcd, 1);\n";
  if (n.ports.count(reset_n))
    o << "  top->" << reset_n << " = 0;\n"
      << "  for (int r = 0; r < 2; ++r) {\n    top->" << clock << " = 0;\n    top->eval();\n    top->" << clock
      << " = 1;\n    top->eval();\n  }\n";
  o << "  vcd.open(\"gates.vcd\");\n"
    << "  for (uint64_t c = 0; c < cycles; ++c) {\n"
    << "    if (std::fread(v.data(), 4, v.size(), f) != v.size()) return 3;\n";
  size_t at = 0;
  for (const auto& [port, width] : w.ports) {
    const size_t words = (width + 31) / 32;
    if (!n.ports.count(port)) {
      at += words;
      continue;
    }
    if (width <= 32) o << "    top->" << port << " = v[" << at << "];\n";
    else if (width <= 64) o << "    top->" << port << " = uint64_t(v[" << at + 1 << "]) << 32 | v[" << at << "];\n";
    else o << "    for (int i = 0; i < " << words << "; ++i) top->" << port << "[i] = v[" << at << " + i];\n";
    at += words;
  }
  o << "    top->" << clock << " = 0;\n    top->eval();\n    vcd.dump(2 * c);\n"
    << "    top->" << clock << " = 1;\n    top->eval();\n    vcd.dump(2 * c + 1);\n  }\n"
    << "  vcd.close();\n  top->final();\n  delete top;\n  std::fclose(f);\n  return 0;\n}\n";
  return o.str();
}

// Reads a VCD: per net bit of the netlist's top scope, its transitions per cycle (VCD
// time t belongs to cycle t / 2).
// One pass over a VCD: each variable declared (with its scope path), each time stamp, and
// each value change (bits MSB first, possibly shorter than the variable: leading zeros).
struct VcdHandlers {
  std::function<void(const std::vector<std::string>& scope, uint32_t width, const std::string& code,
                     const std::string& name)> var;
  std::function<void(uint64_t time)> time;
  std::function<void(const std::string& code, const std::string& bits)> value;
};

void read_vcd_events(const std::string& path, const VcdHandlers& h) {
  std::ifstream in(path);
  if (!in) fail(path, "cannot open VCD");
  std::vector<std::string> scope;
  std::string line;
  bool header = true;
  uint64_t n = 0;
  while (std::getline(in, line)) {
    ++n;
    if (line.empty()) continue;
    const std::string where = path + ":" + std::to_string(n);
    if (header) {
      std::istringstream ss(line);
      std::string kw;
      ss >> kw;
      if (kw == "$scope") {
        std::string kind, name;
        ss >> kind >> name;
        scope.push_back(name);
      } else if (kw == "$upscope") {
        if (!scope.empty()) scope.pop_back();
      } else if (kw == "$var") {
        std::string type, width, code, name;
        ss >> type >> width >> code >> name;
        const uint64_t bits = parse_count(width, where, "$var width");
        if (bits == 0 || bits > (1u << 20)) fail(where, "$var width " + width + ": expected 1 to 1048576 bits");
        h.var(scope, uint32_t(bits), code, name);
      } else if (kw == "$enddefinitions") {
        header = false;
      }
    } else if (line[0] == '#') {
      h.time(parse_count(line.substr(1), where, "time"));
    } else if (line[0] == 'b') {
      const size_t sp = line.find(' ');
      if (sp != std::string::npos) h.value(line.substr(sp + 1), line.substr(1, sp - 1));
    } else if (line[0] == '0' || line[0] == '1' || line[0] == 'x' || line[0] == 'z') {
      h.value(line.substr(1), line.substr(0, 1));
    }
  }
}

}  // namespace

void drop_first_cycles(GateActivity& a, uint64_t n) {
  FSGEN_ASSERT(n <= a.cycles && a.toggled_per_cycle.size() == a.cycles, "cycles dropped from a run's per-cycle activity");
  for (uint64_t c = 0; c < n; ++c)
    for (int bit : a.toggled_per_cycle[c]) --a.toggles[size_t(bit)];
  a.toggled_per_cycle.erase(a.toggled_per_cycle.begin(), a.toggled_per_cycle.begin() + long(n));
  a.cycles -= n;
}

namespace {

// Per net bit of the netlist's top scope, its transitions per cycle (VCD time t belongs
// to cycle t / 2).
GateActivity read_vcd(const std::string& path, const GateNetlist& n, uint64_t cycles) {
  GateActivity a = quiet_activity(n, cycles);
  // VCD id code -> net bits, LSB first (a code a simulator gives several equal nets names each of them)
  std::multimap<std::string, std::vector<int>> code_bits;
  std::vector<char> value(a.toggles.size(), 0);
  uint64_t cycle = 0;
  VcdHandlers h;
  h.var = [&](const std::vector<std::string>& scope, uint32_t width, const std::string& code, const std::string& name) {
    if (scope.size() != 2 || scope[1] != n.top) return;
    auto it = n.netnames.find(name);
    if (it != n.netnames.end() && it->second.size() == width) code_bits.emplace(code, it->second);
  };
  h.time = [&](uint64_t t) { cycle = t / 2; };
  h.value = [&](const std::string& code, const std::string& v) {
    const auto [first, last] = code_bits.equal_range(code);
    for (auto it = first; it != last; ++it) {
      const auto& bits = it->second;
      for (size_t i = 0; i < bits.size(); ++i) {
        const char b = (i < v.size() ? v[v.size() - 1 - i] : '0') == '1' ? 1 : 0;
        if (value[bits[i]] == b) continue;  // also a bit named twice
        value[bits[i]] = b;
        if (cycle < cycles) count_toggle(a, cycle, bits[i]);
      }
    }
  };
  read_vcd_events(path, h);
  if (code_bits.empty()) fail(path, "no net of " + n.top + " in the VCD: expected its top scope");
  return a;
}

}  // namespace

namespace {

// Builds the Verilated netlist with the replay testbench in out_dir/obj_gates, or reuses
// the build while the netlist and ports are unchanged; returns the executable (the
// reference the gate-level simulator is checked against: replay_gates_on_verilator).
fs::path build_verilator_testbench(const SynthReport& synth, const GateNetlist& netlist, const Liberty& lib,
                                   const std::string& tb_text, const std::string& out_dir) {
  // Absolute paths: Verilator's makefile runs in obj_gates and would misread relative ones.
  const fs::path dir = fs::absolute(out_dir), obj = dir / "obj_gates";
  const fs::path binary = obj / "gate_tb";
  const std::string stamp = (obj / "netlist.stamp").string();
  const std::string cells = cell_models_path(lib, dir.string());
  const fs::path tb = dir / "gate_tb.cpp";
  write_text_file(tb, tb_text);
  // -O0: a traced gate-level netlist is hundreds of thousands of lines of C++ and a run a
  // few thousand cycles, so compile time dominates. -fno-gate: Verilator 5.006's gate
  // optimisation mis-simulates some mapped netlists (an fsgen_array_os accumulator's upper
  // bits on fsgen45; Icarus Verilog and an unoptimised Verilator build agree with the RTL).
  const auto command = [&](const std::string& objcache) {
    return shell_quote(require_tool("verilator")) +
           " --cc --exe --build -j 2 --trace --trace-underscore -fno-gate -Wno-fatal -Wno-lint -Wno-style"
           " -MAKEFLAGS 'OPT_FAST=-O0 OPT_SLOW=-O0 OPT_GLOBAL=-O0" + objcache + "' --output-split 200000 --output-split-cfuncs 100000 --output-split-ctrace 100000 --trace-depth 1 --top-module " +
           netlist.top + " -Mdir " + shell_quote(obj.string()) + " -o gate_tb " +
           shell_quote(fs::absolute(synth.netlist).string()) + " " + shell_quote(cells) + " " + shell_quote(tb.string());
  };
  const std::string key = read_text_file(synth.netlist) + tb_text + command("");
  const std::string build = command(verilator_objcache());
  if (fs::exists(binary) && stamp_matches(stamp, key)) return binary;
  fs::remove_all(obj);  // a stale build's dependency files may name sources that are gone
  write_cell_models(lib, dir.string());
  const CommandResult b = run_command(build);
  if (b.status != 0)
    fail("verilator (gate-level " + netlist.top + ")",
         "build failed:\n" + b.output.substr(b.output.size() > 2000 ? b.output.size() - 2000 : 0));
  write_stamp(stamp, key);
  return binary;
}

// The netlist as the gate-level simulator reads it, written to `path`.
void write_engine_netlist(const GateNetlist& netlist, const LibertyLibrary& lib, const fs::path& path) {
  std::ostringstream text;
  compile_gate_netlist(netlist, lib).write(text);
  write_text_file(path, text.str());
}

// The per-cycle toggles a testbench logged (ToggleLog in testbench_head).
GateActivity read_toggle_log(const fs::path& path, const GateNetlist& n, uint64_t cycles) {
  std::ifstream in(path, std::ios::binary);
  if (!in) fail(path.string(), "cannot open the gate-level simulation's toggle log");
  GateActivity a = quiet_activity(n, cycles);
  std::vector<uint32_t> bits;
  for (uint64_t c = 0; c < cycles; ++c) {
    uint32_t k = 0;
    in.read(reinterpret_cast<char*>(&k), 4);
    bits.resize(k);
    in.read(reinterpret_cast<char*>(bits.data()), std::streamsize(4 * size_t(k)));
    if (!in) fail(path.string(), "truncated at cycle " + std::to_string(c) + " of " + std::to_string(cycles));
    for (uint32_t b : bits) {
      if (b >= a.toggles.size()) fail(path.string(), "net bit " + std::to_string(b) + " is not in the netlist");
      count_toggle(a, c, int(b));
    }
  }
  return a;
}

}  // namespace

// The characterisation testbench: its driver and the gate-level simulator compiled with
// the system's C++ compiler (a few seconds: the netlist is data the testbench reads, not
// code), rebuilt only when its text changes.
fs::path prepare_gate_simulation(const GateNetlist& netlist, const LibertyLibrary& lib, const PrimitiveStimulus& stim,
                                 const std::string& build_dir) {
  const fs::path dir = fs::absolute(build_dir);
  fs::create_directories(dir);
  const fs::path netlist_file = dir / "netlist.gates";
  write_engine_netlist(netlist, lib, netlist_file);
  const std::string& engine = testbench_sources().at("gate_engine.h");
  write_text_file(dir / "gate_engine.h", engine);
  const std::string tb_text = gate_testbench_text(netlist, stim, netlist_file.string());
  write_text_file(dir / "gate_tb.cpp", tb_text);
  const fs::path binary = dir / "gate_tb";
  const std::string command = shell_quote(require_tool("g++")) + " -std=c++17 -O2 -I " + shell_quote(dir.string()) +
                              " " + shell_quote((dir / "gate_tb.cpp").string()) + " -o " + shell_quote(binary.string());
  const std::string stamp = (dir / "gate_tb.stamp").string(), key = engine + tb_text + command;
  if (fs::exists(binary) && stamp_matches(stamp, key)) return binary;
  const CommandResult b = run_command(command);
  if (b.status != 0)
    fail("gate-level testbench of " + netlist.top,
         "build failed:\n" + b.output.substr(b.output.size() > 2000 ? b.output.size() - 2000 : 0));
  write_stamp(stamp, key);
  return binary;
}

GateActivity run_gate_simulation(const fs::path& binary, const GateNetlist& netlist, const PrimitiveStimulus& stim,
                                 const std::string& run_dir) {
  fs::create_directories(run_dir);
  std::ostringstream args;
  args << stim.cycles << " " << stim.toggle_rate << " " << stim.seed << " " << stim.zero_fraction << " " << stim.enable_rate
       << " " << stim.side_share << " " << stim.factor_share;
  for (int64_t v : stim.settings) args << " " << v;
  const CommandResult r = run_command("cd " + shell_quote(run_dir) + " && " + shell_quote(binary.string()) + " " + args.str());
  if (r.status != 0)
    fail("gate-level simulation of " + netlist.top, "testbench exited with " + std::to_string(r.status) +
                                                        " (2: arguments, 4: its toggle log not writable): " + r.output);
  const fs::path log = fs::path(run_dir) / "toggles.bin";
  GateActivity a = read_toggle_log(log, netlist, stim.cycles);
  fs::remove(log);
  unsigned long long enabled = 0, side = 0, zero_bytes = 0, data_bytes = 0;
  if (std::sscanf(r.output.c_str(), "enabled %llu side %llu zero_bytes %llu data_bytes %llu", &enabled, &side, &zero_bytes,
                  &data_bytes) != 4)
    fail("gate-level simulation of " + netlist.top, "expected the stimulus summary, got: " + r.output);
  a.enabled_cycles = enabled;
  a.side_cycles = side;
  a.zero_bytes = zero_bytes;
  a.data_bytes = data_bytes;
  return a;
}

size_t PortWaveforms::words_per_cycle() const {
  size_t n = 0;
  for (const auto& p : ports) n += (p.second + 31) / 32;
  return n;
}

size_t PortWaveforms::word_of(const std::string& port) const {
  size_t at = 0;
  for (const auto& [name, bits] : ports) {
    if (name == port) return at;
    at += (bits + 31) / 32;
  }
  return kNoPort;
}

PortWaveforms read_vcd_waveforms(const std::string& vcd, const std::vector<std::string>& scope,
                                 const std::vector<std::pair<std::string, uint32_t>>& ports, uint64_t cycles) {
  PortWaveforms w;
  w.cycles = cycles;
  w.ports = ports;
  const size_t per = w.words_per_cycle();
  w.words.assign(size_t(cycles) * per, 0);
  std::map<std::string, std::pair<size_t, uint32_t>> port_at;  // port -> its first word in a cycle, its width
  size_t at = 0;
  for (const auto& [name, width] : ports) port_at[name] = {at, width}, at += (width + 31) / 32;
  // VCD code -> word offset, width of each port it names: ports wired to one signal share
  // its code (an accumulator cache's wr_slot and rd_slot).
  std::multimap<std::string, std::pair<size_t, uint32_t>> code_port;
  std::vector<uint32_t> current(per, 0);
  uint64_t next_cycle = 0;  // the first cycle not yet recorded
  auto record_until = [&](uint64_t time) {  // cycles whose inputs are settled before `time`
    for (; next_cycle < cycles && 2 * next_cycle + 1 <= time; ++next_cycle)
      std::copy(current.begin(), current.end(), w.words.begin() + next_cycle * per);
  };
  bool scope_seen = false;
  VcdHandlers h;
  h.var = [&](const std::vector<std::string>& path, uint32_t width, const std::string& code, const std::string& name) {
    const bool in_scope = path.size() >= scope.size() && std::equal(scope.rbegin(), scope.rend(), path.rbegin());
    scope_seen |= in_scope;
    auto it = port_at.find(name);
    if (!in_scope || it == port_at.end()) return;
    if (width != it->second.second)
      fail(vcd, "signal " + name + " is " + std::to_string(width) + " bits wide: expected the port's " +
                    std::to_string(it->second.second));
    code_port.emplace(code, it->second);
  };
  h.time = record_until;
  h.value = [&](const std::string& code, const std::string& bits) {
    const auto [first, last] = code_port.equal_range(code);
    for (auto it = first; it != last; ++it) {
      const auto [off, width] = it->second;
      for (uint32_t i = 0; i < width; ++i) {
        uint32_t& word = current[off + i / 32];
        if (i < bits.size() && bits[bits.size() - 1 - i] == '1') word |= 1u << (i % 32);
        else word &= ~(1u << (i % 32));
      }
    }
  };
  read_vcd_events(vcd, h);
  if (!scope_seen) {
    std::string path;
    for (const auto& s : scope) path += (path.empty() ? "" : ".") + s;
    fail(vcd, "no signal in a scope ending with " + path + ": expected the waveforms of that instance");
  }
  record_until(~0ull);
  return w;
}

namespace {

// Two cycles with the reset port low, not sampled (replay_gates).
void reset_untraced(fsgen_gates::Simulator& sim, int clock, int reset_n) {
  const uint8_t low = 0, high = 1;
  if (reset_n < 0) return;
  sim.write_port(reset_n, &low, 1);
  for (int r = 0; r < 2; ++r) {
    sim.write_port(clock, &low, 1);
    sim.eval();
    sim.write_port(clock, &high, 1);
    sim.eval();
  }
}

}  // namespace

GateActivity replay_gates(const GateNetlist& netlist, const LibertyLibrary& lib, const PortWaveforms& waves,
                          const std::string& clock, const std::string& reset_n, PortWaveforms* outputs) {
  fsgen_gates::Simulator sim(compile_gate_netlist(netlist, lib));
  const int clk = sim.port(clock);
  if (clk < 0) fail("gate-level replay of " + netlist.top, "no clock port '" + clock + "'");
  reset_untraced(sim, clk, sim.port(reset_n));
  std::vector<int> in;  // per waveform port, its simulator port (-1: the netlist lacks it)
  for (const auto& [port, width] : waves.ports) in.push_back(netlist.ports.count(port) ? sim.port(port) : -1);
  std::vector<int> out;  // per output port, its simulator port
  if (outputs) {
    *outputs = {};
    outputs->cycles = waves.cycles;
    for (const auto& name : netlist.outputs) {
      outputs->ports.push_back({name, uint32_t(netlist.ports.at(name).size())});
      out.push_back(sim.port(name));
    }
    outputs->words.assign(size_t(waves.cycles) * outputs->words_per_cycle(), 0);
  }
  GateActivity a = quiet_activity(netlist, waves.cycles);
  const size_t per = waves.words_per_cycle();
  std::vector<uint32_t> toggled;
  const uint8_t low = 0, high = 1;
  for (uint64_t c = 0; c < waves.cycles; ++c) {
    const uint32_t* word = waves.words.data() + c * per;
    for (size_t p = 0; p < waves.ports.size(); ++p) {
      if (in[p] >= 0) sim.write_port(in[p], word, 4 * ((waves.ports[p].second + 31) / 32));
      word += (waves.ports[p].second + 31) / 32;
    }
    toggled.clear();
    sim.write_port(clk, &low, 1);
    sim.eval();
    sim.sample(toggled);
    if (outputs) {
      uint32_t* at = outputs->words.data() + c * outputs->words_per_cycle();
      for (size_t p = 0; p < out.size(); ++p) {
        const uint32_t words = (outputs->ports[p].second + 31) / 32;
        sim.read_port(out[p], at, 4 * words);
        at += words;
      }
    }
    sim.write_port(clk, &high, 1);
    sim.eval();
    sim.sample(toggled);
    for (uint32_t b : toggled) count_toggle(a, c, int(b));
  }
  return a;
}

GateActivity replay_gates_on_verilator(const SynthReport& synth, const GateNetlist& netlist, const Liberty& lib,
                                       const PortWaveforms& waves, const std::string& clock, const std::string& reset_n,
                                       const std::string& build_dir) {
  const fs::path binary =
      build_verilator_testbench(synth, netlist, lib, replay_testbench(netlist, waves, clock, reset_n), build_dir);
  {
    std::ofstream f(fs::path(build_dir) / "stimulus.bin", std::ios::binary);
    f.write(reinterpret_cast<const char*>(&waves.cycles), 8);
    f.write(reinterpret_cast<const char*>(waves.words.data()), std::streamsize(waves.words.size() * 4));
    if (!f) fail(build_dir, "cannot write the replay stimulus");
  }
  const CommandResult r = run_command("cd " + shell_quote(build_dir) + " && " + shell_quote(binary.string()));
  if (r.status != 0) fail("gate-level replay of " + netlist.top, "testbench exited with " + std::to_string(r.status) + ": " + r.output);
  const fs::path vcd = fs::path(build_dir) / "gates.vcd";
  GateActivity a = read_vcd(vcd.string(), netlist, waves.cycles);
  fs::remove(vcd);
  return a;
}

GateActivity simulate_gates(const GateNetlist& netlist, const LibertyLibrary& lib, const PrimitiveStimulus& stim,
                            const std::string& out_dir) {
  return run_gate_simulation(prepare_gate_simulation(netlist, lib, stim, out_dir), netlist, stim, out_dir);
}

std::vector<double> power_trace_mw(const GatePowerModel& model, const GateActivity& activity, double clock_mhz) {
  std::vector<double> trace(activity.cycles, 0);
  const double leakage = model.leakage_mw();
  const double fj_to_mw = clock_mhz * 1e6 * 1e-15 * 1e3;  // one cycle's energy in fJ -> average mW over the cycle
  for (uint64_t c = 0; c < activity.cycles; ++c) {
    double e = 0;
    for (int bit : activity.toggled_per_cycle[c]) e += model.energy_per_toggle_fj(bit);
    trace[c] = e * fj_to_mw + leakage;
  }
  return trace;
}

}  // namespace fsgen
