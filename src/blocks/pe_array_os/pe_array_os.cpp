// pe_array_os: an output-stationary INT8 PE array (broadcast or systolic operands), each
// PE accumulating one INT32 output of the tile.
#include "blocks/pe_array_params.h"

namespace fsgen {

namespace {
// What a PE's energy per cycle is made of: its operand registers and multiplier (alpha,
// the enable and the non-zero share of the enabled cycles; a systolic PE's operand
// registers shift them on, SYSTOLIC times each); its accumulator's flip-flops and adder
// (state, and state times the bits at 1 it switches among); and the held bits (the ones
// share, and the enable times it).
std::vector<double> energy_terms(const std::vector<int>& h, const PrimitiveActivity& a) {
  const double systolic = h[2];
  return {a.alpha,
          a.enable,
          a.enable * (1 - a.zeros),
          a.state,
          a.state * a.state_ones,
          a.state_ones,
          a.enable * a.state_ones,
          systolic * a.alpha,
          systolic * a.enable,
          systolic * a.enable * (1 - a.zeros),
          systolic * a.state};
}

PrimitiveDef power_primitive() {
  PrimitiveDef d;
  d.kind = "pe_array_os", d.module = "fsgen_array_os";
  // SYSTOLIC: 0 broadcast, 1 systolic (operand registers in every PE, shifting every
  // cycle): a hyperparameter, so the model learns what the registers cost.
  d.params = {"R", "C", "SYSTOLIC"};
  d.sizes = {{2, 2, 0}, {2, 4, 0}, {4, 2, 0}, {4, 4, 0}, {4, 8, 0}, {8, 4, 0},   {8, 8, 0},
             {2, 2, 1}, {2, 4, 1}, {4, 2, 1}, {4, 4, 1}, {8, 8, 1}, {16, 16, 0}, {16, 16, 1}};
  d.fixed = {{"RESCALE", 0}};
  d.enables = {"en"};
  d.held_low = {"clr", "sc", "alpha", "rd_row"};
  d.elements = [](const std::vector<int>& h) { return double(h[0]) * h[1]; };
  // Lanes (a sparse array's value networks): which lane of the bus each PE of a broadcast
  // array reads. (A systolic array registers every lane in every PE: its characterised
  // sizes have one lane each.)
  d.wiring = {"LM", "LN"};
  d.size_terms = os_array_size_terms;
  d.state_register = "acc";
  d.activity_terms = energy_terms;
  d.port_transit = os_array_port_transit;
  return d;
}
}  // namespace

const BlockKind& pe_array_os_kind() {
  static const BlockKind kind = [] {
    BlockKind k;
    k.name = "pe_array_os";
    k.description = "output-stationary INT8 PE array: each PE accumulates one INT32 output of the tile";
    k.params = pe_array_params();
    k.ports = pe_array_operand_ports();
    k.statistics = pe_array_statistics();
    k.rtl_files = {"fsgen_array_os.v"};
    k.module = "fsgen_array_os";
    k.systemc_model = "src/blocks/pe_array_os/model.h";
    k.power = power_primitive();
    return k;
  }();
  return kind;
}

}  // namespace fsgen
