// Lowering of one FFN block (tokens x hidden) onto a design's fused datapath:
// array a computes U = X W1^T (and the gate X W3^T) tile by tile over the FFN
// width, the activation unit applies a table, array b accumulates Y = H W2, and
// the output is requantised and added to the residual. hidden = arrays.a.tiling.k.
#pragma once
#include <cstdint>
#include <string>
#include <vector>

#include "compiler/program.h"
#include "compiler/synthetic.h"
#include "core/ffn_numerics.h"
#include "generator/graph.h"

namespace fsgen {

struct FfnProblem {
  uint32_t tokens = 8;
  uint32_t ffn = 24;  // FFN width (intermediate size)
  bool gated = true;
  std::string activation = "silu";
  bool residual = true;
  uint64_t seed = 1;
  SyntheticValues values;  // how the synthetic operands are drawn
  StructuredPattern weight_pattern;  // synthetic W1 and W3 pruned N:M along the hidden dim (their k)
};

struct CompiledFfn {
  Program program;
  std::vector<uint8_t> expected;  // reference Y, [token][hidden] (empty for a layout-only program)
};

CompiledFfn compile_ffn(const Graph& g, const FfnProblem& p, Materialise what = Materialise::kOperands);

}  // namespace fsgen
