// The output-stationary array's two readings of its accumulate (fsgen_array_os.v): simulation
// runs `base + x * w` as written, synthesis (SYNTHESIS defined) a Booth and carry-save sum.
// Both builds of the module, Verilated, run the same random operands, clears and enables
// against the accumulators computed here in C++.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>

#include "flow/tools.h"
#include "generator/rtl_library.h"
#include "test_util.h"

namespace fsgen {
namespace {
namespace fs = std::filesystem;

// A 2x2 broadcast array: operands from a fixed generator, the edges (-128, 127, 0) one cycle
// in four; clear one cycle in 32, enable off one in 8. Prints the first mismatch or "equal".
const char* kBench = R"(#include "Vfsgen_array_os.h"
#include <cstdint>
#include <cstdio>
int main() {
  Vfsgen_array_os m;
  uint64_t s = 12345;
  auto next = [&] { s = s * 6364136223846793005ULL + 1442695040888963407ULL; return s >> 33; };
  auto operand = [&] { const uint32_t r = next(); const int8_t edge[3] = {-128, 127, 0};
                       return (r & 3) == 0 ? edge[(r >> 2) % 3] : int8_t(r >> 8); };
  uint32_t acc[2][2] = {};
  m.rst_n = 0; m.clk = 0; m.eval(); m.clk = 1; m.eval(); m.rst_n = 1;
  for (long cycle = 0; cycle < 2000000; ++cycle) {
    const int8_t x[2] = {operand(), operand()}, w[2] = {operand(), operand()};
    const uint32_t r = next();
    m.en = (r & 7) != 0; m.clr = ((r >> 3) & 31) == 0; m.sc = 0;
    m.x = uint8_t(x[0]) | uint32_t(uint8_t(x[1])) << 8; m.w = uint8_t(w[0]) | uint32_t(uint8_t(w[1])) << 8;
    m.clk = 0; m.eval(); m.clk = 1; m.eval();
    for (int i = 0; i < 2; ++i)
      for (int j = 0; j < 2; ++j)
        if (m.en) acc[i][j] = (m.clr ? 0u : acc[i][j]) + uint32_t(int32_t(x[i]) * int32_t(w[j]));
    for (int i = 0; i < 2; ++i) {
      m.rd_row = i; m.clk = 0; m.eval();
      for (int j = 0; j < 2; ++j)
        if (uint32_t(m.rd_data >> (32 * j)) != acc[i][j]) {
          std::printf("cycle %ld PE(%d,%d): %08x, expected %08x\n", cycle, i, j, uint32_t(m.rd_data >> (32 * j)), acc[i][j]);
          return 1;
        }
    }
  }
  std::printf("equal\n");
  return 0;
}
)";

// Builds the array (2x2, its file and include from the embedded library) with `defines` and
// runs the bench; returns its output.
std::string run_array(const std::string& name, const std::string& defines) {
  const fs::path dir = fs::temp_directory_path() / ("fsgen_test_array_os_" + name);
  fs::remove_all(dir);
  fs::create_directories(dir);
  for (const char* file : {"fsgen_array_os.v", "fsgen_rescale.vh"}) std::ofstream(dir / file) << rtl_library().at(file);
  std::ofstream(dir / "main.cpp") << kBench;
  const std::string cmd = "cd " + shell_quote(dir.string()) +
                          " && verilator --cc --exe --build -j 2 -Wall -GR=2 -GC=2 --top-module fsgen_array_os " +
                          defines + " -MAKEFLAGS " + shell_quote("OPT_FAST=-O1 OPT_GLOBAL=-O1" + verilator_objcache()) +
                          " fsgen_array_os.v main.cpp -o tb 2>&1 && ./obj_dir/tb";
  const CommandResult r = run_command(cmd);
  EXPECT_EQ(r.status, 0) << r.output;
  return r.output;
}

TEST(PeArrayOs, SynthesisAccumulateEqualsTheWrittenOne) {
  if (!test::have_tool("verilator")) GTEST_SKIP() << "verilator not installed (scripts/install-deps.sh)";
  EXPECT_NE(run_array("simulation", "").find("equal"), std::string::npos);
  EXPECT_NE(run_array("synthesis", "-DSYNTHESIS").find("equal"), std::string::npos);
}

}  // namespace
}  // namespace fsgen
