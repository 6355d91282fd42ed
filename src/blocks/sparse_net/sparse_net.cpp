// sparse_net: a compute-value sparse network (paper section 4.2) in front of a PE array:
// per operand row and lane, an SK-to-1 pick of the window's non-zero values.
#include "blocks/block_kind.h"
#include "blocks/sparse_net/select_bits.h"

namespace fsgen {

uint32_t select_bits(uint32_t window) {
  uint32_t bits = 1;
  while ((1u << bits) < window) ++bits;
  return bits;
}

namespace {
// ROWS operand rows x LANES lanes, each an SK-to-1 byte pick into a register; its window,
// selects and has bits change with step.
PrimitiveDef power_primitive() {
  PrimitiveDef d;
  d.kind = "sparse_net", d.module = "fsgen_sparse_net";
  d.params = {"ROWS", "SK", "LANES"};
  d.sizes = {
      {2, 2, 1}, {2, 4, 1}, {4, 2, 1}, {4, 4, 1}, {2, 2, 2}, {2, 4, 2}, {4, 2, 2},
      {4, 4, 2}, {2, 2, 4}, {2, 4, 4}, {4, 2, 4}, {4, 4, 4}, {4, 8, 1}, {8, 4, 1},
      {8, 4, 2}, {8, 8, 1}, {4, 4, 8}, {8, 4, 8}, {8, 8, 8}, {8, 16, 8}};  // the last: sparse_attn_d128's windows of 16
  d.fixed = {{"OWN_LANES", 1}};
  d.enables = {"step"};
  d.elements = [](const std::vector<int>& h) { return double(h[0]) * h[2]; };
  d.wiring = {"OWN_LANES", "OWN_MAJOR", "GROUPS", "SELW", "C", "M", "I", "O", "S"};
  d.alpha_ports = {"out_q"};
  d.alpha_at_neighbour = true;
  d.derived = [](const std::vector<int>& h) {
    return std::map<std::string, int64_t>{{"SELW", select_bits(uint32_t(h[1]))}};
  };
  // Area and leakage: a register per output, and an SK-input pick in front of it.
  d.size_terms = [](const std::vector<int>& h) {
    return std::vector<double>{double(h[0]) * h[2], double(h[0]) * h[2] * h[1]};
  };
  return d;
}
}  // namespace

const BlockKind& sparse_net_kind() {
  static const BlockKind kind = [] {
    BlockKind k;
    k.name = "sparse_net";
    k.description = "compute-value sparse network: per operand row and lane, one of a window's values picked per cycle";
    k.params = {{"rows", "element", "operand rows along its own iterator"},
                {"c", "", "copies"},
                {"g", "", "crossbar groups"},
                {"m", "PE", "PEs each output drives"},
                {"i", "element", "window values offered per lane and cycle"},
                {"o", "element", "values used per lane and cycle"},
                {"s", "", "2: systolic forwarding"},
                {"lanes", "lane", "schedule lanes along the partner iterator"}};
    k.ports = {{"win", false, "the operand window of the k step, from the controller"},
               {"out", true, "the picked values, one per row and lane (the array's operand bus)"}};
    k.statistics = {{"windows", "window", "k windows streamed"},
                    {"lane_slots", "lane-cycle", "blocks x stream cycles"},
                    {"lane_issues", "lane-cycle", "lane slots that issued a k step"},
                    {"skipped_steps", "step", "block k steps skipped because an operand was zero"}};
    k.rtl_files = {"fsgen_sparse_net.v", "fsgen_ctrl_window.v"};
    k.module = "fsgen_sparse_net";
    k.systemc_model = "src/blocks/sparse_net/model.h (the sparse array with its value networks)";
    k.power = power_primitive();
    return k;
  }();
  return kind;
}

}  // namespace fsgen
