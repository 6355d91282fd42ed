// Human-readable reports of one kernel's run on the SystemC platform: cycles, utilisation,
// block activity, what the sparse networks and the DMA skipped, the fast model beside it.
#pragma once
#include <cstdint>
#include <map>
#include <ostream>
#include <string>
#include <vector>

#include "compiler/program.h"
#include "generator/graph.h"
#include "models/fast_model.h"
#include "models/run_result.h"

namespace fsgen {

// What the value networks of each sparse array and the DMA skipped in a run of `cycles`.
void print_sparsity(const Graph& g, const std::map<std::string, SparseActivity>& sparse, uint64_t cycles,
                    std::ostream& out);

// The kernel's run on the cycle model against its expected output; macs > 0 (matmuls)
// adds the PE utilisation and the roofline, least_bytes > 0 the DMA's traffic against the
// least (compiler/traffic.h). Runs the fast model beside it (a design whose timing depends
// on the data: from `zeros`, the operands' zero shares). Returns whether the output matched
// the reference bit for bit.
bool print_kernel_run(const Graph& g, const Program& prog, const RunResult& r, const std::vector<uint8_t>& expected,
                      double macs, uint64_t least_bytes, const OperandZeros& zeros, std::ostream& out);

}  // namespace fsgen
