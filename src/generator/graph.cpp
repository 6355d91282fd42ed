#include "generator/graph.h"

#include <algorithm>
#include <tuple>

#include "blocks/ctrl/row_transfers.h"
#include "blocks/registry.h"
#include "core/compression.h"
#include "core/error.h"

namespace fsgen {

const char* movement_name(Movement m) {
  switch (m) {
    case Movement::kStationary: return "stationary";
    case Movement::kSystolic: return "systolic";
    case Movement::kBroadcast: return "broadcast";
    case Movement::kReduced: return "reduced";
    case Movement::kAccumulated: return "accumulated";
  }
  return "?";
}

int64_t Block::param(const std::string& n) const {
  for (const auto& p : params)
    if (p.name == n) return p.value;
  FSGEN_ASSERT(false, ("no parameter " + n + " on block " + name).c_str());
  return 0;
}

const Port& Block::port(const std::string& n) const {
  for (const auto& p : ports)
    if (p.name == n) return p;
  FSGEN_ASSERT(false, ("no port " + n + " on block " + name).c_str());
  return ports.front();
}

const Block& Graph::block(const std::string& name) const {
  for (const auto& b : blocks)
    if (b.name == name) return b;
  FSGEN_ASSERT(false, ("no block " + name).c_str());
  return blocks.front();
}

bool Graph::has_block(const std::string& name) const {
  for (const auto& b : blocks)
    if (b.name == name) return true;
  return false;
}

uint64_t Graph::buf_a_bytes() const { return uint64_t(a_slots) * array_a.spec.tile_m * array_a.spec.tile_k; }

uint64_t Graph::buf_b_bytes() const {
  return std::max(uint64_t(fused_b_slots()) * array_a.spec.tile_n, uint64_t(b_slots) * matmul_tile_n()) *
         array_a.spec.tile_k;
}

std::vector<Graph::Probe> Graph::probes() const {
  std::vector<Probe> out;
  for (const auto& b : blocks)
    for (const auto& p : b.ports)
      if (p.probed()) out.push_back({b.name, p.name, p.rtl_signal, p.width_bits});
  return out;
}

// Reuse analysis for C[m][n] += A[m][k] * B[k][n]: the innermost loop iterator is
// temporal inside a tile, and the tensor it does not index stays in the PEs.
ArrayPlan plan_array(const ArraySpec& spec, const std::map<std::string, uint32_t>& caches,
                     const std::string& cache_key) {
  ArrayPlan p{};
  p.spec = spec;
  p.stationarity = spec.stationarity();
  switch (p.stationarity) {
    case Stationarity::kOutput:
      // A[m][k] is shared by every n: broadcast along a PE row or passed PE to PE; B[k][n]
      // likewise down a PE column.
      p.move_a = spec.systolic ? Movement::kSystolic : Movement::kBroadcast;
      p.move_b = p.move_a;
      p.move_c = Movement::kStationary;
      p.stationary_rows = 0;
      p.stream_cycles = spec.tile_k + (spec.systolic ? spec.tile_m + spec.tile_n - 2 : 0);
      p.tail_cycles = 1;
      p.x_bytes = spec.tile_m;
      p.w_bytes = spec.tile_n;
      p.y_lanes = 0;
      break;
    case Stationarity::kWeight:
      p.move_a = Movement::kBroadcast;  // a row of A feeds every output column
      p.move_b = Movement::kStationary;
      p.move_c = Movement::kReduced;    // adder chain over k, then the accumulator cache
      p.stationary_rows = spec.tile_k;
      p.stream_cycles = spec.tile_m;
      p.tail_cycles = 2;
      p.x_bytes = spec.tile_k;
      p.w_bytes = spec.tile_n;
      p.y_lanes = spec.tile_n;
      break;
    case Stationarity::kInput:
      p.move_a = Movement::kStationary;
      p.move_b = Movement::kBroadcast;  // a column of B feeds every output row
      p.move_c = Movement::kReduced;
      p.stationary_rows = spec.tile_m;
      p.stream_cycles = spec.tile_n;
      p.tail_cycles = 2;
      p.x_bytes = spec.tile_k;
      p.w_bytes = spec.tile_k;
      p.y_lanes = spec.tile_m;
      break;
  }
  if (p.stationarity != Stationarity::kOutput) {
    p.move_c = Movement::kAccumulated;
    auto it = caches.find(cache_key);
    FSGEN_ASSERT(it != caches.end(), "validated spec lacks its accumulator cache");
    p.acc_slots = it->second / (spec.tile_m * spec.tile_n * 4);
  }
  return p;
}

namespace {

// DMA cycles of one key-row tile (a.n rows of a.k bytes), K or V.
uint64_t tile_load_cycles(const ArraySpec& a, const MemoryTiming& mem) {
  return load_transfer_cycles(mem, a.tile_n, a.tile_k / mem.beat_bytes);
}

uint64_t score_tile_cycles(const ArrayPlan& a) {
  return tile_cycles(a, a.stationarity == Stationarity::kWeight);
}

// Array b's passes over one key tile's O update and their cycles.
std::pair<uint32_t, uint64_t> o_update_cycles(const ArraySpec& a, const ArrayPlan& b) {
  if (b.stationarity == Stationarity::kOutput) return {1, tile_cycles(b, false)};
  const uint32_t passes = (a.tile_m / b.spec.tile_m) * (a.tile_k / b.spec.tile_n) * (a.tile_n / b.spec.tile_k);
  return {passes, passes * tile_cycles(b, true)};
}

}  // namespace

FusedStageCycles fused_stage_cycles(const ArrayPlan& a, const ArrayPlan& b, const MemoryTiming& mem) {
  const ArraySpec& s = a.spec;
  FusedStageCycles c{};
  c.k_load = c.v_load = tile_load_cycles(s, mem);
  c.scores = score_tile_cycles(a);
  c.softmax = s.tile_m + 1;
  std::tie(c.o_passes, c.o_update) = o_update_cycles(s, b);
  return c;
}

ArraySpec size_downstream_array(const ArraySpec& a, ArraySpec b, const MemoryTiming& mem) {
  const std::map<std::string, uint32_t> scratch_cache = {{"acc", 1u << 30}};  // timing only
  const ArrayPlan pa = plan_array(a, scratch_cache, "acc");
  auto divisors = [](uint32_t n) {
    std::vector<uint32_t> d;
    for (uint32_t i = 1; i <= n; ++i)
      if (n % i == 0) d.push_back(i);
    return d;
  };
  b.tile_m = a.tile_m;  // an output-stationary array b holds the whole O tile
  b.tile_n = a.tile_k;
  b.tile_k = a.tile_n;
  if (b.stationarity() == Stationarity::kOutput) return b;
  const uint64_t pace = std::max(score_tile_cycles(pa), tile_load_cycles(a, mem));
  ArraySpec best = b;
  uint64_t best_cycles = ~0ull;
  for (uint32_t m : divisors(a.tile_m))
    for (uint32_t n : divisors(a.tile_k))
      for (uint32_t k : divisors(a.tile_n)) {
        if (n % mem.beat_bytes != 0 || k % mem.beat_bytes != 0) continue;  // rows in whole beats (validate_spec)
        ArraySpec c = b;
        c.tile_m = m;
        c.tile_n = n;
        c.tile_k = k;
        const uint64_t cycles = o_update_cycles(a, plan_array(c, scratch_cache, "acc")).second;
        const bool fits = cycles <= pace, best_fits = best_cycles <= pace;
        const bool better = fits != best_fits ? fits
                            : fits            ? c.pe_count() < best.pe_count() ||
                                         (c.pe_count() == best.pe_count() && cycles < best_cycles)
                                              : cycles < best_cycles;
        if (better) {
          best = c;
          best_cycles = cycles;
        }
      }
  return best;
}

namespace {

// A block of a registered kind: its parameters' units and descriptions come from the kind's
// declaration (src/blocks/<kind>/), the values from elaboration. Every declared parameter
// gets a value and every value is declared; every port is one the kind declares.
Block make_block(const std::string& name, const std::string& kind_name, const std::string& desc,
                 const std::vector<std::pair<std::string, int64_t>>& values, std::vector<Port> ports) {
  const BlockKind& kind = block_kind(kind_name);
  FSGEN_ASSERT(values.size() == kind.params.size(), "a value for every declared parameter of the block kind");
  Block b{name, kind_name, desc, {}, std::move(ports)};
  for (const ParamDecl& decl : kind.params) {
    const auto it = std::find_if(values.begin(), values.end(), [&](const auto& v) { return v.first == decl.name; });
    FSGEN_ASSERT(it != values.end(), "a value for every declared parameter of the block kind");
    b.params.push_back({decl.name, it->second, decl.unit, decl.desc});
  }
  for (const Port& port : b.ports) FSGEN_ASSERT(kind.port(port.name) != nullptr, "ports the block kind declares");
  return b;
}

Block csr_block() {
  return make_block("csr", "csr", block_kind("csr").description, {{"data_width", 32}}, {});
}

Block dma_block(const MemoryTiming& mem) {
  const uint32_t bits = mem.beat_bytes * 8;
  return make_block("dma", "dma", block_kind("dma").description,
                    {{"beat_bytes", mem.beat_bytes}, {"latency", mem.latency_cycles}, {"outstanding", mem.outstanding}},
                    {{"rdata", bits, false, "AXI4 read data from memory", "m_rdata"},
                     {"wdata", bits, true, "AXI4 write data to memory", "u_dma.wdata_q"}});
}

// Array `name` (a or b): the controller drives its operand buses `ctrl_x` and `ctrl_w`;
// a dot array's INT32 output vector is probed at its own register.
Block array_block(const ArrayPlan& p, const std::string& name, const std::string& ctrl_x, const std::string& ctrl_w,
                  const std::string& what) {
  const bool os = p.stationarity == Stationarity::kOutput;
  const bool rescale = name == "array_b";
  // A sparse array's operands come from its value networks, one value per row and lane.
  const bool sparse = p.sparse.skips_steps();
  const std::string x_desc = sparse ? "column of A per row and column lane, from the x value network"
                             : os   ? "column of A, broadcast along PE rows"
                                    : "streamed operand vector";
  const std::string w_desc = sparse ? "row of B per column and row lane, from the w value network"
                             : os   ? "row of B, broadcast down PE columns"
                                    : "stationary operand load bus";
  Block b = make_block(
      name, os ? (rescale ? "pe_array_rescale" : "pe_array_os") : "pe_array_dot",
      std::string(stationarity_name(p.stationarity)) + (p.spec.systolic ? " systolic" : "") + " INT8 PE array" + what,
      {{"rows", p.spec.pe_rows()},
       {"cols", p.spec.pe_cols()},
       {"tile_m", p.spec.tile_m},
       {"tile_n", p.spec.tile_n},
       {"tile_k", p.spec.tile_k},
       {"rescale", rescale ? 1 : 0},
       {"systolic", p.spec.systolic ? 1 : 0},
       {"stream_cycles", p.stream_cycles}},
      {{"x", p.x_bytes * 8, false, x_desc, sparse ? "u_net_x.out_q" : "u_ctrl." + ctrl_x},
       {"w", p.w_bytes * 8, false, w_desc, sparse ? "u_net_w.out_q" : "u_ctrl." + ctrl_w}});
  if (!os) b.ports.push_back({"y", p.y_lanes * 32, true, "INT32 dot products, one per lane", "u_" + name + ".y"});
  // The rescale multipliers (acc x alpha, combinational) switch when the controller writes a
  // row's factor in the softmax pass, cycles before the array streams.
  if (os && rescale)
    b.ports.push_back({"alpha", p.spec.tile_m * 32, false, "Q0.15 rescale factor per query row, written in the softmax pass",
                       "u_ctrl.alpha_q"});
  return b;
}

// The accumulator cache behind a dot array: `slots` output tiles of the array's m x n.
Block acc_cache_block(const std::string& name, const ArrayPlan& p, uint32_t bytes) {
  return make_block(name, "acc_cache", "accumulator cache of array " + name.substr(4),
                    {{"slots", p.acc_slots}, {"bytes", bytes}}, {});
}

// Requantises one row of a matmul output tile (`lanes` columns).
Block requant_block(uint32_t lanes) {
  return make_block("requant", "requant", block_kind("requant").description, {{"lanes", lanes}},
                    {{"in", lanes * 32, false, "accumulator row", "u_ctrl.acc_row_q"},
                     {"out", lanes * 8, true, "INT8 output row", "u_ctrl.out_row_q"}});
}

// The slots of one matmul operand's buffer (tensor "x" or "w", tiles of `tile_bytes`): the
// spec's count, checked, or two when they fit and the operand is not compressed.
uint32_t operand_slots(Graph& g, const char* tensor, uint64_t tile_bytes, uint32_t given, const std::string& place) {
  const uint64_t limit = g.spec.memory.buffer_limit_bytes;
  const std::string name = std::string(tensor) == "x" ? "A" : "B";
  if (g.sparse.memory.compresses(tensor)) {
    if (given > 1) fail(place, "a compressed " + name + "'s rows follow its metadata record, loaded before them: expected 1");
    g.single_buffered_why = "a compressed operand's rows follow its metadata record, loaded before them";
    return 1;
  }
  if (given > 0) {
    if (given * tile_bytes > limit)
      fail(place, std::to_string(given) + " tiles of " + name + " (" + std::to_string(given * tile_bytes) +
                      " B) exceed memory.buffer_limit_bytes (" + std::to_string(limit) + ")");
    if (given == 1) g.single_buffered_why = "memory.operand_tiles gives " + name + " one tile";
    return given;
  }
  if (2 * tile_bytes <= limit) return 2;
  g.single_buffered_why = "two tiles of " + name + " (" + std::to_string(2 * tile_bytes) +
                          " B) exceed memory.buffer_limit_bytes";
  return 1;
}

void plan_operand_slots(Graph& g) {
  const ArraySpec& a = g.array_a.spec;
  const MemorySpec& m = g.spec.memory;
  g.a_slots = operand_slots(g, "x", uint64_t(a.tile_m) * a.tile_k, m.operand_tiles_a, m.operand_tiles_a_place);
  g.b_slots = operand_slots(g, "w", uint64_t(a.tile_k) * g.matmul_tile_n(), m.operand_tiles_b, m.operand_tiles_b_place);
}

// The controller's operand buffers (fsgen_ctrl_buffer.v), sized once the slots are planned.
void add_operand_buffers(Graph& g) {
  const uint32_t word = g.memory.beat_bytes;
  g.blocks.push_back(make_block("buf_a", "op_buffer", "operand buffer of A tiles (Q, X in the fused kernels)",
                                {{"bytes", int64_t(g.buf_a_bytes())}, {"word_bytes", word}}, {}));
  g.blocks.push_back(make_block("buf_b", "op_buffer", "operand buffer of B tiles (K, V, W in the fused kernels)",
                                {{"bytes", int64_t(g.buf_b_bytes())}, {"word_bytes", word}}, {}));
}

// Array b of the fused kernels and, when both arrays are output-stationary, its role
// in matmul: a.n + b.n columns per tile, b's columns fed by the same A tile.
void plan_fused_array_b(Graph& g) {
  g.array_b = plan_array(g.spec.array_b, g.spec.cache_bytes, "acc_b");
  if (g.array_a.stationarity != Stationarity::kOutput || g.array_b.stationarity != Stationarity::kOutput) {
    g.matmul_alone_why = "array b joins matmuls only when both arrays are output-stationary, sharing A's column "
                         "stream and each keeping its own columns of C";
    return;
  }
  // Both arrays stream in the same cycles: equal phases when systolic (a.n = b.n).
  const ArraySpec &a = g.array_a.spec, &b = g.array_b.spec;
  if (a.systolic != b.systolic || (a.systolic && a.tile_n != b.tile_n)) {
    g.matmul_alone_why = "array b joins matmuls only when both arrays stream in the same cycles: both broadcast, or "
                         "both systolic with equal tiling.n";
    return;
  }
  if (g.sparse.a.sparse()) {
    g.matmul_alone_why = "a sparse array a streams as many cycles as its data needs: matmuls run on it alone";
    return;
  }
  g.matmul_on_both = true;
  ArraySpec mm = g.array_b.spec;
  mm.tile_k = g.array_a.spec.tile_k;  // streams A's k steps alongside array a
  g.array_b_matmul = plan_array(mm, g.spec.cache_bytes, "acc_b");
}

// K and V tile caches: slot t holds key tile t of the current KV head, so later query
// tiles and the other query heads of a GQA group (FFN: later token tiles) skip its load.
void add_kv_caches(Graph& g) {
  const uint32_t tile_bytes = g.spec.array_a.tile_n * g.spec.array_a.tile_k;
  for (const char* t : {"k", "v"}) {
    auto it = g.spec.cache_bytes.find(t);
    const uint32_t tiles = it == g.spec.cache_bytes.end() ? 0 : it->second / tile_bytes;
    (t[0] == 'k' ? g.k_cache_tiles : g.v_cache_tiles) = tiles;
    if (tiles == 0) continue;
    g.blocks.push_back(make_block(std::string(t) + "_cache", "tile_cache",
                                  std::string("on-chip cache of ") + (t[0] == 'k' ? "K (FFN: W1)" : "V (FFN: W2)") +
                                      " tiles of the current KV head; a hit skips the tile's DMA load",
                                  {{"tiles", tiles}, {"bytes", it->second}}, {}));
  }
}

// Attention: array a computes S = Q K^T into its accumulators, the softmax unit turns
// each score row into P (Q0.7) and per-row rescale factors, array b accumulates
// O = P V (rescaling its rows), and the normaliser divides O by the running sum.
void add_attention_blocks(Graph& g) {
  const ArraySpec& a = g.spec.array_a;
  const uint32_t tkv = a.tile_n, d = a.tile_k;
  g.blocks.push_back(array_block(g.array_b, "array_b", "xb_q", "wb_q", " for O = alpha O + P V"));
  if (g.array_b.acc_slots > 0) {
    g.blocks.push_back(acc_cache_block("acc_b", g.array_b, g.spec.cache_bytes.at("acc_b")));
    g.edges.push_back({"array_b", "y", "acc_b", "wr"});
  }
  add_kv_caches(g);
  g.blocks.push_back(make_block("softmax", "softmax", block_kind("softmax").description + " (docs/NUMERICS.md)",
                                {{"lanes", tkv}},
                                {{"in", tkv * 32, false, "INT32 score row from array a", "u_softmax.row_q"},
                                 {"out", tkv * 8, true, "Q0.7 probability row", "u_ctrl.p_row_q"}}));
  g.blocks.push_back(make_block("normalise", "normalise", block_kind("normalise").description, {{"lanes", d}},
                                {{"in", d * 32, false, "INT32 O row from array b", "u_ctrl.fin_in_q"},
                                 {"out", d * 8, true, "INT8 output row", "u_ctrl.fin_out_q"}}));
  // An input-stationary array b holds the P tile in its PEs and streams V through them.
  const bool p_stationary = g.array_b.stationarity == Stationarity::kInput;
  for (const Edge& e : std::vector<Edge>{{"array_a", "scores", "softmax", "in"},
                                         {"softmax", "out", "array_b", p_stationary ? "w" : "x"},
                                         {"ctrl", "v_rows", "array_b", p_stationary ? "x" : "w"},
                                         {"array_b", "o_rows", "normalise", "in"},
                                         {"normalise", "out", "dma", "wdata"}})
    g.edges.push_back(e);
}

// A compressed weight-stationary array stores T_k of every S_k / c weights of a lane, so
// its w condition must promise no more: an N:M pattern with M dividing S_k / c and
// N (S_k / c) / M <= T_k.
void require_fitting_pattern(const ArraySparsity& a, const std::string& where) {
  const uint32_t rows = a.tiling[2].s / a.slot_groups(), slots = a.tiling[2].t;
  const uint32_t n = a.w_pattern_n, m = a.w_pattern_m;
  if (m == 0 || rows % m != 0 || n * (rows / m) > slots)
    fail(where, "condition '" + a.w_condition + "' of w: the lanes of this dot array hold " + std::to_string(slots) +
                    " of every " + std::to_string(rows) + " k rows of w; expected an N:M pattern with M dividing " +
                    std::to_string(rows) + " and at most " + std::to_string(slots) + " non-zeros in " +
                    std::to_string(rows) + " (for example " + std::to_string(slots) + ":" + std::to_string(rows) + ")");
}

// What the generator builds of a sparse plan (docs/SPARSITY.md): value networks in front
// of an output-stationary array a (broadcast or systolic), compressed N:M weights held by a
// weight-stationary array a (matmul), block TopK over key tiles, causal and sliding windows
// in the fused attention kernel, compressed matmul operands. Anything else is elaborated (fsgen check
// shows it) and refused here, naming what it would need.
void require_sparse_hardware(const Graph& g) {
  const SparsePlan& sp = g.sparse;
  if (!sp.any()) return;
  const std::string design = sp.a.sparse() ? "sparse design " + sp.a.name() + " (networks x " + sp.a.net_x.topology +
                                                 ", w " + sp.a.net_w.topology + ")"
                                           : "design " + g.spec.name;
  auto refuse = [&](const std::string& place, const std::string& what) {
    fail(place, design + ": " + what + " is elaborated but not yet built in Verilog and SystemC");
  };
  for (const SparseMapping& sm : g.spec.sparsity) {
    // Causal attention's key loop already stops at the last query; a sliding window starts it later.
    if (sm.kind == "memory_group" && (sm.condition == "causal" || sm.condition == "sliding")) continue;
    // Compressed matmul operands: the DMA skips their all-zero tile rows.
    if (sm.kind == "memory_value" && (sm.tensor == "x" || sm.tensor == "w")) continue;
    // Block TopK over key tiles: the controller ranks them before each query tile's key loop.
    if (sm.kind == "compute_group" && sm.block != g.array_a.spec.tile_n)
      refuse(sm.place, "block TopK with blocks of " + std::to_string(sm.block) + " keys (built: one key tile, block = " +
                           std::to_string(g.array_a.spec.tile_n) + ")");
    if (sm.kind == "compute_group") continue;
    if (sm.kind != "compute_value") refuse(sm.place, sm.kind + " sparsity (" + sm.condition + ")");
    if (sm.tensor == "p" || sm.tensor == "v") refuse(sm.place, "compute_value sparsity on array b's operand " + sm.tensor);
  }
  if (!sp.a.sparse() && !sp.b.sparse()) return;
  const std::string where = sp.a.tiling[2].place;
  if (g.array_a.stationarity == Stationarity::kOutput) return;
  if (g.array_a.stationarity != Stationarity::kWeight)
    refuse(where, "a value network in front of a " + std::string(stationarity_name(g.array_a.stationarity)) + " array");
  if (sp.a.x_sparse) refuse(where, "skipping zero x (the streamed operand) on a dot array");
  require_fitting_pattern(sp.a, where);
}

// Sparse lanes widen the array's operand buses: one x value per row and column lane,
// one w value per column and row lane.
void add_value_networks(ArrayPlan& p, const ArraySparsity& s) {
  p.sparse = s;
  if (!s.skips_steps()) return;
  p.x_bytes = p.spec.tile_m * s.lanes_n();
  p.w_bytes = p.spec.tile_n * s.lanes_m();
}

Block network_block(const std::string& name, const ValueNetwork& net, uint32_t rows) {
  const NetworkParams& n = net.params;
  return make_block(name, "sparse_net",
                    "value network " + net.topology + " for operand " + net.tensor + ": " + std::to_string(n.lanes) +
                        " lane(s) per row, each picking one of " + std::to_string(n.i) + " window values",
                    {{"rows", rows}, {"c", n.c}, {"g", n.g}, {"m", n.m}, {"i", n.i}, {"o", n.o}, {"s", n.s},
                     {"lanes", n.lanes}},
                    {});
}

// The skew registers between a systolic sparse array and the value network of operand x
// (or w), fsgen_skew.v.
Block skew_block(const std::string& name, const ArrayInstance& inst) {
  return make_block(name, "skew", block_kind("skew").description,
                    {{"groups", inst.params.at("N")}, {"lanes", inst.params.at("B")}}, {});
}

void add_network_blocks(Graph& g) {
  const ArrayPlan& p = g.array_a;
  g.blocks.push_back(network_block("net_x", p.sparse.net_x, p.spec.tile_m));
  g.blocks.push_back(network_block("net_w", p.sparse.net_w, p.spec.tile_n));
  for (Edge& e : g.edges)
    if (e.from_block == "ctrl" && e.to_block == "array_a") e.from_block = e.to_port == "x" ? "net_x" : "net_w";
  g.edges.push_back({"ctrl", "x_window", "net_x", "win"});
  g.edges.push_back({"ctrl", "w_window", "net_w", "win"});
  if (!p.spec.systolic) return;
  for (const bool x : {true, false}) {
    const std::string skew = x ? "skew_x" : "skew_w", net = x ? "net_x" : "net_w";
    g.blocks.push_back(skew_block(skew, skew_instance(p, x)));
    for (Edge& e : g.edges)
      if (e.from_block == net && e.to_block == "array_a") e.from_block = skew, e.from_port = "out";
    g.edges.push_back({net, "out", skew, "in"});
  }
}

}  // namespace

Graph elaborate(const DesignSpec& spec) {
  Graph g;
  g.spec = spec;
  g.memory.latency_cycles = spec.memory.latency_cycles;
  g.memory.beat_bytes = spec.beat_bytes();
  g.memory.outstanding = spec.memory.outstanding;
  g.sparse = plan_sparsity(spec);
  g.array_a = plan_array(spec.array_a, spec.cache_bytes, "acc_a");
  g.attention = spec.attention_kernel;
  if (g.attention) plan_fused_array_b(g);
  require_sparse_hardware(g);
  add_value_networks(g.array_a, g.sparse.a);

  g.blocks.push_back(csr_block());
  // A fused core's controller also sequences the fused kernels (its P tile, running
  // softmax state and activation table): a primitive of its own kind.
  if (g.attention)
    g.blocks.push_back(make_block("ctrl", "fused_ctrl", block_kind("fused_ctrl").description, {}, {}));
  else
    g.blocks.push_back(make_block("ctrl", "ctrl", block_kind("ctrl").description, {}, {}));
  g.blocks.push_back(dma_block(g.memory));
  g.blocks.push_back(array_block(g.array_a, "array_a", "x_q", "w_q", ""));
  if (g.array_a.acc_slots > 0) g.blocks.push_back(acc_cache_block("acc_a", g.array_a, spec.cache_bytes.at("acc_a")));
  g.blocks.push_back(requant_block(g.matmul_tile_n()));
  g.edges = {{"csr", "regs", "ctrl", "regs"},     {"ctrl", "cmd", "dma", "cmd"},
             {"dma", "rd", "ctrl", "buffers"},    {"ctrl", "x", "array_a", "x"},
             {"ctrl", "w", "array_a", "w"},       {"ctrl", "acc_row", "requant", "in"},
             {"requant", "out", "dma", "wdata"}};
  if (g.array_a.sparse.skips_steps()) add_network_blocks(g);
  if (g.array_a.acc_slots > 0) {
    g.edges.push_back({"array_a", "y", "acc_a", "wr"});
    g.edges.push_back({"acc_a", "rd", "ctrl", "acc_row"});
  }
  if (g.attention) add_attention_blocks(g);
  plan_operand_slots(g);
  add_operand_buffers(g);
  return g;
}

ArrayInstance array_instance(const ArrayPlan& p, bool is_array_b) {
  if (p.stationarity == Stationarity::kOutput) {
    ArrayInstance inst{"fsgen_array_os",
                       {{"R", p.spec.tile_m}, {"C", p.spec.tile_n}, {"RESCALE", is_array_b ? 1 : 0},
                        {"SYSTOLIC", p.spec.systolic ? 1 : 0}}};
    if (p.sparse.skips_steps()) {  // lane buses from the value networks
      inst.params["LM"] = p.sparse.lanes_m();
      inst.params["LN"] = p.sparse.lanes_n();
    }
    return inst;
  }
  ArrayInstance inst{"fsgen_array_dot",
                     {{"P", p.y_lanes}, {"K", p.spec.tile_k}, {"LOAD_COL", p.stationarity == Stationarity::kWeight ? 1 : 0}}};
  if (p.sparse.holds_compressed()) {  // lanes of fewer MACs holding the non-zero weights
    inst.params["SLOTS"] = p.sparse.slots();
    inst.params["CG"] = p.sparse.slot_groups();
  }
  return inst;
}

ArrayInstance value_network_instance(const ArrayPlan& p, bool x) {
  const ArraySparsity& sp = p.sparse;
  const NetworkParams& n = (x ? sp.net_x : sp.net_w).params;
  return {"fsgen_sparse_net",
          {{"ROWS", x ? p.spec.tile_m : p.spec.tile_n},
           {"SK", sp.window()},
           {"LANES", x ? sp.lanes_n() : sp.lanes_m()},
           {"OWN_LANES", x ? sp.lanes_m() : sp.lanes_n()},
           {"OWN_MAJOR", x ? 1 : 0},
           {"GROUPS", n.g},
           {"SELW", select_bits(sp.window())},
           {"C", n.c},
           {"M", n.m},
           {"I", n.i},
           {"O", n.o},
           {"S", n.s}}};
}

ArrayInstance acc_cache_instance(const Graph& g, bool is_array_b) {
  const ArraySpec& a = g.array_a.spec;
  const ArrayPlan& p = is_array_b ? g.array_b : g.array_a;
  const bool rows = p.stationarity == Stationarity::kWeight;  // a write is a row of the tile
  if (is_array_b)  // the O tile: a.m queries x a.k head dims, written p.y_lanes at a time
    return {"fsgen_acc_cache",
            {{"TM", a.tile_m}, {"TN", a.tile_k}, {"SLOTS", 1}, {"ROWWISE", rows}, {"RESCALE", 1}, {"LANES", p.y_lanes}}};
  return {"fsgen_acc_cache",
          {{"TM", a.tile_m},
           {"TN", a.tile_n},
           {"SLOTS", p.acc_slots},
           {"ROWWISE", rows},
           {"RESCALE", 0},
           {"LANES", rows ? a.tile_n : a.tile_m}}};
}

int stationarity_code(Stationarity s) {
  return s == Stationarity::kOutput ? 0 : s == Stationarity::kWeight ? 1 : 2;
}

ArrayInstance ctrl_instance(const Graph& g) {
  const ArrayPlan& p = g.array_a;
  const ArraySpec& a = p.spec;
  ArrayInstance c{"fsgen_ctrl",
                  {{"TM", a.tile_m},
                   {"TN", a.tile_n},
                   {"TK", a.tile_k},
                   {"W", g.memory.beat_bytes},
                   {"ST", stationarity_code(p.stationarity)},
                   {"ORD0", static_cast<int>(a.loop_order[0])},
                   {"ORD1", static_cast<int>(a.loop_order[1])},
                   {"ORD2", static_cast<int>(a.loop_order[2])},
                   {"M_LIVE", a.m_inside_k() ? 1 : 0},
                   {"N_LIVE", a.n_inside_k() ? 1 : 0},
                   {"ATTN", g.attention ? 1 : 0},
                   // Without the fused kernels array b's ports keep their output-stationary widths.
                   {"STB", g.attention ? stationarity_code(g.array_b.stationarity) : 0},
                   {"KC", g.k_cache_tiles},
                   {"VC", g.v_cache_tiles},
                   {"DUAL", g.matmul_on_both ? 1 : 0},
                   {"SYS_A", a.systolic ? 1 : 0},
                   {"SYS_B", g.attention && g.array_b.spec.systolic ? 1 : 0},
                   {"SA", g.a_slots},
                   {"SB", g.b_slots},
                   {"TAGW", g.read_tag_bits()}}};
  auto& prm = c.params;
  if (g.sliding_window()) prm["WIN"] = g.sliding_window();
  const GroupNetwork& topk = g.sparse.group;
  if (topk.present) prm["GRP"] = 1, prm["TOPK"] = topk.topk, prm["GT"] = topk.params.i;
  const MemorySparsity& ms = g.sparse.memory;
  const uint32_t beat = g.memory.beat_bytes;
  if (ms.compresses("x")) prm["CMP_A"] = 1, prm["MA_BEATS"] = metadata_record_bytes(a.tile_m, beat) / beat;
  if (ms.compresses("w")) prm["CMP_B"] = 1, prm["MB_BEATS"] = metadata_record_bytes(a.tile_k, beat) / beat;
  const ArraySparsity& sp = p.sparse;
  if (sp.skips_steps()) {
    prm["SPARSE"] = 1, prm["SK"] = sp.window(), prm["LM"] = sp.lanes_m(), prm["LN"] = sp.lanes_n();
    prm["XSP"] = sp.x_sparse ? 1 : 0, prm["WSP"] = sp.w_sparse ? 1 : 0;
  }
  if (g.attention)
    prm["BM"] = g.array_b.spec.tile_m, prm["BN"] = g.array_b.spec.tile_n, prm["BK"] = g.array_b.spec.tile_k;
  return c;
}

std::optional<ArrayInstance> block_instance(const Graph& g, const std::string& block) {
  if ((block == "acc_a" || block == "acc_b") && g.has_block(block)) return acc_cache_instance(g, block == "acc_b");
  if (block == "array_a") return array_instance(g.array_a, false);
  if (block == "array_b" && g.attention) return array_instance(g.array_b, true);
  if ((block == "net_x" || block == "net_w") && g.array_a.sparse.skips_steps())
    return value_network_instance(g.array_a, block == "net_x");
  if (block == "dma")
    return ArrayInstance{"fsgen_dma", {{"W", g.memory.beat_bytes}, {"OUT", g.memory.outstanding}, {"TAGW", g.read_tag_bits()}}};
  if (block == "softmax" && g.attention)
    return ArrayInstance{"fsgen_softmax", {{"TN", g.array_a.spec.tile_n}, {"WIN", g.sliding_window()}}};
  if (block == "ctrl") return ctrl_instance(g);
  if (block == "csr") return ArrayInstance{"fsgen_csr", {}};
  return std::nullopt;
}

bool priced_with_controller(const Graph& g, const std::string& block) {
  return block_kind(g.block(block).kind).priced_with_controller();
}

ArrayInstance skew_instance(const ArrayPlan& p, bool x) {
  const ArraySparsity& sp = p.sparse;
  return {"fsgen_skew", {{"N", x ? p.spec.tile_m : p.spec.tile_n}, {"B", x ? sp.lanes_n() : sp.lanes_m()}}};
}

}  // namespace fsgen
