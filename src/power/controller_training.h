// Training cores of the controllers' activity models (docs/POWER.md, "The controller under
// a kernel"): a core generated around a controller of the catalog's hyperparameters (a
// matmul core for `ctrl`, a fused core for `fused_ctrl`) runs training kernels on its
// Verilated RTL; the controller's netlist replays its ports (golden.h) and the SystemC
// model counts its events (controller_events.h) in the same windows. Each window is one
// labelled point of the controller's dataset.
#pragma once
#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "compiler/attention.h"
#include "compiler/ffn.h"
#include "compiler/matmul.h"
#include "compiler/synthetic.h"
#include "power/characterize.h"

namespace fsgen {

// The spec (YAML) of a core named `name` whose controller has tiles TM x TN x TK (array b's
// m x k x n as a fused core plans it) and W-byte beats at 500 MHz: output-stationary arrays
// (ST 0) or weight-stationary ones (ST 1), SA and SB slots for the operand tiles; with the
// fused kernels built when `fused`.
std::string core_spec_around_controller(const std::string& name, int tm, int tn, int tk, int w, int st, int sa, int sb,
                                        bool fused);
// The training core of controller kind `kind` at hyperparameters h: for `ctrl` a matmul
// core (TM, TN, TK, W, ST, M_LIVE: weight-stationary cores keep live output tiles), for
// `fused_ctrl` a fused core (TM, TN, TK, W, ST).
std::string training_core_spec(const std::string& kind, const std::vector<int>& h);

// One training kernel: the problem `kernel` names, its operands drawn by `values` from `seed`
// (which the dataset's points carry; compile() sets them in the problem).
struct TrainingKernel {
  std::string kernel;  // "matmul", "attention" or "ffn"
  MatmulProblem matmul;
  AttentionProblem attention;
  FfnProblem ffn;
  SyntheticValues values;
  uint64_t seed = 0;
  Program compile(const Graph& g) const;  // the problem with its operands
};
// The kernels each training core runs: operands of every zero share and spread; a fused
// core's also attention prefill (MHA, GQA), decode, and the gated and plain FFN.
std::vector<TrainingKernel> training_kernels(const std::string& kind, const std::vector<int>& h);

// Cycles per point of a controller kind's kernel runs. A matmul controller's events come in
// a steady rhythm: 16-cycle windows. A fused one's come in bursts a cycle or two apart (a
// row's normalisation, then its store's DMA command and write beats), which a window of
// several cycles sums together, so that the fit cannot tell which of them costs: single
// cycles.
uint64_t training_window(const std::string& kind);
// The replay's first cycles, not points: a multiple of every training window, so that a
// run's first point starts at it (characterize's resume looks that point up).
constexpr uint64_t kTrainingSettleCycles = 16;

// The points of training kernel `kernel` on the core of h: every window of the run after
// kTrainingSettleCycles, labelled by the controller's golden dynamic energy.
std::vector<CharPoint> kernel_points(const PrimitiveDef& def, const std::vector<int>& h, size_t kernel,
                                     const std::string& liberty_file, const std::string& work_dir);

// The same run's event rates alone, on the SystemC model (no gate-level replay): per point,
// by its window's first cycle. A dataset's kernel points get the events of this fsgen's
// controller_events.h from it, their labels kept (recount_kernel_events).
std::map<uint64_t, std::vector<double>> kernel_event_rates(const PrimitiveDef& def, const std::vector<int>& h,
                                                           size_t kernel);

}  // namespace fsgen
