// Helpers shared by the tests.
#pragma once
#include <gtest/gtest.h>
#include <sys/wait.h>

#include <array>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <map>
#include <string>
#include <vector>

#include "core/error.h"
#include "flow/tools.h"
#include "generator/rtl_library.h"

namespace fsgen::test {

// Runs f and returns the UserError message it throws; fails the test if it does not throw.
template <typename F>
std::string error_of(F&& f) {
  try {
    f();
  } catch (const UserError& e) {
    return e.what();
  }
  ADD_FAILURE() << "expected a UserError";
  return "";
}

inline bool have_tool(const std::string& name) {
  return std::system(("command -v " + name + " > /dev/null 2>&1").c_str()) == 0;
}

struct CliRun {
  int status;
  std::string out;  // stdout and stderr
};

// Runs a program with `args` (a shell command line).
inline CliRun run_program(const std::string& program, const std::string& args) {
  CliRun r{0, ""};
  FILE* p = popen((program + " " + args + " 2>&1").c_str(), "r");
  std::array<char, 4096> buf{};
  size_t n;
  while ((n = fread(buf.data(), 1, buf.size(), p)) > 0) r.out.append(buf.data(), n);
  r.status = WEXITSTATUS(pclose(p));
  return r;
}

// Runs the fsgen binary with `args` (a shell command line).
inline CliRun fsgen_cli(const std::string& args) { return run_program(FSGEN_BINARY, args); }

// A fresh folder in the temporary directory for one test's outputs; each test binary has its
// own (FSGEN_TEST_BINARY_TAG), so the sanitized copy of a test can run beside the plain one.
#ifndef FSGEN_TEST_BINARY_TAG
#define FSGEN_TEST_BINARY_TAG ""
#endif
inline std::string scratch_dir(const std::string& name) {
  const auto dir = std::filesystem::temp_directory_path() / ("fsgen_test_" FSGEN_TEST_BINARY_TAG + name);
  std::filesystem::remove_all(dir);
  std::filesystem::create_directories(dir);
  return dir.string();
}

// Where the tests' generated designs and their Verilated builds are kept between runs (rebuilt
// when their sources change).
inline std::string rtl_root() { return (std::filesystem::temp_directory_path() / "fsgen_test_rtl").string(); }

// A matmul-only core whose array a is a 2 x 4 output-stationary array (the smallest the
// power tests characterise and replay at gate level), 2 B/cycle at 500 MHz.
inline std::string tiny_matmul_core_spec() {
  return "name: tiny\nclock_mhz: 500\npe_budget: 64\n"
         "memory: {bandwidth_gbps: 2, latency_cycles: 3, buffer_limit_bytes: 4096}\n"
         "arrays:\n  a: {loop_order: output_stationary, tiling: {m: 2, n: 4, k: 8}}\n"
         "  b: {loop_order: output_stationary, tiling: {m: 2, n: 8, k: 4}}\nkernels: [matmul]\n";
}

// The same core with a weight-stationary dot array a and a flip-flop accumulator cache of
// two 2 x 4 output tiles (64 bytes, below the memory-macro threshold).
inline std::string tiny_ws_core_spec() {
  std::string spec = tiny_matmul_core_spec();
  spec.replace(spec.find("a: {loop_order: output_stationary"), 33, "a: {loop_order: weight_stationary");
  return spec + "caches: {acc_a: 64}\n";
}

// A minimal valid spec; tests replace lines of it to make it invalid.
inline std::string base_spec() {
  return "name: t\n"
         "clock_mhz: 1000\n"
         "pe_budget: 256\n"
         "memory:\n"
         "  bandwidth_gbps: 8\n"
         "  latency_cycles: 4\n"
         "  buffer_limit_bytes: 16384\n"
         "arrays:\n"
         "  a:\n"
         "    loop_order: output_stationary\n"
         "    tiling: {m: 8, n: 8, k: 8}\n"
         "  b:\n"
         "    loop_order: output_stationary\n"
         "    tiling: {m: 8, n: 8, k: 8}\n";
}

// A file's bytes (empty when it cannot be read).
inline std::string read_file(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  return std::string(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
}

inline std::string replace(std::string s, const std::string& from, const std::string& to) {
  const auto pos = s.find(from);
  EXPECT_NE(pos, std::string::npos) << "test spec lacks '" << from << "'";
  if (pos != std::string::npos) s.replace(pos, from.size(), to);
  return s;
}

// The tiny matmul core with the fused datapath on score rows of two keys (TN = 2: the
// smallest softmax unit) and 2-byte beats.
inline std::string tiny_attention_core_spec() {
  std::string spec = tiny_matmul_core_spec();
  spec = replace(spec, "tiling: {m: 2, n: 4, k: 8}", "tiling: {m: 2, n: 2, k: 8}");
  spec = replace(spec, "tiling: {m: 2, n: 8, k: 4}", "tiling: {m: 2, n: 8, k: 2}");
  spec = replace(spec, "kernels: [matmul]", "kernels: [matmul, attention]");
  return replace(spec, "bandwidth_gbps: 2", "bandwidth_gbps: 1");  // 2-byte beats: rows of two
}

// Builds `module` (its file from the embedded library) with parameters `params` and the C++
// testbench `main_cpp` (which includes V<module>.h), runs it with `args` and returns its output.
// `sources` are written beside it; `library` are further files of the embedded library;
// `flags` are further Verilator options (-DSYNTHESIS).
inline std::string run_verilated_unit(const std::string& module, const std::map<std::string, int>& params,
                                      const std::string& main_cpp, const std::string& args = "",
                                      const std::map<std::string, std::string>& sources = {},
                                      const std::vector<std::string>& library = {}, const std::string& flags = "") {
  // A folder of the test's own: ctest runs the tests of one module in parallel.
  const std::string test = ::testing::UnitTest::GetInstance()->current_test_info()->name();
  const std::filesystem::path dir = std::filesystem::temp_directory_path() / ("fsgen_test_unit_" + module + "_" + test);
  std::filesystem::remove_all(dir);
  std::filesystem::create_directories(dir);
  std::string files;
  for (const auto& [name, text] : sources) std::ofstream(dir / name) << text, files += " " + name;
  for (const std::string& name : library) std::ofstream(dir / name) << rtl_library().at(name), files += " " + name;
  if (sources.empty()) {
    std::ofstream(dir / (module + ".v")) << rtl_library().at(module + ".v");
    files = " " + module + ".v";
  }
  std::ofstream(dir / "main.cpp") << main_cpp;
  std::string cmd = "cd " + shell_quote(dir.string()) + " && verilator --cc --exe --build -j 2 -Wall --top-module " +
                    module + " -MAKEFLAGS " + shell_quote("OPT_FAST=-O0 OPT_GLOBAL=-O0" + verilator_objcache());
  for (const auto& [name, value] : params) cmd += " -G" + name + "=" + std::to_string(value);
  if (!flags.empty()) cmd += " " + flags;
  cmd += files + " main.cpp -o tb 2>&1 && ./obj_dir/tb " + args;
  const CommandResult r = run_command(cmd);
  EXPECT_EQ(r.status, 0) << r.output;
  return r.output;
}

}  // namespace fsgen::test
