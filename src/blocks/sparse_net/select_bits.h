// The width of a value network's window selects.
#pragma once
#include <cstdint>

namespace fsgen {
// Bits of a select among `window` values (at least 1).
uint32_t select_bits(uint32_t window);
}  // namespace fsgen
