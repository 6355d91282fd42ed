// Fixed-point online-softmax attention for one head, the definition every model of
// the fused attention kernel follows (docs/NUMERICS.md, section "Attention").
//
//   S = Q K^T (INT8 x INT8 -> INT32)
//   z = round(S * score_mult / 2^score_shift)       scores in the log2 domain, Q.8
//   per KV tile: m' = max(m, max z); alpha = 2^((m - m') / 256) in Q0.15
//                O = rescale(O, alpha); l = rescale(l, alpha)
//                p = 2^((z - m') / 256) in Q0.7 (INT8, 0..127)
//                l += sum p; O += p V  (INT8 x INT8 -> INT32)
//   out = clamp(clamp(round(O / l), -128, 127) + residual, -128, 127)
#pragma once
#include <array>
#include <cstdint>
#include <vector>

namespace fsgen::num {

constexpr int kLogFracBits = 8;  // z and m carry 8 fractional bits (units of 2^-8 in log2)

// 2^(-f/256) scaled by 128 (Q0.7) and by 32768 (Q0.15), f = 0..255, rounded to nearest
// (entry 0 is exactly 1.0: 128 and 32768; the RTL tables hold the same values).
const std::array<uint32_t, 256>& exp2_table_q7();
const std::array<uint32_t, 256>& exp2_table_q15();

// 2^(x/256) for x <= 0: Q0.7 clamped to 127, and Q0.15 (0..32768). x is the
// difference of two INT32 log2-domain values, so it is taken as 64 bit.
int32_t exp2_q7(int64_t x);
uint32_t exp2_q15(int64_t x);

// (x * alpha + 2^14) >> 15, arithmetic, for alpha in Q0.15.
int32_t rescale_q15(int32_t x, uint32_t alpha);

// floor((2 * num + den) / (2 * den)): num / den rounded half up, den > 0.
int32_t div_round(int64_t num, int64_t den);

// The normaliser's quotient: div_round(o, l) saturated to [-128, 127] (an 8-bit
// restoring divider); 0 when l <= 0.
int32_t normalise_quotient(int32_t o, int32_t l);

int32_t score_to_log2(int32_t s, uint16_t mult, uint8_t shift);

struct AttentionParams {
  uint32_t lq = 0, lkv = 0, d = 0;  // query rows, key rows, head dim
  uint32_t tile_kv = 8;             // keys per online-softmax step (array a's n tile)
  bool causal = true;
  uint32_t window = 0;              // causal only: query at position q sees keys (q - window, q]; 0 = all
  uint32_t q_pos0 = 0;              // position of query row 0 among the keys (decode: lkv - lq)
  uint16_t score_mult = 1;
  uint8_t score_shift = 0;
  // Block TopK (compute-group sparsity): kept[query tile][key tile] (empty: every tile),
  // query tiles of tile_q rows.
  uint32_t tile_q = 8;
  std::vector<std::vector<bool>> kept;
};

// Block TopK attention (compute-group sparsity, docs/SPARSITY.md). Blocks are the key
// tiles of array a; a query tile (rows [r0, r0 + rows) at positions q_pos0 + r0 ..) scores
// each candidate key tile jt by sum_c qsum[c] * kpool[jt][c], where qsum sums the tile's
// query rows and kpool is the key tile's pooled (mean) key. Candidates are the tiles the
// key loop would visit before the query tile's own positions (all tiles without the causal
// mask); the tiles holding those positions are always kept (every query sees itself), and
// of the candidates the `topk` highest scores, the earlier tile on a tie.
struct KeyTileChoice {
  uint32_t first = 0;  // first candidate tile (a sliding window's start)
  uint32_t own = 0;    // first tile that is always kept (the candidates are [first, own))
};
KeyTileChoice key_tile_candidates(bool causal, uint32_t window, uint32_t qpos_first, uint32_t tile_kv, uint32_t lkv);
// The pooled key of key rows [j0, j0 + rows): the rounded mean of each column.
std::vector<int8_t> pooled_key(const std::vector<int8_t>& k, uint32_t j0, uint32_t rows, uint32_t d);
// sum_c (sum_r q[r][c]) * kpool[c] over query rows [r0, r0 + rows), wrapping like the INT32 MACs.
int32_t key_tile_score(const std::vector<int8_t>& q, uint32_t r0, uint32_t rows, const int8_t* kpool, uint32_t d);
// The candidates [c.first, c.own) kept by score (scores[i] is tile c.first + i's), at most topk.
std::vector<uint32_t> top_key_tiles(const std::vector<int32_t>& scores, uint32_t first, uint32_t topk);

// The query at position qpos may see key j: it exists and, with the causal mask, is not in
// the future nor, with a sliding window (memory-group sparsity), window or more behind.
inline bool key_visible(uint32_t j, uint32_t lkv, bool causal, uint32_t window, uint32_t qpos) {
  return j < lkv && (!causal || (j <= qpos && (window == 0 || j + window > qpos)));
}
inline bool visible(const AttentionParams& p, uint32_t i, uint32_t j) {
  return key_visible(j, p.lkv, p.causal, p.window, p.q_pos0 + i);
}

// The first key of the first key tile (of `tile` keys) that the query at position qpos
// can see: the key loop of its query tile starts there (the DMA skips the keys before).
inline uint32_t first_key_tile(bool causal, uint32_t window, uint32_t qpos, uint32_t tile) {
  if (!causal || window == 0 || qpos + 1 <= window) return 0;
  return (qpos + 1 - window) / tile * tile;
}

// One head: q [lq x d], k and v [lkv x d], residual [lq x d] or empty; returns [lq x d].
std::vector<int8_t> attention_head_reference(const std::vector<int8_t>& q, const std::vector<int8_t>& k,
                                             const std::vector<int8_t>& v, const std::vector<int8_t>& residual,
                                             const AttentionParams& p);

// score_mult / score_shift so that z = S * scale * log2(e) * 256, with the largest
// multiplier that fits 16 bits. scale is the real factor between S and the logits.
void choose_score_scaling(double scale, uint16_t& mult, uint8_t& shift);

}  // namespace fsgen::num

namespace fsgen {

// The factor from S = Q K^T to the logits for synthetic operands (INT8 codes of values x / 64)
// of head dimension d: 1 / (64 x 64 x sqrt(d)).
double synthetic_score_scale(uint32_t d);

}  // namespace fsgen
