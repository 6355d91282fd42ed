// Cycle model of a sparse output-stationary array: the controller's window scheduler
// (fsgen_ctrl.v, SPARSE = 1), the x and w value networks (fsgen_sparse_net.v) and the
// lane-wired PE grid (fsgen_array_os.v with LM, LN), computed a stream cycle at a time.
// A systolic grid computes the same sums from skewed lanes (fsgen_skew.v); its stream
// drains for m + n - 2 cycles after the last window, the networks putting out zeros.
#include "blocks/sparse_net/model.h"

#include <algorithm>
#include <cstring>

#include "blocks/pe_array_os/model_accumulators.h"
#include "core/error.h"
#include "core/numerics.h"

namespace fsgen {

namespace {

class SparseOsArrayModel : public PeArrayModel {
 public:
  SparseOsArrayModel(const ArrayPlan& plan, ToggleProbe& x, ToggleProbe& w, BlockActivity& act, BlockTimeline& timeline,
                     SparseActivity& stats)
      : plan_(plan),
        tm_(plan.spec.tile_m),
        tn_(plan.spec.tile_n),
        tk_(plan.spec.tile_k),
        sk_(plan.sparse.window()),
        lm_(plan.sparse.lanes_m()),
        ln_(plan.sparse.lanes_n()),
        rpl_(tm_ / lm_),
        cpl_(tn_ / ln_),
        drain_(plan.spec.systolic ? tm_ + tn_ - 2 : 0),
        x_sparse_(plan.sparse.x_sparse),
        w_sparse_(plan.sparse.w_sparse),
        x_probe_(x),
        w_probe_(w),
        act_(act),
        timeline_(timeline),
        stats_(stats),
        acc_(size_t(tm_) * tn_, 0),
        acc_trace_(tm_, tn_, drain_ != 0, timeline.state),
        need_(size_t(lm_) * ln_),
        sel_(need_.size()),
        x_(size_t(tm_) * ln_),
        w_(size_t(tn_) * lm_),
        w_by_lane_(size_t(lm_) * tn_),
        x_nz_(lm_),
        w_nz_(ln_) {
    FSGEN_ASSERT(sk_ >= 1 && sk_ <= 64 && tk_ % sk_ == 0, "window checked by plan_sparsity");
  }

  uint64_t run_tile(uint64_t cycle0, TileView a, TileView b, bool, Accumulate mode, const uint32_t*,
                    AccTile) override {
    uint64_t c = cycle0;
    for (uint32_t kb = 0; kb < tk_; kb += sk_) {
      window_needs(a, b, kb);
      ++stats_.windows;
      do {
        issue(a, b, kb, c, c == cycle0 ? mode : Accumulate::kAdd);
        ++c;
      } while (std::any_of(need_.begin(), need_.end(), [](uint64_t n) { return n != 0; }));
    }
    if (drain_) drain(c);
    acc_trace_.end_tile();
    c += drain_;
    const uint64_t stream = c - cycle0;
    act_.busy_cycles += stream;
    timeline_.busy.push_back({cycle0, stream});
    timeline_.enabled.push_back({cycle0, stream});
    stats_.stream_cycles += stream;
    stats_.dense_cycles += tk_ + drain_;
    return stream + plan_.tail_cycles;
  }

  void read_row(uint32_t r, AccTile, uint32_t cols, int32_t* out) const override {
    FSGEN_ASSERT(cols <= tn_, "row wider than the output-stationary array");
    std::memcpy(out, acc_.data() + size_t(r) * tn_, cols * sizeof(int32_t));
  }

 private:
  // Block (row lane, column lane) needs window step t when its x rows and its w columns
  // are non-zero there (only the sparse operands are tested).
  void window_needs(TileView a, TileView b, uint32_t kb) {
    for (uint32_t la = 0; la < lm_; ++la) x_nz_[la] = lane_steps(sk_, [&](uint32_t t) { return rows_nonzero(a, la, kb + t); });
    for (uint32_t lb = 0; lb < ln_; ++lb) w_nz_[lb] = lane_steps(sk_, [&](uint32_t t) { return cols_nonzero(b, lb, kb + t); });
    for (uint32_t la = 0; la < lm_; ++la)
      for (uint32_t lb = 0; lb < ln_; ++lb) {
        const uint64_t need = x_nz_[la] & w_nz_[lb];
        need_[la * ln_ + lb] = need;
        stats_.skipped_steps += sk_ - __builtin_popcountll(need);
      }
  }
  // Bit t set where `nonzero(t)` holds, for the window's steps.
  template <typename F>
  static uint64_t lane_steps(uint32_t steps, F nonzero) {
    uint64_t bits = 0;
    for (uint32_t t = 0; t < steps; ++t)
      if (nonzero(t)) bits |= uint64_t{1} << t;
    return bits;
  }
  bool rows_nonzero(TileView a, uint32_t lane, uint32_t k) const {
    if (!x_sparse_) return true;
    for (uint32_t i = lane * rpl_; i < (lane + 1) * rpl_; ++i)
      if (a.at(i, k) != 0) return true;
    return false;
  }
  bool cols_nonzero(TileView b, uint32_t lane, uint32_t k) const {
    if (!w_sparse_) return true;
    for (uint32_t j = lane * cpl_; j < (lane + 1) * cpl_; ++j)
      if (b.at(k, j) != 0) return true;
    return false;
  }

