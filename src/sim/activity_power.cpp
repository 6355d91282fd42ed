#include "sim/activity_power.h"

#include <algorithm>

#include "compiler/attention.h"
#include "compiler/matmul.h"
#include "core/error.h"
#include "models/kernel_regs.h"
#include "models/platform.h"
#include "power/characterize.h"
#include "sim/power_report.h"

namespace fsgen {

namespace {

// Whose busy cycles price block b in run r: its own, its array's, or (an operand buffer, read
// as the arrays compute and written as the DMA loads) theirs all.
std::vector<std::string> busy_blocks_of(const Graph& g, const RunResult& r, const std::string& b) {
  if (g.block(b).kind == "op_buffer") return {"array_a", "array_b", "dma"};
  if (r.activity.count(b)) return {b};
  for (const Edge& e : g.edges) {
    const std::string& other = e.from_block == b ? e.to_block : e.to_block == b ? e.from_block : "";
    if (other.rfind("array_", 0) == 0) return {other};
  }
  return {"array_a", "array_b", "dma"};
}

uint64_t busy_cycles(const std::map<std::string, BlockActivity>& activity, const std::vector<std::string>& blocks) {
  uint64_t n = 0;
  for (const auto& b : blocks)
    if (activity.count(b)) n += activity.at(b).busy_cycles;
  return n;
}

// The trained model's dynamic energy per cycle of an idle block (fJ).
double idle_energy_fj(const PowerModel& model, const BlockPower& bp) {
  if (bp.kind == "sram_macro") return 0;  // its energy is per access
  if (primitive_def(bp.kind).structural()) return model.structural_energy(bp.kind, bp.h).idle_fj;
  PrimitiveActivity idle;
  idle.zeros = bp.zeros;
  return model.dynamic_fj(bp.kind, bp.h, idle);
}

struct SampleEnergy {
  double leakage_mw = 0, idle_fj = 0;
  double dynamic_fj = 0;  // over the samples, fJ
  uint64_t busy = 0;      // busy cycles of its busy blocks over the samples
  std::vector<std::string> busy_blocks;
};

}  // namespace

// The sample's programs: what a model layer runs (projection matmuls, attention).
std::vector<Program> sample_programs(const Graph& g, double zeros) {
  std::vector<Program> out;
  MatmulProblem mm;
  mm.m = 2 * g.array_a.spec.tile_m;
  mm.n = g.matmul_tile_n();
  mm.k = 4 * g.array_a.spec.tile_k;
  mm.values.zero_fraction = zeros;
  try {
    out.push_back(compile_matmul(g, mm));
  } catch (const UserError&) {  // an accumulator cache of one output tile: one m tile
    mm.m = g.array_a.spec.tile_m;
    out.push_back(compile_matmul(g, mm));
  }
  if (g.attention && g.spec.attention_kernel) {
    AttentionProblem at;
    at.q_heads = at.kv_heads = 1;
    at.tokens = 2 * g.array_a.spec.tile_n;
    at.values.zero_fraction = zeros;
    try {
      out.push_back(compile_attention(g, at).program);
    } catch (const UserError&) {  // a design whose attention needs more (a window mask, head tiles): the matmul alone
    }
  }
  return out;
}

std::vector<std::pair<std::string, double>> ActivityPowerModel::block_power_mw(
    const std::map<std::string, BlockActivity>& activity, uint64_t cycles, double clock_mhz) const {
  FSGEN_ASSERT(cycles > 0, "a run of at least one cycle");
  std::vector<std::pair<std::string, double>> out;
  for (const BlockEnergy& b : blocks) {
    const double fj_per_cycle = b.idle_fj + b.busy_fj * double(busy_cycles(activity, b.busy_blocks)) / double(cycles);
    out.push_back({b.block, b.leakage_mw + fj_per_cycle * clock_mhz * 1e-6});  // fJ per cycle x cycles per us -> mW
  }
  return out;
}

double ActivityPowerModel::power_mw(const std::map<std::string, BlockActivity>& activity, uint64_t cycles,
                                    double clock_mhz) const {
  double mw = 0;
  for (const auto& [block, p] : block_power_mw(activity, cycles, clock_mhz)) mw += p;
  return mw;
}

ActivityPowerModel calibrate_activity_power(const Graph& g, const PowerModel& model, double zeros,
                                            const DesignMacros& macros) {
  ActivityPowerModel m;
  std::map<std::string, SampleEnergy> energy;
  std::vector<std::string> order;
  double sample_energy_fj = 0;
  for (const Program& p : sample_programs(g, zeros)) {
    const KernelRegs regs = registers_at_start(p);
    const RunResult r = run_on_systemc(g, p);
    m.sample_fast_cycles += run_fast(g, regs, 0, OperandZeros{zeros, zeros}).result.cycles;
    m.sample_cycles += r.cycles;
    m.sample += (m.sample.empty() ? "" : " and ") + p.kernel;
    const PowerTrace t = estimate_run_power(g, p.kernel, regs, r, model, std::max<uint64_t>(r.cycles, 1), macros);
    m.not_modelled = t.not_modelled;
    for (const BlockPower& bp : t.blocks) {
      SampleEnergy& e = energy[bp.block];
      if (e.busy_blocks.empty()) {
        order.push_back(bp.block);
        e.busy_blocks = busy_blocks_of(g, r, bp.block);
        e.leakage_mw = bp.leakage_mw;
        e.idle_fj = idle_energy_fj(model, bp);
      }
      e.dynamic_fj += (bp.average_mw - bp.leakage_mw) / (g.spec.clock_mhz * 1e-6) * double(r.cycles);
      e.busy += busy_cycles(r.activity, e.busy_blocks);
      sample_energy_fj += bp.average_mw / (g.spec.clock_mhz * 1e-6) * double(r.cycles);
    }
  }
  m.sample_mw = m.sample_cycles ? sample_energy_fj / double(m.sample_cycles) * g.spec.clock_mhz * 1e-6 : 0;
  for (const std::string& name : order) {
    const SampleEnergy& e = energy.at(name);
    BlockEnergy b{name, e.busy_blocks, e.leakage_mw, e.idle_fj, 0};
    const double above_idle = e.dynamic_fj - e.idle_fj * double(m.sample_cycles);
    // A block the sample priced below its idle energy (the trees' steps between points) or
    // never saw busy keeps the sample's average per cycle.
    if (e.busy > 0 && above_idle > 0)
      b.busy_fj = above_idle / double(e.busy);
    else
      b.idle_fj = e.dynamic_fj / double(m.sample_cycles);
    m.blocks.push_back(b);
  }
  return m;
}

}  // namespace fsgen
