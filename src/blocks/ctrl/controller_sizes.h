// What the two controller primitives (ctrl, fused_ctrl: fsgen_ctrl.v) share in their
// catalogs: their hyperparameters beyond the tiles and slots, and how a catalog size is
// written as a base and the parameters an example design's controller differs in.
#pragma once
#include <map>
#include <string>
#include <vector>

#include "blocks/power_primitive.h"

namespace fsgen {

// fsgen_ctrl's parameters that only cores with sparse value networks (SPARSE, SK, LM, LN,
// XSP, WSP), block top-k (GRP, TOPK, GT) or a sliding window (WIN) set: the module's
// defaults, which an instance without them has; and its operand buffers in its netlist
// (MACROS 0: PrimitiveDef::macro_param) unless the design's are SRAM macros.
inline std::map<std::string, int64_t> controller_optional_params() {
  return {{"WIN", 0}, {"SPARSE", 0}, {"SK", 1},   {"LM", 1}, {"LN", 1},    {"XSP", 0},
          {"WSP", 0}, {"GRP", 0},    {"TOPK", 1}, {"GT", 2}, {"MACROS", 0}};
}

// The size of controller primitive `def` whose first hyperparameters are `base` (the
// tiles and slots), its others at `plain` (what a core of those tiles has without caches,
// sparsity or top-k) but for `variant`.
inline std::vector<int> controller_size(const PrimitiveDef& def, const std::vector<int>& base,
                                        const std::map<std::string, int>& plain,
                                        const std::map<std::string, int>& variant) {
  for (const auto& [name, value] : variant) def.param_at(name);  // each one of def's
  std::vector<int> h = base;
  for (size_t i = base.size(); i < def.params.size(); ++i) {
    const std::string& name = def.params[i];
    const auto v = variant.find(name);
    h.push_back(v != variant.end() ? v->second : plain.at(name));
  }
  return h;
}

}  // namespace fsgen
