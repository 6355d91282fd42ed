#include "compiler/attention.h"

#include <cmath>

#include "compiler/matmul.h"
#include "core/error.h"
#include "core/regmap.h"

namespace fsgen {

namespace {

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

CompiledAttention compile_attention(const Graph& g, const AttentionProblem& p, Materialise what) {
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
  ap.causal = p.causal;
  ap.q_pos0 = lkv - lq;
  // Operands are INT8 codes of values x / 64: logits = S / (64 * 64 * sqrt(d)).
  num::choose_score_scaling(1.0 / (64.0 * 64.0 * std::sqrt(double(d))), ap.score_mult, ap.score_shift);

  const size_t q_bytes = size_t(p.q_heads) * lq * d, kv_bytes = size_t(p.kv_heads) * cap * d;
  const bool data = what == Materialise::kOperands;
  auto operand = [&](size_t bytes, uint64_t seed) {
    return data ? random_int8(bytes, seed, p.zero_fraction) : std::vector<int8_t>{};
  };
  const auto q = operand(q_bytes, p.seed);
  const auto k = operand(kv_bytes, p.seed + 1);
  const auto v = operand(kv_bytes, p.seed + 2);
  const auto x = p.residual ? operand(q_bytes, p.seed + 3) : std::vector<int8_t>{};

  Program& prog = out.program;
  prog.design = g.spec.name;
  prog.kernel = std::string("attention ") + (decode ? "decode" : "prefill") + " heads=" + std::to_string(p.q_heads) + "/" +
                std::to_string(p.kv_heads) + " q=" + std::to_string(lq) + " kv=" + std::to_string(lkv) + " d=" + std::to_string(d);
  auto input = [&](const char* name, const std::vector<int8_t>& values, size_t bytes) {
    return data ? prog.add_input(name, values) : prog.reserve_input(name, bytes);
  };
  const uint32_t addr_q = input("Q", q, q_bytes);
  const uint32_t addr_k = input("K", k, kv_bytes);
  const uint32_t addr_v = input("V", v, kv_bytes);
  const uint32_t addr_x = p.residual ? input("X", x, q_bytes) : 0;
  const uint32_t addr_o = prog.add_output("O", q_bytes);
  prog.writes = {{reg::kKernel, static_cast<uint32_t>(reg::Kernel::kAttention)},
                 {reg::kAddrA, addr_q},
                 {reg::kAddrB, addr_k},
                 {reg::kAddrV, addr_v},
                 {reg::kAddrX, addr_x},
                 {reg::kAddrC, addr_o},
                 {reg::kLenQ, lq},
                 {reg::kLenKv, lkv},
                 {reg::kHeads, p.q_heads},
                 {reg::kGroup, p.q_heads / p.kv_heads},
                 {reg::kQPos0, ap.q_pos0},
                 {reg::kAttnFlags, (p.causal ? 1u : 0u) | (p.residual ? 2u : 0u)},
                 {reg::kScoreMult, ap.score_mult},
                 {reg::kScoreShift, ap.score_shift},
                 {reg::kHeadStrideQ, lq * d},
                 {reg::kHeadStrideKv, cap * d},
                 {reg::kCtrl, 1}};

  if (!data) return out;
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
