#include "power/memory_macro.h"

#include <algorithm>
#include <cmath>
#include <iterator>
#include <limits>

#include "core/error.h"
#include "flow/tech_library.h"

namespace fsgen {

namespace {

// Horowitz, ISSCC 2014, 45 nm 0.9 V: 64-bit SRAM read energy by capacity.
struct Anchor {
  double bytes, pj;
};
constexpr Anchor kRead64[] = {{8.0 * 1024, 10}, {32.0 * 1024, 20}, {1024.0 * 1024, 100}};
constexpr double kAnchorNodeNm = 45, kAnchorVdd = 0.9;
constexpr double kBitCellLambda2 = 600;  // 6T cell area in lambda^2, periphery included

double read64_pj(double bytes) {
  const size_t n = std::size(kRead64);
  size_t i = 0;  // the segment [i, i + 1] to interpolate on (or extend)
  while (i + 2 < n && bytes > kRead64[i + 1].bytes) ++i;
  const Anchor a = kRead64[i], b = kRead64[i + 1];
  const double slope = std::log(b.pj / a.pj) / std::log(b.bytes / a.bytes);
  return a.pj * std::pow(bytes / a.bytes, slope);
}

bool is_inverter(const LibertyCell& c) {
  const LibertyPin* in = nullptr;
  const LibertyPin* out = nullptr;
  for (const auto& [name, pin] : c.pins) {
    if (pin.output) {
      if (out) return false;
      out = &pin;
    } else if (!in) {
      in = &pin;
    } else {
      return false;
    }
  }
  if (!in || !out) return false;
  std::string f;
  for (char ch : out->function)
    if (ch != ' ' && ch != '(' && ch != ')' && ch != '"') f += ch;
  return f == "!" + in->name || f == in->name + "'";
}

}  // namespace

MacroTechnology macro_technology(const LibertyLibrary& lib, double node_nm) {
  if (node_nm <= 0) fail("--macro-node", "expected a feature size in nm above 0");
  const LibertyCell* smallest = nullptr;
  for (const auto& [name, cell] : lib.cells)
    if (!cell.sequential && is_inverter(cell) && (!smallest || cell.area_um2 < smallest->area_um2)) smallest = &cell;
  if (!smallest) fail("liberty " + lib.name, "no inverter cell: the memory macro model takes its bit leakage from one");
  return {node_nm, lib.nom_voltage > 0 ? lib.nom_voltage : kAnchorVdd, 2 * smallest->leakage_nw};
}

MacroTechnology macro_technology_of(const std::string& liberty_file, double node_nm) {
  return macro_technology(liberty_file.empty() ? read_liberty(tech_library().at("fsgen45.lib"), "fsgen45.lib")
                                               : read_liberty_file(liberty_file),
                          node_nm);
}

MemoryMacro sram_macro(const std::string& block, uint64_t bytes, uint32_t word_bits, const MacroTechnology& t) {
  FSGEN_ASSERT(bytes > 0 && word_bits > 0, "an SRAM macro needs a capacity and a word");
  MemoryMacro m;
  m.block = block, m.bytes = bytes, m.word_bits = word_bits;
  const double scale = (t.vdd / kAnchorVdd) * (t.vdd / kAnchorVdd) * (t.node_nm / kAnchorNodeNm);
  m.read_pj = read64_pj(double(bytes)) * word_bits / 64.0 * scale;
  m.write_pj = m.read_pj;
  const double lambda_um = t.node_nm * 1e-3;
  m.area_um2 = double(bytes) * 8 * kBitCellLambda2 * lambda_um * lambda_um;
  m.leakage_mw = double(bytes) * 8 * t.bit_leakage_nw * 1e-6;
  return m;
}

const MemoryMacro* DesignMacros::find(const std::string& block) const {
  const auto it = std::find_if(macros.begin(), macros.end(), [&](const MemoryMacro& m) { return m.block == block; });
  return it == macros.end() ? nullptr : &*it;
}

bool DesignMacros::holds_module(const std::string& module) const {
  return std::find(modules.begin(), modules.end(), module) != modules.end();
}

bool DesignMacros::holds_operand_buffers() const { return holds_module("fsgen_ctrl_buffer"); }

DesignMacros design_macros(const Graph& g, const MacroTechnology& t, const MacroOptions& o) {
  DesignMacros d;
  // Each module's blocks with their bytes and access width, in bits.
  auto add_module = [&](const std::string& module,
                        const std::vector<std::tuple<std::string, uint64_t, uint32_t>>& blocks) {
    uint64_t largest = 0;
    for (const auto& [name, bytes, bits] : blocks) largest = std::max(largest, bytes);
    if (largest == 0 || largest < o.threshold_bytes) return;
    d.modules.push_back(module);
    for (const auto& [name, bytes, bits] : blocks) d.macros.push_back(sram_macro(name, bytes, bits, t));
  };
  std::vector<std::tuple<std::string, uint64_t, uint32_t>> caches, buffers;
  for (const Block& b : g.blocks) {
    if (b.kind == "acc_cache") {
      const ArrayPlan& plan = b.name == "acc_b" ? g.array_b : g.array_a;
      caches.emplace_back(b.name, g.spec.cache_bytes.at(b.name), plan.spec.tile_n * 32);
    } else if (b.kind == "op_buffer") {
      buffers.emplace_back(b.name, uint64_t(b.param("bytes")), g.memory.beat_bytes * 8);
    }
  }
  add_module("fsgen_acc_cache", caches);
  add_module("fsgen_ctrl_buffer", buffers);
  return d;
}

}  // namespace fsgen
