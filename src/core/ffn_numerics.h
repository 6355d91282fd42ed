// The FFN kernel's numerics (docs/NUMERICS.md, section "FFN"):
//   u = requant(X W1^T)            INT8 code of the pre-activation
//   a = lut[u]                     activation by a 256-entry table (SiLU, GELU, ...)
//   gated:  g = requant(X W3^T),  h = requant(a * g)       else h = a
//   y = clamp(requant(h W2) + residual, -128, 127)
// Weights are row-major [ffn x hidden] (HF Linear layout for W1 and W3; W2 transposed).
#pragma once
#include <array>
#include <cstdint>
#include <string>
#include <vector>

namespace fsgen::num {

struct Requant {
  uint16_t mult = 1;
  uint8_t shift = 0;
};

struct FfnParams {
  uint32_t tokens = 0, hidden = 0, ffn = 0;
  bool gated = false;
  Requant u, g, h, y;
};

using ActivationTable = std::array<int8_t, 256>;

// One hidden value from its pre-activation accumulator u (and, gated, the gate's g):
// h = lut[requant(u)], gated h = requant(lut[requant(u)] x requant(g)).
int8_t ffn_hidden(int32_t u, const int32_t* g, const ActivationTable& lut, const FfnParams& p);

// The activations a table can hold: silu, gelu (erf), gelu_tanh (the tanh approximation,
// GPT-2's gelu_new and Gemma's gelu_pytorch_tanh) and relu.
const std::vector<std::string>& activation_names();
bool is_activation(const std::string& name);

// lut[code] = clamp(round(act(code * in_scale) / out_scale)), code an INT8 value.
ActivationTable make_activation_table(const std::string& activation, double in_scale, double out_scale);

std::vector<int8_t> ffn_reference(const std::vector<int8_t>& x, const std::vector<int8_t>& w1,
                                  const std::vector<int8_t>& w3, const std::vector<int8_t>& w2t,
                                  const ActivationTable& lut, const std::vector<int8_t>& residual, const FfnParams& p);

}  // namespace fsgen::num

namespace fsgen {

// The kernel's requantisers for synthetic operands (INT8 codes of values x / 64): U and G
// are coded in steps of 1/32, so are the activation and H; Y in steps of 1/32 as well.
num::FfnParams synthetic_ffn_scaling();
// The activation table for those codes (in and out in steps of 1/32).
num::ActivationTable synthetic_activation_table(const std::string& activation);

}  // namespace fsgen
