#include "sim/design_report.h"

#include <algorithm>
#include <atomic>
#include <filesystem>
#include <iomanip>
#include <map>
#include <optional>
#include <thread>

#include "blocks/registry.h"
#include "compiler/matmul.h"
#include "core/error.h"
#include "generator/verilog_emitter.h"
#include "power/liberty.h"
#include "power/techmap.h"

namespace fsgen {

namespace {

// Whether the matmul kernel applies an FFN's activation (and gate product) to its stored rows,
// and why not.
void print_epilogue(const Graph& g, std::ostream& out) {
  const std::string plain = epilogue_unsupported_why(g, false), gated = epilogue_unsupported_why(g, true);
  out << "\n  matmul epilogue: ";
  if (!plain.empty())
    out << "none; " << plain;
  else if (!gated.empty())
    out << "the activation on stored rows, not gated; " << gated;
  else
    out << "the activation and gate product on stored rows (an FFN wider than tiling.k runs them there)";
}

}  // namespace

namespace {

void print_network(const ValueNetwork& n, std::ostream& out) {
  const NetworkParams& p = n.params;
  out << "\n    " << n.tensor << " network " << n.topology << ": c=" << p.c << " g=" << p.g << " m=" << p.m
      << " i=" << p.i << " o=" << p.o << " s=" << p.s << ", " << p.lanes << (p.lanes == 1 ? " lane" : " lanes");
}

}  // namespace

void print_sparse_plan(const SparsePlan& sp, std::ostream& out) {
  const ArraySparsity& a = sp.a;
  out << "\n  sparsity:";
  if (a.sparse()) {
    out << " design " << a.name() << "; array a tilings m=" << a.tiling[0].text() << " n=" << a.tiling[1].text()
        << " k=" << a.tiling[2].text();
    if (a.x_sparse) out << ", skips x (" << a.x_condition << ")";
    if (a.w_sparse) out << ", skips w (" << a.w_condition << ")";
    print_network(a.net_x, out);
    print_network(a.net_w, out);
    if (a.holds_compressed())
      out << "\n    lanes hold the k tile of " << a.tiling[2].s << " compressed in " << a.slots() << " MACs ("
          << a.slot_groups() << " group(s) of " << a.slots() / a.slot_groups() << " for "
          << a.tiling[2].s / a.slot_groups() << " k rows each)";
  }
  if (sp.group.present)
    out << "\n    group network (block TopK, before the value networks): " << sp.group.params.i << " blocks of "
        << sp.group.block << " keys offered, 1 used per cycle, top " << sp.group.topk;
  for (const auto& t : sp.memory.compressed)
    out << "\n    DMA: " << t << " compressed (all-zero tile rows skipped; row metadata)";
  if (!sp.memory.window_kind.empty())
    out << "\n    DMA: key loop bounded by " << sp.memory.window_kind
        << (sp.memory.window ? " window " + std::to_string(sp.memory.window) : std::string());
}

void print_graph(const Graph& g, std::ostream& out) {
  const ArrayPlan& p = g.array_a;
  out << "design " << g.spec.name << " (" << g.spec.source << ")\n"
      << "  memory: " << g.memory.beat_bytes << " B/cycle AXI4, latency " << g.memory.latency_cycles
      << " cycles, " << g.memory.outstanding << (g.memory.outstanding == 1 ? " burst" : " bursts")
      << " in flight, clock " << g.spec.clock_mhz << " MHz\n"
      << "  array a: " << stationarity_name(p.stationarity) << ", loop order " << iter_name(p.spec.loop_order[0])
      << iter_name(p.spec.loop_order[1]) << iter_name(p.spec.loop_order[2]) << ", tiles m=" << p.spec.tile_m
      << " n=" << p.spec.tile_n << " k=" << p.spec.tile_k << ", " << p.spec.pe_rows() << "x" << p.spec.pe_cols()
      << " PEs\n"
      << "  reuse: A " << movement_name(p.move_a) << ", B " << movement_name(p.move_b) << ", C "
      << movement_name(p.move_c);
  if (p.acc_slots) out << " (accumulator cache: " << p.acc_slots << (p.acc_slots == 1 ? " tile)" : " tiles)");
  out << "\n  matmul operand buffers: " << g.a_slots << " A " << (g.a_slots == 1 ? "tile" : "tiles") << ", "
      << g.b_slots << " B " << (g.b_slots == 1 ? "tile" : "tiles") << " (a tile held is not loaded again";
  if (g.double_buffered()) out << "; the loader fills the free slots during the passes, up to 4 tiles ahead";
  out << "; buf_a " << g.buf_a_bytes() << " B, buf_b " << g.buf_b_bytes() << " B)";
  if (!g.single_buffered_why.empty()) out << "\n    single-buffered: " << g.single_buffered_why;
  out << "\n  kernels: matmul";
  if (g.matmul_on_both) out << " (on arrays a and b: " << g.matmul_tile_n() << "-column tiles)";
  if (!g.matmul_alone_why.empty()) out << " (on array a alone)";
  if (g.attention) out << ", attention and FFN (fused: S = Q K^T on a, online softmax, O = P V on b)";
  if (!g.matmul_alone_why.empty()) out << "\n  array b in matmul: idle; " << g.matmul_alone_why;
  print_epilogue(g, out);
  if (g.attention) {
    const ArrayPlan& b = g.array_b;
    const FusedStageCycles c = fused_stage_cycles(g.array_a, b, g.memory);
    out << "\n  array b: " << stationarity_name(b.stationarity) << (b.spec.systolic ? " systolic" : "")
        << ", tiles m=" << b.spec.tile_m << " n=" << b.spec.tile_n << " k=" << b.spec.tile_k << ", " << b.spec.pe_rows()
        << "x" << b.spec.pe_cols() << " PEs"
        << "\n  per key tile (cycles): K load " << c.k_load << ", then S on array a " << c.scores << " and softmax "
        << c.softmax << " beside the V load " << c.v_load << " (attention), then O on array b " << c.o_update << " ("
        << c.o_passes << (c.o_passes == 1 ? " pass)" : " passes)");
  }
  if (g.sparse.any()) print_sparse_plan(g.sparse, out);
  out << "\n  blocks:";
  for (const auto& b : g.blocks) out << " " << b.name << "(" << b.kind << ")";
  out << "\n";
}

namespace {

// The RTL instance of a block that has logic of its own; nullopt for the blocks inside the
// controller's module (the requantiser, the normaliser, the K/V tile caches).
std::optional<ArrayInstance> synthesis_instance(const Graph& g, const std::string& block) {
  if (block == "skew_x" || block == "skew_w") return skew_instance(g.array_a, block == "skew_x");
  return block_instance(g, block);
}

// Synthesises and times each of `todo` in a folder of its own under dir/synth, `jobs` at a
// time (each its own Yosys and OpenSTA), the memory macros' modules black boxes; a block that
// fails keeps its error and the others go on.
std::vector<BlockSynthesis> synthesise_blocks(std::vector<BlockSynthesis> todo, const Graph& g, const std::string& dir,
                                              const Liberty& lib, double period_ns, unsigned jobs,
                                              const std::vector<std::string>& macro_modules) {
  std::vector<std::string> files;
  for (const auto& f : verilog_files(g)) files.push_back((std::filesystem::path(dir) / f).string());
  std::atomic<size_t> next{0};
  auto worker = [&] {
    for (size_t i; (i = next++) < todo.size();) {
      BlockSynthesis& b = todo[i];
      try {
        const std::string block_dir = (std::filesystem::path(dir) / "synth" / b.block).string();
        std::filesystem::create_directories(block_dir);
        b.netlist =
            synth_and_time(files, b.instance.module, b.instance.params, lib, block_dir, period_ns, macro_modules);
      } catch (const std::exception& e) {
        b.error = e.what();
      }
    }
  };
  std::vector<std::thread> pool;
  for (unsigned j = 0; j < std::max(1u, jobs); ++j) pool.emplace_back(worker);
  for (auto& t : pool) t.join();
  return todo;
}

std::string path_text(const TimingReport& t) { return t.startpoint + " -> " + t.endpoint; }

// A tool error on one line: what failed and the tool's last word.
std::string first_and_last_lines(const std::string& error) {
  const size_t end = error.find_last_not_of("\n");
  const size_t first_end = error.find('\n');
  if (first_end == std::string::npos || end == std::string::npos || first_end >= end) return error.substr(0, first_end);
  const size_t last_begin = error.rfind('\n', end) + 1;
  return error.substr(0, first_end) + " ... " + error.substr(last_begin, end + 1 - last_begin);
}

// The blocks `request` names, each checked against the design; every block when it names none.
std::vector<std::string> requested_blocks(const Graph& g, const std::vector<std::string>& names) {
  if (names.empty()) {
    std::vector<std::string> all;
    for (const auto& b : g.blocks) all.push_back(b.name);
    return all;
  }
  std::string known;
  for (const auto& b : g.blocks) known += (known.empty() ? "" : ", ") + b.name;
  for (const auto& n : names) {
    if (!g.has_block(n))
      fail("--blocks", "design " + g.spec.name + " has no block '" + n + "' (its blocks: " + known + ")");
    if (!synthesis_instance(g, n) && block_kind(g.block(n).kind).host_module == "fsgen_ctrl")
      fail("--blocks", "block '" + n + "' is part of the controller's module: name ctrl");
  }
  return names;
}

}  // namespace

void check_synthesis_request(const Graph& g, const SynthesisRequest& request) { requested_blocks(g, request.blocks); }

DesignSynthesis synthesise_design(const Graph& g, const std::string& dir, const SynthesisRequest& request) {
  const MacroOptions& mo = request.macros;
  DesignSynthesis d;
  d.requested = requested_blocks(g, request.blocks);
  d.lib = prepare_liberty(request.liberty, dir);
  const DesignMacros macros = design_macros(g, macro_technology(read_liberty_file(d.lib.path), mo.node_nm), mo);
  std::vector<BlockSynthesis> todo;
  for (const auto& name : d.requested) {
    if (const MemoryMacro* macro = macros.find(name))
      d.macros.push_back(*macro);
    else if (auto inst = synthesis_instance(g, name))
      todo.push_back({name, *inst, {}, ""});
    else
      d.inside.push_back(name);
  }
  d.macro_modules = macros.modules;
  d.blocks = synthesise_blocks(std::move(todo), g, dir, d.lib, 1000.0 / g.spec.clock_mhz, request.jobs, macros.modules);
  return d;
}

bool print_synthesis(const Graph& g, const std::string& dir, const SynthesisRequest& request, std::ostream& out) {
  const MacroOptions& mo = request.macros;
  const DesignSynthesis synthesis = synthesise_design(g, dir, request);
  const Liberty& lib = synthesis.lib;
  const std::vector<BlockSynthesis>& done = synthesis.blocks;
  const std::vector<std::string>& inside = synthesis.inside;
  out << "synthesis (yosys onto liberty " << lib.name << ", each block on its own, mapped for delay at "
      << g.spec.clock_mhz << " MHz: buffered fan-out, sized gates; timing by OpenSTA from each block's ports)\n"
      << std::fixed;
  const BlockSynthesis* slowest = nullptr;
  double logic_area = 0;
  bool ok = true;
  for (const BlockSynthesis& b : done) {
    if (!b.error.empty()) {
      out << "  " << std::left << std::setw(9) << b.block << std::setw(16) << b.instance.module << std::right
          << "failed: " << first_and_last_lines(b.error) << "\n";
      ok = false;
      continue;
    }
    const SynthReport& synth = b.netlist.synth;
    const TimingReport& t = b.netlist.timing;
    logic_area += synth.area_um2;
    if (!slowest || t.max_clock_mhz() < slowest->netlist.timing.max_clock_mhz()) slowest = &b;
    out << "  " << std::left << std::setw(9) << b.block << std::setw(16) << b.instance.module << std::right
        << std::setprecision(1) << std::setw(11) << synth.area_um2 << " um^2 " << std::setw(7) << synth.cells
        << " cells  path " << std::setprecision(3) << t.arrival_ns + t.setup_ns << " ns, max " << std::setprecision(0)
        << std::setw(5) << t.max_clock_mhz() << " MHz: " << path_text(t) << "\n";
  }
  if (!inside.empty()) {
    out << "  inside ctrl's module (timed with it):";
    for (const auto& n : inside) out << " " << n;
    out << "\n";
  }
  double macro_area = 0;
  bool any_macro = false;
  for (const auto& m : synthesis.macros) {
    macro_area += m.area_um2;
    any_macro = true;
    out << "  memory macro " << m.block << " (" << m.bytes << " B, " << m.word_bits << "-bit words; SRAM macro model, "
        << std::defaultfloat << std::setprecision(6) << mo.node_nm << std::fixed << " nm): area "
        << std::setprecision(1) << m.area_um2 << " um^2, read " << std::setprecision(2) << m.read_pj << " pJ, write "
        << m.write_pj << " pJ, leakage " << std::setprecision(4) << m.leakage_mw << " mW\n";
  }
  out << "  logic area " << std::setprecision(1) << logic_area << " um^2";
  if (any_macro) out << ", with the macros " << logic_area + macro_area << " um^2";
  out << "\n";
  if (!ok) out << "timing: not known (a block's synthesis failed; its script is in " << dir << "/synth/<block>/)\n";
  if (ok && slowest) {
    const double slack = slowest->netlist.timing.slack_ns;
    out << "timing: max clock " << (request.blocks.empty() ? "" : "of these blocks ") << std::setprecision(0)
        << slowest->netlist.timing.max_clock_mhz() << " MHz, set by " << slowest->block << "; at the spec's "
        << g.spec.clock_mhz << " MHz the slack is " << std::setprecision(3) << slack << " ns ("
        << (slack >= 0 ? "met" : "VIOLATED")
        << "). Paths between blocks are timed in each block from its ports (an input arrives at the clock edge); "
           "a block that meets the spec's clock is not mapped for more, so its max clock is a lower bound"
        << (any_macro ? "; paths into and out of the macros are not timed" : "") << "\n";
  }
  out << std::defaultfloat;
  return ok;
}

}  // namespace fsgen
