#include "power/gate_sim.h"

#include <algorithm>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <functional>
#include <map>
#include <sstream>

#include "compiler/attention.h"
#include "compiler/ffn.h"
#include "core/attention_numerics.h"
#include "core/error.h"
#include "core/write_file.h"
#include "flow/tools.h"

namespace fsgen {

namespace fs = std::filesystem;

namespace {

std::string cell_models_path(const Liberty& lib, const std::string& dir) {
  return (fs::path(dir) / ("cells_" + lib.name + ".v")).string();
}

// Zero-delay Verilog models of the liberty's cells (Yosys: read_liberty + write_verilog).
std::string write_cell_models(const Liberty& lib, const std::string& dir) {
  const std::string out = cell_models_path(lib, dir);
  const CommandResult r = run_command(shell_quote(require_tool("yosys")) + " -q -p " +
                                      shell_quote("read_liberty -ignore_miss_func " + lib.path + "; write_verilog -noattr " + out));
  if (r.status != 0) fail("yosys (cell models of " + lib.name + ")", r.output);
  return out;
}

// C++ statements for one data port (`width` bits) in an enabled cycle: every bit flips
// with the toggle rate (`flip`, a draw in the testbench), then every byte is forced to zero
// with the zero fraction; the port's zero and data bytes are counted. While `filling` (a
// condition in the testbench, "" never) no byte is forced to zero nor counted: the cycles
// that give the rescaling array's accumulators their values, whatever the zero fraction.
std::string drive_data_port(const std::string& name, size_t width, const std::string& flip = "flip(rng)",
                            const std::string& filling = "") {
  const std::string when_zeroed = filling.empty() ? "" : "!(" + filling + ") && ";
  const std::string counted = filling.empty() ? "" : "if (!(" + filling + ")) { ", counted_end = filling.empty() ? "" : " }";
  std::ostringstream o;
  const size_t words = (width + 31) / 32;
  const bool wide = width > 64;
  auto word = [&](const std::string& w) { return wide ? "top->" + name + "[" + w + "]" : std::string("top->") + name; };
  o << "    {\n";
  if (wide) {
    o << "      for (int w = 0; w < " << words << "; ++w) { uint32_t m = 0; for (int b = 0; b < 32 && w * 32 + b < " << width
      << "; ++b) if (" << flip << ") m |= 1u << b; " << word("w") << " ^= m; }\n"
      << "      for (int y = 0; y < " << (width + 7) / 8 << "; ++y) {\n"
      << "        uint32_t& v = " << word("y / 4") << "; const int sh = (y % 4) * 8;\n"
      << "        if (" << when_zeroed << "zero(rng)) v &= ~(0xFFu << sh);\n"
      << "        " << counted << "zero_bytes += ((v >> sh) & 0xFFu) == 0; ++data_bytes;" << counted_end << "\n      }\n";
  } else {
    o << "      uint64_t m = 0; for (int b = 0; b < " << width << "; ++b) if (" << flip << ") m |= 1ull << b;\n"
      << "      uint64_t v = uint64_t(top->" << name << ") ^ m;\n"
      << "      for (int y = 0; y < " << (width + 7) / 8 << "; ++y) {\n"
      << "        if (" << when_zeroed << "zero(rng)) v &= ~(0xFFull << (8 * y));\n"
      << "        " << counted << "zero_bytes += ((v >> (8 * y)) & 0xFFull) == 0; ++data_bytes;" << counted_end << "\n      }\n"
      << "      top->" << name << " = v;\n";
  }
  o << "    }\n";
  return o.str();
}

bool listed(const std::vector<std::string>& names, const std::string& n) {
  return std::find(names.begin(), names.end(), n) != names.end();
}

// The DMA's testbench (driver "axi_dma"): a controller issues bursts of 1 to B beats to
// sequential addresses, a quarter of them writes (B = 1, 2, 4, ... 32 as the seed counts
// through the stimulus grid, so that the points cover a design's short and long bursts);
// an AXI slave accepts addresses at once, gives the first read beat `latency` (1-8, drawn
// per burst) cycles after the address handshake and one beat per cycle after it, takes
// write beats every cycle and answers the response `latency` cycles after the last. Read
// data changes in read beats, write data in the cycles the DMA takes it
// (drive_data_port); enabled cycles are the data beats, side cycles those a command is
// taken in. After each burst the controller waits so that the DMA is busy about
// enable_rate of the cycles: in every idle cycle it issues with probability
// 1 / (1 + mean gap), the mean gap being the last burst's cycles x (1 - enable_rate) /
// enable_rate.
std::string axi_dma_testbench(const GateNetlist& n) {
  const size_t data_bits = n.ports.at("m_rdata").size();
  std::ostringstream o;
  o << "    top->rst_n = c >= " << kResetCycles << ";\n"
    << "    top->cmd_valid = 0;\n"
    << "    if (busy) ++burst_cycles;\n"
    << "    else if (c >= " << kResetCycles << " && issue(rng, std::bernoulli_distribution::param_type(1.0 / (1.0 + mean_gap)))) {\n"
    << "      const uint32_t beats = beats_of(rng);\n"
    << "      top->cmd_valid = 1; top->cmd_write = write_of(rng); top->cmd_addr = addr; top->cmd_beats = beats;\n"
    << "      ++side;\n"
    << "      addr += beats * " << data_bits / 8 << "u;\n"
    << "      wait = latency_of(rng) - 1; busy = true; burst_cycles = 0;\n    }\n"
    << "    top->m_arready = top->m_arvalid;\n    top->m_awready = top->m_awvalid;\n"
    << "    top->m_wready = top->m_wvalid;\n"
    << "    top->m_rvalid = top->m_rready && wait == 0;\n"
    << "    top->m_bvalid = top->m_bready && wait == 0;\n"
    << "    if ((top->m_rready || top->m_bready) && wait > 0) --wait;\n"
    << "    const bool read_beat = top->m_rvalid, write_beat = top->m_wvalid;\n"
    << "    enabled += read_beat || write_beat;\n"
    << "    if (read_beat)\n" << drive_data_port("m_rdata", data_bits)
    << "    if (top->m_awvalid || write_beat)\n" << drive_data_port("wr_data", data_bits)
    << "    if (top->cmd_done) {\n      busy = false;\n"
    << "      mean_gap = enable_rate >= 1 ? 0.0 : double(burst_cycles + 1) * (1 - enable_rate) / enable_rate;\n    }\n";
  return o.str();
}

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

std::string softmax_declarations(const GateNetlist& n) {
  const size_t tn = n.ports.at("row").size() / 32;
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
    << "  std::bernoulli_distribution pass_start(enable_rate >= 1 ? 1.0 : enable_rate / (enable_rate + TQ * (1 - enable_rate)));\n"
    << "  auto operand = [&] { return zero(rng) ? 0 : code(rng); };\n"
    << "  int32_t score[TN] = {}, m_run[TQ] = {}, l_run[TQ] = {};\n  uint8_t acts[TQ][TN] = {};\n"
    << "  int row = 0, tile = 0, held = -1, shown = 0, shown_tile = 0, next = -1, next_tile = 0;\n"
    << "  bool gate = false, shown_gate = false, next_gate = false;\n";
  return o.str();
}

// One cycle's inputs: the held row's state, and a new row if one is loaded.
std::string softmax_cycle() {
  const std::string reset = std::to_string(kResetCycles);
  return "    top->rst_n = c >= " + reset + ";\n" +
         "    const bool load = c >= " + reset + " && (row > 0 || pass_start(rng));\n" +
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

// Each 32-bit word of `port` (one Q0.15 factor per row) drawn in the first reset cycle and
// then, every cycle after reset, redrawn with probability factor_share: 1.0 (32768) with
// probability one half, else uniform in [0, 1) (PrimitiveStimulus::factor_port).
std::string redraw_factors(const std::string& port, size_t width) {
  std::ostringstream o;
  const size_t words = (width + 31) / 32;
  o << "    for (int w = 0; w < " << words << "; ++w)\n"
    << "      if (c == 0 || (c >= " << kResetCycles << " && factor_draw(rng))) {\n"
    << "        const uint32_t f = keep_factor(rng) ? 32768u : factor_of(rng);\n";
  if (width > 64) o << "        top->" << port << "[w] = f;\n";
  else
    o << "        top->" << port << " = (uint64_t(top->" << port << ") & ~(uint64_t(0xFFFFFFFFu) << (32 * w))) | uint64_t(f) << (32 * w);\n";
  o << "      }\n";
  return o.str();
}

// One cycle of random stimulus (PrimitiveStimulus' comment).
std::string random_ports(const GateNetlist& n, const PrimitiveStimulus& s) {
  std::ostringstream o;
  o << "    bool any = false;\n";
  if (!s.factor_port.empty())
    o << "    const bool filling = c >= " << kResetCycles << " && c < " << kResetCycles
      << " + fill;  // dense operands, whatever the rate and zero fraction\n";
  const auto side = std::find(s.enables.begin(), s.enables.end(), s.side_enable);
  const bool qualifier = !s.side_enable.empty() && side == s.enables.end();
  FSGEN_ASSERT(s.side_enable.empty() || qualifier || (s.enables.size() == 2 && !s.enable_of.empty()),
               "a random driver's side enable is one of two enables driven one at a time, or qualifies the enable");
  if (!s.side_enable.empty() && !qualifier)  // the side enable with its share, else the other
    o << "    const bool on = c >= " << kResetCycles << " && enable(rng);\n"
      << "    const bool side_on = on && side_draw(rng);\n"
      << "    const int which = !on ? -1 : side_on ? " << (side - s.enables.begin()) << " : "
      << (side == s.enables.begin() ? 1 : 0) << ";\n    side += side_on;\n";
  else if (!s.enable_of.empty())  // one enable at a time, drawn uniformly in an enabled cycle
    o << "    const int which = c >= " << kResetCycles << " && enable(rng) ? int(std::uniform_int_distribution<int>(0, "
      << s.enables.size() - 1 << ")(rng)) : -1;\n";
  for (const auto& [port, bits] : n.ports) {
    const auto e = std::find(s.enables.begin(), s.enables.end(), port);
    if (port == s.reset_n) o << "    top->" << port << " = c >= " << kResetCycles << ";\n";
    else if (e != s.enables.end() && !s.enable_of.empty())
      o << "    top->" << port << " = which == " << (e - s.enables.begin()) << ";\n    any = any || top->" << port << ";\n";
    else if (e != s.enables.end())
      o << "    top->" << port << " = c >= " << kResetCycles << " && (" << (s.factor_port.empty() ? "" : "filling || ")
        << "enable(rng));\n    any = any || top->" << port << ";\n";
    else if (listed(s.held_low, port) && bits.size() > 64)
      o << "    for (int w = 0; w < " << (bits.size() + 31) / 32 << "; ++w) top->" << port << "[w] = 0;\n";
    else if (listed(s.held_low, port)) o << "    top->" << port << " = 0;\n";
  }
  // The fill's cycles set up the state the measured ones start from (characterize.cpp,
  // SizeRun::set_up_cycles): not counted.
  const std::string counted = s.factor_port.empty() ? "" : " && !filling";
  o << "    enabled += any" << counted << ";\n";
  if (qualifier)
    o << "    top->" << s.side_enable << " = any && side_draw(rng);\n    side += top->" << s.side_enable << counted << ";\n";
  o << "    if (any) {\n";
  for (const auto& [port, bits] : n.ports)
    if (port != s.clock && port != s.reset_n && !n.outputs.count(port) && !listed(s.enables, port) && !listed(s.held_low, port) &&
        port != s.side_enable && port != s.factor_port) {
      const auto tied = s.enable_of.find(port);
      const auto counter = s.counters.find(port);
      const std::string when = tied == s.enable_of.end() ? "" : "    if (top->" + tied->second + ")\n";
      if (counter != s.counters.end())
        o << when << "      top->" << port << " = (top->" << port << " + 1) % " << counter->second << ";\n";
      else if (s.factor_port.empty()) o << when << drive_data_port(port, bits.size());
      else o << when << drive_data_port(port, bits.size(), "(filling ? fill_flip(rng) : flip(rng))", "filling");
    }
  o << "    }\n";
  if (!s.factor_port.empty()) o << redraw_factors(s.factor_port, n.ports.at(s.factor_port).size());
  return o.str();
}

std::string testbench(const GateNetlist& n, const PrimitiveStimulus& s) {
  std::ostringstream o;
  o << "// Generated by fsgen: random stimulus for the gate-level simulation of " << n.top << ".\n"
    << "#include <cstdint>\n#include <cstdio>\n#include <cstdlib>\n#include <random>\n#include \"V" << n.top << ".h\"\n"
    << "#include \"verilated.h\"\n#include \"verilated_vcd_c.h\"\n"
    << "// Arguments: cycles, toggle rate, seed, zero fraction, enable rate, side share, factor share (one build\n"
    << "// serves every stimulus), then the held settings.\n"
    << (s.driver == "softmax_rows" ? std::string("#include <algorithm>\n#include <type_traits>\n") + kPortAccess : "")
    << "int main(int argc, char** argv) {\n  if (argc < 8) return 2;\n"
    << "  const uint64_t cycles = std::strtoull(argv[1], nullptr, 10);\n"
    << "  const double rate = std::strtod(argv[2], nullptr);\n"
    << "  const uint64_t seed = std::strtoull(argv[3], nullptr, 10);\n"
    << "  const double zeros = std::strtod(argv[4], nullptr);\n"
    << "  const double enable_rate = std::strtod(argv[5], nullptr);\n"
    << "  const double side_share = std::strtod(argv[6], nullptr);\n"
    << "  const double factor_share = std::strtod(argv[7], nullptr);\n"
    << "  Verilated::traceEverOn(true);\n"
    << "  auto* top = new V" << n.top << ";\n  VerilatedVcdC vcd;\n  top->trace(&vcd, 1);\n  vcd.open(\"gates.vcd\");\n"
    << "  std::mt19937_64 rng(seed);\n"
    << "  std::bernoulli_distribution flip(rate), zero(zeros), enable(enable_rate), side_draw(side_share);\n"
    << "  uint64_t enabled = 0, side = 0, zero_bytes = 0, data_bytes = 0;\n";
  if (!s.factor_port.empty())
    o << "  std::bernoulli_distribution keep_factor(0.5), factor_draw(factor_share), fill_flip(0.5);\n"
      << "  std::uniform_int_distribution<uint32_t> factor_of(0, 32767);\n  constexpr uint64_t fill = " << kFactorFillCycles
      << ";\n";
  if (s.driver == "axi_dma")
    o << "  std::bernoulli_distribution issue, write_of(0.25);\n"
      << "  std::uniform_int_distribution<uint32_t> beats_of(1, 1u << (seed % 6)), latency_of(1, 8);\n"
      << "  bool busy = false;\n  uint32_t addr = 0, wait = 0;\n  uint64_t burst_cycles = 0;\n  double mean_gap = 0;\n"
      << "  for (uint64_t c = 0; c < cycles; ++c) {\n" << axi_dma_testbench(n);
  else if (s.driver == "softmax_rows")
    o << softmax_declarations(n) << "  for (uint64_t c = 0; c < cycles; ++c) {\n" << softmax_cycle();
  else
    o << "  for (uint64_t c = 0; c < cycles; ++c) {\n" << random_ports(n, s);
  o << "    top->" << s.clock << " = 0;\n    top->eval();\n    vcd.dump(2 * c);\n";
  if (s.driver == "softmax_rows") o << softmax_settled();
  o << "    top->" << s.clock << " = 1;\n    top->eval();\n    vcd.dump(2 * c + 1);\n  }\n"
    << "  vcd.close();\n  top->final();\n  delete top;\n"
    << "  std::printf(\"enabled %llu side %llu zero_bytes %llu data_bytes %llu\\n\", (unsigned long long)enabled,\n"
    << "              (unsigned long long)side, (unsigned long long)zero_bytes, (unsigned long long)data_bytes);\n"
    << "  return 0;\n}\n";
  return o.str();
}

// A testbench that drives the input ports from stimulus.bin (uint64 cycles, then per
// cycle every port's 32-bit words in the order given) and toggles the clock. Before them,
// two cycles with the reset port low (if the netlist has it) and not traced: the RTL was
// reset before the recorded cycles, and a synthesised FSM's state encoding (Yosys
// recodes them) need not start where the simulator's zeroed flip-flops are.
std::string replay_testbench(const GateNetlist& n, const PortWaveforms& w, const std::string& clock,
                             const std::string& reset_n) {
  std::ostringstream o;
  o << "// Generated by fsgen: recorded stimulus replayed into the gate-level netlist of " << n.top << ".\n"
    << "#include <cstdint>\n#include <cstdio>\n#include <vector>\n#include \"V" << n.top << ".h\"\n"
    << "#include \"verilated.h\"\n#include \"verilated_vcd_c.h\"\n"
    << "int main() {\n  FILE* f = std::fopen(\"stimulus.bin\", \"rb\");\n  if (!f) return 2;\n"
    << "  uint64_t cycles = 0;\n  if (std::fread(&cycles, 8, 1, f) != 1) return 2;\n"
    << "  std::vector<uint32_t> v(" << w.words_per_cycle() << ");\n"
    << "  Verilated::traceEverOn(true);\n"
    << "  auto* top = new V" << n.top << ";\n  VerilatedVcdC vcd;\n  top->trace(&vcd, 1);\n";
  if (n.ports.count(reset_n))
    o << "  top->" << reset_n << " = 0;\n"
      << "  for (int r = 0; r < 2; ++r) {\n    top->" << clock << " = 0;\n    top->eval();\n    top->" << clock
      << " = 1;\n    top->eval();\n  }\n";
  o << "  vcd.open(\"gates.vcd\");\n"
    << "  for (uint64_t c = 0; c < cycles; ++c) {\n"
    << "    if (std::fread(v.data(), 4, v.size(), f) != v.size()) return 3;\n";
  size_t at = 0;
  for (const auto& [port, width] : w.ports) {
    const size_t words = (width + 31) / 32;
    if (!n.ports.count(port)) {
      at += words;
      continue;
    }
    if (width <= 32) o << "    top->" << port << " = v[" << at << "];\n";
    else if (width <= 64) o << "    top->" << port << " = uint64_t(v[" << at + 1 << "]) << 32 | v[" << at << "];\n";
    else o << "    for (int i = 0; i < " << words << "; ++i) top->" << port << "[i] = v[" << at << " + i];\n";
    at += words;
  }
  o << "    top->" << clock << " = 0;\n    top->eval();\n    vcd.dump(2 * c);\n"
    << "    top->" << clock << " = 1;\n    top->eval();\n    vcd.dump(2 * c + 1);\n  }\n"
    << "  vcd.close();\n  top->final();\n  delete top;\n  std::fclose(f);\n  return 0;\n}\n";
  return o.str();
}

// Reads a VCD: per net bit of the netlist's top scope, its transitions per cycle (VCD
// time t belongs to cycle t / 2).
// One pass over a VCD: each variable declared (with its scope path), each time stamp, and
// each value change (bits MSB first, possibly shorter than the variable: leading zeros).
struct VcdHandlers {
  std::function<void(const std::vector<std::string>& scope, uint32_t width, const std::string& code,
                     const std::string& name)> var;
  std::function<void(uint64_t time)> time;
  std::function<void(const std::string& code, const std::string& bits)> value;
};

void read_vcd_events(const std::string& path, const VcdHandlers& h) {
  std::ifstream in(path);
  if (!in) fail(path, "cannot open VCD");
  std::vector<std::string> scope;
  std::string line;
  bool header = true;
  while (std::getline(in, line)) {
    if (line.empty()) continue;
    if (header) {
      std::istringstream ss(line);
      std::string kw;
      ss >> kw;
      if (kw == "$scope") {
        std::string kind, name;
        ss >> kind >> name;
        scope.push_back(name);
      } else if (kw == "$upscope") {
        if (!scope.empty()) scope.pop_back();
      } else if (kw == "$var") {
        std::string type, width, code, name;
        ss >> type >> width >> code >> name;
        h.var(scope, uint32_t(std::stoul(width)), code, name);
      } else if (kw == "$enddefinitions") {
        header = false;
      }
    } else if (line[0] == '#') {
      h.time(std::stoull(line.substr(1)));
    } else if (line[0] == 'b') {
      const size_t sp = line.find(' ');
      if (sp != std::string::npos) h.value(line.substr(sp + 1), line.substr(1, sp - 1));
    } else if (line[0] == '0' || line[0] == '1' || line[0] == 'x' || line[0] == 'z') {
      h.value(line.substr(1), line.substr(0, 1));
    }
  }
}

}  // namespace

void drop_first_cycles(GateActivity& a, uint64_t n) {
  FSGEN_ASSERT(n <= a.cycles && a.toggled_per_cycle.size() == a.cycles, "cycles dropped from a run's per-cycle activity");
  for (uint64_t c = 0; c < n; ++c)
    for (int bit : a.toggled_per_cycle[c]) --a.toggles[size_t(bit)];
  a.toggled_per_cycle.erase(a.toggled_per_cycle.begin(), a.toggled_per_cycle.begin() + long(n));
  a.cycles -= n;
}

namespace {

// Per net bit of the netlist's top scope, its transitions per cycle (VCD time t belongs
// to cycle t / 2).
GateActivity read_vcd(const std::string& path, const GateNetlist& n, uint64_t cycles) {
  GateActivity a;
  a.cycles = cycles;
  a.toggles.assign(static_cast<size_t>(n.max_bit) + 1, 0);
  a.toggled_per_cycle.assign(cycles, {});
  // VCD id code -> net bits, LSB first (a code a simulator gives several equal nets names each of them)
  std::multimap<std::string, std::vector<int>> code_bits;
  std::vector<char> value(a.toggles.size(), 0);
  uint64_t cycle = 0;
  VcdHandlers h;
  h.var = [&](const std::vector<std::string>& scope, uint32_t width, const std::string& code, const std::string& name) {
    if (scope.size() != 2 || scope[1] != n.top) return;
    auto it = n.netnames.find(name);
    if (it != n.netnames.end() && it->second.size() == width) code_bits.emplace(code, it->second);
  };
  h.time = [&](uint64_t t) { cycle = t / 2; };
  h.value = [&](const std::string& code, const std::string& v) {
    const auto [first, last] = code_bits.equal_range(code);
    for (auto it = first; it != last; ++it) {
      const auto& bits = it->second;
      for (size_t i = 0; i < bits.size(); ++i) {
        const char b = (i < v.size() ? v[v.size() - 1 - i] : '0') == '1' ? 1 : 0;
        if (value[bits[i]] == b) continue;  // also a bit named twice
        value[bits[i]] = b;
        if (cycle < cycles) {
          ++a.toggles[bits[i]];
          a.toggled_per_cycle[cycle].push_back(bits[i]);
        }
      }
    }
  };
  read_vcd_events(path, h);
  if (code_bits.empty()) fail(path, "no net of " + n.top + " in the VCD: expected its top scope");
  return a;
}

}  // namespace

namespace {

// Builds the Verilated netlist with its testbench in out_dir/obj_gates, or reuses the
// build while the netlist and ports are unchanged; returns the executable.
fs::path build_gate_testbench(const SynthReport& synth, const GateNetlist& netlist, const Liberty& lib,
                              const std::string& tb_text, const std::string& out_dir) {
  // Absolute paths: Verilator's makefile runs in obj_gates and would misread relative ones.
  const fs::path dir = fs::absolute(out_dir), obj = dir / "obj_gates";
  const fs::path binary = obj / "gate_tb";
  const std::string stamp = (obj / "netlist.stamp").string();
  const std::string cells = cell_models_path(lib, dir.string());
  const fs::path tb = dir / "gate_tb.cpp";
  write_text_file(tb, tb_text);
  // -O0: a traced gate-level netlist is hundreds of thousands of lines of C++ and a run a
  // few thousand cycles, so compile time dominates. -fno-gate: Verilator 5.006's gate
  // optimisation mis-simulates some mapped netlists (an fsgen_array_os accumulator's upper
  // bits on fsgen45; Icarus Verilog and an unoptimised Verilator build agree with the RTL).
  // Verilator's runtime is the same for every netlist: with ccache it compiles once (the
  // cache changes how the binary is built, not what it is, so it is not in the stamp).
  const auto command = [&](const std::string& objcache) {
    return shell_quote(require_tool("verilator")) +
           " --cc --exe --build -j 2 --trace --trace-underscore -fno-gate -Wno-fatal -Wno-lint -Wno-style"
           " -MAKEFLAGS 'OPT_FAST=-O0 OPT_SLOW=-O0 OPT_GLOBAL=-O0" + objcache + "' --output-split 200000 --top-module " +
           netlist.top + " -Mdir " + shell_quote(obj.string()) + " -o gate_tb " +
           shell_quote(fs::absolute(synth.netlist).string()) + " " + shell_quote(cells) + " " + shell_quote(tb.string());
  };
  const std::string key = read_text_file(synth.netlist) + tb_text + command("");
  const std::string build = command(verilator_objcache());
  if (fs::exists(binary) && stamp_matches(stamp, key)) return binary;
  fs::remove_all(obj);  // a stale build's dependency files may name sources that are gone
  write_cell_models(lib, dir.string());
  const CommandResult b = run_command(build);
  if (b.status != 0)
    fail("verilator (gate-level " + netlist.top + ")",
         "build failed:\n" + b.output.substr(b.output.size() > 2000 ? b.output.size() - 2000 : 0));
  write_stamp(stamp, key);
  return binary;
}

}  // namespace

fs::path prepare_gate_simulation(const SynthReport& synth, const GateNetlist& netlist, const Liberty& lib,
                                 const PrimitiveStimulus& stim, const std::string& build_dir) {
  return build_gate_testbench(synth, netlist, lib, testbench(netlist, stim), build_dir);
}

GateActivity run_gate_simulation(const fs::path& binary, const GateNetlist& netlist, const PrimitiveStimulus& stim,
                                 const std::string& run_dir) {
  fs::create_directories(run_dir);
  std::ostringstream args;
  args << stim.cycles << " " << stim.toggle_rate << " " << stim.seed << " " << stim.zero_fraction << " " << stim.enable_rate
       << " " << stim.side_share << " " << stim.factor_share;
  for (int64_t v : stim.settings) args << " " << v;
  const CommandResult r = run_command("cd " + shell_quote(run_dir) + " && " + shell_quote(binary.string()) + " " + args.str());
  if (r.status != 0) fail("gate-level simulation of " + netlist.top, r.output);
  const fs::path vcd = fs::path(run_dir) / "gates.vcd";
  GateActivity a = read_vcd(vcd.string(), netlist, stim.cycles);
  fs::remove(vcd);
  unsigned long long enabled = 0, side = 0, zero_bytes = 0, data_bytes = 0;
  if (std::sscanf(r.output.c_str(), "enabled %llu side %llu zero_bytes %llu data_bytes %llu", &enabled, &side, &zero_bytes,
                  &data_bytes) != 4)
    fail("gate-level simulation of " + netlist.top, "expected the stimulus summary, got: " + r.output);
  a.enabled_cycles = enabled;
  a.side_cycles = side;
  a.zero_bytes = zero_bytes;
  a.data_bytes = data_bytes;
  return a;
}

size_t PortWaveforms::words_per_cycle() const {
  size_t n = 0;
  for (const auto& p : ports) n += (p.second + 31) / 32;
  return n;
}

PortWaveforms read_vcd_waveforms(const std::string& vcd, const std::vector<std::string>& scope,
                                 const std::vector<std::pair<std::string, uint32_t>>& ports, uint64_t cycles) {
  PortWaveforms w;
  w.cycles = cycles;
  w.ports = ports;
  const size_t per = w.words_per_cycle();
  w.words.assign(size_t(cycles) * per, 0);
  std::map<std::string, size_t> offset_of;  // port -> its first word in a cycle
  size_t at = 0;
  for (const auto& [name, width] : ports) offset_of[name] = at, at += (width + 31) / 32;
  // VCD code -> word offset, width of each port it names: ports wired to one signal share
  // its code (an accumulator cache's wr_slot and rd_slot).
  std::multimap<std::string, std::pair<size_t, uint32_t>> code_port;
  std::vector<uint32_t> current(per, 0);
  uint64_t next_cycle = 0;  // the first cycle not yet recorded
  auto record_until = [&](uint64_t time) {  // cycles whose inputs are settled before `time`
    for (; next_cycle < cycles && 2 * next_cycle + 1 <= time; ++next_cycle)
      std::copy(current.begin(), current.end(), w.words.begin() + next_cycle * per);
  };
  VcdHandlers h;
  h.var = [&](const std::vector<std::string>& path, uint32_t width, const std::string& code, const std::string& name) {
    const bool in_scope = path.size() >= scope.size() && std::equal(scope.rbegin(), scope.rend(), path.rbegin());
    auto it = offset_of.find(name);
    if (in_scope && it != offset_of.end()) code_port.emplace(code, std::make_pair(it->second, width));
  };
  h.time = record_until;
  h.value = [&](const std::string& code, const std::string& bits) {
    const auto [first, last] = code_port.equal_range(code);
    for (auto it = first; it != last; ++it) {
      const auto [off, width] = it->second;
      for (uint32_t i = 0; i < width; ++i) {
        uint32_t& word = current[off + i / 32];
        if (i < bits.size() && bits[bits.size() - 1 - i] == '1') word |= 1u << (i % 32);
        else word &= ~(1u << (i % 32));
      }
    }
  };
  read_vcd_events(vcd, h);
  record_until(~0ull);
  return w;
}

GateActivity replay_gates(const SynthReport& synth, const GateNetlist& netlist, const Liberty& lib,
                          const PortWaveforms& waves, const std::string& clock, const std::string& reset_n,
                          const std::string& build_dir, bool keep_vcd) {
  const fs::path binary =
      build_gate_testbench(synth, netlist, lib, replay_testbench(netlist, waves, clock, reset_n), build_dir);
  {
    std::ofstream f(fs::path(build_dir) / "stimulus.bin", std::ios::binary);
    f.write(reinterpret_cast<const char*>(&waves.cycles), 8);
    f.write(reinterpret_cast<const char*>(waves.words.data()), std::streamsize(waves.words.size() * 4));
    if (!f) fail(build_dir, "cannot write the replay stimulus");
  }
  const CommandResult r = run_command("cd " + shell_quote(build_dir) + " && " + shell_quote(binary.string()));
  if (r.status != 0) fail("gate-level replay of " + netlist.top, "testbench exited with " + std::to_string(r.status) + ": " + r.output);
  const fs::path vcd = fs::path(build_dir) / "gates.vcd";
  GateActivity a = read_vcd(vcd.string(), netlist, waves.cycles);
  if (!keep_vcd) fs::remove(vcd);
  return a;
}

GateActivity simulate_gates(const SynthReport& synth, const GateNetlist& netlist, const Liberty& lib,
                            const PrimitiveStimulus& stim, const std::string& out_dir) {
  return run_gate_simulation(prepare_gate_simulation(synth, netlist, lib, stim, out_dir), netlist, stim, out_dir);
}

std::vector<double> power_trace_mw(const GatePowerModel& model, const GateActivity& activity, double clock_mhz) {
  std::vector<double> trace(activity.cycles, 0);
  const double leakage = model.leakage_mw();
  const double fj_to_mw = clock_mhz * 1e6 * 1e-15 * 1e3;  // one cycle's energy in fJ -> average mW over the cycle
  for (uint64_t c = 0; c < activity.cycles; ++c) {
    double e = 0;
    for (int bit : activity.toggled_per_cycle[c]) e += model.energy_per_toggle_fj(bit);
    trace[c] = e * fj_to_mw + leakage;
  }
  return trace;
}

}  // namespace fsgen
