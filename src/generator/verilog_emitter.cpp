#include "generator/verilog_emitter.h"

#include <nlohmann/json.hpp>

#include <algorithm>
#include <cctype>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "core/compression.h"
#include "core/error.h"
#include "core/attention_numerics.h"
#include "core/regmap.h"
#include "core/write_file.h"
#include "generator/rtl_library.h"

namespace fsgen {

namespace fs = std::filesystem;

namespace {

std::string upper(std::string s) {
  std::transform(s.begin(), s.end(), s.begin(), [](unsigned char c) { return std::toupper(c); });
  return s;
}

const char* kAxiPorts = R"(    input  wire        clk,
    input  wire        rst_n,
    input  wire [7:0]  s_awaddr,
    input  wire        s_awvalid,
    output wire        s_awready,
    input  wire [31:0] s_wdata,
    input  wire        s_wvalid,
    output wire        s_wready,
    output wire [1:0]  s_bresp,
    output wire        s_bvalid,
    input  wire        s_bready,
    input  wire [7:0]  s_araddr,
    input  wire        s_arvalid,
    output wire        s_arready,
    output wire [31:0] s_rdata,
    output wire [1:0]  s_rresp,
    output wire        s_rvalid,
    input  wire        s_rready,
    output wire [31:0] m_araddr,
    output wire [7:0]  m_arlen,
    output wire [2:0]  m_arsize,
    output wire [1:0]  m_arburst,
    output wire        m_arvalid,
    input  wire        m_arready,
    input  wire [DW-1:0] m_rdata,
    input  wire [1:0]  m_rresp,
    input  wire        m_rlast,
    input  wire        m_rvalid,
    output wire        m_rready,
    output wire [31:0] m_awaddr,
    output wire [7:0]  m_awlen,
    output wire [2:0]  m_awsize,
    output wire [1:0]  m_awburst,
    output wire        m_awvalid,
    input  wire        m_awready,
    output wire [DW-1:0] m_wdata,
    output wire [DW/8-1:0] m_wstrb,
    output wire        m_wlast,
    output wire        m_wvalid,
    input  wire        m_wready,
    input  wire [1:0]  m_bresp,
    input  wire        m_bvalid,
    output wire        m_bready,
    output wire        irq
)";

}  // namespace

namespace {

// The register file's handshake, status and start: clocked every cycle (a few bits).
void emit_csr_handshake(std::ostream& o) {
  o << "  always @(posedge clk) begin\n    if (!rst_n) begin\n"
    << "      s_bvalid <= 1'b0; s_rvalid <= 1'b0; start <= 1'b0; done_sticky <= 1'b0; s_bresp <= 2'b00;\n"
    << "    end else begin\n      start <= 1'b0;\n"
    << "      if (s_bvalid && s_bready) s_bvalid <= 1'b0;\n      if (s_rvalid && s_rready) s_rvalid <= 1'b0;\n"
    << "      if (done_pulse) done_sticky <= 1'b1;\n"
    << "      if (wr_fire) begin\n        s_bvalid <= 1'b1;\n        s_bresp <= 2'b00;\n        case (s_awaddr)\n"
    << "          `FSGEN_REG_CTRL: if (s_wdata[0] && !busy) begin\n"
    << "            if (desc_ok) begin start <= 1'b1; done_sticky <= 1'b0; end\n"
    << "            else s_bresp <= 2'b10;\n"
    << "          end\n"
    << "          `FSGEN_REG_STATUS, `FSGEN_REG_CYCLES: s_bresp <= 2'b10;\n";
  const char* sep = "          ";
  for (const auto& r : reg::kRegisters)
    if (r.writable) o << sep << "`FSGEN_REG_" << upper(r.name), sep = ", ";
  o << ": ;\n          default: s_bresp <= 2'b11;\n        endcase\n      end\n"
    << "      if (rd_fire) s_rvalid <= 1'b1;\n    end\n  end\n";
}

// Each configuration register behind its own clock gate (FSGEN_GATED_ALWAYS,
// fsgen_clock_gate.vh): clocked in the cycle that writes it and in reset, so that a held
// register (nearly all of them, nearly always) does not pay its clock pins.
void emit_csr_config_registers(std::ostream& o) {
  for (const auto& r : reg::kRegisters) {
    if (!r.writable) continue;
    o << "  `FSGEN_GATED_ALWAYS(" << r.name << ", !rst_n || (wr_fire && s_awaddr == `FSGEN_REG_" << upper(r.name)
      << "))\n    " << r.name << " <= rst_n ? s_wdata[" << r.width - 1 << ":0] : " << r.width << "'d0;\n";
  }
}

// The read data and response behind a clock gate: clocked in the cycles that take a read.
void emit_csr_read_data(std::ostream& o) {
  o << "  `FSGEN_GATED_ALWAYS(read, !rst_n || rd_fire) begin\n    if (!rst_n) begin\n"
    << "      s_rdata <= 32'd0; s_rresp <= 2'b00;\n"
    << "    end else begin\n      s_rresp <= 2'b00;\n      case (s_araddr)\n"
    << "        `FSGEN_REG_CTRL: s_rdata <= 32'd0;\n"
    << "        `FSGEN_REG_STATUS: s_rdata <= {30'd0, done_sticky, busy};\n"
    << "        `FSGEN_REG_CYCLES: s_rdata <= cycles;\n";
  for (const auto& r : reg::kRegisters) {
    if (!r.writable) continue;
    o << "        `FSGEN_REG_" << upper(r.name) << ": s_rdata <= ";
    if (r.width == 32)
      o << r.name << ";\n";
    else
      o << "{" << 32 - r.width << "'d0, " << r.name << "};\n";
  }
  o << "        default: begin s_rdata <= 32'd0; s_rresp <= 2'b11; end\n      endcase\n    end\n  end\n";
}

}  // namespace

