// The softmax / activation unit as its Verilated RTL (fsgen_softmax.v) in a mixed-level run:
// the kernel's settings held on its ports, each row loaded (ld) with its running state in the
// cycle the controller loads it, the answer read after the edge. The cycle model answers the
// same row beside it as the reference.
#include <cstring>

#include "blocks/softmax/model.h"

namespace fsgen {

namespace {

class RtlSoftmax : public SoftmaxUnitModel {
 public:
  RtlSoftmax(uint32_t tile_n, std::unique_ptr<SoftmaxUnitModel> reference, RtlPorts& rtl, RtlBlockMonitor& monitor)
      : tn_(tile_n),
        reference_(std::move(reference)),
        rtl_(rtl),
        monitor_(monitor),
        ld_(rtl.port("ld")),
        row_(rtl.port("row")),
        first_(rtl.port("first")),
        m_old_(rtl.port("m_old")),
        l_old_(rtl.port("l_old")),
        q_pos_(rtl.port("q_pos")),
        j0_(rtl.port("j0")),
        ffn_(rtl.port("ffn")),
        gate_(rtl.port("gate")),
        p_prev_(rtl.port("p_prev")),
        m_new_(rtl.port("m_new")),
        alpha_(rtl.port("alpha")),
        l_new_(rtl.port("l_new")),
        p_(rtl.port("p")),
        len_kv_(rtl.port("len_kv")),
        causal_(rtl.port("causal")),
        score_mult_(rtl.port("score_mult")),
        score_shift_(rtl.port("score_shift")),
        gate_mult_(rtl.port("gate_mult")),
        gate_shift_(rtl.port("gate_shift")),
        hid_mult_(rtl.port("hid_mult")),
        hid_shift_(rtl.port("hid_shift")),
        lut_(rtl.port("lut")),
        zeros_(tile_n, 0),
        p_rtl_(tile_n) {
    expect_port_width(rtl, row_, tn_ * 32, "tile_n INT32 scores");
    expect_port_width(rtl, p_, tn_ * 8, "tile_n probabilities or activations");
    expect_port_width(rtl, lut_, 256 * 8, "the 256-entry activation table");
    // The model probes the controller's copy of the loaded row (the unit's row_q, from the
    // cycle after the load) and the register the answer is stored in (a cycle later).
    monitor_.probe_as("row_q", "in", 0);
    monitor_.probe_as("p", "out", 1);
    rtl_.reset(2);
  }

  void configure(const SoftmaxSettings& s) override {
    reference_->configure(s);
    rtl_.set(len_kv_, s.len_kv);
    rtl_.set(causal_, s.causal);
    rtl_.set(score_mult_, s.score_mult);
    rtl_.set(score_shift_, s.score_shift);
    rtl_.set(gate_mult_, s.gate_mult);
    rtl_.set(gate_shift_, s.gate_shift);
    rtl_.set(hid_mult_, s.hid_mult);
    rtl_.set(hid_shift_, s.hid_shift);
    if (s.lut) rtl_.set_bytes(lut_, s.lut);
  }

  void row(uint64_t cycle, const SoftmaxRowIn& in, SoftmaxRowOut& out) override {
    reference_->row(cycle, in, out);
    present(in);
    rtl_.eval();
    monitor_.sample_inputs(cycle);
    rtl_.clock();
    rtl_.set(ld_, 0);
    rtl_.eval();
    monitor_.sample_outputs(cycle + 1);
    monitor_.clocked(1);
    take_answer(cycle + 1, in.ffn, out);
  }

 private:
  void present(const SoftmaxRowIn& in) {
    rtl_.set(ld_, 1);
    rtl_.set_bytes(row_, in.scores);
    rtl_.set(first_, in.first);
    rtl_.set(m_old_, uint32_t(in.m_old));
    rtl_.set(l_old_, uint32_t(in.l_old));
    rtl_.set(q_pos_, in.q_pos);
    rtl_.set(j0_, in.j0);
    rtl_.set(ffn_, in.ffn);
    rtl_.set(gate_, in.gate);
    rtl_.set_bytes(p_prev_, in.p_prev ? static_cast<const void*>(in.p_prev) : zeros_.data());
  }

  // The RTL's answer into `out` (which holds the reference's), each output checked; the FFN's
  // is its activations only.
  void take_answer(uint64_t cycle, bool ffn, SoftmaxRowOut& out) {
    rtl_.get(p_, p_rtl_.data());
    for (uint32_t j = 0; j < tn_; ++j)
      if (p_rtl_[j] != out.p[j]) monitor_.mismatch(cycle, "p", "score " + std::to_string(j), p_rtl_[j], out.p[j]);
    std::memcpy(out.p, p_rtl_.data(), tn_);
    if (ffn) return;
    check_word(cycle, m_new_, "m_new", out.m_new);
    check_word(cycle, l_new_, "l_new", out.l_new);
    uint32_t alpha = 0;
    rtl_.get(alpha_, &alpha);
    if (alpha != out.alpha) monitor_.mismatch(cycle, "alpha", "rescale factor", alpha, out.alpha);
    out.alpha = alpha;
  }

  void check_word(uint64_t cycle, uint32_t port, const char* name, int32_t& value) {
    int32_t rtl = 0;
    rtl_.get(port, &rtl);
    if (rtl != value) monitor_.mismatch(cycle, name, "the row's", rtl, value);
    value = rtl;
  }

  uint32_t tn_;
  std::unique_ptr<SoftmaxUnitModel> reference_;
  RtlPorts& rtl_;
  RtlBlockMonitor& monitor_;
  uint32_t ld_, row_, first_, m_old_, l_old_, q_pos_, j0_, ffn_, gate_, p_prev_;
  uint32_t m_new_, alpha_, l_new_, p_;
  uint32_t len_kv_, causal_, score_mult_, score_shift_, gate_mult_, gate_shift_, hid_mult_, hid_shift_, lut_;
  std::vector<uint8_t> zeros_, p_rtl_;
};

}  // namespace

std::unique_ptr<SoftmaxUnitModel> make_rtl_softmax_model(uint32_t tile_n, std::unique_ptr<SoftmaxUnitModel> reference,
                                                         RtlPorts& rtl, RtlBlockMonitor& monitor) {
  return std::make_unique<RtlSoftmax>(tile_n, std::move(reference), rtl, monitor);
}

}  // namespace fsgen
