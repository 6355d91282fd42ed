#include "sim/core_backend.h"

#include <algorithm>
#include <cmath>

#include "compiler/attention.h"
#include "compiler/matmul.h"
#include "compiler/quantize.h"
#include "core/error.h"
#include "core/statistics.h"
#include "models/platform.h"

namespace fsgen {

CoreBackend::CoreBackend(const Graph& g, const DecoderCheckpoint& m, Calibration cal, KernelRunner runner)
    : g_(g), m_(m), cal_(std::move(cal)), runner_(std::move(runner)) {
  if (!runner_)
    runner_ = [this](const Program& p) {
      SimOptions opts;
      opts.keep_events = false;
      return run_on_systemc(g_, p, opts);
    };
  const CheckpointConfig& c = m.config();
  if (!g.attention) fail("design '" + g.spec.name + "'", "the fused attention kernel is not built");
  if (uint32_t(c.head_dim()) > g.spec.array_a.tile_k)
    fail("design '" + g.spec.name + "'", "head_dim " + std::to_string(c.head_dim()) + " exceeds arrays.a.tiling.k " +
                                             std::to_string(g.spec.array_a.tile_k));
  if (cal_.ranges.size() < size_t(c.n_layers) || cal_.channels.size() < size_t(c.n_layers))
    fail("calibration", "expected ranges for every layer");
}

float CoreBackend::scale(int layer, const std::string& point) const {
  const auto& r = cal_.ranges.at(size_t(layer));
  auto it = r.find(point);
  FSGEN_ASSERT(it != r.end(), "calibration point missing");
  return int8_scale(it->second);
}

void CoreBackend::smooth(int layer, Linear which, PackedWeight& w, QuantWeight& q) const {
  const auto& ch = cal_.channels.at(size_t(layer));
  auto it = ch.find(which);
  FSGEN_ASSERT(it != ch.end() && it->second.size() == w.in, "calibration channels missing");
  float in_max = 0;
  q.smooth.assign(w.in, 1.0f);
  for (uint32_t c = 0; c < w.in; ++c) {
    float w_max = 0;
    for (uint32_t o = 0; o < w.out; ++o) w_max = std::max(w_max, std::fabs(w.w[size_t(o) * w.in + c]));
    const float x_max = it->second[c];
    if (x_max > 0 && w_max > 0) q.smooth[c] = std::sqrt(x_max / w_max);
    for (uint32_t o = 0; o < w.out; ++o) w.w[size_t(o) * w.in + c] *= q.smooth[c];
    in_max = std::max(in_max, x_max / q.smooth[c]);
  }
  q.in_scale = int8_scale(in_max);
}

const CoreBackend::QuantWeight& CoreBackend::weight(int layer, Linear which) {
  auto it = weights_.find({layer, which});
  if (it != weights_.end()) return it->second;
  PackedWeight w = packed_weight(m_, layer, which);
  const std::string name = linear_name(which);
  QuantWeight q;
  q.out = w.out;
  q.in = w.in;
  q.n = uint32_t(round_up(w.out, g_.matmul_tile_n()));
  q.k = uint32_t(round_up(w.in, g_.spec.array_a.tile_k));
  smooth(layer, which, w, q);
  // ratio: the smallest weight-to-output scale ratio that keeps every part's codes in range.
  std::vector<float> max_w, out_s;
  double ratio = 0;
  const float* rows = w.w.data();
  for (const auto& part : w.parts) {
    float mx = 0;
    for (size_t i = 0; i < size_t(part.rows) * w.in; ++i) mx = std::max(mx, std::fabs(rows[i]));
    rows += size_t(part.rows) * w.in;
    max_w.push_back(mx);
    out_s.push_back(scale(layer, name + ".out." + part.name));
    ratio = std::max(ratio, double(int8_scale(mx)) / out_s.back());
  }
  q.requant = choose_requant(double(q.in_scale) * ratio);
  q.b.assign(size_t(q.k) * q.n, 0);
  uint32_t col = 0;
  for (size_t p = 0; p < w.parts.size(); ++p) {
    const float w_scale = float(ratio * out_s[p]);
    for (uint32_t o = col; o < col + w.parts[p].rows; ++o) {
      const std::vector<int8_t> codes = quantize_int8(w.w.data() + size_t(o) * w.in, w.in, w_scale);
      for (uint32_t i = 0; i < w.in; ++i) q.b[size_t(i) * q.n + o] = codes[i];
      q.out_scale.push_back(out_s[p]);
    }
    col += w.parts[p].rows;
  }
  return weights_.emplace(std::make_pair(layer, which), std::move(q)).first->second;
}

std::vector<uint8_t> CoreBackend::run(const std::string& kernel, int layer, const Program& p, std::vector<uint8_t> expected) {
  const RunResult r = runner_(p);
  cycles_ += r.cycles;
  kernel_cycles_[kernel] += r.cycles;
  for (const auto& [block, a] : r.sparse) sparse_[block] += a;
  ++launches_;
  const std::vector<uint8_t>& out = r.outputs.at(p.outputs.front().name);
  if (out != expected) ++mismatches_;
  if (layer == keep_layer_) kept_.push_back({kernel, layer, p, std::move(expected)});
  return out;
}

void CoreBackend::linear(int layer, Linear which, const std::vector<float>& x, uint32_t t, std::vector<float>& y) {
  const QuantWeight& w = weight(layer, which);
  MatmulProblem p;
  // The t token rows as they are (a compressed A's metadata covers whole tiles: padded).
  p.m = g_.sparse.memory.compresses("x") ? uint32_t(round_up(t, g_.spec.array_a.tile_m)) : t;
  p.n = w.n;
  p.k = w.k;
  p.req_mult = w.requant.mult;
  p.req_shift = w.requant.shift;
  std::vector<float> xs(x.size());
  for (size_t i = 0; i < x.size(); ++i) xs[i] = x[i] / w.smooth[i % w.in];
  const std::vector<int8_t> codes = quantize_int8(xs.data(), xs.size(), w.in_scale);
  std::vector<int8_t> a(size_t(p.m) * p.k, 0);
  for (uint32_t r = 0; r < t; ++r)
    std::copy_n(codes.data() + size_t(r) * w.in, w.in, a.data() + size_t(r) * p.k);
  const Program prog = compile_matmul(g_, p, a, w.b);
  const std::vector<uint8_t> c = run(linear_name(which), layer, prog, matmul_expected(prog, p));
  y.assign(size_t(t) * w.out, 0.0f);
  for (uint32_t r = 0; r < t; ++r)
    for (uint32_t o = 0; o < w.out; ++o) y[size_t(r) * w.out + o] = float(int8_t(c[size_t(r) * p.n + o])) * w.out_scale[o];
}

void CoreBackend::attention(int layer, const std::vector<float>& q, uint32_t t, uint32_t pos0, const std::vector<float>& k,
                            const std::vector<float>& v, std::vector<float>& o) {
  const CheckpointConfig& c = m_.config();
  const uint32_t hd = c.head_dim(), heads = c.n_heads, kvh = c.n_kv_heads, d = g_.spec.array_a.tile_k, lkv = pos0 + t;
  const float sq = scale(layer, "q"), sk = scale(layer, "k"), sv = scale(layer, "v");
  // [position][head][hd] (host layout) -> [head][position][d] codes, head_dim zero-padded to d.
  auto head_major = [&](const std::vector<float>& x, uint32_t rows, uint32_t nh, float s) {
    const std::vector<int8_t> codes = quantize_int8(x.data(), size_t(rows) * nh * hd, s);
    std::vector<int8_t> out(size_t(nh) * rows * d, 0);
    for (uint32_t r = 0; r < rows; ++r)
      for (uint32_t h = 0; h < nh; ++h)
        std::copy_n(codes.data() + (size_t(r) * nh + h) * hd, hd, out.data() + (size_t(h) * rows + r) * d);
    return out;
  };
  AttentionOperands ops;
  ops.q = head_major(q, t, heads, sq);
  ops.k = head_major(k, lkv, kvh, sk);
  ops.v = head_major(v, lkv, kvh, sv);
  AttentionProblem p;
  p.stage = pos0 > 0 ? Stage::kDecode : Stage::kPrefill;
  p.q_heads = heads;
  p.kv_heads = kvh;
  p.tokens = t;
  p.context = pos0;
  p.residual = false;
  p.score_scale = double(sq) * sk / std::sqrt(double(hd));
  const CompiledAttention ca = compile_attention(g_, p, ops);
  const std::vector<uint8_t> out = run("attention", layer, ca.program, ca.expected);
  o.assign(size_t(t) * heads * hd, 0.0f);
  for (uint32_t h = 0; h < heads; ++h)
    for (uint32_t r = 0; r < t; ++r)
      for (uint32_t i = 0; i < hd; ++i)
        o[(size_t(r) * heads + h) * hd + i] = float(int8_t(out[(size_t(h) * t + r) * d + i])) * sv;
}

}  // namespace fsgen
