// The accelerator graph: the single source of truth that both emitters read.
//
// elaborate() turns a validated DesignSpec into blocks of registered kinds (src/blocks:
// their parameters' units and descriptions come from the kind's declaration), the edges
// between them, and the per-array dataflow plan produced by reuse analysis. The Verilog
// emitter writes one module instance per block with a module of its own; the SystemC
// platform models the same blocks inside one core model (src/models/core_model.h);
// probed ports are where both sides count toggles, so their names and widths come from here.
#pragma once
#include <algorithm>
#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "blocks/sparse_net/select_bits.h"
#include "core/memory_timing.h"
#include "generator/sparsity.h"
#include "generator/spec.h"

namespace fsgen {

struct Param {
  std::string name;
  int64_t value;
  std::string unit;
  std::string desc;
};

struct Port {
  std::string name;
  uint32_t width_bits;
  bool output;
  std::string desc;
  std::string rtl_signal;  // register behind the port, hierarchical from the top ("u_ctrl.x_q"); empty if not probed
  bool probed() const { return !rtl_signal.empty(); }
};

struct Block {
  std::string name;      // instance name, e.g. "array_a"
  std::string kind;      // a registered kind (src/blocks/kinds.h): pe_array_os, dma, ctrl, ...
  std::string desc;
  std::vector<Param> params;
  std::vector<Port> ports;
  int64_t param(const std::string& n) const;
  const Port& port(const std::string& n) const;
};

struct Edge {
  std::string from_block, from_port, to_block, to_port;
};

// How a tensor moves through a PE array, from reuse analysis.
enum class Movement { kStationary, kBroadcast, kSystolic, kReduced, kAccumulated };
const char* movement_name(Movement m);

// The elaborated dataflow of one array.
struct ArrayPlan {
  ArraySpec spec;
  Stationarity stationarity;
  Movement move_a, move_b, move_c;
  uint32_t acc_slots;        // output tiles held in the accumulator cache (0: partial sums in the PEs)
  uint32_t stationary_rows;  // cycles to load the stationary operand into the PEs (0 for output-stationary)
  uint32_t stream_cycles;    // cycles a tile's operands stream through the array
  uint32_t tail_cycles;      // pipeline cycles after the last stream step
  uint32_t x_bytes, w_bytes; // widths of the two operand buses into the array
  uint32_t y_lanes;          // INT32 lanes out of a dot array (0 for output-stationary)
  ArraySparsity sparse;      // value networks in front of the array (dense: none)
};

// Cycles of one tile's compute phase on an array: the stationary operand's load when
// `reload` (weight- and input-stationary arrays), the operand stream, the pipeline tail.
// The one timing rule of the PE arrays, used by the SystemC models and the fast model.
inline uint64_t tile_cycles(const ArrayPlan& p, bool reload) {
  return (reload ? p.stationary_rows : 0) + uint64_t(p.stream_cycles) + p.tail_cycles;
}

// The RTL module and parameters an array block is built from, as the emitter instantiates
// it (array b of the attention kernel rescales its output-stationary accumulators).
struct ArrayInstance {
  std::string module;
  std::map<std::string, int64_t> params;
};
ArrayInstance array_instance(const ArrayPlan& p, bool is_array_b);
// The value network of a sparse array's operand x (or w), fsgen_sparse_net.v (its selects'
// width: select_bits, blocks/sparse_net/select_bits.h).
ArrayInstance value_network_instance(const ArrayPlan& p, bool x);
// The skew registers (fsgen_skew.v) between a systolic sparse array and its x (or w)
// value network: one group per PE row (column), as wide as its lanes.
ArrayInstance skew_instance(const ArrayPlan& p, bool x);

struct Graph {
  DesignSpec spec;
  MemoryTiming memory;
  ArrayPlan array_a;
  bool attention = false;  // the fused attention kernel is built (array b, softmax, normalise)
  ArrayPlan array_b;       // O = P V over (m, n, k) = (queries, head dim, keys); valid when attention
  uint32_t k_cache_tiles = 0, v_cache_tiles = 0;  // key-row tiles (a.n x a.k bytes) the K / V caches hold
  // The fused kernels' slots of buf_b (fsgen_ctrl.v's FB): slot 0, the K and the V cache slots
  // and, last, attention's V working slot (its V rows load beside the score pass).
  uint32_t fused_b_slots() const { return attention ? 2 + k_cache_tiles + v_cache_tiles : 1; }
  // Bytes of the controller's operand buffers (fsgen_ctrl.v's BUF_B and buf_a): buf_a holds
  // the A slots (Q, X tiles), buf_b the larger of the B slots and the fused kernels' slots.
  uint64_t buf_a_bytes() const;
  uint64_t buf_b_bytes() const;
  // Matmul on both arrays (output-stationary a and b of a fused core): one matmul tile is
  // a.n + b.n columns wide; array a computes the first a.n, array b the next b.n over
  // the same A tile and k steps. array_b_matmul is array b seen in that mode.
  bool matmul_on_both = false;
  std::string matmul_alone_why;  // a fused core whose array b sits out matmuls: why
  ArrayPlan array_b_matmul;
  uint32_t matmul_tile_n() const { return array_a.spec.tile_n + (matmul_on_both ? array_b.spec.tile_n : 0); }
  // Matmul operand tiles the controller's buffers hold, each slot tagged with its tile: a tile
  // still held is not loaded again, and with two or more the next tile's A and B load into a
  // free slot while array a computes (memory.operand_tiles; by default two of each when they
  // fit memory.buffer_limit_bytes and the operand is not compressed). single_buffered_why:
  // why an operand has one slot.
  uint32_t a_slots = 1, b_slots = 1;
  std::string single_buffered_why;
  bool double_buffered() const { return a_slots > 1 || b_slots > 1; }
  // Bits of a read burst's tag (fsgen_ctrl.v's rcmd_tag): a destination (2), a slot, a row (8).
  uint32_t read_tag_bits() const {
    uint32_t slot_bits = 1;
    while ((1u << slot_bits) < std::max(a_slots, b_slots)) ++slot_bits;
    return 10 + slot_bits;
  }
  SparsePlan sparse;       // Algorithm 1's networks and the memory-sparsity changes
  // Keys a causal query attends with a sliding window (memory-group sparsity), 0 = all.
  uint32_t sliding_window() const { return sparse.memory.window_kind == "sliding" ? sparse.memory.window : 0; }
  std::vector<Block> blocks;
  std::vector<Edge> edges;

