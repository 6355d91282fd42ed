#include "power/liberty.h"

#include <chrono>
#include <filesystem>
#include <regex>

#include "flow/tech_library.h"
#include "test_util.h"

namespace fsgen {
namespace {

TEST(Liberty, ReadsTheBuiltInLibrary) {
  const LibertyLibrary lib = read_liberty(tech_library().at("fsgen45.lib"), "fsgen45.lib");
  EXPECT_EQ(lib.name, "fsgen45");
  EXPECT_DOUBLE_EQ(lib.nom_voltage, 1.1);
  EXPECT_EQ(lib.cells.size(), 22u);
  const LibertyCell& inv = lib.cell("INV_X1");
  EXPECT_DOUBLE_EQ(inv.area_um2, 0.532);
  EXPECT_DOUBLE_EQ(inv.leakage_nw, 14.4);
  EXPECT_FALSE(inv.sequential);
  EXPECT_DOUBLE_EQ(inv.pins.at("A").capacitance_ff, 1.70);
  const LibertyPin& zn = inv.pins.at("ZN");
  EXPECT_TRUE(zn.output);
  EXPECT_EQ(zn.function, "!A");
  // 0.45 fJ at the smallest slew, rising with the input transition (tech/make_fsgen45.py).
  EXPECT_NEAR(zn.energy_fj("A", true, 0.005, 0.5), 0.45 * (1 + 0.5 * 0.005 / 0.2), 1e-4);  // the .lib holds 4 decimals
  EXPECT_NEAR(zn.energy_fj("A", false, 0.2, 20), 0.9 * 0.45 * 1.5, 1e-4);  // the .lib holds 4 decimals
  EXPECT_NEAR(zn.energy_fj("A", true, 0.1, 3), 0.45 * (1 + 0.5 * 0.1 / 0.2), 1e-4);  // the .lib holds 4 decimals  // interpolated
  const LibertyCell& ff = lib.cell("DFFR_X1");
  EXPECT_TRUE(ff.sequential);
  EXPECT_GT(ff.pins.at("CK").energy_fj("", true, 0.005, 0.5), 1.9);  // the clock pin's own energy
  EXPECT_NE(test::error_of([&] { lib.cell("NAND9_X1"); }).find("no cell 'NAND9_X1'"), std::string::npos);
  // The integrated clock gate, by its pins' roles.
  ASSERT_EQ(lib.clock_gate_cell(), &lib.cell("CLKGATE_X1"));
  const LibertyClockGate& gate = *lib.cell("CLKGATE_X1").clock_gate;
  EXPECT_EQ(gate.clock, "CK");
  EXPECT_EQ(gate.enable, "E");
  EXPECT_EQ(gate.out, "GCK");
  EXPECT_TRUE(gate.test.empty());
  EXPECT_TRUE(lib.cell("CLKGATE_X1").sequential);
  EXPECT_FALSE(ff.clock_gate.has_value());
}

TEST(Liberty, ClockGatesOfAStyleOtherThanLatchPosedgeAreNone) {
  const std::string cell = R"(library (x) {
  cell (g) {
    clock_gating_integrated_cell : "STYLE";
    pin (C) { direction : input; clock_gate_clock_pin : true; }
    pin (E) { direction : input; clock_gate_enable_pin : true; }
    pin (T) { direction : input; clock_gate_test_pin : true; }
    pin (Y) { direction : output; clock_gate_out_pin : true; }
  }
}
)";
  auto read = [&](const std::string& style) {
    return read_liberty(std::regex_replace(cell, std::regex("STYLE"), style), "t.lib").cells.at("g").clock_gate;
  };
  EXPECT_FALSE(read("latch_negedge").has_value());
  ASSERT_TRUE(read("latch_posedge_postcontrol").has_value());
  EXPECT_TRUE(read("latch_posedge_postcontrol")->test_after_latch);
  EXPECT_EQ(read("latch_posedge_precontrol")->test, "T");
  EXPECT_FALSE(read("latch_posedge_precontrol")->test_after_latch);
  const std::string e = test::error_of([] {
    read_liberty("library (x) {\n  cell (g) {\n    clock_gating_integrated_cell : latch_posedge;\n  }\n}\n", "t.lib");
  });
  EXPECT_NE(e.find("t.lib:2: clock_gating_integrated_cell \"latch_posedge\": expected pins with"), std::string::npos)
      << e;
}

