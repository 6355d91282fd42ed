// Design-space exploration: the space file, its points, the results database and resuming.
#include "dse/explore.h"

#include <signal.h>
#include <sqlite3.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <filesystem>
#include <fstream>
#include <set>
#include <sstream>
#include <thread>

#include "dse/report.h"
#include "dse/verify.h"
#include "generator/spec.h"
#include "power/characterize.h"
#include "power/power_model.h"
#include "test_util.h"

namespace fsgen {
namespace {

// Two loop orders x four tilings of the DSE example, two benchmarks.
std::string space_text(const std::string& benchmarks = "  - {model: Qwen3-0.6B, stage: decode, context: 64}\n") {
  return "name: t\nbase: " + std::filesystem::absolute("examples/dse_8gbps.yaml").string() +
         "\naxes:\n  arrays.a.loop_order: [output_stationary, weight_stationary]\n"
         "  arrays.a.tiling: [{m: 16, n: 16, k: 128}, {m: 8, n: 16, k: 128}, {m: 32, n: 32, k: 64}, "
         "{m: 16, n: 16, k: 64}]\nconstraints: {max_pes: 600}\nbenchmarks:\n" +
         benchmarks;
}

std::string write_space(const std::string& dir, const std::string& text) {
  std::ofstream(dir + "/space.yaml") << text;
  return dir + "/space.yaml";
}

TEST(DesignSpace, PointsAreTheAxesProductWithTheirValuesSet) {
  const std::string dir = test::scratch_dir("dse_space");
  const DesignSpace s = read_design_space(write_space(dir, space_text()));
  EXPECT_EQ(s.points(), 8u);
  const DesignPoint p = design_point(s, 5);  // weight_stationary, {m: 8, n: 16, k: 128}
  EXPECT_EQ(p.name, "t_5");
  EXPECT_NE(p.spec_text.find("loop_order: weight_stationary"), std::string::npos) << p.spec_text;
  EXPECT_NE(p.spec_text.find("m: 8"), std::string::npos) << p.spec_text;
  EXPECT_EQ(p.hash.size(), 16u);
  EXPECT_NE(design_point(s, 4).hash, p.hash);
  // A point that does not elaborate, and one over a constraint, are recorded with why.
  const DesignRecord invalid = evaluate_point(s, design_point(s, 4));
  EXPECT_EQ(invalid.status, "invalid");
  EXPECT_NE(invalid.reason.find("weight_stationary array a keeps partial sums"), std::string::npos) << invalid.reason;
  const DesignRecord big = evaluate_point(s, design_point(s, 2));  // 32 x 32 PEs on array a alone
  EXPECT_EQ(big.status, "excluded");
  EXPECT_NE(big.reason.find("exceed max_pes 600"), std::string::npos) << big.reason;
  const DesignRecord ok = evaluate_point(s, design_point(s, 1));
  ASSERT_EQ(ok.status, "ok") << ok.reason;
  ASSERT_EQ(ok.results.size(), 1u);
  EXPECT_EQ(ok.results[0].benchmark, "Qwen3-0.6B/decode/64/1");
  EXPECT_GT(ok.results[0].cycles, ok.results[0].roofline_cycles / 2);
}

// Appending axes (path+label) add list items; bundles ('@') set several paths at once.
TEST(DesignSpace, AppendingAxesAndBundlesComposeASpec) {
  const std::string dir = test::scratch_dir("dse_bundles");
  const std::string text =
      test::replace(space_text(), "  arrays.a.loop_order: [output_stationary, weight_stationary]\n",
                    "  sparsity+one: [[], [{kind: memory_value, tensor: x, condition: \"x==0\"}]]\n"
                    "  \"@two\": [{}, {memory.operand_tiles.b: 1, sparsity+: [{kind: memory_value, tensor: w, "
                    "condition: \"w==0\"}]}]\n");
  const DesignSpace s = read_design_space(write_space(dir, text));
  EXPECT_EQ(s.points(), 16u);
  const DesignPoint both = design_point(s, 12);  // x compressed, w compressed with one B tile
  const DesignSpec spec = parse_spec_text(both.spec_text, "p.yaml");
  ASSERT_EQ(spec.sparsity.size(), 2u) << both.spec_text;
  EXPECT_EQ(spec.sparsity[0].tensor, "x");
  EXPECT_EQ(spec.sparsity[1].tensor, "w");
  EXPECT_NE(both.spec_text.find("b: 1"), std::string::npos) << both.spec_text;
  EXPECT_EQ(parse_spec_text(design_point(s, 0).spec_text, "p.yaml").sparsity.size(), 0u);
  const std::string e = test::error_of(
      [&] { read_design_space(write_space(dir, test::replace(text, "\"@two\": [{}", "\"@two\": [3"))); });
  EXPECT_NE(e.find("axis '@two': expected each value a map of spec paths to values"), std::string::npos) << e;
}

// The shipped spaces read, with the paper's 768 points and BinaryLLM's 12 dataflows, each of
// which runs.
TEST(DesignSpace, ShippedSpaces) {
  EXPECT_EQ(read_design_space("spaces/paper.yaml").points(), 768u);
  const DesignSpace b = read_design_space("spaces/binaryllm.yaml");
  EXPECT_EQ(b.points(), 12u);
  for (uint64_t i = 0; i < b.points(); i += 4) {
    const DesignRecord d = evaluate_point(b, design_point(b, i));
    EXPECT_EQ(d.status, "ok") << d.name << ": " << d.reason;
  }
}

TEST(DesignSpace, MalformedSpacesAreOneLineErrorsWithTheirPlace) {
  const std::string dir = test::scratch_dir("dse_space_errors");
  auto error = [&](const std::string& text) {
    return test::error_of([&] { read_design_space(write_space(dir, text)); });
  };
  EXPECT_NE(error(space_text() + "colour: red\n").find("space.yaml:9:1: field 'colour': unknown"), std::string::npos)
      << error(space_text() + "colour: red\n");
  std::string e = error(test::replace(space_text(), "[output_stationary, weight_stationary]", "[]"));
  EXPECT_NE(e.find("axis 'arrays.a.loop_order': expected a non-empty list of values"), std::string::npos) << e;
  e = error(space_text("  - {model: Qwen3-0.6B, stage: sideways}\n"));
  EXPECT_NE(e.find("space.yaml:8:25: field 'benchmarks[0].stage': expected one of {prefill, decode}, got 'sideways'"),
            std::string::npos)
      << e;
  e = error(space_text("  - {model: Qwen3-0.6B, zeros: 1.5}\n"));
  EXPECT_NE(e.find("field 'benchmarks[0].zeros': expected a fraction from 0 to 1, got '1.5'"), std::string::npos) << e;
  e = error(space_text("  - {model: Qwen3-0.6B, part: ffn}\n"));
  EXPECT_NE(e.find("field 'benchmarks[0].part': expected one of {layer, attention}, got 'ffn'"), std::string::npos)
      << e;
  e = error(space_text() + "comparisons: {power_cap_mw: 0}\n");
  EXPECT_NE(e.find("field 'comparisons.power_cap_mw': expected a number above 0"), std::string::npos) << e;
  e = error(test::replace(space_text(), "max_pes: 600", "max_pes: -1"));
  EXPECT_NE(e.find("space.yaml:6:15: field 'constraints.max_pes': expected an integer in [0, 4294967295], got -1"),
            std::string::npos)
      << e;
  // A path given twice would leave which value counts to the YAML library.
  e = error(test::replace(space_text(),
                          "  arrays.a.tiling:", "  arrays.a.loop_order: [output_stationary]\n  arrays.a.tiling:"));
  EXPECT_NE(e.find("field 'axes.arrays.a.loop_order': field 'arrays.a.loop_order' given twice (first at line 4)"),
            std::string::npos)
      << e;
  e = error("name: t\nbase: nowhere.yaml\naxes: {}\nbenchmarks: []\n");
  EXPECT_NE(e.find("field 'base': cannot open the base spec"), std::string::npos) << e;
}

// The rows of a database, in one comparable text.
std::string rows_of(const std::string& db_path) {
  const ResultsDb db(db_path);
  std::string out;
  for (const auto& d : db.designs()) {
    out += d.name + " " + d.hash + " " + d.status + " " + std::to_string(d.pes) + "\n";
    for (const auto& r : d.results)
      out += "  " + r.benchmark + " " + std::to_string(r.cycles) + " " + std::to_string(r.dma_bytes) + "\n";
  }
  return out;
}

TEST(Explore, ResumesAndAgreesWithAnyNumberOfJobs) {
  const std::string dir = test::scratch_dir("dse_explore");
  const DesignSpace s = read_design_space(write_space(dir, space_text()));
  {
    ResultsDb db(dir + "/one.sqlite");
    ExploreOptions o;
    o.limit = 3;
    const ExploreCounts first = explore(s, db, o);
    EXPECT_EQ(first.points, 3u);
    o.limit = 0;
    const ExploreCounts rest = explore(s, db, o);
    EXPECT_EQ(rest.already, 3u);
    EXPECT_EQ(rest.ok + rest.invalid + rest.excluded + rest.failed, 5u);
  }
  ResultsDb two(dir + "/two.sqlite");
  ExploreOptions o;
  o.jobs = 2;
  explore(s, two, o);
  EXPECT_EQ(rows_of(dir + "/one.sqlite"), rows_of(dir + "/two.sqlite"));
  std::ostringstream report;
  print_explore_report(two.designs(), SpaceComparisons{}, report);
  EXPECT_NE(report.str().find("space t: 8, excluded 1, invalid 4, ok 3"), std::string::npos) << report.str();
}

// Every constraint excludes a design with the figure and the cap; area and power caps need
// the models.
TEST(Explore, ConstraintsExcludeWithTheirFigure) {
  const std::string dir = test::scratch_dir("dse_constraints");
  auto reason = [&](const std::string& constraint, const ExploreOptions& o = {}) {
    const DesignSpace s = read_design_space(write_space(dir, test::replace(space_text(), "max_pes: 600", constraint)));
    const DesignRecord d = evaluate_point(s, design_point(s, 1), o);  // 8 x 16 PEs, 8 GB/s, 1000 MHz
    EXPECT_EQ(d.status, "excluded") << constraint;
    return d.reason;
  };
  EXPECT_EQ(reason("max_bandwidth_gbps: 4"), "8 GB/s exceeds max_bandwidth_gbps 4");
  EXPECT_EQ(reason("max_clock_mhz: 500"), "1000 MHz exceeds max_clock_mhz 500");
  const PowerModel model = train_power_model(read_dataset("data/power/fsgen45.csv"), 50);
  ExploreOptions o;
  o.power_model = &model;
  o.power_model_name = "fsgen45";
  EXPECT_NE(reason("max_area_mm2: 0.5", o).find("mm2 exceeds max_area_mm2 0.5"), std::string::npos);
  EXPECT_NE(reason("max_power_mw: 1", o).find("Qwen3-0.6B/decode/64/1: "), std::string::npos);
  const DesignSpace s =
      read_design_space(write_space(dir, test::replace(space_text(), "max_pes: 600", "max_power_mw: 1")));
  ResultsDb db(dir + "/c.sqlite");
  const std::string e = test::error_of([&] { explore(s, db, ExploreOptions{}); });
  EXPECT_NE(e.find("constraints max_area_mm2 and max_power_mw need the area and power models"), std::string::npos) << e;
}

// A database of another layout is refused, not mixed with this one.
TEST(Explore, ADatabaseOfAnotherLayoutIsRefused) {
  const std::string dir = test::scratch_dir("dse_layout");
  const std::string path = dir + "/old.sqlite";
  sqlite3* old = nullptr;
  ASSERT_EQ(sqlite3_open(path.c_str(), &old), SQLITE_OK);
  ASSERT_EQ(sqlite3_exec(old, "CREATE TABLE designs (hash TEXT); PRAGMA user_version = 1;", nullptr, nullptr, nullptr),
            SQLITE_OK);
  sqlite3_close(old);
  const std::string e = test::error_of([&] { ResultsDb db(path); });
  EXPECT_NE(e.find("a results database of layout 1 (an earlier fsgen): expected layout 3; give a new --db"),
            std::string::npos)
      << e;
  // A report of a database that is not there is an error, not an empty report.
  const test::CliRun none = test::fsgen_cli("explore --report " + dir + "/none.sqlite");
  EXPECT_EQ(none.status, 1);
  EXPECT_NE(none.out.find("none.sqlite: cannot open the results database"), std::string::npos) << none.out;
  EXPECT_FALSE(std::filesystem::exists(dir + "/none.sqlite"));
}

// With a power model, each design's area by its primitive area models and its power by the
// activity-scaled primitive models; the report's table and fronts, and the figures drawn.
TEST(Explore, AreaAndPowerFromThePrimitiveModelsAndTheFiguresDrawn) {
  const std::string dir = test::scratch_dir("dse_area");
  const DesignSpace s = read_design_space(write_space(dir, space_text()));
  const PowerModel model = train_power_model(read_dataset("data/power/fsgen45.csv"), 50);
  ExploreOptions o;
  o.power_model = &model;
  o.power_model_name = "fsgen45";
  const DesignRecord small = evaluate_point(s, design_point(s, 1), o);  // 8 x 16 PEs
  const DesignRecord big = evaluate_point(s, design_point(s, 0), o);    // 16 x 16 PEs
  ASSERT_EQ(small.status, "ok") << small.reason;
  EXPECT_GT(small.area_um2, 0);
  EXPECT_GT(big.area_um2, small.area_um2);
  EXPECT_NE(small.area_model.find("fsgen primitive area models (fsgen45)"), std::string::npos) << small.area_model;
  // Power: above a milliwatt, below 10 W for 384 PEs (the controller's flip-flop operand
  // buffers draw most of it); the sample's
  // cycles in the fast model equal the cycle model's on a dense design.
  ASSERT_EQ(small.results.size(), 1u);
  EXPECT_GT(small.results[0].power_mw, 1);
  EXPECT_LT(small.results[0].power_mw, 10000);
  EXPECT_NE(small.results[0].power_model.find("activity-scaled primitive models (fsgen45)"), std::string::npos);
  EXPECT_NE(small.power_sample.find("matmul"), std::string::npos) << small.power_sample;
  EXPECT_NE(small.results[0].power_by_block.find("ctrl "), std::string::npos) << small.results[0].power_by_block;
  EXPECT_EQ(small.sample_cycle_error, 0);
  ResultsDb db(dir + "/a.sqlite");
  explore(s, db, o);
  std::ostringstream report;
  print_explore_report(db.designs(), SpaceComparisons{}, report);
  EXPECT_NE(report.str().find("best designs (by FoM = tokens/s / W / mm2"), std::string::npos) << report.str();
  EXPECT_NE(report.str().find("front cycles_power"), std::string::npos) << report.str();
  EXPECT_NE(report.str().find(" mW by block (Qwen3-0.6B/decode/64/1): "), std::string::npos) << report.str();
  const nlohmann::json j = explore_report_json(db.designs(), SpaceComparisons{});
  EXPECT_EQ(j["designs"].size(), 8u);
  EXPECT_GT(j["table"][0]["fom"].get<double>(), 0);
  if (!test::have_tool("gnuplot")) GTEST_SKIP() << "gnuplot not installed";
  write_explore_plots(db.designs(), dir + "/fig");
  const std::string csv = test::read_file(dir + "/fig/designs.csv");
  EXPECT_EQ(csv.rfind("space,design,pes,clock_mhz,max_clock_mhz,area_mm2,power_mw,cycles,tokens_per_second", 0), 0u)
      << csv;
  for (const char* f : {"front_cycles_power.png", "front_tokens_area.png", "front_efficiency_area.png",
                        "benchmarks.png", "benchmarks.csv"})
    EXPECT_TRUE(std::filesystem::exists(dir + "/fig/" + f)) << f;
}

// Two spaces in one database: the first compared with the second at the caps.
TEST(Explore, TheFirstSpaceIsComparedWithTheOthers) {
  const std::string dir = test::scratch_dir("dse_compare");
  const DesignSpace ours = read_design_space(write_space(dir, space_text()));
  std::ofstream(dir + "/theirs.yaml") << test::replace(space_text(), "name: t\n", "name: u\n");
  const DesignSpace theirs = read_design_space(dir + "/theirs.yaml");
  const PowerModel model = train_power_model(read_dataset("data/power/fsgen45.csv"), 50);
  ExploreOptions o;
  o.power_model = &model;
  o.power_model_name = "fsgen45";
  o.limit = 2;
  ResultsDb db(dir + "/c.sqlite");
  explore(ours, db, o);
  explore(theirs, db, o);
  std::ostringstream report;
  print_explore_report(db.designs(), SpaceComparisons{1e6, 1e12}, report);
  // The same designs on both sides: the same best, a ratio of one.
  EXPECT_NE(report.str().find("t against u:\n  least cycles at a power cap of 1e+06 mW: "), std::string::npos)
      << report.str();
  EXPECT_NE(report.str().find("(t_1) against "), std::string::npos) << report.str();
  EXPECT_NE(report.str().find("(u_1): 1x faster"), std::string::npos) << report.str();
  std::ostringstream none;
  print_explore_report(db.designs(), SpaceComparisons{0.001, 1}, none);
  EXPECT_NE(none.str().find("t has no design within the cap"), std::string::npos) << none.str();
}

// A benchmark's key names it whole; the best designs run again in the cycle model agree with
// the fast model (a dense design: cycle for cycle).
TEST(Explore, TheBestDesignsRunAgainInTheCycleModel) {
  for (const std::string key : {"Llama-2-7b/decode/512/1/attention/zeros=0.5", "Qwen3-0.6B/prefill/128/all",
                                "models/x/config.json/prefill/64/2/zeros=0.25"})
    EXPECT_EQ(benchmark_of_key(key).key(), key);
  EXPECT_TRUE(benchmark_of_key("Llama-2-7b/decode/512/1/attention").attention_only);
  EXPECT_NE(test::error_of([] { benchmark_of_key("Llama-2-7b/decode"); }).find("expected model/stage/context/layers"),
            std::string::npos);
  EXPECT_NE(test::error_of([] { benchmark_of_key("Llama-2-7b/decode/many/1"); }).find("expected model/stage"),
            std::string::npos);
  const std::string dir = test::scratch_dir("dse_verify");
  const DesignSpace s = read_design_space(write_space(dir, space_text()));
  ResultsDb db(dir + "/v.sqlite");
  ExploreOptions o;
  o.limit = 2;
  explore(s, db, o);
  const std::vector<CycleCheck> checks = check_best_designs(db.designs(), 1);
  ASSERT_EQ(checks.size(), 1u);
  EXPECT_EQ(checks[0].benchmark, "Qwen3-0.6B/decode/64/1");
  EXPECT_GT(checks[0].cycle_model_cycles, 0u);
  EXPECT_EQ(checks[0].fast_cycles, checks[0].cycle_model_cycles);
  std::ostringstream out;
  print_cycle_checks(checks, out);
  EXPECT_NE(out.str().find("largest error 0.00 % over 1 runs"), std::string::npos) << out.str();
}

// A space of one design, a matmul core (`spec`: its fields after name, clock and kernels), on
// one benchmark, explored with `model`'s primitive models: its records.
std::vector<DesignRecord> explore_one_design(const std::string& dir, const std::string& spec,
                                             const std::string& benchmark, const PowerModel& model) {
  std::ofstream(dir + "/tiny.yaml") << "name: tiny\nclock_mhz: 1000\nkernels: [matmul]\n" << spec;
  const DesignSpace s = read_design_space(
      write_space(dir, "name: one\nbase: " + dir + "/tiny.yaml\naxes:\n  arrays.a.loop_order: [output_stationary]\n" +
                           "benchmarks:\n  - " + benchmark + "\n"));
  ExploreOptions o;
  o.power_model = &model;
  o.power_model_name = "fsgen45";
  ResultsDb db(dir + "/one.sqlite");
  explore(s, db, o);
  return db.designs();
}

// With a timing model among the primitive models, each design's max clock is its slowest
// block's, and names the block; the best design's blocks synthesised and timed against the
// models (two blocks here, to stay fast: the DMA and a 4x4 array).
TEST(Explore, MaxClockFromTheTimingModelCheckedOnSynthesisedBlocks) {
  const std::string dir = test::scratch_dir("dse_clock");
  PowerModel model = train_power_model(read_dataset("data/power/fsgen45.csv"), 20);
  model.timing = fit_timing_model(read_timing_dataset("data/timing/fsgen45.csv"));
  const std::vector<DesignRecord> designs =
      explore_one_design(dir,
                         "pe_budget: 64\nmemory: {bandwidth_gbps: 4, latency_cycles: 20, buffer_limit_bytes: 1024}\n"
                         "arrays:\n  a: {loop_order: output_stationary, tiling: {m: 4, n: 4, k: 8}}\n"
                         "  b: {loop_order: output_stationary, tiling: {m: 4, n: 4, k: 4}}\n",
                         "{model: Qwen3-0.6B, stage: decode, context: 16}", model);
  ASSERT_EQ(designs.size(), 1u);
  ASSERT_EQ(designs[0].status, "ok") << designs[0].reason;
  EXPECT_GT(designs[0].max_clock_mhz, 50);
  EXPECT_LT(designs[0].max_clock_mhz, 2000);
  EXPECT_NE(designs[0].clock_model.find("fsgen timing model (fsgen45): set by "), std::string::npos)
      << designs[0].clock_model;
  std::ostringstream report;
  print_explore_report(designs, SpaceComparisons{}, report);
  EXPECT_NE(report.str().find("MHz in the table: fsgen timing model"), std::string::npos) << report.str();

  SynthesisRequest request;
  request.blocks = {"dma", "array_a"};
  const std::vector<SynthesisCheck> checks = synthesise_best_designs(designs, 1, model, request, dir + "/synth", true);
  ASSERT_EQ(checks.size(), 1u);
  ASSERT_EQ(checks[0].blocks.size(), 2u);
  for (const BlockCheck& b : checks[0].blocks) {
    EXPECT_GT(b.synth_um2, 0) << b.block;
    EXPECT_GE(b.delay_mapped_um2, b.synth_um2 * 0.9) << b.block;
    EXPECT_NEAR(b.model_um2, b.synth_um2, 0.3 * b.synth_um2) << b.block;  // sizes the area models were fitted on
    EXPECT_NEAR(b.model_ns, b.synth_ns, 0.3 * b.synth_ns) << b.block;
  }
  EXPECT_GT(checks[0].synth_mhz(), 0);
  std::ostringstream out;
  print_synthesis_checks(checks, out);
  EXPECT_NE(out.str().find("largest error: area "), std::string::npos) << out.str();
  // Netlists of another liberty than the models': refused before any synthesis.
  std::ofstream(dir + "/other.lib") << "library (other) { }\n";
  request.liberty = dir + "/other.lib";
  const std::string other =
      test::error_of([&] { synthesise_best_designs(designs, 1, model, request, dir + "/o", false); });
  EXPECT_NE(other.find("characterised on liberty 'fsgen45', not 'other'"), std::string::npos) << other;
  EXPECT_FALSE(std::filesystem::exists(dir + "/o/one"));
}

// The best design's power sample replayed at gate level: every block with an activity model
// (here a 2x2 array and the DMA) against the primitive models on the same run.
TEST(Explore, GoldenPowerOfTheBestDesignsPowerSamples) {
  const std::string dir = test::scratch_dir("dse_golden");
  const PowerModel model = train_power_model(read_dataset("data/power/fsgen45.csv"), 20);
  const std::vector<DesignRecord> designs =
      explore_one_design(dir,
                         "pe_budget: 16\nmemory: {bandwidth_gbps: 2, latency_cycles: 4, buffer_limit_bytes: 256}\n"
                         "arrays:\n  a: {loop_order: output_stationary, tiling: {m: 2, n: 2, k: 8}}\n"
                         "  b: {loop_order: output_stationary, tiling: {m: 2, n: 2, k: 2}}\n",
                         "{model: Qwen3-0.6B, stage: decode, context: 16, zeros: 0.5}", model);
  ASSERT_EQ(designs.size(), 1u);
  ASSERT_EQ(designs[0].status, "ok") << designs[0].reason;

  const std::vector<GoldenCheck> checks = golden_best_designs(designs, 1, model, "", dir + "/verify");
  ASSERT_EQ(checks.size(), 1u);  // a matmul core's sample: one matmul
  const GoldenCheck& c = checks[0];
  EXPECT_EQ(c.kernel.rfind("matmul", 0), 0u) << c.kernel;
  EXPECT_EQ(c.zeros, 0.5);
  EXPECT_EQ(c.replay_mismatch_cycles, 0u);
  std::set<std::string> compared;
  for (const GoldenComparison& b : c.blocks) {
    compared.insert(b.block);
    EXPECT_GT(b.golden_mw, 0) << b.block;
    EXPECT_NEAR(b.predicted_mw, b.golden_mw, 0.3 * b.golden_mw) << b.block;
  }
  EXPECT_EQ(compared, (std::set<std::string>{"array_a", "dma"}));
  EXPECT_NEAR(c.together.predicted_mw, c.together.golden_mw, 0.2 * c.together.golden_mw);
  EXPECT_NE(std::find(c.not_replayed.begin(), c.not_replayed.end(), "ctrl (ctrl)"), c.not_replayed.end());
  std::ostringstream out;
  print_golden_checks(checks, out);
  EXPECT_NE(out.str().find("largest error "), std::string::npos) << out.str();
}

// Ranks (mpirun's processes, or --rank / --ranks) share one database and fill it as one
// process does.
TEST(Explore, RanksSharingADatabaseMakeTheOneProcessDatabase) {
  const std::string dir = test::scratch_dir("dse_ranks");
  const std::string space = write_space(dir, space_text());
  ASSERT_EQ(test::fsgen_cli("explore " + space + " --db " + dir + "/one.sqlite").status, 0);
  std::vector<std::thread> ranks;
  std::vector<test::CliRun> runs(2);
  for (int r = 0; r < 2; ++r)
    ranks.emplace_back([&, r] {
      runs[r] = test::fsgen_cli("explore " + space + " --db " + dir + "/ranks.sqlite --rank " + std::to_string(r) +
                                " --ranks 2");
    });
  for (auto& t : ranks) t.join();
  for (const auto& r : runs) {
    EXPECT_EQ(r.status, 0) << r.out;
    EXPECT_NE(r.out.find(" of 2: space t:"), std::string::npos) << r.out;
  }
  EXPECT_EQ(rows_of(dir + "/ranks.sqlite"), rows_of(dir + "/one.sqlite"));
  const test::CliRun bad = test::fsgen_cli("explore " + space + " --rank 2 --ranks 2");
  EXPECT_EQ(bad.status, 1);
  EXPECT_NE(bad.out.find("--rank: 2 of 2: expected a rank below --ranks"), std::string::npos) << bad.out;
}

// `fsgen explore` killed at any moment resumes to the database an uninterrupted run makes.
TEST(Explore, ARunKilledAtAnyMomentResumesToTheSameDatabase) {
  const std::string dir = test::scratch_dir("dse_kill");
  const std::string space =
      write_space(dir, test::replace(space_text("  - {model: Llama-2-7b, stage: prefill, context: 256}\n"
                                                "  - {model: Qwen3-0.6B, stage: decode, context: 256}\n"),
                                     "max_pes: 600", "max_pes: 4096"));
  const test::CliRun whole = test::fsgen_cli("explore " + space + " --db " + dir + "/whole.sqlite");
  ASSERT_EQ(whole.status, 0) << whole.out;
  for (int delay_ms : {150, 600, 1200}) {
    const pid_t child = fork();
    if (child == 0) {
      const std::string db = dir + "/killed.sqlite";
      execl(FSGEN_BINARY, FSGEN_BINARY, "explore", space.c_str(), "--db", db.c_str(), (char*)nullptr);
      _exit(127);
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(delay_ms));
    kill(child, SIGKILL);
    waitpid(child, nullptr, 0);
    // The first kill cuts the run short (the whole run takes seconds); later ones may find it done.
    if (delay_ms == 150) {
      EXPECT_NE(rows_of(dir + "/killed.sqlite"), rows_of(dir + "/whole.sqlite"));
    }
  }
  const test::CliRun resumed = test::fsgen_cli("explore " + space + " --db " + dir + "/killed.sqlite");
  ASSERT_EQ(resumed.status, 0) << resumed.out;
  EXPECT_EQ(rows_of(dir + "/killed.sqlite"), rows_of(dir + "/whole.sqlite"));
}

}  // namespace
}  // namespace fsgen
