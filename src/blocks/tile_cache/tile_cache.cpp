// tile_cache: the K and V tile caches of the fused kernels: slot t holds key tile t of the
// current KV head (FFN: W1 and W2 tiles), so later query tiles and a GQA group's other
// heads skip its load. Slots of the operand buffer buf_b, inside the controller's module:
// priced with it (an SRAM macro at size; else the controller's flip-flops, whose model
// names the caches' slots KC and VC it extrapolates to).
#include "blocks/block_kind.h"

namespace fsgen {

const BlockKind& tile_cache_kind() {
  static const BlockKind kind = [] {
    BlockKind k;
    k.name = "tile_cache";
    k.description = "on-chip cache of K or V tiles of the current KV head; a hit skips the tile's DMA load";
    k.params = {{"tiles", "tile", "key-row tiles held (a.n rows x a.k bytes)"}, {"bytes", "byte", "capacity"}};
    k.statistics = {{"hits", "tile", "tile lookups served on chip"},
                    {"misses", "tile", "tile lookups that went to off-chip memory"},
                    {"operand_bytes", "byte", "bytes not fetched thanks to hits"}};
    k.host_module = "fsgen_ctrl";
    k.priced_with_host = true;
    k.systemc_model = "src/models/attention_model.cpp (FusedCore, K/V cache slots)";
    return k;
  }();
  return kind;
}

}  // namespace fsgen
