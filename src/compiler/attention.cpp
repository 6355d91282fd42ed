#include "compiler/attention.h"

#include <cmath>

#include "compiler/lane_capacity.h"
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

namespace {

struct Shape {
  uint32_t d, lq, lkv, cap;
  uint32_t head_tiles;  // d / tiling.k
  size_t q_bytes() const { return size_t(lq) * d; }
};

Shape shape_of(const Graph& g, const AttentionProblem& p) {
  Shape s;
  const uint32_t tk = g.spec.array_a.tile_k;
  s.head_tiles = p.head_dim ? (p.head_dim + tk - 1) / tk : 1;
  s.d = s.head_tiles * tk;
  const std::string why = head_tiles_unsupported_why(g, s.head_tiles, p.residual);
  if (!why.empty()) fail("attention head_dim " + std::to_string(p.head_dim) + " on design '" + g.spec.name + "'", why);
  s.lq = p.tokens;
  s.lkv = p.stage == Stage::kDecode ? p.context + p.tokens : p.tokens;
  s.cap = p.kv_capacity ? p.kv_capacity : s.lkv;
  check(g, p, s.lq, s.lkv, s.cap);
  return s;
}

// Block TopK: per query tile, the key tiles the hardware visits (num::key_tile_candidates).
std::vector<std::vector<bool>> kept_key_tiles(const std::vector<int8_t>& q, const int8_t* pool,
                                              const num::AttentionParams& ap, uint32_t topk) {
  const uint32_t key_tiles = (ap.lkv + ap.tile_kv - 1) / ap.tile_kv;
  std::vector<std::vector<bool>> kept;
  for (uint32_t r0 = 0; r0 < ap.lq; r0 += ap.tile_q) {
    const uint32_t rows = std::min(ap.tile_q, ap.lq - r0);
    const num::KeyTileChoice c = num::key_tile_candidates(ap.causal, ap.window, ap.q_pos0 + r0, ap.tile_kv, ap.lkv);
    std::vector<int32_t> scores;
    for (uint32_t jt = c.first; jt < c.own; ++jt) scores.push_back(num::key_tile_score(q, r0, rows, pool + size_t(jt) * ap.d, ap.d));
    std::vector<bool> tile(key_tiles, false);
    for (uint32_t jt = c.own; jt < key_tiles; ++jt) tile[jt] = true;
    for (uint32_t jt : num::top_key_tiles(scores, c.first, topk)) tile[jt] = true;
    kept.push_back(tile);
  }
  return kept;
}

// The program and, given operands, the reference output; ops == nullptr: layout only.
CompiledAttention build(const Graph& g, const AttentionProblem& p, const AttentionOperands* ops) {
  const Shape s = shape_of(g, p);
  const uint32_t d = s.d, lq = s.lq, lkv = s.lkv, cap = s.cap;
  const bool decode = p.stage == Stage::kDecode;
  CompiledAttention out;
  num::AttentionParams& ap = out.params;
  ap.lq = lq;
  ap.lkv = lkv;
  ap.d = d;
  ap.tile_kv = g.spec.array_a.tile_n;
  ap.causal = p.causal;
  ap.window = g.sliding_window();
  ap.q_pos0 = lkv - lq;
  ap.tile_q = g.spec.array_a.tile_m;
  num::choose_score_scaling(p.score_scale > 0 ? p.score_scale : synthetic_score_scale(d), ap.score_mult, ap.score_shift);

  const size_t q_bytes = size_t(p.q_heads) * lq * d, kv_bytes = size_t(p.kv_heads) * cap * d;
  Program& prog = out.program;
  prog.design = g.spec.name;
  prog.kernel = std::string("attention ") + (decode ? "decode" : "prefill") + " heads=" + std::to_string(p.q_heads) + "/" +
                std::to_string(p.kv_heads) + " q=" + std::to_string(lq) + " kv=" + std::to_string(lkv) + " d=" + std::to_string(d);
  auto input = [&](const char* name, const std::vector<int8_t>* values, size_t bytes) {
    return ops ? prog.add_input(name, *values) : prog.reserve_input(name, bytes);
  };
  const uint32_t addr_q = input("Q", ops ? &ops->q : nullptr, q_bytes);
  const uint32_t addr_k = input("K", ops ? &ops->k : nullptr, kv_bytes);
  const uint32_t addr_v = input("V", ops ? &ops->v : nullptr, kv_bytes);
  const uint32_t addr_x = p.residual ? input("X", ops ? &ops->x : nullptr, q_bytes) : 0;
  const uint32_t addr_o = prog.add_output("O", q_bytes);
  const GroupNetwork& topk = g.sparse.group;
  const uint32_t key_tiles = (lkv + ap.tile_kv - 1) / ap.tile_kv;
  if (topk.present && key_tiles > topk.params.i)
    fail("attention kv=" + std::to_string(lkv), "the block TopK network of design '" + g.spec.name + "' ranks " +
                                                    std::to_string(topk.params.i) + " key tiles per head (SS_n / block), this needs " +
                                                    std::to_string(key_tiles));
  std::vector<int8_t> pool;  // [kv head][key tile][d]
  if (topk.present && ops)
    for (uint32_t hk = 0; hk < p.kv_heads; ++hk)
      for (uint32_t jt = 0; jt < key_tiles; ++jt) {
        const uint32_t j0 = jt * ap.tile_kv;
        const std::vector<int8_t> pk = num::pooled_key(ops->k, hk * cap + j0, std::min(ap.tile_kv, lkv - j0), d);
        pool.insert(pool.end(), pk.begin(), pk.end());
      }
  const uint32_t addr_pool = topk.present ? input("K_pool", &pool, size_t(p.kv_heads) * key_tiles * d) : 0;
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
                 {reg::kTilesK, s.head_tiles},
                 {reg::kHeadStrideQ, lq * d},
                 {reg::kHeadStrideKv, cap * d},
                 {reg::kAddrPool, addr_pool},
                 {reg::kCtrl, 1}};

