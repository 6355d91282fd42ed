// A decoder's linear layers and attention as INT8 kernels on a design's SystemC
// platform: every call is compiled into a Program with the real (quantised) operands
// and run on the platform; the output is checked against the C++ reference of the
// kernel's numerics and dequantised for the host. Scales: compiler/quantize.h.
#pragma once
#include <cstdint>
#include <functional>
#include <map>
#include <string>
#include <vector>

#include "compiler/decoder_forward.h"
#include "compiler/program.h"
#include "compiler/quantize.h"
#include "generator/graph.h"
#include "models/run_result.h"

namespace fsgen {

// Runs one kernel's Program: its outputs and cycles (and, where the platform reports them,
// its sparse activity).
using KernelRunner = std::function<RunResult(const Program&)>;

class CoreBackend : public DecoderBackend {
 public:
  // cal: the FP32 model's ranges on calibration tokens (Fp32Backend::calibration()).
  // runner: where each kernel runs; by default on a SystemC platform of its own
  // (run_on_systemc), or through a driver on one platform (vp/driver.h, docs/VP.md).
  CoreBackend(const Graph& g, const DecoderCheckpoint& m, Calibration cal, KernelRunner runner = {});

  void linear(int layer, Linear which, const std::vector<float>& x, uint32_t t, std::vector<float>& y) override;
  void attention(int layer, const std::vector<float>& q, uint32_t t, uint32_t pos0, const std::vector<float>& k,
                 const std::vector<float>& v, std::vector<float>& o) override;

  struct Launch {
    std::string kernel;
    int layer;
    Program program;
    std::vector<uint8_t> expected;  // the C++ reference of the kernel's numerics
  };
  // Keeps the launches of `layer` (from the next call on) for a replay on the RTL.
  void keep_layer(int layer) { keep_layer_ = layer; }
  void stop_keeping() { keep_layer_ = -1; }
  const std::vector<Launch>& kept() const { return kept_; }

  uint64_t cycles() const { return cycles_; }
  uint64_t launches() const { return launches_; }
  uint64_t mismatches() const { return mismatches_; }  // launches whose output differs from the reference
  const std::map<std::string, uint64_t>& cycles_by_kernel() const { return kernel_cycles_; }
  // What the value networks and the DMA skipped, summed over the launches.
  const std::map<std::string, SparseActivity>& sparse() const { return sparse_; }

 private:
  // A packed weight quantised for one launch.
  //  - Smoothing (SmoothQuant, Xiao et al. 2023, alpha 0.5): input channel c of the
  //    activations is divided by s_c = sqrt(max|x_c| / max|W_c|) and the weights' column c
  //    multiplied by it, so the activations' outlier channels no longer set the scale
  //    of every other channel. The product is unchanged.
  //  - Each part's weights take a scale proportional to that part's calibrated output
  //    range, so the launch's one requantiser multiplier maps every part's outputs onto
  //    the full INT8 range.
  struct QuantWeight {
    uint32_t out = 0, in = 0, n = 0, k = 0;  // n, k: padded to whole tiles
    std::vector<int8_t> b;                   // W^T [k x n]
    std::vector<float> smooth;               // s_c per input channel
    float in_scale = 0;                      // of the smoothed activations
    std::vector<float> out_scale;            // per output column
    Requant requant;
  };
  const QuantWeight& weight(int layer, Linear which);
  void smooth(int layer, Linear which, PackedWeight& w, QuantWeight& q) const;
  float scale(int layer, const std::string& point) const;
  std::vector<uint8_t> run(const std::string& kernel, int layer, const Program& p, std::vector<uint8_t> expected);

  const Graph& g_;
  const DecoderCheckpoint& m_;
  Calibration cal_;
  KernelRunner runner_;
  std::map<std::pair<int, Linear>, QuantWeight> weights_;
  int keep_layer_ = -1;
  std::vector<Launch> kept_;
  uint64_t cycles_ = 0, launches_ = 0, mismatches_ = 0;
  std::map<std::string, uint64_t> kernel_cycles_;
  std::map<std::string, SparseActivity> sparse_;
};

}  // namespace fsgen
