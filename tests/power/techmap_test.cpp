#include "power/techmap.h"

#include <filesystem>
#include <fstream>
#include <map>
#include <set>

#include "flow/tech_library.h"
#include "flow/tools.h"
#include "generator/rtl_library.h"
#include "generator/verilog_emitter.h"
#include "power/gate_power.h"
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
  // So is a changed header the module includes.
  synth_to_liberty(sources, "fsgen_array_os", params, lib, dir);
  const auto before_header = fs::last_write_time(report);
  std::ofstream(dir + "/fsgen_rescale.vh", std::ios::app) << "// changed\n";
  synth_to_liberty(sources, "fsgen_array_os", params, lib, dir);
  EXPECT_NE(fs::last_write_time(report), before_header);
}

// Mapped for delay, the clear that reaches every accumulator bit (16 PEs x 32 bits) drives a
// buffer tree instead of one small cell, and the report names the path's ends.
TEST(Techmap, DelayMappingBuffersTheFanOutAndNamesThePath) {
  if (!test::have_tool("yosys") || !test::have_tool("sta")) GTEST_SKIP() << "yosys or sta not installed";
  const std::string dir = test::scratch_dir("techmap_delay");
  const Liberty lib = prepare_liberty("", dir);
  const auto sources = pe_array_source(dir);
  const std::map<std::string, int64_t> params = {{"R", 4}, {"C", 4}};
  const SynthReport area = synth_to_liberty(sources, "fsgen_array_os", params, lib, dir);
  const TimingReport slow = critical_path(area, "fsgen_array_os", lib, "clk", 1.0);
  SynthOptions options;
  options.delay_target_ns = 1.0;
  const std::string fast_dir = dir + "/delay";
  fs::create_directories(fast_dir);
  const SynthReport delay = synth_to_liberty(sources, "fsgen_array_os", params, lib, fast_dir, options);
  const TimingReport fast = critical_path(delay, "fsgen_array_os", lib, "clk", 1.0);
  EXPECT_LT(fast.arrival_ns, slow.arrival_ns * 0.7) << slow.arrival_ns << " ns mapped for area";
  EXPECT_GT(delay.cell_use.count("BUF_X1") + delay.cell_use.count("BUF_X2") + delay.cell_use.count("BUF_X4"), 0u);
  EXPECT_NE(fast.endpoint.find("acc"), std::string::npos) << fast.endpoint;  // an accumulator register
  EXPECT_EQ(fast.endpoint.find('\\'), std::string::npos) << fast.endpoint;
  EXPECT_FALSE(fast.startpoint.empty());
}

// A 1 x 32 rescaling array (wider than kSliceColumns) synthesised as two slices of 16
// columns: the netlist keeps the slice's module and the wrapper, named as the array, that
// instantiates it twice; the area and cell counts are the hierarchy's (32 accumulators), and
// fsgen's reader expands the instances into the cells Yosys' own flatten gives. (Flat, the
// same array maps to 150,616 um^2 on fsgen45 against the slices' 150,760: docs/POWER.md,
// "Wide arrays as column slices"; the flat synthesis is left out here for its minutes.)
TEST(Techmap, AWideArrayIsSynthesisedAsColumnSlices) {
  if (!test::have_tool("yosys")) GTEST_SKIP() << "yosys not installed";
  const std::string dir = test::scratch_dir("techmap_slices");
  const Liberty lib = prepare_liberty("", dir);
  const SynthReport sliced =
      synth_to_liberty(pe_array_source(dir), "fsgen_array_os", {{"R", 1}, {"C", 32}, {"RESCALE", 1}}, lib, dir);
  const std::string netlist = read_text_file(sliced.netlist);
  EXPECT_NE(netlist.find("module fsgen_array_os("), std::string::npos);
  EXPECT_NE(netlist.find("slice[1].u"), std::string::npos);  // the second slice's instance
  uint64_t flops = 0;
  for (const auto& [cell, n] : sliced.cell_use)
    if (cell.find("DFF") != std::string::npos) flops += n;
  EXPECT_EQ(flops, 32u * 32u);
  EXPECT_GT(sliced.area_um2, 100000.0);

  const GateNetlist read = read_netlist_json(sliced.netlist_json, "fsgen_array_os");
  EXPECT_EQ(read.cells.size(), sliced.cells);
  const std::string flat_json = dir + "/flattened.json";
  const CommandResult flatten =
      run_command("yosys -q -p 'read_liberty -lib " + lib.path + "; read_verilog " + sliced.netlist +
                  "; hierarchy -top fsgen_array_os; flatten; write_json " + flat_json + "'");
  ASSERT_EQ(flatten.status, 0) << flatten.output;
  const GateNetlist flat = read_netlist_json(flat_json, "fsgen_array_os");
  auto cell_types = [](const GateNetlist& n) {
    std::map<std::string, size_t> types;
    for (const auto& c : n.cells) ++types[c.type];
    return types;
  };
  EXPECT_EQ(cell_types(read), cell_types(flat));
  // The same nets: as many bits that the cells drive and read, each with as many loads.
  auto loads = [](const GateNetlist& n) {
    std::map<int, int> per_bit;
    for (const auto& c : n.cells)
      for (const auto& [pin, bit] : c.pins) ++per_bit[bit];
    std::multiset<int> counts;
    for (const auto& [bit, count] : per_bit) counts.insert(count);
    return counts;
  };
  EXPECT_EQ(loads(read), loads(flat));
  EXPECT_EQ(read.ports, flat.ports);  // the top's bits keep their ids
  EXPECT_TRUE(read.netnames.count("slice[1].u.row[0].pe[15].acc")) << "the instance's names, prefixed";
}

