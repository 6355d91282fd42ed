// Writes a design's Verilog (and the harness metadata derived from the same graph)
// into a folder: the module library files the graph uses, fsgen_regs.vh with the
// register map, fsgen_top.v wiring one instance per block, probes.h naming the
// probed registers for the Verilator harness, and graph.json.
#pragma once
#include <map>
#include <string>
#include <vector>

#include "generator/graph.h"

namespace fsgen {

// The Verilog source files of the design, top last. Names only.
std::vector<std::string> verilog_files(const Graph& g);
std::string emit_top(const Graph& g);
std::string emit_regs_header();
std::string emit_exp2_header();
std::string emit_csr();
std::string emit_probes_header(const Graph& g);
std::string graph_json(const Graph& g);

// The library's modules with the headers they include (generated: fsgen_exp2.vh, the
// register file fsgen_csr.v and its fsgen_regs.vh): what synthesising one module on its
// own needs. name -> text.
std::map<std::string, std::string> module_sources();

// Whether Verilog text puts registers behind clock gates (FSGEN_GATED_ALWAYS,
// fsgen_clock_gate.vh): its synthesis onto a liberty maps them to the library's
// clock-gating cell.
bool uses_clock_gates(const std::string& verilog);

// Writes module_sources() into dir (created) and returns the paths of `module`'s file and
// of its units' (fsgen_ctrl_rows.v is a unit of fsgen_ctrl: files named <module>_*.v), for
// synthesising that module on its own.
std::vector<std::string> write_module_sources(const std::string& dir, const std::string& module);

// Every file of the design folder: name -> text.
std::map<std::string, std::string> emit_design(const Graph& g);

// Writes emit_design() into out_dir (replaced atomically: a failed write leaves no
// half-written folder). Returns the folder.
std::string write_design(const Graph& g, const std::string& out_dir);

// True when out_dir holds exactly the files emit_design() would write now.
bool design_is_current(const Graph& g, const std::string& out_dir);

}  // namespace fsgen
