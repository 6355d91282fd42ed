// pe_array_os as its Verilated RTL (fsgen_array_os.v) in a mixed-level run: each tile's
// port values cycle by cycle as the controller drives them (fsgen_ctrl.v: en, clr / sc on
// the first step, the operand feeds, skewed on a systolic array), the accumulators read
// back through rd_row / rd_data. The cycle model runs beside it as the reference.
#include <cstring>

#include "blocks/pe_array_os/model.h"
#include "core/error.h"

namespace fsgen {

namespace {

class RtlOsArray : public PeArrayModel {
 public:
  RtlOsArray(const ArrayPlan& plan, std::unique_ptr<PeArrayModel> reference, RtlPorts& rtl, RtlBlockMonitor& monitor)
      : tm_(plan.spec.tile_m),
        tn_(plan.spec.tile_n),
        tk_(plan.spec.tile_k),
        systolic_(plan.spec.systolic),
        stream_(plan.stream_cycles),
        reference_(std::move(reference)),
        rtl_(rtl),
        monitor_(monitor),
        en_(rtl.port("en")),
        clr_(rtl.port("clr")),
        sc_(rtl.port("sc")),
        alpha_(rtl.port("alpha")),
        x_(rtl.port("x")),
        w_(rtl.port("w")),
        rd_row_(rtl.port("rd_row")),
        rd_data_(rtl.port("rd_data")),
        x_bytes_(tm_),
        w_bytes_(tn_),
        alpha_words_(tm_, 0),
        row_(tn_) {
    expect_port_width(rtl_, x_, tm_ * 8, "tile_m INT8 operands");
    expect_port_width(rtl_, w_, tn_ * 8, "tile_n INT8 operands");
    expect_port_width(rtl_, rd_data_, tn_ * 32, "tile_n INT32 accumulators");
    // The controller writes a row's rescale factor as the softmax unit makes it; the array
    // gets the tile's factors here, at the tile's start.
    monitor_.totals_only("alpha");
    rtl_.reset(2);
  }

  uint64_t run_tile(uint64_t cycle0, TileView a, TileView b, bool reload, Accumulate mode, const uint32_t* alpha,
                    AccTile acc) override {
    const uint64_t cycles = reference_->run_tile(cycle0, a, b, reload, mode, alpha, acc);
    if (mode == Accumulate::kRescale) {
      std::memcpy(alpha_words_.data(), alpha, tm_ * sizeof(uint32_t));
      rtl_.set_bytes(alpha_, alpha_words_.data());
    }
    for (uint32_t c = 0; c < stream_; ++c) {
      feed(c, a, b);
      rtl_.set(en_, 1);
      rtl_.set(clr_, c == 0 && mode == Accumulate::kClear);
      rtl_.set(sc_, c == 0 && mode == Accumulate::kRescale);
      rtl_.set_bytes(x_, x_bytes_.data());
      rtl_.set_bytes(w_, w_bytes_.data());
      rtl_.eval();
      monitor_.sample(cycle0 + c + 1);
      rtl_.clock();
    }
    // Between tiles nothing in the array changes (en low, a systolic array's registers
    // drained to the zeros fed last), so its idle cycles need no clocking.
    rtl_.set(en_, 0);
    rtl_.set(clr_, 0);
    rtl_.set(sc_, 0);
    monitor_.clocked(stream_);
    tile_end_ = cycle0 + cycles;
    return cycles;
  }

  void read_row(uint32_t r, AccTile acc, uint32_t cols, int32_t* out) const override {
    rtl_.set(rd_row_, r);
    rtl_.eval();
    rtl_.get(rd_data_, row_.data());
    reference_->read_row(r, acc, cols, out);
    for (uint32_t j = 0; j < cols; ++j)
      if (row_[j] != out[j])
        monitor_.mismatch(tile_end_, "rd_data", "row " + std::to_string(r) + ", column " + std::to_string(j), row_[j],
                          out[j]);
    std::memcpy(out, row_.data(), cols * sizeof(int32_t));
  }

 private:
  // What the feeds carry in stream cycle c: a broadcast array step c (column c of A along
  // the rows, row c of B down the columns); a systolic one lane g's step c - g, or 0.
  void feed(uint32_t c, TileView a, TileView b) {
    for (uint32_t i = 0; i < tm_; ++i) {
      const uint32_t step = systolic_ ? c - i : c;
      x_bytes_[i] = (!systolic_ || c >= i) && step < tk_ ? a.at(i, step) : 0;
    }
    for (uint32_t j = 0; j < tn_; ++j) {
      const uint32_t step = systolic_ ? c - j : c;
      w_bytes_[j] = (!systolic_ || c >= j) && step < tk_ ? b.at(step, j) : 0;
    }
  }

  uint32_t tm_, tn_, tk_;
  bool systolic_;
  uint32_t stream_;
  std::unique_ptr<PeArrayModel> reference_;
  RtlPorts& rtl_;
  RtlBlockMonitor& monitor_;
  uint32_t en_, clr_, sc_, alpha_, x_, w_, rd_row_, rd_data_;
  std::vector<uint8_t> x_bytes_, w_bytes_;
  std::vector<uint32_t> alpha_words_;
  mutable std::vector<int32_t> row_;
  uint64_t tile_end_ = 0;
};

}  // namespace

std::unique_ptr<PeArrayModel> make_rtl_os_array_model(const ArrayPlan& plan, std::unique_ptr<PeArrayModel> reference,
                                                      RtlPorts& rtl, RtlBlockMonitor& monitor) {
  return std::make_unique<RtlOsArray>(plan, std::move(reference), rtl, monitor);
}

}  // namespace fsgen
