#include "compiler/quantize.h"

#include <algorithm>
#include <cmath>
#include <string>

#include "core/error.h"

namespace fsgen {

float int8_scale(float max_abs) { return max_abs > 0 ? max_abs / 127.0f : 1e-12f; }

std::vector<int8_t> quantize_int8(const float* x, size_t n, float scale) {
  std::vector<int8_t> q(n);
  for (size_t i = 0; i < n; ++i) q[i] = static_cast<int8_t>(std::clamp(std::lround(x[i] / scale), -127L, 127L));
  return q;
}

Requant choose_requant(double factor) {
  if (!(factor > 0) || factor >= 65535.5)
    fail("requantiser", "scale factor " + std::to_string(factor) + " is outside (0, 65535]");
  Requant r;
  for (int shift = 31; shift >= 0; --shift) {
    const double m = std::round(std::ldexp(factor, shift));
    if (m <= 65535) {
      r.mult = static_cast<uint16_t>(std::max(1.0, m));
      r.shift = static_cast<uint8_t>(shift);
      return r;
    }
  }
  return r;
}

}  // namespace fsgen
