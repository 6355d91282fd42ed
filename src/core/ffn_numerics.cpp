#include "core/ffn_numerics.h"

#include <algorithm>
#include <cmath>

#include "core/error.h"
#include "core/numerics.h"

namespace fsgen::num {

const std::vector<std::string>& activation_names() {
  static const std::vector<std::string> names{"silu", "gelu", "gelu_tanh", "relu"};
  return names;
}

bool is_activation(const std::string& name) {
  const auto& n = activation_names();
  return std::find(n.begin(), n.end(), name) != n.end();
}

namespace {

double activate(const std::string& activation, double v) {
  if (activation == "silu") return v / (1.0 + std::exp(-v));
  if (activation == "gelu") return 0.5 * v * (1.0 + std::erf(v / std::sqrt(2.0)));
  if (activation == "gelu_tanh") return 0.5 * v * (1.0 + std::tanh(std::sqrt(2.0 / M_PI) * (v + 0.044715 * v * v * v)));
  if (activation == "relu") return std::max(v, 0.0);
  fail("activation", "expected silu, gelu, gelu_tanh or relu, got '" + activation + "'");
}

}  // namespace

ActivationTable make_activation_table(const std::string& activation, double in_scale, double out_scale) {
  ActivationTable t{};
  for (int code = -128; code < 128; ++code) {
    const double y = activate(activation, code * in_scale);
    t[static_cast<uint8_t>(code)] = static_cast<int8_t>(std::clamp<long>(std::lround(y / out_scale), -128, 127));
  }
  return t;
}

int8_t ffn_hidden(int32_t u, const int32_t* g, const ActivationTable& lut, const FfnParams& p) {
  const int8_t a = lut[static_cast<uint8_t>(requantize(u, p.u.mult, p.u.shift))];
  if (!g) return a;
  return requantize(int32_t{a} * requantize(*g, p.g.mult, p.g.shift), p.h.mult, p.h.shift);
}

std::vector<int8_t> ffn_reference(const std::vector<int8_t>& x, const std::vector<int8_t>& w1,
                                  const std::vector<int8_t>& w3, const std::vector<int8_t>& w2t,
                                  const ActivationTable& lut, const std::vector<int8_t>& residual, const FfnParams& p) {
  const uint32_t hd = p.hidden;
  std::vector<int8_t> y(size_t(p.tokens) * hd);
  std::vector<int32_t> o(hd);
  auto dot = [&](const int8_t* a, const int8_t* b) {
    int32_t s = 0;
    for (uint32_t c = 0; c < hd; ++c) s = mac(s, a[c], b[c]);
    return s;
  };
  for (uint32_t t = 0; t < p.tokens; ++t) {
    std::fill(o.begin(), o.end(), 0);
    const int8_t* xt = x.data() + size_t(t) * hd;
    for (uint32_t f = 0; f < p.ffn; ++f) {
      const int32_t g = p.gated ? dot(xt, w3.data() + size_t(f) * hd) : 0;
      const int8_t h = ffn_hidden(dot(xt, w1.data() + size_t(f) * hd), p.gated ? &g : nullptr, lut, p);
      for (uint32_t c = 0; c < hd; ++c) o[c] = mac(o[c], h, w2t[size_t(f) * hd + c]);
    }
    for (uint32_t c = 0; c < hd; ++c) {
      int32_t v = requantize(o[c], p.y.mult, p.y.shift);
      if (!residual.empty()) v += residual[size_t(t) * hd + c];
      y[size_t(t) * hd + c] = static_cast<int8_t>(std::clamp(v, -128, 127));
    }
  }
  return y;
}

}  // namespace fsgen::num

namespace fsgen {

num::FfnParams synthetic_ffn_scaling() {
  num::FfnParams fp;
  fp.u = {1, 7};  // S / 4096 * 32
  fp.g = {1, 7};
  fp.h = {1, 5};  // a * g / 32
  fp.y = {1, 6};  // sum h / 32 * w / 64 * 32
  return fp;
}

num::ActivationTable synthetic_activation_table(const std::string& activation) {
  return num::make_activation_table(activation, 1.0 / 32, 1.0 / 32);
}

}  // namespace fsgen
