// The softmax / activation unit's cycle model: fsgen_softmax.v's datapath with the
// fixed-point numerics of core/attention_numerics.h.
#include "blocks/softmax/model.h"

#include <algorithm>
#include <climits>

#include "core/attention_numerics.h"
#include "core/numerics.h"

namespace fsgen {

namespace {

class SoftmaxModel : public SoftmaxUnitModel {
 public:
  explicit SoftmaxModel(uint32_t tile_n) : tn_(tile_n), z_(tile_n), vis_(tile_n) {}

  void configure(const SoftmaxSettings& s) override { s_ = s; }

  void row(uint64_t, const SoftmaxRowIn& in, SoftmaxRowOut& out) override {
    if (in.ffn)
      activate(in, out);
    else
      online_softmax(in, out);
  }

 private:
  // The row's scores in the log2 domain against the running max: the new max, the old sum's
  // rescale factor, the probabilities of the keys the query sees and the new sum.
  void online_softmax(const SoftmaxRowIn& in, SoftmaxRowOut& out) {
    int32_t tmax = INT32_MIN;
    for (uint32_t j = 0; j < tn_; ++j) {
      z_[j] = num::score_to_log2(in.scores[j], s_.score_mult, s_.score_shift);
      vis_[j] = num::key_visible(in.j0 + j, s_.len_kv, s_.causal, s_.window, in.q_pos);
      if (vis_[j] && z_[j] > tmax) tmax = z_[j];
    }
    out.m_new = in.first ? tmax : std::max(in.m_old, tmax);
    out.alpha = in.first ? 32768u : num::exp2_q15(int64_t{in.m_old} - out.m_new);
    int32_t psum = 0;
    for (uint32_t j = 0; j < tn_; ++j) {
      const int32_t p = vis_[j] ? num::exp2_q7(int64_t{z_[j]} - out.m_new) : 0;
      out.p[j] = static_cast<uint8_t>(p);
      psum += p;
    }
    out.l_new = (in.first ? 0 : num::rescale_q15(in.l_old, out.alpha)) + psum;
  }

  // FFN: the activation table on the requantised row (first pass) or the gate, the first
  // pass's activations times the requantised row; columns from len_kv on are 0.
  void activate(const SoftmaxRowIn& in, SoftmaxRowOut& out) const {
    for (uint32_t j = 0; j < tn_; ++j) {
      int8_t p = 0;
      if (in.j0 + j < s_.len_kv) {
        if (in.gate) {
          const int8_t g = num::requantize(in.scores[j], s_.gate_mult, s_.gate_shift);
          p = num::requantize(int32_t{in.p_prev[j]} * g, s_.hid_mult, s_.hid_shift);
        } else {
          p = static_cast<int8_t>(s_.lut[static_cast<uint8_t>(num::requantize(in.scores[j], s_.score_mult, s_.score_shift))]);
        }
      }
      out.p[j] = static_cast<uint8_t>(p);
    }
  }

  uint32_t tn_;
  SoftmaxSettings s_;
  std::vector<int32_t> z_;
  std::vector<bool> vis_;
};

}  // namespace

std::unique_ptr<SoftmaxUnitModel> make_softmax_model(uint32_t tile_n) { return std::make_unique<SoftmaxModel>(tile_n); }

}  // namespace fsgen
