// Validation records, the baselines and the scores of fsgen power-validate, on made-up
// records and a made-up dataset whose energies follow known rules.
#include "power/validation.h"

#include <cmath>
#include <fstream>
#include <sstream>

#include "power/baselines.h"
#include "sim/power_report.h"
#include "test_util.h"

namespace fsgen {
namespace {

// Dynamic energy exactly 100 fJ per PE per cycle plus 400 more when busy, whatever the
// toggles: the constant-energy-per-action baseline must recover it.
Dataset rule_dataset() {
  Dataset d;
  for (std::vector<int> h : {std::vector<int>{2, 2, 0}, std::vector<int>{4, 4, 0}})
    for (double enable : {0.0, 0.25, 0.5, 1.0}) {
      CharPoint p;
      p.kind = "pe_array_os", p.h = h, p.enable = enable, p.alpha = 0.1 * enable;
      p.dynamic_fj = h[0] * h[1] * (100 + 400 * enable);
      p.leakage_mw = 0.01 * h[0] * h[1], p.area_um2 = 900.0 * h[0] * h[1];
      d.points.push_back(p);
    }
  return d;
}

ValidationRecord record(const std::string& design, double busy, double golden_mw, double predicted_mw) {
  ValidationRecord r;
  r.design = design, r.block = "array_a", r.kind = "pe_array_os", r.h = {4, 4, 0};
  r.cycles = 1000, r.window = 1, r.clock_mhz = 500;
  r.alpha = 0.05 * busy, r.busy = busy, r.enable = busy, r.zeros = 0.1;
  r.predicted_mw = predicted_mw, r.golden_mw = golden_mw;
  r.predicted_leakage_mw = 0.16, r.golden_leakage_mw = 0.16;
  r.predicted_area_um2 = 14400, r.golden_area_um2 = 14000;
  r.trace_r = 0.9, r.trace_nrmse = 0.2;
  r.design_trace_r = 0.95, r.design_trace_nrmse = 0.1;
  return r;
}

TEST(PowerBaselines, CalibratedOnTheDataset) {
  const Dataset d = rule_dataset();
  const ActionEnergyBaseline action(d);
  EXPECT_NEAR(action.dynamic_fj("pe_array_os", 16, 0.0), 1600, 1e-6);
  EXPECT_NEAR(action.dynamic_fj("pe_array_os", 16, 0.5), 16 * 300, 1e-6);
  const PerMacBaseline per_mac(d);
  // Energy over MACs: sum of 100 + 400 e over sum of e, per PE (e = 0, .25, .5, 1).
  const double per_pe = (4 * 100 + 400 * 1.75) / 1.75;
  EXPECT_NEAR(per_mac.dynamic_fj("pe_array_os", 16, 0.5), 16 * 0.5 * per_pe, 1e-6);
  EXPECT_EQ(per_mac.dynamic_fj("pe_array_os", 16, 0.0), 0.0);  // idle costs leakage only
  EXPECT_NE(test::error_of([&] { action.dynamic_fj("pe_array_dot", 4, 1); }).find("no characterisation point of primitive 'pe_array_dot'"),
            std::string::npos);
}

TEST(PowerValidation, RecordsRoundTripAndScore) {
  const std::string dir = test::scratch_dir("power_validation");
  const std::string path = dir + "/records.csv";
  std::vector<ValidationRecord> recs;
  for (int i = 0; i < 5; ++i) {
    const double busy = 0.1 + 0.2 * i;
    // golden follows the dataset's rule; fsgen's prediction is 10 % high on every design.
    const double golden = 16 * (100 + 400 * busy) * 500e-6 + 0.16;
    recs.push_back(record("d" + std::to_string(i), busy, golden, 1.1 * golden));
  }
  recs[4].variant = "RESCALE=1, characterised 0";
  append_validation_records(path, {recs[0], recs[1]});
  append_validation_records(path, {recs[2], recs[3], recs[4]});
  const std::vector<ValidationRecord> back = read_validation_records(path);
  ASSERT_EQ(back.size(), 5u);
  EXPECT_EQ(back[4].variant, "RESCALE=1; characterised 0");  // commas kept out of the CSV
  EXPECT_EQ(back[2].h, (std::vector<int>{4, 4, 0}));
  EXPECT_DOUBLE_EQ(back[3].busy, recs[3].busy);

  const ValidationSummary s = summarise_validation(back, rule_dataset());
  ASSERT_EQ(s.designs.size(), 5u);
  ASSERT_EQ(s.methods.size(), 4u);  // fsgen, two baselines, the whole-design model
  EXPECT_NEAR(s.methods[0].mape, 10.0, 1e-6);
  EXPECT_NEAR(s.methods[0].pearson, 1.0, 1e-9);
  EXPECT_NEAR(s.methods[1].mape, 0.0, 1e-6);  // the action baseline knows the rule exactly
  EXPECT_GT(s.methods[2].mape, 1.0);          // energy per MAC misses the idle energy
  EXPECT_EQ(s.headline[0].predicted_mw.size(), 4u);  // the extrapolated design is left out
  EXPECT_NEAR(s.area_error_mean, 100.0 * 400 / 14000, 1e-6);
  EXPECT_NEAR(s.trace_r_mean, 0.9, 1e-9);
  ASSERT_EQ(s.design_trace_r.size(), 5u);
  EXPECT_DOUBLE_EQ(s.design_trace_r[2], 0.95);
  std::ostringstream table;
  print_validation(s, table);
  EXPECT_NE(table.str().find("of the designs (the sum over their modelled blocks): R mean 0.950, min 0.950, NRMSE mean 0.100"),
            std::string::npos);
  EXPECT_NE(table.str().find("| d4 * |"), std::string::npos);
  ASSERT_EQ(s.by_kind.size(), 1u);  // every block a pe_array_os, 10 % high
  EXPECT_EQ(s.by_kind[0].method, "pe_array_os");
  EXPECT_NEAR(s.by_kind[0].mape, 10.0, 1e-6);
  EXPECT_NE(table.str().find("| pe_array_os | 5 | 10.0 % | 1.000 | 10.0 % | 0.900 |"), std::string::npos);
  EXPECT_NE(table.str().find("constant energy per action"), std::string::npos);
}

// A core replayed whole: the golden power of its blocks without a model (the controller,
// the register file) is kept with its records and stated against the modelled sum.
TEST(PowerValidation, BlocksWithoutAModelAreTheRestOfTheCore) {
  const std::string path = test::scratch_dir("power_validation_unmodelled") + "/records.csv";
  std::vector<ValidationRecord> recs = {record("d0", 0.5, 1.0, 1.1), record("d1", 0.5, 2.0, 2.0)};
  recs[0].design_unmodelled_golden_mw = 3.0;  // d0's core: 1 mW modelled + 3 mW without a model
  append_validation_records(path, recs);
  const std::vector<ValidationRecord> back = read_validation_records(path);
  EXPECT_DOUBLE_EQ(back[0].design_unmodelled_golden_mw, 3.0);
  EXPECT_TRUE(std::isnan(back[1].design_unmodelled_golden_mw));  // d1's core not replayed whole
  const ValidationSummary s = summarise_validation(back, rule_dataset());
  std::ostringstream table;
  print_validation(s, table);
  // Of d0's 4 mW, 75 % lie outside the model; its 1.1 mW prediction is 72.5 % under the core.
  EXPECT_NE(table.str().find("Cores replayed whole (1 designs): fsgen's sum over the modelled blocks against the whole "
                             "core's golden power: MAPE 72.5 %, R 0.000, max 72.5 %; the blocks without a model hold "
                             "75.0 % of the core's golden power on average (75.0 to 75.0 %)."),
            std::string::npos)
      << table.str();
  EXPECT_NE(table.str().find("| d0 | 1.000 | 0.950 | 3.000 |"), std::string::npos);
  EXPECT_NE(table.str().find("| d1 | 2.000 | 0.950 | - |"), std::string::npos);
}

TEST(PowerValidation, MalformedRecordsAreOneLineErrors) {
  const std::string dir = test::scratch_dir("power_validation_errors");
  std::ofstream(dir + "/a.csv") << "design,block\n";
  EXPECT_NE(test::error_of([&] { read_validation_records(dir + "/a.csv"); }).find("a.csv:1: expected the header"),
            std::string::npos);
  append_validation_records(dir + "/b.csv", {record("d", 0.5, 1, 1)});
  std::ofstream(dir + "/b.csv", std::ios::app) << "d2,array_a,pe_array_os,4;4,,10,1,500,x\n";
  EXPECT_NE(test::error_of([&] { read_validation_records(dir + "/b.csv"); }).find("b.csv:3: expected 23 comma-separated fields"),
            std::string::npos);
  // A block's own figures must be finite numbers.
  {
    std::ifstream in(dir + "/b.csv");
    std::string h, row;
    std::getline(in, h), std::getline(in, row);
    const size_t golden_field = 13;  // golden_mw
    size_t at = 0;
    for (size_t i = 0; i < golden_field; ++i) at = row.find(',', at) + 1;
    std::ofstream(dir + "/nan.csv") << h << "\n" << row.substr(0, at) << "nan" << row.substr(row.find(',', at)) << "\n";
  }
  const std::string nan_error = test::error_of([&] { read_validation_records(dir + "/nan.csv"); });
  EXPECT_NE(nan_error.find("nan.csv:2: golden_mw: expected a finite number, got 'nan'"), std::string::npos)
      << nan_error;
  // A run killed while appending leaves a torn last line; the next append drops it and the
  // records read whole, nothing glued to the torn row.
  append_validation_records(dir + "/torn.csv", {record("d1", 0.5, 1, 1)});
  std::ofstream(dir + "/torn.csv", std::ios::app) << "d2,array_a,pe_arr";
  append_validation_records(dir + "/torn.csv", {record("d3", 0.5, 1, 1)});
  const auto resumed = read_validation_records(dir + "/torn.csv");
  ASSERT_EQ(resumed.size(), 2u);
  EXPECT_EQ(resumed[0].design, "d1");
  EXPECT_EQ(resumed[1].design, "d3");
  // Records of the earlier layouts (no design traces; no golden power of the blocks without
  // a model) read as unknown, and are upgraded in place when a design is appended.
  std::string header, line;
  {
    append_validation_records(dir + "/new.csv", {record("d1", 0.5, 1, 1)});
    std::ifstream in(dir + "/new.csv");
    std::getline(in, header), std::getline(in, line);
  }
  // The header and row without their last `fields` columns.
  auto earlier = [&](const std::string& name, int fields) {
    std::string h = header, l = line;
    for (int i = 0; i < fields; ++i) h.erase(h.rfind(',')), l.erase(l.rfind(','));
    std::ofstream(dir + "/" + name) << h << "\n" << l << "\n";
  };
  earlier("old.csv", 3);
  earlier("before_unmodelled.csv", 1);
  const auto old_records = read_validation_records(dir + "/old.csv");
  ASSERT_EQ(old_records.size(), 1u);
  EXPECT_TRUE(std::isnan(old_records[0].design_trace_r));
  EXPECT_TRUE(std::isnan(old_records[0].design_unmodelled_golden_mw));
  const auto later_records = read_validation_records(dir + "/before_unmodelled.csv");
  EXPECT_DOUBLE_EQ(later_records.at(0).design_trace_r, 0.95);
  EXPECT_TRUE(std::isnan(later_records.at(0).design_unmodelled_golden_mw));
  append_validation_records(dir + "/old.csv", {record("d2", 0.5, 1, 1)});
  const auto upgraded = read_validation_records(dir + "/old.csv");
  ASSERT_EQ(upgraded.size(), 2u);
  EXPECT_TRUE(std::isnan(upgraded[0].design_trace_r));
  EXPECT_DOUBLE_EQ(upgraded[1].design_trace_r, 0.95);
  std::ostringstream table;
  print_validation(summarise_validation(upgraded, rule_dataset()), table);
  EXPECT_NE(table.str().find("R mean 0.950, min 0.950, NRMSE mean 0.100 (1 designs)"), std::string::npos);
  EXPECT_EQ(table.str().find("Cores replayed whole"), std::string::npos);  // none recorded
  EXPECT_NE(test::error_of([&] { append_validation_records(dir + "/a.csv", {record("d", 0.5, 1, 1)}); })
                .find("not a validation record file"),
            std::string::npos);
}

}  // namespace
}  // namespace fsgen

