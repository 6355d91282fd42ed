// Characterisation into a dataset, and the XGBoost power model trained on it.
#include "power/power_model.h"

#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <functional>
#include <nlohmann/json.hpp>
#include <numeric>
#include <random>
#include <set>
#include <sstream>
#include <thread>
#include <utility>

#include "compiler/attention.h"
#include "compiler/ffn.h"
#include "compiler/matmul.h"
#include "core/json_file.h"
#include "core/regmap.h"
#include "flow/tools.h"
#include "generator/verilog_emitter.h"
#include "models/platform.h"
#include "power/controller_events.h"
#include "power/controller_training.h"
#include "power/gate_power.h"
#include "power/memory_macro.h"
#include "power/techmap.h"
#include "sim/power_report.h"
#include "test_util.h"

namespace fsgen {
namespace {

// The test grid of `kinds`, `cycles` per stimulus, built under `dir`.
CharacterizeOptions small_characterisation(std::vector<std::string> kinds, uint64_t cycles, const std::string& dir) {
  CharacterizeOptions o;
  o.kinds = std::move(kinds);
  o.cycles = cycles;
  o.small_grid = true;
  o.work_dir = dir + "/work";
  return o;
}

// The test grid of a primitive at its 2 x 2 size, 400 cycles per stimulus, in a scratch
// folder of that name.
Dataset characterised_2x2(const std::string& kind, const std::string& name) {
  const std::string dir = test::scratch_dir(name);
  CharacterizeOptions o = small_characterisation({kind}, 400, dir);
  o.max_elements = 4;
  EXPECT_EQ(characterize(o, dir + "/dataset.csv").added, 8u);
  return read_dataset(dir + "/dataset.csv");
}

// Every point's side enable at one of the grid's shares of its enabled cycles (0.1, 0.5 or
// 0.9, the nearest), and each share met.
void expect_side_at_grid_shares(const Dataset& d) {
  std::set<double> shares;
  for (const auto& p : d.points) {
    const double share = std::round(p.side / p.enable * 2.5 - 0.25) / 2.5 + 0.1;
    EXPECT_NEAR(p.side / p.enable, share, 0.08) << p.key();
    shares.insert(share);
  }
  EXPECT_EQ(shares.size(), 3u);
}

// A model file whose first tree was damaged in `damage` is refused with `message`.
void expect_tree_refused(const std::string& model, const std::function<void(nlohmann::json&)>& damage,
                         const std::string& message) {
  nlohmann::json j;
  std::ifstream(model) >> j;
  for (auto& [kind, primitive] : j.at("primitives").items()) {
    damage(primitive.at("booster").at("learner"));
    break;
  }
  const std::string path = model + ".damaged.json";
  std::ofstream(path) << j.dump();
  const std::string e = test::error_of([&] { load_power_model(path); });
  EXPECT_NE(e.find(message), std::string::npos) << e;
}

// Trees that would loop, leave their arrays or carry non-numbers are one-line errors.
void expect_damaged_trees_refused(const std::string& model) {
  auto tree = [](nlohmann::json& learner) -> nlohmann::json& {
    return learner.at("gradient_booster").at("model").at("trees").at(0);
  };
  expect_tree_refused(
      model, [&](nlohmann::json& l) { tree(l).at("left_children")[0] = 0; },
      "tree node 0 refers to a node or feature it does not have");  // a loop
  expect_tree_refused(
      model, [&](nlohmann::json& l) { tree(l).at("left_children")[0] = -5; },
      "tree node 0 refers to a node or feature it does not have");
  expect_tree_refused(
      model, [&](nlohmann::json& l) { tree(l).at("right_children")[0] = 1 << 20; },
      "tree node 0 refers to a node or feature it does not have");
  expect_tree_refused(
      model, [&](nlohmann::json& l) { tree(l).at("split_conditions").erase(0); },
      "a tree's node arrays differ in length");
  expect_tree_refused(
      model, [&](nlohmann::json& l) { l.at("learner_model_param").at("base_score") = "fast"; },
      "base_score: expected a finite number, got 'fast'");
}

TEST(Characterize, DatasetIsResumableAndTrainsAModel) {
  if (!test::have_tool("yosys") || !test::have_tool("verilator")) GTEST_SKIP() << "yosys or verilator not installed";
  const std::string dir = test::scratch_dir("characterize");
  CharacterizeOptions o = small_characterisation({"pe_array_os", "sparse_net"}, 200, dir);
  const std::string path = dir + "/dataset.csv";
  uint64_t last_total = 0;
  const CharacterizeSummary first = characterize(o, path, [&](uint64_t, uint64_t total) { last_total = total; });
  EXPECT_EQ(first.added, 32u);  // 2 primitives x 2 sizes x 8 stimuli
  EXPECT_EQ(last_total, 32u);
  const CharacterizeSummary again = characterize(o, path);
  EXPECT_EQ(again.added, 0u);
  EXPECT_EQ(again.skipped, 32u);
  {  // a run killed while writing a row leaves it torn: resuming drops it and measures it again
    const std::string text = test::read_file(path);
    const size_t cut = text.rfind('\n', text.size() - 2) + 10;  // ten bytes into the last row
    std::ofstream(path, std::ios::binary | std::ios::trunc) << text.substr(0, cut);
    const CharacterizeSummary resumed = characterize(o, path);
    EXPECT_EQ(resumed.added, 1u);
    EXPECT_EQ(resumed.skipped, 31u);
    EXPECT_EQ(test::read_file(path).size(), text.size());  // the same rows, nothing glued
  }
  o.max_elements = 2;  // both networks (2 outputs each), no array
  const CharacterizeSummary limited = characterize(o, path);
  EXPECT_EQ(limited.skipped, 16u);
  EXPECT_EQ(limited.added, 0u);
  o.max_elements = 0;

  const Dataset d = read_dataset(path);
  ASSERT_EQ(d.points.size(), 32u);
  EXPECT_EQ(d.provenance.at("liberty"), "fsgen45 (built in)");
  for (const auto& p : d.points) {
    EXPECT_GT(p.dynamic_fj, 0) << p.key();
    EXPECT_GT(p.leakage_mw, 0);
    EXPECT_GT(p.area_um2, 0);
    EXPECT_NEAR(p.enable, p.enable_rate, 0.15) << p.key();  // measured against asked
  }
  // More toggling costs more energy at the same size and enable rate.
  auto energy = [&](const std::vector<int>& h, double rate, double zeros, double enable) {
    for (const auto& p : d.points)
      if (p.h == h && p.toggle_rate == rate && p.zero_fraction == zeros && p.enable_rate == enable) return p;
    ADD_FAILURE() << "point missing";
    return CharPoint{};
  };
  EXPECT_GT(energy({2, 4, 0}, 0.4, 0.0, 1.0).dynamic_fj, energy({2, 4, 0}, 0.1, 0.0, 1.0).dynamic_fj);
  EXPECT_GT(energy({2, 4, 0}, 0.4, 0.0, 1.0).dynamic_fj, energy({2, 4, 0}, 0.4, 0.7, 1.0).dynamic_fj);  // zero operands switch less
  // A value network's alpha is measured on its output lanes: zero windows and no picks
  // leave them still.
  const CharPoint busy_net = energy({2, 4, 1}, 0.4, 0.0, 1.0), zero_net = energy({2, 4, 1}, 0.4, 0.7, 1.0);
  EXPECT_GT(busy_net.dynamic_fj, zero_net.dynamic_fj);
  EXPECT_GT(busy_net.alpha, 5 * zero_net.alpha);

  const PowerModel m = train_power_model(d, 50);
  const PrimitivePowerModel& os = m.primitive("pe_array_os");
  // The trees evaluated directly give XGBoost's own predictions, row by row and together.
  Booster xgboost;
  xgboost.from_json(os.booster.dump());
  std::vector<float> rows;
  const size_t columns = os.features.size();  // R, C, SYSTOLIC, alpha, enable, zeros, state, state_ones
  ASSERT_EQ(columns, 8u);
  for (const auto& p : d.points) {
    const std::vector<float> row = {float(p.h[0]),   float(p.h[1]),  float(p.h[2]),  float(p.alpha),
                                    float(p.enable), float(p.zeros), float(p.state), float(p.state_ones)};
    const float xgb = xgboost.predict(row, row.size()).front();
    EXPECT_NEAR(os.trees->predict(row.data()), xgb, 1e-4 * std::abs(xgb)) << p.key();
    if (p.kind == "pe_array_os") rows.insert(rows.end(), row.begin(), row.end());
  }
  const std::vector<float> together = os.trees->predict_rows(rows.data(), rows.size() / columns);
  for (size_t r = 0; r < together.size(); ++r) EXPECT_EQ(together[r], os.trees->predict(rows.data() + columns * r));
  // With an instance's hyperparameters fixed, its rows' predictions are the same.
  for (size_t r = 0; r < together.size(); ++r) {
    const TreeEnsemble fixed = os.trees->with_fixed(
        std::vector<float>(rows.begin() + long(columns * r), rows.begin() + long(columns * r + 3)));
    EXPECT_EQ(fixed.predict(rows.data() + columns * r), together[r]);
  }
  EXPECT_EQ(os.quality.train_points + os.quality.test_points, 16u);
  EXPECT_EQ(m.primitive("sparse_net").quality.train_points + m.primitive("sparse_net").quality.test_points, 16u);
  EXPECT_GT(m.leakage_mw("pe_array_os", {4, 4, 0}), m.leakage_mw("pe_array_os", {2, 2, 0}));  // scales by elements
  // A network's area grows with its outputs and its window: the fit over both terms
  // recovers the characterised sizes.
  for (const auto& h : {std::vector<int>{2, 2, 1}, std::vector<int>{2, 4, 1}})
    EXPECT_NEAR(m.area_um2("sparse_net", h), energy(h, 0.1, 0.0, 1.0).area_um2, 0.01 * energy(h, 0.1, 0.0, 1.0).area_um2);
  save_power_model(m, dir + "/model.json");
  const PowerModel back = load_power_model(dir + "/model.json");
  expect_damaged_trees_refused(dir + "/model.json");
  // What the model never saw is reported, after a round trip through its file.
  EXPECT_EQ(back.extrapolation("pe_array_os", {2, 4, 0}), "");
  EXPECT_EQ(back.extrapolation("pe_array_os", {8, 4, 1}),
            "R=8 (characterised 2), SYSTOLIC=1 (characterised 0)");
  EXPECT_DOUBLE_EQ(back.dynamic_fj("pe_array_os", {2, 4, 0}, {0.2, 0.8, 0.1}), m.dynamic_fj("pe_array_os", {2, 4, 0}, {0.2, 0.8, 0.1}));
  // A trace's windows are predicted together (repeated rows once): the same values.
  const std::vector<PrimitiveActivity> windows = {{0.2, 0.8, 0.1}, {0.0, 0.0, 0.1}, {0.2, 0.8, 0.1}, {0.4, 1.0, 0.0}};
  const std::vector<double> batch = m.dynamic_fj("pe_array_os", {2, 4, 0}, windows);
  ASSERT_EQ(batch.size(), windows.size());
  for (size_t i = 0; i < windows.size(); ++i) EXPECT_DOUBLE_EQ(batch[i], m.dynamic_fj("pe_array_os", {2, 4, 0}, windows[i]));
  EXPECT_NE(test::error_of([&] { back.primitive("pe_array_dot"); }).find("no model for primitive 'pe_array_dot'"),
            std::string::npos);

  // The trace of a kernel on a design whose arrays are the characterised 2 x 4.
  const Graph g = elaborate(parse_spec_text(test::tiny_matmul_core_spec(), "tiny.yaml"));
  MatmulProblem mp;
  mp.m = 8;
  mp.n = 8;
  mp.k = 16;
  const PowerTrace t = estimate_power(g, compile_matmul(g, mp), m, 64);
  ASSERT_EQ(t.blocks.size(), 1u);  // a matmul-only core: array a
  const BlockPower& a = t.blocks.front();
  EXPECT_EQ(a.kind, "pe_array_os");
  EXPECT_EQ(a.h, (std::vector<int>{2, 4, 0}));
  EXPECT_EQ(a.mw.size(), (t.cycles + 63) / 64);
  double weighted = 0;
  for (size_t w = 0; w < a.mw.size(); ++w) {
    EXPECT_GE(a.mw[w], a.leakage_mw);
    weighted += a.mw[w] * double(std::min<uint64_t>(64, t.cycles - w * 64)) / double(t.cycles);
  }
  EXPECT_NEAR(a.average_mw, weighted, 1e-9 * weighted);
  EXPECT_FALSE(t.not_modelled.empty());  // dma, ctrl, ... are said to be missing
  std::ostringstream csv, vcd;
  write_power_csv(t, csv);
  write_power_vcd(t, vcd);
  const std::string csv_text = csv.str();
  EXPECT_EQ(std::count(csv_text.begin(), csv_text.end(), '\n'), long(a.mw.size() + 1));
  EXPECT_NE(vcd.str().find("$var real 64 p0 array_a_mw $end"), std::string::npos);
  if (test::have_tool("gnuplot")) {
    std::ofstream(dir + "/t.csv") << csv_text;
    plot_power_png(t, dir + "/t.csv", dir + "/t.png");
    EXPECT_GT(std::filesystem::file_size(dir + "/t.png"), 1000u);
  }

  // A value-sparse core (tile times depend on the data, the cycle model's spans give them
  // as for every design); its value networks are sparse_net instances, observed at the
  // lane buses they drive.
  std::string sparse_spec = test::tiny_matmul_core_spec();
  sparse_spec.replace(sparse_spec.find("k: 8}}"), 6, "k: 8}, sparse_tiling: {n: \"1:4:4:4\", k: \"1:1:4:4\"}}");
  sparse_spec += "sparsity:\n  - {kind: compute_value, tensor: w, condition: \"w==0\"}\n";
  const Graph gs = elaborate(parse_spec_text(sparse_spec, "tiny_sparse.yaml"));
  mp.values.zero_fraction = 0.5;
  const PowerTrace ts = estimate_power(gs, compile_matmul(gs, mp), m, 64);
  ASSERT_EQ(ts.blocks.size(), 3u);
  const BlockPower &sa = ts.blocks[0], &net_x = ts.blocks[1], &net_w = ts.blocks[2];
  EXPECT_GT(sa.busy, 0.0);
  EXPECT_EQ(sa.variant_note, "");  // lanes only route wires on a broadcast array
  EXPECT_EQ(net_x.block, "net_x");
  EXPECT_EQ(net_x.kind, "sparse_net");
  EXPECT_EQ(net_x.h, (std::vector<int>{2, 4, 4}));  // 2 rows, windows of 4, one lane per PE column
  EXPECT_EQ(net_w.h, (std::vector<int>{4, 4, 1}));
  EXPECT_EQ(net_x.busy, sa.busy);  // a network steps while its array streams
  EXPECT_GT(net_x.alpha, 0.0);
  EXPECT_NE(net_x.alpha, net_w.alpha);  // each observed at its own lane bus
  EXPECT_GT(net_x.average_mw, net_x.leakage_mw);
  EXPECT_EQ(std::find(ts.not_modelled.begin(), ts.not_modelled.end(), "net_x"), ts.not_modelled.end());

  o.cycles = 300;  // another setting: the dataset refuses to mix
  EXPECT_NE(test::error_of([&] { characterize(o, path); }).find("provenance 'cycles'"), std::string::npos);

  // The area mapping is recorded; a dataset without it (mapped by ABC's default script) is
  // not resumed, and a model trained on it is refused a golden comparison.
  EXPECT_EQ(d.provenance.at("mapping"), kAreaMapping);
  EXPECT_NO_THROW(m.require_area_mapping());
  std::string text = test::read_file(path);
  text.erase(text.find("# mapping: "), text.find('\n', text.find("# mapping: ")) + 1 - text.find("# mapping: "));
  std::ofstream(path, std::ios::binary | std::ios::trunc) << text;
  o.cycles = 200;
  EXPECT_NE(test::error_of([&] { characterize(o, path); }).find("mapped with abc: its default script"),
            std::string::npos);
  const PowerModel older = train_power_model(read_dataset(path), 5);
  EXPECT_NE(test::error_of([&] { older.require_area_mapping(); }).find("characterise with this fsgen"),
            std::string::npos);
}

// A systolic grid's operands cross it, x along its columns and w down its rows: estimation
// spreads a port's toggles over those cycles, keeping them all: the run's alpha is the ports'
// toggles over their bits and cycles, in one-cycle windows as in one window.
TEST(PowerModel, SystolicOperandsAreSpreadOverTheirWayAcrossTheGrid) {
  const PrimitiveDef& def = primitive_def("pe_array_os");
  EXPECT_EQ(def.port_transit({4, 8, 1}, "x"), 8u);
  EXPECT_EQ(def.port_transit({4, 8, 1}, "w"), 4u);
  EXPECT_EQ(def.port_transit({4, 8, 0}, "x"), 1u);
  const PowerModel m = train_power_model(read_dataset("data/power/fsgen45.csv"), 20);
  const Graph g =
      elaborate(parse_spec_text(test::replace(test::tiny_matmul_core_spec(), "a: {loop_order: output_stationary,",
                                              "a: {loop_order: output_stationary, movement: systolic,"),
                                "tiny_systolic.yaml"));
  MatmulProblem mp;
  mp.m = 4, mp.n = 8, mp.k = 16;
  const Program prog = compile_matmul(g, mp);
  const RunResult r = run_on_systemc(g, prog);
  double toggles = 0, bits = 0;
  for (const char* port : {"x", "w"}) {
    const ToggleProbe* probe = r.find_probe("array_a", port);
    ASSERT_NE(probe, nullptr);
    for (const auto& event : probe->events()) toggles += double(event.second);
    bits += probe->width_bits();
  }
  auto array_a = [](const PowerTrace& t) {
    const auto it =
        std::find_if(t.blocks.begin(), t.blocks.end(), [](const BlockPower& b) { return b.block == "array_a"; });
    EXPECT_NE(it, t.blocks.end());
    return it == t.blocks.end() ? BlockPower{} : *it;
  };
  const PowerTrace t = estimate_power(g, prog, m, 1);
  const BlockPower a = array_a(t);
  EXPECT_EQ(a.h, (std::vector<int>{2, 4, 1}));
  EXPECT_NEAR(a.alpha, toggles / (bits * double(t.cycles)), 1e-9);
  EXPECT_NEAR(array_a(estimate_power(g, prog, m, t.cycles)).alpha, a.alpha, 1e-9);
}

// Estimation predicts each path through the trees once (rows whose features lie in the same
// intervals between the trees' split conditions, and exact repeats): every window still gets
// what its own row predicts through the whole trees, plus its activity fit's energy.
TEST(PowerModel, EveryWindowGetsItsOwnRowsPrediction) {
  const PowerModel m = train_power_model(read_dataset("data/power/fsgen45.csv"), 50);
  std::mt19937 rng(7);
  std::uniform_real_distribution<double> unit(0, 1);
  std::vector<PrimitiveActivity> windows;
  for (int i = 0; i < 3000; ++i) {
    PrimitiveActivity a;
    a.alpha = 0.5 * unit(rng), a.enable = unit(rng), a.zeros = unit(rng);
    a.state = 0.3 * unit(rng), a.state_ones = unit(rng);
    windows.push_back(a);
    if (i % 3 == 0) windows.push_back(windows.back());
  }
  const std::vector<int> h = {4, 4, 0};
  const std::vector<double> fj = m.dynamic_fj("pe_array_os", h, windows);
  const PrimitivePowerModel& os = m.primitive("pe_array_os");
  ASSERT_FALSE(os.activity_fj.b.empty());
  for (size_t i = 0; i < windows.size(); ++i) {
    const PrimitiveActivity& a = windows[i];
    const float row[8] = {
        4, 4, 0, float(a.alpha), float(a.enable), float(a.zeros), float(a.state), float(a.state_ones)};
    const double linear = os.activity_fj.at(primitive_def("pe_array_os").activity_terms(h, a));
    ASSERT_DOUBLE_EQ(fj[i], std::max(0.0, double(os.trees->predict(row)) + linear) * 16) << "window " << i;
  }
}

// A dot array streams x and loads its stationary operand in separate cycles; alpha mixes the
// two buses, and at P = 32 the load bus is most of its bits. The activity terms (energy per
// PE in streaming and loading cycles) keep the 32-lane arrays' held-out points within a few
// per cent, where the trees alone missed them by up to 200 % (10.3 % MAPE over all sizes).
TEST(PowerModel, ADotArraysStreamingAndLoadingCyclesArePricedApart) {
  Dataset d = read_dataset("data/power/fsgen45.csv");
  d.points.erase(
      std::remove_if(d.points.begin(), d.points.end(), [](const CharPoint& p) { return p.kind != "pe_array_dot"; }),
      d.points.end());
  ASSERT_TRUE(std::any_of(d.points.begin(), d.points.end(), [](const CharPoint& p) { return p.h.at(0) == 32; }));
  const PowerModel m = train_power_model(d);
  EXPECT_LT(m.primitive("pe_array_dot").quality.mape, 5.0);
  EXPECT_GT(m.primitive("pe_array_dot").quality.pearson, 0.99);
}

// A one-cycle window of an idle block is a characterised corner: the rescaling array's,
// without operand toggles, enable or sc, is priced at the mean of the shipped dataset's idle
// points without factor writes (the clock and held state; PrimitivePowerModel::
// idle_writes_fj), not by the trees, whose leaf there it shares with the points that stream
// a few per cent of their cycles.
// Its idle points with factor writes (every row's factor redrawn every cycle) price an idle
// window whose factors are written: many times the idle energy (the multipliers acc x alpha
// switch), as a design's softmax pass writes them while array b holds its accumulators.
TEST(PowerModel, AnIdleWindowIsPricedAtTheIdlePoints) {
  const Dataset d = read_dataset("data/power/fsgen45.csv");
  const PowerModel m = train_power_model(d, 100);
  for (const std::vector<int>& h : {std::vector<int>{2, 2, 0}, std::vector<int>{2, 4, 0}}) {
    double idle_fj = 0, idle_points = 0, writing_fj = 0, factor = 0;
    for (const CharPoint& p : d.points) {
      if (p.kind != "pe_array_rescale" || p.h != h || p.enable_rate != 0) continue;
      if (p.factor == 0) idle_fj += p.dynamic_fj, ++idle_points;
      else if (p.factor > factor) writing_fj = p.dynamic_fj, factor = p.factor;
    }
    ASSERT_GT(idle_points, 0) << "no idle point of pe_array_rescale " << hyperparameter_text(h);
    idle_fj /= idle_points;
    EXPECT_NEAR(m.dynamic_fj("pe_array_rescale", h, PrimitiveActivity{0, 0, 0, 0, 0}), idle_fj, 1e-6 * idle_fj)
        << hyperparameter_text(h);
    EXPECT_GT(writing_fj, 5 * idle_fj) << hyperparameter_text(h);
    EXPECT_NEAR(m.dynamic_fj("pe_array_rescale", h, PrimitiveActivity{0, 0, 0, 0, factor}), writing_fj, 0.2 * writing_fj)
        << hyperparameter_text(h);
    // Between the points, in proportion to the toggles (a one-cycle window writing one row's
    // factor lies there): half the toggles, half the writes' energy.
    const double midway = (idle_fj + writing_fj) / 2;
    EXPECT_NEAR(m.dynamic_fj("pe_array_rescale", h, PrimitiveActivity{0, 0, 0, 0, factor / 2}), midway, 0.2 * midway)
        << hyperparameter_text(h);
    EXPECT_GT(m.primitive("pe_array_rescale").idle_writes_fj.at(h).b.front(), 0.0) << hyperparameter_text(h);
  }
  // The lines are part of the model file; one without them is refused.
  const std::string dir = test::scratch_dir("idle_window_model");
  save_power_model(m, dir + "/model.json");
  const PrimitiveActivity writing{0, 0, 0, 0, 0.1};
  EXPECT_EQ(load_power_model(dir + "/model.json").dynamic_fj("pe_array_rescale", {2, 4, 0}, writing),
            m.dynamic_fj("pe_array_rescale", {2, 4, 0}, writing));
  nlohmann::json j = read_json_file(dir + "/model.json", "model");
  j["primitives"]["pe_array_rescale"].erase("idle_writes_fj");
  std::ofstream(dir + "/no_idle_lines.json") << j.dump();
  EXPECT_NE(test::error_of([&] { load_power_model(dir + "/no_idle_lines.json"); })
                .find("pe_array_rescale: expected its idle and factor-write energy per size"),
            std::string::npos);
  // A model of a dataset without idle points (fsgen characterize --small) has none, and loads.
  j = read_json_file(dir + "/model.json", "model");
  j["primitives"]["pe_array_rescale"]["idle_writes_fj"] = nlohmann::json::array();
  std::ofstream(dir + "/small.json") << j.dump();
  EXPECT_TRUE(load_power_model(dir + "/small.json").primitive("pe_array_rescale").idle_writes_fj.empty());
  // So is the linear model under its trees (PrimitivePowerModel::activity_fj).
  j = read_json_file(dir + "/model.json", "model");
  j["primitives"]["pe_array_rescale"].erase("activity_fj");
  std::ofstream(dir + "/no_activity_fit.json") << j.dump();
  EXPECT_NE(test::error_of([&] {
              load_power_model(dir + "/no_activity_fit.json");
            }).find("pe_array_rescale: expected its energy in its activity terms"),
            std::string::npos);
}

// A pass's rows are other queries' scores, every score new: the shipped softmax points
// reach that (toggle rate 0.5, PrimitiveDef::extra_toggle_rates) at every size and mode,
// their rows' alpha per load about 0.5 (the grid's top: 0.455; the fused designs' loads:
// 0.46-0.54), and the model prices such a load above the grid's top, where it stopped before.
TEST(PowerModel, SoftmaxLoadsOfNewScoresAreCharacterised) {
  const Dataset d = read_dataset("data/power/fsgen45.csv");
  const PowerModel m = train_power_model(d, 100);
  for (const std::vector<int>& h : primitive_def("softmax").sizes) {
    double every_new = 0, most_new = 0, alpha_per_load = 0;
    for (const CharPoint& p : d.points) {
      if (p.kind != "softmax" || p.h != h || p.zero_fraction != 0 || p.enable_rate != 1) continue;
      if (p.toggle_rate == 0.5) every_new = p.dynamic_fj, alpha_per_load = p.alpha / p.enable;
      if (p.toggle_rate == 0.45) most_new = p.dynamic_fj;
    }
    ASSERT_GT(every_new, 0) << "no point at toggle rate 0.5 of softmax " << hyperparameter_text(h);
    EXPECT_GT(alpha_per_load, 0.49) << hyperparameter_text(h);
    EXPECT_GT(every_new, most_new) << hyperparameter_text(h);
    const PrimitiveActivity load{0.52, 1, 0.25, 0};  // the zeros of the grid's top: alpha alone differs
    const PrimitiveActivity grid_top{0.45, 1, 0.25, 0};
    EXPECT_GT(m.dynamic_fj("softmax", h, load), m.dynamic_fj("softmax", h, grid_top)) << hyperparameter_text(h);
  }
}

// The DMA is characterised as a design drives it (a controller's bursts, an AXI slave's
// answers): its enable is the data beats, its alpha the toggles of its data buses; then
// estimated from the SystemC model's bursts, beats and data probes.
TEST(Characterize, DmaIsDrivenThroughItsAxiPorts) {
  if (!test::have_tool("yosys") || !test::have_tool("verilator")) GTEST_SKIP() << "yosys or verilator not installed";
  const std::string dir = test::scratch_dir("characterize_dma");
  const CharacterizeOptions o = small_characterisation({"dma"}, 400, dir);
  ASSERT_EQ(characterize(o, dir + "/dataset.csv").added, 16u);  // W = 1, 2 x 8 stimuli
  const Dataset d = read_dataset(dir + "/dataset.csv");
  auto point = [&](int w, double rate, double zeros, double enable) {
    for (const auto& p : d.points)
      if (p.h[0] == w && p.toggle_rate == rate && p.zero_fraction == zeros && p.enable_rate == enable) return p;
    ADD_FAILURE() << "point missing";
    return CharPoint{};
  };
  for (const auto& p : d.points) {
    EXPECT_GT(p.side, 0.0) << p.key();             // commands are taken ...
    EXPECT_LE(p.side, p.enable + 0.01) << p.key();  // ... each for one or more beats (the last may be cut off)
    EXPECT_GT(p.enable, 0.05) << p.key();  // data beats happen ...
    EXPECT_LT(p.enable, p.enable_rate) << p.key();  // ... in part of the busy cycles (addresses, latency, DONE)
    EXPECT_GT(p.alpha, 0.0) << p.key();
    EXPECT_NEAR(p.zeros, p.zero_fraction, 0.2) << p.key();  // zero bytes in the beats' data
  }
  EXPECT_GT(point(1, 0.1, 0.0, 1.0).enable, point(1, 0.1, 0.0, 0.5).enable + 0.1);  // busier
  EXPECT_GT(point(1, 0.4, 0.0, 1.0).alpha, 2 * point(1, 0.1, 0.0, 1.0).alpha);
  EXPECT_GT(point(2, 0.4, 0.0, 1.0).dynamic_fj, point(1, 0.4, 0.0, 1.0).dynamic_fj);  // a wider data register
  EXPECT_GT(point(2, 0.4, 0.0, 1.0).area_um2, point(1, 0.4, 0.0, 1.0).area_um2);

  const PowerModel m = train_power_model(d, 50);
  const Graph g = elaborate(parse_spec_text(test::tiny_matmul_core_spec(), "tiny.yaml"));
  MatmulProblem mp;
  mp.m = 8;
  mp.n = 8;
  mp.k = 16;
  const PowerTrace t = estimate_power(g, compile_matmul(g, mp), m, 16);
  ASSERT_EQ(t.blocks.size(), 1u);  // the DMA; the array has no model here
  const BlockPower& dma = t.blocks.front();
  EXPECT_EQ(dma.block, "dma");
  EXPECT_EQ(dma.h, (std::vector<int>{int(g.memory.beat_bytes), int(g.read_tag_bits())}));
  EXPECT_GT(dma.busy, 0.1);
  EXPECT_GT(dma.enable, 0.0);         // beats ...
  EXPECT_LT(dma.enable, dma.busy);    // ... are part of the bursts
  EXPECT_GT(dma.alpha, 0.0);          // read data and the written results toggle
  EXPECT_GT(dma.average_mw, dma.leakage_mw);
  EXPECT_EQ(m.primitive("dma").features, (std::vector<std::string>{"W", "TAGW", "alpha", "enable", "zeros", "side"}));
  // The energy per kind of cycle split from whole runs: a command costs more than a beat,
  // a beat more than a wait.
  const std::vector<double> kinds = m.cycle_energy_fj("dma", {1, 11}, {{0, 0, 0, 0}, {0, 1, 0, 0}, {0, 0, 0, 1}});
  EXPECT_GT(kinds[0], 0.0);
  EXPECT_GT(kinds[1], kinds[0]);
  EXPECT_GT(kinds[2], kinds[1]);
  save_power_model(m, dir + "/model.json");  // the split is part of the model file
  EXPECT_EQ(load_power_model(dir + "/model.json").cycle_energy_fj("dma", {1, 11}, {{0, 0, 0, 1}}).front(), kinds[2]);
  nlohmann::json j = read_json_file(dir + "/model.json", "model");
  j["primitives"]["dma"].erase("cycle_energy");
  std::ofstream(dir + "/no_split.json") << j.dump();
  EXPECT_NE(test::error_of([&] { load_power_model(dir + "/no_split.json"); }).find("dma: expected its energy per kind of cycle"),
            std::string::npos);
  // In one-cycle windows each command is priced over its burst and spread over its cycles
  // by that split: a command's cycle is the peak of the busy cycles up to the next command
  // that carry no data beat (a beat of an earlier burst adds its own energy). One tile, so
  // that the store's bursts follow the loads' (on a longer kernel the loader's reads of the
  // next tiles run beside them).
  MatmulProblem one;
  one.m = 2, one.n = g.matmul_tile_n(), one.k = 8;
  const Program prog = compile_matmul(g, one);
  const PowerTrace t1 = estimate_power(g, prog, m, 1);
  BlockTimeline bursts = run_on_systemc(g, prog).timelines.at("dma");
  // The loads' and the stores' commands are recorded apart (each in its own order).
  std::sort(bursts.side.begin(), bursts.side.end(), [](const CycleSpan& a, const CycleSpan& b) { return a.start < b.start; });
  const std::vector<double>& mw = t1.blocks.front().mw;
  std::vector<bool> busy(mw.size(), false), beat(mw.size(), false);
  for (const CycleSpan& s : bursts.busy)
    for (uint64_t c = s.start; c < s.start + s.cycles && c < busy.size(); ++c) busy[c] = true;
  for (const CycleSpan& s : bursts.enabled)
    for (uint64_t c = s.start; c < s.start + s.cycles && c < beat.size(); ++c) beat[c] = true;
  ASSERT_FALSE(bursts.side.empty());
  size_t compared = 0;
  for (size_t i = 0; i < bursts.side.size(); ++i) {
    const uint64_t command = bursts.side[i].start;
    const uint64_t next = i + 1 < bursts.side.size() ? bursts.side[i + 1].start : mw.size();
    ASSERT_LT(command + 1, busy.size());
    EXPECT_TRUE(busy[command + 1]) << "burst " << i << ": the address handshake follows the command";
    for (uint64_t c = command + 1; c < next && c < mw.size() && busy[c]; ++c)
      if (!beat[c]) {
        EXPECT_GT(mw[command], mw[c]) << "burst " << i;
        ++compared;
      }
  }
  EXPECT_GT(compared, 0u);
  // Commands cost energy apart from their beats: the same beats in more bursts cost more.
  EXPECT_GT(m.dynamic_fj("dma", {1, 11}, PrimitiveActivity{0.05, 0.4, 0.0, 0.1}),
            m.dynamic_fj("dma", {1, 11}, PrimitiveActivity{0.05, 0.4, 0.0, 0.02}));
}

// A dot array's loads are its side enable: characterised at a share of its enabled cycles
// that the grid varies, and taken from the SystemC model's load spans.
TEST(Characterize, DotArrayLoadsAreItsSideEnable) {
  if (!test::have_tool("yosys") || !test::have_tool("verilator")) GTEST_SKIP() << "yosys or verilator not installed";
  const Dataset d = characterised_2x2("pe_array_dot", "characterize_dot");
  for (const auto& p : d.points) EXPECT_GT(p.enable, 0.3) << p.key();
  expect_side_at_grid_shares(d);  // the loads
  const PowerModel m = train_power_model(d, 20);
  EXPECT_EQ(m.primitive("pe_array_dot").features,
            (std::vector<std::string>{"P", "K", "LOAD_COL", "SLOTS", "CG", "alpha", "enable", "zeros", "side"}));
  EXPECT_TRUE(m.primitive("pe_array_dot").cycle_energy.empty());  // each window priced at its own loads

  const Graph g = elaborate(parse_spec_text(test::tiny_ws_core_spec(), "tiny_ws.yaml"));
  MatmulProblem mp;
  mp.m = 4;
  mp.n = 8;
  mp.k = 16;
  const BlockTimeline array = run_on_systemc(g, compile_matmul(g, mp)).timelines.at("array_a");
  ASSERT_FALSE(array.side.empty());
  uint64_t loads = 0, enabled = 0, streams = 0;
  for (const CycleSpan& s : array.side) loads += s.cycles;
  for (const CycleSpan& s : array.enabled) enabled += s.cycles;
  for (const CycleSpan& s : array.busy) streams += s.cycles;
  EXPECT_EQ(loads + streams, enabled);  // an enabled cycle loads or streams
}

// The rescaling array (array b of the fused attention) rescales its accumulators in the
// steps sc qualifies: its side enable, characterised at a share of its enabled cycles and
// taken from the SystemC model at the first step of every key tile but the first. Its
// factors are redrawn in any cycle at a share of their own (0, 0.25 or 1 per row and
// cycle), their toggles a feature (factor), which the SystemC model gives from its probe
// of the controller's factor registers, written in the softmax pass while the array idles.
TEST(Characterize, RescalingArrayScAndFactorsAreItsEvents) {
  if (!test::have_tool("yosys") || !test::have_tool("verilator")) GTEST_SKIP() << "yosys or verilator not installed";
  const Dataset d = characterised_2x2("pe_array_rescale", "characterize_rescale");
  // 0: none (the factors drawn in reset are not counted), 1: a quarter of the cycles, 2: every cycle
  std::set<int> factor_shares;
  for (const auto& p : d.points) {
    EXPECT_GT(p.alpha, 0.0) << p.key();  // measured on x and w, not on sc or the factors
    EXPECT_LT(p.alpha, p.toggle_rate * p.enable * 1.2) << p.key();
    // A redraw toggles about 6 of a factor's 32 bits (1.0 half the time, else 15 random bits).
    EXPECT_TRUE(p.factor == 0 || (p.factor > 0.02 && p.factor < 0.08) || (p.factor > 0.12 && p.factor < 0.26))
        << p.key() << " factor " << p.factor;
    factor_shares.insert(p.factor == 0 ? 0 : p.factor < 0.1 ? 1 : 2);
    // Without writes the factors stay 0 from reset; with them about 4 of a factor's 32 bits
    // are 1 (1.0 half the time, else 15 random bits).
    if (p.factor == 0)
      EXPECT_EQ(p.factor_ones, 0.0) << p.key();
    else
      EXPECT_TRUE(p.factor_ones > 0.05 && p.factor_ones < 0.25) << p.key() << " factor ones " << p.factor_ones;
    // The accumulators (acc, 32 bits per PE) switch with the enabled steps and hold values
    // from the fill: some of their bits are 1 in every point.
    EXPECT_GT(p.state, 0.0) << p.key();
    EXPECT_LT(p.state, 0.6) << p.key();
    EXPECT_GT(p.state_ones, 0.0) << p.key();
    EXPECT_LT(p.state_ones, 1.0) << p.key();
  }
  EXPECT_EQ(factor_shares.size(), 3u);
  expect_side_at_grid_shares(d);  // sc
  const PowerModel m = train_power_model(d, 20);
  EXPECT_EQ(m.primitive("pe_array_rescale").features,
            (std::vector<std::string>{"R", "C", "SYSTOLIC", "alpha", "enable", "zeros", "side", "factor", "factor_ones",
                                      "state", "state_ones"}));
  EXPECT_EQ(m.primitive("pe_array_rescale").activity_fj.b.size(), 17u);

  const Graph g = elaborate(parse_spec_text(test::tiny_attention_core_spec(), "tiny_attention.yaml"));
  EXPECT_EQ(g.block("array_b").kind, "pe_array_rescale");
  EXPECT_EQ(g.block("array_a").kind, "pe_array_os");
  AttentionProblem ap;
  ap.q_heads = ap.kv_heads = 1;
  ap.tokens = 8;  // four key tiles of two keys for the last query rows, causal
  const RunResult r = run_on_systemc(g, compile_attention(g, ap).program);
  const BlockTimeline& b = r.timelines.at("array_b");
  std::set<uint64_t> tile_starts, streaming;
  for (const CycleSpan& s : b.busy) {
    tile_starts.insert(s.start);
    for (uint64_t c = s.start; c <= s.start + s.cycles; ++c) streaming.insert(c);  // and the lagged switching
  }
  uint64_t rescales = 0;
  for (const CycleSpan& s : b.side) {
    EXPECT_EQ(s.cycles, 1u);
    EXPECT_TRUE(tile_starts.count(s.start)) << s.start;  // the first step of a tile
    ++rescales;
  }
  EXPECT_GT(rescales, 0u);
  EXPECT_LT(rescales, b.busy.size());  // each query tile's first key tile clears instead
  const ToggleProbe* factors = r.find_probe("array_b", "alpha");
  ASSERT_NE(factors, nullptr);
  EXPECT_GT(factors->events().size(), 0u);
  for (const auto& [cycle, toggles] : factors->events()) EXPECT_FALSE(streaming.count(cycle)) << cycle;
  // Estimation: the factors' toggles are the factor feature, not part of alpha (x and w).
  const PowerTrace t = estimate_power(g, compile_attention(g, ap).program, m, 1);
  const auto array_b = std::find_if(t.blocks.begin(), t.blocks.end(), [](const BlockPower& bp) { return bp.block == "array_b"; });
  ASSERT_NE(array_b, t.blocks.end());
  const ToggleProbe *x = r.find_probe("array_b", "x"), *w = r.find_probe("array_b", "w");
  EXPECT_NEAR(array_b->alpha, double(x->toggles() + w->toggles()) / double((x->width_bits() + w->width_bits()) * t.cycles), 1e-9);
  EXPECT_NEAR(array_b->factor, double(factors->toggles()) / double(factors->width_bits() * t.cycles), 1e-9);
}

// The softmax unit is characterised on score rows as its controller presents them, in
// both modes from one synthesis: its enable is the loads, its side the FFN's gate passes'
// loads, its alpha the row's toggles; then estimated from the SystemC model's loads with
// the mode the kernel programs.
TEST(Characterize, SoftmaxUnitIsDrivenWithScoreRows) {
  if (!test::have_tool("yosys") || !test::have_tool("verilator")) GTEST_SKIP() << "yosys or verilator not installed";
  const std::string dir = test::scratch_dir("characterize_softmax");
  const CharacterizeOptions o = small_characterisation({"softmax"}, 300, dir);
  ASSERT_EQ(characterize(o, dir + "/dataset.csv").added, 16u);  // TN = 1, MODE 0 and 1, x 8 stimuli
  EXPECT_TRUE(std::filesystem::exists(dir + "/work/softmax_1x0"));  // TN 1, WIN 0: one folder, one synthesis
  int builds = 0;
  for (const auto& f : std::filesystem::directory_iterator(dir + "/work"))
    builds += f.path().filename().string().rfind("softmax_", 0) == 0;
  EXPECT_EQ(builds, 1);
  const Dataset d = read_dataset(dir + "/dataset.csv");
  auto point = [&](int mode, double rate, double zeros, double enable) {
    for (const auto& p : d.points)
      if (p.h[1] == mode && p.toggle_rate == rate && p.zero_fraction == zeros && p.enable_rate == enable) return p;
    ADD_FAILURE() << "point missing";
    return CharPoint{};
  };
  for (const auto& p : d.points) {
    EXPECT_NEAR(p.enable, p.enable_rate, 0.1) << p.key();  // a row loaded at the enable rate
    if (p.h[1] == 0) {
      EXPECT_EQ(p.side, 0.0) << p.key();  // attention has no gate passes
    }
    EXPECT_LE(p.side, p.enable) << p.key();
    EXPECT_GT(p.alpha, 0.0) << p.key();
    EXPECT_GT(p.dynamic_fj, 0.0) << p.key();
  }
  for (int mode : {0, 1}) {
    EXPECT_GT(point(mode, 0.4, 0.0, 1.0).alpha, 1.5 * point(mode, 0.1, 0.0, 1.0).alpha);  // scores redrawn more often
    EXPECT_GT(point(mode, 0.4, 0.7, 1.0).zeros, point(mode, 0.4, 0.0, 1.0).zeros + 0.1);  // zero operands: zero scores
    EXPECT_GT(point(mode, 0.4, 0.0, 1.0).dynamic_fj, point(mode, 0.4, 0.0, 0.5).dynamic_fj);  // more rows
  }
  double gate_loads = 0;
  for (const auto& p : d.points) gate_loads += p.h[1] == 1 ? p.side : 0.0;
  EXPECT_GT(gate_loads, 0.0);  // the FFN's gate passes
  const PowerModel m = train_power_model(d, 20);
  EXPECT_EQ(m.primitive("softmax").features,
            (std::vector<std::string>{"TN", "MODE", "WIN", "alpha", "enable", "zeros", "side"}));

  const Graph g = elaborate(parse_spec_text(test::tiny_attention_core_spec(), "tiny.yaml"));
  AttentionProblem ap;
  ap.tokens = 5;
  FfnProblem fp;
  fp.tokens = 4;
  fp.ffn = 8;
  for (int mode : {0, 1}) {
    const Program prog = mode == 0 ? compile_attention(g, ap).program : compile_ffn(g, fp).program;
    const PowerTrace t = estimate_power(g, prog, m, 8);
    const auto sm = std::find_if(t.blocks.begin(), t.blocks.end(), [](const BlockPower& b) { return b.block == "softmax"; });
    ASSERT_NE(sm, t.blocks.end()) << "mode " << mode;
    EXPECT_EQ(sm->h, (std::vector<int>{2, mode, 0}));       // MODE from the kernel
    EXPECT_EQ(sm->variant_note, "TN=2 (characterised 1)");  // rows of two scores, from the one-score points
    EXPECT_GT(sm->enable, 0.0);
    EXPECT_GT(sm->alpha, 0.0);
    EXPECT_GT(sm->average_mw, sm->leakage_mw);
    const BlockTimeline loads = run_on_systemc(g, prog).timelines.at("softmax");
    uint64_t rows = 0, gate_rows = 0, bytes = 0;
    for (const CycleSpan& s : loads.busy) rows += s.cycles;
    for (const CycleSpan& s : loads.side) gate_rows += s.cycles;
    for (const OperandSample& s : loads.operands) bytes += s.bytes;
    EXPECT_EQ(bytes, rows * 2 * 4);  // each row's two INT32 scores
    EXPECT_EQ(gate_rows, mode == 0 ? 0 : rows / 2);  // gated: an activation and a gate pass per tile
  }
}

// What makes an RTL instance another variant than the characterised primitive.
TEST(Characterize, VariantDifferencesIgnoreWiring) {
  const PrimitiveDef& os = primitive_def("pe_array_os");
  EXPECT_EQ(hyperparameters_of(os, {{"R", 4}, {"C", 2}, {"RESCALE", 0}, {"SYSTOLIC", 1}}), (std::vector<int>{4, 2, 1}));
  EXPECT_EQ(variant_difference(os, {{"R", 4}, {"C", 2}, {"RESCALE", 0}, {"SYSTOLIC", 0}, {"LM", 2}, {"LN", 1}}), "");
  EXPECT_EQ(variant_difference(os, {{"R", 4}, {"C", 2}, {"RESCALE", 1}, {"SYSTOLIC", 1}, {"LN", 2}}),
            "RESCALE=1, characterised 0");  // a systolic array is a characterised hyperparameter
  const PrimitiveDef& dot = primitive_def("pe_array_dot");
  EXPECT_EQ(hyperparameters_of(dot, {{"P", 4}, {"K", 8}, {"LOAD_COL", 1}, {"SLOTS", 4}, {"CG", 2}}),
            (std::vector<int>{4, 8, 1, 4, 2}));  // compressed lanes are hyperparameters
  const PrimitiveDef& net = primitive_def("sparse_net");
  const std::map<std::string, int64_t> two_lane_blocks = {{"ROWS", 4}, {"SK", 4}, {"LANES", 2}, {"OWN_LANES", 2},
                                                          {"OWN_MAJOR", 0}, {"GROUPS", 2}, {"SELW", 2}, {"C", 1},
                                                          {"M", 2}, {"I", 4}, {"O", 1}, {"S", 1}};
  EXPECT_EQ(hyperparameters_of(net, two_lane_blocks), (std::vector<int>{4, 4, 2}));
  EXPECT_EQ(variant_difference(net, two_lane_blocks), "");
  EXPECT_EQ(net.derived({4, 8, 1}).at("SELW"), 3);
  EXPECT_EQ(net.elements({4, 8, 2}), 8.0);  // outputs: rows x lanes
}

// An accumulator cache's derived LANES: the characterised row writes, or another width.
TEST(Characterize, AccumulatorCacheVariants) {
  const PrimitiveDef& acc = primitive_def("acc_cache");
  const std::map<std::string, int64_t> a = {{"TM", 4}, {"TN", 2}, {"SLOTS", 8}, {"ROWWISE", 1}, {"RESCALE", 0}, {"LANES", 2}};
  EXPECT_EQ(hyperparameters_of(acc, a), (std::vector<int>{4, 2, 8}));
  EXPECT_EQ(acc.elements({4, 2, 8}), 64.0);  // INT32 cells
  EXPECT_EQ(variant_difference(acc, a), "");
  std::map<std::string, int64_t> columns = a;
  columns["ROWWISE"] = 0, columns["LANES"] = 4;
  EXPECT_EQ(variant_difference(acc, columns), "ROWWISE=0, characterised 1, LANES=4, characterised 2");
}

// A weight-stationary core with a flip-flop accumulator cache: the cache is an acc_cache
// instance observed at its array's output y and timed by the array's stream cycles; at
// the macro threshold it is an SRAM macro instead.
TEST(PowerEstimate, AccumulatorCacheFromItsArraysOutput) {
  Dataset d;
  for (const std::vector<int>& h : {std::vector<int>{2, 4, 1}, std::vector<int>{2, 4, 2}})
    for (double alpha : {0.0, 0.2, 0.4})
      for (double enable : {0.0, 0.5, 1.0}) {
        CharPoint p;
        p.kind = "acc_cache", p.h = h, p.toggle_rate = alpha, p.enable_rate = enable;
        p.alpha = alpha, p.enable = enable, p.zeros = 0;
        p.dynamic_fj = 100.0 * h[2] * (1 + enable + 4 * alpha);
        p.leakage_mw = 0.01 * h[2], p.area_um2 = 1000.0 * h[2];
        d.points.push_back(p);
      }
  const PowerModel m = train_power_model(d, 50);
  const Graph g = elaborate(parse_spec_text(test::tiny_ws_core_spec(), "tiny_ws.yaml"));
  MatmulProblem mp;
  mp.m = 4;
  mp.n = 8;
  mp.k = 16;
  const Program prog = compile_matmul(g, mp);
  const PowerTrace t = estimate_power(g, prog, m, 64);
  ASSERT_EQ(t.blocks.size(), 1u);  // the dot array has no model here: acc_a alone
  const BlockPower& acc = t.blocks.front();
  EXPECT_EQ(acc.block, "acc_a");
  EXPECT_EQ(acc.kind, "acc_cache");
  EXPECT_EQ(acc.h, (std::vector<int>{2, 4, 2}));
  EXPECT_EQ(acc.variant_note, "");
  EXPECT_EQ(m.extrapolation("acc_cache", {4, 4, 2}), "TM=4 (characterised 2)");
  EXPECT_GT(acc.alpha, 0.0);  // the toggles of array_a.y
  EXPECT_GT(acc.busy, 0.0);
  EXPECT_EQ(acc.enable, acc.busy);  // writes in the array's stream cycles, not its loads
  EXPECT_GT(acc.average_mw, acc.leakage_mw);
  MacroTechnology tech;
  tech.bit_leakage_nw = 1;
  const PowerTrace as_macro = estimate_power(g, prog, m, 64, design_macros(g, tech, MacroOptions{64, 45}));
  ASSERT_EQ(as_macro.blocks.size(), 3u);  // acc_a, and the operand buffers (above 64 B too)
  for (const BlockPower& b : as_macro.blocks) EXPECT_EQ(b.kind, "sram_macro") << b.block;
  EXPECT_EQ(as_macro.blocks.front().block, "acc_a");
}

// A structural primitive is labelled by synthesis and the engine alone: its one point per
// size is the energy of the clock net's two transitions per cycle, every other net still.
TEST(Characterize, TheRegisterFileIsLabelledByItsClock) {
  const std::string dir = test::scratch_dir("characterize_csr");
  const CharacterizeOptions o = small_characterisation({"csr"}, 400, dir);
  ASSERT_EQ(characterize(o, dir + "/dataset.csv").added, 1u);
  EXPECT_EQ(characterize(o, dir + "/dataset.csv").added, 0u);  // resumed: nothing left to run
  const Dataset d = read_dataset(dir + "/dataset.csv");
  ASSERT_EQ(d.points.size(), 1u);
  const CharPoint& p = d.points.front();
  EXPECT_EQ(p.kind, "csr");
  EXPECT_TRUE(p.h.empty());
  EXPECT_EQ(p.enable, 0.0);
  EXPECT_EQ(p.alpha, 0.0);
  // The same module synthesised by hand: its clock net's energy per transition, twice.
  const Liberty lib = prepare_liberty("", dir + "/by_hand");
  const SynthReport synth =
      synth_to_liberty({write_module_sources(dir + "/by_hand", "fsgen_csr")}, "fsgen_csr", {}, lib, dir + "/by_hand");
  const GateNetlist netlist = read_netlist_json(synth.netlist_json, "fsgen_csr");
  const GatePowerModel engine(netlist, read_liberty_file(lib.path), GatePowerOptions{1000, 0.05, 0});
  double clock_fj = 0;
  for (int bit : netlist.ports.at("clk")) clock_fj += 2 * engine.energy_per_toggle_fj(bit);
  EXPECT_NEAR(p.dynamic_fj, clock_fj, 1e-6 * clock_fj);
  // The clock reaches the clock gates (one per configuration register, one for the read
  // data) and the handshake's few flip-flops, not the registers' hundreds behind the gates.
  size_t gates = 0, registers = 0;
  for (const auto& c : netlist.cells) gates += c.type == "CLKGATE_X1";
  for (const auto& r : reg::kRegisters) registers += r.writable;
  EXPECT_EQ(gates, registers + 1);
  EXPECT_GT(p.dynamic_fj, 20.0);
  EXPECT_LT(p.dynamic_fj, 300.0);
  EXPECT_NEAR(p.leakage_mw, engine.leakage_mw(), 1e-9);
  EXPECT_NEAR(p.area_um2, synth.area_um2, 1e-3);
}

// The model trained on d with the register file's one point added (3000 fJ, 0.1 mW,
// 6000 um^2), saved and loaded back from a scratch folder of that name.
PowerModel saved_and_loaded_with_register_file(Dataset d, const std::string& name) {
  CharPoint csr;
  csr.kind = "csr", csr.dynamic_fj = 3000, csr.leakage_mw = 0.1, csr.area_um2 = 6000;
  d.points.push_back(csr);
  const std::string dir = test::scratch_dir(name);
  save_power_model(train_power_model(d, 10), dir + "/m.json");
  return load_power_model(dir + "/m.json");
}

// The structural primitives (a matmul core's controller, the register file): idle energy,
// leakage and area fitted over their sizes, priced in every window whatever the kernel does.
// A fused core's controller is another primitive (fused_ctrl): unmodelled by a model
// without it, priced by its own fit with it.
TEST(PowerEstimate, StructuralPrimitivesPriceTheControllerAndRegisterFile) {
  const PrimitiveDef& ctrl = primitive_def("ctrl");
  // A rule exact in the controller's size terms, which the fits must recover.
  auto rule = [&](const std::vector<int>& h) {
    const std::vector<double> t = ctrl.size_terms_at(h);
    return 500.0 + 20 * t.at(0) + 30 * t.at(1) + 10 * t.at(2) + 5 * t.at(3) + 40 * t.at(4);
  };
  Dataset d;
  for (const auto& h : ctrl.sizes) {
    CharPoint p;
    p.kind = "ctrl", p.h = h, p.dynamic_fj = rule(h), p.leakage_mw = 1e-4 * rule(h), p.area_um2 = 10 * rule(h);
    d.points.push_back(p);
  }
  const PowerModel m = saved_and_loaded_with_register_file(d, "structural_model");
  const PrimitivePowerModel& c = m.primitive("ctrl");
  EXPECT_EQ(c.features, ctrl.params);  // no activity features
  EXPECT_EQ(c.quality.test_points, ctrl.sizes.size());  // each size left out in turn
  EXPECT_LT(c.quality.mape, 1e-3);
  EXPECT_EQ(m.primitive("csr").quality.test_points, 0u);  // one size: nothing to leave out

  const Graph g = elaborate(parse_spec_text(test::tiny_matmul_core_spec(), "tiny.yaml"));
  MatmulProblem mp;
  mp.m = 8, mp.n = 8, mp.k = 16;
  const PowerTrace t = estimate_power(g, compile_matmul(g, mp), m, 16);
  auto block = [&](const PowerTrace& tr, const std::string& name) {
    return std::find_if(tr.blocks.begin(), tr.blocks.end(), [&](const BlockPower& b) { return b.block == name; });
  };
  const auto tc = block(t, "ctrl"), tr = block(t, "csr");
  ASSERT_NE(tc, t.blocks.end());
  ASSERT_NE(tr, t.blocks.end());
  EXPECT_EQ(tc->h, hyperparameters_of(ctrl, ctrl_instance(g).params));
  const double expected_mw = rule(tc->h) * t.clock_mhz * 1e-6 + 1e-4 * rule(tc->h);
  EXPECT_NEAR(tc->average_mw, expected_mw, 1e-4 * expected_mw);
  EXPECT_NEAR(tc->leakage_mw, 1e-4 * rule(tc->h), 1e-6 * rule(tc->h));
  for (double w : tc->mw) EXPECT_DOUBLE_EQ(w, tc->mw.front());  // the same in every window
  EXPECT_NEAR(tr->average_mw, 3000 * t.clock_mhz * 1e-6 + 0.1, 1e-6);
  EXPECT_NE(tc->model.find("structural primitive ctrl"), std::string::npos);
  EXPECT_NE(tc->model.find("switching of its logic not modelled"), std::string::npos);
  EXPECT_EQ(std::find(t.not_modelled.begin(), t.not_modelled.end(), "ctrl"), t.not_modelled.end());
  EXPECT_EQ(std::find(t.not_modelled.begin(), t.not_modelled.end(), "requant"), t.not_modelled.end());  // inside ctrl
  EXPECT_NEAR(m.area_um2("ctrl", tc->h), 10 * rule(tc->h), 1e-3 * rule(tc->h));
  // A characterised size is its own point; another combination of seen values is the fit's.
  EXPECT_EQ(m.extrapolation("ctrl", ctrl.sizes.at(0)), "");
  std::vector<int> mixed = ctrl.sizes.at(0);
  mixed.at(1) = ctrl.sizes.at(1).at(1);
  ASSERT_EQ(std::find(ctrl.sizes.begin(), ctrl.sizes.end(), mixed), ctrl.sizes.end());
  EXPECT_EQ(m.extrapolation("ctrl", mixed),
            "this combination (fitted over " + std::to_string(ctrl.sizes.size()) + " characterised sizes)");
  std::ostringstream printed;
  print_power(t, printed);
  const std::string line = printed.str().substr(printed.str().find("  ctrl"));
  EXPECT_EQ(line.substr(0, line.find('\n')).find("alpha"), std::string::npos);  // no activity features to state

  const Graph fused = elaborate(parse_spec_text(test::tiny_attention_core_spec(), "tiny.yaml"));
  AttentionProblem ap;
  ap.tokens = 5;
  const PowerTrace ft = estimate_power(fused, compile_attention(fused, ap).program, m, 16);
  EXPECT_EQ(block(ft, "ctrl"), ft.blocks.end());
  EXPECT_NE(std::find(ft.not_modelled.begin(), ft.not_modelled.end(), "ctrl"), ft.not_modelled.end());
  EXPECT_NE(std::find(ft.not_modelled.begin(), ft.not_modelled.end(), "requant"), ft.not_modelled.end());
  EXPECT_NE(block(ft, "csr"), ft.blocks.end());

  const PrimitiveDef& fused_ctrl = primitive_def("fused_ctrl");
  auto fused_rule = [&](const std::vector<int>& h) {
    const std::vector<double> t = fused_ctrl.size_terms_at(h);
    return 4000.0 + 30 * t.at(0) + 200 * t.at(1) + 150 * t.at(2);
  };
  for (const auto& h : fused_ctrl.sizes) {
    CharPoint p;
    p.kind = "fused_ctrl", p.h = h, p.dynamic_fj = fused_rule(h), p.leakage_mw = 1e-4 * fused_rule(h);
    p.area_um2 = 10 * fused_rule(h);
    d.points.push_back(p);
  }
  const PowerModel with_fused = saved_and_loaded_with_register_file(d, "structural_model_fused");
  EXPECT_LT(with_fused.primitive("fused_ctrl").quality.mape, 1e-2);  // exact but for the fit's ridge (percent)
  const PowerTrace ft2 = estimate_power(fused, compile_attention(fused, ap).program, with_fused, 16);
  const auto fc = block(ft2, "ctrl");
  ASSERT_NE(fc, ft2.blocks.end());
  EXPECT_EQ(fc->kind, "fused_ctrl");
  const double fused_mw = fused_rule(fc->h) * ft2.clock_mhz * 1e-6 + 1e-4 * fused_rule(fc->h);
  EXPECT_NEAR(fc->average_mw, fused_mw, 1e-4 * fused_mw);
  EXPECT_NE(fc->model.find("structural primitive fused_ctrl"), std::string::npos);
  EXPECT_NE(fc->model.find("with the requantiser and the normaliser"), std::string::npos);
  for (const char* inside : {"ctrl", "requant", "normalise"})
    EXPECT_EQ(std::find(ft2.not_modelled.begin(), ft2.not_modelled.end(), inside), ft2.not_modelled.end()) << inside;
}

// The controller's catalog sizes are controllers the generator can build: the DMA's beat
// divides a tile row of A (TK bytes) and of B (TN bytes).
TEST(Characterize, ControllerSizesAreBuildable) {
  const PrimitiveDef& ctrl = primitive_def("ctrl");
  EXPECT_TRUE(ctrl.structural());
  for (const auto& h : ctrl.sizes) {
    EXPECT_EQ(h.at(2) % h.at(3), 0) << hyperparameter_text(h, 'x');
    EXPECT_EQ(h.at(1) % h.at(3), 0) << hyperparameter_text(h, 'x');
  }
  EXPECT_EQ(variant_difference(ctrl, {{"TM", 2},
                                      {"TN", 2},
                                      {"TK", 8},
                                      {"W", 2},
                                      {"ST", 0},
                                      {"M_LIVE", 0},
                                      {"N_LIVE", 0},
                                      {"ORD0", 2},
                                      {"ORD1", 0},
                                      {"ORD2", 1},
                                      {"ATTN", 0},
                                      {"CMP_A", 1}}),
            "CMP_A=1, not characterised");  // the loop order only names the counters
}

// A controller kind's energy per event (controller_events.h), fitted over kernel windows on
// its training cores: an exact rule in the event rates and what each event's energy grows
// with (PrimitiveDef::event_size_terms, else the operand buffers' bytes) is recovered, and
// with each training core left out predicts its runs within `held_out.mape` % and its
// windows at R above `held_out.pearson`; estimating program `prog` on design g prices each
// window by its own events, as the SystemC run counts them.
struct HeldOutBound {
  double mape, pearson;
};
void expect_event_fit_prices_windows(const std::string& kind, const Graph& g, const Program& prog,
                                     HeldOutBound held_out) {
  SCOPED_TRACE(kind);
  const PrimitiveDef& def = primitive_def(kind);
  const std::vector<ControllerEvent>& events = controller_events(kind);
  auto idle = [&](const std::vector<int>& h) { return 800.0 + 15 * def.size_terms_at(h).at(0); };
  auto above_idle = [&](const std::vector<int>& h, const std::vector<double>& rates) {
    const std::vector<double> growth = controller_event_growth(def, h);
    double e = 40 + 0.5 * growth.at(0);  // the cycles the kernel runs
    for (size_t i = 1; i < rates.size(); ++i) e += rates[i] * (10.0 * double(i) + 0.25 * double(i) * growth.at(i));
    return e;
  };
  Dataset d;
  for (const auto& h : def.sizes) {
    CharPoint p;
    p.kind = kind, p.h = h, p.dynamic_fj = idle(h), p.leakage_mw = 0.5, p.area_um2 = 20000;
    d.points.push_back(p);
  }
  std::mt19937_64 rng(3);
  std::uniform_real_distribution<double> rate(0.0, 1.0);
  for (const auto& h : def.kernel_sizes)
    for (uint64_t seed : {101, 102})
      for (uint64_t w = 1; w <= 12; ++w) {
        CharPoint p;
        p.kind = kind, p.h = h, p.seed = seed, p.window = 16 * w;
        p.events = {1.0};
        for (size_t e = 1; e < events.size(); ++e) p.events.push_back(e >= 3 ? 20 * rate(rng) : rate(rng));  // toggles: bits per cycle
        p.dynamic_fj = idle(h) + above_idle(h, p.events), p.leakage_mw = 0.5, p.area_um2 = 20000;
        d.points.push_back(p);
      }
  const PowerModel m = saved_and_loaded_with_register_file(d, kind + "_events");
  const PrimitivePowerModel& c = m.primitive(kind);
  EXPECT_EQ(c.characterised_sizes.size(), def.sizes.size());  // the idle points alone
  EXPECT_EQ(c.event_quality.train_points, def.kernel_sizes.size() * 24);
  EXPECT_EQ(c.event_quality.test_points, def.kernel_sizes.size() * 24);  // each core left out in turn
  EXPECT_LT(c.event_quality.mape, held_out.mape);                        // %
  EXPECT_GT(c.event_quality.pearson, held_out.pearson);
  EXPECT_TRUE(m.primitive("csr").event_fj.b.empty());

  const PowerTrace t = estimate_power(g, prog, m, 16);
  const auto tc = std::find_if(t.blocks.begin(), t.blocks.end(), [](const BlockPower& b) { return b.block == "ctrl"; });
  ASSERT_NE(tc, t.blocks.end());
  EXPECT_EQ(tc->kind, kind);
  EXPECT_NE(tc->model.find("its switching per event fitted over " + std::to_string(def.kernel_sizes.size() * 24) +
                           " kernel windows of training cores"),
            std::string::npos);
  const RunResult r = run_on_systemc(g, prog);
  const auto counts = controller_event_counts(r, kind, 16, t.windows());
  const StructuralEnergy energy = m.structural_energy(kind, tc->h);
  ASSERT_EQ(energy.per_event_fj.size(), events.size());
  const std::vector<double> energies = controller_event_energy(r, kind, 16, t.windows(), energy.per_event_fj);
  double lowest = 1e300, highest = 0;
  for (uint64_t w = 0; w < t.windows(); ++w) {
    std::vector<double> rates;
    for (const auto& ev : counts) rates.push_back(ev[w] / double(t.window_cycles(w)));
    const double want = (idle(tc->h) + above_idle(tc->h, rates)) * t.clock_mhz * 1e-6 + 0.5;
    EXPECT_NEAR(tc->mw[w], want, 1e-3 * want) << "window " << w;
    double by_counts = 0;  // the energy series is the counts' sum
    for (size_t e = 0; e < counts.size(); ++e) by_counts += counts[e][w] * energy.per_event_fj[e];
    EXPECT_NEAR(energies[w], by_counts, 1e-9 * std::fabs(by_counts) + 1e-9);
    lowest = std::min(lowest, tc->mw[w]), highest = std::max(highest, tc->mw[w]);
  }
  EXPECT_GT(highest, 1.2 * lowest);  // the windows differ by their events
}

TEST(PowerEstimate, ControllerEventsPriceItsSwitchingPerWindow) {
  const Graph g = elaborate(parse_spec_text(test::tiny_matmul_core_spec(), "tiny.yaml"));
  MatmulProblem mp;
  mp.m = 8, mp.n = 8, mp.k = 16;
  expect_event_fit_prices_windows("ctrl", g, compile_matmul(g, mp), {0.01, 0.99999});
}

// A fused core's controller the same way, its own events (array b, softmax unit,
// normaliser, activation table) among them, under the fused attention. Held out, not exactly:
// its 8x8x8 training core alone has softmax rows of another size than the 2x2 cores', so
// with it left out what a softmax row's energy grows with is not seen.
TEST(PowerEstimate, FusedControllerEventsPriceItsSwitchingPerWindow) {
  const Graph g = elaborate(parse_spec_text(test::tiny_attention_core_spec(), "tiny_attention.yaml"));
  AttentionProblem ap;
  ap.q_heads = 1, ap.kv_heads = 1, ap.tokens = 8;
  expect_event_fit_prices_windows("fused_ctrl", g, compile_attention(g, ap).program, {5.0, 0.99});
}

// The controller's events as a SystemC run counts them: each event's windows sum to the
// run's total of it.
TEST(ControllerEvents, WindowsSumToTheRunsEvents) {
  const Graph g = elaborate(parse_spec_text(test::tiny_matmul_core_spec(), "tiny.yaml"));
  MatmulProblem mp;
  mp.m = 8, mp.n = 8, mp.k = 16;
  const RunResult r = run_on_systemc(g, compile_matmul(g, mp));
  const uint64_t window = 7, windows = (r.cycles + window - 1) / window;
  const auto counts = controller_event_counts(r, "ctrl", window, windows);
  ASSERT_EQ(counts.size(), controller_events("ctrl").size());
  auto total = [&](const std::string& name) {
    for (size_t e = 0; e < counts.size(); ++e)
      if (controller_events("ctrl")[e].name == name) {
        double s = 0;
        for (double v : counts[e]) s += v;
        return s;
      }
    ADD_FAILURE() << "no event " << name;
    return 0.0;
  };
  auto spans = [&](const std::vector<CycleSpan>& all) {
    double s = 0;
    for (const CycleSpan& c : all) s += double(c.cycles);
    return s;
  };
  EXPECT_EQ(total("cycles"), double(r.cycles));
  EXPECT_EQ(total("dma_beats"), spans(r.timelines.at("dma").enabled));
  EXPECT_EQ(total("dma_commands"), spans(r.timelines.at("dma").side));
  EXPECT_GT(total("dma_commands"), 0);
  EXPECT_EQ(total("read_toggles"), double(r.find_probe("dma", "rdata")->toggles()));
  EXPECT_EQ(total("store_toggles"), double(r.find_probe("requant", "in")->toggles() + r.find_probe("requant", "out")->toggles() +
                                           r.find_probe("dma", "wdata")->toggles()));
  EXPECT_EQ(total("stream_cycles"), spans(r.timelines.at("array_a").enabled));
  EXPECT_EQ(total("operand_toggles"),
            double(r.find_probe("array_a", "x")->toggles() + r.find_probe("array_a", "w")->toggles()));
  // Per cycle, an event falls kControllerLead cycles before the cycle the run records it in.
  const auto per_cycle = controller_event_counts(r, "ctrl", 1, r.cycles);
  const CycleSpan last_command = r.timelines.at("dma").side.back();  // none follows it
  ASSERT_GE(last_command.start, kControllerLead);
  EXPECT_EQ(per_cycle[2][last_command.start - kControllerLead], 1.0);
  EXPECT_EQ(per_cycle[2][last_command.start], 0.0);
}

// A fused core's controller counts the matmul controller's events and its own: array b's
// stream, side enable and buses, the softmax unit's rows in and out and its loads, the
// normaliser's rows; each sums over its windows to the run's total.
TEST(ControllerEvents, FusedControllerAddsArrayBSoftmaxAndNormaliser) {
  const std::vector<int> h = primitive_def("fused_ctrl").kernel_sizes.front();
  const Graph g = elaborate(parse_spec_text(training_core_spec("fused_ctrl", h), "fused training core"));
  const RunResult r = run_on_systemc(g, training_kernels("fused_ctrl", h).front().compile(g));
  const uint64_t window = 5, windows = (r.cycles + window - 1) / window;
  const auto counts = controller_event_counts(r, "fused_ctrl", window, windows);
  const auto& events = controller_events("fused_ctrl");
  ASSERT_EQ(counts.size(), events.size());
  ASSERT_GT(events.size(), controller_events("ctrl").size());
  for (size_t e = 0; e < controller_events("ctrl").size(); ++e)
    EXPECT_STREQ(events[e].name, controller_events("ctrl")[e].name);  // the matmul controller's first
  auto total = [&](const std::string& name) {
    for (size_t e = 0; e < counts.size(); ++e)
      if (events[e].name == name) return std::accumulate(counts[e].begin(), counts[e].end(), 0.0);
    ADD_FAILURE() << "no event " << name;
    return 0.0;
  };
  auto toggles = [&](const char* block, std::initializer_list<const char*> ports) {
    double t = 0;
    for (const char* port : ports) t += double(r.find_probe(block, port)->toggles());
    return t;
  };
  auto spans = [](const std::vector<CycleSpan>& all) {
    double n = 0;
    for (const CycleSpan& c : all) n += double(c.cycles);
    return n;
  };
  EXPECT_GT(total("b_stream_cycles"), 0);
  EXPECT_EQ(total("b_stream_cycles"), spans(r.timelines.at("array_b").enabled));
  EXPECT_EQ(total("b_operand_toggles"), toggles("array_b", {"x", "w"}));
  EXPECT_GT(total("softmax_toggles"), 0);
  EXPECT_EQ(total("softmax_toggles"), toggles("softmax", {"in", "out"}));
  EXPECT_GT(total("normalise_toggles"), 0);
  EXPECT_EQ(total("normalise_toggles"), toggles("normalise", {"in", "out"}));
  EXPECT_GT(total("b_side_cycles"), 0);  // the rescale passes of an output-stationary array b
  EXPECT_EQ(total("b_side_cycles"), spans(r.timelines.at("array_b").side));
  EXPECT_GT(total("softmax_loads"), 0);
  EXPECT_EQ(total("softmax_loads"), spans(r.timelines.at("softmax").busy));
  // Each query row (tokens of one head) divided once: its sum gated in, then out.
  EXPECT_EQ(total("normalise_divisions"), 2.0 * training_kernels("fused_ctrl", h).front().attention.tokens);
  EXPECT_EQ(total("table_beats"), 0.0);  // attention loads no activation table
  EXPECT_EQ(total("cycles"), double(r.cycles));
}

// The FFN's output rows are requantised, not divided: no division cycles. Its activation
// table is loaded once, 256 bytes in beats of the memory's width, each counted once.
TEST(ControllerEvents, TheFfnDividesNothingAndLoadsItsTable) {
  const std::vector<int> h = primitive_def("fused_ctrl").kernel_sizes.front();
  const Graph g = elaborate(parse_spec_text(training_core_spec("fused_ctrl", h), "fused training core"));
  const auto& events = controller_events("fused_ctrl");
  auto total = [&](const std::vector<std::vector<double>>& counts, const std::string& name) {
    for (size_t e = 0; e < events.size(); ++e)
      if (events[e].name == name) return counts[e].front();
    ADD_FAILURE() << "no event " << name;
    return 0.0;
  };
  int ffns = 0;
  for (const TrainingKernel& k : training_kernels("fused_ctrl", h)) {
    if (k.kernel != "ffn") continue;
    ++ffns;
    const RunResult r = run_on_systemc(g, k.compile(g));
    const auto counts = controller_event_counts(r, "fused_ctrl", r.cycles, 1);
    EXPECT_EQ(total(counts, "normalise_divisions"), 0.0);
    EXPECT_GT(total(counts, "normalise_toggles"), 0.0);  // its rows still stored
    EXPECT_EQ(total(counts, "table_beats"), 256.0 / g.memory.beat_bytes);
    EXPECT_GT(total(counts, "dma_beats"), total(counts, "table_beats"));  // and its operands loaded
  }
  EXPECT_EQ(ffns, 2);
}

// --recount-events: a dataset's kernel points get this fsgen's events from their training
// kernels' SystemC runs, their labels and every other line unchanged; a point the run does
// not have, or a seed of no training kernel, is an error naming its line, the file untouched.
TEST(Characterize, RecountingEventsKeepsLabelsAndOtherRows) {
  const std::string dir = test::scratch_dir("recount_events");
  const std::vector<int> h = primitive_def("fused_ctrl").kernel_sizes.front();
  const std::string
      size = hyperparameter_text(h),
      header =
          "# seed: "
          "1\nkind,h,toggle_rate,zero_fraction,enable_rate,seed,window,alpha,enable,zeros,side,factor,factor_ones,"
          "state,state_ones,events,dynamic_fj,leakage_mw,area_um2\n";
  const std::string other = "pe_array_os,2;2;0,0.1,0,0.5,1,0,0.1,0.5,0,0,0,0,0,0,,100,0.1,10";
  auto kernel_row = [&](uint64_t seed, uint64_t window, double label) {
    return "fused_ctrl," + size + ",0,0,0," + std::to_string(seed) + "," + std::to_string(window) +
           ",0,0,0,0,0,0,0,0,1;0;0;0;0;0;0;0;0;0;0;0;0," + std::to_string(int(label)) + ",2,90000";
  };
  std::ofstream(dir + "/d.csv") << header << kernel_row(201, 16, 1000) << "\n" << other << "\n"
                                << kernel_row(201, 40, 2000) << "\n";
  const RecountSummary sum = recount_kernel_events(dir + "/d.csv");
  EXPECT_EQ(sum.points, 2u);
  EXPECT_EQ(sum.runs, 1u);
  const Dataset d = read_dataset(dir + "/d.csv");
  ASSERT_EQ(d.points.size(), 3u);
  const auto rates = kernel_event_rates(primitive_def("fused_ctrl"), h, 0);
  EXPECT_EQ(d.points[0].events, rates.at(16));
  EXPECT_EQ(d.points[2].events, rates.at(40));
  EXPECT_EQ(d.points[0].events.size(), controller_events("fused_ctrl").size());
  EXPECT_EQ(d.points[0].dynamic_fj, 1000);
  EXPECT_EQ(d.points[2].dynamic_fj, 2000);
  std::ifstream back(dir + "/d.csv");
  std::string line;
  for (int i = 0; i < 4; ++i) std::getline(back, line);
  EXPECT_EQ(line, other);

  std::ofstream(dir + "/late.csv") << header << kernel_row(201, 16, 1000) << "\n" << kernel_row(201, 999999, 1) << "\n";
  const std::string before = read_text_file(dir + "/late.csv");
  EXPECT_NE(test::error_of([&] { recount_kernel_events(dir + "/late.csv"); })
                .find("late.csv:4: fused_ctrl kernel point at cycle 999999 of seed 201: expected one of the training run's"),
            std::string::npos);
  EXPECT_EQ(read_text_file(dir + "/late.csv"), before);
  std::ofstream(dir + "/seed.csv") << header << kernel_row(7, 16, 1000) << "\n";
  EXPECT_NE(test::error_of([&] { recount_kernel_events(dir + "/seed.csv"); })
                .find("seed.csv:3: fused_ctrl kernel point of seed 7: expected the seed of one of the training kernels at "),
            std::string::npos);
}

// The controller's training cores: each kernel size's core elaborates with a controller of
// that size, and every training kernel compiles on it.
TEST(Characterize, ControllerTrainingCoresHaveTheirSizes) {
  const PrimitiveDef& ctrl = primitive_def("ctrl");
  EXPECT_GE(ctrl.kernel_sizes.size(), 4u);
  for (const auto& h : ctrl.kernel_sizes) {
    EXPECT_NE(std::find(ctrl.sizes.begin(), ctrl.sizes.end(), h), ctrl.sizes.end()) << hyperparameter_text(h, 'x');
    const Graph g = elaborate(parse_spec_text(training_core_spec("ctrl", h), "training core"));
    EXPECT_EQ(hyperparameters_of(ctrl, ctrl_instance(g).params), h);
    EXPECT_EQ(variant_difference(ctrl, ctrl_instance(g).params), "") << hyperparameter_text(h, 'x');
    for (const TrainingKernel& k : training_kernels("ctrl", h)) {
      EXPECT_EQ(k.kernel, "matmul");
      EXPECT_NO_THROW(k.compile(g)) << hyperparameter_text(h, 'x');
    }
  }
}

// --no-kernel-runs: a controller's size alone, not its training core's kernel runs. On the
// shipped dataset both are done, so each is counted as skipped and nothing runs.
TEST(Characterize, NoKernelRunsLeavesTheTrainingCoresOut) {
  if (!test::have_tool("yosys") || !test::have_tool("verilator")) GTEST_SKIP() << "yosys or verilator not installed";
  const std::string dir = test::scratch_dir("characterize_no_kernel_runs");
  std::filesystem::copy_file("data/power/fsgen45.csv", dir + "/d.csv", std::filesystem::copy_options::overwrite_existing);
  const PrimitiveDef& ctrl = primitive_def("ctrl");
  CharacterizeOptions o;
  o.kinds = {"ctrl"};
  o.sizes = {hyperparameter_text(ctrl.kernel_sizes.front(), 'x')};
  o.work_dir = dir + "/work";
  const CharacterizeSummary with_kernels = characterize(o, dir + "/d.csv");
  EXPECT_EQ(with_kernels.skipped, 1 + training_kernels("ctrl", ctrl.kernel_sizes.front()).size());
  o.kernel_runs = false;
  const CharacterizeSummary idle_only = characterize(o, dir + "/d.csv");
  EXPECT_EQ(idle_only.skipped, 1u);
  EXPECT_EQ(idle_only.added + with_kernels.added, 0u);
}

// A controller whose operand buffers are SRAM macros (MACROS 1) is characterised without
// them: fsgen_ctrl_buffer a black box of its synthesis and no cell of the netlist read, its
// area what its netlist with them (the dataset's point) holds less their flip-flops.
TEST(Characterize, AControllerWithMacroBuffersIsSynthesisedWithoutThem) {
  if (!test::have_tool("yosys")) GTEST_SKIP() << "yosys not installed";
  const std::string dir = test::scratch_dir("characterize_macro_buffers");
  const PrimitiveDef& ctrl = primitive_def("ctrl");
  std::vector<int> h = ctrl.sizes.front();
  const Dataset d = read_dataset("data/power/fsgen45.csv");
  const auto point = std::find_if(d.points.begin(), d.points.end(), [&](const CharPoint& p) {
    return p.kind == ctrl.kind && p.h == h && p.events.empty();
  });
  ASSERT_NE(point, d.points.end());
  const double with_buffers = point->area_um2;
  h[ctrl.param_at("MACROS")] = 1;
  const std::vector<std::string> macros = macro_modules_at(ctrl, h);
  ASSERT_EQ(macros, std::vector<std::string>{"fsgen_ctrl_buffer"});
  EXPECT_EQ(module_parameters(ctrl, h).count("MACROS"), 0u);  // not a module parameter
  const Liberty lib = prepare_liberty("", dir);
  const SynthReport synth = synth_to_liberty(write_module_sources(dir, ctrl.module), ctrl.module,
                                             module_parameters(ctrl, h), lib, dir, SynthOptions{macros});
  const GateNetlist netlist = read_netlist_json(synth.netlist_json, ctrl.module, macros);
  for (const auto& cell : netlist.cells) EXPECT_NE(cell.type, "fsgen_ctrl_buffer");
  // The smallest controller's buffers: a 2x8 A tile and an 8x2 B tile, 32 bytes of flip-flops.
  EXPECT_LT(synth.area_um2, with_buffers - 32 * 8 * 4.0);
  EXPECT_GT(synth.area_um2, 0.3 * with_buffers);
}

// A fused controller's training cores: fused cores around its kernel sizes (catalog sizes,
// none a validation core's), on which attention prefill and decode and both FFN forms
// compile.
TEST(Characterize, FusedControllerTrainingCoresHaveTheirSizes) {
  const PrimitiveDef& fused = primitive_def("fused_ctrl");
  EXPECT_GE(fused.kernel_sizes.size(), 3u);  // to leave each out of the event fit
  for (const auto& h : fused.kernel_sizes) {
    EXPECT_NE(std::find(fused.sizes.begin(), fused.sizes.end(), h), fused.sizes.end()) << hyperparameter_text(h, 'x');
    const Graph g = elaborate(parse_spec_text(training_core_spec("fused_ctrl", h), "fused training core"));
    EXPECT_EQ(g.block("ctrl").kind, "fused_ctrl");
    EXPECT_EQ(hyperparameters_of(fused, ctrl_instance(g).params), h);
    EXPECT_EQ(variant_difference(fused, ctrl_instance(g).params), "") << hyperparameter_text(h, 'x');
    std::set<std::string> kinds;
    for (const TrainingKernel& k : training_kernels("fused_ctrl", h)) {
      kinds.insert(k.kernel);
      EXPECT_NO_THROW(k.compile(g)) << hyperparameter_text(h, 'x') << " " << k.kernel << " seed " << k.seed;
    }
    EXPECT_EQ(kinds, (std::set<std::string>{"attention", "ffn"}));
  }
}

// A fused core's controller is a primitive of its own: every catalog size is the
// controller of a fused core with those tiles (its derived parameters, array b's tiling
// among them, are the ones the generator plans), and the softmax unit is a block beside it.
// The controller of each example design (examples/*.yaml), by design name: its kind and
// hyperparameters as fsgen power prices it (MACROS where its operand buffers are SRAM macros
// at the default threshold).
std::map<std::string, std::pair<std::string, std::vector<int>>> example_controllers() {
  std::map<std::string, std::pair<std::string, std::vector<int>>> out;
  for (const auto& file : std::filesystem::directory_iterator("examples")) {
    if (file.path().extension() != ".yaml") continue;
    const Graph g = elaborate(parse_spec_file(file.path().string()));
    const std::string kind = g.block("ctrl").kind;
    std::map<std::string, int64_t> params = block_instance(g, "ctrl")->params;
    params["MACROS"] = design_macros(g, MacroTechnology{}, MacroOptions{}).holds_operand_buffers() ? 1 : 0;
    out[file.path().stem().string()] = {kind, hyperparameters_of(primitive_def(kind), params)};
  }
  return out;
}

// Each catalog size of the fused controller is the controller of the training core of its
// tiles and slots, or of an example design.
TEST(Characterize, FusedControllerSizesAreFusedCoresControllers) {
  const PrimitiveDef& fused = primitive_def("fused_ctrl");
  std::set<std::vector<int>> of_examples;
  for (const auto& [name, ctrl] : example_controllers()) of_examples.insert(ctrl.second);
  for (const auto& h : fused.sizes) {
    if (of_examples.count(h)) continue;
    const int tn = h[1];
    const Graph g = elaborate(parse_spec_text(
        core_spec_around_controller("fused", h[0], tn, h[2], h[3], h[4], h[5], h[6], true), "fused core"));
    EXPECT_EQ(g.block("ctrl").kind, "fused_ctrl");
    const ArrayInstance ctrl = *block_instance(g, "ctrl");
    EXPECT_EQ(ctrl.params.at("ATTN"), 1);
    EXPECT_EQ(hyperparameters_of(fused, ctrl.params), h) << "neither a training core's nor an example's";
    EXPECT_EQ(variant_difference(fused, ctrl.params), "") << hyperparameter_text(h, 'x');
    EXPECT_EQ(block_instance(g, "softmax")->module, "fsgen_softmax");
    EXPECT_NE(emit_top(g).find("fsgen_softmax #(.TN(" + std::to_string(tn) + "), .WIN(0)) u_softmax"), std::string::npos);
  }
  // A matmul core's controller stays the matmul primitive.
  EXPECT_EQ(elaborate(parse_spec_text(test::tiny_matmul_core_spec(), "tiny.yaml")).block("ctrl").kind, "ctrl");
}

// The example designs' controllers are catalog sizes of their kinds.
TEST(Characterize, ExampleDesignsControllersAreCatalogSizes) {
  for (const auto& [name, ctrl] : example_controllers()) {
    const std::vector<std::vector<int>>& sizes = primitive_def(ctrl.first).sizes;
    EXPECT_NE(std::find(sizes.begin(), sizes.end(), ctrl.second), sizes.end())
        << name << ": its " << ctrl.first << " " << hyperparameter_text(ctrl.second, 'x') << " is not a catalog size";
  }
}

// fsgen characterize --design: a design's blocks as the power flow prices them are the sizes
// characterised, in place of the catalog's (sparse_attn_d128's 8x128 rescaling array is none).
TEST(Characterize, ADesignsBlocksGiveTheSizesCharacterised) {
  const Graph g = elaborate(parse_spec_file("examples/sparse_attn_d128.yaml"));
  const std::vector<PricedInstance> blocks = priced_instances(g, design_macros(g, MacroTechnology{}, MacroOptions{}));
  auto sizes_of = [&](const std::string& block) {
    std::vector<std::vector<int>> out;
    for (const auto& p : blocks)
      if (p.block == block) out.push_back(p.h);
    return out;
  };
  EXPECT_EQ(sizes_of("array_b"), (std::vector<std::vector<int>>{{8, 128, 0}}));
  EXPECT_EQ(sizes_of("softmax").size(), 2u);  // attention's and the FFN's mode
  EXPECT_TRUE(sizes_of("buf_b").empty());     // an SRAM macro
  const auto& catalog = primitive_def("pe_array_rescale").sizes;
  EXPECT_EQ(std::find(catalog.begin(), catalog.end(), std::vector<int>{8, 128, 0}), catalog.end());

  CharacterizeOptions o;
  o.design_sizes = {{"pe_array_rescale", {{8, 128, 0}}}, {"pe_array_os", {{8, 8, 0}}}};
  EXPECT_EQ(selected_primitives(o).size(), 2u);
  EXPECT_EQ(sizes_to_run(primitive_def("pe_array_rescale"), o), (std::vector<std::vector<int>>{{8, 128, 0}}));
  EXPECT_TRUE(sizes_to_run(primitive_def("pe_array_dot"), o).empty());
  o.max_elements = 512;  // still applies: 1,024 PEs
  EXPECT_TRUE(sizes_to_run(primitive_def("pe_array_rescale"), o).empty());
  o.kinds = {"pe_array_os", "softmax"};  // narrows the design's kinds
  ASSERT_EQ(selected_primitives(o).size(), 1u);
  EXPECT_EQ(selected_primitives(o).front()->kind, "pe_array_os");
  o.sizes = {"8x8x0"};
  EXPECT_NE(test::error_of([&] { selected_primitives(o); }).find("--sizes: expected no --sizes with --design"),
            std::string::npos);
}

TEST(Characterize, MalformedDatasetsAreOneLineErrors) {
  const std::string dir = test::scratch_dir("dataset_errors");
  std::ofstream(dir + "/a.csv") << "# format: fsgen-characterisation 1\nkind,h\n";
  EXPECT_NE(test::error_of([&] { read_dataset(dir + "/a.csv"); }).find("a.csv:2: expected the column header"),
            std::string::npos);
  const std::string header = "kind,h,toggle_rate,zero_fraction,enable_rate,seed,alpha,enable,zeros,side,dynamic_fj,leakage_mw,area_um2\n";
  std::ofstream(dir + "/b.csv") << header << "pe_array_os,2;2,0.1,0,x,1,0.1,0.5,0,0,100,0.1,10\n";
  EXPECT_NE(test::error_of([&] { read_dataset(dir + "/b.csv"); }).find("b.csv:2: enable_rate: expected a finite number, got 'x'"),
            std::string::npos);
  // Numbers are read whole and finite: trailing junk, nan and inf are refused.
  for (const char* bad : {"12.5xyz", "nan", "inf", "1e999"}) {
    std::ofstream(dir + "/n.csv") << header << "pe_array_os,2;2,0.1,0,0.5,1,0.1,0.5,0,0," << bad << ",0.1,10\n";
    EXPECT_NE(test::error_of([&] { read_dataset(dir + "/n.csv"); }).find("n.csv:2: dynamic_fj: expected a finite number"),
              std::string::npos)
        << bad;
  }
  std::ofstream(dir + "/s.csv") << header << "pe_array_os,2;-1x,0.1,0,0.5,1,0.1,0.5,0,0,100,0.1,10\n";
  EXPECT_NE(test::error_of([&] { read_dataset(dir + "/s.csv"); }).find("s.csv:2: hyperparameters: expected an integer"),
            std::string::npos);
  std::ofstream(dir + "/c.csv") << header << "pe_array_os,2;2,0.1,0,0.5,1,0.1,0.5,0,100,0.1,10\n";  // no side
  EXPECT_NE(test::error_of([&] { read_dataset(dir + "/c.csv"); }).find("c.csv:2: expected 13 comma-separated fields"),
            std::string::npos);
  // Format 3: a window and the event rates (empty for a point of a random stimulus).
  const std::string header3 =
      "kind,h,toggle_rate,zero_fraction,enable_rate,seed,window,alpha,enable,zeros,side,events,dynamic_fj,leakage_mw,area_um2\n";
  std::ofstream(dir + "/d.csv") << header3 << "pe_array_os,2;2,0.1,0,0.5,1,0,0.1,0.5,0,0,,100,0.1,10\n"
                                << "ctrl,2;2;8;1;0;0,0,0,0,101,16,0,0,0,0,1;0.5;0.1;3;0;1;4,2900,0.4,18000\n";
  const Dataset d3 = read_dataset(dir + "/d.csv");
  ASSERT_EQ(d3.points.size(), 2u);
  EXPECT_TRUE(d3.points[0].events.empty());
  EXPECT_EQ(d3.points[1].events, (std::vector<double>{1, 0.5, 0.1, 3, 0, 1, 4}));
  EXPECT_EQ(d3.points[1].window, 16u);
  EXPECT_NE(d3.points[1].key(), d3.points[0].key());
  std::ofstream(dir + "/e.csv") << header3 << "pe_array_os,2;2,0.1,0,0.5,1,0,0.1,0.5,0,0,100,0.1,10\n";  // no events
  EXPECT_NE(test::error_of([&] { read_dataset(dir + "/e.csv"); }).find("e.csv:2: expected 15 comma-separated fields"),
            std::string::npos);
  // Format 4 adds the factor toggles after side; the rescaling array's points of format 3
  // lack them, so they do not train.
  const std::string header4 =
      "kind,h,toggle_rate,zero_fraction,enable_rate,seed,window,alpha,enable,zeros,side,factor,events,dynamic_fj,leakage_mw,"
      "area_um2\n";
  std::ofstream(dir + "/f.csv") << header4 << "pe_array_rescale,2;2,0.1,0,0.5,1,0,0.1,0.5,0,0.1,,100,0.1,10\n";
  EXPECT_NE(test::error_of([&] { read_dataset(dir + "/f.csv"); }).find("f.csv:2: expected 16 comma-separated fields"),
            std::string::npos);
  std::ofstream g3(dir + "/g.csv");
  g3 << header3;
  for (int seed = 1; seed <= 8; ++seed)
    g3 << "pe_array_rescale,2;2,0.1,0,0.5," << seed << ",0,0.1,0.5,0,0.1,," << 100 + seed << ",0.1,10\n";
  g3.close();
  EXPECT_EQ(read_dataset(dir + "/g.csv").points.front().factor, 0.0);
  EXPECT_NE(test::error_of([&] { train_power_model(read_dataset(dir + "/g.csv"), 5); })
                .find("pe_array_rescale: format 3 has no factor toggles, expected format 4"),
            std::string::npos);
  // Format 5 adds the factor bits' ones, its accumulators' toggles and ones after the factor
  // toggles; its points of format 4 lack them, so they do not train either.
  std::ofstream g4(dir + "/g4.csv");
  g4 << header4;
  for (int seed = 1; seed <= 8; ++seed)
    g4 << "pe_array_rescale,2;2,0.1,0,0.5," << seed << ",0,0.1,0.5,0,0.1,0.2,," << 100 + seed << ",0.1,10\n";
  g4.close();
  const Dataset d4 = read_dataset(dir + "/g4.csv");
  EXPECT_EQ(d4.format, 4);
  EXPECT_EQ(d4.points.front().factor, 0.2);
  EXPECT_EQ(d4.points.front().state, 0.0);
  EXPECT_EQ(d4.points.front().dynamic_fj, 101.0);
  EXPECT_NE(test::error_of([&] { train_power_model(d4, 5); })
                .find("pe_array_rescale: format 4 has no acc register toggles, expected format 5 (characterise "
                      "pe_array_rescale again)"),
            std::string::npos);
  // An array characterised in format 5 before its state register was declared has the
  // column all 0 though its points stream: refused as well.
  Dataset unmeasured;
  unmeasured.format = 5;
  for (int seed = 1; seed <= 8; ++seed) {
    CharPoint p;
    p.kind = "pe_array_os", p.h = {2, 2, 0}, p.seed = uint64_t(seed), p.enable_rate = 0.5, p.enable = 0.5;
    p.alpha = 0.1, p.dynamic_fj = 100 + seed;
    unmeasured.points.push_back(p);
  }
  EXPECT_NE(test::error_of([&] { train_power_model(unmeasured, 5); })
                .find("pe_array_os: its enabled points have no acc register toggles, expected them measured "
                      "(characterise pe_array_os again)"),
            std::string::npos);
  EXPECT_NE(test::error_of([] { primitive_def("crossbar"); }).find("unknown: expected one of pe_array_os"), std::string::npos);
  CharacterizeOptions sized = small_characterisation({"pe_array_rescale"}, 100, dir);
  sized.sizes = {"2x4x0", "3x3x0"};  // a size the catalog does not have is named before any synthesis
  EXPECT_NE(
      test::error_of([&] { characterize(sized, dir + "/sized.csv"); })
          .find("--sizes 3x3x0: expected a catalog size of the primitives characterised (2x2x0, 2x4x0, 4x2x0, 4x4x0, "
                "8x8x0, 16x16x0, 4x4x1, 16x16x1)"),
      std::string::npos);
  EXPECT_FALSE(std::filesystem::exists(dir + "/sized.csv"));
  EXPECT_NE(test::error_of([&] { load_power_model(dir + "/missing.json"); }).find("missing.json"), std::string::npos);
}

}  // namespace
}  // namespace fsgen

