// The per-block timing model (docs/POWER.md, "Max clock"): every primitive of the catalog
// is mapped onto a liberty library for delay at a target clock period and timed with
// OpenSTA at each of its catalog sizes (a timing dataset: one row per primitive and size,
// its worst path's arrival and setup). Each kind's delay is then fitted as
// a + b log2(size) (+ a term per flag) over its sizes (KindTiming): what grows with an array is the
// buffer tree of a net that reaches every PE of a row or column and the adder trees over
// lanes, both logarithmic in the fan-out, while the PE's own multiply-accumulate stays the
// same. A design's max clock is its slowest block's.
#pragma once
#include <cstdint>
#include <functional>
#include <map>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "power/characterize.h"

namespace fsgen {

// One primitive at one size, mapped for delay at period_ns and timed.
struct TimingPoint {
  std::string kind;
  std::vector<int> h;
  double period_ns = 0;                 // the delay target and the clock OpenSTA timed it at
  double arrival_ns = 0, setup_ns = 0;  // its worst path's data arrival and endpoint setup
  uint64_t cells = 0;
  double area_um2 = 0;               // mapped for delay (larger than the power dataset's area mapping)
  std::string startpoint, endpoint;  // the worst path's ends
  double delay_ns() const { return arrival_ns + setup_ns; }
  std::string key() const;  // kind and size: a point is done once
};

struct TimingDataset {
  std::map<std::string, std::string> provenance;  // liberty, Yosys and OpenSTA versions, period
  std::vector<TimingPoint> points;
};
TimingDataset read_timing_dataset(const std::string& path);  // UserError naming file and line on a malformed row

// Maps and times every catalog size of the selected primitives (o.kinds, o.max_elements,
// o.sizes, o.small_grid's two smallest sizes; o.jobs at a time) missing from the dataset at
// `path`, appending a row per size as it finishes (an existing file must have the same
// liberty and period). Returns the points added.
uint64_t characterize_timing(const CharacterizeOptions& o, double period_ns, const std::string& path,
                             const std::function<void(uint64_t done, uint64_t total)>& progress = {});

// A kind's fitted delay: ns = a + b . terms(h), least squares over its characterised sizes.
// Its terms are log2 of the product of its size hyperparameters (a buffer tree's or adder
// tree's depth grows so with the fan-out or lanes) and, per flag (every catalog value 0 or
// 1: systolic, stationary), the flag's value.
struct KindTiming {
  std::vector<std::string> terms;  // "log2 (R x C)", "SYSTOLIC", ...
  double a_ns = 0;
  std::vector<double> b_ns;             // per term
  std::vector<std::vector<int>> sizes;  // the characterised sizes it was fitted on
  // Each size left out in turn and predicted from the others: the largest |error| of the
  // delay, % (0 with no more sizes than coefficients: nothing to leave out).
  double leave_one_out_max_error_percent = 0;
  double delay_ns(const PrimitiveDef& def, const std::vector<int>& h) const;
  // How far h lies beyond the characterised sizes: the largest ratio of one of its
  // hyperparameters (flags too) to that hyperparameter's largest characterised value, or 1
  // (<= 1: within).
  double beyond(const PrimitiveDef& def, const std::vector<int>& h) const;
};

struct TimingModel {
  std::map<std::string, std::string> provenance;  // the dataset's
  std::map<std::string, KindTiming> kinds;
  bool empty() const { return kinds.empty(); }
  const KindTiming* find(const std::string& kind) const;  // nullptr when not characterised
};

TimingModel fit_timing_model(const TimingDataset& d);  // UserError for an empty dataset
nlohmann::ordered_json timing_model_json(const TimingModel& m);
TimingModel timing_model_from_json(const nlohmann::json& j, const std::string& where);

}  // namespace fsgen
