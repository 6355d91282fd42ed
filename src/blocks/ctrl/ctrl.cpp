// ctrl: a matmul core's controller, the tile sequencer (fsgen_ctrl.v, ATTN = 0): loop nest,
// reuse, operand buffers, the DMA commands' addresses and the requantiser. Its Verilog,
// fsgen_ctrl.v, is shared with fused_ctrl (ATTN = 1).
#include "blocks/block_kind.h"
#include "blocks/ctrl/controller_sizes.h"

namespace fsgen {

namespace {
// Its hyperparameters past the tiles and slots as a matmul core has them: one live output
// tile (N_LIVE), 11-bit read tags, no sparse value networks.
std::map<std::string, int> plain_matmul(const std::vector<int>&) {
  std::map<std::string, int> p = {{"N_LIVE", 0}, {"TAGW", 11}};
  for (const auto& [name, value] : controller_optional_params()) p[name] = int(value);
  return p;
}

// A matmul core's controller (fsgen_ctrl, ATTN = 0: the tile sequencer, its operand
// buffers, the address arithmetic of the DMA commands, the requantiser), a structural
// primitive. Output-stationary cores (ST 0, m outermost) and weight-stationary ones (ST 1,
// m inside k: M_LIVE, several output tiles live in the accumulator cache) at sizes around
// the validation's cores, none of whose controllers is among them. The loop order only
// picks which counter is which (parameters folded at elaboration: wires).
PrimitiveDef power_primitive() {
  PrimitiveDef d;
  d.kind = "ctrl", d.module = "fsgen_ctrl";
  // SA, SB: the operand tiles' slots (memory.operand_tiles; two: double-buffered); then the
  // parameters a core's spec sets: live output tiles, the read tags' width and the sparse
  // value networks' (controller_sizes.h).
  d.params = {"TM",   "TN",     "TK", "W",  "ST", "M_LIVE", "SA",  "SB",    "N_LIVE",
              "TAGW", "SPARSE", "SK", "LM", "LN", "XSP",    "WSP", "MACROS"};
  d.defaults = [](const std::map<std::string, int64_t>&) { return controller_optional_params(); };
  const auto size = [&d](const std::vector<int>& base, const std::map<std::string, int>& variant = {}) {
    return controller_size(d, base, plain_matmul(base), variant);
  };
  for (const auto& base : std::vector<std::vector<int>>{{2, 2, 8, 1, 0, 0, 1, 1},
                                                        {2, 4, 8, 2, 0, 0, 1, 1},
                                                        {4, 2, 8, 2, 0, 0, 1, 1},
                                                        {4, 4, 8, 2, 0, 0, 1, 1},
                                                        {4, 4, 16, 4, 0, 0, 1, 1},
                                                        {2, 2, 16, 2, 0, 0, 1, 1},
                                                        {2, 4, 16, 4, 0, 0, 1, 1},
                                                        {8, 8, 8, 4, 0, 0, 1, 1},
                                                        {4, 2, 2, 1, 1, 1, 1, 1},
                                                        {4, 4, 4, 2, 1, 1, 1, 1},
                                                        {8, 4, 2, 2, 1, 1, 1, 1},
                                                        {8, 4, 4, 4, 1, 1, 1, 1},
                                                        {4, 2, 4, 2, 1, 1, 1, 1},
                                                        {4, 4, 8, 2, 0, 0, 2, 2},
                                                        {8, 8, 8, 8, 0, 0, 2, 2},
                                                        {16, 16, 16, 16, 0, 0, 2, 2}})
    d.sizes.push_back(size(base));
  // The example designs' controllers (examples/*.yaml) that differ from these: sparse_os_8x8.
  d.sizes.push_back(size({8, 8, 16, 8, 0, 0, 2, 2}, {{"SPARSE", 1}, {"SK", 4}, {"LN", 8}, {"WSP", 1}}));
  d.fixed = {{"ATTN", 0}, {"STB", 0}, {"KC", 0}, {"VC", 0}, {"DUAL", 0}, {"SYS_A", 0}, {"SYS_B", 0}};
  d.wiring = {"ORD0", "ORD1", "ORD2"};
  d.enables = {};
  d.elements = [](const std::vector<int>&) { return 1.0; };
  // Flip-flops and logic: the operand buffers (a byte each), a column's accumulator row,
  // output row and requantiser, the array's operand buses, the DMA's data lanes, and the
  // live output tiles' slot arithmetic.
  d.size_terms = [macros = d.param_at("MACROS")](const std::vector<int>& h) {
    const int tm = h[0], tn = h[1], tk = h[2], w = h[3], st = h[4], m_live = h[5], sa = h[6], sb = h[7];
    const int x_bus = st == 0 ? tm : tk, w_bus = st == 2 ? tk : tn;
    const int buffers = h[macros] ? 0 : sa * tm * tk + sb * tk * tn;  // SRAM macros: outside its netlist
    return std::vector<double>{double(buffers), double(tn), double(x_bus + w_bus), double(w), double(m_live)};
  };
  d.macro_param = "MACROS", d.macro_modules = {"fsgen_ctrl_buffer"};
  d.driver = PrimitiveDef::kIdleClock;
  // Training cores for its activity model: output- and weight-stationary, narrow and wide
  // beats, the smallest and the larger buffers (each a synthesis of minutes), and the
  // double-buffered 8x8 and 16x16 tiles of the validation cores at size (their buffers 2
  // and 8 times the largest other training core's, which a fit over the small cores alone
  // overprices).
  for (const auto& base : std::vector<std::vector<int>>{{2, 2, 8, 1, 0, 0, 1, 1},
                                                        {4, 2, 8, 2, 0, 0, 1, 1},
                                                        {2, 4, 16, 4, 0, 0, 1, 1},
                                                        {4, 4, 16, 4, 0, 0, 1, 1},
                                                        {4, 2, 2, 1, 1, 1, 1, 1},
                                                        {4, 4, 4, 2, 1, 1, 1, 1},
                                                        {8, 4, 4, 4, 1, 1, 1, 1},
                                                        {8, 8, 8, 8, 0, 0, 2, 2},
                                                        {16, 16, 16, 16, 0, 0, 2, 2}})
    d.kernel_sizes.push_back(size(base));
  return d;
}
}  // namespace

const BlockKind& ctrl_kind() {
  static const BlockKind kind = [] {
    BlockKind k;
    k.name = "ctrl";
    k.description = "tile sequencer: loop nest, reuse, operand buffers";
    k.rtl_files = {"fsgen_ctrl.v", "fsgen_ctrl_rows.v", "fsgen_ctrl_pass.v", "fsgen_ctrl_walk.v", "fsgen_ctrl_buffer.v",
                   "fsgen_ctrl_meta.v"};
    k.module = "fsgen_ctrl";
    k.systemc_model = "src/blocks/ctrl/sequencer.h, src/models/core_model.h (FusedCore)";
    k.power = power_primitive();
    k.power_note = " (with the requantiser)";
    return k;
  }();
  return kind;
}

}  // namespace fsgen
