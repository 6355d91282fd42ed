#include "blocks/registry.h"

#include <cstdlib>

#include "core/error.h"

namespace fsgen {

#define FSGEN_BLOCK_KIND(kind) const BlockKind& kind##_kind();
#include "blocks/kinds.h"
#undef FSGEN_BLOCK_KIND

const ParamDecl* BlockKind::param(const std::string& n) const {
  for (const auto& p : params)
    if (p.name == n) return &p;
  return nullptr;
}

const PortDecl* BlockKind::port(const std::string& n) const {
  for (const auto& p : ports)
    if (p.name == n) return &p;
  return nullptr;
}

const std::vector<const BlockKind*>& block_kinds() {
  static const std::vector<const BlockKind*> kinds = {
#define FSGEN_BLOCK_KIND(kind) &kind##_kind(),
#include "blocks/kinds.h"
#undef FSGEN_BLOCK_KIND
  };
  return kinds;
}

const BlockKind* find_block_kind(const std::string& name) {
  for (const BlockKind* k : block_kinds())
    if (k->name == name) return k;
  return nullptr;
}

const BlockKind& block_kind(const std::string& name) {
  const BlockKind* k = find_block_kind(name);
  FSGEN_ASSERT(k != nullptr, "a block kind registered in src/blocks/kinds.h");
  return *k;
}

const TestbenchDriver& testbench_driver(const std::string& name) {
  for (const BlockKind* k : block_kinds())
    if (k->testbench && k->testbench->name == name) return *k->testbench;
  FSGEN_ASSERT(false, "a testbench driver of a registered block kind");
  std::abort();
}

const std::vector<PrimitiveDef>& registered_primitives() {
  static const std::vector<PrimitiveDef> primitives = [] {
    std::vector<PrimitiveDef> p;
    for (const BlockKind* k : block_kinds())
      if (k->power) p.push_back(*k->power);
    return p;
  }();
  return primitives;
}

}  // namespace fsgen