// The AXI4-Lite register file, from the register map: one output per configuration
// register, the start pulse, the sticky done bit (also the irq line) and the cycle
// counter read-back. A write takes address and data together when both are valid and
// answers in the next cycle; a read answers one cycle after its address. An address with no
// register answers DECERR, a write to status or cycles SLVERR, and so does a start whose
// descriptor is invalid (descriptor_error, models/kernel_regs.h: the same rules), which is
// refused (the SystemC Csr's responses). Its configuration registers and read data are
// clocked through clock gates, only in the cycles that write them.
std::string emit_csr() {
  std::ostringstream o;
  o << "// Generated by fsgen from src/core/regmap.h. Do not edit.\n`include \"fsgen_regs.vh\"\n"
    << "`include \"fsgen_clock_gate.vh\"\n"
    << "module fsgen_csr (\n"
    << "    input  wire        clk,\n    input  wire        rst_n,\n"
    << "    input  wire [7:0]  s_awaddr,\n    input  wire        s_awvalid,\n    output wire        s_awready,\n"
    << "    input  wire [31:0] s_wdata,\n    input  wire        s_wvalid,\n    output wire        s_wready,\n"
    << "    output reg  [1:0]  s_bresp,\n    output reg         s_bvalid,\n    input  wire        s_bready,\n"
    << "    input  wire [7:0]  s_araddr,\n    input  wire        s_arvalid,\n    output wire        s_arready,\n"
    << "    output reg  [31:0] s_rdata,\n    output reg  [1:0]  s_rresp,\n    output reg         s_rvalid,\n"
    << "    input  wire        s_rready,\n    output reg         start,\n";
  for (const auto& r : reg::kRegisters)
    if (r.writable) o << "    output reg  [" << r.width - 1 << ":0] " << r.name << ",\n";
  o << "    input  wire        fused_kernels,\n"
    << "    input  wire        busy,\n    input  wire        done_pulse,\n    input  wire [31:0] cycles,\n"
    << "    output wire        irq\n);\n"
    << "  reg done_sticky;\n"
    << "  wire desc_ok = (kernel == 32'd0 && tiles_m != 16'd0 && tiles_n != 16'd0 && tiles_k != 16'd0) ||\n"
    << "                 (fused_kernels && kernel == 32'd1 && heads != 16'd0 && group != 16'd0 && len_q != 16'd0 &&\n"
    << "                  len_kv != 16'd0) ||\n"
    << "                 (fused_kernels && kernel == 32'd2 && len_q != 16'd0 && len_kv != 16'd0);\n"
    << "  wire wr_fire = s_awvalid && s_wvalid && !s_bvalid;\n"
    << "  wire rd_fire = s_arvalid && !s_rvalid;\n"
    << "  assign s_awready = wr_fire;\n  assign s_wready = wr_fire;\n  assign s_arready = rd_fire;\n"
    << "  assign irq = done_sticky;\n\n";
  emit_csr_handshake(o);
  emit_csr_config_registers(o);
  emit_csr_read_data(o);
  o << "endmodule\n";
  return o.str();
}

// Wires and port connections of every configuration register: the CSR drives them,
// the controller reads them (its inputs carry the same names).
std::string register_wires() {
  std::ostringstream o;
  for (const auto& r : reg::kRegisters)
    if (r.writable) o << "  wire [" << r.width - 1 << ":0] " << r.name << ";\n";
  return o.str();
}

// The registers only the softmax / activation unit reads (its scales), each connected to
// its port of the same name.
const std::vector<std::string>& softmax_registers() {
  static const std::vector<std::string> names = {"score_mult", "score_shift", "gate_mult", "gate_shift", "hid_mult", "hid_shift"};
  return names;
}
bool softmax_register(const std::string& name) {
  const auto& names = softmax_registers();
  return std::find(names.begin(), names.end(), name) != names.end();
}

