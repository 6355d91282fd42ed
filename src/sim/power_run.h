// fsgen power: a kernel's power from the trained primitive models (by block and as a
// trace), optionally beside the gate-level golden power of the same run.
#pragma once
#include <cstdint>
#include <ostream>
#include <string>

#include "compiler/program.h"
#include "generator/graph.h"
#include "power/golden.h"
#include "power/memory_macro.h"
#include "power/power_model.h"
#include "sim/power_report.h"

namespace fsgen {

struct PowerRunOptions {
  uint64_t window = 256;                   // trace window, cycles
  std::string liberty;                     // the model's liberty ("" for the built-in fsgen45)
  MacroOptions macros;                     // which buffers are SRAM macros, and their node
  std::string out_root = "rtl_out";        // the liberty copy and the golden builds go below it
  std::string csv, vcd, png;               // the trace's files ("" for none)
  bool golden = false;                     // also replay the blocks at gate level
  bool whole_core = true;                  // golden: every block, also the structural ones and those without a model
  std::string golden_csv, golden_signals;  // golden: traces per block and window; energy by RTL signal
  std::string record_path, record_name;    // golden: validation records to append, the design's name in them
};

// The gate-level golden power of a run's blocks beside the trace's prediction of them.
struct GoldenRun {
  std::vector<GoldenBlockPower> golden;      // every replayed block
  std::vector<GoldenComparison> comparison;  // those with a model
  TraceAgreement together;                   // their sum, window by window
};
// Replays the blocks of the primitives with activity models (arrays, value networks,
// accumulator caches, the DMA, the softmax unit; with `whole_core` every block with logic:
// also the controller and register file, the core's largest syntheses) under prog.
// `rtl_root`: where the design's RTL is generated; `work`: golden_work_folder's, which one run
// uses at a time (the caller holds its FolderLock).
GoldenRun run_golden(const Graph& g, const Program& prog, const PowerModel& pm, const PowerTrace& t,
                     const std::string& liberty, const std::string& rtl_root, const std::string& work, bool whole_core);
// The netlists' folder below `out_root` for a liberty ("" for the built-in fsgen45).
std::string golden_work_folder(const std::string& out_root, const std::string& liberty);

// Prints the power by block (and the golden comparison) on out and writes the files asked for.
void run_power(const Graph& g, const Program& prog, const PowerModel& pm, const PowerRunOptions& o, std::ostream& out);

}  // namespace fsgen
