// A wide broadcast array as column slices (blocks/pe_array_os/synthesis_slices.h): which
// arrays are sliced, and the wrapper's RTL equal to the flat array's at every cycle.
#include "blocks/pe_array_os/synthesis_slices.h"

#include <array>
#include <fstream>
#include <map>
#include <random>
#include <string>
#include <vector>

#include "flow/rtl_block.h"
#include "test_util.h"

namespace fsgen {
namespace {

TEST(SynthesisSlices, OnlyWideBroadcastArraysOfOneLaneAreSliced) {
  const auto slices = array_column_slices("fsgen_array_os", {{"R", 8}, {"C", 128}, {"RESCALE", 1}});
  ASSERT_TRUE(slices.has_value());
  EXPECT_EQ(slices->module, "fsgen_array_os_slices");
  EXPECT_EQ(slices->params.at("CS"), kSliceColumns);
  EXPECT_EQ(slices->params.at("C"), 128);
  EXPECT_EQ(slices->params.at("RESCALE"), 1);
  EXPECT_FALSE(array_column_slices("fsgen_array_os", {{"R", 16}, {"C", 16}}));                  // not wider
  EXPECT_FALSE(array_column_slices("fsgen_array_os", {{"R", 8}, {"C", 40}}));                   // not a multiple
  EXPECT_FALSE(array_column_slices("fsgen_array_os", {{"R", 8}, {"C", 32}, {"SYSTOLIC", 1}}));  // operands move
  EXPECT_FALSE(array_column_slices("fsgen_array_os", {{"R", 8}, {"C", 32}, {"LN", 2}}));        // x's lanes by column
  EXPECT_FALSE(array_column_slices("fsgen_array_dot", {{"R", 8}, {"C", 32}}));
}

// The wrapper with slices of 4 columns against the flat 2 x 8 rescaling array, driven by the
// same random operands, clears, rescales and read rows: the same rows read at every cycle.
TEST(SynthesisSlices, TheSlicedArrayReadsAsTheFlatOne) {
  if (!test::have_tool("verilator")) GTEST_SKIP() << "verilator not installed (scripts/install-deps.sh)";
  const std::string dir = test::scratch_dir("synthesis_slices");
  for (const char* f : {"fsgen_array_os.v", "fsgen_rescale.vh"}) std::ofstream(dir + "/" + f) << rtl_library().at(f);
  const auto slices = array_column_slices("fsgen_array_os", {{"R", 2}, {"C", 32}, {"RESCALE", 1}});
  ASSERT_TRUE(slices.has_value());
  std::ofstream(dir + "/" + slices->module + ".v") << slices->verilog;
  const std::map<std::string, int64_t> flat_params = {{"R", 2}, {"C", 8}, {"RESCALE", 1}};
  const std::map<std::string, int64_t> sliced_params = {{"R", 2}, {"C", 8}, {"CS", 4}, {"RESCALE", 1}};
  const auto flat =
      build_rtl_block({"fsgen_array_os", flat_params, {dir + "/fsgen_array_os.v"}, dir, ""}, dir + "/flat")();
  const auto sliced = build_rtl_block(
      {slices->module, sliced_params, {dir + "/" + slices->module + ".v", dir + "/fsgen_array_os.v"}, dir, ""},
      dir + "/sliced")();
  std::mt19937_64 rng(11);
  flat->reset(2), sliced->reset(2);
  uint64_t differing = 0, nonzero = 0;
  for (int cycle = 0; cycle < 400; ++cycle) {
    const std::vector<std::pair<std::string, uint64_t>> inputs = {{"en", rng() % 4 != 0}, {"clr", rng() % 16 == 0},
                                                                  {"sc", rng() % 8 == 0}, {"x", rng() & 0xffff},
                                                                  {"w", rng()},           {"rd_row", rng() % 2}};
    const std::array<uint32_t, 2> alpha = {uint32_t(rng() % 32769), uint32_t(rng() % 32769)};
    for (RtlPorts* r : {flat.get(), sliced.get()}) {
      for (const auto& [port, value] : inputs) r->set(r->port(port), value);
      r->set_bytes(r->port("alpha"), alpha.data());
      r->eval();
    }
    std::array<uint8_t, 32> a{}, b{};
    flat->get(flat->port("rd_data"), a.data()), sliced->get(sliced->port("rd_data"), b.data());
    if (a != b && differing++ < 3) ADD_FAILURE() << "cycle " << cycle << ": rd_data differs";
    for (uint8_t v : a) nonzero += v != 0;
    flat->clock(), sliced->clock();
  }
  EXPECT_EQ(differing, 0u);
  EXPECT_GT(nonzero, 1000u);  // the accumulators held values, not only zeros
}

}  // namespace
}  // namespace fsgen
