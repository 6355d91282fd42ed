// The controller's shared sequencers (src/blocks/ctrl/) on their own, Verilated, against the
// timing the models charge for them: a pass of fsgen_ctrl_pass.v at an array plan's
// parameters lasts tile_cycles(plan, reload), phase by phase; a transfer of
// fsgen_ctrl_rows.v whose DMA answers as the memory does lasts MemoryTiming::row_load_cycles
// per loaded row, row_store_cycles per stored row and two cycles per skipped row.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <sstream>

#include "core/memory_timing.h"
#include "flow/tools.h"
#include "generator/graph.h"
#include "generator/rtl_library.h"
#include "generator/spec.h"
#include "test_util.h"

namespace fsgen {
namespace {
namespace fs = std::filesystem;

// Builds `module` (its file from the embedded library) with parameters `params` and the C++
// testbench `main_cpp` (which includes V<module>.h), runs it with `args` and returns its output.
std::string run_unit(const std::string& module, const std::map<std::string, int>& params, const std::string& main_cpp,
                     const std::string& args = "") {
  const fs::path dir = fs::temp_directory_path() / ("fsgen_test_unit_" + module);
  fs::remove_all(dir);
  fs::create_directories(dir);
  std::ofstream(dir / (module + ".v")) << rtl_library().at(module + ".v");
  std::ofstream(dir / "main.cpp") << main_cpp;
  std::string cmd = "cd " + shell_quote(dir.string()) + " && verilator --cc --exe --build -j 2 -Wall --top-module " +
                    module + " -MAKEFLAGS " + shell_quote("OPT_FAST=-O0 OPT_GLOBAL=-O0" + verilator_objcache());
  for (const auto& [name, value] : params) cmd += " -G" + name + "=" + std::to_string(value);
  cmd += " " + module + ".v main.cpp -o tb 2>&1 && ./obj_dir/tb " + args;
  const CommandResult r = run_command(cmd);
  EXPECT_EQ(r.status, 0) << r.output;
  return r.output;
}

// Two passes back to back in one state (a dot array b's sub-tiles), the first with the
// stationary load, the second without; then a third after the state was left.
const char* kPassBench = R"(#include "Vfsgen_ctrl_pass.h"
#include <cstdio>
int main() {
  Vfsgen_ctrl_pass m;
  auto tick = [&] { m.clk = 0; m.eval(); m.clk = 1; m.eval(); };
  m.rst_n = 0; m.active = 0; m.load = 0; m.stream_end = 0;
  tick(); tick();
  m.rst_n = 1;
  for (int pass = 0; pass < 3; ++pass) {
    m.active = 1; m.load = pass == 0;
    int load = 0, stream = 0, tail = 0, first_k = -1;
    for (int c = 0; c < 1000; ++c) {
      m.clk = 0; m.eval();
      if (m.streaming && first_k < 0) first_k = m.k;
      load += m.loading; stream += m.streaming; tail += m.tailing;
      const bool last = m.last;
      m.clk = 1; m.eval();
      if (last) break;
    }
    std::printf("pass %d %d %d %d %d\n", pass, load, stream, tail, first_k);
    if (pass == 1) { m.active = 0; tick(); tick(); }
  }
  return 0;
}
)";

TEST(ControllerUnits, APassLastsTheArraysTileCycles) {
  if (!test::have_tool("verilator")) GTEST_SKIP() << "verilator not installed (scripts/install-deps.sh)";
  // Array a of the example's input-stationary core: a stationary load, a stream, a tail of two.
  const Graph g = elaborate(parse_spec_file(std::string(FSGEN_SOURCE_DIR) + "/examples/is_16x8.yaml"));
  const ArrayPlan& p = g.array_a;
  ASSERT_GT(p.stationary_rows, 0u);
  const std::string out =
      run_unit("fsgen_ctrl_pass",
               {{"LOAD_ROWS", int(p.stationary_rows)}, {"STREAM", int(p.stream_cycles)}, {"TAIL", int(p.tail_cycles)}},
               kPassBench);
  std::istringstream in(out.substr(out.find("pass 0")));
  for (int pass = 0; pass < 3; ++pass) {
    std::string word;
    int n, load, stream, tail, first_k;
    in >> word >> n >> load >> stream >> tail >> first_k;
    ASSERT_EQ(n, pass) << out;
    const bool reload = pass == 0;
    EXPECT_EQ(uint64_t(load + stream + tail), tile_cycles(p, reload)) << "pass " << pass;
    EXPECT_EQ(load, reload ? int(p.stationary_rows) : 0) << "pass " << pass;
    EXPECT_EQ(stream, int(p.stream_cycles)) << "pass " << pass;
    EXPECT_EQ(tail, int(p.tail_cycles)) << "pass " << pass;
    EXPECT_EQ(first_k, 0) << "pass " << pass << ": the stream starts at step 0";
  }
}

// A DMA that answers a row's command as the memory does: cmd_done in the last cycle of the
// burst (MemoryTiming::read_burst_cycles / write_burst_cycles after the command's cycle).
// Transfers: 3 loaded rows, 4 rows with rows 1 and 2 skipped, 3 stored rows; each in a state
// of its own (active drops for a cycle between them, as the controller's next state).
const char* kRowsBench = R"(#include "Vfsgen_ctrl_rows.h"
#include <cstdio>
#include <cstdlib>
int main(int argc, char** argv) {
  const int read_burst = std::atoi(argv[1]), write_burst = std::atoi(argv[2]);
  Vfsgen_ctrl_rows m;
  auto tick = [&] { m.clk = 0; m.eval(); m.clk = 1; m.eval(); };
  m.rst_n = 0; m.active = 0; m.store = 0; m.clear = 0; m.rows = 0; m.skip = 0; m.cmd_done = 0;
  tick(); tick();
  m.rst_n = 1;
  const int rows[3] = {3, 4, 3};
  for (int t = 0; t < 3; ++t) {
    m.active = 1; m.store = t == 2; m.rows = rows[t];
    int cycles = 0, commands = 0, busy = -1;
    for (int c = 0; c < 10000; ++c) {
      m.clk = 0; m.skip = t == 1 && (m.row == 1 || m.row == 2); m.cmd_done = busy == 1; m.eval();
      ++cycles;
      if (m.issue && !m.skip) { ++commands; busy = m.store ? write_burst : read_burst; }
      else if (busy > 0) --busy;
      const bool last = m.last;
      m.clk = 1; m.eval();
      if (last) break;
    }
    m.active = 0; m.clk = 0; m.eval();
    std::printf("transfer %d %d %d %d\n", t, cycles, commands, int(m.row));
    tick();
  }
  return 0;
}
)";

