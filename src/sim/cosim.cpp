#include "sim/cosim.h"

#include <filesystem>
#include <iomanip>

#include "core/error.h"
#include "flow/verilator.h"
#include "models/platform.h"

namespace fsgen {

namespace fs = std::filesystem;

bool CosimReport::pass() const {
  for (const auto& c : checks)
    if (!c.pass) return false;
  return !checks.empty();
}

namespace {

std::string mismatch_text(const std::vector<uint8_t>& got, const std::vector<uint8_t>& want) {
  if (got.size() != want.size()) return "size " + std::to_string(got.size()) + " != " + std::to_string(want.size());
  size_t bad = 0;
  for (size_t i = 0; i < got.size(); ++i) bad += got[i] != want[i];
  return bad ? std::to_string(bad) + " of " + std::to_string(got.size()) + " bytes differ"
             : "bit-exact (" + std::to_string(got.size()) + " B)";
}

}  // namespace

std::string first_event_difference(const ToggleProbe& a, const ToggleProbe& b) {
  const auto& x = a.events();
  const auto& y = b.events();
  for (size_t i = 0; i < std::max(x.size(), y.size()); ++i) {
    if (i >= x.size() || i >= y.size() || x[i] != y[i]) {
      const uint64_t c = i < x.size() ? x[i].first : y[i].first;
      return "differ from cycle " + std::to_string(std::min(c, i < y.size() ? y[i].first : c));
    }
  }
  return "";
}

CosimReport compare_runs(const Graph& g, const Program& p, const std::vector<uint8_t>& expected, const RunResult& sc,
                         const RunResult& rtl) {
  CosimReport rep;
  rep.design = g.spec.name;
  rep.kernel = p.kernel;
  rep.systemc_seconds = sc.wall_seconds;
  rep.verilator_seconds = rtl.wall_seconds;
  for (const auto& o : p.outputs) {
    const auto sc_out = sc.outputs.count(o.name) ? sc.outputs.at(o.name) : std::vector<uint8_t>{};
    const auto rtl_out = rtl.outputs.count(o.name) ? rtl.outputs.at(o.name) : std::vector<uint8_t>{};
    rep.checks.push_back({"output " + o.name + " vs reference", mismatch_text(sc_out, expected),
                          mismatch_text(rtl_out, expected), sc_out == expected && rtl_out == expected});
  }
  rep.checks.push_back({"cycles start..done", std::to_string(sc.cycles), std::to_string(rtl.cycles),
                        sc.cycles == rtl.cycles && sc.cycles > 0});
  for (const auto& sp : sc.probes) {
    const ToggleProbe* rp = nullptr;
    for (const auto& q : rtl.probes)
      if (q.block() == sp.block() && q.port() == sp.port()) rp = &q;
    const std::string name = "toggles " + sp.block() + "." + sp.port();
    if (!rp) {
      rep.checks.push_back({name, std::to_string(sp.toggles()), "missing", false});
      continue;
    }
    const std::string diff = first_event_difference(sp, *rp);
    rep.checks.push_back({name + (diff.empty() ? " (every cycle)" : " (" + diff + ")"), std::to_string(sp.toggles()),
                          std::to_string(rp->toggles()), sp.toggles() == rp->toggles() && diff.empty()});
  }
  return rep;
}

CosimReport cosim_matmul(const Graph& g, const MatmulProblem& problem, const std::string& rtl_root,
                         const std::string& vcd) {
  const Program prog = compile_matmul(g, problem);
  const std::vector<uint8_t> expected = matmul_expected(prog, problem);
  const RunResult rtl = run_on_verilator(g, prog, rtl_root, true, vcd);
  const RunResult sc = run_on_systemc(g, prog);
  return compare_runs(g, prog, expected, sc, rtl);
}

CosimReport cosim_attention(const Graph& g, const AttentionProblem& problem, const std::string& rtl_root,
                            const std::string& vcd) {
  const CompiledAttention c = compile_attention(g, problem);
  const RunResult rtl = run_on_verilator(g, c.program, rtl_root, true, vcd);
  const RunResult sc = run_on_systemc(g, c.program);
  return compare_runs(g, c.program, c.expected, sc, rtl);
}

CosimReport cosim_ffn(const Graph& g, const FfnProblem& problem, const std::string& rtl_root, const std::string& vcd) {
  const CompiledFfn c = compile_ffn(g, problem);
  const RunResult rtl = run_on_verilator(g, c.program, rtl_root, true, vcd);
  const RunResult sc = run_on_systemc(g, c.program);
  return compare_runs(g, c.program, c.expected, sc, rtl);
}

void print_cosim(const CosimReport& r, std::ostream& out) {
  out << "cross-check " << r.design << ": " << r.kernel << "\n";
  out << "  " << std::left << std::setw(44) << "check" << std::setw(26) << "SystemC" << std::setw(26) << r.other
      << "result\n";
  for (const auto& c : r.checks)
    out << "  " << std::left << std::setw(44) << c.what << std::setw(26) << c.systemc << std::setw(26) << c.verilator
        << (c.pass ? "PASS" : "FAIL") << "\n";
  out << "  " << (r.pass() ? "PASS" : "FAIL") << std::fixed << std::setprecision(3) << "  (SystemC "
      << r.systemc_seconds << " s, " << r.other << " " << r.verilator_seconds << " s wall)\n";
}

}  // namespace fsgen
