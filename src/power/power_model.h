// The hierarchical power model (docs/POWER.md, "Model"): one XGBoost regressor per
// primitive kind, trained on its characterisation points, predicting the dynamic energy
// per processing element per cycle from the primitive's hyperparameters and activity
// (alpha, enable, zeros, a side enable's share and a factor port's toggles, as in
// characterize.h); a block's dynamic energy is that times its elements. Leakage and area
// are fitted as a + b x elements over the characterised sizes.
// A structural primitive (the controller, the register file) has no booster: its idle
// energy per cycle is fitted over its sizes as its leakage is. A design's power is the sum
// over its primitive instances.
#pragma once
#include <cstdint>
#include <map>
#include <memory>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "power/characterize.h"
#include "power/timing_model.h"

namespace fsgen {

// An XGBoost booster (C API), owned.
class Booster {
 public:
  Booster();
  ~Booster();
  Booster(const Booster&) = delete;
  Booster& operator=(const Booster&) = delete;
  // Trains `rounds` rounds of squared-error regression on rows x cols features.
  void train(const std::vector<float>& x, const std::vector<float>& y, size_t cols, int rounds);
  std::vector<float> predict(const std::vector<float>& x, size_t cols) const;
  std::string to_json() const;
  void from_json(const std::string& json);

 private:
  void* handle_ = nullptr;
};

// A trained booster's trees evaluated directly from its JSON (XGBoost 1.6-1.7 layout): the
// same predictions as Booster::predict without a DMatrix per call, which is what makes
// per-window traces cheap, and without loading XGBoost's own copy of the model.
class TreeEnsemble {
 public:
  explicit TreeEnsemble(const nlohmann::json& booster);  // UserError on another layout
  float predict(const float* row) const { return predict_rows(row, 1).front(); }
  // `rows` rows of features, one after another. Tree by tree over all rows, so that each
  // tree's nodes stay in cache; each row's sum is taken in tree order, as predict's.
  std::vector<float> predict_rows(const float* x, size_t rows) const;
  size_t features() const { return features_; }
  // The same predictions for rows whose first features are `fixed`, every split on them
  // taken once here rather than at every row (an instance's hyperparameters are the same
  // in all its windows, and many of the trees' splits are on them). Rows keep all their
  // features.
  TreeEnsemble with_fixed(const std::vector<float>& fixed) const;
  // Which of the intervals between the trees' split conditions on `feature` v lies in: two
  // rows whose every feature lies in the same interval take the same path through every
  // tree, so they have the same prediction exactly.
  uint32_t interval(size_t feature, float v) const;

