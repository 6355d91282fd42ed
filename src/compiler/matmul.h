// Lowering of one INT8 matrix multiply C = requant(A x B) onto array a of a design.
#pragma once
#include <cstdint>
#include <string>
#include <vector>

#include "compiler/program.h"
#include "compiler/synthetic.h"
#include "core/ffn_numerics.h"
#include "generator/graph.h"

namespace fsgen {

// The activation epilogue of a matmul (mm_flags bits 1 and 2, docs/NUMERICS.md): the output
// rows pass through the fused core's activation unit as they are stored. C = act(requant(A B))
// by the table; gated, B holds W1's n columns then W3's (k x 2n) and C[:, j] =
// num::ffn_hidden(u_j, g_j): an FFN's up projection, activation and gate product in one kernel.
struct MatmulEpilogue {
  std::string activation;  // silu or gelu; empty: the plain requantisation (req_mult, req_shift)
  bool gated = false;
  num::FfnParams scaling = synthetic_ffn_scaling();  // its u, g and h requantisers
  num::ActivationTable table = {};                   // set by compile_matmul for synthetic operands
  bool active() const { return !activation.empty(); }
};

struct MatmulProblem {
  uint32_t m = 16, n = 16, k = 16;  // C is m x n; B is k x n, or k x 2n with a gated epilogue
  uint16_t req_mult = 1;
  uint8_t req_shift = 6;
  uint64_t seed = 1;
  SyntheticValues values;  // how the synthetic operands are drawn
  bool zeros_in_a = true;  // values.zero_fraction and pattern apply to A
  bool zeros_in_b = true;  // ... and to B
  StructuredPattern pattern;  // N:M along k, after the draw
  MatmulEpilogue epilogue;
  uint32_t b_columns() const { return epilogue.gated ? 2 * n : n; }
};

// Why design g cannot run a matmul with an activation epilogue, gated or not ("" when it can):
// no activation unit (the fused datapath), a matmul tile spanning both arrays, a table that
// does not load in rows of tiling.k, or, gated, a loop order with n outside m.
std::string epilogue_unsupported_why(const Graph& g, bool gated);

// The program: operands placed in memory, registers, output region "C".
// Throws UserError when the problem does not fit the design (dimensions that are
// not multiples of the tiles, too many tiles, accumulator cache too small).
Program compile_matmul(const Graph& g, const MatmulProblem& p, Materialise what = Materialise::kOperands);
// The same with given operands: A [m x k] and B [k x b_columns()], row-major INT8.
Program compile_matmul(const Graph& g, const MatmulProblem& p, const std::vector<int8_t>& a, const std::vector<int8_t>& b);

// Reference output of the program's problem (docs/NUMERICS.md).
std::vector<uint8_t> matmul_expected(const Program& prog, const MatmulProblem& p);

}  // namespace fsgen
