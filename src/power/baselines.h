// The simpler power models fsgen's hierarchical model is measured against (docs/POWER.md,
// "Validation"), each calibrated on the same characterisation dataset:
// - constant energy per action (Accelergy-style): per primitive, one energy per active
//   processing-element cycle and one per idle one, whatever the data;
// - energy per MAC (MAESTRO-style): per primitive, the dataset's dynamic energy over its
//   MACs; idle cycles cost leakage only.
// Both give dynamic energy per cycle of an instance; leakage comes from the same fit as
// the hierarchical model's.
#pragma once
#include <map>
#include <string>

#include "power/characterize.h"

namespace fsgen {

class ActionEnergyBaseline {
 public:
  explicit ActionEnergyBaseline(const Dataset& d);  // least squares per primitive
  // fJ per cycle of an instance with `elements` PEs enabled (computing or loading) an
  // `enable` share of its cycles: the dataset's enable feature.
  double dynamic_fj(const std::string& kind, double elements, double enable) const;

 private:
  struct Energies {
    double idle_fj = 0, active_extra_fj = 0;  // per PE cycle: any cycle, and on top when busy
  };
  std::map<std::string, Energies> by_kind_;
};

class PerMacBaseline {
 public:
  explicit PerMacBaseline(const Dataset& d);
  double dynamic_fj(const std::string& kind, double elements, double enable) const;

 private:
  std::map<std::string, double> mac_fj_;  // per MAC (one enabled PE cycle)
};

}  // namespace fsgen
