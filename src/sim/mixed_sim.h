// Mixed-level co-simulation (fsgen simulate --rtl): a kernel on the SystemC platform with
// some blocks as their Verilated RTL (flow/rtl_block.h) inside the same simulation, checked
// against the all-model run: outputs, cycles, every probe, the RTL blocks' port toggles
// against the model's probes, and each RTL block's outputs against its model's, cycle by cycle.
#pragma once
#include <string>
#include <vector>

#include "compiler/program.h"
#include "generator/graph.h"
#include "models/platform.h"
#include "models/rtl_ports.h"
#include "sim/cosim.h"

namespace fsgen {

// A block to simulate as RTL: its name in the graph and the Verilog to build it from (empty:
// the module fsgen generates for it).
struct RtlChoice {
  std::string block;
  std::string verilog;
};

// --rtl's value: block[=file.v] separated by commas, or `arrays` (every PE array of the design
// that can run as RTL), or `core` alone (the whole core, fsgen_top, from the design's Verilog).
// Throws UserError naming what is wrong.
std::vector<RtlChoice> parse_rtl_choices(const std::string& text, const Graph& g);

// Why a block of the design cannot run as RTL in a mixed-level run ("" when it can: the PE
// arrays, unless value networks that skip steps feed them, the softmax unit, the DMA and the
// whole core), and the blocks that can.
std::string why_not_rtl(const Graph& g, const std::string& block);
std::vector<std::string> rtl_capable_blocks(const Graph& g);

// Builds the chosen blocks' libraries under <rtl_root>/<design>/rtl_blocks (the generated
// modules come from the design's folder there) and returns the platform's options for them.
SimOptions build_rtl_options(const Graph& g, const std::vector<RtlChoice>& choices, const std::string& rtl_root);

// The kernel on the all-model platform and on the mixed one, compared (expected: the C++
// reference's output bytes).
CosimReport run_mixed(const Graph& g, const Program& p, const std::vector<uint8_t>& expected,
                      const std::vector<RtlChoice>& choices, const std::string& rtl_root);

}  // namespace fsgen
