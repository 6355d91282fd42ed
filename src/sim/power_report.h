// Power of a kernel run from the trained primitive models (docs/POWER.md, "Estimation"):
// the SystemC model's per-cycle toggles on each block's input ports, and its arrays' busy
// spans and operand samples, give every modelled block's features per window; its model
// gives dynamic energy, plus leakage. Blocks without a trained
// primitive are listed as not modelled, not guessed.
#pragma once
#include <algorithm>
#include <cstdint>
#include <map>
#include <ostream>
#include <string>
#include <vector>

#include "compiler/program.h"
#include "generator/graph.h"
#include "models/kernel_regs.h"
#include "models/run_result.h"
#include "power/golden.h"
#include "power/memory_macro.h"
#include "power/power_model.h"
#include "power/validation.h"

namespace fsgen {

struct BlockPower {
  std::string block, kind;
  std::vector<int> h;
  std::string model;  // what gave its power, with its parameters
  std::vector<double> mw;  // per window
  double average_mw = 0, leakage_mw = 0;
  // The run's features: input toggle rate, busy (streaming) share, enabled share (busy or
  // loading a stationary operand), zero-byte share, the rescale factors' toggle rate (a
  // primitive with a factor port) and its state register's (one with a state register).
  double alpha = 0, busy = 0, enable = 0, zeros = 0, factor = 0, state = 0;
  // Empty when the block's RTL parameters are the characterised primitive's and its
  // hyperparameters' values were all characterised; otherwise what differs (e.g.
  // "RESCALE=1, characterised 0", "R=8 (characterised 2, 4)"): the estimate extrapolates.
  std::string variant_note;
};

struct PowerTrace {
  std::string design, kernel;
  double clock_mhz = 0;
  uint64_t cycles = 0, window = 0;
  std::vector<BlockPower> blocks;
  std::vector<std::string> not_modelled;  // blocks of the graph without a trained primitive
  double total_average_mw() const;
  uint64_t windows() const { return (cycles + window - 1) / window; }  // the last may be short
  uint64_t window_cycles(uint64_t w) const { return std::min(window, cycles - w * window); }
  double simulate_seconds = 0, estimate_seconds = 0;  // wall: the SystemC run, the power estimate
};

// A block's estimate against its gate-level golden power (power/golden.h) on the same run.
struct GoldenComparison {
  std::string block;
  double predicted_mw = 0, golden_mw = 0;
  double error_percent = 0;  // (predicted - golden) / golden
  // Per-window traces from the second window on (the golden's first cycle counts every
  // net's initial value as a toggle; power_report.cpp, agreement):
  double window_r = 0;       // Pearson R of the per-window traces
  double window_nrmse = 0;   // RMS of the per-window differences over the golden average
  double golden_area_um2 = 0, predicted_area_um2 = 0;
  double golden_leakage_mw = 0;
  uint64_t replay_mismatch_cycles = 0;  // GoldenBlockPower::output_mismatch_cycles
};
std::vector<GoldenComparison> compare_to_golden(const PowerTrace& t, const std::vector<GoldenBlockPower>& golden,
                                                const PowerModel& model);
// The design's trace against golden: the sum over its compared blocks, window by window
// (what an architect reads off a power trace; a block alone may be flat and small).
struct TraceAgreement {
  double predicted_mw = 0, golden_mw = 0;
  double r = 0, nrmse = 0;  // per window, as GoldenComparison's
};
TraceAgreement design_trace_agreement(const PowerTrace& t, const std::vector<GoldenBlockPower>& golden);
void print_golden_comparison(const std::vector<GoldenComparison>& c, const TraceAgreement& design, std::ostream& out);
// The golden power of replayed blocks the estimate has no model for (the controller and
// register file of a matmul core; the softmax unit with a model that lacks it): what the
// comparison above leaves out, and its share of every replayed block's golden power.
void print_golden_unmodelled(const PowerTrace& t, const std::vector<GoldenBlockPower>& golden, std::ostream& out);
// One validation record (power/validation.h) per compared block, named `design`; with the
// golden power of the replayed blocks without a model when the controller is among them
// (the requantiser and normaliser are inside it, so the core is then replayed whole).
std::vector<ValidationRecord> validation_records(const std::string& design, const PowerTrace& t,
                                                 const std::vector<GoldenComparison>& c, const TraceAgreement& total,
                                                 const std::vector<GoldenBlockPower>& golden);

// `macros`: the design's memory macros (power/memory_macro.h), estimated from the SystemC
// model's accesses (each placed in the windows where its array computes) and leakage.
PowerTrace estimate_power(const Graph& g, const Program& p, const PowerModel& model, uint64_t window,
                          const DesignMacros& macros = {});
// The same for a run already made on the SystemC platform (kept with its probes' events), of
// a kernel programmed with `regs`.
PowerTrace estimate_run_power(const Graph& g, const std::string& kernel, const KernelRegs& regs, const RunResult& r,
                              const PowerModel& model, uint64_t window, const DesignMacros& macros = {});

// A block's figures by its primitive's models: area, and where the primitive models have
// a timing model, its worst path delay and how far beyond the characterised sizes it lies
// (KindTiming::beyond; delay 0 without one). Blocks without a primitive model are left out,
// and named in `not_modelled` when given (unless the controller's model prices them). A
// memory macro's area is the SRAM macro model's (kind "sram_macro", not timed).
struct BlockEstimate {
  std::string block, kind;
  double area_um2 = 0, delay_ns = 0, beyond = 0;
};
std::vector<BlockEstimate> block_estimates(const Graph& g, const PowerModel& model,
                                           std::vector<std::string>* not_modelled = nullptr,
                                           const DesignMacros& macros = {});

// A block of a design as the power flow prices it: its primitive, its hyperparameters (the
// macro parameter from the design's SRAM macros; a held one as each of the design's kernels
// sets it, one entry per distinct size) and how its module differs from what the primitive
// characterises (variant_difference; "" for none). Blocks without a primitive instance, and
// SRAM macros, are left out. `fsgen characterize --design` characterises these sizes.
struct PricedInstance {
  std::string block, kind;
  std::vector<int> h;
  std::string variant;
};
std::vector<PricedInstance> priced_instances(const Graph& g, const DesignMacros& macros);

// The design's area by the primitive area models (PowerModel::area_um2) of its blocks that
// have one; the others are named in `not_modelled`.
struct DesignArea {
  double um2 = 0;
  std::vector<std::string> not_modelled;
};
DesignArea design_area(const Graph& g, const PowerModel& model, const DesignMacros& macros = {});

// The design's max clock by the timing model (PowerModel::timing) of its blocks that have
// one: its slowest block's worst path. Blocks larger than their kind's characterised sizes
// are named in `extrapolated` with how many times larger; those without a model (a kind
// not characterised, logic inside the controller's module) in `not_modelled`.
struct DesignClock {
  double mhz = 0;  // 0 when no block has a timing model
  std::string limiting_block;
  double limiting_delay_ns = 0;
  std::vector<std::string> extrapolated, not_modelled;
};
DesignClock design_clock(const Graph& g, const PowerModel& model, const DesignMacros& macros = {});

void print_power(const PowerTrace& t, std::ostream& out);
void write_power_csv(const PowerTrace& t, std::ostream& out);
// The predicted and golden traces of every compared block and of their sum, window by window.
void write_golden_trace_csv(const PowerTrace& t, const std::vector<GoldenBlockPower>& golden, std::ostream& out);
// Each replayed block's dynamic energy over the run by RTL signal (GoldenBlockPower::signals):
// its bits, toggles, energy (fJ), energy per cycle and share of the block's dynamic energy.
void write_golden_signals_csv(const std::vector<GoldenBlockPower>& golden, std::ostream& out);
// Real-valued signals, one per block and the total, in mW (GTKWave opens it).
void write_power_vcd(const PowerTrace& t, std::ostream& out);
// A PNG of the trace drawn by gnuplot (UserError when gnuplot is missing or fails).
void plot_power_png(const PowerTrace& t, const std::string& csv_path, const std::string& png_path);

}  // namespace fsgen
