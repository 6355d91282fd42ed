// The statistics shared by the power model, its validation and the reports (Eigen inside):
// Pearson correlation, mean absolute percentage error, normalised RMS error, least squares.
#pragma once
#include <cstdint>
#include <utility>
#include <vector>

namespace fsgen {

// Pearson R of the first min(a.size(), b.size()) pairs; 0 when either side is constant or
// there are fewer than two pairs.
double pearson_r(const std::vector<double>& a, const std::vector<double>& b);

// Mean of |got - want| / |want| over the pairs, in percent (a |want| below 1e-9 counts as
// 1e-9); 0 for no pairs.
double mape_percent(const std::vector<double>& got, const std::vector<double>& want);

// The largest |got - want| / |want| of the pairs, in percent (same guard).
double max_ape_percent(const std::vector<double>& got, const std::vector<double>& want);

// rms(got - want).
double rms_difference(const std::vector<double>& got, const std::vector<double>& want);

// rms(got - want) / rms(want); 0 when want is all zero.
double nrmse(const std::vector<double>& got, const std::vector<double>& want);

// Least squares of y = c0 + c1 x1 + ... over the points (x, y), every x of the same length.
// A vanishing ridge (1e-9 of each diagonal entry of the normal matrix) keeps fewer points
// than terms solvable. Returns {c0, c1, ...}; {0} for no points. With weights (one per
// point), the sum of each point's squared residual times its weight's square.
std::vector<double> least_squares_with_intercept(const std::vector<std::pair<std::vector<double>, double>>& points,
                                                 const std::vector<double>& weights = {});

inline uint64_t round_up(uint64_t v, uint64_t to) { return (v + to - 1) / to * to; }

}  // namespace fsgen
