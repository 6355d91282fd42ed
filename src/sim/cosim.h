// The cross-check: one program on the SystemC platform and on the Verilated RTL of
// the same design, compared with each other and with the C++ reference.
#pragma once
#include <ostream>
#include <string>
#include <vector>

#include "compiler/attention.h"
#include "compiler/ffn.h"
#include "compiler/matmul.h"
#include "compiler/program.h"
#include "generator/graph.h"
#include "models/run_result.h"

namespace fsgen {

struct CosimCheck {
  std::string what;
  std::string systemc;
  std::string verilator;
  bool pass;
};

struct CosimReport {
  std::string design;
  std::string kernel;
  std::vector<CosimCheck> checks;
  double systemc_seconds = 0;
  double verilator_seconds = 0;
  std::string other = "Verilator";  // what the SystemC platform is checked against
  bool pass() const;
};

// First cycle where two probes' toggle events disagree ("differ from cycle N"), or "".
std::string first_event_difference(const ToggleProbe& a, const ToggleProbe& b);

CosimReport compare_runs(const Graph& g, const Program& p, const std::vector<uint8_t>& expected,
                         const RunResult& sc, const RunResult& rtl);
// vcd: also write the RTL run's waveform there (run_on_verilator's vcd).
CosimReport cosim_matmul(const Graph& g, const MatmulProblem& problem, const std::string& rtl_root,
                         const std::string& vcd = "");
CosimReport cosim_attention(const Graph& g, const AttentionProblem& problem, const std::string& rtl_root,
                            const std::string& vcd = "");
CosimReport cosim_ffn(const Graph& g, const FfnProblem& problem, const std::string& rtl_root, const std::string& vcd = "");
void print_cosim(const CosimReport& r, std::ostream& out);

}  // namespace fsgen