  if (!ops) return out;
  // A compressed weight-stationary array a holds each key tile: every key a lane.
  for (uint32_t hk = 0; hk < p.kv_heads; ++hk)
    require_lanes_fit(g, std::vector<int8_t>(ops->k.begin() + size_t(hk) * cap * d, ops->k.begin() + (size_t(hk) * cap + lkv) * d),
                      lkv, d, d, 1, "attention K of KV head " + std::to_string(hk));
  const uint32_t group = p.q_heads / p.kv_heads;
  out.expected.reserve(q_bytes);
  for (uint32_t h = 0; h < p.q_heads; ++h) {
    auto rows = [&](const std::vector<int8_t>& t, size_t head_base, uint32_t n) {
      return std::vector<int8_t>(t.begin() + head_base, t.begin() + head_base + size_t(n) * d);
    };
    const size_t kv_base = size_t(h / group) * cap * d;
    const std::vector<int8_t> q = rows(ops->q, size_t(h) * lq * d, lq);
    num::AttentionParams head = ap;
    if (topk.present) head.kept = kept_key_tiles(q, pool.data() + size_t(h / group) * key_tiles * d, ap, topk.topk);
    const auto o = num::attention_head_reference(q, rows(ops->k, kv_base, lkv), rows(ops->v, kv_base, lkv),
                                                 p.residual ? rows(ops->x, size_t(h) * lq * d, lq) : std::vector<int8_t>{},
                                                 head);
    out.expected.insert(out.expected.end(), o.begin(), o.end());
  }
  return out;
}

}  // namespace

std::string head_tiles_unsupported_why(const Graph& g, uint32_t head_tiles, bool residual) {
  if (head_tiles <= 1) return "";
  if (head_tiles > 255) return "at most 255 tiles of the head dim";
  const uint32_t slots = head_tiles + (residual ? 1 : 0);  // Q's tiles, then the residual's
  if (slots > g.a_slots)
    return std::to_string(head_tiles) + " tiles of the head dim" + (residual ? " and the residual's" : "") + " need " +
           std::to_string(slots) + " tile slots of buffer a, the design has " + std::to_string(g.a_slots) +
           " (memory.operand_tiles.a)";
  if (g.sparse.group.present) return "block TopK ranks key tiles over one tile of the head dim";
  return "";
}

CompiledAttention compile_attention(const Graph& g, const AttentionProblem& p, Materialise what) {
  if (what == Materialise::kLayoutOnly) return build(g, p, nullptr);
  const Shape s = shape_of(g, p);
  const size_t q_bytes = size_t(p.q_heads) * s.lq * s.d, kv_bytes = size_t(p.kv_heads) * s.cap * s.d;
  AttentionOperands ops;
  ops.q = random_int8(q_bytes, p.seed, p.values);
  ops.k = random_int8(kv_bytes, p.seed + 1, p.values);
  if (p.key_pattern.active()) prune_structured(ops.k.data(), uint32_t(kv_bytes / s.d), s.d, true, p.key_pattern);
  ops.v = random_int8(kv_bytes, p.seed + 2, p.values);
  if (p.residual) ops.x = random_int8(q_bytes, p.seed + 3, p.values);
  return build(g, p, &ops);
}

CompiledAttention compile_attention(const Graph& g, const AttentionProblem& p, const AttentionOperands& ops) {
  const Shape s = shape_of(g, p);
  const size_t q_bytes = size_t(p.q_heads) * s.lq * s.d, kv_bytes = size_t(p.kv_heads) * s.cap * s.d;
  auto expect = [&](const char* name, const std::vector<int8_t>& t, size_t bytes) {
    if (t.size() != bytes)
      fail(std::string("attention operand ") + name, "expected " + std::to_string(bytes) + " bytes ([head][row][" +
                                                          std::to_string(s.d) + "]), got " + std::to_string(t.size()));
  };
  expect("Q", ops.q, q_bytes);
  expect("K", ops.k, kv_bytes);
  expect("V", ops.v, kv_bytes);
  if (p.residual) expect("X", ops.x, q_bytes);
  return build(g, p, &ops);
}

}  // namespace fsgen
