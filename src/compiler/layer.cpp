#include "compiler/layer.h"

#include <algorithm>
#include <cmath>
#include <iomanip>
#include <sstream>

#include "compiler/traffic.h"
#include "core/error.h"
#include "core/statistics.h"

namespace fsgen {

namespace {

// The largest divisor of n that is at most limit (at least 1).
uint32_t largest_divisor_within(uint32_t n, uint32_t limit) {
  for (uint32_t d = std::min(n, std::max(limit, 1u)); d > 1; --d)
    if (n % d == 0) return d;
  return 1;
}

class LayerLowering {
 public:
  LayerLowering(const Graph& g, const ModelConfig& m, const LayerWorkload& w)
      : g_(g),
        m_(m),
        w_(w),
        where_("model " + m.name + " on design '" + g.spec.name + "'"),
        window_(m.windowed_layer(w.layer) ? m.sliding_window : 0) {}

  LayerPlan run() {
    check();
    const uint32_t t = w_.tokens;
    host("input norm", uint64_t(t) * m_.hidden);
    matmul("q_k_v_proj", t, m_.q_width() + 2 * m_.kv_width(), m_.hidden);
    if (m_.biases) host("q/k/v biases", uint64_t(t) * (m_.q_width() + 2 * m_.kv_width()));
    if (m_.qk_norm) host("q/k norms", uint64_t(t) * (m_.q_width() + m_.kv_width()));
    if (m_.rope_theta > 0)
      host("rope on q and k", uint64_t(double(t) * (m_.q_width() + m_.kv_width()) * m_.rotary_fraction));
    host("head-major re-layout of q, k, v", uint64_t(t) * (m_.q_width() + 2 * m_.kv_width()));
    attention();
    matmul("o_proj", t, m_.hidden, m_.q_width());
    if (m_.biases) host("o bias", uint64_t(t) * m_.hidden);
    if (m_.sandwich_norm) host("post-attention norm", uint64_t(t) * m_.hidden);
    host("residual add", uint64_t(t) * m_.hidden);
    if (w_.attention_only) return std::move(plan_);
    host(m_.post_norm ? "post-attention norm" : "pre-FFN norm", uint64_t(t) * m_.hidden);
    if (m_.moe_layer(w_.layer))
      experts();
    else
      ffn("", t, m_.ffn);
    if (m_.sandwich_norm) host("post-FFN norm", uint64_t(t) * m_.hidden);
    host("residual add", uint64_t(t) * m_.hidden);
    if (m_.post_norm) host("post-FFN norm", uint64_t(t) * m_.hidden);
    return std::move(plan_);
  }

 private:
  void check() const {
    if (m_.encoder && w_.stage == Stage::kDecode) fail(where_, "an encoder has no decode stage: use --stage prefill");
    if (w_.tokens == 0) fail(where_, "expected at least one token");
    const uint32_t masked = g_.sliding_window();
    if (masked && masked != window_)
      fail(where_, "the design masks a sliding window of " + std::to_string(masked) + " keys, layer " +
                       std::to_string(w_.layer) + " attends " +
                       (window_ ? "a window of " + std::to_string(window_) : std::string("every key")));
    if (window_ && !masked && w_.stage == Stage::kPrefill && w_.tokens > window_ && fused_attention())
      fail(where_, "a prefill of " + std::to_string(w_.tokens) + " tokens exceeds the sliding window of " +
                       std::to_string(window_) +
                       ", which this design does not mask: add sparsity {kind: memory_group, tensor: k, condition: "
                       "sliding, window: " +
                       std::to_string(window_) + "}");
    if (uint64_t(w_.context) + w_.tokens + g_.spec.array_a.tile_m + g_.spec.array_a.tile_n >= 65536)
      fail(where_, "context plus tokens must stay below 65536 (16-bit sequence registers)");
  }

  void host(const std::string& name, uint64_t elements) {
    plan_.host.push_back({name, elements, 2 * elements});  // INT8 read and written once
  }

