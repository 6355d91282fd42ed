// The controller's schedule (fsgen_ctrl.v), written once for every model of the core:
// the tile loops of the matmul kernel and of the fused attention / FFN kernels, the
// K/V tile caches' hit logic and the cycles of the controller's own states. Each of the
// controller's Verilog units has its counterpart here, in the same block folder:
//   fsgen_ctrl.v        S_IDLE's dispatch       run_schedule        ctrl/sequencer.cpp
//                       the L_* loader and       matmul_schedule     ctrl/sequencer_matmul.cpp
//                       S_* pass states
//   fsgen_ctrl_meta.v   compressed operands      load_operand_tile   ctrl/sequencer_matmul.cpp
//   fsgen_ctrl_rows.v   row loads and stores     the executors' load_rows / store hooks, timed
//                                                by row_transfers.h on DmaReads / DmaWrites
//                       the A_* fused states     fused_schedule      fused_ctrl/sequencer_fused.cpp
//   fsgen_ctrl_topk.v   block TopK               rank_key_tiles      fused_ctrl/sequencer_topk.cpp
//   fsgen_ctrl_window.v the sparse window        the sparse array's model, sparse_net/model.cpp
//
// What a phase does and how long it takes belongs to the executor that derives from
// this class: the SystemC core (FusedCore) moves and computes data through its DMA
// and PE array models cycle by cycle; the fast model (FastCore) adds up each phase's
// cycles from the same timing functions (tile_cycles(), MemoryTiming) without data.
// Hooks are called in each of the controller's machines' order; each advances the
// executor's time (its cursor) by the phase's cycles. Where two machines run at once (the
// matmul loader and pass machine, attention's V load beside its score pass) the sequencer
// moves the cursor between them, never before a cycle the executor has waited for.
#pragma once
#include <algorithm>
#include <cstdint>
#include <functional>
#include <map>
#include <string>
#include <vector>

#include "blocks/ctrl/row_transfers.h"
#include "core/attention_numerics.h"
#include "generator/graph.h"
#include "models/kernel_regs.h"
#include "models/run_result.h"

namespace fsgen {

// Where a load lands: slot `slot` of operand buffer a (the matmul's double buffer; the fused
// kernels use slot 0), slot `slot` of buf_b in the fused kernels (slot 0 is the working tile,
// the K and V cache slots follow, tile_n x tile_k bytes each), slot `slot` of buf_b in
// matmul (kMatmulB: a B tile of tile_k x Graph::matmul_tile_n bytes each), or the FFN
// activation table.
struct BufferSlot {
  enum Kind { kA, kB, kMatmulB, kLut, kPool } kind;  // kPool: a pooled key (block TopK)
  uint32_t slot = 0;
  // The rows land as the buffer's columns (B^T: byte j of row r at j x columns + r).
  bool transposed = false;
};

// A K or V tile cache of the fused kernels (fsgen_ctrl.v, k_valid / v_valid): slot t of
// buf_b, from first_slot on, holds key tile t of KV head `tag`.
struct TileCache {
  std::string block;  // activity entry for hit / miss counts
  uint32_t first_slot = 0, tiles = 0;
  uint32_t tag = 0;
  std::vector<bool> valid;
};

class TileSequencer {
 public:
  TileSequencer(const Graph& g, std::map<std::string, BlockActivity>& activity,
                std::map<std::string, SparseActivity>& sparse);
  virtual ~TileSequencer() = default;

 protected:
  // One kernel from the controller leaving IDLE to its DONE state.
  void run_schedule(const KernelRegs& regs);
  bool ffn() const { return regs_.kernel == 2; }
  // B given transposed (mm_flags bit0), unless the core's B is compressed (fsgen_ctrl.v, bt).
  bool b_transposed() const { return regs_.b_transposed && !graph_.sparse.memory.compresses("w"); }
  // The matmul's activation epilogue (mm_flags bit1, fsgen_ctrl.v's mm_act): built with the
  // fused datapath when a matmul tile is array a's alone; gated (bit2), B's n tiles in W1 / W3
  // pairs, an even tile's activations held (hold_activations), the odd one's gate product stored.
  bool mm_act() const { return graph_.attention && !graph_.matmul_on_both && regs_.mm_act; }
  bool mm_gated() const { return mm_act() && regs_.mm_gated; }

