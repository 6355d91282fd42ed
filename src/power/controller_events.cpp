#include "power/controller_events.h"

#include <algorithm>

namespace fsgen {

const std::vector<ControllerEvent>& controller_events() {
  static const std::vector<ControllerEvent> events = {
      {"cycles", "cycles the kernel runs (the tile counters and the cycle count)"},
      {"dma_beats", "DMA data beats (a read's bytes written into an operand buffer, a write's taken from the output row)"},
      {"dma_commands", "DMA commands (the address arithmetic and burst registers of each)"},
      {"read_toggles", "bits toggled on the DMA's read data (what the operand buffers store)"},
      {"store_toggles", "bits toggled at the requantiser's input and output and the DMA's write data (stored rows)"},
      {"stream_cycles", "cycles array a is enabled (operand-buffer reads, the k counter)"},
      {"operand_toggles", "bits toggled on array a's operand buses x and w (the controller's bus registers)"},
  };
  return events;
}

namespace {

// Counts of one event per window, each count placed kControllerLead cycles before the cycle
// it is recorded in (one at the run's first cycle stays there).
class EventWindows {
 public:
  EventWindows(std::vector<double>& counts, uint64_t window) : counts_(counts), window_(window) {}
  void add(uint64_t cycle, double n) {
    const uint64_t w = (cycle >= kControllerLead ? cycle - kControllerLead : 0) / window_;
    if (w < counts_.size()) counts_[w] += n;
  }
  void add_spans(const std::vector<CycleSpan>& spans, uint64_t lag) {
    for (const CycleSpan& s : spans)
      for (uint64_t c = s.start + lag; c < s.start + lag + s.cycles; ++c) add(c, 1);
  }
  void add_toggles(const RunResult& r, const std::string& block, const std::string& port) {
    if (const ToggleProbe* p = r.find_probe(block, port))
      for (const auto& [cycle, n] : p->events()) add(cycle, n);
  }

 private:
  std::vector<double>& counts_;
  uint64_t window_;
};

}  // namespace

std::vector<std::vector<double>> controller_event_counts(const RunResult& r, uint64_t window, uint64_t windows) {
  std::vector<std::vector<double>> c(controller_events().size(), std::vector<double>(windows, 0.0));
  for (uint64_t w = 0; w < windows; ++w)
    c[0][w] = double(std::min(window, r.cycles - std::min(r.cycles, w * window)));
  EventWindows beats(c[1], window), commands(c[2], window), reads(c[3], window), stores(c[4], window),
      stream(c[5], window), operands(c[6], window);
  if (const auto dma = r.timelines.find("dma"); dma != r.timelines.end()) {
    beats.add_spans(dma->second.enabled, dma->second.switching_lag);
    commands.add_spans(dma->second.side, dma->second.switching_lag);
  }
  reads.add_toggles(r, "dma", "rdata");
  for (const char* port : {"in", "out"}) stores.add_toggles(r, "requant", port);
  stores.add_toggles(r, "dma", "wdata");
  if (const auto array = r.timelines.find("array_a"); array != r.timelines.end())
    stream.add_spans(array->second.enabled, array->second.switching_lag);
  for (const char* port : {"x", "w"}) operands.add_toggles(r, "array_a", port);
  return c;
}

}  // namespace fsgen
