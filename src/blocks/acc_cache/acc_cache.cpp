// acc_cache: the accumulator cache behind a dot array: a register file of output tiles to
// which the array's INT32 lanes are added row by row (array b: rows rescaled by alpha).
#include "blocks/block_kind.h"

namespace fsgen {

namespace {
// A register file of SLOTS tiles of TM x TN INT32 cells behind a weight-stationary dot
// array: each write (wr) adds a row of TN lanes to row wr_idx of slot wr_slot, as the
// controller drives it from the array's y (the data changes with wr; rows and slots count
// through the tile); rd_row reads the rows out. Its alpha is measured on the written lanes
// (wr_data), the bus the SystemC model probes as the array's y.
PrimitiveDef power_primitive() {
  PrimitiveDef d;
  d.kind = "acc_cache", d.module = "fsgen_acc_cache";
  d.params = {"TM", "TN", "SLOTS"};
  d.sizes = {{2, 2, 1}, {2, 4, 1}, {4, 2, 1}, {4, 4, 1}, {2, 2, 2}, {4, 2, 2}, {4, 4, 2}, {2, 2, 4}, {4, 4, 4}};
  d.fixed = {{"ROWWISE", 1}, {"RESCALE", 0}};
  d.enables = {"wr"};
  d.held_low = {"sc", "alpha", "wr_off"};
  d.enable_of = {{"wr_data", "wr"}, {"first", "wr"},  {"wr_idx", "wr"},
                 {"wr_slot", "wr"}, {"rd_row", "wr"}, {"rd_slot", "wr"}};
  const auto tm = [](const std::vector<int>& h) { return uint32_t(h[0]); };
  const auto slots = [](const std::vector<int>& h) { return uint32_t(h[2]); };
  d.counters = {{"wr_idx", tm}, {"rd_row", tm}, {"wr_slot", slots}, {"rd_slot", slots}};
  d.elements = [](const std::vector<int>& h) { return double(h[0]) * h[1] * h[2]; };
  d.alpha_ports = {"wr_data"};
  d.alpha_at_neighbour = true;
  d.derived = [](const std::vector<int>& h) { return std::map<std::string, int64_t>{{"LANES", h[1]}}; };
  // Area and leakage: a register per cell, and an adder per written lane.
  d.size_terms = [](const std::vector<int>& h) {
    return std::vector<double>{double(h[0]) * h[1] * h[2], double(h[1])};
  };
  return d;
}
}  // namespace

const BlockKind& acc_cache_kind() {
  static const BlockKind kind = [] {
    BlockKind k;
    k.name = "acc_cache";
    k.description = "accumulator cache behind a dot array: INT32 output tiles, rows added from the array's lanes";
    k.params = {{"slots", "tile", "m x n INT32 output tiles held"}, {"bytes", "byte", "capacity"}};
    k.ports = {{"wr", false, "the array's INT32 lanes, added to a row of a slot"},
               {"rd", true, "a finished row, to the requantiser"}};
    k.statistics = {{"reads", "row", "rows read (a partial-sum update reads, then writes)"},
                    {"writes", "row", "rows written"}};
    k.rtl_files = {"fsgen_acc_cache.v"};
    k.module = "fsgen_acc_cache";
    k.systemc_model = "src/blocks/pe_array_dot/model.h (the dot array's output tile)";
    k.power = power_primitive();
    return k;
  }();
  return kind;
}

}  // namespace fsgen