// Port connections of the writable registers; for the controller, without the softmax
// unit's scales.
std::string register_connections(bool controller) {
  std::ostringstream o;
  for (const auto& r : reg::kRegisters)
    if (r.writable && !(controller && softmax_register(r.name))) o << "      ." << r.name << "(" << r.name << "),\n";
  return o.str();
}

std::string emit_exp2_header() {
  std::ostringstream o;
  o << "// 2^(-f/256) tables of the online softmax (src/core/attention_numerics.h). Generated.\n";
  auto table = [&](const char* name, int bits, auto value) {
    o << "function [" << bits - 1 << ":0] " << name << ";\n  input [7:0] f;\n  begin\n    case (f)\n";
    for (int f = 0; f < 256; ++f) o << "      8'd" << f << ": " << name << " = " << bits << "'d" << value(f) << ";\n";
    o << "      default: " << name << " = " << bits << "'d0;\n    endcase\n  end\nendfunction\n";
  };
  table("fsgen_exp2_t7", 8, [](int f) { return num::exp2_table_q7()[f]; });
  table("fsgen_exp2_t15", 16, [](int f) { return num::exp2_table_q15()[f]; });
  return o.str();
}

// The controller's units a core instantiates (fsgen_ctrl.v's header): the row and pass
// sequencers, the loop nest's walks and the operand buffers always, the others with the
// feature their parameter turns on.
std::vector<std::string> controller_unit_files(const Graph& g) {
  const ArrayInstance ctrl = ctrl_instance(g);
  auto on = [&](const char* param) { return ctrl.params.count(param) && ctrl.params.at(param) != 0; };
  std::vector<std::string> files = {"fsgen_ctrl_rows.v", "fsgen_ctrl_pass.v", "fsgen_ctrl_walk.v",
                                    "fsgen_ctrl_buffer.v"};
  if (on("SPARSE")) files.push_back("fsgen_ctrl_window.v");
  if (on("GRP")) files.push_back("fsgen_ctrl_topk.v");
  if (on("CMP_A") || on("CMP_B")) files.push_back("fsgen_ctrl_meta.v");
  return files;
}

std::vector<std::string> verilog_files(const Graph& g) {
  // fsgen_csr.v is generated
  std::vector<std::string> files = {"fsgen_csr.v", "fsgen_dma.v", "fsgen_ctrl.v"};
  for (const std::string& unit : controller_unit_files(g)) files.push_back(unit);
  std::vector<const ArrayPlan*> arrays = {&g.array_a};
  if (g.attention) arrays.push_back(&g.array_b);
  auto uses = [&](Stationarity s, bool equal) {
    for (const ArrayPlan* p : arrays)
      if ((p->stationarity == s) == equal) return true;
    return false;
  };
  if (uses(Stationarity::kOutput, true)) files.push_back("fsgen_array_os.v");
  if (uses(Stationarity::kOutput, false)) files.push_back("fsgen_array_dot.v");
  if (uses(Stationarity::kOutput, false)) files.push_back("fsgen_acc_cache.v");  // every dot array has one
  if (g.array_a.sparse.skips_steps()) files.push_back("fsgen_sparse_net.v");
  if (g.array_a.sparse.skips_steps() && g.array_a.spec.systolic) files.push_back("fsgen_skew.v");
  if (g.attention) files.push_back("fsgen_softmax.v");
  files.push_back("fsgen_top.v");
  return files;
}

std::string emit_regs_header() {
  std::ostringstream o;
  o << "// Register offsets of the AXI4-Lite port, from src/core/regmap.h.\n"
    << "`ifndef FSGEN_REGS_VH\n`define FSGEN_REGS_VH\n";
  for (const auto& r : reg::kRegisters) {
    char hex[8];
    std::snprintf(hex, sizeof hex, "%02X", static_cast<unsigned>(r.offset));
    o << "`define FSGEN_REG_" << upper(r.name) << " 8'h" << hex << "\n";
  }
  o << "`endif\n";
  return o.str();
}

// ".NAME(value), ..." of a module instance.
std::string parameter_list(const ArrayInstance& inst) {
  std::ostringstream o;
  const char* sep = "";
  for (const auto& [name, value] : inst.params) {
    o << sep << "." << name << "(" << value << ")";
    sep = ", ";
  }
  return o.str();
}

