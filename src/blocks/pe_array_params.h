// What every PE array kind (pe_array_os, pe_array_rescale, pe_array_dot) declares alike:
// its parameters, its operand ports and its statistics; and what the output-stationary
// kinds' power primitives (hyperparameters R, C, SYSTOLIC) share.
#pragma once
#include <cstdint>
#include <string>
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

// An output-stationary array's area and leakage terms at h = (R, C, SYSTOLIC, ...): a MAC
// and accumulator per PE, and a systolic PE's operand registers.
inline std::vector<double> os_array_size_terms(const std::vector<int>& h) {
  return {double(h[0]) * h[1], double(h[0]) * h[1] * h[2]};
}

// Cycles an operand takes across an output-stationary array at h = (R, C, SYSTOLIC, ...)
// (PrimitiveDef::port_transit): a broadcast array's PEs all read the ports; a systolic
// one's x crosses its C columns, w its R rows.
inline uint32_t os_array_port_transit(const std::vector<int>& h, const std::string& port) {
  if (h[2] == 0) return 1;
  return uint32_t(port == "x" ? h[1] : port == "w" ? h[0] : 1);
}

}  // namespace fsgen
