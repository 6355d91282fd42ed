#include "core/window_series.h"

#include <sys/mman.h>

#include <cstdint>

namespace fsgen {

namespace {
constexpr uintptr_t kPage = 4096;
constexpr size_t kHugePage = size_t(2) << 20;
}  // namespace

void advise_huge_pages(const void* p, size_t bytes) {
  if (bytes < kHugePage) return;
  const uintptr_t begin = (reinterpret_cast<uintptr_t>(p) + kPage - 1) & ~(kPage - 1);
  const uintptr_t end = (reinterpret_cast<uintptr_t>(p) + bytes) & ~(kPage - 1);
  if (end > begin) madvise(reinterpret_cast<void*>(begin), end - begin, MADV_HUGEPAGE);  // advice: failure is harmless
}

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
