// fused_ctrl: a fused core's controller (fsgen_ctrl.v with ATTN = 1, in ctrl's folder): the
// matmul controller plus the fused kernels' sequencing, P tile, running softmax state,
// activation table and normaliser.
#include "blocks/block_kind.h"
#include "blocks/ctrl/controller_sizes.h"

namespace fsgen {

namespace {
// Its hyperparameters past the tiles and slots as a fused core of tiles h plans them: no K
// or V cache, 11-bit read tags, array b's tiling the fused one (queries x head dims x keys)
// and its stationarity array a's, matmuls on both arrays when they are output-stationary,
// weight-stationary cores keeping several output tiles live; no sparsity, top-k or window.
std::map<std::string, int> plain_fused(const std::vector<int>& h) {
  const int tm = h[0], tn = h[1], tk = h[2], st = h[4];
  std::map<std::string, int> p = {
      {"KC", 0},  {"VC", 0},  {"TAGW", 11}, {"N_LIVE", 0}, {"M_LIVE", st}, {"STB", st}, {"DUAL", st == 0 ? 1 : 0},
      {"BM", tm}, {"BN", tk}, {"BK", tn},   {"SYS_A", 0},  {"SYS_B", 0}};
  for (const auto& [name, value] : controller_optional_params()) p[name] = int(value);
  return p;
}

// A fused core's controller (fsgen_ctrl, ATTN = 1; the softmax unit is a block of its own
// beside it): the matmul controller's logic plus the fused kernels' sequencing, their P
// tile, the running softmax state per query row, the FFN's activation table, and the
// normaliser (a divider per output lane). Array b's tiling is the one a fused core plans
// (queries x head dims x keys); output-stationary cores (ST 0) run matmuls on both arrays
// (DUAL), weight-stationary ones (ST 1) keep several output tiles live.
PrimitiveDef power_primitive() {
  PrimitiveDef d;
  d.kind = "fused_ctrl", d.module = "fsgen_ctrl";
  // SA, SB: the operand tiles' slots (memory.operand_tiles; two: double-buffered); then the
  // parameters a core's spec sets: K and V cache slots, the read tags' width, live output
  // tiles, array b's stationarity, tiling and matmuls, systolic arrays, and the sparse
  // value networks', block top-k's and sliding window's (controller_sizes.h).
  d.params = {"TM",     "TN",     "TK",  "W",    "ST",  "SA",  "SB",  "KC",    "VC",    "TAGW",
              "N_LIVE", "M_LIVE", "STB", "DUAL", "BM",  "BN",  "BK",  "SYS_A", "SYS_B", "WIN",
              "SPARSE", "SK",     "LM",  "LN",   "XSP", "WSP", "GRP", "TOPK",  "GT",    "MACROS"};
  d.defaults = [](const std::map<std::string, int64_t>&) { return controller_optional_params(); };
  const auto size = [&d](const std::vector<int>& base, const std::map<std::string, int>& variant = {}) {
    return controller_size(d, base, plain_fused(base), variant);
  };
  // Head dimensions and query rows varied apart (2x2x8 against 4x2x4), so that each size
  // left out of the fit still leaves them separable; then the example designs' controllers
  // (examples/*.yaml) that differ from these.
  for (const auto& base : std::vector<std::vector<int>>{{2, 2, 4, 1, 0, 1, 1},
                                                        {2, 4, 4, 2, 0, 1, 1},
                                                        {4, 2, 8, 2, 0, 1, 1},
                                                        {4, 4, 8, 4, 0, 1, 1},
                                                        {2, 2, 8, 2, 0, 1, 1},
                                                        {2, 2, 4, 1, 1, 1, 1},
                                                        {4, 2, 4, 1, 1, 1, 1},
                                                        {4, 4, 8, 4, 0, 2, 2},
                                                        {8, 8, 8, 8, 0, 2, 2},
                                                        {8, 16, 8, 8, 1, 2, 2},
                                                        {16, 16, 16, 16, 0, 2, 2}})
    d.sizes.push_back(size(base));
  const std::vector<int> tiles_8x8 = {8, 8, 16, 8, 0, 2, 2};
  const std::map<std::string, int> sparse = {{"DUAL", 0}, {"SPARSE", 1}, {"SK", 4}, {"LM", 1},
                                             {"LN", 8},   {"XSP", 1},    {"WSP", 1}};
  std::map<std::string, int> sparse_systolic = sparse;
  sparse_systolic["LM"] = 4, sparse_systolic["SYS_A"] = 1;
  d.sizes.push_back(size(tiles_8x8, {{"WIN", 24}}));                                            // sliding_attn
  d.sizes.push_back(size(tiles_8x8, sparse));                                                   // sparse_attn_8x8
  d.sizes.push_back(size(tiles_8x8, sparse_systolic));                                          // sparse_systolic_8x8
  d.sizes.push_back(size(tiles_8x8, {{"GRP", 1}, {"GT", 8}, {"TOPK", 2}}));                     // topk_attn_8x8
  d.sizes.push_back(size({8, 8, 16, 8, 1, 2, 2}, {{"STB", 0}}));                                // sparse_ws_nm
  d.sizes.push_back(size({16, 8, 16, 8, 2, 2, 2}, {{"N_LIVE", 1}, {"M_LIVE", 0}, {"BM", 8}}));  // is_16x8
  d.sizes.push_back(size({16, 16, 16, 16, 1, 2, 2}, {{"N_LIVE", 1}, {"STB", 0}}));              // explicit_16x16
  // Cores whose operand buffers and K/V caches are SRAM macros (their netlists without them).
  d.sizes.push_back(size({8, 16, 16, 16, 0, 2, 2}, {{"KC", 4}, {"VC", 2}, {"MACROS", 1}}));  // attn_d16
  d.sizes.push_back(
      size({16, 8, 16, 8, 0, 2, 2},
           {{"KC", 4}, {"VC", 2}, {"DUAL", 0}, {"SYS_A", 1}, {"SYS_B", 1}, {"MACROS", 1}}));  // systolic_16x8
  const std::map<std::string, int> llm = {{"KC", 4},   {"VC", 4},  {"TAGW", 15}, {"STB", 1},
                                          {"DUAL", 0}, {"BN", 32}, {"MACROS", 1}};
  std::map<std::string, int> dse = llm;
  dse["TAGW"] = 13, dse["BK"] = 8;
  d.sizes.push_back(size({16, 16, 128, 16, 0, 32, 3}, llm));  // llm_16x16
  d.sizes.push_back(size({16, 16, 128, 8, 0, 8, 3}, dse));    // dse_8gbps
  std::map<std::string, int> d128 = sparse;
  d128["KC"] = 64, d128["VC"] = 64, d128["SK"] = 16, d128["LM"] = 8, d128["MACROS"] = 1;
  d.sizes.push_back(size({8, 8, 128, 8, 0, 2, 2}, d128));  // sparse_attn_d128
  d.fixed = {{"ATTN", 1}};
  d.wiring = {"ORD0", "ORD1", "ORD2"};
  d.enables = {};
  d.elements = [](const std::vector<int>&) { return 1.0; };
  // Flip-flops and logic: the operand and P buffers (a byte each), a head dimension's
  // output row and normaliser, and a query row's running max, sum and rescale factor.
  d.size_terms = [dual = d.param_at("DUAL"), macros = d.param_at("MACROS")](const std::vector<int>& h) {
    const int tm = h[0], tn = h[1], tk = h[2], sa = h[5], sb = h[6];
    const int nb = h[dual] ? tn + tk : tn;
    const int buffers = h[macros] ? 0 : sa * tm * tk + sb * tk * nb;  // SRAM macros: outside its netlist
    return std::vector<double>{double(buffers + tm * tn), double(tk), double(tm)};
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
  d.macro_param = "MACROS", d.macro_modules = {"fsgen_ctrl_buffer"};
  d.driver = PrimitiveDef::kIdleClock;
  // Training cores for its activity model: the three smallest controllers, output- and
  // weight-stationary, head dimensions 4 and 8 (each a synthesis of tens of minutes), and
  // the double-buffered 8x8 tiles of the validation cores at size (the small cores alone
  // gave their controllers' per-cycle traces R 0.39-0.76).
  for (const auto& base : std::vector<std::vector<int>>{
           {2, 2, 4, 1, 0, 1, 1}, {2, 2, 8, 2, 0, 1, 1}, {2, 2, 4, 1, 1, 1, 1}, {8, 8, 8, 8, 0, 2, 2}})
    d.kernel_sizes.push_back(size(base));
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
