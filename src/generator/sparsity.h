// Sparse dataflows (paper sections 3.2 and 4.2): sparse tilings, the sparse networks
// Algorithm 1 derives from them, and the design's name in the paper's style.
//
// A sparse tiling of iterator u is T:TT:S:SS: TT is the array's extent along u per cycle
// (the physical tile: PE rows or columns, 1 for the iterator that runs in time), T the
// physical sub-tile that groups it, S the virtual tile the value-level network sees per
// cycle and SS the virtual group tile of the group-level network. On the reduced
// iterator k, TT:S is the N:M ratio of the value network (TT values used of S offered).
//
// Algorithm 1 (docs/SPARSITY.md has the worked examples): the network of operand X of an
// array, whose own spatial iterator is u and whose partner operand's is v, has
//   g = TT_u / T_u                 crossbar groups along X's own iterator
//   L = TT_v / T_v if the partner is sparse, else 1
//                                  schedule lanes: PE groups along v that skip on their own
//   o = TT_k, i = S_k              values used / offered per lane and cycle (i > o: sparse)
//   m = TT_v / L                   PEs each output drives (broadcast arrays)
//   c = TT_k / T_k                 copies of the window (PEs reducing T_k values each)
//   s = 2 on a systolic array: outputs are forwarded PE to PE, so m = 1 and the lanes
//         become copies in the forwarding chain (c = L * TT_k / T_k)
// and its topology is one of the 14 cells of the paper's table: rows 1 unicast (m = 1),
// 2 multicast (m > 1), 3 systolic (s > 1); columns a non-sparse (i = o), b single network,
// c grouped (g > 1), d copies (c > 1; the multicast row instead: several lanes each
// multicast, "mixed" e), e mixed (grouped and copied). Copy and multicast both above one
// (2d) is rejected, as in the paper.
#pragma once
#include <array>
#include <cstdint>
#include <string>
#include <vector>

#include "generator/spec.h"

namespace fsgen {

// Parameters of one sparse (or dense) network between an operand buffer and an array.
struct NetworkParams {
  uint32_t c = 1;      // copies: window copies / lanes forwarded in a systolic chain
  uint32_t g = 1;      // crossbar groups
  uint32_t m = 1;      // PEs each output drives (multicast)
  uint32_t i = 1;      // inputs per lane: values of the reduced iterator offered per cycle
  uint32_t o = 1;      // outputs per lane: values used per cycle
  uint32_t s = 1;      // 2: systolic forwarding
  uint32_t lanes = 1;  // schedule lanes along the partner's iterator
};

// The paper's cell ("1a" .. "3e") of a network, or "" with `why` set when the
// combination is invalid (copy and multicast both above one).
std::string network_topology(const NetworkParams& p, std::string* why = nullptr);

// The 14 valid cells, in table order.
const std::vector<std::string>& all_topologies();

// One operand's network of one array.
struct ValueNetwork {
  std::string tensor;   // x (operand A) or w (operand B)
  NetworkParams params;
  std::string topology;
};

// Where compute-value sparsity skips: per array, which operands carry a zero test.
struct ArraySparsity {
  std::array<SparseTiling, 3> tiling;  // m, n, k: completed (given or dense)
  bool x_sparse = false, w_sparse = false;
  std::string x_condition, w_condition;  // "x==0", "w==0" or "N:M"
  uint32_t w_pattern_n = 0, w_pattern_m = 0;  // N and M of an N:M w_condition (0: a zero test)
  ValueNetwork net_x, net_w;
  bool dot = false;  // a dot array (weight- or input-stationary): its lanes hold the k tile compressed
  bool sparse() const { return x_sparse || w_sparse; }
  // A sparse dot array's lanes: TT_k MACs (slots) in c = TT_k / T_k groups of T_k, group q
  // holding the non-zeros of k tile rows [q S_k / c, (q + 1) S_k / c).
  uint32_t slots() const { return tiling[2].tt; }
  uint32_t slot_groups() const { return tiling[2].tt / tiling[2].t; }
  // Tile times depend on the operands: a sparse output-stationary array skips zero steps
  // (a dot array streams the same cycles whatever its lanes hold).
  bool skips_steps() const { return sparse() && !dot; }
  bool holds_compressed() const { return sparse() && dot; }
  uint32_t window() const { return tiling[2].s; }  // k values offered per cycle (S_k)
  // Schedule lanes along m (rows) and n (columns) of an output-stationary array.
  uint32_t lanes_m() const { return net_w.params.lanes; }
  uint32_t lanes_n() const { return net_x.params.lanes; }
  uint32_t groups() const { return std::max(net_x.params.g, net_w.params.g); }
  // "2G_2b1a": the largest group count, then the x and w networks.
  std::string name() const;
};

// Block TopK attention (compute-group, placed before the value networks): TopK over
// pooled query and key blocks. Built with blocks of one key tile (block = array a's n
// tile) and query blocks of one query tile: the network ranks up to i = SS_n / block key
// tiles per head and keeps topk of them (num::key_tile_candidates has the rule).
struct GroupNetwork {
  bool present = false;
  uint32_t block = 0;   // keys pooled per block (S on the key iterator)
  uint32_t topk = 0;    // key blocks kept per query block
  NetworkParams params; // i = SS/S blocks offered, o = 1, no groups
};

// Memory sparsity: changes to the DMA's loop, not networks.
struct MemorySparsity {
  std::vector<std::string> compressed;  // tensors fetched as non-zero blocks plus metadata
  std::string window_kind;              // "" | window | causal | sliding
  uint32_t window = 0;                  // keys each query attends (window, sliding)
  bool compresses(const std::string& tensor) const {
    for (const auto& t : compressed)
      if (t == tensor) return true;
    return false;
  }
};

struct SparsePlan {
  ArraySparsity a, b;
  GroupNetwork group;
  MemorySparsity memory;
  // Tile times depend on the operands' values (value networks skip zeros, the DMA zero rows).
  bool timing_depends_on_data() const {
    return a.skips_steps() || b.skips_steps() || !memory.compressed.empty() || group.present;
  }
  bool any() const { return a.sparse() || b.sparse() || group.present || !memory.compressed.empty() ||
                            !memory.window_kind.empty(); }
};

// Algorithm 1 over a validated spec: every mapping bound, every tiling checked, or a
// UserError naming the mapping or tiling and why.
SparsePlan plan_sparsity(const DesignSpec& spec);

// The array's physical extent along each iterator per cycle (TT): PE rows and columns
// along the spatial iterators, 1 along the temporal one.
std::array<uint32_t, 3> physical_extent(const ArraySpec& a);

}  // namespace fsgen
