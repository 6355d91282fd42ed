// What every PE array kind (pe_array_os, pe_array_rescale, pe_array_dot) declares alike:
// its parameters, its operand ports and its statistics.
#pragma once
#include <vector>

#include "blocks/block_kind.h"

namespace fsgen {

inline std::vector<ParamDecl> pe_array_params() {
  return {{"rows", "PE", "PE rows"},
          {"cols", "PE", "PE columns"},
          {"tile_m", "element", "tile along m"},
          {"tile_n", "element", "tile along n"},
          {"tile_k", "element", "tile along k"},
          {"rescale", "bool", "rows of the output tile can be rescaled by alpha (online softmax)"},
          {"systolic", "bool", "operands move one PE per cycle (skewed feeds)"},
          {"stream_cycles", "cycle", "cycles a tile's operands stream through the array"}};
}

inline std::vector<PortDecl> pe_array_operand_ports() {
  return {{"x", false, "operand x: a column of A (output-stationary) or the streamed vector (dot arrays)"},
          {"w", false, "operand w: a row of B (output-stationary) or the stationary load bus (dot arrays)"}};
}

inline std::vector<StatDecl> pe_array_statistics() {
  return {{"busy_cycles", "cycle", "cycles in which the array streamed a tile's operands"},
          {"operand_bytes", "byte", "operand bytes presented to the array"},
          {"zero_bytes", "byte", "of which zero"}};
}

}  // namespace fsgen