// The softmax / activation unit beside the controller (fused datapath), on the score rows
// array a's accumulators read out; without it, the controller's inputs from it tied off.
std::string emit_softmax_unit(const Graph& g) {
  std::ostringstream o;
  if (!g.attention) {
    o << "  assign sm_v = 1'b0;\n  assign sm_mnew = 32'd0;\n  assign sm_alpha = 32'd0;\n  assign sm_lnew = 32'd0;\n"
      << "  assign sm_p = " << g.array_a.spec.tile_n * 8 << "'d0;\n";
    return o.str();
  }
  const ArrayInstance inst = *block_instance(g, "softmax");
  o << "\n  " << inst.module << " #(" << parameter_list(inst) << ") u_softmax (\n"
    << R"(      .clk(clk), .rst_n(rst_n), .ld(sm_ld), .row(acc_rd_data), .first(sm_first),
      .m_old(sm_m_old), .l_old(sm_l_old), .q_pos(sm_q_pos), .j0(sm_j0), .len_kv(len_kv),
      .causal(attn_flags[0]), .ffn(sm_ffn), .gate(sm_gate),
)";
  for (const auto& r : softmax_registers()) o << "      ." << r << "(" << r << "),\n";
  o << R"(      .p_prev(sm_p_prev), .lut(sm_lut), .v(sm_v), .row_q(sm_row), .m_new(sm_mnew), .alpha(sm_alpha),
      .l_new(sm_lnew), .p(sm_p));
)";
  return o.str();
}

// Array b of the fused kernels: O = alpha O + P V over (m, n, k) = (queries, head dim,
// keys). An output-stationary array rescales O in its PEs; a dot array writes each O
// vector through the rescaling accumulator cache.
std::string emit_array_b(const Graph& g) {
  const ArrayPlan& b = g.array_b;
  const ArraySpec& s = b.spec;
  std::ostringstream o;
  if (b.stationarity == Stationarity::kOutput) {
    o << "\n  fsgen_array_os #(.R(" << s.tile_m << "), .C(" << s.tile_n << "), .RESCALE(1), .SYSTOLIC("
      << (s.systolic ? 1 : 0) << ")) u_array_b (\n"
      << "      .clk(clk), .rst_n(rst_n), .en(vb_q), .clr(clrb_q), .sc(scb_q), .alpha(alpha_q), .x(xb_q), .w(wb_q),\n"
      << "      .rd_row(rdb_row), .rd_data(rdb_data));\n";
    return o.str();
  }
  // The O tile (a.m queries x a.k dims) lives in the accumulator cache; array b writes
  // its sub-tiles into it.
  const bool rows = b.stationarity == Stationarity::kWeight;
  o << "\n  wire [" << b.y_lanes * 32 - 1 << ":0] yb;\n"
    << "  fsgen_array_dot #(.P(" << b.y_lanes << "), .K(" << s.tile_k << "), .LOAD_COL(" << (rows ? 1 : 0)
    << ")) u_array_b (\n"
    << "      .clk(clk), .rst_n(rst_n), .ld(ldb_q), .ld_idx(idxb_q), .w(wb_q), .v(vb_q), .x(xb_q), .y(yb));\n"
    << "  fsgen_acc_cache #(" << parameter_list(acc_cache_instance(g, true)) << ") u_acc_b (\n"
    << "      .clk(clk), .rst_n(rst_n), .wr(acwb), .first(acwb_first), .sc(acwb_sc), .alpha(alpha_q),\n"
    << "      .wr_slot(16'd0), .wr_idx(acwb_idx), .wr_off(acwb_off), .wr_data(yb), .rd_slot(16'd0), .rd_row(rdb_row),\n"
    << "      .rd_data(rdb_data));\n";
  return o.str();
}

// A systolic sparse array takes its lane buses through skew registers (fsgen_skew.v):
// row i's lanes of x and column j's lanes of w enter i and j cycles late.
std::string emit_systolic_feeders(const ArrayPlan& p) {
  std::ostringstream o;
  for (const bool x : {true, false}) {
    const ArrayInstance inst = skew_instance(p, x);
    const std::string operand = x ? "x" : "w";
    o << "  wire [" << inst.params.at("N") * inst.params.at("B") * 8 - 1 << ":0] " << operand << "_skewed;\n  "
      << inst.module << " #(.N(" << inst.params.at("N") << "), .B(" << inst.params.at("B") << ")) u_skew_" << operand
      << " (.clk(clk), .rst_n(rst_n), .in(" << operand << "_lanes), .out(" << operand << "_skewed));\n";
  }
  return o.str();
}

