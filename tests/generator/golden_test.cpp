// The generated Verilog, probes and graph of three small example designs against golden
// files (tests/generator/golden/<design>/): a change of the emitted text shows here first.
// After an intended change, regenerate them with FSGEN_UPDATE_GOLDEN=1 and review the diff.
#include <gtest/gtest.h>

#include <cstdlib>
#include <fstream>
#include <sstream>

#include "generator/spec.h"
#include "generator/verilog_emitter.h"

namespace fsgen {
namespace {

std::string golden_path(const std::string& design, const std::string& file) {
  return std::string(FSGEN_SOURCE_DIR) + "/tests/generator/golden/" + design + "/" + file;
}

std::string read(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

TEST(GoldenVerilog, ExampleDesignsEmitTheirGoldenFiles) {
  const bool update = std::getenv("FSGEN_UPDATE_GOLDEN") != nullptr;
  for (const char* design : {"os_8x8", "sparse_systolic_8x8", "is_16x8"}) {
    const Graph g = elaborate(parse_spec_file(std::string(FSGEN_SOURCE_DIR) + "/examples/" + design + ".yaml"));
    const std::map<std::string, std::string> files = emit_design(g);
    for (const char* name : {"fsgen_top.v", "probes.h", "graph.json"}) {
      ASSERT_TRUE(files.count(name)) << design << ": " << name;
      const std::string path = golden_path(design, name);
      if (update) std::ofstream(path, std::ios::binary) << files.at(name);
      EXPECT_EQ(files.at(name), read(path)) << design << "/" << name << " differs from " << path;
    }
  }
}

}  // namespace
}  // namespace fsgen
