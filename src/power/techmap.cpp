#include "power/techmap.h"

#include <unistd.h>

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <map>
#include <mutex>
#include <optional>
#include <regex>
#include <set>
#include <sstream>
#include <thread>

#include "blocks/pe_array_os/synthesis_slices.h"
#include "core/error.h"
#include "core/write_file.h"
#include "flow/tech_library.h"
#include "flow/tools.h"
#include "generator/verilog_emitter.h"
#include "power/fanout_buffers.h"
#include "power/liberty.h"

namespace fsgen {

namespace fs = std::filesystem;

namespace {

bool ends_with(const std::string& s, const std::string& suffix) {
  return s.size() >= suffix.size() && s.compare(s.size() - suffix.size(), suffix.size(), suffix) == 0;
}

// The last lines of a tool's output, for an error message.
std::string tail_of(const std::string& output, size_t lines) {
  size_t start = output.size();
  for (size_t n = 0; n <= lines; ++n) {
    if (start == 0) return output;
    const size_t nl = output.rfind('\n', start - 1);
    if (nl == std::string::npos) return output;
    start = nl;
  }
  return output.substr(start + 1);
}

// An absolute path without "." or "..", whether or not the file exists yet.
fs::path canonical_path(const std::string& path) { return fs::weakly_canonical(fs::absolute(path)); }

// Whether a source file puts registers behind clock gates (fsgen_clock_gate.vh).
bool any_uses_clock_gates(const std::vector<std::string>& sources) {
  for (const auto& f : sources) {
    std::ifstream in(f);
    std::ostringstream text;
    text << in.rdbuf();
    if (uses_clock_gates(text.str())) return true;
  }
  return false;
}

// The files the sources `include (and those include), found in `dirs` as Yosys' -I finds
// them: a synthesis's inputs, so that a changed header is a new synthesis.
std::vector<std::string> included_files(const std::vector<std::string>& sources, const std::set<std::string>& dirs) {
  static const std::regex include(R"re(`include\s+"([^"]+)")re");
  std::set<std::string> found;
  std::vector<std::string> pending = sources;
  while (!pending.empty()) {
    const std::string text = read_text_file(pending.back());
    pending.pop_back();
    for (auto it = std::sregex_iterator(text.begin(), text.end(), include); it != std::sregex_iterator(); ++it)
      for (const auto& d : dirs)
        if (const std::string f = (fs::path(d) / (*it)[1].str()).string(); fs::exists(f)) {
          if (found.insert(f).second) pending.push_back(f);
          break;
        }
  }
  return {found.begin(), found.end()};
}

// fsgen_clock_gate as the library's smallest integrated clock-gating cell, for synthesis
// (fsgen_clock_gate.v is the gate's behaviour); its test pin, if any, tied low. Empty if the
// library has none: the gated registers are then synthesised as enabled flip-flops on clk.
// Read once per liberty file and modification time (a library written again to the same
// path is read again).
std::string clock_gate_module(const Liberty& lib) {
  static std::mutex mutex;
  static std::map<std::pair<std::string, fs::file_time_type>, std::string> modules;
  const std::lock_guard<std::mutex> lock(mutex);
  const auto key = std::make_pair(lib.path, fs::last_write_time(lib.path));
  const auto known = modules.find(key);
  if (known != modules.end()) return known->second;
  const LibertyLibrary cells = read_liberty_file(lib.path);
  const LibertyCell* c = cells.clock_gate_cell();
  std::ostringstream o;
  if (c) {
    const LibertyClockGate& g = *c->clock_gate;
    o << "// fsgen_clock_gate as " << lib.name << "'s " << c->name << " (written by fsgen's synthesis)\n"
      << "module fsgen_clock_gate (input wire clk, input wire en, output wire gclk);\n  " << c->name << " u_cell (."
      << g.clock << "(clk), ." << g.enable << "(en), ";
    if (!g.test.empty()) o << "." << g.test << "(1'b0), ";
    o << "." << g.out << "(gclk));\nendmodule\n";
  }
  return modules[key] = o.str();
}

// Yosys names a latch it could not map as $_DLATCH_* (in its statistics, or in the error
// that stops it writing the netlist). fsgen's blocks hold none (their clock gates are the
// library's cells); the gate-level simulator takes flip-flops and clock-gating cells only.
void refuse_latches(const std::string& yosys_output, const Liberty& lib, const std::string& top) {
  if (yosys_output.find("$_DLATCH") != std::string::npos)
    fail("yosys (" + top + " on " + lib.name + ")",
         "a latch left unmapped: the gate-level flow takes flip-flops and clock-gating cells only");
}

}  // namespace

Liberty prepare_liberty(const std::string& file, const std::string& work_dir) {
  if (file.empty()) {
    const fs::path path = fs::path(work_dir) / "fsgen45.lib";
    write_text_file(path, tech_library().at("fsgen45.lib"));
    return {"fsgen45", path.string()};
  }
  if (!fs::is_regular_file(file)) fail(file, "liberty file not found: expected a .lib or .lib.gz file");
  std::string stem = fs::path(file).filename().string();
  if (ends_with(stem, ".gz")) {
    stem = stem.substr(0, stem.size() - 3);
    const fs::path path = fs::path(work_dir) / stem;
    write_text_file(path, read_liberty_text(file));
    return {fs::path(stem).stem().string(), path.string()};
  }
  return {fs::path(stem).stem().string(), fs::absolute(file).string()};
}

namespace {

// Syntheses shared between folders: characterisation, golden runs and tests synthesise the
// same module at the same parameters in work folders of their own. The first run's netlists
// and report are kept in the system's temporary folder under a key of its script with the
// folders named generically and of its inputs' contents; later runs copy them.
fs::path shared_synthesis(const std::string& generic_fingerprint) {
  return fs::temp_directory_path() / "fsgen_synthesis" / fingerprint_key(generic_fingerprint);
}

// A synthesis' files: their names in the shared folder, and where a work folder keeps them.
std::vector<std::pair<std::string, fs::path>> synthesis_files(const SynthReport& r, const fs::path& report) {
  return {{"netlist.v", r.netlist}, {"netlist.json", r.netlist_json}, {"report", report}};
}

bool copy_shared_synthesis(const fs::path& shared, const SynthReport& r, const fs::path& report) {
  std::error_code ec;
  if (!fs::is_directory(shared, ec)) return false;
  for (const auto& [name, local] : synthesis_files(r, report))
    if (!fs::copy_file(shared / name, local, fs::copy_options::overwrite_existing, ec) || ec) return false;
  return true;
}

// Published whole or not at all: written into a folder of its own, then renamed into place
// (a run that finds the key taken leaves the other run's copy).
void publish_shared_synthesis(const fs::path& shared, const SynthReport& r, const fs::path& report) {
  std::error_code ec;
  if (fs::exists(shared, ec)) return;
  const fs::path tmp = shared.string() + ".tmp" + std::to_string(getpid()) + "_" +
                       std::to_string(std::hash<std::thread::id>{}(std::this_thread::get_id()));
  fs::create_directories(tmp, ec);
  for (const auto& [name, local] : synthesis_files(r, report))
    if (!ec) fs::copy_file(local, tmp / name, fs::copy_options::overwrite_existing, ec);
  if (!ec) fs::rename(tmp, shared, ec);
  if (ec) fs::remove_all(tmp, ec);
}

// Yosys' report of a synthesis script, run or, when the script, the sources, the liberty
// and the netlists it wrote are unchanged since the last run in the folder, read back
// (designs of a validation share their instances' netlists), or copied from another
// folder's identical synthesis (`generic_script`: the script with its folders named
// generically).
std::string synthesis_output(const fs::path& script, const std::string& generic_script,
                             const std::vector<std::string>& inputs, const SynthReport& r, const std::string& what) {
  std::string contents;
  for (const auto& f : inputs) contents += read_text_file(f);
  const std::string fingerprint = read_text_file(script.string()) + contents;
  const fs::path report = fs::path(script).replace_extension(".report");
  const std::string stamp_file = fs::path(script).replace_extension(".stamp").string();
  if (stamp_matches(stamp_file, fingerprint) && fs::exists(report) && fs::exists(r.netlist) && fs::exists(r.netlist_json))
    return read_text_file(report.string());
  fs::remove(stamp_file);
  const fs::path shared = shared_synthesis(generic_script + contents);
  if (!copy_shared_synthesis(shared, r, report)) {
    const CommandResult res = run_command(shell_quote(require_tool("yosys")) + " -q -s " + shell_quote(script.string()));
    if (res.status != 0) fail("yosys (" + what + ")", "synthesis failed:\n" + tail_of(res.output, 12));
    write_text_file(report, res.output);
    publish_shared_synthesis(shared, r, report);
  }
  write_stamp(stamp_file, fingerprint);
  return read_text_file(report.string());
}

}  // namespace

// ABC's script for area mapping, without the SAT sweeping (&fraig -x, scorr) and the extra
// rewriting (dc2) of the default script: on a fused 8x8 controller (198,087 cells, fsgen45)
// 5.4 against 72 minutes, on a TN = 2 softmax unit 29 s against 4 min 22 s, for 2.2 to 2.6 %
// more area (docs/POWER.md, "Area mapping").
const char* const kAreaMapping = "abc: strash; &get -n; &dch -f; &nf; &put";

std::string area_mapping_of(const std::map<std::string, std::string>& provenance) {
  const auto it = provenance.find("mapping");
  return it != provenance.end() ? it->second : "abc: its default script (&fraig -x, scorr, dc2, dretime, &dch -f, &nf)";
}

namespace {

// `text` with every occurrence of `from` replaced by `to`.
std::string replace_all(std::string text, const std::string& from, const std::string& to) {
  for (size_t at = text.find(from); !from.empty() && at != std::string::npos; at = text.find(from, at + to.size()))
    text.replace(at, from.size(), to);
  return text;
}

// kAreaMapping's commands as Yosys' `abc -script` takes them: '+', then ';'-separated, a
// command's arguments joined by ','.
std::string abc_area_script() {
  const std::string commands = std::string(kAreaMapping).substr(std::string("abc: ").size());
  return "+" + replace_all(replace_all(commands, "; ", ";"), " ", ",");
}

// Yosys' abc command: area mapping, or (target above 0) delay mapping at that period
// followed by buffer trees and gate sizing. Yosys' own -D script stops after the mapping,
// which leaves a signal that drives thousands of pins on one X1 cell; ABC's `map -D` keeps
// the adders' carry trees where `&nf -D` (after Yosys' area rewriting) turns them into
// ripple chains (a 32-bit accumulate: 1.37 against 1.88 ns on fsgen45).
std::string abc_command(const std::string& liberty, double delay_target_ns) {
  if (delay_target_ns <= 0) return "abc -liberty " + liberty + " -script " + abc_area_script();
  const std::string d = std::to_string(int64_t(std::lround(delay_target_ns * 1000)));
  // `topo` before `buffer`: on a large mapped network (an 8x8 rescaling array, a fused
  // controller) ABC's buffer otherwise fails on a node without fanout, or crashes.
  return "abc -D " + d + " -liberty " + liberty + " -script +strash;dch,-f;map,-D," + d +
         ";topo;buffer,-c;topo;stime,-c;upsize,-c,-D," + d + ";dnsize,-c,-D," + d;
}

// A timing netlist with its fan-out rebuilt as balanced buffer trees (fanout_buffers.h),
// written beside Yosys' (from it every time: the pass is cheap beside the synthesis, and a
// netlist reused from an earlier run is buffered the same way).
void rebuild_fanout(SynthReport& r, const Liberty& lib, size_t max_fanout) {
  const std::string buffered = fs::path(r.netlist).replace_extension(".buffered.v").string();
  const FanoutBuffers b = rebuild_fanout_trees(r.netlist, buffered, read_liberty_file(lib.path), max_fanout);
  r.netlist = buffered;
  r.area_um2 += b.area_um2 - b.removed_area_um2;
  r.cells += b.buffers;
  if (b.buffers > 0) r.cell_use[b.buffer_cell] += b.buffers;
  for (const auto& [cell, count] : b.removed) {
    r.cells -= count;
    r.cell_use[cell] -= count;
    if (r.cell_use[cell] == 0) r.cell_use.erase(cell);
  }
  r.fanout_buffers = b.buffers;
}

// The area and cell counts of Yosys' `stat -liberty` output: the design hierarchy's totals
// when the netlist has instances of its own modules, else its one module's.
void read_cell_statistics(const std::string& output, SynthReport& r, const std::string& what) {
  const size_t hierarchy = output.find("=== design hierarchy ===");
  const std::string totals = hierarchy == std::string::npos ? output : output.substr(hierarchy);
  const std::regex area(R"(Chip area for (?:top )?module '\\?[^']*': ([0-9.]+))");
  std::smatch m;
  if (!std::regex_search(totals, m, area))
    fail("yosys (" + what + ")", "no chip area in stat -liberty output: does the library give cell areas?");
  r.area_um2 = std::stod(m[1]);
  // The cell lines follow "Number of cells" (the hierarchy's first lines count modules).
  const size_t listed = std::min(totals.find("Number of cells:"), size_t(m.position(0)));
  const std::string cells = totals.substr(listed, size_t(m.position(0)) - listed);
  const std::regex cell_line(R"(\n\s+([A-Za-z_][A-Za-z0-9_]*)\s+([0-9]+)(?=\n))");
  for (auto it = std::sregex_iterator(cells.begin(), cells.end(), cell_line); it != std::sregex_iterator(); ++it) {
    const uint64_t n = std::stoull((*it)[2]);
    r.cell_use[(*it)[1]] = n;
    r.cells += n;
  }
}

}  // namespace

SynthReport synth_to_liberty(const std::vector<std::string>& files, const std::string& top,
                             const std::map<std::string, int64_t>& params, const Liberty& lib,
                             const std::string& out_dir, const SynthOptions& options) {
  SynthReport r;
  // Canonical paths in the script: the same folder named from another working directory
  // gives the same script, so its synthesis is reused.
  const fs::path dir = canonical_path(out_dir);
  r.netlist = (dir / (top + "_" + lib.name + ".v")).string();
  r.netlist_json = (dir / (top + "_" + lib.name + ".json")).string();
  // A script file: Yosys reads paths unquoted, so they must not contain spaces.
  const std::string l = canonical_path(lib.path).string();
  std::vector<std::string> sources;
  for (const auto& f : files) sources.push_back(canonical_path(f).string());
  // A wide broadcast array: one slice synthesised, instantiated side by side.
  const std::optional<ColumnSlices> slices = array_column_slices(top, params);
  if (slices) {
    const fs::path wrapper = dir / (slices->module + ".v");
    write_text_file(wrapper, slices->verilog);
    sources.push_back(wrapper.string());
  }
  const std::string synth_top = slices ? slices->module : top;
  const std::map<std::string, int64_t>& top_params = slices ? slices->params : params;
  const std::string gate_cell = any_uses_clock_gates(sources) ? clock_gate_module(lib) : "";
  const bool gated = !gate_cell.empty();
  if (gated) {
    const fs::path cell = dir / ("fsgen_clock_gate_" + lib.name + ".v");
    write_text_file(cell, gate_cell);
    sources.push_back(cell.string());
  }
  std::ostringstream ys;
  ys << "read_liberty -lib " << l << "\nread_verilog" << (gated ? " -DFSGEN_CLOCK_GATES" : "");
  std::set<std::string> include_dirs;
  for (const auto& f : sources) include_dirs.insert(fs::path(f).parent_path().string());
  for (const auto& d : include_dirs) ys << " -I" << d;
  for (const auto& f : sources) ys << " " << f;
  ys << "\n";
  for (const auto& b : options.blackboxes) ys << "blackbox " << b << "\n";
  if (!top_params.empty()) {
    ys << "chparam";
    for (const auto& [name, value] : top_params) ys << " -set " << name << " " << value;
    ys << " " << synth_top << "\n";
  }
  ys << "synth " << (slices ? "" : "-flatten ") << "-top " << synth_top << "\ndfflibmap -liberty " << l << "\n"
     << abc_command(l, options.delay_target_ns) << "\nopt_clean\n";
  // The wrapper named as the array. Its slices stay instances (fsgen's netlist reader expands
  // them: Yosys' flatten of an 8x128 array's two million cells ran out of 24 GB) but in a
  // timing netlist, whose fan-out pass reads the Verilog flat.
  if (slices)
    ys << (options.delay_target_ns > 0 ? "flatten\n" : "") << "hierarchy -top " << synth_top << "\nrename " << synth_top
       << " " << top << "\nopt_clean\n";
  ys
      // Timing netlists: one net per bit and one bit per assign (OpenSTA's reader refuses an
      // assign to a concatenation, which output bits that copy others, as a dot array's
      // sign-extended lanes, would get), each flip-flop named after its register for the reports.
      << (options.delay_target_ns > 0 ? "splitnets\nopt_clean -purge\nrename -wire\n" : "")
      << "tee -o /dev/stdout stat -liberty " << l << "\nwrite_verilog -noattr "
      << (options.delay_target_ns > 0 ? "-simple-lhs " : "")
      << r.netlist
      // The JSON is read back from the Verilog so that net names match it (and a simulation's).
      << "\ndesign -reset\nread_liberty -lib " << l << "\nread_verilog " << r.netlist << "\nwrite_json "
      << r.netlist_json << "\n";
  const fs::path script = dir / (top + "_" + lib.name + ".ys");
  write_text_file(script, ys.str());
  std::vector<std::string> inputs = sources;
  for (const auto& f : included_files(sources, include_dirs)) inputs.push_back(f);
  inputs.push_back(lib.path);
  std::string generic = replace_all(ys.str(), dir.string(), "@OUT");
  for (const auto& d : include_dirs) generic = replace_all(generic, d, "@SRC");
  generic = replace_all(generic, l, "@LIB");
  std::string output;
  try {
    output = synthesis_output(script, generic, inputs, r, top + " on " + lib.name);
  } catch (const UserError& e) {
    refuse_latches(e.what(), lib, top);  // Yosys stops at a latch left unmapped: say why
    throw;
  }
  read_cell_statistics(output, r, top + " on " + lib.name);
  refuse_latches(output, lib, top);
  if (options.delay_target_ns > 0) rebuild_fanout(r, lib, options.max_fanout);
  return r;
}

namespace {

// Runs an OpenSTA script on a mapped netlist with the clock and I/O constraints.
CommandResult run_sta(const SynthReport& synth, const std::string& top, const Liberty& lib, const std::string& clock,
                      double period_ns, const std::string& commands, const std::string& tag) {
  const std::string sta = require_tool("sta");
  const fs::path script = fs::path(synth.netlist).replace_extension("." + tag + ".tcl");
  std::ostringstream tcl;
  tcl << "read_liberty " << lib.path << "\nread_verilog " << synth.netlist << "\nlink_design " << top << "\n"
      << "create_clock -name " << clock << " -period " << period_ns << " [get_ports " << clock << "]\n"
      << "set_input_delay 0 -clock " << clock << " [delete_from_list [all_inputs] [get_ports " << clock << "]]\n"
      << "set_output_delay 0 -clock " << clock << " [all_outputs]\n"
      << commands << "exit\n";
  write_text_file(script, tcl.str());
  return run_command(shell_quote(sta) + " -no_splash -exit " + shell_quote(script.string()));
}

}  // namespace

TimedNetlist synth_and_time(const std::vector<std::string>& files, const std::string& top,
                            const std::map<std::string, int64_t>& params, const Liberty& lib,
                            const std::string& out_dir, double period_ns, const std::vector<std::string>& blackboxes) {
  SynthOptions options;
  options.delay_target_ns = period_ns;
  options.blackboxes = blackboxes;
  TimedNetlist t;
  t.synth = synth_to_liberty(files, top, params, lib, out_dir, options);
  t.timing = critical_path(t.synth, top, lib, "clk", period_ns);
  return t;
}

StaPower sta_vectorless_power(const SynthReport& synth, const std::string& top, const Liberty& lib,
                              const std::string& clock, double period_ns, double activity) {
  const CommandResult res = run_sta(synth, top, lib, clock, period_ns,
                                    "set_power_activity -global -activity " + std::to_string(activity) +
                                        " -duty 0.5\nreport_power -digits 6\n",
                                    "power");
  const std::regex total(R"(\nTotal\s+([-0-9.eE+]+)\s+([-0-9.eE+]+)\s+([-0-9.eE+]+)\s+([-0-9.eE+]+))");
  std::smatch m;
  if (res.status != 0 || !std::regex_search(res.output, m, total))
    fail("sta (" + top + " on " + lib.name + ")", "no power report:\n" + tail_of(res.output, 12));
  return {std::stod(m[1]) * 1e3, std::stod(m[2]) * 1e3, std::stod(m[3]) * 1e3};
}

TimingReport critical_path(const SynthReport& synth, const std::string& top, const Liberty& lib,
                           const std::string& clock, double period_ns) {
  const CommandResult res = run_sta(synth, top, lib, clock, period_ns, "report_checks -path_delay max -digits 4\n", "sta");
  const std::regex arrival(R"(([-0-9.]+)\s+data arrival time)"), setup(R"(([-0-9.]+)\s+[-0-9.]+\s+library setup time)"),
      slack(R"(([-0-9.]+)\s+slack \((?:MET|VIOLATED)\))");
  std::smatch ma, ms, mk;
  if (res.status != 0 || !std::regex_search(res.output, ma, arrival) || !std::regex_search(res.output, mk, slack))
    fail("sta (" + top + " on " + lib.name + ")", "no timing path reported:\n" + tail_of(res.output, 12));
  TimingReport t;
  t.arrival_ns = std::stod(ma[1]);
  t.slack_ns = std::stod(mk[1]);
  t.setup_ns = std::regex_search(res.output, ms, setup) ? -std::stod(ms[1]) : 0.0;
  const std::regex start(R"(Startpoint: (\S+))"), end(R"(Endpoint: (\S+))");
  // A flip-flop named by its register (rename -wire) ends in "\\<cell type>".
  auto point = [](const std::string& name) { return name.substr(0, name.find('\\')); };
  if (std::regex_search(res.output, ms, start)) t.startpoint = point(ms[1]);
  if (std::regex_search(res.output, ms, end)) t.endpoint = point(ms[1]);
  return t;
}

}  // namespace fsgen