namespace fsgen {
namespace {

// Two blocks whose traces each disagree with their golden in shape, but whose sum follows
// the design's golden: the design's agreement is of the sums, window by window, from the
// second window on (the golden's first cycle counts every net's initial value as a toggle).
TEST(PowerValidation, DesignTraceIsTheSumOfItsBlocks) {
  PowerTrace t;
  t.cycles = 8, t.window = 2;
  BlockPower a, b;
  a.block = "array_a", a.mw = {1.0, 1.0, 3.0, 2.0}, a.average_mw = 1.75;
  b.block = "net_x", b.mw = {2.0, 2.0, 2.0, 2.0}, b.average_mw = 2.0;
  t.blocks = {a, b};
  GoldenBlockPower ga, gb;
  ga.block = "array_a", ga.mw = {30.0, 2.0, 2.0, 2.0, 2.0, 2.0, 2.0, 2.0}, ga.average_mw = 5.5;  // flat after the settle
  gb.block = "net_x", gb.mw = {10.0, 0.5, 0.5, 0.5, 2.5, 2.5, 1.5, 1.5}, gb.average_mw = 2.4375;
  const TraceAgreement d = design_trace_agreement(t, {ga, gb});
  EXPECT_DOUBLE_EQ(d.predicted_mw, 3.75);
  EXPECT_DOUBLE_EQ(d.golden_mw, 7.9375);
  EXPECT_NEAR(d.r, 1.0, 1e-12);  // predicted 3, 5, 4 against golden 2.5, 4.5, 3.5 (the settle's 21.25 left out)
  EXPECT_NEAR(d.nrmse, 0.5 / 7.9375, 1e-12);
  // The same traces as CSV, every window, the golden averaged over each.
  std::ostringstream csv;
  write_golden_trace_csv(t, {ga, gb}, csv);
  EXPECT_EQ(csv.str(),
            "cycle,array_a_predicted_mw,array_a_golden_mw,net_x_predicted_mw,net_x_golden_mw,together_predicted_mw,"
            "together_golden_mw\n0,1,16,2,5.25,3,21.25\n2,1,2,2,0.5,3,2.5\n4,3,2,2,2.5,5,4.5\n6,2,2,2,1.5,4,3.5\n");
}

}  // namespace
}  // namespace fsgen
