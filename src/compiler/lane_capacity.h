// What a compressed weight-stationary array can hold (docs/SPARSITY.md): each lane keeps
// SLOTS / CG of every K / CG values along k (ArraySparsity::slots, slot_groups), so the
// operand it holds stationary must promise no more. The compiler checks the operands it
// lays out for such a design and names the first lane that does not fit.
#pragma once
#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "generator/graph.h"

namespace fsgen {

// `lanes` lanes of `k` values of `m`: value t of lane l at m[l * lane_stride + t * k_stride].
// `what` names the operand in the error ("matmul operand B", "attention K of KV head 0").
void require_lanes_fit(const Graph& g, const std::vector<int8_t>& m, uint32_t lanes, uint32_t k, size_t lane_stride,
                       size_t k_stride, const std::string& what);

}  // namespace fsgen
