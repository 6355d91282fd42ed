// pe_array_dot's cycle model (fsgen_array_dot.v): weight- or input-stationary lanes.
#include "blocks/pe_array_dot/model.h"

#include <algorithm>
#include <cstring>

#include "core/error.h"
#include "core/numerics.h"

namespace fsgen {

namespace {

// Weight-stationary (lanes = n, B loaded row by row into PE columns) or
// input-stationary (lanes = m, A loaded row by row into lanes); both reduce over k in
// each lane and write one vector of the output tile per stream step.
class DotArrayModel : public PeArrayModel {
 public:
  // compressed: the lanes' activity when they hold the non-zero weights only
  // (fsgen_array_dot.v with SLOTS < K); null for a dense array.
  DotArrayModel(const ArrayPlan& plan, ToggleProbe& x, ToggleProbe& w, ToggleProbe& y, BlockActivity& act,
                BlockActivity& acc_act, BlockTimeline& timeline, SparseActivity* compressed)
      : plan_(plan),
        weight_(plan.stationarity == Stationarity::kWeight),
        tm_(plan.spec.tile_m),
        tn_(plan.spec.tile_n),
        tk_(plan.spec.tile_k),
        lanes_(plan.y_lanes),
        s_rows_(plan.stationary_rows),
        stream_(plan.stream_cycles),
        x_probe_(x),
        w_probe_(w),
        y_probe_(y),
        act_(act),
        acc_act_(&acc_act),
        timeline_(timeline),
        compressed_(compressed),
        s_(size_t(lanes_) * tk_, 0),
        x_(tk_),
        w_(std::max(tn_, tk_)),
        y_(lanes_) {}

  uint64_t run_tile(uint64_t cycle0, TileView a, TileView b, bool reload, Accumulate mode, const uint32_t* alpha,
                    AccTile acc) override {
    uint64_t c = cycle0;
    if (reload) {
      load_stationary(c, a, b);
      if (compressed_) pack_lanes();
      timeline_.enabled.push_back({c, s_rows_});
      timeline_.side.push_back({c, s_rows_});  // the loads: the dot array primitive's side enable
      c += s_rows_;
    }
    timeline_.busy.push_back({c, stream_});
    timeline_.enabled.push_back({c, stream_});
    for (uint32_t kk = 0; kk < stream_; ++kk) {
      gather_x(kk, a, b);
      x_probe_.update(c + kk + 1, x_.data());
      record_operands(act_, timeline_, c + kk + 1, x_.data(), tk_);
      if (compressed_)
        compressed_sums();
      else
        for (uint32_t p = 0; p < lanes_; ++p) {
          int32_t sum = 0;
          const int8_t* s = s_.data() + size_t(p) * tk_;
          for (uint32_t r = 0; r < tk_; ++r) sum = num::mac(sum, s[r], static_cast<int8_t>(x_[r]));
          y_[p] = sum;
        }
      y_probe_.update(c + kk + 2, y_.data());
      accumulate(kk, mode, alpha, acc);
    }
    act_.busy_cycles += stream_;
    if (compressed_) record_compressed(reload);
    return tile_cycles(plan_, reload);
  }

  void read_row(uint32_t r, AccTile acc, uint32_t cols, int32_t* out) const override {
    std::memcpy(out, acc.data + size_t(r) * acc.row_stride, cols * sizeof(int32_t));
    ++acc_act_->reads;
  }

 private:
  // WS: row r of B (n wide) becomes column r of the lanes; IS: row r of A (k wide) lane r.
  void load_stationary(uint64_t c, TileView a, TileView b) {
    const uint32_t width = weight_ ? tn_ : tk_;
    for (uint32_t r = 0; r < s_rows_; ++r) {
      for (uint32_t e = 0; e < width; ++e) w_[e] = weight_ ? b.at(r, e) : a.at(r, e);
      w_probe_.update(c + r + 1, w_.data());
      record_operands(act_, timeline_, c + r + 1, w_.data(), width);
      if (weight_)
        for (uint32_t p = 0; p < lanes_; ++p) s_[size_t(p) * tk_ + r] = static_cast<int8_t>(w_[p]);
      else
        for (uint32_t k = 0; k < tk_; ++k) s_[size_t(r) * tk_ + k] = static_cast<int8_t>(w_[k]);
    }
  }

