// The fsgen binary: one-line errors with a non-zero exit, --help on every subcommand.
#include <algorithm>
#include <array>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>

#include "flow/tools.h"
#include "test_util.h"

namespace fsgen {
namespace {

using test::CliRun;
using test::fsgen_cli;

TEST(Cli, HelpOnEverySubcommand) {
  for (const char* sub : {"", "check", "generate", "compile", "simulate", "cosim", "bench", "numerics", "model", "infer",
                          "characterize", "train", "power", "power-validate", "sparsity-study"}) {
    const CliRun r = fsgen_cli(std::string(sub) + " --help");
    EXPECT_EQ(r.status, 0) << sub;
    EXPECT_NE(r.out.find("Usage"), std::string::npos) << sub;
  }
}

// A sparse plan whose hardware is not built yet: check prints the networks, then the reason.
TEST(Cli, CheckShowsAnUnbuiltSparsePlan) {
  const std::string dir = test::scratch_dir("cli_sparse");
  std::ifstream in("examples/sparse_attn_8x8.yaml");
  std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  text += "  - {kind: compute_group, tensor: k, condition: topk, block: 4, topk: 1}\n";
  std::ofstream(dir + "/topk.yaml") << text;
  const CliRun r = fsgen_cli("check " + dir + "/topk.yaml");
  EXPECT_EQ(r.status, 1);
  EXPECT_NE(r.out.find("x network 1b: c=1 g=1 m=1 i=4 o=1 s=1, 8 lanes"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("group network (block TopK, before the value networks): 2 blocks of 4 keys"), std::string::npos)
      << r.out;
  EXPECT_NE(r.out.find("block TopK with blocks of 4 keys (built: one key tile, block = 8) is elaborated but not yet built"),
            std::string::npos)
      << r.out;
  const CliRun ok = fsgen_cli("check examples/sparse_os_8x8.yaml");
  EXPECT_EQ(ok.status, 0);
  const CliRun llm = fsgen_cli("check examples/llm_16x16.yaml");
  EXPECT_NE(llm.out.find("array b in matmul: idle; array b joins matmuls only when both arrays are output-stationary"),
            std::string::npos)
      << llm.out;
  EXPECT_NE(llm.out.find("8 bursts in flight"), std::string::npos) << llm.out;
  EXPECT_NE(llm.out.find("matmul epilogue: the activation and gate product on stored rows"), std::string::npos)
      << llm.out;
  EXPECT_NE(llm.out.find("matmul operand buffers: 32 A tiles, 3 B tiles (a tile held is not loaded again; the loader "
                         "fills the free slots during the passes, up to 4 tiles ahead; buf_a 65536 B, buf_b 20480 B)"),
            std::string::npos)
      << llm.out;
  EXPECT_NE(ok.out.find("design 8G_1b2c"), std::string::npos) << ok.out;
}

TEST(Cli, BadSpecIsOneLineAndNonZero) {
  const std::string dir = test::scratch_dir("cli");
  std::ofstream(dir + "/bad.yaml") << test::replace(test::base_spec(), "pe_budget: 256", "pe_budget: 10");
  const CliRun r = fsgen_cli("check " + dir + "/bad.yaml");
  EXPECT_EQ(r.status, 1);
  EXPECT_EQ(std::count(r.out.begin(), r.out.end(), '\n'), 1) << r.out;
  EXPECT_NE(r.out.find("fsgen: error: " + dir + "/bad.yaml:3:1: field 'pe_budget'"), std::string::npos) << r.out;
}

TEST(Cli, ModelPrintsTheLayerStructure) {
  const CliRun r = fsgen_cli("model Mistral-7B-v0.1");
  EXPECT_EQ(r.status, 0) << r.out;
  EXPECT_NE(r.out.find("model Mistral-7B-v0.1 (mistral, decoder), 7.242B parameters"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("heads 32 query / 8 KV (GQA)"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("sliding window 4096"), std::string::npos) << r.out;
  const CliRun bad = fsgen_cli("model GPT-9");
  EXPECT_EQ(bad.status, 1);
  EXPECT_EQ(std::count(bad.out.begin(), bad.out.end(), '\n'), 1) << bad.out;
}

// A Mixture-of-Experts model: its experts printed, its routing given or refused in one line.
TEST(Cli, ExpertModelsAndTheirRouting) {
  const CliRun m = fsgen_cli("model Qwen3-30B-A3B");
  EXPECT_EQ(m.status, 0) << m.out;
  EXPECT_NE(m.out.find("128 experts of FFN 768, top-8 (weights renormalised)"), std::string::npos) << m.out;
  const CliRun run =
      fsgen_cli("simulate examples/llm_16x16.yaml --model Mixtral-8x7B-v0.1 --stage decode --context 64 --layers 1");
  EXPECT_EQ(run.status, 0) << run.out;
  EXPECT_NE(run.out.find("experts: 1 tokens x top-2 of 8 experts (uniform routing): 2 experts active"),
            std::string::npos)
      << run.out;
  for (const std::string& bad : {std::string("zipf:-1"), std::string("/nonexistent/counts.txt")}) {
    const CliRun r = fsgen_cli("simulate examples/llm_16x16.yaml --model Mixtral-8x7B-v0.1 --routing " + bad);
    EXPECT_EQ(r.status, 1) << r.out;
    EXPECT_EQ(std::count(r.out.begin(), r.out.end(), '\n'), 1) << r.out;
    EXPECT_NE(r.out.find("fsgen: error: --routing: expected"), std::string::npos) << r.out;
  }
}

TEST(Cli, MissingFileAndImpossibleProblem) {
  const CliRun missing = fsgen_cli("generate /nonexistent/spec.yaml");
  EXPECT_EQ(missing.status, 1);
  EXPECT_NE(missing.out.find("/nonexistent/spec.yaml: cannot open design spec file"), std::string::npos) << missing.out;
  const CliRun bad = fsgen_cli("simulate examples/os_8x8.yaml --k 12");
  EXPECT_EQ(bad.status, 1);
  EXPECT_NE(bad.out.find("matmul k: dimension 12 is not a positive multiple of the tile 8"), std::string::npos) << bad.out;
}

TEST(Cli, PowerErrorsAreOneLine) {
  const std::string dir = test::scratch_dir("cli_power");
  const CliRun record = fsgen_cli("power examples/os_8x8.yaml --record " + dir + "/r.csv");
  EXPECT_EQ(record.status, 1);
  EXPECT_NE(record.out.find("--record: records need the golden power: add --golden"), std::string::npos) << record.out;
  const CliRun golden_csv = fsgen_cli("power examples/os_8x8.yaml --golden-csv " + dir + "/g.csv");
  EXPECT_EQ(golden_csv.status, 1);
  EXPECT_NE(golden_csv.out.find("--golden-csv: the golden trace needs the golden power: add --golden"), std::string::npos);
  const CliRun signals = fsgen_cli("power examples/os_8x8.yaml --golden-signals " + dir + "/s.csv");
  EXPECT_EQ(signals.status, 1);
  EXPECT_NE(signals.out.find("--golden-signals: the energy by signal needs the golden power: add --golden"), std::string::npos)
      << signals.out;
  const CliRun modelled = fsgen_cli("power examples/os_8x8.yaml --modelled-only");
  EXPECT_EQ(modelled.status, 1);
  EXPECT_NE(modelled.out.find("--modelled-only: replaying the modelled blocks alone needs --golden"), std::string::npos)
      << modelled.out;
  const CliRun model = fsgen_cli("train data/power/fsgen45.csv -o " + dir + "/m.json");
  ASSERT_EQ(model.status, 0) << model.out;
  const size_t ctrl_line = model.out.find("\n  ctrl              ");
  ASSERT_NE(ctrl_line, std::string::npos) << model.out;
  EXPECT_EQ(model.out.find(" sizes, structural (clock energy", ctrl_line), model.out.find(" sizes", ctrl_line))
      << model.out;
  EXPECT_NE(model.out.find("csr               1 size, structural"), std::string::npos) << model.out;
  EXPECT_NE(model.out.find(" kernel windows, energy per event (7 events); each training core left out in turn: run energy "
                           "MAPE "),
            std::string::npos)
      << model.out;
  // The timing model beside it: its fit printed; a timing dataset of another liberty refused.
  const CliRun timed = fsgen_cli("train data/power/fsgen45.csv --timing data/timing/fsgen45.csv -o " + dir + "/mt.json");
  ASSERT_EQ(timed.status, 0) << timed.out;
  EXPECT_NE(timed.out.find("timing model (worst path delay = a + b . terms"), std::string::npos) << timed.out;
  EXPECT_NE(timed.out.find("fused_ctrl        7 sizes: "), std::string::npos) << timed.out;
  std::ofstream(dir + "/sky.csv") << test::replace(test::read_file("data/timing/fsgen45.csv"), "# liberty: fsgen45 (built in)",
                                                   "# liberty: sky130hd_tt (x.lib.gz)");
  const CliRun other = fsgen_cli("train data/power/fsgen45.csv --timing " + dir + "/sky.csv -o " + dir + "/mx.json");
  EXPECT_EQ(other.status, 1);
  EXPECT_NE(other.out.find("sky.csv: liberty 'sky130hd_tt (x.lib.gz)', expected the power dataset's 'fsgen45 (built in)'"),
            std::string::npos)
      << other.out;
  EXPECT_FALSE(std::filesystem::exists(dir + "/mx.json"));
  const CliRun synth = fsgen_cli("explore --report " + dir + "/none.sqlite --synth");
  EXPECT_EQ(synth.status, 1);
  EXPECT_NE(synth.out.find("--synth: expected --verify N and --power-model"), std::string::npos) << synth.out;
  const CliRun golden = fsgen_cli("explore --report " + dir + "/none.sqlite --verify 2 --golden");
  EXPECT_EQ(golden.status, 1);
  EXPECT_NE(golden.out.find("--golden: expected --verify N and --power-model"), std::string::npos) << golden.out;
  const CliRun lib = fsgen_cli("power examples/os_8x8.yaml --power-model " + dir + "/m.json --liberty " + dir + "/none.lib");
  EXPECT_EQ(lib.status, 1);
  EXPECT_EQ(std::count(lib.out.begin(), lib.out.end(), '\n'), 1) << lib.out;
  // A controller reading macro buffers has nothing to replay them with: refused before any output.
  const CliRun macros = fsgen_cli("power examples/os_8x8.yaml --power-model " + dir +
                                  "/m.json --golden --macro-threshold 64 -o " + dir + "/out --csv " + dir + "/t.csv");
  EXPECT_EQ(macros.status, 1);
  EXPECT_EQ(std::count(macros.out.begin(), macros.out.end(), '\n'), 1) << macros.out;
  EXPECT_NE(macros.out.find("--golden: design os_8x8's operand buffers are SRAM macros"), std::string::npos)
      << macros.out;
  EXPECT_FALSE(std::filesystem::exists(dir + "/t.csv"));
  const CliRun records = fsgen_cli("power-validate " + dir + "/missing.csv --dataset data/power/fsgen45.csv");
  EXPECT_EQ(records.status, 1);
  EXPECT_NE(records.out.find("missing.csv: cannot open validation records"), std::string::npos) << records.out;
}

TEST(Cli, GenerateLeavesNoFilesOnError) {
  const std::string dir = test::scratch_dir("cli_gen");
  std::ofstream(dir + "/bad.yaml") << test::base_spec() + "extra: 1\n";
  const CliRun r = fsgen_cli("generate " + dir + "/bad.yaml -o " + dir + "/out");
  EXPECT_EQ(r.status, 1);
  EXPECT_FALSE(std::filesystem::exists(dir + "/out"));
}

// Each block mapped and timed on its own: a line per block with its path and max clock, the
// design's clock set by the slowest.
TEST(Cli, GenerateSynthTimesEachBlock) {
  if (!test::have_tool("yosys") || !test::have_tool("sta")) GTEST_SKIP() << "yosys or sta not installed";
  const std::string dir = test::scratch_dir("cli_synth");
  std::ofstream(dir + "/tiny.yaml") << test::tiny_matmul_core_spec();
  const CliRun r = fsgen_cli("generate " + dir + "/tiny.yaml -o " + dir + "/out --synth --jobs 2");
  ASSERT_EQ(r.status, 0) << r.out;
  for (const char* block : {"\n  csr ", "\n  ctrl ", "\n  dma ", "\n  array_a "})
    EXPECT_NE(r.out.find(block), std::string::npos) << block << " in\n" << r.out;
  EXPECT_NE(r.out.find("fsgen_array_os"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find(" MHz: "), std::string::npos) << r.out;  // a block's path follows its clock
  EXPECT_NE(r.out.find(" -> "), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("inside ctrl's module (timed with it): requant"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("timing: max clock "), std::string::npos) << r.out;
  EXPECT_NE(r.out.find(", set by "), std::string::npos) << r.out;
  EXPECT_TRUE(std::filesystem::exists(dir + "/out/tiny/synth/ctrl/fsgen_ctrl_fsgen45.v"));
  // Some blocks only (their syntheses are the ones above, reused).
  const CliRun some = fsgen_cli("generate " + dir + "/tiny.yaml -o " + dir + "/out --synth --blocks array_a,dma");
  ASSERT_EQ(some.status, 0) << some.out;
  EXPECT_EQ(some.out.find("\n  ctrl "), std::string::npos) << some.out;
  EXPECT_NE(some.out.find("\n  dma "), std::string::npos) << some.out;
  EXPECT_NE(some.out.find("timing: max clock of these blocks "), std::string::npos) << some.out;
  // A block the design has not, or one inside the controller: one line, before any file.
  const CliRun none = fsgen_cli("generate " + dir + "/tiny.yaml -o " + dir + "/none --synth --blocks nope");
  EXPECT_EQ(none.status, 1);
  EXPECT_NE(
      none.out.find(
          "--blocks: design tiny has no block 'nope' (its blocks: csr, ctrl, dma, array_a, requant, buf_a, buf_b)"),
      std::string::npos)
      << none.out;
  EXPECT_FALSE(std::filesystem::exists(dir + "/none"));
  const CliRun inside = fsgen_cli("generate " + dir + "/tiny.yaml -o " + dir + "/none --synth --blocks requant");
  EXPECT_NE(inside.out.find("block 'requant' is part of the controller's module: name ctrl"), std::string::npos)
      << inside.out;
  // Operand buffers at the threshold: SRAM macros, black boxes in the controller OpenSTA times.
  const CliRun macros =
      fsgen_cli("generate " + dir + "/tiny.yaml -o " + dir + "/macros --synth --blocks ctrl --macro-threshold 16");
  ASSERT_EQ(macros.status, 0) << macros.out;
  EXPECT_NE(macros.out.find("\n  ctrl "), std::string::npos) << macros.out;
  EXPECT_NE(test::read_file(dir + "/macros/tiny/synth/ctrl/fsgen_ctrl_fsgen45.ys").find("blackbox fsgen_ctrl_buffer"),
            std::string::npos);
}

TEST(Cli, SimulateReportsTheModelAndAMatch) {
  const CliRun r = fsgen_cli("simulate examples/os_8x8.yaml --m 16 --n 16 --k 16");
  EXPECT_EQ(r.status, 0) << r.out;
  EXPECT_NE(r.out.find("model: fsgen SystemC/TLM-2.0 platform"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("output vs reference: bit-exact"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("fast model"), std::string::npos) << r.out;
}

// Without --m/--n/--k a matmul is 32 rounded up to the design's tiles (llm_16x16's k tile is
// 128); a size of 0 is refused, not taken for the default.
TEST(Cli, MatmulSizesDefaultToTheDesignsTiles) {
  const CliRun r = fsgen_cli("simulate examples/llm_16x16.yaml");
  EXPECT_EQ(r.status, 0) << r.out;
  EXPECT_NE(r.out.find("matmul m=32 n=32 k=128"), std::string::npos) << r.out;
  const CliRun zero = fsgen_cli("simulate examples/os_8x8.yaml --k 0");
  EXPECT_NE(zero.status, 0);
  EXPECT_NE(zero.out.find("--k: expected a positive size"), std::string::npos) << zero.out;
}

TEST(Cli, SimulateAModel) {
  const std::string dir = test::scratch_dir("cli_model");
  const CliRun r = fsgen_cli("simulate examples/llm_16x16.yaml --model SmolLM2-135M --stage decode --context 64 --tokens 2 "
                             "--layers 3 --json --activity-out " + dir + "/act.csv");
  ASSERT_EQ(r.status, 0) << r.out;
  const nlohmann::json j = nlohmann::json::parse(r.out);
  EXPECT_EQ(j["timing_model"], "fsgen fast model");
  EXPECT_EQ(j["layers"], 3);
  EXPECT_EQ(j["tokens"], 2);
  EXPECT_GT(j["cycles"].get<uint64_t>(), 0u);
  EXPECT_EQ(j["launches"], 2 * 3 * j["kernels"].size());
  std::ifstream csv(dir + "/act.csv");
  std::string header;
  std::getline(csv, header);
  EXPECT_EQ(header.rfind("cycle,", 0), 0u) << header;
  for (const auto& e : std::filesystem::directory_iterator(dir))  // no temporary left beside it
    EXPECT_EQ(e.path().filename().string().find(".tmp"), std::string::npos) << e.path();

  const CliRun text = fsgen_cli("simulate examples/llm_16x16.yaml --model Qwen3-0.6B --stage prefill --context 64 --layers 1");
  EXPECT_EQ(text.status, 0) << text.out;
  for (const char* what : {"tokens per second", "per kernel:", "q_k_v_proj", "host work", "q/k norms", "off-chip traffic",
                           "x the least", "roofline", "x roofline"})
    EXPECT_NE(text.out.find(what), std::string::npos) << what << "\n" << text.out;

  const CliRun bad = fsgen_cli("simulate examples/llm_16x16.yaml --model Qwen3-0.6B --layers two");
  EXPECT_EQ(bad.status, 1);
  EXPECT_NE(bad.out.find("--layers: expected a positive count or 'all', got 'two'"), std::string::npos) << bad.out;
  const CliRun enc = fsgen_cli("simulate examples/llm_16x16.yaml --model bert-large-uncased --stage decode");
  EXPECT_EQ(enc.status, 1);
  EXPECT_EQ(std::count(enc.out.begin(), enc.out.end(), '\n'), 1) << enc.out;
}

}  // namespace
}  // namespace fsgen

namespace fsgen {
namespace {

// The log options: before or after the subcommand, a log file with every message, quiet
// runs without progress, and a log file that cannot be opened is a one-line error.
TEST(Cli, LogOptions) {
  const std::string dir = test::scratch_dir("cli_log");
  const CliRun normal = test::fsgen_cli("check examples/os_8x8.yaml --log-file " + dir + "/run.log");
  EXPECT_EQ(normal.status, 0) << normal.out;
  EXPECT_TRUE(std::filesystem::exists(dir + "/run.log"));
  const CliRun quiet = test::fsgen_cli("-q check examples/os_8x8.yaml");
  EXPECT_EQ(quiet.status, 0) << quiet.out;
  EXPECT_EQ(quiet.out, normal.out);
  const CliRun both = test::fsgen_cli("-q -v check examples/os_8x8.yaml");
  EXPECT_NE(both.status, 0);
  // Below a file, not a folder.
  const CliRun bad = test::fsgen_cli("--log-file " + dir + "/run.log/inner.log check examples/os_8x8.yaml");
  EXPECT_EQ(bad.status, 1);
  EXPECT_NE(bad.out.find("fsgen: error: " + dir + "/run.log/inner.log: cannot open the log file"), std::string::npos)
      << bad.out;
  EXPECT_EQ(std::count(bad.out.begin(), bad.out.end(), '\n'), 1) << bad.out;
}

}  // namespace
}  // namespace fsgen

namespace fsgen {
namespace {

// Runs of generate and cosim on one design and one output folder at once all succeed: each
// takes the design's lock, and generate swaps the finished folder in whole.
TEST(Cli, ConcurrentGenerateAndCosimOnOneDesignAllSucceed) {
  if (!test::have_tool("verilator")) GTEST_SKIP() << "verilator not installed";
  const std::string dir = test::scratch_dir("cli_concurrent");
  const std::string fsgen = FSGEN_BINARY, spec = " examples/ws_8x16.yaml -o " + dir;
  std::string script;
  for (int i = 0; i < 3; ++i)
    script += fsgen + " generate" + spec + " > " + dir + "/g" + std::to_string(i) + ".log 2>&1 & ";
  for (int i = 0; i < 2; ++i)
    script += fsgen + " cosim" + spec + " --m 16 --n 16 --k 16 > " + dir + "/c" + std::to_string(i) + ".log 2>&1 & ";
  script += "fail=0; for j in $(jobs -p); do wait $j || fail=1; done; exit $fail";
  const int status = std::system(("bash -c " + shell_quote(script)).c_str());
  std::string logs;
  for (const char* f : {"g0", "g1", "g2", "c0", "c1"})
    logs += std::string(f) + ": " + test::read_file(dir + "/" + f + ".log");
  EXPECT_EQ(status, 0) << logs;
}

}  // namespace
}  // namespace fsgen