TEST(Liberty, ReadsSky130) {
  const std::string sky = "../shared/pdk/sky130hd_tt.lib.gz";
  if (!std::filesystem::exists(sky)) GTEST_SKIP() << sky << " not present";
  const auto t0 = std::chrono::steady_clock::now();
  const LibertyLibrary lib = read_liberty_file(sky);
  const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  std::cout << "read " << lib.cells.size() << " cells of " << lib.name << " in " << seconds << " s\n";
  EXPECT_GT(lib.cells.size(), 300u);
  const LibertyCell& inv = lib.cell("sky130_fd_sc_hd__inv_1");
  EXPECT_GT(inv.area_um2, 3.0);
  EXPECT_LT(inv.area_um2, 5.0);
  const double cap = inv.pins.at("A").capacitance_ff;  // the library states pF
  EXPECT_GT(cap, 1.0);
  EXPECT_LT(cap, 5.0);
  EXPECT_GT(inv.pins.at("Y").energy_fj("A", true, 0.05, 5), 0.0);
  EXPECT_GT(inv.leakage_nw, 0.0);
  // Its clock gates: the smallest without a test pin, the scan one with its test pin before the latch.
  ASSERT_NE(lib.clock_gate_cell(), nullptr);
  EXPECT_EQ(lib.clock_gate_cell()->name, "sky130_fd_sc_hd__dlclkp_1");
  EXPECT_EQ(lib.clock_gate_cell()->clock_gate->enable, "GATE");
  const LibertyClockGate& scan = *lib.cell("sky130_fd_sc_hd__sdlclkp_1").clock_gate;
  EXPECT_EQ(scan.test, "SCE");
  EXPECT_FALSE(scan.test_after_latch);
}

TEST(Liberty, MalformedFilesAreOneLineErrorsWithTheLine) {
  std::string e = test::error_of([] { read_liberty("library (x) {\n  cell (a) {\n    area : ;\n  }\n}\n", "t.lib"); });
  EXPECT_NE(e.find("t.lib:3: expected a value, got ';'"), std::string::npos) << e;
  e = test::error_of([] { read_liberty("library (x) {\n  cell (a) {\n    area : 1;\n", "t.lib"); });
  EXPECT_NE(e.find("unexpected end of file: expected '}' closing cell"), std::string::npos) << e;
  e = test::error_of([] { read_liberty("library (x) {\n  cell (a) { area : 1x; }\n}\n", "t.lib"); });
  EXPECT_EQ(e.find("t.lib"), 0u) << e;
  e = test::error_of([] {
    read_liberty("library (x) {\n cell (a) {\n  pin (Z) {\n   internal_power () {\n    rise_power (t) {\n"
                 "     index_1 (\"1, 2\"); values (\"1, 2, 3\");\n    }\n   }\n  }\n }\n}\n",
                 "t.lib");
  });
  EXPECT_NE(e.find("t.lib:5: table of 3 values: expected 2"), std::string::npos) << e;
  e = test::error_of([] { read_liberty("/* never closed\nlibrary (x) {}\n", "t.lib"); });
  EXPECT_NE(e.find("unterminated comment"), std::string::npos) << e;
}

// Numbers that are not finite, physical quantities below zero and nesting without end.
TEST(Liberty, ImpossibleValuesAndDeepNestingAreRefused) {
  auto cell = [](const std::string& body) {
    return test::error_of([&] { read_liberty("library (x) {\n  cell (a) {\n" + body + "\n  }\n}\n", "t.lib"); });
  };
  std::string e = cell("    area : nan;");
  EXPECT_NE(e.find("t.lib:2: expected a finite number, got 'nan'"), std::string::npos) << e;
  e = cell("    area : -3;");
  EXPECT_NE(e.find("area: expected a non-negative number, got '-3'"), std::string::npos) << e;
  e = cell("    cell_leakage_power : -1e-3;");
  EXPECT_NE(e.find("cell_leakage_power: expected a non-negative number"), std::string::npos) << e;
  e = cell("    pin (A) { capacitance : inf; }");
  EXPECT_NE(e.find("expected a finite number, got 'inf'"), std::string::npos) << e;
  std::string deep = "library (x) {\n";
  for (int i = 0; i < 200000; ++i) deep += "g (y) {\n";
  e = test::error_of([&] { read_liberty(deep, "t.lib"); });
  EXPECT_NE(e.find("groups nested deeper than 64"), std::string::npos) << e.substr(0, 200);
}

}  // namespace
}  // namespace fsgen
