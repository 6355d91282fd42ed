#include "power/training_report.h"

#include <iomanip>

#include "power/characterize.h"
#include "power/controller_events.h"

namespace fsgen {

namespace {

// The controller's energy per event (fsgen train): its kernel windows and how well each
// training core is predicted with it left out.
void print_event_fit(const PrimitivePowerModel& p, std::ostream& out) {
  out << "  " << std::left << std::setw(18) << "" << std::right << p.event_quality.train_points
      << " kernel windows, energy per event (" << controller_events(p.kind).size() << " events)";
  if (p.event_quality.test_points > 0)
    out << "; each training core left out in turn: run energy MAPE " << std::setprecision(1) << p.event_quality.mape
        << " %, window R " << std::setprecision(3) << p.event_quality.pearson;
  out << "\n";
}

void print_timing_fit(const TimingModel& t, std::ostream& out) {
  out << "timing model (worst path delay = a + b . terms, least squares over the sizes; OpenSTA at "
      << t.provenance.at("period_ns") << " ns on " << t.provenance.at("liberty") << "):\n";
  for (const auto& [kind, k] : t.kinds) {
    out << "  " << std::left << std::setw(18) << kind << std::right << k.sizes.size()
        << (k.sizes.size() == 1 ? " size: " : " sizes: ") << std::fixed << std::setprecision(3) << k.a_ns << " ns";
    for (size_t i = 0; i < k.terms.size(); ++i)
      out << std::showpos << " " << k.b_ns[i] << std::noshowpos << " x " << k.terms[i];
    if (k.leave_one_out_max_error_percent > 0)
      out << "; each size left out in turn: largest error " << std::setprecision(1) << k.leave_one_out_max_error_percent
          << " %";
    out << std::defaultfloat << "\n";
  }
}

}  // namespace

void print_training_summary(const PowerModel& pm, const std::string& dataset, double seconds, std::ostream& out) {
  const std::ios_base::fmtflags flags = out.flags();
  out << "power model (XGBoost, one regressor per primitive) from " << dataset << ", trained in " << std::fixed
      << std::setprecision(2) << seconds << " s:\n";
  for (const auto& [kind, p] : pm.primitives) {
    out << "  " << std::left << std::setw(18) << kind << std::right << p.quality.train_points;
    const bool structural = primitive_def(kind).structural();
    if (structural)
      out << (p.quality.train_points == 1 ? " size, structural (its clock energy, leakage and area)"
                                          : " sizes, structural (clock energy, leakage and area fitted over them)");
    else
      out << " points, " << p.quality.test_points << " held out";
    if (!structural || p.quality.test_points > 0)
      out << (structural ? "; each size left out in turn: idle energy" : ": dynamic energy") << " MAPE "
          << std::setprecision(1) << p.quality.mape << " %, R " << std::setprecision(3) << p.quality.pearson;
    out << "\n";
    if (!p.event_fj.b.empty()) print_event_fit(p, out);
  }
  if (!pm.timing.empty()) print_timing_fit(pm.timing, out);
  out.flags(flags);
}

}  // namespace fsgen
