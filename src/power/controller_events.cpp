#include "power/controller_events.h"

#include <algorithm>
#include <functional>
#include <map>

#include "core/error.h"
#include "core/window_series.h"

namespace fsgen {

namespace {

const std::vector<ControllerEvent> kMatmulEvents = {
    {"cycles", "cycles the kernel runs (the tile counters and the cycle count)"},
    {"dma_beats", "DMA data beats (a read's bytes written into an operand buffer, a write's taken from the output row)"},
    {"dma_commands", "DMA commands (the address arithmetic and burst registers of each)"},
    {"read_toggles", "bits toggled on the DMA's read data (what the operand buffers store)"},
    {"store_toggles", "bits toggled at the requantiser's input and output and the DMA's write data (stored rows)"},
    {"stream_cycles", "cycles array a is enabled (operand-buffer reads, the k counter)"},
    {"operand_toggles", "bits toggled on array a's operand buses x and w (the controller's bus registers)"},
};

// A fused controller's own, after the matmul controller's.
const std::vector<ControllerEvent> kFusedEvents = {
    {"b_stream_cycles", "cycles array b is enabled (P-buffer and V-row reads, its counters)"},
    {"b_side_cycles", "cycles of array b's side enable (a rescale pass's factors, a dot array's stationary loads)"},
    {"b_operand_toggles",
     "bits toggled on array b's operand buses x and w (the P row and V rows the controller drives)"},
    {"softmax_toggles",
     "bits toggled at the softmax unit's input and output (the score row presented, the P row stored)"},
    {"normalise_toggles", "bits toggled at the normaliser's input and output (the O row divided, the output row)"},
    {"softmax_loads", "rows the softmax unit loads (each updates its query row's running max, sum and factor)"},
    {"normalise_divisions",
     "cycles the normaliser's divider takes an attention row's running sum and gives it back (two per row: the "
     "operands are gated in for the one cycle that stores the quotient, then out)"},
    {"table_beats",
     "DMA beats written into the FFN's activation table (each opens the table's clock gate: its 2,048 flip-flops "
     "take the clock)"},
};

}  // namespace

const std::vector<ControllerEvent>& controller_events(const std::string& kind) {
  static const std::vector<ControllerEvent> fused = [] {
    std::vector<ControllerEvent> all = kMatmulEvents;
    all.insert(all.end(), kFusedEvents.begin(), kFusedEvents.end());
    return all;
  }();
  if (kind == "ctrl") return kMatmulEvents;
  FSGEN_ASSERT(kind == "fused_ctrl", "events of a controller kind");
  return fused;
}

std::vector<std::string> controller_event_names(const std::string& kind) {
  std::vector<std::string> names;
  for (const auto& e : controller_events(kind)) names.push_back(e.name);
  return names;
}

std::vector<double> controller_event_growth(const PrimitiveDef& def, const std::vector<int>& h) {
  const double first = def.size_terms_at(h).front();
  const std::map<std::string, double> own =
      def.event_size_terms ? def.event_size_terms(h) : std::map<std::string, double>{};
  std::vector<double> growth;
  for (const ControllerEvent& e : controller_events(def.kind)) {
    const auto it = own.find(e.name);
    growth.push_back(it == own.end() ? first : it->second);
  }
  return growth;
}

namespace {

using EventSink = std::function<void(size_t event, uint64_t window, double count)>;

// One event's counts, each placed kControllerLead cycles before the cycle it is recorded in
// (one at the run's first cycle stays there), given to the sink by window.
class EventWindows {
 public:
  EventWindows(size_t event, uint64_t window, uint64_t windows, const EventSink& sink)
      : event_(event), window_(window), windows_(windows), sink_(sink) {}
  void add(uint64_t cycle, double n) const {
    const uint64_t w = (cycle >= kControllerLead ? cycle - kControllerLead : 0) / window_;
    if (w < windows_) sink_(event_, w, n);
  }
  void add_spans(const std::vector<CycleSpan>& spans, uint64_t lag) const {
    for (const CycleSpan& s : spans)
      for (uint64_t c = s.start + lag; c < s.start + lag + s.cycles; ++c) add(c, 1);
  }
  // The cycles array `block` is enabled (its stream).
  void add_array_stream(const RunResult& r, const std::string& block) const {
    if (const auto array = r.timelines.find(block); array != r.timelines.end())
      add_spans(array->second.enabled, array->second.switching_lag);
  }
  void add_toggles(const RunResult& r, const std::string& block, const std::string& port) const {
    if (const ToggleProbe* p = r.find_probe(block, port))
      for (const auto& [cycle, n] : p->events()) add(cycle, n);
  }
  // The DMA's beats (its enabled cycles) within the controller's loads of the activation
  // table (the ctrl timeline's busy spans).
  void add_table_beats(const RunResult& r) const {
    const auto dma = r.timelines.find("dma"), ctrl = r.timelines.find("ctrl");
    if (dma == r.timelines.end() || ctrl == r.timelines.end()) return;
    for (const CycleSpan& load : ctrl->second.busy)
      for (const CycleSpan& beats : dma->second.enabled) {
        const uint64_t first = beats.start + dma->second.switching_lag;
        for (uint64_t c = std::max(first, load.start); c < std::min(first + beats.cycles, load.start + load.cycles);
             ++c)
          add(c, 1);
      }
  }

