// The SystemC platform of a design: memory, DMA, fused core and CSR wired from the
// graph, and a host that runs a Program on it the way a driver would.
#pragma once
#include <cstddef>
#include <functional>
#include <string>

#include "compiler/program.h"
#include "generator/graph.h"
#include "models/accelerator.h"
#include "models/rtl_ports.h"
#include "models/run_result.h"

namespace fsgen {

struct SimOptions {
  bool keep_events = true;  // keep per-cycle toggle events (not only totals)
  // Mixed-level runs (sim/mixed_sim.h builds them): blocks of the fused core simulated as
  // their Verilated RTL, or the whole core (fsgen_top with the design's probes; rtl then empty).
  RtlBlockMakers rtl;
  RtlPortsMaker core;
};

// Runs the program on a freshly elaborated platform. The SystemC kernel cannot be
// elaborated twice in one process, so each run happens in a child process and
// returns its result through a pipe; the caller's process stays reusable.
RunResult run_on_systemc(const Graph& g, const Program& p, const SimOptions& opts = {});

// `work` (which elaborates a platform) in a child process, its answer returned through a
// pipe; what it throws is rethrown here as a UserError with its text.
std::string run_in_simulation_process(const std::function<std::string()>& work);

// The same run inside the calling process; a process can do this only once.
RunResult run_on_systemc_in_process(const Graph& g, const Program& p, const SimOptions& opts);

// A virtual prototype: host code run against a freshly elaborated platform, inside the
// SystemC kernel (an SC_THREAD of its own), through the Accelerator interface. Its register
// accesses are loosely timed: host time runs ahead of the simulation by up to a quantum and
// is synchronised at every start, status read and interrupt wait. The run ends when the host
// code returns (a kernel still running is cut off); what it throws is rethrown here.
struct HostOptions {
  uint64_t memory_bytes = uint64_t(64) << 20;  // the platform's DRAM
  uint64_t quantum_cycles = 1000;              // host time (and a Verilated core) ahead of the simulation, at most
  size_t stack_bytes = size_t(64) << 20;       // the host thread's stack
  SimOptions sim;
};
// cycles: the last kernel's; outputs: none (the host reads its own).
RunResult run_host_on_systemc_in_process(const Graph& g, const HostOptions& o,
                                         const std::function<void(Accelerator&)>& host);

}  // namespace fsgen
