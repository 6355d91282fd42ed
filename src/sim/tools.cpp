#include "sim/tools.h"

#include <cstdio>
#include <filesystem>
#include <fstream>
#include <functional>
#include <sstream>

#include "core/error.h"
#include "core/write_file.h"

namespace fsgen {

namespace fs = std::filesystem;

std::string shell_quote(const std::string& s) {
  std::string q = "'";
  for (char c : s) q += (c == '\'') ? std::string("'\\''") : std::string(1, c);
  return q + "'";
}

std::string find_tool(const std::string& name) {
  const char* path = std::getenv("PATH");
  std::stringstream ss(path ? path : "");
  std::string dir;
  while (std::getline(ss, dir, ':')) {
    fs::path p = fs::path(dir) / name;
    if (fs::exists(p)) return p.string();
  }
  return "";
}

std::string require_tool(const std::string& name) {
  const std::string path = find_tool(name);
  if (path.empty()) fail(name, "tool not found on PATH: install it with scripts/install-deps.sh");
  return path;
}

CommandResult run_command(const std::string& command) {
  CommandResult r{0, ""};
  FILE* pipe = popen((command + " 2>&1").c_str(), "r");
  if (!pipe) fail(command, "cannot start command");
  char buf[4096];
  size_t n;
  while ((n = fread(buf, 1, sizeof buf, pipe)) > 0) r.output.append(buf, n);
  const int status = pclose(pipe);
  r.status = WIFEXITED(status) ? WEXITSTATUS(status) : 128;
  return r;
}

std::string read_text_file(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) fail(path, "cannot open file");
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

std::string verilator_objcache() { return find_tool("ccache").empty() ? "" : " OBJCACHE=ccache"; }

namespace {
std::string stamp_of(const std::string& fingerprint) { return std::to_string(std::hash<std::string>{}(fingerprint)); }
}  // namespace

bool stamp_matches(const std::string& stamp_file, const std::string& fingerprint) {
  return fs::exists(stamp_file) && read_text_file(stamp_file) == stamp_of(fingerprint);
}

void write_stamp(const std::string& stamp_file, const std::string& fingerprint) {
  write_text_file(stamp_file, stamp_of(fingerprint), "build stamp");
}

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
  std::string fingerprint = src + "/" + std::to_string(beat_bytes) + "/" + std::to_string(latency) + (trace ? "/trace" : "");
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
                    (trace ? " --trace" : "") +
                    " -Mdir " + shell_quote(obj.string()) + " -I" + shell_quote(design_dir) + " -o fsgen_tb" +
                    " -MAKEFLAGS " + shell_quote("OPT_FAST=" + opt + " OPT_GLOBAL=" + opt + objcache) + " -CFLAGS " +
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

}  // namespace fsgen

namespace fsgen {

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

CommandResult synth_yosys(const std::string& design_dir) {
  const std::string y = require_tool("yosys");
  std::string script = "read_verilog -I" + design_dir;
  for (const auto& e : fs::directory_iterator(design_dir))
    if (e.path().extension() == ".v") script += " " + e.path().string();
  script += "; synth -top fsgen_top; tee -o /dev/stdout stat";
  return run_command(shell_quote(y) + " -q -p " + shell_quote(script));
}

}  // namespace fsgen
