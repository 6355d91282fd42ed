// softmax: the fused datapath's middle unit: one score row per cycle through the
// fixed-point online softmax (attention) or the activation table and gate (FFN).
#include "blocks/block_kind.h"
#include "core/regmap.h"

namespace fsgen {

TestbenchDriver softmax_rows_driver();  // testbench.cpp

namespace {
// Rows of TN INT32 scores, driven as its controller drives it (testbench.cpp, "softmax_rows"):
// realistic score rows, the kernel's scaling and table held, its outputs fed back as running
// state. MODE, held on its ports: 0 attention (the online softmax), 1 FFN (the activation
// table, and the gate passes, which multiply by the stored activations: its side enable).
// Its alpha is measured on the score row, the bus the SystemC model probes as its input.
// Sizes: rows of 1 to 16 scores, the examples' (TN = 2 is about 24,000 cells; its area
// mapping takes half a minute, docs/POWER.md "Area mapping"); WIN, a causal sliding window
// of that many keys (0: none; its mask compares each score's key with the query's position),
// at the sliding-window example's 24 on rows of 4 and 8.
PrimitiveDef power_primitive() {
  PrimitiveDef d;
  d.kind = "softmax", d.module = "fsgen_softmax";
  d.params = {"TN", "MODE", "WIN"};
  d.sizes = {{1, 0, 0}, {1, 1, 0},  {2, 0, 0},  {2, 1, 0},  {4, 0, 0},  {4, 1, 0},  {8, 0, 0},
             {8, 1, 0}, {16, 0, 0}, {16, 1, 0}, {4, 0, 24}, {4, 1, 24}, {8, 0, 24}, {8, 1, 24}};
  d.enables = {"ld"};
  d.elements = [](const std::vector<int>& h) { return double(h[0]); };
  d.alpha_ports = {"row"};
  // Area and leakage: the fit's constant (the row's shared max, sum and rescale), a score's
  // scaling, exponentials and table per score, and with a window its mask's comparison.
  d.size_terms = [](const std::vector<int>& h) {
    return std::vector<double>{double(h[0]), h[2] > 0 ? double(h[0]) : 0.0};
  };
  d.driver = "softmax_rows";
  d.side_enable = "gate";
  d.held_params = {"MODE"};
  d.held_in_kernel = [](uint32_t kernel) {
    return std::vector<int64_t>{kernel == uint32_t(reg::Kernel::kFfn) ? 1 : 0};
  };
  d.probes = {"in"};
  d.extra_toggle_rates = {0.5};
  return d;
}
}  // namespace

const BlockKind& softmax_kind() {
  static const BlockKind kind = [] {
    BlockKind k;
    k.name = "softmax";
    k.description =
        "one score row per cycle: fixed-point online softmax (attention) or the activation table and gate (FFN)";
    k.params = {{"lanes", "element", "scores per row"}};
    k.ports = {{"in", false, "INT32 score row from array a"}, {"out", true, "Q0.7 probability row"}};
    k.statistics = {{"busy_cycles", "cycle", "cycles in which a score row was loaded"},
                    {"operand_bytes", "byte", "score bytes presented"},
                    {"zero_bytes", "byte", "of which zero"}};
    k.rtl_files = {"fsgen_softmax.v"};
    k.module = "fsgen_softmax";
    k.systemc_model = "src/models/core_model.h (FusedCore::softmax)";
    k.power = power_primitive();
    k.testbench = softmax_rows_driver();
    return k;
  }();
  return kind;
}

}  // namespace fsgen
