#include "models/pe_array_model.h"

#include <algorithm>
#include <cstring>

#include "core/error.h"
#include "core/numerics.h"

namespace fsgen {

namespace {

uint64_t count_zeros(const uint8_t* v, size_t n) { return static_cast<uint64_t>(std::count(v, v + n, uint8_t{0})); }

class OsArrayModel : public PeArrayModel {
 public:
  OsArrayModel(const ArrayPlan& plan, ToggleProbe& x, ToggleProbe& w, BlockActivity& act)
      : tm_(plan.spec.tile_m), tn_(plan.spec.tile_n), tk_(plan.spec.tile_k), x_probe_(x), w_probe_(w), act_(act),
        acc_(size_t(tm_) * tn_, 0), x_(tm_) {}

  uint64_t run_tile(uint64_t cycle0, const uint8_t* buf_a, const uint8_t* buf_b, bool, bool first_k,
                    int32_t*) override {
    for (uint32_t kk = 0; kk < tk_; ++kk) {
      for (uint32_t i = 0; i < tm_; ++i) x_[i] = buf_a[size_t(i) * tk_ + kk];
      const uint8_t* w = buf_b + size_t(kk) * tn_;
      x_probe_.update(cycle0 + kk + 1, x_.data());
      w_probe_.update(cycle0 + kk + 1, w);
      act_.operand_bytes += tm_ + tn_;
      act_.zero_bytes += count_zeros(x_.data(), tm_) + count_zeros(w, tn_);
      const bool clear = first_k && kk == 0;
      for (uint32_t i = 0; i < tm_; ++i) {
        const int32_t a = static_cast<int8_t>(x_[i]);
        int32_t* row = acc_.data() + size_t(i) * tn_;
        for (uint32_t j = 0; j < tn_; ++j)
          row[j] = num::wrap_add(clear ? 0 : row[j], a * static_cast<int8_t>(w[j]));
      }
    }
    act_.busy_cycles += tk_;
    return tk_ + 1;  // stream + one pipeline cycle
  }

  void read_row(uint32_t r, const int32_t*, int32_t* out) const override {
    std::memcpy(out, acc_.data() + size_t(r) * tn_, tn_ * sizeof(int32_t));
  }

 private:
  uint32_t tm_, tn_, tk_;
  ToggleProbe& x_probe_;
  ToggleProbe& w_probe_;
  BlockActivity& act_;
  std::vector<int32_t> acc_;
  std::vector<uint8_t> x_;
};

// Weight-stationary (lanes = n, B loaded column by column) or input-stationary
// (lanes = m, A loaded row by row); both reduce over k in each lane.
class DotArrayModel : public PeArrayModel {
 public:
  DotArrayModel(const ArrayPlan& plan, ToggleProbe& x, ToggleProbe& w, ToggleProbe& y, BlockActivity& act)
      : weight_(plan.stationarity == Stationarity::kWeight), tm_(plan.spec.tile_m), tn_(plan.spec.tile_n),
        tk_(plan.spec.tile_k), lanes_(plan.y_lanes), s_rows_(plan.stationary_rows), stream_(plan.stream_cycles),
        x_probe_(x), w_probe_(w), y_probe_(y), act_(act), s_(size_t(lanes_) * tk_, 0), x_(tk_), y_(lanes_) {}

  uint64_t run_tile(uint64_t cycle0, const uint8_t* buf_a, const uint8_t* buf_b, bool reload, bool first_k,
                    int32_t* acc_tile) override {
    uint64_t c = cycle0;
    if (reload) {
      load_stationary(c, buf_a, buf_b);
      c += s_rows_;
    }
    for (uint32_t kk = 0; kk < stream_; ++kk) {
      gather_x(kk, buf_a, buf_b);
      x_probe_.update(c + kk + 1, x_.data());
      act_.operand_bytes += tk_;
      act_.zero_bytes += count_zeros(x_.data(), tk_);
      for (uint32_t p = 0; p < lanes_; ++p) {
        int32_t sum = 0;
        const int8_t* s = s_.data() + size_t(p) * tk_;
        for (uint32_t r = 0; r < tk_; ++r) sum = num::mac(sum, s[r], static_cast<int8_t>(x_[r]));
        y_[p] = sum;
      }
      y_probe_.update(c + kk + 2, y_.data());
      accumulate(kk, first_k, acc_tile);
    }
    act_.busy_cycles += stream_;
    return (reload ? s_rows_ : 0) + stream_ + 2;
  }

  void read_row(uint32_t r, const int32_t* acc_tile, int32_t* out) const override {
    std::memcpy(out, acc_tile + size_t(r) * tn_, tn_ * sizeof(int32_t));
  }

 private:
  void load_stationary(uint64_t c, const uint8_t* buf_a, const uint8_t* buf_b) {
    for (uint32_t r = 0; r < s_rows_; ++r) {
      // WS: row r of B (n wide) becomes column r of s; IS: row r of A (k wide) becomes row r.
      const uint8_t* w = weight_ ? buf_b + size_t(r) * tn_ : buf_a + size_t(r) * tk_;
      const uint32_t width = weight_ ? tn_ : tk_;
      w_probe_.update(c + r + 1, w);
      act_.operand_bytes += width;
      act_.zero_bytes += count_zeros(w, width);
      if (weight_)
        for (uint32_t p = 0; p < lanes_; ++p) s_[size_t(p) * tk_ + r] = static_cast<int8_t>(w[p]);
      else
        for (uint32_t k = 0; k < tk_; ++k) s_[size_t(r) * tk_ + k] = static_cast<int8_t>(w[k]);
    }
  }

  void gather_x(uint32_t kk, const uint8_t* buf_a, const uint8_t* buf_b) {
    if (weight_)
      std::memcpy(x_.data(), buf_a + size_t(kk) * tk_, tk_);  // row kk of A
    else
      for (uint32_t r = 0; r < tk_; ++r) x_[r] = buf_b[size_t(r) * tn_ + kk];  // column kk of B
  }

  void accumulate(uint32_t kk, bool first_k, int32_t* tile) {
    for (uint32_t p = 0; p < lanes_; ++p) {
      int32_t& cell = weight_ ? tile[size_t(kk) * tn_ + p] : tile[size_t(p) * tn_ + kk];
      cell = num::wrap_add(first_k ? 0 : cell, y_[p]);
    }
  }

  bool weight_;
  uint32_t tm_, tn_, tk_, lanes_, s_rows_, stream_;
  ToggleProbe& x_probe_;
  ToggleProbe& w_probe_;
  ToggleProbe& y_probe_;
  BlockActivity& act_;
  std::vector<int8_t> s_;
  std::vector<uint8_t> x_;
  std::vector<int32_t> y_;
};

}  // namespace

std::unique_ptr<PeArrayModel> make_pe_array_model(const ArrayPlan& plan, RunResult& result,
                                                  const std::string& block) {
  ToggleProbe* x = result.find_probe(block, "x");
  ToggleProbe* w = result.find_probe(block, "w");
  FSGEN_ASSERT(x && w, "array probes missing from the graph");
  BlockActivity& act = result.activity[block];
  if (plan.stationarity == Stationarity::kOutput) return std::make_unique<OsArrayModel>(plan, *x, *w, act);
  ToggleProbe* y = result.find_probe(block, "y");
  FSGEN_ASSERT(y, "dot array y probe missing from the graph");
  return std::make_unique<DotArrayModel>(plan, *x, *w, *y, act);
}

}  // namespace fsgen
