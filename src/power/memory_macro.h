// Memory macros (docs/POWER.md, "Memory macros"): an on-chip buffer of at least
// MacroOptions::threshold_bytes is an SRAM macro, as a memory compiler would deliver it:
// a black box in synthesis, with area, energy per access and leakage from this
// parametric model instead of gates.
//
// The model, per macro of B bytes accessed W bits at a time:
// - read energy: Horowitz (ISSCC 2014, 45 nm, 0.9 V) 64-bit SRAM reads of 10 pJ (8 KB),
//   20 pJ (32 KB) and 100 pJ (1 MB), interpolated log-log in capacity (extended beyond
//   the ends with the end segments' slopes), times W / 64, times (V / 0.9)^2 for the
//   library's nominal voltage V, times node / 45 nm (capacitance scales with feature size);
// - write energy: the read energy (the anchors give reads only);
// - area: 600 lambda^2 per bit with lambda the node (the CACTI rule of thumb for a 6T cell
//   with its share of periphery, Greaves, Cambridge SoC D&M notes, 2008-12);
// - leakage: per bit, two of the library's smallest inverters (the cell's cross-coupled
//   pair; access transistors and periphery are not counted).
#pragma once
#include <cstdint>
#include <string>
#include <vector>

#include "generator/graph.h"
#include "power/liberty.h"

namespace fsgen {

struct MacroOptions {
  uint64_t threshold_bytes = 1024;  // buffers at least this large are macros
  double node_nm = 45;              // the process' feature size
};

struct MacroTechnology {
  double node_nm = 45, vdd = 0.9;
  double bit_leakage_nw = 0;
};
// The library's nominal voltage and inverter leakage; UserError when it has no inverter.
MacroTechnology macro_technology(const LibertyLibrary& lib, double node_nm);
// The same of a liberty file (.lib or .lib.gz); "" the built-in fsgen45.
MacroTechnology macro_technology_of(const std::string& liberty_file, double node_nm);

struct MemoryMacro {
  std::string block;  // the graph block it implements
  uint64_t bytes = 0;
  uint32_t word_bits = 0;
  double area_um2 = 0, read_pj = 0, write_pj = 0, leakage_mw = 0;
};
MemoryMacro sram_macro(const std::string& block, uint64_t bytes, uint32_t word_bits, const MacroTechnology& t);

// The buffers of a design that are macros, each RTL module's instances together (one
// module is one black box) when the largest of them reaches the threshold: the
// accumulator caches (fsgen_acc_cache, accessed a row of tile_n INT32 at a time) and the
// controller's operand buffers (fsgen_ctrl_buffer, buf_a and buf_b, accessed a beat at a
// time).
struct DesignMacros {
  std::vector<MemoryMacro> macros;
  std::vector<std::string> modules;                         // the black boxes of their synthesis
  const MemoryMacro* find(const std::string& block) const;  // nullptr: the block is not a macro
  bool has(const std::string& block) const { return find(block) != nullptr; }
  bool holds_module(const std::string& module) const;  // its instances are macros (a black box)
  bool holds_operand_buffers() const;  // the controller's buffers are macros (fsgen_ctrl_buffer a black box)
};
DesignMacros design_macros(const Graph& g, const MacroTechnology& t, const MacroOptions& o);

}  // namespace fsgen