TEST(ControllerUnits, ATransferLastsTheMemorysRowCycles) {
  if (!test::have_tool("verilator")) GTEST_SKIP() << "verilator not installed (scripts/install-deps.sh)";
  const MemoryTiming mem{7, 8};
  const uint32_t beats = 2;
  const std::string out =
      run_unit("fsgen_ctrl_rows", {}, kRowsBench,
               std::to_string(mem.read_burst_cycles(beats)) + " " + std::to_string(mem.write_burst_cycles(beats)));
  std::istringstream in(out.substr(out.find("transfer 0")));
  const uint64_t expected[3] = {3 * mem.row_load_cycles(beats), 2 * mem.row_load_cycles(beats) + 2 * 2,
                                3 * mem.row_store_cycles(beats)};
  const int commands[3] = {3, 2, 3}, row_after[3] = {0, 0, 2};
  for (int t = 0; t < 3; ++t) {
    std::string word;
    int n, cycles, issued, row;
    in >> word >> n >> cycles >> issued >> row;
    ASSERT_EQ(n, t) << out;
    EXPECT_EQ(uint64_t(cycles), expected[t]) << "transfer " << t;
    EXPECT_EQ(issued, commands[t]) << "transfer " << t;
    EXPECT_EQ(row, row_after[t]) << "transfer " << t << ": a load returns the row to 0, a store holds its last";
  }
}

}  // namespace
}  // namespace fsgen
