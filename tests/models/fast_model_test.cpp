// The fast model against the cycle model: the same cycle count on every kernel of the
// cross-check matrix, the same activity totals, and a timeline that adds up.
#include "models/fast_model.h"

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <regex>
#include <sstream>

#include "blocks/pe_array_os/model_accumulators.h"
#include "compiler/attention.h"
#include "compiler/ffn.h"
#include "compiler/matmul.h"
#include "core/error.h"
#include "models/kernel_regs.h"
#include "models/platform.h"
#include "test_util.h"

namespace fsgen {
namespace {

Graph graph_of(const std::string& text) { return elaborate(parse_spec_text(text, "s.yaml")); }

std::vector<std::string> lines_of(const std::string& text) {
  std::vector<std::string> out;
  std::istringstream in(text);
  for (std::string l; std::getline(in, l);)
    if (!l.empty() && l[0] != '#') out.push_back(l);
  return out;
}

// Every case of a cases file (those without any of the `skip` words) on every design its
// specs script writes, through `fsgen simulate`, which runs both models on the same program:
// the fast model within `tolerance` % of the cycle model on each. Returns the runs.
int expect_fast_within(const std::string& specs_script, const std::string& cases_path, double tolerance = 1.0,
                       const std::vector<std::string>& skip = {}) {
  // A folder per specs script: ctest runs the matrices' tests side by side.
  const std::string dir = test::scratch_dir("fast_matrix_" + std::filesystem::path(specs_script).stem().string());
  FILE* p = popen((specs_script + " " + dir).c_str(), "r");
  std::string designs;
  char buf[256];
  while (fgets(buf, sizeof buf, p)) designs += buf;
  EXPECT_EQ(pclose(p), 0) << specs_script;
  std::ifstream cases_file(cases_path);
  std::stringstream cases;
  cases << cases_file.rdbuf();
  const std::regex cycle_re(R"(\n  cycles +(\d+))"), fast_re(R"(fast model +(\d+) cycles, ([-+0-9.]+) %)");
  double worst = 0;
  int runs = 0;
  for (const auto& d : lines_of(designs))
    for (const auto& args : lines_of(cases.str())) {
      if (std::any_of(skip.begin(), skip.end(),
                      [&](const std::string& w) { return args.find(w) != std::string::npos; }))
        continue;
      const test::CliRun r = test::fsgen_cli("simulate " + dir + "/" + d + ".yaml " + args);
      EXPECT_EQ(r.status, 0) << d << " " << args << "\n" << r.out;
      std::smatch c, f;
      if (!std::regex_search(r.out, c, cycle_re) || !std::regex_search(r.out, f, fast_re)) {
        ADD_FAILURE() << r.out;
        continue;
      }
      const double gap = std::abs(std::stod(f[2].str()));
      EXPECT_LE(gap, tolerance) << d << " " << args << ": cycle model " << c[1] << ", fast " << f[1];
      worst = std::max(worst, gap);
      ++runs;
    }
  std::cout << "fast model (" << cases_path << "): " << runs << " kernels, largest gap to the cycle model " << worst
            << " %\n";
  return runs;
}

TEST(FastModel, WithinOnePercentOfTheCycleModelOnTheCrossCheckMatrix) {
  EXPECT_EQ(expect_fast_within("validation/matrix_specs.sh", "validation/matrix_cases.txt"), 14 * 20);
}

TEST(FastModel, WithinOnePercentOfTheCycleModelOnTheEpilogueMatrix) {
  EXPECT_EQ(expect_fast_within("validation/epilogue_specs.sh", "validation/epilogue_cases.txt"), 4 * 4);
}

// Sparse designs timed from their operands' zero shares (values zero independently) against
// the cycle model on the drawn values: within 3 % on the sparse matrix's kernels whose zeros
// are drawn independently. Left out: N:M patterns (balanced by construction: the model
// overestimates their windows by up to 12 %) and decode, whose padded query rows are zero
// (up to 11 % on arrays testing x).
TEST(FastModel, SparseDesignsFromZeroStatisticsWithinThreePercentOfTheCycleModel) {
  EXPECT_EQ(expect_fast_within("validation/sparse_specs.sh", "validation/sparse_cases.txt", 3.0, {"pattern", "decode"}),
            17 * 10);
}

TEST(FastModel, SparseDesignWithoutZeroStatisticsIsAUserError) {
  const Graph g = graph_of(test::read_file("examples/sparse_os_8x8.yaml"));
  MatmulProblem mp;
  const Program mm = compile_matmul(g, mp);
  EXPECT_THROW(run_fast(g, registers_at_start(mm)), UserError);
  EXPECT_THROW(run_fast(g, registers_at_start(mm), 0, OperandZeros{1.5, 0}), UserError);
  EXPECT_NO_THROW(run_fast(g, registers_at_start(mm), 0, OperandZeros{0.5, 0.5}));
}

// A sparse array's busy cycles in the fast model are its expected streams, as the cycle
// model counts its streams on the drawn values.
TEST(FastModel, SparseArrayBusyCyclesAreItsStreams) {
  const Graph g = graph_of(test::read_file("examples/sparse_systolic_8x8.yaml"));
  MatmulProblem mp;
  mp.m = 64, mp.n = 64, mp.k = 256;
  mp.values.zero_fraction = 0.7;
  const Program mm = compile_matmul(g, mp);
  const RunResult cyc = run_on_systemc(g, mm);
  const RunResult fast = run_fast(g, registers_at_start(mm), 0, OperandZeros{0.7, 0.7}).result;
  const double busy_cyc = double(cyc.activity.at("array_a").busy_cycles);
  const double busy_fast = double(fast.activity.at("array_a").busy_cycles);
  EXPECT_NEAR(busy_fast / busy_cyc, 1.0, 0.03) << busy_fast << " against " << busy_cyc;
  EXPECT_EQ(fast.sparse.at("array_a").stream_cycles, fast.activity.at("array_a").busy_cycles);
  EXPECT_LT(fast.sparse.at("array_a").stream_cycles, fast.sparse.at("array_a").dense_cycles);
}

void expect_same_activity(const RunResult& cyc, const RunResult& fast) {
  EXPECT_EQ(fast.cycles, cyc.cycles);
  for (const char* block : {"array_a", "array_b", "softmax", "dma", "k_cache", "v_cache"}) {
    const BlockActivity a = cyc.activity.count(block) ? cyc.activity.at(block) : BlockActivity{};
    const BlockActivity b = fast.activity.count(block) ? fast.activity.at(block) : BlockActivity{};
    EXPECT_EQ(b.busy_cycles, a.busy_cycles) << block;
    EXPECT_EQ(b.hits, a.hits) << block;
    EXPECT_EQ(b.misses, a.misses) << block;
    if (std::string(block) == "dma" || std::string(block).find("cache") != std::string::npos) {
      EXPECT_EQ(b.operand_bytes, a.operand_bytes) << block;
    }
  }
}

const char* kCachedWs =
    "name: f\nclock_mhz: 1000\npe_budget: 2048\n"
    "memory: {bandwidth_gbps: 8, latency_cycles: 5, buffer_limit_bytes: 16384}\n"
    "arrays:\n  a: {loop_order: weight_stationary, tiling: {m: 8, n: 8, k: 8}}\n"
    "  b: {loop_order: weight_stationary, tiling: {m: 8, n: 8, k: 8}}\n"
    "caches: {acc_a: 16384, acc_b: 16384, k: 256, v: 128}\n";

TEST(FastModel, SameActivityTotalsAsTheCycleModel) {
  const Graph g = graph_of(kCachedWs);
  AttentionProblem ap;
  ap.q_heads = 4;
  ap.kv_heads = 2;
  ap.tokens = 24;
  const Program attn = compile_attention(g, ap).program;
  expect_same_activity(run_on_systemc(g, attn), run_fast(g, registers_at_start(attn)).result);
  FfnProblem fp;
  fp.tokens = 11;
  fp.ffn = 40;
  const Program ffn = compile_ffn(g, fp).program;
  expect_same_activity(run_on_systemc(g, ffn), run_fast(g, registers_at_start(ffn)).result);
  MatmulProblem mp;
  mp.m = 32;
  mp.n = 16;
  mp.k = 24;
  const Program mm = compile_matmul(g, mp);
  expect_same_activity(run_on_systemc(g, mm), run_fast(g, registers_at_start(mm)).result);
}

TEST(FastModel, TimelineWindowsAddUpToTheTotals) {
  const Graph g = graph_of(kCachedWs);
  AttentionProblem ap;
  ap.q_heads = 2;
  ap.tokens = 40;
  const FastRun run = run_fast(g, registers_at_start(compile_attention(g, ap).program), 500);
  ASSERT_FALSE(run.timeline.busy.empty());
  for (const auto& [block, windows] : run.timeline.busy) {
    double sum = 0;
    for (double w : windows) {
      EXPECT_LE(w, 500.0 + 1e-6) << block;  // a block is busy at most every cycle of a window
      sum += w;
    }
    EXPECT_NEAR(sum, double(run.result.activity.at(block).busy_cycles), 1e-6) << block;
    EXPECT_LE(windows.size(), (run.result.cycles + 499) / 500) << block;
  }
  // A weight-stationary array is enabled while it streams and while it loads its
  // stationary operand: more cycles than busy, never more than the window.
  for (const char* array : {"array_a", "array_b"}) {
    const std::vector<double>& busy = run.timeline.busy.at(array);
    const std::vector<double>& enabled = run.timeline.enabled.at(array);
    double busy_sum = 0, enabled_sum = 0;
    for (size_t w = 0; w < enabled.size(); ++w) {
      EXPECT_LE(enabled[w], 500.0 + 1e-6) << array;
      busy_sum += w < busy.size() ? busy[w] : 0.0, enabled_sum += enabled[w];
    }
    EXPECT_GT(enabled_sum, busy_sum) << array;
  }
}

// The cycle model's own spans of every PE array give the fast model's windows: the power
// timeline of data-dependent designs is the same quantity, taken from the run itself. The
// side enables too: a dot array's loads, the DMA's commands, the rescaling array's sc.
void expect_same_timeline(const Graph& g, const Program& prog, bool dot_arrays) {
  const RunResult cycle = run_on_systemc(g, prog);
  const FastRun fast = run_fast(g, registers_at_start(prog), 500);
  ASSERT_EQ(fast.result.cycles, cycle.cycles);
  const ActivityTimeline spans = ActivityTimeline::from_spans(cycle, 500, (cycle.cycles + 499) / 500);
  using Windows = std::map<std::string, std::vector<double>> ActivityTimeline::*;
  std::vector<std::pair<std::string, Windows>> compared = {{"dma", &ActivityTimeline::side}};
  for (const char* array : {"array_a", "array_b"})
    for (const Windows which : {&ActivityTimeline::busy, &ActivityTimeline::enabled}) compared.push_back({array, which});
  compared.push_back({"array_b", &ActivityTimeline::side});  // loads, or the rescales
  if (dot_arrays) compared.push_back({"array_a", &ActivityTimeline::side});
  for (const auto& [block, which] : compared) {
    ASSERT_TRUE((spans.*which).count(block) && (fast.timeline.*which).count(block)) << block;
    const std::vector<double>& a = (spans.*which).at(block);
    const std::vector<double>& b = (fast.timeline.*which).at(block);
    double sum_a = 0, sum_b = 0, worst = 0;
    for (size_t w = 0; w < std::max(a.size(), b.size()); ++w) {
      const double x = w < a.size() ? a[w] : 0.0, y = w < b.size() ? b[w] : 0.0;
      sum_a += x, sum_b += y, worst = std::max(worst, std::abs(x - y));
    }
    EXPECT_GT(sum_a, 0.0) << block;
    EXPECT_NEAR(sum_a, sum_b, 1e-6) << block;
    EXPECT_LE(worst, 0.05 * 500) << block;  // phases the fast model spreads over their span
  }
}

TEST(FastModel, CycleModelSpansGiveTheSameTimeline) {
  AttentionProblem ap;
  ap.q_heads = 2;
  ap.tokens = 40;
  const Graph ws = graph_of(kCachedWs);
  expect_same_timeline(ws, compile_attention(ws, ap).program, true);
  const Graph os = graph_of(test::tiny_attention_core_spec());
  ASSERT_EQ(os.block("array_b").kind, "pe_array_rescale");
  expect_same_timeline(os, compile_attention(os, ap).program, false);
}

// Every operand byte an array counts is sampled in the cycle its registers hold it (one
// after its enabled cycle), so a trace's zero share can follow the run window by window;
// the samples survive the run record's round trip.
TEST(FastModel, OperandSamplesAreTheActivityCycleByCycle) {
  const Graph g = graph_of(kCachedWs);
  AttentionProblem ap;
  ap.q_heads = 2;
  ap.tokens = 40;
  const RunResult r = run_on_systemc(g, compile_attention(g, ap).program);
  const RunResult back = decode_run_result(encode_run_result(r));
  for (const char* array : {"array_a", "array_b"}) {
    const BlockTimeline& t = r.timelines.at(array);
    ASSERT_FALSE(t.operands.empty()) << array;
    uint64_t bytes = 0, zeros = 0, previous = 0;
    size_t span = 0;
    for (const OperandSample& o : t.operands) {
      EXPECT_GT(o.cycle, previous) << array;  // one sample per cycle, in order
      previous = o.cycle;
      while (span < t.enabled.size() && t.enabled[span].start + t.enabled[span].cycles < o.cycle) ++span;
      ASSERT_LT(span, t.enabled.size()) << array << " cycle " << o.cycle;
      EXPECT_GE(o.cycle, t.enabled[span].start + 1) << array;
      EXPECT_LE(o.zeros, o.bytes);
      bytes += o.bytes, zeros += o.zeros;
    }
    EXPECT_EQ(bytes, r.activity.at(array).operand_bytes) << array;
    EXPECT_EQ(zeros, r.activity.at(array).zero_bytes) << array;
    const BlockTimeline& decoded = back.timelines.at(array);
    ASSERT_EQ(decoded.operands.size(), t.operands.size());
    EXPECT_EQ(decoded.operands.back().cycle, t.operands.back().cycle);
    EXPECT_EQ(decoded.operands.back().zeros, t.operands.back().zeros);
  }
}

// Array b's accumulators (its power model's state register) are traced step by step: one
// sample per stream cycle that flips a bit, each after its step's enabled cycle, with at most
// every bit flipped or at 1; the controller's factor registers likewise; both survive the
// run record's round trip. Array a (not rescaling) has no trace.
TEST(FastModel, RescalingArraysAccumulatorsAndFactorsAreTraced) {
  const Graph g = graph_of(test::tiny_attention_core_spec());
  AttentionProblem ap;
  ap.q_heads = 2;
  ap.tokens = 40;
  const RunResult r = run_on_systemc(g, compile_attention(g, ap).program);
  const BlockTimeline& t = r.timelines.at("array_b");
  EXPECT_EQ(t.state.bits, g.array_b.spec.tile_m * g.array_b.spec.tile_n * 32);
  EXPECT_EQ(t.factor.bits, g.array_b.spec.tile_m * 32);
  EXPECT_EQ(r.timelines.at("array_a").state.bits, g.array_a.spec.tile_m * g.array_a.spec.tile_n * 32);
  EXPECT_FALSE(r.timelines.at("array_a").state.samples.empty());
  ASSERT_FALSE(t.state.samples.empty());
  ASSERT_FALSE(t.factor.samples.empty());
  for (const RegisterTrace* reg : {&t.state, &t.factor}) {
    uint64_t previous = 0;
    for (const StateSample& s : reg->samples) {
      EXPECT_GT(s.cycle, previous);
      previous = s.cycle;
      EXPECT_GT(s.toggles, 0u);
      EXPECT_LE(s.toggles, reg->bits);
      EXPECT_LE(s.ones, reg->bits);
    }
  }
  size_t span = 0;
  for (const StateSample& s : t.state.samples) {
    while (span < t.enabled.size() && t.enabled[span].start + t.enabled[span].cycles < s.cycle) ++span;
    ASSERT_LT(span, t.enabled.size()) << "cycle " << s.cycle;
    EXPECT_GE(s.cycle, t.enabled[span].start + 1);
  }
  const RunResult back = decode_run_result(encode_run_result(r));
  const BlockTimeline& d = back.timelines.at("array_b");
  ASSERT_EQ(d.state.samples.size(), t.state.samples.size());
  EXPECT_EQ(d.state.samples.back().ones, t.state.samples.back().ones);
  EXPECT_EQ(d.factor.samples.back().toggles, t.factor.samples.back().toggles);
  EXPECT_EQ(d.factor.bits, t.factor.bits);
}

// A register trace's sample counts the bits a write flips and the bits at 1 after it;
// writes in one cycle join its sample, a write that flips nothing adds none.
TEST(FastModel, RegisterTraceCountsFlipsAndOnes) {
  RegisterTrace reg;
  reg.bits = 64;
  const uint32_t zero[2] = {0, 0}, a[2] = {0xF, 0x1}, b[2] = {0xF, 0x3};
  reg.record(5, zero, a);
  reg.record(5, a, b);
  reg.record(6, b, b);
  reg.record(9, b, zero);
  ASSERT_EQ(reg.samples.size(), 2u);
  EXPECT_EQ(reg.samples[0].cycle, 5u);
  EXPECT_EQ(reg.samples[0].toggles, 6u);
  EXPECT_EQ(reg.samples[0].ones, 6u);
  EXPECT_EQ(reg.samples[1].toggles, 6u);
  EXPECT_EQ(reg.samples[1].ones, 0u);
}

// A systolic grid's PE (i, j) takes a step's sum i + j cycles after PE (0, 0): one step that
// sets every accumulator of a 2x3 grid is sampled over four cycles, the PEs of each
// anti-diagonal together, the bits at 1 summed as they arrive; a broadcast grid's in one.
TEST(FastModel, SystolicAccumulatorsSwitchAlongTheirDiagonals) {
  const int32_t zero[6] = {0, 0, 0, 0, 0, 0}, sums[6] = {1, 3, 7, 1, 3, 7};
  RegisterTrace systolic, broadcast;
  AccumulatorTrace s(2, 3, true, systolic), b(2, 3, false, broadcast);
  for (AccumulatorTrace* t : {&s, &b}) {
    t->before_step(zero);
    t->after_step(10, sums);
    t->end_tile();
  }
  EXPECT_EQ(systolic.bits, 192u);
  ASSERT_EQ(systolic.samples.size(), 4u);
  const uint32_t toggles[4] = {1, 2 + 1, 3 + 2, 3}, ones[4] = {1, 4, 9, 12};
  for (size_t c = 0; c < 4; ++c) {
    EXPECT_EQ(systolic.samples[c].cycle, 10 + c);
    EXPECT_EQ(systolic.samples[c].toggles, toggles[c]) << c;
    EXPECT_EQ(systolic.samples[c].ones, ones[c]) << c;
  }
  ASSERT_EQ(broadcast.samples.size(), 1u);
  EXPECT_EQ(broadcast.samples[0].cycle, 10u);
  EXPECT_EQ(broadcast.samples[0].toggles, 12u);
  EXPECT_EQ(broadcast.samples[0].ones, 12u);
}

// On a systolic core, the array's accumulators switch from its stream's second cycle (the
// first operands reach PE (0, 0) a cycle after the enable) to its drain's end: none before a
// tile's stream reaches the first PE, none after it leaves the last.
TEST(FastModel, SystolicArraysAccumulatorsSwitchWithinTheirStreams) {
  const Graph g = graph_of(test::replace(test::tiny_matmul_core_spec(), "a: {loop_order: output_stationary,",
                                         "a: {loop_order: output_stationary, movement: systolic,"));
  ASSERT_TRUE(g.array_a.spec.systolic);
  MatmulProblem mp;
  mp.m = 4, mp.n = 8, mp.k = 16;
  const RunResult r = run_on_systemc(g, compile_matmul(g, mp));
  const BlockTimeline& t = r.timelines.at("array_a");
  ASSERT_FALSE(t.state.samples.empty());
  size_t span = 0;
  for (const StateSample& s : t.state.samples) {
    while (span < t.enabled.size() && t.enabled[span].start + t.enabled[span].cycles < s.cycle) ++span;
    ASSERT_LT(span, t.enabled.size()) << "cycle " << s.cycle;
    EXPECT_GE(s.cycle, t.enabled[span].start + 1);
  }
}

// A damaged run record (the simulation process's answer, a co-simulation's result file)
// fails as truncated wherever it is cut, and a count larger than the record holds fails
// before anything is reserved for it.
TEST(FastModel, DamagedRunRecordIsAUserError) {
  RunResult r;
  r.model = "systemc";
  r.cycles = 9;
  r.probes.emplace_back("array_a", "x", 16, true);
  for (uint64_t c = 0; c < 4; ++c) {
    const uint16_t v = uint16_t(0x1111 * (c + 1));
    r.probes.back().update(c, &v);
  }
  r.timelines["array_a"].busy.push_back({0, 4});
  const std::string record = encode_run_result(r);
  EXPECT_EQ(decode_run_result(record).probes.at(0).events().size(), 4u);
  for (size_t cut : {size_t(3), record.size() / 2, record.size() - 1})
    EXPECT_NE(test::error_of([&] { decode_run_result(record.substr(0, cut)); }).find("record truncated"),
              std::string::npos) << "cut at " << cut;
  // The probe's event count: after the header, model, cycles, wall time, outputs, probe
  // count, block, port, width and toggles.
  const size_t events_at = (8 + 12) + (8 + 7) + 8 + 8 + 8 + 8 + (8 + 7) + (8 + 1) + 8 + 8;
  ASSERT_EQ(record.substr(events_at, 8), std::string("\x04\0\0\0\0\0\0\0", 8));
  std::string huge = record;
  const uint64_t count = uint64_t(1) << 60;
  huge.replace(events_at, 8, reinterpret_cast<const char*>(&count), 8);
  EXPECT_NE(test::error_of([&] { decode_run_result(huge); }).find("record truncated"), std::string::npos);
}

TEST(FastModel, ProgramWithoutStartIsAUserError) {
  Program p;
  p.kernel = "empty";
  EXPECT_NE(test::error_of([&] { registers_at_start(p); }).find("start bit"), std::string::npos);
}

}  // namespace
}  // namespace fsgen
