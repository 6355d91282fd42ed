// Primitive characterisation (docs/POWER.md, "Primitives"): every primitive of the
// accelerator graph is synthesised onto a liberty library at a set of hyperparameters,
// simulated at gate level under random stimulus over a grid of activities, and its power
// measured by the gate-level engine. Each (primitive, hyperparameters, stimulus) is one
// labelled point of a dataset file (CSV with a provenance header), appended point by
// point so that an interrupted run resumes where it stopped.
//
// Features, defined the way the SystemC model's per-block activity gives them:
//   alpha  toggles on the data input bits / (bits x cycles); a value network's on its
//          output lanes, the DMA's on its data buses (PrimitiveDef::alpha_ports)
//   enable cycles with an enable high / cycles            (busy cycles / cycles);
//          the DMA's: cycles with a data beat / cycles
//   zeros  zero bytes / data bytes presented while enabled (zero operand share)
//   side   cycles with the side enable / cycles (PrimitiveDef::side_enable; 0 without one)
//   factor toggles on the rescale factors' bits / (bits x cycles) (PrimitiveDef::factor_port;
//          0 without one); factor_ones the share of those bits at 1 over the cycles
//   state  toggles of the state register's bits / (bits x cycles) (PrimitiveDef::
//          state_register: an output-stationary array's accumulators; 0 without one); state_ones
//          the share of its bits at 1 over the cycles
// Labels: dynamic energy per cycle (internal + switching), leakage, and area.
// The controllers (a matmul and a fused core's) also have kernel points
// (PrimitiveDef::kernel_sizes): windows of kernels on training cores, with their events' rates
// as features (controller_training.h).
#pragma once
#include <cstdint>
#include <functional>
#include <map>
#include <ostream>
#include <string>
#include <vector>

#include "blocks/power_primitive.h"

namespace fsgen {

const std::vector<PrimitiveDef>& primitive_catalog();
// Hyperparameters as text: "4;8" in datasets and records, "4x8" in names and reports.
std::string hyperparameter_text(const std::vector<int>& h, char separator = ';');
// "4;8"; a UserError naming place unless every value is an integer.
std::vector<int> parse_hyperparameters(const std::string& text, const std::string& place);
const PrimitiveDef& primitive_def(const std::string& kind);  // UserError for an unknown kind
// An RTL instance's hyperparameters in the primitive's feature order (its module parameters
// named by def.params).
std::vector<int> hyperparameters_of(const PrimitiveDef& def, const std::map<std::string, int64_t>& params);
// The modules a netlist of the primitive at hyperparameters h leaves out as SRAM macros
// (PrimitiveDef::macro_param): its macro_modules where that hyperparameter is 1, else none.
std::vector<std::string> macro_modules_at(const PrimitiveDef& def, const std::vector<int>& h);
// The module parameters of the primitive's RTL at hyperparameters h: its fixed ones, h's
// (held hyperparameters are settings, not parameters) and those derived from h.
std::map<std::string, int64_t> module_parameters(const PrimitiveDef& def, const std::vector<int>& h);
// How an instance differs from the variant the primitive was characterised as (e.g.
// "RESCALE=1, characterised 0"; parameters never varied, "LN=2, not characterised");
// wiring parameters are not differences. Empty: a characterised variant.
std::string variant_difference(const PrimitiveDef& def, const std::map<std::string, int64_t>& params);

struct CharPoint {
  std::string kind;
  std::vector<int> h;
  double toggle_rate = 0, zero_fraction = 0, enable_rate = 0;  // stimulus settings
  uint64_t seed = 0;
  double alpha = 0, enable = 0, zeros = 0, side = 0, factor = 0;  // measured features
  // PrimitiveDef::state_register's toggles / (bits x cycles), and the share of its bits at 1
  // over the cycles; 0 without one. The same share of the factor port's bits.
  double state = 0, state_ones = 0, factor_ones = 0;
  // A kernel-driven point (PrimitiveDef::kernel_sizes): its window's first cycle in the run,
  // and per event of controller_events(kind) its count per cycle; empty for the others.
  uint64_t window = 0;
  std::vector<double> events;
  double dynamic_fj = 0;                                       // dynamic energy per cycle
  double leakage_mw = 0, area_um2 = 0;
  std::string key() const;  // identifies the point for resuming
};

// The dataset format written (fsgen-characterisation N; 2 to 4 are read too), the first
// with the factor column and the first with the state column.
constexpr int kDatasetFormat = 5, kDatasetFormatWithFactor = 4, kDatasetFormatWithState = 5;

struct Dataset {
  std::map<std::string, std::string> provenance;  // liberty, tools, cycles, seed
  int format = kDatasetFormat;                     // its column layout
  std::vector<CharPoint> points;
};
Dataset read_dataset(const std::string& path);  // UserError naming file and line on a malformed row

struct CharacterizeOptions {
  std::string liberty;             // "": the built-in fsgen45
  std::vector<std::string> kinds;  // empty: every primitive of the catalog
  uint64_t cycles = 1000;          // per stimulus
  uint64_t seed = 1;
  unsigned jobs = 2;               // gate-level simulations in parallel
  bool small_grid = false;         // the two smallest sizes and 8 stimuli each (tests)
  uint64_t max_elements = 0;       // only sizes with at most this many elements (0: every size)
  std::vector<std::string> sizes;  // only these catalog sizes, as hyperparameter_text(h, 'x') ("2x4"); empty: every size
  bool kernel_runs = true;          // the controllers' training-core kernel runs (false: their idle sizes alone)
  std::string work_dir;
  // A design's sizes (fsgen characterize --design: its blocks' priced_instances), by kind:
  // characterised in place of the catalog's, those kinds only. Empty: the catalog.
  std::map<std::string, std::vector<std::vector<int>>> design_sizes;
};

// The primitives a run covers (o.kinds, or the whole catalog, or the design's kinds among
// o.kinds); UserError for an unknown kind or a --sizes entry that is none of their catalog
// sizes, or --sizes with a design.
std::vector<const PrimitiveDef*> selected_primitives(const CharacterizeOptions& o);
// The sizes of a primitive a run covers: the design's, or the catalog's among o.sizes;
// within o.max_elements, and of those o.small_grid's two smallest.
std::vector<std::vector<int>> sizes_to_run(const PrimitiveDef& d, const CharacterizeOptions& o);

struct CharacterizeSummary {
  uint64_t added = 0;    // points written (a kernel run writes one per window)
  uint64_t skipped = 0;  // stimuli (random points, kernel runs) already in the dataset
};

// Runs every missing point and appends it to the dataset at `path` (created with its
// provenance header; an existing file must have the same provenance).
CharacterizeSummary characterize(const CharacterizeOptions& o, const std::string& path,
                                 const std::function<void(uint64_t done, uint64_t total)>& progress = {});

struct RecountSummary {
  uint64_t points = 0;  // kernel points whose events were counted again
  uint64_t runs = 0;    // training kernel runs they came from
};

// Counts the events of every controller kernel point in the dataset at `path` again, as this
// fsgen's controller_events.h defines them, from each training kernel's SystemC run; their
// gate-level labels, and every other row, are kept. A change of the events' definitions then
// needs no gate-level replay. The file is rewritten whole, or not at all (a point the run
// does not have is an error naming its line).
RecountSummary recount_kernel_events(const std::string& path);

}  // namespace fsgen
