// The output-stationary array's two readings of its accumulate (fsgen_array_os.v): simulation
// runs `base + x * w` as written, synthesis (SYNTHESIS defined) a Booth and carry-save sum.
// Both builds of the module, Verilated, run the same random operands, clears and enables
// against the accumulators computed here in C++.
#include <gtest/gtest.h>

#include <map>
#include <string>
#include <vector>

#include "test_util.h"

namespace fsgen {
namespace {

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

TEST(PeArrayOs, SynthesisAccumulateEqualsTheWrittenOne) {
  if (!test::have_tool("verilator")) GTEST_SKIP() << "verilator not installed (scripts/install-deps.sh)";
  // A 2x2 array, its include from the embedded library; built as simulation and as synthesis read it.
  const std::map<std::string, int> size = {{"R", 2}, {"C", 2}};
  const std::vector<std::string> include = {"fsgen_rescale.vh"};
  for (const std::string reading : {"", "-DSYNTHESIS"})
    EXPECT_NE(test::run_verilated_unit("fsgen_array_os", size, kBench, "", {}, include, reading).find("equal"),
              std::string::npos)
        << (reading.empty() ? "as simulated" : "as synthesised");
}

}  // namespace
}  // namespace fsgen