  // C[m x n] = A[m x k] B[k x n], padded to whole tiles and split so that its live output
  // tiles fit the accumulator cache. A gated epilogue's B is k x 2n (its W1 and W3 tiles in
  // pairs, each pair one output tile of C).
  void matmul(const std::string& name, uint32_t m, uint32_t n, uint32_t k, const MatmulEpilogue& epilogue = {}) {
    const ArrayPlan& a = g_.array_a;
    const uint32_t per_c = epilogue.gated ? 2 : 1;  // B tiles per output tile
    const uint32_t tm = uint32_t(round_up(m, a.spec.tile_m) / a.spec.tile_m);
    const uint32_t tn = uint32_t(round_up(n, g_.matmul_tile_n()) / g_.matmul_tile_n());
    const uint32_t tk = uint32_t(round_up(k, a.spec.tile_k) / a.spec.tile_k);
    uint32_t pm = tm, pn = tn;  // tiles per launch
    if (a.acc_slots > 0) {
      if (a.spec.m_inside_k()) pm = largest_divisor_within(tm, a.acc_slots);
      if (a.spec.n_inside_k()) pn = largest_divisor_within(tn, a.acc_slots / per_c / (a.spec.m_inside_k() ? pm : 1));
    }
    KernelLaunch l;
    l.name = name;
    l.kind = KernelKind::kMatmul;
    // One launch over all of M takes M's rows as they are (a decode token is one row, not a
    // tile of them); a compressed A is padded to whole tiles.
    l.matmul.m = pm == tm && !g_.sparse.memory.compresses("x") ? m : pm * a.spec.tile_m;
    l.matmul.n = pn * g_.matmul_tile_n();
    l.matmul.k = tk * a.spec.tile_k;
    l.matmul.epilogue = epilogue;
    l.count = (tm / pm) * (tn / pn);
    l.macs = uint64_t(m) * n * per_c * k;
    l.padded_macs = uint64_t(l.count) * pm * a.spec.tile_m * l.matmul.b_columns() * l.matmul.k;
    MatmulProblem unpadded;
    unpadded.m = m, unpadded.n = n, unpadded.k = k, unpadded.epilogue = epilogue;
    l.least_bytes = least_traffic_bytes(unpadded);
    if (l.padded_macs != l.macs && name.rfind("expert_", 0) != 0)  // the experts' note says their shapes
      note(name + ": " + std::to_string(m) + "x" + std::to_string(n) + "x" + std::to_string(k) +
           " computed on whole tiles (" + percent(l.macs, l.padded_macs) + " of the MACs useful)");
    if (l.count > 1)
      note(name + ": split into " + std::to_string(l.count) + " launches of " + std::to_string(l.matmul.m) + "x" +
           std::to_string(l.matmul.n) + "x" + std::to_string(l.matmul.k) + " (accumulator cache of " +
           std::to_string(a.acc_slots) + " tiles)");
    plan_.kernels.push_back(l);
  }

  // Tiles of tiling.k the head dim takes.
  uint32_t head_tiles() const { return (m_.head_dim + g_.spec.array_a.tile_k - 1) / g_.spec.array_a.tile_k; }
  // The fused kernel is built and runs this head dim (its tiles fit buffer a's slots).
  bool fused_attention() const { return g_.attention && head_tiles_unsupported_why(g_, head_tiles(), false).empty(); }