// The x and w value networks of a sparse array a, between the controller's window and
// the array's lane buses (fsgen_sparse_net.v); a systolic array's feeders after them.
std::string emit_value_networks(const ArrayPlan& p) {
  std::ostringstream o;
  o << "  wire [" << p.spec.tile_m * p.sparse.lanes_n() * 8 - 1 << ":0] x_lanes;\n"
    << "  wire [" << p.spec.tile_n * p.sparse.lanes_m() * 8 - 1 << ":0] w_lanes;\n";
  for (const bool x : {true, false}) {
    const ArrayInstance inst = value_network_instance(p, x);
    o << "  // " << (x ? "x" : "w") << " value network " << (x ? p.sparse.net_x : p.sparse.net_w).topology << "\n  "
      << inst.module << " #(" << parameter_list(inst) << ") u_net_" << (x ? "x" : "w") << " (\n      .clk(clk), .rst_n(rst_n), .step(sp_step), .win("
      << (x ? "xwin" : "wwin") << "), .sel(sp_sel), .has(sp_has), .out_q(" << (x ? "x_lanes" : "w_lanes") << "));\n";
  }
  if (p.spec.systolic) o << emit_systolic_feeders(p);
  return o.str();
}

// The bus that feeds operand `x` or `w` of array a: the controller's register, a value
// network's lanes or, on a systolic sparse array, those lanes skewed.
std::string array_operand(const ArraySparsity& sp, const ArraySpec& a, const std::string& operand) {
  if (!sp.skips_steps()) return operand + "_q";
  return operand + (a.systolic ? "_skewed" : "_lanes");
}

