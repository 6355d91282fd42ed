// Golden power of a design's modelled blocks (PE arrays, value networks, accumulator
// caches: the blocks with a block_instance) under a kernel's exact stimulus: the design's Verilated RTL runs the
// program with a VCD trace (the RTL the cross-check holds equal to the SystemC model at
// every probed port, cycle by cycle); each instance's input ports are read back cycle by
// cycle and replayed into its netlist, mapped onto the liberty with the instance's
// parameters; the gate-level engine gives its power per cycle.
#pragma once
#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "compiler/program.h"
#include "generator/graph.h"
#include "power/gate_power.h"
#include "power/techmap.h"

namespace fsgen {

struct GoldenBlockPower {
  std::string block, module;
  std::map<std::string, int64_t> params;
  std::vector<double> mw;  // per kernel cycle
  double average_mw = 0, leakage_mw = 0, area_um2 = 0;
  // The replay's self-check: cycles in which the netlist's outputs differ from the RTL
  // instance's (0 when the stimulus was replayed exactly and the mapping is right).
  uint64_t output_mismatch_cycles = 0;
  std::vector<SignalEnergy> signals;  // its dynamic energy over the run by RTL signal (gate_power.h)
};

// blocks: the blocks to replay (each with a block_instance; an accumulator cache that is a
// memory macro is not logic to replay). liberty_file "": the built-in fsgen45. rtl_root: where the design's RTL is
// generated and built; work_dir: netlists, one folder per module and parameters (designs run with the same work_dir
// share them; not safe to share between concurrent runs).
std::vector<GoldenBlockPower> golden_block_power(const Graph& g, const Program& p, const std::vector<std::string>& blocks,
                                                 const std::string& liberty_file,
                                                 const std::string& rtl_root, const std::string& work_dir);

}  // namespace fsgen