 private:
  TreeEnsemble() = default;
  struct Node {             // 16 bytes; the trees' nodes in one array
    int32_t left, right;    // absolute indices of the children; left < 0 at a leaf
    float value;            // split condition, or the leaf's value
    uint32_t feature : 31;
    uint32_t default_left : 1;  // where a missing (NaN) feature goes
  };
  std::vector<Node> nodes_;
  std::vector<int32_t> roots_;
  std::vector<std::vector<float>> conditions_;  // per feature: its split conditions, ascending, each once
  // Copies the subtree at node i into `out` with the splits on fixed features taken; its index there.
  int32_t copy_taking_fixed(int32_t i, const std::vector<float>& fixed, std::vector<Node>& out) const;
  float base_score_ = 0;
  size_t features_ = 0;
};

// value = a + sum of b[i] x term i, least squares: a primitive's leakage and area over its
// characterised sizes (the terms of PrimitiveDef::size_terms_at), its energy per kind of
// cycle over its points (PrimitivePowerModel::cycle_energy).
struct LinearFit {
  double a = 0;
  std::vector<double> b;
  double at(const std::vector<double>& terms) const;
};

struct ModelQuality {
  uint64_t train_points = 0, test_points = 0;
  double mape = 0;     // held-out points, on dynamic energy, %
  double pearson = 0;  // held-out points
};

struct PrimitivePowerModel {
  std::string kind;
  std::vector<std::string> features;  // hyperparameters, then alpha, enable, zeros (and side, factor, if it has them)
  nlohmann::json booster;  // XGBoost's JSON of the booster: dynamic fJ per element per cycle
  std::unique_ptr<TreeEnsemble> trees;  // its trees, for prediction
  LinearFit leakage_mw, area_um2;
  // A primitive whose side enable opens a burst (PrimitiveDef::side_opens_burst, the DMA)
  // only: dynamic fJ per element per cycle = a + b . (enable,
  // side, alpha), least squares over the points of each characterised size. Its labels are
  // whole runs, so the fit splits a run's energy into what a waiting cycle, an enabled
  // cycle, a side-enabled cycle and a toggle add; estimation spreads a command's energy
  // over its cycles by it (the trees price the command as a whole).
  std::map<std::vector<int>, LinearFit> cycle_energy;
  // A primitive with a factor port (PrimitiveDef::factor_port, the rescaling array) only: by
  // characterised size, the dynamic fJ per element per cycle of a cycle it is not enabled
  // = a + b . (factor toggles) over its idle points (never enabled: the clock, the held
  // accumulators and the factor writes alone, as a design's controller makes them between
  // passes): a their mean without writes, b the least-squares slope of the others above it. A window without enable, operand toggles or side is priced
  // by it alone (most of a fused core's cycles: a characterised line, not the trees' leaf
  // shared with the streaming points); the others by the trees plus b x factor, the trees
  // having learnt each point's label less that term, so that a window's factor writes are
  // priced in proportion to their toggles rather than by the trees' steps between a few
  // idle points (a one-cycle write of one row lies between them).
  std::map<std::vector<int>, LinearFit> idle_writes_fj;
  // A primitive with activity terms (PrimitiveDef::activity_terms, the rescaling array) only:
  // the dynamic fJ per element per cycle of a window the idle line does not price, = a + b .
  // its terms, least squares weighted by 1 / label (relative errors) over its training points
  // of every size that are not idle; the trees learn what it leaves of each label, and the
  // factor writes are its terms (no b x factor on top). Empty b: none.
  LinearFit activity_fj;
  // A structural primitive (PrimitiveDef::structural) only, in place of the booster: the
  // dynamic fJ per cycle of an idle instance (its clock) = a + b . its size terms, least
  // squares over its characterised sizes. Its quality is then each size left out in turn.
  LinearFit idle_fj;
  // A structural primitive only: its characterised sizes' own points, at which an instance
  // of one of those sizes is priced (the fits price the others).
  struct MeasuredSize {
    double idle_fj = 0, leakage_mw = 0, area_um2 = 0;
  };
  std::map<std::vector<int>, MeasuredSize> measured;
  // A structural primitive with kernel points (PrimitiveDef::kernel_sizes, the controller)
  // only: the dynamic fJ per cycle its logic adds to its idle energy under a kernel,
  // = a + b . event_terms(h, rates) (power_model.cpp), least squares over its kernel points'
  // windows, each labelled by its energy above its size's idle point. Not trained (b empty):
  // the idle energy alone, as without kernel points.
  LinearFit event_fj;
  ModelQuality event_quality;  // each training core left out in turn: its runs' average energy (MAPE), its windows (R)
  ModelQuality quality;
  std::vector<std::vector<int>> characterised_sizes;  // the hyperparameters of its training data
};

// A structural primitive instance's dynamic energy: idle_fj per cycle, and fJ per event of
// controller_events(kind) (the first, a cycle the kernel runs, included); per_event_fj empty:
// idle_fj alone.
struct StructuralEnergy {
  double idle_fj = 0;
  std::vector<double> per_event_fj;
};

// A primitive instance's activity over some cycles: the model's features.

class PowerModel {
 public:
  std::map<std::string, std::string> provenance;  // the dataset's, plus the training settings
  std::map<std::string, PrimitivePowerModel> primitives;
  // Each primitive's worst path delay over its sizes (timing_model.h): trained beside the
  // power models when `fsgen train --timing` is given a timing dataset; empty otherwise.
  TimingModel timing;

  const PrimitivePowerModel& primitive(const std::string& kind) const;  // UserError when not trained
  // UserError unless the model was characterised on the liberty named `liberty_name`.
  void require_liberty(const std::string& liberty_name) const;
  // UserError unless the model's dataset was mapped as fsgen maps golden netlists
  // (kAreaMapping): before comparing it with a golden run or with synthesised areas.
  void require_area_mapping() const;
  // Dynamic energy of one instance per cycle, fJ, for each activity (one model call for
  // all: a trace's windows are predicted together); not of a structural primitive
  // (structural_energy).
  std::vector<double> dynamic_fj(const std::string& kind, const std::vector<int>& h,
                                 const std::vector<PrimitiveActivity>& activity) const;
  double dynamic_fj(const std::string& kind, const std::vector<int>& h, const PrimitiveActivity& a) const {
    return dynamic_fj(kind, h, std::vector<PrimitiveActivity>{a}).front();
  }
  // A structural primitive's dynamic energy at hyperparameters h: its idle energy, plus,
  // when its event_fj is trained, each event's energy (fJ per event) at that size.
  StructuralEnergy structural_energy(const std::string& kind, const std::vector<int>& h) const;
  // The cycle_energy fit at the characterised size nearest h, for each activity taken as
  // one cycle's (fJ per cycle of one instance, at least 0). UserError for a primitive
  // whose side enable opens no burst.
  std::vector<double> cycle_energy_fj(const std::string& kind, const std::vector<int>& h,
                                      const std::vector<PrimitiveActivity>& activity) const;
  double leakage_mw(const std::string& kind, const std::vector<int>& h) const;
  double area_um2(const std::string& kind, const std::vector<int>& h) const;
  // The hyperparameters of h no characterised point had, e.g. "R=8 (characterised 2, 4)":
  // the model extrapolates there (per element for a size, from the nearest value for a
  // kind such as SYSTOLIC). Empty when every value was characterised and, for a
  // structural primitive, its very size was.
  std::string extrapolation(const std::string& kind, const std::vector<int>& h) const;
};

// Holds out every fifth point (by key) to measure the model, trains on the rest.
PowerModel train_power_model(const Dataset& d, int rounds = 200);
void save_power_model(const PowerModel& m, const std::string& path);
PowerModel load_power_model(const std::string& path);

}  // namespace fsgen