  // One stream cycle: every block issues its lowest needed step; the networks put the
  // picks on the lane buses (registered: the array sees them from cycle c + 1).
  void issue(TileView a, TileView b, uint32_t kb, uint64_t c, Accumulate mode) {
    for (size_t blk = 0; blk < need_.size(); ++blk) {
      const uint64_t n = need_[blk];
      sel_[blk] = n ? static_cast<int>(__builtin_ctzll(n)) : -1;
      need_[blk] = n & (n - 1);
      stats_.lane_issues += n != 0;
    }
    stats_.lane_slots += need_.size();
    for (uint32_t i = 0; i < tm_; ++i)
      for (uint32_t lb = 0; lb < ln_; ++lb) {
        const int s = sel_[(i / rpl_) * ln_ + lb];
        x_[size_t(i) * ln_ + lb] = s < 0 ? 0 : a.at(i, kb + s);
      }
    for (uint32_t j = 0; j < tn_; ++j)
      for (uint32_t la = 0; la < lm_; ++la) {
        const int s = sel_[la * ln_ + j / cpl_];
        w_[size_t(j) * lm_ + la] = s < 0 ? 0 : b.at(kb + s, j);
      }
    x_probe_.update(c + 1, x_.data());
    w_probe_.update(c + 1, w_.data());
    record_operands(act_, timeline_, c + 1, x_.data(), x_.size());
    record_operands(act_, timeline_, c + 1, w_.data(), w_.size());
    acc_trace_.before_step(acc_.data());
    accumulate(mode);
    acc_trace_.after_step(c + 1, acc_.data());
  }

  // The first drain cycle registers zeros on the lane buses; they stay until the next stream.
  void drain(uint64_t c) {
    std::fill(x_.begin(), x_.end(), uint8_t{0});
    std::fill(w_.begin(), w_.end(), uint8_t{0});
    x_probe_.update(c + 1, x_.data());
    w_probe_.update(c + 1, w_.data());
  }

  // PE(i, j) adds x of (row i, column lane j / cpl) times w of (column j, row lane i / rpl):
  // w regrouped by row lane so each column lane's run of PEs reads contiguous operands.
  void accumulate(Accumulate mode) {
    for (uint32_t la = 0; la < lm_; ++la)
      for (uint32_t j = 0; j < tn_; ++j) w_by_lane_[size_t(la) * tn_ + j] = static_cast<int8_t>(w_[size_t(j) * lm_ + la]);
    for (uint32_t i = 0; i < tm_; ++i) {
      int32_t* row = acc_.data() + size_t(i) * tn_;
      const int8_t* w = w_by_lane_.data() + size_t(i / rpl_) * tn_;
      for (uint32_t lb = 0; lb < ln_; ++lb) {
        const int32_t xi = static_cast<int8_t>(x_[size_t(i) * ln_ + lb]);
        const uint32_t j0 = lb * cpl_, j1 = j0 + cpl_;
        if (mode == Accumulate::kClear)
          for (uint32_t j = j0; j < j1; ++j) row[j] = xi * w[j];
        else
          for (uint32_t j = j0; j < j1; ++j) row[j] = num::wrap_add(row[j], xi * w[j]);
      }
    }
  }

  const ArrayPlan& plan_;
  const uint32_t tm_, tn_, tk_, sk_, lm_, ln_, rpl_, cpl_;
  const uint32_t drain_;  // systolic: cycles after the last window until the last pick has crossed the grid
  const bool x_sparse_, w_sparse_;
  ToggleProbe& x_probe_;
  ToggleProbe& w_probe_;
  BlockActivity& act_;
  BlockTimeline& timeline_;
  SparseActivity& stats_;
  std::vector<int32_t> acc_;
  AccumulatorTrace acc_trace_;  // the accumulators' switching (BlockTimeline::state)
  std::vector<uint64_t> need_;  // per block: window steps still to issue
  std::vector<int> sel_;        // per block: this cycle's step, -1 for none
  std::vector<uint8_t> x_, w_;  // lane buses
  std::vector<int8_t> w_by_lane_;        // w_ regrouped: [row lane][column]
  std::vector<uint64_t> x_nz_, w_nz_;    // per row / column lane: window steps with a non-zero
};

}  // namespace

std::unique_ptr<PeArrayModel> make_sparse_os_array_model(const ArrayPlan& plan, ToggleProbe& x, ToggleProbe& w,
                                                         BlockActivity& act, BlockTimeline& timeline,
                                                         SparseActivity& stats) {
  FSGEN_ASSERT(plan.stationarity == Stationarity::kOutput,
               "sparse hardware is built for output-stationary arrays (require_sparse_hardware)");
  return std::make_unique<SparseOsArrayModel>(plan, x, w, act, timeline, stats);
}

}  // namespace fsgen
