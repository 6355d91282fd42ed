// requant: INT32 -> INT8 requantisation of one output row. Its logic is inside the
// controller's module (fsgen_ctrl.v includes fsgen_requant.vh, the rounding's one Verilog
// definition, shared with the softmax unit) and is priced with the controller.
#include "blocks/block_kind.h"

namespace fsgen {

const BlockKind& requant_kind() {
  static const BlockKind kind = [] {
    BlockKind k;
    k.name = "requant";
    k.description = "INT32 -> INT8 requantisation of one output row (docs/NUMERICS.md)";
    k.params = {{"lanes", "element", "outputs per row"}};
    k.ports = {{"in", false, "accumulator row"}, {"out", true, "INT8 output row"}};
    k.rtl_files = {"fsgen_requant.vh"};
    k.host_module = "fsgen_ctrl";
    k.priced_with_host = true;
    k.systemc_model = "src/models/core_model.h (FusedCore::store rows)";
    return k;
  }();
  return kind;
}

}  // namespace fsgen
