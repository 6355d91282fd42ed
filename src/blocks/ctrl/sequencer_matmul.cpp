// The matmul kernel's loop (fsgen_ctrl.v's S_* states) and its compressed operand tiles
// (fsgen_ctrl_meta.v): the models' side of the controller's matmul sequencing.
#include <algorithm>
#include <vector>

#include "blocks/ctrl/sequencer.h"
#include "core/compression.h"

namespace fsgen {

namespace {

// The tile loops in the spec's order, outermost first (fsgen_ctrl.v's c0, c1, c2).
struct TileLoop {
  uint32_t bounds[3], idx[3] = {0, 0, 0};
  Iter order[3];
  TileLoop(const ArraySpec& a, const KernelRegs& r) {
    const uint32_t dims[3] = {r.tiles_m, r.tiles_n, r.tiles_k};
    for (int l = 0; l < 3; ++l) order[l] = a.loop_order[l], bounds[l] = dims[int(a.loop_order[l])];
  }
  uint32_t at(Iter i) const {
    for (int l = 0; l < 3; ++l)
      if (order[l] == i) return idx[l];
    return 0;
  }
  bool last() const { return idx[0] + 1 == bounds[0] && idx[1] + 1 == bounds[1] && idx[2] + 1 == bounds[2]; }
  // The next tile's indices (S_NEXT's count); the last tile's is the first.
  TileLoop next() const {
    TileLoop n = *this;
    for (int l = 2; l >= 0; --l) {
      if (++n.idx[l] < bounds[l]) break;
      n.idx[l] = 0;
    }
    return n;
  }
};

// A matmul operand's buffer slots (fsgen_ctrl.v's tags ta_* / tb_*): each holds one tile,
// tagged by its two tile indices; a tile not held goes to the slot after the last one filled.
class OperandSlots {
 public:
  explicit OperandSlots(uint32_t n) : tags_(n) {}
  // The slot holding tile (i, j), or -1.
  int find(uint32_t i, uint32_t j) const {
    for (size_t s = 0; s < tags_.size(); ++s)
      if (tags_[s].valid && tags_[s].i == i && tags_[s].j == j) return int(s);
    return -1;
  }
  uint32_t next() const { return next_; }
  // Tile (i, j) goes to the next slot.
  uint32_t fill(uint32_t i, uint32_t j) {
    const uint32_t s = next_;
    tags_[s] = {i, j, true};
    next_ = (next_ + 1) % uint32_t(tags_.size());
    return s;
  }

 private:
  struct Tag {
    uint32_t i = 0, j = 0;
    bool valid = false;
  };
  std::vector<Tag> tags_;
  uint32_t next_ = 0;
};

}  // namespace

// The loop nest of the spec's loop order over (m, n, k) tiles, the output tile stored after
// its last k tile. An operand tile is loaded when no buffer slot holds it (S_LDA / S_LDB
// after S_TILE). With more than one slot, the next tile's A and B, where no slot holds them,
// load into the next slot while the pass runs (fsgen_ctrl.v's S_COMP with its prefetch), unless
// that slot is the pass's own: the state lasts as long as the longer of the two.
void TileSequencer::matmul_schedule() {
  const ArraySpec& a = plan_.spec;
  const bool m_live = a.m_inside_k(), n_live = a.n_inside_k();
  OperandSlots as(graph_.a_slots), bs(graph_.b_slots);
  bool first = true;
  uint32_t pm = 0, pn = 0, pk = 0;  // the previous pass's tile: its A is (m, k), its B (k, n)
  for (TileLoop t(a, regs_);; t = t.next()) {
    const uint32_t mt = t.at(Iter::kM), nt = t.at(Iter::kN), kt = t.at(Iter::kK);
    advance(1);  // TILE
    int sa = as.find(mt, kt), sb = bs.find(kt, nt);
    if (sa < 0) load_a_tile(mt, kt, sa = int(as.fill(mt, kt)));
    if (sb < 0) load_b_tile(kt, nt, sb = int(bs.fill(kt, nt)));
    const bool a_new = first || mt != pm || kt != pk, b_new = first || kt != pk || nt != pn;
    first = false;
    pm = mt, pn = nt, pk = kt;
    const bool reload =
        (plan_.stationarity == Stationarity::kWeight && b_new) || (plan_.stationarity == Stationarity::kInput && a_new);
    const TileLoop n = t.next();
    const uint32_t nm = n.at(Iter::kM), nn = n.at(Iter::kN), nk = n.at(Iter::kK);
    const bool pre_a = !t.last() && as.find(nm, nk) < 0 && as.next() != uint32_t(sa);
    const bool pre_b = !t.last() && bs.find(nk, nn) < 0 && bs.next() != uint32_t(sb);
    in_parallel(
        [&] {
          matmul_tile(reload, kt, (m_live ? mt : 0) * (n_live ? regs_.tiles_n : 1) + (n_live ? nt : 0), uint32_t(sa),
                      uint32_t(sb));
        },
        [&] {
          if (pre_a) load_a_tile(nm, nk, as.fill(nm, nk));
          if (pre_b) load_b_tile(nk, nn, bs.fill(nk, nn));
        });
    if (kt == regs_.tiles_k - 1) store_tile(mt, nt);
    advance(1);  // NEXT
    if (t.last()) break;
  }
  advance(1);  // DONE
}

// Two lanes from the current cycle (a pass and the loads beside it): the state ends with
// the later.
void TileSequencer::in_parallel(const std::function<void()>& compute, const std::function<void()>& memory) {
  const uint64_t start = cursor();
  compute();
  const uint64_t compute_end = cursor();
  set_cursor(start);
  memory();
  set_cursor(std::max(compute_end, cursor()));
}

// A's tile (mt, kt) into buffer slot `slot`.
void TileSequencer::load_a_tile(uint32_t mt, uint32_t kt, uint32_t slot) {
  const ArraySpec& a = plan_.spec;
  load_operand_tile("x", regs_.addr_meta_a, mt * regs_.tiles_k + kt,
                    regs_.addr_a + mt * a.tile_m * regs_.stride_a + kt * a.tile_k, regs_.stride_a, a.tile_m, a.tile_k,
                    {BufferSlot::kA, slot});
}

// B's tile (kt, nt) into matmul buffer slot `slot`: tile_k rows of its columns, or, given
// transposed, tile_n rows of B^T.
void TileSequencer::load_b_tile(uint32_t kt, uint32_t nt, uint32_t slot) {
  const ArraySpec& a = plan_.spec;
  if (b_transposed())
    return load_rows(regs_.addr_b + nt * tile_n_ * regs_.stride_b + kt * a.tile_k, regs_.stride_b, tile_n_, a.tile_k,
                     {BufferSlot::kMatmulB, slot, true});
  load_operand_tile("w", regs_.addr_meta_b, kt * regs_.tiles_n + nt,
                    regs_.addr_b + kt * a.tile_k * regs_.stride_b + nt * tile_n_, regs_.stride_b, a.tile_k, tile_n_,
                    {BufferSlot::kMatmulB, slot});
}

void TileSequencer::load_operand_tile(const char* tensor, uint32_t meta_base, uint32_t record, uint32_t addr,
                                      uint32_t stride, uint32_t rows, uint32_t row_bytes, BufferSlot dst) {
  if (!graph_.sparse.memory.compresses(tensor)) return load_rows(addr, stride, rows, row_bytes, dst);
  const uint32_t rec = metadata_record_bytes(rows, graph_.memory.beat_bytes);
  load_compressed_rows(meta_base + record * rec, rec, addr, stride, rows, row_bytes, dst);
}

}  // namespace fsgen
