// Per-window series of a run: a per-cycle power trace holds one value per cycle for every
// block and activity feature, millions of windows each.
#pragma once
#include <sys/mman.h>

#include <cstddef>
#include <cstdint>
#include <vector>

namespace fsgen {

// Asks the kernel to back [p, p + bytes) with transparent huge pages. Faulting a series of
// a long run in 4 KiB page by page costs more than computing its windows; 2 MiB pages cut
// those faults 512-fold. Advice only: where the kernel has no huge pages nothing changes.
// (Inline: the Verilator harness's run-record code uses it without this library.)
inline void advise_huge_pages(const void* p, size_t bytes) {
  constexpr uintptr_t kPage = 4096;
  constexpr size_t kHugePage = size_t(2) << 20;
  if (bytes < kHugePage) return;
  const uintptr_t begin = (reinterpret_cast<uintptr_t>(p) + kPage - 1) & ~(kPage - 1);
  const uintptr_t end = (reinterpret_cast<uintptr_t>(p) + bytes) & ~(kPage - 1);
  if (end > begin) madvise(reinterpret_cast<void*>(begin), end - begin, MADV_HUGEPAGE);  // advice: failure is harmless
}

// A series of `windows` values, each `value`, its memory advised before it is touched.
std::vector<double> window_series(size_t windows, double value = 0.0);

// Reserves room for `windows` values in an empty series, advised the same way.
void reserve_window_series(std::vector<double>& series, size_t windows);

}  // namespace fsgen
