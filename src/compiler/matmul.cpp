#include "compiler/matmul.h"

#include <random>

#include "core/error.h"
#include "core/numerics.h"
#include "core/regmap.h"

namespace fsgen {

std::vector<int8_t> random_int8(size_t count, uint64_t seed, double zero_fraction) {
  std::mt19937_64 rng(seed);
  std::uniform_int_distribution<int> value(-128, 127);
  std::uniform_real_distribution<double> coin(0.0, 1.0);
  std::vector<int8_t> v(count);
  for (auto& x : v) x = coin(rng) < zero_fraction ? 0 : static_cast<int8_t>(value(rng));
  return v;
}

namespace {

uint32_t tiles_of(uint32_t dim, uint32_t tile, const char* name) {
  if (dim == 0 || dim % tile != 0)
    fail(std::string("matmul ") + name, "dimension " + std::to_string(dim) + " is not a positive multiple of the tile " +
                                            std::to_string(tile));
  if (dim / tile > 65535) fail(std::string("matmul ") + name, "more than 65535 tiles");
  return dim / tile;
}

}  // namespace

Program compile_matmul(const Graph& g, const MatmulProblem& p, Materialise what) {
  const ArrayPlan& plan = g.array_a;
  const uint32_t tm = tiles_of(p.m, plan.spec.tile_m, "m");
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
  auto input = [&](const char* name, size_t bytes, uint64_t seed) {
    return what == Materialise::kOperands ? prog.add_input(name, random_int8(bytes, seed, p.zero_fraction))
                                          : prog.reserve_input(name, bytes);
  };
  const uint32_t addr_a = input("A", size_t(p.m) * p.k, p.seed);
  const uint32_t addr_b = input("B", size_t(p.k) * p.n, p.seed + 1);
  const uint32_t addr_c = prog.add_output("C", uint64_t(p.m) * p.n);
  prog.writes = {{reg::kKernel, static_cast<uint32_t>(reg::Kernel::kMatmul)},
                 {reg::kTilesM, tm},
                 {reg::kTilesN, tn},
                 {reg::kTilesK, tk},
                 {reg::kAddrA, addr_a},
                 {reg::kAddrB, addr_b},
                 {reg::kAddrC, addr_c},
                 {reg::kStrideA, p.k},
                 {reg::kStrideB, p.n},
                 {reg::kStrideC, p.n},
                 {reg::kReqMult, p.req_mult},
                 {reg::kReqShift, p.req_shift},
                 {reg::kCtrl, 1}};
  return prog;
}

std::vector<uint8_t> matmul_expected(const Program& prog, const MatmulProblem& p) {
  const auto& a = prog.inputs.at(0).bytes;
  const auto& b = prog.inputs.at(1).bytes;
  auto c = num::matmul_reference(std::vector<int8_t>(a.begin(), a.end()), std::vector<int8_t>(b.begin(), b.end()),
                                 p.m, p.n, p.k, p.req_mult, p.req_shift);
  return std::vector<uint8_t>(c.begin(), c.end());
}

}  // namespace fsgen
