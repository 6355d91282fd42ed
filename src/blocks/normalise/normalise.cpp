// normalise: the fused kernels' output stage, one row per cycle: O / l rounded (attention)
// or requantised O (FFN), plus the residual. Inside the controller's module; priced with
// the fused controller.
#include "blocks/block_kind.h"

namespace fsgen {

const BlockKind& normalise_kind() {
  static const BlockKind kind = [] {
    BlockKind k;
    k.name = "normalise";
    k.description = "one output row per cycle: O / l rounded (attention) or requantised O (FFN), plus the residual";
    k.params = {{"lanes", "element", "outputs per row"}};
    k.ports = {{"in", false, "INT32 O row from array b"}, {"out", true, "INT8 output row"}};
    k.statistics = {{"busy_cycles", "cycle", "cycles in which the dividers took or gave a row's running sum"}};
    k.rtl_files = {"fsgen_normalise.vh"};
    k.host_module = "fsgen_ctrl";
    k.priced_with_host = true;
    k.systemc_model = "src/models/core_model.h (FusedCore::store_o_rows)";
    return k;
  }();
  return kind;
}

}  // namespace fsgen
