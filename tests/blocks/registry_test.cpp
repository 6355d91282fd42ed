// The block registry (src/blocks): every kind declared once and consistently, every block
// of every example design of a registered kind with its declared parameters and ports, and
// the power catalog read from the kinds.
#include "blocks/registry.h"

#include <gtest/gtest.h>

#include <filesystem>
#include <set>

#include "generator/graph.h"
#include "generator/rtl_library.h"
#include "generator/spec.h"
#include "power/characterize.h"

namespace fsgen {
namespace {

TEST(BlockRegistry, KindsAreDeclaredOnceWithTheirFilesAndModules) {
  std::set<std::string> names;
  for (const BlockKind* k : block_kinds()) {
    EXPECT_TRUE(names.insert(k->name).second) << k->name << " registered twice";
    EXPECT_FALSE(k->description.empty()) << k->name;
    EXPECT_EQ(&block_kind(k->name), k);
    // Its Verilog is in its folder and embedded into the binary.
    for (const std::string& file : k->rtl_files) {
      EXPECT_TRUE(std::filesystem::exists(std::string(FSGEN_SOURCE_DIR) + "/src/blocks/" + k->name + "/" + file))
          << k->name << ": " << file << " not in its folder";
      EXPECT_TRUE(rtl_library().count(file)) << file;
    }
    // A module of its own is defined by one of the kind's files, or of the kind it shares it with.
    EXPECT_NE(k->module.empty(), k->host_module.empty()) << k->name << ": a module of its own or a host's";
    if (k->power) {
      EXPECT_EQ(k->power->kind, k->name);
      EXPECT_EQ(k->power->module, k->module);
    }
    for (const ParamDecl& p : k->params) EXPECT_FALSE(p.desc.empty()) << k->name << "." << p.name;
    for (const StatDecl& s : k->statistics) EXPECT_FALSE(s.unit.empty()) << k->name << "." << s.name;
  }
  EXPECT_EQ(find_block_kind("no_such_kind"), nullptr);
}

// A primitive with a driver of its own finds it among the kinds (the power flow's testbench
// asks the registry), and a kind's driver is its own primitive's.
TEST(BlockRegistry, TestbenchDriversBelongToTheirPrimitives) {
  for (const BlockKind* k : block_kinds()) {
    if (k->testbench) {
      ASSERT_TRUE(k->power.has_value()) << k->name;
      EXPECT_EQ(k->testbench->name, k->power->driver) << k->name;
      EXPECT_TRUE(k->testbench->declarations && k->testbench->cycle) << k->name;
    }
    if (k->power && !k->power->driver.empty() && !k->power->structural()) {
      EXPECT_EQ(&testbench_driver(k->power->driver), &*k->testbench) << k->name;
    }
  }
  // The DMA's driver issues commands and answers them as an AXI slave.
  const TestbenchPorts dma = {{"m_rdata", 64}, {"wr_data", 64}};
  const std::string cycle = testbench_driver("axi_dma").cycle(dma);
  EXPECT_NE(cycle.find("top->rcmd_valid = 1;"), std::string::npos);
  EXPECT_NE(cycle.find("top->wcmd_valid = 1;"), std::string::npos);
  EXPECT_NE(cycle.find("top->m_rvalid = !read_beats.empty() && read_beats.front() <= c;"), std::string::npos);
  EXPECT_NE(cycle.find("addr += beats * 8u;"), std::string::npos);  // 64-bit beats
}

TEST(BlockRegistry, EveryModuleIsInTheLibrary) {
  std::string library;
  for (const auto& [name, text] : rtl_library()) library += text;
  for (const BlockKind* k : block_kinds()) {
    if (k->module.empty() || k->module == "fsgen_csr")
      continue;  // the register file is generated from the register map
    EXPECT_NE(library.find("module " + k->module), std::string::npos) << k->name;
  }
}

TEST(BlockRegistry, ExampleDesignsAreMadeOfRegisteredKinds) {
  for (const auto& entry : std::filesystem::directory_iterator(std::string(FSGEN_SOURCE_DIR) + "/examples")) {
    if (entry.path().extension() != ".yaml") continue;  // examples/host: host programs
    const Graph g = elaborate(parse_spec_file(entry.path().string()));
    for (const Block& b : g.blocks) {
      const BlockKind* kind = find_block_kind(b.kind);
      ASSERT_NE(kind, nullptr) << entry.path() << ": " << b.kind;
      ASSERT_EQ(b.params.size(), kind->params.size()) << b.name;
      for (const Param& p : b.params) {
        const ParamDecl* decl = kind->param(p.name);
        ASSERT_NE(decl, nullptr) << b.name << "." << p.name;
        EXPECT_EQ(p.unit, decl->unit);
        EXPECT_EQ(p.desc, decl->desc);
      }
      for (const Port& port : b.ports) EXPECT_NE(kind->port(port.name), nullptr) << b.name << "." << port.name;
    }
  }
}

TEST(BlockRegistry, ThePowerCatalogIsTheKindsPrimitivesInOrder) {
  std::vector<std::string> from_kinds;
  for (const BlockKind* k : block_kinds())
    if (k->power) from_kinds.push_back(k->name);
  std::vector<std::string> catalog;
  for (const PrimitiveDef& d : primitive_catalog()) catalog.push_back(d.kind);
  EXPECT_EQ(catalog, from_kinds);
  EXPECT_EQ(catalog, (std::vector<std::string>{"pe_array_os", "pe_array_rescale", "pe_array_dot", "sparse_net",
                                               "acc_cache", "dma", "softmax", "ctrl", "fused_ctrl", "csr"}));
  // Priced with the controller: the requantiser, the normaliser, and (below the macro
  // threshold) the operand buffers and the tile caches among their slots; not the skew registers.
  EXPECT_TRUE(block_kind("requant").priced_with_controller());
  EXPECT_TRUE(block_kind("normalise").priced_with_controller());
  EXPECT_TRUE(block_kind("op_buffer").priced_with_controller());
  EXPECT_TRUE(block_kind("tile_cache").priced_with_controller());
  EXPECT_FALSE(block_kind("skew").priced_with_controller());
  EXPECT_EQ(block_kind("fused_ctrl").power_note, " (with the requantiser and the normaliser)");
}

}  // namespace
}  // namespace fsgen
