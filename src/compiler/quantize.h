// INT8 quantisation for the core's kernels (docs/MODELS.md, "Quantisation").
//
// Symmetric and per tensor: code = clamp(round(x / scale), -127, 127) with
// scale = max|x| / 127. Weights take their scale from the weight itself; activations
// from a calibration run (the largest magnitude the FP32 model shows at that point on
// calibration tokens), so values beyond it saturate. One scale per tensor, not per
// channel, because the requantiser applies one multiplier to a whole launch.
#pragma once
#include <cstddef>
#include <cstdint>
#include <vector>

namespace fsgen {

float int8_scale(float max_abs);  // max_abs / 127 (a tiny positive scale for an all-zero tensor)
std::vector<int8_t> quantize_int8(const float* x, size_t n, float scale);

struct Requant {
  uint16_t mult = 1;
  uint8_t shift = 0;
};
// The requantiser setting with acc * factor ~= (acc * mult) >> shift: the largest shift
// (at most 31) whose multiplier still fits 16 bits. UserError when factor is not positive
// or too large for a 16-bit multiplier.
Requant choose_requant(double factor);

}  // namespace fsgen
