#include "compiler/attention.h"

#include <cmath>

#include "compiler/matmul.h"
#include "core/error.h"
#include "core/regmap.h"

namespace fsgen {

namespace {

constexpr uint64_t kAlign = 4096;
uint64_t align_up(uint64_t x) { return (x + kAlign - 1) / kAlign * kAlign; }

std::vector<uint8_t> as_bytes(const std::vector<int8_t>& v) { return std::vector<uint8_t>(v.begin(), v.end()); }

void check(const Graph& g, const AttentionProblem& p, uint32_t lq, uint32_t lkv, uint32_t cap) {
  const std::string where = "attention kernel on design '" + g.spec.name + "'";
  if (!g.attention)
    fail(where, "the design was built without the attention kernel: " +
                    (attention_unsupported_reason(g.spec.array_a, g.spec.array_b).empty()
                         ? std::string("add attention to its kernels list")
                         : attention_unsupported_reason(g.spec.array_a, g.spec.array_b)));
  if (p.q_heads == 0 || p.kv_heads == 0 || p.q_heads % p.kv_heads != 0)
    fail(where, "query heads " + std::to_string(p.q_heads) + " must be a positive multiple of KV heads " +
                    std::to_string(p.kv_heads));
  if (lq == 0 || lkv < lq) fail(where, "expected 1 <= query rows <= key rows, got " + std::to_string(lq) + " and " + std::to_string(lkv));
  if (cap < lkv) fail(where, "KV cache capacity " + std::to_string(cap) + " is below the " + std::to_string(lkv) + " keys used");
  if (lkv + g.spec.array_a.tile_n + g.spec.array_a.tile_m >= 65536 || p.q_heads >= 65536)
    fail(where, "sequence lengths and heads must stay below 65536 (16-bit registers)");
}

}  // namespace

CompiledAttention compile_attention(const Graph& g, const AttentionProblem& p) {
  const uint32_t d = g.spec.array_a.tile_k;
  const bool decode = p.stage == Stage::kDecode;
  const uint32_t lq = p.tokens;
  const uint32_t lkv = decode ? p.context + p.tokens : p.tokens;
  const uint32_t cap = p.kv_capacity ? p.kv_capacity : lkv;
  check(g, p, lq, lkv, cap);

  CompiledAttention out;
  num::AttentionParams& ap = out.params;
  ap.lq = lq;
  ap.lkv = lkv;
  ap.d = d;
  ap.tile_kv = g.spec.array_a.tile_n;
  ap.causal = true;
  ap.q_pos0 = lkv - lq;
  // Operands are INT8 codes of values x / 64: logits = S / (64 * 64 * sqrt(d)).
  num::choose_score_scaling(1.0 / (64.0 * 64.0 * std::sqrt(double(d))), ap.score_mult, ap.score_shift);

  const size_t q_bytes = size_t(p.q_heads) * lq * d, kv_bytes = size_t(p.kv_heads) * cap * d;
  const auto q = random_int8(q_bytes, p.seed, p.zero_fraction);
  const auto k = random_int8(kv_bytes, p.seed + 1, p.zero_fraction);
  const auto v = random_int8(kv_bytes, p.seed + 2, p.zero_fraction);
  const auto x = p.residual ? random_int8(q_bytes, p.seed + 3, p.zero_fraction) : std::vector<int8_t>{};

  Program& prog = out.program;
  prog.design = g.spec.name;
  prog.kernel = std::string("attention ") + (decode ? "decode" : "prefill") + " heads=" + std::to_string(p.q_heads) + "/" +
                std::to_string(p.kv_heads) + " q=" + std::to_string(lq) + " kv=" + std::to_string(lkv) + " d=" + std::to_string(d);
  const uint64_t addr_q = kAlign, addr_k = align_up(addr_q + q_bytes), addr_v = align_up(addr_k + kv_bytes);
  const uint64_t addr_x = align_up(addr_v + kv_bytes), addr_o = align_up(addr_x + (p.residual ? q_bytes : 0));
  if (addr_o + q_bytes > 0xFFFFFFFFull) fail("attention", "tensors do not fit the 32-bit address space");
  prog.inputs.push_back({"Q", addr_q, as_bytes(q)});
  prog.inputs.push_back({"K", addr_k, as_bytes(k)});
  prog.inputs.push_back({"V", addr_v, as_bytes(v)});
  if (p.residual) prog.inputs.push_back({"X", addr_x, as_bytes(x)});
  prog.outputs.push_back({"O", addr_o, q_bytes});
  prog.writes = {{reg::kKernel, static_cast<uint32_t>(reg::Kernel::kAttention)},
                 {reg::kAddrA, static_cast<uint32_t>(addr_q)},
                 {reg::kAddrB, static_cast<uint32_t>(addr_k)},
                 {reg::kAddrV, static_cast<uint32_t>(addr_v)},
                 {reg::kAddrX, static_cast<uint32_t>(addr_x)},
                 {reg::kAddrC, static_cast<uint32_t>(addr_o)},
                 {reg::kLenQ, lq},
                 {reg::kLenKv, lkv},
                 {reg::kHeads, p.q_heads},
                 {reg::kGroup, p.q_heads / p.kv_heads},
                 {reg::kQPos0, ap.q_pos0},
                 {reg::kAttnFlags, 1u | (p.residual ? 2u : 0u)},
                 {reg::kScoreMult, ap.score_mult},
                 {reg::kScoreShift, ap.score_shift},
                 {reg::kHeadStrideQ, lq * d},
                 {reg::kHeadStrideKv, cap * d},
                 {reg::kCtrl, 1}};

  const uint32_t group = p.q_heads / p.kv_heads;
  out.expected.reserve(q_bytes);
  for (uint32_t h = 0; h < p.q_heads; ++h) {
    auto rows = [&](const std::vector<int8_t>& t, size_t head_base, uint32_t n) {
      return std::vector<int8_t>(t.begin() + head_base, t.begin() + head_base + size_t(n) * d);
    };
    const size_t kv_base = size_t(h / group) * cap * d;
    const auto o = num::attention_head_reference(rows(q, size_t(h) * lq * d, lq), rows(k, kv_base, lkv), rows(v, kv_base, lkv),
                                                 p.residual ? rows(x, size_t(h) * lq * d, lq) : std::vector<int8_t>{}, ap);
    out.expected.insert(out.expected.end(), o.begin(), o.end());
  }
  return out;
}

}  // namespace fsgen
