#include "core/attention_numerics.h"

#include <algorithm>
#include <climits>
#include <cmath>

#include "core/error.h"
#include "core/numerics.h"

namespace fsgen::num {

namespace {
std::array<uint32_t, 256> make_exp2_table(double one) {
  std::array<uint32_t, 256> a{};
  for (int f = 0; f < 256; ++f) a[f] = static_cast<uint32_t>(std::lround(one * std::exp2(-f / 256.0)));
  return a;
}
}  // namespace

const std::array<uint32_t, 256>& exp2_table_q7() {
  static const std::array<uint32_t, 256> t = make_exp2_table(128.0);
  return t;
}

const std::array<uint32_t, 256>& exp2_table_q15() {
  static const std::array<uint32_t, 256> t = make_exp2_table(32768.0);
  return t;
}

namespace {
// 2^(x/256) = table[f] >> i for x = -(256 i + f) <= 0; 0 once i reaches zero_from.
uint32_t exp2_fixed(int64_t x, const std::array<uint32_t, 256>& table, uint64_t zero_from) {
  FSGEN_ASSERT(x <= 0, "exp2 takes non-positive arguments");
  const uint64_t e = static_cast<uint64_t>(-x);
  const uint64_t i = e >> kLogFracBits;
  return i >= zero_from ? 0 : table[e & 255u] >> static_cast<uint32_t>(i);
}
}  // namespace

int32_t exp2_q7(int64_t x) { return static_cast<int32_t>(std::min(127u, exp2_fixed(x, exp2_table_q7(), 8))); }

uint32_t exp2_q15(int64_t x) { return exp2_fixed(x, exp2_table_q15(), 16); }

int32_t rescale_q15(int32_t x, uint32_t alpha) {
  const int64_t p = static_cast<int64_t>(x) * alpha + (int64_t{1} << 14);
  return static_cast<int32_t>(p >> 15);
}

int32_t div_round(int64_t num, int64_t den) {
  FSGEN_ASSERT(den > 0, "div_round needs a positive divisor");
  const int64_t n = 2 * num + den, d = 2 * den;
  int64_t q = n / d;
  if (n % d != 0 && n < 0) q -= 1;
  return static_cast<int32_t>(q);
}

int32_t normalise_quotient(int32_t o, int32_t l) {
  if (l <= 0) return 0;
  return std::clamp(div_round(o, l), -128, 127);
}

int32_t score_to_log2(int32_t s, uint16_t mult, uint8_t shift) {
  int64_t p = static_cast<int64_t>(s) * mult;
  if (shift > 0) p += int64_t{1} << (shift - 1);
  return static_cast<int32_t>(p >> shift);
}

void choose_score_scaling(double scale, uint16_t& mult, uint8_t& shift) {
  const double c = scale * 1.4426950408889634 * 256.0;
  if (!(c > 0) || c > 65535.0) fail("attention score scaling", "factor " + std::to_string(c) + " does not fit 16 bits");
  int s = 0;
  while (s < 31 && c * std::ldexp(1.0, s + 1) <= 65535.0) ++s;
  mult = static_cast<uint16_t>(std::lround(c * std::ldexp(1.0, s)));
  shift = static_cast<uint8_t>(s);
}

KeyTileChoice key_tile_candidates(bool causal, uint32_t window, uint32_t qpos_first, uint32_t tile_kv, uint32_t lkv) {
  KeyTileChoice c;
  c.first = first_key_tile(causal, window, qpos_first, tile_kv) / tile_kv;
  c.own = causal ? qpos_first / tile_kv : (lkv + tile_kv - 1) / tile_kv;
  c.own = std::max(c.own, c.first);
  return c;
}

std::vector<int8_t> pooled_key(const std::vector<int8_t>& k, uint32_t j0, uint32_t rows, uint32_t d) {
  std::vector<int8_t> pool(d);
  for (uint32_t c = 0; c < d; ++c) {
    int64_t sum = 0;
    for (uint32_t r = 0; r < rows; ++r) sum += k[size_t(j0 + r) * d + c];
    pool[c] = static_cast<int8_t>(std::clamp(div_round(sum, rows), -128, 127));
  }
  return pool;
}

int32_t key_tile_score(const std::vector<int8_t>& q, uint32_t r0, uint32_t rows, const int8_t* kpool, uint32_t d) {
  int32_t score = 0;
  for (uint32_t c = 0; c < d; ++c) {
    int32_t qsum = 0;
    for (uint32_t r = r0; r < r0 + rows; ++r) qsum += q[size_t(r) * d + c];
    score = static_cast<int32_t>(static_cast<uint32_t>(score) + static_cast<uint32_t>(qsum * int32_t(kpool[c])));
  }
  return score;
}

std::vector<uint32_t> top_key_tiles(const std::vector<int32_t>& scores, uint32_t first, uint32_t topk) {
  std::vector<bool> taken(scores.size(), false);
  std::vector<uint32_t> kept;
  for (uint32_t n = 0; n < topk && n < scores.size(); ++n) {
    size_t best = scores.size();
    for (size_t i = 0; i < scores.size(); ++i)
      if (!taken[i] && (best == scores.size() || scores[i] > scores[best])) best = i;
    taken[best] = true;
    kept.push_back(first + uint32_t(best));
  }
  std::sort(kept.begin(), kept.end());
  return kept;
}

std::vector<int8_t> attention_head_reference(const std::vector<int8_t>& q, const std::vector<int8_t>& k,
                                             const std::vector<int8_t>& v, const std::vector<int8_t>& residual,
                                             const AttentionParams& p) {
  std::vector<int8_t> out(size_t(p.lq) * p.d);
  std::vector<int32_t> z(p.tile_kv), o(p.d);
  for (uint32_t i = 0; i < p.lq; ++i) {
    bool first = true;
    int32_t m = 0;
    int32_t l = 0;
    std::fill(o.begin(), o.end(), 0);
    for (uint32_t j0 = 0; j0 < p.lkv; j0 += p.tile_kv) {
      if (j0 > p.q_pos0 + i && p.causal) break;  // the rest of the row is in the future
      if (!p.kept.empty() && !p.kept[i / p.tile_q][j0 / p.tile_kv]) continue;  // block TopK passed the tile over
      bool any = false;
      for (uint32_t t = 0; t < p.tile_kv && !any; ++t) any = visible(p, i, j0 + t);
      if (!any) continue;  // a tile behind the sliding window: the hardware's pass over it changes nothing
      int32_t tile_max = INT32_MIN;
      for (uint32_t t = 0; t < p.tile_kv; ++t) {
        const uint32_t j = j0 + t;
        if (!visible(p, i, j)) continue;
        int32_t s = 0;
        for (uint32_t c = 0; c < p.d; ++c) s = mac(s, q[size_t(i) * p.d + c], k[size_t(j) * p.d + c]);
        z[t] = score_to_log2(s, p.score_mult, p.score_shift);
        tile_max = std::max(tile_max, z[t]);
      }
      const int32_t m_new = first ? tile_max : std::max(m, tile_max);
      if (!first) {
        const uint32_t alpha = exp2_q15(int64_t{m} - m_new);
        l = rescale_q15(l, alpha);
        for (auto& x : o) x = rescale_q15(x, alpha);
      }
      for (uint32_t t = 0; t < p.tile_kv; ++t) {
        const uint32_t j = j0 + t;
        if (!visible(p, i, j)) continue;
        const int32_t pj = exp2_q7(int64_t{z[t]} - m_new);
        l += pj;
        for (uint32_t c = 0; c < p.d; ++c) o[c] = mac(o[c], static_cast<int8_t>(pj), v[size_t(j) * p.d + c]);
      }
      m = m_new;
      first = false;
    }
    for (uint32_t c = 0; c < p.d; ++c) {
      int32_t y = normalise_quotient(o[c], l);
      if (!residual.empty()) y += residual[size_t(i) * p.d + c];
      out[size_t(i) * p.d + c] = static_cast<int8_t>(std::clamp(y, -128, 127));
    }
  }
  return out;
}

}  // namespace fsgen::num

namespace fsgen {

double synthetic_score_scale(uint32_t d) { return 1.0 / (64.0 * 64.0 * std::sqrt(double(d))); }

}  // namespace fsgen
