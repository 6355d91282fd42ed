// The interface of the PE arrays' vectorised cycle models (each in its kind's folder:
// blocks/pe_array_os, blocks/pe_array_dot, blocks/sparse_net). run_tile() executes one
// tile's array phases in a loop, reports every probed register update with its cycle, and
// returns the number of cycles the phases take, so the controller advances time once per
// tile.
//
// An array computes C[m][n] (+)= sum_k A[m][k] B[k][n] over one tile. The operands are
// views into the controller's buffers, so the same array serves matmul (row-major A and
// B tiles), attention scores (B = K^T, a transposed view of the K rows) and O = P V.
#pragma once
#include <cstdint>
#include <memory>
#include <vector>

#include "core/attention_numerics.h"
#include "generator/graph.h"
#include "models/run_result.h"

namespace fsgen {

// Element (r, c) of a tile operand is data[r * row_stride + c * col_stride].
struct TileView {
  const uint8_t* data;
  uint32_t row_stride, col_stride;
  static TileView row_major(const uint8_t* d, uint32_t cols) { return {d, cols, 1}; }
  static TileView transposed(const uint8_t* d, uint32_t rows_of_stored) { return {d, 1, rows_of_stored}; }
  uint8_t at(uint32_t r, uint32_t c) const { return data[size_t(r) * row_stride + size_t(c) * col_stride]; }
  // The view of the sub-tile whose element (0, 0) is this view's (r, c).
  TileView offset(uint32_t r, uint32_t c) const {
    return {data + size_t(r) * row_stride + size_t(c) * col_stride, row_stride, col_stride};
  }
};

// Where a dot array's output tile lives: the accumulator cache, rows row_stride apart
// (an array smaller than the tile it serves writes a sub-tile of it).
struct AccTile {
  int32_t* data;
  uint32_t row_stride;
};

// What a tile does with the partial sums already in its output tile.
enum class Accumulate {
  kClear,    // start from zero (first k tile, score tiles)
  kAdd,      // add to them (later k tiles)
  kRescale,  // multiply row i by alpha[i] (Q0.15, online softmax), then add
};

class PeArrayModel {
 public:
  virtual ~PeArrayModel() = default;
  // cycle0: the first cycle of the phase after the loads. acc: the output tile
  // (tile_m x tile_n INT32) in the accumulator cache for dot arrays, unused by
  // output-stationary arrays which accumulate in their PEs. alpha: tile_m factors for
  // Accumulate::kRescale.
  virtual uint64_t run_tile(uint64_t cycle0, TileView a, TileView b, bool reload_stationary, Accumulate mode,
                            const uint32_t* alpha, AccTile acc) = 0;
  // The first `cols` INT32 values of row r of the finished output (an output-stationary
  // array holds tile_n of them in its PEs; a dot array's come from acc).
  virtual void read_row(uint32_t r, AccTile acc, uint32_t cols, int32_t* out) const = 0;
};

// The partial sum a tile's first step starts from (fsgen_array_os.v / fsgen_acc_cache.v).
inline int32_t accumulate_base(int32_t old, Accumulate mode, uint32_t alpha) {
  switch (mode) {
    case Accumulate::kClear: return 0;
    case Accumulate::kAdd: return old;
    case Accumulate::kRescale: return num::rescale_q15(old, alpha);
  }
  return old;
}

// The model of the array `block` of the graph (its kind's: blocks/pe_array_os/model.h,
// blocks/pe_array_dot/model.h, blocks/sparse_net/model.h), wired to its probes and activity.
std::unique_ptr<PeArrayModel> make_pe_array_model(const ArrayPlan& plan, RunResult& result,
                                                  const std::string& block);

class RtlPorts;
class RtlBlockMonitor;
// The array as its Verilated RTL `rtl` (a mixed-level run), its cycle model beside it as the
// reference; throws UserError for an array kind with no RTL model.
std::unique_ptr<PeArrayModel> make_rtl_pe_array_model(const ArrayPlan& plan, RunResult& result,
                                                      const std::string& block, RtlPorts& rtl,
                                                      RtlBlockMonitor& monitor);

}  // namespace fsgen
