// pe_array_rescale: the fused attention's array b, an output-stationary array whose rows
// of accumulators can be multiplied by a Q0.15 factor each (the online softmax's rescale).
// Its Verilog is pe_array_os's module with RESCALE = 1; fsgen_rescale.vh is the rescale's
// one definition, shared by every module that rescales.
#include "blocks/pe_array_params.h"

namespace fsgen {

namespace {
// What a PE's energy per cycle is made of: its operand registers and multiplier (alpha,
// the enable and the non-zero share of the enabled cycles); its accumulator's flip-flops
// (state) and the rescale multiplier behind them, whose partial products switch with an
// accumulator bit where the factor's bit is 1 (state x factor_ones) and with a factor bit
// where the accumulator's is 1 (factor x state_ones); the rescale steps (side, and side
// times either operand's ones); the held bits (the ones shares, and enable times them); and
// a systolic PE's operand registers, which shift the operands on (SYSTOLIC times each).
std::vector<double> energy_terms(const std::vector<int>& h, const PrimitiveActivity& a) {
  const double systolic = h[2];
  return {a.alpha,
          a.enable,
          a.enable * (1 - a.zeros),
          a.state,
          a.state * a.state_ones,
          a.state * a.factor_ones,
          a.factor,
          a.factor * a.state_ones,
          a.side,
          a.side * a.state_ones,
          a.side * a.factor_ones,
          a.state_ones,
          a.factor_ones,
          a.enable * a.state_ones,
          systolic * a.alpha,
          systolic * a.enable,
          systolic * a.enable * (1 - a.zeros)};
}

// Each PE's accumulator also feeds a multiplier by its row's factor alpha, switching with
// every accumulation, whose product replaces the accumulator in the steps sc qualifies (the
// first of every key tile but the first). Driven as the plain array, with sc a share of the
// enabled cycles (its side enable) and the factors redrawn at it (gate_sim.h); its alpha on
// x and w, as probed; its accumulators' toggles a feature (state): a rescale step's and the
// multipliers' switching follow the values they hold.
PrimitiveDef power_primitive() {
  PrimitiveDef d;
  d.kind = "pe_array_rescale", d.module = "fsgen_array_os";
  // SYSTOLIC: 0 broadcast, 1 systolic operands (as pe_array_os).
  d.params = {"R", "C", "SYSTOLIC"};
  d.sizes = {{2, 2, 0}, {2, 4, 0}, {4, 2, 0}, {4, 4, 0}, {8, 8, 0}, {16, 16, 0}, {4, 4, 1}, {16, 16, 1}};
  d.fixed = {{"RESCALE", 1}};
  d.enables = {"en"};
  d.held_low = {"clr", "rd_row"};
  d.elements = [](const std::vector<int>& h) { return double(h[0]) * h[1]; };
  d.side_enable = "sc";
  d.factor_port = "alpha";
  d.state_register = "acc";
  d.activity_terms = energy_terms;
  d.size_terms = os_array_size_terms;
  d.port_transit = os_array_port_transit;
  return d;
}

std::vector<PortDecl> ports() {
  std::vector<PortDecl> p = pe_array_operand_ports();
  // The rescale multipliers (acc x alpha, combinational) switch when the controller writes
  // a row's factor in the softmax pass, cycles before the array streams.
  p.push_back({"alpha", false, "Q0.15 rescale factor per query row, written in the softmax pass"});
  return p;
}
}  // namespace

const BlockKind& pe_array_rescale_kind() {
  static const BlockKind kind = [] {
    BlockKind k;
    k.name = "pe_array_rescale";
    k.description = "output-stationary INT8 PE array whose accumulator rows rescale by alpha (O = alpha O + P V)";
    k.params = pe_array_params();
    k.ports = ports();
    k.statistics = pe_array_statistics();
    k.rtl_files = {"fsgen_rescale.vh"};
    k.module = "fsgen_array_os";
    k.systemc_model = "src/blocks/pe_array_os/model.h (Accumulate::kRescale)";
    k.power = power_primitive();
    return k;
  }();
  return kind;
}

}  // namespace fsgen