  // ---- executor hooks
  virtual void advance(uint64_t cycles) = 0;  // controller-only states
  // The executor's current cycle, and moving it (back to a phase's start, for a lane that
  // runs beside the one just timed; never before a cycle the executor has waited for).
  virtual uint64_t cursor() const = 0;
  virtual void set_cursor(uint64_t cycle) = 0;
  // One read burst per row (row_transfers.h): `rows` rows of `row_bytes` bytes,
  // `stride` bytes apart in memory from `addr`, packed into `dst`; the transfer ends as
  // `end` says (the matmul loader's when its last row is taken, the others drained).
  virtual void load_rows(uint32_t addr, uint32_t stride, uint32_t rows, uint32_t row_bytes, BufferSlot dst,
                         LoadEnd end) = 0;
  // A compressed operand tile of the matmul loader (memory-value sparsity,
  // src/core/compression.h): its metadata record (one burst of meta_bytes, drained), then
  // each row: a marked row as in load_rows (LoadEnd::kIssued), an all-zero row cleared in
  // the buffer in its ISSUE cycle without the DMA.
  virtual void load_compressed_rows(uint32_t meta_addr, uint32_t meta_bytes, uint32_t addr, uint32_t stride,
                                    uint32_t rows, uint32_t row_bytes, BufferSlot dst) = 0;
  // Rows from..rows-1 of `dst`, `row_bytes` each, read as zeros by the passes (the rows of
  // an A tile past the matmul's M, never fetched: fsgen_ctrl.v masks its feeds); no cycles.
  virtual void zero_rows(BufferSlot dst, uint32_t from, uint32_t rows, uint32_t row_bytes) = 0;
  // The first cycle in which every read burst issued so far is done (the controller's
  // rd_done has caught up with rd_issued).
  virtual uint64_t reads_done_from() const = 0;
  // Matmul: one tile's compute on array a (and b, with matmul on both arrays) into
  // accumulator slot `acc_slot`, its operands in buffer slots a_slot and b_slot; then,
  // after the last k tile, its store.
  virtual void matmul_tile(bool reload_stationary, uint32_t kt, uint32_t acc_slot, uint32_t a_slot,
                           uint32_t b_slot) = 0;
  virtual void store_tile(uint32_t mt, uint32_t nt) = 0;
  // S_ACT (gated epilogue): the output tile's rows through the activation unit into its
  // held activations (p_buf), one row per cycle, then a pipeline cycle; nothing stored.
  virtual void hold_activations() = 0;
  // Fused kernels: S = Q K^T on array a with K in buf_b slot b_slot and Q's head tile
  // `head_tile` in buffer a's slot of that number (S cleared by tile 0, accumulated by the
  // others); the softmax (or activation) unit's pass over S; O update on array b with V in
  // slot b_slot; the normalised (or requantised) O rows of query tile q0 of head h written
  // back, as O's column block `block` (the residual's block in buffer a's slot x_slot).
  virtual void scores(bool reload_stationary, uint32_t b_slot, uint32_t head_tile) = 0;
  virtual void softmax(uint32_t q0, uint32_t j0, bool first_kv) = 0;
  virtual void activation(uint32_t j0, bool gate_pass) = 0;
  virtual void update_o(bool first_kv, uint32_t b_slot) = 0;
  virtual void store_o_rows(uint32_t h, uint32_t q0, uint32_t rows, uint32_t block, uint32_t x_slot) = 0;
  // Block TopK: the score of the pooled key just loaded against the `rows` query rows in
  // buffer a (num::key_tile_score).
  virtual int32_t key_tile_score(uint32_t rows) = 0;

  // Rows of A and C in matmul m tile mt: tile_m, or fewer in the last tile when the
  // matmul's M (len_q) is not a whole number of tiles.
  uint32_t matmul_rows(uint32_t mt) const {
    const uint32_t tm = plan_.spec.tile_m;
    return regs_.len_q == 0 ? tm : std::min(tm, uint32_t(regs_.len_q) - mt * tm);
  }

  const Graph& graph_;
  const ArrayPlan& plan_;
  const uint32_t tile_n_;  // columns of a matmul tile (Graph::matmul_tile_n)
  KernelRegs regs_{};

 private:
  // The matmul loop (sequencer_matmul.cpp).
  void matmul_schedule();
  // One matmul operand tile (`tensor` x or w): whole, or, when compressed, by its metadata
  // record number `record` of the table at meta_base (src/core/compression.h).
  void load_a_tile(uint32_t mt, uint32_t kt, uint32_t slot);
  void load_b_tile(uint32_t kt, uint32_t nt, uint32_t slot);
  void load_operand_tile(const char* tensor, uint32_t meta_base, uint32_t record, uint32_t addr, uint32_t stride,
                         uint32_t rows, uint32_t row_bytes, BufferSlot dst);
  // The activation table of the FFN and of a matmul's epilogue (A_LUT, A_LD).
  void load_activation_table();
  // The fused kernels' loop (src/blocks/fused_ctrl/sequencer_fused.cpp).
  void fused_schedule();
  void query_tile(uint32_t h, uint32_t hk, uint32_t q0);
  // The key loop of a query tile for O's column block `block` (A_KT .. A_KNEXT), from key row
  // `start`; with block TopK, over the kept tiles of `choice`.
  void key_loop(uint32_t hk, uint32_t q0, uint32_t rows, uint32_t start, uint32_t block, const std::vector<bool>& kept,
                const num::KeyTileChoice& choice);
  uint32_t next_key_tile(const std::vector<bool>& kept, const num::KeyTileChoice& choice, uint32_t jt) const;
  // Block TopK before a query tile's key loop (A_TKI, A_TKC, A_TKS; fused_ctrl/sequencer_topk.cpp):
  // per key tile, kept or not.
  std::vector<bool> rank_key_tiles(uint32_t hk, uint32_t rows, const num::KeyTileChoice& c);
  // A_KT / A_S (attention's V) / A_VLD (the FFN's): the buf_b slot that holds key tile jt of
  // KV head hk, loading its rows (`stride` bytes apart; into uncached_slot beyond the cache's
  // tiles or with a head dim of several tiles; the transfer ending as `end` says) unless the
  // cache holds the tile.
  uint32_t fetch_kv_tile(TileCache& cache, uint32_t addr, uint32_t stride, uint32_t hk, uint32_t jt, uint32_t rows,
                         uint32_t uncached_slot, LoadEnd end);

  std::map<std::string, BlockActivity>& activity_;
  std::map<std::string, SparseActivity>& sparse_;
  TileCache k_cache_, v_cache_;
};

}  // namespace fsgen
