// The hierarchical power model (docs/POWER.md, "Model"): one XGBoost regressor per
// primitive kind, trained on its characterisation points, predicting the dynamic energy
// per processing element per cycle from the primitive's hyperparameters and activity
// (alpha, enable, zeros and a side enable's share, as in characterize.h); a block's dynamic
// energy is that times its elements. Leakage and area are fitted as a + b x elements over the characterised sizes.
// A design's power is the sum over its primitive instances.
#pragma once
#include <cstdint>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "power/characterize.h"

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

// A trained booster's trees evaluated directly from its JSON (XGBoost 1.7 layout): the
// same predictions as Booster::predict without a DMatrix per call, which is what makes
// per-window traces cheap.
class TreeEnsemble {
 public:
  explicit TreeEnsemble(const std::string& booster_json);  // UserError on another layout
  float predict(const float* row) const;

 private:
  struct Node {
    int32_t left = -1, right = -1, feature = 0;
    float value = 0;  // split condition, or the leaf's value
    bool default_left = true;
  };
  std::vector<std::vector<Node>> trees_;
  float base_score_ = 0;
  size_t features_ = 0;
};

// value = a + sum of b[i] x term i (PrimitiveDef::size_terms_at), least squares over the
// characterised sizes.
struct SizeFit {
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
  std::vector<std::string> features;  // hyperparameters, then alpha, enable, zeros (and side, if it has one)
  std::unique_ptr<Booster> booster;   // dynamic fJ per element per cycle
  std::unique_ptr<TreeEnsemble> trees;  // the booster's trees, for prediction
  SizeFit leakage_mw, area_um2;
  ModelQuality quality;
  std::vector<std::vector<int>> characterised_sizes;  // the hyperparameters of its training data
};

// A primitive instance's activity over some cycles: the model's features.
struct PrimitiveActivity {
  double alpha = 0;   // data-input toggles / (bits x cycles)
  double enable = 0;  // share of cycles busy
  double zeros = 0;   // share of zero operand bytes
  double side = 0;    // share of cycles with the side enable (PrimitiveDef::side_enable)
};

class PowerModel {
 public:
  std::map<std::string, std::string> provenance;  // the dataset's, plus the training settings
  std::map<std::string, PrimitivePowerModel> primitives;

  const PrimitivePowerModel& primitive(const std::string& kind) const;  // UserError when not trained
  // UserError unless the model was characterised on the liberty named `liberty_name`.
  void require_liberty(const std::string& liberty_name) const;
  // Dynamic energy of one instance per cycle, fJ, for each activity (one model call for
  // all: a trace's windows are predicted together).
  std::vector<double> dynamic_fj(const std::string& kind, const std::vector<int>& h,
                                 const std::vector<PrimitiveActivity>& activity) const;
  double dynamic_fj(const std::string& kind, const std::vector<int>& h, const PrimitiveActivity& a) const {
    return dynamic_fj(kind, h, std::vector<PrimitiveActivity>{a}).front();
  }
  double leakage_mw(const std::string& kind, const std::vector<int>& h) const;
  double area_um2(const std::string& kind, const std::vector<int>& h) const;
  // The hyperparameters of h no characterised point had, e.g. "R=8 (characterised 2, 4)":
  // the model extrapolates there (per element for a size, from the nearest value for a
  // kind such as SYSTOLIC). Empty when every value was characterised.
  std::string extrapolation(const std::string& kind, const std::vector<int>& h) const;
};

// Holds out every fifth point (by key) to measure the model, trains on the rest.
PowerModel train_power_model(const Dataset& d, int rounds = 200);
void save_power_model(const PowerModel& m, const std::string& path);
PowerModel load_power_model(const std::string& path);

}  // namespace fsgen
