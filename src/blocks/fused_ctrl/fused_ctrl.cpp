// fused_ctrl: a fused core's controller (fsgen_ctrl.v with ATTN = 1, in ctrl's folder): the
// matmul controller plus the fused kernels' sequencing, P tile, running softmax state,
// activation table and normaliser.
#include "blocks/block_kind.h"

namespace fsgen {

namespace {
// A fused core's controller (fsgen_ctrl, ATTN = 1; the softmax unit is a block of its own
// beside it): the matmul controller's logic plus the fused kernels' sequencing, their P
// tile, the running softmax state per query row, the FFN's activation table, and the
// normaliser (a divider per output lane). Array b's tiling is the one a fused core plans
// (queries x head dims x keys); output-stationary cores (ST 0) run matmuls on both arrays
// (DUAL), weight-stationary ones (ST 1) keep several output tiles live.
PrimitiveDef power_primitive() {
  PrimitiveDef d;
  d.kind = "fused_ctrl", d.module = "fsgen_ctrl";
  // SA, SB: the operand tiles' slots (memory.operand_tiles; two: double-buffered).
  d.params = {"TM", "TN", "TK", "W", "ST", "SA", "SB"};
  // Head dimensions and query rows varied apart (2x2x8 against 4x2x4), so that each size
  // left out of the fit still leaves them separable.
  d.sizes = {{2, 2, 4, 1, 0, 1, 1}, {2, 4, 4, 2, 0, 1, 1},  {4, 2, 8, 2, 0, 1, 1},    {4, 4, 8, 4, 0, 1, 1},
             {2, 2, 8, 2, 0, 1, 1}, {2, 2, 4, 1, 1, 1, 1},  {4, 2, 4, 1, 1, 1, 1},    {4, 4, 8, 4, 0, 2, 2},
             {8, 8, 8, 8, 0, 2, 2}, {8, 16, 8, 8, 1, 2, 2}, {16, 16, 16, 16, 0, 2, 2}};
  d.fixed = {{"N_LIVE", 0}, {"ATTN", 1}, {"KC", 0}, {"VC", 0}, {"SYS_A", 0}, {"SYS_B", 0}, {"TAGW", 11}};
  d.derived = [](const std::vector<int>& h) {
    const int tm = h[0], tn = h[1], tk = h[2], st = h[4];
    return std::map<std::string, int64_t>{{"BM", tm},    {"BN", tk}, {"BK", tn}, {"STB", st}, {"DUAL", st == 0 ? 1 : 0},
                                          {"M_LIVE", st}};
  };
  d.wiring = {"ORD0", "ORD1", "ORD2"};
  d.enables = {};
  d.elements = [](const std::vector<int>&) { return 1.0; };
  // Flip-flops and logic: the operand and P buffers (a byte each), a head dimension's
  // output row and normaliser, and a query row's running max, sum and rescale factor.
  d.size_terms = [](const std::vector<int>& h) {
    const int tm = h[0], tn = h[1], tk = h[2], st = h[4], sa = h[5], sb = h[6];
    const int nb = st == 0 ? tn + tk : tn;
    return std::vector<double>{double(sa * tm * tk + sb * tk * nb + tm * tn), double(tk), double(tm)};
  };
  // A softmax row stored clocks the gated P tile, its query row's running max, sum and
  // factor and the P row (every flip-flop of a gated group takes the clock when it opens);
  // a division the normaliser's O row in and output row out; a beat into the activation
  // table its 256 bytes, the same at every size.
  d.event_size_terms = [](const std::vector<int>& h) {
    const double tm = h[0], tn = h[1], tk = h[2];
    return std::map<std::string, double>{
        {"softmax_loads", tm * tn * 8 + tm * 96 + tn * 8}, {"normalise_divisions", tk * 40}, {"table_beats", 0}};
  };
  d.buffer_slot_params = {"SA", "SB"};
  d.driver = PrimitiveDef::kIdleClock;
  // Training cores for its activity model: the three smallest controllers, output- and
  // weight-stationary, head dimensions 4 and 8 (each a synthesis of tens of minutes), and
  // the double-buffered 8x8 tiles of the validation cores at size (the small cores alone
  // gave their controllers' per-cycle traces R 0.39-0.76).
  d.kernel_sizes = {{2, 2, 4, 1, 0, 1, 1}, {2, 2, 8, 2, 0, 1, 1}, {2, 2, 4, 1, 1, 1, 1}, {8, 8, 8, 8, 0, 2, 2}};
  return d;
}
}  // namespace

const BlockKind& fused_ctrl_kind() {
  static const BlockKind kind = [] {
    BlockKind k;
    k.name = "fused_ctrl";
    k.description =
        "tile sequencer of the matmul and fused kernels: loop nests, reuse, operand and P buffers, "
        "running softmax state, activation table, normaliser";
    k.rtl_files = {"fsgen_ctrl_topk.v"};  // the rest is ctrl's fsgen_ctrl.v with ATTN = 1
    k.module = "fsgen_ctrl";
    k.systemc_model = "src/blocks/fused_ctrl/sequencer_fused.cpp, src/models/attention_model.cpp (FusedCore)";
    k.power = power_primitive();
    k.power_note = " (with the requantiser and the normaliser)";
    return k;
  }();
  return kind;
}

}  // namespace fsgen
