// What fsgen train fitted: per primitive, its points and held-out error, and the
// controllers' energy per event.
#pragma once
#include <ostream>
#include <string>

#include "power/power_model.h"

namespace fsgen {

// dataset: where the points came from; seconds: the training's wall time.
void print_training_summary(const PowerModel& pm, const std::string& dataset, double seconds, std::ostream& out);

}  // namespace fsgen
