#include "blocks/ctrl/row_transfers.h"

namespace fsgen {

uint64_t load_transfer_end(uint64_t start, uint32_t rows, const std::function<bool(uint32_t)>& skipped,
                           const RowDma& dma, LoadEnd end) {
  uint64_t cycle = start;
  for (uint32_t r = 0; r < rows; ++r) cycle = (skipped && skipped(r) ? cycle : dma.take(cycle, r)) + 1;
  if (end == LoadEnd::kIssued) return cycle - 1;  // the last row's ISSUE
  return dma.idle_from(cycle);                     // DRAIN from the cycle after it
}

uint64_t store_transfer_end(uint64_t start, uint32_t rows, uint32_t beats,
                            const std::function<void(uint32_t row, uint64_t read_cycle)>& prepare, const RowDma& dma) {
  uint64_t cycle = start;
  for (uint32_t r = 0; r < rows; ++r) {
    prepare(r, cycle);  // READ, then CONV
    const uint64_t taken = dma.take(cycle + 2, r);
    // AW in taken + 1, the W beats after it; WDATA sees the data sent (w_free) in the cycle
    // after the last beat, and the next row starts in the cycle after that.
    cycle = taken + beats + 3;
  }
  return dma.idle_from(cycle);
}

RowDma timed_reads(DmaReads& reads, ReadDataChannel& channel, uint32_t beats,
                   std::function<void(const ReadBurst&)> burst) {
  return {[&reads, &channel, beats, burst](uint64_t cycle, uint32_t) {
            const ReadBurst b = reads.take(cycle, beats, channel);
            if (burst) burst(b);
            return b.taken;
          },
          [&reads](uint64_t cycle) { return reads.idle_from(cycle); }};
}

RowDma timed_writes(DmaWrites& writes, uint32_t beats, std::function<void(const WriteBurst&)> burst) {
  return {[&writes, beats, burst](uint64_t cycle, uint32_t) {
            const WriteBurst b = writes.take(cycle, beats);
            if (burst) burst(b);
            return b.taken;
          },
          [&writes](uint64_t cycle) { return writes.idle_from(cycle); }};
}

uint64_t load_transfer_cycles(const MemoryTiming& memory, uint32_t rows, uint32_t beats) {
  DmaReads reads(memory);
  ReadDataChannel channel(memory);
  return load_transfer_end(0, rows, nullptr, timed_reads(reads, channel, beats)) + 1;
}

}  // namespace fsgen
