// A host program on the virtual prototype (docs/VP.md): one transformer layer with synthetic
// INT8 weights, lowered onto the design (compiler/layer.h) and launched kernel by kernel
// through the driver on one SystemC platform; prints the kernel timeline (start cycle, busy
// cycles, the launch) and the work the layer leaves to the host.
//
//   fsgen_layer_host [spec] [model] [prefill|decode] [tokens] [context]
//   (defaults: examples/llm_16x16.yaml Llama-2-7b decode 1 128)
#include <chrono>
#include <iomanip>
#include <iostream>
#include <string>

#include "compiler/layer.h"
#include "compiler/model_config.h"
#include "core/error.h"
#include "example_main.h"
#include "generator/spec.h"
#include "models/platform.h"
#include "vp/driver.h"

namespace {

struct Launch {
  std::string name, kernel;
  uint64_t start_cycle = 0, cycles = 0;
};

fsgen::Program compiled(const fsgen::Graph& g, const fsgen::KernelLaunch& k) {
  switch (k.kind) {
    case fsgen::KernelKind::kMatmul:
      return fsgen::compile_matmul(g, k.matmul);
    case fsgen::KernelKind::kAttention:
      return fsgen::compile_attention(g, k.attention).program;
    case fsgen::KernelKind::kFfn:
      return fsgen::compile_ffn(g, k.ffn).program;
  }
  return {};
}

// Every launch of the plan through the driver (a launch repeated `count` times runs as often).
std::vector<Launch> run_layer(const fsgen::Graph& g, const fsgen::LayerPlan& plan, fsgen::Accelerator& device) {
  fsgen::Driver driver(device);
  std::vector<Launch> timeline;
  for (const fsgen::KernelLaunch& k : plan.kernels) {
    const fsgen::Program p = compiled(g, k);
    for (uint32_t i = 0; i < k.count; ++i) {
      const uint64_t start = device.now_cycles();
      timeline.push_back({k.name, p.kernel, start, driver.run(p).cycles});
    }
  }
  return timeline;
}

uint64_t memory_for(const fsgen::Graph& g, const fsgen::LayerPlan& plan) {
  uint64_t most = 0;
  for (const fsgen::KernelLaunch& k : plan.kernels) most = std::max(most, compiled(g, k).memory_bytes());
  return most + (uint64_t(1) << 20);
}

int run(int argc, char** argv) {
  const std::string spec = argc > 1 ? argv[1] : "examples/llm_16x16.yaml";
  const std::string model = argc > 2 ? argv[2] : "Llama-2-7b";
  const std::string stage = argc > 3 ? argv[3] : "decode";
  fsgen::LayerWorkload w;
  w.stage = stage == "prefill" ? fsgen::Stage::kPrefill : fsgen::Stage::kDecode;
  if (stage != "prefill" && stage != "decode") fsgen::fail("stage '" + stage + "'", "expected prefill or decode");
  w.tokens = argc > 4 ? uint32_t(std::stoul(argv[4])) : 1;
  w.context = argc > 5 ? uint32_t(std::stoul(argv[5])) : 128;
  const fsgen::Graph g = fsgen::elaborate(fsgen::parse_spec_file(spec));
  const fsgen::LayerPlan plan = fsgen::lower_layer(g, fsgen::model_config_by_name(model), w);
  fsgen::HostOptions o;
  o.memory_bytes = memory_for(g, plan);
  const auto t0 = std::chrono::steady_clock::now();
  std::vector<Launch> timeline;
  fsgen::run_host_on_systemc_in_process(g, o, [&](fsgen::Accelerator& a) { timeline = run_layer(g, plan, a); });
  const double wall = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  uint64_t busy = 0;
  std::cout << model << " layer 0, " << stage << " of " << w.tokens << " token(s)"
            << (w.stage == fsgen::Stage::kDecode ? " at context " + std::to_string(w.context) : "") << ", on "
            << g.spec.name << " (fsgen SystemC/TLM-2.0 platform, synthetic INT8 weights, kernels through the driver)\n"
            << "  start cycle      cycles  launch\n";
  for (const Launch& l : timeline) {
    std::cout << "  " << std::setw(11) << l.start_cycle << std::setw(12) << l.cycles << "  " << l.name << ": "
              << l.kernel << "\n";
    busy += l.cycles;
  }
  std::cout << "  " << timeline.size() << " launches, " << busy << " accelerator cycles busy, wall " << std::fixed
            << std::setprecision(1) << wall << " s (with the operands' generation)\n  host work: ";
  for (size_t i = 0; i < plan.host.size(); ++i) std::cout << (i ? ", " : "") << plan.host[i].name;
  std::cout << "\n";
  return 0;
}

}  // namespace

int main(int argc, char** argv) { return run_example("fsgen_layer_host", run, argc, argv); }
