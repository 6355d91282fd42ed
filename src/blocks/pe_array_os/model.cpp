// pe_array_os's cycle model (fsgen_array_os.v, also the rescaling array b): every PE
// accumulates its output of the tile, one k step per stream cycle.
#include "blocks/pe_array_os/model.h"

#include <Eigen/Dense>
#include <cstring>

#include "blocks/pe_array_os/model_accumulators.h"
#include "core/error.h"
#include "core/numerics.h"

namespace fsgen {

namespace {

class OsArrayModel : public PeArrayModel {
 public:
  OsArrayModel(const ArrayPlan& plan, ToggleProbe& x, ToggleProbe& w, BlockActivity& act, BlockTimeline& timeline)
      : plan_(plan),
        tm_(plan.spec.tile_m),
        tn_(plan.spec.tile_n),
        tk_(plan.spec.tile_k),
        systolic_(plan.spec.systolic),
        stream_(plan.stream_cycles),
        x_probe_(x),
        w_probe_(w),
        act_(act),
        timeline_(timeline),
        acc_(size_t(tm_) * tn_, 0),
        acc_trace_(tm_, tn_, systolic_, timeline.state),
        x_(tm_),
        w_(tn_),
        xu_(tm_),
        wu_(tn_) {}

  // Step kk: column kk of A along PE rows, row kk of B down PE columns; the first step
  // applies the accumulate mode (clr / sc in the RTL). A systolic array computes the
  // same sums; only what its feed registers carry, cycle by cycle, differs.
  uint64_t run_tile(uint64_t cycle0, TileView a, TileView b, bool, Accumulate mode, const uint32_t* alpha,
                    AccTile) override {
    if (systolic_) record_skewed_feed(cycle0, a, b);
    for (uint32_t kk = 0; kk < tk_; ++kk) {
      const StateStep state(acc_trace_, acc_, cycle0 + kk + 1);
      for (uint32_t i = 0; i < tm_; ++i) x_[i] = a.at(i, kk);
      for (uint32_t j = 0; j < tn_; ++j) w_[j] = b.at(kk, j);
      if (!systolic_) {
        x_probe_.update(cycle0 + kk + 1, x_.data());
        w_probe_.update(cycle0 + kk + 1, w_.data());
      }
      record_operands(act_, timeline_, cycle0 + kk + 1, x_.data(), tm_);
      record_operands(act_, timeline_, cycle0 + kk + 1, w_.data(), tn_);
      const Accumulate step = kk == 0 ? mode : Accumulate::kAdd;
      if (step == Accumulate::kAdd) {
        accumulate_outer_product();
        continue;
      }
      for (uint32_t i = 0; i < tm_; ++i) {
        const int32_t xi = static_cast<int8_t>(x_[i]);
        const uint32_t al = step == Accumulate::kRescale ? alpha[i] : 0;
        int32_t* row = acc_.data() + size_t(i) * tn_;
        for (uint32_t j = 0; j < tn_; ++j)
          row[j] = num::wrap_add(accumulate_base(row[j], step, al), xi * static_cast<int8_t>(w_[j]));
      }
    }
    acc_trace_.end_tile();
    act_.busy_cycles += stream_;
    timeline_.busy.push_back({cycle0, stream_});
    timeline_.enabled.push_back({cycle0, stream_});
    // The rescaling array's sc: its side enable (a systolic array's token reaches the
    // PEs over the next cycles; the span marks where it enters).
    if (mode == Accumulate::kRescale) timeline_.side.push_back({cycle0, 1});
    return tile_cycles(plan_, false);
  }

  void read_row(uint32_t r, AccTile, uint32_t cols, int32_t* out) const override {
    FSGEN_ASSERT(cols <= tn_, "row wider than the output-stationary array");
    std::memcpy(out, acc_.data() + size_t(r) * tn_, cols * sizeof(int32_t));
  }

 private:
  // Around one step: the accumulators before it and after it, PE (0, 0)'s switching in
  // `cycle`: the step's operands reach the PEs in cycle0 + kk + 1, and the accumulators take
  // the sums at the edge that ends it, whose switching the gate-level engine counts in it
  // (measured: a step later, the 8x8 array's per-cycle trace R against the golden drops from
  // 0.997 to 0.966).
  class StateStep {
   public:
    StateStep(AccumulatorTrace& trace, const std::vector<int32_t>& acc, uint64_t cycle)
        : trace_(trace), acc_(acc), cycle_(cycle) {
      trace_.before_step(acc_.data());
    }
    ~StateStep() { trace_.after_step(cycle_, acc_.data()); }

   private:
    AccumulatorTrace& trace_;
    const std::vector<int32_t>& acc_;
    uint64_t cycle_;
  };

  // The common step, acc += x w^T over the sign-extended operands: an Eigen rank-1 update
  // in uint32, which wraps as the RTL's 32-bit accumulators do (num::wrap_add). Measured
  // 2-4 % faster than the plain loop over the whole simulation (BENCHMARKS.md).
  void accumulate_outer_product() {
    for (uint32_t i = 0; i < tm_; ++i) xu_[i] = uint32_t(int32_t(int8_t(x_[i])));
    for (uint32_t j = 0; j < tn_; ++j) wu_[j] = uint32_t(int32_t(int8_t(w_[j])));
    using RowMajor = Eigen::Matrix<uint32_t, Eigen::Dynamic, Eigen::Dynamic, Eigen::RowMajor>;
    Eigen::Map<RowMajor> acc(reinterpret_cast<uint32_t*>(acc_.data()), tm_, tn_);
    acc.noalias() += Eigen::Map<const Eigen::Matrix<uint32_t, Eigen::Dynamic, 1>>(xu_.data(), tm_) *
                     Eigen::Map<const Eigen::Matrix<uint32_t, 1, Eigen::Dynamic>>(wu_.data(), tn_);
  }

  // Lane g of x and of w enters g cycles late: in cycle c it carries step c - g, or 0
  // outside the tile (fsgen_ctrl.v, skew()).
  void record_skewed_feed(uint64_t cycle0, TileView a, TileView b) {
    for (uint32_t c = 0; c < stream_; ++c) {
      for (uint32_t i = 0; i < tm_; ++i) x_[i] = c >= i && c - i < tk_ ? a.at(i, c - i) : 0;
      for (uint32_t j = 0; j < tn_; ++j) w_[j] = c >= j && c - j < tk_ ? b.at(c - j, j) : 0;
      x_probe_.update(cycle0 + c + 1, x_.data());
      w_probe_.update(cycle0 + c + 1, w_.data());
    }
  }

  const ArrayPlan& plan_;
  uint32_t tm_, tn_, tk_;
  bool systolic_;
  uint32_t stream_;
  ToggleProbe& x_probe_;
  ToggleProbe& w_probe_;
  BlockActivity& act_;
  BlockTimeline& timeline_;
  std::vector<int32_t> acc_;
  AccumulatorTrace acc_trace_;  // the accumulators' switching (BlockTimeline::state)
  std::vector<uint8_t> x_, w_;
  std::vector<uint32_t> xu_, wu_;  // sign-extended operands of the current step
};

}  // namespace

std::unique_ptr<PeArrayModel> make_os_array_model(const ArrayPlan& plan, ToggleProbe& x, ToggleProbe& w,
                                                  BlockActivity& act, BlockTimeline& timeline) {
  return std::make_unique<OsArrayModel>(plan, x, w, act, timeline);
}

}  // namespace fsgen
