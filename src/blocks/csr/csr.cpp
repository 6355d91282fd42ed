// csr: the AXI4-Lite register file, generated from the register map (src/core/regmap.h) by
// the Verilog emitter (no module file of its own).
#include "blocks/block_kind.h"

namespace fsgen {

namespace {
// The AXI4-Lite register file (fsgen_csr, generated from src/core/regmap.h): the same in
// every core, a structural primitive of one size.
PrimitiveDef power_primitive() {
  PrimitiveDef d;
  d.kind = "csr", d.module = "fsgen_csr";
  d.sizes = {{}};
  d.enables = {};
  d.elements = [](const std::vector<int>&) { return 1.0; };
  d.size_terms = [](const std::vector<int>&) { return std::vector<double>{}; };
  d.driver = PrimitiveDef::kIdleClock;
  return d;
}
}  // namespace

const BlockKind& csr_kind() {
  static const BlockKind kind = [] {
    BlockKind k;
    k.name = "csr";
    k.description = "AXI4-Lite register file (src/core/regmap.h)";
    k.params = {{"data_width", "bit", "AXI4-Lite data width"}};
    k.module = "fsgen_csr";
    k.systemc_model = "src/models/core_model.h (Csr)";
    k.power = power_primitive();
    return k;
  }();
  return kind;
}

}  // namespace fsgen
