// clock_gate: the integrated clock gate that register groups written under
// FSGEN_GATED_ALWAYS (fsgen_clock_gate.vh) are clocked through when FSGEN_CLOCK_GATES is
// defined (a latch and an AND as Verilog, the library's clock-gating cell in synthesis onto a
// liberty; without it the groups are enabled registers on clk). It has no power primitive:
// it is priced inside the block that holds it.
#include "blocks/block_kind.h"

namespace fsgen {

const BlockKind& clock_gate_kind() {
  static const BlockKind kind = [] {
    BlockKind k;
    k.name = "clock_gate";
    k.description = "integrated clock gate: clk passes to its registers only in cycles that write them";
    k.ports = {{"en", false, "the gated registers take a value at this rising edge"},
               {"gclk", true, "the gated clock"}};
    k.rtl_files = {"fsgen_clock_gate.v", "fsgen_clock_gate.vh"};
    k.module = "fsgen_clock_gate";
    k.systemc_model = "none: it changes no value, only which clock pins switch";
    return k;
  }();
  return kind;
}

}  // namespace fsgen
