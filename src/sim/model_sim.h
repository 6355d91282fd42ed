// Full-layer and full-model simulation: a model's layers lowered onto a design
// (compiler/layer.h), every kernel launch timed by the fast model or run on the SystemC
// platform (cycle mode, synthetic operands), summed into one report.
//
// Launches of the same shape take the same cycles in both models (the schedule does not
// depend on operand values), so by default each distinct launch is simulated once and
// counted as often as it occurs; every_launch simulates each one.
#pragma once
#include <cstdint>
#include <functional>
#include <ostream>
#include <string>
#include <vector>

#include "compiler/layer.h"
#include "compiler/model_config.h"
#include "compiler/traffic.h"
#include "generator/graph.h"
#include "models/fast_model.h"

namespace fsgen {

enum class SimMode { kFast, kCycle };

struct ModelSimOptions {
  Stage stage = Stage::kPrefill;
  uint32_t context = 128;  // prefill: prompt tokens; decode: tokens already in the KV cache
  uint32_t tokens = 1;     // decode: tokens generated, one step each (prefill: unused)
  uint32_t layers = 0;     // layers to run; 0: all of the model's
  bool attention_only = false;  // each layer's attention block alone (LayerWorkload::attention_only)
  SimMode mode = SimMode::kFast;
  bool every_launch = false;
  uint64_t window = 0;  // fast mode: activity timeline window in cycles (0: none)
  uint64_t seed = 1;        // cycle mode: synthetic operands, drawn as `values` says
  SyntheticValues values;
  ExpertRouting routing;  // Mixture-of-Experts models: how a prefill's tokens spread over the experts
};

struct KernelTotals {
  std::string name;
  uint64_t launches = 0, cycles = 0, dma_bytes = 0, macs = 0, padded_macs = 0;
  uint64_t least_bytes = 0;         // least off-chip traffic (compiler/traffic.h)
  uint64_t busy_a = 0, busy_b = 0;  // busy cycles of arrays a and b
};

struct ModelSimReport {
  std::string model, design, mode, stage;
  bool attention_only = false;  // the layers' attention blocks alone
  uint32_t context = 0, tokens = 0, layers = 0, model_layers = 0;
  double clock_mhz = 0;
  uint32_t pes_a = 0, pes_b = 0;
  uint32_t bytes_per_cycle = 0;       // the memory's peak (one AXI beat per cycle)
  uint64_t cycles = 0;                // accelerator cycles of every launch, one after another
  std::vector<KernelTotals> kernels;  // per kernel name, in layer order
  std::vector<HostOp> host;           // per host op name, summed
  std::vector<std::string> notes;     // placement decisions (every layer's, each once)
  std::map<std::string, BlockActivity> activity;
  ActivityTimeline timeline;          // fast mode with a window
  uint64_t launches = 0, simulated_launches = 0, simulated_cycles = 0;
  double wall_seconds = 0;
  double peak_rss_mib = 0;  // largest resident set of fsgen or of one of its simulation processes

  uint32_t tokens_processed() const { return stage == "prefill" ? context : tokens; }
  double seconds_at_clock() const { return cycles / (clock_mhz * 1e6); }
};

// progress(fraction done) is called after every simulated launch.
ModelSimReport simulate_model(const Graph& g, const ModelConfig& m, const ModelSimOptions& o,
                              const std::function<void(double)>& progress = {});

// The DMA's bytes, the run's least off-chip traffic, and its roofline (both arrays' PEs).
uint64_t dma_bytes(const ModelSimReport& r);
uint64_t least_bytes(const ModelSimReport& r);
Roofline run_roofline(const ModelSimReport& r);

void print_model_sim(const ModelSimReport& r, std::ostream& out);
void write_model_sim_json(const ModelSimReport& r, std::ostream& out);
// One row per window: cycle of the window's start, then each block's busy fraction.
void write_activity_csv(const ModelSimReport& r, std::ostream& out);

}  // namespace fsgen
