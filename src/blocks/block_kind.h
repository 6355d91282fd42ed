// The contract of a block kind (docs/BLOCKS.md). Every kind of block the accelerator graph
// can hold lives in one folder, src/blocks/<kind>/, and describes itself here once: its
// parameters (with units), its ports, its statistics, its Verilog, its SystemC model and
// its power primitive. The graph takes its parameters' units and descriptions from this
// declaration; the emitter, the power flow and the reports ask the registry
// (blocks/registry.h) instead of switching on kind names.
#pragma once
#include <optional>
#include <string>
#include <vector>

#include "blocks/power_primitive.h"
#include "blocks/testbench_driver.h"

namespace fsgen {

// A parameter an instance of the kind sets (its value comes from elaboration).
struct ParamDecl {
  std::string name;
  std::string unit;  // "" for a plain count or code
  std::string desc;
};

// A port of the kind; its width and probed register come from elaboration.
struct PortDecl {
  std::string name;
  bool output;
  std::string desc;
};

// A statistic the SystemC model records for an instance (BlockActivity, run_result.h).
struct StatDecl {
  std::string name;
  std::string unit;
  std::string desc;
};

struct BlockKind {
  std::string name;         // the graph's kind: "pe_array_os"
  std::string description;  // what an instance is, in one line
  std::vector<ParamDecl> params;
  std::vector<PortDecl> ports;
  std::vector<StatDecl> statistics;
  // The Verilog files of the kind (in its folder, embedded into the binary) and the module
  // an instance is; "" for a kind whose logic is part of another's module (host_module).
  std::vector<std::string> rtl_files;
  std::string module;
  // A kind without a module of its own: the module whose RTL it is part of (the requantiser,
  // the normaliser and the K/V tile caches are inside the controller's, fsgen_ctrl).
  std::string host_module;
  // Whether the host's power model covers it (the requantiser and the normaliser are in
  // every characterised controller; the tile caches are slots of its operand buffer buf_b).
  bool priced_with_host = false;
  // Where its cycle-level behaviour is modelled: its folder's model.h, or the core model in
  // src/models.
  std::string systemc_model;
  // Its power primitive, when the power flow characterises it; nullopt when it is not (priced
  // with its host, or reported as not modelled, like the skew registers).
  std::optional<PrimitiveDef> power;
  // Its gate-level testbench driver, named by its power primitive's driver; nullopt: the
  // characterisation drives its ports at random.
  std::optional<TestbenchDriver> testbench;
  // What a power report adds to the kind's name, e.g. " (with the requantiser)".
  std::string power_note;

  const ParamDecl* param(const std::string& n) const;
  const PortDecl* port(const std::string& n) const;
  // Priced with the controller: a modelled controller's power includes it.
  bool priced_with_controller() const { return host_module == "fsgen_ctrl" && priced_with_host; }
};

}  // namespace fsgen
