// The kernel dispatch of fsgen_ctrl.v (S_IDLE): the matmul loop (sequencer_matmul.cpp) or, in
// a fused core, the fused kernels' loop (src/blocks/fused_ctrl/sequencer_fused.cpp).
#include "blocks/ctrl/sequencer.h"

#include "core/regmap.h"

namespace fsgen {

TileSequencer::TileSequencer(const Graph& g, std::map<std::string, BlockActivity>& activity,
                             std::map<std::string, SparseActivity>& sparse)
    : graph_(g), plan_(g.array_a), tile_n_(g.matmul_tile_n()), activity_(activity), sparse_(sparse) {
  k_cache_ = {"k_cache", 1, g.k_cache_tiles, 0, {}};
  v_cache_ = {"v_cache", 1 + g.k_cache_tiles, g.v_cache_tiles, 0, {}};
}

void TileSequencer::run_schedule(const KernelRegs& regs) {
  regs_ = regs;
  const bool fused = regs.kernel == static_cast<uint32_t>(reg::Kernel::kAttention) ||
                     regs.kernel == static_cast<uint32_t>(reg::Kernel::kFfn);
  if (graph_.attention && fused)
    fused_schedule();
  else
    matmul_schedule();
}

}  // namespace fsgen
