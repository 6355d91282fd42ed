// The softmax / activation unit's model (fsgen_softmax.v): one score row per load, answered
// in the next cycle. The controller model (models/attention_model.cpp) presents each row with
// its running state and takes the answer; the kind's cycle model computes it with the
// fixed-point numerics of core/attention_numerics.h, its RTL model (model_rtl.cpp, mixed-level
// runs) asks the Verilated unit.
#pragma once
#include <cstdint>
#include <memory>
#include <vector>

#include "models/rtl_ports.h"

namespace fsgen {

// What stays the same over a kernel: the unit's settings registers and the activation table.
struct SoftmaxSettings {
  uint32_t len_kv = 0;
  bool causal = false;
  uint32_t window = 0;  // causal sliding window in keys, 0 = none (the WIN parameter)
  uint16_t score_mult = 0, gate_mult = 0, hid_mult = 0;
  uint8_t score_shift = 0, gate_shift = 0, hid_shift = 0;
  const uint8_t* lut = nullptr;  // FFN activation table, 256 entries
};

// A row as the controller presents it (ld), with the row block's running state.
struct SoftmaxRowIn {
  const int32_t* scores = nullptr;  // tile_n INT32
  bool first = false;               // the row block's first key tile: no running state yet
  int32_t m_old = 0, l_old = 0;     // running max (log2 domain, Q.8) and sum of p
  uint32_t q_pos = 0, j0 = 0;       // the row's query position, the tile's first key
  bool ffn = false, gate = false;   // FFN mode; its gate pass
  const int8_t* p_prev = nullptr;   // the gate pass: the row's activations of the first pass
};

// The unit's answer: attention's new max, rescale factor (Q0.15) and sum; p (Q0.7
// probabilities, or the FFN's INT8 activations), tile_n bytes.
struct SoftmaxRowOut {
  int32_t m_new = 0;
  uint32_t alpha = 0;
  int32_t l_new = 0;
  uint8_t* p = nullptr;
};

class SoftmaxUnitModel {
 public:
  virtual ~SoftmaxUnitModel() = default;
  virtual void configure(const SoftmaxSettings& s) = 0;
  // The row loaded in `cycle`; the answer holds from cycle + 1.
  virtual void row(uint64_t cycle, const SoftmaxRowIn& in, SoftmaxRowOut& out) = 0;
};

std::unique_ptr<SoftmaxUnitModel> make_softmax_model(uint32_t tile_n);
// The unit as its Verilated RTL, `reference` its cycle model beside it (model_rtl.cpp).
std::unique_ptr<SoftmaxUnitModel> make_rtl_softmax_model(uint32_t tile_n, std::unique_ptr<SoftmaxUnitModel> reference,
                                                         RtlPorts& rtl, RtlBlockMonitor& monitor);

}  // namespace fsgen
