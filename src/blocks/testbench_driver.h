// A block kind's gate-level testbench driver: the C++ text of a Verilator testbench that
// drives the kind's synthesised netlist the way its neighbours drive it in a design (the
// DMA's controller and AXI slave; the softmax unit's score rows), instead of random ports.
// The power flow (src/power/gate_sim.cpp) writes the testbench around it: main's
// arguments, the random engine and the counters the driver updates (enabled, side,
// zero_bytes, data_bytes), the clock edges and the VCD.
#pragma once
#include <cstddef>
#include <functional>
#include <map>
#include <string>

namespace fsgen {

// Cycles with the reset port low at a testbench's start: not counted, not traced as the
// kernel's.
constexpr unsigned kTestbenchResetCycles = 2;

// The netlist's top-level ports, name -> width in bits.
using TestbenchPorts = std::map<std::string, size_t>;

struct TestbenchDriver {
  std::string name;     // PrimitiveDef::driver: "axi_dma", "softmax_rows"
  std::string helpers;  // C++ before main: includes and helper functions
  // In main, after the stimulus' arguments and the random engine, before the cycle loop.
  std::function<std::string(const TestbenchPorts&)> declarations;
  // The body of the cycle loop before the falling clock edge: the cycle's inputs.
  std::function<std::string(const TestbenchPorts&)> cycle;
  // After the falling edge's evaluation, before the rising one ("" for none).
  std::function<std::string()> settled;
};

// C++ statements for one data port (`width` bits) in an enabled cycle: every bit flips with
// the toggle rate (`flip`, a draw in the testbench), then every byte is forced to zero with
// the zero fraction; the port's zero and data bytes are counted. While `filling` (a
// condition in the testbench, "" never) no byte is forced to zero nor counted: the cycles
// that give the rescaling array's accumulators their values, whatever the zero fraction.
std::string drive_data_port(const std::string& name, size_t width, const std::string& flip = "flip(rng)",
                            const std::string& filling = "");

}  // namespace fsgen