  void attention() {
    if (!fused_attention()) {
      unfused_attention();
      return;
    }
    const ArraySpec& a = g_.spec.array_a;
    KernelLaunch l;
    l.name = "attention";
    l.kind = KernelKind::kAttention;
    AttentionProblem& p = l.attention;
    p.stage = w_.stage;
    p.q_heads = m_.heads;
    p.kv_heads = m_.kv_heads;
    p.tokens = w_.tokens;
    p.residual = false;  // the model's residual follows the output projection
    p.causal = !m_.encoder;
    p.head_dim = m_.head_dim;
    p.context = w_.stage == Stage::kDecode ? w_.context : 0;
    if (window_ && p.context + p.tokens > window_) {
      p.context = window_ - p.tokens;
      plan_.notes.push_back("attention: sliding window " + std::to_string(window_) +
                            ": the decode step reads the last " + std::to_string(window_) + " keys of the KV cache");
    }
    const uint32_t lq = p.tokens, lkv = p.context + p.tokens, q_pos0 = lkv - lq;
    uint64_t useful = 0, padded = 0;
    for (uint32_t q0 = 0; q0 < lq; q0 += a.tile_m) {
      const uint32_t rows = std::min(a.tile_m, lq - q0);
      for (uint32_t i = 0; i < rows; ++i) useful += p.causal ? std::min(lkv, q_pos0 + q0 + i + 1) : lkv;
      const uint32_t last = q_pos0 + q0 + rows - 1;
      const uint32_t keys = p.causal ? std::min(lkv, last + 1) : lkv;
      padded += round_up(keys, a.tile_n) * a.tile_m;
    }
    // S = Q K^T and O = P V: head_dim (padded: d, whole tiles of tiling.k) MACs per query-key
    // pair, each; with several head tiles S is computed again for each of O's column blocks.
    const uint64_t tiles = head_tiles(), d = tiles * a.tile_k;
    l.macs = 2 * useful * m_.head_dim * m_.heads;
    l.padded_macs = (tiles + 1) * padded * d * m_.heads;
    l.least_bytes = least_traffic_bytes(p, m_.head_dim);
    if (m_.head_dim < d)
      plan_.notes.push_back("attention: head_dim " + std::to_string(m_.head_dim) + " zero-padded to " +
                            std::to_string(d) + " (whole tiles of tiling.k " + std::to_string(a.tile_k) + ")");
    if (tiles > 1)
      note("attention: head_dim " + std::to_string(m_.head_dim) + " over " + std::to_string(tiles) +
           " tiles of tiling.k: S summed over them, O stored one column block of " + std::to_string(a.tile_k) +
           " at a time, the key loop (S and the softmax) run again for each");
    if (m_.attn_softcap > 0)
      plan_.notes.push_back("attention: the model's score soft-cap (" + std::to_string(int(m_.attn_softcap)) +
                            " tanh(s / cap)) is not applied: the softmax unit has no tanh step, so the cycles are "
                            "the model's and the scores are not");
    plan_.kernels.push_back(l);
  }

  // head_dim beyond one reduction tile: per query head, S = Q K^T and O = P V as matmuls over
  // every key the step sees, the mask and the softmax of S on the host (S leaves the chip).
  void unfused_attention() {
    const uint32_t t = w_.tokens;
    uint32_t keys = w_.stage == Stage::kDecode ? w_.context + t : t;
    if (window_ && w_.stage == Stage::kDecode && keys > window_) keys = window_;
    const std::string why = !g_.attention
                                ? "the design has no fused attention kernel"
                                : "head_dim " + std::to_string(m_.head_dim) +
                                      " on the fused kernel: " + head_tiles_unsupported_why(g_, head_tiles(), false);
    note("attention: " + why + ": per query head, S = Q K^T and O = P V as matmuls over all " + std::to_string(keys) +
         " keys, the causal or window mask and the softmax on the host");
    // The pairs a query sees (causal: the keys up to its own position); the rest is masked work.
    const uint32_t q_pos0 = keys - t;
    uint64_t pairs = 0;
    for (uint32_t i = 0; i < t; ++i) pairs += m_.encoder ? keys : std::min(keys, q_pos0 + i + 1);
    for (int pass = 0; pass < 2; ++pass) {
      const bool s = pass == 0;
      matmul(s ? "attention_scores" : "attention_values", t, s ? keys : m_.head_dim, s ? m_.head_dim : keys);
      KernelLaunch& l = plan_.kernels.back();
      l.count *= m_.heads;
      l.macs = pairs * m_.head_dim * m_.heads, l.padded_macs *= m_.heads, l.least_bytes *= m_.heads;
      if (s) host("score mask and softmax", uint64_t(t) * keys * m_.heads);
    }
  }

