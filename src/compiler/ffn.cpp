#include "compiler/ffn.h"

#include "compiler/matmul.h"
#include "core/error.h"
#include "core/regmap.h"

namespace fsgen {

namespace {
constexpr uint64_t kAlign = 4096;
uint64_t align_up(uint64_t x) { return (x + kAlign - 1) / kAlign * kAlign; }
std::vector<uint8_t> as_bytes(const std::vector<int8_t>& v) { return std::vector<uint8_t>(v.begin(), v.end()); }
}  // namespace

CompiledFfn compile_ffn(const Graph& g, const FfnProblem& p) {
  const uint32_t hd = g.spec.array_a.tile_k;
  const std::string where = "ffn kernel on design '" + g.spec.name + "'";
  if (!g.attention)
    fail(where, "the fused datapath (array b, activation unit) is not built: the FFN kernel runs on cores with the attention kernel");
  if (256 % hd != 0) fail(where, "the activation table loads in rows of hidden = " + std::to_string(hd) + " bytes: expected a divisor of 256");
  if (p.tokens == 0 || p.ffn == 0 || p.tokens >= 65536 || p.ffn + g.spec.array_a.tile_n >= 65536)
    fail(where, "expected 1..65535 tokens and FFN width, got " + std::to_string(p.tokens) + " and " + std::to_string(p.ffn));

  // Operand codes are values x / 64; U and G are coded in steps of 1/32, so are the
  // activation and H; Y in steps of 1/32 as well.
  num::FfnParams fp;
  fp.tokens = p.tokens;
  fp.hidden = hd;
  fp.ffn = p.ffn;
  fp.gated = p.gated;
  fp.u = {1, 7};  // S / 4096 * 32
  fp.g = {1, 7};
  fp.h = {1, 5};  // a * g / 32
  fp.y = {1, 6};  // sum h / 32 * w / 64 * 32
  const num::ActivationTable lut = num::make_activation_table(p.activation, 1.0 / 32, 1.0 / 32);

  const size_t xb = size_t(p.tokens) * hd, wb = size_t(p.ffn) * hd;
  const auto x = random_int8(xb, p.seed, p.zero_fraction);
  const auto w1 = random_int8(wb, p.seed + 1, p.zero_fraction);
  const auto w3 = p.gated ? random_int8(wb, p.seed + 2, p.zero_fraction) : std::vector<int8_t>{};
  const auto w2t = random_int8(wb, p.seed + 3, p.zero_fraction);
  const auto res = p.residual ? random_int8(xb, p.seed + 4, p.zero_fraction) : std::vector<int8_t>{};

  CompiledFfn out;
  Program& prog = out.program;
  prog.design = g.spec.name;
  prog.kernel = std::string("ffn ") + (p.gated ? "gated " : "") + p.activation + " tokens=" + std::to_string(p.tokens) +
                " hidden=" + std::to_string(hd) + " ffn=" + std::to_string(p.ffn);
  const uint64_t a_x = kAlign, a_w1 = align_up(a_x + xb), a_w3 = align_up(a_w1 + wb), a_w2 = align_up(a_w3 + wb);
  const uint64_t a_lut = align_up(a_w2 + wb), a_res = align_up(a_lut + 256), a_y = align_up(a_res + xb);
  prog.inputs.push_back({"X", a_x, as_bytes(x)});
  prog.inputs.push_back({"W1", a_w1, as_bytes(w1)});
  if (p.gated) prog.inputs.push_back({"W3", a_w3, as_bytes(w3)});
  prog.inputs.push_back({"W2T", a_w2, as_bytes(w2t)});
  prog.inputs.push_back({"LUT", a_lut, as_bytes(std::vector<int8_t>(lut.begin(), lut.end()))});
  if (p.residual) prog.inputs.push_back({"R", a_res, as_bytes(res)});
  prog.outputs.push_back({"Y", a_y, xb});
  auto u32 = [](uint64_t v) { return static_cast<uint32_t>(v); };
  prog.writes = {{reg::kKernel, static_cast<uint32_t>(reg::Kernel::kFfn)},
                 {reg::kAddrA, u32(a_x)},
                 {reg::kAddrB, u32(a_w1)},
                 {reg::kAddrW3, u32(a_w3)},
                 {reg::kAddrV, u32(a_w2)},
                 {reg::kAddrLut, u32(a_lut)},
                 {reg::kAddrX, u32(a_res)},
                 {reg::kAddrC, u32(a_y)},
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
  const auto y = num::ffn_reference(x, w1, w3, w2t, lut, res, fp);
  out.expected.assign(y.begin(), y.end());
  return out;
}

}  // namespace fsgen
