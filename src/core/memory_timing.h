// The off-chip memory timing contract, shared by the TLM-2.0 memory target of the
// SystemC platform, the C++ AXI4 memory model of the Verilator harness and the fast
// model, so that all of them see the same memory and the same DMA (fsgen_dma.v).
//
// Cycles are clock cycles of the accelerator. The slave is always ready
// (arready = awready = wready = 1), and its read and write data channels each carry one
// beat of `beat_bytes` per cycle, at the same time.
//  - Read: bursts are served in the order of their AR handshakes. A burst of n beats
//    whose AR handshake is in cycle t has its first beat in cycle
//    max(t + latency, the cycle after the previous burst's last beat) and the rest back
//    to back (ReadDataChannel); rlast on the last beat; rready is expected high.
//  - Write: W beats are accepted one per cycle; the B response of a burst is valid in
//    cycle t_last + latency, where t_last is the cycle of its last W handshake.
// While no beat is valid the read data lines hold the last beat's value.
//
// The DMA (fsgen_dma.v) keeps up to `outstanding` read bursts in flight and as many write
// responses outstanding; DmaReads / DmaWrites time its commands as it takes them.
#pragma once
#include <algorithm>
#include <cstdint>
#include <deque>
#include <vector>

namespace fsgen {

struct MemoryTiming {
  uint32_t latency_cycles = 1;  // >= 1
  uint32_t beat_bytes = 8;      // power of two, 1..64
  uint32_t outstanding = 8;     // read bursts in flight and write responses outstanding, 1..16
};

// The memory's read data channel: the cycle each burst's first beat comes in.
class ReadDataChannel {
 public:
  explicit ReadDataChannel(const MemoryTiming& t) : latency_(t.latency_cycles) {}
  // Books a burst of `beats` whose AR handshake is in cycle `ar_cycle` (handshakes in
  // nondecreasing cycles); returns the cycle of its first beat.
  uint64_t book(uint64_t ar_cycle, uint32_t beats) {
    const uint64_t first = std::max(ar_cycle + latency_, free_from_);
    free_from_ = first + beats;
    return first;
  }

 private:
  uint64_t latency_;
  uint64_t free_from_ = 0;  // the first cycle with no beat booked
};

// The DMA's bursts in flight in one direction, at most `outstanding`: a command offered in
// cycle `cycle` is taken in the first cycle from then on with fewer in flight; a burst leaves
// the count in its end cycle (a read's last beat, a write's response), which the memory
// decides.
class BurstSlots {
 public:
  explicit BurstSlots(uint32_t outstanding) : outstanding_(outstanding) {}
  // The cycle a command offered in `cycle` is taken in (offers in nondecreasing cycles).
  uint64_t take_cycle(uint64_t cycle) {
    retire_before(cycle);
    if (ends_.size() < outstanding_) return cycle;
    cycle = ends_[ends_.size() - outstanding_] + 1;
    retire_before(cycle);
    return cycle;
  }
  // The burst just taken ends in `end`.
  void taken(uint64_t end) {
    ends_.push_back(end);
    idle_from_ = end + 1;
  }
  // The first cycle from `cycle` on with no burst in flight (rd_idle, wr_idle).
  uint64_t idle_from(uint64_t cycle) const { return std::max(cycle, idle_from_); }

 private:
  void retire_before(uint64_t cycle) {
    while (!ends_.empty() && ends_.front() < cycle) ends_.pop_front();
  }
  uint32_t outstanding_;
  std::deque<uint64_t> ends_;  // of the bursts in flight, in order
  uint64_t idle_from_ = 0;
};

// One read burst as the DMA handles it: taken from the controller in `taken`, on AR in
// taken + 1, its beats in first_beat .. last_beat.
struct ReadBurst {
  uint64_t taken, first_beat, last_beat;
};

// The DMA's read side: up to `outstanding` bursts in flight, each until its last beat.
class DmaReads : public BurstSlots {
 public:
  explicit DmaReads(const MemoryTiming& t) : BurstSlots(t.outstanding) {}
  // A command offered in `cycle`, the memory's read data channel deciding its beats.
  ReadBurst take(uint64_t cycle, uint32_t beats, ReadDataChannel& channel) {
    const uint64_t at = take_cycle(cycle);
    const uint64_t first = channel.book(at + 1, beats);
    taken(first + beats - 1);
    return {at, first, first + beats - 1};
  }
};

// One write burst as the DMA handles it: taken in `taken`, AW in taken + 1, its W beats in
// taken + 2 .. last_beat (w_free from the cycle after), its B response in `response`.
struct WriteBurst {
  uint64_t taken, last_beat, response;
};

// The DMA's write side: a command offered in `cycle` (with the write data channel free),
// up to `outstanding` responses to come, each leaving the count in its cycle.
class DmaWrites : public BurstSlots {
 public:
  explicit DmaWrites(const MemoryTiming& t) : BurstSlots(t.outstanding), latency_(t.latency_cycles) {}
  // A command offered in `cycle`, its response `latency` cycles after its last W beat.
  WriteBurst take(uint64_t cycle, uint32_t beats) {
    const uint64_t at = take_cycle(cycle);
    const WriteBurst b{at, at + 1 + beats, at + 1 + beats + latency_};
    taken(b.response);
    return b;
  }

 private:
  uint64_t latency_;
};

// The cycles with a DMA burst in flight (from its address handshake to its last read beat
// or its write response), as spans that do not overlap. Each direction adds its bursts in
// the order of their handshakes (the loads and the stores of a kernel are timed apart);
// busy() is the union of both.
class InFlightSpans {
 public:
  struct Span {
    uint64_t first, cycles;
  };
  void add_read(uint64_t first, uint64_t last) { add(reads_, first, last); }
  void add_write(uint64_t first, uint64_t last) { add(writes_, first, last); }
  std::vector<Span> busy() const {
    std::vector<Span> out;
    size_t r = 0, w = 0;
    while (r < reads_.size() || w < writes_.size()) {
      const bool take_read = w == writes_.size() || (r < reads_.size() && reads_[r].first < writes_[w].first);
      const Range s = take_read ? reads_[r++] : writes_[w++];
      if (!out.empty() && s.first <= out.back().first + out.back().cycles) {
        const uint64_t end = std::max(out.back().first + out.back().cycles, s.last + 1);
        out.back().cycles = end - out.back().first;
      } else {
        out.push_back({s.first, s.last + 1 - s.first});
      }
    }
    return out;
  }

 private:
  struct Range {
    uint64_t first, last;
  };
  static void add(std::vector<Range>& spans, uint64_t first, uint64_t last) {
    if (!spans.empty() && first <= spans.back().last + 1) spans.back().last = std::max(spans.back().last, last);
    else spans.push_back({first, last});
  }
  std::vector<Range> reads_, writes_;
};

}  // namespace fsgen
