#include "vp/driver.h"

#include <algorithm>
#include <filesystem>
#include <nlohmann/json.hpp>

#include "compiler/attention.h"
#include "compiler/matmul.h"
#include "core/regmap.h"
#include "models/platform.h"
#include "sim/mixed_sim.h"
#include "test_util.h"

namespace fsgen {
namespace {

// A host program on the platform in a child process; what it returns comes back as text.
std::string on_platform(const Graph& g, const std::function<std::string(Driver&)>& host, HostOptions o = {}) {
  return run_in_simulation_process([&] {
    std::string answer;
    run_host_on_systemc_in_process(g, o, [&](Accelerator& a) {
      Driver d(a);
      answer = host(d);
    });
    return answer;
  });
}

// The platform with the whole core as its Verilated RTL (fsgen simulate --rtl core's build).
HostOptions on_verilated_core(const Graph& g) {
  HostOptions o;
  o.sim = build_rtl_options(g, {{kWholeCore, ""}}, test::rtl_root());
  return o;
}

#define REQUIRE_VERILATOR() \
  if (!test::have_tool("verilator")) GTEST_SKIP() << "verilator not installed (scripts/install-deps.sh)"

nlohmann::json run_json(const KernelRun& k) {
  nlohmann::json j = {{"cycles", k.cycles}};
  for (const auto& [name, bytes] : k.outputs) j["outputs"][name] = bytes;
  return j;
}

// Kernels launched one after another through the driver on one platform (a matmul, then
// attention, then the matmul again, each with its buffers allocated, its addresses moved
// onto them and released) give the outputs and cycles of each program run on a platform of
// its own.
void expect_kernels_run_as_on_platforms_of_their_own(const Graph& g, const HostOptions& o) {
  MatmulProblem mm;
  mm.m = 16, mm.n = 16, mm.k = 32;
  const Program matmul = compile_matmul(g, mm);
  AttentionProblem at;
  at.tokens = 16;
  const Program attention = compile_attention(g, at).program;
  const nlohmann::json runs = nlohmann::json::parse(on_platform(g, [&](Driver& d) {
    const uint64_t free = d.free_bytes();
    const DeviceBuffer held = d.allocate(5000, "held");  // two pages, kept across the kernels
    nlohmann::json j = nlohmann::json::array();
    for (const Program* p : {&matmul, &attention, &matmul}) j.push_back(run_json(d.run(*p)));
    d.release(held);
    j.push_back(
        {{"free_before", free}, {"free_after", d.free_bytes()}, {"held", held.addr}, {"launches", d.launches()}});
    return j.dump();
  }, o));
  ASSERT_EQ(runs.size(), 4u);
  for (int i = 0; i < 3; ++i) {
    const Program& p = i == 1 ? attention : matmul;
    const RunResult alone = run_on_systemc(g, p);
    EXPECT_EQ(runs[i]["cycles"].get<uint64_t>(), alone.cycles) << p.kernel;
    for (const auto& [name, bytes] : alone.outputs)
      EXPECT_EQ(runs[i]["outputs"][name].get<std::vector<uint8_t>>(), bytes) << p.kernel << " " << name;
  }
  EXPECT_EQ(runs[3]["held"].get<uint64_t>(), 4096u);
  EXPECT_EQ(runs[3]["free_after"], runs[3]["free_before"]);
  EXPECT_EQ(runs[3]["launches"].get<uint64_t>(), 3u);
}

TEST(Driver, KernelsOnOnePlatformRunAsOnPlatformsOfTheirOwn) {
  expect_kernels_run_as_on_platforms_of_their_own(elaborate(parse_spec_file("examples/os_8x8.yaml")), {});
}

// The same host code on the mixed platform (the arrays and the DMA as their Verilated RTL, the
// instances kept from one kernel to the next).
TEST(Driver, KernelsOnTheMixedPlatformRunAsOnTheModels) {
  REQUIRE_VERILATOR();
  const Graph g = elaborate(parse_spec_file("examples/os_8x8.yaml"));
  HostOptions o;
  o.sim = build_rtl_options(g, {{"array_a", ""}, {"array_b", ""}, {"dma", ""}}, test::rtl_root());
  expect_kernels_run_as_on_platforms_of_their_own(g, o);
}

// The same host code on the platform whose core is its Verilated RTL: each kernel's outputs
// and cycles equal the all-model platform's.
TEST(Driver, KernelsOnTheVerilatedCoreRunAsOnTheModels) {
  REQUIRE_VERILATOR();
  const Graph g = elaborate(parse_spec_file("examples/os_8x8.yaml"));
  expect_kernels_run_as_on_platforms_of_their_own(g, on_verilated_core(g));
}

// Bad accesses are errors naming the address, never a hang: a register offset with no
// register (DECERR), a write to a read-only register (SLVERR), DRAM beyond the platform's,
// a buffer larger than the free memory.
void expect_bad_accesses_are_errors(const Graph& g, const HostOptions& platform) {
  auto error_of = [&](const std::function<void(Driver&)>& host) {
    HostOptions o = platform;
    o.memory_bytes = 1 << 20;
    return test::error_of([&] {
      on_platform(
          g, [&](Driver& d) { return host(d), std::string(); }, o);
    });
  };
  EXPECT_EQ(error_of([](Driver& d) { d.device().write_register(0x200, 1); }),
            "register 0x200: DECERR: no register at this AXI4-Lite address (core/regmap.h)");
  EXPECT_EQ(error_of([](Driver& d) { d.device().read_register(0x3); }),
            "register 0x3: DECERR: no register at this AXI4-Lite address (core/regmap.h)");
  EXPECT_EQ(error_of([](Driver& d) { d.device().write_register(reg::kCycles, 1); }),
            "register 0x38 (cycles): SLVERR: the register is read-only");
  EXPECT_EQ(error_of([](Driver& d) {
              uint8_t b[8] = {};
              d.device().write_memory((1 << 20) - 4, b, 8);
            }),
            "DRAM 0xffffc: host write of 8 bytes beyond the platform's 1048576 bytes of memory");
  EXPECT_EQ(error_of([](Driver& d) { d.allocate(2 << 20, "weights"); }),
            "buffer 'weights': 2097152 bytes: no free range of the device's 1048576 bytes of DRAM holds it "
            "(1044480 bytes free)");
  // A kernel whose operands lie beyond the DRAM: the DMA's burst gets DECERR.
  MatmulProblem mm;
  const Program p = compile_matmul(g, mm);
  EXPECT_EQ(error_of([&](Driver& d) {
              std::vector<RegWrite> regs = p.writes;
              for (RegWrite& w : regs)
                if (w.offset == reg::kAddrA) w.value = 0xFFFC0;
              d.launch(regs);
              d.wait();
            }),
            "DMA read burst at 0x100000: 8 bytes: DECERR, outside off-chip memory");
  // A start whose descriptor is invalid is refused.
  EXPECT_EQ(error_of([&](Driver& d) {
              d.launch({{reg::kKernel, 7}});
            }),
            "register 0x0 (ctrl): SLVERR: the start is refused: kernel 7 is not built into this core (matmul 0, "
            "attention 1, FFN 2)");
  EXPECT_EQ(error_of([&](Driver& d) {
              d.launch({{reg::kTilesM, 1}, {reg::kTilesN, 1}});
            }),
            "register 0x0 (ctrl): SLVERR: the start is refused: a matmul of zero tiles (tiles_m, tiles_n and tiles_k "
            "are at least 1)");
  // The registers read back what was written, at their width.
  const std::string back = on_platform(g, [](Driver& d) {
    d.device().write_register(reg::kReqShift, 0xFFFF);
    d.device().write_register(reg::kAddrA, 0x12345678);
    return std::to_string(d.device().read_register(reg::kReqShift)) + " " +
           std::to_string(d.device().read_register(reg::kAddrA));
  }, platform);
  EXPECT_EQ(back, "31 305419896");
}

TEST(Driver, BadAccessesAreErrorsNamingTheAddress) {
  expect_bad_accesses_are_errors(elaborate(parse_spec_file("examples/os_8x8.yaml")), {});
}

// With the DMA as its RTL, a burst beyond the memory gets DECERR through the pin-to-TLM bridge
// and ends the kernel with the same error; on the Verilated core the register file's RTL answers (OKAY, SLVERR, DECERR
// on its AXI4-Lite pins; offsets beyond its 8 address bits get the interconnect's DECERR) and its DMA's bursts beyond
// the memory get DECERR from the memory through the pin-to-TLM bridge: the same errors.
TEST(Driver, BadAccessesOnRtlAreTheSameErrors) {
  REQUIRE_VERILATOR();
  const Graph g = elaborate(parse_spec_file("examples/os_8x8.yaml"));
  expect_bad_accesses_are_errors(g, on_verilated_core(g));
  HostOptions dma;
  dma.sim = build_rtl_options(g, {{"dma", ""}}, test::rtl_root());
  expect_bad_accesses_are_errors(g, dma);
}

// The host example (examples/host/stories_host.cpp) generates stories260K's tokens through
// the driver: every layer's five kernels per token on one platform.
TEST(Driver, Stories260KGeneratesThroughTheDriver) {
  const char* stories = "../shared/models/stories260K.bin";
  if (!std::filesystem::exists(stories)) GTEST_SKIP() << stories << " not present";
  const test::CliRun r = test::run_program(FSGEN_STORIES_HOST, std::string("examples/attn_d16.yaml ") + stories + " 8");
  ASSERT_EQ(r.status, 0) << r.out;
  EXPECT_NE(r.out.find("tokens, accelerator: 1 "), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("tokens, FP32:        1 "), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("  200 kernel launches, "), std::string::npos) << r.out;  // 8 tokens x 5 layers x 5
  if (test::have_tool("verilator")) {  // the same host code on the Verilated core: the same tokens and busy cycles
    const test::CliRun rtl =
        test::run_program(FSGEN_STORIES_HOST, std::string("examples/attn_d16.yaml ") + stories + " 8 rtl");
    ASSERT_EQ(rtl.status, 0) << rtl.out;
    auto line = [](const std::string& out, const std::string& start) {
      const size_t at = out.find(start);
      return at == std::string::npos ? std::string() : out.substr(at, out.find(" busy", at) - at);
    };
    EXPECT_NE(rtl.out.find("with the core as its Verilated RTL"), std::string::npos) << rtl.out;
    EXPECT_EQ(line(rtl.out, "tokens, accelerator:"), line(r.out, "tokens, accelerator:"));
    EXPECT_EQ(line(rtl.out, "  200 kernel launches, "), line(r.out, "  200 kernel launches, "));
  }
  const test::CliRun bad = test::run_program(FSGEN_STORIES_HOST, "examples/attn_d16.yaml missing.bin");
  EXPECT_EQ(bad.status, 1);
  EXPECT_EQ(std::count(bad.out.begin(), bad.out.end(), '\n'), 1) << bad.out;
}

// The layer example (examples/host/layer_host.cpp): a model layer's launches through the
// driver, its timeline printed; a bad stage is a one-line error.
TEST(Driver, LayerHostPrintsTheKernelTimeline) {
  const test::CliRun r = test::run_program(FSGEN_LAYER_HOST, "examples/llm_16x16.yaml SmolLM2-135M decode 1 64");
  ASSERT_EQ(r.status, 0) << r.out;
  EXPECT_NE(r.out.find("            0"), std::string::npos) << r.out;  // the first launch at cycle 0
  EXPECT_NE(r.out.find("q_k_v_proj: matmul m=1 n=960 k=640"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("attention: attention decode heads=9/3 q=1 kv=65"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("  5 launches, "), std::string::npos) << r.out;
  const test::CliRun bad = test::run_program(FSGEN_LAYER_HOST, "examples/llm_16x16.yaml SmolLM2-135M train");
  EXPECT_EQ(bad.status, 1);
  EXPECT_EQ(bad.out, "fsgen_layer_host: stage 'train': expected prefill or decode\n");
}

}  // namespace
}  // namespace fsgen
