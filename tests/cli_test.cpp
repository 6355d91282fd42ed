// The fsgen binary: one-line errors with a non-zero exit, --help on every subcommand.
#include <array>
#include <cstdio>
#include <algorithm>
#include <filesystem>
#include <fstream>

#include "test_util.h"

namespace fsgen {
namespace {

using test::CliRun;
using test::fsgen_cli;

TEST(Cli, HelpOnEverySubcommand) {
  for (const char* sub : {"", "check", "generate", "compile", "simulate", "cosim", "bench", "numerics", "model"}) {
    const CliRun r = fsgen_cli(std::string(sub) + " --help");
    EXPECT_EQ(r.status, 0) << sub;
    EXPECT_NE(r.out.find("Usage"), std::string::npos) << sub;
  }
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

TEST(Cli, MissingFileAndImpossibleProblem) {
  const CliRun missing = fsgen_cli("generate /nonexistent/spec.yaml");
  EXPECT_EQ(missing.status, 1);
  EXPECT_NE(missing.out.find("/nonexistent/spec.yaml: cannot open design spec file"), std::string::npos) << missing.out;
  const CliRun bad = fsgen_cli("simulate examples/os_8x8.yaml --m 12");
  EXPECT_EQ(bad.status, 1);
  EXPECT_NE(bad.out.find("matmul m: dimension 12 is not a positive multiple of the tile 8"), std::string::npos) << bad.out;
}

TEST(Cli, GenerateLeavesNoFilesOnError) {
  const std::string dir = test::scratch_dir("cli_gen");
  std::ofstream(dir + "/bad.yaml") << test::base_spec() + "extra: 1\n";
  const CliRun r = fsgen_cli("generate " + dir + "/bad.yaml -o " + dir + "/out");
  EXPECT_EQ(r.status, 1);
  EXPECT_FALSE(std::filesystem::exists(dir + "/out"));
}

TEST(Cli, SimulateReportsTheModelAndAMatch) {
  const CliRun r = fsgen_cli("simulate examples/os_8x8.yaml --m 16 --n 16 --k 16");
  EXPECT_EQ(r.status, 0) << r.out;
  EXPECT_NE(r.out.find("model: fsgen SystemC/TLM-2.0 platform"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("output vs reference: bit-exact"), std::string::npos) << r.out;
}

}  // namespace
}  // namespace fsgen
