// One Verilated block in the test process (flow/rtl_block.h): the generated register file
// driven through its AXI4-Lite pins, its bus responses checked at the RTL (OKAY, SLVERR on a
// read-only register and a refused start, DECERR on an unmapped address).
#include "flow/rtl_block.h"

#include <filesystem>
#include <fstream>

#include "core/regmap.h"
#include "flow/verilator.h"
#include "generator/spec.h"
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
