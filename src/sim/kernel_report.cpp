#include "sim/kernel_report.h"

#include <algorithm>
#include <iomanip>

#include "compiler/traffic.h"
#include "core/error.h"
#include "models/fast_model.h"
#include "models/kernel_regs.h"

namespace fsgen {

namespace {

// The value networks' work in one run: the speed-up over streaming every k step (the
// same design and schedule without skipping: the controller's phases run one after
// another, so only the stream cycles differ), lane occupancy and what was skipped.
void print_sparse_activity(const std::string& array, const SparseActivity& s, uint64_t cycles, std::ostream& out) {
  const std::ios_base::fmtflags flags = out.flags();
  const std::streamsize precision = out.precision();
  const uint64_t dense_total = cycles - s.stream_cycles + s.dense_cycles;
  out << "  " << array << " sparse   " << s.stream_cycles << " stream cycles against " << s.dense_cycles
      << " without skipping, " << s.windows << " windows; whole kernel " << cycles << " vs " << dense_total
      << " cycles without skipping (speed-up " << std::fixed << std::setprecision(2)
      << double(dense_total) / double(cycles) << "x)\n"
      << "  " << array << " lanes    " << std::setprecision(1)
      << (s.lane_slots ? 100.0 * s.lane_issues / s.lane_slots : 0.0)
      << " % of lane slots issued (idle lanes: " << s.lane_slots - s.lane_issues
      << " lane-cycles of network imbalance), " << s.skipped_steps << " block steps skipped\n";
  out.flags(flags);
  out.precision(precision);
}

// A compressed dot array's lanes: what their MACs held and what a dense array of as many
// MACs per lane would have streamed for the same k tiles.
void print_compressed_lanes(const std::string& array, const SparseActivity& s, std::ostream& out) {
  const std::ios_base::fmtflags flags = out.flags();
  out << "  " << array << " compressed  " << s.stream_cycles
      << " stream cycles; a dense array of the same MACs per lane "
      << "would stream " << s.dense_cycles << " (" << std::fixed << std::setprecision(2)
      << double(s.dense_cycles) / double(std::max<uint64_t>(s.stream_cycles, 1)) << "x) over " << s.windows
      << " stationary loads\n  " << array << " lanes    " << std::setprecision(1)
      << (s.lane_slots ? 100.0 * s.lane_issues / s.lane_slots : 0.0) << " % of MAC slot-cycles held a non-zero weight, "
      << s.skipped_steps << " MACs on zero weights not spent\n";
  out.flags(flags);
}

}  // namespace

void print_sparsity(const Graph& g, const std::map<std::string, SparseActivity>& sparse, uint64_t cycles,
                    std::ostream& out) {
  for (const auto& [block, sa] : sparse)
    if (block == "array_a" && g.array_a.sparse.holds_compressed())
      print_compressed_lanes(block, sa, out);
    else if (block == "dma")
      out << "  DMA skipped       " << sa.window_bytes << " B of keys and values behind the sliding window, "
          << sa.topk_bytes << " B in key tiles block TopK passed over (" << sa.pool_bytes
          << " B of pooled keys fetched), " << sa.zero_row_bytes << " B of compressed all-zero rows ("
          << sa.metadata_bytes << " B of row metadata fetched)\n";
    else
      print_sparse_activity(block, sa, cycles, out);
}

namespace {

// The fast model's cycles for the same launch beside the cycle model's; a design whose timing
// depends on the data is timed from the operands' zero shares, and says so.
void print_fast_model_line(const Graph& g, const Program& prog, uint64_t cycles, const OperandZeros& zeros,
                           std::ostream& out) {
  const bool statistical = g.sparse.timing_depends_on_data();
  FastRun fast;
  try {
    fast = run_fast(g, registers_at_start(prog), 0, zeros);
  } catch (const UserError& e) {  // a design the fast model cannot time says why
    out << "  fast model        not for this design (" << e.what() << ")\n";
    return;
  }
  out << "  fast model        " << fast.result.cycles << " cycles, " << std::showpos << std::setprecision(3)
      << 100.0 * (double(fast.result.cycles) - double(cycles)) / double(cycles) << std::noshowpos
      << " % from the cycle model" << std::setprecision(1);
  if (statistical)
    out << " (timed from zero statistics: A " << 100 * zeros.a << " %, B " << 100 * zeros.b
        << " % of values zero, independently)";
  out << "\n";
}

}  // namespace

bool print_kernel_run(const Graph& g, const Program& prog, const RunResult& r, const std::vector<uint8_t>& expected,
                      double macs, uint64_t least_bytes, const OperandZeros& zeros, std::ostream& out) {
  const bool ok = r.outputs.at(prog.outputs.front().name) == expected;
  const std::ios_base::fmtflags flags = out.flags();
  const std::streamsize precision = out.precision();
  out << "model: fsgen SystemC/TLM-2.0 platform, design " << g.spec.name << ", " << prog.kernel << "\n"
      << "  cycles            " << r.cycles << "  (" << std::fixed << std::setprecision(3)
      << r.cycles / g.spec.clock_mhz << " us at " << g.spec.clock_mhz << " MHz)\n"
      << std::setprecision(1);
  if (macs > 0) {
    const uint32_t pes = g.array_a.spec.pe_count() + (g.matmul_on_both ? g.array_b_matmul.spec.pe_count() : 0);
    out << "  PE utilisation    " << 100.0 * macs / (double(r.cycles) * pes) << " %  (" << macs << " MACs on " << pes
        << (g.matmul_on_both ? " PEs of arrays a and b)\n" : " PEs of array a)\n");
    const Roofline roof = roofline(uint64_t(macs), pes, least_bytes, g.memory.beat_bytes);
    out << "  roofline          " << roof.bound() << " cycles, " << roof.bound_by() << "-bound (compute "
        << roof.compute_cycles << ", memory " << roof.memory_cycles << " at " << g.memory.beat_bytes
        << " B/cycle); this run takes " << std::setprecision(2) << double(r.cycles) / double(roof.bound())
        << " x the bound\n" << std::setprecision(1);
  }
  for (const char* block : {"array_a", "array_b", "softmax"}) {
    if (!r.activity.count(block)) continue;
    const BlockActivity& act = r.activity.at(block);
    out << "  " << std::left << std::setw(18) << (std::string(block) + " busy") << 100.0 * act.busy_cycles / r.cycles
        << " % of cycles";
    if (act.operand_bytes) out << ", operand zeros " << 100.0 * act.zero_bytes / act.operand_bytes << " %";
    out << "\n";
  }
  for (const char* cache : {"k_cache", "v_cache"}) {
    if (!r.activity.count(cache)) continue;
    const BlockActivity& act = r.activity.at(cache);
    out << "  " << std::left << std::setw(18) << (std::string(cache) + " hits") << act.hits << " of "
        << act.hits + act.misses << " tile reads, " << act.operand_bytes << " B not fetched\n";
  }
  print_sparsity(g, r.sparse, r.cycles, out);
  const auto dma_it = r.activity.find("dma");
  const BlockActivity dma = dma_it == r.activity.end() ? BlockActivity{} : dma_it->second;
  out << "  DMA busy          " << 100.0 * dma.busy_cycles / r.cycles << " % of cycles, " << dma.operand_bytes
      << " B moved";
  if (least_bytes > 0)
    out << ", " << std::setprecision(2) << double(dma.operand_bytes) / double(least_bytes) << " x the least ("
        << least_bytes << " B: every operand read once, every result written once)" << std::setprecision(1);
  out << "\n";
  print_fast_model_line(g, prog, r.cycles, zeros, out);
  out << "  output vs reference: " << (ok ? "bit-exact" : "MISMATCH") << "\n"
      << "  toggles per probed port:\n";
  for (const auto& p : r.probes)
    out << "    " << std::left << std::setw(18) << (p.block() + "." + p.port()) << p.toggles() << "\n";
  out << "  simulated " << std::setprecision(2) << std::scientific << r.cycles / r.wall_seconds << " cycles/s\n";
  out.flags(flags);
  out.precision(precision);
  return ok;
}

}  // namespace fsgen
