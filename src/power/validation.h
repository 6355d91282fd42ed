// Validation of the power models against gate-level golden power (docs/POWER.md,
// "Validation"): every modelled block (PE arrays, value networks, accumulator caches, the DMA) of
// every validation design is a record (its run's
// features, predicted and golden power, area, trace agreement), appended to a CSV by
// `fsgen power --golden --record`; `fsgen power-validate` reads the records and scores
// the hierarchical model and the baselines design by design.
#pragma once
#include <cmath>
#include <cstdint>
#include <ostream>
#include <string>
#include <vector>

#include "power/characterize.h"

namespace fsgen {

struct ValidationRecord {
  std::string design, block, kind;
  std::vector<int> h;
  std::string variant;  // "" when the block is characterised (BlockPower::variant_note)
  uint64_t cycles = 0, window = 0;
  double clock_mhz = 0;
  double alpha = 0, busy = 0, enable = 0, zeros = 0;  // the run's features (BlockPower)
  double predicted_mw = 0, golden_mw = 0, predicted_leakage_mw = 0, golden_leakage_mw = 0;
  double predicted_area_um2 = 0, golden_area_um2 = 0;
  double trace_r = 0, trace_nrmse = 0;  // per window of `window` cycles
  // The same for the sum over the design's compared blocks (equal in all of its records).
  double design_trace_r = 0, design_trace_nrmse = 0;
  // Golden power of the design's replayed blocks that have no model (the controller and
  // register file of a matmul core): what the compared sum leaves out of the core. nan
  // when not replayed (fused cores, records of earlier layouts).
  double design_unmodelled_golden_mw = std::nan("");
};

// Appends to `path` (with the column header when new); UserError when the file's header
// is another format.
void append_validation_records(const std::string& path, const std::vector<ValidationRecord>& records);
std::vector<ValidationRecord> read_validation_records(const std::string& path);

struct MethodScore {
  std::string method;
  std::vector<double> predicted_mw;  // per design
  double mape = 0, pearson = 0, max_abs_error = 0;  // %, -, %
};

struct ValidationSummary {
  std::vector<std::string> designs;
  std::vector<bool> extrapolated;   // a block of the design is not characterised (its variant note)
  std::vector<bool> sparse;         // the design has value networks (sparse_net blocks)
  std::vector<double> golden_mw;    // per design, the sum over its modelled blocks
  std::vector<MethodScore> methods; // fsgen first, then the baselines
  // Over the designs of characterised variants only (the headline), per method: all of
  // them, the dense ones, the sparse ones.
  std::vector<MethodScore> headline, headline_dense, headline_sparse;
  double trace_r_mean = 0, trace_r_min = 0, trace_nrmse_mean = 0;  // over blocks
  std::vector<double> design_trace_r, design_trace_nrmse;          // per design: its blocks' sum
  // Per design: golden power of its replayed blocks without a model (nan: not replayed).
  std::vector<double> unmodelled_golden_mw;
  double area_error_mean = 0, area_error_max = 0;                   // |%| over blocks
  uint64_t blocks = 0, trace_window = 0;
  // The fsgen model's blocks by primitive: their average power against golden (MAPE,
  // Pearson R, max error over the blocks of that kind, method = the kind) and their own
  // traces' mean R.
  std::vector<MethodScore> by_kind;
  std::vector<double> by_kind_trace_r;
};

// Scores the hierarchical model and the baselines: constant energy per action and energy
// per MAC calibrated on `dataset`, and a whole-design XGBoost model trained, for each
// design, on all the other designs' golden power (leave one design out; from 4 designs).
ValidationSummary summarise_validation(const std::vector<ValidationRecord>& records, const Dataset& dataset);
void print_validation(const ValidationSummary& s, std::ostream& out);  // Markdown
// Predicted against golden per design and method, drawn by gnuplot.
void plot_validation_png(const ValidationSummary& s, const std::string& png_path);

}  // namespace fsgen
