// One Verilated block in the test process (flow/rtl_block.h): the generated register file
// driven through its AXI4-Lite pins, its bus responses checked at the RTL (OKAY, SLVERR on a
// read-only register and a refused start, DECERR on an unmapped address), and its clock-gated
// form held equal to its enabled form.
#include "flow/rtl_block.h"

#include <filesystem>
#include <fstream>
#include <random>

#include "core/regmap.h"
#include "flow/tools.h"
#include "flow/verilator.h"
#include "generator/spec.h"
#include "generator/verilog_emitter.h"
#include "test_util.h"

namespace fsgen {
namespace {

constexpr uint32_t kOkay = 0, kSlvErr = 2, kDecErr = 3;

// The AXI4-Lite side of a host: one write or read, the response taken the cycle it is valid.
class LiteHost {
 public:
  explicit LiteHost(RtlPorts& csr) : csr_(csr) {}

  uint32_t write(uint32_t offset, uint32_t value) {
    set("s_awaddr", offset), set("s_wdata", value), set("s_awvalid", 1), set("s_wvalid", 1);
    csr_.eval();
    csr_.clock();
    set("s_awvalid", 0), set("s_wvalid", 0);
    csr_.eval();
    EXPECT_EQ(get("s_bvalid"), 1u);
    const uint32_t resp = get("s_bresp");
    set("s_bready", 1);
    csr_.clock();
    set("s_bready", 0);
    return resp;
  }

  // {value, response}
  std::pair<uint32_t, uint32_t> read(uint32_t offset) {
    set("s_araddr", offset), set("s_arvalid", 1);
    csr_.eval();
    csr_.clock();
    set("s_arvalid", 0);
    csr_.eval();
    EXPECT_EQ(get("s_rvalid"), 1u);
    const std::pair<uint32_t, uint32_t> r{get("s_rdata"), get("s_rresp")};
    set("s_rready", 1);
    csr_.clock();
    set("s_rready", 0);
    return r;
  }

  void set(const std::string& port, uint64_t v) { csr_.set(csr_.port(port), v); }
  uint32_t get(const std::string& port) {
    uint32_t v = 0;
    csr_.get(csr_.port(port), &v);
    return v;
  }

