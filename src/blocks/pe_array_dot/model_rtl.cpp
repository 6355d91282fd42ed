// pe_array_dot as its Verilated RTL (fsgen_array_dot.v) in a mixed-level run: a tile's
// stationary loads (ld, ld_idx, w) and stream (v, x) cycle by cycle as the controller
// drives them, each lane's registered sum y read after its edge and added into the output
// tile the way the accumulator cache does. The cycle model runs beside it as the
// reference, on the same tile: its sums are what the RTL's are checked against.
#include <cstring>

#include "blocks/pe_array_dot/model.h"
#include "core/error.h"
#include "core/numerics.h"

namespace fsgen {

namespace {

class RtlDotArray : public PeArrayModel {
 public:
  RtlDotArray(const ArrayPlan& plan, std::unique_ptr<PeArrayModel> reference, RtlPorts& rtl, RtlBlockMonitor& monitor)
      : weight_(plan.stationarity == Stationarity::kWeight),
        tn_(plan.spec.tile_n),
        tk_(plan.spec.tile_k),
        lanes_(plan.y_lanes),
        s_rows_(plan.stationary_rows),
        stream_(plan.stream_cycles),
        reference_(std::move(reference)),
        rtl_(rtl),
        monitor_(monitor),
        ld_(rtl.port("ld")),
        ld_idx_(rtl.port("ld_idx")),
        w_(rtl.port("w")),
        v_(rtl.port("v")),
        x_(rtl.port("x")),
        y_(rtl.port("y")),
        w_bytes_(weight_ ? tn_ : tk_),
        x_bytes_(tk_),
        y_words_(lanes_),
        before_(size_t(stream_) * lanes_) {
    expect_port_width(rtl_, w_, uint32_t(w_bytes_.size()) * 8,
                      weight_ ? "a row of B: tile_n INT8" : "a row of A: tile_k INT8");
    expect_port_width(rtl_, x_, tk_ * 8, "tile_k INT8 operands");
    expect_port_width(rtl_, y_, lanes_ * 32, "one INT32 sum per lane");
    rtl_.reset(2);
  }

  uint64_t run_tile(uint64_t cycle0, TileView a, TileView b, bool reload, Accumulate mode, const uint32_t* alpha,
                    AccTile acc) override {
    keep_cells(acc);
    const uint64_t cycles = reference_->run_tile(cycle0, a, b, reload, mode, alpha, acc);
    uint64_t c = cycle0;
    if (reload) {
      load_stationary(c, a, b);
      c += s_rows_;
    }
    rtl_.set(v_, 1);
    for (uint32_t kk = 0; kk < stream_; ++kk) {
      for (uint32_t r = 0; r < tk_; ++r) x_bytes_[r] = weight_ ? a.at(kk, r) : b.at(r, kk);
      rtl_.set_bytes(x_, x_bytes_.data());
      rtl_.eval();
      monitor_.sample(c + kk + 1);
      rtl_.clock();
      rtl_.get(y_, y_words_.data());
      accumulate(c + kk + 2, kk, mode, alpha, acc);
    }
    rtl_.set(v_, 0);
    rtl_.eval();
    monitor_.sample(c + stream_ + 1);  // the last step's sums
    monitor_.clocked((reload ? s_rows_ : 0) + stream_);
    return cycles;
  }

  void read_row(uint32_t r, AccTile acc, uint32_t cols, int32_t* out) const override {
    reference_->read_row(r, acc, cols, out);
  }

 private:
  // WS: row r of B becomes column r of the lanes; IS: row r of A lane r.
  void load_stationary(uint64_t c, TileView a, TileView b) {
    rtl_.set(ld_, 1);
    for (uint32_t r = 0; r < s_rows_; ++r) {
      for (uint32_t e = 0; e < w_bytes_.size(); ++e) w_bytes_[e] = weight_ ? b.at(r, e) : a.at(r, e);
      rtl_.set(ld_idx_, r);
      rtl_.set_bytes(w_, w_bytes_.data());
      rtl_.eval();
      monitor_.sample(c + r + 1);
      rtl_.clock();
    }
    rtl_.set(ld_, 0);
  }

  // The output cells this tile writes, before the reference model writes them.
  void keep_cells(AccTile acc) {
    for (uint32_t kk = 0; kk < stream_; ++kk)
      for (uint32_t p = 0; p < lanes_; ++p) {
        const DotOutputCell at = dot_output_cell(weight_, kk, p);
        before_[size_t(kk) * lanes_ + p] = acc.data[size_t(at.row) * acc.row_stride + at.col];
      }
  }

  // Step kk's RTL sums added into the cells they land in (held by `before_`), each checked
  // against what the reference wrote there.
  void accumulate(uint64_t cycle, uint32_t kk, Accumulate mode, const uint32_t* alpha, AccTile acc) {
    for (uint32_t p = 0; p < lanes_; ++p) {
      const DotOutputCell at = dot_output_cell(weight_, kk, p);
      int32_t& cell = acc.data[size_t(at.row) * acc.row_stride + at.col];
      const int32_t old = before_[size_t(kk) * lanes_ + p];
      const int32_t rtl = num::wrap_add(accumulate_base(old, mode, mode == Accumulate::kRescale ? alpha[at.row] : 0),
                                        int32_t(y_words_[p]));
      if (rtl != cell)
        monitor_.mismatch(cycle, "y", "lane " + std::to_string(p) + ", step " + std::to_string(kk), rtl - old,
                          int64_t(cell) - old);
      cell = rtl;
    }
  }

  bool weight_;
  uint32_t tn_, tk_, lanes_, s_rows_, stream_;
  std::unique_ptr<PeArrayModel> reference_;
  RtlPorts& rtl_;
  RtlBlockMonitor& monitor_;
  uint32_t ld_, ld_idx_, w_, v_, x_, y_;
  std::vector<uint8_t> w_bytes_, x_bytes_;
  std::vector<uint32_t> y_words_;
  std::vector<int32_t> before_;
};

}  // namespace

std::unique_ptr<PeArrayModel> make_rtl_dot_array_model(const ArrayPlan& plan, std::unique_ptr<PeArrayModel> reference,
                                                       RtlPorts& rtl, RtlBlockMonitor& monitor) {
  return std::make_unique<RtlDotArray>(plan, std::move(reference), rtl, monitor);
}

}  // namespace fsgen
