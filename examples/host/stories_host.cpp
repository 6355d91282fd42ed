// A host program on the virtual prototype (docs/VP.md): stories260K generates text token by
// token through the driver. The host does what a CPU beside the accelerator does (the
// embedding, RMS norms, RoPE, the KV cache's bookkeeping, the classifier and the greedy
// choice of the next token); every projection, attention and FFN kernel is compiled and
// launched through the driver on one SystemC platform, whose core is the models of its blocks
// or (platform `rtl`) the design's Verilated RTL (built under rtl_out/). Prints the generated
// tokens beside the FP32 model's, and the kernel timeline of the first decode step.
//
//   fsgen_stories_host [spec] [checkpoint] [tokens] [models|rtl]
//   (defaults: examples/attn_d16.yaml ../shared/models/stories260K.bin 24 models)
#include <chrono>
#include <cstdlib>
#include <iomanip>
#include <iostream>
#include <string>

#include "compiler/checkpoint.h"
#include "compiler/decoder_forward.h"
#include "core/error.h"
#include "example_main.h"
#include "generator/spec.h"
#include "models/platform.h"
#include "sim/core_backend.h"
#include "sim/llama_inference.h"
#include "sim/mixed_sim.h"
#include "vp/driver.h"

namespace {

struct Launch {
  std::string kernel;
  uint64_t start_cycle = 0, cycles = 0;
};

struct Generation {
  std::vector<int> tokens;
  std::vector<Launch> timeline;  // the launches of the first decode step
  uint64_t kernel_cycles = 0, launches = 0, host_cycles = 0;
};

std::string joined(const std::vector<int>& tokens) {
  std::string s;
  for (int t : tokens) s += (s.empty() ? "" : " ") + std::to_string(t);
  return s;
}

// Greedy generation from BOS, every kernel through the driver.
Generation generate(const fsgen::Graph& g, const fsgen::DecoderCheckpoint& m, const fsgen::Calibration& cal,
                    uint32_t length, fsgen::Accelerator& device) {
  fsgen::Driver driver(device);
  Generation out;
  bool timing = false;
  fsgen::CoreBackend core(g, m, cal, [&](const fsgen::Program& p) {
    const uint64_t start = device.now_cycles();
    const fsgen::KernelRun k = driver.run(p);
    if (timing) out.timeline.push_back({p.kernel, start, k.cycles});
    fsgen::RunResult r;
    r.cycles = k.cycles;
    r.outputs = k.outputs;
    return r;
  });
  fsgen::DecoderForward acc(m, core);
  const uint32_t vocab = uint32_t(m.config().vocab_size);
  out.tokens = {fsgen::kBosToken};
  std::vector<float> logits = acc.step(out.tokens);
  while (out.tokens.size() < length) {
    out.tokens.push_back(fsgen::argmax_token(logits, vocab, uint32_t(logits.size() / vocab) - 1));
    timing = out.tokens.size() == 2;
    logits = acc.step({out.tokens.back()});
  }
  out.kernel_cycles = core.cycles();
  out.launches = driver.launches();
  out.host_cycles = device.now_cycles();
  return out;
}

int run(int argc, char** argv) {
  const std::string spec = argc > 1 ? argv[1] : "examples/attn_d16.yaml";
  const std::string checkpoint = argc > 2 ? argv[2] : "../shared/models/stories260K.bin";
  const uint32_t length = argc > 3 ? uint32_t(std::stoul(argv[3])) : 24;
  const std::string platform = argc > 4 ? argv[4] : "models";
  if (platform != "models" && platform != "rtl")
    fsgen::fail("platform '" + platform + "'", "expected models or rtl (the core as its Verilated RTL)");
  const fsgen::Graph g = fsgen::elaborate(fsgen::parse_spec_file(spec));
  fsgen::HostOptions options;
  if (platform == "rtl") options.sim = fsgen::build_rtl_options(g, {{fsgen::kWholeCore, ""}}, "rtl_out");
  const fsgen::DecoderCheckpoint m(checkpoint);
  const auto t0 = std::chrono::steady_clock::now();
  const std::vector<int> reference = fsgen::greedy_tokens(m, {fsgen::kBosToken}, length, 0);
  const fsgen::Calibration cal = fsgen::calibrate_int8_scales(m, length, 0);
  Generation gen;
  fsgen::run_host_on_systemc_in_process(g, options,
                                        [&](fsgen::Accelerator& a) { gen = generate(g, m, cal, length, a); });
  const double wall = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  uint32_t agree = 0;
  for (size_t i = 0; i < reference.size(); ++i) agree += reference[i] == gen.tokens[i];
  std::cout << checkpoint << " on " << g.spec.name << " (fsgen SystemC/TLM-2.0 platform"
            << (platform == "rtl" ? " with the core as its Verilated RTL" : "") << ", INT8 kernels through the "
            << "driver; host: embedding, norms, RoPE, classifier, greedy choice)\n"
            << "  tokens, accelerator: " << joined(gen.tokens) << "\n"
            << "  tokens, FP32:        " << joined(reference) << "\n"
            << "  equal at " << agree << " of " << length << " positions\n"
            << "  " << gen.launches << " kernel launches, " << gen.kernel_cycles << " accelerator cycles busy of "
            << gen.host_cycles << " simulated, wall " << std::fixed << std::setprecision(1) << wall << " s\n"
            << "  first decode step's kernels (start cycle, cycles):\n";
  for (const Launch& l : gen.timeline)
    std::cout << "    " << std::setw(12) << l.start_cycle << std::setw(10) << l.cycles << "  " << l.kernel << "\n";
  return 0;
}

}  // namespace

int main(int argc, char** argv) { return run_example("fsgen_stories_host", run, argc, argv); }
