#include "power/techmap.h"

#include <filesystem>
#include <fstream>
#include <map>

#include "generator/rtl_library.h"
#include "test_util.h"

namespace fsgen {
namespace {

namespace fs = std::filesystem;

// A 2x2 output-stationary PE array from the RTL library: small enough to map in a second.
std::vector<std::string> pe_array_source(const std::string& dir) {
  const std::string path = dir + "/fsgen_array_os.v";
  std::ofstream(path) << rtl_library().at("fsgen_array_os.v");
  std::ofstream(dir + "/fsgen_rescale.vh") << rtl_library().at("fsgen_rescale.vh");  // its include
  return {path};
}

void expect_maps_and_times(const std::string& liberty_file, const std::string& cell_prefix) {
  const std::string dir = test::scratch_dir("techmap_" + cell_prefix);
  const Liberty lib = prepare_liberty(liberty_file, dir);
  const SynthReport s = synth_to_liberty(pe_array_source(dir), "fsgen_array_os", {{"R", 2}, {"C", 2}}, lib, dir);
  EXPECT_GT(s.area_um2, 100.0);
  EXPECT_GT(s.cells, 200u);
  uint64_t flops = 0;
  for (const auto& [cell, n] : s.cell_use) {
    EXPECT_EQ(cell.rfind(cell_prefix, 0), 0u) << cell << " is not a cell of " << lib.name;
    if (cell.find("DFF") != std::string::npos || cell.find("df") != std::string::npos) flops += n;
  }
  EXPECT_EQ(flops, 4u * 32u);  // four INT32 accumulators
  EXPECT_TRUE(fs::exists(s.netlist));
  const TimingReport t = critical_path(s, "fsgen_array_os", lib, "clk", 10.0);
  EXPECT_GT(t.arrival_ns, 0.1);
  EXPECT_NEAR(t.slack_ns, 10.0 - t.arrival_ns - t.setup_ns, 0.01);
  EXPECT_GT(t.max_clock_mhz(), 50.0);
  EXPECT_LT(t.max_clock_mhz(), 5000.0);
}

TEST(Techmap, PeArrayMapsOntoTheBuiltInLibrary) {
  if (!test::have_tool("yosys") || !test::have_tool("sta")) GTEST_SKIP() << "yosys or sta not installed";
  expect_maps_and_times("", "");
}

TEST(Techmap, PeArrayMapsOntoSky130) {
  const std::string sky = "../shared/pdk/sky130hd_tt.lib.gz";
  if (!fs::exists(sky)) GTEST_SKIP() << sky << " not present";
  if (!test::have_tool("yosys") || !test::have_tool("sta")) GTEST_SKIP() << "yosys or sta not installed";
  expect_maps_and_times(sky, "sky130_fd_sc_hd__");
}

TEST(Techmap, ASynthesisIsReusedWhateverTheFolderIsCalled) {
  if (!test::have_tool("yosys")) GTEST_SKIP() << "yosys not installed";
  const std::string dir = test::scratch_dir("techmap_reuse");
  const Liberty lib = prepare_liberty("", dir);
  const auto sources = pe_array_source(dir);
  const std::map<std::string, int64_t> params = {{"R", 2}, {"C", 2}};
  const SynthReport first = synth_to_liberty(sources, "fsgen_array_os", params, lib, dir);
  const fs::path report = fs::path(dir) / "fsgen_array_os_fsgen45.report";
  const auto written = fs::last_write_time(report);
  // The same folder through another name: the same script, so Yosys does not run again.
  const std::string renamed = dir + "/../" + fs::path(dir).filename().string() + "/.";
  const SynthReport again = synth_to_liberty(sources, "fsgen_array_os", params, lib, renamed);
  EXPECT_EQ(fs::last_write_time(report), written);
  EXPECT_EQ(again.netlist, first.netlist);
  EXPECT_EQ(again.area_um2, first.area_um2);
  // A changed parameter is a new synthesis.
  const SynthReport wider = synth_to_liberty(sources, "fsgen_array_os", {{"R", 2}, {"C", 4}}, lib, dir);
  EXPECT_GT(wider.area_um2, first.area_um2 * 1.5);
}

TEST(Techmap, BadLibertyFilesAreOneLineErrors) {
  const std::string dir = test::scratch_dir("techmap_bad");
  std::string e = test::error_of([&] { prepare_liberty(dir + "/none.lib", dir); });
  EXPECT_NE(e.find("none.lib: liberty file not found"), std::string::npos) << e;
  std::ofstream(dir + "/broken.lib.gz") << "not gzip at all";
  e = test::error_of([&] { prepare_liberty(dir + "/broken.lib.gz", dir); });
  EXPECT_NE(e.find("broken.lib.gz"), std::string::npos) << e;
}

TEST(Techmap, ASynthesisFailureQuotesYosys) {
  if (!test::have_tool("yosys")) GTEST_SKIP() << "yosys not installed";
  const std::string dir = test::scratch_dir("techmap_fail");
  std::ofstream(dir + "/bad.v") << "module bad(input a, output b); assign b = ; endmodule\n";
  const Liberty lib = prepare_liberty("", dir);
  const std::string e = test::error_of([&] { synth_to_liberty({dir + "/bad.v"}, "bad", {}, lib, dir); });
  EXPECT_NE(e.find("yosys (bad on fsgen45): synthesis failed:"), std::string::npos) << e;
  EXPECT_NE(e.find("ERROR"), std::string::npos) << e;
}

}  // namespace
}  // namespace fsgen
