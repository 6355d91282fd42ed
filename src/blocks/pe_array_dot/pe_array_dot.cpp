// pe_array_dot: a weight- or input-stationary INT8 array of dot-product lanes: the
// stationary operand held in its PEs, the other streamed, one INT32 output per lane.
#include <algorithm>

#include "blocks/pe_array_params.h"

namespace fsgen {

namespace {
// Terms of the energy per PE per cycle (PrimitiveDef::activity_terms). Streaming (v) and
// loading (ld) take separate cycles: v = enable - side. alpha mixes the x bus's toggles in
// streaming cycles with the load bus's in loading ones; at P = 32 the load bus is most of
// the bits, so alpha alone says little of the MACs' switching. r is the toggle rate of a
// bit in a cycle that drives it, the same on both buses as the driver and a controller's
// operands give it (alpha x bits over the bits driven).
std::vector<double> energy_terms(const std::vector<int>& h, const PrimitiveActivity& a) {
  const double p = h[0], k = h[1], load_bytes = h[2] ? p : k;
  const double side = std::min(a.side, a.enable), stream = a.enable - side;
  const double driven = 8 * k * stream + 8 * load_bytes * side;
  const double r = driven > 0 ? a.alpha * 8 * (k + load_bytes) / driven : 0.0;
  const double loaded = side * load_bytes / (p * k);  // the share of PEs a cycle's load writes
  return {stream, stream * r, stream * (1 - a.zeros), stream * r * (1 - a.zeros), loaded, loaded * r, side};
}

PrimitiveDef power_primitive() {
  PrimitiveDef d;
  d.kind = "pe_array_dot", d.module = "fsgen_array_dot";
  // LOAD_COL: 1 the stationary operand loads a column per cycle (weight-stationary), 0 a
  // row (input-stationary). SLOTS, CG: a lane's MACs and their groups (K and 1 dense; fewer
  // in compressed lanes holding N:M weights, e.g. sparse_ws_nm's 8 of 16 in 4 groups).
  d.params = {"P", "K", "LOAD_COL", "SLOTS", "CG"};
  d.defaults = [](const std::map<std::string, int64_t>& params) {
    return std::map<std::string, int64_t>{{"SLOTS", params.at("K")}, {"CG", 1}};
  };
  d.sizes = {{2, 2, 1, 2, 1}, {2, 4, 1, 4, 1},    {4, 2, 1, 2, 1},    {4, 4, 1, 4, 1},  {4, 8, 1, 8, 1},
             {8, 4, 1, 4, 1}, {8, 8, 1, 8, 1},    {16, 16, 1, 16, 1}, {32, 8, 1, 8, 1}, {32, 16, 1, 16, 1},
             {8, 8, 0, 8, 1}, {16, 16, 0, 16, 1}, {8, 16, 1, 8, 4}};
  // The controller streams x (v) and loads the stationary operand (w into column, or row,
  // ld_idx = 0, 1, ...; ld) in separate cycles. The loads are its side enable, a share of
  // the enabled cycles varied by the grid.
  d.enables = {"v", "ld"};
  d.enable_of = {{"x", "v"}, {"w", "ld"}, {"ld_idx", "ld"}};
  d.counters = {{"ld_idx", [](const std::vector<int>& h) { return uint32_t(h[2] ? h[1] : h[0]); }}};
  d.elements = [](const std::vector<int>& h) { return double(h[0]) * h[1]; };
  d.side_enable = "ld";
  d.activity_terms = energy_terms;
  return d;
}

std::vector<PortDecl> ports() {
  std::vector<PortDecl> p = pe_array_operand_ports();
  p.push_back({"y", true, "INT32 dot products, one per lane"});
  return p;
}
}  // namespace

const BlockKind& pe_array_dot_kind() {
  static const BlockKind kind = [] {
    BlockKind k;
    k.name = "pe_array_dot";
    k.description = "weight- or input-stationary INT8 dot-product array: one INT32 output per lane and cycle";
    k.params = pe_array_params();
    k.ports = ports();
    k.statistics = pe_array_statistics();
    k.rtl_files = {"fsgen_array_dot.v"};
    k.module = "fsgen_array_dot";
    k.systemc_model = "src/blocks/pe_array_dot/model.h";
    k.power = power_primitive();
    return k;
  }();
  return kind;
}

}  // namespace fsgen
