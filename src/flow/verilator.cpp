#include "flow/verilator.h"

#include <unistd.h>

#include <algorithm>
#include <filesystem>

#include "core/error.h"
#include "core/folder_lock.h"
#include "generator/verilog_emitter.h"

namespace fsgen {

namespace fs = std::filesystem;

namespace {
std::string harness_source_dir() { return std::string(FSGEN_SOURCE_DIR); }
}  // namespace

std::string build_verilator_harness(const std::string& design_dir, unsigned beat_bytes, unsigned latency, bool trace) {
  const std::string verilator = require_tool("verilator");
  const std::string src = harness_source_dir();
  const std::vector<std::string> extra = {src + "/validation/harness/tb_main.cpp", src + "/src/models/run_result.cpp",
                                          src + "/src/compiler/program.cpp"};
  // Their headers change the build too.
  const std::vector<std::string> headers = {src + "/src/models/run_result.h", src + "/src/core/window_series.h",
                                            src + "/src/compiler/program.h"};
  // Rebuild only when the design or the harness changed.
  // The paths too: the build's makefiles name the harness sources where they were.
  std::string fingerprint =
      src + "/" + std::to_string(beat_bytes) + "/" + std::to_string(latency) + (trace ? "/trace" : "");
  std::vector<std::string> verilog;
  for (const auto& e : fs::directory_iterator(design_dir))
    if (e.path().extension() == ".v" || e.path().extension() == ".vh" || e.path().filename() == "probes.h")
      verilog.push_back(e.path().string());
  std::sort(verilog.begin(), verilog.end());
  for (const auto& f : verilog) fingerprint += read_text_file(f);
  for (const auto& f : extra) fingerprint += read_text_file(f);
  for (const auto& f : headers) fingerprint += read_text_file(f);
  const fs::path obj = fs::path(design_dir) / (trace ? "obj_verilator_trace" : "obj_verilator");
  const fs::path exe = obj / "fsgen_tb";
  const std::string stamp_file = (obj / "fsgen_tb.stamp").string();
  if (fs::exists(exe) && stamp_matches(stamp_file, fingerprint)) return exe.string();
  fs::remove_all(obj);  // a stale build's dependency files may name sources that are gone

  // A traced build serves short runs whose VCD writing dominates (golden power, debugging):
  // compiled unoptimised it builds in a fraction of the time.
  const std::string opt = trace ? "-O0" : "-O2";
  // The harness' own sources and Verilator's runtime are the same for every design: with
  // ccache their objects are compiled once.
  const std::string objcache = verilator_objcache();
  std::string cmd = shell_quote(verilator) + " --cc --exe --build -j 2 --top-module fsgen_top -Wno-fatal" +
                    (trace ? " --trace" : "") + " -Mdir " + shell_quote(obj.string()) + " -I" +
                    shell_quote(design_dir) + " -o fsgen_tb" + " -MAKEFLAGS " +
                    shell_quote("OPT_FAST=" + opt + " OPT_GLOBAL=" + opt + objcache) + " -CFLAGS " +
                    shell_quote("-std=c++17 " + opt + " -I" + src + "/src -I" + fs::absolute(design_dir).string() +
                                " -DFSGEN_BEAT_BYTES=" + std::to_string(beat_bytes) +
                                " -DFSGEN_LATENCY=" + std::to_string(latency) + (trace ? " -DFSGEN_TRACE=1" : ""));
  for (const auto& f : verilog)
    if (fs::path(f).extension() == ".v") cmd += " " + shell_quote(f);
  for (const auto& f : extra) cmd += " " + shell_quote(f);
  const CommandResult r = run_command(cmd);
  if (r.status != 0 || !fs::exists(exe)) {
    const std::string tail = r.output.size() > 2000 ? r.output.substr(r.output.size() - 2000) : r.output;
    fail(design_dir, "verilator build of the harness failed:\n" + tail);
  }
  write_stamp(stamp_file, fingerprint);
  return exe.string();
}

namespace {
std::string verilog_sources(const std::string& dir) {
  std::vector<std::string> files;
  for (const auto& e : fs::directory_iterator(dir))
    if (e.path().extension() == ".v") files.push_back(e.path().string());
  std::sort(files.begin(), files.end());
  std::string s;
  for (const auto& f : files) s += " " + shell_quote(f);
  return s;
}
}  // namespace

CommandResult lint_verilog(const std::string& design_dir) {
  const std::string v = require_tool("verilator");
  return run_command(shell_quote(v) + " --lint-only -Wall --top-module fsgen_top -I" + shell_quote(design_dir) +
                     verilog_sources(design_dir));
}

CommandResult synth_yosys(const std::string& design_dir, SynthDepth depth) {
  const std::string y = require_tool("yosys");
  std::string script = "read_verilog -I" + design_dir;
  for (const auto& e : fs::directory_iterator(design_dir))
    if (e.path().extension() == ".v") script += " " + e.path().string();
  script += std::string("; synth -top fsgen_top") + (depth == SynthDepth::kCoarse ? " -run begin:fine" : "") +
            "; tee -o /dev/stdout stat";
  return run_command(shell_quote(y) + " -q -p " + shell_quote(script));
}

namespace {
// The lock of design `design`'s folder under `root`: runs that write the folder or build in
// it (generate, cosim, a parallel test) take turns. It is beside the folder, which
// write_design replaces whole.
FolderLock design_lock(const std::string& root, const std::string& design, const std::string& holder) {
  fs::create_directories(root);
  return FolderLock(root, holder, WhenLocked::kWait, "." + design + ".lock");
}

// The emitted files in dir, written only when any differs, so that a current folder keeps
// its harness builds. Call with the design's lock held.
std::string write_if_stale(const Graph& g, const std::string& dir) {
  if (!design_is_current(g, dir)) write_design(g, dir);
  return dir;
}

// The design's emitted files and harness build in <rtl_root>/<design>, brought up to date
// under the design's lock: the later of two runs finds them current and reuses them. The
// runs themselves share the folder safely (their files are named by process).
std::string current_harness(const Graph& g, const std::string& rtl_root, bool trace) {
  const FolderLock building = design_lock(rtl_root, g.spec.name, "Verilator harness build");
  const std::string dir = write_if_stale(g, (fs::path(rtl_root) / g.spec.name).string());
  return build_verilator_harness(dir, g.memory.beat_bytes, g.memory.latency_cycles, trace);
}
}  // namespace

std::string update_design_folder(const Graph& g, const std::string& root) {
  const FolderLock writing = design_lock(root, g.spec.name, "design folder update");
  return write_if_stale(g, (fs::path(root) / g.spec.name).string());
}

RunResult run_on_verilator(const Graph& g, const Program& p, const std::string& rtl_root, bool probes,
                           const std::string& vcd) {
  const std::string dir = (fs::path(rtl_root) / g.spec.name).string();
  const std::string exe = current_harness(g, rtl_root, !vcd.empty());
  const std::string tag = std::to_string(getpid());
  const std::string prog_file = (fs::path(dir) / ("program." + tag + ".json")).string();
  const std::string result_file = (fs::path(dir) / ("result." + tag + ".bin")).string();
  const std::string vcd_tmp = vcd.empty() ? "" : vcd + ".tmp";  // renamed once the run succeeded
  save_program(p, prog_file);
  const CommandResult r =
      run_command(shell_quote(exe) + " " + shell_quote(prog_file) + " " + shell_quote(result_file) +
                  (probes ? "" : " --no-probes") + (vcd.empty() ? "" : " --vcd " + shell_quote(vcd_tmp)));
  fs::remove(prog_file);
  if (r.status != 0) {
    if (!vcd.empty()) fs::remove(vcd_tmp);
    fail(dir, "verilator run failed: " + r.output);
  }
  if (!vcd.empty()) fs::rename(vcd_tmp, vcd);
  RunResult result = decode_run_result(read_text_file(result_file));
  fs::remove(result_file);
  return result;
}

}  // namespace fsgen
