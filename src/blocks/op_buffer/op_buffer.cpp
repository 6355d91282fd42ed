// op_buffer: an operand buffer of the tile sequencer (fsgen_ctrl_buffer.v, instantiated in
// the controller's module as buf_a and buf_b). Below the memory-macro threshold its bytes
// are flip-flops in the controller's netlist, priced with it; at size it is an SRAM macro,
// a black box in synthesis priced by the SRAM macro model from the accesses counted here.
#include "blocks/block_kind.h"

namespace fsgen {

const BlockKind& op_buffer_kind() {
  static const BlockKind kind = [] {
    BlockKind k;
    k.name = "op_buffer";
    k.description = "operand buffer of tagged tile slots (buf_a: A, Q, X tiles; buf_b: B, K, V, W tiles)";
    k.params = {{"bytes", "byte", "capacity"}, {"word_bytes", "byte", "one access: a beat of the DMA's data bus"}};
    k.statistics = {{"reads", "word", "words the array feeds and the normaliser read (a tile's bytes per pass)"},
                    {"writes", "word", "words written: read beats landed, rows cleared"}};
    k.host_module = "fsgen_ctrl";
    k.priced_with_host = true;
    k.systemc_model = "src/models/core_model.h (FusedCore::buf_a_, buf_b_)";
    return k;
  }();
  return kind;
}

}  // namespace fsgen
