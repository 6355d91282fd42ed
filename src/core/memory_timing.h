// The off-chip memory timing contract, shared by the TLM-2.0 memory target of the
// SystemC platform and the C++ AXI4 memory model of the Verilator harness, so that
// both see the same memory.
//
// Cycles are clock cycles of the accelerator. The slave is always ready
// (arready = awready = wready = 1).
//  - Read: an AR handshake in cycle t with n beats makes beat i valid in cycle
//    t + latency + i (i = 0..n-1); rlast on the last beat; rready is expected high.
//  - Write: W beats are accepted one per cycle; the B response is valid in cycle
//    t_last + latency, where t_last is the cycle of the last W handshake.
// While no beat is valid the read data lines hold the last beat's value.
// Bandwidth is one beat of `beat_bytes` per cycle.
#pragma once
#include <cstdint>

namespace fsgen {

struct MemoryTiming {
  uint32_t latency_cycles = 1;  // >= 1
  uint32_t beat_bytes = 8;      // power of two, 1..64

  // Cycles from the end of the AR handshake cycle to the end of the last beat's cycle.
  uint64_t read_cycles(uint32_t beats) const { return latency_cycles + beats - 1; }
  // Cycles from the end of the AW handshake cycle to the end of the B response cycle
  // (beats follow the AW handshake back to back).
  uint64_t write_cycles(uint32_t beats) const { return beats + latency_cycles; }
  // Controller cycles to load one row of `beats` beats: ISSUE, the AR handshake, the
  // read, and the DMA's DONE cycle.
  uint64_t row_load_cycles(uint32_t beats) const { return read_cycles(beats) + 3; }
  // DMA busy cycles of one burst: the AR / AW handshake, the memory's time, DONE.
  uint64_t read_burst_cycles(uint32_t beats) const { return read_cycles(beats) + 2; }
  uint64_t write_burst_cycles(uint32_t beats) const { return write_cycles(beats) + 2; }
  // Controller cycles to store one output row: read it from the array, requantise (or
  // normalise) it, ISSUE, then the write burst.
  uint64_t row_store_cycles(uint32_t beats) const { return write_burst_cycles(beats) + 3; }
};

}  // namespace fsgen