namespace fsgen {
namespace {

// The sorted lines of a file (rows written by parallel jobs come in any order).
std::vector<std::string> sorted_lines(const std::string& path) {
  std::vector<std::string> lines;
  std::istringstream in(test::read_file(path));
  for (std::string l; std::getline(in, l);) lines.push_back(l);
  std::sort(lines.begin(), lines.end());
  return lines;
}

// `fsgen characterize` killed with SIGKILL at moments spread over its run, then resumed to
// the end: the dataset holds exactly the rows of an uninterrupted run, none lost, none twice.
TEST(Characterize, ARunKilledAtAnyMomentResumesToTheSameDataset) {
  if (!test::have_tool("yosys") || !test::have_tool("verilator")) GTEST_SKIP() << "yosys or verilator not installed";
  const std::string dir = test::scratch_dir("characterize_kill");
  const std::string args = "characterize --kinds pe_array_os --small --cycles 200 --jobs 2 --work " + dir + "/work -o ";
  const test::CliRun whole = test::fsgen_cli(args + dir + "/whole.csv");
  ASSERT_EQ(whole.status, 0) << whole.out;
  // The same work folder: its builds are current, so the killed runs spend their time on points.
  const std::string killed = dir + "/killed.csv";
  std::mt19937 rng(3);
  for (int k = 0; k < 4; ++k) {
    const pid_t run = fork();
    ASSERT_GE(run, 0);
    if (run == 0) {
      const std::string cmd = std::string(FSGEN_BINARY) + " " + args + killed + " > /dev/null 2>&1";
      execl("/bin/sh", "sh", "-c", ("exec " + cmd).c_str(), static_cast<char*>(nullptr));
      _exit(127);
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(std::uniform_int_distribution<int>(100, 2500)(rng)));
    kill(run, SIGKILL);
    waitpid(run, nullptr, 0);
  }
  const test::CliRun rest = test::fsgen_cli(args + killed);
  ASSERT_EQ(rest.status, 0) << rest.out;
  EXPECT_EQ(sorted_lines(killed), sorted_lines(dir + "/whole.csv"));
}

}  // namespace
}  // namespace fsgen
