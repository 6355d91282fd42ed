// The matmul kernel's loop (fsgen_ctrl.v's S_* states) and its compressed operand tiles
// (fsgen_ctrl_meta.v): the models' side of the controller's matmul sequencing.
#include "blocks/ctrl/sequencer.h"
#include "core/compression.h"

namespace fsgen {

// The loop nest of the spec's loop order over (m, n, k) tiles; an operand tile is
// loaded only when its indices change, the output tile stored after its last k tile.
void TileSequencer::matmul_schedule() {
  const ArraySpec& a = plan_.spec;
  const uint32_t bounds[3] = {regs_.tiles_m, regs_.tiles_n, regs_.tiles_k};
  const uint32_t b0 = bounds[int(a.loop_order[0])], b1 = bounds[int(a.loop_order[1])],
                 b2 = bounds[int(a.loop_order[2])];
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
          load_b_tile(kt, nt);
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

// B's tile (kt, nt): tile_k rows of its columns, or, given transposed, tile_n rows of B^T.
void TileSequencer::load_b_tile(uint32_t kt, uint32_t nt) {
  const ArraySpec& a = plan_.spec;
  if (b_transposed())
    return load_rows(regs_.addr_b + nt * tile_n_ * regs_.stride_b + kt * a.tile_k, regs_.stride_b, tile_n_, a.tile_k,
                     {BufferSlot::kB, 0, true});
  load_operand_tile("w", regs_.addr_meta_b, kt * regs_.tiles_n + nt,
                    regs_.addr_b + kt * a.tile_k * regs_.stride_b + nt * tile_n_, regs_.stride_b, a.tile_k, tile_n_,
                    {BufferSlot::kB});
}

void TileSequencer::load_operand_tile(const char* tensor, uint32_t meta_base, uint32_t record, uint32_t addr,
                                      uint32_t stride, uint32_t rows, uint32_t row_bytes, BufferSlot dst) {
  if (!graph_.sparse.memory.compresses(tensor)) return load_rows(addr, stride, rows, row_bytes, dst);
  const uint32_t rec = metadata_record_bytes(rows, graph_.memory.beat_bytes);
  load_compressed_rows(meta_base + record * rec, rec, addr, stride, rows, row_bytes, dst);
}

}  // namespace fsgen
