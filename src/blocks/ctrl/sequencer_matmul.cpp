// The matmul kernel's loader and pass machine (fsgen_ctrl.v's L_* and S_* states) and its
// compressed operand tiles (fsgen_ctrl_meta.v): the models' side of the controller's matmul
// sequencing.
#include <algorithm>
#include <vector>

#include "blocks/ctrl/sequencer.h"
#include "core/compression.h"

namespace fsgen {

namespace {

// The tile loops in the spec's order, outermost first (fsgen_ctrl_walk.v).
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
// tagged by its two tile indices; a tile not held goes to the slot after the last one filled,
// once no pass reads that slot (free_from).
class OperandSlots {
 public:
  explicit OperandSlots(uint32_t n) : tags_(n), free_from_(n, 0) {}
  // The slot holding tile (i, j), or -1.
  int find(uint32_t i, uint32_t j) const {
    for (size_t s = 0; s < tags_.size(); ++s)
      if (tags_[s].valid && tags_[s].i == i && tags_[s].j == j) return int(s);
    return -1;
  }
  uint32_t next() const { return next_; }
  // The first cycle in which no pass reads slot s; a pass reading it ends before `cycle`.
  uint64_t free_from(uint32_t s) const { return free_from_[s]; }
  void read_until(uint32_t s, uint64_t cycle) { free_from_[s] = cycle; }
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
  std::vector<uint64_t> free_from_;
  uint32_t next_ = 0;
};

}  // namespace

// The matmul kernel's two machines (fsgen_ctrl.v), each on its own cursor over the loop nest
// of the spec's loop order, the output tile stored after its last k tile:
//  - the loader: L_LOOK (a cycle), then each operand tile no slot holds loads into the ring's
//    next slot once no pass reads that slot any more (its rows issued, not drained), then
//    L_PUSH (a cycle, once the queue of FD tiles has room) queues the tile;
// With the activation epilogue the table loads first (A_LUT, A_LD), then both machines start.
//  - the pass machine: S_TILE until the tile is queued and every read burst issued before it
//    was queued is done, then S_COMP (the pass), S_ST (the store) after the last k tile, S_NEXT.
// The loader's step for tile i depends only on the passes of the tiles before it, so the
// machines are timed tile by tile: the loader's step, then the pass.
void TileSequencer::matmul_schedule() {
  const ArraySpec& a = plan_.spec;
  const bool m_live = a.m_inside_k(), n_live = a.n_inside_k();
  constexpr uint32_t kQueue = 4;  // fsgen_ctrl.v's FD
  OperandSlots as(graph_.a_slots), bs(graph_.b_slots);
  std::vector<uint64_t> queue_free(kQueue, 0);  // the first cycle in which a queue entry is free
  auto wait_until = [this](uint64_t cycle) {
    if (cursor() < cycle) set_cursor(cycle);
  };
  // The slot holding tile (i, j), or the ring's next once free, its rows loaded by `load`.
  auto slot_of = [&](OperandSlots& slots, uint32_t i, uint32_t j, auto&& load) {
    const int held = slots.find(i, j);
    if (held >= 0) return uint32_t(held);
    wait_until(slots.free_from(slots.next()));
    load(slots.next());
    return slots.fill(i, j);
  };
  if (mm_act()) load_activation_table();
  uint64_t loader = cursor(), pass = cursor();  // each machine's next cycle
  bool first = true;
  uint32_t pm = 0, pn = 0, pk = 0, tile = 0;  // the previous pass's tile: its A is (m, k), its B (k, n)
  for (TileLoop t(a, regs_);; t = t.next(), ++tile) {
    const uint32_t mt = t.at(Iter::kM), nt = t.at(Iter::kN), kt = t.at(Iter::kK);
    set_cursor(loader);
    advance(1);  // L_LOOK
    const uint32_t sa = slot_of(as, mt, kt, [&](uint32_t s) { load_a_tile(mt, kt, s); });
    const uint32_t sb = slot_of(bs, kt, nt, [&](uint32_t s) { load_b_tile(kt, nt, s); });
    wait_until(queue_free[tile % kQueue]);
    const uint64_t queued = cursor(), bursts_done = reads_done_from();
    advance(1);  // L_PUSH
    loader = cursor();

    const uint64_t taken = std::max({pass, queued + 1, bursts_done});  // S_TILE's last cycle
    queue_free[tile % kQueue] = taken + 1;
    set_cursor(taken + 1);
    const bool a_new = first || mt != pm || kt != pk, b_new = first || kt != pk || nt != pn;
    first = false;
    pm = mt, pn = nt, pk = kt;
    const bool reload =
        (plan_.stationarity == Stationarity::kWeight && b_new) || (plan_.stationarity == Stationarity::kInput && a_new);
    matmul_tile(reload, kt, (m_live ? mt : 0) * (n_live ? regs_.tiles_n : 1) + (n_live ? nt : 0), sa, sb);
    as.read_until(sa, cursor());
    bs.read_until(sb, cursor());
    if (kt == regs_.tiles_k - 1) {
      if (mm_gated() && nt % 2 == 0)
        hold_activations();  // S_ACT: a W1 tile
      else
        store_tile(mt, nt);
    }
    advance(1);  // S_NEXT
    pass = cursor();
    if (t.last()) break;
  }
  advance(1);  // DONE
}

// A's tile (mt, kt) into buffer slot `slot`.
void TileSequencer::load_a_tile(uint32_t mt, uint32_t kt, uint32_t slot) {
  const ArraySpec& a = plan_.spec;
  const uint32_t rows = matmul_rows(mt);  // the rows past M are not fetched
  load_operand_tile("x", regs_.addr_meta_a, mt * regs_.tiles_k + kt,
                    regs_.addr_a + mt * a.tile_m * regs_.stride_a + kt * a.tile_k, regs_.stride_a, rows, a.tile_k,
                    {BufferSlot::kA, slot});
  if (rows < a.tile_m) zero_rows({BufferSlot::kA, slot}, rows, a.tile_m, a.tile_k);
}

// B's tile (kt, nt) into matmul buffer slot `slot`: tile_k rows of its columns, or, given
// transposed, tile_n rows of B^T.
void TileSequencer::load_b_tile(uint32_t kt, uint32_t nt, uint32_t slot) {
  const ArraySpec& a = plan_.spec;
  if (b_transposed())
    return load_rows(regs_.addr_b + nt * tile_n_ * regs_.stride_b + kt * a.tile_k, regs_.stride_b, tile_n_, a.tile_k,
                     {BufferSlot::kMatmulB, slot, true}, LoadEnd::kIssued);
  load_operand_tile("w", regs_.addr_meta_b, kt * regs_.tiles_n + nt,
                    regs_.addr_b + kt * a.tile_k * regs_.stride_b + nt * tile_n_, regs_.stride_b, a.tile_k, tile_n_,
                    {BufferSlot::kMatmulB, slot});
}

void TileSequencer::load_operand_tile(const char* tensor, uint32_t meta_base, uint32_t record, uint32_t addr,
                                      uint32_t stride, uint32_t rows, uint32_t row_bytes, BufferSlot dst) {
  if (!graph_.sparse.memory.compresses(tensor)) return load_rows(addr, stride, rows, row_bytes, dst, LoadEnd::kIssued);
  const uint32_t rec = metadata_record_bytes(rows, graph_.memory.beat_bytes);
  load_compressed_rows(meta_base + record * rec, rec, addr, stride, rows, row_bytes, dst);
}

}  // namespace fsgen
