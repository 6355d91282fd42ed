#include "core/window_series.h"

namespace fsgen {

void reserve_window_series(std::vector<double>& series, size_t windows) {
  if (!series.empty() || series.capacity() >= windows) return;
  series.reserve(windows);
  advise_huge_pages(series.data(), windows * sizeof(double));
}

std::vector<double> window_series(size_t windows, double value) {
  std::vector<double> series;
  reserve_window_series(series, windows);
  series.assign(windows, value);
  return series;
}

}  // namespace fsgen
