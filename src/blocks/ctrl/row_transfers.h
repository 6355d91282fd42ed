// The row sequencer of the controller (fsgen_ctrl_rows.v) for the models: in which cycle
// each row's command is offered to the DMA and in which cycle a transfer ends, given the
// DMA's answers. The executors (the SystemC core, the fast model) answer with DmaReads /
// DmaWrites (src/core/memory_timing.h), moving data or not.
#pragma once
#include <cstdint>
#include <functional>

#include "core/memory_timing.h"

namespace fsgen {

// What a transfer asks of the DMA: `take` offers row r's command in `cycle` and returns the
// cycle the DMA takes it in; `idle_from` is the first cycle from `cycle` on with none of
// the transfer's bursts in flight (rd_idle or wr_idle).
struct RowDma {
  std::function<uint64_t(uint64_t cycle, uint32_t row)> take;
  std::function<uint64_t(uint64_t cycle)> idle_from;
};

// The DMA's timing without data: its read side on the memory's read data channel, or its
// write side, `beats` per burst; each burst taken is reported to `burst` (if given).
RowDma timed_reads(DmaReads& reads, ReadDataChannel& channel, uint32_t beats,
                   std::function<void(const ReadBurst&)> burst = {});
RowDma timed_writes(DmaWrites& writes, uint32_t beats, std::function<void(const WriteBurst&)> burst = {});

// Whether a load ends when its bursts are done (DRAIN) or when its last row is taken (the
// matmul loader's, which waits for its data by burst counts).
enum class LoadEnd { kDrained, kIssued };

// A load of `rows` rows whose first cycle is `start`: each row in ISSUE until taken (one
// cycle for a row `skipped` says is not moved), the next row offered in the cycle after,
// then, with LoadEnd::kDrained, DRAIN. Returns the transfer's last cycle.
uint64_t load_transfer_end(uint64_t start, uint32_t rows, const std::function<bool(uint32_t)>& skipped,
                           const RowDma& dma, LoadEnd end = LoadEnd::kDrained);

// A store of `rows` rows of `beats` beats whose first cycle is `start`: each row READ
// (`prepare(row, cycle)` is told its READ cycle), CONV, ISSUE until taken, WDATA until its
// data has been sent, then DRAIN. Returns the transfer's last cycle.
uint64_t store_transfer_end(uint64_t start, uint32_t rows, uint32_t beats,
                            const std::function<void(uint32_t row, uint64_t read_cycle)>& prepare, const RowDma& dma);

// Cycles of a load of `rows` rows of `beats` beats on an idle DMA and memory, first cycle
// to last.
uint64_t load_transfer_cycles(const MemoryTiming& memory, uint32_t rows, uint32_t beats);

}  // namespace fsgen
