#include "power/baselines.h"

#include "core/error.h"

namespace fsgen {

namespace {

template <typename Map>
const auto& of_kind(const Map& m, const std::string& kind, const std::string& baseline) {
  const auto it = m.find(kind);
  if (it == m.end()) fail(baseline + " baseline", "no characterisation point of primitive '" + kind + "' to calibrate on");
  return it->second;
}

}  // namespace

ActionEnergyBaseline::ActionEnergyBaseline(const Dataset& d) {
  struct Sums {
    double n = 0, sx = 0, sy = 0, sxx = 0, sxy = 0;
  };
  std::map<std::string, Sums> sums;
  for (const CharPoint& p : d.points) {
    const double x = p.enable, y = p.dynamic_fj / primitive_def(p.kind).elements(p.h);
    Sums& s = sums[p.kind];
    s.n += 1, s.sx += x, s.sy += y, s.sxx += x * x, s.sxy += x * y;
  }
  for (const auto& [kind, s] : sums) {
    const double den = s.n * s.sxx - s.sx * s.sx;
    const double slope = den != 0 ? (s.n * s.sxy - s.sx * s.sy) / den : 0;
    by_kind_[kind] = {(s.sy - slope * s.sx) / s.n, slope};
  }
}

double ActionEnergyBaseline::dynamic_fj(const std::string& kind, double elements, double enable) const {
  const Energies& e = of_kind(by_kind_, kind, "constant-energy-per-action");
  return elements * (e.idle_fj + e.active_extra_fj * enable);
}

PerMacBaseline::PerMacBaseline(const Dataset& d) {
  std::map<std::string, std::pair<double, double>> energy_macs;
  for (const CharPoint& p : d.points) {
    auto& [energy, macs] = energy_macs[p.kind];
    energy += p.dynamic_fj;
    macs += primitive_def(p.kind).elements(p.h) * p.enable;
  }
  for (const auto& [kind, em] : energy_macs) mac_fj_[kind] = em.second > 0 ? em.first / em.second : 0;
}

double PerMacBaseline::dynamic_fj(const std::string& kind, double elements, double enable) const {
  return of_kind(mac_fj_, kind, "energy-per-MAC") * elements * enable;
}

}  // namespace fsgen