  // A gated or plain FFN of `width` over `t` tokens (the fused FFN kernel on a fused core whose
  // reduction tile holds hidden); its launches are named with `prefix`
  // (the experts' "expert_").
  void ffn(const std::string& prefix, uint32_t t, uint32_t width) {
    if (g_.attention && m_.hidden <= g_.spec.array_a.tile_k && 256 % g_.spec.array_a.tile_k == 0) {
      fused_ffn(prefix, t, width);
      return;
    }
    const std::string over = prefix + "ffn: hidden " + std::to_string(m_.hidden) +
                             " exceeds one reduction tile (tiling.k " + std::to_string(g_.spec.array_a.tile_k) +
                             "): W1" + (m_.gated_ffn ? "/W3" : "") + " and W2 run as matmuls, ";
    const std::string act = m_.activation + (m_.gated_ffn ? " and gate product" : "");
    const std::string why_host = epilogue_unsupported_why(g_, m_.gated_ffn);
    if (why_host.empty()) {
      note(over + "the " + act + " in W1's epilogue on the accelerator");
      MatmulEpilogue e;
      e.activation = m_.activation;
      e.gated = m_.gated_ffn;
      // A W1 bias comes before the activation, inside the epilogue's reach: it is folded into
      // the reduction, X with a column of ones (written by the norm before it), W1 with the
      // bias as one more row, in accumulator units.
      const uint32_t k = m_.hidden + (m_.biases ? 1 : 0);
      if (m_.biases) note(prefix + "ffn: the W1 bias folded into W1's reduction (k = hidden + 1)");
      matmul(prefix + (m_.gated_ffn ? "w1_w3_act" : "w1_act"), t, width, k, e);
      plan_.kernels.back().macs = uint64_t(t) * width * (m_.gated_ffn ? 2 : 1) * m_.hidden;
    } else {
      note(over + "the " + act + " on the host (" + why_host + ")");
      matmul(prefix + (m_.gated_ffn ? "w1_w3" : "w1"), t, (m_.gated_ffn ? 2 : 1) * width, m_.hidden);
      if (m_.biases) host(prefix + "w1 bias", uint64_t(t) * width);
      host(prefix + act, uint64_t(t) * width * (m_.gated_ffn ? 2 : 1));
    }
    matmul(prefix + "w2", t, m_.hidden, width);
    if (m_.biases) host(prefix + "w2 bias", uint64_t(t) * m_.hidden);
  }

  // The fused FFN kernel (hidden within one reduction tile).
  void fused_ffn(const std::string& prefix, uint32_t t, uint32_t width) {
    KernelLaunch l;
    l.name = prefix + "ffn";
    l.kind = KernelKind::kFfn;
    l.ffn.tokens = t;
    l.ffn.ffn = width;
    l.ffn.gated = m_.gated_ffn;
    l.ffn.activation = m_.activation;
    l.ffn.residual = false;
    const uint64_t mats = m_.gated_ffn ? 3 : 2;
    l.macs = mats * t * m_.hidden * width;
    l.padded_macs =
        mats * round_up(t, g_.spec.array_a.tile_m) * g_.spec.array_a.tile_k * round_up(width, g_.spec.array_a.tile_n);
    l.least_bytes = least_traffic_bytes(l.ffn, m_.hidden);
    if (m_.biases) host(prefix + "FFN biases", uint64_t(t) * (width + m_.hidden));
    plan_.kernels.push_back(l);
  }

