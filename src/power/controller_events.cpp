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

void add_series(std::vector<double>& to, const std::vector<double>* from) {
  if (!from) return;
  for (size_t w = 0; w < to.size() && w < from->size(); ++w) to[w] += (*from)[w];
}

const std::vector<double>* series(const std::map<std::string, std::vector<double>>& m, const std::string& block) {
  const auto it = m.find(block);
  return it == m.end() ? nullptr : &it->second;
}

void add_toggles(std::vector<double>& to, const RunResult& r, const std::string& block, const std::string& port,
                 uint64_t window) {
  const ToggleProbe* p = r.find_probe(block, port);
  if (!p) return;
  for (const auto& [cycle, n] : p->events())
    if (cycle / window < to.size()) to[cycle / window] += n;
}

}  // namespace

std::vector<std::vector<double>> controller_event_counts(const RunResult& r, const ActivityTimeline& timeline,
                                                         uint64_t window, uint64_t windows) {
  std::vector<std::vector<double>> c(controller_events().size(), std::vector<double>(windows, 0.0));
  for (uint64_t w = 0; w < windows; ++w)
    c[0][w] = double(std::min(window, r.cycles - std::min(r.cycles, w * window)));
  add_series(c[1], series(timeline.enabled, "dma"));
  add_series(c[2], series(timeline.side, "dma"));
  add_toggles(c[3], r, "dma", "rdata", window);
  for (const char* port : {"in", "out"}) add_toggles(c[4], r, "requant", port, window);
  add_toggles(c[4], r, "dma", "wdata", window);
  add_series(c[5], series(timeline.enabled, "array_a"));
  for (const char* port : {"x", "w"}) add_toggles(c[6], r, "array_a", port, window);
  return c;
}

}  // namespace fsgen
