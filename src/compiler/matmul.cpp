#include "compiler/matmul.h"

#include <algorithm>
#include <random>

#include "compiler/lane_capacity.h"
#include "core/compression.h"
#include "core/error.h"
#include "core/ffn_numerics.h"
#include "core/numerics.h"
#include "core/regmap.h"

namespace fsgen {

namespace {

// The rows x cols row-major matrix m as cols x rows.
std::vector<int8_t> transposed(const std::vector<int8_t>& m, uint32_t rows, uint32_t cols) {
  std::vector<int8_t> t(m.size());
  for (uint32_t r = 0; r < rows; ++r)
    for (uint32_t c = 0; c < cols; ++c) t[size_t(c) * rows + r] = m[size_t(r) * cols + c];
  return t;
}

uint32_t tiles_of(uint32_t dim, uint32_t tile, const char* name) {
  if (dim == 0 || dim % tile != 0)
    fail(std::string("matmul ") + name, "dimension " + std::to_string(dim) + " is not a positive multiple of the tile " +
                                            std::to_string(tile));
  if (dim / tile > 65535) fail(std::string("matmul ") + name, "more than 65535 tiles");
  return dim / tile;
}

// Tiles of A's and C's M rows: the last may be partial (its rows past M are neither fetched
// nor stored; len_q holds M), unless A is compressed (its metadata records cover whole tiles).
uint32_t m_tiles(const Graph& g, uint32_t m) {
  const uint32_t tile = g.array_a.spec.tile_m;
  if (m % tile == 0 || g.sparse.memory.compresses("x")) return tiles_of(m, tile, "m");
  if (m > 65535) fail("matmul m", "rows " + std::to_string(m) + " not a multiple of the tile " + std::to_string(tile) +
                                      ": expected at most 65535 (len_q)");
  return (m + tile - 1) / tile;
}

// Where a gated epilogue's B (W1's n columns, then W3's) goes in memory: by tiles of `tn`
// columns, each W1 tile followed by the W3 tile of the same columns (the pairs the
// controller stores together).
std::vector<int8_t> interleave_gate_tiles(const std::vector<int8_t>& b, uint32_t k, uint32_t n, uint32_t tn) {
  std::vector<int8_t> out(b.size());
  for (uint32_t r = 0; r < k; ++r)
    for (uint32_t c = 0; c < 2 * n; ++c) {
      const uint32_t col = c % n, w3 = c / n;
      out[size_t(r) * 2 * n + (col / tn) * 2 * tn + w3 * tn + col % tn] = b[size_t(r) * 2 * n + c];
    }
  return out;
}

// The epilogue's rules on the design (fsgen_ctrl.v's mm_act, mm_hold).
void check_epilogue(const Graph& g, const MatmulProblem& p) {
  const MatmulEpilogue& e = p.epilogue;
  if (!e.active()) return;
  const std::string where = "matmul epilogue on design '" + g.spec.name + "'";
  if (!num::is_activation(e.activation))
    fail(where, "activation '" + e.activation + "': expected silu, gelu, gelu_tanh or relu");
  const std::string why = epilogue_unsupported_why(g, e.gated);
  if (!why.empty()) fail(where, why);
}

}  // namespace

namespace {

// The program with operands a and b, or (both null) only the layout.
Program build(const Graph& g, const MatmulProblem& p, const std::vector<int8_t>* a, const std::vector<int8_t>* b) {
  const ArrayPlan& plan = g.array_a;
  const uint32_t tm = m_tiles(g, p.m);
  const uint32_t tn = tiles_of(p.b_columns(), g.matmul_tile_n(), "n");
  check_epilogue(g, p);
  const uint32_t tk = tiles_of(p.k, plan.spec.tile_k, "k");
  if (p.req_shift > 31) fail("matmul req_shift", "expected 0..31, got " + std::to_string(p.req_shift));
  if (plan.acc_slots > 0) {
    const uint64_t live = uint64_t(plan.spec.m_inside_k() ? tm : 1) * (plan.spec.n_inside_k() ? tn : 1);
    if (live > plan.acc_slots)
      fail("matmul " + std::to_string(p.m) + "x" + std::to_string(p.n) + "x" + std::to_string(p.k),
           "loop order keeps " + std::to_string(live) + " output tiles live but the accumulator cache of design '" +
               g.spec.name + "' holds " + std::to_string(plan.acc_slots));
  }
  Program prog;
  prog.design = g.spec.name;
  prog.kernel = "matmul m=" + std::to_string(p.m) + " n=" + std::to_string(p.n) + " k=" + std::to_string(p.k);
  auto input = [&](const char* name, const std::vector<int8_t>* values, size_t bytes) {
    if (values && values->size() != bytes)
      fail(std::string("matmul operand ") + name, "expected " + std::to_string(bytes) + " bytes, got " + std::to_string(values->size()));
    return values ? prog.add_input(name, *values) : prog.reserve_input(name, bytes);
  };
  const uint32_t addr_a = input("A", a, size_t(p.m) * p.k);
  // B goes to memory transposed, as N rows of K bytes (an nn.Linear weight's own layout),
  // when a tile's rows are longer that way (tile_k bytes against tile n's): fewer, longer
  // bursts keep more beats in flight. A compressed B keeps its K x N rows, which its metadata
  // describes.
  const bool b_transposed = !g.sparse.memory.compresses("w") && plan.spec.tile_k > g.matmul_tile_n();
  const uint32_t nb = p.b_columns();
  std::vector<int8_t> b_mem = b && p.epilogue.gated ? interleave_gate_tiles(*b, p.k, p.n, g.matmul_tile_n())
                              : b                   ? *b
                                                    : std::vector<int8_t>{};
  if (b && b_transposed) b_mem = transposed(b_mem, p.k, nb);
  const uint32_t addr_b = input("B", b ? &b_mem : nullptr, size_t(p.k) * nb);
  if (b) require_lanes_fit(g, *b, nb, p.k, 1, nb, "matmul operand B");  // lanes: columns of B
  const uint32_t addr_c = prog.add_output("C", uint64_t(p.m) * p.n);
  prog.writes = {
      {reg::kKernel, static_cast<uint32_t>(reg::Kernel::kMatmul)},
      {reg::kTilesM, tm},
      {reg::kLenQ, p.m % plan.spec.tile_m ? p.m : 0u},
      {reg::kTilesN, tn},
      {reg::kTilesK, tk},
      {reg::kAddrA, addr_a},
      {reg::kAddrB, addr_b},
      {reg::kAddrC, addr_c},
      {reg::kStrideA, p.k},
      {reg::kStrideB, b_transposed ? p.k : nb},
      {reg::kMmFlags, (b_transposed ? 1u : 0u) | (p.epilogue.active() ? 2u : 0u) | (p.epilogue.gated ? 4u : 0u)},
      {reg::kStrideC, p.n},
      {reg::kReqMult, p.req_mult},
      {reg::kReqShift, p.req_shift}};
  if (p.epilogue.active()) {
    const MatmulEpilogue& e = p.epilogue;
    const std::vector<int8_t> table(e.table.begin(), e.table.end());
    const uint32_t addr_lut = a ? prog.add_input("LUT", table) : prog.reserve_input("LUT", table.size());
    prog.writes.insert(prog.writes.end(), {{reg::kAddrLut, addr_lut},
                                           {reg::kScoreMult, e.scaling.u.mult},
                                           {reg::kScoreShift, e.scaling.u.shift},
                                           {reg::kGateMult, e.scaling.g.mult},
                                           {reg::kGateShift, e.scaling.g.shift},
                                           {reg::kHidMult, e.scaling.h.mult},
                                           {reg::kHidShift, e.scaling.h.shift},
                                           {reg::kLenKv, plan.spec.tile_n},  // every column of a tile
                                           {reg::kAttnFlags, 0}});
  }
  // Compressed operands (memory-value sparsity): their row metadata, tile by tile.
  const uint32_t beat = g.memory.beat_bytes;
  auto metadata = [&](const char* name, const std::vector<int8_t>* m, uint32_t rows, uint32_t cols, uint32_t tr,
                      uint32_t tc, reg::Offset r) {
    const std::vector<int8_t> meta = m ? row_metadata(*m, rows, cols, tr, tc, beat) : std::vector<int8_t>{};
    const uint64_t bytes = uint64_t(rows / tr) * (cols / tc) * metadata_record_bytes(tr, beat);
    prog.writes.push_back({r, m ? prog.add_input(name, meta) : prog.reserve_input(name, bytes)});
  };
  if (g.sparse.memory.compresses("x")) metadata("A_meta", a, p.m, p.k, plan.spec.tile_m, plan.spec.tile_k, reg::kAddrMetaA);
  if (g.sparse.memory.compresses("w")) metadata("B_meta", b, p.k, p.n, plan.spec.tile_k, g.matmul_tile_n(), reg::kAddrMetaB);
  prog.writes.push_back({reg::kCtrl, 1});
  return prog;
}

}  // namespace

std::string epilogue_unsupported_why(const Graph& g, bool gated) {
  if (!g.attention) return "the activation unit is part of the fused datapath: add attention to the kernels";
  if (g.matmul_on_both)
    return "the activation unit takes array a's tile_n columns, and this design's matmul tile spans both arrays";
  if (256 % g.array_a.spec.tile_k != 0)
    return "the activation table loads in rows of tiling.k = " + std::to_string(g.array_a.spec.tile_k) +
           " bytes: expected a divisor of 256";
  const auto& order = g.array_a.spec.loop_order;
  const auto pos = [&](Iter i) { return std::find(order.begin(), order.end(), i) - order.begin(); };
  if (gated && pos(Iter::kN) < pos(Iter::kM))
    return "a gated epilogue stores each W3 tile right after its W1 tile: expected a loop order with m outside n";
  return "";
}

Program compile_matmul(const Graph& g, const MatmulProblem& p, Materialise what) {
  if (what == Materialise::kLayoutOnly) return build(g, p, nullptr, nullptr);
  SyntheticValues dense = p.values;
  dense.zero_fraction = 0;
  auto a = random_int8(size_t(p.m) * p.k, p.seed, p.zeros_in_a ? p.values : dense);
  auto b = random_int8(size_t(p.k) * p.b_columns(), p.seed + 1, p.zeros_in_b ? p.values : dense);
  if (p.pattern.active() && p.zeros_in_a) prune_structured(a.data(), p.m, p.k, true, p.pattern);
  if (p.pattern.active() && p.zeros_in_b) prune_structured(b.data(), p.k, p.b_columns(), false, p.pattern);
  MatmulProblem q = p;
  check_epilogue(g, q);  // before its table is made
  if (q.epilogue.active()) q.epilogue.table = synthetic_activation_table(q.epilogue.activation);
  return build(g, q, &a, &b);
}

Program compile_matmul(const Graph& g, const MatmulProblem& p, const std::vector<int8_t>& a, const std::vector<int8_t>& b) {
  return build(g, p, &a, &b);
}

std::vector<uint8_t> matmul_expected(const Program& prog, const MatmulProblem& p) {
  const auto& a = prog.inputs.at(0).bytes;
  const auto& b = prog.inputs.at(1).bytes;
  const uint32_t nb = p.b_columns();
  auto written = [&](reg::Offset r) {
    const auto w =
        std::find_if(prog.writes.begin(), prog.writes.end(), [&](const RegWrite& x) { return x.offset == r; });
    return w == prog.writes.end() ? 0u : w->value;
  };
  std::vector<int8_t> b_kn(b.begin(), b.end());  // B as it is in memory, K x nb
  if (written(reg::kMmFlags) & 1) b_kn = transposed(b_kn, nb, p.k);
  const auto acc = num::matmul_accumulators(std::vector<int8_t>(a.begin(), a.end()), b_kn, p.m, nb, p.k);
  MatmulEpilogue e = p.epilogue;
  if (e.active()) {  // the table the program loads
    const auto lut =
        std::find_if(prog.inputs.begin(), prog.inputs.end(), [](const auto& in) { return in.name == "LUT"; });
    FSGEN_ASSERT(lut != prog.inputs.end() && lut->bytes.size() == e.table.size(),
                 "an epilogue's program loads its table");
    std::copy(lut->bytes.begin(), lut->bytes.end(), reinterpret_cast<uint8_t*>(e.table.data()));
  }
  const uint32_t tile = nb / written(reg::kTilesN);  // gated: W1 and W3 tiles of `tile` columns take turns
  std::vector<uint8_t> c(size_t(p.m) * p.n);
  for (uint32_t i = 0; i < p.m; ++i)
    for (uint32_t j = 0; j < p.n; ++j) {
      const int32_t* row = acc.data() + size_t(i) * nb;
      int8_t v;
      if (!e.active())
        v = num::requantize(row[j], p.req_mult, p.req_shift);
      else if (!e.gated)
        v = num::ffn_hidden(row[j], nullptr, e.table, e.scaling);
      else {
        const uint32_t u = (j / tile) * 2 * tile + j % tile;
        v = num::ffn_hidden(row[u], &row[u + tile], e.table, e.scaling);
      }
      c[size_t(i) * p.n + j] = static_cast<uint8_t>(v);
    }
  return c;
}

}  // namespace fsgen