 private:
  size_t event_;
  uint64_t window_, windows_;
  const EventSink& sink_;
};

// Every event of run r, in controller_events(kind) order.
void visit_events(const RunResult& r, const std::string& kind, uint64_t window, uint64_t windows,
                  const EventSink& sink) {
  for (uint64_t w = 0; w < windows; ++w) sink(0, w, double(std::min(window, r.cycles - std::min(r.cycles, w * window))));
  const EventWindows beats(1, window, windows, sink), commands(2, window, windows, sink), reads(3, window, windows, sink),
      stores(4, window, windows, sink), stream(5, window, windows, sink), operands(6, window, windows, sink);
  if (const auto dma = r.timelines.find("dma"); dma != r.timelines.end()) {
    beats.add_spans(dma->second.enabled, dma->second.switching_lag);
    commands.add_spans(dma->second.side, dma->second.switching_lag);
  }
  reads.add_toggles(r, "dma", "rdata");
  for (const char* port : {"in", "out"}) stores.add_toggles(r, "requant", port);
  stores.add_toggles(r, "dma", "wdata");
  stream.add_array_stream(r, "array_a");
  for (const char* port : {"x", "w"}) operands.add_toggles(r, "array_a", port);
  if (kind == "ctrl") return;
  const EventWindows b_stream(7, window, windows, sink), b_side(8, window, windows, sink),
      b_operands(9, window, windows, sink), softmax(10, window, windows, sink), normalise(11, window, windows, sink),
      softmax_loads(12, window, windows, sink), divisions(13, window, windows, sink), table(14, window, windows, sink);
  b_stream.add_array_stream(r, "array_b");
  if (const auto b = r.timelines.find("array_b"); b != r.timelines.end()) b_side.add_spans(b->second.side, b->second.switching_lag);
  if (const auto sm = r.timelines.find("softmax"); sm != r.timelines.end())
    softmax_loads.add_spans(sm->second.busy, sm->second.switching_lag);
  if (const auto n = r.timelines.find("normalise"); n != r.timelines.end())
    divisions.add_spans(n->second.busy, n->second.switching_lag);
  for (const char* port : {"x", "w"}) b_operands.add_toggles(r, "array_b", port);
  for (const char* port : {"in", "out"}) softmax.add_toggles(r, "softmax", port), normalise.add_toggles(r, "normalise", port);
  table.add_table_beats(r);
}

}  // namespace

std::vector<std::vector<double>> controller_event_counts(const RunResult& r, const std::string& kind, uint64_t window,
                                                         uint64_t windows) {
  std::vector<std::vector<double>> c(controller_events(kind).size(), std::vector<double>(windows, 0.0));
  visit_events(r, kind, window, windows, [&](size_t e, uint64_t w, double n) { c[e][w] += n; });
  return c;
}

std::vector<double> controller_event_energy(const RunResult& r, const std::string& kind, uint64_t window,
                                            uint64_t windows, const std::vector<double>& energy_per_event) {
  FSGEN_ASSERT(energy_per_event.size() == controller_events(kind).size(), "an energy per controller event");
  std::vector<double> fj = window_series(windows);
  visit_events(r, kind, window, windows, [&](size_t e, uint64_t w, double n) { fj[w] += n * energy_per_event[e]; });
  return fj;
}

}  // namespace fsgen
