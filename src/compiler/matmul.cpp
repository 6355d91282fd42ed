#include "compiler/matmul.h"

#include <algorithm>
#include <random>

#include "compiler/lane_capacity.h"
#include "core/compression.h"
#include "core/error.h"
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

}  // namespace

namespace {

// The program with operands a and b, or (both null) only the layout.
Program build(const Graph& g, const MatmulProblem& p, const std::vector<int8_t>* a, const std::vector<int8_t>* b) {
  const ArrayPlan& plan = g.array_a;
  const uint32_t tm = m_tiles(g, p.m);
  const uint32_t tn = tiles_of(p.n, g.matmul_tile_n(), "n");
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
  const std::vector<int8_t> bt = b && b_transposed ? transposed(*b, p.k, p.n) : std::vector<int8_t>{};
  const uint32_t addr_b = input("B", b_transposed && b ? &bt : b, size_t(p.k) * p.n);
  if (b) require_lanes_fit(g, *b, p.n, p.k, 1, p.n, "matmul operand B");  // lanes: columns of B
  const uint32_t addr_c = prog.add_output("C", uint64_t(p.m) * p.n);
  prog.writes = {{reg::kKernel, static_cast<uint32_t>(reg::Kernel::kMatmul)},
                 {reg::kTilesM, tm},
                 {reg::kLenQ, p.m % plan.spec.tile_m ? p.m : 0u},
                 {reg::kTilesN, tn},
                 {reg::kTilesK, tk},
                 {reg::kAddrA, addr_a},
                 {reg::kAddrB, addr_b},
                 {reg::kAddrC, addr_c},
                 {reg::kStrideA, p.k},
                 {reg::kStrideB, b_transposed ? p.k : p.n},
                 {reg::kMmFlags, b_transposed ? 1u : 0u},
                 {reg::kStrideC, p.n},
                 {reg::kReqMult, p.req_mult},
                 {reg::kReqShift, p.req_shift}};
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

Program compile_matmul(const Graph& g, const MatmulProblem& p, Materialise what) {
  if (what == Materialise::kLayoutOnly) return build(g, p, nullptr, nullptr);
  SyntheticValues dense = p.values;
  dense.zero_fraction = 0;
  auto a = random_int8(size_t(p.m) * p.k, p.seed, p.zeros_in_a ? p.values : dense);
  auto b = random_int8(size_t(p.k) * p.n, p.seed + 1, p.zeros_in_b ? p.values : dense);
  if (p.pattern.active() && p.zeros_in_a) prune_structured(a.data(), p.m, p.k, true, p.pattern);
  if (p.pattern.active() && p.zeros_in_b) prune_structured(b.data(), p.k, p.n, false, p.pattern);
  return build(g, p, &a, &b);
}

Program compile_matmul(const Graph& g, const MatmulProblem& p, const std::vector<int8_t>& a, const std::vector<int8_t>& b) {
  return build(g, p, &a, &b);
}

std::vector<uint8_t> matmul_expected(const Program& prog, const MatmulProblem& p) {
  const auto& a = prog.inputs.at(0).bytes;
  const auto& b = prog.inputs.at(1).bytes;
  std::vector<int8_t> b_kn(b.begin(), b.end());
  const bool b_transposed = std::any_of(prog.writes.begin(), prog.writes.end(), [](const RegWrite& w) {
    return w.offset == reg::kMmFlags && (w.value & 1);
  });
  if (b_transposed) b_kn = transposed(b_kn, p.n, p.k);
  auto c = num::matmul_reference(std::vector<int8_t>(a.begin(), a.end()), b_kn, p.m, p.n, p.k, p.req_mult, p.req_shift);
  return std::vector<uint8_t>(c.begin(), c.end());
}

}  // namespace fsgen