  // Compressed lanes (fsgen_array_dot.v, SLOTS < K) hold each lane's non-zero weights with
  // their k rows, group by group, in load order; a group keeps its first SLOTS / CG non-zeros
  // as the RTL does. The compiler refuses operands that do not fit, so only lanes beyond a
  // partial tile (stale buffer rows, masked later) ever drop values.
  void pack_lanes() {
    const uint32_t slots = plan_.sparse.slots(), groups = plan_.sparse.slot_groups(), rows = tk_ / groups;
    slot_row_.assign(size_t(lanes_) * slots, 0);
    slot_w_.assign(size_t(lanes_) * slots, 0);
    slots_used_.assign(lanes_, 0);
    nonzeros_ = 0;
    for (uint32_t p = 0; p < lanes_; ++p)
      for (uint32_t g = 0; g < groups; ++g) {
        uint32_t used = 0;
        for (uint32_t r = g * rows; r < (g + 1) * rows; ++r) {
          const int8_t w = s_[size_t(p) * tk_ + r];
          if (w == 0 || used == slots / groups) continue;
          const size_t at = size_t(p) * slots + slots_used_[p]++;
          slot_row_[at] = r, slot_w_[at] = w, ++used;
        }
        nonzeros_ += used;
      }
  }

  // Each lane's sum over its slots: the dense lane's sum without its zero weights.
  void compressed_sums() {
    const uint32_t slots = plan_.sparse.slots();
    for (uint32_t p = 0; p < lanes_; ++p) {
      int32_t sum = 0;
      const size_t base = size_t(p) * slots;
      for (uint32_t i = 0; i < slots_used_[p]; ++i)
        sum = num::mac(sum, slot_w_[base + i], static_cast<int8_t>(x_[slot_row_[base + i]]));
      y_[p] = sum;
    }
  }

  // What compressed lanes save is MACs: a dense array of as many MACs per lane would stream
  // the k tile K / SLOTS times.
  void record_compressed(bool reload) {
    const uint32_t slots = plan_.sparse.slots();
    if (reload) ++compressed_->windows;
    compressed_->stream_cycles += stream_;
    compressed_->dense_cycles += uint64_t(stream_) * (tk_ / slots);
    compressed_->lane_slots += uint64_t(lanes_) * slots * stream_;
    compressed_->lane_issues += nonzeros_ * stream_;
    compressed_->skipped_steps += (uint64_t(lanes_) * tk_ - nonzeros_) * stream_;
  }

  // WS streams row kk of A, IS column kk of B.
  void gather_x(uint32_t kk, TileView a, TileView b) {
    for (uint32_t r = 0; r < tk_; ++r) x_[r] = weight_ ? a.at(kk, r) : b.at(r, kk);
  }

  // WS writes row kk of the tile, IS column kk; every write applies the mode, with the
  // rescale factor of the row it lands in.
  void accumulate(uint32_t kk, Accumulate mode, const uint32_t* alpha, AccTile tile) {
    ++acc_act_->writes;
    acc_act_->reads += mode != Accumulate::kClear;  // read-modify-write
    for (uint32_t p = 0; p < lanes_; ++p) {
      const DotOutputCell at = dot_output_cell(weight_, kk, p);
      int32_t& cell = tile.data[size_t(at.row) * tile.row_stride + at.col];
      cell = num::wrap_add(accumulate_base(cell, mode, mode == Accumulate::kRescale ? alpha[at.row] : 0), y_[p]);
    }
  }

  const ArrayPlan& plan_;
  bool weight_;
  uint32_t tm_, tn_, tk_, lanes_, s_rows_, stream_;
  ToggleProbe& x_probe_;
  ToggleProbe& w_probe_;
  ToggleProbe& y_probe_;
  BlockActivity& act_;
  BlockActivity* acc_act_;  // the accumulator cache's (counted by const reads too)
  BlockTimeline& timeline_;
  SparseActivity* compressed_;
  uint64_t nonzeros_ = 0;             // weights the lanes hold (compressed)
  std::vector<uint32_t> slot_row_;    // [lane][slot]: the k row of the slot's weight
  std::vector<int8_t> slot_w_;        // [lane][slot]: the weight
  std::vector<uint32_t> slots_used_;  // per lane
  std::vector<int8_t> s_;
  std::vector<uint8_t> x_, w_;
  std::vector<int32_t> y_;
};

}  // namespace

std::unique_ptr<PeArrayModel> make_dot_array_model(const ArrayPlan& plan, ToggleProbe& x, ToggleProbe& w,
                                                   ToggleProbe& y, BlockActivity& act, BlockActivity& acc_act,
                                                   BlockTimeline& timeline, SparseActivity* compressed) {
  return std::make_unique<DotArrayModel>(plan, x, w, y, act, acc_act, timeline, compressed);
}

}  // namespace fsgen
