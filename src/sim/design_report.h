// Human-readable reports of a design: its elaborated graph and sparse plan, and its
// synthesis onto a liberty library (area, memory macros, timing).
#pragma once
#include <ostream>
#include <string>
#include <vector>

#include "generator/graph.h"
#include "power/memory_macro.h"
#include "power/techmap.h"

namespace fsgen {

// The sparse plan: value networks, block TopK's group network, the DMA's skipping.
void print_sparse_plan(const SparsePlan& sp, std::ostream& out);
// The elaborated graph: memory, arrays, reuse, kernels, fused stage cycles, blocks.
void print_graph(const Graph& g, std::ostream& out);
// What `fsgen generate --synth` maps and how.
struct SynthesisRequest {
  std::string liberty;  // "" for the built-in fsgen45
  MacroOptions macros;
  unsigned jobs = 2;                // blocks synthesised at a time
  std::vector<std::string> blocks;  // the blocks to map; empty: every block
};

// A block mapped on its own onto the liberty, for delay at the spec's clock, and timed from
// its ports.
struct BlockSynthesis {
  std::string block;
  ArrayInstance instance;
  TimedNetlist netlist;
  std::string error;  // why its synthesis or timing failed ("" when it did not)
};

struct DesignSynthesis {
  Liberty lib;
  std::vector<std::string> requested;  // the blocks asked for (every block when none was named)
  std::vector<BlockSynthesis> blocks;  // those with logic of their own, mapped and timed
  std::vector<MemoryMacro> macros;     // those that are memory macros (not mapped)
  std::vector<std::string> inside;     // those whose logic is inside the controller's module
  std::vector<std::string> macro_modules;  // the modules the blocks' syntheses left black boxes
};

// Maps each requested block of the generated design in dir (its Verilog written there) onto
// the liberty library, for delay at the spec's clock, `request.jobs` at a time; a block that
// fails keeps its error. UserError for a requested block the design has not.
DesignSynthesis synthesise_design(const Graph& g, const std::string& dir, const SynthesisRequest& request);

// Maps each requested block of the generated design in dir onto the liberty library, for
// delay at the spec's clock, and reports each block's area, cells, critical path and max
// clock, and the max clock of the blocks mapped (the design's when all are): its slowest
// block's; memory macros are reported with the macro model's area. False when a block's
// synthesis failed (its line says why). UserError for a requested block the design has not
// or whose logic is inside another block's module.
bool print_synthesis(const Graph& g, const std::string& dir, const SynthesisRequest& request, std::ostream& out);
// The same checks of the requested blocks alone (before any file is written).
void check_synthesis_request(const Graph& g, const SynthesisRequest& request);

}  // namespace fsgen
