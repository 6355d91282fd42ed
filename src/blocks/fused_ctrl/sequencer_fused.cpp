// The fused attention / FFN kernels' loop (fsgen_ctrl.v's A_* states with ATTN = 1): heads,
// query tiles, key tiles, and the K / V tile caches' hit logic.
#include <algorithm>

#include "blocks/ctrl/sequencer.h"
#include "core/attention_numerics.h"

namespace fsgen {

// A_LUT, then A_LD: the FFN's activation table, rows of tile_k bytes.
void TileSequencer::load_activation_table() {
  advance(1);  // A_LUT
  load_rows(regs_.addr_lut, plan_.spec.tile_k, 256 / plan_.spec.tile_k, plan_.spec.tile_k, {BufferSlot::kLut},
            LoadEnd::kDrained);
}

void TileSequencer::fused_schedule() {
  const uint32_t tq = plan_.spec.tile_m;
  k_cache_.valid.assign(k_cache_.tiles, false);
  v_cache_.valid.assign(v_cache_.tiles, false);
  if (ffn()) load_activation_table();
  uint32_t hk = 0, g = 0;
  for (uint32_t h = 0; h < regs_.heads; ++h) {
    for (uint32_t q0 = 0; q0 < regs_.len_q; q0 += tq) query_tile(h, hk, q0);
    if (++g == regs_.group) {
      g = 0;
      ++hk;
    }
  }
  advance(1);  // DONE
}

void TileSequencer::query_tile(uint32_t h, uint32_t hk, uint32_t q0) {
  const ArraySpec& a = plan_.spec;
  const uint32_t tq = a.tile_m, tkv = a.tile_n, d = a.tile_k;
  const uint32_t tiles = ffn() ? 1 : regs_.head_tiles(), row = tiles * d;  // the head dim's tiles, a row's bytes
  const uint32_t rows = std::min<uint32_t>(tq, regs_.len_q - q0);
  for (uint32_t c = 0; c < tiles; ++c) {  // A_QT, A_LD per tile of Q's head dim, into buffer a's slot c
    advance(1);
    load_rows(regs_.addr_a + h * regs_.head_stride_q + q0 * row + c * d, row, rows, d, {BufferSlot::kA, c},
              LoadEnd::kDrained);
  }
  // A sliding window (attention only) starts the key loop at the first query's window.
  uint32_t start = ffn() ? 0 : num::first_key_tile(regs_.causal, graph_.sliding_window(), regs_.q_pos0 + q0, tkv);
  // The K rows (all head tiles) and V rows (the block's) before the window, in each O block's loop.
  if (start > 0) sparse_["dma"].window_bytes += uint64_t(start) * row * (tiles + 1);
  // Block TopK: the loop visits the kept candidates, then the query tile's own tiles.
  const num::KeyTileChoice choice =
      num::key_tile_candidates(regs_.causal, graph_.sliding_window(), regs_.q_pos0 + q0, tkv, regs_.len_kv);
  const bool ranked = graph_.sparse.group.present && !ffn();
  const std::vector<bool> kept = ranked ? rank_key_tiles(hk, rows, choice) : std::vector<bool>{};
  if (ranked) start = next_key_tile(kept, choice, choice.first == 0 ? uint32_t(-1) : choice.first - 1) * tkv;
  // O one column block of d at a time, each a key loop of its own (A_QNEXT starts the next).
  for (uint32_t block = 0; block < tiles; ++block) {
    key_loop(hk, q0, rows, start, block, kept, choice);
    const uint32_t x_slot = tiles > 1 ? tiles : 0;  // the residual's block: beside Q's tiles
    if (regs_.residual)
      load_rows(regs_.addr_x + h * regs_.head_stride_q + q0 * row + block * d, row, rows, d, {BufferSlot::kA, x_slot},
                LoadEnd::kDrained);
    store_o_rows(h, q0, rows, block, x_slot);
    advance(1);  // A_QNEXT
  }
}

uint32_t TileSequencer::next_key_tile(const std::vector<bool>& kept, const num::KeyTileChoice& choice,
                                      uint32_t jt) const {
  if (!kept.empty())
    for (uint32_t t = jt + 1; t < choice.own; ++t)
      if (kept[t]) return t;
  return !kept.empty() ? std::max(jt + 1, choice.own) : jt + 1;
}

void TileSequencer::key_loop(uint32_t hk, uint32_t q0, uint32_t rows, uint32_t start, uint32_t block,
                             const std::vector<bool>& kept, const num::KeyTileChoice& choice) {
  const uint32_t tkv = plan_.spec.tile_n, d = plan_.spec.tile_k;
  const uint32_t tiles = ffn() ? 1 : regs_.head_tiles(), row = tiles * d;
  const uint32_t last_q = regs_.q_pos0 + q0 + rows - 1;
  bool first_kv = true;
  for (uint32_t j0 = start;; j0 = next_key_tile(kept, choice, j0 / tkv) * tkv) {
    const uint32_t kv_rows = std::min<uint32_t>(tkv, regs_.len_kv - j0);
    const uint32_t kv_base = hk * regs_.head_stride_kv + j0 * row;
    if (!ffn()) {
      // Attention: S = sum over the head dim's tiles of Q_c K_c^T (A_KT, A_S per tile). The
      // last tile's pass issues the V rows of O's column block from its second cycle (its first
      // sets them going), into their cache slot or the V working slot, beside S and the
      // softmax; A_VLD waits for their bursts.
      uint32_t v_slot = 0;
      for (uint32_t c = 0; c < tiles; ++c) {
        advance(1);  // A_KT
        const uint32_t k_slot =
            fetch_kv_tile(k_cache_, regs_.addr_b + kv_base + c * d, row, hk, j0 / tkv, kv_rows, 0, LoadEnd::kDrained);
        // A weight-stationary array a holds the key tile (new every pass); an input-stationary
        // one the query tile, loaded once per query tile (per pass over several head tiles).
        const bool reload_a = plan_.stationarity == Stationarity::kWeight || first_kv || tiles > 1;
        const uint64_t s_start = cursor();
        if (c + 1 == tiles) {
          set_cursor(s_start + 1);
          v_slot = fetch_kv_tile(v_cache_, regs_.addr_v + kv_base + block * d, row, hk, j0 / tkv, kv_rows,
                                 graph_.fused_b_slots() - 1, LoadEnd::kIssued);
          set_cursor(s_start);
        }
        scores(reload_a, k_slot, c);
      }
      softmax(q0, j0, first_kv);
      set_cursor(std::max(cursor(), reads_done_from()));
      advance(1);  // A_VLD
      update_o(first_kv, v_slot);
    } else {
      advance(1);  // A_KT
      const uint32_t k_slot =
          fetch_kv_tile(k_cache_, regs_.addr_b + kv_base, row, hk, j0 / tkv, kv_rows, 0, LoadEnd::kDrained);
      scores(plan_.stationarity == Stationarity::kWeight || first_kv, k_slot, 0);
      activation(j0, false);
      if (regs_.gated) {
        advance(1);  // A_GLD: gate weights are not cached
        load_rows(regs_.addr_w3 + kv_base, d, kv_rows, d, {BufferSlot::kB, 0}, LoadEnd::kDrained);
        scores(plan_.stationarity == Stationarity::kWeight, 0, 0);
        activation(j0, true);
      }
      advance(1);  // A_VLD
      update_o(first_kv,
               fetch_kv_tile(v_cache_, regs_.addr_v + kv_base, row, hk, j0 / tkv, kv_rows, 0, LoadEnd::kDrained));
    }
    advance(1);  // A_KNEXT
    first_kv = false;
    const uint32_t next = next_key_tile(kept, choice, j0 / tkv) * tkv;
    if (!(next < regs_.len_kv && (!regs_.causal || next <= last_q))) break;
  }
}

uint32_t TileSequencer::fetch_kv_tile(TileCache& cache, uint32_t addr, uint32_t stride, uint32_t hk, uint32_t jt,
                                      uint32_t rows, uint32_t uncached_slot, LoadEnd end) {
  const uint32_t d = plan_.spec.tile_k;
  // The caches hold whole key tiles of one tile of the head dim: a wider head reloads them.
  const bool cacheable = jt < cache.tiles && (ffn() || regs_.head_tiles() == 1);
  const uint32_t slot = cacheable ? cache.first_slot + jt : uncached_slot;
  if (!cacheable) {
    if (cache.tiles > 0) ++activity_[cache.block].misses;  // beyond the cache's tiles
    load_rows(addr, stride, rows, d, {BufferSlot::kB, slot}, end);
    return slot;
  }
  BlockActivity& act = activity_[cache.block];
  if (cache.tag == hk && cache.valid[jt]) {
    ++act.hits;
    act.operand_bytes += uint64_t(rows) * d;
    return slot;
  }
  ++act.misses;
  if (cache.tag != hk) cache.valid.assign(cache.tiles, false);
  cache.tag = hk;
  cache.valid[jt] = true;
  load_rows(addr, stride, rows, d, {BufferSlot::kB, slot}, end);
  return slot;
}

}  // namespace fsgen
