// Verilator and Yosys on a generated design: the harness build and its runs, lint, synthesis.
#pragma once
#include <string>

#include "compiler/program.h"
#include "flow/tools.h"
#include "generator/graph.h"
#include "models/run_result.h"

namespace fsgen {

// Builds (or reuses) the Verilator harness of a generated design folder.
// Returns the path of the testbench executable.
// trace: a separate build that can write a VCD of every signal (--vcd), slower to run.
std::string build_verilator_harness(const std::string& design_dir, unsigned beat_bytes, unsigned latency,
                                    bool trace = false);

// Generates the design's RTL under rtl_root/<design>, builds its harness and runs
// the program. probes = false skips per-cycle toggle sampling (raw RTL speed). vcd: also
// write a VCD of every signal from the kernel's cycle 0 on (a separate, traced build; the
// file appears only when the run succeeded).
RunResult run_on_verilator(const Graph& g, const Program& p, const std::string& rtl_root, bool probes = true,
                           const std::string& vcd = "");

// The design's emitted files in <root>/<design>, written unless every one is current (a
// current folder keeps its harness builds), under the design's lock, which cosim holds while
// it builds there: runs of generate and cosim on one design take turns. Returns the folder.
std::string update_design_folder(const Graph& g, const std::string& root);

// `verilator --lint-only -Wall` on a generated design folder; status 0 means clean.
CommandResult lint_verilog(const std::string& design_dir);
// `yosys synth` of fsgen_top; on success the output ends with yosys' `stat` report. kCoarse
// stops before the fine-grained mapping (elaboration, FSMs, memories, coarse cells): it shows
// that Yosys takes the design in a fraction of the time.
enum class SynthDepth { kFull, kCoarse };
CommandResult synth_yosys(const std::string& design_dir, SynthDepth depth = SynthDepth::kFull);

}  // namespace fsgen