std::string emit_top(const Graph& g) {
  const ArrayPlan& p = g.array_a;
  // Without the fused kernels the controller's unused array b ports keep their
  // output-stationary widths (x: TM bytes, w: TK bytes).
  const uint32_t xb_bytes = g.attention ? g.array_b.x_bytes : p.spec.tile_m;
  const uint32_t wb_bytes = g.attention ? g.array_b.w_bytes : p.spec.tile_k;
  const ArraySpec& a = p.spec;
  const ArraySparsity& sp = p.sparse;
  const bool os = p.stationarity == Stationarity::kOutput;
  const int yl = os ? static_cast<int>(a.tile_n) : static_cast<int>(p.y_lanes);
  const bool steps = sp.skips_steps();  // value networks and lane buses in front of array a
  const uint32_t sk = steps ? sp.window() : 1, blocks = steps ? sp.lanes_m() * sp.lanes_n() : 1;
  std::ostringstream o;
  o << "// Generated by fsgen from design '" << g.spec.name << "'. Do not edit.\n"
    << "// " << stationarity_name(p.stationarity) << " array a: tiles m=" << a.tile_m << " n=" << a.tile_n
    << " k=" << a.tile_k << ", loop order " << iter_name(a.loop_order[0]) << iter_name(a.loop_order[1])
    << iter_name(a.loop_order[2]) << ", " << g.memory.beat_bytes << "-byte AXI4 beats.\n"
    << "module fsgen_top #(\n    parameter DW = " << g.memory.beat_bytes * 8 << "\n) (\n"
    << kAxiPorts << ");\n";
  o << "  // Not every array kind uses every controller output.\n  /* verilator lint_off UNUSEDSIGNAL */\n";
  o << register_wires();
  o << R"(  wire        start, busy, done_pulse, rcmd_valid, rcmd_ready, wcmd_valid, wcmd_ready;
  wire        rd_valid, rd_last, rd_idle, w_free, wr_idle;
  wire [31:0] cycles, rcmd_addr, wcmd_addr;
  wire [15:0] ac_slot;
  wire [7:0]  rcmd_beats, wcmd_beats, rd_beat, wr_beat, idx_q, acw_idx, rd_row;
)" << "  wire [" << g.read_tag_bits() - 1 << ":0] rcmd_tag, rd_tag;\n" << R"(
  wire [DW-1:0] rd_data, wr_data;
  wire        v_q, clr_q, ld_q, acw, acw_first, vb_q, clrb_q, scb_q, ldb_q, acwb, acwb_first, acwb_sc;
  wire [7:0]  rdb_row, idxb_q, acwb_idx, acwb_off;
)";
  // The controller's operand registers are tile_m / tile_n bytes on an output-stationary
  // array; a sparse array's wider lane buses come from its value networks.
  o << "  wire [" << (steps ? a.tile_m : p.x_bytes) * 8 - 1 << ":0] x_q;\n"
    << "  wire [" << (steps ? a.tile_n : p.w_bytes) * 8 - 1 << ":0] w_q;\n"
    << "  wire [" << a.tile_m * sk * 8 - 1 << ":0] xwin;\n"
    << "  wire [" << a.tile_n * sk * 8 - 1 << ":0] wwin;\n"
    << "  wire [" << blocks * select_bits(sk) - 1 << ":0] sp_sel;\n"
    << "  wire [" << blocks - 1 << ":0] sp_has;\n"
    << "  wire        sp_step;\n"
    << "  wire [" << yl * 32 - 1 << ":0] y, acw_data;\n"
    << "  wire [" << a.tile_n * 32 - 1 << ":0] acc_rd_data;\n"
    << "  wire [" << xb_bytes * 8 - 1 << ":0] xb_q;\n"
    << "  wire [" << wb_bytes * 8 - 1 << ":0] wb_q;\n"
    << "  wire [" << a.tile_m * 32 - 1 << ":0] alpha_q;\n"
    << "  wire [" << a.tile_k * 32 - 1 << ":0] rdb_data;\n"
    << "  wire        sm_ld, sm_first, sm_ffn, sm_gate, sm_v;\n"
    << "  wire [31:0] sm_m_old, sm_l_old, sm_mnew, sm_alpha, sm_lnew;\n"
    << "  wire [15:0] sm_q_pos, sm_j0;\n"
    << "  wire [" << a.tile_n * 8 - 1 << ":0] sm_p_prev, sm_p;\n"
    << "  wire [2047:0] sm_lut;\n"
    << "  wire [" << a.tile_n * 32 - 1 << ":0] sm_row;\n"
    << "  /* verilator lint_on UNUSEDSIGNAL */\n\n";
  const char* fused_kernels = g.attention ? "1'b1" : "1'b0";
  o << R"(  fsgen_csr u_csr (
      .clk(clk), .rst_n(rst_n),
      .s_awaddr(s_awaddr), .s_awvalid(s_awvalid), .s_awready(s_awready),
      .s_wdata(s_wdata), .s_wvalid(s_wvalid), .s_wready(s_wready),
      .s_bresp(s_bresp), .s_bvalid(s_bvalid), .s_bready(s_bready),
      .s_araddr(s_araddr), .s_arvalid(s_arvalid), .s_arready(s_arready),
      .s_rdata(s_rdata), .s_rresp(s_rresp), .s_rvalid(s_rvalid), .s_rready(s_rready),
      .start(start),
)" << register_connections(false)
    << "      .fused_kernels(" << fused_kernels << "), .busy(busy), .done_pulse(done_pulse), .cycles(cycles), "
    << R"(.irq(irq));

)"
    << "  fsgen_dma #(.W(DW/8), .OUT(" << g.memory.outstanding << "), .TAGW(" << g.read_tag_bits() << R"()) u_dma (
      .clk(clk), .rst_n(rst_n),
      .rcmd_valid(rcmd_valid), .rcmd_addr(rcmd_addr), .rcmd_beats(rcmd_beats), .rcmd_tag(rcmd_tag),
      .rcmd_ready(rcmd_ready), .wcmd_valid(wcmd_valid), .wcmd_addr(wcmd_addr), .wcmd_beats(wcmd_beats),
      .wcmd_ready(wcmd_ready), .rd_valid(rd_valid), .rd_beat(rd_beat), .rd_tag(rd_tag), .rd_last(rd_last),
      .rd_data(rd_data), .rd_idle(rd_idle), .wr_beat(wr_beat), .wr_data(wr_data), .w_free(w_free),
      .wr_idle(wr_idle),
      .m_araddr(m_araddr), .m_arlen(m_arlen), .m_arsize(m_arsize), .m_arburst(m_arburst),
      .m_arvalid(m_arvalid), .m_arready(m_arready),
      .m_rdata(m_rdata), .m_rresp(m_rresp), .m_rlast(m_rlast), .m_rvalid(m_rvalid), .m_rready(m_rready),
      .m_awaddr(m_awaddr), .m_awlen(m_awlen), .m_awsize(m_awsize), .m_awburst(m_awburst),
      .m_awvalid(m_awvalid), .m_awready(m_awready),
      .m_wdata(m_wdata), .m_wstrb(m_wstrb), .m_wlast(m_wlast), .m_wvalid(m_wvalid), .m_wready(m_wready),
      .m_bresp(m_bresp), .m_bvalid(m_bvalid), .m_bready(m_bready));

)";
  o << "  fsgen_ctrl #(" << parameter_list(ctrl_instance(g)) << ") u_ctrl (\n";
  o << "      .clk(clk), .rst_n(rst_n), .start(start),\n" << register_connections(true);
  o << R"(      .busy(busy), .done_pulse(done_pulse), .cycles(cycles),
      .rcmd_valid(rcmd_valid), .rcmd_addr(rcmd_addr), .rcmd_beats(rcmd_beats), .rcmd_tag(rcmd_tag),
      .rcmd_ready(rcmd_ready), .wcmd_valid(wcmd_valid), .wcmd_addr(wcmd_addr), .wcmd_beats(wcmd_beats),
      .wcmd_ready(wcmd_ready), .rd_valid(rd_valid), .rd_beat(rd_beat), .rd_tag(rd_tag), .rd_last(rd_last),
      .rd_data(rd_data), .rd_idle(rd_idle), .wr_beat(wr_beat), .wr_data(wr_data), .w_free(w_free),
      .wr_idle(wr_idle),
      .x_q(x_q), .w_q(w_q), .v_q(v_q), .clr_q(clr_q), .ld_q(ld_q), .idx_q(idx_q), .y(y),
      .xwin(xwin), .wwin(wwin), .sp_sel(sp_sel), .sp_has(sp_has), .sp_step(sp_step),
      .acw(acw), .acw_first(acw_first), .ac_slot(ac_slot), .acw_idx(acw_idx), .acw_data(acw_data),
      .rd_row(rd_row), .acc_rd_data(acc_rd_data),
      .xb_q(xb_q), .wb_q(wb_q), .vb_q(vb_q), .clrb_q(clrb_q), .scb_q(scb_q), .ldb_q(ldb_q), .idxb_q(idxb_q),
      .acwb(acwb), .acwb_first(acwb_first), .acwb_sc(acwb_sc), .acwb_idx(acwb_idx), .acwb_off(acwb_off),
      .alpha_q(alpha_q),
      .rdb_row(rdb_row), .rdb_data(rdb_data),
      .sm_ld(sm_ld), .sm_first(sm_first), .sm_m_old(sm_m_old), .sm_l_old(sm_l_old), .sm_q_pos(sm_q_pos),
      .sm_j0(sm_j0), .sm_ffn(sm_ffn), .sm_gate(sm_gate), .sm_p_prev(sm_p_prev), .sm_lut(sm_lut),
      .sm_v(sm_v), .sm_mnew(sm_mnew), .sm_alpha(sm_alpha), .sm_lnew(sm_lnew), .sm_p(sm_p));
)";
  o << emit_softmax_unit(g) << "\n";
  if (steps) o << emit_value_networks(p);
  if (os) {
    o << "  fsgen_array_os #(.R(" << a.tile_m << "), .C(" << a.tile_n << "), .SYSTOLIC(" << (a.systolic ? 1 : 0)
      << "), .LM(" << (steps ? sp.lanes_m() : 1) << "), .LN(" << (steps ? sp.lanes_n() : 1)
      << ")) u_array_a (\n"
      << "      .clk(clk), .rst_n(rst_n), .en(v_q), .clr(clr_q), .sc(1'b0), .alpha(" << a.tile_m * 32
      << "'d0), .x(" << array_operand(sp, a, "x") << "), .w(" << array_operand(sp, a, "w") << "),\n"
      << "      .rd_row(rd_row), .rd_data(acc_rd_data));\n"
      << "  assign y = {" << yl * 32 << "{1'b0}};\n";
  } else {
    o << "  fsgen_array_dot #(" << parameter_list(array_instance(p, false)) << ") u_array_a (\n"
      << "      .clk(clk), .rst_n(rst_n), .ld(ld_q), .ld_idx(idx_q), .w(w_q), .v(v_q), .x(x_q), .y(y));\n\n"
      << "  fsgen_acc_cache #(" << parameter_list(acc_cache_instance(g, false)) << ") u_acc_a (\n"
      << "      .clk(clk), .rst_n(rst_n), .wr(acw), .first(acw_first), .sc(1'b0), .alpha(" << a.tile_m * 32
      << "'d0),\n      .wr_slot(ac_slot), .wr_idx(acw_idx), .wr_off(8'd0),"
      << "      .wr_data(acw_data), .rd_slot(ac_slot), .rd_row(rd_row), .rd_data(acc_rd_data));\n";
  }
  if (g.attention)
    o << emit_array_b(g);
  else
    o << "  assign rdb_data = {" << a.tile_k * 32 << "{1'b0}};\n";
  o << "endmodule\n";
  return o.str();
}

