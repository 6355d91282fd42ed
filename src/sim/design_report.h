// Human-readable reports of a design: its elaborated graph and sparse plan, and its
// synthesis onto a liberty library (area, memory macros, timing).
#pragma once
#include <ostream>
#include <string>

#include "generator/graph.h"
#include "power/memory_macro.h"

namespace fsgen {

// The sparse plan: value networks, block TopK's group network, the DMA's skipping.
void print_sparse_plan(const SparsePlan& sp, std::ostream& out);
// The elaborated graph: memory, arrays, reuse, kernels, fused stage cycles, blocks.
void print_graph(const Graph& g, std::ostream& out);
// Maps each block of the generated design in dir onto a liberty library ("" for the
// built-in fsgen45), for delay at the spec's clock, `jobs` blocks at a time, and reports
// each block's area, cells, critical path and max clock, and the design's max clock (its
// slowest block's); its memory macros are reported with the macro model's area. False
// when a block's synthesis failed (its line says why).
bool print_synthesis(const Graph& g, const std::string& dir, const std::string& liberty_file, const MacroOptions& mo,
                     unsigned jobs, std::ostream& out);

}  // namespace fsgen