 private:
  RtlPorts& csr_;
};

TEST(RtlBlock, RegisterFileAnswersBusErrorsAtTheRtl) {
  if (!test::have_tool("verilator")) GTEST_SKIP() << "verilator not installed (scripts/install-deps.sh)";
  const Graph g = elaborate(parse_spec_file("examples/os_8x8.yaml"));
  const std::string dir = update_design_folder(g, test::rtl_root());
  const RtlPortsMaker make = build_rtl_block({"fsgen_csr", {}, {dir + "/fsgen_csr.v"}, dir, ""}, dir + "/rtl_blocks");
  const std::unique_ptr<RtlPorts> csr = make();
  csr->reset(2);
  LiteHost host(*csr);
  host.set("fused_kernels", 1);

  EXPECT_EQ(host.write(reg::kKernel, 0), kOkay);
  EXPECT_EQ(host.read(reg::kKernel), std::make_pair(0u, kOkay));
  EXPECT_EQ(host.write(0xFC, 1), kDecErr);  // no register there
  EXPECT_EQ(host.read(0xFC).second, kDecErr);
  EXPECT_EQ(host.write(reg::kStatus, 1), kSlvErr);  // read-only
  EXPECT_EQ(host.write(reg::kCtrl, 1), kSlvErr);    // a matmul of zero tiles: the start is refused
  for (uint32_t r : {reg::kTilesM, reg::kTilesN, reg::kTilesK}) EXPECT_EQ(host.write(r, 1), kOkay);
  EXPECT_EQ(host.write(reg::kCtrl, 1), kOkay);  // now a valid descriptor
}

// The register file's registers written under FSGEN_GATED_ALWAYS: as enabled registers on
// clk (what Verilator runs by default) and behind the clock gate's latch model (what the
// synthesis maps to the library's cell), driven by the same random AXI4-Lite traffic, give
// the same outputs at every cycle.
TEST(RtlBlock, GatedAndEnabledRegisterFilesAgree) {
  if (!test::have_tool("verilator")) GTEST_SKIP() << "verilator not installed (scripts/install-deps.sh)";
  const Graph g = elaborate(parse_spec_file("examples/os_8x8.yaml"));
  const std::string dir = update_design_folder(g, test::rtl_root());
  const std::string gated_dir = test::scratch_dir("rtl_block_gated_csr");
  std::ofstream(gated_dir + "/fsgen_csr.v") << "`define FSGEN_CLOCK_GATES\n" << read_text_file(dir + "/fsgen_csr.v");
  std::ofstream(gated_dir + "/fsgen_clock_gate.v") << module_sources().at("fsgen_clock_gate.v");
  const std::unique_ptr<RtlPorts> enabled =
      build_rtl_block({"fsgen_csr", {}, {dir + "/fsgen_csr.v"}, dir, ""}, dir + "/rtl_blocks")();
  const std::unique_ptr<RtlPorts> gated = build_rtl_block(
      {"fsgen_csr", {}, {gated_dir + "/fsgen_csr.v", gated_dir + "/fsgen_clock_gate.v"}, dir, ""}, gated_dir)();
  std::mt19937 rng(7);
  const std::vector<uint32_t> offsets = {reg::kAddrA, reg::kTilesM, reg::kTilesN, reg::kTilesK, reg::kKernel,
                                         reg::kStatus, reg::kCtrl, 0xFC};
  enabled->reset(2), gated->reset(2);
  uint64_t differing = 0, written = 0;
  for (int cycle = 0; cycle < 2000; ++cycle) {
    const std::vector<std::pair<std::string, uint64_t>> inputs = {
        {"s_awaddr", offsets[rng() % offsets.size()]}, {"s_awvalid", rng() % 2}, {"s_wdata", rng()},
        {"s_wvalid", rng() % 2}, {"s_bready", rng() % 2}, {"s_araddr", offsets[rng() % offsets.size()]},
        {"s_arvalid", rng() % 2}, {"s_rready", rng() % 2}, {"fused_kernels", 1}, {"busy", rng() % 2},
        {"done_pulse", rng() % 8 == 0}, {"cycles", rng()}};
    for (RtlPorts* r : {enabled.get(), gated.get()}) {
      for (const auto& [port, value] : inputs) r->set(r->port(port), value);
      r->eval();
    }
    written += enabled->value(enabled->port("s_awready"));
    enabled->clock(), gated->clock();
    for (const RtlPorts::PortInfo& p : enabled->ports()) {
      if (!p.output) continue;
      std::vector<uint8_t> a((p.width_bits + 7) / 8), b(a.size());
      enabled->get(enabled->port(p.name), a.data()), gated->get(gated->port(p.name), b.data());
      if (a != b && differing++ < 5) ADD_FAILURE() << "cycle " << cycle << ": " << p.name << " differs";
    }
  }
  EXPECT_EQ(differing, 0u);
  EXPECT_GT(written, 200u);  // the traffic wrote registers, not only held them
}

TEST(RtlBlock, AModuleThatDoesNotVerilateIsNamed) {
  if (!test::have_tool("verilator")) GTEST_SKIP() << "verilator not installed (scripts/install-deps.sh)";
  const std::string dir = test::scratch_dir("rtl_block_broken");
  const std::string file = dir + "/broken.v";
  std::ofstream(file) << "module broken(input wire clk, output wire y);\n  assign y = ;\nendmodule\n";
  const std::string e = test::error_of([&] { build_rtl_block({"broken", {}, {file}, "", ""}, dir + "/build"); });
  EXPECT_NE(e.find(file + ": verilator of module broken failed"), std::string::npos) << e;
}

}  // namespace
}  // namespace fsgen