std::string emit_probes_header(const Graph& g) {
  std::ostringstream o;
  o << "// Generated by fsgen: the probed registers of design '" << g.spec.name << "',\n"
    << "// in the order of Graph::probes(). X(block, port, width_bits, verilator_expr)\n"
    << "#define FSGEN_PROBES(X) \\\n";
  for (const auto& pr : g.probes()) {
    std::string expr;
    if (pr.rtl_signal.find('.') == std::string::npos) {
      expr = "top->" + pr.rtl_signal;
    } else {
      std::string mangled = "fsgen_top__DOT__" + pr.rtl_signal;
      size_t pos;
      while ((pos = mangled.find('.')) != std::string::npos) mangled.replace(pos, 1, "__DOT__");
      expr = "top->rootp->" + mangled;
    }
    o << "  X(\"" << pr.block << "\", \"" << pr.port << "\", " << pr.width_bits << ", " << expr << ") \\\n";
  }
  o << "\n";
  return o.str();
}

std::string graph_json(const Graph& g) {
  nlohmann::ordered_json j;
  j["design"] = g.spec.name;
  j["memory"] = {{"beat_bytes", g.memory.beat_bytes}, {"latency_cycles", g.memory.latency_cycles},
                 {"outstanding", g.memory.outstanding}};
  const ArrayPlan& p = g.array_a;
  j["kernels"] = g.attention ? nlohmann::ordered_json::array({"matmul", "attention"}) : nlohmann::ordered_json::array({"matmul"});
  j["array_a"] = {{"stationarity", stationarity_name(p.stationarity)},
                  {"loop_order", std::string(iter_name(p.spec.loop_order[0])) + iter_name(p.spec.loop_order[1]) +
                                     iter_name(p.spec.loop_order[2])},
                  {"tile", {{"m", p.spec.tile_m}, {"n", p.spec.tile_n}, {"k", p.spec.tile_k}}},
                  {"pes", p.spec.pe_count()},
                  {"movement", {{"A", movement_name(p.move_a)}, {"B", movement_name(p.move_b)}, {"C", movement_name(p.move_c)}}},
                  {"acc_slots", p.acc_slots}};
  for (const auto& b : g.blocks) {
    nlohmann::ordered_json jb;
    jb["kind"] = b.kind;
    jb["desc"] = b.desc;
    for (const auto& prm : b.params) jb["params"][prm.name] = {{"value", prm.value}, {"unit", prm.unit}, {"desc", prm.desc}};
    for (const auto& pt : b.ports)
      jb["ports"][pt.name] = {{"width", pt.width_bits}, {"dir", pt.output ? "out" : "in"}, {"desc", pt.desc}, {"probed", pt.probed()}};
    j["blocks"][b.name] = jb;
  }
  for (const auto& e : g.edges) j["edges"].push_back(e.from_block + "." + e.from_port + " -> " + e.to_block + "." + e.to_port);
  return j.dump(2) + "\n";
}

