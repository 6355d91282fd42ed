// The registry of block kinds: every kind of src/blocks/<kind>/, registered by one line in
// blocks/kinds.h. The graph, the emitter, the power flow and the reports look kinds up here.
#pragma once
#include <string>
#include <vector>

#include "blocks/block_kind.h"

namespace fsgen {

// Every registered kind, in registration order (the power catalog's order).
const std::vector<const BlockKind*>& block_kinds();
// The kind of that name; nullptr when none is registered.
const BlockKind* find_block_kind(const std::string& name);
// The kind of that name; an internal error (a bug) when none is registered.
const BlockKind& block_kind(const std::string& name);
// The testbench driver of that name (PrimitiveDef::driver); an internal error when no
// registered kind has it.
const TestbenchDriver& testbench_driver(const std::string& name);
// The power primitives of the registered kinds that have one, in registration order.
const std::vector<PrimitiveDef>& registered_primitives();

}  // namespace fsgen
