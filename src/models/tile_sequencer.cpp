#include "models/tile_sequencer.h"

#include <algorithm>

#include "core/attention_numerics.h"
#include "core/compression.h"
#include "core/regmap.h"

namespace fsgen {

TileSequencer::TileSequencer(const Graph& g, std::map<std::string, BlockActivity>& activity,
                             std::map<std::string, SparseActivity>& sparse)
    : graph_(g), plan_(g.array_a), tile_n_(g.matmul_tile_n()), activity_(activity), sparse_(sparse) {
  k_cache_ = {"k_cache", 1, g.k_cache_tiles, 0, {}};
  v_cache_ = {"v_cache", 1 + g.k_cache_tiles, g.v_cache_tiles, 0, {}};
}

void TileSequencer::run_schedule(const KernelRegs& regs) {
  regs_ = regs;
  const bool fused = regs.kernel == static_cast<uint32_t>(reg::Kernel::kAttention) ||
                     regs.kernel == static_cast<uint32_t>(reg::Kernel::kFfn);
  if (graph_.attention && fused)
    fused_schedule();
  else
    matmul_schedule();
}

// The loop nest of the spec's loop order over (m, n, k) tiles; an operand tile is
// loaded only when its indices change, the output tile stored after its last k tile.
void TileSequencer::matmul_schedule() {
  const ArraySpec& a = plan_.spec;
  const uint32_t bounds[3] = {regs_.tiles_m, regs_.tiles_n, regs_.tiles_k};
  const uint32_t b0 = bounds[int(a.loop_order[0])], b1 = bounds[int(a.loop_order[1])], b2 = bounds[int(a.loop_order[2])];
  const bool m_live = a.m_inside_k(), n_live = a.n_inside_k();
  bool first = true;
  uint32_t la_m = 0, la_k = 0, lb_k = 0, lb_n = 0;
  uint32_t idx[3];
  for (idx[0] = 0; idx[0] < b0; ++idx[0])
    for (idx[1] = 0; idx[1] < b1; ++idx[1])
      for (idx[2] = 0; idx[2] < b2; ++idx[2]) {
        uint32_t it[3];
        for (int l = 0; l < 3; ++l) it[int(a.loop_order[l])] = idx[l];
        const uint32_t mt = it[0], nt = it[1], kt = it[2];
        const bool need_a = first || mt != la_m || kt != la_k;
        const bool need_b = first || kt != lb_k || nt != lb_n;
        first = false;
        advance(1);  // TILE
        if (need_a) {
          load_operand_tile("x", regs_.addr_meta_a, mt * regs_.tiles_k + kt,
                            regs_.addr_a + mt * a.tile_m * regs_.stride_a + kt * a.tile_k, regs_.stride_a, a.tile_m,
                            a.tile_k, {BufferSlot::kA});
          la_m = mt;
          la_k = kt;
        }
        if (need_b) {
          load_operand_tile("w", regs_.addr_meta_b, kt * regs_.tiles_n + nt,
                            regs_.addr_b + kt * a.tile_k * regs_.stride_b + nt * tile_n_, regs_.stride_b, a.tile_k,
                            tile_n_, {BufferSlot::kB});
          lb_k = kt;
          lb_n = nt;
        }
        const bool reload = (plan_.stationarity == Stationarity::kWeight && need_b) ||
                            (plan_.stationarity == Stationarity::kInput && need_a);
        matmul_tile(reload, kt, (m_live ? mt : 0) * (n_live ? regs_.tiles_n : 1) + (n_live ? nt : 0));
        if (kt == regs_.tiles_k - 1) store_tile(mt, nt);
        advance(1);  // NEXT
      }
  advance(1);  // DONE
}

void TileSequencer::load_operand_tile(const char* tensor, uint32_t meta_base, uint32_t record, uint32_t addr,
                                      uint32_t stride, uint32_t rows, uint32_t row_bytes, BufferSlot dst) {
  if (!graph_.sparse.memory.compresses(tensor)) return load_rows(addr, stride, rows, row_bytes, dst);
  const uint32_t rec = metadata_record_bytes(rows, graph_.memory.beat_bytes);
  load_compressed_rows(meta_base + record * rec, rec, addr, stride, rows, row_bytes, dst);
}

void TileSequencer::fused_schedule() {
  const uint32_t tq = plan_.spec.tile_m;
  k_cache_.valid.assign(k_cache_.tiles, false);
  v_cache_.valid.assign(v_cache_.tiles, false);
  if (ffn()) {
    advance(1);  // A_LUT
    load_rows(regs_.addr_lut, plan_.spec.tile_k, 256 / plan_.spec.tile_k, plan_.spec.tile_k, {BufferSlot::kLut});
  }
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
  const uint32_t rows = std::min<uint32_t>(tq, regs_.len_q - q0);
  advance(1);  // A_QT
  load_rows(regs_.addr_a + h * regs_.head_stride_q + q0 * d, d, rows, d, {BufferSlot::kA});
  const uint32_t last_q = regs_.q_pos0 + q0 + rows - 1;
  // A sliding window (attention only) starts the key loop at the first query's window.
  uint32_t start = ffn() ? 0 : num::first_key_tile(regs_.causal, graph_.sliding_window(), regs_.q_pos0 + q0, tkv);
  if (start > 0) sparse_["dma"].window_bytes += 2ull * start * d;  // the K and V rows before the window
  // Block TopK: the loop visits the kept candidates, then the query tile's own tiles.
  const num::KeyTileChoice choice =
      num::key_tile_candidates(regs_.causal, graph_.sliding_window(), regs_.q_pos0 + q0, tkv, regs_.len_kv);
  const bool ranked = graph_.sparse.group.present && !ffn();
  const std::vector<bool> kept = ranked ? rank_key_tiles(hk, rows, choice) : std::vector<bool>{};
  auto next_tile = [&](uint32_t jt) {
    if (ranked)
      for (uint32_t t = jt + 1; t < choice.own; ++t)
        if (kept[t]) return t;
    return ranked ? std::max(jt + 1, choice.own) : jt + 1;
  };
  if (ranked) start = next_tile(choice.first == 0 ? uint32_t(-1) : choice.first - 1) * tkv;
  bool first_kv = true;
  for (uint32_t j0 = start;; j0 = next_tile(j0 / tkv) * tkv) {
    const uint32_t kv_rows = std::min<uint32_t>(tkv, regs_.len_kv - j0);
    const uint32_t kv_base = hk * regs_.head_stride_kv + j0 * d;
    advance(1);  // A_KT
    const uint32_t k_slot = fetch_kv_tile(k_cache_, regs_.addr_b + kv_base, hk, j0 / tkv, kv_rows);
    // A weight-stationary array a holds the key tile (new every time); an input-stationary
    // one holds the query tile, loaded once per query tile.
    scores(plan_.stationarity == Stationarity::kWeight || first_kv, k_slot);
    if (ffn()) {
      activation(j0, false);
      if (regs_.gated) {
        advance(1);  // A_GLD: gate weights are not cached
        load_rows(regs_.addr_w3 + kv_base, d, kv_rows, d, {BufferSlot::kB, 0});
        scores(plan_.stationarity == Stationarity::kWeight, 0);
        activation(j0, true);
      }
    } else {
      softmax(q0, j0, first_kv);
    }
    advance(1);  // A_VLD
    update_o(first_kv, fetch_kv_tile(v_cache_, regs_.addr_v + kv_base, hk, j0 / tkv, kv_rows));
    advance(1);  // A_KNEXT
    first_kv = false;
    const uint32_t next = next_tile(j0 / tkv) * tkv;
    if (!(next < regs_.len_kv && (!regs_.causal || next <= last_q))) break;
  }
  if (regs_.residual) load_rows(regs_.addr_x + h * regs_.head_stride_q + q0 * d, d, rows, d, {BufferSlot::kA});
  store_o_rows(h, q0, rows);
  advance(1);  // A_QNEXT
}

std::vector<bool> TileSequencer::rank_key_tiles(uint32_t hk, uint32_t rows, const num::KeyTileChoice& c) {
  const uint32_t tkv = plan_.spec.tile_n, d = plan_.spec.tile_k;
  const uint32_t tiles = (regs_.len_kv + tkv - 1) / tkv;
  std::vector<int32_t> scores;
  for (uint32_t jt = c.first; jt < c.own; ++jt) {
    advance(1);  // A_TKI
    load_rows(regs_.addr_pool + (hk * tiles + jt) * d, d, 1, d, {BufferSlot::kPool});
    scores.push_back(key_tile_score(rows));
    advance(1);  // A_TKC
  }
  advance(1);  // A_TKI: no candidate left
  const uint32_t topk = graph_.sparse.group.topk;
  const std::vector<uint32_t> chosen = num::top_key_tiles(scores, c.first, topk);
  advance(chosen.size() + 1);  // A_TKS: one pick per cycle, then the key loop
  std::vector<bool> kept(std::max(tiles, c.own), false);
  for (uint32_t jt : chosen) kept[jt] = true;
  SparseActivity& dma = sparse_["dma"];
  dma.pool_bytes += uint64_t(c.own - c.first) * d;
  for (uint32_t jt = c.first; jt < c.own; ++jt)  // the K and V rows of tiles passed over
    if (!kept[jt]) dma.topk_bytes += 2ull * std::min(tkv, regs_.len_kv - jt * tkv) * d;
  return kept;
}

uint32_t TileSequencer::fetch_kv_tile(TileCache& cache, uint32_t addr, uint32_t hk, uint32_t jt, uint32_t rows) {
  const uint32_t d = plan_.spec.tile_k;
  const bool cacheable = jt < cache.tiles;
  const uint32_t slot = cacheable ? cache.first_slot + jt : 0;
  if (!cacheable) {
    if (cache.tiles > 0) ++activity_[cache.block].misses;  // beyond the cache's tiles
    load_rows(addr, d, rows, d, {BufferSlot::kB, slot});
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
  load_rows(addr, d, rows, d, {BufferSlot::kB, slot});
  return slot;
}

}  // namespace fsgen
