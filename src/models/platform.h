// The SystemC platform of a design: memory, DMA, fused core and CSR wired from the
// graph, and a host that runs a Program on it the way a driver would.
#pragma once
#include "compiler/program.h"
#include "generator/graph.h"
#include "models/run_result.h"

namespace fsgen {

struct SimOptions {
  bool keep_events = true;  // keep per-cycle toggle events (not only totals)
};

// Runs the program on a freshly elaborated platform. The SystemC kernel cannot be
// elaborated twice in one process, so each run happens in a child process and
// returns its result through a pipe; the caller's process stays reusable.
RunResult run_on_systemc(const Graph& g, const Program& p, const SimOptions& opts = {});

// The same run inside the calling process; a process can do this only once.
RunResult run_on_systemc_in_process(const Graph& g, const Program& p, const SimOptions& opts);

}  // namespace fsgen
