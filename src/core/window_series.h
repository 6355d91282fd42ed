// Per-window series of a run: a per-cycle power trace holds one value per cycle for every
// block and activity feature, millions of windows each.
#pragma once
#include <cstddef>
#include <vector>

namespace fsgen {

// Asks the kernel to back [p, p + bytes) with transparent huge pages. Faulting a series of
// a long run in 4 KiB page by page costs more than computing its windows; 2 MiB pages cut
// those faults 512-fold. Advice only: where the kernel has no huge pages nothing changes.
void advise_huge_pages(const void* p, size_t bytes);

// A series of `windows` values, each `value`, its memory advised before it is touched.
std::vector<double> window_series(size_t windows, double value = 0.0);

// Reserves room for `windows` values in an empty series, advised the same way.
void reserve_window_series(std::vector<double>& series, size_t windows);

}  // namespace fsgen