std::map<std::string, std::string> module_sources() {
  std::map<std::string, std::string> files = rtl_library();
  files["fsgen_exp2.vh"] = emit_exp2_header();
  files["fsgen_csr.v"] = emit_csr();
  files["fsgen_regs.vh"] = emit_regs_header();
  return files;
}

bool uses_clock_gates(const std::string& verilog) { return verilog.find("`FSGEN_GATED_ALWAYS(") != std::string::npos; }

std::vector<std::string> write_module_sources(const std::string& dir, const std::string& module) {
  const std::map<std::string, std::string> sources = module_sources();
  for (const auto& [name, text] : sources) write_text_file(fs::path(dir) / name, text);
  std::vector<std::string> files = {(fs::path(dir) / (module + ".v")).string()};
  const std::string unit_prefix = module + "_";
  for (const auto& [name, text] : sources)
    if (name.rfind(unit_prefix, 0) == 0 && fs::path(name).extension() == ".v")
      files.push_back((fs::path(dir) / name).string());
  return files;
}

std::map<std::string, std::string> emit_design(const Graph& g) {
  std::map<std::string, std::string> files;
  const std::map<std::string, std::string> lib = module_sources();
  for (const auto& f : verilog_files(g))
    if (f != "fsgen_top.v") files[f] = lib.at(f);
  files["fsgen_top.v"] = emit_top(g);
  for (const char* header :
       {"fsgen_regs.vh", "fsgen_clock_gate.vh", "fsgen_exp2.vh", "fsgen_rescale.vh", "fsgen_requant.vh",
        "fsgen_normalise.vh"})
    files[header] = lib.at(header);
  files["probes.h"] = emit_probes_header(g);
  files["graph.json"] = graph_json(g);
  return files;
}

bool design_is_current(const Graph& g, const std::string& out_dir) {
  for (const auto& [name, text] : emit_design(g)) {
    std::ifstream in(fs::path(out_dir) / name, std::ios::binary);
    if (!in) return false;
    std::ostringstream ss;
    ss << in.rdbuf();
    if (ss.str() != text) return false;
  }
  return true;
}

std::string write_design(const Graph& g, const std::string& out_dir) {
  const fs::path final_dir(out_dir);
  const fs::path tmp_dir = final_dir.string() + ".tmp";
  std::error_code ec;
  fs::remove_all(tmp_dir, ec);
  fs::create_directories(tmp_dir, ec);
  if (ec) fail(tmp_dir.string(), "cannot create output folder: " + ec.message());
  for (const auto& [name, text] : emit_design(g)) write_text_file(tmp_dir / name, text);
  fs::remove_all(final_dir, ec);
  fs::rename(tmp_dir, final_dir, ec);
  if (ec) fail(final_dir.string(), "cannot move generated design into place: " + ec.message());
  return final_dir.string();
}

}  // namespace fsgen
