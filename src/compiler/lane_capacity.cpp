#include "compiler/lane_capacity.h"

#include "core/error.h"

namespace fsgen {

void require_lanes_fit(const Graph& g, const std::vector<int8_t>& m, uint32_t lanes, uint32_t k, size_t lane_stride,
                       size_t k_stride, const std::string& what) {
  const ArraySparsity& sp = g.array_a.sparse;
  if (!sp.holds_compressed()) return;
  const uint32_t rows = g.array_a.spec.tile_k / sp.slot_groups(), slots = sp.slots() / sp.slot_groups();
  for (uint32_t l = 0; l < lanes; ++l)
    for (uint32_t t0 = 0; t0 < k; t0 += rows) {
      uint32_t nonzero = 0;
      for (uint32_t t = t0; t < t0 + rows && t < k; ++t) nonzero += m[l * lane_stride + t * k_stride] != 0;
      if (nonzero > slots)
        fail(what, "lane " + std::to_string(l) + ", values " + std::to_string(t0) + ".." + std::to_string(t0 + rows - 1) +
                       " hold " + std::to_string(nonzero) + " non-zeros; the lanes of design '" + g.spec.name + "' hold " +
                       std::to_string(slots) + " of every " + std::to_string(rows) + " (prune it to the pattern " +
                       sp.w_condition + " first)");
    }
}

}  // namespace fsgen
