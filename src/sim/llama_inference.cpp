#include "sim/llama_inference.h"

#include <algorithm>
#include <chrono>
#include <iomanip>
#include <optional>

#include "compiler/decoder_forward.h"
#include "core/error.h"
#include "flow/verilator.h"
#include "models/platform.h"
#include "sim/core_backend.h"

namespace fsgen {

std::vector<int> greedy_tokens(const DecoderCheckpoint& m, std::vector<int> start, uint32_t length, uint32_t layers) {
  Fp32Backend b(m);
  DecoderForward f(m, b, layers);
  std::vector<int> tokens = start;
  std::vector<float> logits = f.step(start);
  while (tokens.size() < length) {
    tokens.push_back(argmax_token(logits, uint32_t(m.config().vocab_size), uint32_t(logits.size() / m.config().vocab_size) - 1));
    logits = f.step({tokens.back()});
  }
  tokens.resize(length);
  return tokens;
}

Calibration calibrate_int8_scales(const DecoderCheckpoint& m, uint32_t length, uint32_t layers) {
  Fp32Backend b(m);
  for (int second : {100, 200, 300, 400}) {
    DecoderForward f(m, b, layers);
    for (int t : greedy_tokens(m, {kBosToken, second % m.config().vocab_size}, length, layers)) f.step({t});
  }
  return b.calibration();
}

namespace {

void replay_on_rtl(const Graph& g, const CoreBackend& core, const std::string& rtl_root, InferenceReport& r) {
  for (const auto& l : core.kept()) {
    const RunResult sc = run_on_systemc(g, l.program);
    const RunResult rtl = run_on_verilator(g, l.program, rtl_root);
    CosimReport rep = compare_runs(g, l.program, l.expected, sc, rtl);
    rep.kernel = "layer " + std::to_string(l.layer) + " " + l.kernel + ": " + rep.kernel;
    r.rtl.push_back(rep);
  }
}

}  // namespace

InferenceReport run_inference(const Graph& g, const DecoderCheckpoint& m, const InferenceOptions& o) {
  const auto t0 = std::chrono::steady_clock::now();
  const CheckpointConfig& c = m.config();
  const uint32_t layers = o.layers ? o.layers : uint32_t(c.n_layers), length = o.prompt + o.generate;
  if (o.prompt == 0) fail("--prompt", "expected at least one prompt token");
  if (layers > uint32_t(c.n_layers)) fail("--layers", std::to_string(layers) + " exceeds the model's " + std::to_string(c.n_layers));
  if (length > uint32_t(c.seq_len)) fail("--prompt", "prompt plus generated tokens exceed the model's " + std::to_string(c.seq_len));

  InferenceReport r;
  r.design = g.spec.name;
  r.prompt = o.prompt;
  r.generate = o.generate;
  r.layers = layers;
  r.prune = o.prune;
  // The evaluated text is the dense model's; the core and its reference run `model`.
  const std::vector<int> tokens = greedy_tokens(m, {kBosToken}, length, layers);
  std::optional<DecoderCheckpoint> pruned;
  if (o.prune.active()) pruned.emplace(m).prune_linear_weights(o.prune);
  const DecoderCheckpoint& model = pruned ? *pruned : m;
  Fp32Backend ref_backend(model), dense_backend(m);
  CoreBackend core(g, model, calibrate_int8_scales(model, length, layers));
  DecoderForward ref(model, ref_backend, layers), acc(model, core, layers), dense(m, dense_backend, layers);
  if (!o.rtl_root.empty()) core.keep_layer(0);
  r.cosine_min.assign(layers, 1.0);
  r.cosine_mean.assign(layers, 0.0);
  uint32_t steps = 0;
  for (uint32_t pos = 0; pos < length; ++steps) {
    const uint32_t t = pos == 0 ? o.prompt : 1;
    const std::vector<int> in(tokens.begin() + pos, tokens.begin() + pos + t);
    const std::vector<float> lr = ref.step(in), la = acc.step(in);
    const std::vector<float> ld = o.prune.active() ? dense.step(in) : lr;
    core.stop_keeping();
    for (uint32_t l = 0; l < layers; ++l) {
      const double cs = cosine_similarity(ref.layer_output(int(l)), acc.layer_output(int(l)));
      r.cosine_min[l] = std::min(r.cosine_min[l], cs);
      r.cosine_mean[l] += cs;
    }
    for (uint32_t row = 0; row < t; ++row, ++r.positions) {
      const int next = argmax_token(lr, uint32_t(c.vocab_size), row);
      r.agree += next == argmax_token(la, uint32_t(c.vocab_size), row);
      r.pruned_agree += next == argmax_token(ld, uint32_t(c.vocab_size), row);
    }
    pos += t;
  }
  for (auto& v : r.cosine_mean) v /= steps;
  r.cycles = core.cycles();
  r.launches = core.launches();
  r.mismatches = core.mismatches();
  r.kernel_cycles = core.cycles_by_kernel();
  r.sparse = core.sparse();
  if (!o.rtl_root.empty()) replay_on_rtl(g, core, o.rtl_root, r);
  r.wall_seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  return r;
}

void print_inference(const InferenceReport& r, std::ostream& out) {
  out << "model " << r.model << " on design " << r.design << ": " << r.layers << " layer(s), prefill of " << r.prompt
      << " tokens then " << r.generate << " decode step(s)\n"
      << "  INT8 kernels on the fsgen SystemC/TLM-2.0 platform against the FP32 reference (same tokens)\n"
      << "  residual stream cosine similarity per layer (min / mean over steps):\n"
      << std::fixed << std::setprecision(4);
  for (size_t l = 0; l < r.cosine_min.size(); ++l)
    out << "    layer " << l << "  " << r.cosine_min[l] << " / " << r.cosine_mean[l] << "\n";
  out << "  next-token agreement  " << r.agree << " of " << r.positions << " positions ("
      << std::setprecision(1) << 100.0 * r.agreement() << " %)\n";
  if (r.prune.active())
    out << "  weights pruned " << r.prune.n << ":" << r.prune.m << " by magnitude along k (both models above); the pruned FP32 "
        << "model's next token equals the dense FP32 model's at " << r.pruned_agree << " of " << r.positions
        << " positions\n";
  out
      << "  kernel launches       " << r.launches << ", outputs equal to the C++ reference of the numerics: "
      << r.launches - r.mismatches << " of " << r.launches << "\n"
      << "  accelerator cycles    " << r.cycles << " (";
  bool first = true;
  for (const auto& [k, cyc] : r.kernel_cycles) out << (first ? "" : ", ") << k << " " << cyc, first = false;
  out << ")\n";
  for (const auto& rep : r.rtl)
    out << "  Verilated RTL: " << rep.kernel << ": " << (rep.pass() ? "outputs, cycles and toggles equal" : "MISMATCH")
        << "\n";
  out << "  wall " << std::setprecision(2) << r.wall_seconds << " s\n" << std::defaultfloat;
}

}  // namespace fsgen
