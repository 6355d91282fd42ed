#include "compiler/ffn.h"

#include "compiler/lane_capacity.h"
#include "compiler/matmul.h"
#include "core/error.h"
#include "core/regmap.h"

namespace fsgen {

CompiledFfn compile_ffn(const Graph& g, const FfnProblem& p, Materialise what) {
  const uint32_t hd = g.spec.array_a.tile_k;
  const std::string where = "ffn kernel on design '" + g.spec.name + "'";
  if (!g.attention)
    fail(where, "the fused datapath (array b, activation unit) is not built: the FFN kernel runs on cores with the attention kernel");
  if (256 % hd != 0) fail(where, "the activation table loads in rows of hidden = " + std::to_string(hd) + " bytes: expected a divisor of 256");
  if (p.tokens == 0 || p.ffn == 0 || p.tokens >= 65536 || p.ffn + g.spec.array_a.tile_n >= 65536)
    fail(where, "expected 1..65535 tokens and FFN width, got " + std::to_string(p.tokens) + " and " + std::to_string(p.ffn));

  num::FfnParams fp = synthetic_ffn_scaling();
  fp.tokens = p.tokens;
  fp.hidden = hd;
  fp.ffn = p.ffn;
  fp.gated = p.gated;
  const num::ActivationTable lut = synthetic_activation_table(p.activation);

  const size_t xb = size_t(p.tokens) * hd, wb = size_t(p.ffn) * hd;
  const bool data = what == Materialise::kOperands;
  auto operand = [&](size_t bytes, uint64_t seed) {
    return data ? random_int8(bytes, seed, p.values) : std::vector<int8_t>{};
  };
  const auto x = operand(xb, p.seed);
  auto w1 = operand(wb, p.seed + 1);
  auto w3 = p.gated ? operand(wb, p.seed + 2) : std::vector<int8_t>{};
  for (auto* w : {&w1, &w3})
    if (p.weight_pattern.active() && !w->empty()) prune_structured(w->data(), p.ffn, hd, true, p.weight_pattern);
  if (data) {  // a compressed weight-stationary array a holds W1 and W3 tiles: every FFN unit a lane
    require_lanes_fit(g, w1, p.ffn, hd, hd, 1, "ffn W1");
    if (p.gated) require_lanes_fit(g, w3, p.ffn, hd, hd, 1, "ffn W3");
  }
  const auto w2t = operand(wb, p.seed + 3);
  const auto res = p.residual ? operand(xb, p.seed + 4) : std::vector<int8_t>{};

  CompiledFfn out;
  Program& prog = out.program;
  prog.design = g.spec.name;
  prog.kernel = std::string("ffn ") + (p.gated ? "gated " : "") + p.activation + " tokens=" + std::to_string(p.tokens) +
                " hidden=" + std::to_string(hd) + " ffn=" + std::to_string(p.ffn);
  auto input = [&](const char* name, const std::vector<int8_t>& values, size_t bytes) {
    return data ? prog.add_input(name, values) : prog.reserve_input(name, bytes);
  };
  const uint32_t a_x = input("X", x, xb);
  const uint32_t a_w1 = input("W1", w1, wb);
  const uint32_t a_w3 = p.gated ? input("W3", w3, wb) : 0;
  const uint32_t a_w2 = input("W2T", w2t, wb);
  const uint32_t a_lut = input("LUT", std::vector<int8_t>(lut.begin(), lut.end()), lut.size());
  const uint32_t a_res = p.residual ? input("R", res, xb) : 0;
  const uint32_t a_y = prog.add_output("Y", xb);
  auto u32 = [](uint64_t v) { return static_cast<uint32_t>(v); };
  prog.writes = {{reg::kKernel, static_cast<uint32_t>(reg::Kernel::kFfn)},
                 {reg::kAddrA, a_x},
                 {reg::kAddrB, a_w1},
                 {reg::kAddrW3, a_w3},
                 {reg::kAddrV, a_w2},
                 {reg::kAddrLut, a_lut},
                 {reg::kAddrX, a_res},
                 {reg::kAddrC, a_y},
                 {reg::kLenQ, p.tokens},
                 {reg::kLenKv, p.ffn},
                 {reg::kHeads, 1},
                 {reg::kGroup, 1},
                 {reg::kQPos0, 0},
                 {reg::kAttnFlags, (p.residual ? 2u : 0u) | (p.gated ? 4u : 0u)},
                 {reg::kScoreMult, fp.u.mult},
                 {reg::kScoreShift, fp.u.shift},
                 {reg::kGateMult, fp.g.mult},
                 {reg::kGateShift, fp.g.shift},
                 {reg::kHidMult, fp.h.mult},
                 {reg::kHidShift, fp.h.shift},
                 {reg::kReqMult, fp.y.mult},
                 {reg::kReqShift, fp.y.shift},
                 {reg::kHeadStrideQ, u32(xb)},
                 {reg::kHeadStrideKv, u32(wb)},
                 {reg::kCtrl, 1}};
  if (!data) return out;
  const auto y = num::ffn_reference(x, w1, w3, w2t, lut, res, fp);
  out.expected.assign(y.begin(), y.end());
  return out;
}

}  // namespace fsgen
