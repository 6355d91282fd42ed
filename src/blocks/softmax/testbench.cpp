// The softmax / activation unit's gate-level testbench driver ("softmax_rows").
#include <sstream>

#include "blocks/testbench_driver.h"
#include "core/attention_numerics.h"
#include "core/ffn_numerics.h"

namespace fsgen {

namespace {

// The softmax / activation unit's testbench (driver "softmax_rows"), as fsgen_ctrl.v drives
// it: a row loaded in a cycle (ld) is registered and transformed in the next, with the
// running state of the row it holds on the other ports. Rows come in passes of kRows query
// rows loaded back to back (the controller's softmax state), a pass starting in an idle
// cycle with the probability that makes the loads the enable rate's share of the cycles.
// A row holds TN INT32 scores, each kept from the last row or, with probability
// min(1, 2 x toggle rate), a new dot product of kHeadDim INT8 operand pairs (uniform
// codes, each zero with the zero fraction): the sums array a accumulates. Passes go over
// key tiles of TN keys (len_kv: kTiles tiles less one key; causal, the queries at the last
// positions, so that the last tile is partly masked); the unit's outputs for the row it
// holds are stored as the controller stores them (the running max and sum; the FFN's
// activations, which its gate passes multiply), and the state ports keep showing the last
// row held, so that they change to its stored state in the cycle after it (the
// controller's m_run[sm_idx_q]); gate is the loaded row's pass's, and turns for the next
// pass after a pass's last load (the unit registers it with the row). Held ports take a
// kernel's values on synthetic operands: the score scaling, the FFN's requantisers and SiLU
// table. MODE (argument 8): 0 attention, 1 FFN, each pass a gate pass with probability
// side_share. Enabled cycles are the loads, side cycles the gate passes' loads; zero and
// data bytes are counted over the loaded rows' bytes (the SystemC model's operand bytes of
// the unit).
constexpr int kHeadDim = 16, kRows = 4, kTiles = 4;

// Port access by 32-bit word and by byte, whatever type Verilator gives the port.
const char* kPortAccess = R"(template <class P> void put32(P& p, int word, uint32_t v) {
  if constexpr (!std::is_integral_v<P>) p[word] = v;
  else if constexpr (sizeof(P) > 4) p = (p & ~(uint64_t(0xFFFFFFFFu) << (32 * word))) | uint64_t(v) << (32 * word);
  else p = P(v);
}
template <class P> uint32_t get8(const P& p, int byte) {
  if constexpr (!std::is_integral_v<P>) return (p[byte / 4] >> (8 * (byte % 4))) & 0xFFu;
  else return uint32_t(uint64_t(p) >> (8 * byte)) & 0xFFu;
}
template <class P> void put8(P& p, int byte, uint32_t v) {
  if constexpr (!std::is_integral_v<P>) p[byte / 4] = (p[byte / 4] & ~(0xFFu << (8 * (byte % 4)))) | v << (8 * (byte % 4));
  else p = P((uint64_t(p) & ~(uint64_t(0xFF) << (8 * byte))) | uint64_t(v) << (8 * byte));
}
)";