  const Block& block(const std::string& name) const;
  bool has_block(const std::string& name) const;
  // Every probed port, in a fixed order shared by the SystemC model and the RTL harness.
  struct Probe {
    std::string block, port, rtl_signal;
    uint32_t width_bits;
  };
  std::vector<Probe> probes() const;
};

// The accumulator cache (fsgen_acc_cache.v) behind dot array a (or b): array a's output
// tiles, or array b's O tile with rows rescaled by alpha.
ArrayInstance acc_cache_instance(const Graph& g, bool is_array_b);

// The controller (fsgen_ctrl.v) with the parameters the emitter instantiates it with: the
// tile sequencer, its operand buffers, the requantiser and (fused kernels) the normaliser
// and the softmax unit's surroundings.
ArrayInstance ctrl_instance(const Graph& g);
// Verilog's code of a stationarity (fsgen_ctrl.v's ST and STB: 0 output, 1 weight, 2 input).
int stationarity_code(Stationarity s);

// The RTL instance (u_<block> in fsgen_top) of a block the power flow replays at gate
// level: the PE arrays, a sparse array's value networks (net_x, net_w), the accumulator
// caches (acc_a, acc_b), the DMA, the fused datapath's softmax unit, the controller (ctrl:
// with the requantiser and a fused core's normaliser inside it) and the register file
// (csr); nullopt for other blocks.
std::optional<ArrayInstance> block_instance(const Graph& g, const std::string& block);
// Whether the block's kind is part of the controller's RTL module and priced with it (the
// requantiser, the fused kernels' normaliser: BlockKind::priced_with_controller).
bool priced_with_controller(const Graph& g, const std::string& block);

ArrayPlan plan_array(const ArraySpec& spec, const std::map<std::string, uint32_t>& caches,
                     const std::string& cache_key);

// Cycles one key tile of the fused kernels spends in each stage (the controller runs
// them one after the other): what an architect balances when sizing array b against
// array a and the memory bandwidth.
struct FusedStageCycles {
  uint64_t k_load;    // DMA: a.n key rows of a.k bytes, on a miss (a K cache hit costs nothing)
  uint64_t scores;    // array a: S = Q K^T (with the K tile's load into a weight-stationary array)
  uint64_t softmax;   // one score row per cycle
  uint64_t v_load;    // DMA: the V tile
  uint64_t o_update;  // array b: O = alpha O + P V, over all its passes
  uint32_t o_passes;  // sub-tiles array b runs per key tile
};
FusedStageCycles fused_stage_cycles(const ArrayPlan& a, const ArrayPlan& b, const MemoryTiming& mem);

// Array b sized by bandwidth (`arrays.b.tiling: auto`): the fewest PEs of b's
// stationarity whose O update per key tile is no slower than the slower of array a's
// score tile and the V tile's load from memory (the rate b's operands arrive at), or
// the fastest b when none is. An output-stationary b holds O, so its tiles are fixed.
ArraySpec size_downstream_array(const ArraySpec& a, ArraySpec b, const MemoryTiming& mem);
Graph elaborate(const DesignSpec& spec);

}  // namespace fsgen
