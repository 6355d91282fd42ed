// skew: the skew registers between a systolic sparse array and one of its value networks:
// group i of the lane bus enters the systolic array i cycles late.
#include "blocks/block_kind.h"

namespace fsgen {

const BlockKind& skew_kind() {
  static const BlockKind kind = [] {
    BlockKind k;
    k.name = "skew";
    k.description = "skew registers: group i of the lane bus enters the systolic array i cycles late";
    k.params = {{"groups", "", "PE rows (x) or columns (w)"}, {"lanes", "lane", "bytes per group"}};
    k.ports = {{"in", false, "the value network's lane bus"}, {"out", true, "the skewed bus, to the array"}};
    k.rtl_files = {"fsgen_skew.v"};
    k.module = "fsgen_skew";
    k.systemc_model = "src/blocks/sparse_net/model.h (a systolic sparse array's lanes)";
    return k;
  }();
  return kind;
}

}  // namespace fsgen
