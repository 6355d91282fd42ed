// Lowering of one INT8 matrix multiply C = requant(A x B) onto array a of a design.
#pragma once
#include <cstdint>
#include <string>
#include <vector>

#include "compiler/program.h"
#include "compiler/synthetic.h"
#include "generator/graph.h"

namespace fsgen {

struct MatmulProblem {
  uint32_t m = 16, n = 16, k = 16;
  uint16_t req_mult = 1;
  uint8_t req_shift = 6;
  uint64_t seed = 1;
  SyntheticValues values;  // how the synthetic operands are drawn
  bool zeros_in_a = true;  // values.zero_fraction and pattern apply to A
  bool zeros_in_b = true;  // ... and to B
  StructuredPattern pattern;  // N:M along k, after the draw
};


// The program: operands placed in memory, registers, output region "C".
// Throws UserError when the problem does not fit the design (dimensions that are
// not multiples of the tiles, too many tiles, accumulator cache too small).
Program compile_matmul(const Graph& g, const MatmulProblem& p, Materialise what = Materialise::kOperands);
// The same with given operands: A [m x k] and B [k x n], row-major INT8.
Program compile_matmul(const Graph& g, const MatmulProblem& p, const std::vector<int8_t>& a, const std::vector<int8_t>& b);

// Reference output of the program's problem (docs/NUMERICS.md).
std::vector<uint8_t> matmul_expected(const Program& prog, const MatmulProblem& p);

}  // namespace fsgen