TEST(Techmap, BadLibertyFilesAreOneLineErrors) {
  const std::string dir = test::scratch_dir("techmap_bad");
  std::string e = test::error_of([&] { prepare_liberty(dir + "/none.lib", dir); });
  EXPECT_NE(e.find("none.lib: liberty file not found"), std::string::npos) << e;
  std::ofstream(dir + "/broken.lib.gz") << "not gzip at all";
  e = test::error_of([&] { prepare_liberty(dir + "/broken.lib.gz", dir); });
  EXPECT_NE(e.find("broken.lib.gz"), std::string::npos) << e;
}

// The register file clocks its registers through clock gates where the library has an
// integrated clock-gating cell; on a library without one they are enabled flip-flops on the
// clock, and the synthesis goes through: no gate, no latch, a flip-flop per register bit.
TEST(Techmap, ALibraryWithoutAClockGateGetsEnabledRegisters) {
  if (!test::have_tool("yosys")) GTEST_SKIP() << "yosys not installed";
  const std::string dir = test::scratch_dir("techmap_no_gate");
  const std::string text = tech_library().at("fsgen45.lib");
  std::ofstream(dir + "/nogate.lib") << text.substr(0, text.find("  cell (CLKGATE_X1)")) << "}\n";
  const std::vector<std::string> csr = write_module_sources(dir, "fsgen_csr");
  const SynthReport gated = synth_to_liberty(csr, "fsgen_csr", {}, prepare_liberty("", dir + "/fsgen45"), dir + "/work");
  const SynthReport ungated =
      synth_to_liberty(csr, "fsgen_csr", {}, prepare_liberty(dir + "/nogate.lib", dir + "/work"), dir + "/work");
  EXPECT_GT(gated.cell_use.count("CLKGATE_X1") ? gated.cell_use.at("CLKGATE_X1") : 0u, 30u);
  EXPECT_EQ(ungated.cell_use.count("CLKGATE_X1"), 0u);
  auto flops = [](const SynthReport& r) {
    uint64_t n = 0;
    for (const auto& [cell, count] : r.cell_use) n += cell.rfind("DFF", 0) == 0 ? count : 0;
    return n;
  };
  EXPECT_EQ(flops(gated), flops(ungated));  // the same registers, clocked two ways
  EXPECT_GT(ungated.area_um2, gated.area_um2);  // a hold multiplexer per bit against a gate per register
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

// The same module at the same parameters synthesised in a second folder is copied from the
// first folder's synthesis: with Yosys out of reach, it still gets the same netlist and figures.
TEST(Techmap, ASynthesisServesEveryFolderThatAsksForItAgain) {
  if (!test::have_tool("yosys")) GTEST_SKIP() << "yosys not installed";
  const std::string first = test::scratch_dir("techmap_shared_a"), second = test::scratch_dir("techmap_shared_b");
  // Parameters no other test uses, so that the first synthesis here is a real one.
  const std::map<std::string, int64_t> params = {{"R", 2}, {"C", 3}};
  const SynthReport a =
      synth_to_liberty(pe_array_source(first), "fsgen_array_os", params, prepare_liberty("", first), first);
  const std::vector<std::string> sources = pe_array_source(second);
  const Liberty lib = prepare_liberty("", second);
  const char* path = std::getenv("PATH");
  const std::string saved = path ? path : "";
  setenv("PATH", "/nonexistent", 1);
  SynthReport b;
  std::string error;
  try {
    b = synth_to_liberty(sources, "fsgen_array_os", params, lib, second);
  } catch (const UserError& e) {
    error = e.what();
  }
  setenv("PATH", saved.c_str(), 1);
  ASSERT_EQ(error, "");
  EXPECT_EQ(b.area_um2, a.area_um2);
  EXPECT_EQ(b.cell_use, a.cell_use);
  EXPECT_NE(b.netlist, a.netlist);
  std::ifstream na(a.netlist), nb(b.netlist);
  EXPECT_EQ(std::string(std::istreambuf_iterator<char>(na), {}), std::string(std::istreambuf_iterator<char>(nb), {}));
  // Other parameters are a synthesis of their own: Yosys is needed again.
  setenv("PATH", "/nonexistent", 1);
  const std::string other =
      test::error_of([&] { synth_to_liberty(sources, "fsgen_array_os", {{"R", 1}, {"C", 3}}, lib, second); });
  setenv("PATH", saved.c_str(), 1);
  EXPECT_NE(other.find("yosys"), std::string::npos) << other;
}

}  // namespace
}  // namespace fsgen