std::string softmax_declarations(const TestbenchPorts& ports) {
  const size_t tn = ports.at("row") / 32;
  num::AttentionParams attention;
  num::choose_score_scaling(synthetic_score_scale(kHeadDim), attention.score_mult, attention.score_shift);
  const num::FfnParams ffn = synthetic_ffn_scaling();
  const num::ActivationTable lut = synthetic_activation_table("silu");
  std::ostringstream o;
  o << "  if (argc < 9) return 2;\n  const int mode = std::atoi(argv[8]);\n"
    << "  constexpr int TN = " << tn << ", D = " << kHeadDim << ", TQ = " << kRows << ", TILES = " << kTiles << ";\n"
    << "  const uint32_t len_kv = TILES * TN - 1;\n  static const int8_t lut[256] = {";
  for (size_t i = 0; i < lut.size(); ++i) o << (i ? "," : "") << int(lut[i]);
  o << "};\n"
    << "  for (int w = 0; w < 64; ++w)\n"
    << "    put32(top->lut, w, uint32_t(uint8_t(lut[4 * w])) | uint32_t(uint8_t(lut[4 * w + 1])) << 8 |\n"
    << "                       uint32_t(uint8_t(lut[4 * w + 2])) << 16 | uint32_t(uint8_t(lut[4 * w + 3])) << 24);\n"
    << "  top->len_kv = len_kv;\n  top->causal = 1;\n  top->ffn = mode == 1;\n"
    << "  top->score_mult = mode == 1 ? " << ffn.u.mult << " : " << attention.score_mult << ";\n"
    << "  top->score_shift = mode == 1 ? " << int(ffn.u.shift) << " : " << int(attention.score_shift) << ";\n"
    << "  top->gate_mult = " << ffn.g.mult << ";\n  top->gate_shift = " << int(ffn.g.shift) << ";\n"
    << "  top->hid_mult = " << ffn.h.mult << ";\n  top->hid_shift = " << int(ffn.h.shift) << ";\n"
    << "  std::uniform_int_distribution<int> code(-128, 127);\n"
    << "  std::bernoulli_distribution redraw(std::min(1.0, 2 * rate)), gate_pass(side_share);\n"
    << "  std::bernoulli_distribution pass_start(enable_rate >= 1 ? 1.0 : enable_rate / (enable_rate + TQ * (1 - "
       "enable_rate)));\n"
    << "  auto operand = [&] { return zero(rng) ? 0 : code(rng); };\n"
    << "  int32_t score[TN] = {}, m_run[TQ] = {}, l_run[TQ] = {};\n  uint8_t acts[TQ][TN] = {};\n"
    << "  int row = 0, tile = 0, held = -1, shown = 0, shown_tile = 0, next = -1, next_tile = 0;\n"
    << "  bool gate = false, shown_gate = false, next_gate = false;\n";
  return o.str();
}

// One cycle's inputs: the held row's state, and a new row if one is loaded.
std::string softmax_cycle(const TestbenchPorts&) {
  const std::string reset = std::to_string(kTestbenchResetCycles);
  return "    top->rst_n = c >= " + reset + ";\n" + "    const bool load = c >= " + reset +
         " && (row > 0 || pass_start(rng));\n" +
         "    top->ld = load;\n"
         "    top->first = shown_tile == 0;\n"
         "    top->m_old = uint32_t(m_run[shown]);\n    top->l_old = uint32_t(l_run[shown]);\n"
         "    top->q_pos = len_kv - TQ + shown;\n    top->j0 = shown_tile * TN;\n    top->gate = gate;\n"
         "    for (int j = 0; j < TN; ++j) put8(top->p_prev, j, acts[shown][j]);\n"
         "    next = -1;\n"
         "    if (load) {\n"
         "      ++enabled;\n      side += gate;\n"
         "      for (int j = 0; j < TN; ++j) {\n"
         "        if (redraw(rng)) {\n          score[j] = 0;\n"
         "          for (int d = 0; d < D; ++d) score[j] += operand() * operand();\n        }\n"
         "        put32(top->row, j, uint32_t(score[j]));\n"
         "        for (int y = 0; y < 4; ++y) zero_bytes += ((uint32_t(score[j]) >> (8 * y)) & 0xFFu) == 0;\n"
         "      }\n"
         "      data_bytes += 4 * TN;\n"
         "      next = row, next_tile = tile, next_gate = gate;\n"
         "      if (++row == TQ) {\n        row = 0;\n        tile = (tile + 1) % TILES;\n"
         "        gate = mode == 1 && gate_pass(rng);\n      }\n    }\n";
}

// After the cycle's inputs settle: the held row's outputs stored, then the row loaded at
// this cycle's edge is the one held.
std::string softmax_settled() {
  return "    if (held >= 0 && mode == 0) {\n"
         "      m_run[held] = int32_t(top->m_new);\n      l_run[held] = int32_t(top->l_new);\n"
         "    } else if (held >= 0 && !shown_gate) {\n"
         "      for (int j = 0; j < TN; ++j) acts[held][j] = uint8_t(get8(top->p, j));\n    }\n"
         "    held = next;\n"
         "    if (held >= 0) shown = held, shown_tile = next_tile, shown_gate = next_gate;\n";
}

}  // namespace

TestbenchDriver softmax_rows_driver() {
  return {"softmax_rows", std::string("#include <algorithm>\n#include <type_traits>\n") + kPortAccess,
          softmax_declarations, softmax_cycle, softmax_settled};
}

}  // namespace fsgen
