// Functional proof on real weights: a llama2.c checkpoint run token by token through a
// design's SystemC platform (INT8 kernels, sim/core_backend.h) beside the FP32
// reference of the same model, compared layer by layer and token by token.
//
// Tokens: the FP32 model's greedy continuation of BOS (evaluation), both models fed the
// same tokens (teacher forcing). Calibration: the FP32 model's ranges on four other
// sequences (the greedy continuations of BOS, 100 / 200 / 300 / 400), so no evaluated
// tensor calibrates its own scale. The prompt runs as one prefill step, each further token as a decode
// step against the KV cache. With --prune N:M the core and its FP32 reference run the
// magnitude-pruned model (a sparse workload for value networks); a third, dense FP32 model
// tells what pruning costs in next-token agreement.
#pragma once
#include <cstdint>
#include <map>
#include <ostream>
#include <string>
#include <vector>

#include "compiler/checkpoint.h"
#include "compiler/decoder_forward.h"
#include "compiler/synthetic.h"
#include "generator/graph.h"
#include "sim/cosim.h"

namespace fsgen {

struct InferenceOptions {
  uint32_t prompt = 16;    // tokens of the prefill step
  uint32_t generate = 4;   // decode steps after it
  uint32_t layers = 0;     // layers to run (0: all)
  std::string rtl_root;    // non-empty: replay layer 0 of the prefill on the Verilated RTL
  StructuredPattern prune; // active: the linear weights magnitude-pruned N:M along k
};

struct InferenceReport {
  std::string design, model;
  uint32_t prompt = 0, generate = 0, layers = 0;
  std::vector<double> cosine_min, cosine_mean;  // per layer: residual stream vs FP32, over steps
  uint32_t agree = 0, positions = 0;            // next-token (argmax) agreement with FP32
  uint64_t cycles = 0, launches = 0, mismatches = 0;
  std::map<std::string, uint64_t> kernel_cycles;
  uint32_t pruned_agree = 0;                    // --prune: pruned FP32 next tokens equal to the dense FP32 model's
  StructuredPattern prune;
  std::map<std::string, SparseActivity> sparse;  // per sparse array / the DMA, summed over launches
  std::vector<CosimReport> rtl;  // layer 0 of the prefill, launch by launch
  double wall_seconds = 0;
  double agreement() const { return positions ? double(agree) / positions : 0.0; }
};

// The llama2.c tokenizer's beginning-of-sequence token, every text's first.
constexpr int kBosToken = 1;

// The FP32 model's greedy continuation of `start` to `length` tokens (of its first `layers`
// layers; 0: all).
std::vector<int> greedy_tokens(const DecoderCheckpoint& m, std::vector<int> start, uint32_t length, uint32_t layers);
// The INT8 kernels' calibration: the FP32 model's ranges over four sequences of `length`
// tokens (the greedy continuations of BOS, 100 / 200 / 300 / 400), none of them evaluated.
Calibration calibrate_int8_scales(const DecoderCheckpoint& m, uint32_t length, uint32_t layers);

InferenceReport run_inference(const Graph& g, const DecoderCheckpoint& m, const InferenceOptions& o);
void print_inference(const InferenceReport& r, std::ostream& out);

}  // namespace fsgen