  // The router and each expert's FFN over the tokens routed to it.
  void experts() {
    const uint32_t t = w_.tokens;
    const MoeConfig& e = m_.moe;
    matmul("router", t, e.experts, m_.hidden);
    host("router softmax and top-k", uint64_t(t) * e.experts);
    host("token dispatch to experts", uint64_t(t) * e.per_token * m_.hidden);
    const std::vector<uint32_t> routed = w_.routing.tokens_per_expert(t, e.experts, e.per_token);
    uint32_t active = 0, most = 0;
    for (uint32_t n : routed) {
      if (n == 0) continue;
      ++active, most = std::max(most, n);
      ffn("expert_", n, e.ffn);
    }
    host("expert outputs weighted and summed", uint64_t(t) * e.per_token * m_.hidden);
    const double mean = double(t) * e.per_token / e.experts;
    const uint64_t weight_bytes = uint64_t(active) * (m_.gated_ffn ? 3 : 2) * m_.hidden * e.ffn;
    std::ostringstream s;
    s << "experts: " << t << " tokens x top-" << e.per_token << " of " << e.experts << " experts (" << w_.routing.name
      << " routing): " << active << " experts active, the busiest takes " << most << " (max / mean " << std::fixed
      << std::setprecision(2) << most / mean << "), expert weights read " << weight_bytes / 1e6 << " MB per layer";
    note(s.str());
  }

  // A note, once per plan (an FFN per expert would repeat its own).
  void note(const std::string& text) {
    if (std::find(plan_.notes.begin(), plan_.notes.end(), text) == plan_.notes.end()) plan_.notes.push_back(text);
  }

  static std::string percent(uint64_t part, uint64_t whole) {
    return std::to_string(whole ? (part * 1000 / whole + 5) / 10 : 0) + " %";
  }

  const Graph& g_;
  const ModelConfig& m_;
  const LayerWorkload& w_;
  const std::string where_;
  const uint32_t window_;  // this layer's sliding window (0: every key)
  LayerPlan plan_;
};

}  // namespace

std::vector<uint32_t> ExpertRouting::tokens_per_expert(uint32_t tokens, uint32_t experts, uint32_t per_token) const {
  FSGEN_ASSERT(per_token <= experts && (shares.empty() || shares.size() == experts), "a routing of the experts");
  std::vector<double> share(experts);
  for (uint32_t i = 0; i < experts; ++i) share[i] = shares.empty() ? std::pow(1.0 + i, -skew) : shares[i];
  // Water-filling: an expert whose share asks for more than every token gets every token, and
  // the rest is spread over the others in proportion to their shares.
  std::vector<double> want(experts, 0.0);
  std::vector<bool> full(experts, false);
  double left = double(tokens) * per_token;
  for (bool capped = true; capped;) {
    capped = false;
    double open = 0;
    for (uint32_t i = 0; i < experts; ++i) open += full[i] ? 0 : share[i];
    for (uint32_t i = 0; i < experts && open > 0; ++i)
      if (!full[i]) want[i] = left * share[i] / open;
    for (uint32_t i = 0; i < experts; ++i)
      if (!full[i] && want[i] > tokens) full[i] = capped = true, want[i] = tokens, left -= tokens;
  }
  std::vector<uint32_t> n(experts);
  uint64_t given = 0;
  for (uint32_t i = 0; i < experts; ++i) given += n[i] = uint32_t(std::floor(want[i] + 1e-9));
  std::vector<uint32_t> order(experts);
  for (uint32_t i = 0; i < experts; ++i) order[i] = i;
  std::stable_sort(order.begin(), order.end(), [&](uint32_t a, uint32_t b) { return want[a] - n[a] > want[b] - n[b]; });
  for (uint32_t i = 0; given < uint64_t(tokens) * per_token; i = (i + 1) % experts)
    if (n[order[i]] < tokens) ++n[order[i]], ++given;
  return n;
}

LayerPlan lower_layer(const Graph& g, const ModelConfig& m, const LayerWorkload& w) {
  return LayerLowering(g, m, w).run();
}

}  // namespace fsgen
