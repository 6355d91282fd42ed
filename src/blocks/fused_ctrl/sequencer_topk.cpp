// Block TopK's ranking of key tiles before a query tile's key loop (fsgen_ctrl_topk.v, the
// fused loop's A_TKI, A_TKC and A_TKS states).
#include <algorithm>

#include "blocks/ctrl/sequencer.h"
#include "core/attention_numerics.h"

namespace fsgen {

std::vector<bool> TileSequencer::rank_key_tiles(uint32_t hk, uint32_t rows, const num::KeyTileChoice& c) {
  const uint32_t tkv = plan_.spec.tile_n, d = plan_.spec.tile_k;
  const uint32_t tiles = (regs_.len_kv + tkv - 1) / tkv;
  std::vector<int32_t> scores;
  for (uint32_t jt = c.first; jt < c.own; ++jt) {
    advance(1);  // A_TKI
    load_rows(regs_.addr_pool + (hk * tiles + jt) * d, d, 1, d, {BufferSlot::kPool}, LoadEnd::kDrained);
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

}  // namespace fsgen
